//! Everything that speaks the Codex CLI's formats: `config.toml` (the MCP
//! server, the hooks feature flag, hook trust), `hooks.json` (pms's hooks,
//! merged with the rules Claude Code's settings.json gets). Its session
//! logs ("rollouts") are read as transcripts by `super::transcript`. The
//! contract, checked against Codex 0.169.0, is summarised in
//! docs/architecture.md.

pub mod config;
pub mod hooks;

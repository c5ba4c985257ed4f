//! pms: a personal memory system for Claude Code, Codex and OpenClaw.
//!
//! The binary (`src/main.rs`) parses the command line and calls into the
//! modules here; docs/architecture.md maps them and the data flowing between
//! them.

pub mod agent;
pub mod claude;
pub mod cli;
pub mod cmd;
pub mod codex;
pub mod context;
pub mod durable;
pub mod embed;
pub mod env;
pub mod error;
pub mod hooks;
pub mod index;
pub mod install;
pub mod lessons;
pub mod log;
pub mod mcp;
pub mod notes;
pub mod openclaw;
pub mod progress;
pub mod redact;
pub mod search;
pub mod sessions;
pub mod ui;
pub mod upgrade;
pub mod upkeep;
pub mod verify;
pub mod wiring;
pub mod words;
pub mod workspace;

//! pms's integration tests, in one binary (it links once, which matters on a
//! 2-core machine): the real `pms` binary in temporary HOMEs, property tests,
//! the pty wizard, labelled quality sets, the Python MCP SDK client and the
//! real Claude Code CLI. `support/` holds what they share.

mod support;

mod action_lessons;
mod agents;
mod architecture;
mod cli_conventions;
mod crash;
mod domain_triggers;
mod e2e_claude;
mod e2e_codex;
mod e2e_openclaw;
mod embeddings;
mod hooks;
mod import;
mod index_search;
mod init;
mod learning_capture;
mod lessons_cli;
mod lessons_quality;
mod mcp_python_client;
mod mcp_robustness;
mod moment;
mod readme;
mod redaction;
mod retrieval_quality;
mod search_quality;
mod settings_bytes_fuzz;
mod settings_merge_props;
mod signals_quality;
mod storage_faults;
mod terminal;
mod transcript_fixtures;
mod ui;
mod ui_browser;
mod verify_upgrade;
mod wizard_pty;

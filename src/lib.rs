//! pms: a personal memory system for Claude Code, Codex and OpenClaw.
//!
//! The crate is four floors, and every arrow points down:
//!
//! - [`front`]: what people and agents talk to (the command line, `pms hook`,
//!   the MCP server, the page). Parses loose input once, calls one use case,
//!   renders its answer.
//! - [`app`]: the use cases (what each hook event does, init and uninstall,
//!   upgrade, verify and repair, keeping the index in step, saving a note).
//! - [`memory`]: what pms remembers and how it is found again (the index,
//!   search, lessons, sessions, embeddings, the words they compare).
//! - [`platform`]: what pms stands on (the agents' files and formats, the
//!   workspace's files, durable writes, the host environment, redaction).
//!
//! `tests/tests.rs` (module `architecture`) fails when a module reaches up a
//! floor or two folders depend on each other; docs/architecture.md maps the
//! modules and the data flowing between them.

pub mod app;
pub mod front;
pub mod memory;
pub mod platform;

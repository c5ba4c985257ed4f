//! What pms stands on: the coding agents' files and formats (`agents`:
//! Claude Code, Codex, OpenClaw and the wiring into them), the workspace's
//! files (`workspace`), the host (`host`: its environment, durable writes,
//! file errors), redaction of secrets (`redact`), progress reports
//! (`progress`), the other memory tools' files `pms import` reads
//! (`imports`) and counted nouns for messages (`plural`).

pub mod agents;
pub mod host;
pub mod imports;
pub mod plural;
pub mod progress;
pub mod redact;
pub mod workspace;

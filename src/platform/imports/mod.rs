//! The other memory tools' files, as `pms import` reads them: the ChatGPT
//! and Claude.ai data exports (`chatgpt.rs`, `claude_ai.rs`), claude-mem's
//! and claude-mem-lite's SQLite databases (`claude_mem.rs`), basic-memory's
//! Markdown notes (`basic_memory.rs`) and the reference MCP memory server's
//! JSON-lines graph (`mcp_memory.rs`). Where each tool keeps them by default
//! is `detect.rs`; an export read in place, as a zip, a folder or a file, is
//! `input.rs`, and a huge top-level JSON array read one element at a time
//! is `json_array.rs`.
//!
//! A reader never writes: it checks its input ([`check`]: the whole of it,
//! so that a truncated file is refused before anything is written) and then
//! hands what it finds, one item at a time, to a [`Sink`] ([`read`]):
//! conversations, notes (Markdown, with their provenance in the front
//! matter) and what the user told the tool about themselves ([`Identity`]).
//! What to do with them is `app::import`'s business.
//!
//! The formats, with the upstream code each was checked against, are in
//! docs/architecture.md ("Importing other memories").

pub mod basic_memory;
pub mod chatgpt;
pub mod claude_ai;
pub mod claude_mem;
pub mod detect;
pub mod input;
pub mod json_array;
pub mod mcp_memory;
pub mod note;

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::platform::progress::Progress;

/// The tools pms imports from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    #[serde(rename = "chatgpt")]
    ChatGpt,
    ClaudeAi,
    ClaudeMem,
    ClaudeMemLite,
    BasicMemory,
    McpMemory,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::ChatGpt,
        Kind::ClaudeAi,
        Kind::ClaudeMem,
        Kind::ClaudeMemLite,
        Kind::BasicMemory,
        Kind::McpMemory,
    ];

    /// The name in file names, folders, URIs and `--json`.
    pub fn id(self) -> &'static str {
        match self {
            Kind::ChatGpt => "chatgpt",
            Kind::ClaudeAi => "claude-ai",
            Kind::ClaudeMem => "claude-mem",
            Kind::ClaudeMemLite => "claude-mem-lite",
            Kind::BasicMemory => "basic-memory",
            Kind::McpMemory => "mcp-memory",
        }
    }

    /// The name on the command line (`pms import <name>`).
    pub fn command_name(self) -> &'static str {
        match self {
            Kind::ClaudeAi => "claude",
            other => other.id(),
        }
    }

    /// How a person calls it.
    pub fn title(self) -> &'static str {
        match self {
            Kind::ChatGpt => "ChatGPT export",
            Kind::ClaudeAi => "Claude.ai export",
            Kind::ClaudeMem => "claude-mem",
            Kind::ClaudeMemLite => "claude-mem-lite",
            Kind::BasicMemory => "basic-memory",
            Kind::McpMemory => "MCP memory server",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chatgpt" | "openai" => Some(Kind::ChatGpt),
            "claude" | "claude-ai" | "claude.ai" => Some(Kind::ClaudeAi),
            "claude-mem" => Some(Kind::ClaudeMem),
            "claude-mem-lite" => Some(Kind::ClaudeMemLite),
            "basic-memory" => Some(Kind::BasicMemory),
            "mcp-memory" | "memory.json" | "memory.jsonl" => Some(Kind::McpMemory),
            _ => None,
        }
    }

    /// Kinds whose conversations pms keeps, with the URI scheme they are
    /// found under (`chatgpt://<id>.jsonl`).
    pub const CONVERSATION_SCHEMES: [&'static str; 2] = ["chatgpt", "claude-ai"];
}

/// A timestamp as pms writes it: RFC 3339 in UTC, to the millisecond.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Seconds since the epoch, with a fraction (ChatGPT's `create_time`).
pub fn from_epoch_seconds(s: f64) -> Option<DateTime<Utc>> {
    if !s.is_finite() || s <= 0.0 {
        return None;
    }
    DateTime::from_timestamp_millis((s * 1000.0).round() as i64)
}

/// Milliseconds since the epoch (claude-mem's `created_at_epoch`).
pub fn from_epoch_millis(ms: i64) -> Option<DateTime<Utc>> {
    (ms > 0)
        .then(|| DateTime::from_timestamp_millis(ms))
        .flatten()
}

/// An RFC 3339 / ISO 8601 time (`…Z`, `…+00:00`, with or without a
/// fraction), or a date and time without a zone (taken as UTC).
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(s, f) {
            return Some(t.and_utc());
        }
    }
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// One conversation of a chat export, the branch the user ended on.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// The export's own id, safe as a file name.
    pub id: String,
    pub title: String,
    pub created: Option<DateTime<Utc>>,
    pub updated: Option<DateTime<Utc>>,
    pub messages: Vec<Message>,
}

impl Conversation {
    /// When it last changed: its update time, else its last message's.
    pub fn last_time(&self) -> Option<DateTime<Utc>> {
        self.updated
            .or_else(|| self.messages.iter().rev().find_map(|m| m.time))
            .or(self.created)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    User,
    Assistant,
}

/// One message, as the parts a transcript line holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: String,
    pub speaker: Speaker,
    pub time: Option<DateTime<Utc>>,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// A tool the assistant ran (ChatGPT's code interpreter, a Claude
    /// artifact): its name and input.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    /// What the tool gave back (user side, as in Claude Code's transcripts).
    ToolResult {
        id: String,
        text: String,
    },
}

/// A Markdown note to keep as knowledge: its text holds its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// Stable across imports: the tool's own id (a session, a permalink).
    pub key: String,
    /// Where it goes, relative to the import's folder (`<project>/<name>.md`).
    pub rel: String,
    pub text: String,
    /// When its content is from (the file's modification time is set to it).
    pub date: Option<DateTime<Utc>>,
}

/// What the user told the other tool about themselves, for `_me/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub target: MeFile,
    /// Heading of the section it would become.
    pub heading: String,
    pub text: String,
}

/// The `_me/` file an [`Identity`] belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum MeFile {
    Profile,
    Preferences,
}

impl MeFile {
    pub fn file_name(self) -> &'static str {
        match self {
            MeFile::Profile => "profile.md",
            MeFile::Preferences => "preferences.md",
        }
    }
}

/// Where what a reader finds goes.
pub trait Sink {
    fn conversation(&mut self, c: Conversation) -> std::io::Result<()>;
    fn note(&mut self, n: Note) -> std::io::Result<()>;
    fn identity(&mut self, i: Identity);
    /// An item left out, and why (no messages, a tombstoned row).
    fn skipped(&mut self, why: &str);
    /// Bytes of the input read so far (for progress).
    fn advanced(&mut self, _bytes: u64) {}
    /// How many of something the items held (observations, relations),
    /// for the report.
    fn found(&mut self, _what: &'static str, _n: u64) {}
}

/// Why an input cannot be imported: the file, the place in it, the fix.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[error("{path}: {problem}.\n  Fix: {fix}")]
pub struct FormatError {
    pub path: String,
    pub problem: String,
    pub fix: String,
}

impl FormatError {
    pub fn new(
        path: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        FormatError {
            path: path.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Writing what was read failed (a full disk): the sink's error.
    #[error("{0}")]
    Write(std::io::Error),
}

/// What a check of the whole input found: how much there is to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// Bytes the reader will go through (uncompressed).
    pub bytes: u64,
    /// Items found (conversations, rows, notes, lines).
    pub items: u64,
}

/// Checks the whole input, writing nothing: a file cut short, not the
/// expected format, an unknown schema, is an error here.
pub fn check(kind: Kind, path: &Path, progress: &dyn Progress) -> Result<Checked, FormatError> {
    match kind {
        Kind::ChatGpt => chatgpt::check(path, progress),
        Kind::ClaudeAi => claude_ai::check(path, progress),
        Kind::ClaudeMem | Kind::ClaudeMemLite => claude_mem::check(kind, path),
        Kind::BasicMemory => basic_memory::check(path),
        Kind::McpMemory => mcp_memory::check(path),
    }
}

/// Reads the input checked by [`check`] into `sink`.
pub fn read(kind: Kind, path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    match kind {
        Kind::ChatGpt => chatgpt::read(path, sink),
        Kind::ClaudeAi => claude_ai::read(path, sink),
        Kind::ClaudeMem | Kind::ClaudeMemLite => claude_mem::read(kind, path, sink),
        Kind::BasicMemory => basic_memory::read(path, sink),
        Kind::McpMemory => mcp_memory::read(path, sink),
    }
}

/// `s` as one path component: letters, digits, `-`, `_` and `.` kept,
/// anything else `_`, no leading dot, at most 100 bytes.
pub fn safe_id(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    match cleaned.trim_matches('.') {
        "" => "_".into(),
        t => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_every_shape_the_tools_write() {
        let want = "2025-01-05T20:55:32.499Z";
        for s in [
            "2025-01-05T20:55:32.499880Z",
            "2025-01-05T20:55:32.499880+00:00",
            "2025-01-05T20:55:32.499",
        ] {
            assert_eq!(iso(parse_time(s).unwrap()), want, "{s}");
        }
        assert_eq!(
            iso(from_epoch_seconds(1736616594.24054).unwrap()),
            "2025-01-11T17:29:54.241Z"
        );
        assert_eq!(
            iso(from_epoch_millis(1795701048059).unwrap()),
            "2026-11-26T13:50:48.059Z"
        );
        assert_eq!(from_epoch_seconds(f64::NAN), None);
        assert_eq!(
            iso(parse_time("2025-03-01").unwrap()),
            "2025-03-01T00:00:00.000Z"
        );
    }

    #[test]
    fn ids_stay_one_path_component() {
        assert_eq!(safe_id("6781f0a2-9c3c"), "6781f0a2-9c3c");
        assert_eq!(safe_id("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(safe_id(".."), "_");
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.id()), Some(k));
            assert_eq!(Kind::parse(k.command_name()), Some(k));
        }
    }
}

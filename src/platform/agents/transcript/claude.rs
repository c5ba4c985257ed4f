//! Claude Code's transcript lines (`~/.claude/projects/<folder>/<session>.jsonl`,
//! and the OpenClaw conversations pms records in the same format) into
//! turns: see [`super`] for what is kept and dropped.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::{ReadOptions, ReadStats, Role, Turn, describe_tool_use, parts_text};

#[derive(Deserialize)]
pub(super) struct Line {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(default, rename = "isMeta")]
    is_meta: Option<bool>,
    #[serde(default, rename = "isApiErrorMessage")]
    is_api_error: Option<bool>,
    #[serde(default, rename = "isCompactSummary")]
    is_compact_summary: Option<bool>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    content: Value,
}

/// What every conversation line says besides its message: read alone
/// from a line whose message is not wanted ([`super::ToolResults::Skipped`]).
/// [`Line`] declares these fields again rather than `#[serde(flatten)]`
/// this: flattening makes serde buffer each whole line into a value of its
/// own before reading it, the cost this struct is here to avoid.
#[derive(Deserialize)]
pub(super) struct Head {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// Whether a conversation line's message holds tool results and no text a
/// person or the model wrote: it names a `tool_use_id` and holds no text
/// block at all (not even one inside a result). Read from the bytes: in
/// JSON a quote inside a string is escaped, so `"type":"text"` unescaped
/// is a key and its value.
pub(super) fn holds_only_tool_results(bytes: &[u8]) -> bool {
    use memchr::memmem;
    memmem::find(bytes, b"\"tool_use_id\"").is_some()
        && memmem::find(bytes, b"\"type\":\"text\"").is_none()
        && memmem::find(bytes, b"\"type\": \"text\"").is_none()
}

/// A line's time and ids into the read's stats ([`Head`]).
pub(super) fn take_head(head: &Head, st: &mut ReadStats) {
    if head.kind == "user" || head.kind == "assistant" {
        note(st, &head.session_id, &head.cwd, &head.timestamp);
    }
}

/// The first session id and cwd, and the first and last time, of the
/// conversation lines read.
fn note(
    st: &mut ReadStats,
    session_id: &Option<String>,
    cwd: &Option<String>,
    timestamp: &Option<String>,
) {
    if st.session_id.is_none() {
        st.session_id = session_id.clone();
    }
    if st.cwd.is_none() {
        st.cwd = cwd.clone();
    }
    if let Some(ts) = timestamp {
        if st.first_timestamp.is_none() {
            st.first_timestamp = Some(ts.clone());
        }
        st.last_timestamp = Some(ts.clone());
    }
}

/// User and assistant lines carry `"type":"user"` / `"type":"assistant"`;
/// checking the bytes first skips the (much larger) metadata lines without
/// parsing them.
pub(super) fn is_conversation_line(bytes: &[u8]) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static NEEDLES: LazyLock<[Finder<'static>; 4]> = LazyLock::new(|| {
        [
            Finder::new(b"\"type\":\"user\""),
            Finder::new(b"\"type\":\"assistant\""),
            Finder::new(b"\"type\": \"user\""),
            Finder::new(b"\"type\": \"assistant\""),
        ]
    });
    NEEDLES.iter().any(|f| f.find(bytes).is_some())
}

pub(super) fn take_line(
    line: Line,
    line_no: u64,
    byte_start: u64,
    opts: &ReadOptions,
    st: &mut ReadStats,
    turns: &mut Vec<Turn>,
    tool_names: &mut HashMap<String, String>,
) {
    if line.kind != "user" && line.kind != "assistant" {
        return;
    }
    note(st, &line.session_id, &line.cwd, &line.timestamp);
    if (line.is_sidechain == Some(true) && !opts.keep_sidechain)
        || line.is_meta == Some(true)
        || line.is_api_error == Some(true)
    {
        return;
    }
    let Some(message) = line.message else { return };
    if !(message.content.is_string() || message.content.is_array()) {
        st.malformed += 1;
        return;
    }
    let ts = line.timestamp;
    if line.kind == "assistant" {
        let (text, files) = assistant_text(&message.content, tool_names);
        if text.is_empty() {
            return;
        }
        if let (Some(last), Some(id)) = (turns.last_mut(), message.id.as_ref())
            && last.role == Role::Assistant
            && last.message_id.as_ref() == Some(id)
        {
            last.text.push('\n');
            last.text.push_str(&text);
            last.line_end = line_no;
            last.files_changed.extend(files);
            return;
        }
        turns.push(Turn {
            role: Role::Assistant,
            text,
            line_start: line_no,
            line_end: line_no,
            byte_start,
            timestamp: ts,
            message_id: message.id,
            files_changed: files,
        });
        return;
    }
    // user line: a typed prompt, tool results, or a compaction summary
    let (text, results) = user_text(&message.content, tool_names, opts.tool_result_chars);
    if line.is_compact_summary == Some(true) {
        if !text.is_empty() {
            turns.push(turn(Role::Summary, text, line_no, byte_start, ts));
        }
        return;
    }
    if !results.is_empty() {
        if let Some(last) = turns.last_mut()
            && last.role == Role::Tool
            && last.line_end + 1 >= line_no
        {
            last.text.push('\n');
            last.text.push_str(&results);
            last.line_end = line_no;
        } else {
            turns.push(turn(Role::Tool, results, line_no, byte_start, ts.clone()));
        }
    }
    let cleaned = clean_user_text(&text);
    if !cleaned.is_empty() {
        turns.push(turn(Role::User, cleaned, line_no, byte_start, ts));
    }
}

fn turn(role: Role, text: String, line: u64, byte_start: u64, ts: Option<String>) -> Turn {
    Turn {
        role,
        text,
        line_start: line,
        line_end: line,
        byte_start,
        timestamp: ts,
        message_id: None,
        files_changed: Vec::new(),
    }
}

fn assistant_text(
    content: &Value,
    tool_names: &mut HashMap<String, String>,
) -> (String, Vec<String>) {
    let mut parts = Vec::new();
    let mut files = Vec::new();
    match content {
        Value::String(s) => parts.push(s.clone()),
        Value::Array(blocks) => {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            parts.push(t.to_string());
                        }
                    }
                    Some("tool_use") => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                        if let Some(id) = b.get("id").and_then(Value::as_str) {
                            tool_names.insert(id.to_string(), name.to_string());
                        }
                        let input = b.get("input").unwrap_or(&Value::Null);
                        if matches!(name, "Write" | "Edit" | "MultiEdit" | "NotebookEdit")
                            && let Some(p) = input
                                .get("file_path")
                                .or_else(|| input.get("notebook_path"))
                                .and_then(Value::as_str)
                        {
                            files.push(p.to_string());
                        }
                        parts.push(describe_tool_use(name, input));
                    }
                    _ => {} // thinking, redacted_thinking, server tool blocks
                }
            }
        }
        _ => {}
    }
    (parts.join("\n").trim().to_string(), files)
}

fn user_text(
    content: &Value,
    tool_names: &HashMap<String, String>,
    result_chars: usize,
) -> (String, String) {
    match content {
        Value::String(s) => (s.clone(), String::new()),
        Value::Array(blocks) => {
            let mut text = Vec::new();
            let mut results = Vec::new();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = b.get("text").and_then(Value::as_str) {
                            text.push(t.to_string());
                        }
                    }
                    Some("tool_result") => {
                        let name = b
                            .get("tool_use_id")
                            .and_then(Value::as_str)
                            .and_then(|id| tool_names.get(id))
                            .map(String::as_str)
                            .unwrap_or("tool");
                        let body = parts_text(b.get("content").unwrap_or(&Value::Null));
                        let failed = b.get("is_error").and_then(Value::as_bool) == Some(true);
                        let kept = if failed {
                            super::error_excerpt(&body, result_chars)
                        } else {
                            super::result_excerpt(&body, result_chars)
                        };
                        let label = if failed { "error" } else { "result" };
                        results.push(format!("[{label} {name}] {kept}"));
                    }
                    _ => {}
                }
            }
            (text.join("\n"), results.join("\n"))
        }
        _ => (String::new(), String::new()),
    }
}

/// Drops what Claude Code wraps around a prompt (system reminders) and turns
/// that are only local-command plumbing.
fn clean_user_text(text: &str) -> String {
    const WRAPPERS: [&str; 6] = [
        "<command-name>",
        "<command-message>",
        "<local-command-stdout>",
        "<local-command-stderr>",
        "<local-command-caveat>",
        "<task-notification>",
    ];
    let t = text.trim_start();
    if WRAPPERS.iter().any(|w| t.starts_with(w)) {
        return String::new();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<system-reminder>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</system-reminder>") {
            Some(end) => rest = &rest[start + end + "</system-reminder>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.trim().to_string()
}

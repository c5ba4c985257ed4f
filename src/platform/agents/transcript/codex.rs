//! Codex session logs ("rollouts", `$CODEX_HOME/sessions/YYYY/MM/DD/
//! rollout-<time>-<session id>.jsonl`) read into the same turns as Claude
//! Code transcripts, so they are indexed, summarised and rendered by
//! `memory_get` the same way. [`super::read`] hands
//! every rollout line here.
//!
//! The format, as Codex 0.169.0 writes it (checked by the e2e test against
//! the real CLI): one JSON object per line, `{"timestamp", "ordinal",
//! "type", "payload"}`. `session_meta` opens the file (`payload.id`,
//! `payload.cwd`); `response_item` lines are the conversation as the model
//! saw it: `message` (role `user`, `assistant`, or `developer` for
//! instructions and hook context), `function_call` (`namespace` +`name`,
//! JSON `arguments`, `call_id`), `function_call_output` (`output`: a string
//! or a list of `input_text`), `custom_tool_call` (`apply_patch`'s patch as
//! `input`) and its output, `reasoning` (dropped); `compacted` lines hold a
//! compaction summary. `event_msg`, `turn_context`, `world_state` and
//! usage lines repeat what the items say and are skipped.
//!
//! What is dropped: developer messages (Codex's instructions and the
//! context hooks injected, pms's own among them), the user-role wrappers
//! Codex adds (`<environment_context>`, `<user_instructions>`, AGENTS.md
//! text), reasoning.

use std::collections::HashMap;

use memchr::memmem::Finder;
use serde::Deserialize;
use serde_json::Value;

use super::{ReadStats, Role, Turn, describe_tool_use, truncate};

/// True for a rollout line pms reads (cheap byte test; the metadata lines,
/// most of a rollout's bytes, are never parsed).
pub fn is_rollout_line(bytes: &[u8]) -> bool {
    use std::sync::LazyLock;
    static NEEDLES: LazyLock<[Finder<'static>; 3]> = LazyLock::new(|| {
        [
            Finder::new(b"\"type\":\"response_item\""),
            Finder::new(b"\"type\":\"session_meta\""),
            Finder::new(b"\"type\":\"compacted\""),
        ]
    });
    // The line's own type comes right after its timestamp and ordinal; a
    // window keeps a match inside a long payload from counting.
    let head = &bytes[..bytes.len().min(160)];
    NEEDLES.iter().any(|f| f.find(head).is_some())
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    payload: Value,
}

/// Reads one rollout line into `turns`; false when it is not shaped as a
/// rollout line should be (counted as malformed by the caller).
pub fn take_line(
    bytes: &[u8],
    line_no: u64,
    byte_start: u64,
    tool_result_chars: usize,
    st: &mut ReadStats,
    turns: &mut Vec<Turn>,
    tool_names: &mut HashMap<String, String>,
) -> bool {
    let Ok(line) = serde_json::from_slice::<Line>(bytes) else {
        return false;
    };
    if let Some(ts) = &line.timestamp {
        if st.first_timestamp.is_none() {
            st.first_timestamp = Some(ts.clone());
        }
        st.last_timestamp = Some(ts.clone());
    }
    let p = &line.payload;
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    let at = Position {
        line_no,
        byte_start,
        ts: line.timestamp.clone(),
    };
    match line.kind.as_str() {
        "session_meta" => {
            if st.session_id.is_none() {
                st.session_id = s("id").or(s("session_id")).map(str::to_string);
            }
            if st.cwd.is_none() {
                st.cwd = s("cwd").map(str::to_string);
            }
        }
        "compacted" => {
            if let Some(m) = s("message").filter(|m| !m.trim().is_empty()) {
                turns.push(at.turn(Role::Summary, m.trim().to_string()));
            }
        }
        "response_item" => response_item(p, at, tool_result_chars, turns, tool_names),
        _ => {}
    }
    true
}

/// Where a line is.
struct Position {
    line_no: u64,
    byte_start: u64,
    ts: Option<String>,
}

impl Position {
    fn turn(&self, role: Role, text: String) -> Turn {
        Turn {
            role,
            text,
            line_start: self.line_no,
            line_end: self.line_no,
            byte_start: self.byte_start,
            timestamp: self.ts.clone(),
            message_id: None,
            files_changed: Vec::new(),
        }
    }
}

fn response_item(
    p: &Value,
    at: Position,
    result_chars: usize,
    turns: &mut Vec<Turn>,
    tool_names: &mut HashMap<String, String>,
) {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    match s("type").unwrap_or("") {
        "message" => {
            let text = super::parts_text(p.get("content").unwrap_or(&Value::Null));
            match s("role") {
                Some("user") => {
                    let text = text.trim();
                    if !text.is_empty() && !is_wrapper(text) {
                        turns.push(at.turn(Role::User, text.to_string()));
                    }
                }
                Some("assistant") if !text.trim().is_empty() => {
                    assistant(turns, at, text.trim().to_string(), Vec::new());
                }
                _ => {} // developer / system: instructions and injected context
            }
        }
        "function_call" => {
            let name = match (s("namespace"), s("name")) {
                (Some(ns), Some(n)) => format!("{ns}__{n}"),
                (None, Some(n)) => n.to_string(),
                _ => "tool".into(),
            };
            if let Some(id) = s("call_id") {
                tool_names.insert(id.to_string(), name.clone());
            }
            let args: Value = s("arguments")
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            assistant(turns, at, describe_tool_use(&name, &args), Vec::new());
        }
        "custom_tool_call" => {
            let name = s("name").unwrap_or("tool").to_string();
            if let Some(id) = s("call_id") {
                tool_names.insert(id.to_string(), name.clone());
            }
            let input = s("input").unwrap_or("");
            let files = patched_files(input);
            let shown = if files.is_empty() {
                truncate(input.lines().next().unwrap_or(""), 200)
            } else {
                files.join(" ")
            };
            assistant(turns, at, format!("[tool {name}] {shown}"), files);
        }
        "local_shell_call" => {
            let cmd = p
                .pointer("/action/command")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default();
            assistant(
                turns,
                at,
                format!("[tool shell] {}", truncate(&cmd, 200)),
                Vec::new(),
            );
        }
        "web_search_call" => {
            let q = p
                .pointer("/action/query")
                .and_then(Value::as_str)
                .unwrap_or("");
            assistant(
                turns,
                at,
                format!("[tool web_search] {}", truncate(q, 200)),
                Vec::new(),
            );
        }
        "function_call_output" | "custom_tool_call_output" => {
            let name = s("call_id")
                .and_then(|id| tool_names.get(id))
                .map(String::as_str)
                .unwrap_or("tool");
            let output = p.get("output").unwrap_or(&Value::Null);
            let body = output_text(output);
            // a command that exited non-zero is a failure, kept as Claude
            // Code's are (its start and its end; error recall reads it so)
            let failed = output
                .as_str()
                .and_then(exit_code_in_header)
                .is_some_and(|code| code != 0);
            let text = if failed {
                format!(
                    "[error {name}] {}",
                    super::error_excerpt(&body, result_chars)
                )
            } else {
                format!("[result {name}] {}", truncate(body.trim(), result_chars))
            };
            match turns.last_mut() {
                Some(last) if last.role == Role::Tool && last.line_end + 1 >= at.line_no => {
                    last.text.push('\n');
                    last.text.push_str(&text);
                    last.line_end = at.line_no;
                }
                _ => turns.push(at.turn(Role::Tool, text)),
            }
        }
        _ => {} // reasoning, and item types pms does not show
    }
}

/// The assistant's text and tool calls of one stretch (until a tool result
/// or a prompt) make one turn, as Claude Code's lines of one message do.
fn assistant(turns: &mut Vec<Turn>, at: Position, text: String, files: Vec<String>) {
    if let Some(last) = turns.last_mut()
        && last.role == Role::Assistant
    {
        last.text.push('\n');
        last.text.push_str(&text);
        last.line_end = at.line_no;
        last.files_changed.extend(files);
        return;
    }
    let mut t = at.turn(Role::Assistant, text);
    t.files_changed = files;
    turns.push(t);
}

/// A tool's output: a string, or a list of text parts, without the header
/// Codex puts before a command's output and an MCP tool's answer
/// ([`command_header`]).
fn output_text(output: &Value) -> String {
    let text = match output {
        Value::String(s) => s.clone(),
        Value::Array(_) => super::parts_text(output),
        Value::Object(o) => o
            .get("content")
            .map(super::parts_text)
            .or_else(|| o.get("output").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default(),
        _ => String::new(),
    };
    match command_header(&text) {
        Some((_, body)) => body.to_string(),
        None => text,
    }
}

/// A command's output as Codex hands it to the model: a header (`Chunk
/// ID: …`, `Wall time: …`, `Process exited with code N`, `Original token
/// count: …`) over `Output:` and what the command printed. The header and
/// the output, or None when `text` has no such header.
fn command_header(text: &str) -> Option<(&str, &str)> {
    if !(text.starts_with("Chunk ID: ") || text.starts_with("Wall time: ")) {
        return None;
    }
    let (header, body) = text.split_once("Output:")?;
    Some((header, body.trim_start()))
}

/// The exit code a command's header states (`Process exited with code
/// 3`); None for a command still running or an output without a header.
fn exit_code_in_header(text: &str) -> Option<i64> {
    command_header(text).and_then(|(header, _)| super::failure::stated_exit_code(header))
}

/// The exit code Codex recorded for the command of `call_id`: its
/// `item_completed` event (`CommandExecution`, `exit_code`), which Codex
/// 0.169.0 writes to the rollout before it runs the PostToolUse hooks,
/// whose payload gives the command's output alone (checked by the e2e
/// test). Read from the file's end, [`TAIL_BYTES`] first and more while
/// the event's line may start further back, up to [`TAIL_MOST`]; None when
/// the event is not there, as for a command still running (found as soon
/// as the call itself is: its events come after it).
pub fn command_exit_code(rollout: &std::path::Path, call_id: &str) -> Option<i64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(rollout).ok()?;
    let len = file.metadata().ok()?.len();
    let id = format!("\"id\":\"{call_id}\"");
    let called = format!("\"call_id\":\"{call_id}\"");
    let (finder, call) = (Finder::new(id.as_bytes()), Finder::new(called.as_bytes()));
    let mut window = TAIL_BYTES;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start)).ok()?;
        let mut bytes = Vec::new();
        file.by_ref()
            .take(len - start)
            .read_to_end(&mut bytes)
            .ok()?;
        let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        if start > 0 {
            lines.remove(0); // cut by the window
        }
        for line in lines.iter().rev() {
            if call.find(line).is_none() && finder.find(line).is_none() {
                continue;
            }
            let Ok(v) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            let item = v.pointer("/payload/item");
            match v.pointer("/payload/type").and_then(Value::as_str) {
                // its events come after the call itself: past it, there is none
                Some("function_call") => return None,
                Some("item_completed")
                    if item.and_then(|i| i.get("id")).and_then(Value::as_str) == Some(call_id) =>
                {
                    return item
                        .and_then(|i| i.get("exit_code"))
                        .and_then(Value::as_i64);
                }
                _ => {}
            }
        }
        if start == 0 || window >= TAIL_MOST {
            return None;
        }
        window *= 4;
    }
}

/// Bytes of a rollout's end read first for a command's exit code (its
/// event is among the last lines), and at most (a command that printed
/// megabytes makes a line as long).
const TAIL_BYTES: u64 = 64 << 10;
const TAIL_MOST: u64 = 4 << 20;

/// Context Codex adds in the user's name: `<environment_context>`,
/// `<user_instructions>`, `<skills_instructions>`, `<turn_aborted>` and the
/// like (a block that is one tag from start to end), and AGENTS.md text.
fn is_wrapper(text: &str) -> bool {
    if text.starts_with("# AGENTS.md instructions") {
        return true;
    }
    let Some(rest) = text.strip_prefix('<') else {
        return false;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    !name.is_empty()
        && rest[name.len()..].starts_with(['>', ' '])
        && text.trim_end().ends_with(&format!("</{name}>"))
}

/// Files an `apply_patch` patch adds, updates, moves or deletes.
fn patched_files(patch: &str) -> Vec<String> {
    const MARKS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        for m in MARKS {
            if let Some(f) = line.strip_prefix(m) {
                let f = f.trim().to_string();
                if !f.is_empty() && !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    }
    out
}

/// The session id in a rollout's file name (`rollout-<time>-<uuid>.jsonl`).
pub fn session_id_of(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_suffix(".jsonl")?;
    let stem = stem.strip_prefix("rollout-")?;
    // The id is the last 36 characters: a UUID (8-4-4-4-12).
    let id = stem.get(stem.len().checked_sub(36)?..)?;
    (id.len() == 36 && id.matches('-').count() == 4).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::super::tests::read_str;
    use super::*;

    /// Lines as Codex 0.169.0 wrote them in a `codex exec` run (payloads
    /// shortened where they were long).
    const META: &str = r#"{"timestamp":"2026-11-25T08:23:51.100Z","ordinal":0,"type":"session_meta","payload":{"account_scoped":true,"session_id":"01a211cd-d15f-74c1-aa83-5d1a958d4178","id":"01a211cd-d15f-74c1-aa83-5d1a958d4178","timestamp":"2026-11-25T08:23:51.090Z","cwd":"/tmp/proj","originator":"codex_exec","cli_version":"0.169.0","source":"exec","base_instructions":{"text":"You are a coding agent running in the Codex CLI"}}}"#;
    const DEV: &str = r#"{"timestamp":"2026-11-25T08:23:51.150Z","ordinal":2,"type":"response_item","payload":{"type":"message","id":"msg_1","role":"developer","content":[{"type":"input_text","text":"pms memory for Ada (layer 0)"}]}}"#;
    const ENV: &str = r#"{"timestamp":"2026-11-25T08:23:51.151Z","ordinal":3,"type":"response_item","payload":{"type":"message","id":"msg_2","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/tmp/proj</cwd>\n</environment_context>"}]}}"#;
    const USER: &str = r#"{"timestamp":"2026-11-25T08:23:51.200Z","ordinal":7,"type":"response_item","payload":{"type":"message","id":"msg_3","role":"user","content":[{"type":"input_text","text":"search memory for deploy"}],"internal_chat_message_metadata_passthrough":{"turn_id":"t1"}}}"#;
    const EVENT: &str = r#"{"timestamp":"2026-11-25T08:23:51.201Z","ordinal":8,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"search memory for deploy"}]}}}"#;
    const CALL: &str = r#"{"timestamp":"2026-11-25T08:23:51.300Z","ordinal":9,"type":"response_item","payload":{"type":"function_call","id":"fc_1","name":"memory_search","namespace":"mcp__pms","arguments":"{\"query\":\"deploy\"}","call_id":"call_1"}}"#;
    const OUT: &str = r#"{"timestamp":"2026-11-25T08:23:51.400Z","ordinal":11,"type":"response_item","payload":{"type":"function_call_output","id":"fco_1","call_id":"call_1","output":[{"type":"input_text","text":"Wall time: 0.0344 seconds\nOutput:"},{"type":"input_text","text":"1. product/CLAUDE.md L3-9 deploy with the script"}]}}"#;
    const REASON: &str = r#"{"timestamp":"2026-11-25T08:23:51.450Z","ordinal":12,"type":"response_item","payload":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking hard"}]}}"#;
    const ANSWER: &str = r#"{"timestamp":"2026-11-25T08:23:51.500Z","ordinal":14,"type":"response_item","payload":{"type":"message","id":"msg_4","role":"assistant","content":[{"type":"output_text","text":"Deploys go through the script."}]}}"#;
    const PATCH: &str = r#"{"timestamp":"2026-11-25T08:23:51.600Z","ordinal":15,"type":"response_item","payload":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/deploy.sh\n@@\n-old\n+new\n*** End Patch"}}"#;

    #[test]
    fn a_codex_exec_rollout_reads_as_a_conversation() {
        let text = [
            META, DEV, ENV, USER, EVENT, CALL, OUT, REASON, ANSWER, PATCH,
        ]
        .join("\n")
            + "\n";
        let (turns, st) = read_str(&text);
        assert_eq!(st.malformed, 0);
        assert_eq!(
            st.session_id.as_deref(),
            Some("01a211cd-d15f-74c1-aa83-5d1a958d4178")
        );
        assert_eq!(st.cwd.as_deref(), Some("/tmp/proj"));
        assert_eq!(
            st.first_timestamp.as_deref(),
            Some("2026-11-25T08:23:51.100Z")
        );
        let shown: Vec<(&str, &str)> = turns
            .iter()
            .map(|t| (t.role.as_str(), t.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("user", "search memory for deploy"),
                ("assistant", "[tool mcp__pms__memory_search] deploy"),
                (
                    "tool",
                    "[result mcp__pms__memory_search] 1. product/CLAUDE.md L3-9 deploy with the script"
                ),
                (
                    "assistant",
                    "Deploys go through the script.\n[tool apply_patch] src/deploy.sh"
                ),
            ]
        );
        assert_eq!((turns[0].line_start, turns[3].line_end), (4, 10));
        assert_eq!(turns[3].files_changed, vec!["src/deploy.sh"]);
        assert!(!text.is_empty() && !shown.iter().any(|(_, t)| t.contains("layer 0")));
    }

    #[test]
    fn wrappers_are_told_from_prompts() {
        assert!(is_wrapper(
            "<environment_context>\n x\n</environment_context>"
        ));
        assert!(is_wrapper("<user_instructions>be nice</user_instructions>"));
        assert!(is_wrapper("# AGENTS.md instructions for /w\n\nrules"));
        assert!(!is_wrapper("<b>bold</b> is what I asked about"));
        assert!(!is_wrapper("why does <div> break?"));
    }

    #[test]
    fn session_ids_come_from_file_names() {
        assert_eq!(
            session_id_of("rollout-2026-11-25T08-03-48-01a211bb-79d6-7f93-ba77-17680efe70eb.jsonl"),
            Some("01a211bb-79d6-7f93-ba77-17680efe70eb")
        );
        assert_eq!(session_id_of("abc.jsonl"), None);
    }

    /// A command that failed, as Codex 0.169.0 records it: the call, the
    /// `item_completed` event it writes before the PostToolUse hooks run,
    /// and the output the model reads (its header says the exit code).
    const SH_CALL: &str = r#"{"timestamp":"2026-11-27T23:33:15.042Z","ordinal":10,"type":"response_item","payload":{"type":"function_call","id":"fc_3","name":"exec_command","arguments":"{\"cmd\":\"make\"}","call_id":"call_3"}}"#;
    const SH_DONE: &str = r#"{"timestamp":"2026-11-27T23:33:15.138Z","ordinal":12,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_3","command":["/bin/bash","-lc","make"],"status":"failed","aggregated_output":"make: *** No rule to make target 'all'.  Stop.\n","exit_code":2}}}"#;
    const SH_OUT: &str = r#"{"timestamp":"2026-11-27T23:33:15.140Z","ordinal":13,"type":"response_item","payload":{"type":"function_call_output","id":"fco_3","call_id":"call_3","output":"Chunk ID: 918883\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 20\nOutput:\nmake: *** No rule to make target 'all'.  Stop.\n"}}"#;

    #[test]
    fn a_command_that_exited_non_zero_is_kept_as_a_failure() {
        let (turns, _) = read_str(&([META, SH_CALL, SH_DONE, SH_OUT].join("\n") + "\n"));
        let tool = turns.iter().find(|t| t.role == Role::Tool).unwrap();
        // the header goes; the output is labelled as Claude Code's failures are
        assert_eq!(
            tool.text,
            "[error exec_command] make: *** No rule to make target 'all'.  Stop."
        );
        let ok = SH_OUT.replace("code 2", "code 0");
        let (turns, _) = read_str(&([META, SH_CALL, &ok].join("\n") + "\n"));
        let tool = turns.iter().find(|t| t.role == Role::Tool).unwrap();
        assert!(
            tool.text.starts_with("[result exec_command] make:"),
            "{}",
            tool.text
        );
    }

    #[test]
    fn a_commands_exit_code_is_read_from_the_rollouts_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rollout.jsonl");
        std::fs::write(&path, [META, SH_CALL, SH_DONE].join("\n") + "\n").unwrap();
        assert_eq!(command_exit_code(&path, "call_3"), Some(2));
        // the output the model reads, written after the event, names the call too
        std::fs::write(&path, [META, SH_CALL, SH_DONE, SH_OUT].join("\n") + "\n").unwrap();
        assert_eq!(command_exit_code(&path, "call_3"), Some(2));
        assert_eq!(command_exit_code(&path, "call_9"), None);
        // the event of a command that printed more than the first window
        // reads, far from the file's end; a success says 0
        let long = SH_DONE
            .replace("make: ***", &"x".repeat(300 << 10))
            .replace("\"exit_code\":2", "\"exit_code\":0");
        let later = USER.replace("ordinal\":7", "ordinal\":14");
        std::fs::write(&path, [META, SH_CALL, &long, &later].join("\n")).unwrap();
        assert_eq!(command_exit_code(&path, "call_3"), Some(0));
        assert_eq!(
            command_exit_code(&dir.path().join("gone.jsonl"), "call_3"),
            None
        );
        // a command still running: its call, no event after it (this checks
        // the answer; how little is read to give it is not observed here)
        std::fs::write(&path, [META, SH_CALL, &later].join("\n")).unwrap();
        assert_eq!(command_exit_code(&path, "call_3"), None);
    }
}

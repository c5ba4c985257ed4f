//! The labelled moment sets (tests/data/moment_*.toml): their types, and
//! their past sessions written as Claude Code transcripts. Shared by
//! tests/moment.rs and the hook bench (benches/hooks.rs), which indexes
//! the dev set's sessions among its generated ones.

use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
pub(crate) struct Set {
    #[serde(default)]
    pub(crate) session: Vec<Session>,
    #[serde(default)]
    pub(crate) error: Vec<ErrorCase>,
    #[serde(default)]
    pub(crate) edit: Vec<EditCase>,
    #[serde(default)]
    pub(crate) start: Vec<StartCase>,
}

#[derive(Deserialize)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) project: String,
    pub(crate) date: String,
    pub(crate) turn: Vec<Turn>,
}

#[derive(Deserialize)]
pub(crate) struct Turn {
    pub(crate) role: String,
    #[serde(default)]
    pub(crate) text: String,
    #[serde(default)]
    pub(crate) tool: String,
    #[serde(default)]
    pub(crate) command: String,
    #[serde(default)]
    pub(crate) file_path: String,
    #[serde(default)]
    pub(crate) is_error: bool,
}

#[derive(Deserialize)]
pub(crate) struct ErrorCase {
    pub(crate) project: String,
    pub(crate) command: String,
    pub(crate) output: String,
    pub(crate) expect: String,
    /// How the writer graded the case (`easy`, `medium`, `hard`), when
    /// they did: the figures are told by grade too.
    #[serde(default)]
    pub(crate) difficulty: String,
}

#[derive(Deserialize)]
pub(crate) struct EditCase {
    pub(crate) project: String,
    pub(crate) file_path: String,
    pub(crate) expect: Vec<String>,
}

#[derive(Deserialize)]
pub(crate) struct StartCase {
    pub(crate) project: String,
    pub(crate) expect_items: Vec<String>,
    pub(crate) reject_items: Vec<String>,
}

pub(crate) fn load(name: &str) -> Set {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/").to_string() + name;
    toml_edit::de::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A UUID-shaped session id for a set's session id.
pub(crate) fn uuid_of(id: &str) -> String {
    let h = xxhash_rust::xxh3::xxh3_128(id.as_bytes());
    let s = format!("{h:032x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &s[..8],
        &s[8..12],
        &s[13..16],
        &s[17..20],
        &s[20..32]
    )
}

pub(crate) fn folder_of(project: &str) -> String {
    project
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The session as a Claude Code transcript (JSONL, a line per turn, 30
/// seconds apart from its date); a failed result starts with "Exit code 1",
/// as Claude Code writes it.
pub(crate) fn transcript(s: &Session) -> String {
    let sid = uuid_of(&s.id);
    let start = chrono::DateTime::parse_from_rfc3339(&s.date).unwrap();
    let mut lines = Vec::new();
    let mut last_tool = String::new();
    for (i, t) in s.turn.iter().enumerate() {
        let ts = (start + chrono::Duration::seconds(30 * i as i64))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let base = json!({"uuid": format!("{}-{i}", s.id), "sessionId": sid, "cwd": s.project, "timestamp": ts});
        let mut line = base.clone();
        match t.role.as_str() {
            "user" => {
                line["type"] = json!("user");
                line["message"] = json!({"role": "user", "content": t.text});
            }
            "assistant" => {
                line["type"] = json!("assistant");
                line["message"] = json!({"id": format!("msg_{i}"), "role": "assistant", "content": [{"type": "text", "text": t.text}]});
            }
            "tool_call" => {
                last_tool = format!("toolu_{}_{i}", s.id);
                let input = match t.tool.as_str() {
                    "Bash" => json!({"command": t.command}),
                    "Edit" => {
                        json!({"file_path": t.file_path, "old_string": "a", "new_string": "b"})
                    }
                    _ => json!({"file_path": t.file_path}),
                };
                line["type"] = json!("assistant");
                line["message"] = json!({"id": format!("msg_{i}"), "role": "assistant", "content": [{"type": "tool_use", "id": last_tool, "name": t.tool, "input": input}]});
            }
            "tool_result" => {
                let content = if t.is_error {
                    format!("Exit code 1\n{}", t.text)
                } else {
                    t.text.clone()
                };
                line["type"] = json!("user");
                line["message"] = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": last_tool, "content": content, "is_error": t.is_error}]});
            }
            other => panic!("unknown role {other}"),
        }
        lines.push(line.to_string());
    }
    lines.join("\n") + "\n"
}

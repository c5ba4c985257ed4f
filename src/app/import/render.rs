//! An imported conversation as a transcript in Claude Code's line format,
//! the one pms already reads for search, `memory_get` and the Sessions page
//! (as it does for the OpenClaw conversations it records): a first line
//! that is a compaction summary holding the title and where it came from,
//! then one line per message (`user` lines for prompts and tool results,
//! `assistant` lines with text and `tool_use` blocks), every text redacted.
//! The bytes depend only on the conversation, so an import run again writes
//! the same file and finds nothing changed.

use serde::Serialize;
use serde_json::Value;

use crate::platform::imports::{Conversation, Kind, Part, Speaker, iso};
use crate::platform::redact::redact;

/// One transcript line, serialised straight from borrowed text (building
/// `serde_json::Value`s first was a third of the rendering's time).
#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(
        rename = "isCompactSummary",
        skip_serializing_if = "std::ops::Not::not"
    )]
    compact_summary: bool,
    #[serde(rename = "sessionId")]
    session_id: &'a str,
    timestamp: Option<&'a str>,
    uuid: &'a str,
    message: Message<'a>,
}

#[derive(Serialize)]
struct Message<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    role: &'static str,
    content: Content<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(String),
    Blocks(Vec<Block<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: String,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: String,
    },
}

/// The transcript's lines, each ending in a newline.
pub fn transcript(kind: Kind, c: &Conversation) -> String {
    let session = c.id.as_str();
    let started = c.created.or_else(|| c.messages.iter().find_map(|m| m.time));
    let day = started
        .map(|t| format!(", started {}", t.format("%Y-%m-%d")))
        .unwrap_or_default();
    let mut out = Vec::with_capacity(4096);
    let mut at = started.map(iso);
    let title_id = format!("{session}-title");
    let mut line = |l: &Line| {
        serde_json::to_writer(&mut out, l).expect("a line serialises");
        out.push(b'\n');
    };
    line(&Line {
        kind: "user",
        compact_summary: true,
        session_id: session,
        timestamp: at.as_deref(),
        uuid: &title_id,
        message: Message {
            id: None,
            role: "user",
            content: Content::Text(format!(
                "{}\n({} conversation{day})",
                clean(&c.title),
                kind.title().trim_end_matches(" export")
            )),
        },
    });
    for m in &c.messages {
        // a message without a time is placed at the one before it
        if let Some(t) = m.time {
            at = Some(iso(t));
        }
        let blocks: Vec<Block> = m
            .parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => Block::Text { text: clean(t) },
                Part::ToolUse { id, name, input } => Block::ToolUse {
                    id,
                    name,
                    input: redact_value(input),
                },
                Part::ToolResult { id, text } => Block::ToolResult {
                    tool_use_id: id,
                    content: clean(text),
                },
            })
            .collect();
        let (kind, role, id) = match m.speaker {
            Speaker::User => ("user", "user", None),
            Speaker::Assistant => ("assistant", "assistant", Some(m.id.as_str())),
        };
        line(&Line {
            kind,
            compact_summary: false,
            session_id: session,
            timestamp: at.as_deref(),
            uuid: &m.id,
            message: Message {
                id,
                role,
                content: Content::Blocks(blocks),
            },
        });
    }
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn clean(t: &str) -> String {
    redact(t).into_owned()
}

/// Every string inside `v`, redacted.
fn redact_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(clean(s)),
        Value::Array(a) => Value::Array(a.iter().map(redact_value).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), redact_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::agents::transcript::{ReadOptions, Role, read};
    use crate::platform::imports::{Message, from_epoch_seconds};
    use serde_json::json;

    #[test]
    fn reads_back_as_turns_redacted_with_dates() {
        let t = |s: f64| from_epoch_seconds(s);
        let c = Conversation {
            id: "c1".into(),
            title: "Plot a parabola".into(),
            created: t(1736699990.0),
            updated: None,
            messages: vec![
                Message {
                    id: "u".into(),
                    speaker: Speaker::User,
                    time: t(1736699990.0),
                    parts: vec![Part::Text("plot y=x^2 with key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into())],
                },
                Message {
                    id: "a".into(),
                    speaker: Speaker::Assistant,
                    time: None,
                    parts: vec![Part::ToolUse {
                        id: "a".into(),
                        name: "python".into(),
                        input: json!({"code": "plt.plot(x)"}),
                    }],
                },
                Message {
                    id: "r".into(),
                    speaker: Speaker::User,
                    time: t(1736699999.0),
                    parts: vec![Part::ToolResult {
                        id: "a".into(),
                        text: "<Figure>".into(),
                    }],
                },
            ],
        };
        let text = transcript(Kind::ChatGpt, &c);
        assert!(!text.contains("sk-ant-api03"), "{text}");
        assert_eq!(
            text,
            transcript(Kind::ChatGpt, &c),
            "the same bytes every time"
        );
        let (turns, st) = read(
            &mut std::io::Cursor::new(text.as_bytes()),
            0,
            0,
            &ReadOptions::default(),
        );
        assert_eq!(st.malformed, 0);
        assert_eq!(st.session_id.as_deref(), Some("c1"));
        let shown: Vec<(Role, &str)> = turns.iter().map(|t| (t.role, t.text.as_str())).collect();
        assert_eq!(
            shown[0],
            (
                Role::Summary,
                "Plot a parabola\n(ChatGPT conversation, started 2025-01-12)"
            )
        );
        assert!(shown[1].1.starts_with("plot y=x^2 with key [REDACTED"));
        assert_eq!(
            shown[2],
            (Role::Assistant, "[tool python] {\"code\":\"plt.plot(x)\"}")
        );
        assert_eq!(shown[3], (Role::Tool, "[result python] <Figure>"));
        assert_eq!(
            turns[2].timestamp.as_deref(),
            Some("2025-01-12T16:39:50.000Z"),
            "the time before it"
        );
    }
}

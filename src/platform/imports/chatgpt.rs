//! ChatGPT's data export (Settings → Data controls → Export data): a zip
//! holding `conversations.json`, or in newer exports `conversations-000.json`,
//! `-001.json`, … (each a JSON array of the same conversation objects; one
//! conversation may be in two, the later `update_time` wins, as convoviz's
//! `ConversationCollection.update` keeps it).
//!
//! A conversation is a tree: `mapping` is `{node id: {parent, children,
//! message}}`, and regenerating or editing an answer adds a sibling branch.
//! The one the user ended on is `current_node`'s: walked up by `parent` to
//! the root and reversed (not every child of every node, which mixes
//! discarded answers in). Hidden and system messages are left out, as are
//! the assistant's reasoning, browsing displays and calls to tools other
//! than the code interpreter; code it ran is a tool call, its output the
//! result. The custom instructions are a hidden `user_editable_context`
//! message at the top of every conversation (`about_user_message`,
//! `about_model_message`): they are handed on once as [`Identity`], never
//! as conversation.
//!
//! Times are float seconds since the epoch and may be null.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::input::{Container, Entry, Input};
use super::json_array::{Elements, SplitError};
use super::{
    Checked, Conversation, FormatError, Identity, MeFile, Message, Part, ReadError, Sink, Speaker,
    from_epoch_seconds,
};
use crate::platform::progress::{Progress, Step};

const FIX: &str = "download the export again (ChatGPT: Settings → Data controls → Export data) and give pms the .zip as it came, or the conversations.json in it";

/// The export's conversation files: `conversations.json`, else its shards
/// in order.
fn conversation_files(input: &Input) -> Result<Vec<&Entry>, FormatError> {
    let whole: Vec<&Entry> = input.named("conversations.json").collect();
    if !whole.is_empty() {
        return Ok(whole);
    }
    let shards: Vec<&Entry> = input
        .entries
        .iter()
        .filter(|e| is_shard(e.file_name()))
        .collect();
    if shards.is_empty() {
        // One file given by another name (`export.json`) is the one.
        if input.container == Container::File {
            return Ok(input.entries.iter().collect());
        }
        return Err(FormatError::new(
            input.path.display().to_string(),
            "no conversations.json (or conversations-000.json, …) in it: it is not a ChatGPT export",
            FIX,
        ));
    }
    Ok(shards)
}

/// `conversations-<digits>.json`.
fn is_shard(name: &str) -> bool {
    name.strip_prefix("conversations-")
        .and_then(|r| r.strip_suffix(".json"))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// What the check needs to see of a conversation: that it parses, and
/// whether it is ChatGPT's shape at all.
#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    mapping: Option<IgnoredAny>,
    #[serde(default)]
    chat_messages: Option<IgnoredAny>,
}

fn split_error(e: &Entry, err: SplitError) -> FormatError {
    FormatError::new(&e.display, err.to_string(), FIX)
}

fn item_error(e: &Entry, index: usize, offset: u64, err: &serde_json::Error) -> FormatError {
    FormatError::new(
        &e.display,
        format!(
            "conversation {} (from byte {offset}) is not valid JSON: {err}",
            index + 1
        ),
        FIX,
    )
}

pub fn check(path: &Path, progress: &dyn Progress) -> Result<Checked, FormatError> {
    let input = Input::open(path, FIX)?;
    let files = conversation_files(&input)?;
    progress.start(Step::Checking {
        bytes: files.iter().map(|e| e.size).sum(),
    });
    let mut checked = Checked::default();
    for e in files {
        checked.bytes += e.size;
        e.read(FIX, |r| {
            let mut items = Elements::new(r);
            let mut last = 0;
            while let Some(el) = items.next_element().map_err(|err| split_error(e, err))? {
                let probe: Probe = serde_json::from_slice(el.bytes)
                    .map_err(|err| item_error(e, el.index, el.offset, &err))?;
                if el.index == 0 && probe.mapping.is_none() && probe.chat_messages.is_some() {
                    return Err(FormatError::new(
                        &e.display,
                        "this is a Claude.ai export, not a ChatGPT one",
                        format!("pms import claude {}", path.display()),
                    ));
                }
                checked.items += 1;
                let at = items.offset();
                progress.advance(at - last);
                last = at;
            }
            Ok(())
        })?;
    }
    Ok(checked)
}

pub fn read(path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    let input = Input::open(path, FIX)?;
    let files = conversation_files(&input)?;
    // Conversation id → the update time of the copy handed on.
    let mut seen: HashMap<String, f64> = HashMap::new();
    let mut identities: HashSet<String> = HashSet::new();
    for e in files {
        e.read(FIX, |r| -> Result<(), ReadError> {
            let mut items = Elements::new(r);
            let mut last = 0;
            while let Some(el) = items.next_element().map_err(|err| split_error(e, err))? {
                let (index, offset) = (el.index, el.offset);
                match serde_json::from_slice::<RawConversation>(el.bytes) {
                    Ok(raw) => {
                        let updated = raw.update_time.or(raw.create_time).unwrap_or(0.0);
                        let id = raw.conversation_id.clone().or_else(|| raw.id.clone());
                        match id {
                            Some(id) if seen.get(&id).is_some_and(|t| *t >= updated) => {
                                sink.skipped("the same conversation again (older copy)");
                            }
                            Some(id) => {
                                let (conv, found) = convert(&id, raw);
                                for i in found {
                                    if identities.insert(i.text.clone()) {
                                        sink.identity(i);
                                    }
                                }
                                seen.insert(id, updated);
                                match conv {
                                    Some(c) => sink.conversation(c).map_err(ReadError::Write)?,
                                    None => sink.skipped("a conversation with no messages"),
                                }
                            }
                            None => sink.skipped("a conversation without an id"),
                        }
                    }
                    Err(err) => {
                        // Valid JSON (the check saw to that) of another
                        // shape: left out, the rest imported.
                        let _ = (index, offset, err);
                        sink.skipped("a conversation of an unexpected shape");
                    }
                }
                let at = items.offset();
                sink.advanced(at - last);
                last = at;
            }
            Ok(())
        })?;
    }
    Ok(())
}

#[derive(Deserialize)]
struct RawConversation {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    update_time: Option<f64>,
    #[serde(default)]
    mapping: Option<HashMap<String, RawNode>>,
    #[serde(default)]
    current_node: Option<String>,
    #[serde(default)]
    conversation_id: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

#[derive(Deserialize)]
struct RawNode {
    #[serde(default)]
    message: Option<RawMessage>,
    #[serde(default)]
    parent: Option<String>,
}

#[derive(Deserialize)]
struct RawMessage {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    author: Option<Author>,
    #[serde(default)]
    create_time: Option<f64>,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    metadata: Option<Metadata>,
    #[serde(default)]
    recipient: Option<String>,
}

#[derive(Deserialize)]
struct Author {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    content_type: Option<String>,
    #[serde(default)]
    parts: Option<Vec<Value>>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    user_profile: Option<String>,
    #[serde(default)]
    user_instructions: Option<String>,
    #[serde(default)]
    model_set_context: Option<String>,
}

#[derive(Deserialize, Default)]
struct Metadata {
    #[serde(default)]
    is_visually_hidden_from_conversation: Option<bool>,
    #[serde(default)]
    user_context_message_data: Option<UserContext>,
    #[serde(default)]
    attachments: Option<Vec<Attachment>>,
}

#[derive(Deserialize)]
struct UserContext {
    #[serde(default)]
    about_user_message: Option<String>,
    #[serde(default)]
    about_model_message: Option<String>,
}

#[derive(Deserialize)]
struct Attachment {
    #[serde(default)]
    name: Option<String>,
}

/// The node ids of the branch the user ended on, root first: from
/// `current_node` (else the newest message's node) up by `parent`, guarded
/// against cycles and parents that are missing.
fn visible_branch<'a>(
    mapping: &'a HashMap<String, RawNode>,
    current: Option<&'a str>,
) -> Vec<&'a str> {
    let start = current.filter(|c| mapping.contains_key(*c)).or_else(|| {
        mapping
            .iter()
            .filter_map(|(id, n)| Some((n.message.as_ref()?.create_time?, id.as_str())))
            .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)))
            .map(|(_, id)| id)
    });
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut at = start;
    while let Some(id) = at {
        if !seen.insert(id) {
            break; // a cycle
        }
        path.push(id);
        at = mapping
            .get(id)
            .and_then(|n| n.parent.as_deref())
            .filter(|p| mapping.contains_key(*p));
    }
    path.reverse();
    path
}

/// Tools whose messages are bookkeeping, not conversation (memory writes,
/// searches whose pages are not what was said).
const HIDDEN_TOOLS: [&str; 5] = ["bio", "web", "web.run", "web.search", "browser"];

/// The conversation (None when nothing of it is left to keep), and the
/// custom instructions and saved memory it carries.
fn convert(id: &str, raw: RawConversation) -> (Option<Conversation>, Vec<Identity>) {
    let mut identities = Vec::new();
    let Some(mapping) = &raw.mapping else {
        return (None, identities);
    };
    let mut messages: Vec<Message> = Vec::new();
    for node_id in visible_branch(mapping, raw.current_node.as_deref()) {
        let Some(m) = mapping.get(node_id).and_then(|n| n.message.as_ref()) else {
            continue;
        };
        let meta = m.metadata.as_ref();
        let Some(content) = &m.content else { continue };
        let kind = content.content_type.as_deref().unwrap_or("text");
        match kind {
            "user_editable_context" => {
                identities.extend(custom_instructions(content, meta));
                continue;
            }
            "model_editable_context" => {
                if let Some(t) = content.model_set_context.as_deref().map(str::trim)
                    && !t.is_empty()
                {
                    identities.push(Identity {
                        target: MeFile::Profile,
                        heading: "From ChatGPT: what it remembered about you".into(),
                        text: t.to_string(),
                    });
                }
                continue;
            }
            _ => {}
        }
        if meta.and_then(|m| m.is_visually_hidden_from_conversation) == Some(true) {
            continue;
        }
        let role = m
            .author
            .as_ref()
            .and_then(|a| a.role.as_deref())
            .unwrap_or("");
        let tool_name = m.author.as_ref().and_then(|a| a.name.as_deref());
        let msg_id = m.id.clone().unwrap_or_else(|| node_id.to_string());
        let time = m.create_time.and_then(from_epoch_seconds);
        let recipient = m.recipient.as_deref().unwrap_or("all");
        let message = match (role, kind) {
            ("user", _) => {
                let mut text = parts_text(content);
                if let Some(names) = attachment_names(meta) {
                    text = format!("{text}\n[attached: {names}]").trim().to_string();
                }
                (!text.is_empty()).then(|| Message {
                    id: msg_id,
                    speaker: Speaker::User,
                    time,
                    parts: vec![Part::Text(text)],
                })
            }
            ("assistant", "code") if matches!(recipient, "python" | "container.exec") => {
                let code = content.text.clone().unwrap_or_default();
                (!code.trim().is_empty()).then(|| Message {
                    id: msg_id.clone(),
                    speaker: Speaker::Assistant,
                    time,
                    parts: vec![Part::ToolUse {
                        id: msg_id,
                        name: recipient.to_string(),
                        input: json!({ "code": code }),
                    }],
                })
            }
            ("assistant", "code") if recipient == "all" => {
                let code = content.text.clone().unwrap_or_default();
                let lang = content
                    .language
                    .as_deref()
                    .filter(|l| *l != "unknown")
                    .unwrap_or("");
                (!code.trim().is_empty()).then(|| Message {
                    id: msg_id,
                    speaker: Speaker::Assistant,
                    time,
                    parts: vec![Part::Text(format!("```{lang}\n{code}\n```"))],
                })
            }
            ("assistant", "text" | "multimodal_text") if recipient == "all" => {
                let text = parts_text(content);
                (!text.is_empty()).then(|| Message {
                    id: msg_id,
                    speaker: Speaker::Assistant,
                    time,
                    parts: vec![Part::Text(text)],
                })
            }
            ("tool", "execution_output" | "tether_quote" | "text")
                if !tool_name.is_some_and(|n| HIDDEN_TOOLS.contains(&n)) =>
            {
                let text = match kind {
                    "tether_quote" => [
                        content.title.as_deref(),
                        content.url.as_deref(),
                        content.text.as_deref(),
                    ]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("\n"),
                    "text" => parts_text(content),
                    _ => content.text.clone().unwrap_or_default(),
                };
                // The result of the call just before it, when there is one.
                let call = match messages.last().and_then(|m| m.parts.last()) {
                    Some(Part::ToolUse { id, .. }) => id.clone(),
                    _ => format!("{}-call", msg_id),
                };
                (!text.trim().is_empty()).then(|| Message {
                    id: msg_id,
                    speaker: Speaker::User,
                    time,
                    parts: vec![Part::ToolResult {
                        id: call,
                        text: text.trim().to_string(),
                    }],
                })
            }
            // system messages, reasoning, browsing, other tools' calls
            _ => None,
        };
        if let Some(message) = message {
            messages.push(message);
        }
    }
    if messages.is_empty() {
        return (None, identities);
    }
    let created = raw
        .create_time
        .and_then(from_epoch_seconds)
        .or_else(|| messages.iter().find_map(|m| m.time))
        .or_else(|| raw.update_time.and_then(from_epoch_seconds));
    let title = raw
        .title
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| first_words(&messages));
    (
        Some(Conversation {
            id: super::safe_id(id),
            title,
            created,
            updated: raw.update_time.and_then(from_epoch_seconds),
            messages,
        }),
        identities,
    )
}

/// The custom instructions: the raw texts (`user_context_message_data`)
/// when present, else the wrapped ones with OpenAI's preamble cut off.
fn custom_instructions(content: &Content, meta: Option<&Metadata>) -> Vec<Identity> {
    let raw = meta.and_then(|m| m.user_context_message_data.as_ref());
    let about_user = raw
        .and_then(|r| r.about_user_message.clone())
        .or_else(|| content.user_profile.as_deref().map(unwrap_fenced));
    let about_model = raw
        .and_then(|r| r.about_model_message.clone())
        .or_else(|| content.user_instructions.as_deref().map(unwrap_fenced));
    let mut out = Vec::new();
    for (text, target, heading) in [
        (
            about_user,
            MeFile::Profile,
            "From ChatGPT: what you told it about yourself",
        ),
        (
            about_model,
            MeFile::Preferences,
            "From ChatGPT: how you asked it to answer",
        ),
    ] {
        if let Some(t) = text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty()) {
            out.push(Identity {
                target,
                heading: heading.into(),
                text: t,
            });
        }
    }
    out
}

/// The text inside the first ``` fence of a wrapped instruction (OpenAI's
/// preamble says what the text is, then quotes it), else the whole text.
fn unwrap_fenced(s: &str) -> String {
    match s.find("```") {
        Some(a) => {
            let rest = &s[a + 3..];
            let end = rest.rfind("```").unwrap_or(rest.len());
            rest[..end].to_string()
        }
        None => s.to_string(),
    }
}

/// A message's text: its string parts, transcribed audio, `[image]` for a
/// picture; or its `text` field.
fn parts_text(content: &Content) -> String {
    let mut out: Vec<String> = Vec::new();
    match &content.parts {
        Some(parts) => {
            for p in parts {
                match p {
                    Value::String(s) if !s.trim().is_empty() => out.push(s.clone()),
                    Value::Object(o) => match o.get("content_type").and_then(Value::as_str) {
                        Some("image_asset_pointer") => out.push("[image]".into()),
                        _ => {
                            if let Some(t) = o.get("text").and_then(Value::as_str)
                                && !t.trim().is_empty()
                            {
                                out.push(t.to_string());
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
        None => {
            if let Some(t) = &content.text {
                out.push(t.clone());
            }
        }
    }
    out.join("\n").trim().to_string()
}

fn attachment_names(meta: Option<&Metadata>) -> Option<String> {
    let names: Vec<&str> = meta?
        .attachments
        .as_ref()?
        .iter()
        .filter_map(|a| a.name.as_deref())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// A title for a conversation without one: its first prompt's first words.
pub fn first_words(messages: &[Message]) -> String {
    let first = messages.iter().find_map(|m| match m.parts.first() {
        Some(Part::Text(t)) if m.speaker == Speaker::User => Some(t.as_str()),
        _ => None,
    });
    match first.and_then(|t| t.lines().map(str::trim).find(|l| !l.is_empty())) {
        Some(line) => super::note::shorten(line, 80),
        None => "Untitled conversation".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(json: &str) -> (Option<Conversation>, Vec<Identity>) {
        let raw: RawConversation = serde_json::from_str(json).unwrap();
        convert("c1", raw)
    }

    fn texts(c: &Conversation) -> Vec<String> {
        c.messages
            .iter()
            .map(|m| match &m.parts[0] {
                Part::Text(t) => format!("{:?}: {t}", m.speaker),
                Part::ToolUse { name, .. } => format!("call {name}"),
                Part::ToolResult { text, .. } => format!("result: {text}"),
            })
            .collect()
    }

    #[test]
    fn the_branch_the_user_ended_on_not_the_regenerated_one() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/import/chatgpt/conversations.json"
        ))
        .unwrap();
        let all: Vec<Value> = serde_json::from_str(&text).unwrap();
        let (c, ids) = conv(&all[0].to_string());
        let c = c.unwrap();
        assert_eq!(c.title, "Rust lifetimes question");
        assert_eq!(
            texts(&c),
            [
                "User: Why does the borrow checker reject returning a reference to a local?",
                "Assistant: Because the value it points to is dropped when the function returns. Return an owned `String` instead:\n[image]"
            ]
        );
        assert_eq!(
            ids.len(),
            2,
            "custom instructions, about the user and about answers"
        );
        assert_eq!(
            ids[0].text,
            "Preferred name: Sam\nRole: Backend engineer, mostly Rust"
        );
        assert_eq!(ids[1].target, MeFile::Preferences);
        assert_eq!(ids[1].text, "Be terse. Prefer code over prose.");

        let (c, _) = conv(&all[1].to_string());
        let c = c.unwrap();
        assert_eq!(
            c.title, "Plot y=x^2",
            "a null title becomes the first prompt"
        );
        assert_eq!(
            super::super::iso(c.created.unwrap()),
            "2025-01-12T16:39:50.000Z",
            "a null create_time: the first message's"
        );
        assert_eq!(
            texts(&c),
            [
                "User: Plot y=x^2",
                "call python",
                "result: <Figure size 640x480 with 1 Axes>"
            ]
        );
        match (&c.messages[1].parts[0], &c.messages[2].parts[0]) {
            (Part::ToolUse { id, .. }, Part::ToolResult { id: for_id, .. }) => {
                assert_eq!(id, for_id)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn cycles_and_missing_parents_end_the_walk() {
        let (c, _) = conv(
            r#"{"current_node":"b","mapping":{
              "a":{"parent":"b","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["first"]}}},
              "b":{"parent":"a","message":{"author":{"role":"assistant"},"content":{"content_type":"text","parts":["second"]},"recipient":"all"}},
              "orphan":{"parent":"gone","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["lost"]}}}}}"#,
        );
        assert_eq!(texts(&c.unwrap()), ["User: first", "Assistant: second"]);
        // no current_node: the newest message's branch
        let (c, _) = conv(
            r#"{"mapping":{
              "r":{"parent":null,"message":null},
              "u":{"parent":"r","message":{"author":{"role":"user"},"create_time":1.0,"content":{"content_type":"text","parts":["q"]}}},
              "old":{"parent":"u","message":{"author":{"role":"assistant"},"create_time":2.0,"content":{"content_type":"text","parts":["old answer"]}}},
              "new":{"parent":"u","message":{"author":{"role":"assistant"},"create_time":3.0,"content":{"content_type":"text","parts":["new answer"]}}}}}"#,
        );
        assert_eq!(texts(&c.unwrap()), ["User: q", "Assistant: new answer"]);
    }

    #[test]
    fn hidden_system_reasoning_and_browsing_are_left_out() {
        let (c, _) = conv(
            r#"{"current_node":"6","mapping":{
              "1":{"parent":null,"message":{"author":{"role":"system"},"content":{"content_type":"text","parts":["You are ChatGPT"]}}},
              "2":{"parent":"1","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["hidden"]},"metadata":{"is_visually_hidden_from_conversation":true}}},
              "3":{"parent":"2","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["find the docs"]}}},
              "4":{"parent":"3","message":{"author":{"role":"assistant"},"content":{"content_type":"thoughts","thoughts":[]},"recipient":"all"}},
              "5":{"parent":"4","message":{"author":{"role":"tool","name":"web.run"},"content":{"content_type":"text","parts":["search results"]}}},
              "6":{"parent":"5","message":{"author":{"role":"assistant"},"content":{"content_type":"text","parts":["Here they are."]},"recipient":"all"}}}}"#,
        );
        assert_eq!(
            texts(&c.unwrap()),
            ["User: find the docs", "Assistant: Here they are."]
        );
        let (c, _) = conv(r#"{"mapping":{"r":{"message":null}}}"#);
        assert!(c.is_none());
    }

    #[test]
    fn shard_names() {
        assert!(is_shard("conversations-000.json"));
        assert!(is_shard("conversations-27.json"));
        assert!(!is_shard("conversations-.json"));
        assert!(!is_shard("conversations.json"));
        assert!(!is_shard("conversations-0a.json"));
    }
}

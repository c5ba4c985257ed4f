//! Claude.ai's data export (Settings → Privacy → Export data), in the three
//! layouts it has had: one zip with `conversations.json`, `projects.json`,
//! `users.json` and `memories.json`; the same with one `projects/<uuid>.json`
//! per project instead of `projects.json`; and a manifest naming several
//! zips (`conversations-000.zip`, `projects-000.zip`, `memories-000.zip`),
//! given as the folder they were downloaded to. `memories.json` is an array
//! of one `{conversations_memory, project_memories, account_uuid}` object,
//! or that object alone.
//!
//! A conversation is a flat list of `chat_messages` (`sender` human or
//! assistant); the text is in `content` blocks (`text`, `thinking` left
//! out, `tool_use`, `tool_result`), else in `text`; attachments carry their
//! extracted text. Times are ISO 8601 with `Z` or `+00:00`. A project
//! (`prompt_template`: its instructions, `docs`) and the memory Claude kept
//! of it become notes; what it remembered of the user is also offered for
//! `_me/profile.md`.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::input::{Entry, Input};
use super::json_array::{Elements, SplitError};
use super::note::{front_matter, short_hash, slug};
use super::{
    Checked, Conversation, FormatError, Identity, MeFile, Message, Note, Part, ReadError, Sink,
    Speaker, iso, parse_time,
};
use crate::platform::progress::{Progress, Step};

const FIX: &str = "download the export again (Claude: Settings → Privacy → Export data) and give pms the .zip as it came, or the folder its files are in";

/// The export's parts, found by name wherever they sit in it.
struct Parts<'a> {
    conversations: Vec<&'a Entry>,
    projects: Vec<&'a Entry>,
    /// `projects.json` (an array) rather than one object per file.
    projects_array: bool,
    memories: Vec<&'a Entry>,
}

fn parts(input: &Input) -> Result<Parts<'_>, FormatError> {
    let mut conversations: Vec<&Entry> = input.named("conversations.json").collect();
    if conversations.is_empty() {
        conversations = input
            .entries
            .iter()
            .filter(|e| {
                e.file_name()
                    .strip_prefix("conversations-")
                    .is_some_and(|r| r.ends_with(".json"))
            })
            .collect();
    }
    if conversations.is_empty() && input.container == super::input::Container::File {
        conversations = input.entries.iter().collect();
    }
    let mut projects: Vec<&Entry> = input.named("projects.json").collect();
    let projects_array = !projects.is_empty();
    if !projects_array {
        projects = input.in_folder("projects").collect();
    }
    let mut memories: Vec<&Entry> = input.named("memories.json").collect();
    memories.extend(input.in_folder("memories"));
    if conversations.is_empty() && projects.is_empty() && memories.is_empty() {
        return Err(FormatError::new(
            input.path.display().to_string(),
            "no conversations.json, projects or memories.json in it: it is not a Claude.ai export",
            FIX,
        ));
    }
    Ok(Parts {
        conversations,
        projects,
        projects_array,
        memories,
    })
}

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    mapping: Option<IgnoredAny>,
}

fn split_error(e: &Entry, err: SplitError) -> FormatError {
    FormatError::new(&e.display, err.to_string(), FIX)
}

pub fn check(path: &Path, progress: &dyn Progress) -> Result<Checked, FormatError> {
    let input = Input::open(path, FIX)?;
    let p = parts(&input)?;
    progress.start(Step::Checking {
        bytes: p
            .conversations
            .iter()
            .chain(&p.projects)
            .chain(&p.memories)
            .map(|e| e.size)
            .sum(),
    });
    let mut checked = Checked::default();
    for e in &p.conversations {
        checked.bytes += e.size;
        e.read(FIX, |r| {
            let mut items = Elements::new(r);
            let mut last = 0;
            while let Some(el) = items.next_element().map_err(|err| split_error(e, err))? {
                let probe: Probe = serde_json::from_slice(el.bytes).map_err(|err| {
                    FormatError::new(
                        &e.display,
                        format!(
                            "conversation {} (from byte {}) is not valid JSON: {err}",
                            el.index + 1,
                            el.offset
                        ),
                        FIX,
                    )
                })?;
                if el.index == 0 && probe.mapping.is_some() {
                    return Err(FormatError::new(
                        &e.display,
                        "this is a ChatGPT export, not a Claude.ai one",
                        format!("pms import chatgpt {}", path.display()),
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
    for e in p.projects.iter().chain(&p.memories) {
        checked.bytes += e.size;
        let _: IgnoredAny = e.parse(FIX)?;
        checked.items += 1;
        progress.advance(e.size);
    }
    Ok(checked)
}

pub fn read(path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    let input = Input::open(path, FIX)?;
    let p = parts(&input)?;
    // Memories first: a project's note holds what Claude remembered of it.
    let mut project_memories: HashMap<String, String> = HashMap::new();
    for e in &p.memories {
        let v: Value = e.parse(FIX)?;
        let items = match v {
            Value::Array(a) => a,
            other => vec![other],
        };
        for m in items {
            let account = m.get("account_uuid").and_then(Value::as_str).unwrap_or("");
            if let Some(text) = m
                .get("conversations_memory")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
            {
                sink.identity(Identity {
                    target: MeFile::Profile,
                    heading: "From Claude: what it remembered about you".into(),
                    text: text.to_string(),
                });
                sink.note(memory_note(account, text))
                    .map_err(ReadError::Write)?;
            }
            if let Some(Value::Object(pm)) = m.get("project_memories") {
                for (uuid, text) in pm {
                    if let Some(t) = text.as_str().map(str::trim).filter(|t| !t.is_empty()) {
                        project_memories.insert(uuid.clone(), t.to_string());
                    }
                }
            }
        }
        sink.advanced(e.size);
    }
    for e in &p.projects {
        let v: Value = e.parse(FIX)?;
        let projects = match (p.projects_array, v) {
            (true, Value::Array(a)) => a,
            (_, other) => vec![other],
        };
        for project in projects {
            let Ok(project) = serde_json::from_value::<RawProject>(project) else {
                sink.skipped("a project of an unexpected shape");
                continue;
            };
            let memory = project
                .uuid
                .as_deref()
                .and_then(|u| project_memories.remove(u));
            for n in project_notes(&project, memory.as_deref()) {
                sink.note(n).map_err(ReadError::Write)?;
            }
        }
        sink.advanced(e.size);
    }
    // What Claude remembered of a project the export does not list.
    let mut orphans: Vec<(String, String)> = project_memories.into_iter().collect();
    orphans.sort();
    for (uuid, text) in orphans {
        let project = RawProject {
            uuid: Some(uuid),
            ..RawProject::default()
        };
        for n in project_notes(&project, Some(&text)) {
            sink.note(n).map_err(ReadError::Write)?;
        }
    }
    for e in &p.conversations {
        e.read(FIX, |r| -> Result<(), ReadError> {
            let mut items = Elements::new(r);
            let mut last = 0;
            while let Some(el) = items.next_element().map_err(|err| split_error(e, err))? {
                match serde_json::from_slice::<RawConversation>(el.bytes) {
                    Ok(raw) => match convert(raw) {
                        Some(c) => sink.conversation(c).map_err(ReadError::Write)?,
                        None => sink.skipped("a conversation with no messages"),
                    },
                    Err(_) => sink.skipped("a conversation of an unexpected shape"),
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
    uuid: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    chat_messages: Option<Vec<RawMessage>>,
}

#[derive(Deserialize)]
struct RawMessage {
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    sender: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    content: Option<Vec<Value>>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    attachments: Option<Vec<Attachment>>,
    #[serde(default)]
    files: Option<Vec<FileRef>>,
}

#[derive(Deserialize)]
struct Attachment {
    #[serde(default)]
    file_name: Option<String>,
    #[serde(default)]
    extracted_content: Option<String>,
}

#[derive(Deserialize)]
struct FileRef {
    #[serde(default)]
    file_name: Option<String>,
}

#[derive(Deserialize, Default)]
struct RawProject {
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    prompt_template: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    docs: Option<Vec<RawDoc>>,
}

#[derive(Deserialize)]
struct RawDoc {
    #[serde(default)]
    uuid: Option<String>,
    #[serde(default)]
    filename: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    created_at: Option<String>,
}

fn convert(raw: RawConversation) -> Option<Conversation> {
    let id = raw.uuid?;
    let mut messages = Vec::new();
    for (n, m) in raw
        .chat_messages
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let id = m.uuid.clone().unwrap_or_else(|| format!("{id}-{n}"));
        let time = m.created_at.as_deref().and_then(parse_time);
        let speaker = match m.sender.as_deref() {
            Some("human") | Some("user") => Speaker::User,
            Some("assistant") => Speaker::Assistant,
            _ => continue,
        };
        // One message may hold calls and their results in turn: the
        // results go on the user's side, as in Claude Code's transcripts.
        let mut runs: Vec<(Speaker, Vec<Part>)> = vec![(speaker, Vec::new())];
        let mut push = |who: Speaker, part: Part| match runs.last_mut() {
            Some((w, parts)) if *w == who => parts.push(part),
            _ => runs.push((who, vec![part])),
        };
        for b in m.content.iter().flatten() {
            match b.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if let Some(t) = b
                        .get("text")
                        .and_then(Value::as_str)
                        .filter(|t| !t.trim().is_empty())
                    {
                        push(speaker, Part::Text(t.to_string()));
                    }
                }
                Some("tool_use") => push(
                    Speaker::Assistant,
                    Part::ToolUse {
                        id: str_of(b, "id"),
                        name: b
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("tool")
                            .to_string(),
                        input: b.get("input").cloned().unwrap_or(Value::Null),
                    },
                ),
                Some("tool_result") => {
                    let text = crate::platform::agents::transcript::parts_text(
                        b.get("content").unwrap_or(&Value::Null),
                    );
                    push(
                        Speaker::User,
                        Part::ToolResult {
                            id: str_of(b, "tool_use_id"),
                            text,
                        },
                    );
                }
                _ => {} // thinking, and what a later export adds
            }
        }
        let said_nothing = runs.iter().all(|(_, p)| p.is_empty());
        if said_nothing && let Some(t) = m.text.as_deref().filter(|t| !t.trim().is_empty()) {
            runs = vec![(speaker, vec![Part::Text(t.to_string())])];
        }
        let mut extra = Vec::new();
        for a in m.attachments.iter().flatten() {
            let name = a.file_name.as_deref().unwrap_or("attachment");
            match a
                .extracted_content
                .as_deref()
                .filter(|c| !c.trim().is_empty())
            {
                Some(c) => extra.push(format!("[attachment {name}]\n{c}")),
                None => extra.push(format!("[attachment {name}]")),
            }
        }
        for f in m.files.iter().flatten() {
            if let Some(name) = &f.file_name {
                extra.push(format!("[file {name}]"));
            }
        }
        if !extra.is_empty() {
            match runs.first_mut() {
                Some((_, parts)) if speaker == Speaker::User => {
                    parts.push(Part::Text(extra.join("\n")))
                }
                _ => runs.push((speaker, vec![Part::Text(extra.join("\n"))])),
            }
        }
        for (k, (who, parts)) in runs.into_iter().filter(|(_, p)| !p.is_empty()).enumerate() {
            messages.push(Message {
                id: if k == 0 {
                    id.clone()
                } else {
                    format!("{id}#{k}")
                },
                speaker: who,
                time,
                parts,
            });
        }
    }
    if messages.is_empty() {
        return None;
    }
    let title = raw
        .name
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| super::chatgpt::first_words(&messages));
    Some(Conversation {
        id: super::safe_id(&id),
        title,
        created: raw.created_at.as_deref().and_then(parse_time),
        updated: raw.updated_at.as_deref().and_then(parse_time),
        messages,
    })
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn memory_note(account: &str, text: &str) -> Note {
    let title = "What Claude remembered about you";
    let mut body = front_matter(&[
        ("title", title.into()),
        ("imported_from", "claude-ai".into()),
        ("original_id", format!("memories/{account}")),
    ]);
    body.push_str(&format!("\n# {title}\n\n{text}\n"));
    Note {
        key: format!("memories/{account}"),
        rel: if account.is_empty() {
            "memory.md".into()
        } else {
            format!("memory-{}.md", short_hash(account))
        },
        text: body,
        date: None,
    }
}

/// A project's note (its description, instructions and the memory Claude
/// kept of it), and one note per document.
fn project_notes(p: &RawProject, memory: Option<&str>) -> Vec<Note> {
    let uuid = p.uuid.clone().unwrap_or_default();
    let name = p
        .name
        .clone()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| format!("Project {}", uuid.get(..8).unwrap_or(&uuid)));
    let folder = format!("projects/{}-{}", slug(&name, 40), short_hash(&uuid));
    let created = p.created_at.as_deref().and_then(parse_time);
    let updated = p.updated_at.as_deref().and_then(parse_time).or(created);
    let mut text = front_matter(&[
        ("title", name.clone()),
        ("imported_from", "claude-ai".into()),
        ("original_id", format!("projects/{uuid}")),
        ("created", created.map(iso).unwrap_or_default()),
        ("updated", updated.map(iso).unwrap_or_default()),
    ]);
    text.push_str(&format!("\n# {name} (Claude project)\n"));
    if let Some(d) = p
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        text.push_str(&format!("\n{d}\n"));
    }
    if let Some(t) = p
        .prompt_template
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        text.push_str(&format!("\n## Project instructions\n\n{t}\n"));
    }
    if let Some(m) = memory {
        text.push_str(&format!(
            "\n## What Claude remembered about this project\n\n{m}\n"
        ));
    }
    let mut notes = Vec::new();
    let docs = p.docs.as_deref().unwrap_or_default();
    if !docs.is_empty() {
        text.push_str("\n## Documents\n\n");
    }
    for d in docs {
        let file = d.filename.clone().unwrap_or_else(|| "document".into());
        let doc_id = d.uuid.clone().unwrap_or_else(|| format!("{uuid}/{file}"));
        let rel = format!("{folder}/{}-{}.md", slug(&file, 40), short_hash(&doc_id));
        text.push_str(&format!(
            "- {file} ({})\n",
            rel.rsplit('/').next().unwrap_or(&rel)
        ));
        let content = d.content.as_deref().unwrap_or_default();
        let lang = file
            .rsplit_once('.')
            .map(|(_, x)| x.to_ascii_lowercase())
            .unwrap_or_default();
        let body = if matches!(lang.as_str(), "md" | "markdown" | "txt" | "") {
            content.to_string()
        } else {
            format!("```{lang}\n{content}\n```")
        };
        let date = d.created_at.as_deref().and_then(parse_time).or(created);
        let mut doc = front_matter(&[
            ("title", file.clone()),
            ("imported_from", "claude-ai".into()),
            ("original_id", format!("docs/{doc_id}")),
            ("project", name.clone()),
            ("created", date.map(iso).unwrap_or_default()),
        ]);
        doc.push_str(&format!("\n# {file} ({name})\n\n{body}\n"));
        notes.push(Note {
            key: format!("docs/{doc_id}"),
            rel,
            text: doc,
            date,
        });
    }
    notes.insert(
        0,
        Note {
            key: format!("projects/{uuid}"),
            rel: format!("{folder}/project.md"),
            text,
            date: updated,
        },
    );
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/import/claude-ai/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn messages_keep_text_and_attachments_not_thinking() {
        let all: Vec<Value> = serde_json::from_str(&fixture("conversations.json")).unwrap();
        let c = convert(serde_json::from_value(all[0].clone()).unwrap()).unwrap();
        assert_eq!(c.title, "Designing the import command");
        assert_eq!(c.messages.len(), 2);
        assert_eq!(
            c.messages[0].parts,
            [
                Part::Text("How should I dedupe re-imports?".into()),
                Part::Text(
                    "[attachment notes.md]\n# Notes\nuse source ids\n[file diagram.png]".into()
                )
            ]
        );
        assert_eq!(
            c.messages[1].parts,
            [Part::Text("Key every imported item on the export's own uuid, and store it alongside the memory.".into())]
        );
        assert_eq!(iso(c.created.unwrap()), "2025-01-05T20:55:32.499Z");
        assert!(
            convert(serde_json::from_value(all[1].clone()).unwrap()).is_none(),
            "no messages"
        );
    }

    #[test]
    fn tool_results_go_to_the_user_side() {
        let raw: RawConversation = serde_json::from_str(
            r#"{"uuid":"c","name":"n","chat_messages":[{"uuid":"m","sender":"assistant","text":"","content":[
              {"type":"text","text":"Let me search."},
              {"type":"tool_use","id":"t1","name":"web_search","input":{"query":"rust zip crate"}},
              {"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"zip 9.8"}]},
              {"type":"text","text":"Use zip."}]}]}"#,
        )
        .unwrap();
        let c = convert(raw).unwrap();
        let shape: Vec<(Speaker, usize, &str)> = c
            .messages
            .iter()
            .map(|m| (m.speaker, m.parts.len(), m.id.as_str()))
            .collect();
        assert_eq!(
            shape,
            [
                (Speaker::Assistant, 2, "m"),
                (Speaker::User, 1, "m#1"),
                (Speaker::Assistant, 1, "m#2")
            ]
        );
    }

    #[test]
    fn projects_become_notes_with_their_documents() {
        let p: Vec<RawProject> = serde_json::from_str(&fixture("projects.json")).unwrap();
        let notes = project_notes(&p[0], Some("pms stores memories in SQLite"));
        assert_eq!(notes.len(), 2);
        assert!(notes[0].rel.starts_with("projects/pms-") && notes[0].rel.ends_with("/project.md"));
        assert!(
            notes[0]
                .text
                .contains("## Project instructions\n\nYou are helping build pms, a Rust CLI.")
        );
        assert!(
            notes[0]
                .text
                .contains("original_id: projects/0199aa00-0000-4000-8000-000000000a01")
        );
        assert!(notes[0].text.contains("pms stores memories in SQLite"));
        assert!(notes[1].text.contains("# Architecture\nSQLite + FTS5."));
        let one: RawProject = serde_json::from_str(&fixture(
            "projects/0199aa00-0000-4000-8000-000000000a01.json",
        ))
        .unwrap();
        assert_eq!(
            project_notes(&one, None)[1].rel,
            notes[1].rel,
            "both layouts, one name"
        );
    }
}

//! The session summary written at session end (and as a checkpoint before
//! compaction, and for sessions that ended without SessionEnd): built from
//! the transcript deterministically, with no model call, so it is fast and
//! reproducible. It points back to its transcript (`transcript_ref`), which
//! stays searchable after the summary itself is pruned.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::state::extend_unique;
use crate::platform::agents::transcript::{
    self, ReadOptions, ReadStats, Role, ToolResults, Turn, truncate,
};
use crate::platform::host::durable;
use crate::platform::host::text::{ascii_lowercase, holds_any};
use crate::platform::workspace::Workspace;

/// What the summary is made from.
#[derive(Debug, Default, Clone)]
pub struct SessionFacts {
    pub session_id: String,
    pub project: String,
    pub cwd: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    pub transcript_ref: Option<String>,
    /// Bytes of the transcript the summary was made from: crash recovery
    /// finishes a session whose transcript grew past it.
    pub covers: u64,
    pub turns: Vec<Turn>,
    pub files_changed: Vec<String>,
    pub signals: BTreeMap<String, usize>,
    pub rounds: u32,
}

// ASCII word boundaries: Unicode ones make the regex crate fall back to its
// slowest engine on text with CJK characters (three quarters of session-end
// time on a 10 MB transcript went there).
static DECISION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)((?-u:\b)(?:we|i)(?:'ll| will| decided| agreed| chose| picked| went with)(?-u:\b)|(?-u:\b)decided to(?-u:\b)|(?:^|[.!;\n]\s*|(?-u:\b)(?:yes|ok|so),?\s*)(?:decision|decided):|(?-u:\b)as decided(?-u:\b)|(?-u:\b)let(?:'s| us) (?:go with|use)(?-u:\b)|(?-u:\b)going with(?-u:\b)|决定|就用|选择了|确定(用|采用)|采用了)").expect("valid")
});
static OPEN_ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)((?-u:\b)(?:todo|to-do|next steps?|next time|next session|follow[- ]up|still (?:need|to do|open|have to|missing|pending|unresolved)|open questions?|open items?|not yet|yet to|later|remaining|outstanding|pending|deferred|parked|left ?over|left to do|what'?s left|unresolved|tomorrow|didn'?t get to)(?-u:\b)|(?-u:\b)next:|(?-u:\b)haven'?t [ -~]{0,40}(?-u:\b)yet(?-u:\b)|待办|下一步|后续|还需要|尚未|待确认)").expect("valid")
});

/// A sentence that says an item is done, naming it ("The Sentry TODO is
/// done", "OK, the backfill task is finished now"): not an open item;
/// listed under "Closed items" for a later session's start to drop the
/// item it names ([`done_item_name`]), or "the X TODO: I did it". Said as
/// the sentence itself or a clause of it after a comma ("The sidekiq.yml
/// queue is fine, the ImportRecipeJob queue TODO is done"), not inside a
/// condition, a question or an instruction ("once the Sentry TODO is
/// done, …", "make sure the migration task is done", "… is done only
/// once CI passes"); an instruction in a clause of its own after it
/// ("…: I did it, please double-check it") leaves it news.
// ASCII only: with `\w` repeated 60 times the automaton took 30 ms to
// build, paid by every session start that reads summaries; then 0.5 ms
// with regex (0.15 ms before the clause and "I did it" forms; a scratch
// timing, release build). Read in ASCII lower case, as [`CONDITIONAL`]
// is: case folding doubled its build time. With regex-lite, as the done
// claims are read only for the few lines of a summary: building this,
// [`DONE_ITEM_ZH`] and [`CONDITIONAL`] with regex was a fifth of a session
// start with continuity (perf, the hook bench's kept workspace).
static DONE_ITEM: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?-u)(?:^|[,;] +)(?:(?:ok|okay|now|so|and|also|good|great),? +)?(?:the|that|this|our) +([a-z0-9_ ./-]{1,60}?) +(?:todo|item|task)s?(?: +(?:is|are|was|were|has been|have been) +(?:now +)?(?:done|closed|finished|complete|completed|fixed|resolved)\b|: +(?:i|we)(?:'ve| have)? +(?:did|done|finished|fixed|closed|handled) +(?:it|that|this)(?: +(?:in|on|via|with|already|now)\b| *(?:[,;.!]|$)))")
        .expect("valid")
});
/// [`DONE_ITEM`] in Chinese ("这个待办已经完成").
static DONE_ITEM_ZH: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(r"^这个待办(?:事项)?已(?:经)?(?:完成|搞定)").expect("valid")
});

/// Words that make a sentence a condition or an instruction, not news.
static CONDITIONAL: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(
        r"(?-u)\b(?:once|when|until|unless|if|whether|make sure|check|before|after|wait)\b",
    )
    .expect("valid")
});

/// A sentence's claim that an item is done ([`done_item`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoneClaim<'s> {
    /// The item's name ("Sentry" in "The Sentry TODO is done.").
    pub name: &'s str,
    /// What the sentence says before the claim ("Next step: wire the
    /// retry; " before "the DLQ task is done").
    pub before: &'s str,
}

/// The name of the item a sentence says is done ("sentry" in "The Sentry
/// TODO is done."), or None when it says no such thing ([`DONE_ITEM`]).
pub fn done_item_name(sentence: &str) -> Option<&str> {
    done_item(sentence).map(|claim| claim.name)
}

/// The claim a sentence makes that an item is done, or None
/// ([`DONE_ITEM`]).
pub fn done_item(sentence: &str) -> Option<DoneClaim<'_>> {
    let s = sentence.trim();
    if s.contains(['?', '？']) {
        return None;
    }
    // read in lower case, its spans the same in `s`
    let lower = ascii_lowercase(s);
    if !holds_any(&lower, &["todo", "item", "task"]) || !holds_any(&lower, DONE_VERBS) {
        return done_item_zh(s, &lower);
    }
    if let Some(c) = DONE_ITEM.captures(&lower) {
        let whole = c.get(0)?;
        // what leads to the claim and the rest of its clause
        let end = whole.end();
        let clause = s[end..].find([',', ';', '.']).map_or(s.len(), |i| end + i);
        if CONDITIONAL.is_match(&lower[..clause]) {
            return None;
        }
        return Some(DoneClaim {
            name: c.get(1).map_or("", |m| &s[m.range()]),
            before: &s[..whole.start()],
        });
    }
    done_item_zh(s, &lower)
}

/// The verbs one of which every [`DONE_ITEM`] claim holds ([`holds_any`]).
const DONE_VERBS: &[&str] = &[
    "done", "closed", "finished", "complete", "fixed", "resolved", "did", "handled",
];

/// [`done_item`] in Chinese ([`DONE_ITEM_ZH`]).
fn done_item_zh<'s>(s: &'s str, lower: &str) -> Option<DoneClaim<'s>> {
    (s.starts_with("这个待办") && DONE_ITEM_ZH.is_match(s) && !CONDITIONAL.is_match(lower))
        .then_some(DoneClaim {
            name: "",
            before: "",
        })
}

/// The address of a transcript path: `cc://<project folder>/<file>` for
/// Claude Code, `codex://…` and `openclaw://…` for the other agents.
pub fn transcript_ref(transcript_path: &Path) -> Option<String> {
    crate::memory::index::discover::transcript_uri(transcript_path)
}

/// Reads a whole transcript into facts.
pub fn facts_from_transcript(path: &Path, session_id: &str) -> std::io::Result<SessionFacts> {
    let file = std::fs::File::open(path)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    // the summary reads what was said, not what tools returned
    let opts = ReadOptions {
        tool_results: ToolResults::Skipped,
        ..ReadOptions::default()
    };
    let (turns, st) = transcript::read(&mut reader, 0, 0, &opts);
    Ok(facts_from_turns(path, session_id, turns, st))
}

/// The facts of a transcript at `path` already read whole into `turns`.
pub fn facts_from_turns(
    path: &Path,
    session_id: &str,
    turns: Vec<Turn>,
    st: ReadStats,
) -> SessionFacts {
    let mut files: Vec<String> = Vec::new();
    for t in &turns {
        extend_unique(&mut files, &t.files_changed);
    }
    SessionFacts {
        session_id: st
            .session_id
            .clone()
            .unwrap_or_else(|| session_id.to_string()),
        // Claude Code's folder is the project; the other agents' paths say
        // nothing about it, their cwd does (named the way Claude Code would).
        project: match transcript_ref(path) {
            Some(uri) if !uri.starts_with("cc://") => st
                .cwd
                .as_deref()
                .map(crate::platform::agents::claude::project_folder_name)
                .unwrap_or_default(),
            _ => path
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
        cwd: st.cwd,
        start: st.first_timestamp,
        end: st.last_timestamp,
        transcript_ref: transcript_ref(path),
        covers: st.end_offset,
        rounds: turns.iter().filter(|t| t.role == Role::User).count() as u32,
        turns,
        files_changed: files,
        signals: BTreeMap::new(),
    }
}

fn first_sentence(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = flat
        .char_indices()
        .find(|(i, c)| {
            matches!(c, '。' | '！' | '？')
                || (matches!(c, '.' | '!' | '?') && flat[i + c.len_utf8()..].starts_with(' '))
        })
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(flat.len());
    truncate(&flat[..end], max)
}

/// Text searched for decisions and open items, newest first: those of a
/// long session's last stretch are the ones still open.
const SCANNED_TEXT: usize = 512 * 1024;

/// A prompt that turns down the reply before it ("No, that's wrong",
/// "don't", "不对"): what that reply proposed was not decided.
fn rejects(prompt: &str) -> bool {
    static REJECTS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\W*(?:no(?-u:\b)|nope(?-u:\b)|wrong(?-u:\b)|that'?s (?:not|wrong)(?-u:\b)|that is (?:not|wrong)(?-u:\b)|don'?t(?-u:\b)|do not(?-u:\b)|stop(?-u:\b)|not that(?-u:\b)|不对|不是|错了|别)").expect("valid")
    });
    REJECTS.is_match(prompt)
}

/// Assistant turns the next prompt turns down ([`rejects`]), by index.
fn rejected_replies(turns: &[Turn]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last_reply = None;
    for (i, t) in turns.iter().enumerate() {
        match t.role {
            Role::Assistant => last_reply = Some(i),
            Role::User => {
                if let Some(r) = last_reply.take()
                    && rejects(&t.text)
                {
                    out.push(r);
                }
            }
            _ => {}
        }
    }
    out
}

fn sentences_matching(turns: &[Turn], re: &Regex, max: usize) -> Vec<String> {
    // What a reply proposed and the user then turned down was not decided
    // ("I'll install it with `npm install`" before "No, that's wrong").
    let rejected = rejected_replies(turns);
    let mut out: Vec<String> = Vec::new();
    // Only the newest turns are searched ([`SCANNED_TEXT`]), and each whole
    // turn once before its sentences: splitting every turn of a 20 MB
    // session into sentences to try each was most of its end.
    let said: Vec<&Turn> = turns
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            matches!(t.role, Role::User | Role::Assistant) && rejected.binary_search(i).is_err()
        })
        .map(|(_, t)| t)
        .collect();
    let mut budget = SCANNED_TEXT;
    let first = said
        .iter()
        .rposition(|t| {
            budget = budget.saturating_sub(t.text.len());
            budget == 0
        })
        .map_or(0, |i| i + 1);
    // The newest first: a session's wrap-up says what is still open, and
    // the sentences of its first hours ("I'll look at it later") filled
    // the eight places before it. Told in the order they were said.
    for t in said[first..].iter().rev().filter(|t| re.is_match(&t.text)) {
        let mut in_turn: Vec<String> = Vec::new();
        for s in t.text.split(['\n', '。']).flat_map(|l| l.split(". ")) {
            let s = s.trim().trim_start_matches(['-', '*', ' ']);
            if s.len() >= 12 && !s.starts_with("[tool ") && re.is_match(s) {
                let s = truncate(s, 200);
                if !out.contains(&s) && !in_turn.contains(&s) {
                    in_turn.push(s);
                }
            }
        }
        let room = max - out.len();
        if in_turn.len() > room {
            in_turn.drain(..in_turn.len() - room);
        }
        out.splice(0..0, in_turn);
        if out.len() >= max {
            break;
        }
    }
    out
}

/// A value as one front-matter line: CR and LF become spaces.
pub fn one_line(v: &str) -> String {
    v.replace(['\n', '\r'], " ")
}

/// The summary as markdown with frontmatter.
pub fn render(f: &SessionFacts) -> String {
    // Values from a payload or a transcript are one line each: a newline in
    // a session id or a cwd would otherwise write a front-matter line of its
    // own (a false `covers:` that makes recovery skip the session).
    let line = one_line;
    let mut md = String::from("---\n");
    md.push_str(&format!("session_id: {}\n", line(&f.session_id)));
    md.push_str(&format!("project: {}\n", line(&f.project)));
    if let Some(c) = &f.cwd {
        md.push_str(&format!("cwd: {}\n", line(c)));
    }
    md.push_str(&format!("start: {}\n", f.start.as_deref().unwrap_or("")));
    md.push_str(&format!("end: {}\n", f.end.as_deref().unwrap_or("")));
    if let Some(r) = &f.transcript_ref {
        md.push_str(&format!("transcript_ref: {}\n", line(r)));
    }
    md.push_str(&format!("covers: {}\n", f.covers));
    let files: Vec<String> = f
        .files_changed
        .iter()
        .map(|p| serde_json::to_string(p).expect("string"))
        .collect();
    md.push_str(&format!("files_changed: [{}]\n", files.join(", ")));
    // A prompt that turns the reply down is a correction, whether or not
    // the agent's answer said "you're right" (the staged learning is the
    // user's rule, counted as a rule).
    let turned_down = rejected_replies(&f.turns).len();
    let signals: Vec<String> = crate::memory::lessons::signals::KINDS
        .iter()
        .map(|k| {
            let n = f.signals.get(*k).copied().unwrap_or(0);
            let n = if *k == "correction" {
                n.max(turned_down)
            } else {
                n
            };
            format!("{k}: {n}")
        })
        .collect();
    md.push_str(&format!("signals: {{{}}}\n", signals.join(", ")));
    md.push_str(&format!("rounds: {}\n---\n\n", f.rounds));

    let asked: Vec<&Turn> = f.turns.iter().filter(|t| t.role == Role::User).collect();
    let title = asked
        .first()
        .map(|t| first_sentence(&t.text, 80))
        .unwrap_or_else(|| "(no prompt)".into());
    let when = f
        .start
        .as_deref()
        .and_then(|s| s.get(..16))
        .unwrap_or("")
        .replace('T', " ");
    md.push_str(&format!("# {when} {title}\n\n"));

    md.push_str("## What was asked\n");
    for t in asked.iter().take(12) {
        md.push_str(&format!(
            "- {} (L{})\n",
            first_sentence(&t.text, 200),
            t.line_start
        ));
    }
    if asked.len() > 12 {
        md.push_str(&format!(
            "- … and {}\n",
            crate::platform::plural::count(asked.len() - 12, "more prompt", "more prompts")
        ));
    }

    md.push_str("\n## What was done\n");
    // The last assistant reply before each next prompt says what came of it.
    let mut done = Vec::new();
    let mut last_reply: Option<&Turn> = None;
    for t in &f.turns {
        match t.role {
            Role::User => {
                if let Some(r) = last_reply.take() {
                    done.push(r);
                }
            }
            Role::Assistant if !t.text.starts_with("[tool ") => last_reply = Some(t),
            _ => {}
        }
    }
    done.extend(last_reply);
    for r in done.iter().take(12) {
        let text: String = r
            .text
            .lines()
            .filter(|l| !l.starts_with("[tool "))
            .collect::<Vec<_>>()
            .join(" ");
        if !text.trim().is_empty() {
            md.push_str(&format!(
                "- {} (L{})\n",
                first_sentence(&text, 240),
                r.line_start
            ));
        }
    }
    let mut tools: BTreeMap<String, usize> = BTreeMap::new();
    for t in f.turns.iter().filter(|t| t.role == Role::Assistant) {
        for l in t.text.lines().filter_map(|l| l.strip_prefix("[tool ")) {
            let name = l.split(']').next().unwrap_or("tool").to_string();
            *tools.entry(name).or_default() += 1;
        }
    }
    if !tools.is_empty() {
        let list: Vec<String> = tools.iter().map(|(k, v)| format!("{k} ×{v}")).collect();
        md.push_str(&format!("- Tools used: {}\n", list.join(", ")));
    }
    if !f.files_changed.is_empty() {
        md.push_str(&format!(
            "- Files changed: {}\n",
            f.files_changed.join(", ")
        ));
    }

    // A section with nothing in it is left out: "## Decisions - (none
    // recorded)" was indexed as a chunk and took a place among the top
    // search hits while saying nothing.
    let decisions = sentences_matching(&f.turns, &DECISION, 8);
    if !decisions.is_empty() {
        md.push_str("\n## Decisions\n");
    }
    for d in decisions {
        md.push_str(&format!("- {d}\n"));
    }
    let (mut open, mut closed): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for sentence in sentences_matching(&f.turns, &OPEN_ITEM, 8) {
        match done_item(&sentence) {
            Some(claim) => {
                // "Next step: wire the retry; the DLQ task is done" leaves
                // an item open before the one it closes
                if OPEN_ITEM.is_match(claim.before) {
                    open.push(sentence.clone());
                }
                closed.push(sentence);
            }
            None => open.push(sentence),
        }
    }
    if !open.is_empty() {
        md.push_str("\n## Open items\n");
    }
    for o in open {
        md.push_str(&format!("- {o}\n"));
    }
    if !closed.is_empty() {
        md.push_str("\n## Closed items\n");
    }
    for c in closed {
        md.push_str(&format!("- {c}\n"));
    }
    md.push_str(&format!(
        "\nFull conversation: `{}` (memory_get reads it).\n",
        f.transcript_ref
            .as_deref()
            .unwrap_or("(transcript unknown)")
    ));
    md
}

/// The summary file for a session: an existing one (a checkpoint, or a
/// recovered summary) is replaced; a new one is named by start time.
pub fn summary_path(ws: &Workspace, f: &SessionFacts) -> PathBuf {
    if let Some(existing) = find_summary(ws, &f.session_id) {
        return existing;
    }
    let stamp = f
        .start
        .as_deref()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.format("%Y%m%d-%H%M").to_string())
        .unwrap_or_else(|| chrono::Utc::now().format("%Y%m%d-%H%M").to_string());
    let short = short_id(&f.session_id);
    let path = ws.sessions_dir().join(format!("{stamp}-{short}.md"));
    if !path.exists() {
        return path;
    }
    // Another session's summary has the name: ids that start alike (Codex's
    // are UUIDv7, whose first letters are the time) started in the same
    // minute. The whole id tells them apart.
    let full: String = f
        .session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    ws.sessions_dir().join(format!("{stamp}-{full}.md"))
}

/// The first eight letters and digits of a session id, which end a summary's
/// file name.
fn short_id(session_id: &str) -> String {
    session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(8)
        .collect()
}

/// The summary already written for `session_id`, if any.
pub fn find_summary(ws: &Workspace, session_id: &str) -> Option<PathBuf> {
    let short = short_id(session_id);
    if short.is_empty() {
        return None;
    }
    let full: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    std::fs::read_dir(ws.sessions_dir())
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .map(|n| {
                    let n = n.to_string_lossy();
                    n.ends_with(&format!("-{short}.md")) || n.ends_with(&format!("-{full}.md"))
                })
                .unwrap_or(false)
                && std::fs::read_to_string(p)
                    .map(|t| t.contains(&format!("session_id: {}\n", one_line(session_id))))
                    .unwrap_or(false)
        })
}

/// Writes the summary; returns its path.
pub fn write(ws: &Workspace, f: &SessionFacts) -> std::io::Result<PathBuf> {
    let path = summary_path(ws, f);
    // The title is the first prompt as typed, a secret included: the
    // whole summary goes through the redactor.
    durable::write_atomic(
        &path,
        crate::platform::redact::redact(&render(f)).as_bytes(),
    )?;
    Ok(path)
}

/// Keeps the newest `keep` summaries (names start with the time, so they sort).
pub fn prune(ws: &Workspace, keep: usize) -> usize {
    let Ok(rd) = std::fs::read_dir(ws.sessions_dir()) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let excess = files.len().saturating_sub(keep);
    for p in &files[..excess] {
        let _ = std::fs::remove_file(p);
    }
    excess
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::workspace::summary_meta::SummaryMeta;

    /// The verbs checked before [`DONE_ITEM`] must let through every claim
    /// it matches: each verb of its pattern's groups holds one of them.
    #[test]
    fn the_done_verbs_hold_every_verb_the_pattern_matches() {
        let pattern = DONE_ITEM.as_str();
        let groups: Vec<&str> = pattern
            .split("(?:")
            .filter_map(|g| g.split(')').next())
            .filter(|g| g.contains("done"))
            .collect();
        assert_eq!(groups.len(), 2, "{groups:?}");
        for verb in groups.iter().flat_map(|g| g.split('|')) {
            assert!(holds_any(verb, DONE_VERBS), "{verb}");
        }
        for (sentence, name) in [
            ("The Sentry TODO is done.", Some("Sentry")),
            ("OK, the backfill task is completed now", Some("backfill")),
            ("the DLQ item: we handled it", Some("DLQ")),
            ("the DLQ item is still open", None),
        ] {
            assert_eq!(done_item_name(sentence), name, "{sentence}");
        }
    }

    /// The summary reads a transcript without its tool results: it must be
    /// the summary a read with them gives, to the session's last time.
    #[test]
    fn a_summary_read_without_tool_results_is_the_same() {
        use serde_json::json;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        let line = |n: u32, kind: &str, content: serde_json::Value| {
            json!({"type": kind, "sessionId": "s1", "cwd": "/home/u/app",
                   "timestamp": format!("2026-11-20T10:{n:02}:00Z"),
                   "message": {"role": kind, "id": format!("m{n}"), "content": content}})
            .to_string()
        };
        let tool_use = |id: &str, cmd: &str| json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]);
        let lines = [
            line(
                1,
                "user",
                json!("Fix the flaky checkout test. TODO: add the retry later."),
            ),
            line(2, "assistant", tool_use("t1", "npm test")),
            // a result alone, as a string
            line(
                3,
                "user",
                json!([{"type": "tool_result", "tool_use_id": "t1",
                                    "content": "FAIL checkout.test.ts\n\"type\":\"text\""}]),
            ),
            line(
                4,
                "assistant",
                json!([{"type": "text", "text": "We decided to mock the clock."}]),
            ),
            line(5, "user", json!("No, that's wrong, use fake timers.")),
            line(6, "assistant", tool_use("t2", "cat notes.md")),
            // a result whose content is text blocks
            line(
                7,
                "user",
                json!([{"type": "tool_result", "tool_use_id": "t2",
                                    "content": [{"type": "text", "text": "notes"}]}]),
            ),
            // a prompt sent with a result
            line(
                8,
                "user",
                json!([{"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
                                   {"type": "text", "text": "Also rename the spec file."}]),
            ),
            line(
                9,
                "assistant",
                json!([{"type": "text", "text": "I'll use fake timers; the retry is still open."}]),
            ),
            line(10, "assistant", tool_use("t3", "npm test")),
            // the session's last line: a result
            line(
                11,
                "user",
                json!([{"type": "tool_result", "tool_use_id": "t3", "content": "ok"}]),
            ),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let skipped = facts_from_transcript(&path, "s1").unwrap();
        let mut reader = BufReader::new(std::fs::File::open(&path).unwrap());
        let (turns, st) = transcript::read(&mut reader, 0, 0, &ReadOptions::default());
        let kept = facts_from_turns(&path, "s1", turns, st);
        assert!(kept.turns.iter().any(|t| t.role == Role::Tool));
        assert_eq!(skipped.end.as_deref(), Some("2026-11-20T10:11:00Z"));
        assert_eq!(skipped.covers, kept.covers);
        let rendered = render(&skipped);
        assert_eq!(rendered, render(&kept));
        assert!(
            rendered.contains("Also rename the spec file."),
            "{rendered}"
        );
    }

    #[test]
    fn sessions_whose_ids_start_alike_keep_their_own_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        // Two Codex sessions (UUIDv7 ids) started in the same minute.
        let facts = |id: &str| SessionFacts {
            session_id: id.into(),
            start: Some("2026-11-25T08:48:48.552Z".into()),
            turns: vec![turn(Role::User, &format!("prompt of {id}"), 1)],
            ..SessionFacts::default()
        };
        let a = write(&ws, &facts("01a211e4-ab90-7dc1-9d8e-f2372179182c")).unwrap();
        let b = write(&ws, &facts("01a211e4-b0c2-7e00-8a11-0c0ffee00000")).unwrap();
        assert_ne!(a, b);
        let again = write(&ws, &facts("01a211e4-b0c2-7e00-8a11-0c0ffee00000")).unwrap();
        assert_eq!(again, b, "a session's summary is found again by its id");
        assert_eq!(std::fs::read_dir(ws.sessions_dir()).unwrap().count(), 2);
        // an id with a newline (written as one line) is found again too
        let odd = "s1\ncovers: 999999";
        let first = write(&ws, &facts(odd)).unwrap();
        assert_eq!(write(&ws, &facts(odd)).unwrap(), first);
        assert_eq!(std::fs::read_dir(ws.sessions_dir()).unwrap().count(), 3);
    }

    fn turn(role: Role, text: &str, line: u64) -> Turn {
        Turn {
            role,
            text: text.into(),
            line_start: line,
            line_end: line,
            byte_start: 0,
            timestamp: None,
            message_id: None,
            files_changed: vec![],
        }
    }

    #[test]
    fn open_items_are_the_newest_and_said_many_ways() {
        // a long session's early asides fill more than the places
        let mut turns: Vec<Turn> = (0..10)
            .map(|i| {
                turn(
                    Role::Assistant,
                    &format!("I will look at module {i} later today."),
                    i,
                )
            })
            .collect();
        turns.push(turn(
            Role::Assistant,
            "Done for now. Outstanding: the retry budget for the webhook sender.\nWe haven't rotated the staging key yet.\nParked: the CSV export rewrite.",
            20,
        ));
        let open = sentences_matching(&turns, &OPEN_ITEM, 8);
        assert_eq!(open.len(), 8, "{open:?}");
        assert_eq!(
            &open[5..],
            [
                "Outstanding: the retry budget for the webhook sender.",
                "We haven't rotated the staging key yet.",
                "Parked: the CSV export rewrite."
            ]
        );
        // told in the order they were said
        assert_eq!(open[0], "I will look at module 5 later today.");
    }

    #[test]
    fn a_done_item_is_news_not_a_condition_or_an_instruction() {
        assert_eq!(done_item_name("The Sentry TODO is done."), Some("Sentry"));
        assert_eq!(
            done_item_name("OK, the backfill task is finished now"),
            Some("backfill")
        );
        // a clause after a comma says it as well
        assert_eq!(
            done_item_name(
                "The sidekiq.yml queue is fine, the ImportRecipeJob queue TODO is done."
            ),
            Some("ImportRecipeJob queue")
        );
        assert_eq!(
            done_item_name("Redis is back; the backfill task is finished now"),
            Some("backfill")
        );
        // "the X TODO: I did it", and an instruction after it in a clause
        // of its own
        assert_eq!(
            done_item_name(
                "Also the ImportRecipeJob queue TODO: I did it in config/sidekiq.yml, please double-check it."
            ),
            Some("ImportRecipeJob queue")
        );
        assert_eq!(
            done_item_name("The Sentry TODO is done, check the dashboard tomorrow"),
            Some("Sentry")
        );
        for open in [
            "TODO: make sure the migration task is done before release",
            "Once the Sentry TODO is done, the next step is the canary deploy",
            "Can you check whether the Sentry TODO is done?",
            "Still need to check that the deploy task is finished",
            "When CI is green, the Sentry TODO is done",
            "We are not there yet, this task is done only once CI passes",
            "The Sentry TODO: I did it only if the build is green",
            "The release task: we did it wrong, redo",
        ] {
            assert_eq!(done_item_name(open), None, "{open}");
        }
        assert!(DECISION.is_match("Decision: the chart keeps one replica"));
        assert!(DECISION.is_match("Yes, decided: transfers lock both rows"));
        assert!(!DECISION.is_match("Still not decided: Redis or Memcached"));
    }

    #[test]
    fn summary_has_frontmatter_and_sections() {
        let f = SessionFacts {
            session_id: "abc-123".into(),
            project: "-w-app".into(),
            cwd: Some("/w/app".into()),
            start: Some("2026-11-22T10:00:00Z".into()),
            end: Some("2026-11-22T10:30:00Z".into()),
            transcript_ref: Some("cc://-w-app/abc-123.jsonl".into()),
            covers: 4096,
            turns: vec![
                turn(
                    Role::User,
                    "Why is the deploy failing? It worked yesterday.",
                    3,
                ),
                turn(Role::Assistant, "[tool Bash] kubectl logs", 5),
                turn(
                    Role::Assistant,
                    "The pod crashed because of a missing env var. We decided to add it to the chart. A follow-up is still needed for staging.",
                    9,
                ),
                turn(
                    Role::User,
                    "Decision: the chart keeps one replica. The probes TODO is done.",
                    11,
                ),
                turn(
                    Role::User,
                    "Next step: wire the retry; the DLQ task is done.",
                    13,
                ),
            ],
            files_changed: vec!["/w/app/chart.yaml".into()],
            signals: BTreeMap::from([("error".to_string(), 1)]),
            rounds: 1,
        };
        let md = render(&f);
        assert!(md.starts_with("---\nsession_id: abc-123\nproject: -w-app\n"));
        assert!(md.contains("transcript_ref: cc://-w-app/abc-123.jsonl\ncovers: 4096\n"));
        assert!(md.contains("files_changed: [\"/w/app/chart.yaml\"]\n"));
        assert!(md.contains("signals: {correction: 0, insight: 0, error: 1,"));
        assert!(md.contains("# 2026-11-22 10:00 Why is the deploy failing?\n"));
        assert!(md.contains("- Why is the deploy failing? (L3)"));
        assert!(md.contains("- The pod crashed because of a missing env var. (L9)"));
        assert!(md.contains("- Tools used: Bash ×1"));
        assert!(md.contains("## Decisions\n- We decided to add it to the chart"));
        // a line that says an item is done is not open, unless it leaves
        // one open before it
        assert!(md.contains(
            "## Open items\n- A follow-up is still needed for staging.\n- Next step: wire the retry; the DLQ task is done.\n\n"
        ));
        assert!(md.contains(
            "## Closed items\n- The probes TODO is done.\n- Next step: wire the retry; the DLQ task is done.\n"
        ));
        // a label is a decision
        assert!(md.contains("- Decision: the chart keeps one replica"));
        let meta = SummaryMeta::parse(&md);
        assert_eq!(meta.covers, 4096);
        assert_eq!(
            meta.transcript_ref.as_deref(),
            Some("cc://-w-app/abc-123.jsonl")
        );
    }

    #[test]
    fn frontmatter_fields() {
        let m = SummaryMeta::parse(
            "---\nsession_id: abc\nproject: -w-p\ntranscript_ref: cc://-w-p/abc.jsonl\nend: 2026-11-22T10:00:00Z\n---\n# Body\n",
        );
        assert_eq!(m.session_id.as_deref(), Some("abc"));
        assert_eq!(m.transcript_ref.as_deref(), Some("cc://-w-p/abc.jsonl"));
        assert_eq!(m.end.as_deref(), Some("2026-11-22T10:00:00Z"));
        assert_eq!(
            SummaryMeta::parse("# no frontmatter"),
            SummaryMeta::default()
        );
    }
}

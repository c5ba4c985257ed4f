//! Where the last sessions in a project left off: the open items and
//! decisions their summaries (`sessions/*.md`, written at session end)
//! recorded, newest first, without the items a later session in the same
//! project closed ("the dead-letter queue is in now").

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::memory::sessions::summary::done_item_name;
use crate::platform::host::text::{ascii_lowercase, holds_any};
use crate::platform::workspace::Workspace;

/// Sessions of the project whose open items are carried (an item stays
/// open until a later session closes it, however many sessions later:
/// when chosen, the written set's tuning half carried 4 of 8 items with 3,
/// and 6 with 6).
pub const SESSIONS: usize = 6;
/// Sessions whose decisions are carried: a decision is restated when it
/// still matters, so only the last few are.
pub const DECISION_SESSIONS: usize = 3;
/// Summaries read at most, newest first (each is a few KB; 60 read in about
/// a millisecond).
const SCANNED: usize = 60;
/// Items of each kind carried at most.
const MAX_ITEMS: usize = 8;

/// Words that say an item was done, read in ASCII lower case (every
/// session start builds it: with regex, 1 ms with case folding, 0.4
/// without; with regex-lite, 0.02).
static CLOSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)(?-u:\b)(?:done|finished|implemented|added|adds|in now|is in|are in|landed|merged|shipped|fixed|resolved|closed|completed|wired|rotated|removed|migrated|switched|upgraded|bumped|deployed|released|works now|no longer|took care|taken care|in place)(?-u:\b)|(?-u:\b)(?:is|are|was|were|got) [a-z]+ed now(?-u:\b)").expect("valid")
});

/// What every match of [`CLOSED`] holds ([`holds_any`]): its words, and
/// `ed now` for "is wired now".
const CLOSED_WORDS: &[&str] = &[
    "done",
    "finished",
    "implemented",
    "added",
    "adds",
    "in now",
    "is in",
    "are in",
    "landed",
    "merged",
    "shipped",
    "fixed",
    "resolved",
    "closed",
    "completed",
    "wired",
    "rotated",
    "removed",
    "migrated",
    "switched",
    "upgraded",
    "bumped",
    "deployed",
    "released",
    "works now",
    "no longer",
    "took care",
    "taken care",
    "in place",
    "ed now",
];

/// Whether a line says something was done ([`CLOSED`]), in ASCII lower
/// case.
fn says_closed(lower: &str) -> bool {
    holds_any(lower, CLOSED_WORDS) && CLOSED.is_match(lower)
}

/// Words of an item that say it is one, not what it is.
const ITEM_WORDS: &[&str] = &[
    "todo",
    "next",
    "step",
    "steps",
    "later",
    "follow",
    "up",
    "still",
    "need",
    "needs",
    "open",
    "question",
    "remaining",
    "outstanding",
    "pending",
    "deferred",
    "parked",
    "leftover",
    "left",
    "unresolved",
    "tomorrow",
    "item",
    "items",
    "haven",
    "didn",
    "get",
    "not",
    "yet",
    "we",
    "should",
    "must",
    "will",
    "i",
    "ll",
    "the",
    "a",
    "an",
    "to",
    "of",
    "in",
    "on",
    "for",
    "and",
    "or",
    "it",
    "that",
    "this",
    "is",
    "be",
    "with",
    "add",
    "decided",
    "use",
    "let",
    "us",
    "go",
    "going",
    "noted",
    "also",
    "btw",
    "for",
    "so",
];

/// A summary as continuity needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PastSession {
    pub session_id: String,
    pub project: String,
    pub cwd: Option<String>,
    pub start: Option<String>,
    pub transcript_ref: Option<String>,
    pub decisions: Vec<String>,
    pub open_items: Vec<String>,
    /// Everything else it says (what was asked and done), for telling
    /// whether it closed an earlier item.
    pub said: Vec<String>,
}

/// An item carried into a new session.
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    pub kind: ItemKind,
    pub text: String,
    pub date: Option<String>,
    pub transcript_ref: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Open,
    Decision,
}

/// The open items of the last [`SESSIONS`] sessions and the decisions of
/// the last [`DECISION_SESSIONS`] in the project rooted at `root`, other than `exclude_session`, minus what a
/// later session there closed; open items first.
pub fn carried(ws: &Workspace, root: &Path, exclude_session: &str) -> Vec<Carried> {
    let sessions = project_sessions(ws, root, exclude_session);
    // the open items, each once, for a line that names one done
    let mut open: Vec<BTreeSet<String>> = Vec::new();
    for s in sessions.iter().take(SESSIONS) {
        for item in &s.open_items {
            let key = key_words(item);
            if !key.is_empty() && !open.contains(&key) {
                open.push(key);
            }
        }
    }
    // what each says is done, read once (not once per item)
    let closings: Vec<Closings> = sessions.iter().take(SESSIONS).map(Closings::of).collect();
    let mut out: Vec<Carried> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (i, s) in sessions.iter().take(SESSIONS).enumerate() {
        let later = &closings[..i];
        for (kind, items) in [
            (ItemKind::Open, &s.open_items),
            (ItemKind::Decision, &s.decisions),
        ] {
            for item in items {
                // an older session's decision is not carried, and does not
                // hide an item with the same words either
                if kind == ItemKind::Decision && i >= DECISION_SESSIONS {
                    continue;
                }
                let key = key_words(item);
                if key.is_empty() || !seen.insert(key.iter().cloned().collect::<Vec<_>>().join(" "))
                {
                    continue;
                }
                if kind == ItemKind::Open && later.iter().any(|l| l.close(&key, &open)) {
                    continue;
                }
                if out.iter().filter(|c| c.kind == kind).count() >= MAX_ITEMS {
                    continue;
                }
                out.push(Carried {
                    kind,
                    text: item.clone(),
                    date: s.start.clone(),
                    transcript_ref: s.transcript_ref.clone(),
                });
            }
        }
    }
    out.sort_by_key(|c| c.kind == ItemKind::Decision);
    out
}

/// The project's sessions, newest first (summary names start with the time).
fn project_sessions(ws: &Workspace, root: &Path, exclude_session: &str) -> Vec<PastSession> {
    let Ok(rd) = std::fs::read_dir(ws.sessions_dir()) else {
        return Vec::new();
    };
    let mut names: Vec<std::path::PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    names.sort();
    names.reverse();
    let mut out: Vec<PastSession> = Vec::new();
    for path in names.into_iter().take(SCANNED) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let s = parse(&text);
        if s.session_id == exclude_session
            || !super::same_project(root, s.cwd.as_deref(), &s.project)
        {
            continue;
        }
        out.push(s);
    }
    // By start time, not by name alone: a checkpoint keeps its first name.
    out.sort_by(|a, b| b.start.cmp(&a.start));
    out
}

/// Reads a summary (what `sessions::summary::render` writes).
pub fn parse(text: &str) -> PastSession {
    let mut s = PastSession::default();
    let mut lines = text.lines();
    if lines.next().map(str::trim) == Some("---") {
        for line in lines.by_ref() {
            if line.trim() == "---" {
                break;
            }
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().to_string();
            match k.trim() {
                "session_id" => s.session_id = v,
                "project" => s.project = v,
                "cwd" => s.cwd = Some(v),
                "start" if !v.is_empty() => s.start = Some(v),
                "transcript_ref" => s.transcript_ref = Some(v),
                _ => {}
            }
        }
    }
    let mut section = "";
    for line in lines {
        if let Some(h) = line.strip_prefix("## ") {
            section = match h.trim() {
                "Decisions" => "decisions",
                "Open items" => "open",
                _ => "said",
            };
            continue;
        }
        let Some(item) = line.strip_prefix("- ") else {
            continue;
        };
        let item = item.trim();
        if item.is_empty() || item == "(none recorded)" {
            continue;
        }
        // "(L12)" at the end of an asked/done line is where it was said
        let item = match item.rfind(" (L") {
            Some(i) if item.ends_with(')') => &item[..i],
            _ => item,
        };
        match section {
            "decisions" => s.decisions.push(item.to_string()),
            "open" => s.open_items.push(item.to_string()),
            "said" => s.said.push(item.to_string()),
            _ => {}
        }
    }
    s
}

/// The words that say what an item is about.
fn key_words(item: &str) -> BTreeSet<String> {
    item.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !ITEM_WORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

fn stem(w: &str) -> String {
    crate::memory::words::stem(w)
}

/// What a later session says is done: the words of each line that says
/// so, and of each item it names done ("the Sentry TODO is done").
struct Closings {
    lines: Vec<BTreeSet<String>>,
    named: Vec<BTreeSet<String>>,
}

impl Closings {
    fn of(later: &PastSession) -> Closings {
        let lines = || {
            later
                .said
                .iter()
                .chain(&later.decisions)
                .chain(&later.open_items)
        };
        Closings {
            lines: lines()
                .filter(|l| says_closed(&ascii_lowercase(l)))
                .map(|l| key_words(l))
                .collect(),
            named: lines()
                .filter_map(|l| done_item_name(l))
                .map(key_words)
                .filter(|w| !w.is_empty())
                .collect(),
        }
    }

    /// Whether the item of `key` is done: a line says so and shares most
    /// of its words, or names it (every word of the name is the item's,
    /// and of no other item in `open`, the open items carried).
    fn close(&self, key: &BTreeSet<String>, open: &[BTreeSet<String>]) -> bool {
        let named = self.named.iter().any(|words| {
            words.is_subset(key) && open.iter().filter(|k| words.is_subset(k)).count() == 1
        });
        named
            || self.lines.iter().any(|words| {
                let shared = key.intersection(words).count();
                // most of a short item; at least half of a long one (the
                // agent's restatement of an item adds words the closing
                // line has no reason to repeat: "TODO fix the flaky
                // checkout e2e test (Stripe iframe timeout on CI)", "the
                // flaky checkout test is fixed")
                shared >= 2.min(key.len())
                    && (shared * 5 >= key.len() * 3 || (shared >= 3 && shared * 2 >= key.len()))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The literal check before [`CLOSED`] must let through every line it
    /// matches: each word of its pattern is in [`CLOSED_WORDS`], and lines
    /// it matches pass both ways.
    #[test]
    fn the_closing_words_hold_every_word_the_pattern_matches() {
        let pattern = CLOSED.as_str();
        let words = pattern
            .split("(?:")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap();
        for w in words.split('|') {
            assert!(CLOSED_WORDS.contains(&w), "{w}");
        }
        for line in [
            "the dead-letter queue is in now",
            "retry is wired now, and the flag got flipped now",
            "sentry alerts were rerouted now",
            "we took care of the backfill",
            "nothing happened to the queue",
            "the queue is in place",
        ] {
            assert_eq!(says_closed(line), CLOSED.is_match(line), "{line}");
        }
        assert!(says_closed("sentry alerts were rerouted now"));
    }

    #[test]
    fn a_later_session_that_says_it_is_done_closes_an_item() {
        let later = PastSession {
            said: vec!["The dead-letter queue is in now, wired to the retry worker.".into()],
            ..PastSession::default()
        };
        assert!(Closings::of(&later).close(&key_words("TODO: add the dead-letter queue"), &[]));
        assert!(!Closings::of(&later).close(&key_words("TODO: rotate the staging keys"), &[]));
    }

    #[test]
    fn a_later_session_that_names_the_item_done_closes_it() {
        let later =
            parse("---\nsession_id: b\n---\n# x\n## Closed items\n- The Sentry TODO is done.\n");
        let item = key_words(
            "TODO: upload source maps to Sentry in the build, the prod stack traces are useless.",
        );
        let other = key_words("TODO: add the dead-letter queue");
        let open = [item.clone(), other.clone()];
        assert!(Closings::of(&later).close(&item, &open));
        assert!(!Closings::of(&later).close(&other, &open));
        // a named item must be named whole
        let vague = parse(
            "---\nsession_id: b\n---\n# x\n## Closed items\n- The Sentry alerts TODO is done.\n",
        );
        assert!(!Closings::of(&vague).close(&item, &open));
        // and be the only open item so named
        let alerts = key_words("TODO: Sentry alerts for the checkout errors");
        assert!(!Closings::of(&later).close(&item, &[item.clone(), alerts]));
        // a condition or a question closes nothing
        for line in [
            "Once the Sentry TODO is done, the next step is the canary deploy.",
            "Can you check whether the Sentry TODO is done?",
            "TODO: make sure the Sentry task is done before release",
        ] {
            let asked = parse(&format!(
                "---\nsession_id: b\n---\n# x\n## What was asked\n- {line}\n"
            ));
            assert!(!Closings::of(&asked).close(&item, &open), "{line}");
        }
    }
}

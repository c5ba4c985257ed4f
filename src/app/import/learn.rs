//! Learnings in imported conversations, staged like a session's: the rules
//! the user stated ("from now on, answer in French") and the corrections
//! the assistant admitted ("You're right, I was wrong: …"), found by the
//! same signals (`lessons::signals`) and staged in `pending-learnings.json`
//! for the user's yes.
//!
//! An export is years of chats on every subject, so less is taken than
//! from a coding session: no narrative (insights, methods, root causes),
//! only the user's rules and the assistant's rules and corrections; a reply
//! is analysed only when it holds a correction's or a rule's wording (most
//! do not, and analysing every reply of a 2,000-conversation export cost
//! more than the import); at most [`PER_CONVERSATION`] per conversation and
//! [`PER_IMPORT`] per import, the user's own first, then the newest.

use chrono::{DateTime, Utc};

use crate::memory::lessons::pending::Candidate;
use crate::memory::lessons::signals::{self, Origin};
use crate::memory::sessions::state::prompt_rules;
use crate::platform::imports::{Conversation, Part, Speaker};
use crate::platform::redact::redact;

/// As many as a session keeps (`sessions::state::MAX_UNSTAGED`).
pub const PER_CONVERSATION: usize = 5;
/// Most learnings one import stages.
pub const PER_IMPORT: usize = 20;
/// Bytes read at each end of a long reply.
const WINDOW: usize = 4 * 1024;

/// Words a reply that admits a correction or states a rule has (lower case).
const MARKERS: [&str; 22] = [
    "you're right",
    "you’re right",
    "you are right",
    "my mistake",
    "my apologies",
    "i was wrong",
    "i apologi",
    "good catch",
    "stand corrected",
    "lesson",
    "from now on",
    "going forward",
    "next time",
    "in future",
    "the rule is",
    "remember:",
    "你说得对",
    "我搞错",
    "我错了",
    "教训",
    "以后",
    "下次",
];

/// A learning found, with what orders it.
#[derive(Debug, Clone)]
pub struct Found {
    pub candidate: Candidate,
    pub when: Option<DateTime<Utc>>,
}

/// The learnings of `c` (whose transcript is `uri`).
pub fn in_conversation(c: &Conversation, uri: &str) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for m in &c.messages {
        let text: String = m
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty() {
            continue;
        }
        let found = match m.speaker {
            Speaker::User => prompt_rules(&text),
            Speaker::Assistant => {
                let lower = text.to_lowercase();
                if !MARKERS.iter().any(|k| lower.contains(k)) {
                    continue;
                }
                let window = redact(&ends(&text, WINDOW)).into_owned();
                signals::learnings(&window, Origin::Assistant)
                    .into_iter()
                    .filter(|l| signals::is_rule_kind(l.kind) || l.kind == "correction")
                    .collect()
            }
        };
        for l in found {
            if out.iter().any(|f| {
                crate::memory::lessons::similarity(&f.candidate.text, &l.text)
                    >= crate::memory::lessons::DUPLICATE_SIMILARITY
            }) {
                continue;
            }
            out.push(Found {
                candidate: Candidate {
                    kind: l.kind.to_string(),
                    text: l.text,
                    origin: l.origin,
                    why: l.why,
                    domain: None,
                    session_id: Some(c.id.clone()),
                    transcript_ref: Some(uri.to_string()),
                    // a chat on a website has no repository to be scoped to
                    project: None,
                },
                when: m.time.or(c.created),
            });
        }
    }
    strongest(out, PER_CONVERSATION)
}

/// How much a learning weighs: the user's own words first, then a rule,
/// then a correction.
fn strength(f: &Found) -> u8 {
    let by_kind = if signals::is_rule_kind(&f.candidate.kind) {
        2
    } else {
        1
    };
    by_kind
        + if f.candidate.origin == Origin::User {
            4
        } else {
            0
        }
}

/// The `n` strongest of `found`, newest first among equals.
pub fn strongest(mut found: Vec<Found>, n: usize) -> Vec<Found> {
    found.sort_by(|a, b| strength(b).cmp(&strength(a)).then(b.when.cmp(&a.when)));
    found.truncate(n);
    found
}

/// `text`, or its first and last `window` bytes when longer.
fn ends(text: &str, window: usize) -> String {
    crate::platform::host::text::ends(text, window, window, "\n\n").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::imports::Message;

    fn msg(speaker: Speaker, text: &str) -> Message {
        Message {
            id: "m".into(),
            speaker,
            time: None,
            parts: vec![Part::Text(text.into())],
        }
    }

    #[test]
    fn the_users_rules_and_admitted_corrections_only() {
        let c = Conversation {
            id: "c".into(),
            title: "t".into(),
            created: None,
            updated: None,
            messages: vec![
                msg(Speaker::User, "From now on, always answer in French."),
                msg(
                    Speaker::Assistant,
                    "It turns out the cache was stale. A simpler approach is to restart it.",
                ),
                msg(Speaker::User, "That migration dropped the index."),
                msg(
                    Speaker::Assistant,
                    "You're right, I was wrong: the migration ran outside a transaction. Lesson: always run schema migrations inside a transaction.",
                ),
            ],
        };
        let found = in_conversation(&c, "chatgpt://c.jsonl");
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|f| (f.candidate.origin.as_str(), f.candidate.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("user", "Always answer in French."),
                (
                    "assistant",
                    "Always run schema migrations inside a transaction."
                )
            ]
        );
        assert_eq!(
            found[0].candidate.transcript_ref.as_deref(),
            Some("chatgpt://c.jsonl")
        );
    }
}

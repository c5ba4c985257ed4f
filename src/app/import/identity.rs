//! What the user told another assistant about themselves (ChatGPT's custom
//! instructions and saved memory, what Claude remembered of them), offered
//! as additions to `_me/profile.md` and `_me/preferences.md`. An import
//! only proposes them; [`decide`] writes one when the user says yes (the
//! command asks in a terminal; `--identity add` is that yes given ahead).
//! The answer is kept in the source's ledger, so the same text is not asked
//! about again, and a text the file already holds is not proposed.

use serde::Serialize;

use super::ledger::{Decision, Ledger};
use crate::platform::host::durable;
use crate::platform::host::error::{AtPath, FileError};
use crate::platform::imports::{Identity, Kind, MeFile};
use crate::platform::redact::redact;
use crate::platform::workspace::Workspace;

/// An addition to `_me/`, as proposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    /// Stable: the hash of the target and the text.
    pub id: String,
    /// `_me/profile.md` or `_me/preferences.md`.
    pub file: String,
    #[serde(skip)]
    pub target: MeFile,
    pub heading: String,
    /// Redacted.
    pub text: String,
    pub status: Status,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Waiting for the user's answer.
    Proposed,
    /// Written (now, or by an earlier import).
    Added,
    /// The user said no before.
    Declined,
    /// The file holds this text already.
    AlreadyThere,
}

/// Text compared loosely: lower case, white space collapsed.
fn loose(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What the import found, as proposals: each text once, with what is
/// already known of it.
pub fn proposals(ws: &Workspace, ledger: &Ledger, found: &[Identity]) -> Vec<Proposal> {
    let mut out: Vec<Proposal> = Vec::new();
    for i in found {
        let text = redact(i.text.trim()).into_owned();
        let id = super::ledger::hash(format!("{}\n{text}", i.target.file_name()).as_bytes());
        if out.iter().any(|p| p.id == id) {
            continue;
        }
        let current = std::fs::read_to_string(ws.me_file(i.target.file_name())).unwrap_or_default();
        let status = match ledger.identity.get(&id) {
            Some(Decision::Added) => Status::Added,
            Some(Decision::Declined) => Status::Declined,
            None if loose(&current).contains(&loose(&text)) => Status::AlreadyThere,
            None => Status::Proposed,
        };
        out.push(Proposal {
            id,
            file: format!("_me/{}", i.target.file_name()),
            target: i.target,
            heading: i.heading.clone(),
            text,
            status,
        });
    }
    out
}

/// Records the user's answer to `p` and, on yes, appends it to its file as
/// a section of its own (with a comment saying where it came from, which
/// the session start leaves out of what it injects).
pub fn decide(
    ws: &Workspace,
    kind: Kind,
    p: &mut Proposal,
    decision: Decision,
    today: &str,
) -> Result<(), FileError> {
    let _lock = super::lock(ws)?;
    let mut ledger = Ledger::load(ws, kind)?;
    if decision == Decision::Added {
        let path = ws.me_file(p.target.file_name());
        let current = durable::read_existing_text(&path)
            .at(&path)?
            .unwrap_or_default();
        if !loose(&current).contains(&loose(&p.text)) {
            let mut text = current.trim_end().to_string();
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&format!(
                "## {}\n\n<!-- Imported by pms from your {} on {today}: edit or delete it as you like. -->\n{}\n",
                p.heading,
                kind.title(),
                p.text.trim()
            ));
            durable::write_atomic(&path, text.as_bytes()).at(&path)?;
        }
    }
    ledger.identity.insert(p.id.clone(), decision);
    ledger.save(ws, kind)?;
    p.status = match decision {
        Decision::Added => Status::Added,
        Decision::Declined => Status::Declined,
    };
    Ok(())
}

//! `.pms/pending-learnings.json`: learnings the hooks staged, waiting for
//! the user's yes. Several Claude Code sessions can end at the same moment,
//! so every change is a locked read-modify-write (`.pms/pending.lock`) ending
//! in an atomic rename: nothing is lost, nothing is half-written.

use serde::{Deserialize, Serialize};

use super::signals::{Origin, is_rule_kind, restates};
use super::{DUPLICATE_SIMILARITY, KeyTerms, Known, id_for, polarity, similarity_of};
use crate::platform::host::durable;
use crate::platform::host::error::{AtPath, FileError};
use crate::platform::workspace::Workspace;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingItem {
    pub id: String,
    /// rule, anti-pattern (a rule stated), or what a reply that stated none
    /// found: correction, insight, error, cognitive-shift, method.
    pub kind: String,
    /// The rule as stated (or the narrative, when none was).
    pub text: String,
    /// Who said it: the user (in a prompt) or the assistant. None for items
    /// staged before pms kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// The narrative around the rule: the correction, the root cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Later sessions that said it again (merged here, not staged twice).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen_again: Vec<String>,
    /// Suggested "applies when" cues.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cues: Vec<String>,
    /// Suggested home: a domain id, or None for `_me/lessons.md`.
    #[serde(default)]
    pub domain: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub transcript_ref: Option<String>,
    pub created: String,
    /// The project it was said about ("in this repo"): the session's git
    /// root, proposed as the rule's scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// A guard proposed for an explicit prohibition of a command ("never
    /// npm"), added only with the user's yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// The rule in force it reverses (same subject, opposite polarity):
    /// accepting it retires that rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingFile {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default)]
    pub items: Vec<PendingItem>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, thiserror::Error)]
pub enum PendingError {
    #[error(
        "{path}: not valid JSON at line {line}, column {column}: {message}.\n  Fix: correct it, or move it aside (pms starts a new one)."
    )]
    Invalid {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

/// A learning the hooks found, before staging.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Candidate {
    pub kind: String,
    pub text: String,
    pub origin: Origin,
    pub why: Option<String>,
    pub domain: Option<String>,
    pub session_id: Option<String>,
    pub transcript_ref: Option<String>,
    /// The session's project (its git root), for a learning that says it is
    /// about "this repo".
    pub project: Option<String>,
}

impl PendingItem {
    /// Notes that `c`, which restates this item, was said again: by which
    /// session, and with what more it says (the user's own words, a rule
    /// where this item holds only a narrative). Idempotent: a session
    /// staged twice (its end and a recovery) notes once.
    fn seen(&mut self, c: &Candidate) {
        if let Some(sid) = &c.session_id
            && self.session_id.as_ref() != Some(sid)
            && !self.seen_again.contains(sid)
        {
            self.seen_again.push(sid.clone());
        }
        if c.origin == Origin::User {
            self.origin = Some(Origin::User);
        }
        if is_rule_kind(&c.kind) && !is_rule_kind(&self.kind) {
            let narrative = std::mem::replace(&mut self.text, redacted(&c.text));
            self.kind = c.kind.clone();
            // "I'll use pnpm" is no reason for "Always use pnpm".
            let reason = (!restates(&narrative, &self.text)).then_some(narrative);
            self.why = match (reason, self.why.take()) {
                (Some(r), Some(w)) => Some(format!("{r} {w}")),
                (r, w) => r.or(w),
            };
        }
        if self.why.is_none() {
            self.why = c
                .why
                .as_deref()
                .filter(|w| !restates(w, &self.text))
                .map(redacted);
        }
    }
}

fn redacted(text: &str) -> String {
    crate::platform::redact::redact(text).into_owned()
}

pub fn load(ws: &Workspace) -> Result<PendingFile, PendingError> {
    let path = ws.pending_path();
    let shown = path.display().to_string();
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Ok(PendingFile::default()),
        Ok(text) => serde_json::from_str(&text).map_err(|e| PendingError::Invalid {
            path: shown,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(PendingFile {
            version: 1,
            items: Vec::new(),
        }),
        Err(source) => Err(FileError::new(path, source).into()),
    }
}

/// Runs `f` on the pending file under the lock and saves the result.
pub fn update<T>(ws: &Workspace, f: impl FnOnce(&mut PendingFile) -> T) -> Result<T, PendingError> {
    let lock_path = ws.state_dir().join("pending.lock");
    let _lock = durable::lock_exclusive(&lock_path).at(&lock_path)?;
    let mut file = load(ws)?;
    let out = f(&mut file);
    let text = serde_json::to_string_pretty(&file).expect("pending file serialises");
    let path = ws.pending_path();
    durable::write_atomic(&path, text.as_bytes()).at(&path)?;
    Ok(out)
}

/// Stages `candidates`. One that nearly restates a pending item (or an
/// earlier candidate) is merged into it ([`PendingItem::seen`]); one that
/// restates a `known` learning (a rule in force, one of Claude Code's
/// auto-memories: [`super::known_learnings`]) is dropped, unless it says the
/// opposite of a rule in force ("never" where it says "always"): then it is
/// staged as that rule's replacement. Returns what was added.
pub fn stage(
    ws: &Workspace,
    candidates: Vec<Candidate>,
    known: &[Known],
) -> Result<Vec<PendingItem>, PendingError> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    update(ws, |file| {
        let mut added = Vec::new();
        let mut item_terms: Vec<KeyTerms> =
            file.items.iter().map(|i| KeyTerms::of(&i.text)).collect();
        for c in candidates {
            let mine = KeyTerms::of(&c.text);
            let near = |other: &KeyTerms| similarity_of(other, &mine) >= DUPLICATE_SIMILARITY;
            let mut replaces = None;
            if let Some(k) = known.iter().position(|k| near(&k.terms)) {
                match &known[k].rule {
                    Some(id) if polarity(known[k].text()) != polarity(&c.text) => {
                        replaces = Some(id.clone());
                    }
                    _ => continue,
                }
            }
            if let Some(i) = item_terms.iter().position(near) {
                file.items[i].seen(&c);
                item_terms[i] = KeyTerms::of(&file.items[i].text);
                continue;
            }
            let text = redacted(&c.text);
            let project = c.project.filter(|_| says_this_project(&text));
            let guard = super::guard::propose(&text);
            let why = c.why.as_deref().map(redacted);
            let cues = super::cues::suggest(&text, why.as_deref());
            let item = PendingItem {
                id: id_for("P", &text),
                kind: c.kind,
                text,
                origin: Some(c.origin),
                why,
                seen_again: Vec::new(),
                cues,
                domain: c.domain,
                session_id: c.session_id,
                transcript_ref: c.transcript_ref,
                created: now.clone(),
                project,
                guard,
                replaces,
            };
            item_terms.push(KeyTerms::of(&item.text));
            file.items.push(item.clone());
            added.push(item);
        }
        added
    })
}

/// Whether a learning says it holds for the project it was said in ("in
/// this repo", "for this codebase", "在这个项目里").
pub fn says_this_project(text: &str) -> bool {
    const SAYS: &[&str] = &[
        "this repo",
        "this repository",
        "this project",
        "this codebase",
        "this code base",
        "our repo",
        "this monorepo",
        "here in this",
        "这个仓库",
        "本仓库",
        "此仓库",
        "这个项目",
        "本项目",
        "此项目",
        "这个代码库",
        "本代码库",
        "这个 repo",
        "这个repo",
    ];
    let lower = text.to_lowercase();
    SAYS.iter().any(|s| lower.contains(s))
}

/// Removes and returns the pending item `id`.
pub fn take(ws: &Workspace, id: &str) -> Result<Option<PendingItem>, PendingError> {
    update(ws, |file| {
        let pos = file.items.iter().position(|i| i.id == id)?;
        Some(file.items.remove(pos))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(text: &str) -> Candidate {
        Candidate {
            kind: "correction".into(),
            text: text.into(),
            session_id: Some("s1".into()),
            transcript_ref: Some("cc://-w/s1.jsonl".into()),
            ..Candidate::default()
        }
    }

    #[test]
    fn staging_deduplicates_against_pending_rules_and_itself() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        let rule = "Use UTC timestamps in every log line".to_string();
        let added = stage(
            &ws,
            vec![
                cand("Run the migration dry-run before applying it to production"),
                cand("Always run the migration dry-run before applying it in production"),
                cand("Use UTC timestamps in every log line, always"),
                cand("Pin the Terraform provider version"),
            ],
            &[Known::new(None, &rule)],
        )
        .unwrap();
        assert_eq!(added.len(), 2, "{added:?}");
        let again = stage(&ws, vec![cand("Pin the terraform provider version!")], &[]).unwrap();
        assert!(again.is_empty());
        assert_eq!(load(&ws).unwrap().items.len(), 2);
        let id = added[0].id.clone();
        assert_eq!(take(&ws, &id).unwrap().unwrap().id, id);
        assert_eq!(load(&ws).unwrap().items.len(), 1);
    }

    #[test]
    fn a_restatement_is_merged_into_the_pending_item_once_per_session() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        let first = stage(
            &ws,
            vec![cand(
                "The schema migration left half the tables changed without a transaction",
            )],
            &[],
        )
        .unwrap();
        let rule = Candidate {
            kind: "rule".into(),
            text: "Always run the schema migration in a transaction so half the tables never stay changed"
                .into(),
            origin: Origin::User,
            session_id: Some("s2".into()),
            ..Candidate::default()
        };
        for _ in 0..2 {
            assert!(stage(&ws, vec![rule.clone()], &[]).unwrap().is_empty());
        }
        let items = load(&ws).unwrap().items;
        assert_eq!(items.len(), 1);
        let i = &items[0];
        assert_eq!(i.id, first[0].id, "the id the user may have seen stays");
        assert_eq!(i.seen_again, ["s2"]);
        assert_eq!(i.origin, Some(Origin::User));
        assert_eq!(i.kind, "rule");
        assert!(i.text.starts_with("Always run the schema migration"));
        assert!(i.why.as_deref().unwrap().contains("without a transaction"));

        // a narrative that only says what the rule says is no reason for it
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        stage(&ws, vec![cand("I'll use pnpm.")], &[]).unwrap();
        let rule = Candidate {
            kind: "rule".into(),
            text: "Always use pnpm.".into(),
            why: Some("Sorry — I'll use pnpm.".into()),
            session_id: Some("s2".into()),
            ..Candidate::default()
        };
        stage(&ws, vec![rule], &[]).unwrap();
        let items = load(&ws).unwrap().items;
        assert_eq!(items.len(), 1, "{items:?}");
        assert_eq!(items[0].text, "Always use pnpm.");
        assert_eq!(items[0].why, None, "{items:?}");
    }

    #[test]
    fn a_broken_file_is_reported_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        std::fs::write(ws.pending_path(), "{\"items\": [").unwrap();
        let err = stage(&ws, vec![cand("anything at all here")], &[]).unwrap_err();
        assert!(err.to_string().contains("pending-learnings.json"), "{err}");
        assert_eq!(
            std::fs::read_to_string(ws.pending_path()).unwrap(),
            "{\"items\": ["
        );
    }
}

//! `.pms/pending-learnings.json`: learnings the hooks staged, waiting for
//! the user's yes. Several Claude Code sessions can end at the same moment,
//! so every change is a locked read-modify-write (`.pms/pending.lock`) ending
//! in an atomic rename: nothing is lost, nothing is half-written.

use serde::{Deserialize, Serialize};

use super::{DUPLICATE_SIMILARITY, id_for, similarity};
use crate::durable;
use crate::error::{AtPath, FileError};
use crate::workspace::Workspace;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingItem {
    pub id: String,
    /// correction, insight, error, cognitive-shift, method, anti-pattern, or manual.
    pub kind: String,
    pub text: String,
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
    Io(#[from] crate::error::FileError),
}

/// A learning the hooks found, before staging.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub kind: String,
    pub text: String,
    pub domain: Option<String>,
    pub session_id: Option<String>,
    pub transcript_ref: Option<String>,
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

/// Stages `candidates`, skipping any that nearly duplicates a pending item,
/// an earlier candidate, or one of the `known` learnings (the rules in
/// force, Claude Code's auto-memories: [`super::known_learnings`]). Returns
/// what was added.
pub fn stage(
    ws: &Workspace,
    candidates: Vec<Candidate>,
    known: &[String],
) -> Result<Vec<PendingItem>, PendingError> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    update(ws, |file| {
        let mut added = Vec::new();
        for c in candidates {
            let dup = file
                .items
                .iter()
                .any(|i| similarity(&i.text, &c.text) >= DUPLICATE_SIMILARITY)
                || known
                    .iter()
                    .any(|k| similarity(k, &c.text) >= DUPLICATE_SIMILARITY);
            if dup {
                continue;
            }
            let text = crate::redact::redact(&c.text).into_owned();
            let item = PendingItem {
                id: id_for("P", &text),
                kind: c.kind,
                text,
                cues: Vec::new(),
                domain: c.domain,
                session_id: c.session_id,
                transcript_ref: c.transcript_ref,
                created: now.clone(),
            };
            file.items.push(item.clone());
            added.push(item);
        }
        added
    })
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
            domain: None,
            session_id: Some("s1".into()),
            transcript_ref: Some("cc://-w/s1.jsonl".into()),
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
            &[rule],
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

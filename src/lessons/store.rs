//! Writing rules into the managed sections: promote, merge, retire.
//!
//! Only the text between pms's lesson markers is rewritten, under a lock
//! (`.pms/lessons.lock`) and with an atomic rename, so the user's own text
//! around it survives and two promotions at once both land. After each
//! change the lessons index is refreshed, so the very next prompt can match
//! the new rule.

use std::path::PathBuf;

use super::{DUPLICATE_SIMILARITY, Rule, all_rules, id_for, rules_in, similarity};
use crate::durable;
use crate::workspace::Workspace;
use crate::workspace::markers::{self, LESSONS, LESSONS_ARCHIVE};

/// Where a lesson goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `_me/lessons.md`: cross-domain.
    Me,
    /// `<domain>/CLAUDE.md`.
    Domain(String),
}

impl Target {
    pub fn parse(ws: &Workspace, s: Option<&str>) -> Result<Target, StoreError> {
        match s.map(str::trim).filter(|s| !s.is_empty()) {
            None | Some("me") | Some("_me") => Ok(Target::Me),
            Some(d) => {
                if ws.installed_domains().iter().any(|x| x == d) {
                    Ok(Target::Domain(d.to_string()))
                } else {
                    Err(StoreError::UnknownDomain {
                        domain: d.to_string(),
                        installed: ws.installed_domains().join(", "),
                    })
                }
            }
        }
    }

    fn file(&self, ws: &Workspace) -> (PathBuf, String, String) {
        match self {
            Target::Me => (
                ws.me_file("lessons.md"),
                "_me/lessons.md".into(),
                "me".into(),
            ),
            Target::Domain(d) => (
                ws.domain_dir(d).join("CLAUDE.md"),
                format!("{d}/CLAUDE.md"),
                d.clone(),
            ),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "no domain {domain:?} in this workspace (installed: {installed}).\n  Fix: pick one of those, or leave it out for _me/lessons.md."
    )]
    UnknownDomain { domain: String, installed: String },
    #[error("no lesson {0} is in force.\n  Fix: `pms lessons` lists the ids.")]
    NotFound(String),
    #[error("the lesson text is empty")]
    Empty,
    #[error(transparent)]
    Io(#[from] crate::error::FileError),
}

/// What a promotion did.
#[derive(Debug, Clone, PartialEq)]
pub enum Promoted {
    Added(Rule),
    /// A near-duplicate is already in force; nothing was written.
    Duplicate(Rule),
}

fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io(crate::error::FileError::new(path, source))
}

fn lock(ws: &Workspace) -> Result<durable::FileLock, StoreError> {
    let p = ws.state_dir().join("lessons.lock");
    durable::lock_exclusive(&p).map_err(io(&p))
}

/// Rewrites the managed section of `path` with `f` applied to its bullets.
fn edit_section(
    path: &std::path::Path,
    m: markers::Markers,
    f: impl FnOnce(&mut Vec<String>),
) -> Result<(), StoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(path)(e)),
    };
    let mut bullets: Vec<String> = markers::inner(&text, m)
        .map(|inner| {
            inner
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    f(&mut bullets);
    let inner = if bullets.is_empty() {
        "\n".to_string()
    } else {
        format!("\n{}\n", bullets.join("\n"))
    };
    let new = match markers::replace_inner(&text, m, &inner) {
        Some(t) => t,
        // The user removed the markers: add a fresh section at the end.
        None => {
            let heading = if m.begin == LESSONS.begin {
                "## Lessons (pms)"
            } else {
                "## Retired lessons (pms)"
            };
            markers::append_block(&format!("{}\n\n{heading}", text.trim_end()), m, &inner)
        }
    };
    durable::write_atomic(path, new.as_bytes()).map_err(io(path))
}

/// Writes `text` as a rule into `target`, unless a near-duplicate is in force.
pub fn promote(
    ws: &Workspace,
    text: &str,
    target: &Target,
    source_ref: Option<&str>,
) -> Result<Promoted, StoreError> {
    promote_with(ws, text, target, source_ref, false)
}

/// [`promote`]; with `force`, a near-duplicate does not stop it (the user
/// said the two rules differ: key-term overlap cannot tell "runbook for
/// invoices" from "runbook for backups").
pub fn promote_with(
    ws: &Workspace,
    text: &str,
    target: &Target,
    source_ref: Option<&str>,
    force: bool,
) -> Result<Promoted, StoreError> {
    let text = text.trim().trim_start_matches("- ").trim();
    if text.is_empty() {
        return Err(StoreError::Empty);
    }
    let _lock = lock(ws)?;
    if !force
        && let Some(existing) = all_rules(ws)
            .into_iter()
            .find(|r| similarity(&r.text, text) >= DUPLICATE_SIMILARITY)
    {
        return Ok(Promoted::Duplicate(existing));
    }
    let (path, rel, scope) = target.file(ws);
    let mut id = id_for("L", text);
    while all_rules(ws).iter().any(|r| r.id == id) {
        id = format!("{id}x");
    }
    let rule = Rule {
        id,
        text: single_line(text),
        date: Some(chrono::Local::now().format("%Y-%m-%d").to_string()),
        source_ref: source_ref.map(str::to_string),
        scope,
        file: rel.clone(),
        line: 0,
    };
    let bullet = rule.render();
    edit_section(&path, LESSONS, |b| b.push(bullet))?;
    let written = std::fs::read_to_string(&path).map_err(io(&path))?;
    let rule = rules_in(&written, &rule.scope, &rel)
        .into_iter()
        .find(|r| r.id == rule.id)
        .unwrap_or(rule);
    super::index_file::refresh_index(ws);
    Ok(Promoted::Added(rule))
}

/// Replaces the wording of rule `id` (a merge keeps the id and the source).
pub fn reword(ws: &Workspace, id: &str, text: &str) -> Result<Rule, StoreError> {
    let text = single_line(text.trim());
    if text.is_empty() {
        return Err(StoreError::Empty);
    }
    let _lock = lock(ws)?;
    let mut rule = all_rules(ws)
        .into_iter()
        .find(|r| r.id == id)
        .ok_or_else(|| StoreError::NotFound(id.into()))?;
    let old = rule.render();
    rule.text = text;
    let new = rule.render();
    let path = ws.root.join(&rule.file);
    edit_section(&path, LESSONS, |b| {
        for l in b.iter_mut() {
            if l.trim() == old.trim() {
                *l = new.clone();
            }
        }
    })?;
    super::index_file::refresh_index(ws);
    Ok(rule)
}

/// Moves rule `id` out of force, into the archive in `_me/lessons.md`.
pub fn retire(ws: &Workspace, id: &str) -> Result<Rule, StoreError> {
    let _lock = lock(ws)?;
    let rule = all_rules(ws)
        .into_iter()
        .find(|r| r.id == id)
        .ok_or_else(|| StoreError::NotFound(id.into()))?;
    let path = ws.root.join(&rule.file);
    let rendered = rule.render();
    edit_section(&path, LESSONS, |b| {
        b.retain(|l| l.trim() != rendered.trim())
    })?;
    let today = chrono::Local::now().format("%Y-%m-%d");
    let archived = format!("{rendered} (retired {today}, was in {})", rule.file);
    edit_section(&ws.me_file("lessons.md"), LESSONS_ARCHIVE, |b| {
        b.push(archived)
    })?;
    super::index_file::refresh_index(ws);
    Ok(rule)
}

fn single_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::scaffold::{self, Answers};

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("ws"));
        let a = Answers {
            name: "A".into(),
            role: "R".into(),
            domains: vec!["engineering".into()],
            languages: vec!["English".into()],
            tone: "t".into(),
        };
        scaffold::apply(&ws, &scaffold::plan(&ws, &a, "2026-11-22").unwrap(), |_| {}).unwrap();
        (dir, ws)
    }

    #[test]
    fn promotion_lands_in_the_managed_section_only() {
        let (_d, ws) = workspace();
        let before = std::fs::read_to_string(ws.me_file("lessons.md")).unwrap();
        let out = promote(
            &ws,
            "Run the migration dry-run before applying it, because a lock hit prod.",
            &Target::Me,
            Some("cc://-w/s.jsonl"),
        )
        .unwrap();
        let Promoted::Added(rule) = out else {
            panic!("{out:?}")
        };
        let after = std::fs::read_to_string(ws.me_file("lessons.md")).unwrap();
        let (head, _) = before.split_once("<!-- pms:lessons:begin").unwrap();
        assert!(after.starts_with(head), "text before the section changed");
        assert!(after.contains(&rule.render()));
        assert_eq!(all_rules(&ws), vec![rule.clone()]);
        // a near-duplicate is caught
        let dup = promote(
            &ws,
            "Always run the migration dry-run before applying it",
            &Target::Me,
            None,
        )
        .unwrap();
        assert_eq!(dup, Promoted::Duplicate(rule));
    }

    #[test]
    fn domain_target_reword_and_retire() {
        let (_d, ws) = workspace();
        let target = Target::parse(&ws, Some("engineering")).unwrap();
        let Promoted::Added(r) = promote(
            &ws,
            "Reproduce a bug with a failing test first",
            &target,
            None,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(r.file, "engineering/CLAUDE.md");
        let r2 = reword(
            &ws,
            &r.id,
            "Reproduce every bug with a failing test before fixing it",
        )
        .unwrap();
        assert_eq!(r2.id, r.id);
        assert_eq!(
            all_rules(&ws)[0].text,
            "Reproduce every bug with a failing test before fixing it"
        );
        retire(&ws, &r.id).unwrap();
        assert!(all_rules(&ws).is_empty());
        let lessons = std::fs::read_to_string(ws.me_file("lessons.md")).unwrap();
        let archive = markers::inner(&lessons, LESSONS_ARCHIVE).unwrap();
        assert!(archive.contains(&r.id) && archive.contains("retired"));
        assert!(Target::parse(&ws, Some("astrology")).is_err());
    }

    #[test]
    fn a_hand_edited_file_without_markers_gets_a_new_section() {
        let (_d, ws) = workspace();
        std::fs::write(ws.me_file("lessons.md"), "# My lessons\n- my own note\n").unwrap();
        promote(
            &ws,
            "Write the rollback plan before the deploy",
            &Target::Me,
            None,
        )
        .unwrap();
        let text = std::fs::read_to_string(ws.me_file("lessons.md")).unwrap();
        assert!(text.starts_with("# My lessons\n- my own note\n"));
        assert_eq!(all_rules(&ws).len(), 1);
    }

    #[test]
    fn two_processes_promoting_at_once_both_land() {
        let (_d, ws) = workspace();
        let texts: Vec<String> = (0..8)
            .map(|i| format!("Rule number {i} about topic{i} and subject{i}"))
            .collect();
        std::thread::scope(|s| {
            for t in &texts {
                let ws = ws.clone();
                s.spawn(move || promote(&ws, t, &Target::Me, None).unwrap());
            }
        });
        assert_eq!(all_rules(&ws).len(), 8);
    }
}

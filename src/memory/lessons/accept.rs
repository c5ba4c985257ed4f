//! Accepting a pending learning: the one flow behind `pms lessons accept`,
//! the interactive review and the `lessons_promote` MCP tool; and adopting
//! one of Claude Code's auto-memory corrections as a lesson, for the review
//! and `pms ui`.
use super::Rule;
use super::pending::{self, PendingItem};
use super::store::{self, NewRule, OnDuplicate, Promoted, StoreError, Target};
use crate::platform::workspace::Workspace;

#[derive(Debug, Clone, PartialEq)]
pub enum Accepted {
    /// Written as a new rule.
    Promoted(Rule),
    /// A near-duplicate rule's wording was replaced (`merge`).
    Merged(Rule),
    /// A near-duplicate is in force; nothing changed (pending kept).
    Duplicate {
        existing: Rule,
        item: Box<PendingItem>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    #[error("no pending learning {0}.\n  Fix: `pms lessons` lists the ids.")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Pending(#[from] pending::PendingError),
}

/// The pending text as a rule: acknowledgements ("You're right —",
/// "你说得对，") dropped, first letter capitalised. (Learnings staged since
/// rules are captured as rules have none; older ones may.)
pub fn suggested_wording(text: &str) -> String {
    super::signals::strip_acknowledgement(text)
}

/// The cues to offer for a learning about to be accepted: the staged ones,
/// else ([`super::cues::suggest`]) the commands, file types, quotes and key
/// words of the wording and its narrative.
pub fn suggested_cues(item: &PendingItem, wording: &str) -> Vec<String> {
    if !item.cues.is_empty() {
        return item.cues.clone();
    }
    // staged before pms suggested cues: suggested now, from the wording
    super::cues::suggest(wording, item.why.as_deref())
}

/// How to accept a pending learning.
#[derive(Debug, Clone)]
pub struct Acceptance<'a> {
    /// The rule as the user worded it (default: the staged text, acknowledgements dropped).
    pub text: Option<&'a str>,
    /// "Applies when" cues (default: the ones staged with the learning).
    pub cues: Option<Vec<String>>,
    /// A domain id or "me" (default: the learning's suggested domain, else me).
    pub target: Option<&'a str>,
    pub on_duplicate: OnDuplicate,
    /// A guard the user said yes to (never added unasked).
    pub guard: Option<super::guard::Guard>,
    /// The project it belongs to: None for the one the learning proposed
    /// (if any), `Some(None)` for everywhere.
    pub project: Option<Option<&'a str>>,
}

impl Default for Acceptance<'_> {
    fn default() -> Self {
        Acceptance {
            text: None,
            cues: None,
            target: None,
            on_duplicate: OnDuplicate::Stop,
            guard: None,
            project: None,
        }
    }
}

/// Promotes pending item `id` into a rule. The pending item is removed only
/// once the rule is written; accepting again after an interruption between
/// the two finishes the job (the rule records the item it came from).
pub fn accept(ws: &Workspace, id: &str, how: &Acceptance) -> Result<Accepted, AcceptError> {
    let item = pending::load(ws)?
        .items
        .into_iter()
        .find(|i| i.id == id)
        .ok_or_else(|| AcceptError::NotFound(id.to_string()))?;
    let wording = match how.text.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) => t.to_string(),
        None => suggested_wording(&item.text),
    };
    let target = Target::parse(ws, how.target.or(item.domain.as_deref()))?;
    let new = NewRule {
        guard: how.guard.clone(),
        project: how.project.unwrap_or(item.project.as_deref()),
        text: &wording,
        cues: how.cues.clone().unwrap_or_else(|| item.cues.clone()),
        source_ref: item.transcript_ref.as_deref(),
        origin: Some(&item.id),
    };
    let (promoted, _) = add_rule(
        ws,
        &new,
        &target,
        how.on_duplicate,
        item.replaces.as_deref(),
    )?;
    let outcome = match promoted {
        Promoted::Added(rule) => Accepted::Promoted(rule),
        Promoted::Merged(rule) => Accepted::Merged(rule),
        Promoted::Duplicate(existing) => {
            return Ok(Accepted::Duplicate {
                existing,
                item: Box::new(item),
            });
        }
    };
    pending::take(ws, id)?;
    Ok(outcome)
}

/// Whether an adopted auto-memory correction leaves auto-memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forget {
    /// Removed from auto-memory, so the learning lives in one place.
    Yes,
    No,
}

/// What [`adopt_memory`] did.
#[derive(Debug)]
pub struct Adopted {
    pub promoted: Promoted,
    /// Removed from auto-memory (only once a rule was written or merged).
    pub forgotten: bool,
}

/// Writes a rule in force, the one way every writer adds one (`lessons
/// add`, accepting a learning, adopting an auto-memory): a rule that says
/// the opposite of one in force (`replaces`, as staged, or found now)
/// retires it, written after the new one (an interruption leaves both in
/// force, and accepting again, which finds the new one by its origin,
/// finishes). Returns what was written and the rule it retired.
pub fn add_rule(
    ws: &Workspace,
    new: &NewRule,
    target: &Target,
    on_duplicate: OnDuplicate,
    replaces: Option<&str>,
) -> Result<(Promoted, Option<Rule>), StoreError> {
    let reversed = replaces
        .map(str::to_string)
        .or_else(|| store::reversed_by(ws, new.text).map(|r| r.id));
    let promoted = store::promote(ws, new, target, on_duplicate)?;
    let retired = match (&promoted, reversed) {
        (Promoted::Added(rule), Some(old)) if store::find(ws, &old).is_ok() => {
            Some(store::retire_replaced(ws, &old, &rule.id)?)
        }
        _ => None,
    };
    Ok((promoted, retired))
}

/// Makes auto-memory correction `memory` a lesson (`new`, its `source_ref`
/// the memory's uri) and, when asked, removes it from auto-memory. Nothing
/// is removed unless the rule was written or merged: when a near-duplicate
/// is in force and `on_duplicate` says stop, the memory stays.
pub fn adopt_memory(
    ws: &Workspace,
    memory: &crate::platform::agents::claude::auto_memory::Memory,
    new: &NewRule,
    target: &Target,
    on_duplicate: OnDuplicate,
    forget: Forget,
) -> Result<Adopted, AdoptError> {
    let (promoted, _) = add_rule(ws, new, target, on_duplicate, None)?;
    let written = matches!(promoted, Promoted::Added(_) | Promoted::Merged(_));
    let forgotten = written && forget == Forget::Yes;
    if forgotten {
        crate::platform::agents::claude::auto_memory::forget(memory).map_err(|source| {
            AdoptError::Forget {
                rule: Box::new(rule_of(&promoted).clone()),
                source,
            }
        })?;
    }
    Ok(Adopted {
        promoted,
        forgotten,
    })
}

fn rule_of(p: &Promoted) -> &Rule {
    match p {
        Promoted::Added(r) | Promoted::Merged(r) | Promoted::Duplicate(r) => r,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AdoptError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("added {}, but removing it from auto-memory failed: {source}", rule.id)]
    Forget {
        rule: Box<Rule>,
        source: std::io::Error,
    },
}

/// Drops pending item `id`.
pub fn reject(ws: &Workspace, id: &str) -> Result<PendingItem, AcceptError> {
    pending::take(ws, id)?.ok_or_else(|| AcceptError::NotFound(id.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_are_dropped_from_the_wording() {
        assert_eq!(
            suggested_wording("You're right — the staging DB listens on 5433."),
            "The staging DB listens on 5433."
        );
        assert_eq!(
            suggested_wording("Good catch. use UTC in logs"),
            "Use UTC in logs"
        );
        assert_eq!(
            suggested_wording("你说得对，测试库在 5433 端口。"),
            "测试库在 5433 端口。"
        );
        assert_eq!(suggested_wording("Plain text stays."), "Plain text stays.");
    }

    #[test]
    fn an_adopted_memory_leaves_auto_memory_only_once_a_rule_holds_it() {
        use crate::platform::agents::claude::auto_memory::Memory;
        use crate::platform::workspace::scaffold::{self, Answers};
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("ws"));
        let a = Answers {
            name: "A".into(),
            role: "R".into(),
            domains: vec![],
            languages: vec!["English".into()],
            tone: "t".into(),
        };
        scaffold::apply(&ws, &scaffold::plan(&ws, &a, "2026-11-22").unwrap(), |_| {}).unwrap();
        let memory = |name: &str| {
            let path = dir.path().join(format!("{name}.md"));
            std::fs::write(&path, "a correction").unwrap();
            Memory {
                path,
                project: "p".into(),
                name: name.into(),
                description: String::new(),
                kind: Some("feedback".into()),
                body: "a correction".into(),
            }
        };
        let rule = |text| NewRule {
            text,
            ..NewRule::default()
        };
        let text = "Run the staging migrations inside a transaction every time";
        let first = memory("first");
        let done = adopt_memory(
            &ws,
            &first,
            &rule(text),
            &Target::Me,
            OnDuplicate::Stop,
            Forget::Yes,
        )
        .unwrap();
        assert!(matches!(done.promoted, Promoted::Added(_)) && done.forgotten);
        assert!(!first.path.exists());
        // the same rule again: nothing written, so the memory stays
        let second = memory("second");
        let done = adopt_memory(
            &ws,
            &second,
            &rule(text),
            &Target::Me,
            OnDuplicate::Stop,
            Forget::Yes,
        )
        .unwrap();
        assert!(matches!(done.promoted, Promoted::Duplicate(_)) && !done.forgotten);
        assert!(second.path.exists());
        // one that says the opposite replaces the rule, as `lessons add` does
        let third = memory("third");
        let reversal = "Never run the staging migrations inside a transaction";
        let done = adopt_memory(
            &ws,
            &third,
            &rule(reversal),
            &Target::Me,
            OnDuplicate::Stop,
            Forget::Yes,
        )
        .unwrap();
        assert!(matches!(done.promoted, Promoted::Added(_)));
        let in_force: Vec<String> = super::super::all_rules(&ws)
            .into_iter()
            .map(|r| r.text)
            .collect();
        assert!(!in_force.iter().any(|t| t == text), "{in_force:?}");
        assert!(in_force.iter().any(|t| t == reversal), "{in_force:?}");
    }
}

//! Lessons: experience that became a rule the agent must follow.
//!
//! A confirmed lesson is one bullet inside pms's managed section of
//! `_me/lessons.md` (cross-domain) or of a domain's `CLAUDE.md`:
//!
//! ```text
//! - [L-7f3a2c] Run the migration dry-run before applying it, because a failed migration locked orders. _(2026-11-22; cc://-home-u-app/abc.jsonl)_
//! ```
//!
//! The id is stable (derived from the first wording), the date and the
//! source conversation are kept for traceability. `terms` gives the key terms
//! a prompt must share with a lesson for the user-prompt hook to inject it;
//! `similarity` catches near-duplicates before a second copy is written.

pub mod index_file;
pub mod pending;
pub mod signals;
pub mod store;

use std::collections::BTreeSet;
use std::path::Path;

use crate::index::text::{Term, bigrams, is_stop_word, terms as split_terms};
use crate::workspace::Workspace;
use crate::workspace::markers::{self, LESSONS};

/// A lesson in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    pub text: String,
    pub date: Option<String>,
    pub source_ref: Option<String>,
    /// "me" for `_me/lessons.md`, else the domain id.
    pub scope: String,
    /// Workspace-relative file.
    pub file: String,
    /// 1-based line of the bullet.
    pub line: usize,
}

impl Rule {
    /// A short title for the lesson index: the rule up to its reason.
    pub fn title(&self) -> String {
        let t = self.text.as_str();
        let cut = [", because", " because ", ". ", "; ", "，因为", "因为", "。"]
            .iter()
            .filter_map(|m| t.find(m))
            .min()
            .unwrap_or(t.len());
        let title = t[..cut].trim().trim_end_matches('.');
        crate::claude::transcript::truncate(title, 110)
    }

    /// The bullet as written in the managed section.
    pub fn render(&self) -> String {
        let mut meta = Vec::new();
        if let Some(d) = &self.date {
            meta.push(d.clone());
        }
        if let Some(r) = &self.source_ref {
            meta.push(r.clone());
        }
        if meta.is_empty() {
            format!("- [{}] {}", self.id, self.text)
        } else {
            format!("- [{}] {} _({})_", self.id, self.text, meta.join("; "))
        }
    }
}

/// Parses one managed-section bullet.
pub fn parse_bullet(line: &str) -> Option<(String, String, Option<String>, Option<String>)> {
    let rest = line.trim_start().strip_prefix("- [")?;
    let (id, rest) = rest.split_once("] ")?;
    if !id.starts_with("L-") || id.len() > 32 {
        return None;
    }
    let rest = rest.trim();
    let (text, date, source) = match rest.strip_suffix(")_").and_then(|r| r.rsplit_once(" _(")) {
        Some((text, meta)) => {
            let mut parts = meta.splitn(2, "; ");
            let date = parts.next().map(str::to_string).filter(|d| !d.is_empty());
            let source = parts.next().map(str::to_string);
            (text.trim().to_string(), date, source)
        }
        None => (rest.to_string(), None, None),
    };
    Some((id.to_string(), text, date, source))
}

/// The rules in force in one file's managed section.
pub fn rules_in(text: &str, scope: &str, file: &str) -> Vec<Rule> {
    let Some(range) = markers::inner_range(text, LESSONS) else {
        return Vec::new();
    };
    let first_line = text[..range.start].matches('\n').count() + 1;
    text[range]
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            parse_bullet(l).map(|(id, t, date, source_ref)| Rule {
                id,
                text: t,
                date,
                source_ref,
                scope: scope.to_string(),
                file: file.to_string(),
                line: first_line + i,
            })
        })
        .collect()
}

/// Every rule in force in the workspace: `_me/lessons.md`, then each
/// domain's CLAUDE.md.
pub fn all_rules(ws: &Workspace) -> Vec<Rule> {
    let mut out = Vec::new();
    let mut read = |path: &Path, scope: &str, rel: &str| {
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(rules_in(&text, scope, rel));
        }
    };
    read(&ws.me_file("lessons.md"), "me", "_me/lessons.md");
    for d in ws.installed_domains() {
        read(
            &ws.domain_dir(&d).join("CLAUDE.md"),
            &d,
            &format!("{d}/CLAUDE.md"),
        );
    }
    out
}

/// A crude English stemmer: enough for "applying"/"applied"/"applies" to
/// meet "apply", and "migrations" to meet "migration", when matching a
/// prompt against a lesson. Both sides go through it, so its mistakes cancel.
pub fn stem(w: &str) -> String {
    let long_enough = |base: &str| base.chars().count() >= 3;
    if let Some(b) = w.strip_suffix("ies").or_else(|| w.strip_suffix("ied"))
        && long_enough(b)
    {
        return format!("{b}y");
    }
    for suffix in ["ing", "ed"] {
        if let Some(b) = w.strip_suffix(suffix)
            && long_enough(b)
        {
            return b.to_string();
        }
    }
    if let Some(b) = w.strip_suffix("es")
        && long_enough(b)
        && ["s", "x", "z", "ch", "sh"].iter().any(|e| b.ends_with(e))
    {
        return b.to_string();
    }
    if let Some(b) = w.strip_suffix('s')
        && long_enough(b)
        && !["s", "u", "i"].iter().any(|e| b.ends_with(e))
    {
        return b.to_string();
    }
    w.to_string()
}

/// The key terms of a text: stemmed non-stop words of three or more
/// letters, and the bigrams of CJK runs.
pub fn terms(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in split_terms(text) {
        match t {
            Term::Word(w) => {
                if w.chars().count() >= 3
                    && !is_stop_word(&w)
                    && !w.chars().all(|c| c.is_ascii_digit())
                {
                    out.insert(stem(&w));
                }
            }
            Term::Cjk(run) => {
                for g in bigrams(&run) {
                    if g.chars().count() == 2 {
                        out.insert(g);
                    }
                }
            }
        }
    }
    out
}

/// How much two lessons say the same thing, 0 to 1, on key terms: the
/// overlap coefficient (shared terms over the smaller set) when both have at
/// least three terms, so a restatement that adds a reason still counts;
/// Jaccard for shorter ones, where a subset says little.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (x, y) = (terms(a), terms(b));
    if x.is_empty() || y.is_empty() {
        return if a.trim().eq_ignore_ascii_case(b.trim()) {
            1.0
        } else {
            0.0
        };
    }
    let inter = x.intersection(&y).count() as f64;
    let small = x.len().min(y.len());
    if small >= 3 {
        inter / small as f64
    } else {
        inter / x.union(&y).count() as f64
    }
}

/// Near-duplicate threshold for [`similarity`].
pub const DUPLICATE_SIMILARITY: f64 = 0.6;

/// A stable id for a text (`L-` or `P-` plus 6 hex digits).
pub fn id_for(prefix: &str, text: &str) -> String {
    let norm: String = terms(text).into_iter().collect::<Vec<_>>().join(" ");
    let h = xxhash_rust::xxh3::xxh3_64(if norm.is_empty() {
        text.as_bytes()
    } else {
        norm.as_bytes()
    });
    format!("{prefix}-{:06x}", h & 0xff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTION: &str = "# Lessons\nmine\n<!-- pms:lessons:begin (x) -->\n- [L-abc123] Run the dry-run first, because it caught a lock. _(2026-11-22; cc://-w-p/s1.jsonl)_\n- [L-def456] 提交前先跑测试。\nnot a rule\n<!-- pms:lessons:end -->\n";

    #[test]
    fn bullets_parse_with_and_without_metadata() {
        let rules = rules_in(SECTION, "me", "_me/lessons.md");
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].id, "L-abc123");
        assert_eq!(
            rules[0].text,
            "Run the dry-run first, because it caught a lock."
        );
        assert_eq!(rules[0].date.as_deref(), Some("2026-11-22"));
        assert_eq!(rules[0].source_ref.as_deref(), Some("cc://-w-p/s1.jsonl"));
        assert_eq!(rules[0].line, 4);
        assert_eq!(rules[0].title(), "Run the dry-run first");
        assert_eq!(rules[1].text, "提交前先跑测试。");
        assert_eq!(rules[1].title(), "提交前先跑测试");
        for r in &rules {
            assert_eq!(parse_bullet(&r.render()).unwrap().1, r.text);
        }
    }

    #[test]
    fn stemming_and_terms() {
        assert_eq!(stem("applying"), "apply");
        assert_eq!(stem("apply"), "apply");
        assert_eq!(stem("applies"), "apply");
        assert_eq!(stem("migrations"), "migration");
        assert_eq!(stem("studies"), "study");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("boxes"), "box");
        assert_eq!(stem("notes"), "note");
        assert_eq!(stem("status"), "status");
        let t = terms("Always run the migrations' dry-run before applying them to 生产环境");
        for w in [
            "alway",
            "run",
            "migration",
            "dry",
            "apply",
            "生产",
            "产环",
            "环境",
        ] {
            assert!(t.contains(w), "{w} missing from {t:?}");
        }
        assert!(!t.contains("the"));
    }

    #[test]
    fn near_duplicates_are_similar() {
        let a = "Run the migration dry-run before applying it to production.";
        let b = "Always run a dry-run of the migration before you apply it in production!";
        assert!(
            similarity(a, b) >= DUPLICATE_SIMILARITY,
            "{}",
            similarity(a, b)
        );
        assert!(similarity(a, "Use tabs, not spaces, in Makefiles") < 0.2);
        let with_reason = "Run the migration dry-run before applying it, because a lock hit prod.";
        assert!(similarity(with_reason, b) >= DUPLICATE_SIMILARITY);
        assert!(
            similarity("Use UTC", "Use UTC timestamps in every log line") < DUPLICATE_SIMILARITY
        );
        assert_eq!(
            id_for("L", a),
            id_for(
                "L",
                "run THE migration dry-run before applying it to production"
            )
        );
    }
}

/// Accepting a pending learning: the one flow behind `pms lessons accept`,
/// the interactive review and the `lessons_promote` MCP tool.
pub mod accept {
    use super::Rule;
    use super::pending::{self, PendingItem};
    use super::store::{self, Promoted, StoreError, Target};
    use crate::workspace::Workspace;

    #[derive(Debug, Clone, PartialEq)]
    pub enum Accepted {
        /// Written as a new rule.
        Promoted(Rule),
        /// A near-duplicate rule's wording was replaced (`merge`).
        Merged(Rule),
        /// A near-duplicate is in force; nothing changed (pending kept).
        Duplicate { existing: Rule, item: PendingItem },
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
    /// "你说得对，") dropped, first letter capitalised.
    pub fn suggested_wording(text: &str) -> String {
        let mut t = text.trim();
        let prefixes = [
            "you're absolutely right",
            "you’re absolutely right",
            "you're right",
            "you’re right",
            "good catch",
            "my mistake",
            "my bad",
            "i was wrong",
            "ah, that's on me",
            "that's on me",
            "sorry about that",
            "你说得对",
            "你是对的",
            "我搞错了",
            "是我的错",
        ];
        loop {
            let lower = t.to_lowercase();
            let Some(p) = prefixes.iter().find(|p| lower.starts_with(*p)) else {
                break;
            };
            // char-safe: the prefix has the same byte length in t as in lower
            // for every prefix above (ASCII or CJK, unchanged by lowercasing)
            t = t[p.len()..].trim_start_matches([
                ' ', ',', '.', '!', ':', '—', '-', '–', '，', '。', '！', '：',
            ]);
        }
        let mut chars = t.chars();
        match chars.next() {
            Some(c) => c.to_uppercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    /// Promotes pending item `id`, with optional new wording and target
    /// (`None`: the item's suggested domain, else `_me/lessons.md`).
    pub fn accept(
        ws: &Workspace,
        id: &str,
        text: Option<&str>,
        target: Option<&str>,
        merge: bool,
    ) -> Result<Accepted, AcceptError> {
        accept_with(ws, id, text, target, merge, false)
    }

    /// [`accept`]; `force` adds the rule even beside a near-duplicate.
    pub fn accept_with(
        ws: &Workspace,
        id: &str,
        text: Option<&str>,
        target: Option<&str>,
        merge: bool,
        force: bool,
    ) -> Result<Accepted, AcceptError> {
        let item = pending::load(ws)?
            .items
            .into_iter()
            .find(|i| i.id == id)
            .ok_or_else(|| AcceptError::NotFound(id.to_string()))?;
        let wording = match text.map(str::trim).filter(|t| !t.is_empty()) {
            Some(t) => t.to_string(),
            None => suggested_wording(&item.text),
        };
        let target = Target::parse(ws, target.or(item.domain.as_deref()))?;
        let outcome = match store::promote_with(
            ws,
            &wording,
            &target,
            item.transcript_ref.as_deref(),
            force,
        )? {
            Promoted::Added(rule) => Accepted::Promoted(rule),
            Promoted::Duplicate(existing) if merge => {
                Accepted::Merged(store::reword(ws, &existing.id, &wording)?)
            }
            Promoted::Duplicate(existing) => return Ok(Accepted::Duplicate { existing, item }),
        };
        pending::take(ws, id)?;
        Ok(outcome)
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
    }
}

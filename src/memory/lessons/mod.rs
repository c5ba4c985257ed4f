//! Lessons: experience that became a rule the agent must follow.
//!
//! A confirmed lesson is one bullet inside pms's managed section of
//! `_me/lessons.md` (cross-domain) or of a domain's `CLAUDE.md`, optionally
//! followed by its "applies when" cues on one indented line:
//!
//! ```text
//! - [L-7f3a2c] Never force-push to the main branch. _(2026-11-22; cc://-home-u-app/abc.jsonl; from P-1a2b3c)_
//!   - applies when: git push --force; overwrite the remote branch; rewrite history on main
//! ```
//!
//! The id is stable (derived from the first wording); the date, the source
//! conversation and the pending learning it came from are kept for
//! traceability (and so that accepting again after an interruption finishes
//! the job instead of finding a duplicate). Cues are situations, commands,
//! synonyms and file types a request shows when the rule applies; the
//! per-prompt matcher ([`index_file`]) reads them with the rule's text.
//!
//! Text from users, agents and transcripts never changes the file's
//! structure: a rule and each cue are one line, and comment markers inside
//! them are neutralised ([`one_line`]).

pub mod accept;
pub mod action;
pub mod action_match;
pub mod cues;
pub mod guard;
pub mod index_file;
pub mod lesson_profile;
pub mod pending;
pub mod signals;
pub mod statement;
pub mod store;

use std::collections::BTreeSet;
use std::path::Path;

use crate::platform::workspace::Workspace;
use crate::platform::workspace::markers::{self, LESSONS};

/// A lesson in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    pub text: String,
    /// "Applies when" cues.
    pub cues: Vec<String>,
    pub date: Option<String>,
    pub source_ref: Option<String>,
    /// The pending learning it was accepted from.
    pub origin: Option<String>,
    /// A pattern that blocks (or asks about) the tool calls it matches.
    pub guard: Option<guard::Guard>,
    /// The project (an absolute folder) the rule belongs to: it applies only
    /// in sessions whose folder is inside it. None: everywhere.
    pub project: Option<String>,
    /// "me" for `_me/lessons.md`, else the domain id.
    pub scope: String,
    /// Workspace-relative file.
    pub file: String,
    /// 1-based line of the bullet.
    pub line: usize,
}

/// How the cue line of a rule starts (after its indentation).
const CUES_PREFIX: &str = "- applies when:";
/// How a rule's guard line starts: `- guard: <pattern>` denies,
/// `- guard (ask): <pattern>` asks.
const GUARD_PREFIX: &str = "- guard";
/// How a rule's project line starts.
const PROJECT_PREFIX: &str = "- project:";

/// A line under a rule's bullet: its cues, its guard or its project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    Cues(Vec<String>),
    /// A guard as written: not compiled here, since every read of the rules
    /// (session start, the review, the page) would pay for it; one edited
    /// by hand that does not compile matches nothing.
    Guard(guard::Guard),
    Project(String),
}

/// Parses an indented line under a bullet, or None for any other line.
pub fn parse_detail(line: &str) -> Option<Detail> {
    if !line.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = line.trim_start();
    if let Some(cues) = rest.strip_prefix(CUES_PREFIX) {
        return Some(Detail::Cues(split_cues(cues)));
    }
    if let Some(p) = rest.strip_prefix(PROJECT_PREFIX) {
        let p = p.trim();
        return (!p.is_empty()).then(|| Detail::Project(p.to_string()));
    }
    let g = rest.strip_prefix(GUARD_PREFIX)?;
    let (mode, pattern) = if let Some(p) = g.strip_prefix(" (ask):") {
        (guard::GuardMode::Ask, p)
    } else {
        (guard::GuardMode::Deny, g.strip_prefix(':')?)
    };
    let pattern = pattern.trim();
    (!pattern.is_empty()).then(|| {
        Detail::Guard(guard::Guard {
            pattern: pattern.to_string(),
            mode,
        })
    })
}

/// Where a rule's reason starts: its first `, because`, ` because `, `. `,
/// `; `, `，因为`, `因为` or `。`; else its end. One pass that stops there,
/// each byte checked first for a marker's first: a session start titles
/// every rule, and a search per marker over each took 3.6 M instructions
/// for 500 rules (callgrind), a sixth of the hook.
fn title_end(t: &str) -> usize {
    let bytes = t.as_bytes();
    (0..bytes.len())
        .find(|&i| {
            matches!(bytes[i], b',' | b' ' | b'.' | b';' | 0xE3 | 0xE5 | 0xEF)
                && REASON_MARKERS
                    .iter()
                    .any(|m| bytes[i..].starts_with(m.as_bytes()))
        })
        .unwrap_or(t.len())
}

/// What starts a rule's reason ([`title_end`]; the check of each byte
/// there lists their first bytes).
const REASON_MARKERS: [&str; 7] = [", because", " because ", ". ", "; ", "，因为", "因为", "。"];

impl Rule {
    /// Whether the rule is in force in a session working in `cwd` (None:
    /// anywhere, as the page shows it): a project's rule only inside it.
    pub fn applies_in(&self, cwd: Option<&std::path::Path>) -> bool {
        match (&self.project, cwd) {
            (Some(p), Some(cwd)) => cwd.starts_with(p),
            _ => true,
        }
    }

    /// A short title for the lesson index: the rule up to its reason.
    pub fn title(&self) -> String {
        let t = self.text.as_str();
        let title = t[..title_end(t)].trim().trim_end_matches('.');
        crate::platform::agents::transcript::truncate(title, 110)
    }

    /// The bullet (and its cue line) as written in the managed section,
    /// without terminal controls: a rule written by an older version, or
    /// by hand, loses them the first time pms writes it again.
    pub fn render(&self) -> String {
        let meta: Vec<&str> = [&self.date, &self.source_ref]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let mut meta: Vec<String> = meta.into_iter().map(str::to_string).collect();
        if let Some(o) = &self.origin {
            meta.push(format!("from {o}"));
        }
        let mut out = if meta.is_empty() {
            format!("- [{}] {}", self.id, self.text)
        } else {
            format!("- [{}] {} _({})_", self.id, self.text, meta.join("; "))
        };
        if !self.cues.is_empty() {
            out.push_str(&format!("\n  {CUES_PREFIX} {}", self.cues.join("; ")));
        }
        if let Some(g) = &self.guard {
            let mode = match g.mode {
                guard::GuardMode::Deny => "",
                guard::GuardMode::Ask => " (ask)",
            };
            out.push_str(&format!("\n  {GUARD_PREFIX}{mode}: {}", g.pattern));
        }
        if let Some(p) = &self.project {
            out.push_str(&format!("\n  {PROJECT_PREFIX} {}", one_line(p)));
        }
        match crate::platform::redact::controls::strip(&out) {
            std::borrow::Cow::Borrowed(_) => out,
            std::borrow::Cow::Owned(clean) => clean,
        }
    }
}

/// A managed-section bullet, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bullet {
    pub id: String,
    pub text: String,
    pub date: Option<String>,
    pub source_ref: Option<String>,
    pub origin: Option<String>,
}

/// Parses one managed-section bullet, without terminal controls (a rule
/// written by hand, or by an older version, may hold them).
pub fn parse_bullet(line: &str) -> Option<Bullet> {
    let line = crate::platform::redact::controls::strip(line);
    let rest = line.strip_prefix("- [")?;
    let (id, rest) = rest.split_once("] ")?;
    if !id.starts_with("L-") || id.len() > 32 {
        return None;
    }
    let rest = rest.trim();
    let mut b = Bullet {
        id: id.to_string(),
        text: rest.to_string(),
        date: None,
        source_ref: None,
        origin: None,
    };
    if let Some((text, meta)) = rest.strip_suffix(")_").and_then(|r| r.rsplit_once(" _(")) {
        b.text = text.trim().to_string();
        for part in meta.split("; ").map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(o) = part.strip_prefix("from ") {
                b.origin = Some(o.to_string());
            } else if b.date.is_none() && looks_like_date(part) {
                b.date = Some(part.to_string());
            } else {
                b.source_ref = Some(part.to_string());
            }
        }
    }
    Some(b)
}

fn looks_like_date(s: &str) -> bool {
    s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// The cues of a cue line (`  - applies when: a; b`), or None for any other line.
pub fn parse_cues(line: &str) -> Option<Vec<String>> {
    match parse_detail(line)? {
        Detail::Cues(c) => Some(c),
        _ => None,
    }
}

/// Cues from one string: separated by `;` or new lines, each made one line.
/// Terminal controls go first: the `;` inside an OSC sequence is not a cue's
/// end, and its payload is no cue.
pub fn split_cues(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let text = crate::platform::redact::controls::strip(text);
    for c in text.split([';', '\n']).map(one_line) {
        if !c.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&c)) {
            out.push(c);
        }
    }
    out
}

/// `text` made safe for one line of a managed section: white space (new
/// lines included) collapsed, and HTML comment delimiters broken, so that
/// no text can open, close or fake a section marker.
pub fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.replace("<!--", "<!‐-").replace("-->", "-‐>")
}

/// The rules in force in one file's managed section.
pub fn rules_in(text: &str, scope: &str, file: &str) -> Vec<Rule> {
    let Some(range) = markers::inner_range(text, LESSONS) else {
        return Vec::new();
    };
    let first_line = text[..range.start].matches('\n').count() + 1;
    let mut out: Vec<Rule> = Vec::new();
    let mut after_bullet = false;
    for (i, l) in text[range].lines().enumerate() {
        let was_after_bullet = std::mem::replace(&mut after_bullet, false);
        if let Some(b) = parse_bullet(l) {
            after_bullet = true;
            out.push(Rule {
                id: b.id,
                text: b.text,
                cues: Vec::new(),
                date: b.date,
                source_ref: b.source_ref,
                origin: b.origin,
                guard: None,
                project: None,
                scope: scope.to_string(),
                file: file.to_string(),
                line: first_line + i,
            });
        } else if was_after_bullet
            && let Some(detail) = parse_detail(l)
            && let Some(last) = out.last_mut()
        {
            after_bullet = true;
            match detail {
                Detail::Cues(cues) => last.cues = cues,
                Detail::Guard(g) => last.guard = Some(g),
                Detail::Project(p) => last.project = Some(p),
            }
        }
    }
    out
}

/// The files that can hold rules: `_me/lessons.md`, then each domain's
/// CLAUDE.md, as (path, scope, workspace-relative name).
pub fn rule_files(ws: &Workspace) -> Vec<(std::path::PathBuf, String, String)> {
    let mut out = vec![(
        ws.me_file("lessons.md"),
        "me".to_string(),
        "_me/lessons.md".to_string(),
    )];
    for d in ws.installed_domains() {
        out.push((
            ws.domain_dir(&d).join("CLAUDE.md"),
            d.clone(),
            format!("{d}/CLAUDE.md"),
        ));
    }
    out
}

/// Every rule in force in the workspace: `_me/lessons.md`, then each
/// domain's CLAUDE.md.
pub fn all_rules(ws: &Workspace) -> Vec<Rule> {
    let mut out = Vec::new();
    for (path, scope, rel) in rule_files(ws) {
        if let Ok(text) = read(&path) {
            out.extend(rules_in(&text, &scope, &rel));
        }
    }
    out
}

fn read(path: &Path) -> std::io::Result<String> {
    std::fs::read_to_string(path)
}

/// What a new learning must not restate: the rules in force, and Claude
/// Code's auto-memories (when auto-memory is on), whose text already
/// reaches the model. The rules' terms are read from the lessons index,
/// analysed when it was written: analysing 500 rules again was a sixth of
/// a session end (perf, the hook bench's 10 MB session after its Stop
/// hooks).
pub fn known_learnings(ctx: &crate::platform::workspace::context::Context) -> Vec<Known> {
    let mut out: Vec<Known> = match index_file::rules_with_terms(&ctx.ws) {
        Ok(rules) => rules
            .into_iter()
            .map(|(id, terms)| Known {
                rule: Some(id),
                terms,
            })
            .collect(),
        Err(_) => all_rules(&ctx.ws)
            .into_iter()
            .map(|r| Known::new(Some(r.id), &r.text))
            .collect(),
    };
    out.extend(
        auto_memories(ctx)
            .into_iter()
            .map(|m| Known::new(None, &m.summary())),
    );
    out
}

/// A learning already kept: a rule in force (its id), or one of Claude
/// Code's auto-memories, with its key terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub rule: Option<String>,
    pub terms: KeyTerms,
}

impl Known {
    pub fn new(rule: Option<String>, text: &str) -> Known {
        Known {
            rule,
            terms: KeyTerms::of(text),
        }
    }

    pub fn text(&self) -> &str {
        &self.terms.text
    }
}

/// Claude Code's auto-memory files, when auto-memory is on.
pub fn auto_memories(
    ctx: &crate::platform::workspace::context::Context,
) -> Vec<crate::platform::agents::claude::auto_memory::Memory> {
    use crate::platform::agents::claude::auto_memory;
    if !auto_memory::enabled(&ctx.env) {
        return Vec::new();
    }
    crate::memory::index::indexer::transcript_roots(&ctx.env, &ctx.cfg)
        .iter()
        .flat_map(|root| auto_memory::all(root))
        .collect()
}

/// The auto-memory corrections (`feedback` memories) no rule in force says
/// yet: what `pms lessons review` offers to turn into lessons.
pub fn memory_feedback(
    ctx: &crate::platform::workspace::context::Context,
) -> Vec<crate::platform::agents::claude::auto_memory::Memory> {
    let rules = all_rules(&ctx.ws);
    auto_memories(ctx)
        .into_iter()
        .filter(|m| m.is_feedback())
        .filter(|m| {
            !rules
                .iter()
                .any(|r| similarity(&r.text, &m.summary()) >= DUPLICATE_SIMILARITY)
        })
        .collect()
}

/// The key terms of a text (see [`crate::memory::words`]), as a set.
pub fn terms(text: &str) -> BTreeSet<String> {
    crate::memory::words::tokens(text).into_iter().collect()
}

/// How much two lessons say the same thing, 0 to 1, on key terms: the
/// overlap coefficient (shared terms over the smaller set) when both have at
/// least three terms, so a restatement that adds a reason still counts;
/// Jaccard for shorter ones, where a subset says little.
pub fn similarity(a: &str, b: &str) -> f64 {
    similarity_of(&KeyTerms::of(a), &KeyTerms::of(b))
}

/// A text's key terms, analysed once for many comparisons: staging the
/// learnings of a long session compares each with every pending item and
/// every rule in force, and analysing both sides each time was a quarter of
/// session-end's instructions (callgrind, 500 rules, a 10 MB transcript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyTerms {
    terms: BTreeSet<String>,
    text: String,
}

impl KeyTerms {
    pub fn of(text: &str) -> KeyTerms {
        KeyTerms::analysed(terms(text), text)
    }

    /// A text's terms as [`terms`] analysed them before.
    pub fn analysed(terms: BTreeSet<String>, text: &str) -> KeyTerms {
        KeyTerms {
            terms,
            text: text.trim().to_string(),
        }
    }

    /// Whether this text has key terms and each is one of `other`'s: it
    /// says a part of what `other` says and nothing more.
    pub fn within(&self, other: &KeyTerms) -> bool {
        !self.terms.is_empty() && self.terms.is_subset(&other.terms)
    }
}

/// [`similarity`] of two analysed texts.
pub fn similarity_of(a: &KeyTerms, b: &KeyTerms) -> f64 {
    let (x, y) = (&a.terms, &b.terms);
    if x.is_empty() || y.is_empty() {
        return if a.text.eq_ignore_ascii_case(&b.text) {
            1.0
        } else {
            0.0
        };
    }
    let inter = x.intersection(y).count() as f64;
    let small = x.len().min(y.len());
    let sim = if small >= 3 {
        inter / small as f64
    } else {
        inter / x.union(y).count() as f64
    };
    // One or two words swapped on each side ("never deploy the search
    // service on Fridays" and "… the billing service …") name another
    // subject: the same rule only when nearly all else is shared.
    let (only_x, only_y) = (x.difference(y).count(), y.difference(x).count());
    if (1..=2).contains(&only_x) && (1..=2).contains(&only_y) && sim < 0.8 {
        sim * 0.75
    } else {
        sim
    }
}

/// Whether a rule says what to do or what not to do: its first clause
/// decides ("Always use pnpm, never npm" and "round totals per invoice,
/// never per line" prescribe; "Never run the migrations before the tests"
/// forbids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    Do,
    Dont,
}

const DONT_MARKERS: &[&str] = &[
    "never",
    "don't",
    "dont",
    "do not",
    "must not",
    "mustn't",
    "should not",
    "shouldn't",
    "stop",
    "avoid",
    "no longer",
    "不要",
    "别",
    "禁止",
    "不能",
    "不得",
    "切勿",
    "不准",
    "勿",
];
const DO_MARKERS: &[&str] = &[
    "always",
    "must",
    "should",
    "make sure",
    "remember to",
    "必须",
    "总是",
    "务必",
    "一定要",
    "记得",
];

pub fn polarity(text: &str) -> Polarity {
    let lower = text.to_lowercase();
    let first_clause = lower
        .split([',', ';', ':', '.', '，', '。', '；', '：'])
        .find(|c| !c.trim().is_empty() && c.trim() != "lesson")
        .unwrap_or("");
    let first =
        |markers: &[&str]| lesson_profile::find_marker(first_clause, markers).map(|(at, _)| at);
    match (first(DONT_MARKERS), first(DO_MARKERS)) {
        (Some(d), Some(p)) if d < p => Polarity::Dont,
        (Some(_), None) => Polarity::Dont,
        _ => Polarity::Do,
    }
}

/// Whether `new` reverses `old`: the same subject (nearly the same words)
/// with the opposite polarity ("Always run the database migrations before
/// the tests" and "never run the database migrations before the tests").
pub fn reverses(old: &str, new: &str) -> bool {
    polarity(old) != polarity(new) && similarity(old, new) >= DUPLICATE_SIMILARITY
}

/// Near-duplicate threshold for [`similarity`].
pub const DUPLICATE_SIMILARITY: f64 = 0.6;

/// The rule in `rules` that says nearly the same as `text` (the most
/// similar, at least [`DUPLICATE_SIMILARITY`]), if any: what `pms lessons
/// review` and `lessons_pending` offer to merge a learning into.
pub fn near_duplicate<'a>(rules: &'a [Rule], text: &str) -> Option<&'a Rule> {
    rules
        .iter()
        .filter(|r| polarity(&r.text) == polarity(text))
        .map(|r| (similarity(&r.text, text), r))
        .filter(|(s, _)| *s >= DUPLICATE_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
}

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

    const SECTION: &str = "# Lessons\nmine\n<!-- pms:lessons:begin (x) -->\n- [L-abc123] Run the dry-run first, because it caught a lock. _(2026-11-22; cc://-w-p/s1.jsonl)_\n  - applies when: migrate; schema change;  apply migrations\n- [L-def456] 提交前先跑测试。\nnot a rule\n  - applies when: orphan cue line\n<!-- pms:lessons:end -->\n";

    #[test]
    fn a_guard_edited_by_hand_that_does_not_compile_is_kept_and_matches_nothing() {
        let text = "<!-- pms:lessons:begin (x) -->\n- [L-abc123] Never npm.\n  - guard: npm (install\n<!-- pms:lessons:end -->\n";
        let rules = rules_in(text, "me", "_me/lessons.md");
        let guard = rules[0].guard.as_ref().expect("the guard line is read");
        assert_eq!(guard.pattern, "npm (install");
        assert!(!guard.matches("npm (install"));
        assert!(
            rules[0].render().contains("npm (install"),
            "written back as it was"
        );
    }

    #[test]
    fn a_title_ends_where_the_first_reason_marker_starts() {
        // the first-byte check lets every marker through
        for m in REASON_MARKERS {
            let first = m.as_bytes()[0];
            assert!(title_end(m) == 0, "{m}: first byte {first:#x}");
        }
        // what searching for each marker and taking the first gives
        let by_search = |t: &str| {
            REASON_MARKERS
                .iter()
                .filter_map(|m| t.find(m))
                .min()
                .unwrap_or(t.len())
        };
        for t in [
            "Use pnpm, because npm rewrites the lock.",
            "Use pnpm because npm rewrites the lock; always.",
            "Pin versions; the 3.2 release broke us. Really.",
            "Run v1.2.3 first.",
            "No marker at all",
            "部署前先备份，因为上次丢了数据。",
            "先跑测试因为它快。然后提交",
            "Always check café… then “quote” it. Done",
            "",
            "becausebecause , because",
        ] {
            assert_eq!(title_end(t), by_search(t), "{t:?}");
        }
    }

    #[test]
    fn bullets_parse_with_and_without_metadata_and_cues() {
        let rules = rules_in(SECTION, "me", "_me/lessons.md");
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].id, "L-abc123");
        assert_eq!(
            rules[0].text,
            "Run the dry-run first, because it caught a lock."
        );
        assert_eq!(rules[0].date.as_deref(), Some("2026-11-22"));
        assert_eq!(rules[0].source_ref.as_deref(), Some("cc://-w-p/s1.jsonl"));
        assert_eq!(
            rules[0].cues,
            ["migrate", "schema change", "apply migrations"]
        );
        assert_eq!(rules[0].line, 4);
        assert_eq!(rules[0].title(), "Run the dry-run first");
        assert_eq!(rules[1].text, "提交前先跑测试。");
        assert_eq!(rules[1].title(), "提交前先跑测试");
        assert!(rules[1].cues.is_empty(), "a cue line after a non-rule line");
        for r in &rules {
            let back = rules_in(
                &format!(
                    "<!-- pms:lessons:begin -->\n{}\n<!-- pms:lessons:end -->",
                    r.render()
                ),
                "me",
                "_me/lessons.md",
            );
            assert_eq!(back[0].text, r.text);
            assert_eq!(back[0].cues, r.cues);
        }
    }

    #[test]
    fn origin_round_trips_and_old_metadata_still_parses() {
        let b =
            parse_bullet("- [L-1] Do X. _(2026-01-02; cc://a/b.jsonl; from P-abcdef)_").unwrap();
        assert_eq!(b.origin.as_deref(), Some("P-abcdef"));
        assert_eq!(b.source_ref.as_deref(), Some("cc://a/b.jsonl"));
        let b = parse_bullet("- [L-1] Do X. _(2026-01-02)_").unwrap();
        assert_eq!(
            (b.date.as_deref(), b.source_ref),
            (Some("2026-01-02"), None)
        );
    }

    #[test]
    fn text_cannot_break_out_of_a_line_or_a_section() {
        let t = one_line("x <!-- pms:lessons:end -->\n## New\n- [L-0] fake");
        assert!(
            !t.contains("<!--") && !t.contains("-->") && !t.contains('\n'),
            "{t}"
        );
        assert_eq!(split_cues("a; b\nc;; A"), ["a", "b", "c"]);
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

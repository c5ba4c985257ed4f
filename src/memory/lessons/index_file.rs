//! `.pms/lessons.idx`: the rules in force in the form the per-prompt hook
//! reads, its writer and its reader (the matcher).
//!
//! ```text
//! pms-lessons 6<TAB><file>:<size>:<mtime ns><TAB>...     one stamp per rule file
//! weights<TAB><term>=<weight> <term>=<weight> ...       every rule term, sorted
//! <id><TAB><file><TAB><text terms><TAB><cue terms>|<cue terms>...<TAB><weight of the text> <weight of each cue>...
//!     <TAB><project><TAB><guard><TAB><triggers><TAB><prescribed><TAB><text>
//! ```
//!
//! (one line per rule). `project` is the folder the rule belongs to (empty:
//! everywhere); `guard` is `deny <pattern>` or `ask <pattern>` (empty: none);
//! `triggers` and `prescribed` are the rule's [`super::lesson_profile::LessonProfile`]
//! (clauses separated by `|`, a distinctive term marked `*`), what the
//! pre-tool-use hook matches a tool call against ([`super::action_match`]).
//!
//! Terms are analysed once, when the index is written ([`crate::memory::words`]):
//! space-separated, no repeats. A cue's terms stay together (cues are
//! separated by `|`), because a cue found whole is the strongest sign that
//! a lesson applies. The summed weights of the text's terms and of each
//! cue's are written too, so that the hook reads the weights of the
//! prompt's terms only. A CJK cue found whole in a prompt has all its
//! bigrams there, so it counts fully through its terms like any other.
//! The stamps let the hook notice a rule file edited by hand (or an index
//! left stale by an interrupted write) and rebuild before matching.
//!
//! A flat file, not a database: for a few hundred short rows, SQLite's open
//! and first-touch page faults were most of the per-prompt hook's time (p50
//! went from 4.6 ms to 2.9 ms with 500 rules when this replaced a table).
//!
//! ## Scoring
//! A term's weight is computed when the index is written: its inverse
//! frequency among the rules (smoothed by [`BACKGROUND_RULES`], so that a
//! workspace with three rules does not treat every word as rare), damped by
//! how common the word is in English ([`crate::memory::words::commonness`]: "main"
//! or "table" say little about which lesson applies, "kubectl" a lot). A
//! rule's score for a prompt is the weight of the terms they share, plus
//! [`EVIDENCE_BONUS`] times its best single piece of evidence: the text or
//! one cue, counted as its shared weight times the share of its weight the
//! prompt covers (a cue found whole counts fully; one word of a five-word
//! cue, little). A prompt that asks what something is or means ("what does
//! set -e do?") needs no rule about doing the work: its scores are damped
//! by [`CONCEPT_QUESTION`]. A rule is chosen when its score reaches the
//! floor and is not far below the best one; at most `max` rules, best first.
//! Rules between the hint floor and the floor are chosen too, marked as
//! rules that may apply: the model, which reads the request whole, judges.
//!
//! The constants were chosen on the tuning halves of two labelled sets
//! (tests/data/lessons_dev, lessons_holdout) and checked on their other
//! halves; tests/lessons_quality.rs prints the figures. Measured and left
//! out: a sentence-embedding arm (MiniLM, the full transformer, as an upper
//! bound of what a model could add) raised recall by 0 to 0.14 at equal
//! precision across the two sets, and cannot load within the hook's budget.

use std::path::Path;

use super::action::{self, ActionTerms};
use super::action_match::{self, Profile};
use super::guard::{Guard, GuardMode};
use super::lesson_profile::LessonProfile;
use super::{KeyTerms, Rule, all_rules, rule_files};
use crate::memory::words::{self, Commonness};
use crate::platform::host::durable;
use crate::platform::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

// 4: the analysis of cue and text terms changed (one synonym table).
// 5: the column of whole CJK cues is gone (their bigrams carry them).
// 6: project, guard and the action profile columns.
const HEADER: &str = "pms-lessons 6";
const WEIGHTS: &str = "weights";

/// Rules without any shared term, added to the real count for the inverse
/// frequency: with few rules, every term would otherwise look rare.
const BACKGROUND_RULES: f64 = 20.0;
/// Weight of a rule's best piece of evidence (its text or one cue), on top
/// of the weight of every shared term.
const EVIDENCE_BONUS: f64 = 0.5;
/// A chosen rule scores at least this share of the best rule's score.
const RELATIVE_FLOOR: f64 = 0.4;
/// Score factor for a prompt that asks what something is or means.
const CONCEPT_QUESTION: f64 = 0.4;

/// Rewrites the lessons index from the files. Failing to write it is not
/// fatal: the next prompt (stamps differ) or `pms index` does it.
pub fn refresh_index(ws: &Workspace) {
    let _ = write_index(ws, &all_rules(ws));
}

/// Rewrites the lessons index when it is missing or older than the rule
/// files (what a change interrupted between the two leaves). Costs a stat
/// of each rule file and a read of the index when it is current.
pub fn refresh_if_stale(ws: &Workspace) {
    if !state(ws).is_some_and(|s| s.current) {
        refresh_index(ws);
    }
}

/// The stamps of the rule files as they are now.
fn stamps(ws: &Workspace) -> String {
    rule_files(ws)
        .iter()
        .map(|(path, _, rel)| {
            let (size, mtime) = std::fs::metadata(path)
                .map(|m| {
                    let t = m
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map_or(0, |d| d.as_nanos());
                    (m.len(), t)
                })
                .unwrap_or((0, 0));
            format!("{rel}:{size}:{mtime}")
        })
        .collect::<Vec<_>>()
        .join("\t")
}

/// The analysed terms of `text`, no repeats, in first-seen order.
fn unique_tokens(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words::tokens(text)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// How much a shared word says, given how common it is in English.
fn damping(term: &str) -> f64 {
    match words::commonness(term) {
        Some(Commonness::VeryCommon) => 0.5,
        Some(Commonness::Common) => 0.64,
        Some(Commonness::Known) => 0.8,
        None => 1.0,
    }
}

/// The weight of every term of `rules` (see the module docs).
fn weights(rules: &[(Vec<String>, Vec<Vec<String>>)]) -> BTreeMap<String, f64> {
    let mut df: BTreeMap<String, f64> = BTreeMap::new();
    for (text, cues) in rules {
        let terms: BTreeSet<&String> = text.iter().chain(cues.iter().flatten()).collect();
        for t in terms {
            *df.entry(t.clone()).or_default() += 1.0;
        }
    }
    let n = rules.len() as f64 + BACKGROUND_RULES;
    df.into_iter()
        .map(|(t, d)| {
            let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
            let w = idf * damping(&t);
            (t, w)
        })
        .collect()
}

fn render(ws: &Workspace, rules: &[Rule]) -> String {
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    // A rule edited by hand into lessons.md may hold a secret or a terminal
    // control; the index pms writes holds neither (the terms are read from
    // the rule as written, so matching is the same).
    let shown = |s: &str| clean(&crate::platform::redact::redact(s));
    let analysed: Vec<(Vec<String>, Vec<Vec<String>>)> = rules
        .iter()
        .map(|r| {
            let cues = r
                .cues
                .iter()
                .map(|c| unique_tokens(c))
                .filter(|c| !c.is_empty())
                .collect();
            (unique_tokens(&r.text), cues)
        })
        .collect();
    let profiles: Vec<LessonProfile> = rules.iter().map(|r| LessonProfile::of(&r.text)).collect();
    let weights = weights(&analysed);
    let mut out = format!("{HEADER}\t{}\n{WEIGHTS}\t", stamps(ws));
    let pairs: Vec<String> = weights.iter().map(|(t, w)| format!("{t}={w:.4}")).collect();
    out.push_str(&pairs.join(" "));
    out.push('\n');
    let total = |terms: &[String]| -> f64 { terms.iter().map(|t| weights[t]).sum() };
    for ((r, (text, cues)), p) in rules.iter().zip(&analysed).zip(&profiles) {
        let totals: Vec<String> = std::iter::once(text)
            .chain(cues)
            .map(|t| format!("{:.4}", total(t)))
            .collect();
        let cues: Vec<String> = cues.iter().map(|c| c.join(" ")).collect();
        let guard = r
            .guard
            .as_ref()
            .map(|g| format!("{} {}", g.mode.as_str(), clean(&g.pattern)))
            .unwrap_or_default();
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            clean(&r.id),
            clean(&r.file),
            text.join(" "),
            cues.join("|"),
            totals.join(" "),
            clean(r.project.as_deref().unwrap_or("")),
            guard,
            clean(&p.triggers_column()),
            p.prescribed.join(" "),
            shown(&r.text)
        ));
    }
    out
}

pub fn write_index(ws: &Workspace, rules: &[Rule]) -> std::io::Result<()> {
    durable::write_atomic(&ws.lessons_index_path(), render(ws, rules).as_bytes())
}

/// How sure the matcher is that a chosen lesson applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    /// At or above `hooks.lesson_score_floor`: injected as a rule to follow.
    Applies,
    /// Between `hooks.lesson_hint_floor` and the score floor: injected as a
    /// rule that may apply, for the model to judge.
    MayApply,
}

/// A lesson chosen for a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    pub id: String,
    pub text: String,
    pub file: String,
    pub score: f64,
    pub strength: Strength,
}

/// How lessons are chosen for a prompt.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Lowest score of a rule that applies (`hooks.lesson_score_floor`).
    pub floor: f64,
    /// Lowest score of a rule that may apply (`hooks.lesson_hint_floor`);
    /// at or above `floor`, there are no such rules.
    pub hint_floor: f64,
    /// Most rules chosen (`hooks.lessons_per_prompt`).
    pub max: usize,
}

impl Selection {
    /// The selection the workspace's config asks for.
    pub fn from_config(hooks: &crate::platform::workspace::config::HooksConfig) -> Selection {
        Selection {
            floor: hooks.lesson_score_floor,
            hint_floor: hooks.lesson_hint_floor,
            max: hooks.lessons_per_prompt,
        }
    }

    /// Only rules that apply, none that may.
    pub fn sure(floor: f64, max: usize) -> Selection {
        Selection {
            floor,
            hint_floor: floor,
            max,
        }
    }
}

/// The lessons that apply to `prompt`, best first. An index that is
/// missing, from an older version, or older than the rule files is
/// rebuilt first.
pub fn matching(
    ws: &Workspace,
    prompt: &str,
    how: Selection,
    place: Place,
) -> std::io::Result<Vec<Matched>> {
    Ok(select(&current_index(ws)?, prompt, how, place))
}

/// The index as it should be now: rebuilt first when it is missing, from
/// an older version, or older than the rule files (empty when there is no
/// workspace state yet).
fn current_index(ws: &Workspace) -> std::io::Result<String> {
    let path = ws.lessons_index_path();
    let index = match std::fs::read_to_string(&path) {
        Ok(t) if is_current(ws, &t) => t,
        Ok(_) => rebuild(ws),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if ws.state_dir().is_dir() {
                rebuild(ws)
            } else {
                String::new()
            }
        }
        Err(e) => return Err(e),
    };
    Ok(index)
}

/// Each rule in force, its id and its key terms (the text's terms as the
/// index holds them, and its text as shown), for staging to compare a new
/// learning with.
pub fn rules_with_terms(ws: &Workspace) -> std::io::Result<Vec<(String, KeyTerms)>> {
    Ok(terms_of_rules(&current_index(ws)?))
}

fn terms_of_rules(index: &str) -> Vec<(String, KeyTerms)> {
    entries(index)
        .map(|e| {
            let terms = e.text_terms.split(' ').filter(|t| !t.is_empty());
            let terms = KeyTerms::analysed(terms.map(str::to_string).collect(), e.text);
            (e.id.to_string(), terms)
        })
        .collect()
}

/// What the index file holds, for `pms verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexState {
    /// Rules it lists.
    pub rules: usize,
    /// Written from the rule files as they are now.
    pub current: bool,
}

/// The index file's state, or None when there is none.
pub fn state(ws: &Workspace) -> Option<IndexState> {
    let text = std::fs::read_to_string(ws.lessons_index_path()).ok()?;
    Some(IndexState {
        rules: entries(&text).count(),
        current: is_current(ws, &text),
    })
}

fn is_current(ws: &Workspace, index: &str) -> bool {
    let first = index.lines().next().unwrap_or_default();
    first
        .strip_prefix(HEADER)
        .and_then(|rest| rest.strip_prefix('\t'))
        .is_some_and(|s| s == stamps(ws))
}

fn rebuild(ws: &Workspace) -> String {
    let text = render(ws, &all_rules(ws));
    let _ = durable::write_atomic(&ws.lessons_index_path(), text.as_bytes());
    text
}

/// One rule line of the index.
struct Entry<'a> {
    id: &'a str,
    file: &'a str,
    /// The prompt matcher's columns, split only by [`Entry::prompt_terms`]:
    /// the action matcher never reads them, and splitting 500 rows' worth
    /// was a tenth of a pre-tool-use call.
    text_terms: &'a str,
    cues: &'a str,
    totals: &'a str,
    project: &'a str,
    guard: &'a str,
    triggers: &'a str,
    prescribed: &'a str,
    text: &'a str,
}

/// A rule's terms as the prompt matcher reads them.
struct PromptTerms<'a> {
    text_terms: Vec<&'a str>,
    cues: Vec<Vec<&'a str>>,
    /// Summed weight of the text's terms, then of each cue's.
    totals: Vec<f64>,
}

fn parse_entry(line: &str) -> Option<Entry<'_>> {
    let cols: Vec<&str> = line.splitn(10, '\t').collect();
    let [
        id,
        file,
        text_terms,
        cues,
        totals,
        project,
        guard,
        triggers,
        prescribed,
        text,
    ] = cols.as_slice()
    else {
        return None;
    };
    Some(Entry {
        id,
        file,
        text_terms,
        cues,
        totals,
        project,
        guard,
        triggers,
        prescribed,
        text,
    })
}

impl<'a> Entry<'a> {
    /// The text's terms, each cue's and their weights; None for a row whose
    /// weights do not parse.
    fn prompt_terms(&self) -> Option<PromptTerms<'a>> {
        fn split(s: &str) -> Vec<&str> {
            s.split(' ').filter(|t| !t.is_empty()).collect()
        }
        Some(PromptTerms {
            text_terms: split(self.text_terms),
            cues: self
                .cues
                .split('|')
                .map(split)
                .filter(|c| !c.is_empty())
                .collect(),
            totals: split(self.totals)
                .into_iter()
                .map(|w| w.parse().ok())
                .collect::<Option<_>>()?,
        })
    }

    /// Whether the rule is in force at `place`.
    fn applies_at(&self, place: Place) -> bool {
        match place {
            Place::Anywhere => true,
            Place::In(cwd) => self.project.is_empty() || cwd.starts_with(self.project),
        }
    }

    fn guard(&self) -> Option<Guard> {
        let (mode, pattern) = self.guard.split_once(' ')?;
        Some(Guard {
            pattern: pattern.to_string(),
            mode: GuardMode::parse(mode)?,
        })
    }
}

/// Where a session works, for rules that belong to one project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// Every rule counts (the page's matcher box, a session with no folder).
    Anywhere,
    /// Rules of other projects do not count.
    In(&'a Path),
}

impl<'a> Place<'a> {
    /// The place of a session in `cwd`, if known.
    pub fn of(cwd: Option<&'a str>) -> Place<'a> {
        match cwd {
            Some(c) if !c.is_empty() => Place::In(Path::new(c)),
            _ => Place::Anywhere,
        }
    }
}

/// The rule lines of an index.
fn entries(index: &str) -> impl Iterator<Item = Entry<'_>> {
    index
        .lines()
        .filter(|l| !l.starts_with(HEADER) && !l.starts_with(WEIGHTS))
        .filter_map(parse_entry)
}

/// The weights of the terms in `wanted`, read from the index's weights line.
fn term_weights<'a>(index: &'a str, wanted: &HashSet<&str>) -> HashMap<&'a str, f64> {
    let line = index
        .lines()
        .find_map(|l| l.strip_prefix(WEIGHTS).and_then(|r| r.strip_prefix('\t')))
        .unwrap_or_default();
    line.split(' ')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(t, _)| wanted.contains(t))
        .filter_map(|(t, w)| Some((t, w.parse().ok()?)))
        .collect()
}

/// Scores every rule of `index` against `prompt` and chooses.
pub fn select(index: &str, prompt: &str, how: Selection, place: Place) -> Vec<Matched> {
    let tokens = words::tokens(prompt);
    if tokens.is_empty() || how.max == 0 {
        return Vec::new();
    }
    let prompt_terms: HashSet<&str> = tokens.iter().map(String::as_str).collect();
    let weight = term_weights(index, &prompt_terms);
    let w = |t: &str| weight.get(t).copied().unwrap_or(0.0);
    let question = if words::asks_what_something_is(prompt) {
        CONCEPT_QUESTION
    } else {
        1.0
    };
    // A command the prompt names ("npm install", "terraform apply …") meets
    // the lessons about it as the command itself would: one decisive word
    // in a short prompt is enough for those (issue 22: "install the
    // dependencies with npm install" scored 3.22 against a 3.5 floor).
    // Only in a short prompt: in a long one the command is one detail
    // among many, and the words carry the match (with it, a long prompt
    // naming `git` in passing drew a git lesson in lessons_holdout).
    // Nor in a question ("what does `docker ps` say?", "how do I undo `git
    // add`?"): it asks about a command, it does not ask to run one.
    let asks = question != 1.0 || prompt.trim_end().ends_with(['?', '？']);
    let commands: Vec<ActionTerms> =
        if !asks && prompt.split_whitespace().count() <= SHORT_PROMPT_WORDS {
            action::commands_in(prompt)
                .iter()
                .map(action::Action::terms)
                .collect()
        } else {
            Vec::new()
        };
    let mut scored: Vec<Matched> = Vec::new();
    for e in entries(index).filter(|e| e.applies_at(place)) {
        let about_a_command = !commands.is_empty() && {
            let profile = Profile::parse(e.triggers, e.prescribed);
            commands
                .iter()
                .any(|c| action_match::applies(&profile, c).is_some())
        };
        let Some(terms) = e.prompt_terms() else {
            continue;
        };
        let shared: BTreeSet<&str> = terms
            .text_terms
            .iter()
            .chain(terms.cues.iter().flatten())
            .copied()
            .filter(|t| prompt_terms.contains(t))
            .collect();
        if shared.is_empty() {
            continue;
        }
        // The evidence of one term set: its shared weight times the share of
        // its weight the prompt covers.
        let evidence = |terms: &[&str], total: f64| -> f64 {
            let hit: f64 = terms.iter().map(|t| w(t)).sum();
            if total > 0.0 { hit * hit / total } else { 0.0 }
        };
        let total = |i: usize| terms.totals.get(i).copied().unwrap_or(0.0);
        let mut best = evidence(&terms.text_terms, total(0));
        for (i, cue) in terms.cues.iter().enumerate() {
            best = best.max(evidence(cue, total(i + 1)));
        }
        let mut score =
            (shared.iter().map(|t| w(t)).sum::<f64>() + EVIDENCE_BONUS * best) * question;
        if about_a_command {
            score = score.max(how.floor);
        }
        let strength = if score >= how.floor {
            Strength::Applies
        } else {
            Strength::MayApply
        };
        scored.push(Matched {
            id: e.id.to_string(),
            text: e.text.to_string(),
            file: e.file.to_string(),
            score,
            strength,
        });
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = scored.first().map_or(0.0, |m| m.score);
    let lowest = how.floor.min(how.hint_floor);
    scored.retain(|m| m.score >= lowest && m.score >= RELATIVE_FLOOR * best);
    scored.truncate(how.max);
    scored
}

/// A prompt of at most this many words is short: a command it names meets
/// the lessons about that command.
const SHORT_PROMPT_WORDS: usize = 12;

/// Most lessons shown before one action: the action is one step, and a
/// wall of rules before each would be skimmed.
pub const MAX_ACTION_LESSONS: usize = 2;

/// A guard a tool call meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardHit {
    pub id: String,
    pub text: String,
    pub file: String,
    pub guard: Guard,
}

/// What a tool call meets: a guard (denying wins over asking), and the
/// lessons that apply to it, best first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionVerdict {
    pub guard: Option<GuardHit>,
    pub lessons: Vec<Matched>,
}

/// The guards and lessons a tool call meets at `place`; the index is
/// rebuilt first when stale.
pub fn for_action(
    ws: &Workspace,
    action: &action::Action,
    place: Place,
) -> std::io::Result<ActionVerdict> {
    Ok(select_action(&current_index(ws)?, action, place))
}

/// [`for_action`] on an index's text.
pub fn select_action(index: &str, action: &action::Action, place: Place) -> ActionVerdict {
    let in_force: Vec<Entry> = entries(index).filter(|e| e.applies_at(place)).collect();
    let target = action.guard_target();
    let guard = in_force
        .iter()
        .filter_map(|e| Some((e, e.guard()?)))
        .filter(|(_, g)| g.matches(target))
        .min_by_key(|(_, g)| g.mode != GuardMode::Deny)
        .map(|(e, g)| GuardHit {
            id: e.id.to_string(),
            text: e.text.to_string(),
            file: e.file.to_string(),
            guard: g,
        });
    let terms = action.terms();
    let mut lessons: Vec<Matched> = in_force
        .iter()
        .filter(|e| {
            let may = action_match::may_apply(e.triggers, e.prescribed, &terms);
            // every test run checks that no lesson skipped would apply
            debug_assert!(
                may || action_match::applies(&Profile::parse(e.triggers, e.prescribed), &terms)
                    .is_none(),
                "{}: applies, but may_apply says it cannot",
                e.id
            );
            may
        })
        .filter_map(|e| {
            let score = action_match::applies(&Profile::parse(e.triggers, e.prescribed), &terms)?;
            Some(Matched {
                id: e.id.to_string(),
                text: e.text.to_string(),
                file: e.file.to_string(),
                score,
                strength: Strength::Applies,
            })
        })
        .collect();
    lessons.sort_by(|a, b| b.score.total_cmp(&a.score));
    lessons.truncate(MAX_ACTION_LESSONS);
    ActionVerdict { guard, lessons }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str, text: &str, cues: &[&str]) -> Rule {
        Rule {
            id: id.into(),
            text: text.into(),
            cues: cues.iter().map(|c| c.to_string()).collect(),
            date: None,
            source_ref: None,
            origin: None,
            guard: None,
            project: None,
            scope: "me".into(),
            file: "_me/lessons.md".into(),
            line: 1,
        }
    }

    /// Staging reads the rules' terms from the index: they must be what
    /// analysing each rule's text gives, and the same rules compare alike.
    #[test]
    fn the_index_holds_each_rules_key_terms() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let rules = [
            rule("L-1", "Never force-push to the main branch.", &["git push"]),
            rule("L-2", "用 UTC 记录日志时间\t(always UTC in logs)", &[]),
            rule(
                "L-3",
                "Don't run `terraform apply` with -auto-approve.",
                &[],
            ),
        ];
        let read = terms_of_rules(&render(&ws, &rules));
        assert_eq!(read.len(), rules.len());
        for ((id, terms), r) in read.iter().zip(&rules) {
            assert_eq!(id, &r.id);
            let fresh = KeyTerms::of(&r.text);
            assert!(terms.within(&fresh) && fresh.within(terms), "{id}");
            assert_eq!(crate::memory::lessons::similarity_of(terms, &fresh), 1.0);
        }
    }

    #[test]
    fn cues_and_phrases_carry_the_match() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let rules = [
            rule(
                "L-1",
                "Never force-push to the main branch.",
                &[
                    "git push --force",
                    "overwrite the remote branch",
                    "rewrite history on main",
                ],
            ),
            rule(
                "L-2",
                "Always pin the Postgres major version in docker-compose files; never use the latest tag.",
                &[
                    "docker-compose.yml",
                    "postgres image tag",
                    "local dev database",
                ],
            ),
            rule("L-3", "Check the login page CSS on mobile.", &[]),
        ];
        let index = render(&ws, &rules);
        let how = Selection::sure(3.0, 3);
        let ids = |p: &str| -> Vec<String> {
            select(&index, p, how, Place::Anywhere)
                .into_iter()
                .map(|m| m.id)
                .collect()
        };
        assert_eq!(
            ids("I need to git push --force my changes to main"),
            ["L-1"]
        );
        assert_eq!(
            ids("Can you write a docker-compose.yml with postgres and redis for local dev?"),
            ["L-2"]
        );
        assert_eq!(
            ids("the login page looks broken on my phone, fix the css"),
            ["L-3"]
        );
        assert!(ids("draw a revenue chart for the board deck").is_empty());
        assert!(
            select(
                &index,
                "git push --force",
                Selection::sure(3.0, 0),
                Place::Anywhere
            )
            .is_empty()
        );
    }
}

//! `.pms/lessons.idx`: the rules in force in the form the per-prompt hook
//! reads, its writer and its reader (the matcher).
//!
//! ```text
//! pms-lessons 5<TAB><file>:<size>:<mtime ns><TAB>...     one stamp per rule file
//! weights<TAB><term>=<weight> <term>=<weight> ...       every rule term, sorted
//! <id><TAB><file><TAB><text terms><TAB><cue terms>|<cue terms>...<TAB><weight of the text> <weight of each cue>...<TAB><text>
//! ```
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

use super::{Rule, all_rules, rule_files};
use crate::memory::words::{self, Commonness};
use crate::platform::host::durable;
use crate::platform::workspace::Workspace;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

// 4: the analysis of cue and text terms changed (one synonym table).
// 5: the column of whole CJK cues is gone (their bigrams carry them).
const HEADER: &str = "pms-lessons 5";
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
    let weights = weights(&analysed);
    let mut out = format!("{HEADER}\t{}\n{WEIGHTS}\t", stamps(ws));
    let pairs: Vec<String> = weights.iter().map(|(t, w)| format!("{t}={w:.4}")).collect();
    out.push_str(&pairs.join(" "));
    out.push('\n');
    let total = |terms: &[String]| -> f64 { terms.iter().map(|t| weights[t]).sum() };
    for (r, (text, cues)) in rules.iter().zip(&analysed) {
        let totals: Vec<String> = std::iter::once(text)
            .chain(cues)
            .map(|t| format!("{:.4}", total(t)))
            .collect();
        let cues: Vec<String> = cues.iter().map(|c| c.join(" ")).collect();
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            clean(&r.id),
            clean(&r.file),
            text.join(" "),
            cues.join("|"),
            totals.join(" "),
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
pub fn matching(ws: &Workspace, prompt: &str, how: Selection) -> std::io::Result<Vec<Matched>> {
    let path = ws.lessons_index_path();
    let index = match std::fs::read_to_string(&path) {
        Ok(t) if is_current(ws, &t) => t,
        Ok(_) => rebuild(ws),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if ws.state_dir().is_dir() {
                rebuild(ws)
            } else {
                return Ok(Vec::new());
            }
        }
        Err(e) => return Err(e),
    };
    Ok(select(&index, prompt, how))
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
    text_terms: Vec<&'a str>,
    cues: Vec<Vec<&'a str>>,
    /// Summed weight of the text's terms, then of each cue's.
    totals: Vec<f64>,
    text: &'a str,
}

fn parse_entry(line: &str) -> Option<Entry<'_>> {
    let mut cols = line.splitn(6, '\t');
    let (id, file, text_terms, cues, totals, text) = (
        cols.next()?,
        cols.next()?,
        cols.next()?,
        cols.next()?,
        cols.next()?,
        cols.next()?,
    );
    fn split(s: &str) -> Vec<&str> {
        s.split(' ').filter(|t| !t.is_empty()).collect()
    }
    Some(Entry {
        id,
        file,
        text_terms: split(text_terms),
        cues: cues
            .split('|')
            .map(split)
            .filter(|c| !c.is_empty())
            .collect(),
        totals: split(totals)
            .into_iter()
            .map(|w| w.parse().ok())
            .collect::<Option<_>>()?,
        text,
    })
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
pub fn select(index: &str, prompt: &str, how: Selection) -> Vec<Matched> {
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
    let mut scored: Vec<Matched> = Vec::new();
    for e in entries(index) {
        let shared: BTreeSet<&str> = e
            .text_terms
            .iter()
            .chain(e.cues.iter().flatten())
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
        let total = |i: usize| e.totals.get(i).copied().unwrap_or(0.0);
        let mut best = evidence(&e.text_terms, total(0));
        for (i, cue) in e.cues.iter().enumerate() {
            best = best.max(evidence(cue, total(i + 1)));
        }
        let score = (shared.iter().map(|t| w(t)).sum::<f64>() + EVIDENCE_BONUS * best) * question;
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
            scope: "me".into(),
            file: "_me/lessons.md".into(),
            line: 1,
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
        let ids =
            |p: &str| -> Vec<String> { select(&index, p, how).into_iter().map(|m| m.id).collect() };
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
        assert!(select(&index, "git push --force", Selection::sure(3.0, 0)).is_empty());
    }
}

//! `.pms/lessons.idx`: the rules in force in the form the per-prompt hook
//! reads, its writer and its reader (the matcher).
//!
//! ```text
//! pms-lessons 2<TAB><file>:<size>:<mtime ns><TAB>...          one stamp per rule file
//! <id><TAB><file><TAB><text terms><TAB><cue terms><TAB><cue phrases><TAB><text>
//! ```
//!
//! Terms are analysed once, when the index is written ([`crate::words`]):
//! space-separated, sorted, no repeats. Cue phrases are the analysed tokens
//! of each cue of two or more words, in order, `|` between phrases. The
//! stamps let the hook notice a rule file edited by hand (or an index left
//! stale by an interrupted write) and rebuild before matching.
//!
//! A flat file, not a database: for a few hundred short rows, SQLite's open
//! and first-touch page faults were most of the per-prompt hook's time (p50
//! went from 4.6 ms to 2.9 ms with 500 rules when this replaced a table).
//!
//! Matching is a BM25-style retrieval over the rules: each term a prompt
//! shares with a rule adds its weight (inverse rule frequency, smoothed by
//! [`BACKGROUND_RULES`] so that a workspace with three rules does not treat
//! every word as rare); a cue phrase found whole in the prompt adds its
//! terms' weight again. A rule is chosen when its score reaches the floor
//! and is not far below the best one; at most `max` rules, best first.

use std::collections::{BTreeSet, HashMap};

use super::{Rule, all_rules, rule_files};
use crate::durable;
use crate::words;
use crate::workspace::Workspace;

const HEADER: &str = "pms-lessons 2";

/// Rules without any shared term, added to the real count for the inverse
/// frequency: with few rules, every term would otherwise look rare.
const BACKGROUND_RULES: f64 = 20.0;
/// Extra weight of a cue phrase found whole in a prompt, per term weight.
const PHRASE_BONUS: f64 = 0.5;
/// A chosen rule scores at least this share of the best rule's score.
const RELATIVE_FLOOR: f64 = 0.4;

/// Rewrites the lessons index from the files. Failing to write it is not
/// fatal: the next prompt (stamps differ) or `pms index` does it.
pub fn refresh_index(ws: &Workspace) {
    let _ = write_index(ws, &all_rules(ws));
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

fn joined(set: &BTreeSet<String>) -> String {
    set.iter().map(String::as_str).collect::<Vec<_>>().join(" ")
}

fn render(ws: &Workspace, rules: &[Rule]) -> String {
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    let mut out = format!("{HEADER}\t{}\n", stamps(ws));
    for r in rules {
        let text_terms: BTreeSet<String> = words::tokens(&r.text).into_iter().collect();
        let mut cue_terms = BTreeSet::new();
        let mut phrases = Vec::new();
        for c in &r.cues {
            let toks = words::tokens(c);
            if toks.len() >= 2 {
                phrases.push(toks.join(" "));
            }
            cue_terms.extend(toks);
        }
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            clean(&r.id),
            clean(&r.file),
            joined(&text_terms),
            joined(&cue_terms),
            phrases.join("|"),
            clean(&r.text)
        ));
    }
    out
}

pub fn write_index(ws: &Workspace, rules: &[Rule]) -> std::io::Result<()> {
    durable::write_atomic(&ws.lessons_index_path(), render(ws, rules).as_bytes())
}

/// A lesson chosen for a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    pub id: String,
    pub text: String,
    pub file: String,
    pub score: f64,
}

/// How lessons are chosen for a prompt.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Lowest score a chosen rule has (`hooks.lesson_score_floor`).
    pub floor: f64,
    /// Most rules chosen (`hooks.lessons_per_prompt`).
    pub max: usize,
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
        rules: text
            .lines()
            .filter(|l| !l.starts_with(HEADER))
            .filter_map(parse_entry)
            .count(),
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
    cue_terms: Vec<&'a str>,
    phrases: Vec<Vec<&'a str>>,
    text: &'a str,
}

fn parse_entry(line: &str) -> Option<Entry<'_>> {
    let mut cols = line.splitn(6, '\t');
    let (id, file, text_terms, cue_terms, phrases, text) = (
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
        cue_terms: split(cue_terms),
        phrases: phrases
            .split('|')
            .map(split)
            .filter(|p| p.len() >= 2)
            .collect(),
        text,
    })
}

/// Scores every rule of `index` against `prompt` and chooses.
pub fn select(index: &str, prompt: &str, how: Selection) -> Vec<Matched> {
    let tokens = words::tokens(prompt);
    if tokens.is_empty() || how.max == 0 {
        return Vec::new();
    }
    let prompt_terms: BTreeSet<&str> = tokens.iter().map(String::as_str).collect();
    let entries: Vec<Entry> = index
        .lines()
        .skip_while(|l| l.starts_with(HEADER))
        .filter_map(parse_entry)
        .collect();
    // Rule frequency of the prompt's terms only: nothing else is needed.
    let mut df: HashMap<&str, f64> = prompt_terms.iter().map(|t| (*t, 0.0)).collect();
    for e in &entries {
        for t in e.text_terms.iter().chain(&e.cue_terms) {
            if let Some(n) = df.get_mut(t) {
                *n += 1.0;
            }
        }
    }
    // A term in both the text and the cues of one rule counted once more
    // above; the correction below keeps df a count of rules.
    for e in &entries {
        for t in &e.text_terms {
            if e.cue_terms.binary_search(t).is_ok()
                && let Some(n) = df.get_mut(t)
            {
                *n -= 1.0;
            }
        }
    }
    let n = entries.len() as f64 + BACKGROUND_RULES;
    let weight = |t: &str| -> f64 {
        let d = df.get(t).copied().unwrap_or(0.0);
        (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
    };
    let mut scored: Vec<Matched> = Vec::new();
    for e in &entries {
        let mut score = 0.0;
        for t in &prompt_terms {
            if e.text_terms.binary_search(t).is_ok() || e.cue_terms.binary_search(t).is_ok() {
                score += weight(t);
            }
        }
        if score == 0.0 {
            continue;
        }
        for p in &e.phrases {
            if tokens
                .windows(p.len())
                .any(|w| w.iter().zip(p).all(|(a, b)| a == b))
            {
                score += PHRASE_BONUS * p.iter().map(|t| weight(t)).sum::<f64>();
            }
        }
        scored.push(Matched {
            id: e.id.to_string(),
            text: e.text.to_string(),
            file: e.file.to_string(),
            score,
        });
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = scored.first().map_or(0.0, |m| m.score);
    scored.retain(|m| m.score >= how.floor && m.score >= RELATIVE_FLOOR * best);
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
        let how = Selection { floor: 3.0, max: 3 };
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
        assert!(select(&index, "git push --force", Selection { floor: 3.0, max: 0 }).is_empty());
    }
}

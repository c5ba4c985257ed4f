//! `.pms/lessons.idx`: the rules in force in the form the per-prompt hook
//! reads, its writer and its reader. One line per rule, `id TAB file TAB key
//! terms (sorted, space-separated) TAB text`, rewritten atomically after every
//! rule change and every full index run.
//!
//! A flat file, not a database: for a few hundred short rows, SQLite's open
//! and first-touch page faults were most of the per-prompt hook's time (p50
//! went from 4.6 ms to 2.9 ms with 500 rules when this replaced a table).

use std::collections::BTreeSet;

use super::{Rule, all_rules};
use crate::durable;
use crate::workspace::Workspace;

/// Rewrites the lessons index from the files. Failing to write it is not
/// fatal: the next `pms index` does it.
pub fn refresh_index(ws: &Workspace) {
    let _ = write_index(ws, &all_rules(ws));
}

pub fn write_index(ws: &Workspace, rules: &[Rule]) -> std::io::Result<()> {
    let mut out = String::new();
    for r in rules {
        let terms: Vec<String> = super::terms(&r.text).into_iter().collect();
        let clean = |s: &str| s.replace(['\t', '\n'], " ");
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            clean(&r.id),
            clean(&r.file),
            terms.join(" "),
            clean(&r.text)
        ));
    }
    durable::write_atomic(&ws.lessons_index_path(), out.as_bytes())
}

/// A lesson chosen for a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    pub id: String,
    pub text: String,
    pub file: String,
    pub coverage: f64,
}

/// Lessons sharing enough key terms with `prompt`, best first.
pub fn matching(
    ws: &Workspace,
    prompt: &str,
    min_score: f64,
    max: usize,
) -> std::io::Result<Vec<Matched>> {
    let index = match std::fs::read_to_string(ws.lessons_index_path()) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()), // built by the next sync
        Err(e) => return Err(e),
    };
    Ok(select(&index, &super::terms(prompt), min_score, max))
}

/// The lesson choice itself, over the lines of `.pms/lessons.idx`: the share
/// of each lesson's key terms found in the prompt. Both term lists are sorted
/// (they come out of BTreeSets), so a merge counts the shared ones with plain
/// comparisons: no hashing, no allocation per lesson.
pub fn select(
    index: &str,
    prompt_terms: &BTreeSet<String>,
    min_score: f64,
    max: usize,
) -> Vec<Matched> {
    if prompt_terms.is_empty() || max == 0 {
        return Vec::new();
    }
    let wanted: Vec<&str> = prompt_terms.iter().map(String::as_str).collect();
    let mut out: Vec<Matched> = Vec::new();
    for line in index.lines() {
        let mut cols = line.splitn(4, '\t');
        let (Some(id), Some(file), Some(terms), Some(text)) =
            (cols.next(), cols.next(), cols.next(), cols.next())
        else {
            continue;
        };
        let (mut total, mut hits, mut w) = (0usize, 0usize, 0usize);
        for t in terms.split(' ').filter(|t| !t.is_empty()) {
            total += 1;
            while w < wanted.len() && wanted[w] < t {
                w += 1;
            }
            if w < wanted.len() && wanted[w] == t {
                hits += 1;
            }
        }
        if total == 0 {
            continue;
        }
        let coverage = hits as f64 / total as f64;
        // One shared word is chance unless the lesson has only one or two.
        if coverage >= min_score && hits >= 2.min(total) {
            out.push(Matched {
                id: id.to_string(),
                text: text.to_string(),
                file: file.to_string(),
                coverage,
            });
        }
    }
    out.sort_by(|a, b| b.coverage.total_cmp(&a.coverage));
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_gates_on_coverage_and_caps() {
        let idx = "L-1\t_me/lessons.md\tapply dry migration production run\tRun the migration dry-run before applying it to production\n\
                   L-2\t_me/lessons.md\tcss login page\tCheck the login page CSS on mobile\n\
                   broken line without tabs\n";
        let got = select(
            idx,
            &super::super::terms("apply the orders migration to production now"),
            0.35,
            3,
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].id, "L-1");
        assert!((got[0].coverage - 0.6).abs() < 1e-9);
        assert!(select(idx, &super::super::terms("draw a revenue chart"), 0.35, 3).is_empty());
        assert!(
            select(
                idx,
                &super::super::terms("apply the migration to production"),
                0.35,
                0
            )
            .is_empty()
        );
    }
}

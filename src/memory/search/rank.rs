//! The last step of every search, keyword or hybrid: source weight and
//! recency on top of each candidate's score, the per-file cap and the
//! limit, the groups, and the snippet around the query's words.

use std::collections::HashMap;

use super::query::Concepts;
use super::{Hit, HitGroup, Matched, Mode, SearchOutcome, SearchParams};
use crate::memory::words::terms::is_cjk;
use crate::platform::workspace::config::{Group, SearchConfig};

/// Final ranking: source weight and recency on top of each candidate's base
/// score, best first, at most `per_file` hits per file (0: any), `limit` in
/// all, then put together by group (groups in the order of their best hit).
pub(crate) fn finish(
    scored: Vec<(Hit, f64)>,
    matched: Matched,
    mode: Mode,
    cfg: &SearchConfig,
    p: &SearchParams,
    concepts: &Concepts,
) -> SearchOutcome {
    let now = chrono::Utc::now();
    let mut hits: Vec<Hit> = scored
        .into_iter()
        .map(|(mut hit, base)| {
            let source_weight = if hit.source == "transcript" {
                1.0
            } else {
                cfg.structured_weight
            };
            let recency = match (&hit.date, cfg.recency_half_life_days) {
                (Some(d), half) if half > 0.0 => chrono::DateTime::parse_from_rfc3339(d)
                    .map(|t| {
                        let days =
                            (now - t.with_timezone(&chrono::Utc)).num_seconds() as f64 / 86_400.0;
                        0.5f64.powf(days.max(0.0) / half)
                    })
                    .unwrap_or(1.0),
                _ => 1.0,
            };
            hit.score = base * source_weight * recency;
            hit.group = match p.group {
                Group::Session => hit.session_key(),
                Group::File | Group::None => hit.uri.clone(),
            };
            hit
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.chunk_id.cmp(&b.chunk_id))
    });
    if p.per_file > 0 {
        let mut seen: HashMap<String, usize> = HashMap::new();
        hits.retain(|h| {
            let n = seen.entry(h.uri.clone()).or_default();
            *n += 1;
            *n <= p.per_file
        });
    }
    let rest = hits.split_off(p.limit.max(1).min(hits.len()));
    let mut more: HashMap<&str, usize> = HashMap::new();
    for h in &rest {
        *more.entry(h.group.as_str()).or_default() += 1;
    }
    // groups in the order of their best hit; within a group, by score
    let mut order: Vec<String> = Vec::new();
    let mut members: HashMap<String, Vec<Hit>> = HashMap::new();
    for (i, h) in hits.into_iter().enumerate() {
        let key = if p.group == Group::None {
            format!("{i}")
        } else {
            h.group.clone()
        };
        if !members.contains_key(&key) {
            order.push(key.clone());
        }
        members.entry(key).or_default().push(h);
    }
    let highlight = highlight_terms(concepts);
    let mut out_hits = Vec::new();
    let mut groups = Vec::new();
    for key in order {
        let mut g = members.remove(&key).unwrap_or_default();
        let group_key = g[0].group.clone();
        groups.push(HitGroup {
            hits: g.len(),
            more: if p.group == Group::None {
                0
            } else {
                more.get(group_key.as_str()).copied().unwrap_or(0)
            },
            key: group_key,
        });
        for h in &mut g {
            h.score = (h.score * 1000.0).round() / 1000.0;
            h.snippet = snippet(&h.snippet, &highlight, 240);
        }
        out_hits.extend(g);
    }
    SearchOutcome {
        hits: out_hits,
        group: p.group,
        groups,
        matched,
        mode,
        mode_reason: None,
    }
}

/// The words of the query to look for when cutting a snippet.
fn highlight_terms(concepts: &Concepts) -> Vec<String> {
    concepts.highlights()
}

/// About `width` characters of `text` around the first query term, on one line.
pub fn snippet(text: &str, terms: &[String], width: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = flat.to_lowercase();
    let pos = terms
        .iter()
        .filter_map(|t| lower.find(t.as_str()))
        .min()
        .unwrap_or(0);
    // `lower` and `flat` can differ in byte length for a few characters;
    // map the position through character counts.
    let char_pos = lower[..pos.min(lower.len())].chars().count();
    let start = char_pos.saturating_sub(width / 3);
    let chars: Vec<char> = flat.chars().collect();
    let end = (start + width).min(chars.len());
    let mut s: String = chars[start..end].iter().collect();
    if start > 0 {
        s.insert(0, '…');
    }
    if end < chars.len() {
        s.push('…');
    }
    s
}

/// True when the query has CJK text (for callers that report the fallback).
pub fn has_cjk(query: &str) -> bool {
    query.chars().any(is_cjk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_centres_on_the_term() {
        let text = format!("{} needle here {}", "a ".repeat(200), "b ".repeat(200));
        let s = snippet(&text, &["needle".into()], 60);
        assert!(s.contains("needle"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'));
    }

    #[test]
    fn snippet_handles_cjk() {
        let s = snippet(
            "前面很多字。我们讨论了数据库设计的问题。",
            &["数据".into()],
            10,
        );
        assert!(s.contains("数据"), "{s}");
    }
}

//! The second hop: questions in two parts, whose answer is in two places.
//!
//! "Which team took ownership of the part of the system the security audit
//! flagged?" is answered by two turns, often in two conversations: "The
//! security audit flagged the leaderboard" and "The data team is taking
//! over the leaderboard". The first shares the question's words; the
//! second shares only "team" with it, and the word that links them
//! ("leaderboard", the bridge) is in neither the question nor any turn the
//! first search ranks high.
//!
//! So, for each of the best hits that holds only part of the question, a
//! second search: the concepts that hit lacks AND the hit's rarest words (in
//! the same project, for a conversation turn), each candidate scored by how
//! much of the missing part it holds times how much of the bridge. The best
//! one is ranked right after the hit it came from, so the answer holds each
//! part of the question, and its conversation is shown as a group of its
//! own. Measured on the long-memory set (`cargo bench --bench memory`), see
//! docs/architecture.md, Search.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, params_from_iter, types::Value as SqlValue};

use super::query::{Concepts, Synonyms};
use super::{HIT_COLUMNS, Hit, SearchParams};

/// How the second hop runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hop {
    /// The best hits a second hop starts from (0: no second hop).
    pub from_top: usize,
    /// Words of a hit taken as its bridge: its rarest, that the question
    /// does not hold.
    pub bridge_words: usize,
}

/// No second hop.
pub const OFF: Hop = Hop {
    from_top: 0,
    bridge_words: 0,
};

/// The second hop hybrid search runs: from the best two hits, eight bridge
/// words each. Chosen on the tuning half with all-MiniLM-L6-v2 (multi-hop
/// Recall@10 0.646 → 0.708; from the best three 0.729 there and the same
/// held-out figures, for one more FTS query a search); 4 to 16 bridge words
/// gave the same figures, 2 fewer.
pub const SECOND_HOP: Hop = Hop {
    from_top: 2,
    bridge_words: 8,
};

/// Chunks holding a bridge word counted, at most, to rank the words (the
/// rarest are what link two turns; a word in more than this is no link).
/// The indexer lists every word in more than this in `frequent_terms`.
const DF_CAP: i64 = crate::memory::index::indexer::COMMON_MIN_DOCS;

/// Words of a hit whose chunk counts are looked up, at most.
const BRIDGE_LOOKUPS: usize = 16;

/// Candidates of one second-hop search.
const HOP_POOL: i64 = 50;

/// Adds, after each of the best `hop.from_top` hits that hold only part of
/// the question, the chunk that best holds the rest of it together with
/// that hit's bridge words. `scored` is the ranking before the last step
/// (`rank::finish`), its hits' `snippet` still the whole chunk text.
pub(crate) fn second_hop(
    conn: &Connection,
    params: &SearchParams,
    q: &Concepts,
    scored: &mut Vec<(Hit, f64)>,
    hop: &Hop,
) -> rusqlite::Result<()> {
    if hop.from_top == 0 || q.concepts.len() < 2 {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by(|a, b| {
        scored[*b]
            .1
            .total_cmp(&scored[*a].1)
            .then(scored[*a].0.chunk_id.cmp(&scored[*b].0.chunk_id))
    });
    let starts: Vec<(Hit, f64)> = order
        .iter()
        .take(hop.from_top)
        .map(|i| scored[*i].clone())
        .collect();
    let mut placed: HashMap<i64, f64> = HashMap::new();
    for (hit, score) in starts {
        // a note is one document: what it lacks is not in another note
        if hit.source != "transcript" {
            continue;
        }
        let text = full_text(&hit);
        let present = q.present(&text);
        let missing: Vec<usize> = (0..q.concepts.len()).filter(|i| !present[*i]).collect();
        if missing.is_empty() || missing.len() == q.concepts.len() {
            continue;
        }
        let Some(found) = best_link(conn, params, q, &missing, &hit, &text, hop)? else {
            continue;
        };
        // right after the hit it came from, unless already above that
        let after = score * 0.999;
        let entry = placed.entry(found.chunk_id).or_insert(0.0);
        *entry = entry.max(after);
        if !scored.iter().any(|(h, _)| h.chunk_id == found.chunk_id) {
            scored.push((found, 0.0));
        }
    }
    for (h, s) in scored.iter_mut() {
        if let Some(p) = placed.get(&h.chunk_id) {
            *s = s.max(*p);
        }
    }
    Ok(())
}

fn full_text(h: &Hit) -> String {
    match h.heading.as_deref().filter(|x| !x.is_empty()) {
        Some(head) => format!("{head}\n{}", h.snippet),
        None => h.snippet.clone(),
    }
}

/// The chunk that best holds the `missing` concepts together with `from`'s
/// bridge words, if any holds some of each.
fn best_link(
    conn: &Connection,
    params: &SearchParams,
    q: &Concepts,
    missing: &[usize],
    from: &Hit,
    text: &str,
    hop: &Hop,
) -> rusqlite::Result<Option<Hit>> {
    // `from` is a conversation turn (`second_hop` starts from no note)
    // the hit's own words, less the question's and the common ones
    let words = Concepts::parse(text, &Synonyms::default());
    let mut seen = HashSet::new();
    let mut candidates: Vec<usize> = Vec::new();
    for (i, c) in words.concepts.iter().enumerate() {
        let shown = c.shown.to_lowercase();
        if shown.chars().count() < 3
            || shown.chars().all(|ch| ch.is_ascii_digit())
            || q.present(&shown).iter().any(|p| *p)
            || !seen.insert(shown)
        {
            continue;
        }
        candidates.push(i);
    }
    // Each candidate costs a count query, and a long turn holds a hundred
    // words: the longest BRIDGE_LOOKUPS are looked up (long words are the
    // rarer ones; the set's figures were the same with every word).
    candidates.sort_by_key(|i| {
        (
            std::cmp::Reverse(words.concepts[*i].shown.chars().count()),
            *i,
        )
    });
    candidates.truncate(BRIDGE_LOOKUPS);
    // How many chunks hold each word, counted up to DF_CAP: a count query
    // per word that stops at the cap. FTS5's vocabulary gives exact counts
    // in one lookup, but reads a common word's whole doclist to count it:
    // over 1.1M chunks hybrid search took p50 449 ms with it, 160 ms
    // without the hop (`cargo bench --bench vector_file`, machine loaded).
    // A word the index lists as common (in more than DF_CAP chunks) links
    // nothing: left out without a count (most of a turn's long words, on
    // the 1.1M-chunk bench index: 0.25 ms each).
    // a concept whose first form is one word: that word
    let sole = |i: usize| match words.concepts[i].forms.first() {
        Some(f) if f.len() == 1 => Some(&f[0]),
        _ => None,
    };
    let first_forms: Vec<&String> = candidates.iter().filter_map(|&i| sole(i)).collect();
    let common: HashSet<String> = super::keyword::rows_for_terms(
        conn,
        "SELECT term FROM frequent_terms",
        &first_forms,
        |r| r.get(0),
    )
    .unwrap_or_default();
    let mut bridge: Vec<(usize, i64)> = Vec::new();
    for i in candidates {
        if sole(i).is_some_and(|w| common.contains(w)) {
            continue;
        }
        let Some(expr) = words.or_expr(&[i]) else {
            continue;
        };
        let n: i64 = conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM transcript_fts WHERE transcript_fts MATCH ?1 LIMIT ?2)",
            )?
            .query_row(rusqlite::params![expr, DF_CAP], |r| r.get(0))?;
        // in the hit alone it links nothing; in too many, everything
        if (2..DF_CAP).contains(&n) {
            bridge.push((i, n));
        }
    }
    bridge.sort_by_key(|(i, df)| (*df, *i));
    bridge.truncate(hop.bridge_words);
    if bridge.is_empty() {
        return Ok(None);
    }
    let bridge_idx: Vec<usize> = bridge.iter().map(|(i, _)| *i).collect();
    let (Some(need), Some(link)) = (q.or_expr(missing), words.or_expr(&bridge_idx)) else {
        return Ok(None);
    };
    let expr = format!("({need}) AND ({link})");
    let mut args: Vec<SqlValue> = vec![SqlValue::Text(expr)];
    let mut filters = super::keyword::filter_clause(params, &mut args);
    if !from.project.is_empty() {
        args.push(SqlValue::Text(from.project.clone()));
        filters.push_str(&format!(" AND f.project = ?{}", args.len()));
    }
    args.push(SqlValue::Integer(HOP_POOL));
    let sql = format!(
        "SELECT {HIT_COLUMNS}
         FROM transcript_fts JOIN chunks c ON c.id = transcript_fts.rowid JOIN files f ON f.id = c.file_id
         WHERE transcript_fts MATCH ?1{filters} ORDER BY bm25(transcript_fts) LIMIT ?{}",
        args.len()
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let cands: Vec<Hit> = stmt
        .query_map(params_from_iter(args), Hit::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    // rarer bridge words weigh more
    let weight: Vec<f64> = bridge
        .iter()
        .map(|(_, df)| 1.0 / (1.0 + *df as f64).ln())
        .collect();
    let total: f64 = weight.iter().sum();
    let mut best: Option<(f64, Hit)> = None;
    for c in cands {
        if c.chunk_id == from.chunk_id {
            continue;
        }
        let t = full_text(&c);
        let has = q.present(&t);
        let need = missing.iter().filter(|i| has[**i]).count() as f64 / missing.len() as f64;
        let has_bridge = words.present(&t);
        let link: f64 = bridge
            .iter()
            .zip(&weight)
            .filter(|((i, _), _)| has_bridge[*i])
            .map(|(_, w)| w)
            .sum::<f64>()
            / total;
        let s = need * link;
        if s > 0.0 && best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, c));
        }
    }
    Ok(best.map(|(_, h)| h))
}

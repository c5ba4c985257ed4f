//! Keyword search: the query's concepts looked up in FTS5 and the
//! candidates re-scored (see the module docs of [`super`] for the ranking).

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, params_from_iter, types::Value as SqlValue};

use super::query::{Concepts, Synonyms};
use super::rank::finish;
use super::{HIT_COLUMN_COUNT, HIT_COLUMNS, Hit, Matched, Mode, SearchOutcome, SearchParams};
use crate::memory::index::indexer::Source;
use crate::platform::workspace::config::SearchConfig;

const UNIGRAM_WEIGHT: f64 = 0.5;

/// Weights of the re-scoring (tuned on the tuning half of the long-memory
/// set; `cargo bench --bench memory` prints both halves).
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Share of a chunk's score that is its concept coverage (the rest is
    /// its normalised BM25).
    pub coverage: f64,
    /// Raise by the share of concepts the chunk's file holds together.
    pub file: f64,
    /// Raise by the share of concepts the chunk's project holds together
    /// (its transcript folder's name counts as its title).
    pub project: f64,
    /// Candidates ranked per table.
    pub pool: usize,
    /// Weight in the coverage of a concept whose word is in
    /// `frequent_terms` (any other concept weighs 1).
    pub frequent: f64,
}

/// Measured on the tuning half (conversations, keyword search): coverage
/// 0.0 → 0.8 took Recall@10 from 0.57 to 0.72; file 0 → 1.0 and project
/// 0 → 1.5 took right-conversation-first from 0.64 to 0.89. A separate
/// weight for knowledge headings changed nothing on the notes, and one for
/// the speaker of a chat turn ("Maya: ...") cost 0.02 of Recall@10 and
/// right-conversation-first, so neither is kept: a heading counts as part of
/// its chunk, a speaker's name as a word of the turn. A pool of 300 instead
/// of 150 changed nothing but time.
pub const TUNING: Tuning = Tuning {
    coverage: 0.8,
    file: 1.0,
    project: 1.5,
    pool: 150,
    frequent: 0.3,
};

pub fn search(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
) -> rusqlite::Result<SearchOutcome> {
    search_tuned(conn, cfg, params, &TUNING, &super::hop::OFF)
}

/// [`search`] with other weights and a second hop ([`super::hop`]), for
/// the benchmarks: keyword search itself has no hop, so that its figures
/// stay those measured when no model is installed.
pub fn search_tuned(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
    tuning: &Tuning,
    hop: &super::hop::Hop,
) -> rusqlite::Result<SearchOutcome> {
    let mut k = keyword_scored(conn, cfg, params, tuning)?;
    super::hop::second_hop(conn, params, &k.concepts, &mut k.scored, hop)?;
    Ok(finish(
        k.scored,
        k.matched,
        Mode::Keyword,
        cfg,
        params,
        &k.concepts,
    ))
}

/// The synonyms in force for `cfg`.
pub fn synonyms(cfg: &SearchConfig) -> Synonyms {
    Synonyms::new(cfg.synonyms.iter().map(|(k, v)| (k.as_str(), v.as_slice())))
}

/// Keyword candidates, each scored 0..1 (the best is 1), with how much of
/// the query the best holds.
pub(crate) struct KeywordScored {
    pub scored: Vec<(Hit, f64)>,
    pub matched: Matched,
    pub concepts: Concepts,
}

pub(crate) fn keyword_scored(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
    tuning: &Tuning,
) -> rusqlite::Result<KeywordScored> {
    let q = Concepts::parse(&params.query, &synonyms(cfg));
    let nothing = |q: Concepts| KeywordScored {
        scored: Vec::new(),
        matched: Matched::Nothing,
        concepts: q,
    };
    if q.is_empty() {
        return Ok(nothing(q));
    }
    let frequent_terms = frequent_terms(conn, &q);
    let all: Vec<usize> = (0..q.concepts.len()).collect();
    let pool = tuning.pool.max(params.limit * 4);
    let transcripts = params.sources.is_empty() || params.sources.contains(&Source::Transcript);
    let (groups, rare_but_absent) = concept_groups(conn, &q, &frequent_terms, transcripts);
    let table = if transcripts {
        "transcript_fts"
    } else {
        "knowledge_fts"
    };
    let mut counts = Vec::new();
    for g in &groups {
        counts.push(match g {
            Some(g) => conn
                .prepare_cached(&format!(
                    "SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ?1 LIMIT ?2)"
                ))?
                .query_row(rusqlite::params![format!("{{body}} : {g}"), DF_CAP], |r| {
                    r.get(0)
                })?,
            None => 0i64,
        });
    }
    let mut raw = Vec::new();
    if wants_structured(params) {
        // the structured table is small: every form of every concept
        let expr = q.or_expr(&all);
        raw.extend(run_fts(
            conn,
            params,
            Table::Knowledge,
            expr.as_deref(),
            "1.0, 0.0, 0.0",
            pool,
            Order::Bm25,
        )?);
    }
    if transcripts && !rare_but_absent {
        raw.extend(transcript_candidates(
            conn, params, &q, &groups, &counts, pool,
        )?);
    }
    if !raw.is_empty() {
        let idf = concept_idf(conn, &q, &counts, &frequent_terms)?;
        let (scored, best_coverage) = rescore(raw, &q, &idf, tuning);
        let matched = if best_coverage >= 0.999 {
            Matched::AllTerms
        } else if best_coverage * q.concepts.len() as f64 >= 1.999 {
            Matched::MostTerms
        } else {
            Matched::AnyTerm
        };
        return Ok(KeywordScored {
            scored,
            matched,
            concepts: q,
        });
    }
    // Single CJK characters are common by nature: among conversations the
    // last-resort round ranks only the newest matches, as a broad query does.
    let uni = q.unigram_expr();
    if uni.is_some() {
        let mut raw = Vec::new();
        if wants_structured(params) {
            raw.extend(run_fts(
                conn,
                params,
                Table::Knowledge,
                uni.as_deref(),
                "0.0, 1.0, 0.0",
                pool,
                Order::Bm25,
            )?);
        }
        if params.sources.is_empty() || params.sources.contains(&Source::Transcript) {
            raw.extend(run_fts(
                conn,
                params,
                Table::Transcript,
                uni.as_deref(),
                "0.0, 1.0",
                pool,
                Order::Bm25Newest,
            )?);
        }
        if !raw.is_empty() {
            let scored = normalised_bm25(raw, UNIGRAM_WEIGHT);
            return Ok(KeywordScored {
                scored,
                matched: Matched::SingleCharacter,
                concepts: q,
            });
        }
    }
    Ok(nothing(q))
}

/// Up to this many matches are counted for a concept's document frequency
/// (walking rowids without scoring: about 0.1 ms per thousand).
const DF_CAP: i64 = OR_RANKED_MAX as i64;

/// Each concept's inverse document frequency, `ln(1 + (N - df + 0.5) / (df
/// + 0.5))`, over the table that holds most of the index: df as counted (up
/// to [`DF_CAP`]) or taken from `frequent_terms`, N the highest chunk id.
fn concept_idf(
    conn: &Connection,
    q: &Concepts,
    counts: &[i64],
    frequent_terms: &HashMap<String, i64>,
) -> rusqlite::Result<Vec<(f64, bool)>> {
    let n: i64 = conn.query_row("SELECT COALESCE(MAX(id), 0) FROM chunks", [], |r| r.get(0))?;
    let mut out = Vec::new();
    for (c, counted) in q.concepts.iter().zip(counts) {
        let frequent = c.forms[0].iter().all(|t| frequent_terms.contains_key(t));
        let df = if frequent {
            frequent_terms.get(&c.forms[0][0]).copied().unwrap_or(n)
        } else {
            // too rare to have been seen in that table: as rare as can be
            (*counted).max(1)
        };
        let (n, df) = (n.max(df) as f64, df as f64);
        out.push(((1.0 + (n - df + 0.5) / (df + 0.5)).ln(), frequent));
    }
    Ok(out)
}

/// The re-scoring of keyword candidates (see the module docs); returns the
/// scores (best 1.0) and the best chunk's coverage.
fn rescore(raw: Vec<Raw>, q: &Concepts, idf: &[(f64, bool)], t: &Tuning) -> (Vec<(Hit, f64)>, f64) {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    // Coverage counts concepts alike, very common ones less: weighting it by
    // IDF as well cost 0.08 of Recall@10 on the tuning half (names and rare
    // words took over from what the question is about).
    let weights: Vec<f64> = idf
        .iter()
        .map(|(_, frequent)| if *frequent { t.frequent } else { 1.0 })
        .collect();
    let idf: Vec<f64> = idf.iter().map(|(w, _)| *w).collect();
    let idf = idf.as_slice();
    let total: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let share = |present: &[bool]| -> f64 {
        present
            .iter()
            .zip(&weights)
            .filter(|(p, _)| **p)
            .map(|(_, w)| w)
            .sum::<f64>()
            / total
    };
    struct Cand {
        hit: Hit,
        counts: Vec<u32>,
        len: usize,
        present: Vec<bool>,
        coverage: f64,
    }
    let mut cands: Vec<Cand> = raw
        .into_iter()
        .map(|r| {
            // a knowledge heading counts as part of its chunk
            let text = match r.hit.heading.as_deref().filter(|h| !h.is_empty()) {
                Some(h) => format!("{h}\n{}", r.hit.snippet),
                None => r.hit.snippet.clone(),
            };
            let (counts, len) = q.counts(&text);
            let present: Vec<bool> = counts.iter().map(|n| *n > 0).collect();
            Cand {
                coverage: share(&present),
                present,
                counts,
                len,
                hit: r.hit,
            }
        })
        .collect();
    // BM25 over the candidates, with the index's document frequencies: the
    // same scale for every candidate, whichever step found it.
    let avg_len =
        (cands.iter().map(|c| c.len).sum::<usize>() as f64 / cands.len().max(1) as f64).max(1.0);
    let bm25: Vec<f64> = cands
        .iter()
        .map(|c| {
            c.counts
                .iter()
                .zip(idf)
                .map(|(tf, idf)| {
                    let tf = f64::from(*tf);
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * c.len as f64 / avg_len))
                })
                .sum()
        })
        .collect();
    let best_bm25 = bm25.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
    let base: Vec<f64> = cands
        .iter()
        .zip(&bm25)
        .map(|(c, b)| (1.0 - t.coverage) * b / best_bm25 + t.coverage * c.coverage)
        .collect();
    for (c, b) in cands.iter_mut().zip(base) {
        c.hit.score = b;
    }
    // What a file, and a project, hold together.
    let mut by_file: HashMap<String, Vec<bool>> = HashMap::new();
    let mut by_project: HashMap<String, Vec<bool>> = HashMap::new();
    for c in &cands {
        for (map, key) in [
            (&mut by_file, c.hit.session_key()),
            (&mut by_project, project_key(&c.hit)),
        ] {
            let acc = map.entry(key).or_insert_with(|| vec![false; idf.len()]);
            for (a, p) in acc.iter_mut().zip(&c.present) {
                *a |= *p;
            }
        }
    }
    // the transcript folder's name is the project's title
    for (key, acc) in by_project.iter_mut() {
        for (a, p) in acc.iter_mut().zip(q.present(&key.replace('-', " "))) {
            *a |= p;
        }
    }
    let best_coverage = cands.iter().map(|c| c.coverage).fold(0.0, f64::max);
    let mut scored: Vec<(Hit, f64)> = cands
        .into_iter()
        .map(|c| {
            let file = share(&by_file[&c.hit.session_key()]);
            let project = share(&by_project[&project_key(&c.hit)]);
            let s = c.hit.score * (1.0 + t.file * file + t.project * project);
            (c.hit, s)
        })
        .collect();
    let best = scored
        .iter()
        .map(|(_, s)| *s)
        .fold(f64::MIN_POSITIVE, f64::max);
    for (_, s) in &mut scored {
        *s /= best;
    }
    (scored, best_coverage)
}

/// The project a hit belongs to: a conversation's transcript folder; a
/// knowledge file is a project of its own (a domain folder holds unrelated
/// notes, and pooling them lifted a folder's files over the right one).
fn project_key(h: &Hit) -> String {
    if h.source == "transcript" && !h.project.is_empty() {
        return h.project.clone();
    }
    h.session_key()
}

/// Most matches of a broad transcript query ranked by BM25: the newest ones
/// (chunk ids follow time, as the indexer adds files oldest first).
const BROAD_MAX_RANKED: i64 = 2_000;

/// The query's index terms that are in `frequent_terms` (in more than
/// 2% of the transcript chunks of a large index), with how many chunks hold
/// each.
fn frequent_terms(conn: &Connection, q: &Concepts) -> HashMap<String, i64> {
    let all: Vec<&String> = q
        .concepts
        .iter()
        .flat_map(|c| c.forms.iter().flatten())
        .collect();
    // The table lists every common term; frequent is above the threshold
    // the indexer kept (an index written before it was kept: all of them).
    // One statement reads both, so an index run between them cannot pair a
    // new table with an old threshold.
    let select = format!(
        "SELECT term, docs, COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '{}'), 0) FROM frequent_terms",
        crate::memory::index::indexer::FREQUENT_THRESHOLD
    );
    rows_for_terms(conn, &select, &all, |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })
    .map(|rows: Vec<(String, i64, i64)>| {
        rows.into_iter()
            .filter(|(_, n, threshold)| n > threshold)
            .map(|(t, n, _)| (t, n))
            .collect()
    })
    .unwrap_or_default()
}

/// The rows of `select` (a query on a table with a `term` column) for
/// `terms`; `None` when they cannot be read.
pub(crate) fn rows_for_terms<T, C: FromIterator<T>>(
    conn: &Connection,
    select: &str,
    terms: &[&String],
    row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
) -> Option<C> {
    if terms.is_empty() {
        return Some(std::iter::empty().collect());
    }
    let placeholders = vec!["?"; terms.len()].join(",");
    let sql = format!("{select} WHERE term IN ({placeholders})");
    let mut st = conn.prepare_cached(&sql).ok()?;
    st.query_map(params_from_iter(terms.iter()), row)
        .ok()?
        .collect::<rusqlite::Result<C>>()
        .ok()
}

/// Each concept as an FTS5 group of its forms that can select a chunk
/// (`None` when no form can), and whether the query's rare words are all
/// missing from the transcripts (then it matches none of them; it is not a
/// query of only common words).
///
/// Most query-time inflections are words nobody wrote ("dockerring"), and
/// FTS5 looks each one up in every round that names it. Leaving out the
/// forms the transcript index does not hold (one vocabulary lookup) took the
/// 67 benchmark queries over 1.1M chunks from p50 5.95 / p95 12.8 ms to 2.6 /
/// 6.9 ms with the same hits (`cargo bench --bench index`). Only ASCII words
/// are looked up, since for them the query's lower-casing is the tokenizer's
/// folding ("Müller" is stored as "muller"); every generated inflection is
/// one. Without the vocabulary (an error), nothing is left out. Forms made
/// only of very common terms are left out too.
fn concept_groups(
    conn: &Connection,
    q: &Concepts,
    frequent_terms: &HashMap<String, i64>,
    transcripts: bool,
) -> (Vec<Option<String>>, bool) {
    let is_frequent = |form: &[String]| form.iter().all(|t| frequent_terms.contains_key(t));
    let indexed = transcripts
        .then(|| indexed_terms(conn, q, frequent_terms))
        .flatten();
    let not_indexed = |form: &[String]| {
        indexed.as_ref().is_some_and(|have| {
            form.iter()
                .any(|t| is_plain_ascii(t) && !frequent_terms.contains_key(t) && !have.contains(t))
        })
    };
    let leave_out = |form: &[String]| is_frequent(form) || not_indexed(form);
    let groups: Vec<Option<String>> = (0..q.concepts.len())
        .map(|i| q.groups(&[i], leave_out).pop())
        .collect();
    let rare_but_absent = groups.iter().all(Option::is_none)
        && q.concepts
            .iter()
            .any(|c| c.forms.iter().any(|f| !is_frequent(f)));
    (groups, rare_but_absent)
}

/// A term the index's tokenizer stores exactly as the query spells it.
fn is_plain_ascii(term: &str) -> bool {
    term.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// Which of the query's terms (its forms' plain ASCII words that are not
/// very common) the transcript index holds, from FTS5's vocabulary; `None`
/// if it cannot be read.
fn indexed_terms(
    conn: &Connection,
    q: &Concepts,
    frequent: &HashMap<String, i64>,
) -> Option<HashSet<String>> {
    let terms: Vec<&String> = q
        .concepts
        .iter()
        .flat_map(|c| c.forms.iter().flatten())
        .filter(|t| is_plain_ascii(t) && !frequent.contains_key(*t))
        .collect();
    rows_for_terms(conn, "SELECT term FROM transcript_vocab", &terms, |r| {
        r.get(0)
    })
}

/// The any-concept step among transcripts ranks at most this many matches:
/// FTS5 scores every matching row (about 1.5 µs each on the 1.1M-chunk
/// benchmark index), so it takes the rarest concepts whose matches add up
/// to no more; a concept with more matches only counts in the re-scoring.
const OR_RANKED_MAX: usize = 3_000;

/// Transcript candidates, cheapest first: chunks holding every concept
/// (AND, an intersection), then at least two of them (the OR of every
/// pair), then any of them; each step only while the pool is not full.
/// Forms made only of very common terms never select a chunk; a query made
/// only of such terms ranks the newest 2,000 matches.
fn transcript_candidates(
    conn: &Connection,
    p: &SearchParams,
    q: &Concepts,
    concept_groups: &[Option<String>],
    counts: &[i64],
    pool: usize,
) -> rusqlite::Result<Vec<Raw>> {
    let all: Vec<usize> = (0..q.concepts.len()).collect();
    let groups: Vec<&String> = concept_groups.iter().flatten().collect();
    let body = |e: String| format!("{{body}} : ({e})");
    if groups.is_empty() {
        // only very common words: rank the newest matches
        return run_fts(
            conn,
            p,
            Table::Transcript,
            q.or_expr(&all).as_deref(),
            "1.0, 0.0",
            pool,
            Order::Bm25Newest,
        );
    }
    let mut out: Vec<Raw> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    let mut take = |rows: Vec<Raw>, out: &mut Vec<Raw>| {
        for r in rows {
            if seen.insert(r.hit.chunk_id) {
                out.push(r);
            }
        }
    };
    let joined =
        |gs: &[&String], op: &str| gs.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(op);
    take(
        run_fts(
            conn,
            p,
            Table::Transcript,
            Some(&body(joined(&groups, " AND "))),
            "1.0, 0.0",
            pool,
            Order::Bm25,
        )?,
        &mut out,
    );
    if out.len() < pool && groups.len() >= 3 {
        let g: Vec<&String> = groups.iter().take(8).copied().collect();
        let mut pairs = Vec::new();
        for i in 0..g.len() {
            for j in i + 1..g.len() {
                pairs.push(format!("({} AND {})", g[i], g[j]));
            }
        }
        let e = body(pairs.join(" OR "));
        take(
            run_fts(
                conn,
                p,
                Table::Transcript,
                Some(&e),
                "1.0, 0.0",
                pool,
                Order::Bm25,
            )?,
            &mut out,
        );
    }
    if groups.len() >= 2 {
        // Any of the concepts, rarest first, as many as keep the union small
        // enough to rank; the commoner ones still count in the re-scoring.
        // Always, even with a full pool: a rare word alone (a name, a
        // project's term) is what ties a turn to its conversation.
        // A concept counted up to the cap has more matches than can be
        // ranked cheaply: it only counts in the re-scoring.
        let mut counted: Vec<(i64, &String)> = concept_groups
            .iter()
            .zip(counts)
            .filter_map(|(g, n)| g.as_ref().map(|g| (*n, g)))
            .filter(|(n, _)| *n > 0 && *n < DF_CAP)
            .collect();
        counted.sort();
        let mut total = 0;
        let mut chosen: Vec<&String> = Vec::new();
        for (n, g) in counted {
            if total + n as usize > OR_RANKED_MAX {
                break;
            }
            total += n as usize;
            chosen.push(g);
        }
        if !chosen.is_empty() {
            take(
                run_fts(
                    conn,
                    p,
                    Table::Transcript,
                    Some(&body(joined(&chosen, " OR "))),
                    "1.0, 0.0",
                    pool,
                    Order::Bm25,
                )?,
                &mut out,
            );
        }
    }
    Ok(out)
}

fn wants_structured(p: &SearchParams) -> bool {
    p.sources.is_empty()
        || p.sources
            .iter()
            .any(|s| matches!(s, Source::Knowledge | Source::Summary | Source::Memory))
}

/// A candidate before ranking: the hit plus its BM25 as a share of the best
/// of the query that found it.
struct Raw {
    hit: Hit,
    bm25: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// Knowledge, summaries and auto-memory (`knowledge_fts`).
    Knowledge,
    Transcript,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// The best BM25 first.
    Bm25,
    /// BM25 among the newest 2,000 matches (walking rowids needs no scoring).
    Bm25Newest,
}

fn run_fts(
    conn: &Connection,
    p: &SearchParams,
    table: Table,
    fts_expr: Option<&str>,
    bm25_weights: &str,
    pool: usize,
    order: Order,
) -> rusqlite::Result<Vec<Raw>> {
    let Some(fts_expr) = fts_expr else {
        return Ok(Vec::new());
    };
    let name = match table {
        Table::Knowledge => "knowledge_fts",
        Table::Transcript => "transcript_fts",
    };
    let mut expr = fts_expr.to_string();
    if table == Table::Knowledge && !p.sources.is_empty() {
        const STRUCTURED: [Source; 3] = [Source::Knowledge, Source::Summary, Source::Memory];
        let srcs: Vec<String> = STRUCTURED
            .into_iter()
            .filter(|s| p.sources.contains(s))
            .map(|s| format!("\"{}\"", s.as_str()))
            .collect();
        expr = format!("({expr}) AND {{src}} : ({})", srcs.join(" OR "));
    }
    let mut filters = String::new();
    let mut args: Vec<SqlValue> = vec![SqlValue::Text(expr.clone())];
    if order == Order::Bm25Newest {
        // Rank only the newest matches: walking rowids needs no scoring.
        let floor: Option<i64> = conn
            .prepare_cached(&format!(
                "SELECT rowid FROM {name} WHERE {name} MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2"
            ))?
            .query_row(rusqlite::params![expr, BROAD_MAX_RANKED - 1], |r| r.get(0))
            .ok();
        if let Some(floor) = floor {
            args.push(SqlValue::Integer(floor));
            filters.push_str(&format!(" AND {name}.rowid >= ?{}", args.len()));
        }
    }
    filters.push_str(&filter_clause(p, &mut args));
    args.push(SqlValue::Integer(pool as i64));
    let limit_arg = args.len();
    let score = format!("bm25({name}, {bm25_weights})");
    // Without filters, let FTS5 pick the best rows before the joins.
    let sql = if filters.is_empty() {
        format!(
            "SELECT {HIT_COLUMNS}, m.r
             FROM (SELECT rowid AS id, {score} AS r FROM {name}
                   WHERE {name} MATCH ?1 ORDER BY r LIMIT ?{limit_arg}) m
             JOIN chunks c ON c.id = m.id JOIN files f ON f.id = c.file_id"
        )
    } else {
        format!(
            "SELECT {HIT_COLUMNS}, {score} AS r
             FROM {name} JOIN chunks c ON c.id = {name}.rowid JOIN files f ON f.id = c.file_id
             WHERE {name} MATCH ?1{filters} ORDER BY r LIMIT ?{limit_arg}"
        )
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok(Raw {
            bm25: -r.get::<_, f64>(HIT_COLUMN_COUNT)?,
            hit: Hit::from_row(r)?,
        })
    })?;
    let mut raw: Vec<Raw> = rows.collect::<rusqlite::Result<_>>()?;
    // each query's BM25 as a share of its best
    let best = raw.iter().map(|r| r.bm25).fold(0.0, f64::max);
    for r in &mut raw {
        r.bm25 = if best > 0.0 { r.bm25 / best } else { 0.0 };
    }
    Ok(raw)
}

/// The `AND ...` conditions (on `c` = chunks, `f` = files) for the project,
/// date and file filters, their values appended to `args`.
pub(crate) fn filter_clause(p: &SearchParams, args: &mut Vec<SqlValue>) -> String {
    let mut filters = String::new();
    if let Some(project) = &p.project {
        args.push(SqlValue::Text(project.clone()));
        filters.push_str(&format!(" AND f.project = ?{}", args.len()));
    }
    if let Some(since) = &p.since {
        args.push(SqlValue::Text(since.clone()));
        filters.push_str(&format!(" AND c.ts >= ?{}", args.len()));
    }
    if let Some(until) = &p.until {
        args.push(SqlValue::Text(until.clone()));
        filters.push_str(&format!(" AND c.ts < ?{}", args.len()));
    }
    if let Some(within) = &p.within {
        args.push(SqlValue::Text(within.clone()));
        filters.push_str(&format!(" AND f.uri = ?{}", args.len()));
    }
    filters
}

/// Keyword candidates scored 0..1: BM25 over the best BM25, times the round's weight.
fn normalised_bm25(raw: Vec<Raw>, round_weight: f64) -> Vec<(Hit, f64)> {
    raw.into_iter()
        .map(|r| (r.hit, r.bm25 * round_weight))
        .collect()
}

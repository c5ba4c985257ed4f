//! Searching the index: the query shared by `pms search`, the MCP tools and
//! the benchmarks.
//!
//! A query runs in up to four rounds: all terms (AND); if nothing matches, at
//! least two terms (the OR of every pair, for queries of three or more
//! terms); then any term (OR, leaving out of the transcript table the terms
//! that match more than 20,000 chunks there); and for Chinese, Japanese or
//! Korean text that still finds nothing, single characters at half weight. Scores are BM25, normalised per
//! query so the best hit is 1.0, then multiplied by the source weight
//! (structured memory above raw transcripts, `search.structured_weight`) and,
//! when configured, a recency factor. Structured sources and transcripts are
//! ranked in separate FTS5 queries so that the large transcript set can
//! never crowd the small knowledge set out of the candidate list. Results
//! are deduplicated per file (a conversation counts as one file).

pub mod fetch;
pub mod hybrid;
pub mod request;
pub mod timeline;

pub use request::{BadRequest, Request, parse_date};

use std::collections::HashMap;

use rusqlite::{Connection, params_from_iter, types::Value as SqlValue};
use serde::Serialize;

use crate::index::indexer::Source;
use crate::index::text::{Query, Term, is_cjk, terms};
use crate::workspace::config::SearchConfig;

#[derive(Debug, Clone, Default)]
pub struct SearchParams {
    pub query: String,
    pub limit: usize,
    /// Empty = every source.
    pub sources: Vec<Source>,
    /// Transcript project folder, or the domain folder of a knowledge file.
    pub project: Option<String>,
    /// Only hits at or after this date/time (`YYYY-MM-DD` or RFC 3339).
    pub since: Option<String>,
    pub until: Option<String>,
    /// Only hits inside this file or conversation (its URI).
    pub within: Option<String>,
    /// Keep several hits per file (for searching inside one file).
    pub per_file: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hit {
    /// Workspace-relative path, or `cc://<project folder>/<session>.jsonl`.
    pub uri: String,
    pub source: String,
    pub project: String,
    pub line_start: i64,
    pub line_end: i64,
    pub score: f64,
    pub date: Option<String>,
    pub role: Option<String>,
    pub heading: Option<String>,
    pub snippet: String,
    #[serde(skip)]
    pub chunk_id: i64,
}

/// The columns [`Hit::from_row`] reads, in its order (`c` = chunks, `f` = files).
pub(crate) const HIT_COLUMNS: &str =
    "c.id, f.uri, f.source, f.project, c.line_start, c.line_end, c.ts, c.role, c.heading, c.text";

impl Hit {
    /// A hit (score 0) from the first columns of a row selected with [`HIT_COLUMNS`].
    pub(crate) fn from_row(r: &rusqlite::Row) -> rusqlite::Result<Hit> {
        Ok(Hit {
            chunk_id: r.get(0)?,
            uri: r.get(1)?,
            source: r.get(2)?,
            project: r.get(3)?,
            line_start: r.get(4)?,
            line_end: r.get(5)?,
            date: r.get(6)?,
            role: r.get(7)?,
            heading: r.get(8)?,
            snippet: r.get(9)?,
            score: 0.0,
        })
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchOutcome {
    pub hits: Vec<Hit>,
    /// Which round found the hits.
    pub matched: Matched,
    pub mode: Mode,
    /// Why the search is keyword only although semantic recall exists (no
    /// provider, model not installed, index not embedded yet, provider error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_reason: Option<String>,
}

/// How the hits matched the query: the keyword round that found them, or
/// meaning alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Matched {
    AllTerms,
    /// At least two of the words.
    MostTerms,
    AnyTerm,
    SingleCharacter,
    /// No keyword round matched; the hits are the nearest vectors.
    Semantic,
    #[serde(rename = "none")]
    Nothing,
}

impl Matched {
    pub fn as_str(self) -> &'static str {
        match self {
            Matched::AllTerms => "all-terms",
            Matched::MostTerms => "most-terms",
            Matched::AnyTerm => "any-term",
            Matched::SingleCharacter => "single-character",
            Matched::Semantic => "semantic",
            Matched::Nothing => "none",
        }
    }
}

/// Whether vectors took part in the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Keyword,
    Hybrid,
}

impl SearchOutcome {
    /// What to tell a reader when the hits do not hold every word of the
    /// query (the CLI and the MCP tools say the same).
    pub fn fallback_note(&self) -> Option<&'static str> {
        match self.matched {
            Matched::MostTerms => Some("no hit has every word; these have at least two of them"),
            Matched::AnyTerm => Some("no hit has every word; these have some of them"),
            Matched::SingleCharacter => {
                Some("no hit has the words; these share single characters with the query")
            }
            Matched::Semantic => Some("no hit has the words; these are close in meaning"),
            Matched::AllTerms | Matched::Nothing => None,
        }
    }
}

const UNIGRAM_WEIGHT: f64 = 0.5;

pub fn search(
    conn: &Connection,
    cfg: &SearchConfig,
    params: &SearchParams,
) -> rusqlite::Result<SearchOutcome> {
    let (raw, matched, weight) = keyword_candidates(conn, params)?;
    let scored = normalised_bm25(raw, weight);
    Ok(SearchOutcome {
        hits: finish(scored, cfg, params),
        matched,
        mode: Mode::Keyword,
        mode_reason: None,
    })
}

/// The keyword candidates of the first round that matches anything, the
/// round's name and its weight.
fn keyword_candidates(
    conn: &Connection,
    params: &SearchParams,
) -> rusqlite::Result<(Vec<Raw>, Matched, f64)> {
    let q = Query::parse(&params.query);
    if q.is_empty() {
        return Ok((Vec::new(), Matched::Nothing, 1.0));
    }
    // In the transcript table, very common terms select nothing and cost the
    // most: match on the rarer terms when there are any.
    let frequent = frequent_phrases(conn, &q);
    let rare: Vec<usize> = (0..q.phrases.len()).filter(|i| !frequent[*i]).collect();
    let broad = rare.is_empty() && frequent.iter().any(|f| *f);
    let tq = if rare.is_empty() || rare.len() == q.phrases.len() {
        q.clone()
    } else {
        q.select(&rare)
    };
    let rounds: [(Round, Matched, f64, &str); 4] = [
        (Round::All, Matched::AllTerms, 1.0, "1.0, 0.0, 0.0"),
        (Round::Most, Matched::MostTerms, 1.0, "1.0, 0.0, 0.0"),
        (Round::Any, Matched::AnyTerm, 1.0, "1.0, 0.0, 0.0"),
        (
            Round::Unigram,
            Matched::SingleCharacter,
            UNIGRAM_WEIGHT,
            "0.0, 1.0, 0.0",
        ),
    ];
    for (round, name, weight, bm25_weights) in rounds {
        let expr = round.expr(&q);
        // any one very common word alone is no match among conversations
        let texpr = if round == Round::Any && broad {
            None
        } else {
            round.expr(&tq)
        };
        if expr.is_none() && texpr.is_none() {
            continue;
        }
        // Single CJK characters are common by nature: among conversations the
        // last-resort round ranks only the newest matches, as a broad query does.
        let bounded = broad || round == Round::Unigram;
        let raw = candidates(
            conn,
            params,
            expr.as_deref(),
            texpr.as_deref(),
            bm25_weights,
            bounded,
        )?;
        if !raw.is_empty() {
            return Ok((raw, name, weight));
        }
    }
    Ok((Vec::new(), Matched::Nothing, 1.0))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    All,
    Most,
    Any,
    Unigram,
}

impl Round {
    fn expr(self, q: &Query) -> Option<String> {
        match self {
            Round::All => q.and_expr(),
            Round::Most => q.pairs_expr(),
            Round::Any => q.or_expr(),
            Round::Unigram => q.unigram_expr(),
        }
    }
}

/// Most matches of a broad transcript query ranked by BM25: the newest ones
/// (chunk ids follow time, as the indexer adds files oldest first).
const BROAD_MAX_RANKED: i64 = 2_000;

/// Which phrases are made only of terms in `frequent_terms`.
fn frequent_phrases(conn: &Connection, q: &Query) -> Vec<bool> {
    let all: Vec<&String> = q.tokens.iter().flatten().collect();
    if all.is_empty() {
        return vec![false; q.phrases.len()];
    }
    let placeholders = vec!["?"; all.len()].join(",");
    let sql = format!("SELECT term FROM frequent_terms WHERE term IN ({placeholders})");
    let found: std::collections::HashSet<String> = conn
        .prepare_cached(&sql)
        .and_then(|mut st| {
            st.query_map(params_from_iter(all.iter()), |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .unwrap_or_default();
    q.tokens
        .iter()
        .map(|toks| !toks.is_empty() && toks.iter().all(|t| found.contains(t)))
        .collect()
}

/// A candidate before ranking: the hit plus its raw BM25 (higher = better).
struct Raw {
    hit: Hit,
    bm25: f64,
}

fn candidates(
    conn: &Connection,
    p: &SearchParams,
    expr: Option<&str>,
    transcript_expr: Option<&str>,
    bm25_weights: &str,
    broad: bool,
) -> rusqlite::Result<Vec<Raw>> {
    let wanted = |s: Source| p.sources.is_empty() || p.sources.contains(&s);
    const STRUCTURED: [Source; 3] = [Source::Knowledge, Source::Summary, Source::Memory];
    let structured: Vec<&str> = STRUCTURED
        .into_iter()
        .filter(|s| wanted(*s))
        .map(Source::as_str)
        .collect();
    let pool = (p.limit.max(1) * 4 * p.per_file.max(1)).max(40);
    let mut out = Vec::new();
    if let Some(expr) = expr.filter(|_| !structured.is_empty()) {
        let expr = if structured.len() == STRUCTURED.len() {
            expr.to_string()
        } else {
            let srcs: Vec<String> = structured.iter().map(|s| format!("\"{s}\"")).collect();
            format!("({expr}) AND {{src}} : ({})", srcs.join(" OR "))
        };
        out.extend(run_fts(
            conn,
            p,
            "knowledge_fts",
            &expr,
            bm25_weights_for(bm25_weights, 3),
            pool,
            false,
        )?);
    }
    if let Some(texpr) = transcript_expr.filter(|_| wanted(Source::Transcript)) {
        out.extend(run_fts(
            conn,
            p,
            "transcript_fts",
            texpr,
            bm25_weights_for(bm25_weights, 2),
            pool,
            broad,
        )?);
    }
    Ok(out)
}

/// The bm25 weights for a table with `columns` columns (the structured
/// table has the extra `src` column, which never counts).
fn bm25_weights_for(w: &str, columns: usize) -> &str {
    match (w, columns) {
        ("1.0, 0.0, 0.0", 2) => "1.0, 0.0",
        ("0.0, 1.0, 0.0", 2) => "0.0, 1.0",
        (w, _) => w,
    }
}

fn run_fts(
    conn: &Connection,
    p: &SearchParams,
    table: &str,
    fts_expr: &str,
    bm25_weights: &str,
    pool: usize,
    broad: bool,
) -> rusqlite::Result<Vec<Raw>> {
    let mut filters = String::new();
    let mut args: Vec<SqlValue> = vec![SqlValue::Text(fts_expr.to_string())];
    if broad {
        // Rank only the newest matches: walking rowids needs no scoring.
        let floor: Option<i64> = conn
            .prepare_cached(&format!(
                "SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid DESC LIMIT 1 OFFSET ?2"
            ))?
            .query_row(rusqlite::params![fts_expr, BROAD_MAX_RANKED - 1], |r| r.get(0))
            .ok();
        if let Some(floor) = floor {
            args.push(SqlValue::Integer(floor));
            filters.push_str(&format!(" AND {table}.rowid >= ?{}", args.len()));
        }
    }
    filters.push_str(&filter_clause(p, &mut args));
    args.push(SqlValue::Integer(pool as i64));
    let limit_arg = args.len();
    // Without filters, let FTS5 pick the best rows before the joins.
    let sql = if filters.is_empty() {
        format!(
            "SELECT {HIT_COLUMNS}, m.r
             FROM (SELECT rowid AS id, bm25({table}, {bm25_weights}) AS r FROM {table}
                   WHERE {table} MATCH ?1 ORDER BY r LIMIT ?{limit_arg}) m
             JOIN chunks c ON c.id = m.id JOIN files f ON f.id = c.file_id"
        )
    } else {
        format!(
            "SELECT {HIT_COLUMNS}, bm25({table}, {bm25_weights}) AS r
             FROM {table} JOIN chunks c ON c.id = {table}.rowid JOIN files f ON f.id = c.file_id
             WHERE {table} MATCH ?1{filters} ORDER BY r LIMIT ?{limit_arg}"
        )
    };
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        Ok(Raw {
            bm25: -r.get::<_, f64>(10)?,
            hit: Hit::from_row(r)?,
        })
    })?;
    rows.collect()
}

/// The `AND ...` conditions (on `c` = chunks, `f` = files) for the project,
/// date and file filters, their values appended to `args`.
fn filter_clause(p: &SearchParams, args: &mut Vec<SqlValue>) -> String {
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
    let best = raw.iter().map(|r| r.bm25).fold(f64::MIN_POSITIVE, f64::max);
    raw.into_iter()
        .map(|r| (r.hit, r.bm25 / best * round_weight))
        .collect()
}

/// Final ranking: source weight and recency on top of each candidate's base
/// score, best first, at most `per_file` hits per file, `limit` in all.
fn finish(scored: Vec<(Hit, f64)>, cfg: &SearchConfig, p: &SearchParams) -> Vec<Hit> {
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
            hit
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.chunk_id.cmp(&b.chunk_id))
    });
    let per_file = p.per_file.max(1);
    let mut seen: HashMap<String, usize> = HashMap::new();
    hits.retain(|h| {
        let n = seen.entry(h.uri.clone()).or_default();
        *n += 1;
        *n <= per_file
    });
    hits.truncate(p.limit.max(1));
    let highlight = highlight_terms(&p.query);
    for h in &mut hits {
        h.score = (h.score * 1000.0).round() / 1000.0;
        h.snippet = snippet(&h.snippet, &highlight, 240);
    }
    hits
}

/// The words of the query to look for when cutting a snippet.
fn highlight_terms(query: &str) -> Vec<String> {
    terms(query)
        .into_iter()
        .filter_map(|t| match t {
            Term::Word(w) if !crate::index::text::is_stop_word(&w) => Some(w),
            Term::Cjk(run) => Some(run.chars().take(2).collect()),
            _ => None,
        })
        .collect()
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
    fn dates_absolute_relative_and_refused() {
        assert_eq!(parse_date(" 2026-11-01 ").unwrap(), "2026-11-01");
        let week_ago = parse_date("1w").unwrap();
        let expected = (chrono::Utc::now() - chrono::Duration::days(7)).format("%Y-%m-%d");
        assert!(week_ago.starts_with(&expected.to_string()), "{week_ago}");
        let e = parse_date("last week").unwrap_err().to_string();
        assert!(
            e.contains("\"last week\" is not a date") && e.contains("7d"),
            "{e}"
        );
    }

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

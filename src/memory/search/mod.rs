//! Searching the index: the query shared by `pms search`, the MCP tools and
//! the benchmarks.
//!
//! Results are single chunks: a turn of a conversation, or a piece of a
//! knowledge file, each ranked on its own; several may come from one
//! conversation (what was decided about X is usually spread over turns).
//! They are grouped for display (`Group`: by session, by file, or not) but
//! none is dropped for sharing a conversation, and each group says how many
//! more of its chunks matched beyond the limit.
//!
//! Ranking (measured on the long-memory labelled set, `cargo bench --bench
//! memory`): the query becomes concepts (`query.rs`: question words gone,
//! inflections, synonyms and abbreviations). FTS5 finds the chunks holding
//! any form of any concept (OR) and ranks them by BM25; structured sources
//! and transcripts are ranked in separate queries so that the large
//! transcript set can never crowd the small knowledge set out. The best
//! candidates are then re-scored: BM25 normalised to the best, blended with
//! the share of the query's concepts the chunk (with its heading) holds (AND
//! as a boost, not a gate), and raised with the share of concepts its
//! conversation (or file) and its project hold together (a transcript
//! folder's name counting as the project's title), so the right
//! conversation's turns rise together. Then the source weight (`search.structured_weight`) and,
//! when configured, recency. For Chinese, Japanese or Korean text that
//! finds nothing, single characters at half weight are the last resort.

pub mod fetch;
pub mod hop;
pub mod hybrid;
pub mod keyword;
pub mod query;
pub mod rank;
pub mod request;
pub mod timeline;

pub use request::{BadRequest, Request, parse_date};

use rusqlite::Connection;
use serde::Serialize;

use crate::memory::index::indexer::Source;
use crate::platform::workspace::config::{Group, SearchConfig};

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
    /// At most this many hits per file (0: no cap). The file-level quality
    /// sets use 1.
    pub per_file: usize,
    pub group: Group,
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
    /// The display group this hit belongs to (a conversation URI, a file).
    pub group: String,
    #[serde(skip)]
    pub chunk_id: i64,
    /// Summaries: the conversation they summarise.
    #[serde(skip)]
    pub ref_uri: Option<String>,
}

/// The columns [`Hit::from_row`] reads, in its order (`c` = chunks, `f` = files).
pub(crate) const HIT_COLUMNS: &str = "c.id, f.uri, f.source, f.project, c.line_start, c.line_end, c.ts, c.role, c.heading, c.text, f.ref_uri";
/// How many columns [`HIT_COLUMNS`] has (a query's next column is this index).
pub(crate) const HIT_COLUMN_COUNT: usize = 11;

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
            ref_uri: r.get(10)?,
            group: String::new(),
            score: 0.0,
        })
    }

    /// The conversation a hit belongs to: a transcript (a subagent's is its
    /// parent's), or the one a summary summarises; else the file.
    fn session_key(&self) -> String {
        if let Some(r) = self.ref_uri.as_deref().filter(|r| !r.is_empty()) {
            return r.to_string();
        }
        if let Some(rest) = self.uri.strip_prefix("cc://")
            && let Some((head, _)) = rest.split_once("/subagents/")
        {
            return format!("cc://{head}.jsonl");
        }
        self.uri.clone()
    }
}

/// Hits shown together.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HitGroup {
    /// The conversation URI or file path.
    pub key: String,
    /// How many of the returned hits are in it (they are adjacent in `hits`).
    pub hits: usize,
    /// Chunks of it that matched but did not fit in the limit (at least).
    pub more: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchOutcome {
    pub hits: Vec<Hit>,
    pub group: Group,
    pub groups: Vec<HitGroup>,
    /// How much of the query the best hit holds.
    pub matched: Matched,
    pub mode: Mode,
    /// Why the search is keyword only although semantic recall exists (no
    /// provider, model not installed, index not embedded yet, provider error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_reason: Option<String>,
}

/// How the hits matched the query: how much of it the best keyword hit
/// holds, or meaning alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Matched {
    AllTerms,
    /// At least two of the words.
    MostTerms,
    AnyTerm,
    SingleCharacter,
    /// No keyword matched; the hits are the nearest vectors.
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
            Matched::MostTerms => Some("no hit has every word; the best have most of them"),
            Matched::AnyTerm => Some("no hit has every word; these have some of them"),
            Matched::SingleCharacter => {
                Some("no hit has the words; these share single characters with the query")
            }
            Matched::Semantic => Some("no hit has the words; these are close in meaning"),
            Matched::AllTerms | Matched::Nothing => None,
        }
    }

    /// The hits of group `i` (a slice of `hits`).
    pub fn group_hits(&self, i: usize) -> &[Hit] {
        let start: usize = self.groups[..i].iter().map(|g| g.hits).sum();
        &self.hits[start..start + self.groups[i].hits]
    }
}

/// A search as every front end runs it (`pms search`, `memory_search`,
/// `pms ui`): keyword or hybrid as `semantic` allows ([`hybrid::search`]),
/// on the index at `db`, with the warning that the index is damaged when it
/// is; a search SQLite stops on a damaged file fails with an error that
/// names the fix.
pub fn search(
    conn: &Connection,
    db: &std::path::Path,
    cfg: &SearchConfig,
    params: &SearchParams,
    semantic: &hybrid::Semantic,
) -> anyhow::Result<Checked> {
    let outcome = hybrid::search(conn, cfg, params, semantic)
        .map_err(|e| crate::memory::index::health::explain_failed_search(db, e))?;
    Ok(Checked {
        outcome,
        warning: crate::memory::index::health::warning(db),
    })
}

/// What [`search`] found.
pub struct Checked {
    pub outcome: SearchOutcome,
    /// The index is damaged: some results may be missing (with the fix).
    pub warning: Option<String>,
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
}

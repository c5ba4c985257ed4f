//! A search as a person (`pms search`) or the agent (`memory_search`) asks
//! for it, loose strings in, checked once into [`SearchParams`]: sources by
//! name, dates in any of the accepted forms, the limit within bounds.

use super::SearchParams;
use crate::memory::index::indexer::Source;
use crate::platform::workspace::config::Group;
use crate::platform::workspace::config::SearchConfig;

/// Longest query accepted (longer text is cut, not refused).
pub const MAX_QUERY_CHARS: usize = 2_000;

/// A search before it is checked. Empty strings count as absent (MCP clients
/// send `""` for a field they leave blank).
#[derive(Debug, Clone, Default)]
pub struct Request<'a> {
    pub query: &'a str,
    pub limit: Option<usize>,
    /// Source names: knowledge, summary, transcript, memory.
    pub sources: Vec<&'a str>,
    pub project: Option<&'a str>,
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
    /// session, file or none; absent: `search.group`.
    pub group: Option<&'a str>,
}

#[derive(Debug, thiserror::Error)]
pub enum BadRequest {
    #[error(
        "unknown source {0:?}.\n  Fix: use knowledge, summary, transcript or memory (Claude Code's auto-memory)"
    )]
    Source(String),
    #[error(transparent)]
    Date(#[from] BadDate),
    #[error("unknown grouping {0:?}.\n  Fix: use session (a conversation together), file, or none")]
    Group(String),
}

impl Request<'_> {
    /// The checked search: the configured limit and grouping
    /// (`search.default_limit`, `search.group`) when none was asked for, at
    /// most `max_limit` hits.
    pub fn parse(&self, cfg: &SearchConfig, max_limit: usize) -> Result<SearchParams, BadRequest> {
        let (default_limit, default_group) = (cfg.default_limit, cfg.group);
        fn given(s: Option<&str>) -> Option<&str> {
            s.map(str::trim).filter(|s| !s.is_empty())
        }
        let sources = self
            .sources
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| Source::parse(s).ok_or_else(|| BadRequest::Source(s.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SearchParams {
            query: self.query.chars().take(MAX_QUERY_CHARS).collect(),
            limit: self
                .limit
                .unwrap_or(default_limit)
                .clamp(1, max_limit.max(1)),
            sources,
            project: given(self.project).map(str::to_string),
            since: given(self.since).map(parse_date).transpose()?,
            until: given(self.until).map(parse_date).transpose()?,
            within: None,
            per_file: 0,
            group: match given(self.group) {
                Some(g) => Group::parse(g).ok_or_else(|| BadRequest::Group(g.to_string()))?,
                None => default_group,
            },
        })
    }
}

/// A date for `since` / `until`: `YYYY-MM-DD`, an RFC 3339 time, or a span
/// back from now (`7d`, `2w`, `3m`), returned as text that compares with the
/// index's RFC 3339 dates.
pub fn parse_date(s: &str) -> Result<String, BadDate> {
    let s = s.trim();
    if let Some((n, unit)) = s
        .strip_suffix(['d', 'w', 'm'])
        .and_then(|n| n.parse::<i64>().ok())
        .map(|n| (n, s.chars().last().unwrap_or('d')))
    {
        let days = match unit {
            'w' => n * 7,
            'm' => n * 30,
            _ => n,
        };
        let t = chrono::Utc::now() - chrono::Duration::days(days);
        return Ok(t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
    if chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
        || chrono::DateTime::parse_from_rfc3339(s).is_ok()
    {
        return Ok(s.to_string());
    }
    Err(BadDate(s.to_string()))
}

#[derive(Debug, thiserror::Error)]
#[error(
    "{0:?} is not a date.\n  Fix: use YYYY-MM-DD, or a span back from now such as 7d, 2w or 3m"
)]
pub struct BadDate(String);

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> SearchConfig {
        SearchConfig {
            default_limit: 10,
            ..SearchConfig::default()
        }
    }

    #[test]
    fn loose_strings_are_checked_once() {
        let p = Request {
            query: "pricing",
            limit: Some(500),
            sources: vec!["summaries", " transcript ", ""],
            project: Some(""),
            since: Some("2026-01-02"),
            until: None,
            group: Some("none"),
        }
        .parse(&limits(), 50)
        .unwrap();
        assert_eq!(p.limit, 50);
        assert_eq!(p.sources, [Source::Summary, Source::Transcript]);
        assert_eq!(p.project, None);
        assert_eq!(p.since.as_deref(), Some("2026-01-02"));
        assert_eq!(p.group, Group::None);
        let bad = Request {
            sources: vec!["notes"],
            ..Request::default()
        }
        .parse(&limits(), 50)
        .unwrap_err();
        assert!(
            bad.to_string().contains("unknown source \"notes\""),
            "{bad}"
        );
        let bad = Request {
            since: Some("yesterday-ish"),
            ..Request::default()
        }
        .parse(&limits(), 50)
        .unwrap_err();
        assert!(bad.to_string().contains("is not a date"), "{bad}");
    }
}

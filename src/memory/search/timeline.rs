//! What happened when: Claude Code sessions by day and project, around a
//! date or around a hit. It lets the agent answer "what did I do last
//! week?" without guessing a query (`memory_timeline`), and it is built
//! from the index alone (transcripts' first and last times, their first
//! prompt), with the session summary's title and path when one exists.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// One session in the timeline.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Session {
    /// `cc://<project>/<session>.jsonl`
    pub uri: String,
    pub project: String,
    pub start: String,
    pub end: String,
    /// The session summary's title, else the first prompt.
    pub title: String,
    /// The session summary, when it is still kept.
    pub summary: Option<String>,
}

/// Sessions of one day, oldest first.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Day {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    pub sessions: Vec<Session>,
}

/// Where the window is centred.
#[derive(Debug, Clone, PartialEq)]
pub enum Around {
    /// The most recent sessions.
    Now,
    /// A day (`YYYY-MM-DD`, or an RFC 3339 time).
    Date(String),
    /// The time of an indexed file or conversation (a hit's URI).
    Hit(String),
}

#[derive(Debug, thiserror::Error)]
pub enum TimelineError {
    #[error(
        "{0:?} is not in the index.\n  Fix: pass a URI from memory_search, or a date (YYYY-MM-DD)"
    )]
    UnknownHit(String),
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// The sessions whose activity falls within `days` days ending at (for
/// `Now`) or centred on `around`, by day, at most `limit` sessions (the
/// ones nearest the centre), optionally of one project.
pub fn timeline(
    conn: &Connection,
    around: &Around,
    days: u32,
    project: Option<&str>,
    limit: usize,
) -> Result<Vec<Day>, TimelineError> {
    let (from, to) = window(conn, around, days)?;
    let fmt = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut stmt = conn.prepare_cached(
        "SELECT f.id, f.uri, f.project, f.first_ts, f.last_ts,
                (SELECT s.uri FROM files s WHERE s.source = 'summary' AND s.ref_uri = f.uri LIMIT 1)
         FROM files f
         WHERE f.source = 'transcript' AND f.uri NOT LIKE '%/subagents/%'
           AND f.last_ts >= ?1 AND f.first_ts <= ?2
           AND (?3 IS NULL OR f.project = ?3)
         ORDER BY f.last_ts DESC LIMIT ?4",
    )?;
    let rows: Vec<(i64, String, String, String, String, Option<String>)> = stmt
        .query_map(
            params![fmt(from), fmt(to), project, limit.max(1) as i64],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get::<_, Option<String>>(3)?.unwrap_or_default(),
                    r.get::<_, Option<String>>(4)?.unwrap_or_default(),
                    r.get(5)?,
                ))
            },
        )?
        .collect::<rusqlite::Result<_>>()?;
    let mut by_day: BTreeMap<String, Vec<Session>> = BTreeMap::new();
    for (id, uri, project, start, end, summary) in rows {
        let title = match &summary {
            Some(s) => summary_title(conn, s)?,
            None => None,
        }
        .or(first_prompt(conn, id)?)
        .unwrap_or_else(|| "(no prompt)".into());
        let day = end.get(..10).unwrap_or("unknown").to_string();
        by_day.entry(day).or_default().push(Session {
            uri,
            project,
            start,
            end,
            title,
            summary,
        });
    }
    Ok(by_day
        .into_iter()
        .map(|(date, mut sessions)| {
            sessions.sort_by(|a, b| a.start.cmp(&b.start));
            Day { date, sessions }
        })
        .collect())
}

/// The projects (transcript folders) that have sessions in the index, most
/// recently active first: the choices of a timeline's project filter.
pub fn projects(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT project FROM files
         WHERE source = 'transcript' AND uri NOT LIKE '%/subagents/%'
         GROUP BY project ORDER BY MAX(last_ts) DESC LIMIT 500",
    )?;
    stmt.query_map([], |r| r.get(0))?.collect()
}

/// The time window [`timeline`] shows for `around` and `days`.
fn window(
    conn: &Connection,
    around: &Around,
    days: u32,
) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>), TimelineError> {
    let days = i64::from(days.clamp(1, 366));
    Ok(match around {
        Around::Now => {
            let now = chrono::Utc::now();
            (
                now - chrono::Duration::days(days),
                now + chrono::Duration::days(1),
            )
        }
        Around::Date(d) => {
            let centre = centre_of(d).unwrap_or_else(chrono::Utc::now);
            let half = chrono::Duration::hours(days * 12);
            (centre - half, centre + half)
        }
        Around::Hit(uri) => {
            let ts: Option<String> = conn
                .query_row(
                    "SELECT COALESCE(last_ts, first_ts) FROM files WHERE uri = ?1",
                    [uri],
                    |r| r.get(0),
                )
                .optional()?
                .flatten();
            let centre = ts
                .as_deref()
                .and_then(centre_of)
                .ok_or_else(|| TimelineError::UnknownHit(uri.clone()))?;
            let half = chrono::Duration::hours(days * 12);
            (centre - half, centre + half)
        }
    })
}

/// The date to centre the window of the same length just before the one
/// shown for `around` on (for an "earlier" link): a window centred on a date
/// is centred on its noon, so the date is the latest whose window ends at or
/// before the shown one starts.
pub fn earlier(
    conn: &Connection,
    around: &Around,
    days: u32,
) -> Result<chrono::NaiveDate, TimelineError> {
    let (from, _) = window(conn, around, days)?;
    let latest_centre = from - chrono::Duration::hours(i64::from(days.clamp(1, 366)) * 12);
    let date = latest_centre.date_naive();
    Ok(
        if latest_centre.time() >= chrono::NaiveTime::from_hms_opt(12, 0, 0).expect("noon") {
            date
        } else {
            date - chrono::Duration::days(1)
        },
    )
}

fn centre_of(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    let d = chrono::NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok()?;
    Some(d.and_hms_opt(12, 0, 0)?.and_utc())
}

/// The first heading of a summary (its title line), without the time.
fn summary_title(conn: &Connection, summary_uri: &str) -> rusqlite::Result<Option<String>> {
    let heading: Option<String> = conn
        .query_row(
            "SELECT c.heading FROM chunks c JOIN files f ON f.id = c.file_id
             WHERE f.uri = ?1 ORDER BY c.line_start LIMIT 1",
            [summary_uri],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    Ok(heading.map(|h| {
        let first = h.split(" > ").next().unwrap_or(&h).trim_start_matches("# ");
        // "2026-11-22 10:00 Why is the deploy failing?" → the question
        let words: Vec<&str> = first.splitn(3, ' ').collect();
        match words.as_slice() {
            [d, t, rest] if d.len() == 10 && t.len() == 5 => rest.to_string(),
            _ => first.to_string(),
        }
    }))
}

fn first_prompt(conn: &Connection, file_id: i64) -> rusqlite::Result<Option<String>> {
    let text: Option<String> = conn
        .query_row(
            "SELECT text FROM chunks WHERE file_id = ?1 AND role = 'user' ORDER BY line_start LIMIT 1",
            [file_id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(text.map(|t| crate::platform::agents::transcript::truncate(t.trim(), 120)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_window_ends_where_the_shown_one_starts() {
        let conn = Connection::open_in_memory().unwrap();
        let date = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let around = Around::Date("2026-11-10".into());
        assert_eq!(earlier(&conn, &around, 7).unwrap(), date("2026-11-03"));
        assert_eq!(earlier(&conn, &around, 1).unwrap(), date("2026-11-09"));
        // up to now: the earlier window never reaches into this one
        for days in [1, 2, 7, 30] {
            let (from, _) = window(&conn, &Around::Now, days).unwrap();
            let before = Around::Date(earlier(&conn, &Around::Now, days).unwrap().to_string());
            let (_, to) = window(&conn, &before, days).unwrap();
            assert!(to <= from, "{days} days: {to} after {from}");
            assert!(from - to < chrono::Duration::days(1), "{days} days: a gap");
        }
    }
}

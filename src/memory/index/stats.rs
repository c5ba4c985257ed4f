//! What the index holds, counted: for `pms status`, `pms embeddings`,
//! `pms verify` and the report after an index run. The only place outside
//! the indexer and search that queries the tables.

use rusqlite::Connection;

/// Rows in the index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub files: i64,
    pub chunks: i64,
    /// Chunks that have a vector.
    pub vectors: i64,
}

pub fn counts(conn: &Connection) -> rusqlite::Result<Counts> {
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    Ok(Counts {
        files: count("SELECT COUNT(*) FROM files")?,
        chunks: count("SELECT COUNT(*) FROM chunks")?,
        vectors: super::vectors::count(conn)?,
    })
}

/// Facts about the indexed Claude Code history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryStats {
    pub sessions: i64,
    pub projects: i64,
    pub first: Option<String>,
    pub last: Option<String>,
    pub chunks: i64,
}

pub fn history(conn: &Connection) -> rusqlite::Result<HistoryStats> {
    let (sessions, projects, first, last) = conn.query_row(
        "SELECT COUNT(*), COUNT(DISTINCT NULLIF(project, '')), MIN(first_ts), MAX(last_ts) FROM files
         WHERE source = 'transcript' AND uri NOT LIKE '%/subagents/%'",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    let chunks = conn.query_row("SELECT COUNT(*) FROM chunks", [], |r| r.get(0))?;
    Ok(HistoryStats {
        sessions,
        projects,
        first,
        last,
        chunks,
    })
}

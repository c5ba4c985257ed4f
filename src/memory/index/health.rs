//! Whether the index is whole, and the note that says it is not.
//!
//! A database can be damaged in part and still open: a page of `chunks`
//! lost to a disk error, or the full-text tables out of step with the
//! chunks they index. Searches then miss what they should find and answer
//! as if nothing were wrong (issue 12). Three places look: `pms verify`
//! (SQLite's integrity check and [`entries_out_of_step`], exact),
//! every index run ([`counts_out_of_step`], cheap: it runs at each session
//! start) and a search that SQLite stops with "malformed". Whoever finds
//! damage leaves a note, `.pms/index.damaged` (one line: when, what, who
//! found it); every search shows it as a warning naming the fix until a
//! rebuild (`pms index --full`, `pms verify --fix`) removes it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// The note beside the index at `db`.
pub fn note_path(db: &Path) -> PathBuf {
    db.with_file_name("index.damaged")
}

/// Leaves the note that the index at `db` is damaged: `what` was found by
/// `found_by`. Best effort: a full or read-only disk may refuse it.
pub fn record(db: &Path, what: &str, found_by: &str) {
    let line = format!(
        "{} {what} (found by {found_by})\n",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ")
    );
    let _ = crate::platform::host::durable::write_atomic(&note_path(db), line.as_bytes());
}

/// Removes the note (the index was rebuilt, or found whole).
pub fn clear(db: &Path) {
    let _ = std::fs::remove_file(note_path(db));
}

/// The warning a search shows while the note is there.
pub fn warning(db: &Path) -> Option<String> {
    let note = std::fs::read_to_string(note_path(db)).ok()?;
    let note = note.trim();
    Some(format!(
        "{}: the index is damaged ({}), so some results may be missing.\n  Fix: run `pms index --full` (or `pms verify --fix`) to rebuild it from your files.",
        db.display(),
        if note.is_empty() { "no detail" } else { note }
    ))
}

/// What a search that SQLite stopped says: when the file is damaged, the
/// note is left and the error names the fix; anything else as it is.
pub fn explain_failed_search(db: &Path, e: rusqlite::Error) -> anyhow::Error {
    if !is_corrupt(&e) {
        return e.into();
    }
    record(db, &e.to_string(), "a search");
    anyhow::anyhow!(
        "{}: the index is damaged ({e}), so this search could not finish.\n  Fix: run `pms index --full` (or `pms verify --fix`) to rebuild it from your files.",
        db.display()
    )
}

/// Whether an error (or one of its causes) is SQLite saying the file is
/// damaged.
pub fn is_corrupt(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(sql) = e.downcast_ref::<rusqlite::Error>()
            && matches!(
                sql.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
            )
        {
            return true;
        }
        if let Some(super::db::DbError::Corrupt { .. }) = e.downcast_ref::<super::db::DbError>() {
            return true;
        }
        next = e.source();
    }
    false
}

/// The two full-text tables and the chunks each indexes.
const POOLS: [(&str, &str); 2] = [
    ("knowledge_fts", "c.source <> 'transcript'"),
    ("transcript_fts", "c.source = 'transcript'"),
];

/// Cheap: whether the full-text tables hold as many entries as there are
/// chunks (three counts, each SQLite's b-tree count of a whole table).
/// Describes the difference, if any. Per table (a `WHERE source` count)
/// would read every row: on a 1,000,000-chunk, 540 MB table, 265 ms
/// against 8 ms for a whole-table count (python3 sqlite3 3.40, warm cache).
pub fn counts_out_of_step(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let count = |table: &str| {
        conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| {
            r.get::<_, i64>(0)
        })
    };
    let chunks = count("chunks")?;
    let entries = count("knowledge_fts_docsize")? + count("transcript_fts_docsize")?;
    Ok((chunks != entries)
        .then(|| format!("the full-text tables have {entries} entries for {chunks} chunks")))
}

/// Exact: full-text entries whose chunk is gone (searches drop those
/// matches) and chunks without an entry (searches never find them), per
/// table. Describes what is wrong, if anything.
pub fn entries_out_of_step(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let mut found = Vec::new();
    for (fts, kind) in POOLS {
        let orphans: i64 = conn.query_row(
            &format!(
                "SELECT COUNT(*) FROM {fts}_docsize d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = d.id AND {kind})"
            ),
            [],
            |r| r.get(0),
        )?;
        let unindexed: i64 = conn.query_row(
            &format!(
                "SELECT COUNT(*) FROM chunks c WHERE {kind} AND NOT EXISTS (SELECT 1 FROM {fts}_docsize d WHERE d.id = c.id)"
            ),
            [],
            |r| r.get(0),
        )?;
        if orphans > 0 {
            found.push(format!(
                "{orphans} {fts} entries point at chunks that are gone"
            ));
        }
        if unindexed > 0 {
            found.push(format!("{unindexed} chunks are missing from {fts}"));
        }
    }
    Ok((!found.is_empty()).then(|| found.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed() -> (tempfile::TempDir, PathBuf, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("index.db");
        let conn = super::super::db::open_rw(&db).unwrap();
        conn.execute_batch(
            "INSERT INTO files(id, uri, abs_path, source, size, mtime_ns, content_hash)
               VALUES (1, 'a.md', '/a.md', 'knowledge', 1, 1, 1);
             INSERT INTO chunks(id, file_id, source, line_start, line_end, text)
               VALUES (1, 1, 'knowledge', 1, 1, 'alpha'), (2, 1, 'knowledge', 2, 2, 'beta');
             INSERT INTO knowledge_fts(rowid, body, uni, src)
               VALUES (1, 'alpha', '', 'knowledge'), (2, 'beta', '', 'knowledge');",
        )
        .unwrap();
        (dir, db, conn)
    }

    #[test]
    fn a_whole_index_is_in_step() {
        let (_dir, _db, conn) = indexed();
        assert_eq!(counts_out_of_step(&conn).unwrap(), None);
        assert_eq!(entries_out_of_step(&conn).unwrap(), None);
    }

    #[test]
    fn lost_chunks_and_lost_entries_are_found_even_when_the_counts_agree() {
        let (_dir, _db, conn) = indexed();
        // chunk 1 gone without its entry; chunk 3 added without one
        conn.execute_batch(
            "DROP TRIGGER chunks_after_delete_structured;
             DELETE FROM chunks WHERE id = 1;
             INSERT INTO chunks(id, file_id, source, line_start, line_end, text)
               VALUES (3, 1, 'knowledge', 3, 3, 'gamma');",
        )
        .unwrap();
        assert_eq!(counts_out_of_step(&conn).unwrap(), None, "same counts");
        let found = entries_out_of_step(&conn).unwrap().unwrap();
        assert!(
            found.contains("1 knowledge_fts entries point at chunks that are gone")
                && found.contains("1 chunks are missing from knowledge_fts"),
            "{found}"
        );
        conn.execute("DELETE FROM chunks WHERE id = 3", []).unwrap();
        assert!(counts_out_of_step(&conn).unwrap().is_some());
    }

    #[test]
    fn the_note_turns_into_a_warning_until_cleared() {
        let (_dir, db, _conn) = indexed();
        assert_eq!(warning(&db), None);
        record(&db, "2 chunks are missing from knowledge_fts", "pms index");
        let w = warning(&db).unwrap();
        assert!(
            w.contains("index.db")
                && w.contains("2 chunks are missing")
                && w.contains("pms index --full"),
            "{w}"
        );
        clear(&db);
        assert_eq!(warning(&db), None);
    }
}

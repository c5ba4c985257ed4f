//! The index database, `.pms/index.db`: one SQLite file in WAL mode, so the
//! MCP server and hooks can read while `pms index` writes.
//!
//! It is derived data. Everything in it can be rebuilt from the workspace
//! and the transcripts, which is why a corrupt file is simply rebuilt, and
//! why the schema can be migrated forward freely. The schema is documented
//! in docs/architecture.md; `SCHEMA_VERSION` is kept in `PRAGMA user_version`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::platform::host::durable;

pub const SCHEMA_VERSION: i32 = 5;

/// Forward-only migrations: (version reached, SQL). Run in order, in one
/// transaction, after a backup copy of the file (`pms upgrade`, `pms index`).
const MIGRATIONS: &[(i32, &str)] = &[
    // 2: when each file was last indexed (for `pms status` and verify's freshness)
    (2, "ALTER TABLE files ADD COLUMN indexed_at TEXT;"),
    // 3: chunk embeddings (created by SCHEMA, which every migration re-applies)
    (3, ""),
    // 4: the trigger that un-stamps the vector file (index::vector_file) when
    // a chunk id it holds is used again (created by SCHEMA); the file itself
    // is written by the next index run
    (4, ""),
    // 5: the files each session touched (index::file_touches, created by
    // SCHEMA); the next index run fills it from the chunks
    (5, ""),
];

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS files (
    id              INTEGER PRIMARY KEY,
    uri             TEXT NOT NULL UNIQUE,
    abs_path        TEXT NOT NULL,
    source          TEXT NOT NULL,
    project         TEXT NOT NULL DEFAULT '',
    session_id      TEXT,
    ref_uri         TEXT,
    size            INTEGER NOT NULL,
    mtime_ns        INTEGER NOT NULL,
    content_hash    INTEGER NOT NULL,
    indexed_offset  INTEGER NOT NULL DEFAULT 0,
    indexed_lines   INTEGER NOT NULL DEFAULT 0,
    resume_offset   INTEGER NOT NULL DEFAULT 0,
    resume_line     INTEGER NOT NULL DEFAULT 0,
    malformed_lines INTEGER NOT NULL DEFAULT 0,
    first_ts        TEXT,
    last_ts         TEXT,
    cwd             TEXT,
    indexed_at      TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    role        TEXT,
    heading     TEXT,
    line_start  INTEGER NOT NULL,
    line_end    INTEGER NOT NULL,
    ts          TEXT,
    text        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks(file_id, line_start);
-- Two FTS tables: the small structured set (knowledge, summaries) and the
-- large transcript set, so that neither query needs a source filter.
CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_fts USING fts5(
    body, uni, src,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '', contentless_delete = 1
);
CREATE VIRTUAL TABLE IF NOT EXISTS transcript_fts USING fts5(
    body, uni,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '', contentless_delete = 1
);
CREATE VIRTUAL TABLE IF NOT EXISTS transcript_vocab USING fts5vocab(transcript_fts, 'row');
CREATE TRIGGER IF NOT EXISTS chunks_after_delete_transcript AFTER DELETE ON chunks
WHEN old.source = 'transcript' BEGIN
    DELETE FROM transcript_fts WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS chunks_after_delete_structured AFTER DELETE ON chunks
WHEN old.source <> 'transcript' BEGIN
    DELETE FROM knowledge_fts WHERE rowid = old.id;
END;
-- Terms in more than 500 transcript chunks (too common to link two turns:
-- the second hop skips them); those also above meta
-- frequent_terms_threshold select nothing in keyword search. Recomputed by
-- the indexer when the transcript set changes.
CREATE TABLE IF NOT EXISTS frequent_terms (
    term  TEXT PRIMARY KEY,
    docs  INTEGER NOT NULL
) WITHOUT ROWID;
-- One quantised unit vector per chunk (see index::vectors), dropped with it.
CREATE TABLE IF NOT EXISTS chunk_vectors (
    chunk_id  INTEGER PRIMARY KEY,
    vec       BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS chunks_after_delete_vector AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_vectors WHERE chunk_id = old.id;
END;
-- The files each transcript's user and agent turns changed or named, one
-- row per transcript and path (index::file_touches), copied into the
-- shards of .pms/file-history/ for the pre-tool-use hook.
CREATE TABLE IF NOT EXISTS file_touches (
    file_id     INTEGER NOT NULL,
    path        TEXT NOT NULL,
    shard       INTEGER NOT NULL,
    changed     INTEGER NOT NULL,
    line_start  INTEGER NOT NULL,
    ts          TEXT,
    about       TEXT NOT NULL,
    PRIMARY KEY (file_id, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS file_touches_by_path ON file_touches(path);
CREATE INDEX IF NOT EXISTS file_touches_by_shard ON file_touches(shard);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- The vector file (index::vector_file) holds vectors up to chunk id
-- meta.vector_file_max: a vector stored again at or below it (a chunk id
-- used again, a re-embedding) makes the file stale, in the same transaction.
CREATE TRIGGER IF NOT EXISTS vector_file_stale_on_reuse AFTER INSERT ON chunk_vectors
WHEN new.chunk_id <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'vector_file_max')
BEGIN
    DELETE FROM meta WHERE key IN ('vector_file', 'vector_file_max');
END;
"#;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error(
        "no search index yet at {path}.\n  Fix: run `pms index` (it reads your workspace and Claude Code history)."
    )]
    Missing { path: PathBuf },
    #[error(
        "{path} is not a usable index ({cause}).\n  It only holds derived data. Fix: run `pms index --full` to rebuild it."
    )]
    Corrupt { path: PathBuf, cause: String },
    #[error(
        "{path}: the disk is full, so the index cannot be updated (search still answers from what it holds).\n  Fix: free some space on that disk, then run `pms index` (not --full: that would delete what the index holds)."
    )]
    DiskFull { path: PathBuf },
    #[error(
        "{path}: another process holds the index locked, and still did after the {BUSY_WAIT_SECS} s pms waits for it.\n  Fix: run the command again once that process has finished (`pms doctor` shows whether a pms run holds .pms/index.lock)."
    )]
    Busy { path: PathBuf },
    #[error(
        "{path}: the index cannot be written (the file, its folder or the disk is read-only), so it was not updated; search still answers from what it holds.\n  Fix: make it writable (`chmod u+w`, `chattr -i`, or mount the disk read-write), then run `pms index`."
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "{path} was written by a newer pms (schema {found}, this one reads {SCHEMA_VERSION}).\n  Fix: upgrade pms (`pms upgrade`), or run `pms index --full` to rebuild it for this version."
    )]
    Newer { path: PathBuf, found: i32 },
    #[error(
        "{path}: the rebuilt index could not be made whole ({detail}), so the old one was kept.\n  Fix: free some space on that disk, then run `pms index --full` again."
    )]
    NotCheckpointed { path: PathBuf, detail: String },
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// How long a connection waits for another process's lock before giving
/// up with [`DbError::Busy`]: long enough for a background index run's
/// transaction to commit, short enough that a hook or a search is not
/// held up for long.
pub const BUSY_WAIT_SECS: u64 = 5;

fn configure(conn: &Connection, path: &Path) -> Result<(), DbError> {
    // A large index is read mostly through FTS5 doclists: memory-mapping the
    // file and a bigger page cache keep a search from re-reading pages.
    //
    // Foreign keys stay off: with them on, every insert into `chunks` opens a
    // statement savepoint, which makes FTS5 flush its pending terms to disk
    // each time (a third of indexing time went to that and the merging it
    // caused). The indexer deletes a file's chunks itself.
    //
    // After a checkpoint the log of changes (`index.db-wal`) is cut back to
    // 4 MB: left alone it keeps the size of the largest batch ever written
    // (10.6 MB after one run on a small disk, which it filled).
    conn.busy_timeout(Duration::from_secs(BUSY_WAIT_SECS))
        .and_then(|_| conn.pragma_update(None, "mmap_size", 1i64 << 30))
        .and_then(|_| conn.pragma_update(None, "cache_size", -32_000))
        .and_then(|_| conn.pragma_update(None, "journal_size_limit", 4i64 << 20))
        .map_err(|e| classify(path, e))?;
    // The tests' full disk: SQLite answers SQLITE_FULL past this many pages,
    // as it does when the disk itself is full.
    if let Some(pages) = std::env::var("PMS_TEST_DB_MAX_PAGES")
        .ok()
        .and_then(|v| v.parse::<i64>().ok())
    {
        conn.pragma_update(None, "max_page_count", pages)
            .map_err(|e| classify(path, e))?;
    }
    Ok(())
}

/// Opens (creating if needed) the index for writing, applying the schema.
pub fn open_rw(path: &Path) -> Result<Connection, DbError> {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let conn = Connection::open(path).map_err(|e| classify(path, e))?;
    configure(&conn, path)?;
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    if version > SCHEMA_VERSION {
        return Err(DbError::Newer {
            path: path.into(),
            found: version,
        });
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| classify(path, e))?;
    if version == SCHEMA_VERSION {
        return Ok(conn); // schema and settings already in place
    }
    if version > 0 {
        migrate(&conn, path, version)?;
        return Ok(conn);
    }
    // Pages freed by deletes go back to the disk a few at a time
    // ([`reclaim`]); set before the first table, as SQLite requires.
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")
        .and_then(|_| conn.pragma_update(None, "journal_mode", "WAL"))
        .and_then(|_| conn.execute_batch(SCHEMA))
        // Let FTS5 buffer 32 MB of terms before writing a segment (default 1 MB).
        .and_then(|_| {
            conn.execute_batch(
                "INSERT INTO transcript_fts(transcript_fts, rank) VALUES ('hashsize', 33554432);",
            )
        })
        .and_then(|_| conn.pragma_update(None, "user_version", SCHEMA_VERSION))
        .map_err(|e| classify(path, e))?;
    Ok(conn)
}

/// Writes the log of changes into the database and cuts it to nothing
/// (best effort: a reader holding an old snapshot leaves it as it is).
pub fn checkpoint_truncate(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Free pages below this are left for the next inserts to reuse.
const RECLAIM_MIN_BYTES: i64 = 1 << 20;

/// What [`reclaim`] gave back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reclaimed {
    /// Bytes of free pages returned to the file system.
    pub bytes: i64,
    /// The database was made incremental first (a file made before pms set
    /// `auto_vacuum`), by a one-time VACUUM.
    pub converted: bool,
}

/// Gives the index's free pages back to the disk (issue 27: after 13
/// appends of 100 KB it grew from 117.6 to 127.1 MB, 9 MB of it free
/// pages): run after an index run, never on the hook path. A database made
/// before `auto_vacuum` was set is made incremental by one VACUUM when its
/// free pages are a tenth of it or more, and only when the disk has room
/// for a copy of it beside [`durable::keep_free_bytes`].
pub fn reclaim(conn: &Connection) -> rusqlite::Result<Reclaimed> {
    let value =
        |pragma: &str| conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get::<_, i64>(0));
    let (free, pages, page_size) = (
        value("freelist_count")?,
        value("page_count")?,
        value("page_size")?,
    );
    let free_bytes = free * page_size;
    if free_bytes < RECLAIM_MIN_BYTES {
        return Ok(Reclaimed::default());
    }
    let mut converted = false;
    if value("auto_vacuum")? != 2 {
        let copy = (pages - free) * page_size;
        let dir = conn
            .path()
            .and_then(|p| Path::new(p).parent().map(Path::to_path_buf));
        let room = dir.as_deref().is_some_and(|d| {
            durable::free_space(d)
                .is_some_and(|f| f as i64 > 2 * copy + durable::keep_free_bytes(d) as i64)
        });
        if free * 10 < pages || !room {
            return Ok(Reclaimed::default());
        }
        conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
        conn.execute_batch("VACUUM")?;
        converted = true;
    } else {
        // each step of the statement frees one page: step it to the end
        let mut st = conn.prepare("PRAGMA incremental_vacuum")?;
        let mut rows = st.query([])?;
        while rows.next()?.is_some() {}
    }
    checkpoint_truncate(conn);
    let left = value("freelist_count")? * page_size;
    Ok(Reclaimed {
        bytes: free_bytes - left,
        converted,
    })
}

/// Brings a database at `from` up to [`SCHEMA_VERSION`]: backup first, then
/// every migration in one transaction (a failure leaves the old file as it was).
fn migrate(conn: &Connection, path: &Path, from: i32) -> Result<(), DbError> {
    let backup = PathBuf::from(format!("{}.schema{from}-backup", path.display()));
    conn.execute("VACUUM INTO ?1", [backup.to_string_lossy()])
        .map_err(|e| classify(path, e))?;
    let run = || -> rusqlite::Result<()> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        for (to, sql) in MIGRATIONS.iter().filter(|(to, _)| *to > from) {
            conn.execute_batch(sql)?;
            conn.pragma_update(None, "user_version", to)?;
        }
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch("COMMIT")
    };
    if let Err(e) = run() {
        let _ = conn.execute_batch("ROLLBACK");
        return Err(classify(path, e));
    }
    Ok(())
}

/// The schema version of the file at `path` (0 when absent or unreadable).
pub fn version_of(path: &Path) -> i32 {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.pragma_query_value(None, "user_version", |r| r.get(0)))
        .unwrap_or(0)
}

/// Opens an existing index for reading (search, hooks, the MCP server).
///
/// A reader of a WAL database creates the `-shm` file beside it when no
/// other connection has it open. On a full disk or a read-only mount that
/// fails ("disk I/O error", "unable to open"), so then, when no write is
/// pending in a `-wal` file, the file is read as it is on disk
/// (`immutable=1`: no locks, no shared memory): search keeps answering.
pub fn open_ro(path: &Path) -> Result<Connection, DbError> {
    if !path.exists() {
        return Err(DbError::Missing { path: path.into() });
    }
    let first = open_ro_with(path, false);
    let cannot_share = match &first {
        Err(DbError::DiskFull { .. } | DbError::ReadOnly { .. }) => true,
        Err(DbError::Sqlite { source, .. }) => cannot_share(source),
        _ => false,
    };
    if cannot_share && !wal_pending(path) {
        return open_ro_with(path, true);
    }
    first
}

/// Whether `e` is SQLite failing to set up or lock its shared files.
fn cannot_share(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen | ErrorCode::ReadOnly)
    )
}

/// Whether a `-wal` file beside `path` holds frames not yet in the file.
fn wal_pending(path: &Path) -> bool {
    std::fs::metadata(format!("{}-wal", path.display())).is_ok_and(|m| m.len() > 0)
}

fn open_ro_with(path: &Path, immutable: bool) -> Result<Connection, DbError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = if immutable {
        let mut uri = url_path(path);
        uri.insert_str(0, "file:");
        uri.push_str("?immutable=1");
        Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
    } else {
        Connection::open_with_flags(path, flags)
    }
    .map_err(|e| classify(path, e))?;
    configure(&conn, path)?;
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(|e| classify(path, e))?;
    match version {
        v if v > SCHEMA_VERSION => Err(DbError::Newer {
            path: path.into(),
            found: v,
        }),
        v if v < SCHEMA_VERSION => Err(DbError::Corrupt {
            path: path.into(),
            cause: format!("schema {v} is older than {SCHEMA_VERSION}; `pms index` migrates it"),
        }),
        _ => Ok(conn),
    }
}

/// A path as the path part of an SQLite `file:` URI (`%`, `?` and `#`
/// escaped).
fn url_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `e`, met on the index at `path`, means the disk is full: SQLite
/// says so, or says "disk I/O error" (it cannot grow its shared-memory
/// file) while the disk has no room left.
fn means_disk_full(path: &Path, e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => true,
        Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen) => {
            crate::platform::host::durable::disk_is_full(path)
        }
        _ => false,
    }
}

/// What an SQLite error met on the index at `path` means (opening it, or
/// in the middle of an index run): corrupt (rebuilding is the cure), the
/// disk full (rebuilding would make it worse: the file is kept and the
/// error says so), another process's lock, a read-only file, folder or
/// disk (each said with what to do), or anything else, reported as it is.
pub fn classify(path: &Path, e: rusqlite::Error) -> DbError {
    use rusqlite::ErrorCode;
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => DbError::Corrupt {
            path: path.into(),
            cause: e.to_string(),
        },
        _ if means_disk_full(path, &e) => DbError::DiskFull { path: path.into() },
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            DbError::Busy { path: path.into() }
        }
        Some(ErrorCode::ReadOnly) => DbError::ReadOnly { path: path.into() },
        Some(ErrorCode::CannotOpen | ErrorCode::SystemIoFailure) if !writable(path) => {
            DbError::ReadOnly { path: path.into() }
        }
        _ => DbError::Sqlite {
            path: path.into(),
            source: e,
        },
    }
}

/// Whether this process may write the file at `path` (or create it) and
/// its folder (SQLite creates its `-wal` and `-shm` files there): a
/// read-only mount, `chattr +i` and a missing write bit all say no.
pub fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let may_write = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            // SAFETY: access only reads the C string.
            .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    may_write(dir) && (!path.exists() || may_write(path))
}

/// Closes a database built aside with everything in its main file: the WAL
/// checkpointed and truncated, and checked to be, before [`replace_with`]
/// moves that file alone. A checkpoint that fails (a full disk failing its
/// fsync) is an error: without it, the swap would put a file whose rows
/// are still in the WAL left behind, an empty index (schema 0), in place
/// of a whole one (the strace matrix found it).
pub fn close_whole(conn: Connection, path: &Path) -> Result<(), DbError> {
    let (busy, log, done): (i64, i64, i64) = conn
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(|e| classify(path, e))?;
    conn.close().map_err(|(_, e)| classify(path, e))?;
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    let wal_bytes = std::fs::metadata(&wal).map_or(0, |m| m.len());
    if busy != 0 || log != done || wal_bytes > 0 {
        return Err(DbError::NotCheckpointed {
            path: path.into(),
            detail: format!(
                "{done} of {log} WAL pages checkpointed, {wal_bytes} bytes left in its WAL"
            ),
        });
    }
    Ok(())
}

/// Puts the database built at `aside` in place of `path` (its connection
/// closed by [`close_whole`]): the old file's WAL files go first, then one rename. A reader
/// that has the old file open keeps reading it until it reopens.
pub fn replace_with(path: &Path, aside: &Path) -> std::io::Result<()> {
    for suffix in ["-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    crate::platform::host::durable::fault_point("rename", path)?;
    std::fs::rename(aside, path)
}

/// The files of the database at `path`: itself, the rollback journal
/// SQLite writes until the WAL is set up (a rebuild killed in its first
/// moments leaves one: the strace matrix found it), the WAL and its shared
/// memory.
pub fn files_of(path: &Path) -> [PathBuf; 4] {
    ["", "-journal", "-wal", "-shm"]
        .map(|suffix| PathBuf::from(format!("{}{suffix}", path.display())))
}

/// Deletes the database and its journal and WAL files (a rebuild's
/// leftovers, a database rebuilt aside).
pub fn remove(path: &Path) -> std::io::Result<()> {
    for p in files_of(path) {
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

pub fn get_meta(conn: &Connection, key: &str) -> Option<String> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
        .ok()
}

pub fn set_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_then_reopens_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db");
        assert!(matches!(open_ro(&p), Err(DbError::Missing { .. })));
        let c = open_rw(&p).unwrap();
        set_meta(&c, "k", "v").unwrap();
        drop(c);
        let ro = open_ro(&p).unwrap();
        assert_eq!(get_meta(&ro, "k").as_deref(), Some("v"));
    }

    #[test]
    fn a_database_built_aside_is_closed_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db.rebuild");
        let c = open_rw(&p).unwrap();
        set_meta(&c, "k", "v").unwrap();
        close_whole(c, &p).unwrap();
        // everything is in the main file: moved alone, it holds the rows
        let moved = dir.path().join("index.db");
        std::fs::rename(&p, &moved).unwrap();
        assert_eq!(
            get_meta(&open_ro(&moved).unwrap(), "k").as_deref(),
            Some("v")
        );
        // a checkpoint that cannot finish (a reader pins the WAL here; a
        // full disk failing its fsync in the crash matrix) is an error
        let c = open_rw(&p).unwrap();
        set_meta(&c, "k", "v").unwrap();
        let reader = Connection::open(&p).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let _: i64 = reader
            .query_row("SELECT count(*) FROM meta", [], |r| r.get(0))
            .unwrap();
        set_meta(&c, "k2", "v2").unwrap();
        // (not the 5 s wait for the reader to finish)
        c.busy_timeout(std::time::Duration::ZERO).unwrap();
        let err = close_whole(c, &p).unwrap_err();
        assert!(matches!(err, DbError::NotCheckpointed { .. }), "{err}");
        assert!(err.to_string().contains("old one was kept"), "{err}");
    }

    #[test]
    fn garbage_file_is_reported_as_corrupt_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db");
        std::fs::write(&p, vec![0x42u8; 8192]).unwrap();
        let err = open_rw(&p).unwrap_err();
        assert!(matches!(err, DbError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("pms index --full"));
    }

    #[test]
    fn an_older_schema_is_migrated_after_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db");
        let c = open_rw(&p).unwrap();
        // make it look like schema 1: no indexed_at column
        c.execute_batch("ALTER TABLE files DROP COLUMN indexed_at;")
            .unwrap();
        c.execute("INSERT INTO files(uri, abs_path, source, size, mtime_ns, content_hash) VALUES ('a.md', '/a.md', 'knowledge', 1, 1, 1)", []).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        drop(c);
        assert_eq!(version_of(&p), 1);
        let c = open_rw(&p).unwrap();
        assert_eq!(version_of(&p), SCHEMA_VERSION);
        let uri: String = c
            .query_row("SELECT uri FROM files WHERE indexed_at IS NULL", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(uri, "a.md", "data kept");
        assert!(dir.path().join("index.db.schema1-backup").exists());
        assert_eq!(version_of(&dir.path().join("index.db.schema1-backup")), 1);
    }

    #[test]
    fn schema_3_gains_the_vector_file_trigger_and_keeps_its_vectors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db");
        let c = open_rw(&p).unwrap();
        c.execute_batch("DROP TRIGGER vector_file_stale_on_reuse;")
            .unwrap();
        c.execute(
            "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (5, x'0102')",
            [],
        )
        .unwrap();
        c.pragma_update(None, "user_version", 3).unwrap();
        drop(c);
        let c = open_rw(&p).unwrap();
        assert_eq!(version_of(&p), SCHEMA_VERSION);
        let n: i64 = c
            .query_row("SELECT count(*) FROM chunk_vectors", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1, "vectors kept");
        // the trigger works: a vector stored at or below the file's
        // largest id removes the stamp
        set_meta(&c, "vector_file", "abc").unwrap();
        set_meta(&c, "vector_file_max", "5").unwrap();
        c.execute(
            "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (6, x'01')",
            [],
        )
        .unwrap();
        assert_eq!(get_meta(&c, "vector_file").as_deref(), Some("abc"));
        c.execute(
            "INSERT INTO chunk_vectors(chunk_id, vec) VALUES (4, x'01')",
            [],
        )
        .unwrap();
        assert_eq!(get_meta(&c, "vector_file"), None);
        assert_eq!(get_meta(&c, "vector_file_max"), None);
    }

    #[test]
    fn newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("index.db");
        let c = open_rw(&p).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(c);
        assert!(matches!(open_rw(&p), Err(DbError::Newer { .. })));
        assert!(matches!(open_ro(&p), Err(DbError::Newer { .. })));
    }
}

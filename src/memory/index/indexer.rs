//! `pms index`: bring the database in step with the files, doing as little
//! work as possible.
//!
//! Three sources feed it: the workspace's markdown (knowledge), its session
//! summaries, and Claude Code's transcripts under the configured roots. For
//! each file the stored size and mtime decide first: equal means skip (this
//! is what makes a no-op run over thousands of files take milliseconds). A
//! transcript that grew and still starts with the same bytes was appended
//! to, which is how Claude Code writes them, so only the new lines are read,
//! from the stored offset (re-reading the last two turns, whose lines may
//! have been split by the previous read). Anything else is re-indexed whole,
//! and files that disappeared leave the index.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, OptionalExtension, params};

use super::chunk::chunk_markdown;
use super::discover::{self, Found};
use super::file_touches;
use crate::memory::words::terms::{index_body, index_unigrams};
use crate::platform::agents::transcript::{self, ReadOptions, Turn};
use crate::platform::host::durable;
use crate::platform::host::env::HostEnv;
use crate::platform::progress::{Progress, Step};
use crate::platform::redact::redact;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::config::Config;
use crate::platform::workspace::summary_meta::SummaryMeta;

/// Where a chunk came from. Stored as text in `files.source` and `chunks.source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    Knowledge,
    Summary,
    Transcript,
    /// Claude Code's auto-memory files (`<project>/memory/*.md`).
    Memory,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Knowledge => "knowledge",
            Source::Summary => "summary",
            Source::Transcript => "transcript",
            Source::Memory => "memory",
        }
    }
    pub fn parse(s: &str) -> Option<Source> {
        match s {
            "knowledge" => Some(Source::Knowledge),
            "summary" | "summaries" => Some(Source::Summary),
            "transcript" | "transcripts" => Some(Source::Transcript),
            "memory" | "memories" | "auto-memory" => Some(Source::Memory),
            _ => None,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexReport {
    pub files_seen: usize,
    pub files_unchanged: usize,
    pub files_indexed: usize,
    pub files_appended: usize,
    pub files_removed: usize,
    pub chunks_written: usize,
    pub bytes_read: u64,
    pub malformed_lines: u64,
    pub elapsed_ms: u128,
    /// The run stopped before the disk would have had less than
    /// `durable::keep_free_bytes` free: this much was free, and this many
    /// changed files were left for a later run.
    pub stopped_for_space: Option<StoppedForSpace>,
}

/// Why and where an index run stopped early.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoppedForSpace {
    pub free_bytes: u64,
    /// What pms keeps free on that disk.
    pub kept_bytes: u64,
    pub files_left: usize,
}

/// Bytes of database (its file and its log of changes) one byte read of a
/// new file may take until committed and checkpointed, counted generously:
/// measured 0.95 for transcripts of prompts (15.7 MB made a 15.0 MB index)
/// and 2.2 for notes of random words (4.9 MB made 11.0 MB), and the log of
/// changes holds a batch again until it is checkpointed.
const GROWTH_PER_BYTE_READ: u64 = 3;

/// A file as the index last saw it.
struct Stored {
    id: i64,
    size: u64,
    mtime_ns: i64,
    content_hash: i64,
    indexed_offset: u64,
    resume_offset: u64,
    resume_line: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index database: {0}{hint}", hint = disk_full_hint(.0))]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Db(#[from] super::db::DbError),
}

/// What to do about an error that means the disk is full.
fn disk_full_hint(e: &rusqlite::Error) -> &'static str {
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
        ".\n  The index keeps what it held and search still answers. Fix: free some space on that disk, then run `pms index` (not --full)"
    } else {
        ""
    }
}

/// Runs one indexing pass over everything.
pub fn run(
    conn: &mut Connection,
    ws: &Workspace,
    env: &HostEnv,
    cfg: &Config,
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    let roots = transcript_roots(env, cfg);
    let mut found = discover::workspace(ws);
    found.extend(discover::transcripts(&roots));
    let logs = discover::AgentLogs::of(env, ws);
    found.extend(discover::agent_transcripts(&logs));
    found.extend(discover::imported_conversations(&logs));
    if crate::platform::agents::claude::auto_memory::enabled(env) {
        found.extend(discover::auto_memory(&roots));
    }
    sync(conn, cfg, found, None, progress)
}

/// Indexes only `paths` (workspace files or transcripts), without looking at
/// anything else: what a hook does when it knows which transcript grew.
/// Paths outside the workspace and the transcript roots are ignored.
pub fn run_paths(
    conn: &mut Connection,
    ws: &Workspace,
    env: &HostEnv,
    cfg: &Config,
    paths: &[PathBuf],
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    let roots = transcript_roots(env, cfg);
    let logs = discover::AgentLogs::of(env, ws);
    let mut found = Vec::new();
    for p in paths {
        if let Some(f) = discover::classify(ws, &roots, &logs, p) {
            found.push(f);
        }
    }
    let uris: Vec<String> = found.iter().map(|f| f.uri.clone()).collect();
    sync(conn, cfg, found, Some(&uris), progress)
}

/// Brings the index in step with `found`. With `only`, files not in `found`
/// are left alone instead of being treated as deleted.
fn sync(
    conn: &mut Connection,
    cfg: &Config,
    found: Vec<Found>,
    only: Option<&[String]>,
    progress: &dyn Progress,
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    let stored = match only {
        None => load_stored(conn)?,
        Some(uris) => load_stored_for(conn, uris)?,
    };
    let mut report = IndexReport {
        files_seen: found.len(),
        ..IndexReport::default()
    };

    let mut work = Vec::new();
    // Oldest first, so chunk ids (FTS rowids) follow time: search bounds the
    // ranking of very broad queries to the newest matches by rowid.
    let mut found = found;
    found.sort_by_key(|f| f.mtime_ns);
    for f in &found {
        match stored.get(&f.uri) {
            Some(s) if s.size == f.size && s.mtime_ns == f.mtime_ns => report.files_unchanged += 1,
            s => work.push((f, s)),
        }
    }
    let total_bytes: u64 = work
        .iter()
        .map(|(f, s)| match (f.source, s) {
            (Source::Transcript, Some(s)) if f.size > s.indexed_offset => f.size - s.indexed_offset,
            _ => f.size,
        })
        .sum();
    progress.start(Step::Indexing {
        files: work.len() as u64,
        bytes: total_bytes,
    });
    // Commit in batches of about 32 MB read: each commit flushes FTS5's
    // pending terms into a new segment, and thousands of tiny segments cost
    // more to merge than the commits save.
    let fill = file_touches::needs_fill(conn)?;
    let mut tx = conn.transaction()?;
    let mut fts = Batch::default();
    if fill {
        file_touches::fill(&tx, &mut fts.file_history)?;
    }
    let mut batch_bytes = 0u64;
    let db_dir = tx
        .path()
        .and_then(|p| Path::new(p).parent())
        .map(Path::to_path_buf);
    let keep_free = db_dir.as_deref().map_or(0, durable::keep_free_bytes);
    let files = work.len();
    for (done, (f, s)) in work.into_iter().enumerate() {
        let to_read = match (f.source, s) {
            (Source::Transcript, Some(s)) if f.size > s.indexed_offset => f.size - s.indexed_offset,
            _ => f.size,
        };
        if let Some(free) = db_dir.as_deref().and_then(durable::free_space) {
            let need = (batch_bytes + to_read) * GROWTH_PER_BYTE_READ;
            if free < keep_free + need {
                report.stopped_for_space = Some(StoppedForSpace {
                    free_bytes: free,
                    kept_bytes: keep_free,
                    files_left: files - done,
                });
                break;
            }
            // Near the margin, each file is committed on its own: a batch
            // of 32 MB in the log of changes is what filled the disk.
            if free < keep_free + (64 << 20) && batch_bytes > 0 {
                fts.write(&tx)?;
                tx.commit()?;
                tx = conn.transaction()?;
                batch_bytes = 0;
            }
        }
        let outcome = match f.source {
            Source::Transcript => index_transcript(&tx, &mut fts, f, s, cfg)?,
            Source::Knowledge | Source::Summary | Source::Memory => {
                index_markdown(&tx, &mut fts, f, s, cfg)?
            }
        };
        batch_bytes += outcome.bytes;
        if batch_bytes > 32 << 20 {
            fts.write(&tx)?;
            tx.commit()?;
            tx = conn.transaction()?;
            batch_bytes = 0;
        }
        match outcome.kind {
            Outcome::Unchanged => report.files_unchanged += 1,
            Outcome::Appended => report.files_appended += 1,
            Outcome::Indexed => report.files_indexed += 1,
        }
        report.chunks_written += outcome.chunks;
        report.bytes_read += outcome.bytes;
        report.malformed_lines += outcome.malformed;
        progress.advance(outcome.bytes);
    }
    fts.write(&tx)?;
    tx.commit()?;

    if report.stopped_for_space.is_some() {
        // What was committed stays; the log of changes gives its space back.
        super::db::checkpoint_truncate(conn);
        progress.finish();
        report.elapsed_ms = started.elapsed().as_millis();
        return Ok(report);
    }
    let seen: HashSet<&str> = found.iter().map(|f| f.uri.as_str()).collect();
    let gone: Vec<i64> = stored
        .iter()
        .filter(|(uri, _)| only.is_none() && !seen.contains(uri.as_str()))
        .map(|(_, s)| s.id)
        .collect();
    if !gone.is_empty() {
        let tx = conn.transaction()?;
        let mut dirty = file_touches::Dirty::default();
        for id in &gone {
            tx.execute("DELETE FROM chunks WHERE file_id = ?1", [id])?;
            file_touches::forget(&tx, *id, &mut dirty)?;
            tx.execute("DELETE FROM files WHERE id = ?1", [id])?;
        }
        dirty.save(&tx)?;
        tx.commit()?;
    }
    report.files_removed = gone.len();
    if only.is_none() && (report.chunks_written > 0 || report.files_removed > 0) {
        refresh_frequent_terms(conn)?;
    }
    super::db::set_meta(conn, "last_index", &chrono::Utc::now().to_rfc3339())?;
    progress.finish();
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}

/// A term in more transcript chunks than this (and than 2% of them) is
/// "frequent" for search; the threshold is kept in the meta table
/// ([`FREQUENT_THRESHOLD`]).
const FREQUENT_MIN_DOCS: i64 = 20_000;
/// The meta key of that threshold, which keyword search reads.
pub const FREQUENT_THRESHOLD: &str = "frequent_terms_threshold";

/// `frequent_terms` lists every term in more transcript chunks than this:
/// too common to link two turns (the second hop's bridge words), which the
/// hop would otherwise count one FTS5 query at a time (about 0.25 ms each,
/// 16 per hop).
pub const COMMON_MIN_DOCS: i64 = 500;

/// The transcript chunks when `frequent_terms` was last computed. The name
/// changed when the table began to list every common term (not only the
/// frequent ones), so that the next index run recomputes it.
const FREQUENT_TERMS_CHUNKS: &str = "frequent_terms_chunks_v2";

/// Recomputes `frequent_terms` when the number of transcript chunks moved by
/// more than 10% since the last time (the vocabulary scan takes about a
/// second per million chunks, so it is not done on every run).
pub fn refresh_frequent_terms(conn: &Connection) -> rusqlite::Result<()> {
    // All chunks (counted through the small file index) stand in for the
    // transcript ones: they are nearly all of them on any index large enough
    // to matter, and this count is cheap.
    let chunks: i64 = conn.query_row(
        "SELECT COUNT(*) FROM chunks INDEXED BY chunks_by_file",
        [],
        |r| r.get(0),
    )?;
    let last: i64 = super::db::get_meta(conn, FREQUENT_TERMS_CHUNKS)
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1);
    if last >= 0 && (chunks - last).abs() * 10 <= last {
        return Ok(());
    }
    let threshold = FREQUENT_MIN_DOCS.max(chunks / 50);
    let tx = conn.unchecked_transaction()?;
    tx.execute("DELETE FROM frequent_terms", [])?;
    if chunks > COMMON_MIN_DOCS {
        tx.execute(
            "INSERT INTO frequent_terms(term, docs) SELECT term, doc FROM transcript_vocab WHERE doc > ?1",
            [COMMON_MIN_DOCS],
        )?;
    }
    super::db::set_meta(&tx, FREQUENT_THRESHOLD, &threshold.to_string())?;
    super::db::set_meta(&tx, FREQUENT_TERMS_CHUNKS, &chunks.to_string())?;
    tx.commit()
}

/// Where transcripts live: Claude Code's own projects folder (which follows
/// `$CLAUDE_CONFIG_DIR`), then the extra roots of `index.transcript_roots`.
pub fn transcript_roots(env: &HostEnv, cfg: &Config) -> Vec<PathBuf> {
    let mut roots = vec![env.claude_projects()];
    for r in &cfg.index.transcript_roots {
        let r = env.expand_tilde(r);
        if !roots.contains(&r) {
            roots.push(r);
        }
    }
    roots
}

/// The `files` columns a [`Stored`] is read from, in [`Stored::from_row`]'s order.
const STORED_COLUMNS: &str =
    "id, size, mtime_ns, content_hash, indexed_offset, resume_offset, resume_line";

impl Stored {
    /// Reads [`STORED_COLUMNS`] starting at column `first`.
    fn from_row(r: &rusqlite::Row, first: usize) -> rusqlite::Result<Stored> {
        let u64_at = |i: usize| r.get::<_, i64>(first + i).map(|v| v as u64);
        Ok(Stored {
            id: r.get(first)?,
            size: u64_at(1)?,
            mtime_ns: r.get(first + 2)?,
            content_hash: r.get(first + 3)?,
            indexed_offset: u64_at(4)?,
            resume_offset: u64_at(5)?,
            resume_line: u64_at(6)?,
        })
    }
}

fn load_stored_for(
    conn: &Connection,
    uris: &[String],
) -> rusqlite::Result<HashMap<String, Stored>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {STORED_COLUMNS} FROM files WHERE uri = ?1"
    ))?;
    let mut out = HashMap::new();
    for uri in uris {
        if let Some(s) = stmt
            .query_row([uri], |r| Stored::from_row(r, 0))
            .optional()?
        {
            out.insert(uri.clone(), s);
        }
    }
    Ok(out)
}

fn load_stored(conn: &Connection) -> rusqlite::Result<HashMap<String, Stored>> {
    let mut stmt = conn.prepare(&format!("SELECT uri, {STORED_COLUMNS} FROM files"))?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, Stored::from_row(r, 1)?))
    })?;
    rows.collect()
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Unchanged,
    Appended,
    Indexed,
}

struct FileOutcome {
    kind: Outcome,
    chunks: usize,
    bytes: u64,
    malformed: u64,
}

fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn hash_i64(bytes: &[u8]) -> i64 {
    xxhash_rust::xxh3::xxh3_64(bytes) as i64
}

/// Hash of the first `min(4096, limit)` bytes: the part of a transcript
/// already indexed, so an append (which changes only the end) keeps it.
fn head_hash(path: &Path, limit: u64) -> std::io::Result<i64> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; limit.min(4096) as usize];
    let mut n = 0;
    while n < buf.len() {
        let k = f.read(&mut buf[n..])?;
        if k == 0 {
            break;
        }
        n += k;
    }
    Ok(hash_i64(&buf[..n]))
}

/// Creates or resets the `files` row and returns its id.
fn upsert_file(tx: &Connection, f: &Found, hash: i64) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO files(uri, abs_path, source, project, size, mtime_ns, content_hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(uri) DO UPDATE SET abs_path = excluded.abs_path, source = excluded.source,
             project = excluded.project, size = excluded.size, mtime_ns = excluded.mtime_ns,
             content_hash = excluded.content_hash, indexed_at = NULL",
        params![
            f.uri,
            f.abs.to_string_lossy(),
            f.source.as_str(),
            f.project,
            f.size as i64,
            f.mtime_ns,
            hash
        ],
    )?;
    tx.query_row("SELECT id FROM files WHERE uri = ?1", [&f.uri], |r| {
        r.get(0)
    })
}

/// FTS rows waiting to be written. They are inserted together just before
/// each commit: any ordinary statement that opens a statement savepoint (an
/// insert into `chunks`, an update of `files`) makes SQLite call every
/// written virtual table's savepoint method, and FTS5 answers by flushing its
/// pending terms to disk as a new segment. Interleaving the two made one
/// segment per chunk, and merging them took most of the indexing time.
/// What a run writes at each commit besides the chunks: their full-text
/// rows, and the file-history shards their rows changed.
#[derive(Default)]
struct Batch {
    transcript: Vec<(i64, String, String)>,
    structured: Vec<(i64, String, String, &'static str)>,
    file_history: file_touches::Dirty,
}

impl Batch {
    fn write(&mut self, tx: &Connection) -> rusqlite::Result<()> {
        self.file_history.save(tx)?;
        let mut st =
            tx.prepare_cached("INSERT INTO transcript_fts(rowid, body, uni) VALUES (?1, ?2, ?3)")?;
        for (id, body, uni) in self.transcript.drain(..) {
            st.execute(params![id, body, uni])?;
        }
        let mut st = tx.prepare_cached(
            "INSERT INTO knowledge_fts(rowid, body, uni, src) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (id, body, uni, src) in self.structured.drain(..) {
            st.execute(params![id, body, uni, src])?;
        }
        Ok(())
    }
}

struct NewChunk<'a> {
    source: Source,
    role: Option<&'a str>,
    heading: Option<&'a str>,
    line_start: u64,
    line_end: u64,
    ts: Option<&'a str>,
    text: &'a str,
}

fn insert_chunk(
    tx: &Connection,
    fts: &mut Batch,
    file_id: i64,
    c: &NewChunk,
) -> rusqlite::Result<()> {
    let clean = redact(c.text);
    if clean.trim().is_empty() {
        return Ok(());
    }
    let heading = c.heading.map(redact);
    let heading = heading.as_deref();
    tx.prepare_cached(
        "INSERT INTO chunks(file_id, source, role, heading, line_start, line_end, ts, text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        file_id,
        c.source.as_str(),
        c.role,
        heading,
        c.line_start as i64,
        c.line_end as i64,
        c.ts,
        clean.as_ref()
    ])?;
    let id = tx.last_insert_rowid();
    if let (Source::Transcript, Some(role)) = (c.source, c.role) {
        let seen = file_touches::ChunkSeen {
            file_id,
            role,
            line_start: c.line_start,
            ts: c.ts,
            text: &clean,
        };
        file_touches::record(tx, &seen, &mut fts.file_history)?;
    }
    let with_heading;
    let body = match heading {
        Some(h) if !h.is_empty() => {
            with_heading = format!("{h}\n{clean}");
            index_body(&with_heading)
        }
        _ => index_body(&clean),
    };
    let uni = index_unigrams(&clean);
    if c.source == Source::Transcript {
        fts.transcript.push((id, body.into_owned(), uni));
    } else {
        fts.structured
            .push((id, body.into_owned(), uni, c.source.as_str()));
    }
    Ok(())
}

fn index_markdown(
    tx: &Connection,
    fts: &mut Batch,
    f: &Found,
    stored: Option<&Stored>,
    cfg: &Config,
) -> rusqlite::Result<FileOutcome> {
    let bytes = std::fs::read(&f.abs).unwrap_or_default();
    let hash = hash_i64(&bytes);
    if let Some(s) = stored
        && s.content_hash == hash
    {
        // Touched but not changed: remember the new mtime, keep the chunks.
        tx.execute(
            "UPDATE files SET size = ?1, mtime_ns = ?2 WHERE id = ?3",
            params![f.size as i64, f.mtime_ns, s.id],
        )?;
        return Ok(FileOutcome {
            kind: Outcome::Unchanged,
            chunks: 0,
            bytes: 0,
            malformed: 0,
        });
    }
    let text = String::from_utf8_lossy(&bytes);
    let file_id = upsert_file(tx, f, hash)?;
    tx.execute("DELETE FROM chunks WHERE file_id = ?1", [file_id])?;
    let meta = if f.source == Source::Summary {
        SummaryMeta::parse(&text)
    } else {
        SummaryMeta::default()
    };
    if f.source == Source::Summary {
        tx.execute(
            "UPDATE files SET project = ?1, session_id = ?2, ref_uri = ?3, last_ts = ?4 WHERE id = ?5",
            params![meta.project.clone().unwrap_or_default(), meta.session_id, meta.transcript_ref, meta.end, file_id],
        )?;
    }
    let mtime = chrono::DateTime::from_timestamp_nanos(f.mtime_ns)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let ts = meta.end.clone().unwrap_or(mtime);
    let chunks = chunk_markdown(&text, cfg.index.chunk_chars, cfg.index.chunk_overlap_chars);
    for c in &chunks {
        insert_chunk(
            tx,
            fts,
            file_id,
            &NewChunk {
                source: f.source,
                role: None,
                heading: Some(&c.heading),
                line_start: c.line_start as u64,
                line_end: c.line_end as u64,
                ts: Some(&ts),
                text: &c.text,
            },
        )?;
    }
    tx.execute(
        "UPDATE files SET indexed_at = ?1 WHERE id = ?2",
        params![now_rfc3339(), file_id],
    )?;
    Ok(FileOutcome {
        kind: Outcome::Indexed,
        chunks: chunks.len(),
        bytes: bytes.len() as u64,
        malformed: 0,
    })
}

fn index_transcript(
    tx: &Connection,
    fts: &mut Batch,
    f: &Found,
    stored: Option<&Stored>,
    cfg: &Config,
) -> rusqlite::Result<FileOutcome> {
    let opts = ReadOptions {
        tool_result_chars: cfg.index.tool_result_chars,
        keep_sidechain: f.subagent,
        max_lines: None,
        ..ReadOptions::default()
    };
    // Appended to since the last run: read only the new part.
    let append_from = match stored {
        Some(s)
            if f.size >= s.indexed_offset
                && head_hash(&f.abs, s.indexed_offset).ok() == Some(s.content_hash) =>
        {
            Some(s)
        }
        _ => None,
    };
    let (file_id, start_offset, start_line, kind) = match append_from {
        Some(s) => {
            tx.execute(
                "DELETE FROM chunks WHERE file_id = ?1 AND line_start > ?2",
                params![s.id, s.resume_line as i64],
            )?;
            (s.id, s.resume_offset, s.resume_line, Outcome::Appended)
        }
        None => {
            let id = upsert_file(tx, f, 0)?;
            tx.execute("DELETE FROM chunks WHERE file_id = ?1", [id])?;
            file_touches::forget(tx, id, &mut fts.file_history)?;
            tx.execute(
                "UPDATE files SET indexed_offset = 0, indexed_lines = 0, resume_offset = 0, resume_line = 0,
                 malformed_lines = 0, first_ts = NULL, last_ts = NULL WHERE id = ?1",
                [id],
            )?;
            (id, 0, 0, Outcome::Indexed)
        }
    };
    let Ok(mut file) = File::open(&f.abs) else {
        return Ok(FileOutcome {
            kind: Outcome::Unchanged,
            chunks: 0,
            bytes: 0,
            malformed: 0,
        });
    };
    if file.seek(SeekFrom::Start(start_offset)).is_err() {
        return Ok(FileOutcome {
            kind: Outcome::Unchanged,
            chunks: 0,
            bytes: 0,
            malformed: 0,
        });
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let (turns, st) = transcript::read(&mut reader, start_offset, start_line, &opts);
    let cap = cfg.index.chunk_chars * 3;
    let mut n = 0;
    for t in &turns {
        // A pasted log or file can be megabytes; its start is what a person
        // searches for, and the whole of it stays readable with `pms get`.
        let text = match t.text.char_indices().nth(cap * 4) {
            Some((i, _)) => &t.text[..i],
            None => t.text.as_str(),
        };
        for piece in split_long(text, cap) {
            insert_chunk(
                tx,
                fts,
                file_id,
                &NewChunk {
                    source: Source::Transcript,
                    role: Some(t.role.as_str()),
                    heading: None,
                    line_start: t.line_start,
                    line_end: t.line_end,
                    ts: t.timestamp.as_deref(),
                    text: piece,
                },
            )?;
            n += 1;
        }
    }
    // The next append re-reads from the second-to-last turn: the last turn
    // may continue (same message id) and a tool result needs its tool's name.
    let resume: Option<&Turn> = turns.iter().rev().nth(1).or(turns.last());
    let (resume_offset, resume_line) = match resume {
        Some(t) => (t.byte_start, t.line_start - 1),
        None => (st.end_offset, start_line + st.lines),
    };
    // Codex and OpenClaw conversations are filed under the project their
    // cwd names, as Claude Code names its folders, so a project filter finds
    // a project's work whichever agent did it.
    if f.project.is_empty()
        && let Some(cwd) = &st.cwd
    {
        tx.execute(
            "UPDATE files SET project = ?1 WHERE id = ?2 AND project = ''",
            params![
                crate::platform::agents::claude::project_folder_name(cwd),
                file_id
            ],
        )?;
    }
    let hash = head_hash(&f.abs, st.end_offset).unwrap_or(0);
    tx.execute(
        "UPDATE files SET size = ?1, mtime_ns = ?2, content_hash = ?3, indexed_offset = ?4,
            indexed_lines = ?5, resume_offset = ?6, resume_line = ?7,
            malformed_lines = malformed_lines + ?8,
            session_id = COALESCE(session_id, ?9), cwd = COALESCE(cwd, ?10),
            first_ts = COALESCE(first_ts, ?11), last_ts = COALESCE(?12, last_ts), indexed_at = ?14
         WHERE id = ?13",
        params![
            f.size as i64,
            f.mtime_ns,
            hash,
            st.end_offset as i64,
            (start_line + st.lines) as i64,
            resume_offset as i64,
            resume_line as i64,
            st.malformed as i64,
            st.session_id,
            st.cwd,
            st.first_timestamp,
            st.last_timestamp,
            file_id,
            now_rfc3339()
        ],
    )?;
    Ok(FileOutcome {
        kind,
        chunks: n,
        bytes: st.end_offset.saturating_sub(start_offset),
        malformed: st.malformed,
    })
}

/// Pieces of at most about `cap` characters, cut at line or char boundaries.
fn split_long(text: &str, cap: usize) -> Vec<&str> {
    if text.len() <= cap {
        return vec![text];
    }
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > cap {
        let mut cut = crate::platform::host::text::floor_boundary(rest, cap);
        if let Some(nl) = rest[..cut].rfind('\n')
            && nl > cap / 2
        {
            cut = nl;
        }
        out.push(&rest[..cut]);
        rest = rest[cut..].trim_start_matches('\n');
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_long_respects_char_boundaries() {
        let s = "数据".repeat(1000);
        let parts = split_long(&s, 100);
        assert!(parts.len() > 10);
        assert_eq!(parts.concat(), s);
    }
}

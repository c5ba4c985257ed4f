//! Which past sessions changed or discussed a file: the `file_touches`
//! table, and its copy in `.pms/file-history/` that the pre-tool-use hook
//! reads before a session's first edit of a file.
//!
//! The hook used to find a file's past sessions in the index itself: an
//! FTS5 phrase query over every transcript chunk, then each hit's text.
//! That meant opening SQLite on the hook path, 1.2 to 1.9 ms of a 5 ms
//! budget (most of it the open and the schema's first load). Now the
//! indexer notes the files each user or agent turn names as it writes the
//! turn's chunks (one row per session and file, in the same transaction),
//! and copies the rows into 256 small files chosen by a hash of the path,
//! which the hook reads without SQLite ([`read`]).
//!
//! What counts as touching a file:
//! - a turn whose tool call writes it (`[tool Edit] <path>`) changed it;
//! - a turn whose own words name it discussed it. A tool's output that
//!   points at the file (a compiler error) does not: that is not a session
//!   talking about it.
//!
//! A name is a token that looks like a path: it holds a `/` (and is not a
//! URL), or ends in an extension (`main.tf`, `.env`), or is a well-known
//! file without one (`Makefile`). Tokens are cut at anything a path does
//! not hold (spaces, quotes, backticks, `:` of `a.rs:47`), so
//! `lib/src/a.rs` is not a mention of `src/a.rs`.
//!
//! ```text
//! .pms/file-history/complete     "pms-file-history 1": every shard is written
//! .pms/file-history/<00..ff>     one shard, rows whose path hashes to it:
//!   pms-file-history 1
//!   <path>\t<C|D>\t<line>\t<date>\t<session id>\t<project>\t<cwd>\t<uri>\t<about>
//! ```
//!
//! `C` changed, `D` discussed; `about` is what the turn said besides its
//! tool calls (or the turn before it, when it only called tools), already
//! redacted as the chunks are, `asked: ` before a user's words. Shards
//! changed by an index run are listed in the meta table
//! (`file_history_dirty`) in the same transaction as the rows, and written
//! after it: a run killed between the two leaves them listed, and the next
//! run writes them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};

use crate::platform::agents::transcript::{is_edit_tool, truncate};
use crate::platform::host::durable;

const HEADER: &str = "pms-file-history 1";
/// Shards: enough that one holds a few dozen rows on a large history.
const SHARDS: u16 = 256;
/// The meta key listing the shards to write.
const DIRTY: &str = "file_history_dirty";
/// The meta key saying the table holds every chunk indexed before it
/// existed (schema 5).
const FILLED: &str = "file_touches_filled";
/// Most files one turn is taken to touch: a pasted listing of 500 paths is
/// not a discussion of each.
const MOST_PER_TURN: usize = 64;
/// Longest `about` kept, in characters: the hook shows the first two
/// sentences within 220 (`recall::first_sentences`), and a shard holds it
/// once per session and file.
const ABOUT_CHARS: usize = 240;
/// Files people name without an extension.
const KNOWN_NAMES: &[&str] = &[
    "Makefile",
    "Dockerfile",
    "Containerfile",
    "Gemfile",
    "Rakefile",
    "Procfile",
    "Justfile",
    "Jenkinsfile",
    "Vagrantfile",
    "Brewfile",
    "Podfile",
    "Caddyfile",
    "CODEOWNERS",
    "LICENSE",
];

/// Whether a session changed a file or only talked about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TouchKind {
    Discussed,
    Changed,
}

/// One session's touch of one path, as the hook reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct TouchRow {
    /// The path as the session wrote it (absolute, or relative to its
    /// project).
    pub path: String,
    pub kind: TouchKind,
    /// The transcript line of the newest turn that touched it.
    pub line: u64,
    /// When (RFC 3339), if known.
    pub date: Option<String>,
    pub session_id: Option<String>,
    pub project: String,
    pub cwd: Option<String>,
    pub uri: String,
    pub about: String,
}

/// The folder of the shards.
pub fn dir_of(state_dir: &Path) -> PathBuf {
    state_dir.join("file-history")
}

/// The shard a path's rows are in.
fn shard_of(path: &str) -> u16 {
    (xxhash_rust::xxh3::xxh3_64(path.as_bytes()) % u64::from(SHARDS)) as u16
}

/// The files a user or agent turn's text names: each path once, changed
/// when a tool line writes it, at most [`MOST_PER_TURN`].
pub fn named_files(text: &str) -> Vec<(String, TouchKind)> {
    let mut out: Vec<(String, TouchKind)> = Vec::new();
    let mut note = |path: &str, kind: TouchKind| {
        if let Some((_, k)) = out.iter_mut().find(|(p, _)| p == path) {
            *k = (*k).max(kind);
        } else if out.len() < MOST_PER_TURN {
            out.push((path.to_string(), kind));
        }
    };
    for line in text.lines() {
        match line.strip_prefix("[tool ") {
            Some(rest) => match rest.split_once("] ") {
                // `apply_patch` lists the files it patched, space-separated;
                // the other tools write one file, whose path is the whole
                // rest of the line (`My Project/`, `app/[slug]/page.tsx`)
                Some(("apply_patch", paths)) => paths
                    .split_whitespace()
                    .for_each(|p| note(p, TouchKind::Changed)),
                Some((tool, path)) if is_edit_tool(tool) && !path.trim().is_empty() => {
                    note(path.trim(), TouchKind::Changed)
                }
                // a read, a search, a command: not a discussion of the file
                _ => {}
            },
            None => path_tokens(line).for_each(|p| note(p, TouchKind::Discussed)),
        }
    }
    out
}

/// The tokens of `line` that look like a file's path.
fn path_tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| {
        !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~' | '+' | '@'))
    })
    .map(|t| t.trim_end_matches('.'))
    // Claude Code's `@src/a.rs` names the file as a reference
    .map(|t| t.strip_prefix('@').unwrap_or(t))
    .map(|t| t.strip_prefix("./").unwrap_or(t))
    .filter(|t| looks_like_path(t))
}

fn looks_like_path(t: &str) -> bool {
    if t.len() < 2 || t.len() > 400 || t.starts_with("//") {
        return false;
    }
    let name = t.rsplit('/').next().unwrap_or(t);
    if !name.chars().any(char::is_alphabetic) {
        return false; // `src/`, `../`, `2024/01/02`
    }
    if KNOWN_NAMES.contains(&name) || has_extension(name) {
        return true;
    }
    // a path without an extension is one when it says so: whole
    // (`/usr/bin/env`, `~/bin/deploy`) or two folders deep; `and/or`,
    // `I/O` and `SIGINT/SIGTERM` are words
    t.starts_with(['/', '~']) || t.matches('/').count() >= 2
}

/// Whether a file name ends in an extension with a letter: `main.tf`,
/// `.env`; not `3.14` or `v1.2`.
fn has_extension(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(_, ext)| {
        (1..=10).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// The shards changed so far in a run, kept in the meta table with the
/// rows that changed them.
#[derive(Debug, Default)]
pub struct Dirty(BTreeSet<u16>);

impl Dirty {
    /// Lists the shards in the meta table, with those listed before (in the
    /// caller's transaction).
    pub fn save(&mut self, tx: &Connection) -> rusqlite::Result<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        let mut all = listed(tx)?;
        all.append(&mut self.0);
        set_listed(tx, &all)
    }
}

fn listed(conn: &Connection) -> rusqlite::Result<BTreeSet<u16>> {
    let value: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [DIRTY], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(value
        .unwrap_or_default()
        .split(' ')
        .filter_map(|s| s.parse().ok())
        .collect())
}

fn set_listed(conn: &Connection, shards: &BTreeSet<u16>) -> rusqlite::Result<()> {
    let value: Vec<String> = shards.iter().map(u16::to_string).collect();
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![DIRTY, value.join(" ")],
    )?;
    Ok(())
}

/// A transcript chunk, as [`record`] reads it.
pub struct ChunkSeen<'a> {
    pub file_id: i64,
    pub role: &'a str,
    pub line_start: u64,
    pub ts: Option<&'a str>,
    /// Its text as stored (redacted).
    pub text: &'a str,
}

/// Notes the files chunk `c` names, one row per session and path: a
/// change outweighs a mention, and the newest turn gives the line and what
/// was said.
pub fn record(tx: &Connection, c: &ChunkSeen, dirty: &mut Dirty) -> rusqlite::Result<()> {
    if !matches!(c.role, "user" | "assistant") {
        return Ok(());
    }
    let named = named_files(c.text);
    if named.is_empty() {
        return Ok(());
    }
    let about = about(tx, c)?;
    let mut st = tx.prepare_cached(
        "INSERT INTO file_touches(file_id, path, shard, changed, line_start, ts, about)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT(file_id, path) DO UPDATE SET
            changed = max(changed, excluded.changed),
            ts = CASE WHEN excluded.line_start >= line_start THEN COALESCE(excluded.ts, ts) ELSE ts END,
            about = CASE WHEN excluded.line_start >= line_start AND excluded.about <> '' THEN excluded.about ELSE about END,
            line_start = max(line_start, excluded.line_start)",
    )?;
    for (path, kind) in named {
        let shard = shard_of(&path);
        st.execute(params![
            c.file_id,
            path,
            shard,
            kind == TouchKind::Changed,
            c.line_start as i64,
            c.ts,
            about
        ])?;
        dirty.0.insert(shard);
    }
    Ok(())
}

/// What the session said about the files of chunk `c`: its own words
/// besides its tool calls, else those of the nearest turn before it.
fn about(tx: &Connection, c: &ChunkSeen) -> rusqlite::Result<String> {
    let said = |role: &str, text: &str| -> Option<String> {
        let own: Vec<&str> = text.lines().filter(|l| !l.starts_with("[tool ")).collect();
        let joined = own.join(" ");
        let joined = joined.trim();
        if joined.is_empty() {
            return None;
        }
        let prefix = if role == "user" { "asked: " } else { "" };
        Some(format!("{prefix}{}", truncate(joined, ABOUT_CHARS)))
    };
    if let Some(s) = said(c.role, c.text) {
        return Ok(s);
    }
    let mut st = tx.prepare_cached(
        "SELECT role, text FROM chunks WHERE file_id = ?1 AND line_start < ?2 AND role IN ('assistant', 'user')
         ORDER BY line_start DESC LIMIT 3",
    )?;
    let rows: Vec<(String, String)> = st
        .query_map(params![c.file_id, c.line_start as i64], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows
        .iter()
        .find_map(|(role, text)| said(role, text))
        .unwrap_or_default())
}

/// Forgets the rows of a transcript about to be indexed again or gone.
pub fn forget(tx: &Connection, file_id: i64, dirty: &mut Dirty) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("SELECT DISTINCT shard FROM file_touches WHERE file_id = ?1")?;
    let shards = st.query_map([file_id], |r| r.get::<_, u16>(0))?;
    for s in shards {
        dirty.0.insert(s?);
    }
    tx.execute("DELETE FROM file_touches WHERE file_id = ?1", [file_id])?;
    Ok(())
}

/// Whether the table still needs [`fill`] (an index made by a pms before
/// schema 5). Asked outside the run's transaction: a transaction that
/// reads before it writes gets SQLITE_BUSY at once, not after the wait,
/// when another process holds the index.
pub fn needs_fill(conn: &Connection) -> rusqlite::Result<bool> {
    let filled: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [FILLED], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(filled.is_none())
}

/// Fills the table from the chunks indexed before it existed, and lists
/// every shard to write.
pub fn fill(tx: &Connection, dirty: &mut Dirty) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM file_touches", [])?;
    let mut st = tx.prepare(
        "SELECT file_id, role, line_start, ts, text FROM chunks
         WHERE source = 'transcript' AND role IN ('assistant', 'user')
         ORDER BY file_id, line_start, id",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (role, ts, text): (String, Option<String>, String) = (r.get(1)?, r.get(3)?, r.get(4)?);
        record(
            tx,
            &ChunkSeen {
                file_id: r.get(0)?,
                role: &role,
                line_start: r.get::<_, i64>(2)? as u64,
                ts: ts.as_deref(),
                text: &text,
            },
            dirty,
        )?;
    }
    dirty.0.extend(0..SHARDS);
    tx.execute(
        "INSERT INTO meta(key, value) VALUES (?1, '1') ON CONFLICT(key) DO UPDATE SET value = '1'",
        [FILLED],
    )?;
    Ok(())
}

/// Writes the shards the meta table lists (each whole, atomically; one
/// with no rows is removed), or all of them when the folder is not marked
/// complete, then marks it so. Returns how many were written.
pub fn write_listed(conn: &Connection, state_dir: &Path) -> std::io::Result<usize> {
    let io = |e: rusqlite::Error| std::io::Error::other(e.to_string());
    let dir = dir_of(state_dir);
    let complete = dir.join("complete");
    // a folder removed, never finished, or of another format is written
    // whole (the test [`read`] makes)
    let whole = !is_complete(&dir);
    let shards = if !whole {
        listed(conn).map_err(io)?
    } else {
        (0..SHARDS).collect()
    };
    if shards.is_empty() {
        return Ok(0);
    }
    std::fs::create_dir_all(&dir)?;
    let mut st = conn
        .prepare_cached(&format!("{ROWS} WHERE t.shard = ?1 ORDER BY t.path"))
        .map_err(io)?;
    for &shard in &shards {
        let rows: Vec<TouchRow> = st
            .query_map([shard], touch_row)
            .and_then(Iterator::collect)
            .map_err(io)?;
        let path = dir.join(format!("{shard:02x}"));
        if rows.is_empty() {
            durable::remove_written(&path)?;
            continue;
        }
        let mut text = format!("{HEADER}\n");
        for row in &rows {
            text.push_str(&row.shard_line());
        }
        durable::write_atomic_nosync(&path, text.as_bytes())?;
    }
    // On disk before the list is cleared: a power cut must not leave a
    // shard rolled back that no list names. One sync of the file system,
    // not one per shard (256 of them on a whole write).
    durable::sync_filesystem(&dir)?;
    if whole {
        durable::write_atomic(&complete, format!("{HEADER}\n").as_bytes())?;
    }
    set_listed(conn, &BTreeSet::new()).map_err(io)?;
    Ok(shards.len())
}

/// Whether the shards are in step with the index, for `pms verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Every shard written; the files the index knows of, in all.
    Complete { paths: usize },
    /// Written once, but these shards changed since (a run killed before
    /// it wrote them, or a folder it could not write).
    Behind { shards: usize },
    /// Never written, or removed.
    Missing,
}

/// Whether every shard in `dir` has been written, in this format.
fn is_complete(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("complete")).is_ok_and(|c| c.trim_end() == HEADER)
}

/// How the shards of the index `conn` stand.
pub fn written(conn: &Connection, state_dir: &Path) -> rusqlite::Result<Written> {
    if !is_complete(&dir_of(state_dir)) {
        return Ok(Written::Missing);
    }
    let behind = listed(conn)?.len();
    if behind > 0 {
        return Ok(Written::Behind { shards: behind });
    }
    let paths: i64 = conn.query_row("SELECT COUNT(DISTINCT path) FROM file_touches", [], |r| {
        r.get(0)
    })?;
    Ok(Written::Complete {
        paths: paths as usize,
    })
}

/// The rows of `paths`, read from the shards; None when the shards are not
/// all written yet (an index not run since schema 5), so that the caller
/// asks the database.
pub fn read(state_dir: &Path, paths: &[&str]) -> Option<Vec<TouchRow>> {
    let dir = dir_of(state_dir);
    if !is_complete(&dir) {
        return None;
    }
    let mut shards: Vec<u16> = paths.iter().map(|p| shard_of(p)).collect();
    shards.sort_unstable();
    shards.dedup();
    let mut out = Vec::new();
    for shard in shards {
        let text = match std::fs::read_to_string(dir.join(format!("{shard:02x}"))) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return None;
        }
        for line in lines {
            let path = line.split('\t').next().unwrap_or_default();
            if paths.contains(&path)
                && let Some(row) = parse_row(line)
            {
                out.push(row);
            }
        }
    }
    Some(out)
}

impl TouchRow {
    /// The row as a shard holds it ([`parse_row`] reads it back); a tab or
    /// a line break in a field is written as a space.
    fn shard_line(&self) -> String {
        let field = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let some = |s: &Option<String>| field(s.as_deref().unwrap_or_default());
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            field(&self.path),
            match self.kind {
                TouchKind::Changed => 'C',
                TouchKind::Discussed => 'D',
            },
            self.line,
            some(&self.date),
            some(&self.session_id),
            field(&self.project),
            some(&self.cwd),
            field(&self.uri),
            field(&self.about),
        )
    }
}

fn parse_row(line: &str) -> Option<TouchRow> {
    let cols: Vec<&str> = line.splitn(9, '\t').collect();
    let [path, kind, line, date, session, project, cwd, uri, about] = cols.as_slice() else {
        return None;
    };
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Some(TouchRow {
        path: path.to_string(),
        kind: match *kind {
            "C" => TouchKind::Changed,
            _ => TouchKind::Discussed,
        },
        line: line.parse().ok()?,
        date: some(date),
        session_id: some(session),
        project: project.to_string(),
        cwd: some(cwd),
        uri: uri.to_string(),
        about: about.to_string(),
    })
}

/// The rows of `paths`, asked of the database (the shards' source).
pub fn query(conn: &Connection, paths: &[&str]) -> rusqlite::Result<Vec<TouchRow>> {
    let mut st = conn.prepare_cached(&format!("{ROWS} WHERE t.path = ?1"))?;
    let mut out = Vec::new();
    for p in paths {
        for row in st.query_map([p], touch_row)? {
            out.push(row?);
        }
    }
    Ok(out)
}

/// The rows as the hook reads them, joined with their transcript: what
/// [`touch_row`] reads, the shards and [`query`] select from.
const ROWS: &str = "SELECT t.path, t.changed, t.line_start, COALESCE(t.ts, f.first_ts), f.session_id, f.project, f.cwd, f.uri, t.about
     FROM file_touches t JOIN files f ON f.id = t.file_id";

fn touch_row(r: &rusqlite::Row) -> rusqlite::Result<TouchRow> {
    Ok(TouchRow {
        path: r.get(0)?,
        kind: if r.get::<_, bool>(1)? {
            TouchKind::Changed
        } else {
            TouchKind::Discussed
        },
        line: r.get::<_, i64>(2)? as u64,
        date: r.get(3)?,
        session_id: r.get(4)?,
        project: r.get(5)?,
        cwd: r.get(6)?,
        uri: r.get(7)?,
        about: r.get(8)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_names_the_files_it_writes_and_those_it_talks_about() {
        let text = "The `refreshCart` callback in src/components/CartDrawer.tsx:47 is recreated; see main.tf and the Makefile.\n\
                    [tool Edit] /home/maya/shop/src/components/CartDrawer.tsx\n\
                    [tool Read] /home/maya/shop/src/api/cart.ts\n\
                    [tool Bash] cat README.md";
        let named = named_files(text);
        assert_eq!(
            named,
            vec![
                (
                    "src/components/CartDrawer.tsx".to_string(),
                    TouchKind::Discussed
                ),
                ("main.tf".to_string(), TouchKind::Discussed),
                ("Makefile".to_string(), TouchKind::Discussed),
                (
                    "/home/maya/shop/src/components/CartDrawer.tsx".to_string(),
                    TouchKind::Changed
                ),
            ]
        );
    }

    #[test]
    fn a_shard_line_reads_back_as_written() {
        let row = TouchRow {
            path: "src/a.rs".into(),
            kind: TouchKind::Changed,
            line: 12,
            date: None,
            session_id: Some("s1".into()),
            project: "-p-shop".into(),
            cwd: Some("/p/shop".into()),
            uri: "cc://-p-shop/s1.jsonl".into(),
            about: "moved\tthe retry\nout".into(),
        };
        let back = parse_row(row.shard_line().trim_end_matches('\n')).unwrap();
        assert_eq!(
            back,
            TouchRow {
                about: "moved the retry out".into(),
                ..row
            }
        );
    }

    #[test]
    fn only_what_looks_like_a_path_is_a_file() {
        let named: Vec<String> = named_files(
            "Pi is 3.14 in v1.2; see https://example.org/docs/x and ./scripts/run.sh, not lib/ or ../ (.env too).",
        )
        .into_iter()
        .map(|(p, _)| p)
        .collect();
        assert_eq!(named, vec!["scripts/run.sh", ".env"]);
        let named: Vec<String> = named_files(
            "and/or the I/O of SIGINT/SIGTERM on 2024/01/02; see @src/db/pool.rs, ~/bin/deploy and scripts/ci/release",
        )
        .into_iter()
        .map(|(p, _)| p)
        .collect();
        assert_eq!(
            named,
            vec!["src/db/pool.rs", "~/bin/deploy", "scripts/ci/release"]
        );
        // a written path is taken whole
        for path in [
            "/home/maya/My Project/src/a.rs",
            "/home/maya/shop/app/[slug]/page.tsx",
            "/home/maya/shop/app/(auth)/login/page.tsx",
        ] {
            assert_eq!(
                named_files(&format!("[tool Edit] {path}")),
                vec![(path.to_string(), TouchKind::Changed)]
            );
        }
        assert_eq!(
            named_files("[tool apply_patch] src/deploy.sh src/a.rs").len(),
            2
        );
        // a longer path is another file's
        let named = named_files("see lib/src/db/accounts.rs and xsrc/db/accounts.rsx");
        assert!(
            named.iter().all(|(p, _)| p != "src/db/accounts.rs"),
            "{named:?}"
        );
        // one name once, a change outweighing a mention
        let named = named_files("edit a/b.rs\n[tool Write] a/b.rs\nagain a/b.rs");
        assert_eq!(named, vec![("a/b.rs".to_string(), TouchKind::Changed)]);
    }
}

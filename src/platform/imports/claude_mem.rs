//! claude-mem's database (`~/.claude-mem/claude-mem.db`, or
//! `$CLAUDE_MEM_DATA_DIR`) and claude-mem-lite's (`~/.claude-mem-lite/
//! claude-mem-lite.db`, or `$CLAUDE_MEM_DIR`): SQLite, opened read-only.
//!
//! Both keep `observations` (type, title, subtitle, narrative, the older
//! `text`, facts and concepts as JSON arrays in strings, files read and
//! modified, `created_at_epoch` in milliseconds), `session_summaries`
//! (request, investigated, learned, completed, next steps) and
//! `user_prompts`, tied together by session ids. The columns changed over
//! claude-mem's schema versions (v17 renamed `sdk_session_id` to
//! `memory_session_id` and `claude_session_id` to `content_session_id`; v8
//! added the structured columns), so the columns present decide what is
//! read, not the version number. claude-mem-lite forked from the renamed
//! schema and is told apart by its one-row `schema_version` table
//! (claude-mem's is `schema_versions`); it adds tombstones
//! (`superseded_at`, `compressed_into`), left out here, and an `events`
//! table.
//!
//! Each session becomes one note: what was asked, its summaries, and its
//! observations, each under its own heading with its id, type, date and
//! files; claude-mem-lite's events, one note per project and month.
//!
//! The database is never written: it is opened `mode=ro` when a `-wal` and
//! `-shm` beside it show a running claude-mem (so the newest rows, still in
//! the write-ahead log, are read), else `immutable=1`, which makes SQLite
//! create nothing beside it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, Row};
use serde_json::Value;

use super::note::{front_matter, short_hash, shorten, slug};
use super::{Checked, FormatError, Kind, Note, ReadError, Sink, from_epoch_millis, iso};

fn fix_for(kind: Kind) -> &'static str {
    match kind {
        Kind::ClaudeMemLite => {
            "give pms the claude-mem-lite.db file (default ~/.claude-mem-lite/claude-mem-lite.db)"
        }
        _ => "give pms the claude-mem.db file (default ~/.claude-mem/claude-mem.db)",
    }
}

/// `file:` URI of `path` with the characters a URI gives meaning escaped.
fn uri(path: &Path, query: &str) -> String {
    let mut out = String::from("file:");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' => out.push_str(&format!("%{b:02X}")),
            _ => out.push(b as char),
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

fn beside(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// Opens the database read-only, creating nothing beside it.
fn open(kind: Kind, path: &Path) -> Result<Connection, FormatError> {
    let shown = path.display().to_string();
    if !path.is_file() {
        return Err(FormatError::new(&shown, "no such file", fix_for(kind)));
    }
    let live = beside(path, "-wal").is_file() && beside(path, "-shm").is_file();
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let query = if live { "mode=ro" } else { "immutable=1" };
    let conn = Connection::open_with_flags(uri(path, query), flags)
        .map_err(|e| FormatError::new(&shown, format!("cannot be opened ({e})"), fix_for(kind)))?;
    let _ = conn.busy_timeout(std::time::Duration::from_secs(5));
    // Reading the schema is the first read: a file that is not SQLite
    // fails here.
    conn.query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| {
        FormatError::new(
            &shown,
            format!("is not a SQLite database ({e})"),
            fix_for(kind),
        )
    })?;
    Ok(conn)
}

/// The columns of `table` (empty when there is no such table).
fn columns(conn: &Connection, table: &str) -> HashSet<String> {
    let Ok(mut st) = conn.prepare(&format!("PRAGMA table_info(\"{table}\")")) else {
        return HashSet::new();
    };
    st.query_map([], |r| r.get::<_, String>(1))
        .map(|rows| rows.flatten().collect())
        .unwrap_or_default()
}

/// What the database holds, and the names its columns go by.
struct Schema {
    version: Option<i64>,
    obs: HashSet<String>,
    /// observations' / summaries' session column.
    session_col: &'static str,
    summaries: HashSet<String>,
    prompts: HashSet<String>,
    /// user_prompts' / sdk_sessions' content-session column.
    content_col: &'static str,
    sessions: HashSet<String>,
    events: HashSet<String>,
}

fn schema(kind: Kind, conn: &Connection, path: &Path) -> Result<Schema, FormatError> {
    let shown = path.display().to_string();
    let lite = !columns(conn, "schema_version").is_empty();
    let full = !columns(conn, "schema_versions").is_empty();
    let version: Option<i64> = if lite {
        conn.query_row("SELECT MAX(version) FROM schema_version", [], |r| r.get(0))
            .ok()
    } else {
        conn.query_row("SELECT MAX(version) FROM schema_versions", [], |r| r.get(0))
            .ok()
    }
    .flatten();
    match kind {
        Kind::ClaudeMem if lite && !full => {
            return Err(FormatError::new(
                &shown,
                "this is a claude-mem-lite database, not claude-mem's",
                format!("pms import claude-mem-lite {shown}"),
            ));
        }
        Kind::ClaudeMemLite if full && !lite => {
            return Err(FormatError::new(
                &shown,
                "this is a claude-mem database, not claude-mem-lite's",
                format!("pms import claude-mem {shown}"),
            ));
        }
        _ => {}
    }
    let obs = columns(conn, "observations");
    if obs.is_empty() && !columns(conn, "memories").is_empty() {
        return Err(FormatError::new(
            &shown,
            "this is a claude-mem 3.x database (a `memories` table, no `observations`), which pms does not read",
            "upgrade claude-mem and start it once so that it moves its database to the current schema, then run the import again",
        ));
    }
    let session_col = ["memory_session_id", "sdk_session_id"]
        .into_iter()
        .find(|c| obs.contains(*c));
    let has_text = ["title", "narrative", "text"]
        .iter()
        .any(|c| obs.contains(*c));
    let (Some(session_col), true, true) = (session_col, has_text, obs.contains("created_at_epoch"))
    else {
        let v = version
            .map(|v| format!(" (schema version {v})"))
            .unwrap_or_default();
        return Err(FormatError::new(
            &shown,
            format!(
                "its observations table{v} has none of the columns pms reads (a session id, a title, narrative or text, created_at_epoch): this is not a {} database pms knows",
                kind.id()
            ),
            "check that it is the right file; if it is, run `pms upgrade` (a newer pms may read it)",
        ));
    };
    let prompts = columns(conn, "user_prompts");
    let content_col = if prompts.contains("content_session_id") {
        "content_session_id"
    } else {
        "claude_session_id"
    };
    Ok(Schema {
        version,
        session_col,
        summaries: columns(conn, "session_summaries"),
        prompts,
        content_col,
        sessions: columns(conn, "sdk_sessions"),
        events: if kind == Kind::ClaudeMemLite {
            columns(conn, "events")
        } else {
            HashSet::new()
        },
        obs,
    })
}

/// `col` when `have` holds it, else NULL (as `alias`).
fn col(have: &HashSet<String>, col: &str) -> String {
    if have.contains(col) {
        format!("\"{col}\"")
    } else {
        "NULL".into()
    }
}

/// The condition leaving out claude-mem-lite's tombstoned rows.
fn live_rows(have: &HashSet<String>) -> String {
    let mut w = vec!["1".to_string()];
    if have.contains("superseded_at") {
        w.push("superseded_at IS NULL".into());
    }
    if have.contains("compressed_into") {
        w.push("COALESCE(compressed_into, 0) = 0".into());
    }
    w.join(" AND ")
}

fn count(conn: &Connection, sql: &str) -> u64 {
    conn.query_row(sql, [], |r| r.get::<_, i64>(0))
        .map(|n| n.max(0) as u64)
        .unwrap_or(0)
}

pub fn check(kind: Kind, path: &Path) -> Result<Checked, FormatError> {
    let conn = open(kind, path)?;
    let s = schema(kind, &conn, path)?;
    let mut items = count(
        &conn,
        &format!(
            "SELECT COUNT(*) FROM observations WHERE {}",
            live_rows(&s.obs)
        ),
    );
    if !s.summaries.is_empty() {
        items += count(&conn, "SELECT COUNT(*) FROM session_summaries");
    }
    if !s.prompts.is_empty() {
        items += count(&conn, "SELECT COUNT(*) FROM user_prompts");
    }
    if !s.events.is_empty() {
        items += count(&conn, "SELECT COUNT(*) FROM events");
    }
    let bytes = [path.to_path_buf(), beside(path, "-wal")]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let _ = s.version;
    Ok(Checked { bytes, items })
}

/// A JSON array in a string (`["a","b"]`), leniently: an old row's plain
/// text is one item, `''`, `null` and `[]` none.
fn list(s: Option<String>) -> Vec<String> {
    let Some(s) = s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty()) else {
        return Vec::new();
    };
    match serde_json::from_str::<Value>(&s) {
        Ok(Value::Array(a)) => a
            .into_iter()
            .filter_map(|v| match v {
                Value::String(t) => Some(t),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|t| !t.trim().is_empty())
            .collect(),
        Ok(Value::Null) => Vec::new(),
        _ => vec![s],
    }
}

fn text(r: &Row, i: usize) -> Option<String> {
    match r.get_ref(i).ok()? {
        rusqlite::types::ValueRef::Text(t) => {
            Some(String::from_utf8_lossy(t).trim().to_string()).filter(|t| !t.is_empty())
        }
        rusqlite::types::ValueRef::Integer(n) => Some(n.to_string()),
        _ => None,
    }
}

fn int(r: &Row, i: usize) -> Option<i64> {
    r.get::<_, Option<i64>>(i).ok().flatten()
}

struct Observation {
    id: i64,
    project: Option<String>,
    kind: Option<String>,
    title: Option<String>,
    subtitle: Option<String>,
    narrative: Option<String>,
    text: Option<String>,
    facts: Vec<String>,
    concepts: Vec<String>,
    files: Vec<String>,
    lesson: Option<String>,
    epoch: Option<i64>,
}

struct Summary {
    fields: Vec<(&'static str, String)>,
    epoch: Option<i64>,
}

struct Prompt {
    number: i64,
    text: String,
    epoch: Option<i64>,
}

#[derive(Default)]
struct Session {
    project: Option<String>,
    title: Option<String>,
    started: Option<i64>,
    observations: Vec<Observation>,
    summaries: Vec<Summary>,
    prompts: Vec<Prompt>,
}

fn sql_error(path: &Path, kind: Kind, e: rusqlite::Error) -> FormatError {
    FormatError::new(
        path.display().to_string(),
        format!("could not be read ({e})"),
        fix_for(kind),
    )
}

pub fn read(kind: Kind, path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    let conn = open(kind, path)?;
    let s = schema(kind, &conn, path)?;
    let err = |e: rusqlite::Error| ReadError::Format(sql_error(path, kind, e));
    // Sessions: memory session id → its row; content session id → memory's.
    let mut sessions: BTreeMap<String, Session> = BTreeMap::new();
    let mut content_to_memory: HashMap<String, String> = HashMap::new();
    if !s.sessions.is_empty() {
        let memory_col = if s.sessions.contains("memory_session_id") {
            "memory_session_id"
        } else {
            "sdk_session_id"
        };
        let sql = format!(
            "SELECT {}, {}, {}, {}, {}, {} FROM sdk_sessions ORDER BY id",
            col(&s.sessions, s.content_col),
            col(&s.sessions, memory_col),
            col(&s.sessions, "project"),
            col(&s.sessions, "custom_title"),
            col(&s.sessions, "user_prompt"),
            col(&s.sessions, "started_at_epoch"),
        );
        let mut st = conn.prepare(&sql).map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let content = text(r, 0);
            let Some(memory) = text(r, 1).or_else(|| content.clone()) else {
                continue;
            };
            if let Some(c) = content {
                content_to_memory.insert(c, memory.clone());
            }
            let e = sessions.entry(memory).or_default();
            e.project = text(r, 2);
            e.title = text(r, 3).or_else(|| text(r, 4).map(|t| shorten(&t, 100)));
            e.started = int(r, 5);
        }
    }
    if !s.summaries.is_empty() {
        let names = [
            ("request", "Request"),
            ("investigated", "Investigated"),
            ("learned", "Learned"),
            ("completed", "Completed"),
            ("next_steps", "Next steps"),
            ("notes", "Notes"),
            ("lessons", "Lessons"),
            ("key_decisions", "Key decisions"),
            ("remaining_items", "Remaining"),
        ];
        let sql = format!(
            "SELECT {}, {}, {}{} FROM session_summaries ORDER BY created_at_epoch, id",
            col(&s.summaries, s.session_col),
            col(&s.summaries, "created_at_epoch"),
            col(&s.summaries, "project"),
            names
                .iter()
                .map(|(c, _)| format!(", {}", col(&s.summaries, c)))
                .collect::<String>()
        );
        let mut st = conn.prepare(&sql).map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let Some(session) = text(r, 0) else { continue };
            let mut fields = Vec::new();
            for (i, (_, label)) in names.iter().enumerate() {
                if let Some(t) = text(r, 3 + i) {
                    let items = list(Some(t.clone()));
                    let t = if t.starts_with('[') && !items.is_empty() {
                        items.join("; ")
                    } else {
                        t
                    };
                    fields.push((*label, t));
                }
            }
            let e = sessions.entry(session).or_default();
            if e.project.is_none() {
                e.project = text(r, 2);
            }
            if !fields.is_empty() {
                e.summaries.push(Summary {
                    fields,
                    epoch: int(r, 1),
                });
            }
        }
    }
    if !s.prompts.is_empty() {
        let sql = format!(
            "SELECT {}, {}, {}, {} FROM user_prompts ORDER BY created_at_epoch, id",
            col(&s.prompts, s.content_col),
            col(&s.prompts, "prompt_number"),
            col(&s.prompts, "prompt_text"),
            col(&s.prompts, "created_at_epoch"),
        );
        let mut st = conn.prepare(&sql).map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let (Some(content), Some(t)) = (text(r, 0), text(r, 2)) else {
                continue;
            };
            let session = content_to_memory.get(&content).cloned().unwrap_or(content);
            sessions.entry(session).or_default().prompts.push(Prompt {
                number: int(r, 1).unwrap_or(0),
                text: t,
                epoch: int(r, 3),
            });
        }
    }
    {
        let o = &s.obs;
        let project = if o.contains("merged_into_project") {
            "COALESCE(merged_into_project, project)".to_string()
        } else {
            col(o, "project")
        };
        let sql = format!(
            "SELECT id, {}, {project}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, created_at_epoch
             FROM observations WHERE {} ORDER BY created_at_epoch, id",
            s.session_col,
            col(o, "type"),
            col(o, "title"),
            col(o, "subtitle"),
            col(o, "narrative"),
            col(o, "text"),
            col(o, "facts"),
            col(o, "concepts"),
            col(o, "files_read"),
            col(o, "files_modified"),
            col(o, "lesson_learned"),
            col(o, "agent_type"),
            live_rows(o),
        );
        let mut st = conn.prepare(&sql).map_err(err)?;
        let mut rows = st.query([]).map_err(err)?;
        while let Some(r) = rows.next().map_err(err)? {
            let Some(session) = text(r, 1) else { continue };
            let mut files = list(text(r, 10));
            for f in list(text(r, 11)) {
                if !files.contains(&f) {
                    files.push(f);
                }
            }
            sessions
                .entry(session)
                .or_default()
                .observations
                .push(Observation {
                    id: r.get(0).map_err(err)?,
                    project: text(r, 2),
                    kind: text(r, 3),
                    title: text(r, 4),
                    subtitle: text(r, 5),
                    narrative: text(r, 6),
                    text: text(r, 7),
                    facts: list(text(r, 8)),
                    concepts: list(text(r, 9)),
                    files,
                    lesson: text(r, 12),
                    epoch: int(r, 14),
                });
        }
    }
    let source = kind.id();
    for (what, n) in [
        ("sessions", sessions.len()),
        (
            "observations",
            sessions.values().map(|x| x.observations.len()).sum(),
        ),
        (
            "summaries",
            sessions.values().map(|x| x.summaries.len()).sum(),
        ),
        ("prompts", sessions.values().map(|x| x.prompts.len()).sum()),
    ] {
        sink.found(what, n as u64);
    }
    for (id, session) in sessions {
        if session.observations.is_empty()
            && session.summaries.is_empty()
            && session.prompts.is_empty()
        {
            continue;
        }
        sink.note(session_note(source, &id, session))
            .map_err(ReadError::Write)?;
    }
    if !s.events.is_empty() {
        read_events(&conn, &s.events, source, sink).map_err(|e| match e {
            EventsError::Sql(e) => err(e),
            EventsError::Write(e) => ReadError::Write(e),
        })?;
    }
    sink.advanced(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0));
    Ok(())
}

enum EventsError {
    Sql(rusqlite::Error),
    Write(std::io::Error),
}

impl From<rusqlite::Error> for EventsError {
    fn from(e: rusqlite::Error) -> Self {
        EventsError::Sql(e)
    }
}

/// claude-mem-lite's events (lessons, bugs, decisions), one note per
/// project and month.
fn read_events(
    conn: &Connection,
    have: &HashSet<String>,
    source: &str,
    sink: &mut dyn Sink,
) -> Result<(), EventsError> {
    let live = if have.contains("superseded_at_epoch") {
        "superseded_at_epoch IS NULL"
    } else {
        "1"
    };
    let sql = format!(
        "SELECT id, {}, {}, {}, {}, {}, created_at_epoch FROM events WHERE {live} ORDER BY created_at_epoch, id",
        col(have, "project"),
        col(have, "event_type"),
        col(have, "title"),
        col(have, "body"),
        col(have, "file_paths"),
    );
    let mut groups: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut last: HashMap<(String, String), i64> = HashMap::new();
    let mut st = conn.prepare(&sql)?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let project = text(r, 1).unwrap_or_else(|| "no-project".into());
        let epoch = int(r, 6);
        let when = epoch.and_then(from_epoch_millis);
        let month = when
            .map(|t| t.format("%Y-%m").to_string())
            .unwrap_or_else(|| "undated".into());
        let title = text(r, 3).unwrap_or_else(|| "(untitled)".into());
        let mut section = format!(
            "## {} ({})\n_{source} event {id}{}_\n",
            shorten(&title, 120),
            text(r, 2).unwrap_or_else(|| "event".into()),
            when.map(|t| format!(", {}", t.format("%Y-%m-%d %H:%M")))
                .unwrap_or_default()
        );
        if let Some(b) = text(r, 4) {
            section.push_str(&format!("\n{b}\n"));
        }
        let files = list(text(r, 5));
        if !files.is_empty() {
            section.push_str(&format!("\nFiles: {}\n", files.join(", ")));
        }
        let key = (project, month);
        if let Some(e) = epoch {
            let l = last.entry(key.clone()).or_insert(e);
            *l = (*l).max(e);
        }
        groups.entry(key).or_default().push(section);
        sink.found("events", 1);
    }
    for ((project, month), sections) in groups {
        let date = last
            .get(&(project.clone(), month.clone()))
            .and_then(|e| from_epoch_millis(*e));
        let title = format!("{project}: events of {month}");
        let mut text = front_matter(&[
            ("title", title.clone()),
            ("imported_from", source.into()),
            ("original_id", format!("events/{project}/{month}")),
            ("project", project.clone()),
        ]);
        text.push_str(&format!("\n# {title}\n\n{}", sections.join("\n")));
        sink.note(Note {
            key: format!("events/{project}/{month}"),
            rel: format!("{}/events-{month}.md", slug(&project, 40)),
            text,
            date,
        })
        .map_err(EventsError::Write)?;
    }
    Ok(())
}

/// One session as a note.
fn session_note(source: &str, id: &str, s: Session) -> Note {
    let project = s
        .project
        .clone()
        .or_else(|| s.observations.iter().find_map(|o| o.project.clone()))
        .unwrap_or_else(|| "no-project".into());
    let epochs = s
        .observations
        .iter()
        .map(|o| o.epoch)
        .chain(s.summaries.iter().map(|x| x.epoch))
        .chain(s.prompts.iter().map(|p| p.epoch))
        .flatten();
    let (first, last) = epochs.fold((None::<i64>, None::<i64>), |(a, b), e| {
        (
            Some(a.map_or(e, |a| a.min(e))),
            Some(b.map_or(e, |b| b.max(e))),
        )
    });
    let started = s.started.or(first).and_then(from_epoch_millis);
    let ended = last.and_then(from_epoch_millis).or(started);
    let title = s
        .title
        .clone()
        .or_else(|| s.prompts.first().map(|p| shorten(&p.text, 100)))
        .or_else(|| s.observations.iter().find_map(|o| o.title.clone()))
        .unwrap_or_else(|| format!("session {}", shorten(id, 24)));
    let day = started
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "undated".into());
    let mut text = front_matter(&[
        ("title", format!("{project}: {title}")),
        ("imported_from", source.into()),
        ("original_id", format!("session/{id}")),
        ("project", project.clone()),
        ("started", started.map(iso).unwrap_or_default()),
        ("ended", ended.map(iso).unwrap_or_default()),
    ]);
    text.push_str(&format!("\n# {project}, {day}: {}\n", shorten(&title, 120)));
    if !s.prompts.is_empty() {
        text.push_str("\n## What was asked\n\n");
        for (i, p) in s.prompts.iter().enumerate() {
            let n = if p.number > 0 { p.number } else { i as i64 + 1 };
            // a prompt is a paragraph of its own, its lines kept
            text.push_str(&format!("{n}. {}\n", p.text.replace('\n', "\n   ")));
        }
    }
    for sum in &s.summaries {
        text.push_str(&format!(
            "\n## Summary{}\n\n",
            sum.epoch
                .and_then(from_epoch_millis)
                .map(|t| format!(" ({})", t.format("%Y-%m-%d %H:%M")))
                .unwrap_or_default()
        ));
        for (label, value) in &sum.fields {
            text.push_str(&format!("- {label}: {value}\n"));
        }
    }
    for o in &s.observations {
        let heading = o
            .title
            .clone()
            .or_else(|| o.text.as_deref().map(|t| shorten(t, 80)))
            .unwrap_or_else(|| format!("Observation {}", o.id));
        let kind = o.kind.as_deref().unwrap_or("observation");
        text.push_str(&format!("\n## {} ({kind})\n", shorten(&heading, 120)));
        let mut line = format!("_{source} observation {}", o.id);
        if let Some(t) = o.epoch.and_then(from_epoch_millis) {
            line.push_str(&format!(", {}", t.format("%Y-%m-%d %H:%M")));
        }
        if !o.files.is_empty() {
            line.push_str(&format!("; files: {}", o.files.join(", ")));
        }
        text.push_str(&line);
        text.push_str("_\n");
        for p in [&o.subtitle, &o.narrative].into_iter().flatten() {
            text.push_str(&format!("\n{p}\n"));
        }
        // `text` is the whole content of rows older than v8 (and of
        // claude-mem-lite's imports); a newer row's is a search blob.
        if o.narrative.is_none()
            && let Some(t) = &o.text
        {
            text.push_str(&format!("\n{t}\n"));
        }
        if !o.facts.is_empty() {
            text.push('\n');
            for f in &o.facts {
                text.push_str(&format!("- {f}\n"));
            }
        }
        if let Some(l) = &o.lesson {
            text.push_str(&format!("\nLesson: {l}\n"));
        }
        if !o.concepts.is_empty() {
            text.push_str(&format!("\nConcepts: {}\n", o.concepts.join(", ")));
        }
    }
    Note {
        key: format!("session/{id}"),
        rel: format!(
            "{}/{day}-{}-{}.md",
            slug(&project, 40),
            slug(&title, 40),
            short_hash(id)
        ),
        text,
        date: ended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_in_strings_read_leniently() {
        assert_eq!(list(Some("[\"a\",\"b\"]".into())), ["a", "b"]);
        assert_eq!(list(Some(String::new())), Vec::<String>::new());
        assert_eq!(list(Some("[]".into())), Vec::<String>::new());
        assert_eq!(list(Some("null".into())), Vec::<String>::new());
        assert_eq!(list(Some("how-it-works".into())), ["how-it-works"]);
        assert_eq!(list(None), Vec::<String>::new());
    }

    #[test]
    fn uris_escape_what_sqlite_reads() {
        assert_eq!(
            uri(Path::new("/a/b?c#d%e.db"), "immutable=1"),
            "file:/a/b%3Fc%23d%25e.db?immutable=1"
        );
    }
}

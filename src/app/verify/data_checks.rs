//! The checks of what pms keeps: the search index (integrity, freshness,
//! embeddings), `lessons.idx` and the pending learnings.

use super::{Check, Fix};
use crate::memory::index::{db, health, stats};
use crate::memory::lessons;
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::config::Config;

pub(crate) fn index(ws: &Workspace, env: &HostEnv) -> Vec<Check> {
    let path = ws.db_path();
    if !path.exists() {
        return vec![Check::warn("index", "no search index yet").fixable(Fix::Reindex)];
    }
    let conn = match db::open_ro(&path) {
        Ok(c) => c,
        Err(db::DbError::Newer { .. }) => {
            return vec![
                Check::fail("index", "the index was written by a newer pms").hint("`pms upgrade`"),
            ];
        }
        // held by another process: nothing is wrong with the file, and a
        // rebuild would only wait for the same lock
        Err(e @ db::DbError::Busy { .. }) => {
            return vec![
                Check::warn("index", e.to_string().lines().next().unwrap_or_default())
                    .hint("run `pms verify` again once that process has finished"),
            ];
        }
        Err(e) => return vec![Check::fail("index", e.to_string()).fixable(Fix::RebuildIndex)],
    };
    let mut out = Vec::new();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    // FTS5's own check needs a connection that may write; one that cannot
    // be had (a full disk, a read-only file) says nothing about damage.
    let fts = rusqlite::Connection::open(&path).map_or(Ok(()), |c| {
        // a writer holding the lock only postpones this part of the check
        let _ = c.busy_timeout(std::time::Duration::from_millis(500));
        for t in ["knowledge_fts", "transcript_fts"] {
            match c.execute(
                &format!("INSERT INTO {t}({t}) VALUES ('integrity-check')"),
                [],
            ) {
                Err(e) if health::is_corrupt(&e) => return Err(format!("{t}: {e}")),
                _ => {}
            }
        }
        Ok(())
    });
    // The tables can each be sound and still disagree (searches then miss
    // silently): compared entry by entry.
    let in_step = match health::entries_out_of_step(&conn) {
        Err(e) if health::is_corrupt(&e) => Err(e.to_string()),
        other => Ok(other.unwrap_or(None)),
    };
    let damage = match (integrity.as_str(), fts, in_step) {
        ("ok", Ok(()), Ok(None)) => None,
        ("ok", Ok(()), Ok(Some(what))) => {
            Some(format!("the full-text index is out of step: {what}"))
        }
        (other, fts, in_step) => Some(format!(
            "integrity check failed: {other}{}{}",
            fts.err().map(|e| format!("; {e}")).unwrap_or_default(),
            in_step.err().map(|e| format!("; {e}")).unwrap_or_default()
        )),
    };
    out.push(match damage {
        None => {
            health::clear(&path);
            let chunks = stats::counts(&conn).map(|c| c.chunks).unwrap_or(0);
            let whole = format!(
                "schema {}, integrity ok, {chunks} chunks",
                db::SCHEMA_VERSION
            );
            if db::writable(&path) {
                Check::ok("index", whole)
            } else {
                Check::warn(
                    "index",
                    format!("{whole}, but read-only: it cannot be updated (search answers from what it holds)"),
                )
                .hint("make .pms/index.db and its folder writable (`chmod u+w`, `chattr -i`, or mount the disk read-write), then `pms index`")
            }
        }
        Some(what) => {
            // searches warn until the rebuild
            let one_line: String = what.replace('\n', "; ").chars().take(300).collect();
            health::record(&path, &one_line, "pms verify");
            Check::fail("index", what).fixable(Fix::RebuildIndex)
        }
    });
    let _ = env;
    out.push(freshness(ws, &conn));
    out.push(file_history(ws, &conn));
    out
}

/// Whether `.pms/file-history/`, what the hook reads before a file's first
/// edit, is in step with the index (index::file_touches).
fn file_history(ws: &Workspace, conn: &rusqlite::Connection) -> Check {
    use crate::memory::index::file_touches::{self, Written};
    const ID: &str = "index.file_history";
    let dir = file_touches::dir_of(&ws.state_dir());
    match file_touches::written(conn, &ws.state_dir()) {
        Ok(Written::Complete { paths }) => Check::ok(
            ID,
            format!(
                "{} written, in step with the index ({})",
                dir.display(),
                crate::platform::plural::count(paths, "file named", "files named")
            ),
        ),
        Ok(Written::Behind { shards }) => Check::warn(
            ID,
            format!(
                "{}: {} not written since the index changed; the hook before an edit may miss the newest sessions",
                dir.display(),
                crate::platform::plural::count(shards, "part", "parts")
            ),
        )
        .fixable(Fix::Reindex),
        Ok(Written::Missing) => Check::warn(
            ID,
            format!(
                "{} is not written yet; the hook before an edit asks the index meanwhile (slower)",
                dir.display()
            ),
        )
        .fixable(Fix::Reindex),
        Err(e) => Check::warn(ID, format!("the index's file_touches table: {e}")).fixable(Fix::Reindex),
    }
}

/// The `index.fresh` check alone (no integrity scan, which takes seconds
/// on a large index): for `pms ui`'s overview.
pub fn index_freshness(ws: &Workspace) -> Check {
    match db::open_ro(&ws.db_path()) {
        Ok(conn) => freshness(ws, &conn),
        Err(_) => Check::warn("index.fresh", "no search index yet").fixable(Fix::Reindex),
    }
}

/// Workspace files changed since the index last read them.
pub(crate) fn freshness(ws: &Workspace, conn: &rusqlite::Connection) -> Check {
    if db::get_meta(conn, "last_index").is_none() {
        return Check::warn("index.fresh", "never indexed").fixable(Fix::Reindex);
    }
    match not_indexed(ws, conn) {
        0 => Check::ok(
            "index.fresh",
            "no workspace file changed since the last index run",
        ),
        n => Check::warn(
            "index.fresh",
            format!(
                "{} changed since the last index run",
                crate::platform::plural::count(n, "workspace file", "workspace files")
            ),
        )
        .fixable(Fix::Reindex),
    }
}

/// Workspace files whose size or modification time differ from what the
/// index stored for them, or that it has no row for. Compared per file, not
/// against the time of the last run: a hook's run over one transcript (or
/// pms indexing a lesson it just wrote) moves that time on without reading
/// the files a person edited meanwhile.
pub(crate) fn not_indexed(ws: &Workspace, conn: &rusqlite::Connection) -> usize {
    let Ok(mut stmt) = conn.prepare("SELECT size, mtime_ns FROM files WHERE uri = ?1") else {
        return 0;
    };
    crate::memory::index::discover::workspace(ws)
        .iter()
        .filter(|f| {
            let stored: Option<(i64, i64)> = stmt
                .query_row([&f.uri], |r| Ok((r.get(0)?, r.get(1)?)))
                .ok();
            stored != Some((f.size as i64, f.mtime_ns))
        })
        .count()
}

/// The embedding provider and the vectors in the index.
pub(crate) fn embeddings(ws: &Workspace, env: &HostEnv) -> Vec<Check> {
    use crate::memory::embed::{Plan, download::Installed};
    let cfg = Config::load(&ws.config_path()).unwrap_or_default();
    let plan = Plan::resolve(&cfg.embeddings, env);
    let mut out = Vec::new();
    let id = match &plan {
        Plan::Off(reason) => {
            out.push(Check::ok(
                "embeddings",
                format!("keyword search only: {reason}"),
            ));
            return out;
        }
        Plan::Local {
            installed: false,
            model,
            ..
        } => {
            out.push(
                Check::warn(
                    "embeddings",
                    format!("the local model {model} is not installed, so search is keyword only"),
                )
                .hint("`pms embeddings install` (or the next `pms index`) downloads it"),
            );
            return out;
        }
        Plan::Local { dir, model, .. } => {
            let changed = Installed::load(dir)
                .map(|i| i.size_mismatches(dir))
                .unwrap_or_default();
            if !changed.is_empty() {
                out.push(
                    Check::fail(
                        "embeddings",
                        format!(
                            "model files changed since they were installed: {}",
                            changed.join(", ")
                        ),
                    )
                    .hint("`pms embeddings install` installs them again"),
                );
                return out;
            }
            match crate::memory::embed::LocalModel::load(dir, model) {
                Ok(m) => {
                    out.push(Check::ok(
                        "embeddings",
                        format!(
                            "local {model} ({}): loads in {} ms, {} dimensions",
                            m.kind(),
                            m.load_ms(),
                            m.dim()
                        ),
                    ));
                    crate::memory::embed::Embedder::id(&m).to_string()
                }
                Err(e) => {
                    out.push(
                        Check::fail("embeddings", e.to_string()).hint("`pms embeddings install`"),
                    );
                    return out;
                }
            }
        }
        Plan::OpenAi {
            url,
            model,
            key_env,
        } => {
            let key = std::env::var_os(key_env).is_some_and(|k| !k.is_empty());
            let local = url.contains("://localhost") || url.contains("://127.0.0.1");
            out.push(if key || local {
                Check::ok("embeddings", format!("openai-compatible {model} at {url}"))
            } else {
                Check::warn(
                    "embeddings",
                    format!("openai-compatible {model} at {url}, but {key_env} is not set"),
                )
                .hint(format!(
                    "export {key_env}=<your key> where Claude Code runs"
                ))
            });
            crate::memory::embed::openai::OpenAi::new(url, model, key_env).id_string()
        }
    };
    let Ok(conn) = db::open_ro(&ws.db_path()) else {
        return out;
    };
    let stats::Counts {
        chunks,
        vectors: with,
        ..
    } = stats::counts(&conn).unwrap_or_default();
    let stored = crate::memory::index::vectors::stored_model(&conn);
    out.push(if stored.as_deref() != Some(id.as_str()) && chunks > 0 {
        Check::warn(
            "index.vectors",
            format!("the index has no vectors from {id} yet (search is keyword only)"),
        )
        .fixable(Fix::Reindex)
    } else if with < chunks {
        Check::warn(
            "index.vectors",
            format!("{with} of {chunks} chunks have vectors"),
        )
        .fixable(Fix::Reindex)
    } else {
        Check::ok("index.vectors", format!("all {chunks} chunks have vectors"))
    });
    out
}

pub(crate) fn lessons_index(ws: &Workspace) -> Check {
    use crate::memory::lessons::index_file::{self, IndexState};
    let rules = lessons::all_rules(ws).len();
    match index_file::state(ws) {
        Some(IndexState {
            rules: n,
            current: true,
        }) if n == rules => Check::ok(
            "lessons.index",
            format!(
                "{} in force, all indexed",
                crate::platform::plural::count(rules, "lesson", "lessons")
            ),
        ),
        None if rules == 0 => Check::ok("lessons.index", "no lessons in force yet"),
        Some(IndexState { rules: n, current }) => Check::warn(
            "lessons.index",
            format!(
                "{} in force but {n} indexed{}",
                crate::platform::plural::count(rules, "lesson", "lessons"),
                if current {
                    ""
                } else {
                    " (a rule file changed since; the next prompt rebuilds it)"
                }
            ),
        )
        .fixable(Fix::RefreshLessons),
        None => Check::warn(
            "lessons.index",
            format!(
                "{} in force, none indexed",
                crate::platform::plural::count(rules, "lesson", "lessons")
            ),
        )
        .fixable(Fix::RefreshLessons),
    }
}

pub(crate) fn pending(ws: &Workspace) -> Check {
    match lessons::pending::load(ws) {
        Ok(p) => Check::ok(
            "pending",
            format!(
                "{} waiting for confirmation",
                crate::platform::plural::count(p.items.len(), "learning", "learnings")
            ),
        ),
        Err(e) => Check::fail("pending", e.to_string()),
    }
}

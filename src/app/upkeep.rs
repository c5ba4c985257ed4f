//! Keeping the derived data in step with the files: the search index, its
//! vectors and the lessons index. One home for what `pms index`, `pms sync`,
//! `pms init`'s first run, `verify --fix` and the hooks' background runs do.
//!
//! Only one run writes the index at a time. A caller takes an
//! [`IndexLock`] first (or finds another run holding it and leaves); the
//! functions here take the lock by reference, so none of them can run
//! without it.

use std::path::PathBuf;

use anyhow::Result;
use rusqlite::Connection;

use crate::memory::embed::{Plan, download};
use crate::memory::index::indexer::{self, IndexReport, StoppedForSpace};
use crate::memory::index::stats::{self, HistoryStats};
use crate::memory::index::{db, health, vectors};
use crate::platform::host::durable;
use crate::platform::host::env::HostEnv;
use crate::platform::progress::Progress;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::config::Provider;
use crate::platform::workspace::context::Context;

/// Held while the index is written (`.pms/index.lock`).
pub struct IndexLock(#[allow(dead_code)] durable::FileLock);

impl IndexLock {
    fn path(ws: &Workspace) -> PathBuf {
        ws.state_dir().join("index.lock")
    }

    /// The lock, or None when another run holds it.
    pub fn try_acquire(ws: &Workspace) -> Result<Option<IndexLock>> {
        let path = Self::path(ws);
        let lock = durable::try_lock_exclusive(&path).map_err(|e| Self::explain(ws, &path, e))?;
        Ok(lock.map(IndexLock))
    }

    /// The lock, waiting for another run to finish.
    pub fn wait(ws: &Workspace) -> Result<IndexLock> {
        let path = Self::path(ws);
        let lock = durable::lock_exclusive(&path).map_err(|e| Self::explain(ws, &path, e))?;
        Ok(IndexLock(lock))
    }

    /// A lock file that cannot be created (a read-only mount, `chattr +i`
    /// on `.pms`) means the index cannot be written: said as such, not as
    /// a bare "Read-only file system".
    fn explain(ws: &Workspace, path: &std::path::Path, e: std::io::Error) -> anyhow::Error {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => {
                db::DbError::ReadOnly { path: ws.db_path() }.into()
            }
            _ => crate::platform::host::error::FileError::new(path, e).into(),
        }
    }
}

/// Whether an index run may download the local embedding model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelDownload {
    /// When `embeddings.provider = "local"` names a model that is not
    /// installed yet: its first use, by a person running `pms index`.
    IfChosen,
    /// Background runs never download.
    Never,
}

/// What one index run did.
pub struct IndexOutcome {
    pub report: IndexReport,
    pub stats: HistoryStats,
    pub vectors: VectorOutcome,
    /// Free pages given back to the disk after the run.
    pub reclaimed: db::Reclaimed,
    /// The file-history shards could not be written (the pre-tool-use
    /// hook asks the index meanwhile; the next run writes them).
    pub file_history_error: Option<String>,
}

/// What the embedding pass did.
#[derive(Debug, Default)]
pub struct VectorOutcome {
    /// The provider, or why there is none.
    pub provider: String,
    /// True when search is keyword only (no provider in use).
    pub keyword_only: bool,
    pub embedded: usize,
    pub elapsed_ms: u128,
    /// A provider that failed: the keyword index is complete regardless.
    pub error: Option<String>,
    /// The vector file (index::vector_file) written anew: vectors, ms.
    pub file_written: Option<(usize, u128)>,
    /// The vector file could not be written (searches stream the vectors
    /// from index.db meanwhile).
    pub file_error: Option<String>,
}

/// Opens the index, brings it in step with every file, embeds the new
/// chunks and rewrites the lessons index. A file SQLite reports as corrupt
/// is rebuilt ([`rebuild`]); any other failure (a full disk, a read-only
/// file) is reported and the file kept.
pub fn index_now(
    ctx: &Context,
    lock: &IndexLock,
    progress: &dyn Progress,
    download: ModelDownload,
) -> Result<IndexOutcome> {
    // keeps the hook log able to say the disk is full when it is
    crate::platform::workspace::log::reserve(&ctx.ws);
    let path = ctx.ws.db_path();
    let mut conn = match db::open_rw(&path) {
        Ok(c) => c,
        Err(db::DbError::Corrupt { cause, .. }) => {
            // Derived data: rebuild rather than make the user do it.
            progress.note(&format!(
                "The index at {} was unusable ({cause}); rebuilding it.",
                path.display()
            ));
            return rebuild(ctx, lock, progress, download);
        }
        Err(e) => return Err(e.into()),
    };
    let report = match indexer::run(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, progress) {
        Ok(r) => r,
        // A damaged page met halfway: rebuilt, as a file that does not open is.
        Err(e) if health::is_corrupt(&e) => {
            drop(conn);
            progress.note(&format!(
                "The index at {} is damaged ({e}); rebuilding it.",
                path.display()
            ));
            return rebuild(ctx, lock, progress, download);
        }
        Err(e) => return Err(explained(&path, e)),
    };
    // Three whole-table counts per run (each session start runs one; 8 ms at
    // a million chunks): a full-text table out of step with its chunks makes
    // searches miss, silently.
    if let Ok(Some(what)) = health::counts_out_of_step(&conn) {
        health::record(&path, &what, "pms index");
        progress.note(&health::warning(&path).unwrap_or(what));
    }
    crate::memory::lessons::index_file::refresh_index(&ctx.ws);
    finish(ctx, &mut conn, IndexCopy::Live, report, progress, download)
}

/// Builds a new index from every file beside the current one
/// (`index.db.rebuild`) and swaps it in when complete: search keeps
/// answering from the old one meanwhile, and a rebuild that fails (a full
/// disk) leaves it as it was. `pms index --full`, a corrupt index.
pub fn rebuild(
    ctx: &Context,
    _lock: &IndexLock,
    progress: &dyn Progress,
    download: ModelDownload,
) -> Result<IndexOutcome> {
    let path = ctx.ws.db_path();
    let aside = rebuild_path(&ctx.ws);
    db::remove(&aside)?;
    let built = (|| -> Result<IndexOutcome> {
        let mut conn = db::open_rw(&aside)?;
        let report = indexer::run(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, progress)
            .map_err(|e| explained(&aside, e))?;
        // The crash tests' point in the long middle of a rebuild, the
        // database aside open with its WAL and shared memory beside it.
        durable::fault_point("rebuild", &aside)?;
        let outcome = finish(ctx, &mut conn, IndexCopy::Aside, report, progress, download)?;
        db::close_whole(conn, &aside)?;
        Ok(outcome)
    })();
    // A swap that fails (a full disk) leaves the old index, and removes the
    // new one as a failed build does: a whole index's worth of disk.
    let swapped = built.and_then(|outcome| {
        db::replace_with(&path, &aside)
            .map_err(|e| crate::platform::host::error::FileError::new(&path, e))?;
        Ok(outcome)
    });
    match swapped {
        Ok(mut outcome) => {
            health::clear(&path);
            crate::memory::lessons::index_file::refresh_index(&ctx.ws);
            if let Ok(conn) = db::open_rw(&path) {
                refresh_vector_file(&conn, &path, &mut outcome.vectors);
                outcome.file_history_error = write_file_history(&conn, &ctx.ws);
            }
            Ok(outcome)
        }
        Err(e) => {
            let _ = db::remove(&aside);
            Err(e)
        }
    }
}

/// Syncs only `paths` (what a hook knows has changed) and embeds what they
/// added; nothing is discovered, deleted or downloaded.
pub fn index_paths(ctx: &Context, lock: &IndexLock, paths: &[PathBuf]) -> Result<IndexOutcome> {
    index_paths_with(ctx, lock, paths, &crate::platform::progress::Quiet)
}

/// [`index_paths`] showing its progress (`pms import`'s thousands of files).
pub fn index_paths_with(
    ctx: &Context,
    _lock: &IndexLock,
    paths: &[PathBuf],
    progress: &dyn Progress,
) -> Result<IndexOutcome> {
    let path = ctx.ws.db_path();
    let mut conn = db::open_rw(&path).inspect_err(|e| note_if_corrupt(&path, e))?;
    let report = indexer::run_paths(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, paths, progress)
        .inspect_err(|e| note_if_corrupt(&path, e))
        .map_err(|e| explained(&path, e))?;
    finish(
        ctx,
        &mut conn,
        IndexCopy::Live,
        report,
        progress,
        ModelDownload::Never,
    )
}

/// Indexes files pms itself just wrote (a lesson added, moved or retired),
/// so that they are searchable at once and `index.fresh` never reports
/// pms's own change as staleness. Skipped (false) when there is no index
/// yet or a run holds the lock: that run, or the next, reads them.
pub fn index_own_writes(ctx: &Context, paths: &[PathBuf]) -> bool {
    if !ctx.ws.db_path().is_file() {
        return false;
    }
    match IndexLock::try_acquire(&ctx.ws) {
        Ok(Some(lock)) => index_paths(ctx, &lock, paths).is_ok(),
        _ => false,
    }
}

/// An index run's failure in the user's terms: SQLite's errors as
/// [`db::classify`] reads them (a full disk, a lock another process holds,
/// a read-only file each say what to do).
fn explained(db: &std::path::Path, e: indexer::IndexError) -> anyhow::Error {
    match e {
        indexer::IndexError::Sqlite(e) => db::classify(db, e).into(),
        other => other.into(),
    }
}

/// A hook's background run does not rebuild (that is the next full
/// `pms index`'s job); it leaves the note, so searches warn meanwhile.
fn note_if_corrupt(db: &std::path::Path, e: &(dyn std::error::Error + 'static)) {
    if health::is_corrupt(e) {
        health::record(db, &e.to_string(), "pms index --path");
    }
}

/// Which index a run wrote: the one searches read, or a rebuild's copy
/// beside it (whose vector file and file history are written once it is
/// swapped in). Told by the caller, not by comparing paths: SQLite names a
/// database by its resolved path, and a workspace reached through a
/// symlink never compared equal, so neither was ever written there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IndexCopy {
    Live,
    Aside,
}

fn finish(
    ctx: &Context,
    conn: &mut Connection,
    copy: IndexCopy,
    report: IndexReport,
    progress: &dyn Progress,
    download: ModelDownload,
) -> Result<IndexOutcome> {
    // A run stopped to keep the disk's margin embeds nothing more either.
    let mut vectors = match report.stopped_for_space {
        None => embed_missing(ctx, conn, progress, download),
        Some(_) => VectorOutcome::default(),
    };
    // A rebuild's database aside gets its file once swapped in (rebuild).
    let mut file_history_error = None;
    if copy == IndexCopy::Live {
        if report.stopped_for_space.is_none() {
            refresh_vector_file(conn, &ctx.ws.db_path(), &mut vectors);
        }
        // what was committed, even by a run stopped for space
        file_history_error = write_file_history(conn, &ctx.ws);
    }
    let reclaimed = db::reclaim(conn).unwrap_or_default();
    let stats = stats::history(conn)?;
    Ok(IndexOutcome {
        report,
        stats,
        vectors,
        reclaimed,
        file_history_error,
    })
}

/// Rewrites the vector file when the index's vectors moved on from it.
fn refresh_vector_file(conn: &Connection, db: &std::path::Path, out: &mut VectorOutcome) {
    use crate::memory::index::vector_file::{self, Refresh};
    match vector_file::refresh(conn, db) {
        Ok(Refresh::Written {
            vectors,
            elapsed_ms,
        }) => out.file_written = Some((vectors, elapsed_ms)),
        Ok(_) => {}
        Err(e) => out.file_error = Some(e.to_string()),
    }
}

/// Writes the file-history shards the run changed (index::file_touches);
/// a failure is said, and the shards stay listed for the next run.
fn write_file_history(conn: &Connection, ws: &Workspace) -> Option<String> {
    use crate::memory::index::file_touches;
    file_touches::write_listed(conn, &ws.state_dir())
        .err()
        .map(|e| {
            let dir = file_touches::dir_of(&ws.state_dir());
            format!(
                "{}: {e}. The hook before an edit asks the index meanwhile. Fix: free the disk or make the folder writable, then run `pms index`",
                dir.display()
            )
        })
}

/// What to tell the user when an index run stopped to keep the disk's
/// margin.
pub fn space_note(ws: &Workspace, stop: &StoppedForSpace) -> String {
    format!(
        "{}: indexing stopped with {:.1} MB free on its disk, {} left unindexed: pms keeps {:.1} MB free there so that its hooks and your own work can still write. Fix: free some space on that disk, then run `pms index`",
        ws.state_dir().display(),
        stop.free_bytes as f64 / 1e6,
        crate::platform::plural::count(stop.files_left, "changed file", "changed files"),
        stop.kept_bytes as f64 / 1e6
    )
}

/// Embeds the chunks that have no vector. Failures are reported in the
/// outcome, not raised: the keyword index is already complete and usable.
fn embed_missing(
    ctx: &Context,
    conn: &mut Connection,
    progress: &dyn Progress,
    download: ModelDownload,
) -> VectorOutcome {
    let cfg = &ctx.cfg.embeddings;
    if cfg.provider == Provider::None {
        // Switched off: vectors nobody will read are only weight.
        let _ = vectors::clear(conn);
    }
    let mut plan = Plan::resolve(cfg, &ctx.env);
    if let Plan::Local {
        model,
        dir,
        installed: false,
    } = &plan
        && download == ModelDownload::IfChosen
    {
        progress.note(&format!(
            "Downloading the embedding model {model} (once) from {}...",
            cfg.download_url
        ));
        if let Err(e) = download::install(&cfg.download_url, model, dir, progress) {
            return VectorOutcome {
                provider: plan.describe(&ctx.env),
                error: Some(e.to_string()),
                ..VectorOutcome::default()
            };
        }
        plan = Plan::resolve(cfg, &ctx.env);
    }
    let mut out = VectorOutcome {
        provider: plan.describe(&ctx.env),
        keyword_only: matches!(plan, Plan::Off(_)),
        ..VectorOutcome::default()
    };
    let embedder = match plan {
        Plan::Off(_) => return out,
        Plan::Local {
            installed: false, ..
        } => {
            out.error =
                Some("the local model is not installed: run `pms embeddings install`".into());
            return out;
        }
        _ => match plan.load() {
            Ok(e) => e,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        },
    };
    match vectors::embed_missing(conn, embedder.as_ref(), progress) {
        Ok(r) => {
            out.embedded = r.chunks;
            out.elapsed_ms = r.elapsed_ms;
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// Where [`rebuild`] builds the new index: `index.db.rebuild`, with its
/// `-wal` and `-shm` while it is open.
fn rebuild_path(ws: &Workspace) -> PathBuf {
    ws.db_path().with_extension("db.rebuild")
}

/// A file a killed pms run left behind (a temporary file of an interrupted
/// write, a rebuild's database), whose writer is gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Debris {
    pub path: PathBuf,
    pub bytes: u64,
}

/// The workspaces pms may have left debris in: the one found, and the one
/// a killed `pms init` was writing (the pointer is written last, so only
/// [`HostEnv::interrupted_init`] names it).
fn workspace_roots(env: &HostEnv, ws: Option<&Workspace>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ws.map(|w| w.root.clone()).into_iter().collect();
    if let Some(init) = env.interrupted_init()
        && !roots.contains(&init)
        && init.is_dir()
    {
        roots.push(init);
    }
    roots
}

/// Every folder pms writes files into: the agents' configuration folders,
/// pms's own, and those of [`workspace_roots`].
fn written_dirs(env: &HostEnv, ws: Option<&Workspace>) -> Vec<PathBuf> {
    let mut dirs = vec![
        env.claude_dir.clone(),
        env.codex_home.clone(),
        env.pms_config_dir.clone(),
        crate::platform::agents::openclaw::plugin_dir(env),
    ];
    for file in [&env.claude_json, &env.openclaw_config] {
        if let Some(d) = file.parent() {
            dirs.push(d.to_path_buf());
        }
    }
    for root in workspace_roots(env, ws) {
        workspace_dirs(&root, 0, &mut dirs);
    }
    dirs.sort();
    dirs.dedup();
    dirs
}

/// The files of a rebuild that no run is making: `index.db.rebuild` and
/// its journal, `-wal` and `-shm`, when the index lock is free (a rebuild
/// holds it from start to swap, so a free lock means its writer is dead).
/// Returns them with the lock held, so that no rebuild starts while they go.
fn abandoned_rebuild(ws: &Workspace) -> Option<(Vec<PathBuf>, IndexLock)> {
    let files: Vec<PathBuf> = db::files_of(&rebuild_path(ws))
        .into_iter()
        .filter(|p| p.exists())
        .collect();
    if files.is_empty() {
        return None;
    }
    let lock = IndexLock::try_acquire(ws).ok().flatten()?;
    Some((files, lock))
}

/// Removes what killed runs left behind: `.pms-tmp-*` files whose writing
/// process is gone, in every folder pms writes to (the workspace's, when
/// there is one, the one a killed init was writing, and the agents'
/// configuration folders), and a rebuild's `index.db.rebuild` (with its WAL,
/// 76 MB in issue 27's run) when no rebuild is running. Every
/// command that writes runs it first, and `pms sync` at each session start.
/// Returns how many files were removed.
pub fn sweep(env: &HostEnv, ws: Option<&Workspace>) -> usize {
    let mut removed: usize = written_dirs(env, ws)
        .iter()
        .map(|d| durable::remove_stale_temps(d))
        .sum();
    for root in workspace_roots(env, ws) {
        let ws = Workspace::new(root);
        if let Some((files, _lock)) = abandoned_rebuild(&ws)
            && db::remove(&rebuild_path(&ws)).is_ok()
        {
            removed += files.len();
        }
    }
    removed
}

/// What [`sweep`] would remove, without removing it: after a sweep, what
/// it could not remove (a folder without write permission), for `pms
/// verify`, `doctor` and `status` to show.
pub fn debris(env: &HostEnv, ws: Option<&Workspace>) -> Vec<Debris> {
    let mut found: Vec<PathBuf> = written_dirs(env, ws)
        .iter()
        .flat_map(|d| durable::stale_temps(d))
        .collect();
    for root in workspace_roots(env, ws) {
        if let Some((files, _lock)) = abandoned_rebuild(&Workspace::new(root)) {
            found.extend(files);
        }
    }
    found
        .into_iter()
        .map(|path| Debris {
            bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
            path,
        })
        .collect()
}

/// The workspace's folders, down to the depth pms writes at (domain
/// workflows, projects, `.pms/state`), without `node_modules` or `.git`.
fn workspace_dirs(dir: &std::path::Path, depth: usize, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    if depth >= 4 {
        return;
    }
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name();
        if e.file_type().is_ok_and(|t| t.is_dir()) && name != "node_modules" && name != ".git" {
            workspace_dirs(&e.path(), depth + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temp file name whose writer cannot be alive: past Linux's
    /// largest pid (2^22).
    const DEAD_WRITER_TEMP: &str = ".pms-tmp-999999999-abc";

    fn home() -> (tempfile::TempDir, HostEnv, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let env = HostEnv::with_home(dir.path().to_path_buf(), |_| None).unwrap();
        let ws = Workspace::new(dir.path().join("pms"));
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        (dir, env, ws)
    }

    #[test]
    fn an_abandoned_rebuild_goes_and_a_running_one_stays() {
        let (_dir, env, ws) = home();
        let aside = rebuild_path(&ws);
        for suffix in ["", "-wal", "-shm"] {
            std::fs::write(format!("{}{suffix}", aside.display()), [0u8; 1000]).unwrap();
        }
        let temp = ws.state_dir().join(DEAD_WRITER_TEMP);
        std::fs::write(&temp, "half").unwrap();
        // a rebuild running (it holds the index lock): its files are its own
        let running = IndexLock::try_acquire(&ws).unwrap().unwrap();
        let found = debris(&env, Some(&ws));
        assert_eq!(found.iter().map(|d| &d.path).collect::<Vec<_>>(), [&temp]);
        assert_eq!(sweep(&env, Some(&ws)), 1);
        assert!(aside.exists() && !temp.exists());
        // its writer gone: debris, listed with its size, then removed
        drop(running);
        let found = debris(&env, Some(&ws));
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found.iter().map(|d| d.bytes).sum::<u64>(), 3000);
        assert_eq!(sweep(&env, Some(&ws)), 3);
        assert!(debris(&env, Some(&ws)).is_empty());
        assert!(!aside.exists());
    }

    #[test]
    fn what_a_killed_init_left_is_found_without_a_workspace() {
        let (dir, env, _ws) = home();
        // init was creating another folder, and was killed before the
        // pointer named it
        let half_made = dir.path().join("elsewhere/product/workflows");
        std::fs::create_dir_all(&half_made).unwrap();
        let temp = half_made.join(DEAD_WRITER_TEMP);
        std::fs::write(&temp, "half").unwrap();
        let record = env.init_in_progress();
        std::fs::create_dir_all(record.parent().unwrap()).unwrap();
        std::fs::write(
            &record,
            format!("{}\n", dir.path().join("elsewhere").display()),
        )
        .unwrap();
        assert_eq!(debris(&env, None).len(), 1);
        assert_eq!(sweep(&env, None), 1);
        assert!(!temp.exists());
    }
}

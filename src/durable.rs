//! Writing files so that a crash, a full disk or a second process never leaves
//! one half-written.
//!
//! Every file pms changes goes through [`write_atomic`]: the new bytes land in
//! a temporary file in the same directory, are flushed to disk, and replace
//! the old file with one `rename`, which POSIX makes atomic. Files that belong
//! to other programs (Claude Code's settings, Codex's config) are copied to a
//! timestamped backup first with [`backup`]. Files that several hook processes
//! may update at once are guarded by an advisory lock ([`lock_exclusive`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` atomically, creating parent directories.
///
/// The permissions of an existing file are kept, so a `0600` settings file
/// stays private after we rewrite it; a new file is `0644`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_mode(path, bytes, 0o644)
}

/// [`write_atomic`], giving a file that does not exist yet `new_file_mode`
/// (`0o600` for files that may hold credentials).
pub fn write_atomic_mode(path: &Path, bytes: &[u8], new_file_mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let perms = match fs::metadata(path) {
        Ok(meta) => meta.permissions(),
        Err(_) => fs::Permissions::from_mode(new_file_mode),
    };
    replace(path, bytes, true, Some(perms))
}

/// [`write_atomic`] without the fsync: never half-written (the rename is
/// atomic), but the newest version may not survive a power cut. For state
/// that is cheap to lose (per-session hook state, caches) on paths where an
/// fsync would cost more than the whole hook. The file gets the default
/// permissions of a new temporary file (`0600`).
pub fn write_atomic_nosync(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace(path, bytes, false, None)
}

/// Writes a new file at `path`, atomically and fsynced, failing with
/// `AlreadyExists` rather than replacing a file that is there (a note the
/// agent saves must never overwrite one of the user's).
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    fault_point("rename", path);
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path` (fsynced if `sync`, given
/// `perms` if any) and renames it over `path`.
fn replace(
    path: &Path,
    bytes: &[u8],
    sync: bool,
    perms: Option<fs::Permissions>,
) -> io::Result<()> {
    let dir = parent_dir(path);
    fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    if let Some(perms) = perms {
        fs::set_permissions(tmp.path(), perms)?;
    }
    fault_point("rename", path);
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The crash tests' seam (`tests/crash.rs`). Every rename that puts a file
/// in place, and every backup, passes here first: with
/// `PMS_TEST_WRITE_LOG=<file>` one line per operation is appended to it (so
/// a harness can count a command's kill points), and with
/// `PMS_TEST_KILL_AT=<n>` the process kills itself with SIGKILL just before
/// its n-th operation, as a power cut or `kill -9` would. Unset, it costs
/// two environment lookups per write.
fn fault_point(op: &str, path: &Path) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(log) = std::env::var_os("PMS_TEST_WRITE_LOG")
        && let Ok(mut f) = OpenOptions::new().create(true).append(true).open(log)
    {
        let _ = writeln!(f, "{n} {op} {}", path.display());
    }
    if std::env::var("PMS_TEST_KILL_AT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        == Some(n)
    {
        // SAFETY: sending a signal to our own process has no preconditions.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}

/// The prefix of the temporary files [`write_atomic`] renames into place.
pub const TEMP_PREFIX: &str = ".pms-tmp-";

/// Whether `path` is one of pms's temporary files (what an interrupted
/// write leaves behind): readers of a folder skip these.
pub fn is_temp(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(TEMP_PREFIX))
}

/// Removes the temporary files in `dir` older than `min_age` (a write in
/// progress is younger): what an interrupted write left. Returns how many.
pub fn remove_stale_temps(dir: &Path, min_age: std::time::Duration) -> usize {
    let Ok(rd) = fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        let p = e.path();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().unwrap_or_default() >= min_age);
        if is_temp(&p) && old && fs::remove_file(&p).is_ok() {
            n += 1;
        }
    }
    n
}

/// Copies `path` to `<name>.pms-backup-<UTC timestamp>` beside it and returns
/// the backup's path. Beside the original is where a person looks first.
pub fn backup(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let dir = parent_dir(path);
    let mut candidate = dir.join(format!("{name}.pms-backup-{stamp}"));
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = dir.join(format!("{name}.pms-backup-{stamp}-{n}"));
    }
    fault_point("backup", &candidate);
    fs::copy(path, &candidate)?;
    Ok(candidate)
}

/// An exclusive advisory lock, released when dropped.
pub struct FileLock {
    file: File,
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// Blocks until this process holds the exclusive lock on `lock_path`
/// (created if missing). Used around read-modify-write cycles of shared
/// state such as `pending-learnings.json`.
pub fn lock_exclusive(lock_path: &Path) -> io::Result<FileLock> {
    fs::create_dir_all(parent_dir(lock_path))?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path)?;
    file.lock()?;
    Ok(FileLock { file })
}

/// Like [`lock_exclusive`] but gives up immediately when another process
/// holds the lock (returns `Ok(None)`).
pub fn try_lock_exclusive(lock_path: &Path) -> io::Result<Option<FileLock>> {
    fs::create_dir_all(parent_dir(lock_path))?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(FileLock { file })),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_content_and_keeps_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let fresh = dir.path().join("b.md");
        write_atomic(&fresh, b"x").unwrap();
        assert_eq!(
            fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
            0o644
        );
        // no temp file is left behind
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn backups_never_collide() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        fs::write(&p, "1").unwrap();
        let a = backup(&p).unwrap();
        let b = backup(&p).unwrap();
        assert_ne!(a, b);
        assert_eq!(fs::read_to_string(a).unwrap(), "1");
        assert_eq!(fs::read_to_string(b).unwrap(), "1");
    }

    #[test]
    fn try_lock_sees_a_held_lock() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        let held = lock_exclusive(&p).unwrap();
        // flock locks belong to the open file description, so a second open
        // in the same process conflicts just as another process would.
        assert!(try_lock_exclusive(&p).unwrap().is_none());
        drop(held);
        assert!(try_lock_exclusive(&p).unwrap().is_some());
    }
}

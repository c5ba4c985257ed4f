//! Writing files so that a crash, a full disk or a second process never leaves
//! one half-written.
//!
//! Every file pms changes goes through [`write_atomic`]: the new bytes land in
//! a temporary file in the same directory, are flushed to disk, and replace
//! the old file with one `rename`, which POSIX makes atomic. Files that belong
//! to other programs (Claude Code's settings, Codex's config) are copied to a
//! timestamped backup first with [`backup`], and written with
//! [`write_keeping_hard_links`]: one a dotfile manager hard-linked is
//! overwritten in place, since a rename would break the link. Files that several hook processes
//! may update at once are guarded by an advisory lock ([`lock_exclusive`]).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A user's text file as it is: `None` when there is none. Anything else
/// that stops it being read (not UTF-8, a folder, no permission) is an
/// error, never "missing": a caller that took it for missing would write
/// over the user's file.
pub fn read_existing_text(path: &Path) -> io::Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "not UTF-8 text, so pms leaves it alone. Fix: save it as UTF-8",
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

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

/// [`write_atomic_mode`] for a file that belongs to another program (an
/// agent's settings, `~/.claude.json`, Codex's `config.toml`), which a
/// dotfile manager may have hard-linked to its own copy: such a file is
/// overwritten in place ([`overwrite_in_place`]) so the link survives; any
/// other is replaced atomically as [`write_atomic_mode`] does. Only for text
/// formats in which trailing blanks mean nothing (JSON, TOML).
///
/// pms's own files keep the rename everywhere: for them the all-or-nothing
/// replacement is worth more than a link nobody should have made.
pub fn write_keeping_hard_links(path: &Path, bytes: &[u8], new_file_mode: u32) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let target = write_target(path)?;
    match fs::metadata(&target) {
        Ok(m) if m.is_file() && m.nlink() > 1 => {
            refuse_read_only(&target)?;
            overwrite_in_place(&target, bytes)
        }
        _ => write_atomic_mode(path, bytes, new_file_mode),
    }
}

/// Writes `bytes` into the existing file `path` itself, keeping its inode
/// (and so every hard link to it, its owner and its mode).
///
/// A rename cannot do this: it points one name at a new file and leaves the
/// other links on the old one, silently forking the user's settings. Writing
/// in place gives up the rename's all-or-nothing, so the steps are ordered
/// to lose as little of it as they can:
///
/// 1. The old bytes are read first; any failure once the file has been
///    touched (a full disk while the file grows) writes them back, so an
///    error leaves the old bytes, as a failed rename would.
/// 2. The new text is written in one write from the start, padded with
///    spaces to the old length when it is shorter, then flushed to disk
///    (fdatasync). A kill or a power cut after this point leaves the new
///    document, at worst followed by blanks, which JSON and TOML ignore:
///    the meaning is whole even before the next step.
/// 3. Only then is the file cut to the new length, and flushed again; the
///    flush between keeps a power cut from persisting the shorter length
///    over blocks that still hold the old text.
///
/// What remains is the write itself: a file over one page written while
/// the process is killed, or one the disk had not finished when the power
/// went, can be torn, as any in-place editor's can. Callers back the file
/// up first ([`backup`]), so its old version is beside it.
fn overwrite_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Read;
    use std::os::unix::fs::FileExt;
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let mut old = Vec::new();
    file.read_to_end(&mut old)?;
    fault_point("overwrite", path)?;
    let written = (|| {
        let mut padded = bytes.to_vec();
        if padded.len() < old.len() {
            padded.resize(old.len(), b' ');
        }
        file.write_all_at(&padded, 0)?;
        file.sync_data()?;
        fault_point("trim", path)?;
        file.set_len(bytes.len() as u64)?;
        file.sync_all()
    })();
    if written.is_err() {
        // Best effort: the old bytes fit where they were (no new space).
        let _ = file
            .write_all_at(&old, 0)
            .and_then(|()| file.set_len(old.len() as u64))
            .and_then(|()| file.sync_all());
    }
    written
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
        .prefix(&temp_prefix())
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    fault_point("rename", path)?;
    tmp.persist_noclobber(path).map_err(|e| e.error)?;
    Ok(())
}

/// Where a write to `path` must go: through a symbolic link (a dotfiles
/// checkout links `~/.claude/settings.json` into a repository; replacing the
/// link with a file would silently fork the user's settings), to its target,
/// even when that target does not exist yet. Links are followed up to 16 deep.
fn write_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..16 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p)?;
                p = if target.is_absolute() {
                    target
                } else {
                    parent_dir(&p).join(target)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// Deletes the file that writes to `path` go to (through symbolic links):
/// a file pms created behind a link that was dangling goes, and the link
/// is left dangling as it was. A file already gone is no error.
pub fn remove_written(path: &Path) -> io::Result<()> {
    match fs::remove_file(write_target(path)?) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether a later [`write_atomic`] to `path` would be refused as read-only:
/// plans check it before changing anything.
pub fn check_writable(path: &Path) -> io::Result<()> {
    refuse_read_only(&write_target(path)?)
}

/// Refuses to replace a file whose owner made it read-only (no write bit):
/// a rename would succeed regardless, overriding the user's choice.
fn refuse_read_only(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o222 == 0 => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the file is read-only; pms changed nothing. Fix: make it writable (chmod u+w) if pms should change it, and run the command again",
        )),
        _ => Ok(()),
    }
}

/// Writes `bytes` to a temporary file beside `path` (fsynced if `sync`, given
/// `perms` if any) and renames it over `path` (over a link's target, not the
/// link; never over a read-only file).
fn replace(
    path: &Path,
    bytes: &[u8],
    sync: bool,
    perms: Option<fs::Permissions>,
) -> io::Result<()> {
    let target = write_target(path)?;
    let path = target.as_path();
    refuse_read_only(path)?;
    let dir = parent_dir(path);
    fs::create_dir_all(&dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix())
        .tempfile_in(&dir)?;
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    if let Some(perms) = perms {
        fs::set_permissions(tmp.path(), perms)?;
    }
    fault_point("rename", path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The crash tests' seam (`tests/crash.rs`). Every rename that puts a file
/// in place (the index's swap after a rebuild included), every backup, and
/// the named points of long runs (`rebuild`: a rebuild's database open
/// aside, with its WAL) pass here first: with
/// `PMS_TEST_WRITE_LOG=<file>` one line per operation is appended to it (so
/// a harness can count a command's kill points), and with
/// `PMS_TEST_KILL_AT=<n>` the process kills itself with SIGKILL just before
/// its n-th operation, as a power cut or `kill -9` would; with
/// `PMS_TEST_FULL_AT=<n>` that operation fails with "no space left on
/// device" instead, as on a full disk. Unset, it costs three environment
/// lookups per write.
pub fn fault_point(op: &str, path: &Path) -> io::Result<()> {
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
    if std::env::var("PMS_TEST_FULL_AT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        == Some(n)
    {
        return Err(io::Error::from(io::ErrorKind::StorageFull));
    }
    Ok(())
}

/// The prefix of the temporary files [`write_atomic`] renames into place.
pub const TEMP_PREFIX: &str = ".pms-tmp-";

/// Whether `path` is one of pms's temporary files (what an interrupted
/// write leaves behind): readers of a folder skip these.
pub fn is_temp(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(TEMP_PREFIX))
}

/// `.pms-tmp-<pid>-`: a temporary file names the process writing it, so a
/// sweep can tell one left by a dead process (a kill, a crash) from one a
/// live process is still writing, whatever their age.
fn temp_prefix() -> String {
    format!("{TEMP_PREFIX}{}-", std::process::id())
}

/// Whether the process that made temp file `name` is gone (or the name
/// holds no pid: a file from an older pms, removed once it is old).
fn writer_gone(name: &str, age: std::time::Duration) -> bool {
    let pid = name
        .strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.split_once('-'))
        .and_then(|(pid, _)| pid.parse::<i32>().ok());
    match pid {
        // SAFETY: kill with signal 0 only checks that the process exists.
        // Only "no such process" means gone: EPERM is a live process of
        // another user, whose file must not be swept.
        Some(pid) => {
            pid != std::process::id() as i32
                && unsafe { libc::kill(pid, 0) } != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
        }
        None => age >= std::time::Duration::from_secs(600),
    }
}

/// The temporary files in `dir` whose writer is gone: what an interrupted
/// write left.
pub fn stale_temps(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        if !is_temp(&p) {
            continue;
        }
        let age = e
            .metadata()
            .and_then(|m| m.modified())
            .map(|t| t.elapsed().unwrap_or_default())
            .unwrap_or_default();
        if writer_gone(&e.file_name().to_string_lossy(), age) {
            out.push(p);
        }
    }
    out
}

/// Removes [`stale_temps`]`(dir)`. Returns how many went.
pub fn remove_stale_temps(dir: &Path) -> usize {
    stale_temps(dir)
        .iter()
        .filter(|p| fs::remove_file(p).is_ok())
        .count()
}

/// Backups kept beside each file: the newest few, not one per run forever
/// (and the oldest, see [`prune_backups`]).
pub const BACKUPS_KEPT: usize = 3;

/// The backups [`backup`] made of the file at `path` and still kept,
/// oldest first (their names sort by time).
pub fn backups_of(path: &Path) -> Vec<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let prefix = format!("{name}.pms-backup-");
    let mut found: Vec<PathBuf> = fs::read_dir(parent_dir(path))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect();
    found.sort();
    found
}

/// The oldest backup kept of the file that `backup` is a backup of.
pub fn oldest_backup_beside(backup: &Path) -> Option<PathBuf> {
    let name = backup.file_name()?.to_string_lossy().into_owned();
    let (original, _) = name.split_once(".pms-backup-")?;
    backups_of(&parent_dir(backup).join(original))
        .into_iter()
        .next()
}

/// Deletes all but the oldest and the newest `keep` backups of the file at
/// `path`. The oldest is the file as it was before pms first changed it,
/// the one copy a person who wants pms gone entirely needs; four re-runs
/// of `init` must not prune it.
fn prune_backups(path: &Path, keep: usize) {
    let found = backups_of(path);
    let excess = found.len().saturating_sub(keep + 1);
    for p in found.iter().skip(1).take(excess) {
        let _ = fs::remove_file(p);
    }
}

/// Copies `path` to `<name>.pms-backup-<UTC timestamp>` beside it and returns
/// the backup's path. Beside the original is where a person looks first.
pub fn backup(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    // Microseconds: names must sort by time for pruning, and a `-n` suffix
    // alone could reuse a name pruned a moment ago, sorting a new copy
    // before older ones.
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    let dir = parent_dir(path);
    let mut candidate = dir.join(format!("{name}.pms-backup-{stamp}"));
    let mut n = 1;
    while candidate.exists() {
        n += 1;
        candidate = dir.join(format!("{name}.pms-backup-{stamp}-{n}"));
    }
    fault_point("backup", &candidate)?;
    fs::copy(path, &candidate)?;
    prune_backups(path, BACKUPS_KEPT);
    MADE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(candidate.clone());
    Ok(candidate)
}

/// The backups this process made, in order (so a command can say where
/// they are whichever module made them).
static MADE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The backups [`backup`] made in this process that are still there.
pub fn backups_made() -> Vec<PathBuf> {
    MADE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|p| p.exists())
        .cloned()
        .collect()
}

/// Flushes everything written to the filesystem holding `path` (one
/// `syncfs`), for a run that wrote thousands of files with
/// [`write_atomic_nosync`]: one flush at its end instead of one per file
/// (an import of 2,000 conversations spent most of its time in fsync).
pub fn sync_filesystem(path: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let dir = File::open(path)?;
    // SAFETY: syncfs takes an open descriptor, which `dir` holds until after
    // the call.
    let rc = unsafe { libc::syncfs(dir.as_raw_fd()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
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

/// Bytes an unprivileged write can still use on the filesystem holding
/// `path` (a file or folder that exists), or None when that cannot be told.
pub fn free_space(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct we pass; the path is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// Free space pms leaves on the disk holding `path` when it grows what it
/// may grow (the index and its log of changes), so that the hooks' state and
/// summaries, and the user's own work, still have room when an index run
/// stops (issue 27: an index run of 8 MB of transcripts with 14 MB free left
/// 0 bytes, and every hook then failed to save): a twentieth of the disk,
/// at least 1 MB and at most 64 MB.
pub fn keep_free_bytes(path: &Path) -> u64 {
    const MIN: u64 = 1 << 20;
    const MAX: u64 = 64 << 20;
    disk_size(path).map_or(MAX, |size| (size / 20).clamp(MIN, MAX))
}

/// The size of the file system holding `path`.
fn disk_size(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct we pass; the path is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_blocks as u64 * st.f_frsize as u64)
}

/// Below this much free space a failed write is put down to a full disk:
/// SQLite says "disk I/O error", not "disk full", when it cannot grow its
/// shared-memory file, and a file system can have a few blocks left that
/// no allocation of a whole extent fits in.
pub const FULL_BELOW_BYTES: u64 = 1 << 20;

/// Whether the filesystem holding `path` (or its nearest existing parent)
/// is full.
pub fn disk_is_full(path: &Path) -> bool {
    path.ancestors()
        .find(|p| p.exists())
        .and_then(free_space)
        .is_some_and(|free| free < FULL_BELOW_BYTES)
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
    fn a_hard_linked_file_keeps_its_link_growing_and_shrinking() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("dotfiles-settings.json");
        let p = dir.path().join("settings.json");
        fs::write(&repo, "{\"a\": 1}\n").unwrap();
        fs::set_permissions(&repo, fs::Permissions::from_mode(0o640)).unwrap();
        fs::hard_link(&repo, &p).unwrap();
        for text in ["{\"a\": 1, \"hooks\": {\"Stop\": []}}\n", "{}\n", ""] {
            write_keeping_hard_links(&p, text.as_bytes(), 0o600).unwrap();
            assert_eq!(fs::read_to_string(&p).unwrap(), text);
            assert_eq!(
                fs::read_to_string(&repo).unwrap(),
                text,
                "the other link sees it"
            );
            let m = fs::metadata(&p).unwrap();
            assert_eq!(m.nlink(), 2);
            assert_eq!(m.ino(), fs::metadata(&repo).unwrap().ino());
            assert_eq!(m.permissions().mode() & 0o777, 0o640);
        }
        // a file with one link is still replaced atomically, through a symlink too
        let single = dir.path().join("single.json");
        fs::write(&single, "{}").unwrap();
        let ino = fs::metadata(&single).unwrap().ino();
        write_keeping_hard_links(&single, b"{\"b\": 2}", 0o600).unwrap();
        assert_ne!(
            fs::metadata(&single).unwrap().ino(),
            ino,
            "renamed into place"
        );
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 3, "no temp file left");
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
    fn pruning_keeps_the_first_backup_and_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        for n in 1..=6 {
            fs::write(&p, n.to_string()).unwrap();
            backup(&p).unwrap();
        }
        let kept: Vec<String> = backups_of(&p)
            .iter()
            .map(|b| fs::read_to_string(b).unwrap())
            .collect();
        assert_eq!(kept, ["1", "4", "5", "6"]);
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

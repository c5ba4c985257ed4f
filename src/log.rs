//! The hook error log: one line per failure, `<UTC time> <event> <cause>`,
//! in `.pms/logs/hooks.log` (or `~/.config/pms/hooks.log` when the workspace
//! itself could not be found, or its log cannot be written). `pms doctor`
//! shows its tail.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::env::HostEnv;
use crate::workspace::Workspace;

/// Past this size the log is rotated to `hooks.log.1`, so it cannot grow forever.
const MAX_BYTES: u64 = 1 << 20;

pub fn append(workspace: Option<&Path>, event: &str, message: &str) {
    let Some(path) = log_path(workspace) else {
        return;
    };
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if std::fs::metadata(&path)
        .map(|m| m.len() > MAX_BYTES)
        .unwrap_or(false)
    {
        let _ = std::fs::rename(&path, path.with_extension("log.1"));
    }
    let line = format!(
        "{} {event} {}\n",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ"),
        crate::redact::redact(message).replace('\n', " | ")
    );
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| {
            f.write_all(line.as_bytes())?;
            keep_room(&f);
            Ok(())
        });
    // A workspace on a read-only mount (or a full disk without the reserved
    // room) cannot take the line: it goes to the log beside the pointer.
    if let Err(e) = written
        && let Some(env) = HostEnv::from_process().ok()
    {
        let fallback = env.pms_config_dir.join("hooks.log");
        if fallback != path {
            let _ = std::fs::create_dir_all(&env.pms_config_dir);
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&fallback)
            {
                let _ = f.write_all(
                    format!("{} (not in {}: {e})\n", line.trim_end(), path.display()).as_bytes(),
                );
            }
        }
    }
}

/// Room kept allocated past the end of the log (about 200 lines), so that
/// the line saying the disk is full can still be written when it is: an
/// append into blocks the file already owns needs no free space.
const RESERVED_BYTES: i64 = 64 << 10;

/// Creates the workspace's hook log if needed and gives it its reserved
/// room. Called by every index run (each session start runs one), off the
/// hooks' path.
pub fn reserve(ws: &Workspace) {
    let path = ws.hook_log();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        keep_room(&f);
    }
}

/// Allocates [`RESERVED_BYTES`] past the file's end without changing its
/// length (`fallocate` with `FALLOC_FL_KEEP_SIZE`; ext4, xfs, btrfs and
/// tmpfs support it). Best effort: elsewhere the log is as before.
fn keep_room(f: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let len = f.metadata().map(|m| m.len() as i64).unwrap_or(0);
        // SAFETY: fallocate on an open descriptor we own; no memory is passed.
        unsafe {
            libc::fallocate(
                f.as_raw_fd(),
                libc::FALLOC_FL_KEEP_SIZE,
                len,
                RESERVED_BYTES,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = f;
}

fn log_path(workspace: Option<&Path>) -> Option<PathBuf> {
    let env = HostEnv::from_process().ok();
    let ws = env
        .as_ref()
        .and_then(|e| Workspace::locate(workspace, e).ok());
    match (ws, env) {
        (Some(ws), _) => Some(ws.hook_log()),
        (None, Some(env)) => Some(env.pms_config_dir.join("hooks.log")),
        (None, None) => None,
    }
}

//! The hook error log: one line per failure, `<UTC time> <event> <cause>`,
//! in `.pms/logs/hooks.log` (or `~/.config/pms/hooks.log` when the workspace
//! itself could not be found, or its log cannot be written). `pms doctor`
//! shows its tail.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;

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
        crate::platform::redact::redact(message).replace('\n', " | ")
    );
    let written = append_using_reserve(&path, line.as_bytes());
    // A workspace on a read-only mount cannot take the line: it goes to the
    // log beside the pointer.
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

/// Appends `bytes` to `path`, a file of the log folder. On a full disk the
/// reserved space is given up for the line that says so, and what the line
/// did not use is taken back at once (before another write can have it).
fn append_using_reserve(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let write = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes))
    };
    write().or_else(|e| match path.parent().map(spare_path) {
        Some(spare)
            if e.kind() == std::io::ErrorKind::StorageFull
                && std::fs::remove_file(&spare).is_ok() =>
        {
            let again = write();
            grow_spare(&spare);
            again
        }
        _ => Err(e),
    })
}

/// The sessions whose hooks could not save what they found (a full disk, a
/// read-only workspace), one id a line, beside the hook log: the hook log
/// promises that the next session start catches up on them, and crash
/// recovery alone would wait until they were idle for
/// `sessions.crash_idle_minutes`.
fn unsaved_path(ws: &Workspace) -> PathBuf {
    ws.hook_log().with_file_name("unsaved-sessions")
}

/// Notes that session `session_id`'s hooks could not save (written with the
/// hook log's reserved space, so a full disk can still take it).
pub fn note_unsaved(workspace: Option<&Path>, session_id: &str) {
    let env = HostEnv::from_process().ok();
    let Some(ws) = env
        .as_ref()
        .and_then(|e| Workspace::locate(workspace, e).ok())
    else {
        return;
    };
    let id = session_id.replace(['\n', '\r'], " ");
    if id.trim().is_empty() || unsaved_sessions(&ws).contains(&id) {
        return;
    }
    let _ = append_using_reserve(&unsaved_path(&ws), format!("{id}\n").as_bytes());
}

/// The sessions [`note_unsaved`] noted, each once.
pub fn unsaved_sessions(ws: &Workspace) -> Vec<String> {
    let text = std::fs::read_to_string(unsaved_path(ws)).unwrap_or_default();
    let mut out: Vec<String> = Vec::new();
    for id in text.lines().filter(|l| !l.trim().is_empty()) {
        if !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    }
    out
}

/// Forgets the noted sessions in `done` (their catch-up is saved).
pub fn forget_unsaved(ws: &Workspace, done: &[String]) {
    if done.is_empty() {
        return;
    }
    let left: String = unsaved_sessions(ws)
        .into_iter()
        .filter(|id| !done.contains(id))
        .map(|id| id + "\n")
        .collect();
    let path = unsaved_path(ws);
    let _ = if left.is_empty() {
        std::fs::remove_file(&path)
    } else {
        crate::platform::host::durable::write_atomic(&path, left.as_bytes())
    };
}

/// Space kept in a file of its own beside the log (about 200 log lines),
/// given up when the disk is full so that the lines saying so can still be
/// written.
const RESERVED_BYTES: usize = 64 << 10;

/// The reserved space's file in the log folder `dir`.
fn spare_path(dir: &Path) -> PathBuf {
    dir.join("reserved-space")
}

/// Sets the reserved space aside again if it was used (or never was).
/// Called by every index run (each session start runs one), off the
/// hooks' path; one `stat` while it is whole.
pub fn reserve(ws: &Workspace) {
    if let Some(dir) = ws.hook_log().parent() {
        let _ = std::fs::create_dir_all(dir);
        grow_spare(&spare_path(dir));
    }
}

/// Grows the reserved space's file to [`RESERVED_BYTES`] with zeros
/// (written, not `set_len`: a sparse file holds no blocks to give up),
/// keeping what it could write when the disk fills first.
fn grow_spare(spare: &Path) {
    let have = std::fs::metadata(spare)
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    if have >= RESERVED_BYTES {
        return;
    }
    let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(spare)
    else {
        return;
    };
    let block = [0u8; 4096];
    let mut left = RESERVED_BYTES - have;
    while left > 0 {
        let n = left.min(block.len());
        if f.write_all(&block[..n]).is_err() {
            break;
        }
        left -= n;
    }
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

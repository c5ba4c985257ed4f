//! The hook error log: one line per failure, `<UTC time> <event> <cause>`,
//! in `.pms/logs/hooks.log` (or `~/.config/pms/hooks.log` when the workspace
//! itself could not be found). `pms doctor` shows its tail.

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
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = f.write_all(line.as_bytes());
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

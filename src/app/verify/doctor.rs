//! `pms doctor`'s facts beyond the checks: the machine, the last hook
//! errors, and whether each advisory lock is held. A lock file is never
//! "stale": the OS drops the lock with its process, so a held lock means a
//! live pms.

use crate::platform::host::durable;
use crate::platform::workspace::Workspace;

/// The machine pms runs on.
pub struct Environment {
    pub os: String,
    pub kernel: String,
    pub arch: &'static str,
    pub pms: &'static str,
}

impl Environment {
    pub fn gather() -> Environment {
        let os = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("PRETTY_NAME=")
                        .map(|v| v.trim_matches('"').to_string())
                })
            })
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        Environment {
            os,
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .unwrap_or_default()
                .trim()
                .to_string(),
            arch: std::env::consts::ARCH,
            pms: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// The last `n` lines of the hook log, oldest first: the workspace's, and
/// the lines about it that went to `~/.config/pms/hooks.log` because the
/// workspace's log could not be written (a read-only mount).
pub fn recent_hook_errors(ws: &Workspace, n: usize) -> Vec<String> {
    let log = std::fs::read_to_string(ws.hook_log()).unwrap_or_default();
    let mut lines: Vec<String> = log.lines().map(str::to_string).collect();
    if let Ok(env) = crate::platform::host::env::HostEnv::from_process() {
        let elsewhere = format!("(not in {}:", ws.hook_log().display());
        let fallback =
            std::fs::read_to_string(env.pms_config_dir.join("hooks.log")).unwrap_or_default();
        lines.extend(
            fallback
                .lines()
                .filter(|l| l.contains(&elsewhere))
                .map(str::to_string),
        );
        lines.sort(); // each line starts with its UTC time
    }
    let mut tail: Vec<String> = lines.into_iter().rev().take(n).collect();
    tail.reverse();
    tail
}

/// Each advisory lock of the workspace and whether a running pms holds it.
pub fn locks(ws: &Workspace) -> Vec<(&'static str, bool)> {
    ["index.lock", "pending.lock", "lessons.lock"]
        .into_iter()
        .map(|name| {
            let p = ws.state_dir().join(name);
            let held = p.exists()
                && durable::try_lock_exclusive(&p)
                    .map(|l| l.is_none())
                    .unwrap_or(false);
            (name, held)
        })
        .collect()
}

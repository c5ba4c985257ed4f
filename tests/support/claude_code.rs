//! The real Claude Code CLI for end-to-end tests.
//!
//! The pinned version is installed from the npm registry into a cache folder
//! (once; a file lock keeps parallel tests from installing twice). Without
//! npm the e2e tests skip with a loud message, unless PMS_E2E_REQUIRED=1
//! (set by CI), in which case they fail: CI must never silently skip them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use super::TestHome;
use super::fake_api::FakeApi;

pub const CLAUDE_VERSION: &str = "2.1.330";

fn cache_dir() -> PathBuf {
    match std::env::var_os("PMS_CLAUDE_CACHE") {
        Some(p) => PathBuf::from(p),
        None => {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("claude-code-{CLAUDE_VERSION}"))
        }
    }
}

/// The folder holding the `claude` executable, installing it if needed;
/// None (after a loud message) when it cannot be installed here.
pub fn claude_bin_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let prefix = cache_dir();
    let bin_dir = prefix.join("node_modules/.bin");
    let ready = super::npm::install_once(
        &prefix,
        "the real Claude Code CLI",
        || bin_dir.join("claude").exists(),
        |npm| {
            npm.install(&format!("@anthropic-ai/claude-code@{CLAUDE_VERSION}"), None);
            // npm 11 may leave install scripts unapproved; the platform
            // binary is still there and runs directly.
            if !bin_dir.join("claude").exists() {
                let native = prefix.join(format!(
                    "node_modules/@anthropic-ai/claude-code-linux-{}/claude",
                    super::npm_arch()
                ));
                assert!(
                    native.exists(),
                    "Claude Code installed without a claude binary"
                );
                std::fs::create_dir_all(&bin_dir).unwrap();
                std::os::unix::fs::symlink(native, bin_dir.join("claude")).unwrap();
            }
        },
    );
    ready.then_some(bin_dir)
}

/// Runs `claude <args>` in `cwd` with HOME = the test home, against `api`.
pub fn run_claude(
    home: &TestHome,
    bin_dir: &Path,
    api: &FakeApi,
    cwd: &Path,
    args: &[&str],
) -> Output {
    run_claude_env(home, bin_dir, api, cwd, args, &[])
}

/// [`run_claude`] with extra environment variables (passed on to hooks).
pub fn run_claude_env(
    home: &TestHome,
    bin_dir: &Path,
    api: &FakeApi,
    cwd: &Path,
    args: &[&str],
    extra: &[(&str, &str)],
) -> Output {
    let child = Command::new(bin_dir.join("claude"))
        .args(args)
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("ANTHROPIC_BASE_URL", api.base_url())
        .env("ANTHROPIC_API_KEY", "dummy")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .env("CLAUDE_CODE_TMPDIR", home.path("cc-tmp"))
        .envs(extra.iter().copied())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("claude starts");
    // Collect output on a thread: polling with full pipes would deadlock.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("claude {args:?} did not finish within 120 s");
        }
    }
}

/// Evaluates to the Claude Code bin dir, or returns from the test (after the
/// loud skip message) when it is not available.
#[macro_export]
macro_rules! claude_or_skip {
    () => {
        match $crate::support::claude_code::claude_bin_dir() {
            Some(d) => d,
            None => return,
        }
    };
}

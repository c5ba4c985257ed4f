//! The real Codex CLI for end-to-end tests.
//!
//! The pinned version of `@openai/codex` is installed from the npm registry
//! into a cache folder (once; a file lock keeps parallel tests from
//! installing twice). The package ships Codex as a native binary in a
//! platform package (`@openai/codex-linux-x64/vendor/<target>/bin/codex`),
//! which the tests run directly. Without npm the tests skip with a loud
//! message, unless PMS_E2E_REQUIRED=1 (CI), in which case they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use super::TestHome;
use super::fake_responses::FakeResponses;

pub const CODEX_VERSION: &str = "0.169.0";

fn cache_dir() -> PathBuf {
    match std::env::var_os("PMS_CODEX_CACHE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("codex-{CODEX_VERSION}")),
    }
}

/// A folder holding only a `codex` that runs the real binary, to put on
/// PATH; None (after a loud message) when it cannot be installed here.
pub fn codex_bin_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let prefix = cache_dir();
    let bin_dir = prefix.join("bin");
    let ready = super::npm::install_once(
        &prefix,
        "the real Codex CLI",
        || bin_dir.join("codex").exists(),
        |npm| {
            npm.install(&format!("@openai/codex@{CODEX_VERSION}"), None);
            let native = find_native(&prefix.join("node_modules/@openai"))
                .expect("@openai/codex installed without its native binary");
            std::fs::create_dir_all(&bin_dir).unwrap();
            std::os::unix::fs::symlink(native, bin_dir.join("codex")).unwrap();
        },
    );
    ready.then_some(bin_dir)
}

/// `@openai/codex-<platform>/vendor/<target>/bin/codex`.
fn find_native(scope: &Path) -> Option<PathBuf> {
    for pkg in std::fs::read_dir(scope).ok()?.flatten() {
        let vendor = pkg.path().join("vendor");
        for target in std::fs::read_dir(&vendor).into_iter().flatten().flatten() {
            let bin = target.path().join("bin/codex");
            if bin.is_file() {
                return Some(bin);
            }
        }
    }
    None
}

/// `~/.codex/config.toml` pointing Codex at `api` (a custom provider with
/// the Responses wire API); what a user's own config would hold.
pub fn provider_config(api: &FakeResponses) -> String {
    format!(
        "# my Codex settings\nmodel = \"gpt-fake\"  # a fake model on 127.0.0.1\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{}\"\nwire_api = \"responses\"\n",
        api.base_url()
    )
}

/// Runs `codex <args>` in `cwd` with HOME and CODEX_HOME in the test home.
pub fn run_codex(home: &TestHome, bin_dir: &Path, cwd: &Path, args: &[&str]) -> Output {
    let child = Command::new(bin_dir.join("codex"))
        .args(args)
        .env_clear()
        .env("HOME", home.home())
        .env("CODEX_HOME", home.path(".codex"))
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("codex starts");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("codex {args:?} did not finish within 120 s");
        }
    }
}

/// Asks Codex itself (`codex app-server`, JSON-RPC over stdio: `initialize`,
/// then `hooks/list`) how it sees the hooks for `cwd`: each entry's `key`,
/// `currentHash` and `trustStatus`.
pub fn hooks_list(home: &TestHome, bin_dir: &Path, cwd: &Path) -> Vec<serde_json::Value> {
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(bin_dir.join("codex"))
        .arg("app-server")
        .env_clear()
        .env("HOME", home.home())
        .env("CODEX_HOME", home.path(".codex"))
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("codex app-server starts");
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"clientInfo": {"name": "pms-tests", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
            "params": {"cwds": [cwd]}}),
    ];
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    stdin.flush().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                && v["id"] == 2
            {
                let _ = tx.send(v);
                return;
            }
        }
    });
    let answer = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("codex app-server answered hooks/list");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answer["result"]["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Evaluates to the Codex bin dir, or returns from the test (after the loud
/// skip message) when it is not available.
#[macro_export]
macro_rules! codex_or_skip {
    () => {
        match $crate::support::codex_cli::codex_bin_dir() {
            Some(d) => d,
            None => return,
        }
    };
}

//! Shared test support: run the real `pms` binary in a temporary HOME, a
//! fake Anthropic API on 127.0.0.1, and the real Claude Code CLI.
//!
//! Every process a test starts gets a cleared environment with HOME pointing
//! at a temporary directory, so no test can read or write the real
//! `~/.claude`, `~/.claude.json` or `~/.codex`.
#![allow(dead_code)]

pub mod claude_code;
pub mod codex_cli;
pub mod fake_api;
pub mod fake_responses;
pub mod memory_eval;
pub mod memory_notes;
pub mod memory_set;
pub mod models;
pub mod moment_set;
pub mod npm;
pub mod openclaw_cli;
pub mod pip;
pub mod python_mcp;
pub mod retrieval;
pub mod skip;
pub mod static_server;
pub mod ui;
pub mod webdriver;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub const PMS: &str = env!("CARGO_BIN_EXE_pms");

/// A temporary home directory and helpers to run pms inside it.
pub struct TestHome {
    pub dir: tempfile::TempDir,
    /// Extra directories put in front of PATH (fake `codex`, real `claude`).
    pub path_prefix: Vec<PathBuf>,
}

impl TestHome {
    pub fn new() -> TestHome {
        let dir = tempfile::Builder::new()
            .prefix("pms-test-home-")
            .tempdir()
            .unwrap();
        TestHome {
            dir,
            path_prefix: Vec::new(),
        }
    }

    pub fn home(&self) -> &Path {
        self.dir.path()
    }
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    pub fn workspace(&self) -> PathBuf {
        self.path("pms")
    }
    /// The session summaries in the workspace, sorted.
    pub fn summaries(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(self.workspace().join("sessions"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        out.sort();
        out
    }
    pub fn settings(&self) -> PathBuf {
        self.path(".claude/settings.json")
    }

    /// PATH for child processes: our prefixes, then the system's basics
    /// (never the developer's own PATH, which may hold a real `claude`).
    pub fn path_var(&self) -> String {
        let mut parts: Vec<String> = self
            .path_prefix
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        parts.push("/usr/local/bin:/usr/bin:/bin".into());
        parts.join(":")
    }

    /// A `pms` command with a clean environment.
    pub fn pms(&self, args: &[&str]) -> Command {
        let mut c = Command::new(PMS);
        c.args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("PATH", self.path_var())
            .env("LANG", "C.UTF-8")
            // hooks' background syncs would race the assertions; tests run
            // `pms sync` / `pms index` themselves when they need them
            .env("PMS_NO_BACKGROUND", "1")
            .current_dir(self.home())
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.pms(args).output().expect("pms runs")
    }

    /// Runs pms and panics with its output unless it succeeded.
    /// The check `id` of `pms verify --quick --json`.
    pub fn verify_check(&self, id: &str) -> serde_json::Value {
        let out = self.run(&["verify", "--quick", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("verify --json: {e}: {}", stdout(&out)));
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no check {id} in {v:#}"))
    }

    pub fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "pms {args:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `pms search <q> --json`, parsed.
    pub fn search_json(&self, q: &str) -> Value {
        serde_json::from_slice(&self.ok(&["search", q, "--json"]).stdout).unwrap()
    }

    /// `pms init --yes` with a typical set of answers.
    pub fn init(&self, extra: &[&str]) -> Output {
        let ws = self.workspace();
        let ws = ws.to_str().unwrap();
        let mut args = vec![
            "init",
            "--yes",
            "--name",
            "Ada Lovelace",
            "--role",
            "PM",
            "--domains",
            "product,growth",
            "--dir",
            ws,
        ];
        args.extend_from_slice(extra);
        self.ok(&args)
    }

    /// Starts `pms hook <event>` as Claude Code does, with stdin, stdout and
    /// stderr piped; the caller writes (or withholds) the payload.
    pub fn spawn_hook(&self, event: &str) -> std::process::Child {
        let ws = self.workspace();
        self.pms(&["hook", event, "--workspace", ws.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs `pms hook <event>` with `payload` on stdin.
    pub fn hook(&self, event: &str, payload: &Value) -> Output {
        self.hook_raw(event, payload.to_string().as_bytes())
    }

    /// Runs `pms hook <event> --agent <agent>` with `payload` on stdin, as
    /// that agent's hook runs it.
    pub fn hook_as(&self, agent: &str, event: &str, payload: &Value) -> Output {
        use std::io::Write;
        let ws = self.workspace();
        let mut child = self
            .pms(&[
                "hook",
                event,
                "--workspace",
                ws.to_str().unwrap(),
                "--agent",
                agent,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs `pms hook <event>` with `bytes` on stdin, valid JSON or not.
    pub fn hook_raw(&self, event: &str, bytes: &[u8]) -> Output {
        use std::io::Write;
        let mut child = self.spawn_hook(event);
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        child.wait_with_output().unwrap()
    }

    pub fn read_json(&self, rel: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.path(rel)).unwrap()).unwrap()
    }
}

/// The URIs of the hits in a `--json` search result, best first.
pub fn hit_uris(v: &Value) -> Vec<String> {
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["uri"].as_str().unwrap().to_string())
        .collect()
}

/// Appends `text` to the file at `path` (a transcript growing under a test).
pub fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// This machine's architecture as npm's platform packages name it
/// (`@anthropic-ai/claude-code-linux-<arch>`, `node-linux-<arch>`).
pub fn npm_arch() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file under `dir` (relative path → bytes), for before/after checks.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    fn walk(base: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.insert(p.strip_prefix(base).unwrap().display().to_string(), bytes);
            }
        }
    }
    walk(dir, dir, &mut out);
    out
}

/// Writes an executable shell script.
pub fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Taken by a test that keeps the machine's cores busy for a long while
/// (the OpenClaw gateway: Node on both cores for its start-up) and by the
/// tests that bound a hook's wall-clock time, so that those measure pms,
/// not the gateway beside them. Other tests run alongside either.
pub fn cpu_heavy() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The binary's canonical path, as init writes it into settings.
pub static PMS_CANONICAL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| std::fs::canonicalize(PMS).unwrap().display().to_string());

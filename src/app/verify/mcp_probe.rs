//! Talking to `pms serve` as a client would, to prove it answers: the
//! initialize handshake and tools/list, under a deadline.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// The tool names `pms serve` lists, or why it failed.
pub fn probe(binary: &Path, workspace: &Path, deadline: Duration) -> Result<Vec<String>, String> {
    let mut child = Command::new(binary)
        .args(["serve", "--workspace"])
        .arg(workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, v: Value| -> Result<(), String> {
        writeln!(stdin, "{v}").map_err(|e| e.to_string())
    };
    let result = (|| {
        send(
            &mut stdin,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "pms-verify", "version": env!("CARGO_PKG_VERSION")}}}),
        )?;
        let end = std::time::Instant::now() + deadline;
        let mut listed = false;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            let line = rx
                .recv_timeout(left)
                .map_err(|_| format!("no answer within {} ms", deadline.as_millis()))?;
            let v: Value = serde_json::from_str(&line)
                .map_err(|_| format!("not JSON-RPC on stdout: {line:.80}"))?;
            if v["id"] == 1 {
                if v.get("error").is_some() {
                    return Err(format!("initialize failed: {}", v["error"]));
                }
                send(
                    &mut stdin,
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                )?;
                send(
                    &mut stdin,
                    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                )?;
                listed = true;
            } else if v["id"] == 2 && listed {
                let tools = v["result"]["tools"]
                    .as_array()
                    .ok_or("tools/list returned no tools")?
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_string))
                    .collect();
                return Ok(tools);
            }
        }
    })();
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    result
}

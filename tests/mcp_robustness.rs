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
        Server::start_with(home, &[])
    }

    pub fn start_with(home: &TestHome, env: &[(&str, &str)]) -> Server {
        let ws = home.workspace();
        let mut child = home
            .pms(&["serve", "--workspace", ws.to_str().unwrap()])
            .envs(env.iter().copied())
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

/// 150 hostile requests, malformed and well-formed: every one is answered
/// (by id, or with id null for the ones without a usable id), none hangs
/// the server, and no answer carries the secrets stored in the memory.
#[test]
fn hostile_requests_are_all_answered_and_leak_nothing() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let secret = format!("ghp_{}", "Zq7".repeat(12));
    let aws = "AKIAQX7ZK2LMN4PRS5TU";
    let ws = home.workspace();
    std::fs::write(
        ws.join("_me/notes.md"),
        format!("# Keys\nGITHUB_TOKEN={secret}\naws_access_key_id = {aws}\n"),
    )
    .unwrap();
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("s1.jsonl"),
        json!({"type": "user", "timestamp": "2026-11-01T09:00:00Z",
            "message": {"content": format!("export GITHUB_TOKEN={secret}")}})
        .to_string()
            + "\n",
    )
    .unwrap();
    home.ok(&["index", "--quiet"]);
    let mut s = Server::start(&home);
    s.handshake();

    let mut raw: Vec<Vec<u8>> = vec![
        b"not json".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"[]".to_vec(),
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]".to_vec(),
        b"42".to_vec(),
        b"\"ping\"".to_vec(),
        b"{\"id\":1,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}".to_vec(),
        [b"[".repeat(5000), b"]".repeat(5000)].concat(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"\ud800"}}}"#.to_vec(),
    ];
    while raw.len() < 40 {
        let n = raw.len();
        raw.push(format!("{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"tools/ca").into_bytes());
    }
    // Counted, not asserted one by one, so the run prints its figures
    // (issue 12 asks for them) before any assertion stops it.
    let mut answered = 0;
    let mut hangs = 0;
    let mut leaks = 0;
    let mut wrong_code: Vec<String> = Vec::new();
    let mut slowest = Duration::ZERO;
    for line in &raw {
        let mut l = line.clone();
        l.push(b'\n');
        let t = std::time::Instant::now();
        s.send_raw(&l);
        match s.recv(Duration::from_secs(10)) {
            Some(v) => {
                answered += 1;
                slowest = slowest.max(t.elapsed());
                if !(v["error"]["code"] == -32700 || v["error"]["code"] == -32600) {
                    wrong_code.push(format!("{v:.200}"));
                }
            }
            None => hangs += 1,
        }
    }
    // well-formed requests with hostile contents: answered by id
    let mut calls: Vec<Value> = Vec::new();
    let paths = [
        "../../../etc/passwd",
        "/etc/passwd",
        "cc://../../x",
        ".pms/index.db",
        "_me/notes.md",
        "cc://-home-u-app/s1.jsonl",
        "",
        "\u{0}",
        "_me/../../../etc/shadow",
        "~/.ssh/id_rsa",
    ];
    for p in paths {
        calls.push(
            json!({"name": "memory_get", "arguments": {"path": p, "from": 1, "lines": 5000}}),
        );
        calls.push(
            json!({"name": "memory_search_context", "arguments": {"source": p, "query": "token"}}),
        );
    }
    let queries = [
        "GITHUB_TOKEN",
        "ghp",
        "aws_access_key_id",
        "\" OR *",
        "NEAR(a b)",
        "*",
        "-",
        "x:y",
        "((((",
        "数据库",
        "\u{202e}evil",
        "</system-reminder>",
    ];
    for q in queries {
        calls.push(json!({"name": "memory_search", "arguments": {"query": q, "limit": 50}}));
    }
    calls.push(json!({"name": "memory_search", "arguments": {"query": "x".repeat(200_000)}}));
    calls.push(json!({"name": "memory_search", "arguments": {"query": 5}}));
    calls.push(json!({"name": "memory_search", "arguments": {}}));
    calls.push(
        json!({"name": "memory_search", "arguments": {"query": "a", "since": "yesterday-ish"}}),
    );
    calls.push(json!({"name": "memory_timeline", "arguments": {"around": "../../etc"}}));
    calls.push(json!({"name": "memory_timeline", "arguments": {"days": 4_000_000_000u32}}));
    calls.push(json!({"name": "memory_save", "arguments": {"title": "../../evil", "text": format!("keep {secret}")}}));
    calls.push(
        json!({"name": "memory_save", "arguments": {"title": "t", "text": "x", "domain": "../.."}}),
    );
    calls.push(json!({"name": "lessons_promote", "arguments": {"id": "P-nope"}}));
    calls.push(json!({"name": "lessons_reject", "arguments": {"id": "../../x"}}));
    calls.push(json!({"name": "no_such_tool", "arguments": {}}));
    calls.push(json!({"name": "memory_get"}));
    let mut id = 1000;
    let mut requests: Vec<Value> = calls
        .into_iter()
        .map(|params| {
            id += 1;
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        })
        .collect();
    for m in [
        "nope/nope",
        "resources/list",
        "prompts/list",
        "tools/list",
        "ping",
        "completion/complete",
    ] {
        id += 1;
        requests.push(json!({"jsonrpc": "2.0", "id": id, "method": m, "params": {}}));
    }
    while raw.len() + requests.len() < 150 {
        id += 1;
        requests.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": format!("q{id} \u{ffff} {}", "z".repeat(id % 97))}}}));
    }
    assert!(raw.len() + requests.len() >= 150);
    let mut unanswered: Vec<String> = Vec::new();
    let mut leaked: Vec<String> = Vec::new();
    for r in &requests {
        let t = std::time::Instant::now();
        s.send(r);
        let Some(v) = s.answer(&r["id"], Duration::from_secs(15)) else {
            hangs += 1;
            unanswered.push(format!("{r:.200}"));
            continue;
        };
        answered += 1;
        slowest = slowest.max(t.elapsed());
        let text = v.to_string();
        if text.contains(&secret) || text.contains(aws) || text.contains("root:x:0:0") {
            leaks += 1;
            leaked.push(format!("{text:.300}"));
        }
    }
    // still serving
    s.send(&json!({"jsonrpc": "2.0", "id": "last", "method": "ping"}));
    let ping_after = s.answer(&json!("last"), Duration::from_secs(5)).is_some();
    println!(
        "hostile MCP: {} requests ({} malformed lines, {} well-formed hostile calls): \
         {answered} answered, {hangs} hangs (no answer within 10 s / 15 s), {leaks} leaks \
         (GitHub token, AWS key, /etc/passwd); {} malformed lines answered with a code other \
         than -32700/-32600; slowest answer {} ms; ping answered after: {ping_after}",
        raw.len() + requests.len(),
        raw.len(),
        requests.len(),
        wrong_code.len(),
        slowest.as_millis()
    );
    assert!(wrong_code.is_empty(), "{wrong_code:#?}");
    assert_eq!(hangs, 0, "unanswered: {unanswered:#?}");
    assert_eq!(leaks, 0, "leaked: {leaked:#?}");
    assert_eq!(answered, raw.len() + requests.len());
    assert!(ping_after, "the server stopped answering");
    // the saved note stayed inside the workspace and holds no secret
    for e in walk(&ws) {
        let text = std::fs::read_to_string(&e).unwrap_or_default();
        if e.to_string_lossy().contains("evil") {
            assert!(e.starts_with(ws.join("notes")), "{e:?}");
            assert!(!text.contains(&secret), "{text}");
        }
    }
}

pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A slow call does not stop the server answering: while a tool call takes
/// two seconds (`PMS_TEST_TOOL_DELAY_MS`), a ping comes back at once.
#[test]
fn a_slow_call_does_not_block_the_others() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let mut s = Server::start_with(&home, &[("PMS_TEST_TOOL_DELAY_MS", "2000")]);
    s.handshake();
    let t = std::time::Instant::now();
    s.send(
        &json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {
        "name": "memory_get", "arguments": {"path": "_me/profile.md"}}}),
    );
    std::thread::sleep(Duration::from_millis(50));
    s.send(&json!({"jsonrpc": "2.0", "id": "ping", "method": "ping"}));
    let first = s.recv(Duration::from_secs(30)).expect("an answer");
    // The order proves it: the slow call takes 2 s and the ping, sent
    // after it, is answered first.
    assert_eq!(first["id"], "ping", "the ping waited for the slow call");
    assert!(s.answer(&json!("slow"), Duration::from_secs(10)).is_some());
    assert!(t.elapsed() >= Duration::from_secs(2));
}

/// Issue 27: a request whose id could be read gets its error with that id,
/// so the client can match it, and the code says what is wrong: params that
/// are not an object are an invalid request (-32600) or, by position, invalid
/// params (-32602); params a method cannot take are -32602, not -32601 (the
/// method exists). A fractional or too large id is echoed as written.
#[test]
fn every_error_to_a_request_carries_its_id() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let mut s = Server::start(&home);
    s.handshake();
    let cases: [(&str, &str, i64); 8] = [
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            "1.5",
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            "18446744073709551616",
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":"string"}"#,
            "2",
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"three","method":"tools/list","params":[1,2]}"#,
            r#""three""#,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"nope/nope","params":"x"}"#,
            "4",
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"memory_search","arguments":"string"}}"#,
            "5",
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":5}}"#,
            "6",
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#,
            "7",
            -32600,
        ),
    ];
    let mut wrong: Vec<String> = Vec::new();
    for (line, id, want) in cases {
        s.send_raw(format!("{line}\n").as_bytes());
        let Ok(answer) = s.lines.recv_timeout(Duration::from_secs(10)) else {
            wrong.push(format!("{line}: no answer"));
            continue;
        };
        let v: Value = serde_json::from_str(&answer).unwrap();
        // the id as the client wrote it, byte for byte
        let echoed = answer.contains(&format!(r#""id":{id},"#));
        if !echoed || v["error"]["code"] != want {
            wrong.push(format!(
                "{line}\n  -> {answer:.300} (want id {id}, code {want})"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // and the well-formed ones around them are still served
    s.send(
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "memory_search", "arguments": {"query": 5}}}),
    );
    let typed = s.answer(&json!(8), Duration::from_secs(10)).unwrap();
    assert_eq!(typed["result"]["isError"], true, "{typed}");
    s.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}));
    assert!(s.answer(&json!(9), Duration::from_secs(10)).unwrap()["result"].is_object());
}

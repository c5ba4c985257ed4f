//! `pms serve` driven by the official MCP Python SDK: tools listed, each
//! called, hostile arguments refused, in both protocol eras (the
//! 2026-07-28 discover probe and the older initialize handshake).

use crate::support::TestHome;
use serde_json::{Value, json};

fn home_with_history() -> TestHome {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        json!({"type": "user", "timestamp": "2026-11-01T09:00:00Z", "message": {"content": "How should we shard the billing database?"}}),
        json!({"type": "assistant", "timestamp": "2026-11-01T09:00:05Z", "message": {"id": "m1", "content": [{"type": "text", "text": "Shard the billing database by tenant id."}]}}),
        json!({"type": "user", "timestamp": "2026-11-01T09:01:00Z", "message": {"content": "数据库迁移怎么做?"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(project.join("s1.jsonl"), text).unwrap();
    home.ok(&["index", "--quiet"]);
    home
}

fn probe(mode: &str) {
    let Some(sdk) = crate::support::python_mcp::sdk_path() else {
        return;
    };
    let home = home_with_history();
    let out = crate::support::python_mcp::run_client(&home, &sdk, "probe.py", &[mode]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "probe failed in {mode} mode:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(report["server_name"], "pms");
    assert!(report["checks"].as_array().unwrap().len() >= 20, "{report}");
    if mode == "legacy" {
        assert_eq!(report["protocol_version"], "2025-11-25", "{report}");
    }
}

#[test]
fn the_python_sdk_uses_every_tool_in_the_modern_era() {
    probe("auto");
}

#[test]
fn the_python_sdk_uses_every_tool_with_the_initialize_handshake() {
    probe("legacy");
}

#[test]
fn the_python_sdk_gets_semantic_hits_once_a_model_is_installed() {
    let Some(sdk) = crate::support::python_mcp::sdk_path() else {
        return;
    };
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let notes = home.workspace().join("product/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("auth.md"),
        "# Authentication\n\nWe use JWT tokens; the endpoint checks the password hash.\n",
    )
    .unwrap();
    let model = crate::support::models::tiny_model(&home.path("tiny-model"));
    home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]);
    home.ok(&["index", "--quiet"]);
    let out =
        crate::support::python_mcp::run_client(&home, &sdk, "semantic.py", &["login credentials"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("OK"), "{text}");
    assert!(text.contains("close in meaning"), "{text}");
    let first = text.lines().find(|l| l.starts_with("1. ")).unwrap_or("");
    assert!(first.contains("product/notes/auth.md"), "{text}");
}

//! End-to-end inside the real Claude Code CLI (2.1.330 from npm), driven by
//! a scripted fake Anthropic API on 127.0.0.1, with a temporary HOME.

mod support;

use std::path::Path;

use serde_json::Value;
use support::TestHome;
use support::claude_code::run_claude;
use support::fake_api::{FakeApi, Turn};

/// The words Claude Code prints when it skips a settings entry it cannot use.
const SETTINGS_SKIPPED: &str = "settings entries were skipped";

fn body_text(v: &Value) -> String {
    v.to_string()
}

/// Inits pms with the real `claude` on PATH (so MCP registration goes
/// through `claude mcp add-json`), returns the work folder for sessions.
fn installed_home(bin_dir: &Path) -> (TestHome, std::path::PathBuf) {
    let mut home = TestHome::new();
    home.path_prefix.push(bin_dir.to_path_buf());
    let out = home.init(&[]);
    assert!(
        support::stdout(&out).contains("registered with `claude mcp add-json`"),
        "{}",
        support::stdout(&out)
    );
    let work = home.path("project");
    std::fs::create_dir_all(&work).unwrap();
    (home, work)
}

#[test]
fn claude_code_accepts_our_settings_and_the_profile_reaches_the_model() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    let api = FakeApi::start(vec![Turn::text("Hello, Ada.")]);
    let debug = home.path("claude-debug.txt");
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "Say hello.",
            "--output-format",
            "json",
            "--debug-file",
            debug.to_str().unwrap(),
        ],
    );
    let stderr = support::stderr(&out);
    assert!(out.status.success(), "claude failed: {stderr}");
    assert!(
        !stderr.contains(SETTINGS_SKIPPED),
        "Claude Code rejected our settings:\n{stderr}"
    );
    let debug_log = std::fs::read_to_string(&debug).unwrap_or_default();
    assert!(
        !debug_log.contains("Invalid setting"),
        "debug log reports an invalid setting"
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["result"], "Hello, Ada.");

    let bodies = api.message_bodies();
    assert!(!bodies.is_empty(), "the fake model got no request");
    let first = body_text(&bodies[0]);
    assert!(
        first.contains("SessionStart hook additional context"),
        "our SessionStart hook did not run"
    );
    assert!(
        first.contains("Ada Lovelace"),
        "the profile is not in the first request"
    );

    // the registration written by `claude mcp add-json` is ours
    let claude_json = home.read_json(".claude.json");
    assert_eq!(claude_json["mcpServers"]["pms"]["args"][0], "serve");
    // and no hook logged an error
    let log = home.workspace().join(".pms/logs/hooks.log");
    assert!(
        !log.exists(),
        "hook errors: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// The check above can fail: a settings file with a bad hook entry makes
/// Claude Code print the warning we look for.
#[test]
fn a_broken_hook_entry_is_reported_by_claude_code() {
    let bin_dir = claude_or_skip!();
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(
        home.settings(),
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/bin/true", "timeout": "soon"}]}]}}"#,
    )
    .unwrap();
    let api = FakeApi::start(vec![Turn::text("hi")]);
    let out = run_claude(&home, &bin_dir, &api, home.home(), &["-p", "Say hello."]);
    assert!(
        support::stderr(&out).contains(SETTINGS_SKIPPED),
        "{}",
        support::stderr(&out)
    );
}

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

/// The MCP server in the real Claude Code: listed as connected, and a
/// scripted model turn that calls `mcp__pms__memory_search` gets the hits
/// back in its next request. The same session (with a Bash call and a
/// /compact) is then read back by our transcript reader and indexed:
/// real transcripts written by Claude Code itself.
#[test]
fn claude_code_calls_memory_search_and_its_transcripts_index() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    // something to find: an earlier conversation, already on disk
    let old = home.path(".claude/projects/-old-project");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(
        old.join("earlier.jsonl"),
        serde_json::json!({"type": "user", "timestamp": "2026-11-01T09:00:00Z",
            "message": {"content": "We picked the codename TANGERINE for the billing rewrite."}})
        .to_string()
            + "\n",
    )
    .unwrap();
    home.ok(&["index", "--quiet"]);

    let list = run_claude(
        &home,
        &bin_dir,
        &FakeApi::start(vec![]),
        &work,
        &["mcp", "list"],
    );
    let listed = support::stdout(&list);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("pms:") && l.contains("✔ Connected")),
        "pms is not connected:\n{listed}{}",
        support::stderr(&list)
    );

    let api = FakeApi::start(vec![
        Turn::tool_use(
            "mcp__pms__memory_search",
            serde_json::json!({"query": "billing rewrite codename"}),
        ),
        Turn::text("The codename was TANGERINE.").when("tool_result"),
        Turn::tool_use(
            "Bash",
            serde_json::json!({"command": "echo hello-from-bash", "description": "Say hello"}),
        ),
        Turn::text("The shell said hello.").when("hello-from-bash"),
        Turn::text(
            "Summary: the user asked for the billing rewrite codename (TANGERINE) and ran echo.",
        ),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "What was the billing rewrite codename?",
            "--allowedTools",
            "mcp__pms",
            "--output-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    let bodies = api.message_bodies();
    let after_tool = bodies
        .iter()
        .map(body_text)
        .find(|b| b.contains("tool_result"))
        .expect("a request carried the tool result");
    assert!(
        after_tool.contains("cc://-old-project/earlier.jsonl"),
        "the hit did not reach the model"
    );
    assert!(after_tool.contains("TANGERINE"));

    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "Run echo hello-from-bash",
            "--continue",
            "--allowedTools",
            "Bash",
        ],
    );
    assert!(out.status.success(), "{}", support::stderr(&out));
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "/compact", "--continue"],
    );
    assert!(out.status.success(), "{}", support::stderr(&out));

    // read back what Claude Code wrote
    let folder = pms::claude::project_folder_name(work.canonicalize().unwrap().to_str().unwrap());
    let dir = home.path(".claude/projects").join(&folder);
    let transcript = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("Claude Code wrote a transcript");
    let bytes = std::fs::read(&transcript).unwrap();
    let (turns, stats) = pms::claude::transcript::read(
        &mut std::io::Cursor::new(&bytes),
        0,
        0,
        &pms::claude::transcript::ReadOptions::default(),
    );
    assert_eq!(stats.malformed, 0);
    let roles: Vec<(&str, &str)> = turns
        .iter()
        .map(|t| (t.role.as_str(), t.text.as_str()))
        .collect();
    assert!(
        roles.contains(&("user", "What was the billing rewrite codename?")),
        "{roles:?}"
    );
    assert!(
        roles
            .iter()
            .any(|(r, t)| *r == "assistant" && t.contains("[tool mcp__pms__memory_search]"))
    );
    assert!(
        roles
            .iter()
            .any(|(r, t)| *r == "tool" && t.contains("[result Bash] hello-from-bash"))
    );
    assert!(
        roles.iter().any(|(r, _)| *r == "summary"),
        "the /compact summary is kept"
    );
    if std::env::var("PMS_RECORD_FIXTURES").is_ok_and(|v| v == "1") {
        let dest = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/transcripts/recorded-session.jsonl"
        );
        std::fs::create_dir_all(std::path::Path::new(dest).parent().unwrap()).unwrap();
        std::fs::write(dest, &bytes).unwrap();
    }
    home.ok(&["index", "--quiet"]);
    let found = home.ok(&["search", "hello-from-bash", "--json"]);
    let found: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(
        found["hits"][0]["uri"],
        format!(
            "cc://{folder}/{}",
            transcript.file_name().unwrap().to_string_lossy()
        )
    );
}

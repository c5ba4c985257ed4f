//! Wiring pms into Codex and OpenClaw without their CLIs (the e2e modules
//! run the real ones): which agents init picks, the files each gets, byte
//! for byte after uninstall, an agent dropped at re-init, verify and its
//! repairs, Codex's byte-counted hook budget, and a real Codex session
//! (tests/fixtures/codex/) replayed through the hooks, indexed and read back.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{TestHome, snapshot, stdout, write_script};

const CODEX_USER_CONFIG: &str = "# my codex config\r\nmodel = \"o5\" # favourite\r\n\r\n[mcp_servers.other]\r\ncommand = \"x\"\r\n";
/// A hooks.json of the user's own: an odd indent, a hook of another tool.
const CODEX_USER_HOOKS: &str = "{\n    \"hooks\": {\"Stop\": [ {\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\", \"timeout\": 1E1}]} ]},\n    \"x-mine\": true\n}\n";
const OPENCLAW_USER_CONFIG: &str = "{\n  \"agents\": {\"defaults\": {\"workspace\": \"~/claw\"}},\n  \"plugins\": {\n    \"allow\": [\"telegram\"],\n    \"entries\": {\"telegram\": {\"enabled\": true}}\n  }\n}\n";

/// A home with fake `codex` and `openclaw` on PATH (only their presence
/// matters here) and the user's own config for both.
fn home_with_agents() -> TestHome {
    let mut home = TestHome::new();
    let bin = home.path("fakebin");
    for name in ["codex", "openclaw"] {
        write_script(&bin.join(name), "#!/bin/sh\necho \"$0 9.9.9\"\n");
    }
    home.path_prefix.push(bin);
    std::fs::create_dir_all(home.path(".codex")).unwrap();
    std::fs::write(home.path(".codex/config.toml"), CODEX_USER_CONFIG).unwrap();
    std::fs::write(home.path(".codex/hooks.json"), CODEX_USER_HOOKS).unwrap();
    std::fs::create_dir_all(home.path(".openclaw")).unwrap();
    std::fs::write(home.path(".openclaw/openclaw.json"), OPENCLAW_USER_CONFIG).unwrap();
    home
}

fn record(home: &TestHome) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(home.workspace().join(".pms/install.json")).unwrap(),
    )
    .unwrap()
}

fn verify(home: &TestHome, args: &[&str]) -> Value {
    let mut a = vec!["verify", "--json"];
    a.extend_from_slice(args);
    serde_json::from_slice(&home.run(&a).stdout).unwrap()
}

fn status<'a>(report: &'a Value, id: &str) -> &'a str {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}: {report}"))["status"]
        .as_str()
        .unwrap()
}

fn pms_commands(doc: &Value) -> Vec<String> {
    pms::platform::agents::claude::settings::installed_handlers(doc)
        .into_iter()
        .map(|(_, h)| h["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn init_wires_the_agents_on_path_and_uninstall_gives_back_every_byte() {
    let home = home_with_agents();
    let before_codex = snapshot(&home.path(".codex"));
    let before_claw = snapshot(&home.path(".openclaw"));
    // No `claude` on PATH: the default is the two agents that are.
    let out = home.init(&[]);
    assert_eq!(
        record(&home)["agents"],
        json!(["codex", "openclaw"]),
        "{}",
        stdout(&out)
    );
    assert!(!home.settings().exists(), "Claude Code was not chosen");

    let hooks: Value = home.read_json(".codex/hooks.json");
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert_eq!(hooks["x-mine"], true);
    let cmds = pms_commands(&hooks);
    assert_eq!(
        cmds.len(),
        pms::platform::agents::codex::hooks::CODEX_EVENTS.len()
    );
    assert!(
        cmds.iter().all(|c| c.ends_with("--agent codex")),
        "{cmds:?}"
    );
    assert_eq!(hooks["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
    let config = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
    assert!(config.starts_with(CODEX_USER_CONFIG), "{config}");
    assert!(config.contains("[mcp_servers.pms]"));
    let claw = home.read_json(".openclaw/openclaw.json");
    assert_eq!(claw["plugins"]["allow"], json!(["telegram", "pms"]));
    assert_eq!(
        claw["plugins"]["entries"]["pms"],
        json!({"enabled": true, "hooks": {"allowConversationAccess": true}})
    );
    let manifest = home.read_json(".openclaw/extensions/pms/openclaw.plugin.json");
    assert_eq!(manifest["mcpServers"]["pms"]["args"][0], "serve");

    // verify: all wired; Codex still waits for the user's review.
    let report = verify(&home, &[]);
    for id in [
        "codex.hooks",
        "codex.feature",
        "codex.mcp",
        "codex",
        "openclaw.plugin",
        "openclaw.config",
        "openclaw",
    ] {
        assert_eq!(status(&report, id), "ok", "{id}: {report}");
    }
    assert_eq!(status(&report, "codex.trust"), "warn");
    assert!(
        !report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "hooks.present"),
        "Claude Code checks for an install without it"
    );

    // Again: nothing changes.
    let wired_codex = snapshot(&home.path(".codex"));
    let wired_claw = snapshot(&home.path(".openclaw"));
    home.init(&[]);
    assert_eq!(snapshot(&home.path(".codex")), wired_codex);
    assert_eq!(snapshot(&home.path(".openclaw")), wired_claw);

    home.ok(&["uninstall", "--yes"]);
    let without_backups = |m: std::collections::BTreeMap<String, Vec<u8>>| {
        m.into_iter()
            .filter(|(k, _)| !k.contains(".pms-backup-"))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    assert_eq!(
        without_backups(snapshot(&home.path(".codex"))),
        before_codex
    );
    assert_eq!(
        without_backups(snapshot(&home.path(".openclaw"))),
        before_claw
    );
}

/// Issue 27, for Codex and OpenClaw: files init created go at uninstall
/// (Codex's config.toml was left behind empty); empty objects and arrays
/// written across lines come back so, not as `{}` and `[]`; and files a
/// dotfile manager hard-linked keep their link.
#[test]
fn codex_and_openclaw_files_come_back_as_they_were_created_linked_and_laid_out() {
    use std::os::unix::fs::MetadataExt;
    // none of their files before init: none after uninstall
    let home = home_with_agents();
    for f in [
        ".codex/config.toml",
        ".codex/hooks.json",
        ".openclaw/openclaw.json",
    ] {
        std::fs::remove_file(home.path(f)).unwrap();
    }
    home.init(&["--agent", "codex,openclaw"]);
    home.ok(&["uninstall", "--yes"]);
    let left: Vec<String> = [".codex", ".openclaw"]
        .iter()
        .flat_map(|d| snapshot(&home.path(d)).into_keys())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    // empty containers across lines, in files hard-linked to a dotfiles copy
    let home = home_with_agents();
    let hooks = "{\n  \"hooks\": {\n  },\n  \"x-mine\": true\n}\n";
    let claw =
        "{\n  \"plugins\": {\n    \"allow\": [\n    ],\n    \"entries\": {\n\n    }\n  }\n}\n";
    let dotfiles = home.path("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let linked = [
        (".codex/hooks.json", hooks),
        (".codex/config.toml", CODEX_USER_CONFIG),
        (".openclaw/openclaw.json", claw),
    ];
    for (i, (rel, text)) in linked.iter().enumerate() {
        let copy = dotfiles.join(i.to_string());
        std::fs::write(&copy, text).unwrap();
        std::fs::remove_file(home.path(rel)).unwrap();
        std::fs::hard_link(&copy, home.path(rel)).unwrap();
    }
    let still_linked = |home: &TestHome| {
        for (i, (rel, _)) in linked.iter().enumerate() {
            let (a, b) = (
                std::fs::metadata(home.path(rel)).unwrap(),
                std::fs::metadata(dotfiles.join(i.to_string())).unwrap(),
            );
            assert_eq!((a.ino(), a.nlink()), (b.ino(), 2), "{rel} lost its link");
        }
    };
    home.init(&["--agent", "codex,openclaw"]);
    still_linked(&home);
    assert_eq!(
        pms_commands(&home.read_json(".codex/hooks.json")).len(),
        pms::platform::agents::codex::hooks::CODEX_EVENTS.len()
    );
    let wired = std::fs::read_to_string(dotfiles.join("2")).unwrap();
    assert!(wired.contains("\"pms\""), "{wired}");
    home.ok(&["uninstall", "--yes"]);
    still_linked(&home);
    for (rel, text) in linked {
        assert_eq!(
            std::fs::read_to_string(home.path(rel)).unwrap(),
            text,
            "{rel}"
        );
    }
}

#[test]
fn an_agent_left_out_at_a_later_init_is_unwired() {
    let home = home_with_agents();
    home.init(&["--agent", "claude,codex,openclaw"]);
    assert_eq!(
        record(&home)["agents"],
        json!(["claude", "codex", "openclaw"])
    );
    assert_eq!(
        pms_commands(&home.read_json(".claude/settings.json")).len(),
        pms::platform::agents::claude::settings::HOOK_EVENTS.len()
    );
    let out = home.init(&["--agent", "claude"]);
    assert!(
        stdout(&out).contains("Codex       pms's wiring removed"),
        "{}",
        stdout(&out)
    );
    assert_eq!(record(&home)["agents"], json!(["claude"]));
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/hooks.json")).unwrap(),
        CODEX_USER_HOOKS
    );
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        CODEX_USER_CONFIG
    );
    assert_eq!(
        std::fs::read_to_string(home.path(".openclaw/openclaw.json")).unwrap(),
        OPENCLAW_USER_CONFIG
    );
    assert!(!home.path(".openclaw/extensions/pms").exists());
    assert_eq!(
        pms_commands(&home.read_json(".claude/settings.json")).len(),
        pms::platform::agents::claude::settings::HOOK_EVENTS.len()
    );
    let report = verify(&home, &[]);
    assert!(
        !report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "codex.hooks")
    );
}

#[test]
fn verify_fix_rewires_codex_and_openclaw() {
    let home = home_with_agents();
    home.init(&["--agent", "codex,openclaw"]);
    // An older binary's hooks, a plugin file gone, the MCP entry removed.
    let hooks_path = home.path(".codex/hooks.json");
    let text = std::fs::read_to_string(&hooks_path).unwrap();
    let stale = text.replace(
        &format!("{} hook", crate::support::PMS_CANONICAL.as_str()),
        "/old/bin/pms hook",
    );
    assert_ne!(stale, text);
    std::fs::write(&hooks_path, stale).unwrap();
    std::fs::remove_file(home.path(".openclaw/extensions/pms/index.js")).unwrap();
    let config = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
    let cut = config.find("[mcp_servers.pms]").unwrap();
    std::fs::write(home.path(".codex/config.toml"), &config[..cut]).unwrap();

    let report = verify(&home, &[]);
    assert_eq!(status(&report, "codex.hooks"), "fail");
    assert_eq!(status(&report, "codex.mcp"), "fail");
    assert_eq!(status(&report, "openclaw.plugin"), "fail");
    let fixed = verify(&home, &["--fix"]);
    for id in [
        "codex.hooks",
        "codex.mcp",
        "openclaw.plugin",
        "openclaw.config",
    ] {
        assert_eq!(status(&fixed, id), "ok", "{id}: {fixed}");
    }
    let hooks: Value = home.read_json(".codex/hooks.json");
    assert_eq!(
        pms_commands(&hooks).len(),
        pms::platform::agents::codex::hooks::CODEX_EVENTS.len(),
        "replaced in place, not added"
    );
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
}

/// Codex caps hook output at 10,000 bytes, Claude Code at 10,000 UTF-16
/// units: the same CJK profile is packed to fit each agent's count.
#[test]
fn the_hook_budget_counts_what_each_agent_counts() {
    let home = TestHome::new();
    home.init(&["--agent", "claude,codex"]);
    let profile = home.workspace().join("_me/profile.md");
    let mut text = std::fs::read_to_string(&profile).unwrap();
    for i in 0..400 {
        text.push_str(&format!(
            "- 第{i}条：我喜欢简洁的回答，先给结论，再给理由和例子。\n"
        ));
    }
    std::fs::write(&profile, text).unwrap();
    let payload =
        json!({"session_id": "s-budget", "hook_event_name": "SessionStart", "source": "startup"});
    let context = |agent: &str| -> String {
        let out = home.hook_as(agent, "session-start", &payload);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let claude = context("claude");
    let codex = context("codex");
    assert!(claude.encode_utf16().count() <= 9_900);
    assert!(
        claude.len() > 10_000,
        "the profile is big enough to tell the units apart"
    );
    assert!(
        codex.len() <= 9_900,
        "{} bytes reach Codex's 10,000-byte cap",
        codex.len()
    );
    assert!(codex.contains("第0条"), "the profile's start is kept");
}

fn fixture_rollout() -> (String, std::path::PathBuf) {
    let rel = "2026/11/25/rollout-2026-11-25T09-03-53-01a211f2-7c58-70e3-96a3-5fedbbfc7f58.jsonl";
    (
        rel.to_string(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/codex/sessions")
            .join(rel),
    )
}

/// The hooks Codex ran in a real session, replayed with its payloads: the
/// context answers in Codex's shape, the stop hook says nothing, the end
/// writes a summary pointing at the rollout; the rollout is indexed and
/// `pms get` renders it as a conversation.
#[test]
fn a_recorded_codex_session_replays_through_the_hooks_and_reads_back() {
    let home = TestHome::new();
    home.init(&["--agent", "codex", "--no-index"]);
    let (rel, fixture) = fixture_rollout();
    let rollout = home.path(".codex/sessions").join(&rel);
    std::fs::create_dir_all(rollout.parent().unwrap()).unwrap();
    std::fs::copy(&fixture, &rollout).unwrap();
    let work = home.path("proj");
    std::fs::create_dir_all(&work).unwrap();
    let hooks = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/hooks");
    let ws = home.workspace();
    let run = |event: &str| -> String {
        use std::io::Write;
        let line = std::fs::read_to_string(hooks.join(format!("{event}.jsonl"))).unwrap();
        let mut payload: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
        payload["transcript_path"] = json!(rollout);
        payload["cwd"] = json!(work);
        let mut child = home
            .pms(&[
                "hook",
                event,
                "--workspace",
                ws.to_str().unwrap(),
                "--agent",
                "codex",
            ])
            .env("PMS_NO_BACKGROUND", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        stdout(&out)
    };
    let start: Value = serde_json::from_str(&run("session-start")).unwrap();
    assert_eq!(start["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        start["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Ada Lovelace")
    );
    // The session's first prompt adds nothing here: SessionStart's layer 0
    // carried the response format in the same request (issue 24, item 10);
    // the next prompt carries it again.
    assert_eq!(run("user-prompt"), "");
    let prompt: Value = serde_json::from_str(&run("user-prompt")).unwrap();
    assert_eq!(
        prompt["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert_eq!(
        run("stop"),
        "",
        "Stop answers nothing (an answer would make Codex go on)"
    );
    assert_eq!(run("session-end"), "");
    let summaries: Vec<String> = std::fs::read_dir(ws.join("sessions"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(summaries.len(), 1);
    let s = &summaries[0];
    assert!(s.contains(&format!("transcript_ref: codex://{rel}")), "{s}");
    assert!(
        s.contains("session_id: 01a211f2-7c58-70e3-96a3-5fedbbfc7f58"),
        "{s}"
    );
    assert!(s.contains("Where are our deploy runbooks?"), "{s}");
    let log = std::fs::read_to_string(ws.join(".pms/logs/hooks.log")).unwrap_or_default();
    assert_eq!(log, "");

    home.ok(&["index", "--quiet"]);
    let hits = home.search_json("deploy runbooks");
    let uris = crate::support::hit_uris(&hits);
    let uri = format!("codex://{rel}");
    assert!(uris.contains(&uri), "{hits}");
    let got = stdout(&home.ok(&["get", &uri]));
    assert!(
        got.contains("user:\nWhere are our deploy runbooks? Check memory."),
        "{got}"
    );
    assert!(
        got.contains("[tool mcp__pms__memory_search] deploy runbooks"),
        "{got}"
    );
    assert!(
        got.contains("[result mcp__pms__memory_search] 1. engineering/content-index.md"),
        "{got}"
    );
    assert!(!got.contains("<environment_context>"), "{got}");
    // Filed under the project the session ran in, as Claude Code names it.
    let project = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["uri"] == uri.as_str())
        .unwrap()["project"]
        .clone();
    assert_eq!(project, "-tmp-agents-exp-h2-proj");
}

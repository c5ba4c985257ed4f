//! End-to-end inside the real OpenClaw gateway (`openclaw` 2026.9.6 from
//! npm, on Node 24), offline: its model is a scripted fake Responses API on
//! 127.0.0.1, its home a temporary one. `pms init --agent openclaw` writes
//! the plugin; the gateway loads it; turns go through `openclaw agent`.
//!
//! Also the plugin alone: `index.js` loaded by node with a stand-in for
//! OpenClaw's plugin API, its handlers called with the payloads the real
//! gateway passed (recorded from the gateway run, kept in
//! tests/fixtures/openclaw/), against the real pms binary. That one runs in
//! seconds where the gateway takes minutes to start.

use std::path::Path;

use serde_json::{Value, json};

use crate::openclaw_or_skip;
use crate::support::TestHome;
use crate::support::fake_responses::{FakeResponses, Turn};
use crate::support::openclaw_cli::{Gateway, provider_config};

/// The summaries once there are `n`: the plugin runs `pms hook
/// session-end` detached, so the gateway's exit does not wait for it.
/// Gives up after a minute and returns what is there.
fn summaries_when(home: &TestHome, n: usize) -> Vec<String> {
    let t = std::time::Instant::now();
    loop {
        let sums = home.summaries();
        if sums.len() >= n || t.elapsed() > std::time::Duration::from_secs(60) {
            return sums;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Identity and the prompt's lesson reach the model, the `pms` MCP server
/// answers a search with hits, every session's conversation is recorded and
/// summarised when the gateway stops, then indexed and rendered; verify
/// passes; uninstall gives back openclaw.json byte for byte.
#[test]
fn openclaw_gateway_gets_identity_lessons_search_and_summaries() {
    let bin = openclaw_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::call(
            None,
            "tool_call",
            json!({"id": "pms__memory_search", "args": {"query": "TANGERINE billing codename"}}),
        )
        .when("What codename did we pick"),
        Turn::text("We picked TANGERINE for the billing rewrite.").when("codename TANGERINE"),
        Turn::text("Will do, dry-run first.").when("orders migration"),
        Turn::call(
            None,
            "exec",
            json!({"command": "git push --force origin main"}),
        )
        .when("ship the release"),
        Turn::text("Your rule blocked the force-push; I did not push.")
            .when("Never force-push to main"),
    ]);
    let mut home = TestHome::new();
    home.path_prefix.push(bin.clone());
    std::fs::create_dir_all(home.path(".openclaw")).unwrap();
    let user_config = provider_config(&api.base_url());
    std::fs::write(home.path(".openclaw/openclaw.json"), &user_config).unwrap();
    let out = home.init(&["--agent", "openclaw"]);
    assert!(
        crate::support::stdout(&out).contains("OpenClaw    plugin in ~/.openclaw/extensions/pms"),
        "{}",
        crate::support::stdout(&out)
    );
    std::fs::write(
        home.workspace().join("product/billing.md"),
        "# Billing rewrite\n\nWe picked the codename TANGERINE for the billing rewrite.\n",
    )
    .unwrap();
    home.ok(&[
        "lessons",
        "add",
        "Run the migration dry-run before applying it to production, because a failed migration locked the orders table.",
    ]);
    home.ok(&[
        "lessons",
        "add",
        "Never force-push to main.",
        "--guard",
        r"git\s+push\b.*(--force|\s-f\b).*\bmain\b",
    ]);
    home.ok(&["index", "--quiet"]);
    let lesson_id = std::fs::read_to_string(home.workspace().join("_me/lessons.md"))
        .unwrap()
        .split("[L-")
        .nth(1)
        .map(|r| format!("L-{}", &r[..6]))
        .expect("the lesson has an id");

    let work = home.path("project");
    std::fs::create_dir_all(&work).unwrap();
    let recorded = home.path("hook-payloads");
    let _heavy = crate::support::cpu_heavy();
    let mut gw = Gateway::start(
        &home,
        &bin,
        &work,
        &[("PMS_HOOK_RECORD", recorded.to_str().unwrap())],
    );
    let loaded = gw.log_text();
    assert!(
        loaded.contains(" pms,") || loaded.contains(" pms;") || loaded.contains("pms ("),
        "the gateway did not load the plugin:\n{loaded}"
    );

    let t = std::time::Instant::now();
    let out = gw.agent(
        &home,
        &work,
        "s1",
        "What codename did we pick for the billing rewrite?",
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    assert!(crate::support::stdout(&out).contains("TANGERINE"));
    let bodies = api.bodies();
    assert!(
        bodies[0].contains("pms memory for Ada Lovelace"),
        "identity is not in the first request"
    );
    let answered = bodies
        .iter()
        .find(|b| b.contains("mcp:pms:pms__memory_search"))
        .expect("the pms MCP server answered");
    assert!(
        answered.contains("product/billing.md") && answered.contains("codename TANGERINE"),
        "memory_search gave no hit: {answered:.3000}"
    );

    let before = api.bodies().len();
    let out = gw.agent(
        &home,
        &work,
        "s2",
        "apply the orders migration to production now",
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let later = api.bodies()[before..].join("\n");
    assert!(
        later.contains(&lesson_id),
        "the matching lesson is not in the request"
    );
    // issue 22: the guard blocks the model's own exec, and the model reads why
    let before = api.bodies().len();
    let out = gw.agent(&home, &work, "s3", "ship the release");
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let after = api.bodies()[before..].join("\n");
    assert!(
        after.contains("pms: blocked by the user's confirmed lesson"),
        "the block did not reach the model: {after:.3000}"
    );
    let turns = t.elapsed();

    // Stopping the gateway ends the three sessions: each gets its summary.
    let t = std::time::Instant::now();
    gw.stop();
    eprintln!(
        "e2e openclaw: gateway ready in {} ms, three turns in {} ms, stopped in {} ms; payloads in {}",
        gw.startup.as_millis(),
        turns.as_millis(),
        t.elapsed().as_millis(),
        recorded.display()
    );
    // PMS_E2E_SAVE_PAYLOADS=<dir> keeps what the gateway passed the plugin
    // (how tests/fixtures/openclaw/ was recorded).
    if let Some(dir) = std::env::var_os("PMS_E2E_SAVE_PAYLOADS") {
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(&recorded).unwrap().flatten() {
            std::fs::copy(e.path(), Path::new(&dir).join(e.file_name())).unwrap();
        }
    }
    let sums = summaries_when(&home, 3);
    assert_eq!(sums.len(), 3, "{sums:?}");
    assert!(
        sums.iter()
            .any(|s| s.contains("transcript_ref: openclaw://main/s1.jsonl")),
        "{sums:?}"
    );
    assert!(
        sums.iter().any(|s| s.contains("billing rewrite")),
        "{sums:?}"
    );
    let log =
        std::fs::read_to_string(home.workspace().join(".pms/logs/hooks.log")).unwrap_or_default();
    assert_eq!(log, "", "hooks logged errors");

    home.ok(&["index", "--quiet"]);
    let hits = home.search_json("codename billing rewrite");
    let uri = crate::support::hit_uris(&hits)
        .into_iter()
        .find(|u| u.starts_with("openclaw://"))
        .unwrap_or_else(|| panic!("no OpenClaw conversation in {hits}"));
    let got = crate::support::stdout(&home.ok(&["get", &uri]));
    assert!(
        got.contains("user:\nWhat codename did we pick for the billing rewrite?"),
        "{got}"
    );
    assert!(got.contains("[tool pms__memory_search] TANGERINE"), "{got}");

    let report: Value = serde_json::from_slice(&home.run(&["verify", "--json"]).stdout).unwrap();
    for id in ["openclaw.plugin", "openclaw.config", "openclaw"] {
        let c = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        assert_eq!(c["status"], "ok", "{id}: {c}");
    }

    home.ok(&["uninstall", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".openclaw/openclaw.json")).unwrap(),
        user_config
    );
    assert!(!home.path(".openclaw/extensions/pms").exists());
}

/// The plugin file pms writes, run by node as OpenClaw runs it (a module
/// whose default export registers handlers with `api.on`), against the real
/// pms, with the events the real gateway passed.
#[test]
fn the_plugin_carries_recorded_gateway_events_to_pms_and_back() {
    let Some(node) = which_node() else {
        crate::support::skip::missing_tool(
            "node is not installed: the OpenClaw plugin cannot be run here",
            "Install Node.js to run it.",
        );
        return;
    };
    let home = TestHome::new();
    home.init(&["--agent", "openclaw"]);
    home.ok(&[
        "lessons",
        "add",
        "Run the migration dry-run before applying it to production, because a failed migration locked the orders table.",
    ]);
    let plugin = home.path(".openclaw/extensions/pms/index.js");
    assert!(plugin.is_file());
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openclaw");
    let driver = home.path("driver.mjs");
    std::fs::write(&driver, DRIVER).unwrap();
    let out = std::process::Command::new(node)
        .arg(&driver)
        .arg(&plugin)
        .arg(&fixtures)
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .output()
        .unwrap();
    let stdout = crate::support::stdout(&out);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        crate::support::stderr(&out)
    );
    let results: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_hook = |h: &'static str| results.iter().filter(move |r| r["hook"] == h);
    // before_prompt_build answers with layer 0 for the system prompt and,
    // for the migration prompt, the lesson with the prompt.
    let prompts: Vec<&Value> = by_hook("before_prompt_build")
        .map(|r| &r["result"])
        .collect();
    assert!(prompts.len() >= 2, "{results:?}");
    assert!(prompts.iter().all(|p| {
        p["appendSystemContext"]
            .as_str()
            .is_some_and(|t| t.contains("pms memory for Ada Lovelace"))
    }));
    assert!(prompts.iter().any(|p| {
        p["prependContext"]
            .as_str()
            .is_some_and(|t| t.contains("Run the migration dry-run"))
    }));
    // The observe hooks answer nothing.
    for h in ["session_start", "agent_end", "session_end"] {
        assert!(by_hook(h).count() > 0, "no {h} in the fixtures");
        assert!(by_hook(h).all(|r| r["result"].is_null()), "{h} answered");
    }
    // agent_end recorded the conversations; session_end summarised them.
    let logs = home.workspace().join(".pms/openclaw/main");
    assert!(logs.join("s1.jsonl").is_file() && logs.join("s2.jsonl").is_file());
    let sums = summaries_when(&home, 3);
    assert_eq!(sums.len(), 3, "{sums:?}");
    let log =
        std::fs::read_to_string(home.workspace().join(".pms/logs/hooks.log")).unwrap_or_default();
    assert_eq!(log, "", "hooks logged errors");
}

/// The node on PATH (any recent one runs the plugin), else the one
/// installed for the gateway tests.
fn which_node() -> Option<std::path::PathBuf> {
    crate::support::npm::which("node")
        .or_else(|| crate::support::openclaw_cli::openclaw_bin_dir().map(|b| b.join("node")))
}

/// Loads the plugin with a stand-in `api`, then replays each recorded event
/// (one JSON object per line, `{hook, event, ctx}`, in the order the gateway
/// sent them) to the handler registered for it, printing
/// `{hook, result}` per event.
const DRIVER: &str = r#"
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [plugin, fixtures] = process.argv.slice(2);
const handlers = {};
const mod = await import(pathToFileURL(plugin).href);
mod.default.register({ on: (name, fn) => { handlers[name] = fn; } });
const events = fs.readFileSync(path.join(fixtures, "gateway-events.jsonl"), "utf8")
  .split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
for (const e of events) {
  const fn = handlers[e.hook];
  if (!fn) throw new Error(`the plugin does not handle ${e.hook}`);
  const result = await fn(e.event, e.ctx);
  console.log(JSON.stringify({ hook: e.hook, result: result ?? null }));
}
"#;

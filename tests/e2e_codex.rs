//! End-to-end inside the real Codex CLI (`@openai/codex` 0.169.0 from npm),
//! driven by a scripted fake Responses API on 127.0.0.1, with a temporary
//! HOME and CODEX_HOME. `codex exec` runs after `pms init --yes --agent
//! codex`; the tests bypass Codex's hook trust with the flag Codex has for
//! automation (`--dangerously-bypass-hook-trust`), except the one that
//! checks trust itself, which trusts the hooks the way a user's review does.

use std::path::Path;

use serde_json::{Value, json};

use crate::codex_or_skip;
use crate::support::TestHome;
use crate::support::codex_cli::{hooks_list, provider_config, run_codex};
use crate::support::fake_responses::{FakeResponses, Turn};

const BYPASS: &str = "--dangerously-bypass-hook-trust";

/// A home with the real `codex` on PATH, the user's own Codex config (the
/// fake provider, then `more`) written before pms arrives, and pms wired
/// into Codex. Returns the home, the project folder sessions run in, and
/// the config as the user wrote it.
fn installed(
    bin: &Path,
    api: &FakeResponses,
    more: &str,
) -> (TestHome, std::path::PathBuf, String) {
    let mut home = TestHome::new();
    home.path_prefix.push(bin.to_path_buf());
    std::fs::create_dir_all(home.path(".codex")).unwrap();
    let user_config = provider_config(api) + more;
    std::fs::write(home.path(".codex/config.toml"), &user_config).unwrap();
    let out = home.init(&["--agent", "codex"]);
    let stdout = crate::support::stdout(&out);
    assert!(stdout.contains("Codex       hooks written to"), "{stdout}");
    let work = home.path("project");
    std::fs::create_dir_all(&work).unwrap();
    (home, work, user_config)
}

fn exec(home: &TestHome, bin: &Path, work: &Path, prompt: &str, trust: &[&str]) -> String {
    let mut args = vec!["exec", "--skip-git-repo-check"];
    args.extend_from_slice(trust);
    args.push(prompt);
    let out = run_codex(home, bin, work, &args);
    let stderr = crate::support::stderr(&out);
    assert!(out.status.success(), "codex exec failed:\n{stderr}");
    stderr
}

fn hook_log(home: &TestHome) -> String {
    std::fs::read_to_string(home.workspace().join(".pms/logs/hooks.log")).unwrap_or_default()
}

fn verify(home: &TestHome) -> Value {
    let out = home.run(&["verify", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report}"))
}

/// Identity in the first request, a memory_search through the MCP server
/// answered with hits, a matching lesson in a later session, summaries with
/// a `codex://` transcript_ref, the rollouts indexed and rendered by
/// `pms get`, and uninstall giving back the user's config byte for byte.
#[test]
fn codex_gets_identity_lessons_search_and_summaries() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::call(
            Some("mcp__pms"),
            "memory_search",
            json!({"query": "TANGERINE billing codename"}),
        )
        .when("What codename did we pick"),
        Turn::text("We picked TANGERINE for the billing rewrite.").when("function_call_output"),
        Turn::text("Will do, dry-run first.").when("orders migration"),
    ]);
    let (home, work, user_config) = installed(&bin, &api, "");
    // Something to find, and a lesson in force.
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
    home.ok(&["index", "--quiet"]);
    let lesson_id = std::fs::read_to_string(home.workspace().join("_me/lessons.md"))
        .unwrap()
        .split("[L-")
        .nth(1)
        .map(|r| format!("L-{}", &r[..6]))
        .expect("the lesson has an id");

    let t = std::time::Instant::now();
    // Session 1: identity first, then a search through the MCP server.
    let stderr = exec(
        &home,
        &bin,
        &work,
        "What codename did we pick for the billing rewrite?",
        &[BYPASS],
    );
    assert!(stderr.contains("hook: SessionStart Completed"), "{stderr}");
    assert!(!stderr.contains("Failed"), "a hook failed:\n{stderr}");
    let bodies = api.bodies();
    assert!(bodies.len() >= 2, "{} request(s)", bodies.len());
    assert!(
        bodies[0].contains("pms memory for Ada Lovelace") && bodies[0].contains("Ada Lovelace"),
        "identity is not in the first request"
    );
    assert!(
        bodies[0].contains("\"mcp__pms\""),
        "the pms tools are not offered"
    );
    let answered = bodies
        .iter()
        .find(|b| b.contains("function_call_output"))
        .expect("the tool call was answered");
    assert!(
        answered.contains("product/billing.md") && answered.contains("TANGERINE"),
        "memory_search gave no hit: {answered:.2000}"
    );

    // Session 2: a prompt that matches the lesson carries it.
    let before = api.bodies().len();
    exec(
        &home,
        &bin,
        &work,
        "apply the orders migration to production now",
        &[BYPASS],
    );
    let later = api.bodies()[before..].join("\n");
    assert!(
        later.contains(&lesson_id),
        "the matching lesson is not in the request"
    );
    assert!(later.contains("Lessons that apply"));
    eprintln!("e2e codex: two sessions in {} ms", t.elapsed().as_millis());

    // Each session ended with a summary pointing at its rollout.
    let sums = home.summaries();
    assert_eq!(sums.len(), 2, "{sums:?}");
    assert!(
        sums.iter().all(|s| s.contains("transcript_ref: codex://")),
        "{sums:?}"
    );
    assert!(
        sums.iter().any(|s| s.contains("billing rewrite")),
        "{sums:?}"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");

    // The rollouts are indexed as conversations and rendered by `pms get`.
    home.ok(&["index", "--quiet"]);
    let hits = home.search_json("codename billing rewrite");
    let uri = crate::support::hit_uris(&hits)
        .into_iter()
        .find(|u| u.starts_with("codex://"))
        .unwrap_or_else(|| panic!("no Codex conversation in {hits}"));
    let got = crate::support::stdout(&home.ok(&["get", &uri]));
    assert!(
        got.contains("user:\nWhat codename did we pick for the billing rewrite?"),
        "{got}"
    );
    assert!(
        got.contains("[tool mcp__pms__memory_search] TANGERINE"),
        "{got}"
    );
    assert!(
        !got.contains("pms memory for Ada"),
        "injected context rendered as conversation"
    );

    // verify: everything wired, trust still to give (the bypass flag was
    // this test's, not the user's).
    let report = verify(&home);
    for id in ["codex.hooks", "codex.mcp", "codex.feature", "codex"] {
        assert_eq!(check(&report, id)["status"], "ok", "{id}: {report}");
    }
    assert_eq!(check(&report, "codex.trust")["status"], "warn");

    // uninstall: the user's config as they wrote it, no hooks.json.
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        user_config
    );
    assert!(!home.path(".codex/hooks.json").exists());
}

/// Trust as Codex keeps it: before the user's review `codex exec` skips the
/// hooks (and verify says the step is to do); pms's hash of each hook is the
/// one Codex computes (`codex app-server`'s hooks/list); once trusted with
/// those hashes (what the TUI's review writes), the hooks run without any
/// bypass flag and verify says so. Uninstall takes the trust entries too.
#[test]
fn codex_trust_is_reported_and_honoured() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![]);
    let (home, work, user_config) = installed(&bin, &api, "");

    exec(&home, &bin, &work, "hello before trust", &[]);
    assert!(
        !api.bodies()[0].contains("pms memory for"),
        "Codex ran an untrusted hook"
    );
    assert_eq!(check(&verify(&home), "codex.trust")["status"], "warn");

    let listed = hooks_list(&home, &bin, &work);
    let hooks_path = home.path(".codex/hooks.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&hooks_path).unwrap()).unwrap();
    let located = pms::platform::agents::codex::hooks::located_handlers(&doc);
    assert_eq!(
        located.len(),
        pms::platform::agents::codex::hooks::CODEX_EVENTS.len()
    );
    let mut trust_entries = String::new();
    for (event, matcher, g, i, h) in &located {
        let key = pms::platform::agents::codex::hooks::trust_key(&hooks_path, event, *g, *i);
        let entry = listed
            .iter()
            .find(|e| e["key"] == key.as_str())
            .unwrap_or_else(|| panic!("Codex does not list {key}: {listed:?}"));
        assert_eq!(entry["trustStatus"], "untrusted");
        assert_eq!(
            entry["currentHash"].as_str().unwrap(),
            pms::platform::agents::codex::hooks::trust_hash(event, matcher.as_deref(), h),
            "pms and Codex hash {event} differently"
        );
        trust_entries.push_str(&format!(
            "\n[hooks.state.\"{key}\"]\ntrusted_hash = \"{}\"\n",
            entry["currentHash"].as_str().unwrap()
        ));
    }
    // The user's review: Codex records each hook's hash in config.toml.
    crate::support::append(&home.path(".codex/config.toml"), &trust_entries);
    assert!(
        hooks_list(&home, &bin, &work)
            .iter()
            .filter(|e| e["trustStatus"] == "trusted")
            .count()
            >= 5
    );
    assert_eq!(check(&verify(&home), "codex.trust")["status"], "ok");
    let before = api.bodies().len();
    exec(&home, &bin, &work, "hello after trust", &[]);
    assert!(
        api.bodies()[before].contains("pms memory for Ada Lovelace"),
        "trusted hooks did not run"
    );

    home.ok(&["uninstall", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        user_config,
        "uninstall left pms's hooks or their trust entries behind"
    );
}

/// A config that turns Codex's hooks off: init leaves it off unless the
/// user agrees (`--enable-codex-hooks`), verify says so, Codex indeed runs
/// no hook until then, and uninstall sets it back.
#[test]
fn codex_hooks_feature_is_turned_on_only_when_asked() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![]);
    let off = "\n[features]\nhooks = false  # I turned these off\n";
    let (home, work, user_config) = installed(&bin, &api, off);
    assert!(
        std::fs::read_to_string(home.path(".codex/config.toml"))
            .unwrap()
            .contains("hooks = false  # I turned these off")
    );
    assert_eq!(check(&verify(&home), "codex.feature")["status"], "warn");
    exec(&home, &bin, &work, "hello with hooks off", &[BYPASS]);
    assert!(
        !api.bodies()[0].contains("pms memory for"),
        "hooks ran while off"
    );

    home.init(&["--agent", "codex", "--enable-codex-hooks"]);
    let text = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
    assert!(
        text.contains("hooks = true  # I turned these off"),
        "{text}"
    );
    assert_eq!(check(&verify(&home), "codex.feature")["status"], "ok");
    let before = api.bodies().len();
    exec(&home, &bin, &work, "hello with hooks on", &[BYPASS]);
    assert!(api.bodies()[before].contains("pms memory for Ada Lovelace"));

    home.ok(&["uninstall", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        user_config
    );
}

/// Issue 22 in the real Codex: a guarded lesson denies the model's
/// `git push --force origin main` (Codex's shell tool, which its hooks call
/// Bash); the model reads "Command blocked by PreToolUse hook" with the
/// lesson; a benign command runs and gets nothing.
#[test]
fn codex_denies_a_guarded_command_with_the_lesson_as_the_reason() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::call(
            None,
            "exec_command",
            json!({"cmd": "git push --force origin main"}),
        )
        .when("ship it"),
        Turn::text("Blocked by your rule; not pushing.").when("function_call_output"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    home.ok(&[
        "lessons",
        "add",
        "Never force-push to main.",
        "--guard",
        r"git\s+push\b.*(--force|\s-f\b).*\bmain\b",
    ]);
    let stderr = exec(&home, &bin, &work, "ship it", &[BYPASS]);
    assert!(!stderr.contains("PreToolUse Failed"), "{stderr}");
    let answered = api
        .bodies()
        .into_iter()
        .find(|b| b.contains("function_call_output"))
        .expect("the call was answered");
    assert!(
        answered.contains("Command blocked by PreToolUse hook")
            && answered.contains("Never force-push to main."),
        "the deny did not reach the model: {answered:.3000}"
    );
}

/// Memory at the moment of need, inside Codex: a command fails in one
/// session and the model says what fixed it and what is left; in the next
/// session in the project, the open item is in the first request (session
/// start) and, when the same command fails again, the past fix reaches the
/// model with the request that answers the call, once however often it
/// fails in that session (Codex fires PostToolUse for a failed command with
/// the output alone; the exit code is in its rollout). The failure comes
/// from a real process Codex runs.
#[test]
fn codex_recalls_a_past_fix_and_the_projects_open_item() {
    let bin = codex_or_skip!();
    let failing = json!({"cmd": "sh -c 'echo \"frobnicate: error: frob.toml has no [widgets] table (needed since frobnicate 2)\" >&2; exit 3'"});
    let api = FakeResponses::start(vec![
        Turn::call(None, "exec_command", failing.clone()).when("set up the frobnicator"),
        Turn::text(
            "frob.toml had no [widgets] table; adding one with `size = 3` fixed it and frobnicate runs now. TODO: add the widgets table to the staging config too.",
        )
        .when("function_call_output"),
        Turn::call(None, "exec_command", failing.clone()).when("frobnicate the fixtures"),
        // the same failure again in that session: told once
        Turn::call(None, "exec_command", failing).when("function_call_output"),
        Turn::text("Done.").when("function_call_output"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    exec(
        &home,
        &bin,
        &work,
        "set up the frobnicator for the demo",
        &[BYPASS],
    );
    assert_eq!(
        api.turns_used(),
        2,
        "the first session's turns were not all used"
    );
    assert!(
        !api.bodies()
            .iter()
            .any(|b| b.contains("this error was met before")),
        "an error never met before was told as met"
    );
    home.ok(&["index", "--quiet"]);

    let before = api.bodies().len();
    let stderr = exec(&home, &bin, &work, "frobnicate the fixtures", &[BYPASS]);
    assert!(!stderr.contains("PostToolUse Failed"), "{stderr}");
    let bodies = api.bodies()[before..].to_vec();
    assert!(
        bodies[0].contains("add the widgets table to the staging config"),
        "the open item is not in the first request: {:.3000}",
        bodies[0]
    );
    let answered = bodies
        .iter()
        .find(|b| b.contains("function_call_output"))
        .expect("the call was answered");
    assert!(
        answered.contains("this error was met before")
            && answered.contains("size = 3")
            && answered.contains("codex://"),
        "the past fix did not reach the model: {answered:.4000}"
    );
    assert_eq!(api.turns_used(), 5);
    let last = bodies.last().unwrap();
    assert_eq!(
        last.matches("\"function_call_output\"").count(),
        2,
        "{last:.4000}"
    );
    assert_eq!(
        last.matches("this error was met before").count(),
        1,
        "the second failure was told again"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");
}

/// A file's history before its first edit, inside Codex: a session patches
/// a file with `apply_patch` (a model whose metadata Codex knows is offered
/// the tool; the fake one is not); in the next session, the first patch of
/// that file brings the past session to the model as a developer message,
/// the second brings nothing more.
#[test]
fn codex_shows_a_files_history_before_its_first_edit() {
    let bin = codex_or_skip!();
    let patch = |n: u32| Turn {
        items: vec![json!({
            "type": "custom_tool_call",
            "id": format!("ctc_fake_{n}"),
            "call_id": format!("call_patch_{n}"),
            "name": "apply_patch",
            "input": format!("*** Begin Patch\n*** Update File: frob.toml\n@@\n size = 1\n+# widgets {n}\n*** End Patch\n"),
        })],
        when: None,
    };
    let api = FakeResponses::start(vec![
        patch(1).when("grow the widgets"),
        Turn::text("frob.toml now notes the widgets: the widgets table needs them.")
            .when("call_patch_1"),
        patch(2).when("widgets bigger"),
        patch(3).when("call_patch_2"),
        Turn::text("Done.").when("call_patch_3"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    std::fs::write(work.join("frob.toml"), "size = 1\n").unwrap();
    let args = [BYPASS, "--sandbox", "workspace-write", "-m", "gpt-5.5"];
    exec(&home, &bin, &work, "grow the widgets in frob.toml", &args);
    assert_eq!(api.turns_used(), 2);
    const HISTORY: &str = "past sessions in this project touched frob.toml";
    assert!(
        !api.bodies().iter().any(|b| b.contains(HISTORY)),
        "a history before any"
    );
    home.ok(&["index", "--quiet"]);

    let before = api.bodies().len();
    exec(&home, &bin, &work, "make the widgets bigger again", &args);
    assert_eq!(api.turns_used(), 5);
    let bodies = api.bodies()[before..].to_vec();
    let after_first = bodies
        .iter()
        .find(|b| b.contains("call_patch_2") && !b.contains("call_patch_3"))
        .expect("the first patch was answered");
    assert_eq!(
        after_first.matches(HISTORY).count(),
        1,
        "{after_first:.3000}"
    );
    assert!(
        after_first.contains("the widgets table needs them") && after_first.contains("codex://"),
        "{after_first:.3000}"
    );
    let last = bodies.last().unwrap();
    assert!(last.contains("call_patch_3"));
    assert_eq!(
        last.matches(HISTORY).count(),
        1,
        "the second edit told it again"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("frob.toml")).unwrap(),
        "size = 1\n# widgets 3\n# widgets 2\n# widgets 1\n",
        "the patches ran"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");
}

/// A lesson that applies to the agent's own command, inside Codex: before
/// `git push` runs, the model gets the lesson as a developer message (a
/// lesson without a guard advises and does not block: the push still runs,
/// and fails here, outside a repository).
#[test]
fn codex_gets_the_lesson_that_applies_before_its_command() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::call(None, "exec_command", json!({"cmd": "git push origin main"}))
            .when("push the release"),
        Turn::text("Pushed.").when("function_call_output"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    let out = home.ok(&[
        "lessons",
        "add",
        "Run the test suite before you git push, because a broken build reached main.",
    ]);
    let id = crate::support::stdout(&out)
        .split_whitespace()
        .find(|w| w.starts_with("L-"))
        .expect("the lesson's id")
        .to_string();
    exec(&home, &bin, &work, "push the release", &[BYPASS]);
    let bodies = api.bodies();
    assert!(
        !bodies[0].contains("lessons that apply to this tool call"),
        "told before the call was made"
    );
    let answered = bodies
        .iter()
        .find(|b| b.contains("function_call_output"))
        .expect("the call was answered");
    assert!(
        answered.contains("lessons that apply to this tool call")
            && answered.contains(&id)
            && answered.contains("Run the test suite before you git push"),
        "the lesson did not reach the model: {answered:.3000}"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");
}

/// A correction in a Codex session becomes a learning waiting for the
/// user's yes (read from the rollout by the Stop and SessionEnd hooks).
#[test]
fn codex_sessions_corrections_become_pending_learnings() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::text(
            "You're right — the staging database listens on port 5433, not 5432. I fixed the config.",
        )
        .when("staging DB port"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    exec(
        &home,
        &bin,
        &work,
        "The staging DB port is wrong, check it",
        &[BYPASS],
    );
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let items = pending["items"].as_array().expect("learnings were staged");
    assert!(
        items.iter().any(|i| i["kind"] == "correction"
            && i["text"].as_str().unwrap().contains("5433")
            && i["transcript_ref"]
                .as_str()
                .is_some_and(|r| r.starts_with("codex://"))),
        "{pending}"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");
}

/// Codex's own compaction (forced with a token limit of 1, as `-c` sets
/// it): the PreCompact hook runs, Codex starts the session again after it,
/// and the request that follows still carries layer 0.
#[test]
fn codex_keeps_layer_0_across_its_compaction() {
    let bin = codex_or_skip!();
    let api = FakeResponses::start(vec![
        Turn::text("One widget.").when("count the widgets"),
        Turn::text("Two gadgets.").when("and the gadgets"),
    ]);
    let (home, work, _) = installed(&bin, &api, "");
    let limit = ["-c", "model_auto_compact_token_limit=1"];
    exec(
        &home,
        &bin,
        &work,
        "count the widgets",
        &[&[BYPASS][..], &limit].concat(),
    );
    let mut args = vec!["exec", "resume", "--last", "--skip-git-repo-check", BYPASS];
    args.extend(limit);
    args.push("and the gadgets?");
    let out = crate::support::codex_cli::run_codex(&home, &bin, &work, &args);
    let stderr = crate::support::stderr(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("hook: PreCompact Completed") && stderr.contains("context compacted"),
        "no compaction: {stderr}"
    );
    let last = api
        .bodies()
        .into_iter()
        .rfind(|b| b.contains("and the gadgets"))
        .expect("the second prompt reached the model");
    assert!(
        last.contains("pms memory for Ada Lovelace"),
        "layer 0 is gone after compaction: {last:.2000}"
    );
    assert_eq!(hook_log(&home), "", "hooks logged errors");
}

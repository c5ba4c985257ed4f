//! End-to-end inside the real Claude Code CLI (2.1.330 from npm), driven by
//! a scripted fake Anthropic API on 127.0.0.1, with a temporary HOME.

use std::path::Path;

use crate::claude_or_skip;
use crate::support::TestHome;
use crate::support::claude_code::{run_claude, run_claude_env};
use crate::support::fake_api::{FakeApi, Turn};
use serde_json::Value;

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
        crate::support::stdout(&out).contains("registered with `claude mcp add-json`"),
        "{}",
        crate::support::stdout(&out)
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
    let stderr = crate::support::stderr(&out);
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
        crate::support::stderr(&out).contains(SETTINGS_SKIPPED),
        "{}",
        crate::support::stderr(&out)
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
    let listed = crate::support::stdout(&list);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("pms:") && l.contains("✔ Connected")),
        "pms is not connected:\n{listed}{}",
        crate::support::stderr(&list)
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
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
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
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "/compact", "--continue"],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));

    // read back what Claude Code wrote
    let folder = pms::platform::agents::claude::project_folder_name(
        work.canonicalize().unwrap().to_str().unwrap(),
    );
    let dir = home.path(".claude/projects").join(&folder);
    let transcript = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("Claude Code wrote a transcript");
    let bytes = std::fs::read(&transcript).unwrap();
    let (turns, stats) = pms::platform::agents::transcript::read(
        &mut std::io::Cursor::new(&bytes),
        0,
        0,
        &pms::platform::agents::transcript::ReadOptions::default(),
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
    let uris: Vec<&str> = found["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["uri"].as_str().unwrap())
        .collect();
    let conversation = format!(
        "cc://{folder}/{}",
        transcript.file_name().unwrap().to_string_lossy()
    );
    // the session summary ranks first and points back to the conversation,
    // which is a hit too
    assert!(uris[0].starts_with("sessions/"), "{uris:?}");
    let summary = std::fs::read_to_string(home.workspace().join(uris[0])).unwrap();
    assert_eq!(
        pms::platform::workspace::summary_meta::SummaryMeta::parse(&summary)
            .transcript_ref
            .as_deref(),
        Some(conversation.as_str())
    );
    assert!(uris.contains(&conversation.as_str()), "{uris:?}");
}

/// Copies the payloads recorded with PMS_HOOK_RECORD into the fixtures the
/// hook tests replay (only with PMS_RECORD_FIXTURES=1).
fn save_recorded_payloads(dir: &Path) {
    if !std::env::var("PMS_RECORD_FIXTURES").is_ok_and(|v| v == "1") {
        return;
    }
    let dest = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hooks"));
    std::fs::create_dir_all(dest).unwrap();
    for event in [
        "session-start",
        "user-prompt",
        "stop",
        "pre-compact",
        "session-end",
    ] {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("{event}.jsonl"))) else {
            continue;
        };
        if let Some(line) = text.lines().find(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            std::fs::write(
                dest.join(format!("{event}.json")),
                serde_json::to_string_pretty(&v).unwrap(),
            )
            .unwrap();
        }
    }
}

/// Text of every /v1/messages request body.
fn bodies(api: &FakeApi) -> Vec<String> {
    api.message_bodies().iter().map(body_text).collect()
}

/// The layered-loading hooks inside Claude Code, session by session.
#[test]
fn hooks_carry_lessons_workflows_and_staged_learnings_across_sessions() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    let record = home.path("hook-payloads");
    let rec = record.to_str().unwrap().to_string();
    let env = [("PMS_HOOK_RECORD", rec.as_str())];
    // a lesson in force
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let target = pms::memory::lessons::store::Target::Me;
    let new = pms::memory::lessons::store::NewRule {
        text: "Run the migration dry-run before applying it to production, because a failed migration locked the orders table.",
        ..Default::default()
    };
    let promoted = pms::memory::lessons::store::promote(
        &ws,
        &new,
        &target,
        pms::memory::lessons::store::OnDuplicate::Stop,
    )
    .unwrap();
    let pms::memory::lessons::store::Promoted::Added(lesson) = promoted else {
        panic!("{promoted:?}")
    };
    home.ok(&["index", "--quiet"]);

    // 1. a prompt that matches the lesson carries it; an unrelated one does not
    let api = FakeApi::start(vec![Turn::text("Will do.")]);
    let out = run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "apply the orders migration to production now"],
        &env,
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    assert!(
        bodies(&api)[0].contains(&lesson.id),
        "the matching lesson is not in the request"
    );
    let api = FakeApi::start(vec![Turn::text("Done.")]);
    run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "fix the CSS on the login page"],
        &env,
    );
    let b = bodies(&api);
    // Issue 24, item 10: the first request carries the response format once
    // (layer 0, from SessionStart), not again from the prompt hook.
    let rule = "Answer first, in the first sentence or two; details after.";
    assert_eq!(b[0].matches(rule).count(), 1, "{}", b[0]);
    assert!(
        !b[0].contains("Lessons that apply"),
        "an unrelated prompt got a lesson"
    );

    // 2. a workflow trigger force-loads its SOP, once per session
    let api = FakeApi::start(vec![
        Turn::text("Here is a draft PRD."),
        Turn::text("Added the risks."),
    ]);
    run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "Please write a PRD for usage-based pricing"],
        &env,
    );
    let first = bodies(&api).pop().unwrap();
    assert!(
        first.contains("Writing a PRD") && first.contains("six questions"),
        "SOP not loaded"
    );
    run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "Now write the PRD risks section", "--continue"],
        &env,
    );
    let second = bodies(&api).pop().unwrap();
    assert_eq!(
        second.matches("follow this SOP step by step").count(),
        1,
        "the SOP was injected again in the same session"
    );

    // 3. a correction in a reply becomes a staged learning, the session gets a summary
    let api = FakeApi::start(vec![
        Turn::text(
            "You're right — the staging database listens on port 5433, not 5432. I fixed the config.",
        ),
        Turn::text("Summary of the conversation so far."),
    ]);
    let out = run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "The staging DB port is wrong, check it"],
        &env,
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let _ = result;
    run_claude_env(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "/compact", "--continue"],
        &env,
    );
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let items = pending["items"].as_array().unwrap();
    assert!(
        items
            .iter()
            .any(|i| i["kind"] == "correction" && i["text"].as_str().unwrap().contains("5433")),
        "{pending}"
    );
    let summaries: Vec<_> = std::fs::read_dir(home.workspace().join("sessions"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!summaries.is_empty());
    for s in &summaries {
        let text = std::fs::read_to_string(s.path()).unwrap();
        let r = pms::platform::workspace::summary_meta::SummaryMeta::parse(&text)
            .transcript_ref
            .expect("transcript_ref");
        let rel = r.strip_prefix("cc://").unwrap();
        assert!(
            home.path(".claude/projects").join(rel).is_file(),
            "{r} does not point at a transcript"
        );
    }

    // 4. the staged learning is in the next session's first request, with how to confirm it
    let api = FakeApi::start(vec![Turn::text("Hello.")]);
    run_claude_env(&home, &bin_dir, &api, &work, &["-p", "hello again"], &env);
    let first = bodies(&api).remove(0);
    assert!(
        first.contains("Learnings waiting for confirmation") && first.contains("5433"),
        "pending not shown"
    );
    assert!(first.contains("lessons_promote"));

    // 5. nothing was so long that Claude Code moved it to a file
    let spilled: Vec<_> = walk(&home.path(".claude/projects"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("additionalContext"))
        .collect();
    assert!(spilled.is_empty(), "injections over the cap: {spilled:?}");
    let log = home.workspace().join(".pms/logs/hooks.log");
    assert!(
        !log.exists(),
        "hook errors: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    save_recorded_payloads(&record);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Lessons become rules across three real sessions, with the user's yes.
#[test]
fn a_correction_becomes_a_rule_after_the_users_yes() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);

    // session 1: the model admits a correction
    let api = FakeApi::start(vec![Turn::text(
        "You're right — the staging database listens on port 5433, not 5432. I updated the connection string.",
    )]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "The staging DB port is wrong again"],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let id = pending["items"][0]["id"]
        .as_str()
        .expect("a staged learning")
        .to_string();

    // session 2: the pending learning is in the first request; the user says
    // yes and the model promotes it through the MCP tool
    let rule = "Use port 5433 for the staging database, because 5432 is production.";
    let api = FakeApi::start(vec![
        Turn::text(&format!(
            "Before we start: learning {id} says the staging database is on 5433. Make it a rule?"
        )),
        Turn::tool_use(
            "mcp__pms__lessons_promote",
            serde_json::json!({"id": id, "text": rule}),
        )
        .when("yes, make it a rule"),
        Turn::text("Done: it is a rule now.").when("tool_result"),
    ]);
    run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "good morning", "--allowedTools", "mcp__pms"],
    );
    let first = body_text(&api.message_bodies()[0]);
    assert!(
        first.contains("Learnings waiting for confirmation") && first.contains(&id),
        "pending not shown"
    );
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "yes, make it a rule",
            "--continue",
            "--allowedTools",
            "mcp__pms",
            "--output-format",
            "json",
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let last = bodies(&api).pop().unwrap();
    assert!(
        last.contains("Promoted") && last.contains(&id),
        "the promotion did not reach the model"
    );
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(lessons.contains(rule), "{lessons}");

    // session 3: a matching prompt carries the rule, an unrelated one does not
    let api = FakeApi::start(vec![Turn::text("Connecting.")]);
    run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "connect to the staging database and check the port"],
    );
    assert!(body_text(&api.message_bodies()[0]).contains("Use port 5433 for the staging database"));
    let api = FakeApi::start(vec![Turn::text("Here is the chart.")]);
    run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "draw a bar chart of monthly revenue"],
    );
    assert!(!body_text(&api.message_bodies()[0]).contains("Lessons that apply"));
}

/// Issue 11 inside the real Claude Code: lessons reach the model by
/// meaning (cues, paraphrases) and not otherwise; a rule promoted with cues
/// through `lessons_promote` matches in the next session; a correction the
/// model saved in Claude Code's auto-memory is shown by `pms lessons` and not
/// staged a second time; `--resume` does not load a domain's rules again.
#[test]
fn lessons_by_meaning_one_memory_with_auto_memory_and_resume_loads_once() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    home.ok(&[
        "lessons",
        "add",
        "Never force-push to the main branch.",
        "--when",
        "git push --force; overwrite the remote branch; rewrite history on main",
    ]);
    home.ok(&[
        "lessons",
        "add",
        "Always pin the Postgres major version in docker-compose files; never use the latest tag.",
    ]);
    let first_request = |prompt: &str| -> String {
        let api = FakeApi::start(vec![Turn::text("On it.")]);
        let out = run_claude(&home, &bin_dir, &api, &work, &["-p", prompt]);
        assert!(out.status.success(), "{}", crate::support::stderr(&out));
        body_text(&api.message_bodies()[0])
    };
    let b = first_request("I need to git push --force my changes to main");
    assert!(
        b.contains("Never force-push to the main branch"),
        "cue match"
    );
    let b =
        first_request("Can you write a docker-compose.yml with postgres and redis for local dev?");
    assert!(b.contains("pin the Postgres major version"), "text match");
    let b = first_request("What is a good name for a grey cat?");
    assert!(
        !b.contains("Lessons that apply"),
        "unrelated prompt got a lesson"
    );

    // a correction is staged, then promoted with cues through the MCP tool
    let api = FakeApi::start(vec![Turn::text(
        "You're right, I was wrong: the invoices must be rounded per invoice, not per line.",
    )]);
    run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "The totals are off by a cent again"],
    );
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let id = pending["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["text"].as_str().unwrap().contains("rounded per invoice"))
        .expect("staged")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let api = FakeApi::start(vec![
        Turn::tool_use(
            "mcp__pms__lessons_promote",
            serde_json::json!({"id": id, "text": "Round invoice totals per invoice, never per line.",
                "applies_when": ["invoice rounding", "totals off by a cent", "sum of line items", "VAT calculation"]}),
        ),
        Turn::text("Promoted.").when("tool_result"),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "yes, make it a rule", "--allowedTools", "mcp__pms"],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let b = first_request("the VAT calculation looks wrong on the March statements");
    assert!(
        b.contains("Round invoice totals per invoice"),
        "matched by a cue"
    );

    // the model saves a correction in Claude Code's auto-memory and says it
    let folder = pms::platform::agents::claude::project_folder_name(
        work.canonicalize().unwrap().to_str().unwrap(),
    );
    let memory = home.path(".claude/projects").join(&folder).join("memory");
    let note = memory.join("feedback-deploy-region.md");
    let api = FakeApi::start(vec![
        Turn::tool_use(
            "Write",
            serde_json::json!({"file_path": note,
                "content": "---\nname: feedback-deploy-region\ndescription: Deploy to eu-west-1, never us-east-1; the customer data must stay in the EU\nmetadata:\n  type: feedback\n---\nDeploy to eu-west-1.\n**Why:** data residency.\n"}),
        ),
        Turn::text("You're right, I was wrong: deploy to eu-west-1, never us-east-1, because the customer data must stay in the EU.")
            .when("tool_result"),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "You deployed to the wrong region",
            "--allowedTools",
            "Write",
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    assert!(note.is_file(), "Claude Code wrote the memory file");
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    assert!(
        !pending["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["text"].as_str().unwrap().contains("eu-west-1")),
        "staged although auto-memory holds it: {pending}"
    );
    let listed: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert!(
        listed["auto_memory"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["text"].as_str().unwrap().contains("eu-west-1")),
        "{listed:#}"
    );

    // --resume: the domain and the SOP loaded once are not injected again
    let api = FakeApi::start(vec![Turn::text("Draft PRD."), Turn::text("Goals added.")]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "Please write a PRD for usage-based pricing",
            "--output-format",
            "json",
        ],
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = result["session_id"]
        .as_str()
        .expect("session id")
        .to_string();
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "Now write the PRD goals section",
            "--resume",
            &session,
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let last = bodies(&api).pop().unwrap();
    assert_eq!(
        last.matches("follow this SOP step by step").count(),
        1,
        "the SOP was injected again after --resume"
    );
    let log = home.workspace().join(".pms/logs/hooks.log");
    assert!(
        !log.exists(),
        "hook errors: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// `memory_timeline` and `memory_save` in the real Claude Code: the model
/// asks what happened without a query, then saves a note the user asked to
/// keep, and the note is in the workspace and searchable.
#[test]
fn claude_code_lists_the_timeline_and_saves_a_note() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    let old = home.path(".claude/projects/-old-project");
    std::fs::create_dir_all(&old).unwrap();
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    std::fs::write(
        old.join("earlier.jsonl"),
        serde_json::json!({"type": "user", "timestamp": now,
            "message": {"content": "Plan the Q3 pricing experiment for the Team plan"}})
        .to_string()
            + "\n",
    )
    .unwrap();
    home.ok(&["index", "--quiet"]);
    let api = FakeApi::start(vec![
        Turn::tool_use("mcp__pms__memory_timeline", serde_json::json!({"days": 7})),
        Turn::tool_use(
            "mcp__pms__memory_save",
            serde_json::json!({"title": "Pricing experiment owner", "text": "Maya owns the Q3 pricing experiment.", "domain": "product"}),
        )
        .when("Q3 pricing experiment"),
        Turn::text("Noted.").when("Saved"),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "What did I do this week? Also remember that Maya owns the pricing experiment.",
            "--allowedTools",
            "mcp__pms",
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let all = bodies(&api).join("\n");
    assert!(
        all.contains("cc://-old-project/earlier.jsonl"),
        "the timeline reached the model"
    );
    assert!(
        all.contains("product/projects/"),
        "the save reached the model"
    );
    let found: Value =
        serde_json::from_slice(&home.ok(&["search", "Maya owns pricing", "--json"]).stdout)
            .unwrap();
    assert!(
        found["hits"][0]["uri"]
            .as_str()
            .unwrap()
            .starts_with("product/projects/"),
        "{found:#}"
    );
}

/// Issue 22 inside the real Claude Code: the model asks for `git push
/// --force origin main`, a guarded lesson denies it and the next request
/// holds the lesson as the tool's error; `npm --version` meets the
/// project's pnpm rule before it runs (as context after the call), in the
/// project only; an unrelated command gets nothing.
#[test]
fn lessons_are_enforced_before_the_agents_own_tool_calls() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    std::fs::create_dir_all(work.join(".git")).unwrap();
    let other = home.path("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    home.ok(&[
        "lessons",
        "add",
        "Never force-push to main.",
        "--guard",
        r"git\s+push\b.*(--force|\s-f\b).*\bmain\b",
    ]);
    home.ok(&[
        "lessons",
        "add",
        "Always use pnpm, never npm, in this repo.",
        "--project",
        work.to_str().unwrap(),
    ]);

    let api = FakeApi::start(vec![
        Turn::tool_use(
            "Bash",
            serde_json::json!({"command": "git push --force origin main", "description": "Push"}),
        ),
        Turn::text("The push was blocked by your rule; I will not force-push.").when("tool_result"),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "ship it", "--allowedTools", "Bash"],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let after = bodies(&api)
        .into_iter()
        .find(|b| b.contains("tool_result"))
        .expect("a request carried the tool's result");
    assert!(
        after.contains("PreToolUse:Bash hook error") && after.contains("Never force-push to main."),
        "the deny did not reach the model: {after}"
    );

    let npm = |cwd: &Path| -> String {
        let api = FakeApi::start(vec![
            Turn::tool_use(
                "Bash",
                serde_json::json!({"command": "npm --version", "description": "npm version"}),
            ),
            Turn::text("Checked.").when("tool_result"),
        ]);
        let out = run_claude(
            &home,
            &bin_dir,
            &api,
            cwd,
            &["-p", "check the package manager", "--allowedTools", "Bash"],
        );
        assert!(out.status.success(), "{}", crate::support::stderr(&out));
        bodies(&api)
            .into_iter()
            .find(|b| b.contains("tool_result"))
            .expect("a request carried the tool's result")
    };
    let here = npm(&work);
    assert!(
        here.contains("PreToolUse:Bash hook additional context")
            && here.contains("Always use pnpm"),
        "the project's lesson did not meet npm: {here}"
    );
    let there = npm(&other);
    assert!(!there.contains("Always use pnpm"), "{there}");
}

/// Issue 23 inside the real Claude Code: a command fails with an error a
/// past session met and fixed, and the next request holds that fix with
/// its `cc://` reference; the first edit of a file a past session changed
/// gets its history, the second edit of it does not; a new session in the
/// project starts with the item the last one left open, and a session in
/// another folder does not.
#[test]
fn memory_speaks_up_at_the_moment_of_need() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    std::fs::create_dir_all(work.join(".git")).unwrap();
    let ini = work.join("ledger.ini");
    std::fs::write(&ini, "[sync]\nlevel = 3\n").unwrap();
    let failing = r#"sh -c 'echo "error: unknown config key frobnicate.level in section [sync]" >&2; exit 3'"#;
    let tools = ["--allowedTools", "Bash,Read,Edit"];
    let ini_path = ini.to_str().unwrap();

    // the first session meets the error, renames the key, leaves a TODO
    let api = FakeApi::start(vec![
        Turn::tool_use(
            "Bash",
            serde_json::json!({"command": failing, "description": "Run the sync"}),
        ),
        Turn::tool_use("Read", serde_json::json!({"file_path": ini_path}))
            .when("unknown config key"),
        Turn::tool_use(
            "Edit",
            serde_json::json!({"file_path": ini_path, "old_string": "level = 3", "new_string": "depth = 3"}),
        )
        .when("level = 3"),
        Turn::text(
            "Fixed: frobnicate.level was renamed to frobnicate.depth, so I renamed the key in ledger.ini.",
        )
        .when("has been updated"),
    ]);
    let prompt = "The ledger sync fails, fix it. TODO for later: add the dead-letter queue for failed syncs.";
    let mut args = vec!["-p", prompt];
    args.extend(tools);
    let out = run_claude(&home, &bin_dir, &api, &work, &args);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    assert_eq!(
        api.turns_used(),
        4,
        "the first session did not run its script"
    );
    std::fs::write(&ini, "[sync]\nlevel = 3\n").unwrap(); // the old key is back
    home.ok(&["index", "--quiet"]);

    // a new session in the project: the same failure, then two edits
    let api = FakeApi::start(vec![
        Turn::tool_use(
            "Bash",
            serde_json::json!({"command": failing, "description": "Run the sync"}),
        ),
        Turn::tool_use("Read", serde_json::json!({"file_path": ini_path}))
            .when("unknown config key"),
        Turn::tool_use(
            "Edit",
            serde_json::json!({"file_path": ini_path, "old_string": "level = 3", "new_string": "depth = 3"}),
        )
        .when("level = 3"),
        Turn::tool_use(
            "Edit",
            serde_json::json!({"file_path": ini_path, "old_string": "[sync]", "new_string": "[sync] # renamed"}),
        )
        .when("has been updated"),
        Turn::text("Done.").when("renamed"),
    ]);
    let mut args = vec!["-p", "run the sync again"];
    args.extend(tools);
    let out = run_claude(&home, &bin_dir, &api, &work, &args);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let seen = bodies(&api);
    let first = seen
        .iter()
        .find(|b| b.contains("run the sync again"))
        .expect("the prompt reached the model");
    assert!(
        first.contains("left off") && first.contains("dead-letter queue"),
        "the open item of the last session is not carried: {first}"
    );
    let after_failure = seen
        .iter()
        .find(|b| b.contains("unknown config key"))
        .expect("a request carried the failure");
    // the hook's own words: the fix and its address could also come from
    // the continuity section of the first message, repeated in every request
    assert!(
        after_failure.contains("this error was met before")
            && after_failure.contains("frobnicate.depth")
            && after_failure.contains("cc://"),
        "the past fix did not follow the failure: {after_failure}"
    );
    assert!(
        !first.contains("this error was met before"),
        "recalled before anything failed: {first}"
    );
    let last = seen.last().unwrap();
    assert_eq!(
        last.matches("past sessions in this project touched")
            .count(),
        1,
        "the file's history should come with its first edit only: {last}"
    );
    // the history names the file (the Edit itself names it anyway)
    assert!(
        last.contains("past sessions in this project touched ledger.ini"),
        "{last}"
    );

    // elsewhere, the project's open items stay out
    let other = home.path("elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    let api = FakeApi::start(vec![Turn::text("Hello.")]);
    let out = run_claude(&home, &bin_dir, &api, &other, &["-p", "hello there"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let first = bodies(&api)
        .into_iter()
        .find(|b| b.contains("hello there"))
        .expect("the prompt reached the model");
    assert!(!first.contains("dead-letter queue"), "{first}");
}

/// Issue 24, item 9 inside the real Claude Code: the agent proposes npm,
/// the user turns it down with a rule ("No, that's wrong: always use pnpm
/// in this repo", a second `-p` with `--continue`), and the agent
/// apologises, runs a command and says the rule again. The summary pms
/// writes at the session's end lists no turned-down proposal as a
/// decision, counts the correction, writes no empty section (and none is
/// a search hit); the learning staged is the user's rule once, and the
/// apology ("I'll use pnpm") is not its why.
#[test]
fn a_turned_down_proposal_is_a_correction_not_a_decision_and_no_why() {
    let bin_dir = claude_or_skip!();
    let (home, work) = installed_home(&bin_dir);
    let mut apology = Turn::tool_use(
        "Bash",
        serde_json::json!({"command": "echo pnpm-installed", "description": "Install with pnpm"}),
    )
    .when("always use pnpm");
    apology.blocks[0]["text"] = "You're right, sorry — I'll use pnpm.".into();
    let api = FakeApi::start(vec![
        Turn::text("I'll install the dependencies with `npm install`."),
        apology,
        Turn::text("Installed with pnpm. Going forward, I'll always use pnpm.")
            .when("pnpm-installed"),
    ]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "Set up the project so I can run the tests."],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "No, that's wrong: always use pnpm in this repo",
            "--continue",
            "--allowedTools",
            "Bash",
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    assert_eq!(api.turns_used(), 3, "the conversation did not run through");

    let summaries = home.summaries();
    assert_eq!(summaries.len(), 1, "one session, continued: {summaries:#?}");
    let summary = &summaries[0];
    assert!(summary.contains("Going forward"), "{summary}");
    let front = summary.split("\n---\n").next().unwrap();
    let corrections: u32 = front
        .split("correction: ")
        .nth(1)
        .and_then(|r| r.split([',', '}']).next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no correction count:\n{front}"));
    assert!(corrections >= 1, "{front}");
    let decisions = summary
        .split("## Decisions\n")
        .nth(1)
        .map(|d| d.split("\n## ").next().unwrap())
        .unwrap_or_default();
    assert!(!decisions.contains("npm install"), "{summary}");
    assert!(!summary.contains("(none recorded)"), "{summary}");
    for section in summary.split("\n## ").skip(1) {
        assert!(
            section.lines().skip(1).any(|l| l.starts_with("- ")),
            "an empty section was written: {section:?}\n{summary}"
        );
    }
    home.ok(&["index", "--quiet"]);
    let found = home.search_json("none recorded");
    assert!(!found.to_string().contains("none recorded"), "{found:#}");

    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let items = pending["items"].as_array().unwrap();
    let pnpm: Vec<&Value> = items
        .iter()
        .filter(|i| i["text"].as_str().unwrap().contains("pnpm"))
        .collect();
    assert_eq!(pnpm.len(), 1, "{items:#?}");
    assert_eq!(pnpm[0]["text"], "Always use pnpm in this repo");
    assert_eq!(pnpm[0]["origin"], "user");
    let why = pnpm[0]["why"].as_str().unwrap_or_default();
    assert!(!why.contains("I'll use pnpm"), "{items:#?}");
    let listed = crate::support::stdout(&home.ok(&["lessons"]));
    assert!(!listed.contains("I'll use pnpm"), "{listed}");
}

//! `pms lessons`: staged learnings become rules, as a user (or a script)
//! drives it. Real binary, temporary HOME.

use crate::support::{TestHome, stderr, stdout};
use serde_json::{Value, json};

/// A workspace with three staged learnings.
fn staged() -> (TestHome, Vec<String>) {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let texts = [
        (
            "correction",
            "You're right — the staging database listens on port 5433, not 5432.",
            None,
        ),
        (
            "method",
            "A simpler approach is to batch invoice writes in one transaction.",
            Some("product"),
        ),
        (
            "anti-pattern",
            "Never run the payroll export on the last day of the month.",
            None,
        ),
    ];
    let candidates = texts
        .iter()
        .map(|(k, t, d)| pms::memory::lessons::pending::Candidate {
            kind: k.to_string(),
            text: t.to_string(),
            domain: d.map(str::to_string),
            session_id: Some("s1".into()),
            transcript_ref: Some("cc://-home-u-app/s1.jsonl".into()),
            ..Default::default()
        })
        .collect();
    let added = pms::memory::lessons::pending::stage(&ws, candidates, &[]).unwrap();
    (home, added.into_iter().map(|i| i.id).collect())
}

fn rules(home: &TestHome) -> Vec<Value> {
    let out = home.ok(&["lessons", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["rules"].as_array().unwrap().clone()
}

/// Issue 24, item 1: `pms lessons review --json` was refused ("unexpected
/// argument") and `pms lessons --json review` ignored the flag. Either
/// place now gives the report; a subcommand that changes the lessons
/// refuses the flag instead of dropping it.
#[test]
fn json_is_taken_before_or_after_the_subcommand() {
    let (home, ids) = staged();
    for args in [
        &["lessons", "review", "--json"][..],
        &["lessons", "--json", "review"][..],
    ] {
        let out = home.ok(args);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&out)));
        let pending: Vec<&str> = v["pending"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap())
            .collect();
        assert_eq!(pending, ids, "{args:?}");
    }
    for args in [
        &["lessons", "test", "npm install", "--json"][..],
        &["lessons", "--json", "test", "npm install"][..],
    ] {
        let out = home.ok(args);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&out)));
        assert!(v["lessons"].is_array(), "{args:?}: {v}");
    }
    let before = crate::support::snapshot(&home.workspace().join("_me"));
    for args in [
        &["lessons", "add", "Always use pnpm, never npm.", "--json"][..],
        &["lessons", "--json", "reject", &ids[0]][..],
    ] {
        let out = home.run(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr(&out).contains("prints one line, not a report")
                && stderr(&out).contains("Fix: leave out --json"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        crate::support::snapshot(&home.workspace().join("_me")),
        before
    );
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert_eq!(v["pending"].as_array().unwrap().len(), ids.len(), "{v}");
    let out = home.run(&["embeddings", "install", "--json"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Fix: leave out --json"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn listing_shows_pending_and_rules() {
    let (home, ids) = staged();
    let out = home.ok(&["lessons"]);
    let text = stdout(&out);
    assert!(text.contains("Waiting for your yes (3)"), "{text}");
    assert!(text.contains(&ids[0]) && text.contains("[method → product]"));
    assert!(text.contains("No lessons in force yet."));
}

#[test]
fn accept_writes_a_dated_rule_with_its_source_and_the_next_prompt_matches_it() {
    let (home, ids) = staged();
    let out = home.ok(&["lessons", "accept", &ids[0]]);
    assert!(
        stdout(&out).contains("to _me/lessons.md"),
        "{}",
        stdout(&out)
    );
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains("] The staging database listens on port 5433, not 5432. _(")
            && lessons.contains(&format!("; cc://-home-u-app/s1.jsonl; from {})_", ids[0])),
        "{lessons}"
    );
    // the lessons index is updated at once: no `pms index` in between
    let hook = home.hook(
        "user-prompt",
        &json!({"session_id": "x", "prompt": "connect to the staging database port"}),
    );
    let ctx: Value = serde_json::from_slice(&hook.stdout).unwrap();
    assert!(
        ctx["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("5433")
    );
    // accepted learnings leave the pending list
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert_eq!(v["pending"].as_array().unwrap().len(), 2);
}

#[test]
fn accept_with_wording_and_target_then_retire() {
    let (home, ids) = staged();
    home.ok(&[
        "lessons",
        "accept",
        &ids[1],
        "--text",
        "Batch invoice writes in one transaction, because row-by-row writes timed out.",
        "--to",
        "product",
    ]);
    let product = std::fs::read_to_string(home.workspace().join("product/CLAUDE.md")).unwrap();
    assert!(
        product.contains(
            "Batch invoice writes in one transaction, because row-by-row writes timed out."
        )
    );
    let r = rules(&home);
    assert_eq!(r[0]["file"], "product/CLAUDE.md");
    let id = r[0]["id"].as_str().unwrap().to_string();
    home.ok(&["lessons", "retire", &id]);
    assert!(rules(&home).is_empty());
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains(&id) && lessons.contains("retired"),
        "archived"
    );
}

#[test]
fn a_near_duplicate_is_offered_as_a_merge() {
    let (home, ids) = staged();
    home.ok(&[
        "lessons",
        "add",
        "Never run the payroll export on the last day of a month",
    ]);
    let out = home.run(&["lessons", "accept", &ids[2]]);
    assert!(!out.status.success());
    assert!(stdout(&out).contains("--merge"), "{}", stdout(&out));
    assert_eq!(rules(&home).len(), 1, "no second copy");
    home.ok(&[
        "lessons",
        "accept",
        &ids[2],
        "--merge",
        "--text",
        "Never run the payroll export on the month's last day: the bank batch closes early.",
    ]);
    let r = rules(&home);
    assert_eq!(r.len(), 1);
    assert!(r[0]["text"].as_str().unwrap().contains("bank batch"));
}

#[test]
fn reject_and_unknown_ids() {
    let (home, ids) = staged();
    home.ok(&["lessons", "reject", &ids[2]]);
    let out = home.run(&["lessons", "accept", &ids[2]]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no pending learning"),
        "{}",
        stderr(&out)
    );
    let out = home.run(&["lessons", "accept", &ids[0], "--to", "astrology"]);
    assert!(
        stderr(&out).contains("no domain \"astrology\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn promotions_from_many_processes_at_once_all_land() {
    let (home, _) = staged();
    let rules_to_add = [
        "Pin the Terraform provider version in every module",
        "Rotate the signing keys before their ninety-day expiry",
        "Keep invoices in integer cents, never floating point",
        "Tag every release image with the git commit hash",
        "Page the on-call engineer only for customer-facing alerts",
        "Review feature flags older than three months each sprint",
        "Back up the orders database before each schema migration",
        "Write the postmortem within two working days of an outage",
    ];
    let children: Vec<_> = rules_to_add
        .iter()
        .map(|t| home.pms(&["lessons", "add", t]).spawn().unwrap())
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(rules(&home).len(), 8, "{:?}", rules(&home));
}

#[test]
fn force_keeps_two_rules_that_only_look_alike() {
    let (home, _) = staged();
    home.ok(&[
        "lessons",
        "add",
        "Write a runbook for invoices before the on-call rotation starts",
    ]);
    let out = home.run(&[
        "lessons",
        "add",
        "Write a runbook for backups before the on-call rotation starts",
    ]);
    assert!(!out.status.success() && stdout(&out).contains("--force"));
    home.ok(&[
        "lessons",
        "add",
        "--force",
        "Write a runbook for backups before the on-call rotation starts",
    ]);
    assert_eq!(rules(&home).len(), 2);
}

#[test]
fn a_hand_edited_lessons_file_keeps_the_users_text() {
    let (home, ids) = staged();
    let path = home.workspace().join("_me/lessons.md");
    let mine = "# My lessons\n\nThings I wrote myself, in my own order.\n- keep this line\n\n";
    let original = std::fs::read_to_string(&path).unwrap();
    let (_, section) = original.split_once("<!-- pms:lessons:begin").unwrap();
    std::fs::write(&path, format!("{mine}<!-- pms:lessons:begin{section}")).unwrap();
    home.ok(&["lessons", "accept", &ids[0]]);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(mine), "{after}");
    assert_eq!(rules(&home).len(), 1);
}

/// Issue 22: guards, from `pms lessons add --guard` to the pre-tool-use
/// hook: a bad pattern is refused at `add` with the fix; a matching
/// command is denied with the lesson as the reason (Claude Code's shape,
/// never "allow"); a benign one runs; `--guard-mode ask` asks in Claude
/// Code and denies with "ask the user" in Codex, which cannot ask;
/// OpenClaw gets `{block, blockReason}`; `pms lessons test` says the same.
#[test]
fn a_guard_blocks_what_its_lesson_forbids_and_nothing_else() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let bad = home.run(&[
        "lessons",
        "add",
        "Never force-push to main.",
        "--guard",
        "git push (--force",
    ]);
    assert!(!bad.status.success());
    let err = stderr(&bad);
    assert!(
        err.contains("not a valid regular expression") && err.contains("Fix:"),
        "{err}"
    );
    assert!(rules(&home).is_empty(), "nothing added on a bad guard");

    home.ok(&[
        "lessons",
        "add",
        "Never force-push to main.",
        "--guard",
        r"git push\b.*(--force|\s-f\b).*\bmain\b",
    ]);
    let call = |cmd: &str, agent: &str| -> Value {
        let payload = json!({"session_id": format!("s-{agent}"), "cwd": "/tmp", "hook_event_name": "PreToolUse",
                             "tool_name": if agent == "openclaw" { "exec" } else { "Bash" },
                             "tool_input": {"command": cmd}});
        let payload = if agent == "openclaw" {
            json!({"hook": "before_tool_call", "event": {"toolName": "exec", "params": {"command": cmd}},
                   "ctx": {"sessionId": "s-openclaw"}})
        } else {
            payload
        };
        let out = home.hook_as(agent, "pre-tool-use", &payload);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap()
        }
    };
    let denied = call("git push --force origin main", "claude");
    let out = &denied["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{denied}");
    assert!(
        out["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Never force-push to main.")
    );
    assert_eq!(call("git push origin feature/x", "claude"), Value::Null);
    assert_eq!(call("git status", "claude"), Value::Null);
    let codex = call("git push -f origin main", "codex");
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        codex.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hookSpecificOutput"],
        "Codex takes only its schema's keys"
    );
    let claw = call("git push --force origin main", "openclaw");
    assert_eq!(claw["block"], true, "{claw}");
    assert!(claw["blockReason"].as_str().unwrap().contains("force-push"));

    // ask mode
    let id = rules(&home)[0]["id"].as_str().unwrap().to_string();
    home.ok(&["lessons", "edit", &id, "--guard-mode", "ask"]);
    let asked = call("git push --force origin main", "claude");
    assert_eq!(
        asked["hookSpecificOutput"]["permissionDecision"], "ask",
        "{asked}"
    );
    let codex = call("git push --force origin main", "codex");
    assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(
        codex["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("ask the user"),
        "{codex}"
    );
    let said = stdout(&home.ok(&["lessons", "test", "git push --force origin main"]));
    assert!(
        said.contains("Asked first by") && said.contains(&id),
        "{said}"
    );
    let said = stdout(&home.ok(&["lessons", "test", "git push origin main"]));
    assert!(said.contains("No guard matches"), "{said}");
    // removing the guard
    home.ok(&["lessons", "edit", &id, "--guard", ""]);
    assert!(rules(&home)[0]["guard"].is_null());
    let again = call("git push --force origin main", "claude");
    assert!(
        again["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none(),
        "{again}"
    );
}

/// Issue 22: lessons shown before the action they are about, once per
/// lesson per session (again after compaction), nothing for benign calls;
/// a project's lesson only in sessions inside that project.
#[test]
fn lessons_meet_the_action_once_per_session_and_only_in_their_project() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let repo = home.path("code/web");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let other = home.path("code/api");
    std::fs::create_dir_all(&other).unwrap();
    home.ok(&[
        "lessons",
        "add",
        "Always use pnpm, never npm, in this repo.",
        "--project",
        repo.join("src").to_str().unwrap(),
    ]);
    home.ok(&[
        "lessons",
        "add",
        "Run terraform plan and read it before terraform apply.",
    ]);
    let listed: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    let pnpm = listed["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"].as_str().unwrap().contains("pnpm"))
        .unwrap()
        .clone();
    assert_eq!(
        pnpm["project"].as_str().unwrap(),
        repo.canonicalize().unwrap().to_str().unwrap(),
        "the git root above the folder given"
    );
    let hook = |session: &str, cwd: &std::path::Path, tool: &str, input: Value| -> String {
        let out = home.hook(
            "pre-tool-use",
            &json!({"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
                    "tool_name": tool, "tool_input": input}),
        );
        assert!(out.status.success());
        stdout(&out)
    };
    let npm = json!({"command": "npm install"});
    let here = repo.canonicalize().unwrap().join("src");
    let first = hook("a", &here, "Bash", npm.clone());
    assert!(
        first.contains("Always use pnpm") && first.contains("additionalContext"),
        "{first}"
    );
    assert!(
        hook("a", &here, "Bash", npm.clone()).trim().is_empty(),
        "once per session"
    );
    assert!(
        hook("a", &here, "Bash", json!({"command": "pnpm install"}))
            .trim()
            .is_empty()
    );
    assert!(
        hook("b", &other, "Bash", npm.clone()).trim().is_empty(),
        "not in another project"
    );
    let tf = hook(
        "a",
        &other,
        "Bash",
        json!({"command": "terraform apply -auto-approve"}),
    );
    assert!(tf.contains("terraform plan"), "{tf}");
    assert!(
        hook(
            "a",
            &other,
            "Bash",
            json!({"command": "terraform fmt -recursive"})
        )
        .trim()
        .is_empty()
    );
    assert!(
        hook("a", &other, "Read", json!({"file_path": "/etc/hosts"}))
            .trim()
            .is_empty()
    );
    // compaction takes the shown lessons out of the context: they come back
    home.hook(
        "session-start",
        &json!({"session_id": "a", "cwd": here, "source": "compact"}),
    );
    assert!(hook("a", &here, "Bash", npm).contains("Always use pnpm"));
    // session start lists it only inside the project
    let start = |cwd: &std::path::Path| {
        stdout(&home.hook("session-start", &json!({"session_id": format!("start-{}", cwd.display()), "cwd": cwd, "source": "startup"})))
    };
    assert!(start(&here).contains("Always use pnpm"));
    assert!(!start(&other).contains("Always use pnpm"));
}

/// Issue 22: a learning that reverses a rule in force is staged as its
/// replacement (not dropped as a restatement) and accepting it retires the
/// old rule with a pointer; two rules on different subjects that share
/// three words are not merged; "in this repo" proposes the session's
/// project; an explicit prohibition of a command proposes a guard, which
/// is added only when asked.
#[test]
fn a_reversal_replaces_its_rule_and_scope_and_guard_are_proposed() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    home.ok(&[
        "lessons",
        "add",
        "Always run the database migrations before the tests.",
    ]);
    let old = rules(&home)[0]["id"].as_str().unwrap().to_string();
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let repo = home.path("code/shop");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let known = vec![pms::memory::lessons::Known::new(
        Some(old.clone()),
        "Always run the database migrations before the tests.",
    )];
    let cand =
        |text: &str, project: Option<&std::path::Path>| pms::memory::lessons::pending::Candidate {
            kind: "rule".into(),
            text: text.into(),
            origin: pms::memory::lessons::signals::Origin::User,
            session_id: Some("s1".into()),
            project: project.map(|p| p.to_string_lossy().into_owned()),
            ..Default::default()
        };
    let staged = pms::memory::lessons::pending::stage(
        &ws,
        vec![
            cand("never run the database migrations before the tests", None),
            cand(
                "Always run the database migrations before the tests, please.",
                None,
            ),
            cand(
                "No, that's wrong: always use pnpm, never npm, in this repo",
                Some(&repo),
            ),
        ],
        &known,
    )
    .unwrap();
    assert_eq!(
        staged.len(),
        2,
        "the restatement is dropped, the reversal kept: {staged:?}"
    );
    assert_eq!(staged[0].replaces.as_deref(), Some(old.as_str()));
    assert_eq!(staged[1].project.as_deref(), Some(repo.to_str().unwrap()));
    assert!(
        staged[1]
            .guard
            .as_deref()
            .is_some_and(|g| g.contains("npm")),
        "{:?}",
        staged[1].guard
    );
    let listed = stdout(&home.ok(&["lessons"]));
    assert!(listed.contains(&format!("replaces {old}")), "{listed}");
    assert!(listed.contains("proposed guard"), "{listed}");

    home.ok(&["lessons", "accept", &staged[0].id]);
    let now = rules(&home);
    assert_eq!(now.len(), 1, "{now:?}");
    assert!(
        now[0]["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .starts_with("never run"),
        "{now:?}"
    );
    let archive = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        archive.contains(&format!("replaced by {}", now[0]["id"].as_str().unwrap())),
        "{archive}"
    );

    // accepted without --guard: scoped, but no guard added unasked
    home.ok(&["lessons", "accept", &staged[1].id]);
    let pnpm = rules(&home)
        .into_iter()
        .find(|r| r["text"].as_str().unwrap().contains("pnpm"))
        .unwrap();
    assert_eq!(pnpm["project"], repo.to_str().unwrap());
    assert!(pnpm["guard"].is_null());

    // different subjects sharing three words stay two rules
    home.ok(&[
        "lessons",
        "add",
        "Never deploy the search service on Fridays.",
    ]);
    let out = home.ok(&[
        "lessons",
        "add",
        "Never deploy the billing service on Fridays.",
    ]);
    assert!(stdout(&out).starts_with("Added"), "{}", stdout(&out));
    // `pms lessons add` of a reversal replaces at once
    let out = home.ok(&[
        "lessons",
        "add",
        "Always deploy the search service on Fridays.",
    ]);
    assert!(stdout(&out).contains("reverses"), "{}", stdout(&out));
    let texts: Vec<String> = rules(&home)
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !texts
            .iter()
            .any(|t| t == "Never deploy the search service on Fridays."),
        "{texts:?}"
    );
}

/// Issue 24, item 3: after `pms lessons add`, `pms verify` warned
/// "index.fresh 1 workspace file(s) changed" (pms's own write) while
/// `pms status` said the index ran just now. The lesson is indexed as it is
/// written; a file the user edited is still reported, also after pms's own
/// write moved the last index run on.
#[test]
fn a_lesson_pms_writes_is_indexed_at_once_and_never_reported_as_stale() {
    let home = TestHome::new();
    home.init(&[]);
    let fresh = |home: &TestHome| {
        let out = home.run(&["verify", "--json", "--quick"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "index.fresh")
            .unwrap()
            .clone()
    };
    assert_eq!(fresh(&home)["status"], "ok", "{}", fresh(&home));
    home.ok(&[
        "lessons",
        "add",
        "Always use pnpm, never npm: the lockfile is pnpm's.",
    ]);
    assert_eq!(fresh(&home)["status"], "ok", "{}", fresh(&home));
    let hits = crate::support::hit_uris(&home.search_json("pnpm lockfile"));
    assert!(hits.iter().any(|u| u == "_me/lessons.md"), "{hits:?}");

    let domain = home.workspace().join("product/content-index.md");
    crate::support::append(&domain, "\nOur release train leaves on Thursdays.\n");
    home.ok(&[
        "lessons",
        "add",
        "Never deploy on Fridays: nobody is on call.",
    ]);
    let check = fresh(&home);
    assert_eq!(check["status"], "warn", "{check}");
    assert!(
        check["message"]
            .as_str()
            .unwrap()
            .starts_with("1 workspace file"),
        "{check}"
    );
}

//! `pms verify`, `doctor`, `status` and `upgrade` on real installs in a
//! temporary HOME: healthy, broken, repaired, and upgraded from an older
//! version without a byte of user data changing.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{TestHome, stdout};
use serde_json::{Value, json};

fn verify_json(home: &TestHome, extra: &[&str]) -> (bool, Value) {
    let mut args = vec!["verify", "--json"];
    args.extend_from_slice(extra);
    let out = home.run(&args);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", crate::support::stderr(&out)));
    (out.status.success(), v)
}

fn status_of<'a>(report: &'a Value, id: &str) -> Vec<&'a str> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"] == id)
        .map(|c| c["status"].as_str().unwrap())
        .collect()
}

#[test]
fn a_fresh_install_verifies_and_the_json_follows_the_documented_schema() {
    let home = TestHome::new();
    home.init(&[]);
    let (ok, v) = verify_json(&home, &[]);
    assert!(ok, "{v:#}");
    // the schema documented in VERIFY.md
    for key in [
        "schema",
        "pms_version",
        "workspace",
        "ok",
        "counts",
        "checks",
        "fixed",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["schema"], 1);
    assert_eq!(v["ok"], true);
    for c in v["checks"].as_array().unwrap() {
        let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "status", "message", "fix", "hint"]);
        assert!(["ok", "warn", "fail"].contains(&c["status"].as_str().unwrap()));
    }
    let ids: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "binary",
        "workspace",
        "workspace.me",
        "workspace.claude_md",
        "config",
        "workspace.domains",
        "hooks.present",
        "hooks.binary",
        "hooks.timeouts",
        "hooks.duplicates",
        "mcp.registered",
        "mcp.answers",
        "index",
        "index.fresh",
        "index.file_history",
        "lessons.index",
        "pending",
        "hooks.run",
        "hooks.cap",
        "claude",
    ] {
        assert!(ids.contains(&id), "no check {id}");
    }
    // every documented id is in VERIFY.md
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/VERIFY.md")).unwrap();
    for id in &ids {
        assert!(
            doc.contains(&format!("`{id}`")),
            "VERIFY.md does not document {id}"
        );
    }
}

#[test]
fn a_broken_install_fails_and_fix_repairs_it_without_touching_user_files() {
    let home = TestHome::new();
    home.init(&[]);
    let ws = home.workspace();
    // break: a missing user file, an edited one, hooks gone, a stale MCP
    // entry, no pms block, a missing system file, a corrupt index
    std::fs::remove_file(ws.join("_me/preferences.md")).unwrap();
    std::fs::write(ws.join("_me/profile.md"), "my own profile").unwrap();
    let mut s = home.read_json(".claude/settings.json");
    s["hooks"].as_object_mut().unwrap().remove("SessionEnd");
    // stale: an old binary path, and a handler that runs another event
    s["hooks"]["Stop"][0]["hooks"][0]["command"] = json!("/old/place/pms");
    s["hooks"]["UserPromptSubmit"][0]["hooks"][0]["args"][1] = json!("stop");
    std::fs::write(home.settings(), s.to_string()).unwrap();
    let mut c = home.read_json(".claude.json");
    c["mcpServers"]["pms"]["command"] = json!("/old/place/pms");
    std::fs::write(home.path(".claude.json"), c.to_string()).unwrap();
    std::fs::write(ws.join("CLAUDE.md"), "# Mine\nonly my notes\n").unwrap();
    std::fs::remove_file(ws.join("product/workflows/prd.md")).unwrap();
    let db = ws.join(".pms/index.db");
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::write(&db, vec![1u8; 4096]).unwrap();

    let (ok, v) = verify_json(&home, &[]);
    assert!(!ok, "verify exits 1 when something fails");
    for id in [
        "workspace.me",
        "hooks.present",
        "hooks.binary",
        "mcp.registered",
        "workspace.claude_md",
        "workspace.domains",
        "index",
    ] {
        assert_eq!(status_of(&v, id), ["fail"], "{id}: {v:#}");
        let check = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        assert!(!check["fix"].is_null(), "{id} should be fixable");
    }

    let (ok, v) = verify_json(&home, &["--fix"]);
    assert!(ok, "{v:#}");
    assert!(v["fixed"].as_array().unwrap().len() >= 5, "{v:#}");
    assert_eq!(
        std::fs::read_to_string(ws.join("_me/profile.md")).unwrap(),
        "my own profile",
        "user file overwritten"
    );
    assert!(ws.join("_me/preferences.md").is_file());
    assert!(ws.join("product/workflows/prd.md").is_file());
    let root = std::fs::read_to_string(ws.join("CLAUDE.md")).unwrap();
    assert!(root.starts_with("# Mine\nonly my notes\n") && root.contains("<!-- pms:begin"));
    assert_eq!(
        home.read_json(".claude.json")["mcpServers"]["pms"]["command"],
        crate::support::PMS_CANONICAL.as_str()
    );
}

#[test]
fn duplicates_and_invalid_config_are_reported() {
    let home = TestHome::new();
    home.init(&[]);
    // a second copy of the hooks in the workspace's own settings
    let bin = crate::support::PMS_CANONICAL.clone();
    let ws = home.workspace();
    std::fs::create_dir_all(ws.join(".claude")).unwrap();
    std::fs::write(
        ws.join(".claude/settings.json"),
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": bin, "args": ["hook", "stop"]}]}]}}).to_string(),
    )
    .unwrap();
    std::fs::write(ws.join("config.toml"), "[hooks]\nbudget_chars = 50000\n").unwrap();
    let (ok, v) = verify_json(&home, &["--quick"]);
    assert!(!ok);
    assert_eq!(status_of(&v, "hooks.duplicates"), ["fail"]);
    let config = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "config")
        .unwrap();
    assert_eq!(config["status"], "fail");
    assert!(
        config["message"]
            .as_str()
            .unwrap()
            .contains("hooks.budget_chars")
    );
    let (_, v) = verify_json(&home, &["--quick", "--fix"]);
    assert_eq!(status_of(&v, "hooks.duplicates"), ["ok"], "{v:#}");
}

#[test]
fn doctor_and_status_describe_the_install() {
    let home = TestHome::new();
    home.init(&[]);
    let out = home.run(&["doctor"]);
    let text = stdout(&out);
    for part in [
        "Environment",
        "kernel",
        "Checks",
        "Recent hook errors",
        "Locks",
        "index.lock",
    ] {
        assert!(text.contains(part), "{part} missing:\n{text}");
    }
    let out = home.ok(&["status", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["hooks"],
        pms::platform::agents::claude::settings::HOOK_EVENTS.len()
    );
    assert_eq!(v["mcp_registered"], true);
    assert!(v["index"]["chunks"].as_i64().unwrap() > 0);
    assert_eq!(v["lessons"]["pending"], 0);
    let out = home.ok(&["status"]);
    assert!(stdout(&out).contains("Hooks      8/8"), "{}", stdout(&out));
}

/// Issue 24, item 6: after `pms uninstall`, `hooks.present` said none of
/// the hooks was there while `hooks.binary`, `hooks.timeouts` and
/// `hooks.duplicates` said "hooks run this binary", "every hook declares a
/// timeout" and "one pms handler per event" about no hook at all.
#[test]
fn hook_checks_with_no_hook_to_look_at_say_so() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    home.ok(&["uninstall", "--yes"]);
    let (_, v) = verify_json(&home, &["--quick"]);
    let message = |id: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id}: {v:#}"))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let present = message("hooks.present");
    assert!(
        present.contains(&format!(
            "0 of {}",
            pms::platform::agents::claude::settings::HOOK_EVENTS.len()
        )),
        "{present}"
    );
    for id in ["hooks.binary", "hooks.timeouts", "hooks.duplicates"] {
        assert!(
            message(id).starts_with("nothing to check: no pms hook in ~/.claude/settings.json"),
            "{id}: {}",
            message(id)
        );
    }
    // wired again, the same checks look at the hooks and say what they found
    home.init(&["--no-index"]);
    let (_, v) = verify_json(&home, &["--quick"]);
    let text = v.to_string();
    assert!(!text.contains("nothing to check"), "{v:#}");
    assert!(text.contains("every hook declares a timeout"), "{v:#}");
}

/// Issue 24, item 4: with `claude` not on PATH (this HOME's PATH has none),
/// doctor's only problem is that warning; its "Next:" step pointed at "by
/// hand" notes that were not there, after a line of two spaces.
#[test]
fn doctor_next_step_points_at_notes_that_are_there() {
    let home = TestHome::new();
    home.init(&[]);
    let text = stdout(&home.run(&["doctor"]));
    assert!(text.contains("`claude` is not on PATH"), "{text}");
    assert!(
        !text.lines().any(|l| !l.is_empty() && l.trim().is_empty()),
        "a whitespace-only line:\n{text:?}"
    );
    let next = text
        .lines()
        .find(|l| l.starts_with("Next:"))
        .unwrap_or_else(|| panic!("no Next: line:\n{text}"));
    // the missing `claude` has a hint of what to do by hand, so Next points
    // at it, and the note is there
    assert!(next.contains("by hand"), "{text}");
    assert!(
        text.contains("by hand: install Claude Code"),
        "Next points at \"by hand\" notes that are not above:\n{text}"
    );
}

/// Hash of every file under `root` except the ones pms may rewrite.
fn user_data(root: &Path) -> BTreeMap<String, Vec<u8>> {
    crate::support::snapshot(root)
        .into_iter()
        .filter(|(rel, _)| {
            let system = rel.starts_with(".pms/")
                || rel == "config.toml"
                || rel == "CLAUDE.md"
                || rel.ends_with(".pms-new")
                || rel.ends_with("/domain.toml")
                || rel.contains("/workflows/")
                || (rel.ends_with("/CLAUDE.md") && rel.matches('/').count() == 1);
            !system
        })
        .collect()
}

#[test]
fn upgrading_an_older_workspace_keeps_every_byte_of_user_data() {
    let home = TestHome::new();
    home.init(&[]);
    let ws = home.workspace();
    // user data everywhere
    std::fs::write(
        ws.join("_me/profile.md"),
        "# Profile\n- Name: Ada Lovelace\nmine, edited\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.join("product/projects/atlas")).unwrap();
    std::fs::write(ws.join("product/projects/atlas/prd.md"), "# Atlas PRD\n").unwrap();
    std::fs::write(ws.join("product/content-index.md"), "# my index\n").unwrap();
    std::fs::write(
        ws.join("sessions/20261101-0900-abcd1234.md"),
        "---\nsession_id: abcd1234\n---\n",
    )
    .unwrap();
    let wsx = pms::platform::workspace::Workspace::new(&ws);
    let new = pms::memory::lessons::store::NewRule {
        text: "Write the PRD's non-goals first",
        ..Default::default()
    };
    pms::memory::lessons::store::promote(
        &wsx,
        &new,
        &pms::memory::lessons::store::Target::Domain("product".into()),
        pms::memory::lessons::store::OnDuplicate::Stop,
    )
    .unwrap();

    // pretend an older version wrote two system files, one since edited by the user
    let mut manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join(".pms/manifest.json")).unwrap())
            .unwrap();
    let old = "# SOP: writing a PRD (old version)\n";
    std::fs::write(ws.join("product/workflows/prd.md"), old).unwrap();
    manifest["files"]["product/workflows/prd.md"]["hash"] =
        json!(pms::platform::workspace::manifest::content_hash(old));
    let old2 = "# SOP: prioritising (old version)\n";
    std::fs::write(
        ws.join("product/workflows/prioritisation.md"),
        format!("{old2}my own step\n"),
    )
    .unwrap();
    manifest["files"]["product/workflows/prioritisation.md"]["hash"] =
        json!(pms::platform::workspace::manifest::content_hash(old2));
    // and the product rules: old template, with the user's promoted lesson inside
    let rules_path = ws.join("product/CLAUDE.md");
    let rules = std::fs::read_to_string(&rules_path).unwrap();
    let older_rules = rules.replacen("# Product domain rules", "# Product rules (old wording)", 1);
    std::fs::write(&rules_path, &older_rules).unwrap();
    manifest["files"]["product/CLAUDE.md"]["hash"] = json!(
        pms::platform::workspace::manifest::content_hash(&older_rules)
    );
    std::fs::write(ws.join(".pms/manifest.json"), manifest.to_string()).unwrap();
    // a config from before a key existed, with the user's own value and comment
    std::fs::write(
        ws.join("config.toml"),
        "# my settings\n[hooks]\nbudget_chars = 7000 # smaller\n",
    )
    .unwrap();
    // an index at schema 1
    let conn = rusqlite::Connection::open(ws.join(".pms/index.db")).unwrap();
    conn.execute_batch("ALTER TABLE files DROP COLUMN indexed_at; PRAGMA user_version = 1;")
        .unwrap();
    drop(conn);

    let before = user_data(&ws);
    let out = home.ok(&["upgrade", "--workspace-only"]);
    let text = stdout(&out);
    assert_eq!(user_data(&ws), before, "user data changed:\n{text}");

    let template = |rel: &str| {
        pms::platform::workspace::templates::DOMAINS
            .get_file(rel)
            .unwrap()
            .contents_utf8()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        std::fs::read_to_string(ws.join("product/workflows/prd.md")).unwrap(),
        template("product/workflows/prd.md")
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("product/workflows/prioritisation.md")).unwrap(),
        format!("{old2}my own step\n"),
        "the user's edit is kept"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("product/workflows/prioritisation.md.pms-new")).unwrap(),
        template("product/workflows/prioritisation.md")
    );
    let new_rules = std::fs::read_to_string(&rules_path).unwrap();
    assert!(
        new_rules.starts_with("# Product domain rules"),
        "unedited system file replaced"
    );
    assert!(
        new_rules.contains("Write the PRD's non-goals first"),
        "promoted lesson carried over"
    );
    let config = std::fs::read_to_string(ws.join("config.toml")).unwrap();
    assert!(
        config.starts_with("# my settings\n[hooks]\nbudget_chars = 7000 # smaller\n"),
        "{config}"
    );
    assert!(
        config.contains("default_limit = 10"),
        "new keys added: {config}"
    );
    assert!(text.contains("index migrated from schema 1 to 5"), "{text}");
    assert!(ws.join(".pms/index.db.schema1-backup").exists());
    // and it is idempotent
    let again = stdout(&home.ok(&["upgrade", "--workspace-only"]));
    assert!(again.contains("nothing to change"), "{again}");
    assert!(again.contains("still to merge by hand (from an earlier upgrade, .pms-new beside each): product/workflows/prioritisation.md"), "{again}");
}

#[test]
fn upgrade_checks_and_installs_from_a_release_feed() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    // the "new release": a tar.gz holding a stand-in binary
    let stage = home.path("release");
    std::fs::create_dir_all(&stage).unwrap();
    let script = "#!/bin/sh\necho \"pms-9.9.9 $*\"\n";
    crate::support::write_script(&stage.join("pms"), script);
    let target = self_update::get_target();
    let asset = format!("pms-9.9.9-{target}.tar.gz");
    let st = std::process::Command::new("tar")
        .args(["czf", &asset, "pms"])
        .current_dir(&stage)
        .status()
        .unwrap();
    assert!(st.success());
    let tarball = std::fs::read(stage.join(&asset)).unwrap();
    let server = crate::support::static_server::StaticServer::start();
    let port = server.port;
    let release = json!({
        "tag_name": "v9.9.9", "name": "v9.9.9", "created_at": "2026-11-22T00:00:00Z", "body": "",
        "html_url": "http://example.invalid", "assets": [{"name": asset, "url": format!("http://127.0.0.1:{port}/asset/1"),
        "browser_download_url": format!("http://127.0.0.1:{port}/asset/1")}]
    });
    server.route(
        "/repos/citrolabs/pms/releases/latest",
        "application/json",
        release.to_string().into_bytes(),
    );
    server.route(
        "/repos/citrolabs/pms/releases",
        "application/json",
        json!([release]).to_string().into_bytes(),
    );
    server.route("/asset/1", "application/octet-stream", tarball);
    // a copy of pms to be replaced (never the binary the tests run)
    let bin_dir = home.path("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let copy = bin_dir.join("pms");
    std::fs::copy(crate::support::PMS, &copy).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(&copy)
            .args(args)
            .env_clear()
            .env("HOME", home.home())
            .env("PATH", home.path_var())
            .env("PMS_UPDATE_URL", format!("http://127.0.0.1:{port}"))
            .output()
            .unwrap()
    };
    let out = run(&["upgrade", "--check"]);
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "pms {} installed; newest release 9.9.9",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
    assert!(text.contains("An upgrade is available"), "{text}");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(crate::support::PMS).unwrap(),
        "--check changes nothing"
    );

    let out = run(&["upgrade", "--yes"]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        crate::support::stderr(&out)
    );
    assert!(text.contains("Installed pms 9.9.9"), "{text}");
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        script,
        "the binary was replaced"
    );
    assert!(
        text.contains("pms-9.9.9 upgrade --workspace-only"),
        "the new binary refreshed the workspace: {text}"
    );
    assert!(server.hits.lock().unwrap().iter().any(|h| h == "/asset/1"));
}

/// A user file pms cannot read as text (one Latin-1 byte) is not "missing":
/// verify --fix, upgrade and a second init leave its bytes alone and say
/// why, instead of writing a template over it; upgrade refreshes the other
/// files all the same.
#[test]
fn a_file_that_is_not_utf8_is_never_written_over() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = home.workspace();
    let root = ws.join("CLAUDE.md");
    let domain = ws.join("product/CLAUDE.md");
    let mut latin1 = std::fs::read(&root).unwrap();
    latin1.extend_from_slice(b"\nCaf\xe9 notes the user wrote\n");
    std::fs::write(&root, &latin1).unwrap();
    let mut edited = std::fs::read(&domain).unwrap();
    edited.extend_from_slice(b"\nM\xfcnchen office rules\n");
    std::fs::write(&domain, &edited).unwrap();

    let (_, report) = verify_json(&home, &["--quick"]);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "workspace.claude_md")
        .unwrap()
        .clone();
    assert!(
        check["message"].as_str().unwrap_or("").contains("UTF-8"),
        "{check}"
    );
    home.run(&["verify", "--fix", "--quick"]);
    // upgrade skips the unreadable files, says so, and refreshes the rest
    let gitignore = ws.join(".pms/.gitignore");
    std::fs::remove_file(&gitignore).unwrap();
    let said = stdout(&home.ok(&["upgrade", "--workspace-only"]));
    assert!(said.contains("product/CLAUDE.md (not UTF-8"), "{said}");
    assert!(
        said.contains(": CLAUDE.md (not UTF-8") || said.contains(", CLAUDE.md (not UTF-8"),
        "{said}"
    );
    assert!(gitignore.exists(), "the other files are still refreshed");
    assert!(ws.join("product/CLAUDE.md.pms-new").exists());
    home.run(&["init", "--yes", "--no-index", "--dir", ws.to_str().unwrap()]);
    assert_eq!(std::fs::read(&root).unwrap(), latin1);
    // config.toml that is not UTF-8 is reported, never replaced by the
    // defaults
    let config = ws.join("config.toml");
    let mut latin1_config = std::fs::read(&config).unwrap();
    latin1_config.extend_from_slice(b"\n# Z\xfcrich office\n");
    std::fs::write(&config, &latin1_config).unwrap();
    let (_, report) = verify_json(&home, &["--quick"]);
    assert!(
        report.to_string().contains("config.toml cannot be read"),
        "{report}"
    );
    home.run(&["verify", "--fix", "--quick"]);
    home.run(&["upgrade", "--workspace-only"]);
    assert_eq!(std::fs::read(&config).unwrap(), latin1_config);
    assert_eq!(std::fs::read(&domain).unwrap(), edited);
}

/// Issue 27: what killed runs leave (a temp file of a dead writer, a killed
/// rebuild's `index.db.rebuild` with its WAL) is removed by `verify`,
/// `doctor` and `status` as by every command that writes; what cannot be
/// removed is named, with its size, by all three. (A folder with a temp
/// file's name stands for a file the user cannot remove: `remove_file`
/// refuses a folder for every user, root included.)
#[test]
fn debris_of_killed_runs_is_removed_or_named() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let state = home.workspace().join(".pms");
    let leave_debris = || {
        // the writer's pid is past Linux's largest (2^22): it is gone
        std::fs::write(state.join(".pms-tmp-999999999-a"), "half").unwrap();
        for suffix in ["", "-wal", "-shm"] {
            std::fs::write(
                state.join(format!("index.db.rebuild{suffix}")),
                vec![0u8; 100_000],
            )
            .unwrap();
        }
    };
    let left = |state: &Path| -> Vec<String> {
        std::fs::read_dir(state)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".pms-tmp-") || n.starts_with("index.db.rebuild"))
            .collect()
    };
    for command in [
        &["verify", "--quick"][..],
        &["doctor", "--json"],
        &["status"],
    ] {
        leave_debris();
        home.run(command);
        assert!(
            left(&state).is_empty(),
            "{command:?} left {:?}",
            left(&state)
        );
    }
    let stuck = state.join(".pms-tmp-999999999-stuck");
    std::fs::create_dir(&stuck).unwrap();
    let (_, report) = verify_json(&home, &["--quick"]);
    let debris = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "debris")
        .unwrap_or_else(|| panic!("no debris check: {report:#}"))
        .clone();
    assert_eq!(debris["status"], "warn", "{debris}");
    let message = debris["message"].as_str().unwrap();
    assert!(
        message.contains("1 file,") && message.contains(".pms-tmp-999999999-stuck"),
        "{message}"
    );
    let doctor: Value = serde_json::from_slice(&home.run(&["doctor", "--json"]).stdout).unwrap();
    assert!(
        doctor.to_string().contains(".pms-tmp-999999999-stuck"),
        "{doctor:#}"
    );
    let status = stdout(&home.run(&["status"]));
    assert!(
        status.contains("Debris") && status.contains(".pms-tmp-999999999-stuck"),
        "{status}"
    );
}

/// A workspace made when the multilingual static model was the default names
/// it in config.toml (init writes every key). Upgrading moves it to the new
/// default, all-MiniLM-L6-v2, changing only that value, when the old model
/// was never installed, and only once: set back afterwards, it is the
/// user's choice. With the old model installed, the user's model stays.
#[test]
fn upgrade_moves_an_unused_old_default_model_to_the_new_one() {
    let new_line = "model = \"sentence-transformers/all-MiniLM-L6-v2\"";
    let old_line = "model = \"minishlab/potion-multilingual-128M\"";
    // a workspace as the version before the change left it
    let older_workspace = || {
        let home = TestHome::new();
        home.init(&[]);
        let config = home.workspace().join("config.toml");
        let now = std::fs::read_to_string(&config).unwrap();
        assert!(now.contains(new_line), "{now}");
        let older = now.replace(new_line, old_line);
        std::fs::write(&config, &older).unwrap();
        let manifest_path = home.workspace().join(".pms/manifest.json");
        let mut manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
        assert!(manifest["embedding_default"].is_string(), "{manifest}");
        manifest
            .as_object_mut()
            .unwrap()
            .remove("embedding_default");
        std::fs::write(&manifest_path, manifest.to_string()).unwrap();
        (home, config, older)
    };

    let (home, config, older) = older_workspace();
    let said = stdout(&home.ok(&["upgrade", "--workspace-only"]));
    assert!(
        said.contains("embeddings.model is now sentence-transformers/all-MiniLM-L6-v2"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        older.replace(old_line, new_line),
        "only the value changes"
    );
    // the user sets the multilingual model back: it stays, upgrade after upgrade
    std::fs::write(&config, &older).unwrap();
    let said = stdout(&home.ok(&["upgrade", "--workspace-only"]));
    assert!(!said.contains("embeddings.model"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), older);

    // the old model installed: the user's model stays
    let (home, config, older) = older_workspace();
    let dir = home.path(".cache/pms/models/minishlab--potion-multilingual-128M");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        std::fs::write(dir.join(f), "{}").unwrap();
    }
    let said = stdout(&home.ok(&["upgrade", "--workspace-only"]));
    assert!(!said.contains("embeddings.model is now"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), older);
}

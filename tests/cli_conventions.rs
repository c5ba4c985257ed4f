//! The conventions of a good command-line tool, run as a user runs them:
//! completions and a man page, `--json` everywhere a report is printed,
//! honest states, one `verify --fix` run, uninstall that asks and keeps
//! the workspace findable, no panic on a closed pipe.

use serde_json::Value;

use crate::support::{TestHome, stdout};

#[test]
fn completions_and_the_man_page_come_from_the_parser() {
    let home = TestHome::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = home.ok(&["completions", shell]);
        let text = stdout(&out);
        assert!(
            text.contains("lessons") && text.contains("workspace"),
            "{shell}: {text}"
        );
    }
    let man = stdout(&home.ok(&["man"]));
    assert!(man.starts_with(".ie") || man.contains(".TH"), "{man}");
    assert!(man.contains("pms") && man.contains("uninstall"), "{man}");
}

#[test]
fn doctor_speaks_json_and_status_says_when_settings_are_unreadable() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let out = home.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("doctor --json is JSON");
    assert_eq!(v["schema"], 1, "{v:#}");
    assert!(v["environment"]["pms"].is_string());
    assert!(
        v["locks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["name"] == "index.lock")
    );
    std::fs::write(home.settings(), "{\"hooks\": {,}").unwrap();
    let out = home.run(&["status"]);
    assert!(!out.status.success(), "a broken settings file is a failure");
    let text = stdout(&out);
    assert!(
        text.contains("settings unreadable") && text.contains("settings.json"),
        "{text}"
    );
    assert!(!text.contains("0/5"), "{text}");
    let out = home.run(&["status", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["settings_error"]
            .as_str()
            .unwrap()
            .contains("settings.json"),
        "{v:#}"
    );
}

#[test]
fn one_verify_fix_run_repairs_what_its_own_repairs_cause() {
    let home = TestHome::new();
    home.init(&[]);
    let ws = home.workspace();
    // restoring this file makes the index stale: the same run must re-index
    std::fs::remove_file(ws.join("product/workflows/prd.md")).unwrap();
    let out = home.run(&["verify", "--quick", "--fix", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bad: Vec<&Value> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] != "ok" && !c["fix"].is_null())
        .collect();
    assert!(bad.is_empty(), "repairable, left after one run: {bad:#?}");
    assert!(
        v["fixed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().contains("index")),
        "{v:#}"
    );
}

#[test]
fn status_names_the_summary_that_ended_last() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let dir = home.workspace().join("sessions");
    // same start minute; the one whose id sorts first ended last
    std::fs::write(
        dir.join("20261101-0900-aaaaaaaa.md"),
        "---\nsession_id: aaaaaaaa\nend: 2026-11-01T11:00:00Z\n---\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("20261101-0900-bbbbbbbb.md"),
        "---\nsession_id: bbbbbbbb\nend: 2026-11-01T09:30:00Z\n---\n",
    )
    .unwrap();
    let out = home.ok(&["status", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sessions"]["last"], "20261101-0900-aaaaaaaa.md");
}

#[test]
fn reports_name_what_they_did_and_never_print_placeholders() {
    let home = TestHome::new();
    let out = home.ok(&["init", "--yes", "--dry-run", "--domains", "product"]);
    let text = stdout(&out);
    assert!(
        text.contains("add SessionStart, UserPromptSubmit"),
        "{text}"
    );
    home.init(&["--no-index"]);
    let out = home.ok(&["index", "--full"]);
    let text = stdout(&out);
    assert!(!text.contains("? to ?"), "{text}");
    assert!(text.contains("no conversations found yet"), "{text}");
    assert!(!text.lines().any(|l| l.trim() == "."), "{text}");
}

/// Issue 24, item 11, as a user reads it: the help and man page name every
/// agent pms serves; counts say "1 file", "2 files", never "file(s)";
/// `lessons edit` says the rule changed *in* its file; an engineer's
/// default domains are engineering's; INSTALL.md says what uninstall says
/// about the backups kept.
#[test]
fn wording_names_every_agent_counts_properly_and_agrees_with_itself() {
    let home = TestHome::new();
    for args in [&["--help"][..], &["man"][..]] {
        let text = stdout(&home.ok(args));
        assert!(
            text.contains("Claude Code, Codex and OpenClaw"),
            "{args:?}: {text}"
        );
    }

    let ws = home.workspace();
    let mut said = stdout(&home.ok(&["init", "--yes", "--dir", ws.to_str().unwrap()]));
    // the default role is Engineer: engineering only, not research and writing
    assert!(ws.join("engineering/CLAUDE.md").is_file());
    assert!(!ws.join("research").exists() && !ws.join("writing").exists());
    let added = stdout(&home.ok(&["lessons", "add", "Always use pnpm, never npm."]));
    let id = added
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("{added}"))
        .to_string();
    let changed = stdout(&home.ok(&["lessons", "edit", &id, "--when", "npm install"]));
    assert!(
        changed.starts_with(&format!("Changed {id} in _me/lessons.md")),
        "{changed}"
    );
    for args in [
        &["index"][..],
        &["verify", "--quick"][..],
        &["doctor"][..],
        &["status"][..],
        &["lessons"][..],
        &["search", "pnpm"][..],
        &["embeddings"][..],
        &["uninstall", "--yes"][..],
    ] {
        said.push_str(&stdout(&home.run(args)));
    }
    assert!(!said.contains("(s)"), "{said}");
    assert!(said.contains("1 problem;"), "{said}");

    let install = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/INSTALL.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        install.contains(
            "the oldest, the file as it was before pms first changed it, and the newest 3"
        ),
        "INSTALL.md and uninstall disagree on the backups kept"
    );
}

#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    use std::io::Read;
    let home = TestHome::new();
    home.init(&[]);
    let mut child = home
        .pms(&["man"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 8];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // the reader is gone (as `| head -1` goes); the writer must not panic
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}

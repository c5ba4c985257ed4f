//! The guided setup, driven the way a person uses it: by typing answers into
//! a pseudo-terminal and reading the prompts back.

use std::time::Duration;

use crate::support::TestHome;
use rexpect::session::spawn_command;

const DOWN: &str = "\x1b[B";

/// Types `keys`. rexpect's `send` buffers, so flush, then give the prompt a
/// moment to redraw before the next key.
fn key(p: &mut rexpect::session::PtySession, keys: &str) {
    p.send(keys).unwrap();
    p.flush().unwrap();
    std::thread::sleep(Duration::from_millis(60));
}

fn wizard(home: &TestHome) -> rexpect::session::PtySession {
    // Not home.pms(): that one pins stdin to /dev/null, and the wizard must
    // read the pty.
    let mut cmd = std::process::Command::new(crate::support::PMS);
    cmd.arg("init")
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .env("TERM", "xterm-256color")
        .current_dir(home.home());
    spawn_command(cmd, Some(Duration::from_secs(20).as_millis() as u64))
        .expect("pms init starts in a pty")
}

#[test]
fn typing_answers_into_the_wizard_builds_the_workspace() {
    let home = TestHome::new();
    let ws = home.workspace();
    // an existing Claude Code history for the bootstrap to find
    let project = home.path(".claude/projects/-home-grace-cobol");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("s1.jsonl"),
        "{\"type\":\"user\",\"timestamp\":\"2026-11-20T09:00:00Z\",\"message\":{\"content\":\"Compile the payroll program\"}}\n",
    )
    .unwrap();
    let mut p = wizard(&home);
    p.exp_string("Your name").unwrap();
    p.send_line("Grace Hopper").unwrap();
    p.exp_string("Your role").unwrap();
    p.send_line("Rear admiral").unwrap();
    p.exp_string("What do you mostly do?").unwrap();
    // The list opens on the first domain (competitors): tick it, go down to
    // engineering and untick it (it is ticked by default), then confirm.
    key(&mut p, " ");
    key(&mut p, DOWN);
    key(&mut p, " ");
    key(&mut p, "\r");
    p.exp_string("Language(s) for answers").unwrap();
    p.send_line("English, 中文").unwrap();
    p.exp_string("The tone of your writing").unwrap();
    key(&mut p, DOWN);
    key(&mut p, "\r");
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    p.exp_string("This is what pms will do").unwrap();
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "y");
    p.exp_string("pms is set up").unwrap();
    p.exp_string("Found 1 Claude Code conversation file(s)")
        .unwrap();
    p.exp_string("Index them now").unwrap();
    key(&mut p, "y");
    p.exp_string("Claude Code history: 1 session(s) in 1 project(s)")
        .unwrap();
    p.exp_eof().unwrap();

    let profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    assert!(profile.contains("- Name: Grace Hopper"), "{profile}");
    assert!(profile.contains("- Role: Rear admiral"), "{profile}");
    assert!(profile.contains("- Answers in: English, 中文"), "{profile}");
    let style = std::fs::read_to_string(ws.join("_me/writing-style.md")).unwrap();
    assert!(style.contains("Warm and conversational"), "{style}");
    assert!(
        ws.join("competitors/CLAUDE.md").is_file(),
        "ticked domain created"
    );
    assert!(
        !ws.join("engineering").exists(),
        "unticked domain not created"
    );
    assert!(ws.join("research/CLAUDE.md").is_file() && ws.join("writing/CLAUDE.md").is_file());
    let settings = home.read_json(".claude/settings.json");
    assert_eq!(
        settings["hooks"]["SessionStart"][0]["hooks"][0]["args"][1],
        "session-start"
    );
}

#[test]
fn declining_the_summary_changes_nothing() {
    let home = TestHome::new();
    let ws = home.workspace();
    let mut p = wizard(&home);
    for (prompt, answer) in [
        ("Your name", ""),
        ("Your role", ""),
        ("What do you mostly do?", ""),
        ("Language(s) for answers", ""),
        ("The tone of your writing", ""),
    ] {
        p.exp_string(prompt).unwrap();
        key(&mut p, answer);
        key(&mut p, "\r");
    }
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "n");
    p.exp_string("nothing was changed").unwrap();
    p.exp_eof().unwrap();
    assert!(!ws.exists());
    assert!(!home.settings().exists());
}

/// `pms lessons review`, typed into: accept one learning as is, reword
/// another and file it under its domain, reject the third.
#[test]
fn reviewing_pending_learnings_by_typing() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::workspace::Workspace::new(home.workspace());
    let learnings = [
        (
            "correction",
            "You're right — the staging database listens on port 5433.",
            None,
        ),
        (
            "method",
            "A simpler approach is to batch invoice writes.",
            Some("product"),
        ),
        (
            "insight",
            "It turns out nobody reads the weekly digest email.",
            None,
        ),
    ];
    let candidates = learnings
        .iter()
        .map(|(k, t, d)| pms::lessons::pending::Candidate {
            kind: k.to_string(),
            text: t.to_string(),
            domain: d.map(str::to_string),
            session_id: None,
            transcript_ref: Some("cc://-home-u-app/s1.jsonl".into()),
            ..Default::default()
        })
        .collect();
    pms::lessons::pending::stage(&ws, candidates, &[]).unwrap();

    let mut cmd = std::process::Command::new(crate::support::PMS);
    cmd.args([
        "lessons",
        "review",
        "--workspace",
        home.workspace().to_str().unwrap(),
    ])
    .env_clear()
    .env("HOME", home.home())
    .env("PATH", home.path_var())
    .env("TERM", "xterm-256color")
    .env("PMS_NO_BACKGROUND", "1");
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();
    p.exp_string("[1/3]").unwrap();
    p.exp_string("What should happen to it?").unwrap();
    key(&mut p, "\r"); // accept as a rule
    p.exp_string("When does it apply?").unwrap();
    key(&mut p, "\r"); // the suggested cues (none)
    p.exp_string("Where does it belong?").unwrap();
    key(&mut p, "\r"); // _me/lessons.md
    p.exp_string("to _me/lessons.md").unwrap();

    p.exp_string("[2/3]").unwrap();
    p.exp_string("What should happen to it?").unwrap();
    key(&mut p, DOWN);
    key(&mut p, "\r"); // edit the wording
    p.exp_string("The rule").unwrap();
    key(&mut p, &"\x7f".repeat(80));
    key(
        &mut p,
        "Batch invoice writes in one transaction, because row-by-row writes timed out.\r",
    );
    p.exp_string("When does it apply?").unwrap();
    key(&mut p, "\r"); // the suggested cues (none)
    p.exp_string("Where does it belong?").unwrap();
    key(&mut p, "\r"); // the suggested domain: product
    p.exp_string("to product/CLAUDE.md").unwrap();

    p.exp_string("[3/3]").unwrap();
    p.exp_string("What should happen to it?").unwrap();
    key(&mut p, DOWN);
    key(&mut p, DOWN);
    key(&mut p, "\r"); // reject
    p.exp_string("Rejected.").unwrap();
    p.exp_eof().unwrap();

    let me = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        me.contains("] The staging database listens on port 5433."),
        "{me}"
    );
    let product = std::fs::read_to_string(home.workspace().join("product/CLAUDE.md")).unwrap();
    assert!(
        product.contains(
            "] Batch invoice writes in one transaction, because row-by-row writes timed out."
        ),
        "{product}"
    );
    assert!(pms::lessons::pending::load(&ws).unwrap().items.is_empty());
}

/// `pms doctor` in a pty, as a person runs it.
fn doctor(home: &TestHome) -> rexpect::session::PtySession {
    let mut cmd = std::process::Command::new(crate::support::PMS);
    cmd.args(["doctor", "--workspace", home.workspace().to_str().unwrap()])
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("TERM", "xterm-256color")
        .env("PMS_NO_BACKGROUND", "1");
    spawn_command(cmd, Some(30_000)).unwrap()
}

#[test]
fn doctor_offers_the_repairs_and_makes_them_on_yes() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = home.workspace();
    std::fs::remove_file(ws.join("_me/preferences.md")).unwrap();
    std::fs::write(ws.join("_me/profile.md"), "my own profile").unwrap();

    let mut p = doctor(&home);
    p.exp_string("Environment").unwrap();
    p.exp_string("missing in _me/: preferences.md").unwrap();
    p.exp_string("can be repaired automatically").unwrap();
    p.exp_string("Repair").unwrap();
    key(&mut p, "y");
    p.exp_string("fixed: restored").unwrap();
    p.exp_eof().unwrap();
    assert!(
        ws.join("_me/preferences.md").is_file(),
        "the missing file is back"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("_me/profile.md")).unwrap(),
        "my own profile",
        "an existing user file is never overwritten"
    );
}

#[test]
fn declining_the_doctor_repairs_changes_nothing() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = home.workspace();
    std::fs::remove_file(ws.join("_me/preferences.md")).unwrap();
    let mut p = doctor(&home);
    p.exp_string("Repair").unwrap();
    key(&mut p, "n");
    p.exp_string("Nothing changed").unwrap();
    p.exp_eof().unwrap();
    assert!(!ws.join("_me/preferences.md").exists());
}

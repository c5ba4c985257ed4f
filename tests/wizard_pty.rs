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
    p.exp_string("Language for answers").unwrap();
    p.send_line("English").unwrap();
    p.exp_string("Other languages that are fine too").unwrap();
    p.send_line("中文").unwrap();
    p.exp_string("The tone of your writing").unwrap();
    key(&mut p, DOWN);
    key(&mut p, "\r");
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Wire the memory into which agents?").unwrap();
    p.exp_string("Claude Code (not found on PATH)").unwrap();
    key(&mut p, "\r");
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    p.exp_string("Download the embedding model now?").unwrap();
    key(&mut p, "\r"); // no, the default
    p.exp_string("This is what pms will do").unwrap();
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "y");
    p.exp_string("pms is set up").unwrap();
    p.exp_string("Found 1 past conversation file (").unwrap();
    p.exp_string("Index them now").unwrap();
    key(&mut p, "y");
    p.exp_string("Claude Code history: 1 session in 1 project")
        .unwrap();
    p.exp_eof().unwrap();

    let profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    assert!(profile.contains("- Name: Grace Hopper"), "{profile}");
    assert!(profile.contains("- Role: Rear admiral"), "{profile}");
    assert!(
        profile.contains("- Answers in: English (also fine: 中文)"),
        "{profile}"
    );
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
    assert!(
        !home.path(".cache/pms/models").exists(),
        "no embedding model without a yes"
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
        ("Language for answers", ""),
        ("Other languages that are fine too", ""),
        ("The tone of your writing", ""),
    ] {
        p.exp_string(prompt).unwrap();
        key(&mut p, answer);
        key(&mut p, "\r");
    }
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Wire the memory into which agents?").unwrap();
    p.exp_string("Claude Code (not found on PATH)").unwrap();
    key(&mut p, "\r");
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    p.exp_string("Download the embedding model now?").unwrap();
    key(&mut p, "\r");
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "n");
    p.exp_string("nothing was changed").unwrap();
    p.exp_eof().unwrap();
    assert!(!ws.exists());
    assert!(!home.settings().exists());
}

/// The wizard finds the memory other tools keep (claude-mem's database, a
/// ChatGPT export in Downloads), offers it in one question, yes by
/// default, imports it, and asks before anything goes into `_me/`.
#[test]
fn the_wizard_offers_the_memory_other_tools_keep() {
    let home = TestHome::new();
    let ws = home.workspace();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import");
    std::fs::create_dir_all(home.path(".claude-mem")).unwrap();
    std::fs::copy(
        format!("{fixtures}/claude-mem/claude-mem.current-v49.db"),
        home.path(".claude-mem/claude-mem.db"),
    )
    .unwrap();
    std::fs::create_dir_all(home.path("Downloads")).unwrap();
    {
        use std::io::Write;
        let mut z = zip::ZipWriter::new(
            std::fs::File::create(home.path("Downloads/chatgpt-export.zip")).unwrap(),
        );
        z.start_file(
            "conversations.json",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        z.write_all(&std::fs::read(format!("{fixtures}/chatgpt/conversations.json")).unwrap())
            .unwrap();
        z.finish().unwrap();
    }
    let mut p = wizard(&home);
    for prompt in [
        "Your name",
        "Your role",
        "What do you mostly do?",
        "Language for answers",
        "Other languages that are fine too",
        "The tone of your writing",
    ] {
        p.exp_string(prompt).unwrap();
        key(&mut p, "\r");
    }
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Wire the memory into which agents?").unwrap();
    key(&mut p, "\r");
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    p.exp_string("Download the embedding model now?").unwrap();
    key(&mut p, "\r");
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "y");
    p.exp_string("Found memory from other tools").unwrap();
    p.exp_string("claude-mem").unwrap();
    p.exp_string("Import it into pms?").unwrap();
    key(&mut p, "\r"); // yes, the default
    // ChatGPT's custom instructions, each asked about
    p.exp_string("could go into _me/profile.md").unwrap();
    p.exp_string("Preferred name: Sam").unwrap();
    p.exp_string("Add it to _me/profile.md?").unwrap();
    key(&mut p, "y");
    p.exp_string("Add it to _me/preferences.md?").unwrap();
    key(&mut p, "n");
    p.exp_string("Imported from the ChatGPT export").unwrap();
    p.exp_string("Imported from the claude-mem").unwrap();
    p.exp_string("Build the search index").unwrap();
    key(&mut p, "n");
    p.exp_eof().unwrap();

    let profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    assert!(profile.contains("Preferred name: Sam"), "{profile}");
    let prefs = std::fs::read_to_string(ws.join("_me/preferences.md")).unwrap();
    assert!(!prefs.contains("Be terse"), "declined: {prefs}");
    assert!(
        ws.join(".pms/imports/chatgpt/6781f0a2-9c3c-8005-a1b2-0c0ffee00001.jsonl")
            .is_file()
    );
    let notes: Vec<_> = std::fs::read_dir(ws.join("imported/claude-mem/pms"))
        .unwrap()
        .collect();
    assert_eq!(notes.len(), 1);
}

/// The wizard's one question about search by meaning: the costs are told
/// before it, and a yes runs the checked download (from a hub on
/// 127.0.0.1, named in the workspace's config.toml) after the setup.
#[test]
fn the_wizard_offers_the_embedding_model_with_its_costs_and_installs_it_on_yes() {
    let home = TestHome::new();
    let ws = home.workspace();
    let model = crate::support::models::tiny_bert(&home.path("tiny-bert"));
    let server = crate::support::static_server::StaticServer::start();
    crate::support::static_server::serve_model(
        &server,
        "sentence-transformers/all-MiniLM-L6-v2",
        &model,
        crate::support::static_server::Served::Intact,
    );
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(
        ws.join("config.toml"),
        format!("[embeddings]\ndownload_url = \"{}\"\n", server.url()),
    )
    .unwrap();
    let mut p = wizard(&home);
    for prompt in [
        "Your name",
        "Your role",
        "What do you mostly do?",
        "Language for answers",
        "Other languages that are fine too",
        "The tone of your writing",
    ] {
        p.exp_string(prompt).unwrap();
        key(&mut p, "\r");
    }
    p.exp_string("Where should the workspace live?").unwrap();
    p.send_line(ws.to_str().unwrap()).unwrap();
    p.exp_string("Wire the memory into which agents?").unwrap();
    key(&mut p, "\r");
    p.exp_string("Load the memory in").unwrap();
    key(&mut p, "\r");
    let costs = p.exp_string("Download the embedding model now?").unwrap();
    for cost in [
        "sentence-transformers/all-MiniLM-L6-v2",
        "about 90 MB",
        "English only",
        "keyword search works meanwhile",
        "hooks never embed",
    ] {
        assert!(
            costs
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(cost),
            "{cost:?} not told: {costs}"
        );
    }
    assert!(
        server.hits.lock().unwrap().is_empty(),
        "nothing before the yes"
    );
    key(&mut p, "y");
    p.exp_string("then download the embedding model").unwrap();
    p.exp_string("Apply these changes?").unwrap();
    key(&mut p, "y");
    p.exp_string("Build the search index").unwrap();
    key(&mut p, "n");
    p.exp_string("every file's checksum verified").unwrap();
    p.exp_string("transformer (BERT)").unwrap();
    p.exp_eof().unwrap();
    assert!(
        home.path(
            ".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2/1_Pooling/config.json"
        )
        .is_file()
    );
}

/// `pms lessons review`, typed into: accept one learning as is, reword
/// another and file it under its domain, reject the third.
#[test]
fn reviewing_pending_learnings_by_typing() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
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
        .map(|(k, t, d)| pms::memory::lessons::pending::Candidate {
            kind: k.to_string(),
            text: t.to_string(),
            domain: d.map(str::to_string),
            session_id: None,
            transcript_ref: Some("cc://-home-u-app/s1.jsonl".into()),
            ..Default::default()
        })
        .collect();
    pms::memory::lessons::pending::stage(&ws, candidates, &[]).unwrap();
    // Issue 24, item 2: each staged learning carries suggested cues
    let listed: serde_json::Value =
        serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    for item in listed["pending"].as_array().unwrap() {
        assert!(
            !item["cues"].as_array().is_none_or(|c| c.is_empty()),
            "no cues suggested: {item}"
        );
    }

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
    // the question comes pre-filled with the suggested cues; Enter keeps them
    p.exp_string("When does it apply?").unwrap();
    p.exp_string("staging").unwrap();
    key(&mut p, "\r");
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
    key(&mut p, "\r"); // the suggested cues
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

    let rules: serde_json::Value =
        serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    let staging = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["text"].as_str().unwrap().contains("5433"))
        .unwrap();
    assert!(
        staging["when"].to_string().contains("staging")
            && staging["when"].to_string().contains("database"),
        "the suggested cues were not kept: {staging}"
    );
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
    assert!(
        pms::memory::lessons::pending::load(&ws)
            .unwrap()
            .items
            .is_empty()
    );
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

/// `pms init` in a pty of `cols` columns (and enough rows that nothing
/// scrolls away).
fn wizard_sized(home: &TestHome, cols: u16) -> rexpect::session::PtySession {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("stty cols {cols} rows 300; exec \"$0\" init"))
        .arg(crate::support::PMS)
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .env("TERM", "xterm-256color")
        .env("PMS_NO_BACKGROUND", "1")
        .current_dir(home.home());
    spawn_command(cmd, Some(Duration::from_secs(20).as_millis() as u64))
        .expect("pms init starts in a pty")
}

/// Issue 14: a second `pms init` starts from what is installed (the
/// answers, the scope), so pressing Enter at every question changes
/// nothing: not the CLAUDE.md block (it became "Me's profile"), not the
/// domains (an unchosen one was added). At 80 columns the screen it leaves
/// is clean: no wrapped option redrawn over itself, no description echoed
/// back, no stale prompt. With nothing to change it says so and asks
/// nothing more (issue 24, item 7).
#[test]
fn rerunning_the_wizard_with_enter_everywhere_changes_nothing_and_fits_80_columns() {
    let home = TestHome::new();
    let ws = home.workspace();
    home.ok(&[
        "init",
        "--yes",
        "--no-index",
        "--name",
        "Grace Hopper",
        "--role",
        "Rear admiral",
        "--domains",
        "competitors,writing",
        "--languages",
        "English,Deutsch",
        "--tone",
        "Warm and conversational",
        "--scope",
        "workspace",
        "--dir",
        ws.to_str().unwrap(),
    ]);
    // derived data (the index) may be refreshed; everything else must stay
    let derived = |p: &String| {
        [".pms/index.", ".pms/lessons.idx", ".pms/logs"]
            .iter()
            .any(|d| p.contains(d))
    };
    let mut before = crate::support::snapshot(home.home());
    before.retain(|p, _| !derived(p));

    let mut p = wizard_sized(&home, 80);
    let mut raw = String::new();
    for prompt in [
        "Your name",
        "Your role",
        "What do you mostly do?",
        "Language for answers",
        "Other languages that are fine too",
        "The tone of your writing",
        "Where should the workspace live?",
        "Wire the memory into which agents?",
        "Load the memory in",
        "Download the embedding model now?",
    ] {
        raw.push_str(&p.exp_string(prompt).unwrap());
        raw.push_str(prompt);
        key(&mut p, "\r");
    }
    // Issue 24, item 7: with nothing to change it says so and stops; no
    // "Apply these changes?" over a list of untouched files.
    raw.push_str(&p.exp_string("Nothing to change").unwrap());
    raw.push_str("Nothing to change");
    raw.push_str(&p.exp_eof().unwrap());
    assert!(!raw.contains("Apply these changes?"), "{raw}");

    let mut after = crate::support::snapshot(home.home());
    after.retain(|p, _| !derived(p));
    let changed: Vec<&String> = after
        .keys()
        .chain(before.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(
        changed.is_empty(),
        "changed by an all-Enter re-run: {changed:?}"
    );

    let n = |v: u16| std::num::NonZeroU16::new(v).unwrap();
    let mut screen = vt100::Parser::new(n(300), n(80), 0);
    // rexpect hands back each byte as one char: undo that for the emulator
    let bytes: Vec<u8> = raw.chars().map(|c| c as u32 as u8).collect();
    screen.process(&bytes);
    let text = screen.screen().contents();
    for answer in [
        "✔ Your name · Grace Hopper",
        "✔ Your role · Rear admiral",
        "✔ Domains · competitors, writing",
        "✔ Language for answers · English",
        "· Deutsch",
        "✔ The tone of your writing · Warm and conversational",
        "only sessions started inside the workspace",
    ] {
        assert!(text.contains(answer), "missing {answer:?}:\n{text}");
    }
    for stale in [
        "space to toggle",
        "Competitive analysis",
        "Software engineering",
    ] {
        assert!(!text.contains(stale), "{stale:?} left on screen:\n{text}");
    }
    assert!(
        !text.lines().any(|l| l.starts_with("? ")),
        "a prompt left unanswered on screen:\n{text}"
    );
}

/// Issue 14: a settings.json init cannot use stops the wizard before the
/// first question, not after seven.
#[test]
fn a_broken_settings_file_stops_the_wizard_before_the_first_question() {
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), "{\"model\": \"opus\",,}").unwrap();
    let mut p = wizard_sized(&home, 80);
    let said = p.exp_eof().unwrap();
    assert!(said.contains("settings.json"), "{said}");
    assert!(!said.contains("Your name"), "{said}");
    assert_eq!(
        std::fs::read_to_string(home.settings()).unwrap(),
        "{\"model\": \"opus\",,}"
    );
}

//! The daily commands on a terminal, as a person sees them: run in a
//! pseudo-terminal of a given width (colour, line wrapping, questions),
//! and the same commands piped, as scripts see them.

use std::time::Duration;

use rexpect::session::{PtySession, spawn_command};

use crate::support::TestHome;

/// `pms <args>` in a pty of `cols` columns (and enough rows that nothing
/// scrolls away), with `env` added to the test environment.
fn pty(home: &TestHome, cols: u16, args: &[&str], env: &[(&str, &str)]) -> PtySession {
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!("stty cols {cols} rows 300; exec \"$0\" \"$@\""))
        .arg(crate::support::PMS)
        .args(args)
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("LANG", "C.UTF-8")
        .env("TERM", "xterm-256color")
        .env("PMS_NO_BACKGROUND", "1")
        .envs(env.iter().copied())
        .current_dir(home.home());
    spawn_command(cmd, Some(Duration::from_secs(60).as_millis() as u64)).expect("pms starts")
}

/// Everything `pms <args>` writes to the terminal, as bytes.
fn on_terminal(home: &TestHome, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let mut p = pty(home, 100, args, env);
    raw_bytes(&p.exp_eof().unwrap())
}

/// rexpect hands back each byte as one char: undo that.
fn raw_bytes(s: &str) -> Vec<u8> {
    s.chars().map(|c| c as u32 as u8).collect()
}

fn has_escape(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b)
}

/// Whether `label` appears right after an SGR colour sequence (`ESC [ ... m`).
fn coloured(bytes: &[u8], label: &str) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.match_indices(label).any(|(i, _)| {
        let before = &text[..i];
        before.ends_with('m') && before.rfind('\x1b').is_some_and(|e| i - e < 16)
    })
}

/// Issue 14: `status` and `verify` colour their states on a terminal
/// (green ok, red failures) and are plain when NO_COLOR is set or their
/// output goes to a pipe or a file.
#[test]
fn status_and_verify_are_coloured_on_a_terminal_only() {
    let home = TestHome::new();
    home.init(&["--no-index"]);

    let status = on_terminal(&home, &["status"], &[]);
    assert!(
        coloured(&status, "8/8"),
        "hooks not coloured on a terminal:\n{}",
        String::from_utf8_lossy(&status)
    );
    let verify = on_terminal(&home, &["verify", "--quick"], &[]);
    assert!(
        coloured(&verify, "ok"),
        "verify's states not coloured on a terminal:\n{}",
        String::from_utf8_lossy(&verify)
    );

    // a failure is coloured too (and differently from ok)
    std::fs::write(home.settings(), "{}").unwrap();
    let failing = on_terminal(&home, &["verify", "--quick"], &[]);
    assert!(
        coloured(&failing, "FAIL"),
        "{}",
        String::from_utf8_lossy(&failing)
    );
    let status_failing = on_terminal(&home, &["status"], &[]);
    assert!(
        coloured(&status_failing, "0/8"),
        "{}",
        String::from_utf8_lossy(&status_failing)
    );

    for args in [&["status"][..], &["verify", "--quick"][..]] {
        let no_color = on_terminal(&home, args, &[("NO_COLOR", "1")]);
        assert!(
            !has_escape(&no_color) && !no_color.is_empty(),
            "{args:?} with NO_COLOR:\n{}",
            String::from_utf8_lossy(&no_color)
        );
        let piped = home.run(args);
        assert!(
            !has_escape(&piped.stdout) && !has_escape(&piped.stderr) && !piped.stdout.is_empty(),
            "{args:?} piped:\n{}",
            String::from_utf8_lossy(&piped.stdout)
        );
    }
}

/// The screen a terminal of `cols` columns shows after `bytes`.
fn screen(bytes: &[u8], cols: u16) -> vt100::Parser {
    let n = |v: u16| std::num::NonZeroU16::new(v).unwrap();
    let mut parser = vt100::Parser::new(n(300), n(cols), 0);
    parser.process(bytes);
    parser
}

/// The words of a report, with numbers (timings differ between runs) as `#`.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect::<String>()
        })
        .map(|w| {
            // runs of digits collapse to one mark
            let mut out = String::new();
            for c in w.chars() {
                if !(c == '#' && out.ends_with('#')) {
                    out.push(c);
                }
            }
            out
        })
        .collect()
}

/// Issue 14: `pms index --full` left a stray "." line. Its report lines
/// are longer than a terminal is wide (the semantic-search line has 121
/// characters), and the terminal wrapped them wherever the width fell: at
/// 120 columns the line's final "." stood alone. Now each line is broken
/// at spaces to the width: no row is wrapped by the terminal, no row holds
/// only punctuation, and the words are those of the piped report.
#[test]
fn the_index_report_fits_the_terminal_and_leaves_no_stray_line() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let piped = home.ok(&["index", "--full"]);
    let piped = crate::support::stdout(&piped);
    assert!(
        piped.lines().any(|l| l.chars().count() > 120),
        "the report has a line longer than the terminals below:\n{piped}"
    );
    assert!(
        piped.lines().count() >= 3 && !piped.lines().any(|l| l.trim() == "."),
        "{piped}"
    );
    for cols in [80u16, 120] {
        let mut p = pty(&home, cols, &["index", "--full"], &[]);
        let shown = screen(&raw_bytes(&p.exp_eof().unwrap()), cols);
        let shown = shown.screen();
        let text = shown.contents();
        let rows = text.lines().count() as u16;
        for row in 0..rows {
            assert!(
                !shown.row_wrapped(row),
                "{cols} columns: row {row} was wrapped by the terminal:\n{text}"
            );
        }
        assert!(
            !text
                .lines()
                .any(|l| !l.trim().is_empty() && l.trim().chars().all(|c| c.is_ascii_punctuation())),
            "{cols} columns: a row of punctuation only:\n{text}"
        );
        assert_eq!(words(&text), words(&piped), "{cols} columns:\n{text}");
    }
}

/// The files outside the workspace that init and uninstall change.
fn user_files(home: &TestHome) -> Vec<(String, Option<Vec<u8>>)> {
    [
        ".claude/settings.json",
        ".claude.json",
        ".codex/config.toml",
    ]
    .iter()
    .map(|rel| (rel.to_string(), std::fs::read(home.path(rel)).ok()))
    .collect()
}

/// Issue 14: `pms uninstall` asks on a terminal (and changes nothing on a
/// no); `--yes` does not ask; without a terminal and without `--yes` it
/// refuses, naming `--yes`. It says where the copies of the files it
/// changed are, and keeps the oldest and at most the newest three per file
/// over many runs. Afterwards `pms embeddings`, `pms status` and `pms uninstall
/// --purge` still find the workspace (the pointer is not removed first).
#[test]
fn uninstall_asks_keeps_few_backups_and_leaves_the_workspace_findable() {
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), "{\"theme\": \"dark\"}\n").unwrap();
    std::fs::write(home.path(".claude.json"), "{\"numStartups\": 3}\n").unwrap();
    let original = user_files(&home);
    home.init(&["--no-index"]);
    let installed = user_files(&home);
    assert_ne!(installed, original);

    // no terminal, no --yes: refused, nothing changed
    let out = home.run(&["uninstall"]);
    assert!(!out.status.success());
    let err = crate::support::stderr(&out);
    assert!(
        err.contains("pms uninstall --yes") && err.contains("nothing changed"),
        "{err}"
    );
    assert_eq!(user_files(&home), installed, "changed without a yes");
    let out = home.run(&["uninstall", "--purge"]);
    assert!(!out.status.success());
    assert!(
        crate::support::stderr(&out).contains("--purge --yes"),
        "{}",
        crate::support::stderr(&out)
    );
    assert_eq!(user_files(&home), installed);
    assert!(home.workspace().join("_me/profile.md").exists());

    // on a terminal it shows what it will change and asks about the agents
    // pms is wired into (Claude Code alone here), once on the screen at 100
    // columns (issue 24, item 5); "n" changes nothing
    let mut p = pty(&home, 100, &["uninstall"], &[]);
    let mut raw = p.exp_string("Remove pms from").unwrap();
    raw.push_str("Remove pms from");
    p.send("n").unwrap();
    p.flush().unwrap();
    raw.push_str(&p.exp_eof().unwrap());
    let shown = screen(&raw_bytes(&raw), 100).screen().contents();
    assert!(shown.contains("This is what pms will do:"), "{shown}");
    assert!(
        shown.contains("Claude Code: remove 8 pms hooks from ~/.claude/settings.json"),
        "{shown}"
    );
    assert!(
        shown.contains("Claude Code: remove the `pms` MCP server from ~/.claude.json"),
        "{shown}"
    );
    assert_eq!(
        shown
            .matches("Remove pms from Claude Code? Your workspace stays")
            .count(),
        1,
        "{shown}"
    );
    assert!(
        !shown.contains("Codex") && !shown.contains("OpenClaw"),
        "{shown}"
    );
    assert!(shown.contains("Nothing changed"), "{shown}");
    assert_eq!(user_files(&home), installed);

    // "y" removes, and says where the copies are
    let mut p = pty(&home, 100, &["uninstall"], &[]);
    p.exp_string("Remove pms from Claude Code?").unwrap();
    p.send("y").unwrap();
    p.flush().unwrap();
    let said = p.exp_eof().unwrap();
    assert!(said.contains("Removed 8 pms hooks"), "{said}");
    assert_eq!(
        user_files(&home),
        original,
        "uninstall gives the files back"
    );
    let saved: Vec<std::path::PathBuf> = said
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Saved the file as it was before: "))
        .map(|shown| home.home().join(shown.trim().trim_start_matches("~/")))
        .collect();
    assert_eq!(saved.len(), 2, "settings.json and ~/.claude.json: {said}");
    for b in &saved {
        assert!(b.is_file(), "{b:?} named but missing:\n{said}");
    }

    // --yes does not ask
    home.init(&["--no-index"]);
    let mut p = pty(&home, 100, &["uninstall", "--yes"], &[]);
    let said = p.exp_eof().unwrap();
    assert!(!said.contains("Remove pms from"), "{said}");
    assert!(said.contains("Removed 8 pms hooks"), "{said}");

    // many runs leave at most the first and the newest three copies of
    // each file, and the first is the file before pms ever changed it
    for _ in 0..4 {
        home.init(&["--no-index"]);
        home.ok(&["uninstall", "--yes"]);
    }
    for (dir, name, before) in [
        (".claude", "settings.json", &original[0].1),
        ("", ".claude.json", &original[1].1),
    ] {
        let mut copies: Vec<_> = std::fs::read_dir(home.path(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{name}.pms-backup-"))
            })
            .collect();
        copies.sort();
        assert!(
            (2..=4).contains(&copies.len()),
            "{name}: {} backups kept",
            copies.len()
        );
        assert_eq!(
            std::fs::read(&copies[0]).ok().as_ref(),
            before.as_ref(),
            "{name}: the oldest copy is the file before pms"
        );
    }
    // and uninstall says where that oldest copy is
    home.init(&["--no-index"]);
    let said = crate::support::stdout(&home.ok(&["uninstall", "--yes"]));
    let oldest: Vec<std::path::PathBuf> = said
        .lines()
        .filter_map(|l| l.trim().strip_prefix("its oldest copy: "))
        .map(|shown| home.home().join(shown.trim().trim_start_matches("~/")))
        .collect();
    assert_eq!(oldest.len(), 2, "{said}");
    for o in &oldest {
        let name = o.file_name().unwrap().to_string_lossy();
        let before = if name.starts_with("settings.json") {
            &original[0].1
        } else {
            &original[1].1
        };
        assert_eq!(std::fs::read(o).ok().as_ref(), before.as_ref(), "{o:?}");
    }
    assert_eq!(user_files(&home), original);

    // the workspace is still found by the commands that need it
    let ws = home.workspace();
    let out = home.ok(&["embeddings"]);
    assert!(
        crate::support::stdout(&out).contains("Provider"),
        "{}",
        crate::support::stdout(&out)
    );
    home.ok(&["status"]);
    let out = home.ok(&["uninstall", "--purge", "--yes"]);
    assert!(
        crate::support::stdout(&out).contains("Deleted ~/pms"),
        "{}",
        crate::support::stdout(&out)
    );
    assert!(!ws.exists());
    assert!(!home.path(".config/pms/workspace").exists());
    assert_eq!(user_files(&home), original);
}

/// Issue 24, item 5: in `pms lessons review` at 100 columns, the cue
/// question ("When does it apply?", pre-filled with the suggested cues)
/// and the wording question are on the screen once each after the user
/// edits them and answers, though each answer is wider than the terminal
/// (dialoguer clears one row of a wrapped answer and drew the question
/// twice).
#[test]
fn the_reviews_cue_question_is_drawn_once_at_100_columns() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let text = "Always run `cargo fmt --all`, `cargo clippy --all-targets` and `cargo test --locked` before pushing to the release branch.";
    pms::memory::lessons::pending::stage(
        &ws,
        vec![pms::memory::lessons::pending::Candidate {
            kind: "rule".into(),
            text: text.into(),
            origin: pms::memory::lessons::signals::Origin::User,
            session_id: Some("s1".into()),
            ..Default::default()
        }],
        &[],
    )
    .unwrap();
    let pending = home.read_json("pms/.pms/pending-learnings.json");
    let prefilled = pending["items"][0]["cues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("; ");
    let ws_arg = home.workspace().to_str().unwrap().to_string();
    let mut p = pty(
        &home,
        100,
        &["lessons", "review", "--workspace", &ws_arg],
        &[],
    );
    let mut raw = String::new();
    let mut until = |p: &mut PtySession, said: &str| {
        raw.push_str(&p.exp_string(said).unwrap());
        raw.push_str(said);
    };
    let key = |p: &mut PtySession, k: &str| {
        p.send(k).unwrap();
        p.flush().unwrap();
        std::thread::sleep(Duration::from_millis(60));
    };
    until(&mut p, "What should happen to it?");
    key(&mut p, "\x1b[B"); // "Edit the wording, then accept"
    key(&mut p, "\r");
    until(&mut p, "The rule (what to do, when, and why)");
    // the user types at the end of the wording, then answers
    let more = " Of the payments service.";
    for c in more.chars() {
        key(&mut p, &c.to_string());
    }
    key(&mut p, "\r");
    until(&mut p, "When does it apply?");
    let added = "; release branch; payments deploy; before git push";
    for c in added.chars() {
        key(&mut p, &c.to_string());
    }
    key(&mut p, "\r");
    // the questions after it take their defaults
    while let Ok(s) = p.exp_string("?") {
        raw.push_str(&s);
        raw.push('?');
        key(&mut p, "\r");
    }
    raw.push_str(&p.exp_eof().unwrap_or_default());
    let shown = screen(&raw_bytes(&raw), 100).screen().contents();
    let prompt = "? When does it apply? › ".chars().count();
    assert!(
        prompt + format!("{prefilled}{added}").chars().count() > 100
            && prompt + format!("{text}{more}").chars().count() > 100,
        "the answers must not fit one line"
    );
    for question in [
        "When does it apply?",
        "The rule (what to do, when, and why)",
    ] {
        assert_eq!(shown.matches(question).count(), 1, "{question}:\n{shown}");
    }
    assert!(shown.contains(&format!("· {prefilled}{added}")), "{shown}");
    // and no more than the question is cleared: the lines above it stay
    assert!(
        shown.contains("What should happen to it? · Edit the wording, then accept")
            && shown.contains("Cues: situations, commands"),
        "{shown}"
    );
    assert!(shown.contains("Added L-"), "{shown}");
    let rules: serde_json::Value =
        serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert!(
        rules["rules"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("release branch. Of the payments service."),
        "{rules:#}"
    );
    let when = rules["rules"][0]["when"].to_string();
    assert!(when.contains("payments deploy"), "{rules:#}");
}

//! The secret corpus (`tests/data/secrets.toml`: 71 kinds of secret, 22
//! look-alikes that must survive) through the redaction rules, then through
//! every path pms writes or injects text on: the index (database, WAL and
//! heading column), session summaries, session state, pending learnings,
//! rules, saved notes, every hook's output, `pms search`, `pms get`,
//! `pms lessons --json`, the MCP tools and the hook log. Then terminal
//! control sequences through the same paths. Issue 12's and 27's figures:
//! `cargo test --test tests redaction -- --nocapture`.

use toml_edit::DocumentMut;

pub struct Secret {
    pub kind: String,
    pub text: String,
    pub secret: String,
}

pub struct Corpus {
    pub secrets: Vec<Secret>,
    pub look_alikes: Vec<String>,
}

pub fn corpus() -> Corpus {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/secrets.toml"),
    )
    .unwrap();
    let doc: DocumentMut = text.parse().unwrap();
    let s = |t: &toml_edit::Table, k: &str| t[k].as_str().unwrap().to_string();
    let secrets = doc["secret"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| Secret {
            kind: s(t, "kind"),
            text: s(t, "text"),
            secret: s(t, "secret"),
        })
        .collect();
    let look_alikes = doc["look_alike"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| s(t, "text"))
        .collect();
    Corpus {
        secrets,
        look_alikes,
    }
}

#[test]
fn every_secret_kind_is_redacted_and_every_look_alike_survives() {
    let c = corpus();
    let kinds: std::collections::BTreeSet<&str> =
        c.secrets.iter().map(|s| s.kind.as_str()).collect();
    assert!(kinds.len() >= 40, "{} kinds", kinds.len());
    assert!(c.look_alikes.len() >= 10);
    let mut missed = Vec::new();
    for s in &c.secrets {
        assert!(s.text.contains(&s.secret), "{}: corpus entry", s.kind);
        let out = pms::platform::redact::redact(&s.text);
        if out.contains(&s.secret) || !out.contains("[REDACTED:") {
            missed.push(format!("{}: {} -> {}", s.kind, s.text, out));
        }
    }
    let mut changed = Vec::new();
    for t in &c.look_alikes {
        let out = pms::platform::redact::redact(t);
        if out != *t {
            changed.push(format!("{t} -> {out}"));
        }
    }
    eprintln!(
        "secret corpus: {} kinds, {} missed; {} look-alikes, {} changed",
        kinds.len(),
        missed.len(),
        c.look_alikes.len(),
        changed.len()
    );
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
    assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
}

/// Pieces of `secret` whose presence anywhere means a leak: the whole of a
/// short one, every 16-character window of a long one (a secret cut in half
/// by a length limit must not leak its first half either).
fn pieces(secret: &str) -> Vec<&str> {
    let idx: Vec<usize> = secret.char_indices().map(|(i, _)| i).collect();
    if idx.len() <= 16 {
        return vec![secret];
    }
    (0..=idx.len() - 16)
        .map(|k| {
            let end = idx.get(k + 16).copied().unwrap_or(secret.len());
            &secret[idx[k]..end]
        })
        .collect()
}

const SID: &str = "5ec2e7c0-0000-4000-8000-000000000001";

/// The corpus, written by the user into their notes, profile and prompts,
/// then every output pms makes from them: 0 secrets found.
#[test]
fn the_corpus_reaches_no_output() {
    use crate::support::TestHome;
    use serde_json::{Value, json};
    use std::time::Duration;

    let c = corpus();
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = home.workspace();
    let one_line = |t: &str| t.replace('\n', " ");

    // The user's own files: a note with every secret in a heading and a body,
    // and the profile (injected at every session start).
    let mut note = String::from("# Credentials we rotate\n");
    for s in &c.secrets {
        note.push_str(&format!(
            "\n## {} {}\n\n{}\n",
            s.kind,
            one_line(&s.text),
            s.text
        ));
    }
    std::fs::write(ws.join("product/credentials.md"), &note).unwrap();
    let mut profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    for s in &c.secrets {
        profile.push_str(&format!("- Keep in mind: {}\n", one_line(&s.text)));
    }
    std::fs::write(ws.join("_me/profile.md"), profile).unwrap();

    // A session: each secret in a prompt (the first is the summary's title)
    // and in a correction the agent makes (a learning, staged, then injected).
    let dir = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{SID}.jsonl"));
    let mut lines = String::new();
    for (i, s) in c.secrets.iter().enumerate() {
        let ts = format!("2026-11-20T10:{:02}:{:02}Z", i / 60, i % 60);
        lines.push_str(&format!(
            "{}\n",
            json!({"type": "user", "timestamp": ts, "cwd": "/home/u/app", "sessionId": SID,
                "message": {"role": "user", "content": s.text}})
        ));
        lines.push_str(&format!(
            "{}\n",
            json!({"type": "assistant", "timestamp": ts, "sessionId": SID,
                "message": {"id": format!("m{i}"), "role": "assistant", "content": [
                    {"type": "text", "text": format!("You're right: the {} is {}. We decided to keep {} in the vault.", s.kind, one_line(&s.text), one_line(&s.text))}]}})
        ));
    }
    std::fs::write(&transcript, &lines).unwrap();

    // (output name, text) of everything pms printed
    let mut outputs: Vec<(String, String)> = Vec::new();
    let payload = |event: &str, extra: Value| {
        let mut p = json!({"session_id": SID, "transcript_path": transcript, "cwd": "/home/u/app",
            "hook_event_name": event, "source": "startup", "reason": "other"});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    };
    let mut hook = |name: &str, event: &str, extra: Value| {
        let out = home.hook(event, &payload(event, extra));
        assert!(out.status.success());
        outputs.push((
            format!("hook {name}"),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        ));
    };
    hook("session-start", "session-start", json!({}));
    for s in c.secrets.iter().step_by(7) {
        hook("user-prompt", "user-prompt", json!({"prompt": s.text}));
    }
    hook(
        "stop",
        "stop",
        json!({"last_assistant_message": format!("You're right: {}", one_line(&c.secrets[0].text))}),
    );
    hook("pre-compact", "pre-compact", json!({"trigger": "auto"}));
    hook("session-end", "session-end", json!({}));
    // a hook that fails on an unreadable transcript logs the path
    let bad = home.path(&format!("odd/{}.jsonl", c.secrets[2].secret));
    std::fs::create_dir_all(&bad).unwrap(); // a folder where the file should be
    hook(
        "session-end (unreadable transcript)",
        "session-end",
        json!({"session_id": "other-session", "transcript_path": bad}),
    );

    // Rules the user adds with a secret in them, and the next session.
    for s in c.secrets.iter().step_by(6) {
        let rule = format!("Never paste {} into a ticket", one_line(&s.text));
        let out = home.run(&["lessons", "add", &rule, "--when", &one_line(&s.text)]);
        outputs.push((
            "pms lessons add".into(),
            format!(
                "{}{}",
                crate::support::stdout(&out),
                crate::support::stderr(&out)
            ),
        ));
    }
    home.ok(&["index", "--quiet"]);
    let mut hook = |name: &str, event: &str, extra: Value| {
        let out = home.hook(event, &payload(event, extra));
        outputs.push((
            format!("hook {name}"),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        ));
    };
    hook(
        "session-start (next)",
        "session-start",
        json!({"session_id": "next-session"}),
    );
    for s in c.secrets.iter().step_by(6) {
        hook(
            "user-prompt (lessons)",
            "user-prompt",
            json!({"session_id": "next-session", "prompt": format!("where do I paste {}", one_line(&s.text))}),
        );
    }

    // The CLI.
    let cli = |args: &[&str]| {
        let out = home.run(args);
        format!(
            "{}{}",
            crate::support::stdout(&out),
            crate::support::stderr(&out)
        )
    };
    for q in [
        "credentials rotate",
        "vault",
        "export",
        "token",
        "key",
        "password",
        "private key",
        "webhook",
        "decided keep vault",
    ] {
        outputs.push((
            format!("pms search {q}"),
            cli(&["search", q, "--json", "--limit", "50"]),
        ));
        outputs.push((
            format!("pms search {q} (text)"),
            cli(&["search", q, "--limit", "50"]),
        ));
    }
    let summary = std::fs::read_dir(ws.join("sessions"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("a summary was written");
    let summary_rel = format!(
        "sessions/{}",
        summary.file_name().unwrap().to_string_lossy()
    );
    let cc = format!("cc://-home-u-app/{SID}.jsonl");
    for target in [
        "product/credentials.md",
        "_me/profile.md",
        "_me/lessons.md",
        summary_rel.as_str(),
        cc.as_str(),
    ] {
        outputs.push((
            format!("pms get {target}"),
            cli(&["get", target, "--lines", "2000"]),
        ));
        outputs.push((
            format!("pms get {target} --from 20"),
            cli(&["get", target, "--from", "20", "--lines", "2000"]),
        ));
    }
    outputs.push(("pms lessons --json".into(), cli(&["lessons", "--json"])));
    outputs.push(("pms lessons".into(), cli(&["lessons"])));
    outputs.push(("pms status".into(), cli(&["status"])));

    // The MCP server.
    let mut server = crate::mcp_robustness::Server::start(&home);
    server.handshake();
    let mut calls = vec![
        json!({"name": "lessons_pending", "arguments": {}}),
        json!({"name": "memory_timeline", "arguments": {"around": "2026-11-20", "days": 3}}),
        json!({"name": "memory_save", "arguments": {"title": format!("keys {}", c.secrets[0].secret), "text": note}}),
    ];
    for q in [
        "credentials",
        "vault",
        "token",
        "key",
        "password",
        "webhook",
    ] {
        calls.push(json!({"name": "memory_search", "arguments": {"query": q, "limit": 50}}));
        calls.push(json!({"name": "memory_search_context", "arguments": {"source": "product/credentials.md", "query": q, "limit": 20}}));
    }
    for target in [
        "product/credentials.md",
        "_me/profile.md",
        summary_rel.as_str(),
        cc.as_str(),
    ] {
        calls.push(json!({"name": "memory_get", "arguments": {"path": target, "lines": 2000}}));
        calls.push(
            json!({"name": "memory_get", "arguments": {"path": target, "from": 30, "lines": 2000}}),
        );
    }
    for (i, call) in calls.iter().enumerate() {
        let id = json!(100 + i);
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}));
        let answer = server
            .answer(&id, Duration::from_secs(20))
            .unwrap_or_else(|| panic!("no answer to {call}"));
        outputs.push((format!("mcp {}", call["name"]), answer.to_string()));
    }
    drop(server);

    // Every file pms wrote (the user's own files and Claude Code's
    // transcript excepted).
    let mine = [ws.join("product/credentials.md"), ws.join("_me/profile.md")];
    for p in crate::mcp_robustness::walk(&ws) {
        if mine.contains(&p) {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap_or_default();
        outputs.push((
            format!("file {}", p.strip_prefix(&ws).unwrap().display()),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }

    // The paths were exercised: the redactions are there to see.
    for must in [
        "hook session-start",
        "hook session-start (next)",
        "pms get product/credentials.md",
        "file .pms/pending-learnings.json",
        "file .pms/logs/hooks.log",
        "mcp \"lessons_pending\"",
        "mcp \"memory_search\"",
    ] {
        assert!(
            outputs
                .iter()
                .any(|(n, t)| n == must && t.contains("[REDACTED:")),
            "{must}: no redaction seen (the path was not exercised): {:.2000}",
            outputs
                .iter()
                .filter(|(n, _)| n == must)
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join("\n---\n")
        );
    }
    assert!(
        outputs
            .iter()
            .any(|(n, t)| n.starts_with("file sessions/") && t.contains("[REDACTED:")),
        "the summary"
    );
    let mut found = Vec::new();
    for (name, text) in &outputs {
        for s in &c.secrets {
            if let Some(p) = pieces(&s.secret).into_iter().find(|p| text.contains(p)) {
                found.push(format!("{name}: {} ({p})", s.kind));
            }
        }
    }
    eprintln!(
        "secret corpus through every output: {} kinds, {} outputs, {} secrets found",
        c.secrets.len(),
        outputs.len(),
        found.len()
    );
    assert!(found.is_empty(), "found:\n{}", found.join("\n"));
}

/// Issue 18 case 6: a range that starts inside a private key block (after
/// its BEGIN line) printed the key; the same path serves memory_get. The
/// key stays hidden and the line numbers stay true.
#[test]
fn a_range_inside_a_private_key_shows_no_key() {
    use crate::support::TestHome;
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let key_lines = [
        "MIIEowIBAAKCAQEAx7Qm1c2VtbG9yZW1pcHN1bWRvbG9yc2l0YW1ldGNvbnNlY3Rl",
        "dHVyYWRpcGlzY2luZ2VsaXRzZWRkb2VpdXNtb2R0ZW1wb3JpbmNpZGlkdW50dXRs",
        "YWJvcmVldGRvbG9yZW1hZ25hYWxpcXVhVXRlbmltYWRtaW5pbXZlbmlhbXF1aXNu",
    ];
    let text = format!(
        "# Deploy\nThe deploy key:\n-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\nafter the key\n",
        key_lines.join("\n")
    );
    std::fs::write(home.workspace().join("product/deploy.md"), text).unwrap();
    let out = home.ok(&["get", "product/deploy.md", "--from", "4", "--lines", "4"]);
    let shown = crate::support::stdout(&out);
    for l in key_lines {
        assert!(!shown.contains(&l[..16]), "{shown}");
    }
    assert!(
        shown.contains("    4│") && shown.contains("    7│"),
        "{shown}"
    );
    assert!(!shown.contains("after the key"), "{shown}");
    let out = home.ok(&["get", "product/deploy.md", "--from", "8"]);
    assert!(
        crate::support::stdout(&out).starts_with("    8│ after the key"),
        "{}",
        crate::support::stdout(&out)
    );
    let mut server = crate::mcp_robustness::Server::start(&home);
    server.handshake();
    server.send(&serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "memory_get", "arguments": {"path": "product/deploy.md", "from": 5, "lines": 2}}}));
    let answer = server
        .answer(&serde_json::json!(7), std::time::Duration::from_secs(10))
        .unwrap()
        .to_string();
    for l in key_lines {
        assert!(!answer.contains(&l[..16]), "{answer}");
    }
}

/// Issue 27 item 5: terminal control sequences from a transcript (an OSC 52
/// clipboard write, a window title, a line erase, BEL, their C1 forms)
/// reached lessons.md, the session-start injection and what `pms lessons`,
/// `search` and `get` print. They reach no file pms writes, no hook output
/// and no command output, nor do the ones in the user's own files (a rule
/// written into lessons.md by hand or by an older version, a note).
#[test]
fn terminal_controls_reach_no_output() {
    use crate::support::{TestHome, stderr, stdout};
    use serde_json::{Value, json};

    const OSC52: &str = "\x1b]52;c;cm0gLXJmIH4K\x07";
    const TITLE: &str = "\x1b]0;pwned\x07";
    const ERASE: &str = "\x1b[2K";
    const C1: &str = "\u{9d}0;c1 title\u{9c}\u{9b}2K";
    /// A control character or sequence, raw or as JSON writes it.
    fn controls_in(text: &str) -> Vec<&'static str> {
        [
            "\x1b", "\x07", "\u{9b}", "\u{9c}", "\u{9d}", "\\u001b", "\\u0007", "\\u009b",
            "\\u009d",
        ]
        .into_iter()
        .filter(|c| text.contains(c))
        .collect()
    }

    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = home.workspace();
    let sid = "7e1c0000-0000-4000-8000-00000000c0de";
    let dir = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join(format!("{sid}.jsonl"));
    let prompt =
        format!("From now on, always run the linter {OSC52}before pushing{TITLE} the branch.");
    let reply = format!(
        "You're right, I was wrong: the release broke. Lesson: never deploy on{ERASE} Fridays without a rollback plan{C1}."
    );
    let lines = [
        json!({"type": "user", "uuid": "u1", "timestamp": "2026-11-22T12:00:00Z", "cwd": "/home/u/app",
            "sessionId": sid, "message": {"role": "user", "content": prompt}}),
        json!({"type": "assistant", "uuid": "a1", "timestamp": "2026-11-22T12:00:01Z", "sessionId": sid,
            "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": reply}]}}),
    ];
    let payload = |event: &str, extra: Value| {
        let mut p = json!({"session_id": sid, "transcript_path": transcript, "cwd": "/home/u/app",
            "hook_event_name": event, "source": "startup", "reason": "other"});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    };
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut hook = |name: &str, event: &str, extra: Value| {
        let out = home.hook(event, &payload(event, extra));
        assert!(out.status.success());
        outputs.push((
            format!("hook {name}"),
            format!("{}{}", stdout(&out), stderr(&out)),
        ));
    };
    hook("user-prompt", "user-prompt", json!({"prompt": prompt}));
    std::fs::write(&transcript, format!("{}\n{}\n", lines[0], lines[1])).unwrap();
    hook("stop", "stop", json!({"last_assistant_message": reply}));
    hook("session-end", "session-end", json!({}));

    // The learnings staged, then accepted into lessons.md.
    let pending: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.join(".pms/pending-learnings.json")).unwrap(),
    )
    .unwrap();
    let ids: Vec<String> = pending["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "both rules staged: {pending:#}");
    let cli = |args: &[&str]| {
        let out = home.run(args);
        format!("{}{}", stdout(&out), stderr(&out))
    };
    outputs.push(("pms lessons (pending)".into(), cli(&["lessons"])));
    outputs.push((
        "pms lessons --json (pending)".into(),
        cli(&["lessons", "--json"]),
    ));
    for id in &ids {
        outputs.push((
            format!("pms lessons accept {id}"),
            cli(&["lessons", "accept", id]),
        ));
    }
    outputs.push((
        "pms lessons add".into(),
        cli(&[
            "lessons",
            "add",
            &format!("Keep the {TITLE}changelog short"),
            "--when",
            &format!("changelog{OSC52}"),
        ]),
    ));
    let lessons_path = ws.join("_me/lessons.md");
    let written = std::fs::read_to_string(&lessons_path).unwrap();
    outputs.push((
        "file _me/lessons.md (as pms wrote it)".into(),
        written.clone(),
    ));
    assert!(
        written.contains("run the linter")
            && written.contains("rollback plan")
            && written.contains("changelog short"),
        "the rules were written: {written}"
    );

    // The user's own files: a rule typed into lessons.md (or left there by
    // an older version) and a note, both with controls in them.
    let end = "<!-- pms:lessons:end -->";
    let by_hand = format!("- [L-0a0b0c] Tag every release {OSC52}with its date{TITLE}\n{end}");
    std::fs::write(&lessons_path, written.replacen(end, &by_hand, 1)).unwrap();
    std::fs::write(
        ws.join("product/terminal.md"),
        format!("# Deploy log\n\nThe deploy printed {TITLE}done{ERASE} and copied {OSC52}the linter output{C1}.\n"),
    )
    .unwrap();
    home.ok(&["index", "--quiet"]);
    let conn = rusqlite::Connection::open(ws.join(".pms/index.db")).unwrap();
    let mut chunks = conn
        .prepare("SELECT coalesce(heading, '') || ' ' || text FROM chunks")
        .unwrap();
    let chunks: Vec<String> = chunks
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        chunks.iter().any(|c| c.contains("the linter output")),
        "the note was indexed"
    );
    outputs.push((
        "index.db chunks (as pms wrote them)".into(),
        chunks.join("\n"),
    ));
    // What an older version stored: a pending learning and an index row
    // with controls in them.
    let mut old_pending = pending.clone();
    old_pending["items"] = json!([pending["items"][0].clone()]);
    old_pending["items"][0]["id"] = json!("P-01d0001");
    old_pending["items"][0]["text"] =
        json!(format!("Rotate the {TITLE}staging keys{OSC52} monthly."));
    std::fs::write(
        ws.join(".pms/pending-learnings.json"),
        serde_json::to_string_pretty(&old_pending).unwrap(),
    )
    .unwrap();
    let changed = rusqlite::Connection::open(ws.join(".pms/index.db"))
        .unwrap()
        .execute(
            "UPDATE chunks SET text = replace(text, 'the linter output', 'the linter output' || char(27) || ']0;old index' || char(7))",
            [],
        )
        .unwrap();
    assert!(changed > 0);

    let mut hook = |name: &str, event: &str, extra: Value| {
        let out = home.hook(event, &payload(event, extra));
        outputs.push((
            format!("hook {name}"),
            format!("{}{}", stdout(&out), stderr(&out)),
        ));
    };
    hook(
        "session-start (next)",
        "session-start",
        json!({"session_id": "next"}),
    );
    hook(
        "user-prompt (lessons)",
        "user-prompt",
        json!({"session_id": "next", "prompt": "should I run the linter before pushing the release tag"}),
    );
    outputs.push(("pms lessons".into(), cli(&["lessons"])));
    outputs.push(("pms lessons --json".into(), cli(&["lessons", "--json"])));
    outputs.push(("pms search linter".into(), cli(&["search", "linter"])));
    outputs.push((
        "pms search linter --json".into(),
        cli(&["search", "linter", "--json"]),
    ));
    outputs.push(("pms search deploy".into(), cli(&["search", "deploy log"])));
    for target in [
        "product/terminal.md".to_string(),
        "_me/lessons.md".to_string(),
        format!("cc://-home-u-app/{sid}.jsonl"),
    ] {
        outputs.push((format!("pms get {target}"), cli(&["get", &target])));
        outputs.push((
            format!("pms get {target} --json"),
            cli(&["get", &target, "--json"]),
        ));
    }
    // every other file pms wrote (the user's own two and the database aside)
    for p in crate::mcp_robustness::walk(&ws) {
        let name = p.strip_prefix(&ws).unwrap().display().to_string();
        if name == "_me/lessons.md"
            || name == "product/terminal.md"
            || name == ".pms/pending-learnings.json"
            || name.contains("index.db")
        {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap_or_default();
        outputs.push((
            format!("file {name}"),
            String::from_utf8_lossy(&bytes).into_owned(),
        ));
    }

    // The paths were exercised: the text around the controls is there.
    for (name, must) in [
        ("hook session-start (next)", "rollback plan"),
        ("hook user-prompt (lessons)", "run the linter"),
        ("pms lessons", "with its date"),
        ("pms lessons (pending)", "rollback plan"),
        ("pms lessons", "staging keys"),
        ("pms lessons --json", "staging keys"),
        ("pms search linter", "linter output"),
        ("pms get product/terminal.md", "linter output"),
        ("pms get _me/lessons.md", "with its date"),
    ] {
        assert!(
            outputs.iter().any(|(n, t)| n == name && t.contains(must)),
            "{name}: {must:?} not shown: {:?}",
            outputs.iter().find(|(n, _)| n == name)
        );
    }
    let found: Vec<String> = outputs
        .iter()
        .filter_map(|(name, text)| {
            let c = controls_in(text);
            (!c.is_empty()).then(|| format!("{name}: {c:?}"))
        })
        .collect();
    eprintln!(
        "terminal controls: {} outputs, {} with a control in them",
        outputs.len(),
        found.len()
    );
    assert!(found.is_empty(), "controls found:\n{}", found.join("\n"));
}

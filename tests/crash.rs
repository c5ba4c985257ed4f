//! Every interruption recovers. For each command and hook that writes, the
//! harness counts its write operations (renames into place, backups:
//! `PMS_TEST_WRITE_LOG`), then for every k kills it just before the k-th
//! (`PMS_TEST_KILL_AT`, SIGKILL, as a power cut or `kill -9`), or makes the
//! k-th fail as a full disk would (`PMS_TEST_FULL_AT`), in a fresh home;
//! then does what a user does next (the same command again, the next
//! session start, uninstall) and checks the invariants:
//!
//! - every file pms owns parses;
//! - every user file holds the old bytes or the new bytes;
//! - no learning is lost and none is staged twice;
//! - uninstall gives back the user's original bytes;
//! - no debris is left after the next run (a temp file, a rebuild's
//!   database), whichever command the user runs next.
//!
//! The anchors are SQLite's crash tests and the ALICE study (every prefix of
//! a command's file operations). The whole matrix (every kill point and
//! every full-disk point of every scenario) runs in the default test run: it
//! takes seconds.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::TestHome;

/// The user's settings before pms: things init must keep and uninstall
/// must give back byte for byte (an empty hooks object and an empty event
/// array included: issue 18's init kill lost exactly those).
const USER_SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n";
const USER_CLAUDE_JSON: &str = "{\"numStartups\": 3, \"projects\": {}}\n";
/// The user's Codex and OpenClaw files, for the scenario that wires all
/// three agents.
const USER_CODEX_CONFIG: &str = "# mine\nmodel = \"o5\"\n\n[features]\nhooks = false\n";
const USER_CODEX_HOOKS: &str =
    "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}]}}\n";
const USER_OPENCLAW: &str = "{\n  \"plugins\": {\"allow\": [\"telegram\"]}\n}\n";

/// User files any scenario may touch: each must hold its old or new bytes.
fn user_files(home: &TestHome) -> Vec<PathBuf> {
    vec![
        home.settings(),
        home.path(".claude.json"),
        home.path(".codex/config.toml"),
        home.path(".codex/hooks.json"),
        home.path(".openclaw/openclaw.json"),
    ]
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fault {
    Kill,
    DiskFull,
}

impl Fault {
    fn var(self) -> &'static str {
        match self {
            Fault::Kill => "PMS_TEST_KILL_AT",
            Fault::DiskFull => "PMS_TEST_FULL_AT",
        }
    }
}

/// One command under test.
struct Scenario {
    name: &'static str,
    /// The home as it is before the command.
    prepare: fn(&TestHome),
    /// The command, with extra environment variables (the fault).
    act: fn(&TestHome, &[(&str, String)]) -> Output,
    /// What the user does next; then the invariants are checked.
    next: fn(&TestHome),
    check: fn(&TestHome, &BTreeMap<PathBuf, Vec<u8>>),
}

thread_local! {
    /// The fault the run being checked met: most invariants hold after
    /// either, a few differ (a write that failed on a full disk and was
    /// not retried is repaired by the next reader, not by the next run).
    static FAULT: std::cell::Cell<Fault> = const { std::cell::Cell::new(Fault::Kill) };
    /// The strace arguments the full matrix runs the command under (its
    /// kill or ENOSPC injection); empty for the seam matrices.
    static STRACE: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `pms <args>` with `env`, under strace when the full matrix asks.
fn command(home: &TestHome, args: &[&str], env: &[(&str, String)]) -> std::process::Command {
    let mut c = home.pms(args);
    c.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let prefix = STRACE.with(|s| s.borrow().clone());
    if prefix.is_empty() {
        return c;
    }
    let mut w = std::process::Command::new("strace");
    w.args(&prefix)
        .arg("--")
        .arg(c.get_program())
        .args(c.get_args())
        .env_clear();
    for (k, v) in c.get_envs() {
        if let Some(v) = v {
            w.env(k, v);
        }
    }
    w.current_dir(c.get_current_dir().unwrap())
        .stdin(std::process::Stdio::null());
    w
}

fn pms_env(home: &TestHome, args: &[&str], env: &[(&str, String)]) -> Output {
    command(home, args, env).output().unwrap()
}

fn user_home() -> TestHome {
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), USER_SETTINGS).unwrap();
    std::fs::write(home.path(".claude.json"), USER_CLAUDE_JSON).unwrap();
    std::fs::create_dir_all(home.path(".codex")).unwrap();
    std::fs::write(home.path(".codex/config.toml"), USER_CODEX_CONFIG).unwrap();
    std::fs::write(home.path(".codex/hooks.json"), USER_CODEX_HOOKS).unwrap();
    std::fs::create_dir_all(home.path(".openclaw")).unwrap();
    std::fs::write(home.path(".openclaw/openclaw.json"), USER_OPENCLAW).unwrap();
    home
}

/// `pms init` wiring Claude Code, Codex (turning its hooks on) and OpenClaw.
fn run_init_all(home: &TestHome, env: &[(&str, String)]) -> Output {
    let mut args = init_args(home);
    args.extend(
        ["--agent", "claude,codex,openclaw", "--enable-codex-hooks"]
            .iter()
            .map(|s| s.to_string()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    pms_env(home, &args, env)
}

fn init_args(home: &TestHome) -> Vec<String> {
    [
        "init",
        "--yes",
        "--no-index",
        "--name",
        "Ada Lovelace",
        "--domains",
        "product",
        "--dir",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([home.workspace().display().to_string()])
    .collect()
}

fn run_init(home: &TestHome, env: &[(&str, String)]) -> Output {
    let args = init_args(home);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    pms_env(home, &args, env)
}

fn initialised() -> TestHome {
    let home = user_home();
    assert!(run_init(&home, &[]).status.success());
    home
}

/// Every file under `dir`, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                out.insert(p, b);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

/// What a killed run may leave: temporary files of interrupted writes, and
/// the database of an interrupted rebuild with its WAL and shared memory.
fn debris_files(home: &TestHome) -> Vec<PathBuf> {
    files(home.home())
        .into_keys()
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with(".pms-tmp-")
                    || n.starts_with("index.db.rebuild")
                    || n == "index.vec.tmp"
            })
        })
        .collect()
}

/// The files pms owns parse.
fn owned_files_parse(home: &TestHome) {
    let ws = home.workspace();
    for rel in [
        ".pms/install.json",
        ".pms/manifest.json",
        ".pms/pending-learnings.json",
    ] {
        if let Ok(t) = std::fs::read_to_string(ws.join(rel)) {
            serde_json::from_str::<Value>(&t).unwrap_or_else(|e| panic!("{rel}: {e}\n{t}"));
        }
    }
    for p in files(&ws.join(".pms/state")).into_keys() {
        if p.extension().is_some_and(|x| x == "json") {
            serde_json::from_slice::<Value>(&std::fs::read(&p).unwrap())
                .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        }
    }
    if let Ok(t) = std::fs::read_to_string(ws.join("config.toml")) {
        t.parse::<toml_edit::DocumentMut>()
            .expect("config.toml parses");
    }
    for p in [
        home.settings(),
        home.path(".claude.json"),
        home.path(".codex/hooks.json"),
        home.path(".openclaw/openclaw.json"),
    ] {
        if let Ok(t) = std::fs::read_to_string(&p) {
            serde_json::from_str::<Value>(&t).unwrap_or_else(|e| panic!("{p:?}: {e}\n{t}"));
        }
    }
    if let Ok(t) = std::fs::read_to_string(home.path(".codex/config.toml")) {
        t.parse::<toml_edit::DocumentMut>()
            .expect("Codex's config.toml parses");
    }
    if let Ok(t) = std::fs::read_to_string(ws.join("_me/lessons.md")) {
        assert_eq!(t.matches("<!-- pms:lessons:begin").count(), 1, "{t}");
        assert_eq!(t.matches("<!-- pms:lessons:end -->").count(), 1, "{t}");
    }
}

/// A user file holds the bytes it had before or the bytes a complete run
/// writes. A hard-linked one is written in place (durable.rs,
/// overwrite_in_place) and may also hold the new bytes followed by the
/// blanks that padded them to the old length: killed between the write and
/// the trim, its meaning is the new one.
fn old_or_new(path: &Path, before: &BTreeMap<PathBuf, Vec<u8>>, after_full: &[u8]) {
    use std::os::unix::fs::MetadataExt;
    let now = std::fs::read(path).unwrap_or_default();
    let old = before.get(path).cloned().unwrap_or_default();
    let hard_linked = std::fs::metadata(path).is_ok_and(|m| m.nlink() > 1);
    let padded_new = hard_linked
        && now.len() == old.len()
        && now.starts_with(after_full)
        && now[after_full.len()..].iter().all(|b| *b == b' ');
    assert!(
        now == old || now == after_full || padded_new,
        "{path:?} is neither old nor new:\n{}",
        String::from_utf8_lossy(&now)
    );
}

/// The user's settings.json moved into a dotfiles folder and hard-linked
/// back, as a dotfile manager does.
fn hard_link_settings(home: &TestHome) {
    let copy = home.path("dotfiles/settings.json");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::rename(home.settings(), &copy).unwrap();
    std::fs::hard_link(&copy, home.settings()).unwrap();
}

/// settings.json is still the dotfiles copy itself.
fn still_linked(home: &TestHome) {
    use std::os::unix::fs::MetadataExt;
    let (a, b) = (
        std::fs::metadata(home.settings()).unwrap(),
        std::fs::metadata(home.path("dotfiles/settings.json")).unwrap(),
    );
    assert_eq!(
        (a.ino(), a.nlink()),
        (b.ino(), 2),
        "settings.json lost its link"
    );
}

fn lesson_count(home: &TestHome, needle: &str) -> usize {
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["text"].as_str().unwrap().contains(needle))
        .count()
}

fn pending_count(home: &TestHome, needle: &str) -> usize {
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["text"].as_str().unwrap().contains(needle))
        .count()
}

fn stage(home: &TestHome, text: &str) -> String {
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let added = pms::memory::lessons::pending::stage(
        &ws,
        vec![pms::memory::lessons::pending::Candidate {
            kind: "correction".into(),
            text: text.into(),
            domain: None,
            session_id: Some("s1".into()),
            transcript_ref: None,
            ..Default::default()
        }],
        &[],
    )
    .unwrap();
    added[0].id.clone()
}

const RULE: &str = "Always pin the Postgres major version in compose files.";
const LEARNING: &str = "The staging database listens on port 5433, not 5432.";
const SESSION: &str = "crash-session-1";

fn transcript(home: &TestHome) -> PathBuf {
    home.path(&format!(".claude/projects/-home-u-app/{SESSION}.jsonl"))
}

fn session_payload(home: &TestHome, event: &str) -> Vec<u8> {
    json!({"session_id": SESSION, "transcript_path": transcript(home), "cwd": "/home/u/app",
        "hook_event_name": event, "reason": "other"})
    .to_string()
    .into_bytes()
}

fn hook_env(home: &TestHome, event: &str, env: &[(&str, String)]) -> Output {
    use std::io::Write;
    let ws = home.workspace();
    let mut child = command(
        home,
        &["hook", event, "--workspace", ws.to_str().unwrap()],
        env,
    )
    .stdin(std::process::Stdio::piped())
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&session_payload(home, event))
        .unwrap();
    child.wait_with_output().unwrap()
}

fn with_session() -> TestHome {
    let home = initialised();
    let t = transcript(&home);
    std::fs::create_dir_all(t.parent().unwrap()).unwrap();
    let lines = [
        json!({"type":"user","timestamp":"2026-11-22T10:00:00Z","message":{"role":"user","content":"Which port does staging use?"}}),
        json!({"type":"assistant","timestamp":"2026-11-22T10:00:05Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":format!("You're right: {LEARNING}")}]}}),
    ];
    std::fs::write(
        &t,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    assert!(hook_env(&home, "stop", &[]).status.success());
    home
}

fn age_transcript(home: &TestHome) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(6 * 3600);
    std::fs::File::options()
        .write(true)
        .open(transcript(home))
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "init",
            prepare: |_| {},
            act: run_init,
            next: |home| {
                assert!(run_init(home, &[]).status.success(), "init runs again");
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                assert_eq!(
                    std::fs::read_to_string(home.settings()).unwrap(),
                    USER_SETTINGS,
                    "uninstall gives back the user's settings"
                );
                assert_eq!(
                    std::fs::read_to_string(home.path(".claude.json")).unwrap(),
                    USER_CLAUDE_JSON
                );
            },
        },
        // The next command is not init: the pointer to the workspace is
        // init's last write, so only the record of the init under way
        // leads the sweep to what a kill left in the half-made workspace
        // (issue 27: only a second init removed it).
        Scenario {
            name: "init, then status",
            prepare: |_| {},
            act: run_init,
            next: |home| {
                // fails until init has finished (no workspace yet): the
                // sweep runs first regardless
                home.run(&["status"]);
            },
            check: |home, _| {
                let v: Value =
                    serde_json::from_slice(&home.run(&["verify", "--quick", "--json"]).stdout)
                        .unwrap();
                let workspace = v["checks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["id"] == "workspace")
                    .unwrap();
                // a half-made workspace is named in the fix
                if workspace["status"] == "fail" {
                    let hint = workspace["hint"].as_str().unwrap_or_default();
                    assert!(
                        hint.contains("interrupted") || !home.workspace().exists(),
                        "{workspace}"
                    );
                }
            },
        },
        Scenario {
            name: "init (three agents)",
            prepare: |_| {},
            act: run_init_all,
            next: |home| {
                assert!(run_init_all(home, &[]).status.success(), "init runs again");
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                for (rel, text) in [
                    (".claude/settings.json", USER_SETTINGS),
                    (".claude.json", USER_CLAUDE_JSON),
                    (".codex/config.toml", USER_CODEX_CONFIG),
                    (".codex/hooks.json", USER_CODEX_HOOKS),
                    (".openclaw/openclaw.json", USER_OPENCLAW),
                ] {
                    assert_eq!(
                        std::fs::read_to_string(home.path(rel)).unwrap(),
                        text,
                        "uninstall gives back {rel}"
                    );
                }
                assert!(!home.path(".openclaw/extensions/pms").exists());
            },
        },
        Scenario {
            name: "uninstall",
            prepare: |home| assert!(run_init(home, &[]).status.success()),
            act: |home, env| pms_env(home, &["uninstall", "--yes"], env),
            next: |home| {
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                assert_eq!(
                    std::fs::read_to_string(home.settings()).unwrap(),
                    USER_SETTINGS
                );
            },
        },
        Scenario {
            name: "init (no settings.json, no ~/.claude.json)",
            prepare: |home| {
                std::fs::remove_file(home.settings()).unwrap();
                std::fs::remove_file(home.path(".claude.json")).unwrap();
            },
            act: run_init,
            next: |home| {
                assert!(run_init(home, &[]).status.success(), "init runs again");
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                assert!(
                    !home.settings().exists(),
                    "the settings.json init made is gone"
                );
                assert!(!home.path(".claude.json").exists());
            },
        },
        Scenario {
            name: "init (hard-linked settings.json)",
            prepare: hard_link_settings,
            act: run_init,
            next: |home| {
                assert!(run_init(home, &[]).status.success(), "init runs again");
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                still_linked(home);
                assert_eq!(
                    std::fs::read_to_string(home.settings()).unwrap(),
                    USER_SETTINGS
                );
            },
        },
        Scenario {
            name: "uninstall (hard-linked settings.json)",
            prepare: |home| {
                hard_link_settings(home);
                assert!(run_init(home, &[]).status.success());
            },
            act: |home, env| pms_env(home, &["uninstall", "--yes"], env),
            next: |home| {
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                still_linked(home);
                // killed between the in-place write and the trim, the
                // file keeps the blanks that padded it (durable.rs,
                // overwrite_in_place); at every other point, exact
                let now = std::fs::read_to_string(home.settings()).unwrap();
                assert_eq!(now.trim_end_matches(' '), USER_SETTINGS);
            },
        },
        Scenario {
            name: "lessons add",
            prepare: |home| assert!(run_init(home, &[]).status.success()),
            act: |home, env| {
                pms_env(
                    home,
                    &[
                        "lessons",
                        "add",
                        RULE,
                        "--when",
                        "docker compose; postgres image",
                    ],
                    env,
                )
            },
            next: |home| {
                let out = home.run(&[
                    "lessons",
                    "add",
                    RULE,
                    "--when",
                    "docker compose; postgres image",
                ]);
                let said = crate::support::stdout(&out);
                assert!(
                    out.status.success() || said.contains("Nearly the same rule"),
                    "{said}"
                );
            },
            check: |home, _| {
                assert_eq!(lesson_count(home, "Postgres major version"), 1);
                let idx = std::fs::read_to_string(home.workspace().join(".pms/lessons.idx"))
                    .unwrap_or_default();
                let out = home.hook_raw(
                    "user-prompt",
                    json!({"session_id": "x", "prompt": "write a docker compose file with a postgres image"})
                        .to_string()
                        .as_bytes(),
                );
                assert!(
                    String::from_utf8_lossy(&out.stdout).contains("Postgres major version"),
                    "the rule matches the next prompt (index: {idx})"
                );
            },
        },
        Scenario {
            name: "lessons accept",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                stage(home, LEARNING);
            },
            act: |home, env| {
                let id = pending_id(home).unwrap_or_default();
                pms_env(home, &["lessons", "accept", &id], env)
            },
            next: |home| {
                if let Some(id) = pending_id(home) {
                    home.ok(&["lessons", "accept", &id]);
                }
            },
            check: |home, _| {
                // before anything else reads the rules: accepting again
                // left the lessons index current, not waiting for the next
                // prompt to rebuild it (issue 27: "1 in force but 0 indexed").
                // On a full disk the accept may have succeeded all but the
                // index (not fatal: nothing runs it again); the next prompt
                // rebuilds it.
                if FAULT.get() == Fault::DiskFull {
                    home.hook_raw(
                        "user-prompt",
                        json!({"session_id": "x", "prompt": "which port does staging use"})
                            .to_string()
                            .as_bytes(),
                    );
                }
                let lessons_index = home.verify_check("lessons.index");
                assert_eq!(lessons_index["status"], "ok", "{lessons_index}");
                assert_eq!(lesson_count(home, "5433"), 1, "the rule, once");
                assert_eq!(pending_count(home, "5433"), 0, "not pending any more");
            },
        },
        Scenario {
            name: "lessons reject",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                stage(home, LEARNING);
            },
            act: |home, env| {
                let id = pending_id(home).unwrap_or_default();
                pms_env(home, &["lessons", "reject", &id], env)
            },
            next: |home| {
                if let Some(id) = pending_id(home) {
                    home.ok(&["lessons", "reject", &id]);
                }
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 0);
                assert_eq!(lesson_count(home, "5433"), 0);
            },
        },
        Scenario {
            name: "lessons retire",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                home.ok(&["lessons", "add", RULE]);
            },
            act: |home, env| {
                let id = rule_id(home).unwrap_or_default();
                pms_env(home, &["lessons", "retire", &id], env)
            },
            next: |home| {
                if let Some(id) = rule_id(home) {
                    home.ok(&["lessons", "retire", &id]);
                }
            },
            check: |home, _| {
                assert_eq!(lesson_count(home, "Postgres major version"), 0);
                let t = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
                assert!(t.contains("retired"), "kept in the archive:\n{t}");
            },
        },
        Scenario {
            name: "index",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                std::fs::write(
                    home.workspace().join("product/notes.md"),
                    "# Pricing\nUsage-based pricing for the Team plan.\n",
                )
                .unwrap();
            },
            act: |home, env| pms_env(home, &["index", "--quiet"], env),
            next: |home| {
                home.ok(&["index", "--quiet"]);
            },
            check: |home, _| {
                let v = home.search_json("usage-based pricing Team");
                assert_eq!(v["hits"][0]["uri"], "product/notes.md", "{v:#}");
            },
        },
        // With a model: the run writes the vector file (index.vec) after the
        // vectors, renames it into place and stamps it in index.db.
        Scenario {
            name: "index (vector file)",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                std::fs::write(
                    home.workspace().join("product/notes.md"),
                    "# Pricing\nUsage-based pricing for the Team plan.\n",
                )
                .unwrap();
                home.ok(&["index", "--quiet"]);
                let model = crate::support::models::tiny_model(&home.path("tiny-model"));
                home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]);
            },
            act: |home, env| pms_env(home, &["index", "--quiet"], env),
            next: |home| {
                // a search right after the fault answers, in hybrid mode
                // (from the file or, without one, from index.db)
                let v = home.search_json("usage-based pricing Team");
                assert_eq!(v["hits"][0]["uri"], "product/notes.md", "{v:#}");
                home.ok(&["index", "--quiet"]);
            },
            check: |home, _| {
                let v = home.search_json("usage-based pricing Team");
                assert_eq!(v["mode"], "hybrid", "{v:#}");
                assert_eq!(v["hits"][0]["uri"], "product/notes.md", "{v:#}");
                let db = home.workspace().join(".pms/index.db");
                let c = rusqlite::Connection::open(&db).unwrap();
                assert!(
                    pms::memory::index::vector_file::VectorFile::for_index(&c).is_some(),
                    "the next run leaves a current vector file"
                );
            },
        },
        Scenario {
            name: "hook session-end",
            prepare: |_| {},
            act: |home, env| hook_env(home, "session-end", env),
            next: |home| {
                age_transcript(home);
                home.ok(&[
                    "sync",
                    "--exclude-session",
                    "another",
                    "--workspace",
                    home.workspace().to_str().unwrap(),
                ]);
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 1, "staged once");
                let sessions = files(&home.workspace().join("sessions"));
                assert_eq!(sessions.len(), 1, "{:?}", sessions.keys());
            },
        },
        Scenario {
            name: "hook pre-compact",
            prepare: |_| {},
            act: |home, env| hook_env(home, "pre-compact", env),
            next: |home| {
                assert!(hook_env(home, "session-end", &[]).status.success());
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 1, "staged once");
            },
        },
        Scenario {
            name: "init again",
            prepare: |home| assert!(run_init(home, &[]).status.success()),
            act: |home, env| {
                let ws = home.workspace().display().to_string();
                pms_env(
                    home,
                    &[
                        "init",
                        "--yes",
                        "--no-index",
                        "--name",
                        "Ada Lovelace",
                        "--domains",
                        "product,engineering",
                        "--dir",
                        &ws,
                    ],
                    env,
                )
            },
            next: |home| {
                let ws = home.workspace().display().to_string();
                home.ok(&[
                    "init",
                    "--yes",
                    "--no-index",
                    "--name",
                    "Ada Lovelace",
                    "--domains",
                    "product,engineering",
                    "--dir",
                    &ws,
                ]);
                home.ok(&["uninstall", "--yes"]);
            },
            check: |home, _| {
                assert_eq!(
                    std::fs::read_to_string(home.settings()).unwrap(),
                    USER_SETTINGS
                );
                assert!(home.workspace().join("engineering/CLAUDE.md").is_file());
            },
        },
        Scenario {
            name: "lessons edit",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                home.ok(&["lessons", "add", RULE]);
            },
            act: |home, env| {
                let id = rule_id(home).unwrap_or_default();
                pms_env(
                    home,
                    &[
                        "lessons",
                        "edit",
                        &id,
                        "--when",
                        "compose file; postgres tag",
                    ],
                    env,
                )
            },
            next: |home| {
                let id = rule_id(home).unwrap();
                home.ok(&[
                    "lessons",
                    "edit",
                    &id,
                    "--when",
                    "compose file; postgres tag",
                ]);
            },
            check: |home, _| {
                assert_eq!(lesson_count(home, "Postgres major version"), 1);
            },
        },
        Scenario {
            name: "lessons move",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                home.ok(&["lessons", "add", RULE]);
            },
            act: |home, env| {
                let id = rule_id(home).unwrap_or_default();
                pms_env(home, &["lessons", "move", &id, "--to", "product"], env)
            },
            next: |home| {
                let id = rule_id(home).unwrap();
                home.ok(&["lessons", "move", &id, "--to", "product"]);
            },
            check: |home, _| {
                // an interruption may leave two copies for a moment; moving
                // again leaves one, in its new home
                let v: Value =
                    serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
                let files: Vec<&str> = v["rules"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["file"].as_str().unwrap())
                    .collect();
                assert!(files.contains(&"product/CLAUDE.md"), "{files:?}");
            },
        },
        Scenario {
            name: "index --full",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                std::fs::write(
                    home.workspace().join("product/notes.md"),
                    "# Pricing\nUsage-based pricing for the Team plan.\n",
                )
                .unwrap();
                home.ok(&["index", "--quiet"]);
            },
            act: |home, env| pms_env(home, &["index", "--full", "--quiet"], env),
            next: |home| {
                home.ok(&["index", "--quiet"]);
            },
            check: |home, _| {
                let v = home.search_json("usage-based pricing Team");
                assert_eq!(v["hits"][0]["uri"], "product/notes.md", "{v:#}");
            },
        },
        // A killed rebuild leaves index.db.rebuild with its WAL (76 MB in
        // issue 27's run): the next command that writes removes it, not only
        // the next rebuild.
        Scenario {
            name: "index --full, then status",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                std::fs::write(
                    home.workspace().join("product/notes.md"),
                    "# Pricing\nUsage-based pricing for the Team plan.\n",
                )
                .unwrap();
                home.ok(&["index", "--quiet"]);
            },
            act: |home, env| pms_env(home, &["index", "--full", "--quiet"], env),
            next: |home| {
                home.ok(&["status"]);
            },
            check: |home, _| {
                let v = home.search_json("usage-based pricing Team");
                assert_eq!(v["hits"][0]["uri"], "product/notes.md", "{v:#}");
            },
        },
        Scenario {
            name: "hook stop",
            prepare: |_| {},
            act: |home, env| hook_env(home, "stop", env),
            next: |home| {
                assert!(hook_env(home, "session-end", &[]).status.success());
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 1, "staged once");
            },
        },
        Scenario {
            name: "hook session-start",
            prepare: |_| {},
            act: |home, env| hook_env(home, "session-start", env),
            next: |home| {
                assert!(hook_env(home, "session-end", &[]).status.success());
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 1, "staged once");
            },
        },
        Scenario {
            name: "sync",
            prepare: |home| age_transcript(home),
            act: |home, env| {
                let ws = home.workspace().display().to_string();
                pms_env(
                    home,
                    &["sync", "--exclude-session", "another", "--workspace", &ws],
                    env,
                )
            },
            next: |home| {
                let ws = home.workspace().display().to_string();
                home.ok(&["sync", "--exclude-session", "another", "--workspace", &ws]);
            },
            check: |home, _| {
                assert_eq!(pending_count(home, "5433"), 1, "staged once");
                assert_eq!(files(&home.workspace().join("sessions")).len(), 1);
            },
        },
        Scenario {
            name: "upgrade --workspace-only",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                // an older workspace: a system file changed since, a config key missing
                let p = home.workspace().join("product/workflows/prd.md");
                let t = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, t.replace("PRD", "Requirements doc")).unwrap();
                let mut m: Value = home.read_json("pms/.pms/manifest.json");
                m["files"]["product/workflows/prd.md"]["hash"] = json!(format!(
                    "xxh3:{:032x}",
                    xxhash_rust::xxh3::xxh3_128(t.replace("PRD", "Requirements doc").as_bytes())
                ));
                std::fs::write(home.workspace().join(".pms/manifest.json"), m.to_string()).unwrap();
            },
            act: |home, env| pms_env(home, &["upgrade", "--workspace-only"], env),
            next: |home| {
                home.ok(&["upgrade", "--workspace-only"]);
            },
            check: |home, _| {
                let t = std::fs::read_to_string(home.workspace().join("product/workflows/prd.md"))
                    .unwrap();
                assert!(t.contains("PRD"), "the system file is refreshed");
            },
        },
        Scenario {
            name: "verify --fix",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                std::fs::remove_file(home.workspace().join("product/workflows/prd.md")).unwrap();
                std::fs::write(home.settings(), USER_SETTINGS).unwrap();
            },
            act: |home, env| pms_env(home, &["verify", "--quick", "--fix"], env),
            next: |home| {
                home.run(&["verify", "--quick", "--fix"]);
            },
            check: |home, _| {
                assert!(home.workspace().join("product/workflows/prd.md").is_file());
                let s: Value = home.read_json(".claude/settings.json");
                assert_eq!(s["model"], "opus");
                assert_eq!(s["permissions"]["allow"][0], "Bash(ls:*)");
            },
        },
        // An import killed anywhere: run again, each conversation is there
        // once and whole, each addition to `_me/` made once, each learning
        // staged once, and all of it searchable.
        Scenario {
            name: "import",
            prepare: |home| {
                assert!(run_init(home, &[]).status.success());
                chatgpt_export(home);
            },
            act: run_import,
            next: |home| {
                let out = run_import(home, &[]);
                assert!(out.status.success(), "{}", crate::support::stderr(&out));
            },
            check: |home, _| {
                let dir = home.workspace().join(".pms/imports/chatgpt");
                let mut files: Vec<String> = std::fs::read_dir(&dir)
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                files.sort();
                assert_eq!(files.len(), 3, "{files:?}");
                for f in &files {
                    for line in std::fs::read_to_string(dir.join(f)).unwrap().lines() {
                        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{f}: {e}"));
                    }
                }
                serde_json::from_slice::<Value>(
                    &std::fs::read(home.workspace().join(".pms/imports/chatgpt.json")).unwrap(),
                )
                .expect("the ledger parses");
                let profile =
                    std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap();
                assert_eq!(
                    profile.matches("Preferred name: Sam").count(),
                    1,
                    "{profile}"
                );
                assert_eq!(pending_count(home, "tag the release before deploying"), 1);
                let hits = crate::support::hit_uris(&home.search_json("borrow checker"));
                assert_eq!(hits.len(), 1, "{hits:?}");
            },
        },
    ]
}

/// A ChatGPT export in the home: the fixture's two conversations (custom
/// instructions in them) and one whose user states a rule.
fn chatgpt_export(home: &TestHome) -> PathBuf {
    use std::io::Write;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/import/chatgpt/conversations.json"
    );
    let mut all: Vec<Value> = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    all.push(json!({"title": "Deploys", "create_time": 1736616594.0, "id": "c-rule", "current_node": "u",
        "mapping": {"u": {"parent": null, "message": {"id": "u", "author": {"role": "user"},
            "content": {"content_type": "text", "parts": ["From now on, always tag the release before deploying."]}}}}}));
    let path = home.path("Downloads/chatgpt-export.zip");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    z.start_file(
        "conversations.json",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    z.write_all(&serde_json::to_vec(&all).unwrap()).unwrap();
    z.finish().unwrap();
    path
}

fn run_import(home: &TestHome, env: &[(&str, String)]) -> Output {
    let zip = home.path("Downloads/chatgpt-export.zip");
    pms_env(
        home,
        &[
            "import",
            "chatgpt",
            zip.to_str().unwrap(),
            "--identity",
            "add",
        ],
        env,
    )
}

/// Check `id` of `pms verify --quick --json`.
fn pending_id(home: &TestHome) -> Option<String> {
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    v["pending"][0]["id"].as_str().map(str::to_string)
}

fn rule_id(home: &TestHome) -> Option<String> {
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    v["rules"][0]["id"].as_str().map(str::to_string)
}

/// A fresh home in the state a scenario starts from.
fn fresh(s: &Scenario) -> TestHome {
    let home = if s.name.starts_with("hook ") || s.name == "sync" {
        with_session()
    } else {
        user_home()
    };
    (s.prepare)(&home);
    home
}

/// Runs every kill point (or full-disk point) of every scenario; returns
/// (points tried, wall time).
fn matrix(fault: Fault) -> (usize, std::time::Duration) {
    let started = std::time::Instant::now();
    let mut tried = 0;
    FAULT.set(fault);
    let only = std::env::var("PMS_CRASH_ONLY").ok();
    for s in scenarios() {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        // the operations a complete run makes, and the files it leaves
        let reference = fresh(&s);
        let log = reference.path("write-log.txt");
        let out = (s.act)(
            &reference,
            &[("PMS_TEST_WRITE_LOG", log.display().to_string())],
        );
        assert!(
            out.status.success(),
            "{}: {}",
            s.name,
            crate::support::stderr(&out)
        );
        let ops = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count();
        assert!(ops > 0, "{}: no write operation counted", s.name);
        let after_full = files(reference.home());
        for k in 1..=ops {
            tried += 1;
            let home = fresh(&s);
            let before = files(home.home());
            let out = (s.act)(&home, &[(fault.var(), k.to_string())]);
            let what = format!("{} {fault:?} at {k}/{ops}", s.name);
            match fault {
                Fault::Kill => assert!(
                    out.status.signal() == Some(9) || s.name.starts_with("hook "),
                    "{what}: not killed"
                ),
                Fault::DiskFull => {
                    let err = crate::support::stderr(&out);
                    assert!(!err.contains("panicked"), "{what}: {err}");
                }
            }
            invariants(&s, &home, &reference, &before, &after_full, &what);
        }
    }
    (tried, started.elapsed())
}

/// After an interrupted run of `s` in `home`: the files are whole, the
/// user's files old or new; then what the user does next, and the
/// scenario's own checks; no temp file left. Panics on a broken invariant.
fn invariants(
    s: &Scenario,
    home: &TestHome,
    reference: &TestHome,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after_full: &BTreeMap<PathBuf, Vec<u8>>,
    what: &str,
) {
    owned_files_parse(home);
    for user_file in user_files(home) {
        let rel = user_file.strip_prefix(home.home()).unwrap();
        let full = after_full
            .get(&reference.home().join(rel))
            .cloned()
            .unwrap_or_default();
        // the reference home has another path in its bytes: compare
        // with the paths swapped
        let full = String::from_utf8_lossy(&full)
            .replace(
                reference.home().to_str().unwrap(),
                home.home().to_str().unwrap(),
            )
            .into_bytes();
        old_or_new(&user_file, before, &full);
    }
    (s.next)(home);
    owned_files_parse(home);
    (s.check)(home, before);
    let left = debris_files(home);
    assert!(
        left.is_empty(),
        "{what}: debris left after the next run: {left:?}"
    );
}

/// The system calls the full matrix interrupts: every rename, link, unlink,
/// fsync and truncation, pms's own and SQLite's.
const SYSCALLS: &[&str] = &[
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "unlink",
    "unlinkat",
    "rmdir",
    "fsync",
    "fdatasync",
    "ftruncate",
];

/// How a system call is interrupted in the full matrix.
#[derive(Clone, Copy, Debug)]
enum Injected {
    /// SIGKILL as the call is entered: `kill -9`, a closed laptop.
    Kill,
    /// The call fails with ENOSPC: the disk is full.
    NoSpace,
}

/// The full matrix, with no help from pms (no seam): each scenario runs once
/// under `strace -f` to count its calls of each of [`SYSCALLS`] (per
/// thread, as strace counts for injection), then once per call in a fresh
/// home with strace killing it there (or failing the call with ENOSPC), and
/// the invariants are checked after each. Returns (points tried, points
/// where the process was killed or the call failed, invariants broken, time).
fn strace_matrix(injected: Injected) -> (usize, usize, Vec<String>, std::time::Duration) {
    let started = std::time::Instant::now();
    let (mut tried, mut hit, mut broken) = (0, 0, Vec::new());
    FAULT.set(match injected {
        Injected::Kill => Fault::Kill,
        Injected::NoSpace => Fault::DiskFull,
    });
    let only = std::env::var("PMS_CRASH_ONLY").ok();
    for s in scenarios() {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        let reference = fresh(&s);
        let trace = reference.path("strace.txt");
        STRACE.with(|p| {
            *p.borrow_mut() = vec![
                "-f".into(),
                "-qq".into(),
                "-o".into(),
                trace.display().to_string(),
                "-e".into(),
                format!("trace={}", SYSCALLS.join(",")),
            ]
        });
        let out = (s.act)(&reference, &[]);
        STRACE.with(|p| p.borrow_mut().clear());
        assert!(
            out.status.success(),
            "{}: {}",
            s.name,
            crate::support::stderr(&out)
        );
        // calls per (thread, syscall); strace numbers each thread's calls
        let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
        for line in std::fs::read_to_string(&trace).unwrap().lines() {
            let mut parts = line.splitn(2, ' ');
            let (Some(pid), Some(call)) = (parts.next(), parts.next()) else {
                continue;
            };
            let name = call
                .trim_start()
                .split('(')
                .next()
                .unwrap_or("")
                .to_string();
            if SYSCALLS.contains(&name.as_str()) {
                *counts.entry((pid.to_string(), name)).or_default() += 1;
            }
        }
        let mut most: BTreeMap<String, usize> = BTreeMap::new();
        for ((_, name), n) in counts {
            let m = most.entry(name).or_default();
            *m = (*m).max(n);
        }
        let after_full = files(reference.home());
        for (name, n) in most {
            for k in 1..=n {
                tried += 1;
                let home = fresh(&s);
                let before = files(home.home());
                let inject = match injected {
                    Injected::Kill => format!("inject={name}:signal=SIGKILL:when={k}"),
                    Injected::NoSpace => format!("inject={name}:error=ENOSPC:when={k}"),
                };
                STRACE.with(|p| {
                    *p.borrow_mut() = vec![
                        "-f".into(),
                        "-qq".into(),
                        "-o".into(),
                        "/dev/null".into(),
                        "-e".into(),
                        format!("trace={name}"),
                        "-e".into(),
                        inject,
                    ]
                });
                let out = (s.act)(&home, &[]);
                STRACE.with(|p| p.borrow_mut().clear());
                let interrupted = match injected {
                    Injected::Kill => out.status.signal() == Some(9),
                    Injected::NoSpace => true,
                };
                hit += usize::from(interrupted);
                let what = format!("{} {injected:?} at {name} #{k}/{n}", s.name);
                if let Injected::NoSpace = injected {
                    let err = crate::support::stderr(&out);
                    if err.contains("panicked") {
                        broken.push(format!("{what}: panicked: {err}"));
                        continue;
                    }
                }
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    invariants(&s, &home, &reference, &before, &after_full, &what)
                }));
                if let Err(e) = result {
                    let msg = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    broken.push(format!("{what}: {msg:.600}"));
                }
            }
        }
    }
    (tried, hit, broken, started.elapsed())
}

#[test]
fn every_kill_point_of_every_writing_command_recovers() {
    let (tried, took) = matrix(Fault::Kill);
    eprintln!("crash matrix (kill): {tried} kill points, 0 broken invariants, {took:?}");
    assert!(
        tried >= 30 || std::env::var_os("PMS_CRASH_ONLY").is_some(),
        "{tried}"
    );
}

#[test]
fn every_full_disk_point_leaves_files_whole() {
    let (tried, took) = matrix(Fault::DiskFull);
    eprintln!("crash matrix (full disk): {tried} points, 0 broken invariants, {took:?}");
    assert!(
        tried >= 30 || std::env::var_os("PMS_CRASH_ONLY").is_some(),
        "{tried}"
    );
}

/// The full matrix (issue 18), behind a flag: every rename, link, unlink,
/// fsync and truncation of every scenario, pms's and SQLite's, killed by
/// strace with no help from pms. Minutes, not seconds:
/// `cargo test --test tests crash::full -- --ignored --nocapture`
/// (`PMS_CRASH_ONLY=<scenario>` for one scenario, here and in the seam
/// matrices).
#[test]
#[ignore = "the full crash matrix takes minutes: run with --ignored"]
fn full_matrix_kill_at_every_syscall() {
    let (tried, hit, broken, took) = strace_matrix(Injected::Kill);
    eprintln!(
        "full crash matrix (strace SIGKILL): {tried} kill points, {hit} killed, {} broken invariants, {took:?}",
        broken.len()
    );
    assert!(broken.is_empty(), "{}", broken.join("\n\n"));
}

/// The same points failing with ENOSPC, as on a full disk.
#[test]
#[ignore = "the full crash matrix takes minutes: run with --ignored"]
fn full_matrix_enospc_at_every_syscall() {
    let (tried, _, broken, took) = strace_matrix(Injected::NoSpace);
    eprintln!(
        "full crash matrix (strace ENOSPC): {tried} points, {} broken invariants, {took:?}",
        broken.len()
    );
    assert!(broken.is_empty(), "{}", broken.join("\n\n"));
}

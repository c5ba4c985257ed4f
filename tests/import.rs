//! `pms import` as a user runs it: the real binary in a temporary HOME, the
//! exports and databases as the tools write them (tests/fixtures/import:
//! claude-mem's database made by its own SessionStore, basic-memory's note
//! by `basic-memory tool write-note`, the MCP memory server's file by the
//! server; the ChatGPT and Claude.ai exports built from their documented
//! fields), read in place and never changed.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{TestHome, hit_uris, snapshot, stderr, stdout};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import");
const CONV_1: &str = "6781f0a2-9c3c-8005-a1b2-0c0ffee00001";
const CONV_2: &str = "6781f0a2-9c3c-8005-a1b2-0c0ffee00002";

fn fixture(rel: &str) -> PathBuf {
    Path::new(FIXTURES).join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).unwrap()
}

/// A workspace, nothing indexed or imported yet.
fn home() -> TestHome {
    let home = TestHome::new();
    home.init(&["--no-index", "--no-import"]);
    home
}

/// `pms import <args> --json`, parsed; panics unless it succeeded.
fn import(home: &TestHome, args: &[&str]) -> Value {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = home.ok(&all);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

fn zip_of(path: &Path, files: &[(&str, Vec<u8>)]) {
    let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, body) in files {
        w.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(body).unwrap();
    }
    w.finish().unwrap();
}

/// The ChatGPT export as the download gives it.
fn chatgpt_zip(home: &TestHome) -> PathBuf {
    let z = home.path("Downloads/3f9a-2026-11-20-10-00-00.zip");
    std::fs::create_dir_all(z.parent().unwrap()).unwrap();
    zip_of(
        &z,
        &[
            ("conversations.json", read("chatgpt/conversations.json")),
            ("user.json", b"{\"id\": \"user-1\"}".to_vec()),
            ("chat.html", b"<html></html>".to_vec()),
            ("file-AbC123-image.png", vec![0x89, b'P', b'N', b'G']),
        ],
    );
    z
}

fn counts(v: &Value, what: &str) -> (u64, u64, u64) {
    let c = &v[what];
    (
        c["new"].as_u64().unwrap(),
        c["changed"].as_u64().unwrap(),
        c["unchanged"].as_u64().unwrap(),
    )
}

/// `after` holds the files `before` did, byte for byte, and no others
/// (says which differ, not all their bytes).
fn assert_unchanged(before: &std::collections::BTreeMap<String, Vec<u8>>, dir: &Path, what: &str) {
    let after = snapshot(dir);
    let differ: Vec<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(differ.is_empty(), "{what}: {differ:?}");
}

/// The files under `dir`, but for temporary files of an interrupted write.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = snapshot(dir)
        .into_keys()
        .filter(|k| !k.rsplit('/').next().unwrap().starts_with(".pms-tmp-"))
        .collect();
    out.sort();
    out
}

#[test]
fn a_chatgpt_export_zip_is_searchable_at_once_on_the_branch_the_user_kept() {
    let home = home();
    let zip = chatgpt_zip(&home);
    let zip_before = std::fs::read(&zip).unwrap();
    let r = import(&home, &["chatgpt", zip.to_str().unwrap()]);
    assert_eq!(counts(&r, "conversations"), (2, 0, 0), "{r:#}");
    assert!(r["indexed_chunks"].as_u64().unwrap() >= 5, "{r:#}");
    assert_eq!(
        std::fs::read(&zip).unwrap(),
        zip_before,
        "the export is read in place"
    );

    // searchable at once, turn by turn, with its date
    let v = home.search_json("borrow checker reference local");
    let hit = &v["hits"][0];
    assert_eq!(hit["uri"], format!("chatgpt://{CONV_1}.jsonl"), "{v:#}");
    assert!(
        hit["date"].as_str().unwrap().starts_with("2025-01-11"),
        "{hit}"
    );
    // the regenerated answer the user moved away from is not kept
    let v = home.search_json("regenerated-away");
    assert!(hit_uris(&v).is_empty(), "{v:#}");

    // `pms get` opens it, with or without `.jsonl`
    for spec in [
        format!("chatgpt://{CONV_1}"),
        format!("chatgpt://{CONV_1}.jsonl"),
    ] {
        let text = stdout(&home.ok(&["get", &spec]));
        assert!(text.contains("Rust lifetimes question"), "{text}");
        assert!(text.contains("Return an owned `String` instead"), "{text}");
        assert!(!text.contains("regenerated-away"), "{text}");
        assert!(
            !text.contains("Preferred name"),
            "custom instructions are no turn: {text}"
        );
    }
    let text = stdout(&home.ok(&["get", &format!("chatgpt://{CONV_2}")]));
    assert!(
        text.contains("[tool python]") && text.contains("[result python] <Figure"),
        "{text}"
    );

    // the custom instructions are proposed, not written
    let ids: Vec<(&str, &str)> = r["identity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["file"].as_str().unwrap(), p["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ids,
        [
            ("_me/profile.md", "proposed"),
            ("_me/preferences.md", "proposed")
        ]
    );
    let profile = std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap();
    assert!(
        !profile.contains("Preferred name: Sam"),
        "never written silently"
    );

    // listed by `pms status`
    let status = stdout(&home.ok(&["status"]));
    assert!(
        status.contains("ChatGPT export") && status.contains("imported"),
        "{status}"
    );
    let s: Value = serde_json::from_slice(&home.ok(&["status", "--json"]).stdout).unwrap();
    assert_eq!(s["imports"][0]["source"], "chatgpt", "{s:#}");
    assert_eq!(s["imports"][0]["last"]["conversations"], 2, "{s:#}");
}

#[test]
fn adding_the_custom_instructions_takes_the_users_yes_and_happens_once() {
    let home = home();
    let zip = chatgpt_zip(&home);
    let r = import(
        &home,
        &["chatgpt", zip.to_str().unwrap(), "--identity", "add"],
    );
    assert_eq!(r["identity"][0]["status"], "added", "{r:#}");
    let profile = std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap();
    assert_eq!(
        profile.matches("Preferred name: Sam").count(),
        1,
        "{profile}"
    );
    let prefs = std::fs::read_to_string(home.workspace().join("_me/preferences.md")).unwrap();
    assert!(
        prefs.contains("## From ChatGPT: how you asked it to answer"),
        "{prefs}"
    );
    assert!(
        prefs.contains("Be terse. Prefer code over prose."),
        "{prefs}"
    );
    // again: nothing more
    let r = import(
        &home,
        &["chatgpt", zip.to_str().unwrap(), "--identity", "add"],
    );
    assert_eq!(r["identity"][0]["status"], "added");
    let again = std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap();
    assert_eq!(again, profile);
    // and the session start now knows it
    let out = home.hook(
        "session-start",
        &json!({"session_id": "s1", "cwd": home.home(), "source": "startup"}),
    );
    assert!(
        stdout(&out).contains("Preferred name: Sam"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_sharded_export_keeps_the_newer_copy_of_a_conversation_in_two_shards() {
    let home = home();
    let dir = home.path("export");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fixture("chatgpt/conversations-000.json"),
        dir.join("conversations-000.json"),
    )
    .unwrap();
    // the second shard holds conversation 2 and a later copy of conversation 1
    let mut second: Vec<Value> =
        serde_json::from_slice(&read("chatgpt/conversations-001.json")).unwrap();
    let mut first: Vec<Value> =
        serde_json::from_slice(&read("chatgpt/conversations-000.json")).unwrap();
    let mut later = first.remove(0);
    later["update_time"] = json!(1736700999.0);
    later["mapping"]["aa000002-0000-4000-8000-000000000005"]["message"]["content"]["parts"][0] =
        json!("Because it is dropped. Return an owned String: the later copy.");
    second.push(later);
    std::fs::write(
        dir.join("conversations-001.json"),
        serde_json::to_vec(&second).unwrap(),
    )
    .unwrap();
    let r = import(&home, &["chatgpt", dir.to_str().unwrap()]);
    assert_eq!(counts(&r, "conversations"), (2, 1, 0), "{r:#}");
    let text = stdout(&home.ok(&["get", &format!("chatgpt://{CONV_1}")]));
    assert!(text.contains("the later copy"), "{text}");
    assert_eq!(
        files_under(&home.workspace().join(".pms/imports/chatgpt")).len(),
        2
    );
}

#[test]
fn importing_again_adds_only_what_is_new_and_an_interrupted_import_resumes() {
    let home = home();
    let zip = chatgpt_zip(&home);
    let z = zip.to_str().unwrap();
    // killed before its second file: one conversation written, nothing indexed
    let out = home
        .pms(&["import", "chatgpt", z])
        .env("PMS_TEST_KILL_AT", "2")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        files_under(&home.workspace().join(".pms/imports/chatgpt")).len(),
        1
    );
    let r = import(&home, &["chatgpt", z]);
    assert_eq!(counts(&r, "conversations"), (1, 0, 1), "resumed: {r:#}");
    assert_eq!(
        snapshot(&home.workspace().join(".pms/imports/chatgpt")).len(),
        2,
        "the killed write's temporary file swept"
    );
    // the conversation the killed run wrote is searchable too
    assert_eq!(
        hit_uris(&home.search_json("borrow checker"))[0],
        format!("chatgpt://{CONV_1}.jsonl")
    );
    assert_eq!(
        hit_uris(&home.search_json("matplotlib"))[0],
        format!("chatgpt://{CONV_2}.jsonl")
    );
    // the same export again: nothing new
    let r = import(&home, &["chatgpt", z]);
    assert_eq!(counts(&r, "conversations"), (0, 0, 2), "{r:#}");
    assert_eq!(r["indexed_chunks"], 0);
    // a later export: one conversation went on, one is new
    let mut all: Vec<Value> = serde_json::from_slice(&read("chatgpt/conversations.json")).unwrap();
    let m = all[1]["mapping"].as_object_mut().unwrap();
    m.get_mut("m2-out").unwrap()["children"] = json!(["m2-more"]);
    m.insert(
        "m2-more".into(),
        json!({"id": "m2-more", "parent": "m2-out", "children": [], "message": {"id": "m2-more",
            "author": {"role": "user"}, "create_time": 1736700100.0,
            "content": {"content_type": "text", "parts": ["Now label the axes in Fahrenheit"]}}}),
    );
    all[1]["current_node"] = json!("m2-more");
    all[1]["update_time"] = json!(1736700100.0);
    let mut third = all[1].clone();
    third["id"] = json!("third-conversation");
    third["conversation_id"] = json!("third-conversation");
    third["title"] = json!("Sourdough starter schedule");
    all.push(third);
    let later = home.path("Downloads/later.zip");
    zip_of(
        &later,
        &[("conversations.json", serde_json::to_vec(&all).unwrap())],
    );
    let r = import(&home, &["chatgpt", later.to_str().unwrap()]);
    assert_eq!(counts(&r, "conversations"), (1, 1, 1), "{r:#}");
    let mut hits = hit_uris(&home.search_json("Fahrenheit axes"));
    hits.dedup();
    assert_eq!(
        hits,
        [
            format!("chatgpt://{CONV_2}.jsonl"),
            "chatgpt://third-conversation.jsonl".to_string()
        ],
        "the continued conversation and the new one"
    );
    // no conversation twice
    assert_eq!(
        files_under(&home.workspace().join(".pms/imports/chatgpt")).len(),
        3
    );
    let borrow = hit_uris(&home.search_json("borrow checker"));
    assert_eq!(borrow, [format!("chatgpt://{CONV_1}.jsonl")]);
}

#[test]
fn a_file_cut_short_is_refused_with_where_and_the_fix_and_nothing_is_written() {
    let home = home();
    let full = read("chatgpt/conversations.json");
    let cut = home.path("conversations.json");
    std::fs::write(&cut, &full[..full.len() - 300]).unwrap();
    let before = snapshot(&home.workspace());
    let out = home.run(&["import", "chatgpt", cut.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(&cut.display().to_string()), "{err}");
    assert!(err.contains("cut short") && err.contains("item 2"), "{err}");
    assert!(err.contains("Fix: download the export again"), "{err}");
    assert_unchanged(&before, &home.workspace(), "nothing half-written");

    // a zip cut short while downloading
    let zip = chatgpt_zip(&home);
    let bytes = std::fs::read(&zip).unwrap();
    std::fs::write(&zip, &bytes[..bytes.len() - 40]).unwrap();
    let out = home.run(&["import", "chatgpt", zip.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a complete zip file"),
        "{}",
        stderr(&out)
    );
    // not valid JSON inside an item
    let broken =
        String::from_utf8(full.clone())
            .unwrap()
            .replacen("\"title\": null", "\"title\": nul", 1);
    std::fs::write(&cut, broken).unwrap();
    let err = stderr(&home.run(&["import", "chatgpt", cut.to_str().unwrap()]));
    assert!(
        err.contains("conversation 2 (from byte") && err.contains("is not valid JSON"),
        "{err}"
    );
    // a zip without the expected files, and the other tool's export
    let other = home.path("photos.zip");
    zip_of(&other, &[("a.json", b"[]".to_vec())]);
    let err = stderr(&home.run(&["import", "chatgpt", other.to_str().unwrap()]));
    assert!(
        err.contains("it is not a ChatGPT export") && err.contains("Fix:"),
        "{err}"
    );
    let err = stderr(&home.run(&[
        "import",
        "chatgpt",
        fixture("claude-ai/conversations.json").to_str().unwrap(),
    ]));
    assert!(
        err.contains("this is a Claude.ai export") && err.contains("Fix: pms import claude"),
        "{err}"
    );
    assert_unchanged(&before, &home.workspace(), "nothing half-written");
}

#[test]
fn a_dry_run_counts_and_samples_and_writes_nothing() {
    let home = home();
    let zip = chatgpt_zip(&home);
    let before = snapshot(&home.workspace());
    let r = import(&home, &["chatgpt", zip.to_str().unwrap(), "--dry-run"]);
    assert_eq!(r["dry_run"], true);
    assert_eq!(counts(&r, "conversations"), (2, 0, 0), "{r:#}");
    assert_eq!(r["sample"][0]["title"], "Rust lifetimes question", "{r:#}");
    assert_eq!(r["sample"][0]["to"], format!("chatgpt://{CONV_1}.jsonl"));
    assert_eq!(r["identity"][0]["status"], "proposed");
    assert_unchanged(&before, &home.workspace(), "a dry run writes nothing");
    let text = stdout(&home.ok(&["import", "chatgpt", zip.to_str().unwrap(), "--dry-run"]));
    assert!(text.contains("Dry run: nothing was written."), "{text}");
    assert!(text.contains("2 new"), "{text}");
}

/// The three layouts Claude.ai's export has had.
#[derive(Debug, Clone, Copy)]
enum ClaudeLayout {
    /// One zip: conversations.json, projects.json, users.json, memories.json.
    Classic,
    /// The same with one projects/<uuid>.json per project, memories.json an object.
    ProjectsSplit,
    /// The zips a 2026 manifest links to, downloaded into one folder.
    Manifest,
}

fn claude_export(home: &TestHome, layout: ClaudeLayout) -> PathBuf {
    const PROJECT: &str = "projects/0199aa00-0000-4000-8000-000000000a01.json";
    match layout {
        ClaudeLayout::Classic => {
            let z = home.path("data-abc-batch-0000.zip");
            zip_of(
                &z,
                &[
                    ("conversations.json", read("claude-ai/conversations.json")),
                    ("projects.json", read("claude-ai/projects.json")),
                    ("users.json", read("claude-ai/users.json")),
                    ("memories.json", read("claude-ai/memories.json")),
                ],
            );
            z
        }
        ClaudeLayout::ProjectsSplit => {
            let z = home.path("data-def-batch-0000.zip");
            zip_of(
                &z,
                &[
                    ("conversations.json", read("claude-ai/conversations.json")),
                    (PROJECT, read(&format!("claude-ai/{PROJECT}"))),
                    ("users.json", read("claude-ai/users.json")),
                    ("memories.json", read("claude-ai/memories.object-form.json")),
                ],
            );
            z
        }
        ClaudeLayout::Manifest => {
            let d = home.path("claude-export");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("manifest-2026-09-10.json"), b"{\"files\": []}").unwrap();
            zip_of(
                &d.join("conversations-000.zip"),
                &[("conversations.json", read("claude-ai/conversations.json"))],
            );
            zip_of(
                &d.join("projects-000.zip"),
                &[(PROJECT, read(&format!("claude-ai/{PROJECT}")))],
            );
            zip_of(
                &d.join("memories-000.zip"),
                &[(
                    "memories/a1b2c3d4-0000-4000-8000-00000000acc7.json",
                    read("claude-ai/memories.object-form.json"),
                )],
            );
            d
        }
    }
}

#[test]
fn claude_exports_in_all_three_layouts_import_alike() {
    for layout in [
        ClaudeLayout::Classic,
        ClaudeLayout::ProjectsSplit,
        ClaudeLayout::Manifest,
    ] {
        let name = format!("{layout:?}");
        let home = home();
        let input = claude_export(&home, layout);
        let r = import(&home, &["claude", input.to_str().unwrap()]);
        assert_eq!(counts(&r, "conversations"), (1, 0, 0), "{name}: {r:#}");
        assert_eq!(
            counts(&r, "notes"),
            (3, 0, 0),
            "{name}: project, its document, the memory: {r:#}"
        );
        assert_eq!(r["skipped"]["a conversation with no messages"], 1, "{name}");
        assert_eq!(
            r["identity"][0]["heading"],
            "From Claude: what it remembered about you"
        );
        let v = home.search_json("dedupe re-imports uuid");
        assert_eq!(
            hit_uris(&v)[0],
            "claude-ai://1f0e8b7a-3c2d-4e5f-9a8b-7c6d5e4f3a21.jsonl",
            "{name}: {v:#}"
        );
        let v = home.search_json("helping build pms Rust CLI");
        let uri = &hit_uris(&v)[0];
        assert!(
            uri.starts_with("imported/claude-ai/projects/pms-") && uri.ends_with("/project.md"),
            "{name}: {v:#}"
        );
        let note = std::fs::read_to_string(home.workspace().join(uri)).unwrap();
        assert!(
            note.contains("original_id: projects/0199aa00-0000-4000-8000-000000000a01"),
            "{note}"
        );
        assert!(
            note.contains("pms stores memories in SQLite with FTS5"),
            "{name}: the project's memory: {note}"
        );
        let text = stdout(&home.ok(&["get", "claude-ai://1f0e8b7a-3c2d-4e5f-9a8b-7c6d5e4f3a21"]));
        assert!(
            text.contains("[attachment notes.md]") && !text.contains("They want idempotency"),
            "{text}"
        );
    }
}

/// The claude-mem database claude-mem's own SessionStore wrote, copied
/// into a folder of its own as `~/.claude-mem/claude-mem.db`.
fn claude_mem_home(fixture_db: &str) -> (TestHome, PathBuf) {
    let home = home();
    let dir = home.path(".claude-mem");
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("claude-mem.db");
    std::fs::copy(fixture(fixture_db), &db).unwrap();
    (home, db)
}

#[test]
fn claude_mem_is_read_in_place_and_never_changed_even_while_it_runs() {
    let (home, db) = claude_mem_home("claude-mem/claude-mem.current-v49.db");
    let dir = db.parent().unwrap().to_path_buf();
    // read-only, as a user's own file may be
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = snapshot(&dir);
    // its default place: no path needed
    let r = import(&home, &["claude-mem"]);
    assert_unchanged(&before, &dir, "not a byte changed, no file added beside it");
    assert_eq!(counts(&r, "notes"), (1, 0, 0), "{r:#}");
    assert_eq!(r["found"]["observations"], 1);
    let v = home.search_json("current_node parent links");
    let uri = &hit_uris(&v)[0];
    assert!(
        uri.starts_with("imported/claude-mem/pms/2026-11-26-"),
        "{v:#}"
    );
    let note = std::fs::read_to_string(home.workspace().join(uri)).unwrap();
    for want in [
        "imported_from: claude-mem",
        "original_id: session/mem-7b2d4c10-sdk-session",
        "1. Add import command for ChatGPT exports",
        "- Learned: create_time may be null",
        "## Walk ChatGPT tree from current_node (decision)",
        "_claude-mem observation 1, 2026-11-26 13:50; files: src/import/chatgpt.rs_",
        "- current_node marks the visible branch",
    ] {
        assert!(note.contains(want), "{want}: {note}");
    }
    assert!(
        v["hits"][0]["date"]
            .as_str()
            .unwrap()
            .starts_with("2026-11-26"),
        "dated by the observation: {v:#}"
    );

    // claude-mem running: a row still in its write-ahead log is read, and
    // the database file is left as it is
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    writer
        .execute(
            "INSERT INTO observations (memory_session_id, project, type, title, narrative, created_at, created_at_epoch)
             VALUES ('mem-7b2d4c10-sdk-session', 'pms', 'discovery', 'Zip exports hold shards', 'Newer ChatGPT exports split conversations into numbered files.', '2026-11-26T14:00:00.000Z', 1795704000000)",
            [],
        )
        .unwrap();
    let main_file = std::fs::read(&db).unwrap();
    let r = import(&home, &["claude-mem", db.to_str().unwrap()]);
    assert_eq!(counts(&r, "notes"), (0, 1, 0), "{r:#}");
    assert_eq!(std::fs::read(&db).unwrap(), main_file);
    assert!(
        hit_uris(&home.search_json("numbered files shards"))
            .iter()
            .any(|u| u.starts_with("imported/claude-mem/"))
    );
    drop(writer);
}

#[test]
fn an_older_claude_mem_schema_and_claude_mem_lite_are_read_by_their_columns() {
    let (home, db) = claude_mem_home("claude-mem/claude-mem.legacy-v11.db");
    let r = import(&home, &["claude-mem", db.to_str().unwrap()]);
    assert_eq!(r["found"]["observations"], 2, "{r:#}");
    let v = home.search_json("flaky test shared temp dir");
    let note = std::fs::read_to_string(home.workspace().join(&hit_uris(&v)[0])).unwrap();
    assert!(
        note.contains("1. fix flaky test"),
        "prompts found through claude_session_id: {note}"
    );
    assert!(
        note.contains("## Store uses WAL mode (discovery)"),
        "a row with only `text`: {note}"
    );

    // claude-mem-lite: its tombstoned rows left out, its events kept
    let lite = home.path(".claude-mem-lite/claude-mem-lite.db");
    std::fs::create_dir_all(lite.parent().unwrap()).unwrap();
    std::fs::copy(fixture("claude-mem-lite/claude-mem-lite.min.db"), &lite).unwrap();
    let c = rusqlite::Connection::open(&lite).unwrap();
    c.execute(
        "INSERT INTO observations (memory_session_id, project, text, type, title, narrative, created_at, created_at_epoch, superseded_at)
         VALUES ('manual-pms', 'pms', 'old', 'decision', 'Use tabs for indentation', 'Use tabs for indentation', '2026-02-01T10:00:00.000Z', 1769940000000, 1772359200000)",
        [],
    )
    .unwrap();
    drop(c);
    let err = stderr(&home.run(&["import", "claude-mem", lite.to_str().unwrap()]));
    assert!(
        err.contains("this is a claude-mem-lite database")
            && err.contains("Fix: pms import claude-mem-lite"),
        "{err}"
    );
    let r = import(&home, &["claude-mem-lite"]);
    assert_eq!(
        r["found"]["observations"], 1,
        "the superseded row left out: {r:#}"
    );
    assert_eq!(r["found"]["events"], 1);
    assert!(hit_uris(&home.search_json("tabs indentation")).is_empty());
    let v = home.search_json("nextest no-tests pass");
    assert!(
        hit_uris(&v)[0].starts_with("imported/claude-mem-lite/pms/events-2026-03"),
        "{v:#}"
    );

    // not a database pms knows
    let other = home.path("other.db");
    let c = rusqlite::Connection::open(&other).unwrap();
    c.execute_batch("CREATE TABLE schema_versions (version INTEGER); INSERT INTO schema_versions VALUES (99); CREATE TABLE observations (id INTEGER, body TEXT);").unwrap();
    drop(c);
    let err = stderr(&home.run(&["import", "claude-mem", other.to_str().unwrap()]));
    assert!(
        err.contains("(schema version 99)") && err.contains("Fix:"),
        "{err}"
    );
}

/// basic-memory as `basic-memory tool write-note` left it: its config
/// (current shape) naming a project whose folder holds the note.
fn basic_memory_home() -> (TestHome, PathBuf) {
    let home = home();
    let notes = home.path("basic-memory");
    std::fs::create_dir_all(notes.join("specs")).unwrap();
    std::fs::write(
        notes.join("specs/Import Design.md"),
        read("basic-memory/Import Design.md"),
    )
    .unwrap();
    let mut config: Value =
        serde_json::from_slice(&read("basic-memory/config.current.json")).unwrap();
    config["projects"]["main"]["path"] = json!(notes);
    std::fs::create_dir_all(home.path(".basic-memory")).unwrap();
    std::fs::write(home.path(".basic-memory/config.json"), config.to_string()).unwrap();
    (home, notes)
}

#[test]
fn basic_memory_notes_keep_their_text_gain_provenance_and_keep_the_users_edits() {
    let (home, notes) = basic_memory_home();
    let r = import(&home, &["basic-memory"]);
    assert_eq!(counts(&r, "notes"), (1, 0, 0), "{r:#}");
    assert_eq!(
        (
            r["found"]["observations"].as_u64(),
            r["found"]["relations"].as_u64()
        ),
        (Some(3), Some(3))
    );
    let copy = home
        .workspace()
        .join("imported/basic-memory/main/specs/Import Design.md");
    let text = std::fs::read_to_string(&copy).unwrap();
    assert!(
        text.contains("permalink: main/specs/import-design\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "imported_from: basic-memory\noriginal_id: main/main/specs/import-design\n---"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("See also [[Basic Memory Format]] for the note syntax."),
        "{text}"
    );
    let v = home.search_json("ISO 8601 timestamps Claude export");
    assert_eq!(
        hit_uris(&v)[0],
        "imported/basic-memory/main/specs/Import Design.md",
        "{v:#}"
    );

    // the source changes: the copy follows, until its owner edits it
    let src = notes.join("specs/Import Design.md");
    let mut body = std::fs::read_to_string(&src).unwrap();
    body.push_str("\n- [decision] Keep the user's edits #import\n");
    std::fs::write(&src, &body).unwrap();
    assert_eq!(
        counts(&import(&home, &["basic-memory"]), "notes"),
        (0, 1, 0)
    );
    let mut edited = std::fs::read_to_string(&copy).unwrap();
    edited.push_str("\nMy own remark.\n");
    std::fs::write(&copy, &edited).unwrap();
    body.push_str("- [fact] changed again\n");
    std::fs::write(&src, &body).unwrap();
    let r = import(&home, &["basic-memory"]);
    assert_eq!(
        r["kept_edited"][0], "imported/basic-memory/main/specs/Import Design.md",
        "{r:#}"
    );
    assert_eq!(
        std::fs::read_to_string(&copy).unwrap(),
        edited,
        "the user's edit kept"
    );

    // the config's older shape, and a folder given directly
    let legacy = home.path("legacy.json");
    std::fs::write(&legacy, json!({"projects": {"work": notes}}).to_string()).unwrap();
    let r = import(
        &home,
        &["basic-memory", legacy.to_str().unwrap(), "--dry-run"],
    );
    assert_eq!(
        r["sample"][0]["to"], "imported/basic-memory/work/specs/Import Design.md",
        "{r:#}"
    );
}

#[test]
fn the_mcp_memory_graph_becomes_one_note_per_entity() {
    let home = home();
    let file = home.path("mcp/memory.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(fixture("mcp-memory/memory.jsonl"), &file).unwrap();
    let r = import(&home, &["mcp-memory", file.to_str().unwrap()]);
    assert_eq!(counts(&r, "notes"), (2, 0, 0), "{r:#}");
    let v = home.search_json("who maintains pms");
    assert!(
        hit_uris(&v)
            .iter()
            .any(|u| u.starts_with("imported/mcp-memory/person/alice-")),
        "{v:#}"
    );
    let v = home.search_json("Rust memory system for coding agents");
    assert!(
        hit_uris(&v)[0].starts_with("imported/mcp-memory/project/pms-"),
        "{v:#}"
    );
    // found where the server keeps it when Claude Code runs it
    std::fs::write(
        home.path(".claude.json"),
        json!({"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"],
               "env": {"MEMORY_FILE_PATH": file}}}})
        .to_string(),
    )
    .unwrap();
    let r = import(&home, &["mcp-memory"]);
    assert_eq!(counts(&r, "notes"), (0, 0, 2), "{r:#}");
    // a line that is not JSON
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n{\"type\":\"entity\",\"name\":");
    std::fs::write(&file, text).unwrap();
    let err = stderr(&home.run(&["import", "mcp-memory", file.to_str().unwrap()]));
    assert!(
        err.contains("line 4 is cut short") && err.contains("Fix: correct or delete that line"),
        "{err}"
    );
}

#[test]
fn rules_and_corrections_in_imported_conversations_wait_for_the_users_yes() {
    let home = home();
    let conversation = json!([{
        "title": "Deploy script", "create_time": 1736616594.0, "update_time": 1736616700.0,
        "id": "c-rules", "conversation_id": "c-rules", "current_node": "a",
        "mapping": {
            "r": {"id": "r", "parent": null, "children": ["u"], "message": null},
            "u": {"id": "u", "parent": "r", "children": ["a"], "message": {"id": "u", "author": {"role": "user"},
                "create_time": 1736616594.0, "content": {"content_type": "text",
                "parts": ["The deploy dropped the index again. From now on, always run the migrations inside a transaction."]}}},
            "a": {"id": "a", "parent": "u", "children": [], "message": {"id": "a", "author": {"role": "assistant"},
                "create_time": 1736616600.0, "recipient": "all", "content": {"content_type": "text",
                "parts": ["You're right, I was wrong: the script skipped the lock. Lesson: never deploy while a migration holds the lock."]}}}
        }
    }]);
    let path = home.path("conversations.json");
    std::fs::write(&path, conversation.to_string()).unwrap();
    let r = import(&home, &["chatgpt", path.to_str().unwrap()]);
    assert_eq!(r["learnings"], 2, "{r:#}");
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    let pending: Vec<(&str, &str)> = v["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["text"].as_str().unwrap(),
                p["transcript_ref"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pending,
        [
            (
                "Always run the migrations inside a transaction.",
                "chatgpt://c-rules.jsonl"
            ),
            (
                "Never deploy while a migration holds the lock.",
                "chatgpt://c-rules.jsonl"
            ),
        ],
        "{v:#}"
    );
    let again = import(&home, &["chatgpt", path.to_str().unwrap()]);
    assert_eq!(again["learnings"], 0, "nothing staged twice");
}

/// Labelled queries per source over one workspace holding every import,
/// with distractors of the same shape: the expected item must be among
/// the first three hits.
#[test]
fn search_finds_imported_text_by_what_it_says() {
    let home = home();
    let topics = [
        (
            "kubernetes",
            "How do I roll back a Kubernetes deployment?",
            "Use kubectl rollout undo deployment/web to return to the previous ReplicaSet.",
        ),
        (
            "sourdough",
            "My sourdough starter smells like acetone",
            "Feed it more often: a hungry starter makes acetone-smelling alcohol.",
        ),
        (
            "invoice",
            "Write a SQL query for unpaid invoices older than 30 days",
            "SELECT * FROM invoices WHERE paid_at IS NULL AND issued_at < now() - interval '30 days'.",
        ),
        (
            "tax",
            "Do I owe tax on foreign dividends?",
            "Usually yes; a tax treaty may credit what the other country withheld.",
        ),
        (
            "bike",
            "My bike chain keeps slipping under load",
            "A worn cassette or a stretched chain: measure the chain with a checker.",
        ),
        (
            "vim",
            "How to delete every line matching a pattern in vim",
            "Use :g/pattern/d to delete each matching line.",
        ),
        (
            "garden",
            "When should I prune tomato plants?",
            "Pinch the suckers weekly once the first flowers set.",
        ),
        (
            "postgres",
            "Postgres vacuum is not reclaiming space",
            "Plain VACUUM marks space reusable; VACUUM FULL rewrites the table and returns it.",
        ),
    ];
    let chatgpt: Vec<Value> = topics
        .iter()
        .enumerate()
        .map(|(i, (id, q, a))| {
            let t = 1730000000.0 + i as f64 * 86400.0;
            json!({"title": null, "create_time": t, "update_time": t + 60.0, "id": format!("gpt-{id}"),
                "conversation_id": format!("gpt-{id}"), "current_node": "a",
                "mapping": {
                    "u": {"id": "u", "parent": null, "children": ["a"], "message": {"id": "u", "author": {"role": "user"},
                        "create_time": t, "content": {"content_type": "text", "parts": [q]}}},
                    "a": {"id": "a", "parent": "u", "children": [], "message": {"id": "a", "author": {"role": "assistant"},
                        "create_time": t + 30.0, "recipient": "all", "content": {"content_type": "text", "parts": [a]}}}}})
        })
        .collect();
    let gpt = home.path("gpt.json");
    std::fs::write(&gpt, serde_json::to_vec(&chatgpt).unwrap()).unwrap();
    import(&home, &["chatgpt", gpt.to_str().unwrap()]);
    let claude: Vec<Value> = topics
        .iter()
        .map(|(id, q, a)| {
            json!({"uuid": format!("cl-{id}"), "name": "", "created_at": "2025-03-01T10:00:00Z", "updated_at": "2025-03-01T10:01:00Z",
                "chat_messages": [
                    {"uuid": "h", "sender": "human", "text": format!("(asked again) {q}"), "content": [], "created_at": "2025-03-01T10:00:00Z"},
                    {"uuid": "b", "sender": "assistant", "text": "", "content": [{"type": "text", "text": format!("Claude: {a}")}], "created_at": "2025-03-01T10:00:30Z"}]})
        })
        .collect();
    let cl = home.path("claude-conversations.json");
    std::fs::write(&cl, serde_json::to_vec(&claude).unwrap()).unwrap();
    import(&home, &["claude", cl.to_str().unwrap()]);
    let notes = home.path("bm-notes");
    std::fs::create_dir_all(&notes).unwrap();
    for (id, q, a) in &topics {
        std::fs::write(
            notes.join(format!("{id}.md")),
            format!("---\ntitle: {id}\n---\n\n# {q}\n\n- [answer] {a}\n"),
        )
        .unwrap();
    }
    import(&home, &["basic-memory", notes.to_str().unwrap()]);
    let mcp = home.path("memory.jsonl");
    let lines: Vec<String> = topics
        .iter()
        .map(|(id, q, a)| {
            json!({"type": "entity", "name": id, "entityType": "topic", "observations": [q, a]})
                .to_string()
        })
        .collect();
    std::fs::write(&mcp, lines.join("\n")).unwrap();
    import(&home, &["mcp-memory", mcp.to_str().unwrap()]);

    let db = home.path("claude-mem.db");
    std::fs::copy(fixture("claude-mem/claude-mem.current-v49.db"), &db).unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    for (i, (id, q, a)) in topics.iter().enumerate() {
        let epoch = 1790000000000_i64 + i as i64 * 86_400_000;
        c.execute(
            "INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
             VALUES (?1, ?2, 'life', ?3, '2026-09-21T00:00:00Z', ?4, 'completed')",
            rusqlite::params![format!("content-{id}"), format!("mem-{id}"), q, epoch],
        )
        .unwrap();
        c.execute(
            "INSERT INTO observations (memory_session_id, project, type, title, narrative, created_at, created_at_epoch)
             VALUES (?1, 'life', 'discovery', ?2, ?3, '2026-09-21T00:00:00Z', ?4)",
            rusqlite::params![format!("mem-{id}"), format!("About {id}"), a, epoch],
        )
        .unwrap();
    }
    drop(c);
    import(&home, &["claude-mem", db.to_str().unwrap()]);

    // (query, the source's addresses, the item's address starts with)
    let labelled = [
        (
            "undo a kubernetes rollout to the previous replicaset",
            "chatgpt://",
            "chatgpt://gpt-kubernetes",
        ),
        (
            "starter smells of nail polish acetone",
            "chatgpt://",
            "chatgpt://gpt-sourdough",
        ),
        (
            "unpaid invoices older than thirty days",
            "chatgpt://",
            "chatgpt://gpt-invoice",
        ),
        (
            "chain slipping worn cassette",
            "claude-ai://",
            "claude-ai://cl-bike",
        ),
        (
            "vim delete lines matching pattern",
            "claude-ai://",
            "claude-ai://cl-vim",
        ),
        (
            "vacuum full reclaim space postgres",
            "claude-ai://",
            "claude-ai://cl-postgres",
        ),
        (
            "prune tomato suckers",
            "imported/basic-memory/",
            "imported/basic-memory/bm-notes/garden.md",
        ),
        (
            "foreign dividends tax treaty",
            "imported/basic-memory/",
            "imported/basic-memory/bm-notes/tax.md",
        ),
        (
            "kubectl rollout undo",
            "imported/basic-memory/",
            "imported/basic-memory/bm-notes/kubernetes.md",
        ),
        (
            "sourdough acetone feed",
            "imported/mcp-memory/",
            "imported/mcp-memory/topic/sourdough-",
        ),
        (
            "bike chain checker",
            "imported/mcp-memory/",
            "imported/mcp-memory/topic/bike-",
        ),
        (
            "invoices issued_at interval",
            "imported/mcp-memory/",
            "imported/mcp-memory/topic/invoice-",
        ),
        (
            "what did I learn about treaty credits on dividends",
            "imported/claude-mem/",
            "imported/claude-mem/life/2026-09-24-do-i-owe-tax",
        ),
        (
            "vacuum full rewrites the table",
            "imported/claude-mem/",
            "imported/claude-mem/life/2026-09-28-postgres",
        ),
        (
            "acetone smelling alcohol hungry starter",
            "imported/claude-mem/",
            "imported/claude-mem/life/2026-09-22-my-sourdough",
        ),
    ];
    let (mut in_source, mut on_topic) = (0, 0);
    for (q, source, want) in labelled {
        let v: Value = serde_json::from_slice(
            &home
                .ok(&["search", q, "--json", "--group", "none", "-n", "40"])
                .stdout,
        )
        .unwrap();
        let uris = hit_uris(&v);
        // the right item first among its source's items
        let first_of_source = uris.iter().find(|u| u.starts_with(source));
        let right = first_of_source.is_some_and(|u| u.starts_with(want));
        // and the first hit of all is about the same topic (from any source)
        let topic = topics
            .iter()
            .map(|(id, _, _)| *id)
            .find(|id| want.contains(id))
            .unwrap();
        let topical = uris.first().is_some_and(|u| u.contains(topic));
        println!(
            "{q:<52} first of {source:<24} {:<55} topic first: {topical}",
            first_of_source.map(String::as_str).unwrap_or("-")
        );
        in_source += usize::from(right);
        on_topic += usize::from(topical);
    }
    println!(
        "imported text, {} labelled queries: right item first of its source {in_source}, right topic first of all {on_topic}",
        labelled.len()
    );
    assert_eq!((in_source, on_topic), (labelled.len(), labelled.len()));
}

#[test]
fn without_a_source_it_lists_what_is_on_this_machine() {
    let (home, _) = claude_mem_home("claude-mem/claude-mem.current-v49.db");
    chatgpt_zip(&home);
    let text = stdout(&home.ok(&["import"]));
    assert!(
        text.contains("claude-mem")
            && text.contains("pms import claude-mem ~/.claude-mem/claude-mem.db"),
        "{text}"
    );
    assert!(
        text.contains("ChatGPT export")
            && text.contains("pms import chatgpt ~/Downloads/3f9a-2026-11-20-10-00-00.zip"),
        "{text}"
    );
    let status = stdout(&home.ok(&["status"]));
    assert!(
        status.contains("found at ~/.claude-mem/claude-mem.db"),
        "{status}"
    );
    // `pms init --yes` imports them (its default), without touching _me/
    let again = TestHome::new();
    std::fs::create_dir_all(again.path(".claude-mem")).unwrap();
    std::fs::copy(
        fixture("claude-mem/claude-mem.current-v49.db"),
        again.path(".claude-mem/claude-mem.db"),
    )
    .unwrap();
    let out = again.init(&["--no-index"]);
    let text = stdout(&out);
    assert!(
        text.contains("Found memory from other tools")
            || text.contains("Imported from the claude-mem"),
        "{text}"
    );
    assert!(
        files_under(&again.workspace().join("imported/claude-mem")).len() == 1,
        "{text}"
    );
}

/// The agent's side: `memory_search` finds the imported turn and
/// `memory_get` opens the conversation by the URI the hit gave.
#[test]
fn the_agent_finds_and_opens_an_imported_conversation_over_mcp() {
    use std::time::Duration;
    let home = home();
    let zip = chatgpt_zip(&home);
    import(&home, &["chatgpt", zip.to_str().unwrap()]);
    let mut server = crate::mcp_robustness::Server::start(&home);
    server.handshake();
    let call = |server: &mut crate::mcp_robustness::Server, id: u64, name: &str, args: Value| {
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}}));
        let v = server
            .answer(&json!(id), Duration::from_secs(20))
            .expect("answered");
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let found = call(
        &mut server,
        1,
        "memory_search",
        json!({"query": "borrow checker"}),
    );
    let uri = format!("chatgpt://{CONV_1}.jsonl");
    assert!(found.contains(&uri), "{found}");
    let text = call(&mut server, 2, "memory_get", json!({"path": uri}));
    assert!(text.contains("Return an owned `String` instead"), "{text}");
    assert!(!text.contains("regenerated-away"), "{text}");
}

/// A secret the user pasted into another tool, wherever it was: in a
/// conversation's title and turns, custom instructions, an attachment, a
/// project's instructions, what Claude remembered, a claude-mem prompt (the
/// note's name comes from it), an observation, a basic-memory note, an MCP
/// entity's name and observations. Nothing pms writes or prints holds it,
/// not even a part of it in a file's name.
#[test]
fn secrets_in_every_source_are_redacted_in_all_pms_writes_and_prints() {
    let home = home();
    let gh = format!("ghp_{}", "Zq7".repeat(12));
    let ant = format!("sk-ant-api03-{}", "Wx9Vb4".repeat(8));
    let leaks = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        // a part of a secret is a leak too: a slug keeps its first letters
        ["Zq7Zq7Zq7", "Wx9Vb4Wx9", "wx9vb4wx9", "zq7zq7zq7"]
            .iter()
            .any(|s| text.contains(s))
    };
    let inputs = home.path("inputs");
    std::fs::create_dir_all(&inputs).unwrap();
    let mut printed: Vec<Vec<u8>> = Vec::new();
    let mut run = |args: &[&str]| {
        let out = home.ok(&[&["import"], args].concat());
        printed.push(out.stdout);
        printed.push(out.stderr);
    };

    let t = 1_736_616_594.0;
    let gpt = json!([{"id": "sec-1", "conversation_id": "sec-1", "title": format!("deploy with {gh}"),
        "create_time": t, "update_time": t + 60.0, "current_node": "a",
        "mapping": {
            "ctx": {"id": "ctx", "parent": null, "children": ["u"], "message": {"id": "ctx",
                "author": {"role": "user"}, "create_time": null,
                "content": {"content_type": "user_editable_context", "user_profile": "", "user_instructions": ""},
                "metadata": {"is_visually_hidden_from_conversation": true, "is_user_system_message": true,
                    "user_context_message_data": {"about_user_message": format!("I deploy with the token {ant}"),
                        "about_model_message": "Be terse."}}}},
            "u": {"id": "u", "parent": "ctx", "children": ["c"], "message": {"id": "u", "author": {"role": "user"},
                "create_time": t, "content": {"content_type": "text",
                    "parts": [format!("From now on always push with {gh} please")]}}},
            "c": {"id": "c", "parent": "u", "children": ["a"], "message": {"id": "c", "author": {"role": "assistant"},
                "create_time": t + 5.0, "recipient": "python",
                "content": {"content_type": "code", "language": "python", "text": format!("token = '{ant}'")}}},
            "a": {"id": "a", "parent": "c", "children": [], "message": {"id": "a", "author": {"role": "assistant"},
                "create_time": t + 9.0, "recipient": "all",
                "content": {"content_type": "text", "parts": [format!("Done; {gh} is set.")]}}}}}]);
    let gpt_path = inputs.join("conversations.json");
    std::fs::write(&gpt_path, serde_json::to_vec(&gpt).unwrap()).unwrap();
    run(&["chatgpt", gpt_path.to_str().unwrap(), "--dry-run"]);
    run(&["chatgpt", gpt_path.to_str().unwrap(), "--dry-run", "--json"]);
    run(&["chatgpt", gpt_path.to_str().unwrap(), "--identity", "add"]);

    let claude = inputs.join("claude");
    std::fs::create_dir_all(&claude).unwrap();
    let at = "2025-01-05T20:55:32.499880Z";
    std::fs::write(
        claude.join("conversations.json"),
        json!([{"uuid": "sec-c", "name": format!("keys {ant}"), "created_at": at, "updated_at": at,
            "chat_messages": [
                {"uuid": "h", "sender": "human", "text": format!("my key is {ant}"), "content": [], "created_at": at,
                 "attachments": [{"file_name": ".env", "extracted_content": format!("GITHUB_TOKEN={gh}\n")}]},
                {"uuid": "b", "sender": "assistant", "text": "", "created_at": at,
                 "content": [{"type": "text", "text": format!("Store {gh} in a vault.")}]}]}])
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        claude.join("projects.json"),
        json!([{"uuid": "p-sec", "name": format!("ops {gh}"), "description": "", "created_at": at, "updated_at": at,
            "prompt_template": format!("Use {ant} for the API."),
            "docs": [{"uuid": "d-sec", "filename": format!("{gh}.txt"), "content": format!("key {ant}"), "created_at": at}]}])
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        claude.join("memories.json"),
        json!([{"conversations_memory": format!("**Work**\n\nSam keeps {gh} in their shell profile."),
            "project_memories": {"p-sec": format!("The project uses {ant}.")}, "account_uuid": "acct"}])
        .to_string(),
    )
    .unwrap();
    std::fs::write(claude.join("users.json"), "[]").unwrap();
    run(&["claude", claude.to_str().unwrap(), "--dry-run", "--json"]);
    run(&["claude", claude.to_str().unwrap(), "--identity", "add"]);

    let db = inputs.join("claude-mem.db");
    std::fs::copy(fixture("claude-mem/claude-mem.current-v49.db"), &db).unwrap();
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute(
        "INSERT INTO sdk_sessions (content_session_id, memory_session_id, project, user_prompt, started_at, started_at_epoch, status)
         VALUES ('content-sec', 'mem-sec', 'ops', ?1, '2026-09-21T00:00:00Z', 1790000000000, 'completed')",
        [format!("{gh} rotate it")],
    )
    .unwrap();
    c.execute(
        "INSERT INTO user_prompts (content_session_id, prompt_number, prompt_text, created_at, created_at_epoch)
         VALUES ('content-sec', 1, ?1, '2026-09-21T00:00:00Z', 1790000000000)",
        [format!("{gh} rotate it")],
    )
    .unwrap();
    c.execute(
        "INSERT INTO observations (memory_session_id, project, type, title, narrative, facts, created_at, created_at_epoch)
         VALUES ('mem-sec', 'ops', 'discovery', ?1, ?2, ?3, '2026-09-21T00:00:00Z', 1790000000000)",
        [
            format!("Token {gh}"),
            format!("The old key {ant} was revoked."),
            json!([format!("uses {gh}")]).to_string(),
        ],
    )
    .unwrap();
    drop(c);
    run(&["claude-mem", db.to_str().unwrap(), "--dry-run"]);
    run(&["claude-mem", db.to_str().unwrap()]);

    let notes = inputs.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("deploy.md"),
        format!("---\ntitle: Deploy {gh}\n---\n\n# Deploy\n\n- [secret] the token is {ant} #ops\n"),
    )
    .unwrap();
    run(&["basic-memory", notes.to_str().unwrap()]);

    let mcp = inputs.join("memory.jsonl");
    std::fs::write(
        &mcp,
        [
            json!({"type": "entity", "name": format!("key {gh}"), "entityType": "credential", "observations": [format!("value {ant}")]}),
            json!({"type": "relation", "from": format!("key {gh}"), "to": "ops", "relationType": "unlocks"}),
        ]
        .map(|v| v.to_string())
        .join("\n"),
    )
    .unwrap();
    run(&["mcp-memory", mcp.to_str().unwrap(), "--dry-run"]);
    run(&["mcp-memory", mcp.to_str().unwrap()]);
    printed.push(home.ok(&["import"]).stdout);
    printed.push(home.ok(&["status"]).stdout);

    // everything was imported (a test of redaction that imported nothing
    // would pass), and nothing pms wrote or printed holds a secret
    let written: Vec<(String, Vec<u8>)> = snapshot(home.home())
        .into_iter()
        .filter(|(k, _)| !k.starts_with("inputs/"))
        .collect();
    let names = |prefix: &str| written.iter().filter(|(k, _)| k.contains(prefix)).count();
    assert!(
        names(".pms/imports/chatgpt/sec-1.jsonl") == 1,
        "{:?}",
        written.iter().map(|w| &w.0).collect::<Vec<_>>()
    );
    assert!(names(".pms/imports/claude-ai/sec-c.jsonl") == 1);
    for dir in [
        "imported/claude-ai/",
        "imported/claude-mem/ops/",
        "imported/basic-memory/",
        "imported/mcp-memory/credential/",
    ] {
        assert!(names(dir) > 0, "nothing in {dir}");
    }
    let profile = std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap();
    assert!(profile.contains("I deploy with the token"), "{profile}");
    let pending = std::fs::read_to_string(home.workspace().join(".pms/pending-learnings.json"))
        .unwrap_or_default();
    assert!(pending.contains("push with"), "{pending}");
    let leaked: Vec<&String> = written
        .iter()
        .filter(|(k, v)| leaks(k.as_bytes()) || leaks(v))
        .map(|(k, _)| k)
        .collect();
    assert!(leaked.is_empty(), "a secret in {leaked:?}");
    for p in &printed {
        assert!(!leaks(p), "printed: {}", String::from_utf8_lossy(p));
    }
}

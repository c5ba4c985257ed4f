//! `pms index`, `pms search` and `pms get` as a user runs them: real
//! binary, temporary HOME, real SQLite file, real transcripts on disk.

use crate::support::{TestHome, stdout};
use serde_json::{Value, json};

fn user(ts: &str, text: &str) -> String {
    json!({"type": "user", "timestamp": ts, "sessionId": "s1", "cwd": "/home/u/app",
           "message": {"role": "user", "content": text}})
    .to_string()
}

fn assistant(ts: &str, id: &str, text: &str) -> String {
    json!({"type": "assistant", "timestamp": ts,
           "message": {"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}})
    .to_string()
}

/// A home with a workspace and one project of transcripts.
fn setup() -> TestHome {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&project).unwrap();
    let lines = [
        user(
            "2026-11-01T09:00:00Z",
            "How should we shard the billing database?",
        ),
        assistant(
            "2026-11-01T09:00:05Z",
            "m1",
            "Shard the billing database by tenant id; keep invoices co-located.",
        ),
        user("2026-11-01T09:01:00Z", "我们的数据库迁移计划是什么?"),
        assistant(
            "2026-11-01T09:01:05Z",
            "m2",
            "迁移计划:先复制数据,再切换读流量。",
        ),
    ];
    std::fs::write(project.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    home
}

fn index(home: &TestHome) -> Value {
    let out = home.ok(&["index", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn search(home: &TestHome, q: &str) -> Value {
    home.search_json(q)
}

fn uris(v: &Value) -> Vec<String> {
    crate::support::hit_uris(v)
}

/// The files found, in order, each once (hits are single turns or chunks,
/// several of which may come from one file).
fn files(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for u in uris(v) {
        if !out.contains(&u) {
            out.push(u);
        }
    }
    out
}

#[test]
fn finds_knowledge_transcripts_and_chinese() {
    let home = setup();
    let r = index(&home);
    assert_eq!(r["sessions"], 1);
    assert!(r["chunks"].as_i64().unwrap() > 20);

    let v = search(&home, "shard billing tenant");
    assert_eq!(uris(&v)[0], "cc://-home-u-app/s1.jsonl");
    let hit = &v["hits"][0];
    assert_eq!(hit["line_start"], 2);
    assert_eq!(hit["source"], "transcript");
    assert!(hit["snippet"].as_str().unwrap().contains("tenant"));
    assert_eq!(v["mode"], "keyword");

    let v = search(&home, "数据库");
    assert_eq!(files(&v), vec!["cc://-home-u-app/s1.jsonl"]);
    assert_eq!(v["hits"][0]["line_start"], 3, "{v}");
    let v = search(&home, "six pre-thinking questions PRD");
    assert_eq!(uris(&v)[0], "product/workflows/prd.md");
}

#[test]
fn structured_memory_outranks_an_equal_transcript_hit() {
    let home = setup();
    std::fs::write(
        home.workspace().join("product/projects/pricing.md"),
        "# Pricing\nWe chose usage-based pricing for the zephyr plan.\n",
    )
    .unwrap();
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::write(
        project.join("s2.jsonl"),
        user(
            "2026-11-02T09:00:00Z",
            "We chose usage-based pricing for the zephyr plan.",
        ) + "\n",
    )
    .unwrap();
    index(&home);
    let v = search(&home, "zephyr pricing");
    assert_eq!(uris(&v)[0], "product/projects/pricing.md");
    assert_eq!(uris(&v)[1], "cc://-home-u-app/s2.jsonl");
    let knowledge = v["hits"][0]["score"].as_f64().unwrap();
    let transcript = v["hits"][1]["score"].as_f64().unwrap();
    assert!(knowledge > transcript);
    // and the filters work
    let only = home.ok(&["search", "zephyr", "--source", "transcript", "--json"]);
    let only: Value = serde_json::from_slice(&only.stdout).unwrap();
    assert_eq!(uris(&only), vec!["cc://-home-u-app/s2.jsonl"]);
    let since = home.ok(&[
        "search",
        "zephyr",
        "--source",
        "transcript",
        "--since",
        "2026-11-03",
        "--json",
    ]);
    let since: Value = serde_json::from_slice(&since.stdout).unwrap();
    assert!(uris(&since).is_empty());
    let project = home.ok(&["search", "pricing", "--project", "product", "--json"]);
    let project: Value = serde_json::from_slice(&project.stdout).unwrap();
    assert!(
        uris(&project).iter().all(|u| u.starts_with("product/")),
        "{project}"
    );
}

#[test]
fn hostile_queries_never_break_the_search() {
    let home = setup();
    index(&home);
    for q in [
        r#"""#,
        "AND",
        "OR OR",
        "*",
        "-",
        ":",
        "NEAR(",
        "billing\" OR *",
        "body:x",
        "((",
        "^",
        "'",
        "\\",
    ] {
        let out = home.run(&["search", q, "--json"]);
        assert!(
            out.status.success(),
            "query {q:?} failed: {}",
            crate::support::stderr(&out)
        );
    }
    let v = search(&home, r#"billing" OR "*"#);
    assert_eq!(files(&v), vec!["cc://-home-u-app/s1.jsonl"]);
}

#[test]
fn and_first_then_or_fallback() {
    let home = setup();
    index(&home);
    let v = search(&home, "billing database");
    assert_eq!(v["matched"], "all-terms");
    let v = search(&home, "billing xylophone");
    assert_eq!(v["matched"], "any-term");
    assert_eq!(uris(&v)[0], "cc://-home-u-app/s1.jsonl");
    // other inflections than the ones written: of each word's forms, those
    // the transcripts hold ("shard") are searched
    let v = search(&home, "sharded database");
    assert_eq!(v["matched"], "all-terms", "{v}");
    assert_eq!(uris(&v)[0], "cc://-home-u-app/s1.jsonl");
    // a word the tokenizer folds ("Müller" is stored as "muller") is found
    let project = home.path(".claude/projects/-home-u-app");
    let line = user(
        "2026-11-02T10:00:00Z",
        "Call Frau Müller about the Zürich office lease",
    );
    std::fs::write(project.join("s2.jsonl"), line + "\n").unwrap();
    index(&home);
    for q in ["Müller", "Zürich lease"] {
        let v = search(&home, q);
        assert_eq!(
            uris(&v).first().map(String::as_str),
            Some("cc://-home-u-app/s2.jsonl"),
            "{q}: {v}"
        );
    }
    // single-character fallback: no bigram of the query is in the corpus
    let v = search(&home, "划迁");
    assert_eq!(v["matched"], "single-character", "{v}");
    assert_eq!(files(&v), vec!["cc://-home-u-app/s1.jsonl"]);
}

#[test]
fn appended_transcripts_are_read_from_where_they_stopped() {
    let home = setup();
    index(&home);
    let path = home.path(".claude/projects/-home-u-app/s1.jsonl");
    let line = user("2026-11-01T10:00:00Z", "Remember the codeword marmalade.");
    // a half-written line is left for later
    let tail = assistant("2026-11-01T10:00:05Z", "m3", "Noted: marmalade.");
    crate::support::append(&path, &format!("{line}\n{}", &tail[..30]));
    let r = index(&home);
    assert_eq!(r["files_appended"], 1);
    assert_eq!(r["files_indexed"], 0);
    let v = search(&home, "marmalade");
    assert_eq!(v["hits"].as_array().unwrap().len(), 1);
    assert_eq!(v["hits"][0]["line_start"], 5);
    crate::support::append(&path, &format!("{}\n", &tail[30..]));
    let r = index(&home);
    assert_eq!(r["files_appended"], 1);
    let v = search(&home, "noted marmalade");
    assert_eq!(v["hits"][0]["line_start"], 6, "{v}");
    // nothing was indexed twice: the two turns that say "billing", once each
    let v = home.ok(&["search", "billing", "--json", "-n", "50"]);
    let v: Value = serde_json::from_slice(&v.stdout).unwrap();
    let turns: Vec<(String, i64)> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["uri"].as_str().unwrap().starts_with("cc://"))
        .map(|h| (h["uri"].to_string(), h["line_start"].as_i64().unwrap()))
        .collect();
    assert_eq!(turns.len(), 2, "{v}");
    assert_ne!(turns[0], turns[1]);
}

#[test]
fn the_same_corpus_gives_the_same_index_after_a_rebuild() {
    let home = setup();
    let path = home.path(".claude/projects/-home-u-app/s1.jsonl");
    index(&home);
    // grow it in steps, indexing between them
    for i in 0..3 {
        let line = assistant(
            "2026-11-01T11:00:00Z",
            "m9",
            &format!("part {i} of one long answer"),
        );
        crate::support::append(&path, &format!("{line}\n"));
        index(&home);
    }
    let dump = |home: &TestHome| -> Vec<(String, i64, i64, String)> {
        let conn = rusqlite::Connection::open(home.workspace().join(".pms/index.db")).unwrap();
        let mut stmt = conn
            .prepare("SELECT f.uri, c.line_start, c.line_end, c.text FROM chunks c JOIN files f ON f.id = c.file_id ORDER BY 1, 2, 4")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let incremental = dump(&home);
    std::fs::remove_file(home.workspace().join(".pms/index.db")).unwrap();
    index(&home);
    assert_eq!(dump(&home), incremental);
    let joined: Vec<&(String, i64, i64, String)> = incremental
        .iter()
        .filter(|c| c.3.contains("part 0"))
        .collect();
    assert_eq!(joined.len(), 1);
    assert!(
        joined[0].3.contains("part 2"),
        "lines sharing a message id form one chunk"
    );
}

#[test]
fn deleted_and_rewritten_files_leave_or_refresh_the_index() {
    let home = setup();
    index(&home);
    std::fs::remove_file(home.workspace().join("growth/CLAUDE.md")).unwrap();
    std::fs::write(
        home.path(".claude/projects/-home-u-app/s1.jsonl"),
        user("2026-11-05T09:00:00Z", "entirely new talk about quokkas") + "\n",
    )
    .unwrap();
    let r = index(&home);
    assert_eq!(r["files_removed"], 1);
    assert!(
        search(&home, "billing")
            .get("hits")
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .all(|h| !h["uri"].as_str().unwrap().starts_with("cc://"))
    );
    assert_eq!(
        uris(&search(&home, "quokkas")),
        vec!["cc://-home-u-app/s1.jsonl"]
    );
    assert!(
        !uris(&search(&home, "retention cohorts funnel")).contains(&"growth/CLAUDE.md".to_string())
    );
}

#[test]
fn no_op_reindex_reads_nothing() {
    let home = setup();
    index(&home);
    let r = index(&home);
    assert_eq!(r["files_indexed"], 0);
    assert_eq!(r["files_appended"], 0);
    assert_eq!(r["bytes_read"], 0);
    assert_eq!(r["files_unchanged"], r["files_seen"]);
}

#[test]
fn secrets_and_private_spans_never_reach_the_database() {
    let home = setup();
    let project = home.path(".claude/projects/-home-u-app");
    let lines = [
        user(
            "2026-11-03T09:00:00Z",
            "my key is sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF and the db is postgres://app:Sup3rSecretPw@db:5432/x",
        ),
        user(
            "2026-11-03T09:01:00Z",
            "note <private>my therapist is Dr. Quill</private> done",
        ),
    ];
    std::fs::write(project.join("s3.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::write(
        home.workspace().join("_me/preferences.md"),
        "# Prefs\nGITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    )
    .unwrap();
    index(&home);
    let db = std::fs::read(home.workspace().join(".pms/index.db")).unwrap();
    let wal = std::fs::read(home.workspace().join(".pms/index.db-wal")).unwrap_or_default();
    for secret in [
        "AAAABBBBCCCCDDDD",
        "Sup3rSecretPw",
        "Dr. Quill",
        "ghp_abcdefghij",
    ] {
        for (name, bytes) in [("db", &db), ("wal", &wal)] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{secret} stored in the {name}"
            );
        }
    }
    let v = search(&home, "postgres");
    assert!(
        v["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:"),
        "{v}"
    );
    let got = home.ok(&["get", "cc://-home-u-app/s3.jsonl"]);
    assert!(!stdout(&got).contains("Sup3rSecretPw") && !stdout(&got).contains("Dr. Quill"));
}

#[test]
fn malformed_transcripts_are_counted_and_survived() {
    let home = setup();
    let project = home.path(".claude/projects/-home-u-app");
    let big = "y".repeat(10 << 20);
    let lines = [
        "{ this is not json".to_string(),
        json!({"type": "user", "message": {"content": 12}}).to_string(),
        json!({"type": "assistant", "message": "wrong shape"}).to_string(),
        user("2026-11-04T09:00:00Z", &format!("a very long line {big}")),
        user(
            "2026-11-04T09:01:00Z",
            "after the big line comes the wombat",
        ),
    ];
    std::fs::write(
        project.join("bad.jsonl"),
        lines.join("\n") + "\n{\"type\":\"user\",\"trunc",
    )
    .unwrap();
    let r = index(&home);
    assert_eq!(r["malformed_lines"], 3, "{r}");
    assert!(
        r["chunks_written"].as_u64().unwrap() < 200,
        "a 10 MB line is not 3,000 chunks: {r}"
    );
    assert_eq!(
        uris(&search(&home, "wombat")),
        vec!["cc://-home-u-app/bad.jsonl"]
    );
}

#[test]
fn a_corrupt_database_is_rebuilt_by_index_and_explained_by_search() {
    let home = setup();
    index(&home);
    let db = home.workspace().join(".pms/index.db");
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::write(&db, vec![7u8; 10_000]).unwrap();
    let out = home.run(&["search", "billing"]);
    assert!(!out.status.success());
    let err = crate::support::stderr(&out);
    assert!(
        err.contains("index.db") && err.contains("pms index --full"),
        "{err}"
    );
    let out = home.ok(&["index"]);
    assert!(
        crate::support::stderr(&out).contains("rebuilding"),
        "{}",
        crate::support::stderr(&out)
    );
    assert_eq!(
        files(&search(&home, "shard billing")),
        vec!["cc://-home-u-app/s1.jsonl"]
    );
}

#[test]
fn search_before_any_index_says_what_to_do() {
    let home = setup();
    let out = home.run(&["search", "anything"]);
    assert!(!out.status.success());
    assert!(
        crate::support::stderr(&out).contains("run `pms index`"),
        "{}",
        crate::support::stderr(&out)
    );
}

#[test]
fn get_shows_files_and_conversations_and_refuses_escapes() {
    let home = setup();
    let out = home.ok(&["get", "_me/profile.md", "--from", "7", "--lines", "2"]);
    assert_eq!(
        stdout(&out),
        "    7│ - Name: Ada Lovelace\n    8│ - Role: PM\n"
    );
    let out = home.ok(&[
        "get",
        "cc://-home-u-app/s1.jsonl",
        "--from",
        "3",
        "--lines",
        "2",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("[L3] 2026-11-01 09:01 user:\n我们的数据库迁移计划是什么?"),
        "{text}"
    );
    assert!(!text.contains("shard"), "line range respected");
    for bad in [
        "../../etc/passwd",
        "/etc/passwd",
        "cc://../../../etc/passwd",
        ".pms/install.json",
    ] {
        let out = home.run(&["get", bad]);
        assert!(!out.status.success(), "{bad} was served");
    }
}

#[test]
fn init_bootstraps_the_index_and_reports_the_history() {
    let home = TestHome::new();
    let project = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("a.jsonl"),
        user("2026-10-01T09:00:00Z", "first") + "\n",
    )
    .unwrap();
    std::fs::write(
        project.join("b.jsonl"),
        user("2026-11-02T09:00:00Z", "second") + "\n",
    )
    .unwrap();
    let out = home.init(&[]);
    let text = stdout(&out);
    assert!(
        text.contains("Claude Code history: 2 sessions in 1 project, 2026-10-01 to 2026-11-02"),
        "{text}"
    );
    assert_eq!(
        uris(&search(&home, "second")),
        vec!["cc://-home-u-app/b.jsonl"]
    );
}

#[test]
fn very_common_terms_stop_selecting_transcripts_but_not_knowledge() {
    let home = setup();
    std::fs::write(
        home.workspace().join("product/projects/tenants.md"),
        "# Tenants\nEach tenant gets a schema.\n",
    )
    .unwrap();
    index(&home);
    // Pretend "database" is in most of a huge history (the indexer computes
    // this table from FTS5's vocabulary on large indexes).
    let conn = rusqlite::Connection::open(home.workspace().join(".pms/index.db")).unwrap();
    conn.execute(
        "INSERT INTO frequent_terms(term, docs) VALUES ('database', 999999)",
        [],
    )
    .unwrap();
    drop(conn);
    let v = search(&home, "tenant database");
    let got = uris(&v);
    // the transcript turn with both words still comes first, although
    // "database" no longer selects transcripts...
    assert_eq!(got[0], "cc://-home-u-app/s1.jsonl", "{v}");
    assert_eq!(v["matched"], "all-terms");
    // ...and a knowledge file holding one of the words ranks below it (OR
    // with a boost for holding every word, not AND)
    let k = got
        .iter()
        .position(|u| u == "product/projects/tenants.md")
        .expect("the knowledge file matches on tenant");
    assert!(k > 0, "{v}");
    // a turn holding only the very common word is not selected
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["source"] != "transcript" || h["line_start"] != 1),
        "{v}"
    );
    // The table also lists merely common terms (for the second hop): one
    // below the threshold the indexer kept is not frequent, and selects
    // transcripts as any word does.
    let conn = rusqlite::Connection::open(home.workspace().join(".pms/index.db")).unwrap();
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('frequent_terms_threshold', '1000000')",
        [],
    )
    .unwrap();
    drop(conn);
    let v = search(&home, "tenant database");
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["source"] == "transcript" && h["line_start"] == 1),
        "{v}"
    );
}

#[test]
fn index_path_reads_only_the_named_file() {
    let home = setup();
    index(&home);
    let transcript = home.path(".claude/projects/-home-u-app/s1.jsonl");
    let line = user("2026-11-06T09:00:00Z", "now about pelicans");
    crate::support::append(&transcript, &format!("{line}\n"));
    // another change that a targeted run must not pick up
    std::fs::write(
        home.workspace().join("product/projects/otters.md"),
        "# Otters\n",
    )
    .unwrap();
    let out = home.ok(&["index", "--json", "--path", transcript.to_str().unwrap()]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["files_seen"], 1);
    assert_eq!(r["files_appended"], 1);
    assert_eq!(r["files_removed"], 0, "a targeted run deletes nothing");
    assert_eq!(
        uris(&search(&home, "pelicans")),
        vec!["cc://-home-u-app/s1.jsonl"]
    );
    assert!(uris(&search(&home, "otters")).is_empty());
    // outside the workspace and roots: ignored, not an error
    let out = home.ok(&["index", "--json", "--path", "/etc/hostname"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["files_seen"], 0);
}

#[test]
fn transcripts_are_found_where_claude_config_dir_puts_them() {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    // Claude Code writes to $CLAUDE_CONFIG_DIR/projects when that is set
    let config_dir = home.path("cc-config");
    let project = config_dir.join("projects/-home-u-other");
    std::fs::create_dir_all(&project).unwrap();
    let line = user("2026-11-03T09:00:00Z", "the quokka migration is done");
    std::fs::write(project.join("s9.jsonl"), line + "\n").unwrap();
    let with_config_dir = |args: &[&str]| {
        let out = home
            .pms(args)
            .env("CLAUDE_CONFIG_DIR", &config_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", crate::support::stderr(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    with_config_dir(&["index", "--json"]);
    let v = with_config_dir(&["search", "quokka", "--json"]);
    assert_eq!(uris(&v), vec!["cc://-home-u-other/s9.jsonl"], "{v}");
}

/// The disk fills up (SQLite's SQLITE_FULL, simulated with a page limit):
/// the index is kept, search still answers from it, and the error says what
/// happened and not to rebuild.
#[test]
fn a_full_disk_keeps_the_index_and_search_answers() {
    let home = setup();
    index(&home);
    let db = home.workspace().join(".pms/index.db");
    let pages: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .unwrap();
    let notes = home.workspace().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    for i in 0..60 {
        let body: String = (0..200).map(|k| format!("word{i}x{k} ")).collect();
        std::fs::write(
            notes.join(format!("n{i}.md")),
            format!("# Note {i}\n{body}\n"),
        )
        .unwrap();
    }
    let full = |args: &[&str]| {
        home.pms(args)
            .env("PMS_TEST_DB_MAX_PAGES", (pages + 2).to_string())
            .output()
            .unwrap()
    };
    for args in [&["index"][..], &["index", "--full"][..]] {
        let out = full(args);
        assert!(!out.status.success(), "{args:?}");
        let err = crate::support::stderr(&out);
        assert!(err.contains("disk is full"), "{args:?}: {err}");
        assert!(db.exists(), "{args:?} deleted the index");
        assert!(
            uris(&search(&home, "shard billing"))
                .contains(&"cc://-home-u-app/s1.jsonl".to_string()),
            "search still answers after {args:?}"
        );
        assert!(!home.workspace().join(".pms/index.db.rebuild").exists());
    }
}

#[test]
fn hits_are_grouped_by_conversation_and_none_is_dropped() {
    let home = setup();
    // a session summary of s1: shown with its conversation
    std::fs::write(
        home.workspace().join("sessions/20261101-0900-s1.md"),
        "---\nsession_id: s1\nproject: -home-u-app\ntranscript_ref: cc://-home-u-app/s1.jsonl\nend: 2026-11-01T09:01:05Z\n---\n# Sharding the billing database\n## Decisions\n- shard billing by tenant\n",
    )
    .unwrap();
    index(&home);
    let run = |args: &[&str]| -> Value {
        let out = home.ok(&[&["search", "billing database"][..], args, &["--json"]].concat());
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = run(&[]);
    assert_eq!(v["group"], "session");
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups[0]["key"], "cc://-home-u-app/s1.jsonl", "{v}");
    // both turns of the conversation and the two sections of its summary,
    // together
    assert_eq!(groups.len(), 1, "{v}");
    assert_eq!(groups[0]["hits"], 4, "{v}");
    let sources: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources.iter().filter(|s| **s == "transcript").count(), 2);
    // a limit of one keeps the best hit and says how many more matched
    let v = run(&["--limit", "1"]);
    assert_eq!(v["hits"].as_array().unwrap().len(), 1);
    assert_eq!(v["groups"][0]["more"], 3, "{v}");
    // by file, the summary is a group of its own
    let v = run(&["--group", "file"]);
    let keys: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["key"].as_str().unwrap())
        .collect();
    assert!(keys.contains(&"sessions/20261101-0900-s1.md"), "{v}");
    assert!(keys.contains(&"cc://-home-u-app/s1.jsonl"), "{v}");
    let out = home.run(&["search", "billing", "--group", "topic"]);
    assert!(!out.status.success());
}

/// A note hard-linked to a file outside the workspace is neither read by
/// `pms get` nor indexed, so `pms search` never shows its text (issue 27:
/// get refused it while the index took it in); one indexed before it was
/// linked leaves the index.
#[test]
fn a_hard_linked_note_is_neither_read_nor_indexed() {
    let home = setup();
    let outside = home.path("outside-secret-notes.md");
    std::fs::write(
        &outside,
        "# Private\nThe quokka vault combination is kept here.\n",
    )
    .unwrap();
    let linked = home.workspace().join("_me/hard.md");
    std::fs::hard_link(&outside, &linked).unwrap();
    index(&home);
    assert!(uris(&search(&home, "quokka vault combination")).is_empty());
    let got = home.run(&["get", "_me/hard.md"]);
    assert!(!got.status.success());
    assert!(crate::support::stderr(&got).contains("hard links"));

    // indexed while it stood alone, then linked: it leaves the index
    std::fs::remove_file(&linked).unwrap();
    std::fs::write(&linked, "# Alone\nThe wombat ledger lives here.\n").unwrap();
    index(&home);
    assert_eq!(files(&search(&home, "wombat ledger")), ["_me/hard.md"]);
    std::fs::remove_file(&outside).unwrap();
    std::fs::hard_link(&linked, &outside).unwrap();
    index(&home);
    assert!(uris(&search(&home, "wombat ledger")).is_empty());
}

/// Free pages of `db` and its size, in bytes.
fn free_and_size(db: &std::path::Path) -> (i64, i64) {
    let c = rusqlite::Connection::open(db).unwrap();
    let v = |p: &str| {
        c.query_row(&format!("PRAGMA {p}"), [], |r| r.get::<_, i64>(0))
            .unwrap()
    };
    (
        v("freelist_count") * v("page_size"),
        v("page_count") * v("page_size"),
    )
}

/// Issue 27, item 13: the index gives space back. Pages freed inside it
/// (here by a conversation that was deleted; FTS5's merges over many runs
/// do the same: a 117.6 MB index grew to 127.1 MB with 9 MB free) are
/// returned to the disk by the index run itself, never by a hook; an index
/// made before pms set `auto_vacuum` is converted once.
#[test]
fn index_runs_give_free_pages_back_to_the_disk() {
    let home = setup();
    let project = home.path(".claude/projects/-home-u-app");
    let db = home.workspace().join(".pms/index.db");
    for made_by_an_older_pms in [false, true] {
        let mut text = String::new();
        for n in 0..6000 {
            text.push_str(&user(
                "2026-11-02T09:00:00Z",
                &format!(
                    "turn {n}: the ledger {} of shard {} and invoice {}",
                    n * 31 % 997,
                    n * 17 % 1009,
                    n * 13 % 1013
                ),
            ));
            text.push('\n');
        }
        let transcript = project.join("s2.jsonl");
        std::fs::write(&transcript, text).unwrap();
        index(&home);
        if made_by_an_older_pms {
            let c = rusqlite::Connection::open(&db).unwrap();
            c.execute_batch("PRAGMA auto_vacuum = NONE; VACUUM;")
                .unwrap();
        }
        let (_, size) = free_and_size(&db);
        std::fs::remove_file(&transcript).unwrap();
        let v = index(&home);
        let (free_after, size_after) = free_and_size(&db);
        assert!(
            free_after < 1 << 20,
            "{free_after} bytes still free inside the index"
        );
        assert!(size_after < size / 2, "{size} -> {size_after} bytes");
        assert!(v["reclaimed_bytes"].as_i64().unwrap() > 1 << 20, "{v}");
    }
}

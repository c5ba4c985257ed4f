//! Learnings captured as rules (issue 11, item 3), through the real binary
//! in a temporary HOME, with a transcript written as Claude Code writes it:
//! the rule sentence is staged rather than the apology around it; "Lesson:"
//! is the clearest signal; the user's own "from now on …" counts, once, as
//! the user's; one reply gives one item per rule; a restatement is merged
//! into what is pending or in force, and the review and the MCP tools say so
//! and offer the merge. Each of these failed before the rule capture.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp_robustness::Server;
use crate::support::TestHome;

const SESSION: &str = "aaaaaaaa-1111-2222-3333-444444444444";

struct Session {
    home: TestHome,
    transcript: PathBuf,
    id: String,
    n: u32,
}

fn home() -> TestHome {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    home
}

impl Session {
    fn start(home: TestHome, id: &str) -> Session {
        let dir = home.path(".claude/projects/-home-u-app");
        std::fs::create_dir_all(&dir).unwrap();
        let transcript = dir.join(format!("{id}.jsonl"));
        std::fs::write(&transcript, "").unwrap();
        Session {
            home,
            transcript,
            id: id.to_string(),
            n: 0,
        }
    }

    /// Another session in the same home.
    fn next(self, id: &str) -> Session {
        Session::start(self.home, id)
    }

    fn payload(&self, event: &str, extra: Value) -> Value {
        let mut p = json!({"session_id": self.id, "transcript_path": self.transcript,
            "cwd": "/home/u/app", "hook_event_name": event});
        for (k, v) in extra.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    }

    fn hook(&self, event: &str, extra: Value) {
        let out = self.home.hook(event, &self.payload(event, extra));
        assert!(out.status.success());
    }

    /// The user types `prompt`: the prompt hook runs, and Claude Code writes
    /// the prompt to the transcript.
    fn prompt(&mut self, prompt: &str) {
        self.hook("user-prompt", json!({"prompt": prompt}));
        self.n += 1;
        let line = json!({"type":"user","uuid":format!("u{}", self.n),"timestamp":"2026-11-22T12:00:00Z",
            "message":{"role":"user","content":prompt}});
        crate::support::append(&self.transcript, &format!("{line}\n"));
    }

    /// The assistant replies in `parts` (text, then a tool call and its
    /// result between parts), then Stop runs with the last part.
    fn reply(&mut self, parts: &[&str]) {
        for (i, text) in parts.iter().enumerate() {
            self.n += 1;
            let mut content = vec![json!({"type":"text","text":text})];
            let more = i + 1 < parts.len();
            if more {
                content.push(json!({"type":"tool_use","id":format!("t{}", self.n),"name":"Bash","input":{"command":"true"}}));
            }
            let line = json!({"type":"assistant","uuid":format!("a{}", self.n),"timestamp":"2026-11-22T12:00:01Z",
                "message":{"id":format!("msg_{}", self.n),"role":"assistant","content":content}});
            crate::support::append(&self.transcript, &format!("{line}\n"));
            if more {
                let result = json!({"type":"user","uuid":format!("r{}", self.n),"timestamp":"2026-11-22T12:00:02Z",
                    "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("t{}", self.n),"content":"ok"}]}});
                crate::support::append(&self.transcript, &format!("{result}\n"));
            }
        }
        self.hook(
            "stop",
            json!({"last_assistant_message": parts.last().unwrap()}),
        );
    }

    fn end(&self) {
        self.hook("session-end", json!({"reason": "other"}));
    }

    fn pending(&self) -> Vec<Value> {
        let path = self.home.workspace().join(".pms/pending-learnings.json");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        v["items"].as_array().unwrap().clone()
    }

    fn state(&self) -> Value {
        self.home
            .read_json(&format!("pms/.pms/state/{}.json", self.id))
    }
}

fn texts(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["text"].as_str().unwrap()).collect()
}

#[test]
fn the_rule_is_staged_not_the_apology_around_it() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("The orders table is half migrated again. What happened?");
    s.reply(&["You're right, I was wrong: the migration ran outside a transaction, so the failed step left half the tables changed. Lesson: always run schema migrations inside a transaction."]);
    s.end();
    let items = s.pending();
    assert_eq!(
        texts(&items),
        ["Always run schema migrations inside a transaction."],
        "{items:#?}"
    );
    assert_eq!(items[0]["kind"], "rule");
    assert_eq!(items[0]["origin"], "assistant");
    let why = items[0]["why"].as_str().unwrap();
    assert!(why.contains("ran outside a transaction"), "{why}");
    // accepting it as staged writes the rule, not an apology
    let id = items[0]["id"].as_str().unwrap();
    s.home.ok(&["lessons", "accept", id]);
    let lessons = std::fs::read_to_string(s.home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains("] Always run schema migrations inside a transaction."),
        "{lessons}"
    );
    assert!(!lessons.contains("You're right"));
}

#[test]
fn a_lesson_stated_plainly_is_staged() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("Why did the deploy leave the schema half changed?");
    s.reply(&["Lesson: always run schema migrations inside a transaction."]);
    let mut s = s;
    s.prompt("下次怎么避免？");
    s.reply(&["教训是：数据库迁移一定要在事务里跑，并且先在预发环境演练。"]);
    s.end();
    let items = s.pending();
    assert_eq!(
        texts(&items),
        [
            "Always run schema migrations inside a transaction.",
            "数据库迁移一定要在事务里跑，并且先在预发环境演练。"
        ],
        "{items:#?}"
    );
}

#[test]
fn the_users_own_rule_is_staged_once_and_as_the_users() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("You deployed on a Friday evening again. From now on, never deploy on Fridays without an on-call engineer.");
    // recorded by the prompt hook, as the user's, before any reply
    let st = s.state();
    assert_eq!(st["signals"][0]["origin"], "user", "{st}");
    assert_eq!(
        st["signals"][0]["text"],
        "Never deploy on Fridays without an on-call engineer."
    );
    s.reply(&[
        "Understood — from now on I will never deploy on Fridays without an on-call engineer.",
    ]);
    s.prompt("以后不要在周五下午上线。");
    s.reply(&["好的，记住了。"]);
    s.prompt("Thanks. Now, what is the status of the billing export?");
    s.reply(&["The export finished at 09:12 and wrote 4,210 rows."]);
    s.end();
    let items = s.pending();
    // the hook saw each prompt, the transcript too: each rule is staged once
    assert_eq!(
        texts(&items),
        [
            "Never deploy on Fridays without an on-call engineer.",
            "不要在周五下午上线。"
        ],
        "{items:#?}"
    );
    assert!(items.iter().all(|i| i["origin"] == "user"), "{items:#?}");
    // ending again (a recovery racing SessionEnd) stages nothing more
    s.end();
    assert_eq!(s.pending().len(), 2);

    // without the prompt hook (it failed, or another agent), the transcript
    // alone gives the user's rule, still as the user's
    let mut s = s.next("bbbbbbbb-1111-2222-3333-444444444444");
    s.n = 100;
    let line = json!({"type":"user","uuid":"u100","timestamp":"2026-11-22T12:00:00Z",
        "message":{"role":"user","content":"Remember: the staging cluster is in eu-west-1, not us-east-1."}});
    crate::support::append(&s.transcript, &format!("{line}\n"));
    s.reply(&["Noted."]);
    s.end();
    let items = s.pending();
    let staging: Vec<&Value> = items
        .iter()
        .filter(|i| i["text"].as_str().unwrap().contains("eu-west-1"))
        .collect();
    assert_eq!(staging.len(), 1, "{items:#?}");
    assert_eq!(
        staging[0]["text"],
        "The staging cluster is in eu-west-1, not us-east-1."
    );
    assert_eq!(staging[0]["origin"], "user");
    // `pms lessons` says who said it
    let listed = crate::support::stdout(&s.home.ok(&["lessons"]));
    assert!(listed.contains("you said"), "{listed}");
}

#[test]
fn one_reply_gives_one_item_per_rule() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("The nightly job died again.");
    s.reply(&["You're right, I misread the log. The job failed because the disk was full. Never write temp files to the root partition. In short: don't put temp files on the root partition."]);
    // a reply whose correction comes before a tool call and whose rule after it
    s.prompt("The cron fired an hour early.");
    s.reply(&[
        "You're right, I was wrong: the cron ran in local time, not in UTC.",
        "Fixed the crontab. Going forward, I'll write every crontab schedule in UTC.",
    ]);
    s.end();
    let items = s.pending();
    assert_eq!(
        texts(&items),
        [
            "Never write temp files to the root partition.",
            "Write every crontab schedule in UTC."
        ],
        "{items:#?}"
    );
    assert!(
        items[0]["why"]
            .as_str()
            .unwrap()
            .contains("the disk was full"),
        "{items:#?}"
    );
    assert!(
        items[1]["why"].as_str().unwrap().contains("local time"),
        "{items:#?}"
    );
}

#[test]
fn a_restated_learning_is_merged_not_staged_again() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("Why did compose pull Postgres 17?");
    s.reply(&["The upgrade broke because the latest tag pulled a new major. Always pin the Postgres major version in docker-compose files."]);
    s.end();
    let first = s.pending();
    assert_eq!(first.len(), 1, "{first:#?}");
    // a later session: the user says the same, in other words
    let mut s = s.next("cccccccc-1111-2222-3333-444444444444");
    s.prompt("remember: always pin the postgres major version in compose files");
    s.reply(&["Will do."]);
    s.end();
    let items = s.pending();
    assert_eq!(items.len(), 1, "restated, not staged again: {items:#?}");
    assert_eq!(items[0]["id"], first[0]["id"]);
    assert_eq!(
        items[0]["seen_again"],
        json!(["cccccccc-1111-2222-3333-444444444444"])
    );
    assert_eq!(items[0]["origin"], "user", "the user's word wins");

    // a learning that restates a lesson in force is not staged at all
    s.home.ok(&[
        "lessons",
        "add",
        "Never force-push to the main branch.",
        "--when",
        "git push --force",
    ]);
    let mut s = s.next("dddddddd-1111-2222-3333-444444444444");
    s.prompt("From now on, never force-push to main.");
    s.reply(&["Understood."]);
    s.end();
    assert_eq!(s.pending().len(), 1, "{:#?}", s.pending());
}

/// A pending learning that a lesson in force nearly says: `pms lessons`
/// and the MCP `lessons_pending` name the lesson; `lessons_promote` names
/// it and changes nothing unless told to merge (or to add it anyway).
#[test]
fn mcp_names_the_near_duplicate_lesson_and_merges_on_request() {
    let mut s = Session::start(home(), SESSION);
    s.prompt("Why did the March invoices not add up?");
    s.reply(&["Lesson: round invoice totals per invoice, never per line."]);
    s.end();
    let id = s.pending()[0]["id"].as_str().unwrap().to_string();
    s.home.ok(&[
        "lessons",
        "add",
        "Always round invoice totals per invoice rather than per line.",
    ]);
    let rules: Value = serde_json::from_slice(&s.home.ok(&["lessons", "--json"]).stdout).unwrap();
    let lesson = rules["rules"][0]["id"].as_str().unwrap().to_string();
    let listed = crate::support::stdout(&s.home.ok(&["lessons"]));
    assert!(
        listed.contains(&format!("nearly the same as {lesson}")),
        "{listed}"
    );

    let mut server = Server::start(&s.home);
    server.handshake();
    let mut call = |n: u64, name: &str, args: Value| -> (String, bool) {
        server.send(&json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": name, "arguments": args}}));
        let v = server
            .answer(&json!(n), Duration::from_secs(15))
            .expect("answered");
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        (text, v["result"]["isError"] == json!(true))
    };
    let (pending, _) = call(1, "lessons_pending", json!({}));
    assert!(
        pending.contains(&format!("nearly the same as lesson {lesson}"))
            && pending.contains("merge: true"),
        "{pending}"
    );
    let (answer, is_error) = call(2, "lessons_promote", json!({"id": id}));
    assert!(is_error, "{answer}");
    assert!(
        answer.contains(&lesson) && answer.contains("merge: true"),
        "{answer}"
    );
    let rules: Value = serde_json::from_slice(&s.home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert_eq!(
        rules["rules"].as_array().unwrap().len(),
        1,
        "nothing written"
    );
    assert_eq!(rules["pending"].as_array().unwrap().len(), 1);
    let (answer, is_error) = call(
        3,
        "lessons_promote",
        json!({"id": id, "merge": true, "text": "Round invoice totals per invoice, never per line.",
            "applies_when": ["invoice rounding", "totals off by a cent"]}),
    );
    assert!(!is_error && answer.contains("Merged"), "{answer}");
    let rules: Value = serde_json::from_slice(&s.home.ok(&["lessons", "--json"]).stdout).unwrap();
    let r = rules["rules"].as_array().unwrap();
    assert_eq!(r.len(), 1, "{rules:#}");
    assert_eq!(r[0]["id"], json!(lesson), "the lesson keeps its id");
    assert_eq!(
        r[0]["text"],
        "Round invoice totals per invoice, never per line."
    );
    assert!(rules["pending"].as_array().unwrap().is_empty());
}

/// `pms lessons review` in a pty: a learning that a lesson in force nearly
/// says is shown with that lesson before any choice, and merging into it is
/// the first choice.
#[test]
fn review_warns_of_a_near_duplicate_and_merges_it() {
    use rexpect::session::spawn_command;
    let home = home();
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    pms::memory::lessons::pending::stage(
        &ws,
        vec![pms::memory::lessons::pending::Candidate {
            kind: "rule".into(),
            text: "Always pin the Postgres major version in docker-compose files.".into(),
            origin: pms::memory::lessons::signals::Origin::User,
            session_id: Some("s1".into()),
            ..Default::default()
        }],
        &[],
    )
    .unwrap();
    home.ok(&[
        "lessons",
        "add",
        "Pin the postgres major version in compose files",
    ]);
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
    p.exp_string("[1/1]").unwrap();
    p.exp_string("you said").unwrap();
    p.exp_string("A lesson in force says nearly the same")
        .unwrap();
    p.exp_string("It restates a lesson in force").unwrap();
    p.exp_string("Merge into L-").unwrap();
    let key = |p: &mut rexpect::session::PtySession, k: &str| {
        p.send(k).unwrap();
        p.flush().unwrap();
        std::thread::sleep(Duration::from_millis(60));
    };
    key(&mut p, "\r"); // merge
    p.exp_string("When does it apply?").unwrap();
    // clear the suggested cues, then type one's own
    key(&mut p, &"\x7f".repeat(200));
    key(&mut p, "docker-compose.yml\r");
    p.exp_string("Merged into L-").unwrap();
    p.exp_eof().unwrap();
    let rules: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    let r = rules["rules"].as_array().unwrap();
    assert_eq!(r.len(), 1, "{rules:#}");
    assert_eq!(
        r[0]["text"],
        "Always pin the Postgres major version in docker-compose files."
    );
    assert_eq!(r[0]["when"], json!(["docker-compose.yml"]));
    assert!(rules["pending"].as_array().unwrap().is_empty());
}

/// A user's rule that carries a secret is kept without it, in the session
/// state the prompt hook writes and in the pending learning.
#[test]
fn a_users_rule_is_stored_redacted() {
    let secret = format!("ghp_{}", "Zq7".repeat(12));
    let mut s = Session::start(home(), SESSION);
    s.prompt(&format!(
        "From now on, always push the release tags with the bot token {secret} instead of mine."
    ));
    let state = std::fs::read_to_string(
        s.home
            .workspace()
            .join(format!(".pms/state/{SESSION}.json")),
    )
    .unwrap();
    assert!(
        !state.contains(&secret) && state.contains("[REDACTED:"),
        "{state}"
    );
    s.reply(&["Understood."]);
    s.end();
    let pending =
        std::fs::read_to_string(s.home.workspace().join(".pms/pending-learnings.json")).unwrap();
    assert!(!pending.contains(&secret), "{pending}");
    let items = s.pending();
    assert_eq!(items.len(), 1, "{items:#?}");
    assert!(
        items[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Always push the release tags with the bot token [REDACTED:"),
        "{items:#?}"
    );
    assert_eq!(items[0]["origin"], "user");
}

/// Inside the real Claude Code (2.1.330, against the fake API): the user's
/// own "from now on, never …" is staged once, as the user's, and the next
/// session is asked about it; the agent's apology with a lesson stages the
/// lesson.
#[test]
fn inside_claude_code_the_users_rule_and_the_lesson_are_staged_as_rules() {
    use crate::support::claude_code::run_claude;
    use crate::support::fake_api::{FakeApi, Turn};
    let bin_dir = crate::claude_or_skip!();
    let mut home = TestHome::new();
    home.path_prefix.push(bin_dir.clone());
    home.init(&[]);
    let work = home.path("project");
    std::fs::create_dir_all(&work).unwrap();

    let api = FakeApi::start(vec![Turn::text(
        "Understood — from now on I will never deploy on Fridays without an on-call engineer. The deploy script itself looks fine.",
    )]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &[
            "-p",
            "You deployed on a Friday evening again. From now on, never deploy on Fridays without an on-call engineer. Check the deploy script.",
        ],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let api = FakeApi::start(vec![Turn::text(
        "You're right, I was wrong: the migration ran outside a transaction, so the failed step left half the tables changed. Lesson: always run schema migrations inside a transaction.",
    )]);
    let out = run_claude(
        &home,
        &bin_dir,
        &api,
        &work,
        &["-p", "The orders table is half migrated. What happened?"],
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));

    let path = home.workspace().join(".pms/pending-learnings.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(
        texts(items),
        [
            "Never deploy on Fridays without an on-call engineer.",
            "Always run schema migrations inside a transaction."
        ],
        "{items:#?}"
    );
    assert_eq!(items[0]["origin"], "user");
    assert_eq!(items[1]["origin"], "assistant");

    // the next session's first request carries both, to be confirmed
    let api = FakeApi::start(vec![Turn::text("Good morning.")]);
    run_claude(&home, &bin_dir, &api, &work, &["-p", "good morning"]);
    let first = api.message_bodies()[0].to_string();
    assert!(
        first.contains("Never deploy on Fridays without an on-call engineer")
            && first.contains("Always run schema migrations inside a transaction"),
        "pending not shown"
    );
    let log = home.workspace().join(".pms/logs/hooks.log");
    assert!(
        !log.exists(),
        "hook errors: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// The first screen of `pms lessons review` in a pty, up to its first
/// question; then the review is stopped.
fn review_screen(home: &TestHome) -> String {
    use rexpect::session::spawn_command;
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
    let screen = p.exp_string("What should happen to it?").unwrap();
    // down to "Stop reviewing"
    for key in ["\x1b[B", "\x1b[B", "\x1b[B", "\x1b[B", "\r"] {
        p.send(key).unwrap();
        p.flush().unwrap();
        std::thread::sleep(Duration::from_millis(60));
    }
    p.exp_eof().unwrap();
    screen
}

/// The staged learnings that name `word`.
fn naming<'a>(items: &'a [Value], word: &str) -> Vec<&'a Value> {
    items
        .iter()
        .filter(|i| i["text"].as_str().unwrap().contains(word))
        .collect()
}

/// Issue 24, item 9: the user turns the agent's proposal down with a rule
/// and the agent apologises. The apology ("Sorry — I'll use pnpm") is
/// neither the rule's why nor a learning of its own: the user's rule is
/// staged once, with the reason the user gave or none; the review shows no
/// "why: I'll use pnpm". The agent's own rule gets no such why either.
#[test]
fn the_apology_after_a_users_rule_is_not_its_why() {
    // the conversation of the issue
    let mut s = Session::start(home(), SESSION);
    s.prompt("Set up the project so I can run the tests.");
    s.reply(&["I'll install the dependencies with `npm install`."]);
    s.prompt("No, that's wrong: always use pnpm in this repo");
    s.reply(&["Sorry — I'll use pnpm."]);
    s.end();
    let items = s.pending();
    assert_eq!(
        texts(&items),
        ["Always use pnpm in this repo"],
        "{items:#?}"
    );
    assert_eq!(items[0]["origin"], "user");
    assert_eq!(items[0]["why"], Value::Null, "{items:#?}");

    // an apology that goes on after the work and says the rule again
    let mut s = Session::start(home(), SESSION);
    s.prompt("Set up the project so I can run the tests.");
    s.reply(&["I'll install the dependencies with `npm install`."]);
    s.prompt("No, that's wrong: always use pnpm in this repo");
    s.reply(&[
        "You're right, sorry — I'll use pnpm.",
        "Installed with pnpm. Going forward, I'll always use pnpm.",
    ]);
    s.end();
    let items = s.pending();
    assert_eq!(
        naming(&items, "pnpm").len(),
        1,
        "the agent's echo is not a second learning: {items:#?}"
    );
    assert_eq!(
        texts(&items),
        ["Always use pnpm in this repo"],
        "{items:#?}"
    );
    assert_eq!(items[0]["origin"], "user");
    assert_eq!(items[0]["why"], Value::Null, "{items:#?}");
    let screen = review_screen(&s.home);
    assert!(screen.contains("[1/1]"), "{screen}");
    assert!(screen.contains("Always use pnpm in this repo"), "{screen}");
    assert!(!screen.contains("why:"), "{screen}");

    // the agent's own rule: its apology is no reason for it either
    let mut s = Session::start(home(), SESSION);
    s.prompt("The install broke the lockfile again.");
    s.reply(&[
        "My mistake — I'll use pnpm.",
        "Done: `pnpm install` finished. Next time I'll use pnpm from the start.",
    ]);
    s.end();
    let items = s.pending();
    assert_eq!(texts(&items), ["Use pnpm from the start."], "{items:#?}");
    assert_eq!(items[0]["why"], Value::Null, "{items:#?}");
}

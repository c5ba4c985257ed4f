//! Each hook event on the payloads Claude Code 2.1.330 actually sent (recorded
//! by the e2e test into tests/fixtures/hooks), run as Claude Code runs it: the
//! real binary, JSON on stdin, in a temporary HOME.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::TestHome;
use serde_json::{Value, json};

const TRANSCRIPT: &[u8] = include_bytes!("fixtures/transcripts/recorded-session.jsonl");

fn fixture(event: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/hooks/{event}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A home with a workspace and the recorded transcript in place.
struct Setup {
    home: TestHome,
    transcript: PathBuf,
}

fn setup() -> Setup {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let dir = home.path(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("11111111-2222-3333-4444-555555555555.jsonl");
    std::fs::write(&transcript, TRANSCRIPT).unwrap();
    Setup { home, transcript }
}

impl Setup {
    /// The recorded payload of `event`, pointed at this setup.
    fn payload(&self, event: &str, changes: Value) -> Value {
        let mut p = fixture(event);
        p["session_id"] = json!("11111111-2222-3333-4444-555555555555");
        p["transcript_path"] = json!(self.transcript.to_str().unwrap());
        p["cwd"] = json!(self.home.path("app").to_str().unwrap());
        for (k, v) in changes.as_object().unwrap() {
            p[k] = v.clone();
        }
        p
    }

    fn hook(&self, event: &str, changes: Value) -> (Option<String>, std::process::Output) {
        let out = self.home.hook(event, &self.payload(event, changes));
        assert!(out.status.success(), "hooks always exit 0");
        let ctx = if out.stdout.is_empty() {
            None
        } else {
            let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
            Some(
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        };
        (ctx, out)
    }

    fn ws(&self) -> PathBuf {
        self.home.workspace()
    }

    fn add_lesson(&self, text: &str) {
        let ws = pms::workspace::Workspace::new(self.ws());
        let new = pms::lessons::store::NewRule {
            text,
            ..Default::default()
        };
        pms::lessons::store::promote(
            &ws,
            &new,
            &pms::lessons::store::Target::Me,
            pms::lessons::store::OnDuplicate::Stop,
        )
        .unwrap();
        self.home.ok(&["index", "--quiet"]);
    }
}

fn utf16(s: &str) -> usize {
    s.encode_utf16().count()
}

#[test]
fn session_start_injects_layer_zero_within_the_budget() {
    let s = setup();
    s.add_lesson("Write the rollback plan before the deploy");
    let (ctx, _) = s.hook("session-start", json!({"source": "startup"}));
    let ctx = ctx.expect("context");
    assert!(ctx.contains("## Profile") && ctx.contains("Ada Lovelace"));
    assert!(
        ctx.contains("## Writing style")
            && ctx.contains("## Preferences")
            && ctx.contains("## Response format")
    );
    assert!(
        ctx.contains("## Lessons in force")
            && ctx.contains("Write the rollback plan before the deploy")
    );
    assert!(!ctx.contains("<!--"), "template comments are not injected");
    assert!(utf16(&ctx) <= 9000);
}

#[test]
fn a_huge_profile_is_cut_with_a_note_and_never_passes_the_cap() {
    let s = setup();
    let huge: String = (0..3000)
        .map(|i| format!("- fact number {i} about the user\n"))
        .collect();
    std::fs::write(
        s.ws().join("_me/profile.md"),
        format!("# Profile\n\n## Facts\n{huge}"),
    )
    .unwrap();
    let (ctx, _) = s.hook("session-start", json!({"source": "startup"}));
    let ctx = ctx.unwrap();
    assert!(utf16(&ctx) <= 9000, "{}", utf16(&ctx));
    assert!(
        ctx.contains("left out to fit: read"),
        "no note about the cut"
    );
    assert!(
        ctx.contains("## Response format"),
        "later sections still get room"
    );
    // and the configured budget is obeyed, under the hard cap whatever is set
    std::fs::write(s.ws().join("config.toml"), "[hooks]\nbudget_chars = 3000\n").unwrap();
    let (ctx, _) = s.hook("session-start", json!({"source": "startup"}));
    assert!(utf16(&ctx.unwrap()) <= 3000);
}

#[test]
fn resume_gets_only_what_may_have_changed_and_compact_gets_it_all_back() {
    let s = setup();
    let (resumed, _) = s.hook("session-start", json!({"source": "resume"}));
    let resumed = resumed.unwrap();
    assert!(resumed.contains("resumed session") && !resumed.contains("## Profile"));
    // a domain loaded earlier in the session comes back after compaction
    s.hook(
        "user-prompt",
        json!({"prompt": "Help me draft a PRD for SSO"}),
    );
    let (compact, _) = s.hook("session-start", json!({"source": "compact"}));
    let compact = compact.unwrap();
    assert!(compact.contains("## Profile"));
    assert!(
        compact.contains("Product (PRDs and specs) rules"),
        "compaction dropped the domain rules"
    );
    assert!(compact.contains("six questions"), "and the workflow SOP");
}

#[test]
fn prompts_get_format_rules_matching_lessons_and_workflows_once() {
    let s = setup();
    s.add_lesson("Run the migration dry-run before applying it to production, because a lock hit the orders table.");
    let (ctx, _) = s.hook("user-prompt", json!({"prompt": "ok"}));
    let ctx = ctx.unwrap();
    assert!(
        ctx.starts_with("Response format"),
        "trivial prompts get the format rules"
    );
    assert!(!ctx.contains("Lessons that apply"));
    let (ctx, _) = s.hook("user-prompt", json!({"prompt": "/compact"}));
    assert!(
        !ctx.unwrap().contains("##"),
        "a slash command gets only the format rules"
    );

    let (ctx, _) = s.hook(
        "user-prompt",
        json!({"prompt": "apply the orders migration to production now"}),
    );
    assert!(
        ctx.unwrap().contains("Run the migration dry-run"),
        "matching lesson missing"
    );
    let (ctx, _) = s.hook(
        "user-prompt",
        json!({"prompt": "fix the CSS on the login page please"}),
    );
    assert!(
        !ctx.unwrap().contains("Lessons that apply"),
        "unrelated prompt got a lesson"
    );

    let (ctx, _) = s.hook("user-prompt", json!({"prompt": "帮我写一份产品需求文档"}));
    let ctx = ctx.unwrap();
    assert!(
        ctx.contains("Product (PRDs and specs) rules"),
        "Chinese trigger did not load the domain"
    );
    assert!(
        ctx.contains("Writing a PRD"),
        "Chinese workflow trigger did not load the SOP"
    );
    assert!(utf16(&ctx) <= 9000);
    let (again, _) = s.hook(
        "user-prompt",
        json!({"prompt": "now write the PRD for the pricing page"}),
    );
    assert!(
        !again.unwrap().contains("six questions"),
        "the SOP was injected twice in one session"
    );
}

#[test]
fn stop_records_silently_and_the_heartbeat_follows() {
    let s = setup();
    for i in 0..7 {
        let msg = if i == 2 {
            "You're right — the export must run in UTC. Never schedule it in local time."
        } else {
            "Done."
        };
        let (ctx, out) = s.hook("stop", json!({"last_assistant_message": msg}));
        assert!(
            ctx.is_none() && out.stdout.is_empty(),
            "a stop hook that prints makes Claude continue"
        );
    }
    let state = s
        .home
        .read_json("pms/.pms/state/11111111-2222-3333-4444-555555555555.json");
    assert_eq!(state["rounds"], 7);
    let kinds: Vec<&str> = state["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["correction", "anti-pattern"]);
    assert_eq!(state["heartbeat_due"], true);
    let (ctx, _) = s.hook(
        "user-prompt",
        json!({"prompt": "what should we do next about the export"}),
    );
    assert!(ctx.unwrap().contains("Review (round 7)"));
    let (ctx, _) = s.hook(
        "user-prompt",
        json!({"prompt": "and after that, what else remains"}),
    );
    assert!(
        !ctx.unwrap().contains("Review (round"),
        "the heartbeat is delivered once"
    );
}

#[test]
fn stop_finds_a_signal_in_the_text_before_a_tool_call() {
    let s = setup();
    // The insight is in the reply that called a tool; the final reply, which
    // the payload carries, says only "Done.".
    let lines = [
        r#"{"type":"user","uuid":"u9","timestamp":"2026-11-22T11:00:00Z","message":{"role":"user","content":"Why do the invoices not add up?"}}"#,
        r#"{"type":"assistant","uuid":"a9","timestamp":"2026-11-22T11:00:01Z","message":{"id":"msg_9","role":"assistant","content":[{"type":"text","text":"It turns out the invoice totals are rounded per line, not per invoice."},{"type":"tool_use","id":"toolu_9","name":"Edit","input":{"file_path":"/w/app/billing.py","old_string":"a","new_string":"b"}}]}}"#,
        r#"{"type":"user","uuid":"u10","timestamp":"2026-11-22T11:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"ok"}]}}"#,
        r#"{"type":"assistant","uuid":"a10","timestamp":"2026-11-22T11:00:03Z","message":{"id":"msg_10","role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
    ];
    crate::support::append(&s.transcript, &(lines.join("\n") + "\n"));
    s.hook("stop", json!({"last_assistant_message": "Done."}));
    let state = s
        .home
        .read_json("pms/.pms/state/11111111-2222-3333-4444-555555555555.json");
    let texts: Vec<&str> = state["signals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("rounded per line")),
        "{texts:?}"
    );
    assert!(
        state["files_changed"]
            .as_array()
            .unwrap()
            .contains(&json!("/w/app/billing.py")),
        "{state}"
    );
}

#[test]
fn pre_compact_writes_a_checkpoint_and_session_end_the_summary_and_learnings() {
    let s = setup();
    s.hook(
        "stop",
        json!({"last_assistant_message": "It turns out the codename was TANGERINE all along."}),
    );
    let (ctx, _) = s.hook("pre-compact", json!({}));
    assert!(ctx.is_none());
    let summaries = list(&s.ws().join("sessions"));
    assert_eq!(summaries.len(), 1, "checkpoint summary");
    let (ctx, _) = s.hook("session-end", json!({}));
    assert!(ctx.is_none());
    let summaries = list(&s.ws().join("sessions"));
    assert_eq!(
        summaries.len(),
        1,
        "the final summary replaces the checkpoint"
    );
    let text = std::fs::read_to_string(&summaries[0]).unwrap();
    let meta = pms::sessions::summary::SummaryMeta::parse(&text);
    assert_eq!(
        meta.transcript_ref.as_deref(),
        Some("cc://-home-u-app/11111111-2222-3333-4444-555555555555.jsonl")
    );
    assert!(
        text.contains("What was the billing rewrite codename?"),
        "{text}"
    );
    assert!(
        text.contains("signals: {correction: 0, insight: 1,"),
        "{text}"
    );
    let pending = s.home.read_json("pms/.pms/pending-learnings.json");
    assert_eq!(pending["items"][0]["kind"], "insight");
    assert_eq!(
        pending["items"][0]["transcript_ref"],
        meta.transcript_ref.unwrap().as_str()
    );
    // the state stays (a resumed session goes on from it), its signals marked staged
    let st = s
        .home
        .read_json("pms/.pms/state/11111111-2222-3333-4444-555555555555.json");
    assert_eq!(
        st["signals_staged"],
        st["signals"].as_array().unwrap().len()
    );
}

#[test]
fn two_sessions_ending_at_once_lose_no_learning() {
    let s = setup();
    let mut children = Vec::new();
    let lessons = [
        "The root cause was a stale DNS cache on the build agents.",
        "It turns out the invoice totals are rounded per line, not per invoice.",
        "A simpler approach is to stream the export instead of loading it whole.",
        "Never deploy on Friday afternoons without an on-call engineer.",
        "You're right, the staging bucket lives in eu-west-1.",
        "I had assumed the queue was FIFO, but ordering is only per partition.",
    ];
    for (i, text) in lessons.iter().enumerate() {
        let sid = format!("sess-{i}");
        let stop =
            json!({"session_id": sid, "hook_event_name": "Stop", "last_assistant_message": text});
        assert!(s.home.hook("stop", &stop).status.success());
        let mut end = s.payload("session-end", json!({}));
        end["session_id"] = json!(sid);
        let mut child = s.home.spawn_hook("session-end");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(end.to_string().as_bytes())
            .unwrap();
        children.push(child);
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let pending = s.home.read_json("pms/.pms/pending-learnings.json");
    assert_eq!(pending["items"].as_array().unwrap().len(), 6, "{pending}");
}

#[test]
fn summaries_beyond_the_limit_are_pruned() {
    let s = setup();
    let dir = s.ws().join("sessions");
    for i in 0..35 {
        std::fs::write(
            dir.join(format!("202601{:02}-0900-old{i:05}.md", 1 + i % 28)),
            "---\nsession_id: x\n---\n",
        )
        .unwrap();
    }
    s.hook("session-end", json!({}));
    assert_eq!(list(&dir).len(), 30);
}

#[test]
fn sessions_killed_without_session_end_are_summarised_at_the_next_start() {
    let s = setup();
    // the killed session left its transcript and its recorded signals
    s.hook(
        "stop",
        json!({"last_assistant_message": "A simpler approach is to batch the invoice writes."}),
    );
    assert!(list(&s.ws().join("sessions")).is_empty());
    // the next session (another id) starts: its detached sync does the recovery
    s.home.ok(&[
        "sync",
        "--exclude-session",
        "another-session",
        "--workspace",
        s.ws().to_str().unwrap(),
    ]);
    let summaries = list(&s.ws().join("sessions"));
    assert_eq!(summaries.len(), 1);
    let pending = s.home.read_json("pms/.pms/pending-learnings.json");
    assert_eq!(pending["items"][0]["kind"], "method");
    // and the current session is never summarised early
    let s2 = setup();
    s2.home.ok(&[
        "sync",
        "--exclude-session",
        "11111111-2222-3333-4444-555555555555",
        "--workspace",
        s2.ws().to_str().unwrap(),
    ]);
    assert!(list(&s2.ws().join("sessions")).is_empty());
}

#[test]
fn broken_inputs_fail_open() {
    let s = setup();
    // garbage on stdin
    let out = s.home.hook_raw("user-prompt", b"\x00\xffnot json{{{");
    assert!(out.status.success());
    // a broken config.toml: the hook still injects, with the defaults, and logs
    std::fs::write(s.ws().join("config.toml"), "[hooks\nbudget_chars = ").unwrap();
    let (ctx, _) = s.hook("session-start", json!({"source": "startup"}));
    assert!(ctx.unwrap().contains("## Profile"));
    let log = std::fs::read_to_string(s.ws().join(".pms/logs/hooks.log")).unwrap();
    assert!(
        log.contains("config.toml") && log.contains("using the defaults"),
        "{log}"
    );
    // a broken pending file: layer 0 still arrives
    std::fs::write(s.ws().join(".pms/pending-learnings.json"), "{oops").unwrap();
    let (ctx, _) = s.hook("session-start", json!({"source": "startup"}));
    assert!(ctx.unwrap().contains("## Profile"));
    // an unknown event
    let out = s.home.hook("no-such-event", &json!({}));
    assert!(out.status.success() && out.stdout.is_empty());
}

#[test]
fn session_end_does_not_wait_for_a_stdin_that_never_closes() {
    let s = setup();
    let mut child = s.home.spawn_hook("session-end");
    let _stdin_kept_open = child.stdin.take();
    let t = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "session-end hung on stdin"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
}

fn list(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    v.sort();
    v
}

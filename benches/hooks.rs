//! Hook benchmarks: wall time of the real `pms hook <event>` process, from
//! spawn to exit, as Claude Code runs it.
//!
//! - user-prompt on a workspace with 500 lessons and a 100k-chunk index
//!   (goal p50 <= 10 ms since lesson matching by meaning; it was 3 ms)
//! - session-end on a 10 MB transcript, after its Stop hooks (goal <= 50
//!   ms) and with no state (a crashed session's catch-up)
//! - session-start (layer 0), median of 20 runs
//!
//! Run: `cargo bench --bench hooks`.

#[path = "corpus.rs"]
mod corpus;
#[path = "../tests/support/retrieval.rs"]
mod retrieval;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pms::memory::index::{db, indexer};
use serde_json::json;

const PMS: &str = env!("CARGO_BIN_EXE_pms");

/// Times `pms hook <event>` once per payload. The spawning is done by a
/// fresh, small copy of this benchmark (see `launcher`): fork costs grow with
/// the parent's memory, and this process has just built a 100k-chunk index,
/// which added about 2 ms to every spawn.
fn time_hooks(home: &Path, ws: &Path, event: &str, payloads: &[String]) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("payloads.jsonl");
    std::fs::write(&list, payloads.join("\n")).unwrap();
    let spec = format!(
        "{}\t{}\t{}\t{}",
        home.display(),
        ws.display(),
        event,
        list.display()
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .env("PMS_BENCH_LAUNCH", spec)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| Duration::from_nanos(l.trim().parse().unwrap()))
        .collect()
}

/// The launcher: runs each payload through the hook, prints nanoseconds.
fn launcher(spec: &str) {
    let parts: Vec<&str> = spec.split('\t').collect();
    let (home, ws, event, list) = (Path::new(parts[0]), Path::new(parts[1]), parts[2], parts[3]);
    for payload in std::fs::read_to_string(list).unwrap().split('\n') {
        println!("{}", run_hook(home, ws, event, payload).as_nanos());
    }
}

fn run_hook(home: &Path, ws: &Path, event: &str, payload: &str) -> Duration {
    let t = Instant::now();
    let mut child = Command::new(PMS)
        .args(["hook", event, "--workspace", ws.to_str().unwrap()])
        .env_clear()
        .env("HOME", home)
        .env("PMS_NO_BACKGROUND", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    t.elapsed()
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1e3
}

fn main() {
    if let Ok(spec) = std::env::var("PMS_BENCH_LAUNCH") {
        return launcher(&spec);
    }
    let f = retrieval::materialize();
    let home_buf = f.dir.path().to_path_buf();
    let home = home_buf.as_path();
    std::fs::create_dir_all(f.ws.state_dir()).unwrap();

    // 500 lessons in force, spread over _me and the domains
    let lessons_md = f.ws.me_file("lessons.md");
    let mut bullets = String::new();
    let mut g = corpus::Gen::new(11);
    for i in 0..500 {
        let topic = g.sentence(10);
        bullets.push_str(&format!("- [L-{i:06x}] Always check {topic} before release, because rule {i} mattered. _(2026-11-01)_\n"));
    }
    let text = std::fs::read_to_string(&lessons_md).unwrap();
    let text = text.replacen(
        "<!-- pms:lessons:end -->",
        &format!("{bullets}<!-- pms:lessons:end -->"),
        1,
    );
    std::fs::write(&lessons_md, text).unwrap();

    // a 100k-chunk index
    let history = home.join("history");
    corpus::write_history(&history, 500, 210, 0, 3, false);
    let mut cfg = f.cfg.clone();
    cfg.index.transcript_roots = vec![history.display().to_string()];
    let mut conn = db::open_rw(&f.ws.db_path()).unwrap();
    indexer::run(
        &mut conn,
        &f.ws,
        &f.env,
        &cfg,
        &pms::platform::progress::Quiet,
    )
    .unwrap();
    let rules = pms::memory::lessons::all_rules(&f.ws);
    pms::memory::lessons::index_file::write_index(&f.ws, &rules).unwrap();
    let chunks: i64 = conn
        .query_row("SELECT COUNT(*) FROM chunks", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    // the hooks read the transcript roots from config.toml
    std::fs::write(
        f.ws.config_path(),
        format!(
            "[index]\ntranscript_roots = [{:?}]\n",
            history.display().to_string()
        ),
    )
    .unwrap();
    println!(
        "workspace: {} lessons in force, {} chunks indexed",
        rules.len(),
        chunks
    );
    if std::env::var("PMS_BENCH_KEEP").is_ok_and(|v| v == "1") {
        println!("(kept: {})", f.ws.root.display());
    }

    let prompts = [
        "check the database migration before release please",
        "write a PRD for usage-based pricing",
        "fix the CSS on the login page",
        "帮我看一下数据库连接池的配置",
        "what did we decide about the billing rewrite last week",
        "run the tests and tell me what fails",
    ];
    // 20 sessions of 6 prompts: a domain loads once per session, as in use
    let mut payloads = Vec::new();
    for round in 0..20 {
        for p in prompts.iter() {
            payloads.push(
                json!({"session_id": format!("bench-{round}"), "hook_event_name": "UserPromptSubmit", "prompt": p})
                    .to_string(),
            );
        }
    }
    let mut floor = time_hooks(
        home,
        &f.ws.root,
        "no-such-event",
        &vec!["{}".to_string(); 50],
    );
    println!(
        "process floor (`pms hook` for an unknown event: start, read stdin, find the workspace, exit): p50 {:.2} ms",
        pct(&mut floor, 0.5)
    );
    let mut times = time_hooks(home, &f.ws.root, "user-prompt", &payloads);
    for (i, p) in prompts.iter().enumerate() {
        let mut mine: Vec<Duration> = times
            .iter()
            .skip(i)
            .step_by(prompts.len())
            .copied()
            .collect();
        println!("  p50 {:>5.2} ms  {p}", pct(&mut mine, 0.5));
    }
    let n = times.len();
    println!(
        "user-prompt ({n} runs, {} lessons, {chunks} chunks): p50 {:.2} ms, p95 {:.2} ms (goal p50 <= 10)",
        pms::memory::lessons::all_rules(&f.ws).len(),
        pct(&mut times, 0.5),
        pct(&mut times, 0.95)
    );
    let payloads: Vec<String> = (0..20)
        .map(|i| json!({"session_id": format!("start-{i}"), "hook_event_name": "SessionStart", "source": "startup"}).to_string())
        .collect();
    let mut starts = time_hooks(home, &f.ws.root, "session-start", &payloads);
    println!(
        "session-start (20 runs): median {:.2} ms",
        pct(&mut starts, 0.5)
    );

    // session-end on a 10 MB transcript
    let dir = home.join("projects-end/-home-u-big");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("big-session.jsonl");
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&transcript).unwrap());
        let mut g = corpus::Gen::new(5);
        g.realistic = true;
        let mut day = 0;
        while w.get_ref().metadata().unwrap().len() < 10 << 20 {
            g.session(&mut w, 20, day).unwrap();
            w.flush().unwrap();
            day += 1;
        }
    }
    let size = std::fs::metadata(&transcript).unwrap().len();
    let payloads: Vec<String> = (0..10)
        .map(|i| {
            json!({"session_id": format!("end-{i}"), "hook_event_name": "SessionEnd", "reason": "other",
                   "transcript_path": transcript.to_str().unwrap()})
            .to_string()
        })
        .collect();
    let mut ends = time_hooks(home, &f.ws.root, "session-end", &payloads);
    println!(
        "session-end on a {:.1} MB transcript, no state (a crashed session's catch-up; 10 runs): median {:.1} ms, max {:.1} ms",
        size as f64 / 1e6,
        pct(&mut ends, 0.5),
        pct(&mut ends, 1.0)
    );
    // The usual end: the Stop hook after every turn has already read the
    // transcript and analysed its turns (untimed here), so only the summary
    // is left to write.
    let caught_up = |event: &str| -> Vec<String> {
        (0..10)
            .map(|i| {
                json!({"session_id": format!("caught-{i}"), "hook_event_name": event, "reason": "other",
                       "transcript_path": transcript.to_str().unwrap()})
                .to_string()
            })
            .collect()
    };
    time_hooks(home, &f.ws.root, "stop", &caught_up("Stop"));
    let mut ends = time_hooks(home, &f.ws.root, "session-end", &caught_up("SessionEnd"));
    println!(
        "session-end on the same transcript after its Stop hooks (10 runs): median {:.1} ms, max {:.1} ms (goal <= 50)",
        pct(&mut ends, 0.5),
        pct(&mut ends, 1.0)
    );
    if std::env::var("PMS_BENCH_KEEP").is_ok_and(|v| v == "1") {
        std::mem::forget(f); // leave the workspace on disk for a closer look
    }
}

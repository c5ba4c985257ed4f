//! What capturing the user's rules costs the per-prompt hook.
//!
//! - In a fresh process (as each hook is), the cost of
//!   `sessions::state::prompt_rules` for prompts that state no rule (the
//!   substring prefilter only), that pass the prefilter without stating one
//!   (the patterns compiled and tried), and that state one.
//! - The real `pms hook user-prompt`, spawn to exit, on a fresh workspace:
//!   a prompt that states no rule, and one that states a rule (which also
//!   takes the state lock and writes the state).
//!
//! Run: `cargo bench --bench signals`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

const PMS: &str = env!("CARGO_BIN_EXE_pms");

const PLAIN: &[&str] = &[
    "fix the CSS on the login page",
    "write a PRD for usage-based pricing",
    "帮我看一下数据库连接池的配置",
];
const PASSES_PREFILTER: &[&str] = &[
    "why does the export always time out on Mondays?",
    "check whether we ever call the billing API twice",
];
const STATES_RULE: &[&str] = &[
    "From now on, never push directly to main; open a pull request instead.",
    "以后提交代码前一定要先跑单元测试。",
];

/// Times one `prompt_rules` call inside this (fresh) process, in ns.
fn child(prompt: &str) {
    let t = Instant::now();
    let found = pms::memory::sessions::state::prompt_rules(prompt);
    let took = t.elapsed();
    std::hint::black_box(found);
    println!("{}", took.as_nanos());
}

fn in_fresh_process(prompt: &str) -> Duration {
    let out = Command::new(std::env::current_exe().unwrap())
        .env("PMS_BENCH_PROMPT", prompt)
        .output()
        .unwrap();
    assert!(out.status.success());
    let ns: u64 = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    Duration::from_nanos(ns)
}

/// "min / p50" in ms: on a shared machine the minimum is the cost, the
/// median adds whatever else ran.
fn spread(v: &mut [Duration]) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!("{:>7.3} / {:>7.3} ms", ms(v[0]), ms(v[v.len() / 2]))
}

fn hook(home: &std::path::Path, ws: &std::path::Path, payload: &str) -> Duration {
    let t = Instant::now();
    let mut c = Command::new(PMS)
        .args(["hook", "user-prompt", "--workspace", ws.to_str().unwrap()])
        .env_clear()
        .env("HOME", home)
        .env("PMS_NO_BACKGROUND", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    c.stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    assert!(c.wait().unwrap().success());
    t.elapsed()
}

fn main() {
    if let Ok(p) = std::env::var("PMS_BENCH_PROMPT") {
        return child(&p);
    }
    const RUNS: usize = 30;
    println!("prompt_rules, first call in a fresh process (min / p50 of {RUNS}):");
    for (label, prompts) in [
        ("no rule", PLAIN),
        ("passes the prefilter, no rule", PASSES_PREFILTER),
        ("states a rule", STATES_RULE),
    ] {
        for p in prompts {
            let mut t: Vec<Duration> = (0..RUNS).map(|_| in_fresh_process(p)).collect();
            println!("  {}  {label}: {p}", spread(&mut t));
        }
    }

    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("pms");
    let out = Command::new(PMS)
        .args([
            "init",
            "--yes",
            "--name",
            "A",
            "--role",
            "PM",
            "--domains",
            "product",
            "--no-index",
            "--dir",
        ])
        .arg(&ws)
        .env_clear()
        .env("HOME", home.path())
        .env("PMS_NO_BACKGROUND", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("pms hook user-prompt, spawn to exit (min / p50 of {RUNS}, fresh workspace):");
    for (label, prompt) in [("no rule", PLAIN[0]), ("states a rule", STATES_RULE[0])] {
        let mut t: Vec<Duration> = (0..RUNS)
            .map(|i| {
                let payload =
                    json!({"session_id": format!("bench-{i}"), "prompt": prompt}).to_string();
                hook(home.path(), &ws, &payload)
            })
            .collect();
        println!("  {}  {label}: {prompt}", spread(&mut t));
    }
}

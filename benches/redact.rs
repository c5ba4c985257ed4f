//! What redaction costs: the hooks redact every part they inject, in a
//! fresh process each time, so the first call (the keyword automaton built,
//! the regexes of the rules the text has keywords for compiled) is the cost
//! that matters; the warm cost is what `pms index` pays per chunk.
//!
//! Texts: an injection with no keyword; a session-start-sized one whose
//! ordinary words are keywords of several rules ("by default", "API key",
//! "token budget", times like 10:30), which their gates turn away;
//! terminal output with colour codes; the whole secret corpus
//! (tests/data/secrets.toml); and one credential of each of four rules.
//!
//! Run: `cargo bench --bench redact`.

use std::process::Command;
use std::time::{Duration, Instant};

use toml_edit::DocumentMut;

fn texts() -> Vec<(&'static str, String)> {
    let plain = "Always run the full test suite before merging a pull request, because the CI cache hides flaky tests. \
        Write the migration and its rollback in the same change. Prefer small commits that each build. \
        Ask before deleting anything outside the workspace. Summaries go to the sessions folder. ";
    let keywords = "By default the deploy runs at 10:30 on weekdays; the API key lives in the vault and the \
        token budget for a prompt is 8000. Never pass secrets on the command line. The primary key of \
        the orders table is order_number and the partition key is tenant_id. Check the machine \
        learning job at 14:05 before the standup. Use the default branch for hotfixes. ";
    let colour = "\x1b[32m   Compiling\x1b[0m pms v0.1.0\n\x1b[1m\x1b[33mwarning\x1b[0m: unused variable\n\
        test result: \x1b[32mok\x1b[0m. 83 passed; 0 failed\n";
    let corpus = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/secrets.toml"),
    )
    .unwrap();
    let doc: DocumentMut = corpus.parse().unwrap();
    let secrets: Vec<String> = doc["secret"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| t["text"].as_str().unwrap().to_string())
        .collect();
    vec![
        ("injection, no keyword (2 KB)", plain.repeat(6)),
        (
            "session start, ordinary keywords (8 KB)",
            keywords.repeat(16),
        ),
        (
            "terminal output with colour codes (4 KB)",
            colour.repeat(32),
        ),
        ("the secret corpus, one text", secrets.join("\n")),
        // one rule each, in a form that passes its gate: what compiling
        // that rule's regex costs
        (
            "one rule: an assignment",
            "the api_key: \"q8Zr2mVx7Lw4\"".into(),
        ),
        (
            "one rule: .netrc (default)",
            "default login me password Hs9vT2kq".into(),
        ),
        (
            "one rule: .netrc (machine)",
            "machine api.example.com login me password Hs9vT2kq".into(),
        ),
        (
            "one rule: .pgpass",
            "db.internal:5432:app:me:Hs9vT2kq".into(),
        ),
    ]
}

/// Times the first `redact` call inside this (fresh) process, in ns.
fn child(i: usize) {
    let text = &texts()[i].1;
    let t = Instant::now();
    let out = pms::platform::redact::redact(text);
    let took = t.elapsed();
    std::hint::black_box(out);
    println!("{}", took.as_nanos());
}

fn in_fresh_process(i: usize) -> Duration {
    let out = Command::new(std::env::current_exe().unwrap())
        .env("PMS_BENCH_REDACT", i.to_string())
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

/// "min / p50": on a shared machine the minimum is the cost, the median
/// adds whatever else ran.
fn spread(v: &mut [Duration]) -> String {
    v.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    format!("{:>9.1} / {:>9.1} µs", us(v[0]), us(v[v.len() / 2]))
}

fn main() {
    if let Ok(i) = std::env::var("PMS_BENCH_REDACT") {
        return child(i.parse().unwrap());
    }
    const COLD: usize = 30;
    const WARM: usize = 300;
    let texts = texts();
    println!("redact, first call in a fresh process (min / p50 of {COLD}):");
    for (i, (label, _)) in texts.iter().enumerate() {
        let mut t: Vec<Duration> = (0..COLD).map(|_| in_fresh_process(i)).collect();
        println!("  {}  {label}", spread(&mut t));
    }
    println!("redact, warm (min / p50 of {WARM}):");
    for (label, text) in &texts {
        let mut t: Vec<Duration> = (0..WARM)
            .map(|_| {
                let s = Instant::now();
                std::hint::black_box(pms::platform::redact::redact(text));
                s.elapsed()
            })
            .collect();
        println!("  {}  {label}", spread(&mut t));
    }
    println!("controls::is_clean alone, warm (min / p50 of {WARM}):");
    for (label, text) in texts.iter().take(3) {
        let mut t: Vec<Duration> = (0..WARM)
            .map(|_| {
                let s = Instant::now();
                std::hint::black_box(pms::platform::redact::controls::is_clean(text));
                s.elapsed()
            })
            .collect();
        println!("  {}  {label}", spread(&mut t));
    }
}

//! `pms ui` benchmark: time to first byte of each page, from the real
//! `pms ui` process, on a workspace with a 100k-chunk index, 200 lessons in
//! force and 20 pending learnings.
//!
//! Each request is a fresh connection (as a browser's first load); TTFB is
//! from the request written to the first response byte read, `total` to the
//! last. The first overview request is reported apart (cold page cache of
//! the workspace files and the index).
//!
//! Run: `cargo bench --bench ui`.

#[path = "corpus.rs"]
mod corpus;
#[path = "../tests/support/retrieval.rs"]
mod retrieval;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pms::memory::index::{db, indexer};

const PMS: &str = env!("CARGO_BIN_EXE_pms");
const RUNS: usize = 30;

/// One GET; (time to first byte, total time, status line, the answer).
fn get(port: u16, cookie: &str, path: &str) -> (Duration, Duration, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
    );
    let t = Instant::now();
    s.write_all(req.as_bytes()).unwrap();
    let mut first = [0u8; 1];
    s.read_exact(&mut first).unwrap();
    let ttfb = t.elapsed();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    let total = t.elapsed();
    let head = String::from_utf8_lossy(&rest[..rest.len().min(40)]).into_owned();
    let status = format!("{}{}", first[0] as char, head.lines().next().unwrap_or(""));
    (
        ttfb,
        total,
        status,
        String::from_utf8_lossy(&rest).into_owned(),
    )
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize].as_secs_f64() * 1e3
}

fn main() {
    let f = retrieval::materialize();
    let home = f.dir.path().to_path_buf();
    std::fs::create_dir_all(f.ws.state_dir()).unwrap();

    // 200 lessons in force, with cues
    let lessons_md = f.ws.me_file("lessons.md");
    let mut g = corpus::Gen::new(5);
    let mut bullets = String::new();
    for i in 0..200 {
        let topic = g.sentence(8);
        let cue = g.sentence(3);
        bullets.push_str(&format!(
            "- [L-{i:06x}] Always check {topic} before release, because rule {i} mattered. _(2026-11-01)_\n  - applies when: {cue}; release {i}\n"
        ));
    }
    let text = std::fs::read_to_string(&lessons_md).unwrap().replacen(
        "<!-- pms:lessons:end -->",
        &format!("{bullets}<!-- pms:lessons:end -->"),
        1,
    );
    std::fs::write(&lessons_md, text).unwrap();
    // 20 learnings staged (near-duplicates merge, so maybe fewer pending)
    let candidates = (0..20)
        .map(|i| pms::memory::lessons::pending::Candidate {
            kind: "correction".into(),
            text: format!("Remember that {} matters for case {i}", g.sentence(9)),
            domain: None,
            session_id: Some(format!("s{i}")),
            transcript_ref: None,
            ..Default::default()
        })
        .collect();
    let pending = pms::memory::lessons::pending::stage(&f.ws, candidates, &[])
        .unwrap()
        .len();

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
    let chunks: i64 = conn
        .query_row("SELECT COUNT(*) FROM chunks", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    std::fs::write(
        f.ws.config_path(),
        format!(
            "[index]\ntranscript_roots = [{:?}]\n",
            history.display().to_string()
        ),
    )
    .unwrap();
    pms::memory::lessons::index_file::refresh_index(&f.ws);
    println!(
        "workspace: {} lessons in force, {pending} pending, {chunks} chunks indexed",
        pms::memory::lessons::all_rules(&f.ws).len()
    );

    let mut child = Command::new(PMS)
        .args([
            "ui",
            "--no-open",
            "--workspace",
            f.ws.root.to_str().unwrap(),
        ])
        .env_clear()
        .env("HOME", &home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("PMS_NO_BACKGROUND", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut line).unwrap();
    // Keep reading: with its stdout closed, pms ui dies of SIGPIPE at its
    // next line, as command-line tools do.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line.trim().strip_prefix("pms ui: ").unwrap().to_string();
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, tail) = rest.split_once('/').unwrap();
    let port: u16 = port.parse().unwrap();
    let cookie = format!("pms_ui_{port}={}", tail.strip_prefix("?token=").unwrap());

    let (cold, _, status, bytes) = get(port, &cookie, "/");
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    println!(
        "overview, first request: TTFB {:.1} ms ({} KB)",
        cold.as_secs_f64() * 1e3,
        bytes.len() / 1024
    );
    // Each page, and what it must show (so a fast page is not an empty one).
    for (path, shows) in [
        ("/", "What the agent is told"),
        ("/lessons", "class=\"card\""),
        (
            "/lessons?prompt=check+the+database+migration+before+release",
            "The hook would add",
        ),
        ("/sessions?days=366", "class=\"session\""),
        ("/search?q=database+migration&mode=keyword", "class=\"hit\""),
        ("/view?uri=_me%2Flessons.md", "class=\"lines\""),
    ] {
        let mut ttfb = Vec::new();
        let mut total = Vec::new();
        let mut size = 0;
        for _ in 0..RUNS {
            let (a, b, status, body) = get(port, &cookie, path);
            assert!(status.starts_with("HTTP/1.1 200"), "{path}: {status}");
            assert!(body.contains(shows), "{path} does not show {shows:?}");
            ttfb.push(a);
            total.push(b);
            size = body.len();
        }
        println!(
            "{path:<62} TTFB p50 {:>6.1} ms, p95 {:>6.1} ms; total p50 {:>6.1} ms ({} KB)",
            pct(&mut ttfb, 0.5),
            pct(&mut ttfb, 0.95),
            pct(&mut total, 0.5),
            size / 1024
        );
    }
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    assert!(child.wait().unwrap().success());
}

//! `pms import` of a ChatGPT export: throughput in MB/s of export JSON
//! (goal >= 50), the importer's peak memory (a 1 GB `conversations.json`
//! must import in bounded memory), and that the text is searchable when
//! the command returns. The real release binary runs in a temporary HOME,
//! as a user runs it; its peak resident memory is read from `wait4`.
//!
//! The export is generated shaped like a real one: every message carries
//! the metadata ChatGPT writes (model slugs, request ids, finish details,
//! citations), conversations have a hidden system node, the custom
//! instructions, regenerated answers on abandoned branches, code and its
//! output, so most bytes are JSON structure, as in real exports.
//!
//! Run: `cargo bench --bench import` (200 MB of JSON, and the same export
//! as a zip). `PMS_BENCH_IMPORT_MB=1024` for the 1 GB memory measure;
//! `PMS_BENCH_DIR` keeps the generated export between runs.

#[path = "corpus.rs"]
mod corpus;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Value, json};

const PMS: &str = env!("CARGO_BIN_EXE_pms");

/// One message node as ChatGPT writes it.
fn node(id: &str, parent: Option<&str>, children: &[String], message: Value) -> Value {
    json!({"id": id, "message": message, "parent": parent, "children": children})
}

fn message(id: &str, role: &str, t: f64, content: Value, recipient: &str) -> Value {
    json!({
        "id": id,
        "author": {"role": role, "name": if role == "tool" { Value::from("python") } else { Value::Null }, "metadata": {}},
        "create_time": t, "update_time": null,
        "content": content,
        "status": "finished_successfully", "end_turn": role == "assistant", "weight": 1.0,
        "metadata": {
            "citations": [], "content_references": [], "message_type": null,
            "model_slug": "gpt-4o", "default_model_slug": "gpt-4o",
            "request_id": format!("8f2a{id}-req"), "timestamp_": "absolute",
            "finish_details": {"type": "stop", "stop_tokens": [200002]}, "is_complete": true,
            "parent_id": format!("p-{id}"), "turn_exchange_id": format!("tx-{id}")
        },
        "recipient": recipient, "channel": null
    })
}

/// A conversation of `turns` exchanges; its first prompt holds `marker`.
fn conversation(g: &mut corpus::Gen, n: usize, turns: usize, marker: &str) -> Value {
    let t0 = 1_700_000_000.0 + n as f64 * 3600.0;
    let id = |k: usize| format!("{n:08x}-0000-4000-8000-{k:012x}");
    let mut mapping = serde_json::Map::new();
    let root = "client-created-root".to_string();
    mapping.insert(root.clone(), node(&root, None, &[id(1)], Value::Null));
    let mut system = message(
        &id(1),
        "system",
        0.0,
        json!({"content_type": "text", "parts": [""]}),
        "all",
    );
    system["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
    mapping.insert(id(1), node(&id(1), Some(&root), &[id(2)], system));
    let mut ctx = message(
        &id(2),
        "user",
        0.0,
        json!({"content_type": "user_editable_context",
               "user_profile": "User profile:\n```Preferred name: Sam\nRole: engineer```",
               "user_instructions": "```Be terse.```"}),
        "all",
    );
    ctx["metadata"]["is_visually_hidden_from_conversation"] = json!(true);
    ctx["metadata"]["user_context_message_data"] = json!({"about_user_message": "Preferred name: Sam\nRole: engineer", "about_model_message": "Be terse."});
    let mut parent = id(2);
    let mut k = 3;
    let mut pending_children: Vec<(String, Vec<String>)> = Vec::new();
    let mut nodes: Vec<(String, Option<String>, Value)> = vec![(id(2), Some(id(1)), ctx)];
    for turn in 0..turns {
        let t = t0 + turn as f64 * 60.0;
        let prompt = if turn == 0 {
            format!("{marker} {}", g.sentence(25))
        } else {
            g.sentence(30)
        };
        let u = id(k);
        k += 1;
        nodes.push((
            u.clone(),
            Some(parent.clone()),
            message(
                &u,
                "user",
                t,
                json!({"content_type": "text", "parts": [prompt]}),
                "all",
            ),
        ));
        // a regenerated answer the user moved away from, on every third turn
        if turn % 3 == 1 {
            let old = id(k);
            k += 1;
            let text = format!("{} {}", g.sentence(60), g.sentence(60));
            nodes.push((
                old,
                Some(u.clone()),
                message(
                    &id(k - 1),
                    "assistant",
                    t + 5.0,
                    json!({"content_type": "text", "parts": [text]}),
                    "all",
                ),
            ));
        }
        let a = id(k);
        k += 1;
        let answer = (0..4)
            .map(|_| g.sentence(45))
            .collect::<Vec<_>>()
            .join("\n\n");
        nodes.push((
            a.clone(),
            Some(u.clone()),
            message(
                &a,
                "assistant",
                t + 10.0,
                json!({"content_type": "text", "parts": [answer]}),
                "all",
            ),
        ));
        parent = a;
        if turn % 4 == 2 {
            let code = id(k);
            k += 1;
            nodes.push((code.clone(), Some(parent.clone()), message(&code, "assistant", t + 20.0,
                json!({"content_type": "code", "language": "unknown", "text": format!("import pandas as pd\ndf = pd.read_csv('{}.csv')\ndf.describe()", g.sentence(2).replace(' ', "_"))}), "python")));
            let out = id(k);
            k += 1;
            nodes.push((
                out.clone(),
                Some(code),
                message(
                    &out,
                    "tool",
                    t + 25.0,
                    json!({"content_type": "execution_output", "text": g.sentence(40)}),
                    "all",
                ),
            ));
            parent = out;
        }
    }
    for (nid, par, _) in &nodes {
        if let Some(p) = par {
            pending_children.push((p.clone(), vec![nid.clone()]));
        }
    }
    let mut children: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::new();
    for (p, c) in pending_children {
        children.entry(p).or_default().extend(c);
    }
    for (nid, par, msg) in nodes {
        let ch = children.remove(&nid).unwrap_or_default();
        mapping.insert(nid.clone(), node(&nid, par.as_deref(), &ch, msg));
    }
    json!({
        "title": if n.is_multiple_of(7) { Value::Null } else { Value::from(g.sentence(5)) },
        "create_time": t0, "update_time": t0 + turns as f64 * 60.0 + 30.0,
        "mapping": mapping, "moderation_results": [], "current_node": parent,
        "plugin_ids": null, "conversation_id": id(0), "conversation_template_id": null,
        "gizmo_id": null, "gizmo_type": null, "is_archived": false, "is_starred": null,
        "safe_urls": [], "blocked_urls": [], "default_model_slug": "gpt-4o",
        "conversation_origin": null, "voice": null, "async_status": null,
        "disabled_tool_ids": [], "is_do_not_remember": false, "memory_scope": "global_enabled",
        "id": id(0)
    })
}

/// Writes `conversations.json` of about `mb` MB (once; a marker says it is
/// complete) and returns its path and conversation count.
fn export(dir: &Path, mb: u64) -> (PathBuf, usize) {
    let path = dir.join(format!("chatgpt-{mb}mb/conversations.json"));
    let marker = path.with_extension("complete");
    if let Ok(n) = std::fs::read_to_string(&marker) {
        return (path, n.trim().parse().unwrap());
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let t = Instant::now();
    let mut g = corpus::Gen::new(29);
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    // one line, as the real export (a single line holding every chat)
    w.write_all(b"[").unwrap();
    let mut written = 1u64;
    let mut n = 0;
    while written < mb * 1_000_000 {
        if n > 0 {
            w.write_all(b",").unwrap();
        }
        let c = conversation(&mut g, n, 4 + n % 9, &format!("zqmarker{n}"));
        let bytes = serde_json::to_vec(&c).unwrap();
        written += bytes.len() as u64 + 1;
        w.write_all(&bytes).unwrap();
        n += 1;
    }
    w.write_all(b"]").unwrap();
    w.flush().unwrap();
    std::fs::write(&marker, n.to_string()).unwrap();
    println!(
        "  (generated {} MB, {n} conversations, in {:.1} s)",
        written / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    (path, n)
}

fn zipped(json: &Path) -> PathBuf {
    let z = json.with_extension("zip");
    if z.exists() {
        return z;
    }
    let t = Instant::now();
    let mut w = zip::ZipWriter::new(std::fs::File::create(&z).unwrap());
    w.start_file(
        "conversations.json",
        zip::write::SimpleFileOptions::default().large_file(true),
    )
    .unwrap();
    std::io::copy(&mut std::fs::File::open(json).unwrap(), &mut w).unwrap();
    w.finish().unwrap();
    println!("  (zipped in {:.1} s)", t.elapsed().as_secs_f64());
    z
}

/// A temporary HOME with a workspace.
fn home() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("pms-bench-import-")
        .tempdir()
        .unwrap();
    let out = cmd(
        dir.path(),
        &[
            "init",
            "--yes",
            "--no-index",
            "--no-import",
            "--name",
            "Bench",
            "--dir",
        ],
    )
    .arg(dir.path().join("pms"))
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn cmd(home: &Path, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(PMS);
    c.args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env("PMS_NO_BACKGROUND", "1")
        .current_dir(home);
    c
}

/// What one run of the command took.
struct Measured {
    stdout: Vec<u8>,
    secs: f64,
    /// Peak resident memory in MB (`wait4`'s `ru_maxrss`, that process
    /// alone). It counts the pages of index.db SQLite maps (`mmap_size`,
    /// 1 GB): the page cache's, given back under pressure.
    peak_mb: f64,
    /// Peak anonymous memory in MB (`RssAnon` in /proc/<pid>/status, read
    /// every 20 ms): the heap, what streaming must keep bounded.
    peak_anon_mb: f64,
}

/// RssAnon of `pid` in kB, while it runs.
fn rss_anon_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs the command to its end.
fn measured(mut c: std::process::Command) -> Measured {
    let t = Instant::now();
    let out_path =
        std::env::temp_dir().join(format!("pms-bench-import-{}.out", std::process::id()));
    let child = c
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        let pid = child.id();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_anon_kb(pid).unwrap_or(0));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            peak
        })
    };
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not waited for by anyone else.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid);
    let secs = t.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak_anon_kb = sampler.join().unwrap();
    assert_eq!(status, 0, "pms exited with {status}");
    std::mem::forget(child); // reaped above
    let out = std::fs::read(&out_path).unwrap();
    let _ = std::fs::remove_file(&out_path);
    Measured {
        stdout: out,
        secs,
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        peak_anon_mb: peak_anon_kb as f64 / 1024.0,
    }
}

fn run(label: &str, input: &Path, json_bytes: u64, conversations: usize) {
    let home = home();
    let h = home.path();
    let mut c = cmd(h, &["import", "chatgpt"]);
    c.arg(input).arg("--json");
    let m = measured(c);
    let r: Value = serde_json::from_slice(&m.stdout).unwrap();
    assert_eq!(
        r["conversations"]["new"].as_u64().unwrap() as usize,
        conversations,
        "{r:#}"
    );
    let mb = json_bytes as f64 / 1e6;
    println!(
        "{label}: {mb:.0} MB of export JSON, {conversations} conversations imported and indexed in {:.1} s = {:.1} MB/s (goal >= 50); peak memory {:.0} MB ({:.0} MB anonymous); {} chunks; identity proposals {}",
        m.secs,
        mb / m.secs,
        m.peak_mb,
        m.peak_anon_mb,
        r["indexed_chunks"],
        r["identity"].as_array().map_or(0, Vec::len)
    );
    // the importer alone: checks, reads, walks and renders, writes nothing
    let mut c = cmd(h, &["import", "chatgpt"]);
    c.arg(input).arg("--json").arg("--dry-run");
    let m = measured(c);
    println!(
        "  --dry-run (the import without writing or indexing): {:.1} s = {:.1} MB/s; peak memory {:.0} MB ({:.0} MB anonymous)",
        m.secs,
        mb / m.secs,
        m.peak_mb,
        m.peak_anon_mb
    );
    // searchable at once: a phrase from the last conversation's first prompt
    let marker = format!("zqmarker{}", conversations - 1);
    let t = Instant::now();
    let found = cmd(h, &["search", &marker, "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert!(
        v["hits"][0]["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("chatgpt://")),
        "{v:#}"
    );
    println!(
        "  searchable when the import returned: `pms search {marker}` found it first in {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    // again: nothing new, nothing written
    let mut c = cmd(h, &["import", "chatgpt"]);
    c.arg(input).arg("--json");
    let m = measured(c);
    let r: Value = serde_json::from_slice(&m.stdout).unwrap();
    assert_eq!(r["conversations"]["new"], 0);
    println!(
        "  the same export again: {} unchanged, nothing written, {:.1} s ({:.1} MB/s), peak memory {:.0} MB ({:.0} MB anonymous)",
        r["conversations"]["unchanged"],
        m.secs,
        mb / m.secs,
        m.peak_mb,
        m.peak_anon_mb
    );
}

fn main() {
    let mb: u64 = std::env::var("PMS_BENCH_IMPORT_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let keep = std::env::var_os("PMS_BENCH_DIR").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let dir = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let (json, n) = export(&dir, mb);
    let bytes = std::fs::metadata(&json).unwrap().len();
    run("conversations.json", &json, bytes, n);
    if std::env::var("PMS_BENCH_IMPORT_ZIP").map_or(mb <= 300, |v| v == "1") {
        let zip = zipped(&json);
        println!(
            "  (the zip is {:.0} MB)",
            std::fs::metadata(&zip).unwrap().len() as f64 / 1e6
        );
        run("the export zip", &zip, bytes, n);
    }
    if keep.is_none() {
        println!("(set PMS_BENCH_DIR to keep the generated export between runs)");
    }
}

//! The labelled retrieval set (tests/data/retrieval): loading it into a real
//! workspace and transcript root, indexing it, and scoring a search function
//! with Recall@10, MRR and nDCG@10. Shared by tests/retrieval_quality.rs and
//! benches/retrieval.rs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pms::memory::index::{db, indexer};
use pms::platform::host::env::HostEnv;
use pms::platform::workspace::Workspace;
use pms::platform::workspace::config::Config;
use pms::platform::workspace::scaffold::{self, Answers};
use serde::Deserialize;
use serde_json::json;

const CORPUS: &str = include_str!("../data/retrieval/corpus.txt");
const QUERIES: &str = include_str!("../data/retrieval/queries.toml");

#[derive(Debug, Clone, Deserialize)]
pub struct Query {
    pub text: String,
    pub relevant: Vec<String>,
    #[serde(default = "keyword")]
    pub kind: String,
}

fn keyword() -> String {
    "keyword".into()
}

#[derive(Deserialize)]
struct QueryFile {
    query: Vec<Query>,
}

pub fn queries() -> Vec<Query> {
    toml_edit::de::from_str::<QueryFile>(QUERIES)
        .expect("queries.toml parses")
        .query
}

/// A materialised corpus: the workspace, the transcript root and a config
/// pointing at it.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ws: Workspace,
    pub env: HostEnv,
    pub cfg: Config,
}

impl Fixture {
    pub fn transcripts(&self) -> PathBuf {
        self.dir.path().join("projects")
    }
}

/// Writes the corpus (and the eight shipped domains as distractors) into a
/// temporary workspace and transcript root.
pub fn materialize() -> Fixture {
    materialize_in(tempfile::tempdir().unwrap())
}

/// [`materialize`] into a given folder (benchmarks keep it between runs).
pub fn materialize_in(dir: tempfile::TempDir) -> Fixture {
    let ws = Workspace::new(dir.path().join("ws"));
    let answers = Answers {
        name: "Ada".into(),
        role: "Engineer".into(),
        domains: pms::platform::workspace::templates::domain_ids(),
        languages: vec!["English".into(), "中文".into()],
        tone: "direct".into(),
    };
    let plan = scaffold::plan(&ws, &answers, "2026-11-22").unwrap();
    scaffold::apply(&ws, &plan, |_| {}).unwrap();
    let root = dir.path().join("projects");
    write_corpus(&ws.root, &root);
    let env = HostEnv::with_home(dir.path().to_path_buf(), |_| None).unwrap();
    let mut cfg = Config::default();
    cfg.index.transcript_roots = vec![root.display().to_string()];
    Fixture { dir, ws, env, cfg }
}

fn write_corpus(ws_root: &Path, transcripts: &Path) {
    let mut blocks = CORPUS.split("\n=== ").skip(1);
    for block in blocks.by_ref() {
        let (header, body) = block.split_once('\n').unwrap();
        let (kind, name) = header.split_once(' ').unwrap();
        match kind {
            "note" => {
                let p = ws_root.join(name.trim());
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, body.trim().to_string() + "\n").unwrap();
            }
            "session" => {
                let p = transcripts.join(format!("{}.jsonl", name.trim()));
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                let mut out = String::new();
                for (i, line) in body.lines().filter(|l| !l.trim().is_empty()).enumerate() {
                    let ts = format!("2026-10-{:02}T09:{:02}:00Z", 1 + (i % 28), i % 60);
                    let v = if let Some(t) = line.strip_prefix("user: ") {
                        json!({"type": "user", "timestamp": ts, "message": {"role": "user", "content": t}})
                    } else if let Some(t) = line.strip_prefix("assistant: ") {
                        json!({"type": "assistant", "timestamp": ts,
                               "message": {"id": format!("msg_{i}"), "role": "assistant",
                                           "content": [{"type": "text", "text": t}]}})
                    } else {
                        panic!("bad corpus line {line:?}");
                    };
                    out.push_str(&v.to_string());
                    out.push('\n');
                }
                std::fs::write(p, out).unwrap();
            }
            other => panic!("unknown corpus block {other}"),
        }
    }
}

/// Indexes the fixture; returns the open database.
pub fn index(f: &Fixture) -> rusqlite::Connection {
    let mut conn = db::open_rw(&f.ws.db_path()).unwrap();
    indexer::run(
        &mut conn,
        &f.ws,
        &f.env,
        &f.cfg,
        &pms::platform::progress::Quiet,
    )
    .unwrap();
    conn
}

#[derive(Debug, Clone, Default)]
pub struct Metrics {
    pub queries: usize,
    pub recall_at_10: f64,
    pub mrr: f64,
    pub ndcg_at_10: f64,
    /// Queries whose first relevant hit is not in the top 10.
    pub misses: Vec<String>,
}

/// What every evaluation asks for: the top 10, one hit per file.
pub fn top10(q: &str) -> pms::memory::search::SearchParams {
    pms::memory::search::SearchParams {
        query: q.to_string(),
        limit: 10,
        per_file: 1,
        ..Default::default()
    }
}

/// The ranked URIs of a search's hits.
pub fn ranked(out: pms::memory::search::SearchOutcome) -> Vec<String> {
    out.hits.into_iter().map(|h| h.uri).collect()
}

/// Scores `search` (query text → ranked URIs) over `qs`.
pub fn evaluate(qs: &[Query], mut search: impl FnMut(&str) -> Vec<String>) -> Metrics {
    let mut m = Metrics {
        queries: qs.len(),
        ..Metrics::default()
    };
    for q in qs {
        let ranked = search(&q.text);
        let top: Vec<&String> = ranked.iter().take(10).collect();
        let found = q.relevant.iter().filter(|r| top.contains(r)).count();
        m.recall_at_10 += found as f64 / q.relevant.len() as f64;
        if let Some(pos) = ranked.iter().position(|u| q.relevant.contains(u)) {
            m.mrr += 1.0 / (pos + 1) as f64;
        }
        let dcg: f64 = top
            .iter()
            .enumerate()
            .filter(|(_, u)| q.relevant.contains(u))
            .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
            .sum();
        let ideal: f64 = (0..q.relevant.len().min(10))
            .map(|i| 1.0 / ((i + 2) as f64).log2())
            .sum();
        m.ndcg_at_10 += dcg / ideal;
        if found == 0 {
            m.misses.push(q.text.clone());
        }
    }
    let n = qs.len().max(1) as f64;
    m.recall_at_10 /= n;
    m.mrr /= n;
    m.ndcg_at_10 /= n;
    m
}

//! Scoring search on the long-memory labelled set (support/memory_set.rs):
//! the fixture (a real workspace, a real transcript root, a real index), the
//! search exactly as `pms search --json --limit 10` runs it, a plain BM25
//! reference, and the figures.
//!
//! The plain BM25 reference: one document per turn (as the transcript reader
//! yields them) and one per note, in an FTS5 table with the same tokenizer
//! and the same CJK bigram rewriting as the index, queried with the OR of
//! the query's words minus English stop words, ranked by FTS5's bm25 (k1
//! 1.2, b 0.75). No weights, no rounds, no grouping.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use pms::memory::index::{db, indexer};
use pms::memory::search::hybrid::{self, Semantic};
use pms::memory::search::{Request, SearchOutcome};
use pms::platform::host::env::HostEnv;
use pms::platform::workspace::Workspace;
use pms::platform::workspace::config::Config;
use pms::platform::workspace::scaffold::{self, Answers};
use rusqlite::Connection;

use super::memory_set::{self, Kind, MemorySet, Question};

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ws: Workspace,
    pub env: HostEnv,
    pub cfg: Config,
    pub set: MemorySet,
}

impl Fixture {
    pub fn transcripts(&self) -> PathBuf {
        self.dir.path().join("projects")
    }
}

/// The set written into a fresh workspace (with the shipped domains as
/// distractors) and transcript root.
pub fn materialize() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
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
    let set = memory_set::build(&root, &ws.root);
    let env = HostEnv::with_home(dir.path().to_path_buf(), |_| None).unwrap();
    let mut cfg = Config::default();
    cfg.index.transcript_roots = vec![root.display().to_string()];
    Fixture {
        dir,
        ws,
        env,
        cfg,
        set,
    }
}

pub fn index(f: &Fixture) -> Connection {
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

/// One ranked result: where it points.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub uri: String,
    pub line_start: i64,
    pub line_end: i64,
}

fn ranked(out: SearchOutcome) -> Vec<Ranked> {
    out.hits
        .into_iter()
        .map(|h| Ranked {
            uri: h.uri,
            line_start: h.line_start,
            line_end: h.line_end,
        })
        .collect()
}

/// A request as `pms search --json --limit 10` parses it.
fn top10(cfg: &Config, q: &str) -> pms::memory::search::SearchParams {
    Request {
        query: q,
        limit: Some(10),
        ..Request::default()
    }
    .parse(&cfg.search, usize::MAX)
    .unwrap()
}

/// The search as `pms search --json --limit 10 [--keyword]` runs it: the
/// same request parsing and the same entry point.
pub fn pms_search(conn: &Connection, cfg: &Config, q: &str, semantic: &Semantic) -> Vec<Ranked> {
    ranked(hybrid::search(conn, &cfg.search, &top10(cfg, q), semantic).unwrap())
}

/// Keyword search with a second hop (what the hop would add to it).
pub fn pms_search_with_hop(
    conn: &Connection,
    cfg: &Config,
    q: &str,
    hop: &pms::memory::search::hop::Hop,
) -> Vec<Ranked> {
    use pms::memory::search::keyword::{TUNING, search_tuned};
    ranked(search_tuned(conn, &cfg.search, &top10(cfg, q), &TUNING, hop).unwrap())
}

pub fn keyword() -> Semantic<'static> {
    Semantic::Off("--keyword".into())
}

/// English stop words of the reference (a common list).
const BASELINE_STOP: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "me",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The plain BM25 reference over the fixture's turns and notes.
pub struct Baseline {
    conn: Connection,
    docs: Vec<Ranked>,
}

impl Baseline {
    pub fn build(f: &Fixture, index_conn: &Connection) -> Baseline {
        let conn = Connection::open_in_memory().unwrap();
        // the tokenizer the index uses, read from its own schema
        let sql: String = index_conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'transcript_fts'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let tokenize = sql
            .split("tokenize")
            .nth(1)
            .and_then(|s| s.split('\'').nth(1))
            .expect("the index schema names its tokenizer")
            .to_string();
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '{tokenize}');"
        ))
        .unwrap();
        let mut docs = Vec::new();
        let mut add = |conn: &Connection, r: Ranked, text: &str| {
            docs.push(r);
            conn.execute(
                "INSERT INTO docs(rowid, body) VALUES (?1, ?2)",
                rusqlite::params![
                    docs.len() as i64,
                    pms::memory::words::terms::index_body(text)
                ],
            )
            .unwrap();
        };
        // one document per turn
        let root = f.transcripts();
        for project in std::fs::read_dir(&root).unwrap().flatten() {
            for file in std::fs::read_dir(project.path()).unwrap().flatten() {
                let p = file.path();
                let mut input = std::io::BufReader::new(std::fs::File::open(&p).unwrap());
                let (turns, _) = pms::platform::agents::transcript::read(
                    &mut input,
                    0,
                    0,
                    &pms::platform::agents::transcript::ReadOptions {
                        tool_result_chars: f.cfg.index.tool_result_chars,
                        ..Default::default()
                    },
                );
                let uri = format!(
                    "cc://{}/{}",
                    project.file_name().to_string_lossy(),
                    file.file_name().to_string_lossy()
                );
                for t in turns {
                    add(
                        &conn,
                        Ranked {
                            uri: uri.clone(),
                            line_start: t.line_start as i64,
                            line_end: t.line_end as i64,
                        },
                        &t.text,
                    );
                }
            }
        }
        // one document per markdown file of the workspace
        let mut stack = vec![f.ws.root.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().to_string();
                if name.starts_with('.') {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else if name.ends_with(".md") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let rel = p
                        .strip_prefix(&f.ws.root)
                        .unwrap()
                        .to_string_lossy()
                        .to_string();
                    let lines = text.lines().count().max(1) as i64;
                    add(
                        &conn,
                        Ranked {
                            uri: rel,
                            line_start: 1,
                            line_end: lines,
                        },
                        &text,
                    );
                }
            }
        }
        Baseline { conn, docs }
    }

    pub fn search(&self, q: &str) -> Vec<Ranked> {
        // words and CJK bigrams, each its own term
        let mut phrases = Vec::new();
        for t in pms::memory::words::terms::terms(q) {
            let tokens = match t {
                pms::memory::words::terms::Term::Word(w) => {
                    if BASELINE_STOP.contains(&w.as_str()) {
                        continue;
                    }
                    vec![w]
                }
                pms::memory::words::terms::Term::Cjk(run) => {
                    pms::memory::words::terms::bigrams(&run)
                }
            };
            for token in tokens {
                let quoted = format!("\"{}\"", token.replace('"', "\"\""));
                if !phrases.contains(&quoted) {
                    phrases.push(quoted);
                }
            }
        }
        if phrases.is_empty() {
            return Vec::new();
        }
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT rowid FROM docs WHERE docs MATCH ?1 ORDER BY bm25(docs) LIMIT 10",
            )
            .unwrap();
        st.query_map([phrases.join(" OR ")], |r| r.get::<_, i64>(0))
            .unwrap()
            .map(|id| self.docs[id.unwrap() as usize - 1].clone())
            .collect()
    }
}

/// The figures for one group of questions.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    pub questions: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub recall_at_10: f64,
    pub mrr: f64,
    pub ndcg_at_10: f64,
    /// Conversation questions: the first hit is in the right conversation.
    pub right_conversation_first: f64,
    /// Questions with no relevant result in the top 10.
    pub misses: Vec<String>,
}

impl Figures {
    pub fn row(&self) -> String {
        format!(
            "{:>4}  R@1 {:.3}  R@5 {:.3}  R@10 {:.3}  MRR {:.3}  nDCG@10 {:.3}  conv@1 {:.3}",
            self.questions,
            self.recall_at_1,
            self.recall_at_5,
            self.recall_at_10,
            self.mrr,
            self.ndcg_at_10,
            self.right_conversation_first
        )
    }
}

/// Which relevant item (index) a result covers, if any.
fn covers(q: &Question, r: &Ranked) -> Option<usize> {
    if q.kind.is_note_query() {
        return q.relevant.iter().position(|p| *p == r.uri);
    }
    q.evidence.iter().position(|e| {
        e.uri == r.uri && r.line_start <= e.line as i64 && e.line as i64 <= r.line_end
    })
}

fn relevant_count(q: &Question) -> usize {
    if q.kind.is_note_query() {
        q.relevant.len()
    } else {
        q.evidence.len()
    }
}

/// Scores `search` over the questions that have an answer.
pub fn score(qs: &[&Question], mut search: impl FnMut(&str) -> Vec<Ranked>) -> Figures {
    let mut f = Figures::default();
    for q in qs.iter().filter(|q| relevant_count(q) > 0) {
        f.questions += 1;
        let results = search(&q.text);
        let n = relevant_count(q) as f64;
        let mut seen = HashSet::new();
        let mut first = None;
        let mut dcg = 0.0;
        let mut found_at = [0usize; 3];
        for (i, r) in results.iter().take(10).enumerate() {
            if let Some(k) = covers(q, r) {
                if first.is_none() {
                    first = Some(i);
                }
                if seen.insert(k) {
                    dcg += 1.0 / ((i + 2) as f64).log2();
                    for (j, cut) in [1, 5, 10].iter().enumerate() {
                        if i < *cut {
                            found_at[j] += 1;
                        }
                    }
                }
            }
        }
        f.recall_at_1 += found_at[0] as f64 / n;
        f.recall_at_5 += found_at[1] as f64 / n;
        f.recall_at_10 += found_at[2] as f64 / n;
        if let Some(i) = first {
            f.mrr += 1.0 / (i + 1) as f64;
        } else {
            f.misses.push(q.text.clone());
        }
        let ideal: f64 = (0..(n as usize).min(10))
            .map(|i| 1.0 / ((i + 2) as f64).log2())
            .sum();
        f.ndcg_at_10 += dcg / ideal;
        if !q.kind.is_note_query()
            && results
                .first()
                .is_some_and(|r| r.uri.starts_with(&format!("cc://{}/", q.conversation)))
        {
            f.right_conversation_first += 1.0;
        }
    }
    let n = f.questions.max(1) as f64;
    f.recall_at_1 /= n;
    f.recall_at_5 /= n;
    f.recall_at_10 /= n;
    f.mrr /= n;
    f.ndcg_at_10 /= n;
    f.right_conversation_first /= n;
    f
}

/// The groups figures are reported for: conversations and notes, by half
/// and by kind.
pub fn groups(set: &MemorySet) -> BTreeMap<String, Vec<&Question>> {
    let mut g: BTreeMap<String, Vec<&Question>> = BTreeMap::new();
    for q in &set.questions {
        if q.kind == Kind::NoAnswer {
            continue;
        }
        let half = if q.held_out { "held-out" } else { "tuning" };
        let part = if q.kind.is_note_query() {
            "notes"
        } else {
            "conversations"
        };
        g.entry(format!("{half} {part} (all)")).or_default().push(q);
        g.entry(format!("{half} {part}: {}", q.kind.as_str()))
            .or_default()
            .push(q);
    }
    g
}

/// An embedder whose vectors are kept on disk by text, so that a benchmark
/// run after the first embeds nothing it has embedded before (a transformer
/// takes minutes over the set). Keyed by the model's id and an xxh3 of the
/// text; the file lives under CARGO_TARGET_TMPDIR.
pub struct CachedEmbedder<'a> {
    inner: &'a dyn pms::memory::embed::Embedder,
    path: PathBuf,
    cache: std::sync::Mutex<std::collections::HashMap<u64, Vec<f32>>>,
    /// Texts embedded by the model (not found in the cache).
    pub computed: std::sync::atomic::AtomicUsize,
}

impl<'a> CachedEmbedder<'a> {
    pub fn new(inner: &'a dyn pms::memory::embed::Embedder) -> CachedEmbedder<'a> {
        let name: String = inner
            .id()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("vectors-{name}.bin"));
        let mut cache = std::collections::HashMap::new();
        if let Ok(bytes) = std::fs::read(&path) {
            let mut at = 0;
            while at + 12 <= bytes.len() {
                let key = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
                let n = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
                at += 12;
                if at + n * 4 > bytes.len() {
                    break;
                }
                let v = bytes[at..at + n * 4]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                at += n * 4;
                cache.insert(key, v);
            }
        }
        CachedEmbedder {
            inner,
            path,
            cache: std::sync::Mutex::new(cache),
            computed: Default::default(),
        }
    }
}

impl pms::memory::embed::Embedder for CachedEmbedder<'_> {
    fn id(&self) -> &str {
        self.inner.id()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, pms::memory::embed::EmbedError> {
        let keys: Vec<u64> = texts
            .iter()
            .map(|t| xxhash_rust::xxh3::xxh3_64(t.as_bytes()))
            .collect();
        let missing: Vec<usize> = {
            let c = self.cache.lock().unwrap();
            (0..texts.len())
                .filter(|i| !c.contains_key(&keys[*i]))
                .collect()
        };
        if !missing.is_empty() {
            let todo: Vec<String> = missing.iter().map(|i| texts[*i].clone()).collect();
            let vs = self.inner.embed(&todo)?;
            self.computed
                .fetch_add(todo.len(), std::sync::atomic::Ordering::Relaxed);
            let mut out = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .unwrap();
            let mut buf = Vec::new();
            let mut c = self.cache.lock().unwrap();
            for (i, v) in missing.iter().zip(vs) {
                buf.extend_from_slice(&keys[*i].to_le_bytes());
                buf.extend_from_slice(&(v.len() as u32).to_le_bytes());
                for x in &v {
                    buf.extend_from_slice(&x.to_le_bytes());
                }
                c.insert(keys[*i], v);
            }
            std::io::Write::write_all(&mut out, &buf).unwrap();
        }
        let c = self.cache.lock().unwrap();
        Ok(keys.iter().map(|k| c[k].clone()).collect())
    }
}

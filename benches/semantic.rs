//! Semantic recall benchmarks (issue 7's figures), printed.
//!
//! With the real registry model (PyPI tokenlearn-static-model, a Model2Vec
//! multilingual static model; see tests/support/models.rs):
//! - model load time;
//! - retrieval quality on the labelled set, keyword vs hybrid, on the
//!   keyword queries, the paraphrase queries and all of them (Recall@10,
//!   MRR, nDCG@10), for vector weights 0.0 to 1.0;
//! - embedding throughput (chunks/s) for a full index of a synthetic
//!   history, and the size the vectors add to the database;
//! - hybrid query latency p50/p95 (embedding the query included) over that
//!   index, next to keyword latency.
//!
//! Run: `cargo bench --bench semantic`. PMS_BENCH_MODEL=<dir> measures
//! another Model2Vec model (e.g. potion-multilingual-128M) instead;
//! PMS_BENCH_LARGE_DB=<a copy of an index.db> adds the latencies over it.

#[path = "corpus.rs"]
mod corpus;
#[path = "../tests/support/models.rs"]
mod models;
#[path = "../tests/support/pip.rs"]
mod pip;
#[path = "../tests/support/retrieval.rs"]
mod retrieval;
#[path = "../tests/support/skip.rs"]
mod skip;

use std::path::PathBuf;
use std::time::Instant;

use pms::memory::embed::Embedder;
use pms::memory::embed::local::Local;
use pms::memory::index::{db, indexer, vectors};
use pms::memory::search;
use pms::memory::search::hybrid;
use retrieval::top10;

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let model_dir = match std::env::var_os("PMS_BENCH_MODEL") {
        Some(d) => PathBuf::from(d),
        None => models::registry_model().expect("python3 with pip, to fetch the registry model"),
    };
    let t = Instant::now();
    let model = Local::load(&model_dir, "bench").unwrap();
    println!(
        "model {}: loaded in {:.0} ms, {} dimensions",
        model_dir.display(),
        t.elapsed().as_secs_f64() * 1e3,
        model.dim()
    );

    // Quality on the labelled set.
    let f = retrieval::materialize();
    let mut conn = retrieval::index(&f);
    let r = vectors::embed_missing(&mut conn, &model, &pms::platform::progress::Quiet).unwrap();
    println!(
        "labelled set: {} chunks embedded in {} ms",
        r.chunks, r.elapsed_ms
    );
    let all = retrieval::queries();
    let kinds: [(&str, Vec<retrieval::Query>); 3] = [
        (
            "keyword queries",
            all.iter()
                .filter(|q| q.kind == "keyword")
                .cloned()
                .collect(),
        ),
        (
            "paraphrase queries",
            all.iter()
                .filter(|q| q.kind == "paraphrase")
                .cloned()
                .collect(),
        ),
        ("all queries", all.clone()),
    ];
    // query vectors once
    let qvec: std::collections::HashMap<String, Vec<f32>> = all
        .iter()
        .map(|q| {
            (
                q.text.clone(),
                model
                    .embed(std::slice::from_ref(&q.text))
                    .unwrap()
                    .remove(0),
            )
        })
        .collect();
    for (label, qs) in &kinds {
        let kw = retrieval::evaluate(qs, |q| {
            retrieval::ranked(search::keyword::search(&conn, &f.cfg.search, &top10(q)).unwrap())
        });
        println!(
            "{label} ({}): keyword  Recall@10 {:.3}  MRR {:.3}  nDCG@10 {:.3}",
            qs.len(),
            kw.recall_at_10,
            kw.mrr,
            kw.ndcg_at_10
        );
        for w in [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] {
            let m = retrieval::evaluate(qs, |q| {
                let out = hybrid::hybrid(&conn, &f.cfg.search, &top10(q), &qvec[q], w, None);
                retrieval::ranked(out.unwrap())
            });
            println!(
                "    hybrid w={w:.1}  Recall@10 {:.3}  MRR {:.3}  nDCG@10 {:.3}{}",
                m.recall_at_10,
                m.mrr,
                m.ndcg_at_10,
                if std::env::var("PMS_BENCH_VERBOSE").is_ok() {
                    format!("  misses {:?}", m.misses)
                } else {
                    String::new()
                }
            );
        }
    }

    // Throughput and latency on a synthetic history.
    let history = f.dir.path().join("history");
    corpus::write_history(&history, 1_000, 60, 0, 11, false);
    let mut cfg = f.cfg.clone();
    cfg.index.transcript_roots = vec![
        f.transcripts().display().to_string(),
        history.display().to_string(),
    ];
    let db_path = f.dir.path().join("bench.db");
    let mut conn = db::open_rw(&db_path).unwrap();
    indexer::run(
        &mut conn,
        &f.ws,
        &f.env,
        &cfg,
        &pms::platform::progress::Quiet,
    )
    .unwrap();
    let size_before = std::fs::metadata(&db_path).unwrap().len();
    let r = vectors::embed_missing(&mut conn, &model, &pms::platform::progress::Quiet).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let size_after = std::fs::metadata(&db_path).unwrap().len();
    println!(
        "embedding a full index: {} chunks in {:.2} s = {:.0} chunks/s; vectors add {:.1} MB to the database ({:.0} bytes per chunk)",
        r.chunks,
        r.elapsed_ms as f64 / 1e3,
        r.chunks as f64 / (r.elapsed_ms.max(1) as f64 / 1e3),
        (size_after.saturating_sub(size_before)) as f64 / 1e6,
        (size_after.saturating_sub(size_before)) as f64 / r.chunks.max(1) as f64,
    );
    let weight = cfg.embeddings.vector_weight;
    latency(&conn, &cfg.search, weight, &model, &all);

    // PMS_BENCH_LARGE_DB=<index.db>: the same latencies over a large index,
    // such as the index bench's dense.db (1.1M chunks, under $PMS_BENCH_DIR).
    // Vectors are added to that file: give it a copy.
    if let Some(path) = std::env::var_os("PMS_BENCH_LARGE_DB") {
        let mut conn = db::open_rw(std::path::Path::new(&path)).unwrap();
        let r = vectors::embed_missing(&mut conn, &model, &pms::platform::progress::Quiet).unwrap();
        if r.chunks > 0 {
            println!(
                "large index: embedded {} chunks in {:.1} s",
                r.chunks,
                r.elapsed_ms as f64 / 1e3
            );
        }
        latency(&conn, &cfg.search, weight, &model, &all);
    }
}

/// Keyword, query-embedding and hybrid latencies (streamed from SQLite as
/// `pms search` does, and from memory as `pms serve` does) over `queries`,
/// five rounds, printed as p50 / p95.
fn latency(
    conn: &rusqlite::Connection,
    search_cfg: &pms::platform::workspace::config::SearchConfig,
    weight: f64,
    model: &Local,
    queries: &[retrieval::Query],
) {
    let cache = hybrid::VectorCache::new();
    let streamed = hybrid::Semantic::On {
        embedder: model,
        weight,
        cache: None,
    };
    let cached = hybrid::Semantic::On {
        embedder: model,
        weight,
        cache: Some(&cache),
    };
    let (mut kw_lat, mut hy_lat, mut hc_lat, mut emb_lat) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        for q in queries {
            let t = Instant::now();
            std::hint::black_box(
                search::keyword::search(conn, search_cfg, &top10(&q.text)).unwrap(),
            );
            kw_lat.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            std::hint::black_box(model.embed(std::slice::from_ref(&q.text)).unwrap());
            emb_lat.push(t.elapsed().as_secs_f64() * 1e3);
            for (sem, lat) in [(&streamed, &mut hy_lat), (&cached, &mut hc_lat)] {
                let t = Instant::now();
                let out = hybrid::search(conn, search_cfg, &top10(&q.text), sem).unwrap();
                lat.push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(out.mode, pms::memory::search::Mode::Hybrid);
            }
        }
    }
    let chunks: i64 = conn
        .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))
        .unwrap();
    println!(
        "query latency over {chunks} chunks, {} queries x5 (p50 / p95): keyword {:.2} / {:.2} ms; embedding the query {:.3} / {:.3} ms; hybrid streaming vectors from SQLite (pms search) {:.2} / {:.2} ms; hybrid with vectors in memory (pms serve) {:.2} / {:.2} ms",
        queries.len(),
        percentile(&mut kw_lat, 0.5),
        percentile(&mut kw_lat, 0.95),
        percentile(&mut emb_lat, 0.5),
        percentile(&mut emb_lat, 0.95),
        percentile(&mut hy_lat, 0.5),
        percentile(&mut hy_lat, 0.95),
        percentile(&mut hc_lat, 0.5),
        percentile(&mut hc_lat, 0.95),
    );
}

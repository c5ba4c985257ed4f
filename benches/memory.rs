//! Search quality on the long-memory labelled set (issue 13), printed as
//! figures: Recall@1/5/10, MRR, nDCG@10 and right-conversation-first for a
//! plain BM25 reference, pms keyword search and pms hybrid search, on the
//! tuning half and the held-out half, by kind of question.
//!
//! Run: `cargo bench --bench memory`. PMS_BENCH_VERBOSE=1 lists the misses.
//! PMS_BENCH_MODEL=<dir> adds hybrid with another Model2Vec model (e.g. the
//! MiniLM distillation from `scripts/distill_static.py`).

#[path = "../tests/support/memory_eval.rs"]
mod memory_eval;
#[path = "../tests/support/memory_notes.rs"]
mod memory_notes;
#[path = "../tests/support/memory_set.rs"]
mod memory_set;
#[path = "../tests/support/models.rs"]
mod models;
#[path = "../tests/support/pip.rs"]
mod pip;
#[path = "../tests/support/skip.rs"]
mod skip;

use std::path::PathBuf;
use std::time::Instant;

use memory_eval::{Baseline, pms_search, score};
use pms::memory::embed::{Embedder, LocalModel};
use pms::memory::search::hybrid::{self, Fusion, Semantic};

fn main() {
    let t = Instant::now();
    let f = memory_eval::materialize();
    let mut conn = memory_eval::index(&f);
    println!(
        "labelled set: {} conversations, {} sessions, {} turns, {} notes, {} questions ({} held out); indexed in {:.1} s",
        f.set.conversations,
        f.set.sessions,
        f.set.turns,
        f.set.notes,
        f.set.questions.len(),
        f.set.questions.iter().filter(|q| q.held_out).count(),
        t.elapsed().as_secs_f64()
    );
    let baseline = Baseline::build(&f, &conn);
    let verbose = std::env::var("PMS_BENCH_VERBOSE").is_ok();
    let mut models: Vec<(String, LocalModel)> = Vec::new();
    if let Some(dir) = models::registry_model() {
        models.push((
            "registry".into(),
            LocalModel::load(&dir, "registry").unwrap(),
        ));
    }
    if let Some(dir) = models::minilm_model() {
        models.push(("minilm".into(), LocalModel::load(&dir, "minilm").unwrap()));
    }
    if let Some(dir) = std::env::var_os("PMS_BENCH_MODEL") {
        let dir = PathBuf::from(dir);
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        models.push((name.clone(), LocalModel::load(&dir, &name).unwrap()));
    }
    for (name, dir) in [
        ("registry", models::registry_model()),
        ("minilm", models::minilm_model()),
    ] {
        if let Some(dir) = dir {
            let bytes: u64 = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum();
            println!(
                "{name}: {:.1} MB on disk ({})",
                bytes as f64 / 1e6,
                dir.display()
            );
        }
    }
    let groups = memory_eval::groups(&f.set);
    let hop = pms::memory::search::hop::SECOND_HOP;
    for (label, qs) in &groups {
        println!("{label}");
        let b = score(qs, |q| baseline.search(q));
        println!("  plain BM25       {}", b.row());
        let k = score(qs, |q| {
            pms_search(&conn, &f.cfg, q, &memory_eval::keyword())
        });
        println!("  pms keyword      {}", k.row());
        if verbose && label.ends_with("(all)") {
            println!("    keyword misses: {:?}", k.misses);
        }
        // what the second hop would add to keyword search (not shipped:
        // keyword-only figures stay those above)
        let kh = score(qs, |q| {
            memory_eval::pms_search_with_hop(&conn, &f.cfg, q, &hop)
        });
        println!("  (keyword + hop   {})", kh.row());
    }
    for (name, model) in &models {
        if std::env::var("PMS_BENCH_ONLY").is_ok_and(|o| &o != name) {
            continue;
        }
        cost(name, model, &conn, &f.set);
        let model = &memory_eval::CachedEmbedder::new(model);
        let t = Instant::now();
        pms::memory::index::vectors::clear(&conn).unwrap();
        pms::memory::index::vectors::embed_missing(
            &mut conn,
            model,
            &pms::platform::progress::Quiet,
        )
        .unwrap();
        println!(
            "{name}: {} chunks embedded in {:.1} s (vectors cached from earlier runs under target/tmp are not counted)",
            model.computed.load(std::sync::atomic::Ordering::Relaxed),
            t.elapsed().as_secs_f64()
        );
        let weight = f.cfg.embeddings.vector_weight;
        let sem = Semantic::On {
            embedder: model,
            weight,
            cache: None,
        };
        use pms::memory::search::hop::Hop;
        let off = pms::memory::search::hop::OFF;
        let sweep: Vec<(Fusion, Hop)> = match std::env::var("PMS_BENCH_SWEEP") {
            Ok(kind) if kind == "hop" => {
                let mut v = Vec::new();
                for tr in [0.0, 0.1, 0.2] {
                    for from_top in [0, 2, 3, 5] {
                        for bridge_words in [8, 12, 16] {
                            v.push((
                                Fusion::PerSource {
                                    structured: 0.75,
                                    transcript: tr,
                                },
                                Hop {
                                    from_top,
                                    bridge_words,
                                },
                            ));
                        }
                    }
                }
                v
            }
            Ok(_) => {
                let mut v = Vec::new();
                for st in [0.45, 0.6, 0.75, 0.9] {
                    for tr in [0.0, 0.1, 0.2, 0.3, 0.45, 0.6] {
                        v.push((
                            Fusion::PerSource {
                                structured: st,
                                transcript: tr,
                            },
                            off,
                        ));
                    }
                }
                v
            }
            // the fusions measured before, for the record
            Err(_) if std::env::var_os("PMS_BENCH_FUSIONS").is_some() => vec![
                (Fusion::Weighted(0.15), off),
                (Fusion::Weighted(0.3), off),
                (Fusion::Weighted(0.6), off),
                (Fusion::ReciprocalRank, off),
            ],
            Err(_) => Vec::new(),
        };
        for (label, qs) in &groups {
            let h = score(qs, |q| pms_search(&conn, &f.cfg, q, &sem));
            println!("{label}\n  pms hybrid ({name}) {}", h.row());
            for (fusion, hop) in &sweep {
                let (fusion, hop) = (*fusion, *hop);
                let h = score(qs, |q| {
                    let p = pms::memory::search::Request {
                        query: q,
                        limit: Some(10),
                        ..Default::default()
                    }
                    .parse(&f.cfg.search, 50)
                    .unwrap();
                    let v = model.embed(&[q.to_string()]).unwrap().remove(0);
                    let out =
                        hybrid::hybrid_fused(&conn, &f.cfg.search, &p, &v, fusion, None, &hop)
                            .unwrap();
                    out.hits
                        .into_iter()
                        .map(|h| memory_eval::Ranked {
                            uri: h.uri,
                            line_start: h.line_start,
                            line_end: h.line_end,
                        })
                        .collect()
                });
                println!(
                    "    {:<50} {}",
                    format!(
                        "{} {}/{}",
                        format!("{fusion:?}")
                            .replace("PerSource { structured: ", "ps ")
                            .replace("transcript: ", "")
                            .replace(" }", ""),
                        hop.from_top,
                        hop.bridge_words
                    ),
                    h.row()
                );
            }
        }
    }
}

/// What a model costs: its files on disk, embedding a query (p50 of 20),
/// and embedding chunks at index time (64 chunks of the set, uncached:
/// wall-clock and CPU seconds of this process).
fn cost(name: &str, model: &LocalModel, conn: &rusqlite::Connection, _set: &memory_set::MemorySet) {
    let texts: Vec<String> = conn
        .prepare("SELECT coalesce(heading || char(10), '') || text FROM chunks ORDER BY id LIMIT 64 OFFSET 1000")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|t| t.unwrap())
        .collect();
    let cpu = || {
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        (u.ru_utime.tv_sec + u.ru_stime.tv_sec) as f64
            + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) as f64 / 1e6
    };
    let (c0, t0) = (cpu(), Instant::now());
    model.embed(&texts).unwrap();
    let (c, w) = (cpu() - c0, t0.elapsed().as_secs_f64());
    let q = "how do we keep the cluster from running out of memory".to_string();
    let mut lat: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            model.embed(std::slice::from_ref(&q)).unwrap();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    println!(
        "{name} ({}): loaded in {} ms; {} chunks embedded at {:.1} chunks/s wall, {:.1} per CPU-second; a query embedded in {:.1} ms (p50)",
        model.kind(),
        model.load_ms(),
        texts.len(),
        texts.len() as f64 / w,
        texts.len() as f64 / c.max(1e-9),
        lat[10]
    );
}

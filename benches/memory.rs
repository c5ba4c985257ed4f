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
use pms::memory::embed::Embedder;
use pms::memory::embed::local::Local;
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
    let mut models: Vec<(String, Local)> = Vec::new();
    if let Some(dir) = models::registry_model() {
        models.push(("registry".into(), Local::load(&dir, "registry").unwrap()));
    }
    if let Some(dir) = std::env::var_os("PMS_BENCH_MODEL") {
        let dir = PathBuf::from(dir);
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        models.push((name.clone(), Local::load(&dir, &name).unwrap()));
    }
    let groups = memory_eval::groups(&f.set);
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
    }
    for (name, model) in &models {
        pms::memory::index::vectors::clear(&conn).unwrap();
        pms::memory::index::vectors::embed_missing(
            &mut conn,
            model,
            &pms::platform::progress::Quiet,
        )
        .unwrap();
        let weight = f.cfg.embeddings.vector_weight;
        let sem = Semantic::On {
            embedder: model,
            weight,
            cache: None,
        };
        for (label, qs) in &groups {
            if !label.ends_with("(all)") && !label.ends_with("paraphrase") {
                continue;
            }
            let h = score(qs, |q| pms_search(&conn, &f.cfg, q, &sem));
            println!("{label}\n  pms hybrid ({name}, w={weight}) {}", h.row());
            // the other fusions, for the record
            for fusion in [
                Fusion::Weighted(0.15),
                Fusion::Weighted(0.45),
                Fusion::Weighted(0.6),
                Fusion::ReciprocalRank,
            ] {
                let h = score(qs, |q| {
                    let p = pms::memory::search::Request {
                        query: q,
                        limit: Some(10),
                        ..Default::default()
                    }
                    .parse(&f.cfg.search, 50)
                    .unwrap();
                    let v = model.embed(&[q.to_string()]).unwrap().remove(0);
                    let out = hybrid::hybrid_fused(
                        &conn,
                        &f.cfg.search,
                        &p,
                        &v,
                        fusion,
                        None,
                        &pms::memory::search::keyword::TUNING,
                    )
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
                println!("    {:<24} {}", format!("{fusion:?}"), h.row());
            }
        }
    }
}

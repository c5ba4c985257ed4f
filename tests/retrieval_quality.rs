//! Retrieval quality on the labelled set: Recall@10, MRR and nDCG@10 of
//! keyword search. The floors are the figures reached when this was written
//! (rounded down); a change that lowers them fails here.

use crate::support::retrieval;
use pms::memory::search;

#[test]
fn keyword_search_quality_does_not_regress() {
    let f = retrieval::materialize();
    let conn = retrieval::index(&f);
    let qs: Vec<_> = retrieval::queries()
        .into_iter()
        .filter(|q| q.kind == "keyword")
        .collect();
    assert!(
        qs.len() >= 40,
        "the labelled set has {} keyword queries",
        qs.len()
    );
    assert!(
        qs.iter()
            .filter(|q| q.text.chars().any(pms::memory::words::terms::is_cjk))
            .count()
            >= 10
    );
    let m = retrieval::evaluate(&qs, |q| {
        retrieval::ranked(
            search::keyword::search(&conn, &f.cfg.search, &retrieval::top10(q)).unwrap(),
        )
    });
    println!(
        "keyword search over {} queries: Recall@10 {:.3}  MRR {:.3}  nDCG@10 {:.3}  misses {:?}",
        m.queries, m.recall_at_10, m.mrr, m.ndcg_at_10, m.misses
    );
    assert!(
        m.recall_at_10 >= FLOOR_RECALL,
        "Recall@10 {:.3}",
        m.recall_at_10
    );
    assert!(m.mrr >= FLOOR_MRR, "MRR {:.3}", m.mrr);
    assert!(m.ndcg_at_10 >= FLOOR_NDCG, "nDCG@10 {:.3}", m.ndcg_at_10);
}

// Raised with issue 13's ranking (OR with a coverage boost, inflections,
// conversation context): 0.947 / 0.989 / 0.951 before, 1.000 for all three
// after.
const FLOOR_RECALL: f64 = 0.99;
const FLOOR_MRR: f64 = 0.99;
const FLOOR_NDCG: f64 = 0.99;

/// Hybrid ranking with real weights from a package registry (see
/// tests/support/models.rs): it must keep every keyword query's quality and
/// recover paraphrases keyword search misses. Floors are the figures
/// measured when this was written, rounded down.
#[test]
fn hybrid_search_recovers_paraphrases_without_losing_keyword_quality() {
    let Some(model_dir) = crate::support::models::registry_model() else {
        return;
    };
    let model = pms::memory::embed::local::Local::load(&model_dir, "registry").unwrap();
    let f = retrieval::materialize();
    let mut conn = retrieval::index(&f);
    pms::memory::index::vectors::embed_missing(&mut conn, &model, &pms::platform::progress::Quiet)
        .unwrap();
    let weight = f.cfg.embeddings.vector_weight;
    let run = |kind: &str, hybrid: bool| {
        let qs: Vec<_> = retrieval::queries()
            .into_iter()
            .filter(|q| q.kind == kind)
            .collect();
        retrieval::evaluate(&qs, |q| {
            let p = retrieval::top10(q);
            let out = if hybrid {
                let sem = pms::memory::search::hybrid::Semantic::On {
                    embedder: &model,
                    weight,
                    cache: None,
                };
                let out =
                    pms::memory::search::hybrid::search(&conn, &f.cfg.search, &p, &sem).unwrap();
                assert_eq!(out.mode, pms::memory::search::Mode::Hybrid);
                out
            } else {
                search::keyword::search(&conn, &f.cfg.search, &p).unwrap()
            };
            retrieval::ranked(out)
        })
    };
    let kw_para = run("paraphrase", false);
    let hy_para = run("paraphrase", true);
    let hy_kw = run("keyword", true);
    println!(
        "paraphrases: keyword R@10 {:.3} MRR {:.3}; hybrid R@10 {:.3} MRR {:.3} nDCG {:.3}; keyword queries with hybrid: R@10 {:.3} MRR {:.3} nDCG {:.3}",
        kw_para.recall_at_10,
        kw_para.mrr,
        hy_para.recall_at_10,
        hy_para.mrr,
        hy_para.ndcg_at_10,
        hy_kw.recall_at_10,
        hy_kw.mrr,
        hy_kw.ndcg_at_10
    );
    assert!(hy_para.recall_at_10 > kw_para.recall_at_10 && hy_para.mrr > kw_para.mrr);
    // Issue 13 lowered embeddings.vector_weight from 0.6 to 0.3 (with the
    // 64-dimension registry model, weights above 0.3 cost the long-memory
    // set's conversations more than they gave its paraphrases): here that
    // moved paraphrases from R@10 0.750 / MRR 0.467 to 0.700 / 0.412, while
    // keyword search alone rose from 0.35 to 0.575 Recall@10 on them.
    assert!(
        hy_para.recall_at_10 >= 0.65 && hy_para.mrr >= 0.40,
        "{hy_para:?}"
    );
    assert!(
        hy_kw.recall_at_10 >= 0.99 && hy_kw.mrr >= 0.99 && hy_kw.ndcg_at_10 >= 0.99,
        "{hy_kw:?}"
    );
}

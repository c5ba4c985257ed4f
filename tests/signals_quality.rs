//! Learning-signal detection on a labelled set of assistant messages
//! (English and Chinese, positives of each kind and near-miss negatives).
//! Precision and recall are printed; the test fails below the figures
//! reached when it was written.

use std::collections::BTreeSet;

use pms::lessons::signals::{self, KINDS};
use serde::Deserialize;

#[derive(Deserialize)]
struct Labelled {
    message: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    text: String,
    kinds: Vec<String>,
}

#[test]
fn signal_detection_precision_and_recall() {
    let data: Labelled = toml_edit::de::from_str(include_str!("data/signals.toml")).unwrap();
    assert!(data.message.len() >= 50);
    let (mut tp, mut fp, mut fn_) = (0usize, 0usize, 0usize);
    let mut per_kind = std::collections::BTreeMap::<&str, (usize, usize, usize)>::new();
    let mut misses = Vec::new();
    for m in &data.message {
        let want: BTreeSet<&str> = m.kinds.iter().map(String::as_str).collect();
        let got: BTreeSet<&str> = signals::detect(&m.text)
            .into_iter()
            .map(|f| f.kind)
            .collect();
        for k in KINDS {
            let e = per_kind.entry(k).or_default();
            match (want.contains(k), got.contains(k)) {
                (true, true) => {
                    tp += 1;
                    e.0 += 1;
                }
                (false, true) => {
                    fp += 1;
                    e.1 += 1;
                    misses.push(format!("false {k}: {}", m.text));
                }
                (true, false) => {
                    fn_ += 1;
                    e.2 += 1;
                    misses.push(format!("missed {k}: {}", m.text));
                }
                (false, false) => {}
            }
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    println!(
        "signals over {} messages: precision {precision:.3}, recall {recall:.3}",
        data.message.len()
    );
    for (k, (t, f, n)) in &per_kind {
        println!("  {k:<16} tp {t:>2}  fp {f:>2}  fn {n:>2}");
    }
    for m in &misses {
        println!("  {m}");
    }
    assert!(precision >= FLOOR_PRECISION, "precision {precision:.3}");
    assert!(recall >= FLOOR_RECALL, "recall {recall:.3}");
}

const FLOOR_PRECISION: f64 = 0.98;
const FLOOR_RECALL: f64 = 0.98;

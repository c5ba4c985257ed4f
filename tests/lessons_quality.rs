//! Which lessons reach the model: the labelled set in tests/data/lessons_dev
//! (48 lessons in English and Chinese with their "applies when" cues, 132
//! prompts written as a user would, 43 of them unrelated), scored through
//! the same matcher the per-prompt hook runs (`lessons::index_file`), with
//! the cues and from the lesson text alone. The prompts are split in two
//! halves by a hash of their text: the floor is chosen on the tuning half,
//! and both halves are reported. The test fails if the figures drop below
//! what the matcher reached when its constants were chosen ([`FLOORS`] for
//! the rules injected as sure, [`HINTED_FLOORS`] with the "may apply" tier
//! the hook also injects). Those are below issue 11's goals (with cues
//! recall and precision >= 0.9; from the text alone recall >= 0.7; at most
//! one false injection per 20 unrelated prompts), which are not met.
//!
//! `cargo test lessons_quality -- --nocapture` prints the figures and the
//! misses.

use std::collections::BTreeSet;

use pms::memory::lessons::index_file::{self, Selection, Strength};
use pms::memory::lessons::store::{NewRule, OnDuplicate, Target, promote};
use pms::platform::workspace::Workspace;
use serde::Deserialize;

use crate::support::TestHome;

#[derive(Deserialize)]
struct Lesson {
    id: String,
    text: String,
    #[serde(default)]
    when: Vec<String>,
}

#[derive(Deserialize)]
struct Prompt {
    text: String,
    expect: Vec<String>,
}

#[derive(Deserialize)]
struct Lessons {
    lesson: Vec<Lesson>,
}

#[derive(Deserialize)]
struct Prompts {
    prompt: Vec<Prompt>,
}

pub struct Set {
    lessons: Vec<Lesson>,
    prompts: Vec<Prompt>,
}

fn load(dir: &str) -> Set {
    let base = format!("{}/tests/data/{dir}", env!("CARGO_MANIFEST_DIR"));
    let l: Lessons =
        toml_edit::de::from_str(&std::fs::read_to_string(format!("{base}/lessons.toml")).unwrap())
            .unwrap();
    let p: Prompts =
        toml_edit::de::from_str(&std::fs::read_to_string(format!("{base}/prompts.toml")).unwrap())
            .unwrap();
    Set {
        lessons: l.lesson,
        prompts: p.prompt,
    }
}

/// The tuning half: a hash of the prompt's text decides, so the split does
/// not depend on the order of the file.
pub fn tuning_half(text: &str) -> bool {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes()).is_multiple_of(2)
}

/// The lessons index of a workspace holding `set`'s lessons (with or
/// without their cues), and a map from rule id to lesson id.
fn build(set: &Set, cues: bool) -> (TestHome, String, std::collections::HashMap<String, String>) {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = Workspace::new(home.workspace());
    let mut ids = std::collections::HashMap::new();
    for l in &set.lessons {
        let new = NewRule {
            text: &l.text,
            cues: if cues { l.when.clone() } else { Vec::new() },
            ..NewRule::default()
        };
        let rule = match promote(&ws, &new, &Target::Me, OnDuplicate::KeepBoth).unwrap() {
            pms::memory::lessons::store::Promoted::Added(r) => r,
            other => panic!("{other:?}"),
        };
        ids.insert(rule.id, l.id.clone());
    }
    let index = std::fs::read_to_string(ws.lessons_index_path()).unwrap();
    (home, index, ids)
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Score {
    pub recall: f64,
    pub precision: f64,
    /// Lessons injected per unrelated prompt.
    pub false_per_unrelated: f64,
}

fn score(
    set: &Set,
    index: &str,
    ids: &std::collections::HashMap<String, String>,
    how: Selection,
    half: Option<bool>,
    misses: &mut Vec<String>,
) -> Score {
    let (mut expected, mut found, mut injected, mut correct) = (0usize, 0usize, 0usize, 0usize);
    let (mut unrelated, mut false_unrelated) = (0usize, 0usize);
    for p in set
        .prompts
        .iter()
        .filter(|p| half.is_none_or(|h| tuning_half(&p.text) == h))
    {
        let got: BTreeSet<String> =
            index_file::select(index, &p.text, how, index_file::Place::Anywhere)
                .into_iter()
                .filter(|m| how.hint_floor < how.floor || m.strength == Strength::Applies)
                .map(|m| ids[&m.id].clone())
                .collect();
        let want: BTreeSet<String> = p.expect.iter().cloned().collect();
        expected += want.len();
        found += got.intersection(&want).count();
        injected += got.len();
        correct += got.intersection(&want).count();
        if want.is_empty() {
            unrelated += 1;
            false_unrelated += got.len();
        }
        if got != want {
            misses.push(format!("{:?}: want {want:?}, got {got:?}", p.text));
        }
    }
    Score {
        recall: found as f64 / expected.max(1) as f64,
        precision: if injected == 0 {
            1.0
        } else {
            correct as f64 / injected as f64
        },
        false_per_unrelated: false_unrelated as f64 / unrelated.max(1) as f64,
    }
}

/// The figures of one set: its two halves are printed, all of it returned.
struct Figures {
    all: Score,
}

fn figures(dir: &str, cues: bool, how: Selection, verbose: bool) -> Figures {
    let set = load(dir);
    let (_home, index, ids) = build(&set, cues);
    let label = if cues { "with cues" } else { "text only" };
    if verbose {
        for f in [3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 7.0] {
            let s = score(
                &set,
                &index,
                &ids,
                Selection::sure(f, 3),
                Some(true),
                &mut Vec::new(),
            );
            eprintln!("  {dir} {label} floor {f}: tuning half {s:.3?}");
        }
    }
    let tier = if how.hint_floor < how.floor {
        format!("score >= {} and hints >= {}", how.floor, how.hint_floor)
    } else {
        format!("score >= {}", how.floor)
    };
    let mut misses = Vec::new();
    let tuning = score(&set, &index, &ids, how, Some(true), &mut misses);
    let held_out = score(&set, &index, &ids, how, Some(false), &mut misses);
    let all = score(&set, &index, &ids, how, None, &mut Vec::new());
    eprintln!(
        "{dir} {label} ({tier}): tuning half recall {:.3} precision {:.3} false/unrelated {:.3}; held-out half recall {:.3} precision {:.3} false/unrelated {:.3}",
        tuning.recall,
        tuning.precision,
        tuning.false_per_unrelated,
        held_out.recall,
        held_out.precision,
        held_out.false_per_unrelated
    );
    if verbose {
        for m in &misses {
            eprintln!("    {m}");
        }
    }
    Figures { all }
}

/// One labelled set's floors: what the matcher reached on it when its
/// constants were chosen, rounded down. A change that lowers them fails.
struct Floors {
    dir: &'static str,
    cues: bool,
    recall: f64,
    precision: f64,
    false_per_unrelated: f64,
}

const FLOORS: &[Floors] = &[
    Floors {
        dir: "lessons_dev",
        cues: true,
        recall: 0.58,
        precision: 0.85,
        false_per_unrelated: 0.05,
    },
    Floors {
        dir: "lessons_dev",
        cues: false,
        recall: 0.08,
        precision: 0.75,
        false_per_unrelated: 0.05,
    },
    Floors {
        dir: "lessons_holdout",
        cues: true,
        recall: 0.40,
        precision: 0.65,
        false_per_unrelated: 0.35,
    },
    Floors {
        dir: "lessons_holdout",
        cues: false,
        recall: 0.05,
        precision: 0.5,
        false_per_unrelated: 0.1,
    },
];

/// The same with the "may apply" tier, as the hook injects (measured,
/// rounded down).
const HINTED_FLOORS: &[Floors] = &[
    Floors {
        dir: "lessons_dev",
        cues: true,
        recall: 0.75,
        precision: 0.65,
        false_per_unrelated: 0.10,
    },
    Floors {
        dir: "lessons_dev",
        cues: false,
        recall: 0.30,
        precision: 0.60,
        false_per_unrelated: 0.05,
    },
    Floors {
        dir: "lessons_holdout",
        cues: true,
        recall: 0.60,
        precision: 0.50,
        false_per_unrelated: 0.55,
    },
    Floors {
        dir: "lessons_holdout",
        cues: false,
        recall: 0.38,
        precision: 0.50,
        false_per_unrelated: 0.30,
    },
];

fn below(got: &Score, want: &Floors) -> bool {
    got.recall < want.recall
        || got.precision < want.precision
        || got.false_per_unrelated > want.false_per_unrelated
}

#[test]
fn lessons_reach_the_prompts_they_apply_to_and_no_others() {
    let config = pms::platform::workspace::config::Config::default();
    let both = Selection::from_config(&config.hooks);
    let sure = Selection::sure(both.floor, both.max);
    let verbose = std::env::var("PMS_QUALITY_VERBOSE").is_ok();
    let mut failed = Vec::new();
    for (want, want_hinted) in FLOORS.iter().zip(HINTED_FLOORS) {
        // The lessons injected with and without those that may apply.
        let hinted = figures(want.dir, want.cues, both, false).all;
        eprintln!("  with hints, all: {hinted:.3?}");
        if below(&hinted, want_hinted) {
            failed.push(format!(
                "{} (cues: {}, with hints): {hinted:.3?}",
                want.dir, want.cues
            ));
        }
        let got = figures(want.dir, want.cues, sure, verbose).all;
        if below(&got, want) {
            failed.push(format!("{} (cues: {}): {got:.3?}", want.dir, want.cues));
        }
    }
    // Written by someone who never saw the matcher, for reporting only:
    // its figures are printed, never tuned on, never asserted.
    for cues in [true, false] {
        for how in [sure, both] {
            let f = figures("lessons_blind", cues, how, false);
            eprintln!("  all: {:.3?}", f.all);
        }
    }
    assert!(failed.is_empty(), "below the floors: {failed:#?}");
}

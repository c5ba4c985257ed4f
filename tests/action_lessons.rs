//! Lessons matched on what the agent is about to do (the pre-tool-use
//! hook's matcher, `lessons::index_file::select_action`), and on short
//! prompts with one decisive word (the per-prompt matcher), on two
//! labelled sets in tests/data/action_lessons:
//! - `dev.toml`: 30 lessons, 106 tool calls (59 benign look-alikes), 24
//!   prompts, written with the matcher in view; its calls and prompts are
//!   split in halves by a hash of their text. The rules were written
//!   against the tuning half's misses; in the first rounds the held-out
//!   half's were printed too, so that half is not fully unseen;
//! - `blind.toml`: 38 lessons, 232 calls (78 benign), 60 prompts, written by
//!   someone who never saw the matcher or its data. Its misses were read
//!   in those first rounds (they showed parsing bugs), so it is no longer
//!   blind;
//! - `blind2.toml`: 35 lessons, 150 calls (60 benign), 40 prompts, written
//!   afterwards by someone who never saw the matcher or the other sets;
//!   its misses are never printed.
//!
//! Reported per half: recall and precision over the expected lessons, and
//! false injections per benign call (lessons shown before a call that
//! should get none). The test fails when a figure drops below a little
//! under what the matcher reached ([`CALL_FLOORS`], [`PROMPT_FLOORS`]).
//! `cargo test --test tests action_lessons -- --nocapture` prints them;
//! `PMS_SHOW_MISSES=1` adds the tuning half's misses.

use std::collections::{BTreeSet, HashMap};

use pms::memory::lessons::action::Action;
use pms::memory::lessons::index_file::{self, Place, Selection};
use pms::memory::lessons::store::{NewRule, OnDuplicate, Target, promote};
use pms::platform::workspace::Workspace;
use serde::Deserialize;

use crate::support::TestHome;

#[derive(Deserialize)]
struct Lesson {
    id: String,
    text: String,
}

#[derive(Deserialize)]
struct Call {
    tool: String,
    #[serde(default)]
    command: String,
    #[serde(default)]
    file_path: String,
    #[serde(default)]
    content: String,
    expect: Vec<String>,
}

#[derive(Deserialize)]
struct Prompt {
    text: String,
    expect: Vec<String>,
}

#[derive(Deserialize)]
struct Set {
    lesson: Vec<Lesson>,
    call: Vec<Call>,
    prompt: Vec<Prompt>,
}

fn load(name: &str) -> Set {
    let path = format!(
        "{}/tests/data/action_lessons/{name}.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    toml_edit::de::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The tuning half: a hash of the item's text decides.
fn tuning_half(text: &str) -> bool {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes()).is_multiple_of(2)
}

impl Call {
    fn action(&self) -> Action {
        match self.tool.as_str() {
            "Bash" => Action::Command(self.command.clone()),
            _ => Action::Edit {
                path: self.file_path.clone(),
                content: self.content.clone(),
            },
        }
    }

    fn key(&self) -> String {
        format!("{}{}{}", self.command, self.file_path, self.content)
    }
}

/// A workspace holding `set`'s lessons; its lessons index, and rule id to
/// lesson id.
fn build(set: &Set) -> (TestHome, String, HashMap<String, String>) {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = Workspace::new(home.workspace());
    let mut ids = HashMap::new();
    for l in &set.lesson {
        let new = NewRule {
            text: &l.text,
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
struct Score {
    recall: f64,
    precision: f64,
    /// Lessons shown per benign item.
    false_per_benign: f64,
}

/// Scores `items` (text key, expected ids, what the matcher chose).
fn score<'a>(
    items: impl Iterator<Item = (String, &'a [String], BTreeSet<String>)>,
    misses: &mut Vec<String>,
) -> Score {
    let (mut expected, mut found, mut shown, mut right) = (0, 0, 0, 0);
    let (mut benign, mut false_shown) = (0, 0);
    for (key, expect, got) in items {
        let want: BTreeSet<String> = expect.iter().cloned().collect();
        expected += want.len();
        found += want.intersection(&got).count();
        shown += got.len();
        right += got.intersection(&want).count();
        if want.is_empty() {
            benign += 1;
            false_shown += got.len();
        }
        if got != want {
            misses.push(format!("  want {want:?} got {got:?}: {key}"));
        }
    }
    // a half without cases would score 1.0 on nothing
    assert!(
        expected > 0 && benign > 0,
        "no case with a lesson ({expected}) or no benign case ({benign})"
    );
    Score {
        recall: if expected == 0 {
            1.0
        } else {
            found as f64 / expected as f64
        },
        precision: if shown == 0 {
            1.0
        } else {
            right as f64 / shown as f64
        },
        false_per_benign: if benign == 0 {
            0.0
        } else {
            false_shown as f64 / benign as f64
        },
    }
}

fn calls_score(
    set: &Set,
    index: &str,
    ids: &HashMap<String, String>,
    half: Option<bool>,
    misses: &mut Vec<String>,
) -> Score {
    let items = set
        .call
        .iter()
        .filter(|c| half.is_none_or(|h| tuning_half(&c.key()) == h))
        .map(|c| {
            let got = index_file::select_action(index, &c.action(), Place::Anywhere)
                .lessons
                .into_iter()
                .map(|m| ids[&m.id].clone())
                .collect();
            (c.key(), c.expect.as_slice(), got)
        });
    score(items, misses)
}

fn prompts_score(
    set: &Set,
    index: &str,
    ids: &HashMap<String, String>,
    how: Selection,
    half: Option<bool>,
    misses: &mut Vec<String>,
) -> Score {
    let items = set
        .prompt
        .iter()
        .filter(|p| half.is_none_or(|h| tuning_half(&p.text) == h))
        .map(|p| {
            let got = index_file::select(index, &p.text, how, Place::Anywhere)
                .into_iter()
                .map(|m| ids[&m.id].clone())
                .collect();
            (p.text.clone(), p.expect.as_slice(), got)
        });
    score(items, misses)
}

/// Floors: a little under what the matcher reached when its rules were
/// written (recall, precision, most false injections per benign item), per
/// set; the test fails when a change drops a figure below them.
const CALL_FLOORS: [(&str, f64, f64, f64); 4] = [
    ("dev tuning half", 0.90, 0.85, 0.12),
    ("dev held-out half", 0.75, 0.80, 0.12),
    ("blind set", 0.50, 0.60, 0.40),
    ("blind2 set", 0.45, 0.60, 0.33),
];

const PROMPT_FLOORS: [(&str, f64, f64, f64); 4] = [
    ("dev tuning half", 0.70, 0.55, 0.70),
    ("dev held-out half", 0.85, 0.85, 0.10),
    ("blind set", 0.80, 0.80, 0.10),
    ("blind2 set", 0.80, 0.75, 0.30),
];

#[test]
fn lessons_meet_the_actions_they_are_about() {
    let dev = load("dev");
    let blind = load("blind");
    let blind2 = load("blind2");
    let (_h1, dev_index, dev_ids) = build(&dev);
    let (_h2, blind_index, blind_ids) = build(&blind);
    let (_h3, blind2_index, blind2_ids) = build(&blind2);
    let sets = [
        (&dev, &dev_index, &dev_ids, Some(true)),
        (&dev, &dev_index, &dev_ids, Some(false)),
        (&blind, &blind_index, &blind_ids, None),
        (&blind2, &blind2_index, &blind2_ids, None),
    ];
    if std::env::var("PMS_SHOW_PROFILES").is_ok() {
        for line in dev_index.lines() {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() >= 10 {
                println!("{} | {} | {}", cols[9], cols[7], cols[8]);
            }
        }
    }
    let mut report = Vec::new();
    let mut all_misses = Vec::new();
    let how = Selection::from_config(&pms::platform::workspace::config::Config::default().hooks);
    for (i, (set, index, ids, half)) in sets.iter().enumerate() {
        let (name, r_min, p_min, f_max) = CALL_FLOORS[i];
        let mut misses = Vec::new();
        let s = calls_score(set, index, ids, *half, &mut misses);
        println!(
            "tool calls, {name}: recall {:.3}, precision {:.3}, false injections per benign call {:.3}",
            s.recall, s.precision, s.false_per_benign
        );
        // only the tuning half's misses are printed: the others stay unseen
        if i == 0 {
            all_misses.push(format!("{name}:\n{}", misses.join("\n")));
        }
        if s.recall < r_min || s.precision < p_min || s.false_per_benign > f_max {
            report.push(format!("calls, {name}: {s:?}"));
        }
        let (name, r_min, p_min, f_max) = PROMPT_FLOORS[i];
        let mut misses = Vec::new();
        let s = prompts_score(set, index, ids, how, *half, &mut misses);
        println!(
            "short prompts, {name}: recall {:.3}, precision {:.3}, false injections per benign prompt {:.3}",
            s.recall, s.precision, s.false_per_benign
        );
        if i == 0 {
            all_misses.push(format!("prompts {name}:\n{}", misses.join("\n")));
        }
        if s.recall < r_min || s.precision < p_min || s.false_per_benign > f_max {
            report.push(format!("prompts, {name}: {s:?}"));
        }
    }
    if std::env::var("PMS_SHOW_MISSES").is_ok() {
        println!("{}", all_misses.join("\n"));
    }
    assert!(report.is_empty(), "below the floors: {report:?}");
}

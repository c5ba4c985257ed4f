//! Memory at the moment of need, measured on labelled sets through the real
//! binary: past sessions become Claude Code transcripts in a temporary
//! HOME, `pms hook session-end` writes their summaries and `pms index`
//! indexes them; then each case runs the hook an agent would run:
//! - `[[error]]`: `pms hook post-tool-use` with a PostToolUseFailure; the
//!   past session whose fix should be recalled (its transcript's address in
//!   the injection), or nothing for an error never met;
//! - `[[edit]]`: `pms hook pre-tool-use` with an Edit; the past sessions
//!   named (precision, recall);
//! - `[[start]]`: `pms hook session-start`; the open items carried and
//!   those that must not be.
//!
//! tests/data/moment_dev.toml (scripts/moment_dev.py) is split into a tuning
//! and a held-out half by a hash of each case; tests/data/moment_written.toml
//! was written by someone who never saw the code, measured blind at first
//! and now split in halves too, as is tests/data/moment_fresh.toml, written
//! the same way to tune on; tests/data/moment_blind.toml, written the same
//! way, is only measured; tests/data/moment_next.toml (errors alone, graded
//! easy, medium or hard like the fresh set) was measured whole once and is
//! split in halves too, as is tests/data/moment_wrapped.toml (errors alone,
//! most of them met before inside another runner's output, or cut), and
//! tests/data/moment_sixth.toml and tests/data/moment_seventh.toml (the
//! same, on runners no other set used). Apart
//! from the sets, the errors of the tuning halves found bare are met again
//! inside the usual runners' wrappers and cut by pipes (`WRAPPERS`).
//! Run: `cargo test --test tests moment -- --nocapture` prints the figures.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::support::TestHome;
pub(crate) use crate::support::moment_set::uuid_of;
use crate::support::moment_set::{ErrorCase, Set, folder_of, load, transcript};

/// The tuning half: a hash of the case decides.
fn tuning_half(text: &str) -> bool {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes()).is_multiple_of(2)
}

/// Writes the set's past sessions as Claude Code transcripts, summarises
/// each at its end and indexes them all.
pub(crate) fn build(home: &TestHome, set: &Set) {
    home.init(&[]);
    for s in &set.session {
        let sid = uuid_of(&s.id);
        let dir = home.path(&format!(".claude/projects/{}", folder_of(&s.project)));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{sid}.jsonl"));
        std::fs::write(&path, transcript(s)).unwrap();
        let out = home.hook(
            "session-end",
            &json!({"session_id": sid, "transcript_path": path, "cwd": s.project, "hook_event_name": "SessionEnd", "reason": "other"}),
        );
        assert!(out.status.success(), "{out:?}");
    }
    home.ok(&["index", "--quiet"]);
}

pub(crate) fn context(out: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.trim().is_empty() {
        return String::new();
    }
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// The set's session ids whose transcripts `text` names.
fn named(set: &Set, text: &str) -> BTreeSet<String> {
    set.session
        .iter()
        .filter(|s| text.contains(&format!("{}.jsonl", uuid_of(&s.id))))
        .map(|s| s.id.clone())
        .collect()
}

#[derive(Default, Debug)]
struct Figures {
    fix_found: (usize, usize),
    silent_unseen: (usize, usize),
    history_right: usize,
    history_named: usize,
    history_expected: usize,
    history_silent_none: (usize, usize),
    items_carried: (usize, usize),
    /// Of the items to carry, those the project's newest session said:
    /// carried, of all.
    last_items_carried: (usize, usize),
    items_rejected: (usize, usize),
    /// Of the items that must not be carried, those no session of the
    /// project holds (another project's): kept out, of all.
    foreign_kept_out: (usize, usize),
    /// Fixes found and errors left alone, by the writer's grade of the
    /// case (none when the set grades none).
    by_grade: BTreeMap<(Kind, String), (usize, usize)>,
}

/// The two kinds of error case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    FixFound,
    SilentUnseen,
}

fn ratio((a, b): (usize, usize)) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

impl Figures {
    fn line(&self, label: &str) -> String {
        format!(
            "{label}: fix found {}/{} ({:.2}), nothing on unseen {}/{} ({:.2}); file history precision {:.2} recall {:.2} ({} named), silent on files without history {}/{}; continuity items carried {}/{} (the last session's {}/{}), wrong items kept out {}/{} (another project's {}/{})",
            self.fix_found.0,
            self.fix_found.1,
            ratio(self.fix_found),
            self.silent_unseen.0,
            self.silent_unseen.1,
            ratio(self.silent_unseen),
            ratio((self.history_right, self.history_named)),
            ratio((self.history_right, self.history_expected)),
            self.history_named,
            self.history_silent_none.0,
            self.history_silent_none.1,
            self.items_carried.0,
            self.items_carried.1,
            self.last_items_carried.0,
            self.last_items_carried.1,
            self.items_rejected.0,
            self.items_rejected.1,
            self.foreign_kept_out.0,
            self.foreign_kept_out.1,
        ) + &self.grades()
    }

    /// `; by grade: fix found easy 5/6 …, nothing on unseen hard 20/22`,
    /// or nothing when the set grades no case.
    fn grades(&self) -> String {
        let told: Vec<String> = self
            .by_grade
            .iter()
            .map(|((kind, grade), n)| {
                let kind = match kind {
                    Kind::FixFound => "fix found",
                    Kind::SilentUnseen => "nothing on unseen",
                };
                format!("{kind} {grade} {}/{}", n.0, n.1)
            })
            .collect();
        if told.is_empty() {
            String::new()
        } else {
            format!("; by grade: {}", told.join(", "))
        }
    }
}

/// The least each figure may be (a regression shows; the figures are
/// reported). Each kind must have been measured: a half without a case of
/// a kind would pass on 0/0.
#[derive(Clone, Copy)]
struct Floors {
    fix_found: f64,
    silent_unseen: f64,
    /// The file history's and continuity's; None for a set of errors alone
    /// (moment_next.toml), whose other kinds are then not checked.
    others: Option<OtherFloors>,
}

/// The floors of file history and continuity.
#[derive(Clone, Copy)]
struct OtherFloors {
    history_precision: f64,
    history_recall: f64,
    items_carried: f64,
    /// Of the items that must not be carried (closed ones, another
    /// project's): kept out.
    items_kept_out: f64,
}

impl Figures {
    fn check(&self, label: &str, floors: Floors) {
        let line = self.line(label);
        for (kind, n) in [
            ("errors with a fix", self.fix_found.1),
            ("errors never met", self.silent_unseen.1),
        ] {
            assert!(n > 0, "{label}: no {kind} measured: {line}");
        }
        assert!(ratio(self.fix_found) >= floors.fix_found, "{line}");
        assert!(ratio(self.silent_unseen) >= floors.silent_unseen, "{line}");
        let Some(floors) = floors.others else {
            return;
        };
        for (kind, n) in [
            ("past sessions of edited files", self.history_expected),
            ("items to carry", self.items_carried.1),
            ("items not to carry", self.items_rejected.1),
        ] {
            assert!(n > 0, "{label}: no {kind} measured: {line}");
        }
        assert!(
            ratio((self.history_right, self.history_named)) >= floors.history_precision,
            "{line}"
        );
        assert!(
            ratio((self.history_right, self.history_expected)) >= floors.history_recall,
            "{line}"
        );
        assert!(ratio(self.items_carried) >= floors.items_carried, "{line}");
        assert!(
            ratio(self.items_rejected) >= floors.items_kept_out,
            "{line}"
        );
        // the project's last session's items are always carried, and
        // another project's never (the issue's goal)
        assert_eq!(
            self.last_items_carried.0, self.last_items_carried.1,
            "{line}"
        );
        assert_eq!(self.foreign_kept_out.0, self.foreign_kept_out.1, "{line}");
    }
}

/// What a past session's turns say, one after the other.
fn said(s: &crate::support::moment_set::Session) -> String {
    s.turn
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether every word of `phrase` (three letters or more) is in `text`.
fn carries(text: &str, phrase: &str) -> bool {
    let text = text.to_lowercase();
    phrase
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .all(|w| text.contains(w))
}

/// The past sessions the post-tool-use hook names when `case`'s command
/// fails with `output`, in a new session of its own (`key` names it).
fn recalled(
    home: &TestHome,
    set: &Set,
    key: &str,
    case: &ErrorCase,
    output: &str,
) -> BTreeSet<String> {
    let sid = uuid_of(key);
    let out = home.hook(
        "post-tool-use",
        &json!({
            "session_id": sid, "cwd": case.project, "hook_event_name": "PostToolUseFailure",
            "transcript_path": home.path(&format!(".claude/projects/{}/{sid}.jsonl", folder_of(&case.project))),
            "tool_name": "Bash", "tool_input": {"command": case.command},
            "error": format!("Exit code 1\n{output}"),
        }),
    );
    named(set, &context(&out))
}

/// Runs every case of `set` (of the half `half`, or all) and counts.
fn measure(home: &TestHome, set: &Set, half: Option<bool>, misses: &mut Vec<String>) -> Figures {
    let mut f = Figures::default();
    let in_half = |key: &str| half.is_none_or(|h| tuning_half(key) == h);
    for (i, c) in set.error.iter().enumerate() {
        if !in_half(&c.output) {
            continue;
        }
        let got = recalled(home, set, &format!("new-error-{i}"), c, &c.output);
        let right = if c.expect.is_empty() {
            got.is_empty()
        } else {
            got.contains(&c.expect)
        };
        if !c.difficulty.is_empty() {
            let kind = if c.expect.is_empty() {
                Kind::SilentUnseen
            } else {
                Kind::FixFound
            };
            let n = f.by_grade.entry((kind, c.difficulty.clone())).or_default();
            n.0 += usize::from(right);
            n.1 += 1;
        }
        if c.expect.is_empty() {
            f.silent_unseen.1 += 1;
            if right {
                f.silent_unseen.0 += 1;
            } else {
                misses.push(format!(
                    "unseen error recalled {got:?}: {}",
                    c.output.lines().next().unwrap_or("")
                ));
            }
        } else {
            f.fix_found.1 += 1;
            if right {
                f.fix_found.0 += 1;
            } else {
                misses.push(format!(
                    "fix of {} not found (got {got:?}): {}",
                    c.expect,
                    c.output.lines().next().unwrap_or("")
                ));
            }
        }
    }
    for (i, c) in set.edit.iter().enumerate() {
        if !in_half(&c.file_path) {
            continue;
        }
        let sid = uuid_of(&format!("new-edit-{i}"));
        let out = home.hook(
            "pre-tool-use",
            &json!({
                "session_id": sid, "cwd": c.project, "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_input": {"file_path": c.file_path, "old_string": "x", "new_string": "y"},
            }),
        );
        let got = named(set, &context(&out));
        let want: BTreeSet<String> = c.expect.iter().cloned().collect();
        if want.is_empty() {
            f.history_silent_none.1 += 1;
            if got.is_empty() {
                f.history_silent_none.0 += 1;
            }
        }
        f.history_named += got.len();
        f.history_expected += want.len();
        f.history_right += got.intersection(&want).count();
        if got != want {
            misses.push(format!(
                "history of {}: got {got:?}, want {want:?}",
                c.file_path
            ));
        }
    }
    for (i, c) in set.start.iter().enumerate() {
        if !in_half(&format!("{}{i}", c.project)) {
            continue;
        }
        let sid = uuid_of(&format!("new-start-{i}"));
        let out = home.hook(
            "session-start",
            &json!({"session_id": sid, "cwd": c.project, "hook_event_name": "SessionStart", "source": "startup"}),
        );
        let text = context(&out);
        let section = text
            .split("## Where the last sessions in this project left off")
            .nth(1)
            .map(|s| s.split("\n## ").next().unwrap_or(""))
            .unwrap_or("");
        // the project's newest session: its own items are the issue's floor
        let last = set
            .session
            .iter()
            .filter(|s| s.project == c.project)
            .max_by(|a, b| a.date.cmp(&b.date))
            .map(said)
            .unwrap_or_default();
        for item in &c.expect_items {
            f.items_carried.1 += 1;
            let of_last = carries(&last, item);
            f.last_items_carried.1 += usize::from(of_last);
            if carries(section, item) {
                f.items_carried.0 += 1;
                f.last_items_carried.0 += usize::from(of_last);
            } else {
                misses.push(format!("{}: open item not carried: {item}", c.project));
            }
        }
        for item in &c.reject_items {
            f.items_rejected.1 += 1;
            let foreign = !set
                .session
                .iter()
                .any(|s| s.project == c.project && carries(&said(s), item));
            if foreign {
                f.foreign_kept_out.1 += 1;
                if !carries(section, item) {
                    f.foreign_kept_out.0 += 1;
                }
            }
            if !carries(section, item) {
                f.items_rejected.0 += 1;
            } else {
                misses.push(format!(
                    "{}: item carried that must not be: {item}",
                    c.project
                ));
            }
        }
    }
    f
}

fn home_for(set: &Set) -> TestHome {
    let home = TestHome::new();
    build(&home, set);
    home
}

#[test]
fn dev_set_tuning_and_held_out_halves() {
    let _cpu = crate::support::cpu_heavy();
    let set = load("moment_dev.toml");
    let home = home_for(&set);
    let mut misses = Vec::new();
    let tuning = measure(&home, &set, Some(true), &mut misses);
    misses.push("(held-out half from here)".into());
    let held_out = measure(&home, &set, Some(false), &mut misses);
    eprintln!("{}", tuning.line("moment dev, tuning half"));
    eprintln!("{}", held_out.line("moment dev, held-out half"));
    for m in &misses {
        eprintln!("  miss: {m}");
    }
    for (label, f) in [("tuning", &tuning), ("held-out", &held_out)] {
        f.check(
            label,
            Floors {
                fix_found: 0.8,
                silent_unseen: 0.95,
                others: Some(OtherFloors {
                    history_precision: 0.9,
                    history_recall: 0.9,
                    items_carried: 1.0,
                    items_kept_out: 1.0,
                }),
            },
        );
    }
}

/// The set a helper wrote without seeing the code (moment_written.toml).
/// It was measured whole and blind until its figure stalled at 0.39 fix
/// found; since then its tuning half's misses are read and its held-out
/// half only measured, and a second set written the same way
/// (moment_blind.toml) is the blind one.
#[test]
fn written_set_tuning_and_held_out_halves() {
    // Floors below the figures measured, tuning / held-out half: fix found
    // 0.96 / 0.65, silent 0.97 / 0.97, history precision 1.00 and recall
    // 0.92 on both, items carried 7/8 and 4/7, kept out 14/14 and 14/16.
    measure_halves(
        "written",
        Floors {
            fix_found: 0.6,
            silent_unseen: 0.9,
            others: Some(OtherFloors {
                history_precision: 0.9,
                history_recall: 0.85,
                items_carried: 0.5,
                items_kept_out: 0.8,
            }),
        },
    );
}

/// Measures both halves of tests/data/moment_{name}.toml, prints the
/// figures and the tuning half's misses, and checks both against `floors`.
fn measure_halves(name: &str, floors: Floors) {
    let _cpu = crate::support::cpu_heavy();
    let set = load(&format!("moment_{name}.toml"));
    let home = home_for(&set);
    let mut misses = Vec::new();
    let tuning = measure(&home, &set, Some(true), &mut misses);
    let held_out = measure(&home, &set, Some(false), &mut Vec::new());
    eprintln!("{}", tuning.line(&format!("moment {name}, tuning half")));
    eprintln!(
        "{}",
        held_out.line(&format!("moment {name}, held-out half"))
    );
    for m in &misses {
        eprintln!("  miss: {m}");
    }
    for (label, f) in [("tuning", &tuning), ("held-out", &held_out)] {
        f.check(label, floors);
    }
}

/// A third set written without seeing the code (moment_fresh.toml: another
/// developer on Java/Spring, Rails, Swift and GCP), written to tune on
/// after the blind set's figure had been seen: its tuning half's misses
/// are read, its held-out half is only measured.
#[test]
fn fresh_set_tuning_and_held_out_halves() {
    // Floors below the figures measured, tuning / held-out half: fix found
    // 0.77 / 0.41, silent 0.97 / 0.89, history precision 1.00 / 1.00 and
    // recall 0.90 / 0.81, items carried 7/7 and 6/6, kept out 10/11 and
    // 10/11.
    measure_halves(
        "fresh",
        Floors {
            fix_found: 0.35,
            silent_unseen: 0.85,
            others: Some(OtherFloors {
                history_precision: 0.9,
                history_recall: 0.75,
                items_carried: 0.8,
                items_kept_out: 0.85,
            }),
        },
    );
}

/// The blind set (tests/data/moment_blind.toml): written by a helper who
/// never saw the code, after the written set was tuned on, for another
/// developer on other stacks (Go, Django, Kotlin, C++). Measured whole; its
/// misses are not printed, so that it stays blind.
#[test]
fn blind_set() {
    let all = measured_whole("blind");
    // Floors below the figures measured: fix found 0.51, silent 0.96,
    // history precision 1.00 and recall 0.85, items carried 11/22, kept
    // out 24/27.
    all.check(
        "blind",
        Floors {
            fix_found: 0.45,
            silent_unseen: 0.93,
            others: Some(OtherFloors {
                history_precision: 0.9,
                history_recall: 0.8,
                items_carried: 0.4,
                items_kept_out: 0.85,
            }),
        },
    );
}

/// Measures all of tests/data/moment_{name}.toml and prints the figures,
/// not the misses: a set only measured stays blind.
fn measured_whole(name: &str) -> Figures {
    let _cpu = crate::support::cpu_heavy();
    let set = load(&format!("moment_{name}.toml"));
    let home = home_for(&set);
    let all = measure(&home, &set, None, &mut Vec::new());
    eprintln!("{}", all.line(&format!("moment {name}")));
    all
}

/// A set of messages any program prints (tests/data/moment_generic.toml:
/// `'NoneType' object is not subscriptable`, a nil pointer, curl's 404),
/// met again in the same place or in another: written by a helper who never
/// saw the code, after `recall::place` was written. Measured whole; its
/// misses are not printed, so that it stays blind.
#[test]
fn generic_set() {
    let all = measured_whole("generic");
    // Floors below the figures measured: fix found 13/17 (0.76), nothing
    // on unseen 11/19 (0.58; 5/19 before `recall::place`, 10/19 with
    // files alone).
    all.check(
        "generic",
        Floors {
            fix_found: 0.7,
            silent_unseen: 0.45,
            others: None,
        },
    );
}

/// The same message any program prints, met again where it was met before
/// and elsewhere (tests/data/moment_places.toml, written with
/// `recall::place`): the fix is told for the first, and nothing for the
/// second. Before `place`, 7 of the 10 met elsewhere were told another
/// place's fix.
#[test]
fn a_message_any_program_prints_is_recalled_only_where_it_was_met() {
    let set = load("moment_places.toml");
    let home = home_for(&set);
    let mut wrong = Vec::new();
    for (i, c) in set.error.iter().enumerate() {
        let got = recalled(&home, &set, &format!("place-{i}"), c, &c.output);
        let right = if c.expect.is_empty() {
            got.is_empty()
        } else {
            got == BTreeSet::from([c.expect.clone()])
        };
        if !right {
            wrong.push(format!("`{}`: want {:?}, got {got:?}", c.command, c.expect));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A fourth set written without seeing the code (moment_next.toml: errors
/// alone, on Elixir, .NET, Flutter and PyTorch). Measured whole before any
/// rule was chosen on it (fix found 23/40, 0.57; nothing on unseen 38/40,
/// 0.95); since then its tuning half's misses are read and its held-out
/// half only measured.
#[test]
fn next_set_tuning_and_held_out_halves() {
    // Floors below the figures measured, tuning / held-out half: fix found
    // 0.64 / 0.58, silent 0.96 / 0.93.
    measure_halves(
        "next",
        Floors {
            fix_found: 0.4,
            silent_unseen: 0.85,
            others: None,
        },
    );
}

/// A fifth set written without seeing the code (moment_wrapped.toml:
/// errors alone, on Laravel, a pnpm/turbo monorepo, Ansible/CDK and
/// Scala), written to stress the same error met again inside another
/// runner's output, or cut. Measured whole before any rule was chosen on
/// it: before the runner-wrapper reading (dc46976) fix found 10/40 (0.25),
/// nothing on unseen 35/40 (0.88); with it (a72ad6e, chosen before the set
/// was seen) 13/40 (0.33) and 37/40 (0.93). Since then its tuning half's
/// misses are read and its held-out half only measured.
#[test]
fn wrapped_set_tuning_and_held_out_halves() {
    // Floors below the figures measured, tuning / held-out half: fix
    // found 0.65 / 0.40, silent 0.89 / 0.95 (on a72ad6e: 0.25 / 0.40 and
    // 0.83 / 1.00).
    measure_halves(
        "wrapped",
        Floors {
            fix_found: 0.35,
            silent_unseen: 0.8,
            others: None,
        },
    );
}

/// A sixth set written without seeing the code (moment_sixth.toml: errors
/// alone, on Bun, Quarkus, Haskell/Nix and Pulumi), written after the
/// wrapped set was tuned on, on runners no earlier set used (Jenkins,
/// CircleCI, Buildkite, overmind, Fly.io, CodeBuild, Nix). Measured whole
/// before any rule was chosen on it (0f59be7): fix found 18/30 (0.60; easy
/// 8/8, medium 9/18, hard 1/4), nothing on unseen 22/25 (0.88). Since then
/// its tuning half's misses may be read and its held-out half is only
/// measured.
#[test]
fn sixth_set_tuning_and_held_out_halves() {
    // Floors below the figures measured on 0f59be7, tuning / held-out
    // half: fix found 0.56 / 0.64, silent 0.83 / 0.92.
    measure_halves(
        "sixth",
        Floors {
            fix_found: 0.4,
            silent_unseen: 0.75,
            others: None,
        },
    );
}

/// A seventh set written without seeing the code (moment_seventh.toml:
/// errors alone, on SvelteKit/Supabase/Vercel, Embassy firmware with
/// probe-rs, Clojure and Azure), on runners no earlier set used (Azure
/// Pipelines, Vercel, Woodpecker, Drone, just, Taskfile, mise, nx, docker
/// swarm, tmux). Measured whole before any rule was chosen on it: on
/// d21d43e (the session's start) fix found 23/42 (0.55; easy 9/10, medium
/// 13/22, hard 1/10), nothing on unseen 27/32 (0.84); on 629e2fd fix found 24/42
/// (0.57; easy 9/10, medium 14/22, hard 1/10), nothing on unseen 27/32
/// (0.84). Since then its tuning half's misses may be read and its
/// held-out half is only measured.
#[test]
fn seventh_set_tuning_and_held_out_halves() {
    // Floors below the figures measured on 629e2fd, tuning / held-out
    // half: fix found 0.61 / 0.53, silent 0.84 / 0.85.
    measure_halves(
        "seventh",
        Floors {
            fix_found: 0.4,
            silent_unseen: 0.7,
            others: None,
        },
    );
}

/// An eighth set written without seeing the code (moment_eighth.toml:
/// errors alone, on Expo/React Native with EAS, dbt on Snowflake with
/// Airflow in docker compose, Electron with native modules, and Rust to
/// WebAssembly), on runners no earlier set used (EAS build logs, Airflow
/// task logs, Bitrise, wasm-pack). Measured whole before any rule was
/// chosen on it (08d5728): fix found 21/44 (0.48; easy 8/12, medium 12/20,
/// hard 1/12), nothing on unseen 27/32 (0.84). Since then its tuning
/// half's misses may be read and its held-out half is only measured.
#[test]
fn eighth_set_tuning_and_held_out_halves() {
    // Floors below the figures measured on 08d5728, tuning / held-out
    // half: fix found 0.50 / 0.45, silent 0.94 / 0.75.
    measure_halves(
        "eighth",
        Floors {
            fix_found: 0.3,
            silent_unseen: 0.7,
            others: None,
        },
    );
}

/// A ninth set written without seeing the code (moment_ninth.toml: errors
/// alone, on C++ with CMake and vcpkg, Scala with sbt and Spark, NixOS
/// hosts deployed with colmena and agenix, and Deno with Fresh), on a
/// NixOS laptop and a self-hosted GitHub Actions runner. Measured whole
/// before any rule was chosen on it (580fa30): fix found 25/47 (0.53;
/// easy 10/12, medium 15/23, hard 0/12), nothing on unseen 35/39 (0.90).
/// Since then its tuning half's misses may be read and its held-out half
/// is only measured.
#[test]
fn ninth_set_tuning_and_held_out_halves() {
    // Floors below the figures measured on 580fa30, tuning / held-out
    // half: fix found 0.57 / 0.50, silent 0.86 / 0.94.
    measure_halves(
        "ninth",
        Floors {
            fix_found: 0.35,
            silent_unseen: 0.7,
            others: None,
        },
    );
}

/// A second set of messages any program prints
/// (tests/data/moment_generic2.toml: Ruby's `undefined method for nil`,
/// PHP's `on null`, .NET's `NullReferenceException`, Kotlin's `lateinit`,
/// C's segfaults, curl's statuses), written by a helper who never saw the
/// code, to tune on. Measured whole before any of its misses was read:
/// fix found 14/25 (0.56; tuning half 4/9, held-out 10/16), nothing on
/// unseen 22/31 (0.71; 16/22 and 6/9). Since then its tuning half's misses
/// are read and its held-out half only measured.
#[test]
fn second_generic_set_tuning_and_held_out_halves() {
    // Floors below the figures measured, tuning / held-out half: fix found
    // 0.56 / 0.56, silent 0.77 / 0.67.
    measure_halves(
        "generic2",
        Floors {
            fix_found: 0.4,
            silent_unseen: 0.55,
            others: None,
        },
    );
}

/// What a runner writes around a failed command's output, or a pipe
/// leaves of it: each a way the same error comes back.
type Wrap = fn(&str) -> String;
const WRAPPERS: [(&str, Wrap); 16] = [
    ("gh run view --log", |o| {
        let mut t = prefixed(o, "test\tRun tests\t2026-11-20T10:00:00.1234567Z ");
        t.push_str("\ntest\tRun tests\t2026-11-20T10:00:01.0000000Z ##[error]Process completed with exit code 1.");
        t
    }),
    ("docker compose", |o| {
        let mut t = prefixed(o, "app-1  | ");
        t.push_str("\napp-1 exited with code 1");
        t
    }),
    ("turbo, in colour", |o| {
        let mut t = prefixed(o, "\x1b[35mapi:test: \x1b[0m");
        t.push_str("\n\x1b[35mapi:test: \x1b[0m ELIFECYCLE  Test failed. See above for more details.\n Tasks:    0 successful, 1 total\nFailed:    api#test\n ERROR  run failed: command  exited (1)");
        t
    }),
    ("docker build", |o| {
        format!(
            " => ERROR [4/6] RUN make check                                    12.3s\n------\n > [4/6] RUN make check:\n{}\n------\nERROR: failed to solve: process \"/bin/sh -c make check\" did not complete successfully: exit code: 2",
            prefixed(o, "11.92 ")
        )
    }),
    ("journald", |o| {
        prefixed(o, "Nov 20 10:00:00 build01 runner[4242]: ")
    }),
    ("make", |o| {
        format!("{o}\nmake: *** [Makefile:12: check] Error 1")
    }),
    ("Ansible's result", |o| {
        format!(
            "TASK [app : check] ***\nfatal: [web1]: FAILED! => {{\"changed\": false, \"cmd\": \"make check\", \"msg\": \"non-zero return code\", \"rc\": 2, \"stderr\": {}, \"stdout\": \"\"}}\nPLAY RECAP ***\nweb1 : ok=3    changed=0    unreachable=0    failed=1    skipped=0",
            serde_json::to_string(o).unwrap()
        )
    }),
    ("| tail -n 12", |o| {
        let lines: Vec<&str> = o.lines().collect();
        lines[lines.len().saturating_sub(12)..].join("\n")
    }),
    ("| head -n 25", |o| {
        o.lines().take(25).collect::<Vec<_>>().join("\n")
    }),
    ("Jenkins, timestamped", |o| {
        format!(
            "[2026-11-20T10:00:00.123Z] [Pipeline] sh\n[2026-11-20T10:00:00.125Z] + make check\n{}\n[2026-11-20T10:00:09.001Z] [Pipeline] }}\n[2026-11-20T10:00:09.002Z] [Pipeline] // stage\n[Pipeline] End of Pipeline\nERROR: script returned exit code 2\nFinished: FAILURE",
            prefixed(o, "[2026-11-20T10:00:01.456Z] ")
        )
    }),
    ("Azure Pipelines", |o| {
        format!(
            "2026-11-20T10:00:00.1234567Z ##[section]Starting: Run tests\n2026-11-20T10:00:00.2234567Z Generating script.\n{}\n2026-11-20T10:00:09.1234567Z ##[error]Bash exited with code '2'.\n2026-11-20T10:00:09.2234567Z ##[section]Finishing: Run tests",
            prefixed(o, "2026-11-20T10:00:01.1234567Z ")
        )
    }),
    ("Buildkite", |o| {
        format!(
            "~~~ :hammer: Running tests\n$ make check\n{o}\n🚨 Error: The command exited with status 2\nuser command error: exit status 2"
        )
    }),
    ("CircleCI", |o| {
        format!(
            "#!/bin/bash -eo pipefail\nmake check\n{o}\n\nExited with code exit status 2\nCircleCI received exit code 2"
        )
    }),
    ("docker buildx, plain", |o| {
        format!(
            "#12 [4/6] RUN make check\n{}\n#12 ERROR: process \"/bin/sh -c make check\" did not complete successfully: exit code: 2\n------\n > [4/6] RUN make check:\n------\nERROR: failed to solve: process \"/bin/sh -c make check\" did not complete successfully: exit code: 2",
            prefixed(o, "#12 3.217 ")
        )
    }),
    ("Earthly", |o| {
        format!(
            "{}\n+test *failed* | Repeating the failure error...\n+test *failed* | --> RUN make check\nError: earthfile line 12:4: the command\n        RUN make check\ndid not complete successfully. Exit code 2",
            prefixed(o, "+test | ")
        )
    }),
    ("grep -n -C3 error build.log", |o| {
        o.lines()
            .enumerate()
            .map(|(i, l)| format!("{}{}{l}", i + 101, if i % 3 == 0 { ':' } else { '-' }))
            .collect::<Vec<_>>()
            .join("\n")
    }),
];

/// `output` with `label` before each of its lines.
fn prefixed(output: &str, label: &str) -> String {
    output
        .lines()
        .map(|l| format!("{label}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Robustness, not a labelled set: every error of the tuning halves whose
/// fix is found as the writer gave it, met again inside each of
/// [`WRAPPERS`] (and cut by a pipe). Each way is counted apart: how many of
/// those fixes are still found. Held-out halves are not used. On dc46976,
/// before this reading of wrappers, of 83 fixes found bare: gh 63, compose
/// 61, turbo in colour 37, docker build 58, journald 49, make 83, Ansible's
/// result 23, tail 77, head 82; on 96 found bare since: 96, 96, 88, 96, 96,
/// 96, 94, 85, 93 (a short output under turbo keeps its label: fewer than
/// 3 lines carry it; tail takes some errors' telling first lines away).
/// The last seven ways (Jenkins, Azure Pipelines, Buildkite, CircleCI,
/// BuildKit's plain progress, Earthly, `grep -n -C3`) were added with the
/// sixth set's tuning half on 9394255: of 108 found bare, Buildkite kept
/// 77, Earthly 65 and grep 90 (their own lines read as the error's, and
/// grep's line numbers not a label); 108, 91 and 104 since. With the
/// seventh set's tuning half (f6e10fb on), 126 found bare: gh 125, compose
/// 126, turbo 119, docker build 126, journald 125, make 126, Ansible's 119
/// (JSON inside its `stderr` read since), tail 108, head 118, Jenkins 123,
/// Azure Pipelines 123, Buildkite 126, CircleCI 126, BuildKit plain 124,
/// Earthly 108, grep 121. With the eighth set's tuning half (88036a8 on),
/// 140 found bare: gh 137, compose 139, turbo 131, docker build 139,
/// journald 138, make 139, Ansible's 132, tail 118, head 129, Jenkins
/// 139, Azure Pipelines 137, Buildkite 140, CircleCI 140, BuildKit plain
/// 139, Earthly 120, grep 135. With the ninth set's tuning half (33fe7fb),
/// 154 found bare: gh 151, compose 153, turbo 143, docker build 152,
/// journald 152, make 153, Ansible's 145, tail 129, head 143, Jenkins 152,
/// Azure Pipelines 150, Buildkite 153, CircleCI 153, BuildKit plain 152,
/// Earthly 131, grep 148.
#[test]
fn a_fix_found_bare_is_found_when_a_runner_wraps_the_error_or_a_pipe_cuts_it() {
    let _cpu = crate::support::cpu_heavy();
    let mut kept = [(0usize, 0usize); WRAPPERS.len()];
    for name in [
        "dev", "written", "fresh", "next", "wrapped", "sixth", "seventh", "eighth", "ninth",
    ] {
        let set = load(&format!("moment_{name}.toml"));
        let home = home_for(&set);
        for (i, c) in set.error.iter().enumerate() {
            if c.expect.is_empty() || !tuning_half(&c.output) {
                continue;
            }
            let key = format!("{name}-{i}");
            if !recalled(&home, &set, &key, c, &c.output).contains(&c.expect) {
                continue;
            }
            // the ways two at a time: each call is a hook process
            let found: Vec<bool> = std::thread::scope(|scope| {
                let (set, home, key) = (&set, &home, &key);
                let halves: Vec<_> = WRAPPERS
                    .chunks(WRAPPERS.len().div_ceil(2))
                    .map(|ways| {
                        scope.spawn(move || {
                            ways.iter()
                                .map(|(way, wrap)| {
                                    let key = format!("{key}-{way}");
                                    recalled(home, set, &key, c, &wrap(&c.output))
                                        .contains(&c.expect)
                                })
                                .collect::<Vec<bool>>()
                        })
                    })
                    .collect();
                halves.into_iter().flat_map(|h| h.join().unwrap()).collect()
            });
            for (w, found) in found.into_iter().enumerate() {
                kept[w].0 += usize::from(found);
                kept[w].1 += 1;
            }
        }
    }
    let line: Vec<String> = WRAPPERS
        .iter()
        .zip(kept)
        .map(|((way, _), (k, n))| format!("{way} {k}/{n}"))
        .collect();
    eprintln!("moment fixes found bare, still found: {}", line.join(", "));
    for ((way, _), (k, n)) in WRAPPERS.iter().zip(kept) {
        assert!(n > 0 && k as f64 >= 0.8 * n as f64, "{way}: {k}/{n}");
    }
}

/// A small set in the blind set's format, for behaviour tests.
pub(crate) fn small_set() -> Set {
    toml_edit::de::from_str(
        r#"
[[session]]
id = "past"
project = "/home/ana/shop"
date = "2026-10-01T09:00:00Z"
  [[session.turn]]
  role = "user"
  text = "cargo build fails on the new laptop"
  [[session.turn]]
  role = "tool_call"
  tool = "Bash"
  command = "cargo build"
  [[session.turn]]
  role = "tool_result"
  is_error = true
  text = "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lpq: No such file or directory"
  [[session.turn]]
  role = "assistant"
  text = "The linker needs libpq. Installing libpq-dev fixed the link."
  [[session.turn]]
  role = "tool_call"
  tool = "Bash"
  command = "sudo apt-get install -y libpq-dev"
  [[session.turn]]
  role = "tool_call"
  tool = "Edit"
  file_path = "/home/ana/shop/src/db/pool.rs"
  [[session.turn]]
  role = "user"
  text = "TODO: add the dead-letter queue for failed webhooks."
  [[session.turn]]
  role = "assistant"
  text = "Noted."

[[session]]
id = "other"
project = "/home/ana/web"
date = "2026-10-02T09:00:00Z"
  [[session.turn]]
  role = "user"
  text = "TODO: rotate the staging keys. Also look at src/db/pool.rs later."
  [[session.turn]]
  role = "assistant"
  text = "Noted."
"#,
    )
    .unwrap()
}

/// An error met in two past sessions, now inside pytest's output: its line
/// is held by one past error, however many conversations met it, so the
/// line tells which error this is.
#[test]
fn a_recurring_error_inside_another_tools_output_is_recalled() {
    let session = |id: &str, date: &str, module: &str, fix: &str| {
        format!(
            r#"
[[session]]
id = "{id}"
project = "/home/ana/etl"
date = "{date}"
  [[session.turn]]
  role = "user"
  text = "the daily run fails"
  [[session.turn]]
  role = "tool_call"
  tool = "Bash"
  command = "python -m etl.run"
  [[session.turn]]
  role = "tool_result"
  is_error = true
  text = '''
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
ModuleNotFoundError: No module named '{module}'
'''
  [[session.turn]]
  role = "assistant"
  text = "{fix}"
"#
        )
    };
    let text = [
        session(
            "first",
            "2026-10-01T09:00:00Z",
            "psycopg2",
            "psycopg2 is not in the venv: poetry add psycopg2-binary fixed it.",
        ),
        session(
            "again",
            "2026-10-09T09:00:00Z",
            "psycopg2",
            "Same as last week: poetry add psycopg2-binary.",
        ),
        session(
            "other",
            "2026-10-05T09:00:00Z",
            "pyarrow",
            "pyarrow was missing: poetry add pyarrow.",
        ),
    ]
    .concat();
    let set: Set = toml_edit::de::from_str(&text).unwrap();
    let home = TestHome::new();
    build(&home, &set);
    let out = home.hook(
        "post-tool-use",
        &json!({
            "session_id": "new-1", "cwd": "/home/ana/etl", "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "tool_input": {"command": "poetry run pytest tests/test_load.py"},
            "error": "Exit code 2\n______ ERROR collecting tests/test_load.py ______\nImportError while importing test module '/home/ana/etl/tests/test_load.py'.\nE   ModuleNotFoundError: No module named 'psycopg2'\n!!!!!!! Interrupted: 1 error during collection !!!!!!!",
        }),
    );
    let said = context(&out);
    let got = named(&set, &said);
    assert!(!got.is_empty() && !got.contains("other"), "{got:?}: {said}");
    assert!(said.contains("psycopg2-binary"), "{said}");
}

//! Whether a lesson applies to a tool call: the pre-tool-use hook's
//! decision, over a lesson's [`LessonProfile`](super::lesson_profile::LessonProfile)
//! (read back from the lessons index) and an action's
//! [`ActionTerms`](super::action::ActionTerms).
//!
//! A lesson applies when one of its trigger clauses is what the action
//! does:
//! - the clause names what the action runs or writes (a program: "never
//!   npm", "before terraform apply"; a file, folder or type: "in
//!   docker-compose.yml", "under gen/", "in Go code"), and the rest of the
//!   clause is there too: one of its distinctive terms when it has any
//!   (`sudo` of "never sudo pip install", `prod` of "kubectl apply against
//!   prod"), else one of its words (`apply` of "before terraform apply", so
//!   `terraform fmt` gets nothing);
//! - or, naming neither, the action holds more than half of the clause's
//!   terms, one of them something the action does (its subcommand, a flag,
//!   a code token it writes): "never force-push to main" for `git push -f
//!   origin main`, not for `git push origin main`;
//! - or the action runs another tool of the kind the lesson prescribes
//!   (`yarn add` for "always use pnpm").
//!
//! An action that only does what a lesson prescribes (`pnpm install` for
//! "always pnpm, never npm") never meets it: the prescribed terms are not
//! in any trigger.
//!
//! Hand rules rather than weights: a grid search over weighted features
//! (the previous design) reached recall 0.70 / precision 0.72 on the
//! development set's tuning half and 0.45 / 0.64 on the blind set; the
//! rules' figures are in tests/action_lessons.rs's report.

use super::action::{ActionTerms, KNOWN_PROGRAMS, TYPE_WORDS};
use super::lesson_profile::is_alternative;
use crate::memory::words;
use std::collections::HashSet;
use std::sync::LazyLock;

/// A lesson's profile as the index holds it.
pub struct Profile<'a> {
    /// Trigger clauses: (term, distinctive).
    pub triggers: Vec<Vec<(&'a str, bool)>>,
    pub prescribed: Vec<&'a str>,
}

impl<'a> Profile<'a> {
    /// Reads the index's columns (see [`super::lesson_profile::LessonProfile::triggers_column`]).
    pub fn parse(triggers: &'a str, prescribed: &'a str) -> Profile<'a> {
        Profile {
            triggers: triggers
                .split('|')
                .map(|c| {
                    c.split(' ')
                        .filter(|t| !t.is_empty())
                        .map(|t| match t.strip_prefix('*') {
                            Some(t) => (t, true),
                            None => (t, false),
                        })
                        .collect::<Vec<_>>()
                })
                .filter(|c| !c.is_empty())
                .collect(),
            prescribed: prescribed.split(' ').filter(|t| !t.is_empty()).collect(),
        }
    }
}

/// Whether a lesson whose index columns say `triggers` and `prescribed`
/// can apply to the action at all: [`applies`] asks at least one trigger
/// term to be a program, file, type, term, subcommand or implied term of
/// it, or the action to run a program while the lesson prescribes one (an
/// alternative to it). Read on the columns' text, before they are parsed:
/// most of 500 lessons share no term with a call, and parsing each was an
/// eighth of pre-tool-use's samples (perf, the bench's workspace).
pub fn may_apply(triggers: &str, prescribed: &str, a: &ActionTerms) -> bool {
    if !a.programs.is_empty() && !prescribed.trim().is_empty() {
        return true;
    }
    triggers.split(['|', ' ']).any(|t| {
        let t = t.strip_prefix('*').unwrap_or(t);
        !t.is_empty()
            && (a.programs.contains(t) || a.files.contains(t) || a.types.contains(t) || held(a, t))
    })
}

/// Whether the action holds `term` among what it says or does: its
/// words, subcommands and what it implies (not what it runs or writes).
fn held(a: &ActionTerms, term: &str) -> bool {
    a.terms.contains(term) || a.subcommands.contains(term) || a.implied.contains(term)
}

/// Whether the lesson applies to the action, and how strongly (more
/// shared terms, higher); None when it does not.
pub fn applies(p: &Profile, a: &ActionTerms) -> Option<f64> {
    let mut best: Option<f64> = None;
    let mut keep = |s: f64| best = Some(best.map_or(s, |b: f64| b.max(s)));
    let held = |t: &str| held(a, t);
    let prescribed = &p.prescribed;
    let is_command = !a.programs.is_empty();
    let type_words = &*TYPE_TERMS;
    let qualifier_words = &*QUALIFIER_TERMS;
    for clause in &p.triggers {
        // a clause about files ("in docker-compose.yml", "never commit .env
        // files") is no rule for a command that does not name one of them
        let file_terms = clause.iter().filter(|(t, _)| is_file_term(t));
        if is_command && file_terms.clone().count() > 0 && !file_terms.clone().any(|(t, _)| held(t))
        {
            continue;
        }
        // "in Python code" names a language, not the program `python`
        let about_code = clause.iter().any(|(t, _)| t.starts_with('.'));
        let named: Vec<&str> = clause
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| {
                (a.programs.contains(*t) && !(about_code && is_language(t)))
                    || a.files.contains(*t)
                    || a.types.contains(*t)
            })
            // `docker` of "not the old docker-compose binary" names
            // docker-compose, which `docker compose up` does not run
            .filter(|t| {
                !clause.iter().any(|(k, _)| {
                    k != t && k.contains(*t) && PROGRAMS.contains(k) && !a.programs.contains(*k)
                })
            })
            .collect();
        let by_type = named.iter().any(|t| a.types.contains(*t));
        let rest: Vec<(&str, bool)> = clause
            .iter()
            .copied()
            .filter(|(t, _)| !named.contains(t) && !is_part_of_named(t, &named))
            .filter(|(t, _)| !(by_type && (type_words.iter().any(|w| w == t) || is_language(t))))
            .collect();
        if !named.is_empty() {
            // the rest must be there too: one of its terms, and when it
            // narrows the rule to a place or a power (`sudo`, prod,
            // staging, main), that as well
            let held_count = rest.iter().filter(|(t, _)| held(t)).count();
            let qualifiers: Vec<&str> = rest
                .iter()
                .map(|(t, _)| *t)
                .filter(|t| qualifier_words.iter().any(|q| q == t))
                .collect();
            // a flag it names is the form it is about: `git reset --hard`,
            // `helm upgrade --set`
            let flags: Vec<&str> = rest
                .iter()
                .map(|(t, _)| *t)
                .filter(|t| t.starts_with('-'))
                .collect();
            // a file type alone is broad (every .py file): it takes a
            // distinctive term of the rest, or two
            let distinctive_held = rest.iter().any(|(t, d)| *d && held(t));
            let enough = if by_type && !named.iter().any(|t| a.files.contains(*t)) {
                distinctive_held || held_count >= 2
            } else {
                held_count >= 1
            };
            let there = rest.is_empty()
                || (enough
                    && (qualifiers.is_empty() || qualifiers.iter().any(|t| held(t)))
                    && (flags.is_empty() || flags.iter().any(|t| held(t))));
            if there {
                let shared = rest.iter().filter(|(t, _)| held(t)).count();
                keep(2.0 + named.len() as f64 + shared as f64);
            }
            continue;
        }
        // a program the lesson names where it prescribes ("run terraform
        // plan before apply"), and a subcommand it names in a trigger
        if is_command
            && clause
                .iter()
                .any(|(t, _)| PROGRAMS.contains(t) && !a.programs.contains(*t))
        {
            continue;
        }
        let runs_prescribed = a.programs.iter().any(|p| prescribed.contains(&p.as_str()));
        if runs_prescribed
            && clause.iter().all(|(_, d)| !d)
            && clause.iter().any(|(t, _)| a.subcommands.contains(*t))
        {
            keep(3.0);
            continue;
        }
        let shared: Vec<&str> = clause.iter().map(|(t, _)| *t).filter(|t| held(t)).collect();
        // what the action does: a subcommand, flag or what it implies; for
        // an edit, a code token it writes too (a command's arguments are
        // data: `grep console.log` writes no console.log)
        let does = shared.iter().any(|t| {
            a.subcommands.contains(*t)
                || a.doing.contains(*t)
                || a.implied.contains(*t)
                || (!is_command && t.contains(['.', '(', '!']))
        });
        let distinct_shared = shared
            .iter()
            .any(|t| clause.iter().any(|(c, d)| c == t && *d));
        let enough = shared.len() >= 3 || (shared.len() == 2 && distinct_shared);
        if enough && does && shared.len() * 2 > clause.len() {
            keep(1.0 + shared.len() as f64);
        }
    }
    let forbidden: Vec<&str> = p.triggers.iter().flatten().map(|(t, _)| *t).collect();
    let alternative = a.programs.iter().any(|ran| {
        !p.prescribed.contains(&ran.as_str()) && is_alternative(&p.prescribed, &forbidden, ran)
    });
    if alternative {
        keep(2.0);
    }
    best
}

// Analysed once per process, not once per lesson: a stemmer run per
// lesson and a linear scan of the program list per term made pre-tool-use
// 5 ms slower than the process floor with 500 lessons (`cargo bench
// --bench hooks`).
static TYPE_TERMS: LazyLock<Vec<String>> = LazyLock::new(|| words::tokens(TYPE_WORDS));
static QUALIFIER_TERMS: LazyLock<Vec<String>> = LazyLock::new(|| words::tokens(QUALIFIERS));
static PROGRAMS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| KNOWN_PROGRAMS.iter().copied().collect());

/// Words that narrow a rule to a place or a power an action shows: "never
/// sudo pip install", "kubectl apply against prod".
const QUALIFIERS: &str = "sudo prod production staging main master root";

/// Whether `term` names a file, a file type or a folder.
fn is_file_term(term: &str) -> bool {
    term.ends_with('/') || (term.contains('.') && !term.ends_with("()") && !term.contains(".."))
}

/// Whether `term` names a language (its file type carries it).
fn is_language(term: &str) -> bool {
    [
        "golang",
        "go",
        "python",
        "rust",
        "typescript",
        "javascript",
        "java",
        "ruby",
        "node",
    ]
    .contains(&term)
}

/// Whether `term` is a word of a named file (`dockerfil` of `dockerfile`,
/// `compos` of `docker-compose.yml`): said by naming it.
fn is_part_of_named(term: &str, named: &[&str]) -> bool {
    named
        .iter()
        .any(|n| n.len() > term.len() && n.contains(term))
}

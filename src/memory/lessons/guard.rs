//! Guards: a lesson that can block. A guard is a regular expression over
//! what a tool call does (a command line, or the path of a file about to
//! be written); a call it matches is denied with the lesson as the reason
//! (or, in [`GuardMode::Ask`], put to the user), so the model reads the
//! rule at the moment it would break it and changes course.
//!
//! A guard is checked when it is added (`pms lessons add --guard`, `edit`,
//! the review, `lessons_promote`, the page): a pattern that does not
//! compile, or is too large, is refused there with the reason, never at a
//! tool call. One edited by hand into `lessons.md` that does not compile
//! is kept as written and matches nothing ([`Guard::matches`]).

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};

/// What a guard does to a call it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GuardMode {
    /// The call is denied; the model gets the lesson as the reason.
    #[default]
    Deny,
    /// The user is asked (agents that cannot ask deny, saying so).
    Ask,
}

impl GuardMode {
    pub fn parse(s: &str) -> Option<GuardMode> {
        match s.trim() {
            "deny" | "block" => Some(GuardMode::Deny),
            "ask" => Some(GuardMode::Ask),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GuardMode::Deny => "deny",
            GuardMode::Ask => "ask",
        }
    }
}

/// A lesson's guard: a pattern and what to do on a match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    pub pattern: String,
    pub mode: GuardMode,
}

/// Why a guard was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadGuard {
    #[error(
        "the guard is empty. Fix: give a regular expression, e.g. --guard 'git push .*--force'"
    )]
    Empty,
    #[error(
        "the guard {pattern:?} holds a tab or a line break. Fix: write \\t or \\n in the pattern instead"
    )]
    ControlCharacter { pattern: String },
    #[error(
        "the guard {pattern:?} is not a valid regular expression: {why}. Fix: correct it (the syntax is Rust's regex crate: https://docs.rs/regex)"
    )]
    Invalid { pattern: String, why: String },
}

/// The compiled size a guard may take: a pattern that needs more is a
/// mistake (or an attack on the hook's budget), and is refused at `add`.
const SIZE_LIMIT: usize = 256 << 10;

impl Guard {
    /// A guard from a pattern, checked: it compiles, within the size limit.
    pub fn new(pattern: &str, mode: GuardMode) -> Result<Guard, BadGuard> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(BadGuard::Empty);
        }
        if pattern.contains(['\t', '\n', '\r']) {
            return Err(BadGuard::ControlCharacter {
                pattern: pattern.to_string(),
            });
        }
        compile(pattern).map_err(|why| BadGuard::Invalid {
            pattern: pattern.to_string(),
            why,
        })?;
        Ok(Guard {
            pattern: pattern.to_string(),
            mode,
        })
    }

    /// Whether the guard matches `target` (a command line or a file path);
    /// a pattern that does not compile (edited by hand) matches nothing.
    ///
    /// A call that holds none of the words every match of the pattern
    /// must hold is told apart without compiling it ([`could_match`]):
    /// compiling took a third of a millisecond per guard (three small
    /// guards were 1.0 ms of a 4.9 ms pre-tool-use), and most calls meet
    /// no guard.
    pub fn matches(&self, target: &str) -> bool {
        could_match(&self.pattern, target)
            && compile(&self.pattern).is_ok_and(|re| re.is_match(target))
    }
}

/// False only when no match of `pattern` can be in `target`: every match
/// starts (or ends) with one of a finite set of literals, and `target`
/// holds none of them, compared in ASCII lower case. True whenever that
/// cannot be told: a pattern with no such set (`.*x`), a literal or a
/// target outside ASCII (where case folding is more than lower case), a
/// pattern that does not parse (compiling it then says so).
fn could_match(pattern: &str, target: &str) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    if !target.is_ascii() {
        return true;
    }
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return true;
    };
    let target = target.to_ascii_lowercase();
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .all(|kind| {
            let seq = Extractor::new().kind(kind).extract(&hir);
            let Some(literals) = seq.literals() else {
                return true;
            };
            literals.iter().any(|l| {
                let l = l.as_bytes();
                !l.is_ascii() || target.contains(&*String::from_utf8_lossy(l).to_ascii_lowercase())
            })
        })
}

/// Compiles a guard pattern case-insensitively (a command typed `NPM` or
/// `Npm` is the same command), within [`SIZE_LIMIT`].
pub fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| {
            e.to_string()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .trim_start_matches("error:")
                .trim()
                .to_string()
        })
}

/// A guard to propose for a learning that explicitly forbids a command
/// ("never use npm", "never force-push to main", "don't run terraform
/// apply from a laptop"), for the user's yes: the forbidden program, with
/// the words that follow it in the rule when they are its subcommand or a
/// flag. None when the rule forbids no command pms recognises: pms never
/// guesses a guard for prose.
pub fn propose(rule: &str) -> Option<String> {
    static NEVER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(?:never|don'?t|do not|must not|mustn'?t|avoid|no)\b\s+(?:ever\s+|use\s+|run\s+|call\s+|do\s+(?:a\s+)?)?(?P<rest>[^.;,]+)",
        )
        .expect("valid")
    });
    let caps = NEVER.captures(rule)?;
    let rest = caps.name("rest")?.as_str();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let first = lower
        .first()?
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
    // force-push (to main): the push that rewrites a branch
    if first == "force-push"
        || (first == "force" && lower.get(1).is_some_and(|w| w.starts_with("push")))
    {
        let branch = lower
            .iter()
            .skip(1)
            .find(|w| {
                ["main", "master", "trunk", "prod", "production"]
                    .contains(&w.trim_matches(|c: char| !c.is_alphanumeric()))
            })
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string());
        return Some(match branch {
            Some(b) => format!(
                r"\bgit\s+push\b.*(--force\b|--force-with-lease\b|\s-f\b).*\b{b}\b|\bgit\s+push\b.*\b{b}\b.*(--force\b|\s-f\b)"
            ),
            None => r"\bgit\s+push\b.*(--force\b|\s-f\b)".to_string(),
        });
    }
    if !super::action::KNOWN_PROGRAMS.contains(&first) {
        return None;
    }
    let program = regex::escape(first);
    // a subcommand right after the program: "terraform apply", "npm publish"
    let sub = lower
        .get(1)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !STOP_AFTER_PROGRAM.contains(w));
    Some(match sub {
        Some(s) => format!(
            r"(^|[;&|(]\s*|\bsudo\s+|\bnpx\s+)\b{program}\s+{}\b",
            regex::escape(s)
        ),
        None => format!(r"(^|[;&|(]\s*|\bsudo\s+|\bnpx\s+)\b{program}\b"),
    })
}

/// Words after a program in a rule that are not its subcommand.
const STOP_AFTER_PROGRAM: &[&str] = &[
    "in", "on", "for", "to", "from", "with", "without", "or", "and", "here", "again", "ever",
    "directly", "by", "as", "anymore", "at", "this", "the", "a",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_pattern_is_refused_with_the_reason_and_the_fix() {
        let e = Guard::new("git push (--force", GuardMode::Deny).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("not a valid regular expression") && msg.contains("Fix:"),
            "{msg}"
        );
        assert_eq!(Guard::new("  ", GuardMode::Deny), Err(BadGuard::Empty));
        assert!(matches!(
            Guard::new("a\tb", GuardMode::Deny),
            Err(BadGuard::ControlCharacter { .. })
        ));
        let huge = format!("({})", "a{100}".repeat(200));
        assert!(
            Guard::new(&huge, GuardMode::Deny).is_err(),
            "over the size limit"
        );
    }

    #[test]
    fn a_call_without_the_guards_words_is_told_apart_without_compiling() {
        // what every match must start or end with, in any case
        assert!(!could_match(r"\bterraform\s+apply\b", "ls -la"));
        assert!(could_match(
            r"\bterraform\s+apply\b",
            "cd infra && TERRAFORM apply"
        ));
        assert!(!could_match(r".*\.env$", "cat README.md"));
        assert!(could_match(r".*\.env$", "cat .ENV"));
        assert!(!could_match(r"^(?:sudo\s+)?docker", "podman ps"));
        assert!(
            !could_match(r"^(?:sudo\s+)?docker", "sudo ls"),
            "its end says"
        );
        assert!(could_match(r"^(?:sudo\s+)?docker", "sudo Docker ps"));
        // when it cannot tell, it says it could
        assert!(could_match(r"\w+", "ls"));
        assert!(could_match(r"git (", "ls"));
        assert!(could_match(r"ſsh", "SSH"), "a literal outside ASCII");
        assert!(could_match(r"ssh", "ſsh host"), "a target outside ASCII");
        // and it never changes what a guard matches
        for (pattern, target) in [
            (r"(?-i)rm -rf", "RM -RF /"),
            (r"\bkubectl\s+(delete|apply)\b", "KubeCtl  Delete pod x"),
            (r"git\s+push\b.*(--force|\s-f\b)", "git push -f origin main"),
            (r"\.(lock|sum)$", "vim go.SUM"),
        ] {
            let g = Guard::new(pattern, GuardMode::Deny).unwrap();
            let re = compile(pattern).unwrap();
            assert_eq!(
                g.matches(target),
                re.is_match(target),
                "{pattern} on {target}"
            );
            assert!(could_match(pattern, target), "{pattern} on {target}");
        }
    }

    #[test]
    fn guards_match_case_insensitively() {
        let g = Guard::new(r"\bnpm\s+install\b", GuardMode::Deny).unwrap();
        assert!(g.matches("cd web && NPM install lodash"));
        assert!(!g.matches("pnpm install"));
    }

    #[test]
    fn proposals_only_for_explicit_prohibitions_of_commands() {
        let npm = propose("Always use pnpm, never npm, in this repo.").unwrap();
        let g = Guard::new(&npm, GuardMode::Deny).unwrap();
        for hit in [
            "npm install",
            "cd web && npm i lodash",
            "sudo npm install -g x",
            "npx npm@latest i",
        ] {
            assert!(g.matches(hit), "{hit} against {npm}");
        }
        for miss in ["pnpm install", "echo npm", "git commit -m 'drop npm'"] {
            assert!(!g.matches(miss), "{miss} against {npm}");
        }
        let push = propose("Never force-push to the main branch.").unwrap();
        let g = Guard::new(&push, GuardMode::Deny).unwrap();
        assert!(g.matches("git push --force origin main"));
        assert!(g.matches("git push -f origin main"));
        assert!(!g.matches("git push origin main"));
        assert!(!g.matches("git push --force origin feature/x"));
        let tf = propose("Never run terraform apply from a laptop.").unwrap();
        let g = Guard::new(&tf, GuardMode::Deny).unwrap();
        assert!(g.matches("terraform apply -auto-approve"));
        assert!(!g.matches("terraform plan"));
        assert_eq!(propose("Never mix tabs and spaces in the docs."), None);
        assert_eq!(propose("Always run the tests before pushing."), None);
    }
}

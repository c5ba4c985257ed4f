//! What a lesson says about actions, read from its text once, when the
//! lessons index is written: the clauses that say when it applies and the
//! terms it prescribes ([`LessonProfile`]). [`super::action_match`] decides
//! with it whether a tool call meets the lesson.
//!
//! The reading is lexical and small on purpose: a clause after a negation
//! ("never npm"), after a context word ("before terraform apply", "in
//! docker-compose.yml"; Chinese puts 前 after what it qualifies), or before
//! a modal ("Dockerfiles must …") says when the lesson applies; the rest is
//! what it prescribes.

use std::collections::HashSet;

use super::action::code_tokens;
use crate::memory::words;

/// What a lesson says about actions, analysed once when the lessons index
/// is written: the clauses that say when it applies (its triggers: what it
/// forbids, "never npm"; the situation it names, "before terraform apply",
/// "in docker-compose.yml"; its subject, "Dockerfiles must ..."), each a
/// list of terms, and the terms it prescribes ("always use pnpm"), which an
/// action may hold without breaking it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LessonProfile {
    pub triggers: Vec<Vec<ProfileTerm>>,
    pub prescribed: Vec<String>,
}

/// A term of a trigger clause, and whether it is distinctive (a code token,
/// a file type, a word outside common English: `sudo`, `prod`, `alembic`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileTerm {
    pub term: String,
    pub distinctive: bool,
}

impl ProfileTerm {
    fn of(term: String) -> ProfileTerm {
        let code =
            term.starts_with('.') || term.contains(['.', '/', '(', '!']) || term.starts_with("--");
        let distinctive = code
            || !term.is_ascii()
            || !matches!(
                words::commonness(&term),
                Some(words::Commonness::VeryCommon | words::Commonness::Common)
            );
        ProfileTerm { term, distinctive }
    }
}

/// Tools of one kind: a lesson that prescribes one applies when another
/// is run ("always use pnpm" to `yarn install`).
const ALTERNATIVES: &[&[&str]] = &[
    &["npm", "yarn", "pnpm", "bun"],
    &["pip", "pip3", "poetry", "uv", "pipenv", "conda"],
    &["docker", "podman"],
];

/// Languages named in a lesson, and the files they are written in.
const LANGUAGE_FILES: &[(&str, &[&str])] = &[
    ("golang", &[".go"]),
    ("python", &[".py"]),
    ("rust", &[".rs"]),
    ("typescript", &[".ts", ".tsx"]),
    ("javascript", &[".js", ".jsx", ".mjs", ".cjs"]),
    ("yaml", &[".yml", ".yaml"]),
    ("sql", &[".sql"]),
    ("ruby", &[".rb"]),
    ("java", &[".java"]),
    ("kotlin", &[".kt"]),
    ("swift", &[".swift"]),
    ("php", &[".php"]),
    ("css", &[".css", ".scss"]),
    ("dockerfile", &["dockerfile"]),
    ("dockerfiles", &["dockerfile"]),
    ("makefile", &["makefile"]),
    ("github actions", &[".github/", "workflows/"]),
];

/// Words that turn the rest of a clause into what must not be done.
const NEGATIONS: &[&str] = &[
    "never",
    "don't",
    "dont",
    "do not",
    "not",
    "no",
    "avoid",
    "instead of",
    "rather than",
    "must not",
    "mustn't",
    "shouldn't",
    "should not",
    "stop",
    "without",
    "不要",
    "别",
    "禁止",
    "不能",
    "不准",
    "不得",
    "切勿",
    "避免",
];

impl LessonProfile {
    pub fn of(text: &str) -> LessonProfile {
        let (triggers, prescribed) = polarity(text);
        // "alembic upgrade/downgrade", "kubectl apply/edit/delete": either
        // will do, so none of them is required as a distinctive term is
        let choices: HashSet<String> = text
            .split_whitespace()
            .filter(|w| w.contains('/') && !w.contains('.') && !w.ends_with('/'))
            .flat_map(words::tokens)
            .collect();
        LessonProfile {
            triggers: triggers
                .into_iter()
                .map(|c| {
                    c.into_iter()
                        .map(|t| {
                            let mut t = ProfileTerm::of(t);
                            t.distinctive &= !choices.contains(&t.term);
                            t
                        })
                        .collect()
                })
                .filter(|c: &Vec<ProfileTerm>| !c.is_empty())
                .collect(),
            prescribed,
        }
    }

    /// The index's form: clauses separated by `|`, terms by spaces, a
    /// distinctive term marked `*`.
    pub fn triggers_column(&self) -> String {
        self.triggers
            .iter()
            .map(|c| {
                c.iter()
                    .map(|t| {
                        if t.distinctive {
                            format!("*{}", t.term)
                        } else {
                            t.term.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("|")
    }
}

/// The terms of a piece of a lesson: words, code tokens and the file types
/// of the languages it names.
fn piece_terms(piece: &str, out: &mut Vec<String>) {
    let mut push = |t: String| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    for t in words::tokens(piece).into_iter().chain(code_tokens(piece)) {
        push(t);
    }
    for (word, files) in LANGUAGE_FILES {
        if names_language(piece, word) {
            for f in *files {
                push(f.to_string());
            }
        }
    }
}

/// Whether `text` names the language `word` (Go only capitalised or as
/// golang: "changes go through CI" is no Go code).
fn names_language(text: &str, word: &str) -> bool {
    let found = |needle: &str, case_sensitive: bool| {
        let hay = if case_sensitive {
            text.to_string()
        } else {
            text.to_lowercase()
        };
        hay.match_indices(needle).any(|(i, _)| {
            let before = hay[..i].chars().next_back();
            let after = hay[i + needle.len()..].chars().next();
            // a word of its own, not part of a file name (`pnpm-lock.yaml`)
            before.is_none_or(|c| !c.is_alphanumeric() && !".-_/".contains(c))
                && after.is_none_or(|c| !c.is_alphanumeric() && !"-_/".contains(c))
        })
    };
    if word == "golang" {
        return found("Go", true) || found("golang", false);
    }
    found(word, false)
}

/// Words after which a clause names when the rule applies ("before
/// pushing", "in docker-compose.yml", "部署前"): what comes before them is
/// what the rule prescribes.
const CONTEXTS: &[&str] = &[
    "before",
    "when",
    "whenever",
    "after",
    "while",
    "during",
    "in",
    "on",
    "under",
    "against",
    "之前",
    "前",
    "时",
    "的时候",
    "在",
];

/// Context markers that follow what they qualify.
const POSTPOSITIONS: &[&str] = &["之前", "前", "时", "的时候"];

/// Words before which a clause names what the rule is about ("Dockerfiles
/// must …", "every .tf file must …").
const SUBJECTS: &[&str] = &[
    "must", "should", "needs", "need", "has to", "have to", "必须", "需要",
];

/// The position of the first of `markers` in `clause` standing as a word of
/// its own, and where it ends.
pub(super) fn find_marker(clause: &str, markers: &[&str]) -> Option<(usize, usize)> {
    markers
        .iter()
        .filter_map(|m| {
            clause.match_indices(m).find(|(i, _)| {
                if m.chars().next().is_some_and(|c| !c.is_ascii()) {
                    return true;
                }
                let before = clause[..*i].chars().next_back();
                let after = clause[i + m.len()..].chars().next();
                before.is_none_or(|c| !c.is_alphanumeric() && c != '\'' && c != '’')
                    && after.is_none_or(|c| !c.is_alphanumeric())
            })
        })
        .map(|(i, m)| (i, i + m.len()))
        .min()
}

/// The trigger clauses of a rule and the terms it prescribes. Each clause
/// (split at punctuation) is read so: after a negation ("never npm", "not
/// pip install", "instead of returning them bare") or a context word
/// ("before pushing", "in docker-compose.yml"), a trigger; before a modal
/// ("Dockerfiles must …"), a trigger; the rest is prescribed. A term said
/// both ways is a trigger's ("plan before apply; never apply to prod").
fn polarity(text: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let mut triggers: Vec<Vec<String>> = Vec::new();
    let mut prescribed: Vec<String> = Vec::new();
    // a full stop ends a clause only before a space or the end: not inside
    // `package-lock.json` or `console.log`
    // nor a comma inside brackets: "(kubectl apply, helm upgrade)" is one list
    let mut clauses: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '（' | '[' => depth += 1,
            ')' | '）' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let next = text[i + c.len_utf8()..].chars().next();
        let ends = depth == 0
            && (matches!(
                c,
                ',' | ';' | ':' | '—' | '，' | '。' | '；' | '、' | '！' | '?'
            ) || (c == '.' && next.is_none_or(char::is_whitespace)));
        if ends {
            clauses.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    clauses.push(&text[start..]);
    let mut trigger = |piece: &str| {
        let mut t = Vec::new();
        piece_terms(piece, &mut t);
        if !t.is_empty() {
            triggers.push(t);
        }
    };
    for clause in clauses {
        let lower = clause.to_lowercase();
        // lower-casing keeps byte offsets for the ASCII markers and the CJK
        // ones alike; a clause whose length changes is read as a whole
        let same = lower.len() == clause.len();
        let negation = find_marker(&lower, NEGATIONS).filter(|_| same);
        // "Dockerfiles must …", "every HTTP client in Python code needs …":
        // what comes before the modal (and no negation) is the subject
        let mut from = 0;
        if let Some((at, end)) = find_marker(&lower, SUBJECTS)
            .filter(|(at, _)| same && *at > 0 && negation.is_none_or(|(n, _)| n > *at))
        {
            trigger(&clause[..at]);
            from = end;
        }
        let after = [
            find_marker(&lower[from..], NEGATIONS),
            find_marker(&lower[from..], CONTEXTS),
        ]
        .into_iter()
        .flatten()
        .min()
        .filter(|_| same)
        .map(|(a, b)| (a + from, b + from));
        match after {
            // Chinese puts "before" after what it qualifies: 部署前 is
            // "before deploying"
            Some((at, end)) if POSTPOSITIONS.contains(&&lower[at..end]) => {
                trigger(&clause[from..at]);
                piece_terms(&clause[end..], &mut prescribed);
            }
            Some((at, end)) => {
                piece_terms(&clause[from..at], &mut prescribed);
                trigger(&clause[end..]);
            }
            None => piece_terms(&clause[from..], &mut prescribed),
        }
    }
    let said: Vec<&String> = triggers.iter().flatten().collect();
    prescribed.retain(|t| !said.contains(&t));
    (triggers, prescribed)
}

/// Whether `ran` (a program the action runs) is another tool of the kind
/// of one the lesson prescribes, where the lesson also forbids one of that
/// kind ("use pnpm, never npm": `yarn` too; "run TS scripts with bun, not
/// ts-node" says nothing about `npm`).
pub fn is_alternative(prescribed: &[&str], forbidden: &[&str], ran: &str) -> bool {
    ALTERNATIVES.iter().any(|kind| {
        kind.contains(&ran)
            && prescribed.iter().any(|p| *p != ran && kind.contains(p))
            && forbidden.iter().any(|f| kind.contains(f))
    })
}

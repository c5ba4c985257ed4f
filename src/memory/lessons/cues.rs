//! Suggested "applies when" cues for a staged learning, from its text and
//! the narrative around it (`why`: the correction, the root cause): the
//! commands it names ("pnpm install", "npm"), the file types (".tsx"),
//! what it quotes, then its key words. The review pre-fills its "When does
//! it apply?" question with them; the user keeps, edits or clears them.

use super::action::KNOWN_PROGRAMS;

/// At most this many suggestions: the review's line stays readable, and
/// each cue counts in matching as much as the rule's own words.
const MAX_CUES: usize = 8;
/// Key words added after the commands, file types and quotes.
const MAX_WORDS: usize = 4;

/// Words after a program that are not its subcommand.
const NOT_A_SUBCOMMAND: &[&str] = &[
    "in", "on", "for", "to", "from", "with", "without", "or", "and", "here", "again", "ever",
    "directly", "by", "as", "anymore", "at", "this", "the", "a", "is", "was", "instead",
];

pub fn suggest(text: &str, why: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |cue: String, out: &mut Vec<String>| {
        let cue = cue.trim().to_string();
        if !cue.is_empty()
            && cue.chars().count() <= 40
            && !out.iter().any(|c| c.eq_ignore_ascii_case(&cue))
        {
            out.push(cue);
        }
    };
    let sources: Vec<&str> = std::iter::once(text).chain(why).collect();
    for s in &sources {
        for cue in commands(s) {
            push(cue, &mut out);
        }
        for cue in file_types(s) {
            push(cue, &mut out);
        }
        for delim in ['`', '"'] {
            for (i, part) in s.split(delim).enumerate() {
                if i % 2 == 1 {
                    push(part.to_string(), &mut out);
                }
            }
        }
    }
    let covered = |w: &str, out: &[String]| {
        out.iter()
            .any(|c| c.to_lowercase().split_whitespace().any(|p| p == w))
    };
    // The words as written ("database", not the stem "databas"), those
    // the index's analysis keeps (stop words and request filler dropped).
    let mut words = 0;
    for w in text.split(|c: char| !c.is_alphanumeric() && c != '-') {
        let w = w.trim_matches('-').to_lowercase();
        if words == MAX_WORDS {
            break;
        }
        if w.chars().count() >= 4
            && !w.chars().all(|c| c.is_ascii_digit())
            && !covered(&w, &out)
            && !crate::memory::words::tokens(&w).is_empty()
        {
            push(w, &mut out);
            words += 1;
        }
    }
    out.truncate(MAX_CUES);
    out
}

/// "program subcommand" (or the program alone) for each known program the
/// text names.
fn commands(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
                .to_lowercase()
        })
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !KNOWN_PROGRAMS.contains(&w.as_str()) {
            continue;
        }
        let sub = words.get(i + 1).filter(|s| {
            !s.is_empty()
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !NOT_A_SUBCOMMAND.contains(&s.as_str())
                && !KNOWN_PROGRAMS.contains(&s.as_str())
        });
        match sub {
            Some(s) => out.push(format!("{w} {s}")),
            None => out.push(w.clone()),
        }
    }
    out
}

/// ".tsx" for "Button.tsx", "*.tsx" or ".tsx files".
fn file_types(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter_map(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '*');
            let (stem, ext) = w.rsplit_once('.')?;
            let is_ext = (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
                && !stem.contains('/')
                && !stem.ends_with('.');
            // "e.g" and "i.e" are not files; a version ("v1.2") is not either
            (is_ext && !["g", "e"].contains(&ext) && !stem.is_empty()
                || w.starts_with('.') && is_ext)
                .then(|| format!(".{}", ext.to_lowercase()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::suggest;

    #[test]
    fn commands_file_types_quotes_then_key_words() {
        let cues = suggest(
            "Never use npm here: always run `pnpm install`, the lockfile is pnpm's.",
            Some("npm install rewrote package-lock.json and broke the build of Button.tsx"),
        );
        assert_eq!(cues[0], "npm");
        assert!(cues.contains(&"pnpm install".to_string()), "{cues:?}");
        assert!(cues.contains(&".tsx".to_string()), "{cues:?}");
        assert!(cues.contains(&"npm install".to_string()), "{cues:?}");
        assert!(cues.contains(&"lockfile".to_string()), "{cues:?}");
        assert!(cues.len() <= super::MAX_CUES);
    }

    #[test]
    fn a_plain_sentence_gets_its_key_words() {
        let cues = suggest("The staging database listens on port 5433, not 5432.", None);
        assert!(cues.contains(&"staging".to_string()), "{cues:?}");
        assert!(cues.contains(&"database".to_string()), "{cues:?}");
        assert!(!cues.iter().any(|c| c == ".g"), "{cues:?}");
    }
}

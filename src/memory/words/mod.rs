//! Words as pms compares them: the analysis shared by lesson matching and
//! the near-duplicate check; search uses its stemmer and its synonym table
//! (`search::query` has its own stop words).
//!
//! Text is split into words of spaced scripts and runs of CJK characters
//! ([`crate::memory::words::terms::terms`]). A word is lower-cased, dropped when it
//! is a stop word (function words, and the filler of requests: "can you",
//! "please", "need"), expanded when it is a known abbreviation ("k8s" →
//! "kubernetes", "PR" → "pull request"), and stemmed with Snowball's English
//! stemmer (rust-stemmers), so "migrations", "migrating" and "migrated" meet.
//! Hyphenated and underscored words are split ("force-push" → "force",
//! "push"), as the prompt side writes them either way ("push --force"). A CJK
//! run becomes its overlapping bigrams, minus the bigrams of function words
//! ("我们", "一下"). Both sides of every comparison go through the same
//! analysis.

pub mod terms;

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::memory::words::terms::{Term, bigrams, terms};

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Function words and the filler of requests: they say nothing about what a
/// text is about. Sorted (binary search). Search keeps its own, smaller list
/// (`search::query`), since a search may be looking for the words this one
/// drops.
const STOP_WORDS: &[&str] = &[
    "a",
    "able",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "always",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "aren",
    "around",
    "as",
    "ask",
    "at",
    "back",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "could",
    "couldn",
    "did",
    "didn",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "even",
    "ever",
    "every",
    "few",
    "first",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "getting",
    "give",
    "go",
    "going",
    "got",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "having",
    "he",
    "hello",
    "help",
    "her",
    "here",
    "hers",
    "herself",
    "hey",
    "hi",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "keep",
    "know",
    "let",
    "lets",
    "like",
    "ll",
    "look",
    "m",
    "make",
    "many",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "mustn",
    "my",
    "myself",
    "need",
    "needs",
    "never",
    "new",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "ok",
    "okay",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "please",
    "put",
    "quick",
    "quickly",
    "re",
    "really",
    "right",
    "s",
    "said",
    "same",
    "say",
    "see",
    "set",
    "shall",
    "she",
    "should",
    "shouldn",
    "since",
    "so",
    "some",
    "something",
    "still",
    "such",
    "sure",
    "t",
    "take",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "this",
    "those",
    "through",
    "to",
    "today",
    "too",
    "try",
    "under",
    "until",
    "up",
    "us",
    "use",
    "used",
    "using",
    "ve",
    "very",
    "via",
    "wanna",
    "want",
    "was",
    "wasn",
    "way",
    "we",
    "well",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "without",
    "won",
    "would",
    "wouldn",
    "yes",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// CJK bigrams of function words and request filler ("帮我", "一下").
const CJK_STOP_BIGRAMS: &[&str] = &[
    "一下", "一个", "一些", "下吧", "不是", "个一", "们的", "什么", "他们", "以后", "你们", "你帮",
    "便帮", "修改", "写一", "准备", "可以", "吗？", "哪些", "因为", "如何", "帮我", "应该", "我们",
    "我想", "我的", "所以", "我要", "把这", "是不", "时候", "有没", "没有", "然后", "现在", "的时",
    "看一", "看看", "能不", "能帮", "要不", "这个", "这些", "这样", "那个", "需要",
];

/// Forms that stand for the same thing in software work. Search matches each
/// group in both directions (`search.synonyms` in config.toml adds groups);
/// lesson matching reads every one-word form as the group's longest form
/// ("k8s" → "kubernetes"), on both sides of a comparison. One table, so
/// that search and lessons agree on what an abbreviation means. ("cd" is
/// not here: it is the shell command more often than continuous delivery.)
pub const SYNONYMS: &[&[&str]] = &[
    &["k8s", "kubernetes", "kube"],
    &["db", "database"],
    &["dbs", "databases"],
    &["pg", "postgres", "postgresql"],
    &["auth", "authentication", "authn"],
    &["authz", "authorization"],
    &["ci", "continuous integration"],
    &["pr", "pull request"],
    &["prs", "pull requests"],
    &["mr", "merge request"],
    &["repo", "repository"],
    &["repos", "repositories"],
    &["env", "environment"],
    &["envs", "environments"],
    &["prod", "production"],
    &["dev", "development"],
    &["config", "configuration", "cfg", "conf"],
    &["deps", "dependencies"],
    &["creds", "credentials"],
    &["dep", "dependency"],
    &["docs", "documentation"],
    &["tf", "terraform"],
    &["js", "javascript"],
    &["ts", "typescript"],
    &["py", "python"],
    &["gh", "github"],
    &["msg", "message"],
    &["msgs", "messages"],
    &["infra", "infrastructure"],
    &["perf", "performance"],
    &["oom", "out of memory", "oomkilled"],
    &["e2e", "end-to-end"],
    &["sso", "single sign-on"],
    &["mfa", "2fa", "two-factor"],
    &["lb", "load balancer"],
    &["vm", "virtual machine"],
    &["ml", "machine learning"],
    &["i18n", "internationalization"],
    &["l10n", "localization"],
    &["a11y", "accessibility"],
    &["tz", "timezone", "time zone"],
    &["ui", "user interface"],
    &["impl", "implementation"],
    &["err", "error"],
    &["async", "asynchronous"],
    &["eng", "engineering"],
    &["mgmt", "management"],
    &["ram", "memory"],
    &["tx", "transaction"],
    &["q1", "first quarter"],
    &["q2", "second quarter"],
    &["q3", "third quarter"],
    &["q4", "fourth quarter"],
];

fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// The long form a one-word form of [`SYNONYMS`] stands for: the group's
/// longest form ("cfg" → "configuration").
fn expansion(w: &str) -> Option<&'static str> {
    static LONG: LazyLock<std::collections::HashMap<&'static str, &'static str>> =
        LazyLock::new(|| {
            let mut map = std::collections::HashMap::new();
            for group in SYNONYMS {
                let long = group
                    .iter()
                    .max_by_key(|f| f.chars().count())
                    .expect("a group has forms");
                for form in group.iter().filter(|f| *f != long && !f.contains(' ')) {
                    map.insert(*form, *long);
                }
            }
            map
        });
    LONG.get(w).copied()
}

/// The analysed tokens of `text`, in order (stop words gone, so a phrase
/// matches across them: "push to main" holds the phrase "push main").
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in terms(text) {
        match t {
            Term::Word(w) => {
                for part in w.split('_').filter(|p| !p.is_empty()) {
                    push_word(part, &mut out);
                }
            }
            Term::Cjk(run) => {
                for g in bigrams(&run) {
                    if g.chars().count() == 2 && !CJK_STOP_BIGRAMS.contains(&g.as_str()) {
                        out.push(g);
                    }
                }
            }
        }
    }
    out
}

fn push_word(w: &str, out: &mut Vec<String>) {
    if let Some(long) = expansion(w) {
        // The long form's words, analysed as a text's would be ("out of
        // memory": "out", "memori"; "two-factor": "two", "factor").
        for part in long.split(|c: char| !c.is_alphanumeric()) {
            if !part.is_empty() && expansion(part).is_none() {
                push_word(part, out);
            }
        }
        return;
    }
    if is_stop_word(w) || w.chars().all(|c| c.is_ascii_digit()) || w.chars().count() < 2 {
        return;
    }
    out.push(stem(w));
}

/// Snowball's English stem of a lower-case word.
pub fn stem(w: &str) -> String {
    STEMMER.stem(w).into_owned()
}

/// A question about what something is or means, not a request to do work:
/// "what does set -euo pipefail mean?", "git rebase 和 merge 有什么区别".
/// Such a prompt needs no rule about doing the work, nor a domain's rules.
///
/// Plain string tests, not a regex: compiling the equivalent pattern was a
/// third of the per-prompt hook's instructions.
pub fn asks_what_something_is(prompt: &str) -> bool {
    const OPENINGS: &[&str] = &[
        "what's the difference",
        "what is the difference",
        "what are the differences",
        "what's the meaning",
        "what is the meaning",
        "what's the point",
        "what is the point",
        "what's the purpose",
        "what is the purpose",
        "what's a ",
        "what's an ",
        "what is a ",
        "what is an ",
        "what does ",
        "why does ",
        "why do ",
        "why is ",
        "why are ",
        "why did ",
        "how does ",
        "explain ",
        "can you explain",
        "could you explain",
        "when should i use",
        "is it true ",
        "is it ok ",
        "is it okay ",
        "is it possible ",
    ];
    const ANYWHERE: &[&str] = &[
        "difference between",
        "what does that mean",
        "what does it mean",
        "what does this mean",
        "what do they mean",
        "有什么区别",
        "什么区别",
        "区别是什么",
        "什么意思",
        "是什么",
        "为什么",
        "怎么理解",
        "用英文怎么说",
    ];
    let lower: String = prompt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    if ANYWHERE.iter().any(|p| lower.contains(p)) {
        return true;
    }
    // "Swift: when should I use a struct?" asks too: one leading word and a
    // colon or comma may come first.
    let start = match lower.split_once([':', ',']) {
        Some((head, rest)) if !head.contains(' ') => rest.trim_start(),
        _ => lower.as_str(),
    };
    OPENINGS
        .iter()
        .any(|o| start.starts_with(o) || lower.starts_with(o))
}

/// How common a word is in everyday English, from its SCOWL size tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commonness {
    /// Among the ~4,000 most common words ("main", "write", "table").
    VeryCommon,
    /// The next ~7,000 ("chart", "migration").
    Common,
    /// Known to a general dictionary ("flaky", "quarantine").
    Known,
}

/// Stems of English words with their SCOWL tier (data/common-words.txt,
/// generated by scripts/common_words.py). Parsed on first use only: the
/// lessons index and the domain cache are written with it; a prompt pays for
/// it only when one of those is stale (a lesson file or a domain.toml edited).
static COMMON_STEMS: LazyLock<std::collections::HashMap<&'static str, Commonness>> =
    LazyLock::new(|| {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/common-words.txt"
        ))
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (stem, tier) = l.split_once('\t')?;
            let c = match tier {
                "10" => Commonness::VeryCommon,
                "20" => Commonness::Common,
                _ => Commonness::Known,
            };
            Some((stem, c))
        })
        .collect()
    });

/// How common the analysed token `term` is in English; None for words a
/// general dictionary lacks ("kubectl", "dockerfil") and for CJK bigrams.
pub fn commonness(term: &str) -> Option<Commonness> {
    COMMON_STEMS.get(term).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn stems_splits_expands_and_drops_filler() {
        assert_eq!(
            tokens("Can you run the migrations before applying them?"),
            ["run", "migrat", "appli"]
        );
        assert_eq!(tokens("Never force-push to main"), ["forc", "push", "main"]);
        assert_eq!(tokens("git push --force"), ["git", "push", "forc"]);
        assert_eq!(tokens("k8s DB"), ["kubernet", "databas"]);
        assert_eq!(tokens("open a PR"), ["open", "pull", "request"]);
        assert_eq!(tokens("snake_case_name"), ["snake", "case", "name"]);
        assert_eq!(
            tokens("帮我写一份需求文档"),
            ["我写", "一份", "份需", "需求", "求文", "文档"]
        );
        assert!(tokens("please help me with this").is_empty());
    }

    #[test]
    fn questions_about_meaning_are_told_from_requests() {
        for q in [
            "what does set -euo pipefail mean?",
            "Swift: when should I use a struct vs a class?",
            "git rebase 和 git merge 到底有什么区别？",
            "explain what a StatefulSet is",
        ] {
            assert!(asks_what_something_is(q), "{q}");
        }
        for r in [
            "write a migration that adds a column",
            "what share of trial users converted last quarter?",
            "帮我把这些改动提交一下",
        ] {
            assert!(!asks_what_something_is(r), "{r}");
        }
    }

    #[test]
    fn commonness_tells_everyday_words_from_jargon() {
        let of = |w: &str| commonness(&stem(w));
        assert_eq!(of("main"), Some(Commonness::VeryCommon));
        assert_eq!(of("table"), Some(Commonness::VeryCommon));
        assert_eq!(of("chart"), Some(Commonness::Common));
        assert_eq!(of("flaky"), Some(Commonness::Known));
        assert_eq!(of("dockerfile"), None);
        assert_eq!(of("kubectl"), None);
        assert_eq!(commonness("需求"), None);
    }
}

//! What a search query asks for, as search understands it: the concepts of
//! the query, each with every form that may stand for it in the text.
//!
//! A person asks questions ("When did we move the billing worker to the new
//! queue?"), so the words that only make it a question (when, did, we, the)
//! go, in English and in Chinese (什么时候, 我们, 吗). Each remaining word is
//! a concept that matches its inflections (move, moved, moving, moves: the
//! forms sharing its Snowball stem) and its synonyms and abbreviations (k8s
//! and Kubernetes, PR and pull request; a shipped table for software work
//! plus `search.synonyms` from config.toml). A Chinese, Japanese or Korean
//! run becomes one concept per bigram (FTS5 indexes those runs as bigrams,
//! see `index::text`).
//!
//! The concepts feed two things: the FTS5 expression (the OR of every form,
//! each a quoted string so no input changes its syntax) and
//! [`Concepts::present`], which says which concepts a candidate's text holds
//! (for the coverage boost and the field weights in `search::rank`).

use std::collections::HashMap;

use crate::memory::words::terms::{Term, bigrams, is_cjk, terms};

/// Words that make a text a question or a request and say nothing about
/// what it is about. Sorted (binary search).
///
/// Not `words::STOP_WORDS`, the lesson matcher's list, on purpose: a search
/// keeps negations and words such as "new", "first" and "use" that can be
/// what the person is looking for, and drops recall words ("remember",
/// "mentioned", "ago") that only lessons never see.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "ago",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "ask",
    "asked",
    "at",
    "back",
    "be",
    "been",
    "before",
    "being",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "during",
    "each",
    "ever",
    "for",
    "from",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "know",
    "let",
    "like",
    "me",
    "mention",
    "mentioned",
    "my",
    "of",
    "on",
    "or",
    "our",
    "ours",
    "please",
    "recall",
    "remember",
    "she",
    "so",
    "some",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "to",
    "us",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

/// Chinese question words and particles, removed from CJK runs (longest
/// first, so 什么时候 goes before 什么).
const CJK_STOP: &[&str] = &[
    "什么时候",
    "为什么",
    "是不是",
    "有没有",
    "怎么样",
    "多少",
    "什么",
    "哪个",
    "哪些",
    "哪里",
    "怎么",
    "如何",
    "是否",
    "何时",
    "我们",
    "你们",
    "他们",
    "她们",
    "关于",
    "一下",
    "请问",
    "吗",
    "呢",
    "吧",
];

/// The synonym groups in force: the shipped ones and the user's.
#[derive(Debug, Clone, Default)]
pub struct Synonyms {
    /// A form (its words, lower-case) → the group it belongs to.
    groups: Vec<Vec<Vec<String>>>,
    by_form: HashMap<Vec<String>, usize>,
    longest: usize,
}

impl Synonyms {
    /// The shipped table plus `extra` (config: a word and the forms that
    /// mean the same).
    pub fn new<'a>(extra: impl IntoIterator<Item = (&'a str, &'a [String])>) -> Synonyms {
        let mut s = Synonyms::default();
        for g in crate::memory::words::SYNONYMS {
            s.add(g.iter().copied());
        }
        for (word, forms) in extra {
            s.add(std::iter::once(word).chain(forms.iter().map(String::as_str)));
        }
        s
    }

    fn add<'a>(&mut self, forms: impl Iterator<Item = &'a str>) {
        let forms: Vec<Vec<String>> = forms.map(words_of).filter(|w| !w.is_empty()).collect();
        // a form already in a group joins the new forms to that group
        let existing = forms.iter().find_map(|f| self.by_form.get(f).copied());
        let gi = existing.unwrap_or_else(|| {
            self.groups.push(Vec::new());
            self.groups.len() - 1
        });
        for f in forms {
            if self.by_form.contains_key(&f) {
                continue;
            }
            self.longest = self.longest.max(f.len());
            self.by_form.insert(f.clone(), gi);
            self.groups[gi].push(f);
        }
    }

    fn group_of(&self, words: &[String]) -> Option<&[Vec<String>]> {
        self.by_form.get(words).map(|g| self.groups[*g].as_slice())
    }
}

fn words_of(s: &str) -> Vec<String> {
    terms(s)
        .into_iter()
        .filter_map(|t| match t {
            Term::Word(w) => Some(w),
            Term::Cjk(_) => None,
        })
        .collect()
}

fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// Snowball's English stem of a lower-case word.
pub fn stem(w: &str) -> String {
    crate::memory::words::stem(w)
}

/// One thing the query asks about, in every form it may take.
#[derive(Debug, Clone, PartialEq)]
pub struct Concept {
    /// Each form as the index's tokens (one word, a phrase of words, or a
    /// CJK bigram).
    pub forms: Vec<Vec<String>>,
    /// The word as the query wrote it (for snippets).
    pub shown: String,
}

impl Concept {
    /// `"form" OR "form two" ...` as quoted FTS5 strings.
    pub fn phrases(&self) -> Vec<String> {
        self.forms.iter().map(|f| quote(&f.join(" "))).collect()
    }
}

/// `s` as an FTS5 string (a phrase when it holds several tokens).
pub fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A query as search understands it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Concepts {
    pub concepts: Vec<Concept>,
    /// The first token of every form → (concept, form), for counting.
    first: HashMap<String, Vec<(usize, usize)>>,
    /// Single CJK characters of the query (quoted), for the last-resort round.
    pub unigrams: Vec<String>,
}

impl Concepts {
    pub fn parse(text: &str, synonyms: &Synonyms) -> Concepts {
        let all = terms(text);
        let has_content = all.iter().any(|t| match t {
            Term::Word(w) => !is_stop_word(w),
            Term::Cjk(_) => true,
        });
        let mut out = Concepts::default();
        // the words in order, for multi-word synonym forms
        let mut words: Vec<String> = Vec::new();
        let flush = |words: &mut Vec<String>, out: &mut Concepts| {
            let mut i = 0;
            while i < words.len() {
                // the longest synonym form starting here
                let mut taken = 0;
                for len in (1..=synonyms.longest.min(words.len() - i)).rev() {
                    if let Some(group) = synonyms.group_of(&words[i..i + len]) {
                        if len == 1 && has_content && is_stop_word(&words[i]) {
                            break;
                        }
                        out.push(Concept {
                            forms: group.iter().map(|f| split_like_fts(f)).collect(),
                            shown: words[i..i + len].join(" "),
                        });
                        taken = len;
                        break;
                    }
                }
                if taken == 0 {
                    let w = &words[i];
                    if !(has_content && is_stop_word(w)) {
                        out.push(word_concept(w));
                    }
                    taken = 1;
                }
                i += taken;
            }
            words.clear();
        };
        for t in all {
            match t {
                Term::Word(w) => words.push(w),
                Term::Cjk(run) => {
                    flush(&mut words, &mut out);
                    for ch in run.chars() {
                        let s = quote(&ch.to_string());
                        if !out.unigrams.contains(&s) {
                            out.unigrams.push(s);
                        }
                    }
                    for piece in cjk_pieces(&run) {
                        for g in bigrams(&piece) {
                            out.push(Concept {
                                forms: vec![vec![g.clone()]],
                                shown: g,
                            });
                        }
                    }
                }
            }
        }
        flush(&mut words, &mut out);
        for (ci, c) in out.concepts.iter().enumerate() {
            for (fi, f) in c.forms.iter().enumerate() {
                if let Some(t) = f.first() {
                    out.first.entry(t.clone()).or_default().push((ci, fi));
                }
            }
        }
        out
    }

    fn push(&mut self, c: Concept) {
        if !self.concepts.iter().any(|x| x.forms == c.forms) {
            self.concepts.push(c);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.concepts.is_empty()
    }

    /// Any form of any of the concepts at `keep`, in the `body` column.
    pub fn or_expr(&self, keep: &[usize]) -> Option<String> {
        let phrases: Vec<String> = keep
            .iter()
            .flat_map(|&i| self.concepts[i].phrases())
            .collect();
        (!phrases.is_empty()).then(|| format!("{{body}} : ({})", phrases.join(" OR ")))
    }

    /// One FTS5 group per concept at `keep` (`("form" OR "form two")`),
    /// without the forms `skip` says to leave out; a concept left with no
    /// form is left out.
    pub fn groups(&self, keep: &[usize], skip: impl Fn(&[String]) -> bool) -> Vec<String> {
        keep.iter()
            .filter_map(|&i| {
                let c = &self.concepts[i];
                let phrases: Vec<String> = c
                    .forms
                    .iter()
                    .filter(|f| !skip(f))
                    .map(|f| quote(&f.join(" ")))
                    .collect();
                (!phrases.is_empty()).then(|| format!("({})", phrases.join(" OR ")))
            })
            .collect()
    }

    /// Any single CJK character, in the `uni` column.
    pub fn unigram_expr(&self) -> Option<String> {
        (!self.unigrams.is_empty()).then(|| format!("{{uni}} : ({})", self.unigrams.join(" OR ")))
    }

    /// Which concepts `text` holds (by stem, or by CJK bigram).
    pub fn present(&self, text: &str) -> Vec<bool> {
        self.counts(text).0.iter().map(|n| *n > 0).collect()
    }

    /// How often `text` holds each concept (any of its forms, as FTS5
    /// would match them: the same tokens, phrases in order), and the text's
    /// length in tokens.
    pub fn counts(&self, text: &str) -> (Vec<u32>, usize) {
        let lower = text.to_lowercase();
        let tokens = index_tokens(&lower);
        let mut counts = vec![0u32; self.concepts.len()];
        for (i, t) in tokens.iter().enumerate() {
            if let Some(list) = self.first.get(*t) {
                for &(ci, fi) in list {
                    let form = &self.concepts[ci].forms[fi];
                    let rest = &tokens[i..];
                    if rest.len() >= form.len() && form.iter().zip(rest).all(|(a, b)| a == b) {
                        counts[ci] += 1;
                    }
                }
            }
        }
        (counts, tokens.len())
    }

    /// The words to look for when cutting a snippet.
    pub fn highlights(&self) -> Vec<String> {
        self.concepts
            .iter()
            .flat_map(|c| c.forms.iter().map(|f| f.join(" ")))
            .collect()
    }
}

/// A lower-cased text's tokens as the index has them: runs of letters and
/// digits, and CJK runs as bigrams (a lone CJK character as itself). Slices
/// of the text: one allocation per text, not per word (this runs over every
/// candidate of every search).
fn index_tokens<'a>(lower: &'a str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut word: Option<usize> = None;
    // byte offsets of the current CJK run's characters
    let mut cjk: Vec<usize> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<usize>, end: usize, out: &mut Vec<&'a str>| {
        match cjk.len() {
            0 => {}
            1 => out.push(&lower[cjk[0]..end]),
            _ => {
                for w in 0..cjk.len() - 1 {
                    let stop = cjk.get(w + 2).copied().unwrap_or(end);
                    out.push(&lower[cjk[w]..stop]);
                }
            }
        }
        cjk.clear();
    };
    for (i, c) in lower.char_indices() {
        if is_cjk(c) {
            if let Some(start) = word.take() {
                out.push(&lower[start..i]);
            }
            cjk.push(i);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, i, &mut out);
            word.get_or_insert(i);
        } else {
            flush_cjk(&mut cjk, i, &mut out);
            if let Some(start) = word.take() {
                out.push(&lower[start..i]);
            }
        }
    }
    flush_cjk(&mut cjk, lower.len(), &mut out);
    if let Some(start) = word {
        out.push(&lower[start..]);
    }
    out
}

/// What FTS5's unicode61 makes of a form: words split at `-`, `_`, etc.
fn split_like_fts(form: &[String]) -> Vec<String> {
    form.iter()
        .flat_map(|w| {
            w.split(|c: char| !c.is_alphanumeric())
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A word and its inflections: the forms an English word may take that
/// share its stem ("move": move, moves, moved, moving, mover...).
fn word_concept(w: &str) -> Concept {
    let parts = split_like_fts(&[w.to_string()]);
    if parts.len() != 1 {
        // "busy_timeout", "force-push": a phrase of its parts
        return Concept {
            forms: vec![parts],
            shown: w.to_string(),
        };
    }
    let s = stem(w);
    let mut forms = vec![w.to_string()];
    if w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()) {
        for v in inflections(&s).into_iter().chain(inflections(w)) {
            if v != w && stem(&v) == s && !forms.contains(&v) {
                forms.push(v);
            }
        }
    }
    Concept {
        forms: forms.into_iter().map(|f| vec![f]).collect(),
        shown: w.to_string(),
    }
}

/// Candidate forms built from a stem or word; only those whose own stem is
/// the same are kept by the caller.
fn inflections(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    for suffix in [
        "", "s", "es", "ed", "d", "ing", "e", "er", "ers", "ion", "ions",
    ] {
        v.push(format!("{s}{suffix}"));
    }
    if let Some(base) = s.strip_suffix('e') {
        v.push(format!("{base}ing"));
        v.push(format!("{base}ed"));
    }
    if let Some(base) = s.strip_suffix('i') {
        for suffix in ["y", "ies", "ied", "ying"] {
            v.push(format!("{base}{suffix}"));
        }
    }
    if let Some(base) = s.strip_suffix('y') {
        for suffix in ["ies", "ied"] {
            v.push(format!("{base}{suffix}"));
        }
    }
    // stop → stopped, stopping
    let b = s.as_bytes();
    if b.len() >= 3 {
        let last = b[b.len() - 1] as char;
        if !"aeiouwxy".contains(last) && "aeiou".contains(b[b.len() - 2] as char) {
            v.push(format!("{s}{last}ed"));
            v.push(format!("{s}{last}ing"));
        }
    }
    v
}

/// A CJK run without its question words and particles, as the pieces
/// between them.
fn cjk_pieces(run: &str) -> Vec<String> {
    let mut pieces = vec![run.to_string()];
    for stop in CJK_STOP {
        pieces = pieces
            .iter()
            .flat_map(|p| p.split(stop).map(str::to_string).collect::<Vec<_>>())
            .filter(|p| !p.is_empty())
            .collect();
    }
    if pieces.is_empty() {
        // only question words: keep the run
        return vec![run.to_string()];
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(q: &str) -> Vec<Vec<String>> {
        Concepts::parse(q, &Synonyms::new([]))
            .concepts
            .into_iter()
            .map(|c| c.forms.into_iter().map(|f| f.join(" ")).collect())
            .collect()
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_question_keeps_its_subject_and_the_inflections_of_its_words() {
        let f = forms("When did we move the billing worker to the new queue?");
        assert_eq!(f.len(), 5, "{f:?}");
        assert!(f[0].contains(&"moved".to_string()) && f[0].contains(&"moving".to_string()));
        assert!(f[1].contains(&"billing".to_string()));
        assert!(f[2].contains(&"workers".to_string()));
        assert_eq!(f[3][0], "new");
        assert!(f[4].contains(&"queues".to_string()));
    }

    #[test]
    fn abbreviations_and_multi_word_forms_match_both_ways() {
        let f = forms("k8s pods and the DB");
        assert!(f[0].contains(&"kubernetes".to_string()), "{f:?}");
        assert!(f[2].contains(&"database".to_string()), "{f:?}");
        let f = forms("open pull request");
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f[1].contains(&"pr".to_string()), "{f:?}");
        let user = vec!["invoicing".to_string(), "accounts receivable".to_string()];
        let s = Synonyms::new([("billing", user.as_slice())]);
        let c = Concepts::parse("billing", &s);
        assert_eq!(c.concepts[0].forms.len(), 3);
        assert_eq!(c.present("Accounts receivable is late"), [true]);
    }

    #[test]
    fn chinese_questions_lose_their_question_words() {
        let c = Concepts::parse("我们什么时候迁移数据库？", &Synonyms::new([]));
        let shown: Vec<&str> = c.concepts.iter().map(|c| c.shown.as_str()).collect();
        assert_eq!(shown, ["迁移", "移数", "数据", "据库"]);
    }

    #[test]
    fn presence_is_by_form_and_phrase() {
        let c = Concepts::parse("moving the pull request", &Synonyms::new([]));
        assert_eq!(c.present("We moved it. Opened a PR."), [true, true]);
        assert_eq!(c.present("pull the request"), [false, false]);
        assert_eq!(c.present("the pull request"), [false, true]);
    }

    #[test]
    fn tokens_are_the_index_tokens() {
        assert_eq!(
            index_tokens("busy_timeout, k8s 数据库 用 a-b"),
            ["busy", "timeout", "k8s", "数据", "据库", "用", "a", "b"]
        );
    }

    #[test]
    fn hostile_input_stays_quoted() {
        let c = Concepts::parse(r#"foo" OR bar* NEAR(x)"#, &Synonyms::new([]));
        let e = c
            .or_expr(&(0..c.concepts.len()).collect::<Vec<_>>())
            .unwrap();
        assert!(e.starts_with("{body} : (\"foo\""), "{e}");
        assert!(!e.contains("bar*"), "{e}");
    }

    #[test]
    fn only_stop_words_still_search() {
        assert_eq!(forms("the who").len(), 2);
        assert!(Concepts::parse("*** ::: \"\"", &Synonyms::new([])).is_empty());
    }
}

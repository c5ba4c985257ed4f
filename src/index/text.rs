//! Turning text into what FTS5 indexes and queries.
//!
//! FTS5's `unicode61` tokenizer splits on spaces and punctuation, which is
//! right for English and wrong for Chinese, Japanese and Korean: a run of
//! Han characters has no spaces, so it would be one giant token and a two
//! character word inside it could never match. So before text reaches FTS5,
//! every CJK run is rewritten as its overlapping bigrams ("数据库设计" →
//! "数据 据库 库设 设计"), and separately as single characters for the
//! low-weight fallback. Queries go through the same rewriting, and every
//! user term is emitted as a quoted FTS5 string, so no user input (quotes,
//! `AND`, `*`, `-`, `:`, parentheses) can change the query's syntax.

/// True for characters of scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF   // Hiragana, Katakana
        | 0x3400..=0x4DBF // CJK Extension A
        | 0x4E00..=0x9FFF // CJK Unified Ideographs
        | 0xAC00..=0xD7AF // Hangul syllables
        | 0xF900..=0xFAFF // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F // Halfwidth Katakana
        | 0x20000..=0x2FA1F // Extensions B–F, compatibility supplement
    )
}

/// Fast check: every CJK character is at least U+3040, whose UTF-8 lead
/// byte is 0xE3 or more, so most text is ruled out byte by byte.
pub fn has_cjk(text: &str) -> bool {
    text.bytes().any(|b| b >= 0xE3) && text.chars().any(is_cjk)
}

/// A word-like character for our own term splitting (letters and digits of
/// any script, plus `_`), matching what unicode61 keeps in a token.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// One unit of a query or document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    /// A word of a spaced script, lower-cased.
    Word(String),
    /// A run of CJK characters.
    Cjk(String),
}

/// Splits text into words and CJK runs.
pub fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk = String::new();
    let flush_word = |w: &mut String, out: &mut Vec<Term>| {
        if !w.is_empty() {
            out.push(Term::Word(w.to_lowercase()));
            w.clear();
        }
    };
    let flush_cjk = |c: &mut String, out: &mut Vec<Term>| {
        if !c.is_empty() {
            out.push(Term::Cjk(std::mem::take(c)));
        }
    };
    for ch in text.chars() {
        if is_cjk(ch) {
            flush_word(&mut word, &mut out);
            cjk.push(ch);
        } else if is_word_char(ch) {
            flush_cjk(&mut cjk, &mut out);
            word.push(ch);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

/// Bigrams of a CJK run; a single character stands for itself.
pub fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < 2 {
        return vec![run.to_string()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// The text stored in the FTS `body` column: CJK runs rewritten as bigrams,
/// everything else as it is (FTS5's tokenizer splits and folds case itself,
/// so text without CJK is passed through untouched).
pub fn index_body(text: &str) -> std::borrow::Cow<'_, str> {
    if !has_cjk(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() * 2);
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if !run.is_empty() {
            out.push(' ');
            out.push_str(&bigrams(run).join(" "));
            out.push(' ');
            run.clear();
        }
    };
    for ch in text.chars() {
        if is_cjk(ch) {
            run.push(ch);
        } else {
            flush(&mut run, &mut out);
            out.push(ch);
        }
    }
    flush(&mut run, &mut out);
    std::borrow::Cow::Owned(out)
}

/// The text stored in the FTS `uni` column: each CJK character once per
/// occurrence, for the single-character fallback.
pub fn index_unigrams(text: &str) -> String {
    if !has_cjk(text) {
        return String::new();
    }
    let mut out = String::new();
    for ch in text.chars().filter(|c| is_cjk(*c)) {
        out.push(ch);
        out.push(' ');
    }
    out
}

/// English words too common to help a search; dropped from queries (unless
/// the query has nothing else).
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "of", "on", "or", "our", "so", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "why", "will", "with", "would", "you", "your",
];

pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// FTS5 string literal: double quotes doubled, the whole thing quoted.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// A search query, already split into safe FTS5 pieces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    /// One quoted FTS5 phrase per term ("word", or "数据 据库" for a CJK run).
    pub phrases: Vec<String>,
    /// The index tokens of each phrase (the word, or the run's bigrams).
    pub tokens: Vec<Vec<String>>,
    /// Single CJK characters of the query, for the fallback.
    pub unigrams: Vec<String>,
}

impl Query {
    pub fn parse(text: &str) -> Query {
        let all = terms(text);
        let has_content = all.iter().any(|t| match t {
            Term::Word(w) => !is_stop_word(w),
            Term::Cjk(_) => true,
        });
        let mut phrases = Vec::new();
        let mut tokens = Vec::new();
        let mut unigrams = Vec::new();
        for t in all {
            match t {
                Term::Word(w) => {
                    if has_content && is_stop_word(&w) {
                        continue;
                    }
                    let q = quote(&w);
                    if !phrases.contains(&q) {
                        phrases.push(q);
                        // what unicode61 will make of it (it splits on `_`, `-`...)
                        tokens.push(
                            w.split(|c: char| !c.is_alphanumeric())
                                .filter(|t| !t.is_empty())
                                .map(str::to_string)
                                .collect(),
                        );
                    }
                }
                Term::Cjk(run) => {
                    for ch in run.chars() {
                        let s = quote(&ch.to_string());
                        if !unigrams.contains(&s) {
                            unigrams.push(s);
                        }
                    }
                    let grams = bigrams(&run);
                    let q = quote(&grams.join(" "));
                    if !phrases.contains(&q) {
                        phrases.push(q);
                        tokens.push(grams);
                    }
                }
            }
        }
        Query {
            phrases,
            tokens,
            unigrams,
        }
    }

    /// The same query with only the phrases at `keep`.
    pub fn select(&self, keep: &[usize]) -> Query {
        Query {
            phrases: keep.iter().map(|&i| self.phrases[i].clone()).collect(),
            tokens: keep.iter().map(|&i| self.tokens[i].clone()).collect(),
            unigrams: self.unigrams.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty()
    }

    /// All terms must match, in the `body` column.
    pub fn and_expr(&self) -> Option<String> {
        (!self.phrases.is_empty()).then(|| format!("{{body}} : ({})", self.phrases.join(" AND ")))
    }

    /// At least two of the terms must match: the OR of every pair, for
    /// queries of three or more terms (the first eight, to bound the size).
    pub fn pairs_expr(&self) -> Option<String> {
        let p: Vec<&String> = self.phrases.iter().take(8).collect();
        if p.len() < 3 {
            return None;
        }
        let mut pairs = Vec::new();
        for i in 0..p.len() {
            for j in i + 1..p.len() {
                pairs.push(format!("({} AND {})", p[i], p[j]));
            }
        }
        Some(format!("{{body}} : ({})", pairs.join(" OR ")))
    }

    /// Any term may match.
    pub fn or_expr(&self) -> Option<String> {
        (self.phrases.len() > 1).then(|| format!("{{body}} : ({})", self.phrases.join(" OR ")))
    }

    /// Any single CJK character may match, in the `uni` column.
    pub fn unigram_expr(&self) -> Option<String> {
        (!self.unigrams.is_empty()).then(|| format!("{{uni}} : ({})", self.unigrams.join(" OR ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(
            index_body("数据库设计 uses SQLite"),
            " 数据 据库 库设 设计  uses SQLite"
        );
        assert_eq!(index_body("用"), " 用 ");
        assert_eq!(index_unigrams("a数据b"), "数 据 ");
        assert_eq!(
            index_body("カタカナ と 한국어"),
            " カタ タカ カナ   と   한국 국어 "
        );
        assert!(matches!(
            index_body("plain text"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(index_unigrams("plain text"), "");
    }

    #[test]
    fn hostile_input_stays_inside_quotes() {
        let q = Query::parse(r#"foo" OR bar* -baz : NEAR(x) AND "#);
        // "or" and "and" are stop words and go; the rest are quoted, so inert
        let want = [r#""foo""#, r#""bar""#, r#""baz""#, r#""near""#, r#""x""#];
        assert_eq!(q.phrases, want);
        let e = q.and_expr().unwrap();
        assert_eq!(
            e,
            r#"{body} : ("foo" AND "bar" AND "baz" AND "near" AND "x")"#
        );
    }

    #[test]
    fn pairs_need_three_terms() {
        assert_eq!(Query::parse("a1 b2").pairs_expr(), None);
        assert_eq!(
            Query::parse("x y z").pairs_expr().unwrap(),
            r#"{body} : (("x" AND "y") OR ("x" AND "z") OR ("y" AND "z"))"#
        );
    }

    #[test]
    fn stop_words_drop_unless_alone() {
        assert_eq!(
            Query::parse("how does the indexer work").phrases,
            vec![r#""indexer""#, r#""work""#]
        );
        assert_eq!(
            Query::parse("the who").phrases,
            vec![r#""the""#, r#""who""#]
        );
    }

    #[test]
    fn chinese_query_is_a_bigram_phrase_with_unigram_fallback() {
        let q = Query::parse("数据库 设计");
        assert_eq!(q.phrases, vec![r#""数据 据库""#, r#""设计""#]);
        assert_eq!(q.unigrams.len(), 5);
        assert!(q.unigram_expr().unwrap().starts_with("{uni} : ("));
    }

    #[test]
    fn empty_and_symbol_only_queries_are_empty() {
        assert!(Query::parse("").is_empty());
        assert!(Query::parse("*** ::: \"\"").is_empty());
    }
}

//! Turning text into what FTS5 indexes and queries.
//!
//! FTS5's `unicode61` tokenizer splits on spaces and punctuation, which is
//! right for English and wrong for Chinese, Japanese and Korean: a run of
//! Han characters has no spaces, so it would be one giant token and a two
//! character word inside it could never match. So before text reaches FTS5,
//! every CJK run is rewritten as its overlapping bigrams ("数据库设计" →
//! "数据 据库 库设 设计"), and separately as single characters for the
//! low-weight fallback. Queries go through the same rewriting in
//! `search::query`, which emits every user term as a quoted FTS5 string, so
//! no user input (quotes, `AND`, `*`, `-`, `:`, parentheses) can change the
//! query's syntax.

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

/// A word-like character for our own term splitting: letters and digits of
/// any script, plus `_`. unicode61 splits at `_` (it keeps letters and
/// digits only); keeping it here holds an identifier such as
/// `busy_timeout` together as one query word, which search then matches as
/// the phrase of its parts (`search::query::split_like_fts`).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

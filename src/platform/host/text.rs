//! Long text kept within a bound, cut at character boundaries: a prompt, a
//! command's output or a transcript's text says most at its start and its
//! end, and hooks must not read megabytes of it. And text in ASCII lower
//! case, for patterns that would otherwise fold case.

use std::borrow::Cow;

/// `text`, or, when it is longer than `head + tail` bytes, its first
/// `head` and last `tail` bytes (each cut at a character boundary) with
/// `between` joining them.
pub fn ends<'a>(text: &'a str, head: usize, tail: usize, between: &str) -> Cow<'a, str> {
    if text.len() <= head + tail {
        return Cow::Borrowed(text);
    }
    let head = floor_boundary(text, head);
    let tail = ceil_boundary(text, text.len() - tail);
    Cow::Owned(format!("{}{between}{}", &text[..head], &text[tail..]))
}

/// The largest character boundary of `text` at or before byte `at`.
pub fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest character boundary of `text` at or after byte `at`.
pub fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// `text` with ASCII letters in lower case, borrowed when it has no
/// capital; every byte stays where it was. A pattern of ASCII words read
/// on it needs no case folding, which made such patterns two to three
/// times slower to build (0.8 ms against 0.3 for the error words), and a
/// hook process builds every pattern it uses anew.
pub fn ascii_lowercase(text: &str) -> Cow<'_, str> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether `text` holds any of `words`: the literals a regex-lite pattern
/// cannot match without, checked first, as regex-lite has no prefilter of
/// its own and its engine steps through every state of a large
/// alternation at every byte (a session start read 53 summary lines for
/// closing words in 1.0 ms of regex-lite against 0.05 ms with this first).
pub fn holds_any(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_are_cut_at_character_boundaries() {
        assert_eq!(ends("short", 4, 4, "\n"), "short");
        // 'é' is two bytes: a cut inside it moves out of it
        assert_eq!(ends("ééé-ééé", 3, 3, " … "), "é … é");
        assert_eq!(floor_boundary("é", 1), 0);
        assert_eq!(floor_boundary("ab", 9), 2);
        assert_eq!(ceil_boundary("é", 1), 2);
        assert_eq!(ceil_boundary("ab", 9), 2);
    }

    #[test]
    fn ascii_lowercase_keeps_every_byte_where_it_was() {
        assert!(matches!(
            ascii_lowercase("no capitals, ünïcode"),
            Cow::Borrowed(_)
        ));
        let s = "Error İn ÜBER: Not Found";
        let lower = ascii_lowercase(s);
        assert_eq!(lower, "error İn Über: not found");
        assert_eq!(lower.len(), s.len());
        let at = lower.find("not found").unwrap();
        assert_eq!(&s[at..], "Not Found");
    }
}

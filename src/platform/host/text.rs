//! Long text kept within a bound, cut at character boundaries: a prompt, a
//! command's output or a transcript's text says most at its start and its
//! end, and hooks must not read megabytes of it.

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
}

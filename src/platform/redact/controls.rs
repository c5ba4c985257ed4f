//! Terminal control characters out of text pms did not author.
//!
//! A transcript holds what passed through a terminal, escape sequences
//! included: colours, a line erase, a window title (OSC 0/2), a clipboard
//! write (OSC 52). Written into lessons.md or the injection, or printed by
//! `pms lessons`, `search` and `get`, they act again on the terminal that
//! shows them: OSC 52 fills the clipboard, a line erase hides what came
//! before it on the line. [`strip`] removes each whole sequence (CSI, OSC,
//! DCS and the other strings, two-character escapes, in their 7-bit and
//! C1 forms) and every other C0 and C1 control, keeping tab, newline and a
//! carriage return before a newline. [`super::redact`] calls it (so it runs
//! on everything pms writes or injects); the commands call it on what they
//! print (`front::cmd`), which covers text stored by older versions too.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

/// `text` without terminal controls; borrowed when it has none.
pub fn strip(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\t' | '\n' => out.push(c),
            '\r' if chars.peek() == Some(&'\n') => out.push(c),
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            // OSC, DCS, SOS, PM, APC: a string up to its terminator
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// True when `text` holds no control but tab, newline and CR LF: no copy,
/// and 64 bytes at a time with a check the compiler vectorises, the exact
/// one only where that finds a suspect byte (the hooks run this on every
/// part they inject).
pub fn is_clean(text: &str) -> bool {
    let b = text.as_bytes();
    let suspect = |x: u8| ((x < 0x20) & (x != b'\n') & (x != b'\t')) | (x == 0x7f) | (x == 0xc2);
    let mut at = 0;
    for chunk in b.chunks(64) {
        if chunk.iter().fold(false, |any, &x| any | suspect(x)) {
            for i in at..at + chunk.len() {
                if suspect(b[i]) && is_control_at(b, i) {
                    return false;
                }
            }
        }
        at += chunk.len();
    }
    true
}

/// Whether the suspect byte at `i` starts a control: CR not before LF,
/// C2 80..C2 9F (U+0080..U+009F, the C1 controls, in UTF-8), any other.
fn is_control_at(b: &[u8], i: usize) -> bool {
    let next = b.get(i + 1).copied();
    match b[i] {
        b'\r' => next != Some(b'\n'),
        0xc2 => next.is_some_and(|n| (0x80..=0x9f).contains(&n)),
        _ => true,
    }
}

/// After ESC: the rest of the sequence it starts. A sequence cut short by
/// a newline or by the end of the text ends there (the newline is kept).
fn skip_escape(chars: &mut Peekable<Chars>) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(chars);
        }
        // nF: intermediates, then one final (`ESC ( B` selects a charset)
        Some(' '..='/') => {
            while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
            chars.next_if(|c| matches!(c, '0'..='~'));
        }
        // two characters: `ESC 7`, `ESC c`, `ESC M`...
        Some('0'..='~') => {
            chars.next();
        }
        _ => {}
    }
}

/// A CSI sequence after its introducer: parameters and intermediates, then
/// one final byte (`m` for colours, `K` for a line erase).
fn skip_csi(chars: &mut Peekable<Chars>) {
    while chars.next_if(|c| matches!(c, ' '..='?')).is_some() {}
    chars.next_if(|c| matches!(c, '@'..='~'));
}

/// A control string (OSC and the like) after its introducer, payload
/// included (an OSC 52 payload is what it would copy): up to BEL, ST
/// (`ESC \` or U+009C), or the end of the line.
fn skip_string(chars: &mut Peekable<Chars>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => return,
            '\u{7}' | '\u{9c}' => {
                chars.next();
                return;
            }
            '\u{1b}' => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_go_whole_and_text_stays() {
        for (text, want) in [
            ("\x1b[32mgreen\x1b[0m text", "green text"),
            ("a\x1b[2Kb", "ab"),
            ("a\x1b[1;31;4mb", "ab"),
            ("\x1b]0;evil title\x07after", "after"),
            ("\x1b]52;c;Z2hwX3NlY3JldA==\x07copied", "copied"),
            ("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"),
            ("\u{9b}31mred\u{9d}2;title\u{9c}!", "red!"),
            ("\x1bPq#0;2;0;0;0\x1b\\after", "after"),
            ("\x1b(Bcharset \x1b7saved \x1bcreset", "charset saved reset"),
            (
                "bell\x07 nul\0 bs\x08 del\x7f c1\u{85}",
                "bell nul bs del c1",
            ),
            (
                "unterminated \x1b]0;title\nnext line",
                "unterminated \nnext line",
            ),
            ("lone escape at the end\x1b", "lone escape at the end"),
            ("progress 10%\r20%\r\n", "progress 10%20%\r\n"),
        ] {
            assert_eq!(strip(text), want, "{text:?}");
        }
    }

    #[test]
    fn clean_text_is_borrowed_and_kept_byte_for_byte() {
        for text in [
            "plain",
            "tabs\tand\nnewlines\r\nand CRLF",
            "non-ASCII é ü 中文 ½ © ° nbsp\u{a0} U+00BF ¿",
            "written-out escapes stay text: \\x1b[32m \\u001b \\n \\e",
            "",
        ] {
            assert!(is_clean(text), "{text:?}");
            assert!(matches!(strip(text), Cow::Borrowed(t) if t == text));
        }
        for text in ["\x1b", "a\rb", "\u{9b}", "\u{80}", "\x00", "\x7f", "x\r"] {
            assert!(!is_clean(text), "{text:?}");
        }
    }
}

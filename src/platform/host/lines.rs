//! Reading a file line by line without ever holding more than a bound of
//! it. `BufRead::read_until` keeps a whole line in memory however long it
//! is: a 3 GB transcript of NUL bytes with no newline made a Stop hook ask
//! for 4 GB and abort (exit 134, nothing logged), and one 200 MB line cost
//! the hooks and `pms index` about 1 GB. [`next_line`] keeps at most
//! [`MAX_LINE`] bytes of a line; a longer one is passed over, counted, and
//! never held whole.

use std::io::{self, BufRead};

/// The longest line kept. Claude Code's longest lines carry an image as
/// base64 (the API takes at most 5 MB per image) or a large tool result;
/// 16 MB holds those with room, and a line longer than this is no
/// conversation anyone reads.
pub const MAX_LINE: usize = 16 << 20;

/// What [`next_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// A line ending in `\n` is in the buffer (the newline included); the
    /// number is the bytes consumed.
    Line(usize),
    /// A line longer than the bound was passed over (the buffer is
    /// empty); the number is the bytes consumed, its newline included when
    /// it had one.
    TooLong(u64),
    /// The input ends with a line that has no newline yet (a writer may
    /// still be adding to it); it is in the buffer, not consumed from the
    /// caller's point of view: the number is its length.
    Unfinished(usize),
    /// Nothing more to read.
    End,
}

/// Reads the next line of `input` into `buf` (cleared first), keeping at
/// most `max` bytes of it. An unfinished last line longer than `max` counts
/// as too long: it is consumed, so a reader that comes back later starts
/// after it instead of reading it again.
pub fn next_line(input: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> io::Result<LineRead> {
    buf.clear();
    let mut skipped: u64 = 0;
    let mut too_long = false;
    loop {
        let available = match input.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if too_long {
                LineRead::TooLong(skipped)
            } else if buf.is_empty() {
                LineRead::End
            } else {
                LineRead::Unfinished(buf.len())
            });
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if !too_long && buf.len() + chunk <= max {
            buf.extend_from_slice(&available[..chunk]);
        } else {
            too_long = true;
            skipped += buf.len() as u64 + chunk as u64;
            buf.clear();
            buf.shrink_to(64 << 10);
        }
        input.consume(chunk);
        if done {
            return Ok(if too_long {
                LineRead::TooLong(skipped)
            } else {
                LineRead::Line(buf.len())
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor};

    fn all(input: &[u8], max: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = BufReader::with_capacity(4, Cursor::new(input.to_vec()));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let got = next_line(&mut r, &mut buf, max).unwrap();
            out.push((got, buf.clone()));
            if matches!(got, LineRead::End | LineRead::Unfinished(_)) {
                return out;
            }
            if matches!(got, LineRead::TooLong(_)) && r.fill_buf().unwrap().is_empty() {
                return out;
            }
        }
    }

    #[test]
    fn lines_within_the_bound_are_kept_and_longer_ones_passed_over() {
        let got = all(b"ab\n0123456789\ncd\ntail", 6);
        assert_eq!(got[0], (LineRead::Line(3), b"ab\n".to_vec()));
        assert_eq!(got[1], (LineRead::TooLong(11), Vec::new()));
        assert_eq!(got[2], (LineRead::Line(3), b"cd\n".to_vec()));
        assert_eq!(got[3], (LineRead::Unfinished(4), b"tail".to_vec()));
    }

    #[test]
    fn an_unfinished_line_over_the_bound_is_consumed_not_held() {
        let got = all(&[0u8; 100], 10);
        assert_eq!(got, vec![(LineRead::TooLong(100), Vec::new())]);
        assert_eq!(all(b"", 10), vec![(LineRead::End, Vec::new())]);
    }
}

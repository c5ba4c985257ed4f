//! A top-level JSON array of objects read one element at a time, in bounded
//! memory: the exports' `conversations.json` runs to gigabytes on one line.
//!
//! The splitter only tracks strings, escapes and nesting to find where each
//! element ends (inside strings it jumps with `memchr2`), and hands the
//! element's bytes to serde: memory is one read buffer plus the largest
//! element. It knows where it is, so a file cut short is reported as such,
//! with the element and the byte it started at.

use std::io::{self, Read};

/// Read buffer: large enough that most elements are whole in it.
const BUF: usize = 1 << 20;

#[derive(Debug)]
pub enum SplitError {
    Io(io::Error),
    /// Not an array of objects: what was found instead, and where.
    Shape {
        offset: u64,
        what: String,
    },
    /// The input ended inside element `index` (0-based), which started at
    /// byte `offset`, or before the array's closing `]`.
    Truncated {
        index: usize,
        offset: u64,
    },
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SplitError::Io(e) => write!(f, "{e}"),
            SplitError::Shape { offset, what } => write!(f, "{what} (byte {offset})"),
            SplitError::Truncated { index, offset } => write!(
                f,
                "the file ends in the middle of item {} (which starts at byte {offset}): it is cut short",
                index + 1
            ),
        }
    }
}

/// One element: its position in the array (0-based), the byte it starts
/// at, and its bytes.
pub struct Element<'a> {
    pub index: usize,
    pub offset: u64,
    pub bytes: &'a [u8],
}

pub struct Elements<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Bytes of the input before `buf[0]`.
    base: u64,
    state: State,
    index: usize,
    /// The current element, when it runs over a buffer refill.
    spill: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    /// Inside the array, before an element (or its closing bracket).
    First,
    /// After an element: a comma or the closing bracket.
    Between,
    Done,
}

impl<R: Read> Elements<R> {
    pub fn new(reader: R) -> Self {
        Elements {
            reader,
            buf: vec![0; BUF],
            pos: 0,
            end: 0,
            base: 0,
            state: State::Start,
            index: 0,
            spill: Vec::new(),
        }
    }

    /// Bytes of the input consumed so far.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Refills the buffer once everything in it is consumed; false at the end.
    fn fill(&mut self) -> Result<bool, SplitError> {
        debug_assert_eq!(self.pos, self.end);
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.reader.read(&mut self.buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(SplitError::Io(e)),
            }
        }
    }

    /// The next byte that is not white space (not consumed), or None at the end.
    fn peek_token(&mut self) -> Result<Option<u8>, SplitError> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !b.is_ascii_whitespace() {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    fn shape(&self, what: impl Into<String>) -> SplitError {
        SplitError::Shape {
            offset: self.offset(),
            what: what.into(),
        }
    }

    /// The next element, or None after the closing bracket.
    pub fn next_element(&mut self) -> Result<Option<Element<'_>>, SplitError> {
        loop {
            match self.state {
                State::Done => return Ok(None),
                State::Start => {
                    // a byte-order mark, as some tools write
                    if self.pos == self.end && !self.fill()? {
                        return Err(self.shape("the file is empty, not a JSON array"));
                    }
                    for b in *b"\xEF\xBB\xBF" {
                        if self.pos == self.end && !self.fill()? {
                            break;
                        }
                        if self.buf[self.pos] != b {
                            break;
                        }
                        self.pos += 1;
                    }
                    match self.peek_token()? {
                        Some(b'[') => {
                            self.pos += 1;
                            self.state = State::First;
                        }
                        Some(_) => {
                            return Err(
                                self.shape("it is not a JSON array: it should start with '['")
                            );
                        }
                        None => return Err(self.shape("the file is empty, not a JSON array")),
                    }
                }
                State::First | State::Between => match self.peek_token()? {
                    None => {
                        return Err(SplitError::Truncated {
                            index: self.index,
                            offset: self.offset(),
                        });
                    }
                    Some(b']') => {
                        self.pos += 1;
                        self.state = State::Done;
                        if self.peek_token()?.is_some() {
                            return Err(self.shape("there is more after the array's closing ']'"));
                        }
                        return Ok(None);
                    }
                    Some(b',') if self.state == State::Between => {
                        self.pos += 1;
                        self.state = State::First;
                    }
                    Some(b'{') if self.state == State::First => {
                        self.state = State::Between;
                        return self.object();
                    }
                    Some(_) if self.state == State::Between => {
                        return Err(
                            self.shape(format!("',' or ']' expected after item {}", self.index))
                        );
                    }
                    Some(b) => {
                        return Err(self.shape(format!(
                            "item {} is not a JSON object (found {:?})",
                            self.index + 1,
                            b as char
                        )));
                    }
                },
            }
        }
    }

    /// Scans the object starting at `pos` to its closing brace.
    fn object(&mut self) -> Result<Option<Element<'_>>, SplitError> {
        let offset = self.offset();
        let index = self.index;
        self.index += 1;
        self.spill.clear();
        let mut start = self.pos;
        let mut depth: u32 = 0;
        let mut in_string = false;
        let mut escaped = false;
        loop {
            if self.pos == self.end {
                self.spill.extend_from_slice(&self.buf[start..self.end]);
                if !self.fill()? {
                    return Err(SplitError::Truncated { index, offset });
                }
                start = 0;
            }
            let buf = &self.buf[..self.end];
            let mut i = self.pos;
            let mut closed = false;
            while i < buf.len() {
                if escaped {
                    escaped = false;
                    i += 1;
                    continue;
                }
                if in_string {
                    match memchr::memchr2(b'"', b'\\', &buf[i..]) {
                        None => i = buf.len(),
                        Some(k) => {
                            i += k;
                            if buf[i] == b'\\' {
                                escaped = true;
                            } else {
                                in_string = false;
                            }
                            i += 1;
                        }
                    }
                    continue;
                }
                match buf[i] {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            closed = true;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            self.pos = i;
            if closed {
                let bytes = if self.spill.is_empty() {
                    &self.buf[start..self.pos]
                } else {
                    self.spill.extend_from_slice(&self.buf[start..self.pos]);
                    &self.spill[..]
                };
                return Ok(Some(Element {
                    index,
                    offset,
                    bytes,
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `text` through a reader that hands out `step` bytes at a time,
    /// so elements cross buffer refills anywhere.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(self.data.len()).min(out.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn split(text: &str, step: usize) -> Result<Vec<(usize, u64, String)>, String> {
        let mut it = Elements::new(Trickle {
            data: text.as_bytes(),
            step,
        });
        let mut out = Vec::new();
        loop {
            match it.next_element() {
                Ok(Some(e)) => out.push((
                    e.index,
                    e.offset,
                    String::from_utf8(e.bytes.to_vec()).unwrap(),
                )),
                Ok(None) => return Ok(out),
                Err(e) => return Err(e.to_string()),
            }
        }
    }

    #[test]
    fn elements_come_whole_wherever_the_reads_cut() {
        let text =
            "\u{feff} [ {\"a\": \"x}\\\"]{\", \"b\": [1, {\"c\": 2}]} ,\n{\"d\":\"\\\\\"}, {}]\n";
        for step in [1, 2, 3, 7, 1 << 20] {
            let got = split(text, step).unwrap();
            let bodies: Vec<&str> = got.iter().map(|(_, _, b)| b.as_str()).collect();
            assert_eq!(
                bodies,
                [
                    "{\"a\": \"x}\\\"]{\", \"b\": [1, {\"c\": 2}]}",
                    "{\"d\":\"\\\\\"}",
                    "{}"
                ],
                "step {step}"
            );
            for (_, _, b) in &got {
                serde_json::from_str::<serde_json::Value>(b).unwrap();
            }
            assert_eq!(got[0].1, 6, "offset after the mark and the bracket");
        }
        assert_eq!(split("[]", 1).unwrap(), []);
    }

    #[test]
    fn a_file_cut_short_says_where() {
        let err = split("[{\"a\": 1}, {\"b\": \"unfinished", 4).unwrap_err();
        assert!(
            err.contains("middle of item 2 (which starts at byte 11)"),
            "{err}"
        );
        let err = split("[{\"a\": 1},", 4).unwrap_err();
        assert!(err.contains("item 2"), "{err}");
        for (text, want) in [
            ("", "empty"),
            ("{\"a\": 1}", "not a JSON array"),
            ("[1, 2]", "item 1 is not a JSON object"),
            ("[{}] {}", "more after"),
            ("[{} {}]", "',' or ']' expected after item 1"),
        ] {
            let err = split(text, 3).unwrap_err();
            assert!(err.contains(want), "{text}: {err}");
        }
    }
}

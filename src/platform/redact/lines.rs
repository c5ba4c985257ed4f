//! Redaction line by line, for readers that show a range of a file.

use std::borrow::Cow;

use super::redact;

/// Redaction one line at a time, for readers that show a range of a file:
/// a private key block spans lines, so a range that starts inside one must
/// still hide it. Feed every line from the top (the ones before the range
/// too); each comes back redacted, the line count unchanged.
#[derive(Debug, Default)]
pub struct Lines {
    in_private_key: bool,
    in_private_span: bool,
    /// Lines of a PuTTY key's private part still to come.
    putty_private_lines: usize,
    /// In a `.netrc` entry (a `machine` line, then its `login`, `password`
    /// lines).
    in_netrc_entry: bool,
}

impl Lines {
    pub fn line<'a>(&mut self, line: &'a str) -> Cow<'a, str> {
        // ASCII lower-casing keeps byte offsets: `<Private>` is found too.
        let lower = line.to_ascii_lowercase();
        if self.in_private_span {
            if let Some(i) = lower.find("</private>") {
                self.in_private_span = false;
                return Cow::Owned(format!("[private]{}", redact(&line[i + 10..])));
            }
            return Cow::Borrowed("[private]");
        }
        if self.in_private_key {
            if line.contains("-----END") && line.contains("PRIVATE KEY") {
                self.in_private_key = false;
            }
            return Cow::Borrowed("[REDACTED:private-key]");
        }
        if self.putty_private_lines > 0 {
            if is_base64_line(line) {
                self.putty_private_lines -= 1;
                return Cow::Borrowed("[REDACTED:putty-private-key]");
            }
            self.putty_private_lines = 0;
        }
        if let Some(n) = line
            .trim()
            .get(..14)
            .filter(|h| h.eq_ignore_ascii_case("private-lines:"))
            .and_then(|_| line.trim()[14..].trim().parse::<usize>().ok())
        {
            self.putty_private_lines = n;
        }
        if let Some(netrc) = netrc_line(line) {
            let starts_entry = matches!(netrc.first, "machine" | "default");
            if (starts_entry || self.in_netrc_entry) && !netrc.passwords.is_empty() {
                self.in_netrc_entry = true;
                let mut out = String::with_capacity(line.len());
                let mut at = 0;
                for (start, end) in netrc.passwords {
                    out.push_str(&redact(&line[at..start]));
                    out.push_str("[REDACTED:netrc-password]");
                    at = end;
                }
                out.push_str(&redact(&line[at..]));
                return Cow::Owned(out);
            }
            self.in_netrc_entry = starts_entry || self.in_netrc_entry;
        } else {
            self.in_netrc_entry = false;
        }
        if let Some(b) = line.find("-----BEGIN")
            && line[b..].contains("PRIVATE KEY")
        {
            // open unless the same line also ends the block
            let rest = &line[b + 10..];
            self.in_private_key = !rest
                .find("-----END")
                .is_some_and(|e| rest[e..].contains("PRIVATE KEY"));
        }
        if let Some(start) = lower.find("<private>")
            && !lower[start..].contains("</private>")
        {
            self.in_private_span = true;
            return Cow::Owned(format!("{}[private]", redact(&line[..start])));
        }
        redact(line)
    }
}

/// A line of base64 (a PuTTY key's body).
fn is_base64_line(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// A `.netrc` line: its first word (lower case) and where its password
/// values are.
struct NetrcLine {
    first: &'static str,
    passwords: Vec<(usize, usize)>,
}

/// `line` read as `.netrc` words (`keyword value` pairs, `default` alone);
/// None when any word is out of place, as in prose.
fn netrc_line(line: &str) -> Option<NetrcLine> {
    const KEYWORDS: &[&str] = &["machine", "default", "login", "password", "account", "port"];
    let mut words = line
        .split_ascii_whitespace()
        .map(|w| (w, w.as_ptr() as usize - line.as_ptr() as usize));
    let mut first = None;
    let mut passwords = Vec::new();
    while let Some((word, _)) = words.next() {
        let keyword = KEYWORDS
            .iter()
            .find(|k| word.eq_ignore_ascii_case(k))
            .copied()?;
        first.get_or_insert(keyword);
        if keyword == "default" {
            continue;
        }
        let (value, start) = words.next()?;
        if keyword == "password" {
            passwords.push((start, start + value.len()));
        }
    }
    Some(NetrcLine {
        first: first?,
        passwords,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn each_line(text: &str) -> Vec<String> {
        let mut l = Lines::default();
        text.lines().map(|x| l.line(x).into_owned()).collect()
    }

    #[test]
    fn a_netrc_entry_over_several_lines_hides_its_password() {
        let out = each_line(
            "# ~/.netrc\nmachine git.example.com\n  login deploy\n  password Wq8vLr2NbX5tKe9Mz3\nmachine h2 login me password 0zlp6pF0eU6OKPfN1B\nafter",
        );
        assert_eq!(
            out,
            [
                "# ~/.netrc",
                "machine git.example.com",
                "  login deploy",
                "  password [REDACTED:netrc-password]",
                "machine h2 login me password [REDACTED:netrc-password]",
                "after",
            ]
        );
        // prose is not an entry, even on the line after one
        let prose = "machine learning is fun\npassword reset links expire";
        assert_eq!(each_line(prose), prose.lines().collect::<Vec<_>>());
        let after_entry = "machine h login me\nthe password was rotated";
        assert_eq!(
            each_line(after_entry),
            after_entry.lines().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_putty_key_hides_its_private_lines_only() {
        let ppk = "PuTTY-User-Key-File-3: ssh-rsa\nPublic-Lines: 1\nAAAAB3NzaC1yc2EAAAADAQABAAAAgQC7\nPrivate-Lines: 2\nB3MAtQhDp8kF3ONfqnZlVAvcx4g4gCJzm4UQAYyubSEzPW8RiFjgqg+l5nrN+QWR\ni/SU9M+yCECSnNLvZ+I1Hdxo7fh5EHm\nPrivate-MAC: 5f1c0b6d\nAAAA after the key";
        let out = each_line(ppk);
        assert_eq!(out.len(), 8);
        assert_eq!(out[2], "AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7", "public");
        assert_eq!(out[3], "Private-Lines: 2");
        assert_eq!(out[4], "[REDACTED:putty-private-key]");
        assert_eq!(out[5], "[REDACTED:putty-private-key]");
        assert_eq!(out[6], "Private-MAC: 5f1c0b6d");
        assert_eq!(out[7], "AAAA after the key");
    }

    #[test]
    fn terminal_controls_go_line_by_line_too() {
        assert_eq!(each_line("\x1b]0;title\x07a\n\x1b[31mb\x1b[0m"), ["a", "b"]);
    }
}

//! Pieces of the Markdown notes an import writes: the front matter that
//! holds an item's provenance, file names made from titles, one-line text.

/// A YAML front matter block of `fields` (in order; empty values left out).
/// A value is written plain when that is unambiguous, else as a quoted
/// string (JSON's quoting is valid YAML).
pub fn front_matter(fields: &[(&str, String)]) -> String {
    let mut out = String::from("---\n");
    for (k, v) in fields {
        if v.is_empty() {
            continue;
        }
        out.push_str(k);
        out.push_str(": ");
        out.push_str(&yaml_value(v));
        out.push('\n');
    }
    out.push_str("---\n");
    out
}

fn yaml_value(v: &str) -> String {
    let plain = v.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:@+-".contains(c))
        && !v.ends_with(':');
    if plain {
        v.to_string()
    } else {
        serde_json::to_string(v).expect("a string serialises")
    }
}

/// Lower-case ASCII letters and digits joined by `-`, at most `max` bytes:
/// a file name made from a title or a project. Redacted first: a name is
/// written to the ledger, the index and search hits, and the first 40
/// letters of a token pasted into a prompt are most of it.
pub fn slug(s: &str, max: usize) -> String {
    let s = crate::platform::redact::redact(s);
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= max {
            break;
        }
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "untitled".into()
    } else {
        out
    }
}

/// `s` on one line (white space collapsed), at most `max` characters,
/// with `…` when cut.
pub fn shorten(s: &str, max: usize) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", one[..i].trim_end()),
        None => one,
    }
}

/// A short stable suffix for `key`, to keep two items with the same title
/// apart: 8 hex digits of its hash.
pub fn short_hash(key: &str) -> String {
    format!("{:08x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_quotes_only_what_needs_it() {
        let fm = front_matter(&[
            ("source", "claude-mem".into()),
            ("title", "Walk: the tree".into()),
            ("empty", String::new()),
            ("date", "2026-11-26T13:50:48.059Z".into()),
        ]);
        assert_eq!(
            fm,
            "---\nsource: claude-mem\ntitle: \"Walk: the tree\"\ndate: 2026-11-26T13:50:48.059Z\n---\n"
        );
    }

    #[test]
    fn slugs_and_shortening() {
        assert_eq!(slug("Import Design (v2)!", 40), "import-design-v2");
        assert_eq!(slug("数据库", 40), "untitled");
        assert_eq!(slug("a very long title indeed", 10), "a-very-lon");
        let token = format!("ghp_{}", "Zq7".repeat(12));
        let named = slug(&format!("rotate {token}"), 40);
        assert!(
            named.starts_with("rotate-") && !named.contains("zq7"),
            "{named}"
        );
        assert_eq!(shorten("one\n two   three", 7), "one two…");
        assert_eq!(short_hash("x").len(), 8);
    }
}

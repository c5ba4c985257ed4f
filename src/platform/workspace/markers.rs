//! Sections of a markdown file that pms manages, between HTML-comment
//! markers. Claude Code strips block-level HTML comments before the model
//! reads a CLAUDE.md, so the markers cost nothing, and everything outside
//! them is the user's and is never rewritten.

use std::ops::Range;

/// A begin/end marker pair.
#[derive(Debug, Clone, Copy)]
pub struct Markers {
    pub begin: &'static str,
    pub end: &'static str,
}

/// The block pms owns in the workspace's root CLAUDE.md.
pub const ROOT_BLOCK: Markers = Markers {
    begin: "<!-- pms:begin (managed by pms: `pms upgrade` refreshes this block; write your own notes outside it) -->",
    end: "<!-- pms:end -->",
};

/// The section of lessons.md or a domain CLAUDE.md holding promoted rules.
pub const LESSONS: Markers = Markers {
    begin: "<!-- pms:lessons:begin (rules promoted by pms; edit them with `pms lessons`) -->",
    end: "<!-- pms:lessons:end -->",
};

/// Retired rules, kept for the record.
pub const LESSONS_ARCHIVE: Markers = Markers {
    begin: "<!-- pms:lessons-archive:begin -->",
    end: "<!-- pms:lessons-archive:end -->",
};

fn prefix_of(marker: &str) -> &str {
    // Match on the stable start of the marker ("<!-- pms:begin"), so a
    // future wording of the comment is still recognised.
    let end = marker.find(" (").unwrap_or(marker.len() - 4);
    &marker[..end]
}

/// Byte range of the text between the markers (exclusive of both).
pub fn inner_range(text: &str, m: Markers) -> Option<Range<usize>> {
    let b = text.find(prefix_of(m.begin))?;
    let after_begin = b + text[b..].find("-->")? + 3;
    let e = after_begin + text[after_begin..].find(m.end)?;
    Some(after_begin..e)
}

/// The text between the markers, if both are present.
pub fn inner(text: &str, m: Markers) -> Option<&str> {
    inner_range(text, m).map(|r| &text[r])
}

/// `text` with the inner part replaced (markers normalised to the current
/// wording), or None when the markers are missing.
pub fn replace_inner(text: &str, m: Markers, new_inner: &str) -> Option<String> {
    let r = inner_range(text, m)?;
    let b = text.find(prefix_of(m.begin))?;
    let mut out = String::with_capacity(text.len() + new_inner.len());
    out.push_str(&text[..b]);
    out.push_str(m.begin);
    out.push_str(new_inner);
    out.push_str(&text[r.end..]);
    Some(out)
}

/// A whole block: begin marker, inner text, end marker.
pub fn block(m: Markers, inner: &str) -> String {
    format!("{}{}{}", m.begin, inner, m.end)
}

/// `text` with a new block appended after a blank line.
pub fn append_block(text: &str, m: Markers, inner: &str) -> String {
    let mut out = text.trim_end().to_string();
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(&block(m, inner));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_keeps_text_around_the_block() {
        let text = format!(
            "# Mine\nkeep me\n{}\nold\n{}\nafter\n",
            ROOT_BLOCK.begin, ROOT_BLOCK.end
        );
        let out = replace_inner(&text, ROOT_BLOCK, "\nnew\n").unwrap();
        assert!(out.starts_with("# Mine\nkeep me\n"));
        assert!(out.ends_with("after\n"));
        assert_eq!(inner(&out, ROOT_BLOCK), Some("\nnew\n"));
    }

    #[test]
    fn older_marker_wording_is_recognised() {
        let text = "a\n<!-- pms:begin (old words) -->\nx\n<!-- pms:end -->\n";
        assert_eq!(inner(text, ROOT_BLOCK), Some("\nx\n"));
        let out = replace_inner(text, ROOT_BLOCK, "\ny\n").unwrap();
        assert!(out.contains(ROOT_BLOCK.begin));
    }

    #[test]
    fn lessons_markers_do_not_match_the_archive() {
        let text = format!("{}\nold\n{}\n", LESSONS_ARCHIVE.begin, LESSONS_ARCHIVE.end);
        assert_eq!(inner(&text, LESSONS), None);
    }

    #[test]
    fn append_to_user_file() {
        let out = append_block("# Notes\n\n\n", ROOT_BLOCK, "\nhi\n");
        assert!(out.starts_with("# Notes\n\n<!-- pms:begin"));
        assert_eq!(inner(&out, ROOT_BLOCK), Some("\nhi\n"));
    }
}

//! Cutting markdown into chunks for the index: by heading first, then by
//! paragraph up to a target size, each chunk repeating the last lines of the
//! one before (the overlap) so a passage cut in two is still found whole.
//! Every chunk knows its heading path and its 1-based line range, so a hit
//! can point at the lines it came from.

/// A piece of a markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdChunk {
    /// "Title > Section > Subsection".
    pub heading: String,
    pub line_start: usize,
    pub line_end: usize,
    pub text: String,
}

/// Chunks `text` into pieces of about `target` characters with about
/// `overlap` characters repeated between neighbours.
pub fn chunk_markdown(text: &str, target: usize, overlap: usize) -> Vec<MdChunk> {
    let lines = visible_lines(text);
    let mut out = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut section: Vec<(usize, &str)> = Vec::new();
    let mut in_fence = false;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some((level, title)) = heading_of(line) {
            flush_section(&section, &headings, target, overlap, &mut out);
            section.clear();
            headings.retain(|(l, _)| *l < level);
            headings.push((level, title));
            section.push((i + 1, line));
            continue;
        }
        section.push((i + 1, line));
    }
    flush_section(&section, &headings, target, overlap, &mut out);
    out
}

/// Lines with HTML comments blanked (they are markers and template notes,
/// not content), keeping the line count so line numbers stay true.
fn visible_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_comment = false;
    for line in text.lines() {
        let t = line.trim();
        if in_comment {
            if t.contains("-->") {
                in_comment = false;
            }
            out.push("");
            continue;
        }
        if t.starts_with("<!--") {
            if !t.contains("-->") {
                in_comment = true;
            }
            out.push("");
            continue;
        }
        out.push(line);
    }
    out
}

fn heading_of(line: &str) -> Option<(usize, String)> {
    let level = line.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&level) && line[level..].starts_with(' ') {
        Some((
            level,
            line[level..]
                .trim()
                .trim_end_matches('#')
                .trim()
                .to_string(),
        ))
    } else {
        None
    }
}

fn flush_section(
    section: &[(usize, &str)],
    headings: &[(usize, String)],
    target: usize,
    overlap: usize,
    out: &mut Vec<MdChunk>,
) {
    if section.iter().all(|(_, l)| l.trim().is_empty()) {
        return;
    }
    let heading = headings
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join(" > ");
    // Paragraphs: runs of non-blank lines.
    let mut paragraphs: Vec<Vec<(usize, &str)>> = Vec::new();
    let mut cur = Vec::new();
    for &(n, l) in section {
        if l.trim().is_empty() {
            if !cur.is_empty() {
                paragraphs.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push((n, l));
        }
    }
    if !cur.is_empty() {
        paragraphs.push(cur);
    }
    let mut chunk: Vec<(usize, &str)> = Vec::new();
    let mut size = 0usize;
    for para in paragraphs {
        let para_size: usize = para.iter().map(|(_, l)| l.len() + 1).sum();
        if size > 0 && size + para_size > target {
            let tail = emit(&chunk, &heading, overlap, out);
            size = tail.iter().map(|(_, l)| l.len() + 1).sum();
            chunk = tail;
        }
        for line in para {
            // A paragraph larger than the target is cut at line boundaries
            // (but never right after a heading, which would stand alone).
            let only_heading = chunk.iter().all(|(_, l)| heading_of(l).is_some());
            if size > 0 && !only_heading && size + line.1.len() > target * 2 {
                let tail = emit(&chunk, &heading, overlap, out);
                size = tail.iter().map(|(_, l)| l.len() + 1).sum();
                chunk = tail;
            }
            size += line.1.len() + 1;
            chunk.push(line);
        }
    }
    if !chunk.is_empty() {
        emit(&chunk, &heading, overlap, out);
    }
}

/// Pushes a chunk and returns its last lines (up to `overlap` characters) to
/// start the next one with.
fn emit<'a>(
    lines: &[(usize, &'a str)],
    heading: &str,
    overlap: usize,
    out: &mut Vec<MdChunk>,
) -> Vec<(usize, &'a str)> {
    let text = lines.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
    let candidate = MdChunk {
        heading: heading.to_string(),
        line_start: lines.first().map(|l| l.0).unwrap_or(1),
        line_end: lines.last().map(|l| l.0).unwrap_or(1),
        text,
    };
    // A chunk that is only the overlap of the previous one adds nothing.
    if out.last().is_none_or(|prev: &MdChunk| {
        !(prev.line_end >= candidate.line_end && prev.heading == candidate.heading)
    }) {
        out.push(candidate);
    }
    let mut tail = Vec::new();
    let mut size = 0;
    for &(n, l) in lines.iter().rev() {
        if size + l.len() > overlap || tail.len() + 1 >= lines.len() {
            break;
        }
        size += l.len() + 1;
        tail.push((n, l));
    }
    tail.reverse();
    tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_make_sections_with_paths_and_line_ranges() {
        let md = "# Guide\nintro line\n\n## Setup\nstep one\nstep two\n\n## Use\nrun it\n";
        let chunks = chunk_markdown(md, 1000, 0);
        let got: Vec<(&str, usize, usize)> = chunks
            .iter()
            .map(|c| (c.heading.as_str(), c.line_start, c.line_end))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Guide", 1, 2),
                ("Guide > Setup", 4, 6),
                ("Guide > Use", 8, 9)
            ]
        );
        assert_eq!(chunks[1].text, "## Setup\nstep one\nstep two");
    }

    #[test]
    fn long_sections_split_by_paragraph_with_overlap() {
        let para = |n: usize| format!("paragraph {n} {}", "word ".repeat(30));
        let md = (0..6).map(para).collect::<Vec<_>>().join("\n\n");
        let chunks = chunk_markdown(&md, 400, 200);
        assert!(chunks.len() >= 3, "{}", chunks.len());
        for w in chunks.windows(2) {
            assert!(w[1].line_start <= w[0].line_end, "neighbours overlap");
        }
        assert_eq!(chunks.last().unwrap().line_end, 11);
        assert!(chunks.iter().all(|c| c.text.len() <= 800 + 200));
    }

    #[test]
    fn comments_are_not_content_but_keep_line_numbers() {
        let md = "# T\n<!-- pms:lessons:begin -->\n- rule one\n<!--\nmulti\n-->\nafter\n";
        let chunks = chunk_markdown(md, 1000, 0);
        assert_eq!(chunks.len(), 1);
        assert!(!chunks[0].text.contains("pms:lessons"));
        assert!(!chunks[0].text.contains("multi"));
        assert_eq!(chunks[0].line_end, 7);
    }

    #[test]
    fn headings_inside_code_fences_are_code() {
        let md = "# A\n```sh\n# not a heading\n```\n";
        let chunks = chunk_markdown(md, 1000, 0);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].heading, "A");
    }

    #[test]
    fn a_huge_line_is_still_indexed() {
        let md = format!("# Big\n{}\n", "x".repeat(50_000));
        let chunks = chunk_markdown(&md, 1000, 100);
        assert_eq!(chunks.len(), 1);
    }
}

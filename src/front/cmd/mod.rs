//! One file per subcommand. Each is thin: it turns flags into calls to the
//! library modules and prints the result for a person (or as JSON).

pub mod completions;
pub mod doctor;
pub mod embeddings;
pub mod get;
pub mod hook;
pub mod index;
pub mod init;
pub mod lessons;
pub mod search;
pub mod serve;
pub mod status;
pub mod sync;
pub mod ui;
pub mod uninstall;
pub mod upgrade;
pub mod verify;

/// Prints one line of a report on stdout. On a terminal it is broken at
/// spaces to the terminal's width (following lines indented two columns),
/// so the terminal never splits a word and never leaves a lone "." on a
/// line of its own (issue 14: `pms index --full` at 120 columns ended its
/// 121-character semantic-search line that way). Piped, it is one line.
pub fn print_fitted(line: &str) {
    use std::io::IsTerminal;
    let width = std::io::stdout()
        .is_terminal()
        .then(|| console::Term::stdout().size_checked())
        .flatten()
        .map(|(_rows, cols)| cols as usize);
    match width {
        Some(w) => println!("{}", fit(line, w)),
        None => println!("{line}"),
    }
}

/// `line` broken at spaces into lines of at most `width` columns, each
/// after the first indented two columns. A word wider than that stays
/// whole on a line of its own.
fn fit(line: &str, width: usize) -> String {
    const INDENT: &str = "  ";
    let mut out = String::new();
    let mut col = 0;
    for word in line.split(' ') {
        let w = console::measure_text_width(word);
        if col > 0 && col + 1 + w > width {
            out.push('\n');
            out.push_str(INDENT);
            col = INDENT.len();
        } else if !out.is_empty() {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += w;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn lines_break_at_spaces_within_the_width() {
        let line = "Semantic search: off, no embedding model installed (run `pms embeddings install` for minishlab/potion-multilingual-128M).";
        assert_eq!(fit(line, 200), line);
        for width in [40, 80, 120] {
            let fitted = fit(line, width);
            assert!(
                fitted.lines().all(|l| l.chars().count() <= width),
                "{width}: {fitted}"
            );
            assert!(!fitted.lines().any(|l| l.trim() == "."), "{fitted}");
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            assert_eq!(words(&fitted), words(line), "nothing lost or split");
        }
        assert_eq!(fit("a verylongword b", 5), "a\n  verylongword\n  b");
    }
}

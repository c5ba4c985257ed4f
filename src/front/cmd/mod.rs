//! One file per subcommand. Each is thin: it turns flags into calls to the
//! library modules and prints the result for a person (or as JSON).
//!
//! What a command prints that pms did not write itself (a lesson, a
//! learning, a snippet, a file's lines, a path) goes out through
//! [`println_stripped!`] and its siblings, or [`print_fitted`]: terminal
//! control sequences removed (`redact::controls`), so an escape sequence
//! from a transcript or a hand-edited file cannot act on the terminal (an
//! OSC 52 clipboard write, a window title, a line erase; issue 27). Text
//! stored since is stripped already; this covers what older versions stored
//! and the user's own files.

/// `println!`, terminal controls stripped from the line.
macro_rules! println_stripped {
    () => {
        println!()
    };
    ($($arg:tt)*) => {
        println!("{}", $crate::platform::redact::controls::strip(&format!($($arg)*)))
    };
}

/// `print!`, terminal controls stripped.
macro_rules! print_stripped {
    ($($arg:tt)*) => {
        print!("{}", $crate::platform::redact::controls::strip(&format!($($arg)*)))
    };
}

/// `eprintln!`, terminal controls stripped.
macro_rules! eprintln_stripped {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::platform::redact::controls::strip(&format!($($arg)*)))
    };
}

pub mod completions;
pub mod doctor;
pub mod embeddings;
pub mod get;
pub mod hook;
pub mod import;
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

/// Prints `value` as pretty JSON, terminal controls stripped from every
/// string in it: JSON escapes them, but whoever reads the JSON gets them
/// back, to print.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(value)?;
    strip_strings(&mut v);
    println!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

fn strip_strings(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(clean) = crate::platform::redact::controls::strip(s) {
                *s = clean;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(strip_strings),
        Value::Object(o) => o.values_mut().for_each(strip_strings),
        _ => {}
    }
}

/// Prints one line of a report on stdout. On a terminal it is broken at
/// spaces to the terminal's width (following lines indented two columns),
/// so the terminal never splits a word and never leaves a lone "." on a
/// line of its own (issue 14: `pms index --full` at 120 columns ended its
/// 121-character semantic-search line that way). Piped, it is one line.
pub fn print_fitted(line: &str) {
    use std::io::IsTerminal;
    let line = &*crate::platform::redact::controls::strip(line);
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

/// Whether a question's answer may be empty.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Required,
    MayBeEmpty,
}

/// A one-line question pre-filled with `initial`, for answers that may be
/// wider than the terminal (a rule's wording, its cues). dialoguer clears
/// the row the cursor is on when the answer is given and leaves the rows a
/// wrapped answer took above it, so the question stayed on the screen
/// twice (dialoguer issue 295, open in 0.12; `pms lessons review` at 100
/// columns, issue 24). Its own report is off: the rows the question took
/// are cleared here and the answered question is drawn as dialoguer draws
/// it. The rows are counted from the question and the answer as if the
/// cursor is at the answer's end, where typing leaves it.
pub fn ask_line(
    theme: &dialoguer::theme::ColorfulTheme,
    prompt: &str,
    initial: &str,
    answer: Answer,
) -> anyhow::Result<String> {
    use dialoguer::console::{Term, measure_text_width};
    use dialoguer::theme::Theme;
    let term = Term::stderr();
    let typed: String = dialoguer::Input::with_theme(theme)
        .with_prompt(prompt)
        .with_initial_text(initial)
        .allow_empty(answer == Answer::MayBeEmpty)
        .report(false)
        .interact_text_on(&term)?;
    let mut asked = String::new();
    theme.format_input_prompt(&mut asked, prompt, None)?;
    let width = usize::from(term.size().1).max(1);
    let rows = (measure_text_width(&asked) + measure_text_width(&typed))
        .div_ceil(width)
        .max(1);
    term.clear_last_lines(rows - 1)?;
    term.clear_to_end_of_screen()?;
    let mut answered = String::new();
    theme.format_input_prompt_selection(&mut answered, prompt, &typed)?;
    term.write_line(&answered)?;
    Ok(typed)
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

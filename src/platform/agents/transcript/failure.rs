//! Whether a line of a command's output says that something failed: an
//! error word, an error code, an exception's dotted CamelCase name. Here,
//! below the index and the recall, because both read by it: the index keeps
//! the middle lines of a long failure that say it ([`super::error_excerpt`]),
//! and `memory::recall::error_line` reads an error by them.

use std::sync::LazyLock;

use regex::Regex;

use crate::platform::host::text::ascii_lowercase;

/// Lines that say something failed, read in ASCII lower case
/// ([`has_error_word`], `text::ascii_lowercase`), with ASCII word
/// boundaries. A regex pattern, not regex-lite's as `memory::recall`'s
/// are: it reads up to 4,000 lines of every long result the index keeps,
/// where regex-lite, with no prefilter and no DFA, would be the slower.
/// `unknown` right after a hyphen is no error word but a target triple's
/// vendor (`x86_64-unknown-linux-gnu`, `wasm32-unknown-unknown`), which
/// every line of a cross build names.
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?-u)((?-u:\b)(?:error|errors|err!|fatal|fail|failed|failure|exception|panicked|traceback|cannot|could not|couldn't|can't|unable|not found|no such|denied|refused|undefined|unresolved|unrecognized|missing|invalid|mismatch|mismatched|timed out|timeout|segmentation fault|core dumped|killed|aborted|conflict|unsatisfiable|not permitted|does not exist|doesn't exist|is not|are not|was not|were not|has not been|have not been|expected|incompatible|forbidden|unauthorized|violates|violation|enoent|eacces|eperm|econnrefused|econnreset|eaddrinuse|etimedout|enotfound|[a-z]*backoff|oomkilled|evicted|errimagepull)(?-u:\b)|(?:^|(?u:[^-]))(?-u:\b)unknown(?-u:\b)|(?-u:\b)err_[a-z0-9_]+|(?-u:\b)[a-z]+(?:error|exception)(?-u:\b)|(?-u:\b)e\d{3,5}(?-u:\b)|(?-u:\b)ts\d{4}(?-u:\b))",
    )
    .expect("valid")
});

/// A line that starts with an exception's dotted name in CamelCase without
/// an error word (`pandas…np_datetime.OutOfBoundsDatetime: Out of bounds
/// nanosecond timestamp`, Ruby's `ActiveRecord::ConnectionNotEstablished:`
/// with its message on the next line): the last line of a traceback says
/// what failed without one. A module path is asked for so that `PyTorch:
/// 2.1.0` is not one; a warning ([`is_exception`] checks) is not a failure.
static EXCEPTION_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.|::))+([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+):(?: [^ ]|$)",
    )
    .expect("valid")
});

/// Whether `line` says something failed: an error word or code, or an
/// exception's name ([`is_exception`]).
pub fn says_failure(line: &str) -> bool {
    has_error_word(line) || is_exception(line)
}

/// Whether `line` holds an error word or an error code ([`ERROR_LINE`]),
/// in any case.
pub(crate) fn has_error_word(line: &str) -> bool {
    ERROR_LINE.is_match(&ascii_lowercase(line))
}

/// Where the first error word or code of `line` ends, in any case.
pub(crate) fn error_word_end(line: &str) -> Option<usize> {
    ERROR_LINE.find(&ascii_lowercase(line)).map(|m| m.end())
}

/// Whether `line` starts with an exception's name ([`EXCEPTION_NAME`]) that
/// is not a warning's.
pub fn is_exception(line: &str) -> bool {
    EXCEPTION_NAME
        .captures(line)
        .is_some_and(|c| !c[1].ends_with("Warning"))
}

/// A terminal colour or cursor code.
pub static ANSI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").expect("valid"));

/// `text` without colours (borrowed when it has none): a colour before a
/// word (`\x1b[31mSyntaxError\x1b[39m:`) hides the word from a pattern.
pub fn without_colours(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\x1b') {
        ANSI.replace_all(text, "")
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The exit code a command's output states in its first 400 characters
/// ("Exit code: 1", Codex's "Process exited with code 1", "exit status
/// 1"): what post-tool-use reads when a payload has no exit code of its
/// own, and the Codex reader in the header over a command's output.
pub fn stated_exit_code(text: &str) -> Option<i64> {
    let head: String = text.chars().take(400).collect();
    for marker in [
        "Process exited with code ",
        "Exit code: ",
        "Exit code ",
        "exit code ",
        "exit status ",
    ] {
        if let Some(i) = head.find(marker) {
            let digits: String = head[i + marker.len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_says_its_exit_code() {
        assert_eq!(
            stated_exit_code("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom"),
            Some(2)
        );
        assert_eq!(stated_exit_code("Process exited with code 0\nok"), Some(0));
        assert_eq!(stated_exit_code("all good"), None);
    }

    #[test]
    fn a_line_says_failure_by_an_error_word_a_code_or_an_exception() {
        for failed in [
            "error: could not compile `shop`",
            "new row violates row-level security policy for table \"bookings\"",
            "ERROR:  duplicate key value violates unique constraint \"users_pkey\"",
            "Constraint violation: check (amount > 0)",
            "npm ERR! ERESOLVE unable to resolve dependency tree",
            "ActiveRecord::ConnectionNotEstablished:",
            "error TS2339: Property 'members' does not exist on type '{}'.",
            "error: unknown target triple 'wasm32-unknown-unknown'",
            "Unknown argument: --frozen",
        ] {
            assert!(says_failure(failed), "{failed}");
        }
        for said in [
            "Compiling shop v0.1.0",
            "X-Kong-Upstream-Latency: 6",
            "PyTorch: 2.1.0",
            "1 passed in 0.12s",
            "cargo build --release --target wasm32-unknown-unknown -p glyphforge-wasm",
            "   Compiling ring v0.17.8 (target x86_64-unknown-linux-gnu)",
        ] {
            assert!(!says_failure(said), "{said}");
        }
    }
}

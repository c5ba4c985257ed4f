//! The lines of a command's output that say what went wrong, read the
//! same way for a new failure and a past one: unwrapped from what a log or
//! a CI runner writes around a message ([`super::output_lines`]), the
//! boilerplate every failure of a
//! tool prints dropped, what changes from one run to the next (paths,
//! numbers, ids, hex, URLs, times) replaced by placeholders, and each line
//! told by what it says ([`Says`]). [`super::signature`] compares them.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex_lite::Regex;

use super::boilerplate::{is_generic, says_only_how_it_ended};
pub(super) use super::normalise::normalise;
use super::output_lines::{LONGEST_LINE, head_of, message_after};
use super::output_lines::{messages, readable};
use crate::platform::agents::transcript::failure::has_error_word;
pub(super) use crate::platform::agents::transcript::failure::is_exception;

/// A tool's wrapper before what failed: Maven's goal (`[ERROR] Failed to
/// execute goal org.apache…:maven-compiler-plugin:3.13.0:compile
/// (default-compile) on project ledger-api: `) and Spring's refresh
/// (`Exception encountered during context initialization - cancelling
/// refresh attempt: `), .NET's `Unhandled exception. ` and inner
/// exception arrow (`---> `; xUnit's `---- ` in [`ErrorLine::read`]) and
/// xUnit's `Error Message: `. The rest of the line is the error.
static WRAPPER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[error\] failed to execute goal [^ ]+(?: \([^)]*\))? on project [^:]+: |exception encountered during context initialization - cancelling refresh attempt: |unhandled exception\. |error message: |---> )")
        .expect("valid")
});
/// An exception's name before its message as .NET writes it: with its
/// HRESULT or errno (`npgsqlexception (<hex>): `) or a space before the
/// colon (`socketexception : `).
static DOTNET_EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([a-z0-9_]+(?:exception|error))(?: \((?:<hex>|<n>)\) ?| ): ").expect("valid")
});
/// What a tool adds at the end of a message to say where, not what:
/// Jackson's `(through reference chain: a.B["field"])`, xcodebuild's `(in
/// target 'App' from project 'App')`, Ruby's exception class repeated
/// (`(ActiveRecord::ConnectionNotEstablished)`). The same error met on
/// another field or target is the same error. (Not any parenthesis: in
/// `cannot read properties of undefined (reading 'map')` it names what.)
static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?: *\((?:through reference chain: .*|in target '[^']*' from project '[^']*'|(?:[a-z_][a-z0-9_]*::)+[a-z_][a-z0-9_]*|[a-z_][a-z0-9_]*(?:error|exception))\))+$")
        .expect("valid")
});

/// A line under a compiler's error that says what it is about (javac's
/// `symbol:` and `location:`).
static DETAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:\[error\][ \t]+)?(?:symbol|location)[ \t]*:").expect("valid")
});
/// A frame of a Java, Kotlin, JavaScript or .NET stack trace (`at
/// com.x.Y.from(Y.java:67)`, `at Npgsql.Internal.NpgsqlConnector.<Open>g__OpenCore|213_1(…)
/// in /src/A.cs:line 27`): where, not what.
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^at [A-Za-z0-9_$.<>/@:|`-]+ ?\(.*\)(?: in .+:line [0-9]+)?$").expect("valid")
});
/// A line that says which test failed or where (`--- FAIL: TestX`, `FAIL
/// src/a.test.ts > formatPrice > …`, surefire's `<<< FAILURE!`,
/// ScalaTest's `- vacuums old files *** FAILED ***` and `a.BSpec ***
/// ABORTED ***`, Ansible's `TASK [role : name] ****`, `PLAY [name]` and
/// `RUNNING HANDLER [name]` headers): two
/// failures of different tests may have one cause, so when they share a
/// line that says what failed, such lines do not make them two messages
/// about different things (the word likeness still reads them).
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<<< (?:failure|error)!|^\[error\] +[a-z0-9_$]+\.[a-z0-9_$]+:<n> |^\[error\] +[a-z0-9_$.]+(?::<n>)? » |^fail <path> >|^--- fail:|^failed <path>::|^rspec <path>|^test [^ ]+ \.\.\. failed|^---- [^ ]+ stdout ----|^\[error\] tests run:|^tests run:.*failures|^fail(?:ed)? +[a-z0-9_.\\:-]+(?: > .*)?$|^fail(?:ed)? +[a-z0-9_.]+ \[<n> m?s\]$| \[fail\]$|^(?:\[[a-z]+\] )?- .+ \*\*\* failed \*\*\*(?: \(.*\))?$|(?:^|\] |: )[a-z0-9_$.]+ \*\*\* aborted \*\*\*$|^(?:task|play|running handler) \[.*\] \*+$")
        .expect("valid")
});
/// An assertion that failed (`AssertionError: expected 3 to be 4`,
/// `org.opentest4j.AssertionFailedError: expected: <1> but was: <2>`,
/// pytest's `E   assert 3 == 4`), normalised.
static EXPECTATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"assertion[a-z0-9_]*error|^e? *assert |expected:? .* but (?:was|got|found|received)|(?:was|is) not equal to|expected .* to (?:be|equal|have|contain|match)")
        .expect("valid")
});

/// Least words of a line found whole in the other error's line.
pub(super) const LINE_WORDS: usize = 4;
/// Lines kept from the end of a failed command's output that has no line
/// saying what failed.
const TAIL_LINES: usize = 3;
/// Lines read under a bare `Caused by:`: anyhow numbers a chain of causes
/// one per line (`0: …`, `1: …`).
const CAUSE_LINES: usize = 2;

/// Most error lines kept: the first few say what failed; the rest repeat it.
const MAX_LINES: usize = 8;
/// One normalised error line and its words.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorLine {
    pub text: String,
    pub words: BTreeSet<String>,
    pub says: Says,
    /// Its words that name the user's own code ([`quoted_code`]).
    pub code: BTreeSet<String>,
    /// Its words that name a type or a trait it quotes in backticks
    /// (`` `Send` ``, `` `Rc<…>` ``'s `rc`): what failed, not where.
    pub types: BTreeSet<String>,
    /// The line under a Java exception that goes on with its message: what
    /// exactly failed (Flyway's `Migration checksum mismatch for migration
    /// version 7` under `FlywayValidateException: Validate failed`).
    pub detail: bool,
}

/// What a line of an error says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    /// What went wrong.
    What,
    /// That a test's expectation was not met ([`EXPECTATION`]): what went
    /// wrong, but alike in every failing test of a framework, so it does
    /// not tell alone which failure this is.
    Expected,
    /// Which test failed, or where ([`LOCATION`]).
    Where,
}

impl ErrorLine {
    /// A raw line of output as a signature keeps it: normalised, a tool's
    /// wrapper ([`WRAPPER`]) and a trailer that says where ([`TRAILER`])
    /// stripped, or None when every failure of some tool prints it
    /// ([`is_generic`]).
    fn read(raw: &str) -> Option<ErrorLine> {
        let text = normalise(raw);
        let text = match WRAPPER.find(&text) {
            Some(m) => text[m.end()..]
                .trim_end_matches(" -> [help <n>]")
                .to_string(),
            None => text,
        };
        // xUnit's inner exception arrow, only before an exception's name
        // (Go's `--- FAIL:` and rustc's `---- t stdout ----` say which test)
        let text = match text.strip_prefix("---- ") {
            Some(rest) if DOTNET_EXCEPTION.is_match(rest) => rest.to_string(),
            _ => text,
        };
        // .NET writes one exception three ways: `X (0x80004005): msg` when
        // unhandled, `X : msg` under xUnit, `X: msg` in a log
        let text = match DOTNET_EXCEPTION.replace_all(&text, "$1: ") {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(t) => t,
        };
        let text = match TRAILER.find(&text) {
            Some(m) if words(&text[..m.start()]).len() >= LINE_WORDS => {
                text[..m.start()].to_string()
            }
            _ => text,
        };
        if is_generic(&text) {
            return None;
        }
        if says_only_how_it_ended(&text) {
            return None;
        }
        let words = words(&text);
        // RSpec's `Failure/Error: <the line of code that raised>`
        let says = if LOCATION.is_match(&text) || raw.starts_with("Failure/Error:") {
            Says::Where
        } else if EXPECTATION.is_match(&text) {
            Says::Expected
        } else {
            Says::What
        };
        let quoted = quoted_code(raw);
        let known = |set: BTreeSet<String>| set.into_iter().filter(|w| words.contains(w)).collect();
        let (code, types) = (known(quoted.user), known(quoted.types));
        Some(ErrorLine {
            text,
            words,
            says,
            code,
            types,
            detail: false,
        })
    }

    /// The words of the labels before the line's message: its leading
    /// `: `-separated names (one token each: an exception's class, a
    /// tool's name), while [`LINE_WORDS`] words follow them
    /// (`activerecord::connectionnotestablished` and `pg::connectionbad`
    /// before one message). Not words of a sentence: in `error installing
    /// pg: failed to build gem native extension` the gem is what failed.
    pub(super) fn labels(&self) -> BTreeSet<String> {
        let mut labels = BTreeSet::new();
        let mut rest = self.text.as_str();
        while let Some((label, after)) = rest.split_once(": ") {
            if label.contains(' ') || words(after).len() < LINE_WORDS {
                break;
            }
            labels.extend(words(label));
            rest = after;
        }
        labels
    }
}

/// The code `raw` quotes in backticks (as rustc, clippy and ruff quote
/// code), told apart by its spelling before the line is lower-cased. The
/// user's own: a name spelled in lower case (a variable, a function:
/// `` `state` ``, `` `create_transfer` ``), and what follows a type's own
/// name (the parameters of `` `MutexGuard<'_, LruCache<…>>` ``, the
/// arguments of a `fn(…)` type). A type's or a trait's own name
/// (`` `Send` ``, `` `Rc<…>` ``) is kept apart: that says what failed. Not what single
/// or double quotes hold, which name packages, keys and files as often as
/// code (`KeyError: 'user_id'`), nor Ruby's `` `method' ``, which no
/// backtick closes.
fn quoted_code(raw: &str) -> QuotedCode {
    let mut out = QuotedCode::default();
    for span in BACKTICKED.captures_iter(raw).filter_map(|c| c.get(1)) {
        let span = span.as_str().trim();
        let head_end = span
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(span.len());
        let (head, rest) = span.split_at(head_end);
        let lower_name = rest.is_empty()
            && head
                .rsplit("::")
                .next()
                .and_then(|n| n.chars().next())
                .is_some_and(|c| c.is_lowercase() || c == '_');
        // the line's own word split, so that each is one of its words
        let words = |s: &str| words(&s.to_lowercase());
        if lower_name {
            out.user.extend(words(head));
        } else {
            out.types.extend(words(head));
            out.user.extend(words(rest));
        }
    }
    // a library's generic type over the user's (Scala's
    // `zio.json.JsonEncoder[com.harbor.model.CarrierScan]`, Java's
    // `java.util.List<com.x.Foo>`), unquoted: its parameters are the user's
    for params in TYPE_PARAMETERS.captures_iter(raw).filter_map(|c| c.get(1)) {
        out.user.extend(words(&params.as_str().to_lowercase()));
    }
    // ESLint and TypeScript quote the user's names in single quotes; one
    // spelled in camel case is code (`'loadReviews'`), not a package, a
    // key or a file
    for name in SINGLE_QUOTED.captures_iter(raw).filter_map(|c| c.get(1)) {
        let name = name.as_str();
        let camel = name
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        if camel && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.user.insert(name.to_lowercase());
        }
    }
    out
}

/// A dotted generic type's parameters (`a.b.Encoder[com.x.Scan]`).
static TYPE_PARAMETERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Z][A-Za-z0-9_]*[\[<]([^\[\]<>]+)[\]>]")
        .expect("valid")
});

/// A single identifier in single quotes.
static SINGLE_QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"'([A-Za-z_][A-Za-z0-9_]*)'").expect("valid"));

/// What a line quotes in backticks ([`quoted_code`]).
#[derive(Default)]
struct QuotedCode {
    user: BTreeSet<String>,
    types: BTreeSet<String>,
}

/// A backticked span; a quote inside only as a lifetime (`'_`), not as
/// the end of Ruby's `` `foo' `` before another backtick.
static BACKTICKED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`((?:[^`'\n]|'[^\s`])+)`").expect("valid"));

/// Words too common in error output to tell two errors apart.
const PLAIN: &[&str] = &[
    "error", "errors", "err", "the", "a", "an", "to", "of", "in", "at", "for", "on", "is", "are",
    "be", "was", "with", "not", "no", "and", "or", "by", "from", "this", "that", "it", "n", "path",
    "hex", "id", "url", "time", "failed", "fatal", "warning", "note", "help", "line", "file",
    "npm",
];

/// The error lines of `output` (its head and tail when long), at most
/// [`MAX_LINES`]: each line that says something failed, with what goes on
/// under it.
pub(super) fn error_lines(output: &str) -> Vec<ErrorLine> {
    let mut lines: Vec<ErrorLine> = Vec::new();
    // read only when no line says an error: pnpm's ` WARN  … Failed to
    // replace env in config` before the `ERR_PNPM_FETCH_401` that failed
    let mut warnings: Vec<ErrorLine> = Vec::new();
    let text = readable(output);
    let all = messages(&text);
    // the causes under a bare `Caused by:` (Rust's anyhow, cargo, Deno):
    // what failed, error word or not; its first [`CAUSE_LINES`] lines, not
    // what a build script printed after them (cargo's `--- stdout`)
    let mut cause = 0;
    for (i, raw) in all.iter().enumerate() {
        let raw = head_of(raw);
        let bare = untagged(raw);
        let tagged = bare.len() != raw.len();
        let is_cause = cause > 0 && !raw.is_empty() && !raw.starts_with("--- ");
        cause = if raw.eq_ignore_ascii_case("caused by:") {
            CAUSE_LINES
        } else if is_cause {
            cause - 1
        } else {
            0
        };
        if raw.is_empty()
            || raw.len() > LONGEST_LINE
            || FRAME.is_match(bare)
            || CODE_EXCERPT.is_match(bare)
            || PASSED.is_match(raw)
            || !(has_error_word(bare)
                || is_exception(raw)
                || is_cause
                || (tagged
                    && (TAGGED_COMPILER_MESSAGE.is_match(raw) || GUTTER_MESSAGE.is_match(bare))))
        {
            continue;
        }
        // "thread 'main' panicked at src/main.rs:4:5:" says what
        // failed on the next line: the two are one line of the error
        // (not "Traceback (most recent call last):", which every
        // Python error prints, and its first frame).
        let joined;
        let raw = match message_after(&all, i) {
            Some(next)
                if raw.ends_with(':')
                    && !next.is_empty()
                    && next.len() <= LONGEST_LINE
                    && !is_generic(&normalise(raw)) =>
            {
                joined = format!("{raw} {next}");
                joined.as_str()
            }
            _ => raw,
        };
        // javac names what it cannot find on the lines under the error
        // ("symbol:   class FxRateClient", "location: …"): part of it.
        let details: Vec<&str> = all[i + 1..]
            .iter()
            .take(2)
            .take_while(|l| DETAIL.is_match(l))
            .copied()
            .collect();
        let detailed;
        let raw = if details.is_empty() {
            raw
        } else {
            detailed = format!("{raw} {}", details.join(" "));
            detailed.as_str()
        };
        let Some(line) = ErrorLine::read(raw) else {
            continue;
        };
        if line.words.len() < 2 {
            continue;
        }
        if WARNING.is_match(&line.text) {
            if warnings.len() < MAX_LINES && !warnings.iter().any(|w| w.text == line.text) {
                warnings.push(line);
            }
            continue;
        }
        // an error line of its own right under an exception's goes on
        // with its message as well (`Migration checksum mismatch …`)
        let detail = i > 0 && !is_exception(raw) && !raw.starts_with("Caused by") && {
            let above = all[i - 1];
            !above.ends_with(':')
                && is_exception(above.strip_prefix("Caused by: ").unwrap_or(above))
        };
        // a line met again is read once; a detail where any of its
        // occurrences is one (an excerpt keeps Flyway's line from a log's
        // middle, away from its exception, before the chain repeats it)
        if let Some(seen) = lines.iter_mut().find(|l| l.text == line.text) {
            seen.detail |= detail;
            continue;
        }
        lines.push(ErrorLine { detail, ..line });
        // A Java exception's message goes on under it until its first
        // frame (Flyway's `Detected resolved migration not applied to
        // database: 10.` under `…FlywayValidateException: Validate
        // failed`): its next line is part of what failed.
        if let Some(next) = all.get(i + 1)
            && !raw.ends_with(':')
            && is_exception(all[i].strip_prefix("Caused by: ").unwrap_or(all[i]))
            && is_continuation(next)
            && let Some(more) = ErrorLine::read(next)
            && more.words.len() >= 2
            && !lines.iter().any(|l| l.text == more.text)
        {
            lines.push(ErrorLine {
                detail: true,
                ..more
            });
        }
        if lines.len() >= MAX_LINES {
            lines.truncate(MAX_LINES);
            // A Java chain's last `Caused by:` is its root cause, and the
            // error a wrapper of another path meets again (Byte Buddy not
            // supporting Java 21, under Mockito once and Hibernate next):
            // kept in the last place when the lines run out before it.
            if let Some(root) = all[i + 1..]
                .iter()
                .rev()
                .find(|l| {
                    l.starts_with("Caused by: ") && !l.ends_with(':') && l.len() <= LONGEST_LINE
                })
                .and_then(|l| ErrorLine::read(l))
                .filter(|root| root.words.len() >= 2 && !lines.iter().any(|l| l.text == root.text))
            {
                lines[MAX_LINES - 1] = root;
            }
            break;
        }
    }
    if lines.is_empty() { warnings } else { lines }
}

/// A line without the level sbt and Maven tag every line of a failure
/// with (`[error] `): sbt's frames (`[error]   at org.apache.kafka…`), the
/// code a compiler quotes (`[error] 14 |   serde.string…`) and the list of
/// failed test classes are read as frames, code and names, not as errors
/// for their tag.
fn untagged(raw: &str) -> &str {
    ["[error]", "[ERROR]", "[warn]", "[WARNING]"]
        .iter()
        .find_map(|tag| raw.strip_prefix(tag))
        .map_or(raw, str::trim_start)
}

/// A line of code a compiler quotes under its error, after its line
/// number and gutter (Scala's and rustc's `14 |   let x = …`): where, not
/// what (the message under it, in the gutter alone, is read).
static CODE_EXCERPT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[0-9]+ +\|").expect("valid"));

/// A compiler's message at a file's line under Maven's or sbt's error tag
/// (`[ERROR] /w/A.java:[12,8] unreachable statement`, `[error]
/// /w/A.scala:12:5: ambiguous implicit values`): an error, words or not.
static TAGGED_COMPILER_MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[(?:ERROR|error)\] +[^ ]+\.[A-Za-z]{1,6}:(?:\[[0-9]+,[0-9]+\]|[0-9]+:[0-9]+:) ")
        .expect("valid")
});

/// The message a compiler writes in its gutter under an error's header,
/// without an error word (Scala 3's `|No given instance of type … was
/// found for parameter encoder`, read under sbt's tag only); not the carets
/// and labels under code (`|    ^^^^`, rustc's `|     ^^^ expected `u32``).
static GUTTER_MESSAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\|[A-Za-z]").expect("valid"));

/// A line that says a test passed (Pest's, Jest's and Vitest's `✓ it
/// rejects unknown formats`): whatever its words, nothing failed there.
static PASSED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?:✓|✔|√|PASS )").expect("valid"));
/// A warning, normalised (`warning: unused import`, pnpm's ` WARN `,
/// npm's `npm warn`, sbt's `[warn]`).
static WARNING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:npm )?(?:warn|warning|\[warn\]|\[warning\])(?:[: \[]|$)").expect("valid")
});

/// The last [`TAIL_LINES`] lines of `output` of three words or more that no
/// failure of any tool prints, in order.
pub(super) fn last_lines(output: &str) -> Vec<ErrorLine> {
    let text = readable(output);
    let mut lines: Vec<ErrorLine> = Vec::new();
    for raw in messages(&text).into_iter().rev() {
        if raw.is_empty() || raw.len() > LONGEST_LINE {
            continue;
        }
        let Some(line) = ErrorLine::read(raw) else {
            continue;
        };
        if line.words.len() < 3 || lines.iter().any(|l| l.text == line.text) {
            continue;
        }
        lines.push(line);
        if lines.len() >= TAIL_LINES {
            break;
        }
    }
    lines.reverse();
    lines
}

/// Whether the line after an exception's goes on with its message: not a
/// frame, not a line read for itself (an error line, the next exception),
/// not the build tool's next line (Maven's `[INFO] Results:`).
fn is_continuation(line: &str) -> bool {
    !line.is_empty()
        && line.len() <= LONGEST_LINE
        && !["[INFO]", "[WARNING]", "[WARN]", "[DEBUG]"]
            .iter()
            .any(|level| line.starts_with(level))
        && !FRAME.is_match(line)
        && !line.starts_with("Caused by")
        && !has_error_word(line)
        && !is_exception(line)
}

/// Whether `needle` is in `hay` with no word character either side.
pub(super) fn contains_words(hay: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    hay.match_indices(needle).any(|(i, _)| {
        !word(hay[..i].chars().next_back()) && !word(hay[i + needle.len()..].chars().next())
    })
}

/// The distinctive words of a normalised line.
pub(super) fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        // a rule of underscores (pytest's `____ ERROR collecting … ____`)
        // is not a word
        .filter(|w| w.len() >= 2 && !PLAIN.contains(w) && !w.bytes().all(|b| b == b'_'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The texts of the error lines `output` is read as.
    pub(in crate::memory::recall) fn texts(output: &str) -> Vec<String> {
        error_lines(output).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn a_message_a_runner_wrapped_reads_as_met_bare() {
        // as `Signature::of_failure` reads a failed command's output
        let prefixed = |text: &str, label: &str| -> String {
            text.lines()
                .map(|l| format!("{label}{l}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let lines = |output: &str| -> Vec<String> {
            let read = error_lines(output);
            let read = if read.is_empty() {
                last_lines(output)
            } else {
                read
            };
            read.into_iter().map(|l| l.text).collect()
        };
        // docker compose's service label, turbo's task label, journald's
        let prisma = "Error: P1001: Can't reach database server at `db`:`5432`\n\nPlease make sure your database server is running at `db`:`5432`.";
        let compose = format!(
            "{}\napi-1 exited with code 1",
            prefixed(prisma, "api-1  | ")
        );
        assert_eq!(lines(&compose), lines(prisma));
        let tsc = "src/App.tsx(12,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/App.tsx(19,3): error TS2304: Cannot find name 'useQuery'.";
        let turbo = format!(
            "web:build: cache miss, executing 5e1c0a9d\nweb:build: > tsc -b && vite build\n{}\nweb:build:  ELIFECYCLE  Command failed with exit code 2.\n Tasks:    0 successful, 1 total\nFailed:    web#build\n ERROR  run failed: command  exited (2)",
            prefixed(tsc, "web:build: ")
        );
        assert_eq!(lines(&turbo), lines(tsc));
        // turbo's label in colour
        let coloured = prefixed(
            &format!("{tsc}\n ELIFECYCLE  Command failed."),
            "\x1b[36mweb:build: \x1b[0m",
        );
        assert_eq!(lines(&coloured), lines(tsc));
        // concurrently's labels, two processes taking turns
        let horizon = "   Illuminate\\Contracts\\Container\\BindingResolutionException\n  Target class [redis] does not exist.";
        let concurrently = format!(
            "[vite] \n[vite]   VITE v5.4.10  ready in 412 ms\n{}\n[vite]   ➜  Local:   http://localhost:5173/\n[queue] php artisan horizon exited with code 1",
            prefixed(horizon, "[queue] ")
        );
        assert_eq!(lines(&concurrently), lines(horizon));
        let php = "PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted (tried to allocate 20480 bytes) in /var/www/app/vendor/laravel/framework/src/Illuminate/Support/Collection.php on line 1641";
        let journal = format!(
            "Oct 14 08:12:55 web1 php-fpm[1234]: {php}\nOct 14 08:12:55 web1 php-fpm[1234]: PHP Stack trace:\nOct 14 08:12:56 web1 php-fpm[987]: child 1234 exited with code 255 after 0.52 seconds from start"
        );
        assert_eq!(lines(&journal)[0], lines(php)[0]);
        // journald's header and compose's container on a line alone
        assert_eq!(
            lines(&format!("Nov 20 10:00:00 build01 runner[4242]: {php}")),
            lines(php)
        );
        assert_eq!(lines(&format!("app-1  | {php}")), lines(php));
        // GitHub Actions' times and its closing error, BuildKit's wrapper
        let eresolve = "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.3.1\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^17.0.0\" from react-helmet@6.1.0";
        let actions = format!(
            "{}\n2026-10-14T08:12:56.0000000Z ##[error]Process completed with exit code 1.",
            prefixed(eresolve, "2026-10-14T08:12:55.1234567Z ")
        );
        assert_eq!(lines(&actions), lines(eresolve));
        let buildkit = format!(
            " => ERROR [deps 4/5] RUN npm ci                                   12.3s\n------\n > [deps 4/5] RUN npm ci:\n{}\n------\nERROR: failed to solve: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
            prefixed(eresolve, "11.92 ")
        );
        assert_eq!(lines(&buildkit), lines(eresolve));
        // Ansible's result object, and one a structured log wrote
        let artisan = "   Illuminate\\Database\\QueryException\n\n  SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select * from information_schema.tables where table_schema = 'shop')";
        let ansible = format!(
            "TASK [app : migrate] ***\nfatal: [web1]: FAILED! => {{\"changed\": false, \"cmd\": [\"php\", \"artisan\", \"migrate\", \"--force\"], \"msg\": \"non-zero return code\", \"rc\": 1, \"stderr\": \"\", \"stdout\": {}, \"stdout_lines\": [\"ignored\"]}}\nPLAY RECAP ***\nweb1 : ok=3    changed=0    unreachable=0    failed=1    skipped=0",
            serde_json::to_string(artisan).unwrap()
        );
        assert_eq!(lines(&ansible), lines(artisan));
        let verbose = format!(
            "fatal: [web1]: FAILED! => {{\n    \"changed\": false,\n    \"stdout\": {},\n    \"rc\": 1\n}}",
            serde_json::to_string(artisan).unwrap()
        );
        assert_eq!(lines(&verbose), lines(artisan));
        let zap = lines(
            r#"{"level":"error","ts":1730000000.123,"caller":"db/pool.go:42","msg":"failed to connect to database","error":"dial tcp 10.0.3.7:5432: connect: connection refused"}"#,
        );
        assert!(
            zap.contains(&"dial tcp <n>:<n>: connect: connection refused".to_string()),
            "{zap:?}"
        );
        // a line a tool cut short loses its part word, not the rest
        assert_eq!(
            lines(
                "ERROR: Cannot install -r requirements.txt (line 2) and torch==2.1.2 because these package versi…"
            ),
            [
                "error: cannot install -r requirements.txt (line <n>) and torch==<n> because these package"
            ]
        );
        // what starts most lines but is part of the message stays
        let chain = "java.lang.IllegalStateException: Failed to load ApplicationContext\nCaused by: org.springframework.beans.factory.BeanCreationException: Error creating bean\nCaused by: java.lang.IllegalArgumentException: Not a managed type\nCaused by: java.lang.ClassNotFoundException: com.x.Ledger";
        assert!(
            lines(chain)
                .iter()
                .filter(|l| l.starts_with("caused by: "))
                .count()
                == 3
        );
        assert!(lines(eresolve).iter().all(|l| l.starts_with("npm err! ")));
    }

    #[test]
    fn errors_are_read_before_warnings_and_passing_tests_not_at_all() {
        // pnpm's warning before the error that failed the install
        assert_eq!(
            texts(
                " WARN  Issue while reading \"/w/.npmrc\". Failed to replace env in config: ${NODE_AUTH_TOKEN}\n ERR_PNPM_FETCH_401  GET https://npm.pkg.github.com/@a%2Fb: Unauthorized - 401\n\nNo authorization header was set for the request."
            ),
            ["err_pnpm_fetch_401 get <url> unauthorized - <n>"]
        );
        // a warning alone is still read
        assert_eq!(
            texts(" WARN  Failed to replace env in config: ${NODE_AUTH_TOKEN}"),
            ["warn failed to replace env in config: ${node_auth_token}"]
        );
        // a passing test says nothing failed, whatever its words
        assert!(texts("  ✓ it rejects unknown formats   0.01s").is_empty());
        // a node error code is an error
        assert_eq!(texts("Error: spawnSync docker ENOENT").len(), 1);
        // Pest's FAIL and FAILED lines say which test, not what failed
        let pest = error_lines(
            "   FAIL  Tests\\Feature\\TrackingPageTest\n   FAILED  Tests\\Feature\\TrackingPageTest > it shows the timeline\n  Expected response status code [200] but received 500.\n  Tests:    1 failed (1 assertions)",
        );
        let says: Vec<Says> = pest.iter().map(|l| l.says).collect();
        assert_eq!(says, [Says::Where, Says::Where, Says::Expected], "{pest:?}");
    }

    #[test]
    fn cut_json_and_level_tagged_lines_are_read_for_their_message() {
        // Ansible's result cut with `…`: its values, unescaped
        assert_eq!(
            texts(
                r#"fatal: [web1]: UNREACHABLE! => {"changed": false, "msg": "Failed to connect to the host via ssh: @@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\nHost key verification failed.\r\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NAS…"#
            ),
            [
                "failed to connect to the host via ssh: @@@@",
                "host key verification failed."
            ]
        );
        // sbt tags its frames and the code it quotes `[error]`
        assert_eq!(
            texts(
                "[error] -- [E172] Type Error: /w/core/src/Codec.scala:14:40\n[error] 14 |    serde.string.inmap[Scan](decodeOrDie)(_.toJson)\n[error]    |No given instance was found for parameter encoder\n[error]   at org.apache.kafka.clients.producer.KafkaProducer.send(KafkaProducer.java:1009)\n[error] one error found"
            ),
            [
                "[error] -- [e172] type error: <path>",
                "[error] |no given instance was found for parameter encoder"
            ]
        );
        // under the tag, only what says an error is read: not sbt's list
        // of failed test classes, nor its test summary
        assert!(
            texts("[error] Failed tests:\n[error] \tcom.harbor.track.ingest.ShipmentAssignerSpec\n[info] 12 tests passed. 1 tests failed. 0 tests ignored.\n[error] (ingest / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful").is_empty()
        );
        // a scoped package is what failed to resolve, an alias a path
        assert_eq!(
            normalise("Cannot find module '@orbit/ui' or '@/lib/money'"),
            "cannot find module '@orbit/ui' or '<path>'"
        );
    }

    #[test]
    fn what_logs_and_runners_write_around_a_message_is_not_read() {
        // gh run view --log around BuildKit, and the class Ruby repeats
        assert_eq!(
            texts(
                "build\tBuild and push\t2026-10-03T07:12:40.1182274Z #17 3.021 ArgumentError: Missing `secret_key_base` for 'production' environment (ArgumentError)"
            ),
            ["argumenterror: missing `secret_key_base` for 'production' environment"]
        );
        // the seconds BuildKit writes before the lines of a failed step in
        // its summary: pip's conflict inside `docker build` reads as outside
        let pip = "ERROR: Cannot install -r requirements.txt (line 2) and torch==2.1.2 because these package versions have conflicting dependencies.";
        assert_eq!(texts(&format!("39.61 {pip}")), texts(pip));
        assert_eq!(texts(&format!("139.612   {pip}")), texts(pip));
        // a .NET stack trace's frames say where, not what
        assert_eq!(
            texts(
                "Unhandled exception. Npgsql.NpgsqlException (0x80004005): Failed to connect to 127.0.0.1:5432\n ---> System.Net.Sockets.SocketException (111): Connection refused\n   at Npgsql.Internal.NpgsqlConnector.<Open>g__OpenCore|213_1(NpgsqlConnector conn, SslMode sslMode, NpgsqlTimeout timeout, Boolean async, CancellationToken cancellationToken, Boolean isFirstAttempt)\n   at FleetOps.Api.Program.Main(String[] args) in /home/maya/code/fleetops/src/FleetOps.Api/Program.cs:line 27"
            ),
            [
                "npgsql.npgsqlexception: failed to connect to <n>:<n>",
                "system.net.sockets.socketexception: connection refused"
            ]
        );
        // the same exceptions as xUnit writes them, under the test's name
        let xunit = error_lines(
            "[xUnit.net 00:00:03.11]     FleetOps.IntegrationTests.TripsEndpointTests.Post_CreatesTrip [FAIL]\n  Failed FleetOps.IntegrationTests.TripsEndpointTests.Post_CreatesTrip [1 s]\n  Error Message:\n   Npgsql.NpgsqlException : Failed to connect to 127.0.0.1:5432\n---- System.Net.Sockets.SocketException : Connection refused\nFailed!  - Failed:     2, Passed:     0, Skipped:     0, Total:     2, Duration: 1 s - FleetOps.IntegrationTests.dll (net8.0)",
        );
        let what: Vec<&str> = xunit
            .iter()
            .filter(|l| l.says == Says::What)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(
            what,
            [
                "npgsql.npgsqlexception: failed to connect to <n>:<n>",
                "system.net.sockets.socketexception: connection refused"
            ],
            "{xunit:?}"
        );
        // Spring Boot's log header and its refresh wrapper
        assert_eq!(
            texts(
                "2026-11-24T09:12:05.771+01:00  WARN 31877 --- [ledger-api] [           main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'flywayInitializer'"
            ),
            [
                "org.springframework.beans.factory.beancreationexception: error creating bean with name 'flywayinitializer'"
            ]
        );
        // Jackson's reference chain says where, not what
        let instant = |chain: &str| {
            texts(&format!(
                "com.fasterxml.jackson.databind.exc.InvalidDefinitionException: Java 8 date/time type `java.time.Instant` not supported by default: add module \"com.fasterxml.jackson.datatype:jackson-datatype-jsr310\" to enable handling (through reference chain: {chain})"
            ))
        };
        assert_eq!(
            instant("a.Entry[\"bookedAt\"]"),
            instant("b.Payment[\"settledAt\"]")
        );
        // but a parenthesis that names what failed stays
        assert_ne!(
            texts("TypeError: Cannot read properties of undefined (reading 'map')"),
            texts("TypeError: Cannot read properties of undefined (reading 'length')")
        );
        // Ruby's exception on its own line, its message under it
        assert_eq!(
            texts(
                "ActiveRecord::ConnectionNotEstablished:\n  connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory"
            )[0],
            "activerecord::connectionnotestablished: connection to server on socket \"<path>\" failed: no such file or directory"
        );
        // a Java exception's message goes on under it, the build's next
        // line does not
        assert_eq!(
            texts(
                "org.opentest4j.AssertionFailedError: expected: <3> but was: <4>\n[INFO] Results:"
            ),
            ["org.opentest4j.assertionfailederror: expected: <<n>> but was: <<n>>"]
        );
        assert_eq!(
            texts(
                "Caused by: org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\nDetected resolved migration not applied to database: 10.\n\tat org.flywaydb.core.Flyway.lambda$migrate$0(Flyway.java:151)"
            ),
            [
                "caused by: org.flywaydb.core.api.exception.flywayvalidateexception: validate failed: migrations have failed validation",
                "detected resolved migration not applied to database: <n>."
            ]
        );
        // a line met first away from its exception (an excerpt keeps it
        // from a log's middle) is a detail where the chain repeats it
        let flyway = error_lines(
            "Starting\n…\n… Migration checksum mismatch for migration version 7\n…\n.java:42)\nCaused by: org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\nMigration checksum mismatch for migration version 7",
        );
        assert_eq!(flyway.len(), 2, "{flyway:?}");
        assert!(flyway[0].detail, "{flyway:?}");
        // the words an excerpt's cut left half are not words of the error
        assert_eq!(
            texts(
                "Caused by: SchemaManagementException: Schema-validation: missing colu\n…\numn [settled_at] in table [ledger_entry]"
            ),
            ["caused by: schemamanagementexception: schema-validation: missing"]
        );
    }

    #[test]
    fn what_only_looks_like_a_wrapper_is_read_as_it_is() {
        // Go's and rustc's test headers are not .NET's inner-exception arrows
        let go =
            error_lines("--- FAIL: TestParse (0.00s)\n    parse_test.go:12: expected 3, got 4");
        assert_eq!(go[0].says, Says::Where, "{go:?}");
        let rust = error_lines(
            "---- tests::timeout stdout ----\nthread 'tests::timeout' panicked at src/lib.rs:9:5:\nassertion failed: done",
        );
        assert_eq!(rust[0].says, Says::Where, "{rust:?}");
        // javac's message under Maven's tag, without an error word
        assert_eq!(
            texts("[ERROR] /w/src/main/java/A.java:[12,8] unreachable statement"),
            ["[error] <path>:[<n>] unreachable statement"]
        );
        // a Windows path is not JSON's escapes
        assert_eq!(
            texts(
                r"Error: ENOENT: no such file or directory, open 'C:\Users\maya\proj\node_modules\left-pad\package.json'"
            ),
            ["error: enoent: no such file or directory, open '<path>'"]
        );
        // an object inside a sentence, and one without a message, stay lines
        assert_eq!(
            texts(r#"E       AssertionError: assert {"id": 1, "name": "alice"} == {"id": 2, "name": "bob"}"#).len(),
            1
        );
        assert_eq!(
            texts("AssertionError: Expected: {\"a\": 1}"),
            ["assertionerror: expected: {\"a\": <n>}"]
        );
        // an excerpt's kept JSON line is not read as its cut
        assert_eq!(
            texts(
                "Starting\n…\n… {\"level\":\"error\",\"msg\":\"database connection refused by host\"}\n…\ndone"
            ),
            ["database connection refused by host"]
        );
    }

    #[test]
    fn a_message_grep_numbered_or_earthly_labelled_reads_as_met_bare() {
        let bare = "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.3.1\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^17.0.0\" from @testing-library/react@12.1.5";
        // `grep -n -C3 ERESOLVE build.log`: `:` before a match, `-` around it
        let grepped: Vec<String> = bare
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{}{}{l}", 101 + i, if i == 1 { ':' } else { '-' }))
            .collect();
        assert_eq!(texts(&grepped.join("\n")), texts(bare));
        // Earthly's label, its `*failed*` variant and its own summary
        let earthly: Vec<String> = bare.lines().map(|l| format!("+deps | {l}")).collect();
        let earthly = format!(
            "{}\n+deps *failed* | Repeating the failure error...\n+deps *failed* | --> RUN npm ci\nError: earthfile line 12:4: the command\n        RUN npm ci\ndid not complete successfully. Exit code 1",
            earthly.join("\n")
        );
        assert_eq!(texts(&earthly), texts(bare));
    }

    #[test]
    fn the_causes_under_caused_by_are_read_and_a_hint_to_rerun_is_not() {
        // Deno's (anyhow's) causes, one per line under `Caused by:`, then
        // the Supabase CLI's own closing lines
        assert_eq!(
            texts(
                "Error: failed to create the graph\n\nCaused by:\n    Relative import path \"@supabase/supabase-js\" not prefixed with / or ./ or ../\n        at file:///home/t/fn/index.ts:3:30\nerror running container: exit 1\nTry rerunning the command with --debug to troubleshoot the error."
            ),
            [
                "error: failed to create the graph",
                "relative import path \"@supabase/supabase-js\" not prefixed with <path> or ./ or ../"
            ]
        );
        // cargo's numbered causes
        assert_eq!(
            texts(
                "error: failed to load manifest for workspace member `/w/app`\n\nCaused by:\n  0: failed to read `/w/app/Cargo.toml`\n  1: No such file or directory (os error 2)\n\nwarning: build ended"
            )
            .last()
            .map(String::as_str),
            Some("<n>: no such file or directory (os error <n>)")
        );
        // not what a build script printed after the cause
        assert!(
            texts(
                "error: failed to run custom build command for `openssl-sys v0.9.102`\n\nCaused by:\n  process didn't exit successfully: `/t/build-script-main` (exit status: 101)\n  --- stdout\n  cargo:rerun-if-env-changed=OPENSSL_LIB_DIR\n  OPENSSL_LIB_DIR unset\n  cargo:rerun-if-env-changed=OPENSSL_DIR"
            )
            .iter()
            .all(|t| !t.contains("openssl_lib_dir")),
            "a build script's output read as a cause"
        );
        // a build script's section is not a cause, nor what follows it
        assert!(
            texts("Caused by:\n  --- stdout\n  linking the blinky binary with the host linker")
                .is_empty()
        );
        // anyhow's numbered causes keep their numbers: no grep label
        assert_eq!(
            texts(
                "Caused by:\n    0: failed to read config\n    1: no such file or directory\n    2: os error 2"
            ),
            [
                "<n>: failed to read config",
                "<n>: no such file or directory"
            ]
        );
        // a line after the empty line that ends the causes is read as ever
        assert_eq!(texts("Caused by:\n    lock poisoned\n\nall done").len(), 1);
    }

    #[test]
    fn a_kubernetes_event_reads_as_its_message() {
        let message = "Failed to pull image \"cr.example.io/api:1.4.0\": failed to authorize: failed to fetch anonymous token: 401 Unauthorized";
        let describe =
            format!("  Warning  Failed     79s (x4 over 2m48s)  kubelet            {message}");
        let events = format!(
            "4m40s       Warning   Failed              pod/api-5b8f7d9c4-kq2mw    {message}"
        );
        assert_eq!(texts(&describe), texts(message));
        // older kubectl names the node after the kubelet
        let node = format!("  Warning  Failed  3m  kubelet, gke-pool-1-abcd  {message}");
        assert_eq!(texts(&node), texts(message));
        assert_eq!(texts(&events), texts(message));
        // a warning in a sentence keeps its words
        assert_eq!(texts("Warning: failed to read config 3 times").len(), 1);
    }

    #[test]
    fn pytest_and_a_functions_host_read_one_import_error_alike() {
        // pytest's collection header and its `E   ` marker
        assert_eq!(
            texts(
                "______________ ERROR collecting tests/test_thumbs.py ______________\nImportError while importing test module '/a/tests/test_thumbs.py'.\nE   ModuleNotFoundError: No module named 'azure.storage'"
            ),
            ["modulenotfounderror: no module named 'azure.storage'"]
        );
        // a long line that opens with what failed is read by its first
        // sentence; a long line of data is not read
        let paths = "'/home/t/.local/lib/python3.11/site-packages', ".repeat(20);
        assert_eq!(
            texts(&format!(
                "Exception: ModuleNotFoundError: No module named 'azure.storage'. Cannot find module. Current sys.path: [{paths}]"
            )),
            ["exception: modulenotfounderror: no module named 'azure.storage'."]
        );
        let link = format!(
            "  = note: \"cc\" {} \"-Wl,--fatal-warnings\"",
            "\"-L/a/b\" ".repeat(80)
        );
        assert!(texts(&link).is_empty());
    }

    #[test]
    fn json_inside_a_json_result_is_read_for_its_message() {
        let body = r#"{"code":"42501","message":"new row violates row-level security policy for table \"bookings\""}"#;
        let ansible = format!(
            "fatal: [web1]: FAILED! => {{\"changed\": false, \"rc\": 22, \"stderr\": {}}}",
            serde_json::to_string(&format!(
                "HTTP/1.1 403 Forbidden\nServer: postgrest/12.2.3\n\n{body}"
            ))
            .unwrap()
        );
        assert_eq!(texts(&ansible), texts(body));
        assert_eq!(
            texts(body),
            ["new row violates row-level security policy for table \"bookings\""]
        );
    }
}

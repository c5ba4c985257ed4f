//! An error's signature: the lines of a command's output that say what went
//! wrong, with what changes from one run to the next (paths, numbers, ids,
//! hex, URLs) replaced by placeholders, so the same error met weeks apart in
//! another checkout compares equal, and a different error of the same kind
//! (another missing module, another table) does not.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// Lines that say something failed. ASCII word boundaries (see
/// `sessions::summary`: Unicode ones fall back to the slowest engine).
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)((?-u:\b)(?:error|errors|err!|fatal|fail|failed|failure|exception|panicked|traceback|cannot|could not|couldn't|can't|unable|not found|no such|denied|refused|undefined|unresolved|unrecognized|unknown|missing|invalid|mismatch|mismatched|timed out|timeout|segmentation fault|core dumped|killed|aborted|conflict|unsatisfiable|not permitted|does not exist|doesn't exist|is not|are not|was not|were not|has not been|have not been|expected|incompatible|forbidden|[a-z]*backoff|oomkilled|evicted|errimagepull)(?-u:\b)|(?-u:\b)[a-z]+(?:error|exception)(?-u:\b)|(?-u:\b)e\d{3,5}(?-u:\b)|(?-u:\b)ts\d{4}(?-u:\b))",
    )
    .expect("valid")
});

/// A line that starts with an exception's dotted name in CamelCase without
/// an error word (`pandas…np_datetime.OutOfBoundsDatetime: Out of bounds
/// nanosecond timestamp`, Ruby's `ActiveRecord::ConnectionNotEstablished:`
/// with its message on the next line): the last line of a traceback says
/// what failed without one. A module path is asked for so that `PyTorch:
/// 2.1.0` is not one; a warning ([`Signature::of`] checks) is not a failure.
static EXCEPTION_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[A-Za-z_][A-Za-z0-9_]*(?:\.|::))+([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+):(?: [^ ]|$)",
    )
    .expect("valid")
});
/// What a log or a CI runner writes before each line, whatever it says:
/// `gh run view --log`'s job, step and time (`build\tBuild and
/// push\t2026-10-03T07:12:40.118Z `), BuildKit's step and seconds (`#17
/// 3.021 `), Spring Boot's header (`2026-11-24T09:12:05.771+01:00  WARN
/// 31877 --- [app] [main] o.s.b.SpringApplication : `) and Ruby's Logger's
/// (`E, [2026-10-08T07:55:12.004118 #1] ERROR -- : `). Read on the raw
/// line, where the tabs still are; nested ones are stripped in turn. ASCII
/// classes: `[^\t]+` compiled in 0.6 ms, a third of that as `[ -~]+`.
static LOG_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[ -~]+\t[ -~]+\t[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z ?|#[0-9]+ (?:[0-9]+\.[0-9]+ )?|[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.,]+(?:Z|[+-][0-9]{2}:?[0-9]{2})? +(?:ERROR|WARN|INFO|DEBUG|TRACE|FATAL) +[0-9]+ --- (?:\[[ -\\^-~]*\] +)*[!-~]+ +: |[A-Z], \[[ -\\^-~]*\] +(?:ERROR|WARN|INFO|DEBUG|FATAL|ANY) -- [ -9;-~]*: )",
    )
    .expect("valid")
});
/// A tool's wrapper before what failed: Maven's goal (`[ERROR] Failed to
/// execute goal org.apache…:maven-compiler-plugin:3.13.0:compile
/// (default-compile) on project ledger-api: `) and Spring's refresh
/// (`Exception encountered during context initialization - cancelling
/// refresh attempt: `). The rest of the line is the error.
static WRAPPER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\[error\] failed to execute goal [^ ]+(?: \([^)]*\))? on project [^:]+: |exception encountered during context initialization - cancelling refresh attempt: )")
        .expect("valid")
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

/// Lines every failure of a tool prints, whatever went wrong: they would
/// make two different errors look alike.
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:exit code <n>|process exited with code|command exited with|error: could not compile|warning: build failed|error: aborting due to|aborting due to|for more information about this error|some errors have detailed explanations|npm err! a complete log|npm err! for a full report|npm err! *$|npm err! <path>|error: process didn't exit successfully|caused by:$|traceback \(most recent call last\):?$|error: recipe for target|error: command failed with exit code|error: script .* exited|error: lifecycle script|the above exception was the direct cause|during handling of the above exception|note: run with `rust_backtrace|error: test failed|test result: failed|failures:$|error: <n> errors? |found <n> errors?|<n> errors? generated|error: failed to run custom build command|run with --stacktrace|run with --info|\* try:|build failed with an exception|error: could not find `cargo.toml`|failure: build failed with an exception|\* what went wrong:?$|what went wrong:$|execution failed for task '[^']*'\.?$|> a failure occurred while executing|> compilation error\. see log|compilation error\. see log|build failed in <n>|<n> actionable tasks?|\* get more help at|(?:compilation failure|there are test failures)(?:[^a-z].*)?$|process terminated with exit code:? <n>$|\[error\] -> \[help <n>\]|\[error\] re-run maven|\[error\] to see the full stack trace|\[error\] for more information about the errors|\[error\] after correcting the problems|\[error\] *$|\[error\] <url>|\[info\] build failure|build failure$|-- configuring incomplete, errors occurred|ninja: build stopped|g?make(?:\[<n>\])?: \*\*\* \[|fail +<path>(?: +(?:<n>s?|\[build failed\]|\[setup failed\]))?$|exit status <n>$|\*\* (?:build|test|archive) failed \*\*|the following build commands failed|testing failed:$|=+ short test summary info|!+ interrupted:|failed examples:$|<n> examples?, <n> failures?|error command failed with exit code|info visit <url>|elifecycle|err_pnpm_recursive_run|error: subprocess-exited-with-error|note: this error originates from a subprocess|rake aborted!$|\(see full trace by running task with --trace\)|.*loggingfailureanalysisreporter : *$|(?:.*: )?application run failed$|an error occurred while loading <path>\.?$|could not find compatible versions$|version solving (?:has )?failed\.?$|\[error\] (?:errors|failures): *$|application failed to start$|.*listenerexecutionfailedexception: listener failed$|standarderror: an error has occurred, this and all later migrations canceled:?(?: \(standarderror\))?$|.*for more information see above\.?$|husky - [^ ]+ hook exited with code|husky - [^ ]+ script failed|✖ [^ ]+ (?:--[^ ]+ )?failed to|✖ [^ ]+ found some errors)",
    )
    .expect("valid")
});

static ANSI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").expect("valid"));
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[a-z][a-z0-9+.-]*://[^\s'`)\]]+").expect("valid"));
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").expect("valid")
});
/// Paths with at least one slash (`/home/x/a.rs:4:5`, `src/db/x.rs`,
/// `C:\x\y`), with any `:line:col` after them.
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:[A-Za-z]:\\|~?/|\.{1,2}/|[\w@.+-]+/)[\w@.+~-]*(?:[/\\][\w@.+~-]*)*(?::\d+)*")
        .expect("valid")
});
static HEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:0x[0-9a-f]+|[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*)(?-u:\b)")
        .expect("valid")
});
static MIXED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?-u:\b)[a-z0-9]{5,}(?-u:\b)").expect("valid"));
/// A number, with a short unit stuck to it (`10m`, `512Mi`, `14ms`); a
/// version, an address or an amount (`3.10.12`, `127.0.0.1`, `1.299,00`)
/// is one number.
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)\d+(?:[.,]\d+)*(?:[a-z]{1,3})?(?-u:\b)").expect("valid")
});
/// A quoted name in an error line (an apostrophe inside a word, as in
/// "can't", opens no quote).
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[^A-Za-z0-9_'])'([^' \t][^']*)'|"([^" \t][^"]*)"|`([^` \t][^`]*)`|‘([^’]+)’|“([^”]+)”"#).expect("valid")
});
/// Longest quoted name (a longer quote is a sentence, not a name).
const QUOTED_CHARS: usize = 61;
/// The header of a Go program's log line (klog, glog: `E1014
/// 08:03:11.220417`): its level, the day and the time of the run.
static GLOG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[IWEF]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?").expect("valid")
});
/// A line under a compiler's error that says what it is about (javac's
/// `symbol:` and `location:`).
static DETAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:\[error\][ \t]+)?(?:symbol|location)[ \t]*:").expect("valid")
});
/// A moment as logs write it (`2026-10-30T10:11:48.310+01:00`,
/// `2026-11-18 19:04:11.772`, `[2026-10-08T07:55:12.004118 #1]`), with
/// its zone (`2026-11-24 09:12:05.771 WET` in winter, `WEST` in summer).
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2}| (?:UTC|GMT|WET|WEST|CET|CEST|EET|EEST|BST|IST|EST|EDT|CST|CDT|MST|MDT|PST|PDT|JST|KST|AEST|AEDT|NZST|NZDT|MSK|SGT|HKT)(?-u:\b))?")
        .expect("valid")
});
/// A frame of a Java, Kotlin or JavaScript stack trace (`at
/// com.x.Y.from(Y.java:67)`): where, not what.
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^at [A-Za-z0-9_$.<>/@:-]+ ?\(.*\)$").expect("valid"));
/// A line that says which test failed or where (`--- FAIL: TestX`, `FAIL
/// src/a.test.ts > formatPrice > …`, surefire's `<<< FAILURE!`): two
/// failures of different tests may have one cause, so when they share a
/// line that says what failed, such lines do not make them two messages
/// about different things (the word likeness still reads them).
static LOCATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<<< (?:failure|error)!|^\[error\] +[a-z0-9_$]+\.[a-z0-9_$]+:<n> |^\[error\] +[a-z0-9_$.]+(?::<n>)? » |^fail <path> >|^--- fail:|^failed <path>::|^rspec <path>|^test [^ ]+ \.\.\. failed|^---- [^ ]+ stdout ----|^\[error\] tests run:|^tests run:.*failures")
        .expect("valid")
});
/// An assertion that failed (`AssertionError: expected 3 to be 4`,
/// `org.opentest4j.AssertionFailedError: expected: <1> but was: <2>`,
/// pytest's `E   assert 3 == 4`), normalised.
static EXPECTATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"assertion[a-z0-9_]*error|^e? *assert |expected:? .* but (?:was|got|found)|expected .* to (?:be|equal|have|contain|match)")
        .expect("valid")
});
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));

/// Least likeness of an error that holds a line of the other and names
/// nothing else ([`Signature::shared_lines`]); past [`super::errors::STRONG`].
const SAME_LINE: f64 = 0.9;
/// How much of one error the other must hold, by its words' weight, for a
/// shared line to make them one error (two errors that share a line but
/// little else are two errors a tool wrapped alike). With [`ONE_MESSAGE`],
/// chosen on the tuning halves of the dev, written and fresh sets together
/// (replaying their candidates when chosen): the most fixes found (61 of
/// 78) with at least 95% of the never-met errors left alone (73 of 76);
/// with no floor, 18 rather than 13 of the fresh half's 26 fixes, but 25
/// rather than 28 of its 30 never-met errors.
const WHOLE: f64 = 0.8;
/// Least share of two lines' word weight they have in common for them to
/// be one message when each has words of its own.
const ONE_MESSAGE: f64 = 0.6;
/// Least words of a line found whole in the other error's line.
const LINE_WORDS: usize = 4;
/// Lines kept from the end of a failed command's output that has no line
/// saying what failed.
const TAIL_LINES: usize = 3;
/// Most error lines kept: the first few say what failed; the rest repeat it.
const MAX_LINES: usize = 8;
/// Output read, in bytes: an error says what it is near its start or its
/// end, and a megabyte of build log must not slow the hook.
const HEAD_BYTES: usize = 16 * 1024;
const TAIL_BYTES: usize = 8 * 1024;

/// Some of a signature's lines (at most [`MAX_LINES`]), by their place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineSet(u16);

impl LineSet {
    /// This set and line `i` (a line past the 16th is never in a set).
    pub fn with(self, i: usize) -> LineSet {
        LineSet(self.0 | 1u16.checked_shl(i as u32).unwrap_or(0))
    }

    pub fn contains(self, i: usize) -> bool {
        self.0 & 1u16.checked_shl(i as u32).unwrap_or(0) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lines in both.
    pub fn and(self, other: LineSet) -> LineSet {
        LineSet(self.0 & other.0)
    }
}

/// One normalised error line and its words.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorLine {
    pub text: String,
    pub words: BTreeSet<String>,
    pub says: Says,
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
    /// A raw line of output as a signature keeps it: normalised, Maven's
    /// goal wrapper stripped, or None when every failure of some tool
    /// prints it ([`GENERIC`]).
    fn read(raw: &str) -> Option<ErrorLine> {
        let text = normalise(raw);
        let text = match WRAPPER.find(&text) {
            Some(m) => text[m.end()..]
                .trim_end_matches(" -> [help <n>]")
                .to_string(),
            None => text,
        };
        let text = match TRAILER.find(&text) {
            Some(m) if words(&text[..m.start()]).len() >= LINE_WORDS => {
                text[..m.start()].to_string()
            }
            _ => text,
        };
        if GENERIC.is_match(&text) {
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
        Some(ErrorLine { text, words, says })
    }
}

impl ErrorLine {
    /// The words of the labels before the line's message: its leading
    /// `: `-separated names (one token each: an exception's class, a
    /// tool's name), while [`LINE_WORDS`] words follow them
    /// (`activerecord::connectionnotestablished` and `pg::connectionbad`
    /// before one message). Not words of a sentence: in `error installing
    /// pg: failed to build gem native extension` the gem is what failed.
    fn labels(&self) -> BTreeSet<String> {
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

/// What an error output comes down to.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub lines: Vec<ErrorLine>,
}

/// Words too common in error output to tell two errors apart.
const PLAIN: &[&str] = &[
    "error", "errors", "err", "the", "a", "an", "to", "of", "in", "at", "for", "on", "is", "are",
    "be", "was", "with", "not", "no", "and", "or", "by", "from", "this", "that", "it", "n", "path",
    "hex", "id", "url", "time", "failed", "fatal", "warning", "note", "help", "line", "file",
    "npm",
];

impl Signature {
    /// The signature of an error output, or None when no line of it says
    /// what failed (a bare "Exit code 1"): nothing to recognise it by.
    pub fn of(output: &str) -> Option<Signature> {
        let mut lines: Vec<ErrorLine> = Vec::new();
        let text = bounded(output);
        let mut all: Vec<&str> = text.lines().collect();
        uncut(&mut all);
        let all: Vec<&str> = all.into_iter().map(message).collect();
        for (i, raw) in all.iter().enumerate() {
            if raw.is_empty()
                || raw.len() > 600
                || FRAME.is_match(raw)
                || !(ERROR_LINE.is_match(raw) || is_exception(raw))
            {
                continue;
            }
            // "thread 'main' panicked at src/main.rs:4:5:" says what
            // failed on the next line: the two are one line of the error
            // (not "Traceback (most recent call last):", which every
            // Python error prints, and its first frame).
            let joined;
            let raw = match all.get(i + 1) {
                Some(next)
                    if raw.ends_with(':')
                        && !next.is_empty()
                        && next.len() <= 600
                        && !GENERIC.is_match(&normalise(raw)) =>
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
            if line.words.len() < 2 || lines.iter().any(|l| l.text == line.text) {
                continue;
            }
            lines.push(line);
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
                lines.push(more);
            }
            if lines.len() >= MAX_LINES {
                lines.truncate(MAX_LINES);
                break;
            }
        }
        (!lines.is_empty()).then_some(Signature { lines })
    }

    /// The signature of the output of a command known to have failed: as
    /// [`Signature::of`], else its last lines that say something (a tool
    /// that says what went wrong without an error word: "pyproject.toml
    /// changed significantly since poetry.lock was last generated").
    pub fn of_failure(output: &str) -> Option<Signature> {
        Signature::of(output).or_else(|| Signature::of_tail(output))
    }

    /// The last [`TAIL_LINES`] lines of `output` of three words or more
    /// that no failure of any tool prints.
    fn of_tail(output: &str) -> Option<Signature> {
        let text = bounded(output);
        let mut all: Vec<&str> = text.lines().collect();
        uncut(&mut all);
        let mut lines: Vec<ErrorLine> = Vec::new();
        for raw in all.into_iter().rev().map(message) {
            if raw.is_empty() || raw.len() > 600 {
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
        (!lines.is_empty()).then_some(Signature { lines })
    }

    /// A stable key for "this error in this session" (once per session).
    pub fn key(&self) -> String {
        let first: Vec<&str> = self.lines.iter().take(3).map(|l| l.text.as_str()).collect();
        format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(first.join("\n").as_bytes())
        )
    }

    /// Every distinctive word of the signature.
    pub fn words(&self) -> BTreeSet<String> {
        self.lines
            .iter()
            .flat_map(|l| l.words.iter().cloned())
            .collect()
    }

    /// How alike `past` is to this error, 0 to 1: how well each line of one
    /// finds its match in the other (weighted by its words, both ways: two
    /// errors of one kind share their generic lines but not the line that
    /// names what failed), times the likeness of their words as a whole.
    /// Compare signatures of outputs cut the same way (see
    /// [`Signature::of_window`]): the index keeps a long result's two ends.
    pub fn likeness(&self, past: &Signature) -> f64 {
        let ours = self.words();
        let theirs = past.words();
        let whole = jaccard(&ours, &theirs);
        whole
            * line_agreement(&self.lines, &past.lines).min(line_agreement(&past.lines, &self.lines))
    }

    /// How alike `past` is to this error, 0 to 1. At least [`SAME_LINE`]
    /// when `shared` (our telling lines whole in a line of `past`, or
    /// holding one: [`Signature::shared_lines`] of those that tell) is not
    /// empty and no line pair is one message naming two things: the
    /// same message inside another tool's output, or cut (with this, the
    /// written set's tuning half found 0.82 of the fixes rather than 0.68,
    /// and stayed as silent). Else [`Signature::word_likeness`].
    pub fn weighted_likeness(
        &self,
        past: &Signature,
        weight: &dyn Fn(&str) -> f64,
        shared: LineSet,
    ) -> f64 {
        if !shared.is_empty() && !self.names_another_in_a_line(past, weight) {
            // what went wrong, whichever test it was
            let (ours, theirs) = (self.what(), past.what());
            let held = weighted_agreement(&ours, &theirs, weight);
            let converse = weighted_agreement(&theirs, &ours, weight);
            // one error whole inside the other, not two that share a line
            if held.max(converse) >= WHOLE {
                return SAME_LINE + (1.0 - SAME_LINE) * held.powf(0.8) * converse.powf(0.2);
            }
        }
        self.word_likeness(past, weight)
    }

    /// How alike `past` is by its words, each weighing `weight(word)` (its
    /// rarity among past results, so that `openssl` or `eresolve` count and
    /// `compiling` hardly does); 0 when the two quote different names
    /// (`'pyarrow'` and `'psycopg2'`: the same kind of error about another
    /// thing) or [`names_another_thing`].
    fn word_likeness(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> f64 {
        let (ours, theirs) = (self.subjects(), past.subjects());
        if !ours.is_empty() && !theirs.is_empty() && ours.is_disjoint(&theirs) {
            return 0.0;
        }
        if names_another_thing(&self.words(), &past.words(), weight) {
            return 0.0;
        }
        self.word_agreement(past, weight)
    }

    /// Mostly how much of this error the past one holds (a new run often
    /// shows only part of the old output: its tail, one of its lines),
    /// partly the converse. The weights (0.8 / 0.2) were chosen on the
    /// tuning halves of tests/data/moment_dev.toml and moment_written.toml.
    fn word_agreement(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> f64 {
        let (ours, theirs): (Vec<&ErrorLine>, Vec<&ErrorLine>) =
            (self.lines.iter().collect(), past.lines.iter().collect());
        let held = weighted_agreement(&ours, &theirs, weight);
        let converse = weighted_agreement(&theirs, &ours, weight);
        held.powf(0.8) * converse.powf(0.2)
    }

    /// Our lines that say what went wrong ([`Says::What`]), of
    /// [`LINE_WORDS`] words or more, that are whole inside a line of
    /// `past`, and those that hold a whole line of it
    /// (`modulenotfounderror: no module named 'psycopg2'` in pytest's `e
    /// modulenotfounderror: …`; terraform's message at the end of a longer
    /// line).
    pub fn shared_lines(&self, past: &Signature) -> LineSet {
        let inside = |a: &ErrorLine, b: &ErrorLine| {
            a.words.len() >= LINE_WORDS && contains_words(&b.text, &a.text)
        };
        let mut set = LineSet::default();
        for (i, l) in self.lines.iter().enumerate() {
            if l.says == Says::What && past.lines.iter().any(|m| inside(l, m) || inside(m, l)) {
                set = set.with(i);
            }
        }
        set
    }

    /// Whether a line of this error and one of `past` are one message
    /// naming two things: each has words the other lacks, and they share
    /// [`ONE_MESSAGE`] of their words' weight, or what differs is one or two
    /// words each in a line they mostly share (`no module named 'polars'`
    /// and `'pyarrow'`; `peer eslint@…` and `peer react@…`;
    /// `crashloopbackoff` and `imagepullbackoff` in one pod's line). Not
    /// when all that differs is in the lines' labels ([`ErrorLine::labels`]:
    /// Rails' `ActiveRecord::ConnectionNotEstablished: connection to
    /// server … failed` and pg's `PG::ConnectionBad: connection …`).
    fn names_another_in_a_line(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> bool {
        let sum = |words: &mut dyn Iterator<Item = &String>| words.map(|w| weight(w)).sum::<f64>();
        let past_lines = past.what();
        self.what().into_iter().any(|l| {
            past_lines.iter().any(|m| {
                let ours = l.words.difference(&m.words).count();
                let theirs = m.words.difference(&l.words).count();
                if ours == 0 || theirs == 0 {
                    return false;
                }
                let (our_labels, their_labels) = (l.labels(), m.labels());
                if l.words.difference(&m.words).all(|w| our_labels.contains(w))
                    && m.words
                        .difference(&l.words)
                        .all(|w| their_labels.contains(w))
                {
                    return false;
                }
                let shared = l.words.intersection(&m.words).count();
                let both = sum(&mut l.words.intersection(&m.words));
                let either = sum(&mut l.words.union(&m.words));
                (either > 0.0 && both / either >= ONE_MESSAGE)
                    || (ours <= 2 && theirs <= 2 && shared >= ours.max(theirs))
            })
        })
    }

    /// The lines that say what went wrong (not which test or where).
    fn what(&self) -> Vec<&ErrorLine> {
        self.lines
            .iter()
            .filter(|l| l.says != Says::Where)
            .collect()
    }

    /// The names the error is about: what its lines quote (`'pandas'`,
    /// `` `serde_json` ``, `"orders"`), placeholders left out.
    pub fn subjects(&self) -> BTreeSet<String> {
        self.lines
            .iter()
            .flat_map(|l| QUOTED.captures_iter(&l.text))
            .filter_map(|c| {
                c.iter()
                    .skip(1)
                    .flatten()
                    .next()
                    .map(|m| m.as_str().trim().to_string())
            })
            .filter(|q| {
                q.chars().count() <= QUOTED_CHARS
                    && q.chars().any(char::is_alphabetic)
                    && !q.starts_with('<')
            })
            .collect()
    }

    /// The signature of `output` as the index keeps a failed result
    /// (`transcript::error_excerpt`: its start and its end; `chars` is
    /// `index.tool_result_chars`), else of all of it when that says
    /// nothing, else of the kept part's last lines ([`Signature::of_failure`]).
    pub fn of_window(output: &str, chars: usize) -> Option<Signature> {
        let cut = crate::platform::agents::transcript::error_excerpt(output, chars);
        Signature::of(&cut)
            .or_else(|| Signature::of(output))
            .or_else(|| Signature::of_tail(&cut))
    }
}

/// Whether each of two errors has a word the other lacks that is at least
/// as rare as any word they share: the same message about two different
/// things, named without quotes (`cannot find -lpq` and `cannot find
/// -lsqlite3`). A recurrence shares its rarest words (`openssl`, `e0373`);
/// what differs is commoner (a version, a word of the tool's chatter).
fn names_another_thing(
    ours: &BTreeSet<String>,
    theirs: &BTreeSet<String>,
    weight: &dyn Fn(&str) -> f64,
) -> bool {
    let rarest =
        |words: &mut dyn Iterator<Item = &String>| words.map(|w| weight(w)).fold(0.0, f64::max);
    let shared = rarest(&mut ours.intersection(theirs));
    let only_ours = rarest(&mut ours.difference(theirs));
    let only_theirs = rarest(&mut theirs.difference(ours));
    only_ours > 0.0 && only_theirs > 0.0 && only_ours >= shared && only_theirs >= shared
}

/// How much of the lines of `a` the lines of `b` hold: each line of `a`
/// by its best match in `b` (the weight of their shared words over its
/// own), weighted by its words.
fn weighted_agreement(a: &[&ErrorLine], b: &[&ErrorLine], weight: &dyn Fn(&str) -> f64) -> f64 {
    let mut sum = 0.0;
    let mut total = 0.0;
    for l in a {
        let w: f64 = l.words.iter().map(|x| weight(x)).sum();
        let best = b
            .iter()
            .map(|m| {
                let both: f64 = l.words.intersection(&m.words).map(|x| weight(x)).sum();
                if w == 0.0 { 0.0 } else { both / w }
            })
            .fold(0.0, f64::max);
        sum += best * w;
        total += w;
    }
    if total == 0.0 { 0.0 } else { sum / total }
}

/// How well the lines of `a` find a like line in `b`, each weighted by its
/// words.
fn line_agreement(a: &[ErrorLine], b: &[ErrorLine]) -> f64 {
    let mut sum = 0.0;
    let mut weight = 0.0;
    for l in a {
        let best = b
            .iter()
            .map(|m| jaccard(&l.words, &m.words))
            .fold(0.0, f64::max);
        sum += best * l.words.len() as f64;
        weight += l.words.len() as f64;
    }
    if weight == 0.0 { 0.0 } else { sum / weight }
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// The head and the tail of a long output.
fn bounded(output: &str) -> std::borrow::Cow<'_, str> {
    if output.len() <= HEAD_BYTES + TAIL_BYTES {
        return std::borrow::Cow::Borrowed(output);
    }
    let mut head = HEAD_BYTES;
    while !output.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = output.len() - TAIL_BYTES;
    while !output.is_char_boundary(tail) {
        tail += 1;
    }
    std::borrow::Cow::Owned(format!("{}\n{}", &output[..head], &output[tail..]))
}

/// A line with what varies between runs replaced: lower case, no colours,
/// `<url>`, `<id>`, `<path>`, `<hex>`, `<n>`, single spaces.
pub fn normalise(line: &str) -> String {
    let s = ANSI.replace_all(line, "");
    let s = GLOG.replace_all(&s, "<time>");
    let s = TIMESTAMP.replace_all(&s, "<time>");
    let s = URL.replace_all(&s, "<url>");
    let s = UUID.replace_all(&s, "<id>");
    let s = PATH.replace_all(&s, |c: &regex::Captures| {
        let m = &c[0];
        // `a/b` inside a word such as `and/or` or `I/O` is not a path
        if m.len() <= 4 && !m.starts_with('/') {
            m.to_string()
        } else {
            "<path>".to_string()
        }
    });
    let s = HEX.replace_all(&s, |c: &regex::Captures| {
        let m = &c[0];
        if m.len() >= 7 || m.starts_with("0x") || m.starts_with("0X") {
            "<hex>".to_string()
        } else {
            m.to_string()
        }
    });
    let s = MIXED.replace_all(&s, |c: &regex::Captures| {
        let m = &c[0];
        // letters and digits taking turns more than once (`x2k9p`, a pod's
        // suffix) are a generated name; `e0432` and `sha512` are not
        let turns = m
            .as_bytes()
            .windows(2)
            .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
            .count();
        if turns >= 3 {
            "<id>".to_string()
        } else {
            m.to_string()
        }
    });
    let s = NUMBER.replace_all(&s, "<n>");
    SPACES
        .replace_all(s.trim(), " ")
        .to_lowercase()
        .trim()
        .to_string()
}

/// Lines without the part words an excerpt's cut left either side of its
/// `…` line ([`Signature::of_window`]): `missing colu` is not a word of the
/// error that a whole line lacks. The causes an excerpt kept from the
/// middle (`… Caused by: …`) are whole lines: only their mark goes.
fn uncut(lines: &mut [&str]) {
    for i in 0..lines.len() {
        if lines[i].trim() == "…" {
            if i > 0 && !lines[i - 1].starts_with("… ") {
                lines[i - 1] = lines[i - 1].rsplit_once(' ').map_or("", |(whole, _)| whole);
            }
            if let Some(after) = lines.get(i + 1)
                && !after.starts_with("… ")
            {
                lines[i + 1] = after.split_once(' ').map_or("", |(_, whole)| whole);
            }
        }
    }
    for line in lines.iter_mut() {
        if let Some(kept) = line.strip_prefix("… ") {
            *line = kept;
        }
    }
}

/// A raw line without what a log or a CI runner wrote before it
/// ([`LOG_HEADER`]), trimmed.
fn message(raw: &str) -> &str {
    let mut line = raw.trim();
    // at most three: `gh run view --log` around BuildKit around a log
    for _ in 0..3 {
        match LOG_HEADER.find(line) {
            Some(m) if m.end() > 0 => line = line[m.end()..].trim(),
            _ => break,
        }
    }
    line
}

/// Whether the line after an exception's goes on with its message: not a
/// frame, not a line read for itself (an error line, the next exception).
fn is_continuation(line: &str) -> bool {
    !line.is_empty()
        && line.len() <= 600
        && !FRAME.is_match(line)
        && !line.starts_with("Caused by")
        && !ERROR_LINE.is_match(line)
        && !is_exception(line)
}

/// Whether `line` starts with an exception's name ([`EXCEPTION_NAME`]) that
/// is not a warning's.
fn is_exception(line: &str) -> bool {
    EXCEPTION_NAME
        .captures(line)
        .is_some_and(|c| !c[1].ends_with("Warning"))
}

/// Whether `needle` is in `hay` with no word character either side.
fn contains_words(hay: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    hay.match_indices(needle).any(|(i, _)| {
        !word(hay[..i].chars().next_back()) && !word(hay[i + needle.len()..].chars().next())
    })
}

/// The distinctive words of a normalised line.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 2 && !PLAIN.contains(w))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_changes_between_runs_is_replaced() {
        assert_eq!(
            normalise(
                "  --> /home/maya/code/ledger/src/db/accounts.rs:47:18 at 0x7ffd3a2b in 1234ms"
            ),
            "--> <path> at <hex> in <n>"
        );
        assert_eq!(
            normalise("E1014 08:03:11.220417  113208 memcache.go:265] couldn't get"),
            "<time> <n> memcache.go:<n>] couldn't get"
        );
        assert_eq!(
            normalise("request 3f2a9c1e-1b2c-4d5e-8f90-1234567890ab failed: deadbeef12"),
            "request <id> failed: <hex>"
        );
        assert_eq!(
            normalise("error[E0432]: unresolved import `serde_json`"),
            "error[e0432]: unresolved import `serde_json`"
        );
    }

    #[test]
    fn the_same_error_elsewhere_is_alike_and_another_of_its_kind_is_not() {
        let a = Signature::of("Traceback (most recent call last):\n  File \"/home/a/etl/run.py\", line 3, in <module>\nModuleNotFoundError: No module named 'pandas'").unwrap();
        let b = Signature::of("Exit code 1\nTraceback (most recent call last):\n  File \"/srv/b/run.py\", line 9, in <module>\nModuleNotFoundError: No module named 'pandas'").unwrap();
        let c = Signature::of("Traceback (most recent call last):\n  File \"/srv/b/run.py\", line 9, in <module>\nModuleNotFoundError: No module named 'numpy'").unwrap();
        assert_eq!(a.key(), b.key());
        assert!(a.likeness(&b) > 0.9, "{}", a.likeness(&b));
        assert!(a.likeness(&c) < 0.7, "{}", a.likeness(&c));
    }

    #[test]
    fn a_panic_is_told_apart_by_its_message_on_the_next_line() {
        let a = Signature::of("thread 'main' panicked at src/main.rs:23:10:\ncalled `Result::unwrap()` on an `Err` value: Os { code: 98, kind: AddrInUse }").unwrap();
        let b = Signature::of("thread 'main' panicked at src/main.rs:40:5:\ncalled `Option::unwrap()` on a `None` value").unwrap();
        assert!(a.likeness(&b) < 0.5, "{}", a.likeness(&b));
        assert_eq!(
            normalise("pod shop-7d9c6b5f4-x2k9p in E0432"),
            "pod shop-<hex>-<id> in e0432"
        );
    }

    #[test]
    fn weighed_by_rarity_part_of_an_error_is_the_error_and_another_name_is_not() {
        // every word weighs 1 but `compiling`, common in every build log
        let weight = |w: &str| if w == "compiling" { 0.05 } else { 1.0 };
        let past = Signature::of("error: could not find `openssl` (pkg-config failed)\nCould not find directory of OpenSSL installation, and this `-sys` crate cannot proceed\nMake sure you also have the development packages of openssl installed").unwrap();
        let tail = Signature::of("Could not find directory of OpenSSL installation, and this `-sys` crate cannot proceed").unwrap();
        assert!(
            tail.weighted_likeness(&past, &weight, tail.shared_lines(&past)) >= 0.86,
            "{}",
            tail.weighted_likeness(&past, &weight, tail.shared_lines(&past))
        );
        assert!(
            tail.likeness(&past) < 0.72,
            "the unweighted likeness misses it"
        );
        let a = Signature::of("ModuleNotFoundError: No module named 'pyarrow'").unwrap();
        let b = Signature::of("ModuleNotFoundError: No module named 'psycopg2'").unwrap();
        assert_eq!(a.weighted_likeness(&b, &weight, a.shared_lines(&b)), 0.0);
        let lpq = Signature::of("error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lpq: No such file or directory").unwrap();
        let lsqlite = Signature::of("error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot find -lsqlite3: No such file or directory").unwrap();
        let rare = |w: &str| {
            if w == "lpq" || w == "lsqlite3" {
                3.0
            } else {
                1.0
            }
        };
        assert_eq!(
            lpq.weighted_likeness(&lsqlite, &rare, lpq.shared_lines(&lsqlite)),
            0.0,
            "another library"
        );
        assert!(lpq.weighted_likeness(&lpq, &rare, lpq.shared_lines(&lpq)) > 0.99);
        let named = Signature::of("error: can't find 'foo' in this scope").unwrap();
        assert_eq!(named.subjects(), BTreeSet::from(["foo".to_string()]));
        assert!(a.weighted_likeness(&a, &weight, a.shared_lines(&a)) > 0.99);
    }

    #[test]
    fn a_line_inside_another_tools_output_is_the_error_unless_a_line_names_another_thing() {
        let weight = |_: &str| 1.0;
        let runpy = Signature::of("Traceback (most recent call last):\n  File \"<frozen runpy>\", line 198, in _run_module_as_main\nModuleNotFoundError: No module named 'psycopg2'").unwrap();
        let pytest = |name: &str| {
            Signature::of(&format!("_____ ERROR collecting tests/test_wh.py _____\nImportError while importing test module '/srv/tests/test_wh.py'.\nE   ModuleNotFoundError: No module named '{name}'\n!!!! Interrupted: 1 error during collection !!!!")).unwrap()
        };
        let same = pytest("psycopg2");
        assert!(
            same.word_likeness(&runpy, &weight) < 0.86,
            "alike by words: {}",
            same.word_likeness(&runpy, &weight)
        );
        assert!(same.weighted_likeness(&runpy, &weight, same.shared_lines(&runpy)) >= 0.9);
        // the line is there but told nothing when other conversations hold it too
        let shared = same.shared_lines(&runpy);
        assert!(shared.contains(2) && !shared.contains(0), "{shared:?}");
        assert!(
            same.weighted_likeness(&runpy, &weight, shared.and(LineSet::default().with(0))) < 0.86
        );
        // the same message about another module is another error
        let other = pytest("polars");
        assert!(other.weighted_likeness(&runpy, &weight, other.shared_lines(&runpy)) < 0.86);
        // a pod's line with another status: one message naming two things
        let crash = Signature::of("error: deployment \"shop\" exceeded its progress deadline\nshop-7d9c6b5f4-x2k9p 0/1 CrashLoopBackOff 4 2m").unwrap();
        let pull = Signature::of("error: deployment \"shop\" exceeded its progress deadline\nshop-7d9c6b5f4-q8w2z 0/1 ImagePullBackOff 0 2m").unwrap();
        assert!(crash.weighted_likeness(&pull, &weight, crash.shared_lines(&pull)) < 0.86);
    }

    #[test]
    fn a_failure_without_an_error_word_is_known_by_its_last_lines() {
        let out = "Installing dependencies from lock file\n\npyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock [--no-update]` to fix the lock file.\n";
        assert_eq!(Signature::of(out), None);
        let sig = Signature::of_failure(out).unwrap();
        assert_eq!(sig.lines.len(), 2);
        assert!(
            sig.lines[1]
                .text
                .starts_with("pyproject.toml changed significantly")
        );
        // what said nothing stays nothing
        assert_eq!(Signature::of_failure("Exit code 1\n\n42\n"), None);
    }

    #[test]
    fn exception_names_test_failures_and_amounts_are_read() {
        let tb = Signature::of("Traceback (most recent call last):\n  File \"x.py\", line 3, in f\npandas._libs.tslibs.np_datetime.OutOfBoundsDatetime: Out of bounds nanosecond timestamp: 9999-12-31 00:00:00").unwrap();
        assert!(
            tb.lines
                .iter()
                .any(|l| l.words.contains("outofboundsdatetime")),
            "{tb:?}"
        );
        // a traceback's first line is not joined to the frame under it
        assert!(
            tb.lines.iter().all(|l| !l.text.contains("traceback")),
            "{tb:?}"
        );
        let vitest = Signature::of(" FAIL  src/lib/money.test.ts > formatPrice > formats small EUR amounts\nAssertionError: expected '12,50 €' to be '1.299,00 €' // Object.is equality").unwrap();
        assert!(vitest.words().contains("formatprice"), "{vitest:?}");
        assert!(
            vitest.lines[1]
                .text
                .contains("expected '<n> €' to be '<n> €'"),
            "{vitest:?}"
        );
    }

    #[test]
    fn java_output_is_read_for_what_failed_not_where() {
        let weight = |_: &str| 1.0;
        // a frame is where, not what; javac's symbol line is part of its error
        let javac = Signature::of("[ERROR] /w/src/A.java:[12,8] cannot find symbol\n  symbol:   class FxRateClient\n  location: class A\n\tat com.x.Y.from(Y.java:67)").unwrap();
        assert_eq!(javac.lines.len(), 1, "{javac:?}");
        assert!(javac.words().contains("fxrateclient"), "{javac:?}");
        // a log's moment, with its zone, is not part of the error
        assert_eq!(
            normalise(
                "2026-11-24 09:12:05.771 WET [412] FATAL: lock file \"postmaster.pid\" already exists"
            ),
            normalise(
                "2026-07-24 10:12:05.101 WEST [77] FATAL: lock file \"postmaster.pid\" already exists"
            )
        );
        assert!(normalise("2026-10-30T10:11:48.310+01:00 ERROR").starts_with("<time> error"));
        // the same message in two tests is one error; which test is not
        // a second thing named
        let test = |name: &str| {
            Signature::of(&format!("[ERROR] com.x.{name} -- Time elapsed: 0.03 s <<< ERROR!\ncom.fasterxml.jackson.databind.exc.InvalidDefinitionException: Java 8 date/time type `java.time.Instant` not supported by default")).unwrap()
        };
        let (a, b) = (
            test("EventsTest.serializes"),
            test("EntryControllerTest.returnsEntries"),
        );
        assert_eq!(a.lines[0].says, Says::Where);
        assert!(a.weighted_likeness(&b, &weight, a.shared_lines(&b)) >= 0.9);
        // Spring's "application run failed" says nothing of its own
        assert_eq!(
            Signature::of(
                "2026-10-02T08:41:17.930+01:00 ERROR 22710 --- [api] [main] o.s.boot.SpringApplication : Application run failed"
            ),
            None
        );
    }

    #[test]
    fn wrappers_are_stripped_and_real_errors_kept() {
        let weight = |_: &str| 1.0;
        // Maven's goal wrapper goes, what failed stays
        let maven = Signature::of("[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project ledger-api: Fatal error compiling: error: release version 21 not supported -> [Help 1]").unwrap();
        assert_eq!(
            maven.lines[0].text,
            "fatal error compiling: error: release version <n> not supported"
        );
        assert_eq!(
            Signature::of(
                "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project ledger-api: There are test failures."
            ),
            None
        );
        // make's own error is an error; its recipe line is not
        assert!(
            Signature::of_failure(
                "make: *** No rule to make target 'config.h', needed by 'main.o'.  Stop."
            )
            .is_some()
        );
        assert_eq!(
            Signature::of_failure("make: *** [Makefile:12: test] Error 1"),
            None
        );
        // javac's symbol under a Maven [ERROR]
        let javac = Signature::of(
            "[ERROR] /w/A.java:[12,8] cannot find symbol\n[ERROR]   symbol:   class FxRateClient",
        )
        .unwrap();
        assert!(javac.words().contains("fxrateclient"), "{javac:?}");
        // a log level after a moment is not a zone
        assert_eq!(
            normalise("2026-11-24 09:12:05,771 ERROR root: db down"),
            "<time> error root: db down"
        );
        // a version or a warning is no exception
        assert!(Signature::of("PyTorch: 2.1.0").is_none());
        assert!(!is_exception(
            "urllib3.exceptions.InsecureRequestWarning: Unverified HTTPS request"
        ));
        // two tests failing on the same bare assertion are two failures
        let test = |name: &str| {
            Signature::of(&format!("[ERROR] com.x.{name} -- Time elapsed: 0.01 s <<< FAILURE!\norg.opentest4j.AssertionFailedError: expected: <3> but was: <4>")).unwrap()
        };
        let (a, b) = (test("OrderTest.createsOrder"), test("UserTest.deletesUser"));
        assert_eq!(a.lines[1].says, Says::Expected);
        assert!(a.weighted_likeness(&b, &weight, a.shared_lines(&b)) < 0.86);
        assert!(a.weighted_likeness(&a, &weight, a.shared_lines(&a)) > 0.99);
        // a line set never holds a line past its 16th
        assert!(!LineSet::default().with(40).contains(40));
    }

    #[test]
    fn what_logs_and_runners_write_around_a_message_is_not_read() {
        let lines = |output: &str| -> Vec<String> {
            Signature::of(output)
                .map(|s| s.lines.into_iter().map(|l| l.text).collect())
                .unwrap_or_default()
        };
        // gh run view --log around BuildKit, and the class Ruby repeats
        assert_eq!(
            lines(
                "build\tBuild and push\t2026-10-03T07:12:40.1182274Z #17 3.021 ArgumentError: Missing `secret_key_base` for 'production' environment (ArgumentError)"
            ),
            ["argumenterror: missing `secret_key_base` for 'production' environment"]
        );
        // Spring Boot's log header and its refresh wrapper
        assert_eq!(
            lines(
                "2026-11-24T09:12:05.771+01:00  WARN 31877 --- [ledger-api] [           main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'flywayInitializer'"
            ),
            [
                "org.springframework.beans.factory.beancreationexception: error creating bean with name 'flywayinitializer'"
            ]
        );
        // Jackson's reference chain says where, not what
        let instant = |chain: &str| {
            lines(&format!(
                "com.fasterxml.jackson.databind.exc.InvalidDefinitionException: Java 8 date/time type `java.time.Instant` not supported by default: add module \"com.fasterxml.jackson.datatype:jackson-datatype-jsr310\" to enable handling (through reference chain: {chain})"
            ))
        };
        assert_eq!(
            instant("a.Entry[\"bookedAt\"]"),
            instant("b.Payment[\"settledAt\"]")
        );
        // but a parenthesis that names what failed stays
        assert_ne!(
            lines("TypeError: Cannot read properties of undefined (reading 'map')"),
            lines("TypeError: Cannot read properties of undefined (reading 'length')")
        );
        // Ruby's exception on its own line, its message under it
        assert_eq!(
            lines(
                "ActiveRecord::ConnectionNotEstablished:\n  connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory"
            )[0],
            "activerecord::connectionnotestablished: connection to server on socket \"<path>\" failed: no such file or directory"
        );
        // a Java exception's message goes on under it
        assert_eq!(
            lines(
                "Caused by: org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\nDetected resolved migration not applied to database: 10.\n\tat org.flywaydb.core.Flyway.lambda$migrate$0(Flyway.java:151)"
            ),
            [
                "caused by: org.flywaydb.core.api.exception.flywayvalidateexception: validate failed: migrations have failed validation",
                "detected resolved migration not applied to database: <n>."
            ]
        );
        // the words an excerpt's cut left half are not words of the error
        assert_eq!(
            lines(
                "Caused by: SchemaManagementException: Schema-validation: missing colu\n…\numn [settled_at] in table [ledger_entry]"
            ),
            ["caused by: schemamanagementexception: schema-validation: missing"]
        );
    }

    #[test]
    fn a_root_cause_in_the_middle_of_a_long_trace_is_read() {
        let frames = "\tat org.springframework.beans.factory.support.ConstructorResolver.createArgumentArray(ConstructorResolver.java:795)\n".repeat(30);
        let output = format!(
            "java.lang.IllegalStateException: Failed to load ApplicationContext for [WebMergedContextConfiguration@5b7a7f33]\n{frames}Caused by: org.springframework.beans.factory.NoSuchBeanDefinitionException: No qualifying bean of type 'com.inesdev.fx.FxRateClient' available\n{frames}[INFO] BUILD FAILURE"
        );
        let sig = Signature::of_window(&output, 300).unwrap();
        assert!(
            sig.lines.iter().any(|l| l.text == "caused by: org.springframework.beans.factory.nosuchbeandefinitionexception: no qualifying bean of type 'com.inesdev.fx.fxrateclient' available"),
            "{:?}",
            sig.lines
        );
    }

    #[test]
    fn errors_told_by_another_label_are_one_message() {
        let weight = |_: &str| 1.0;
        let rails = Signature::of("ActiveRecord::ConnectionNotEstablished: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory (ActiveRecord::ConnectionNotEstablished)").unwrap();
        let pg = Signature::of("PG::ConnectionBad: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or directory (PG::ConnectionBad)").unwrap();
        assert!(!rails.names_another_in_a_line(&pg, &weight));
        // what differs in the message names another thing
        let denied = Signature::of("ActiveRecord::ConnectionNotEstablished: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: Permission denied").unwrap();
        assert!(rails.names_another_in_a_line(&denied, &weight));
        let pg_gem = Signature::of(
            "ERROR: Error installing pg:\nERROR: Failed to build gem native extension.",
        )
        .unwrap();
        let mysql_gem = Signature::of(
            "ERROR: Error installing mysql2:\nERROR: Failed to build gem native extension.",
        )
        .unwrap();
        assert!(
            pg_gem.weighted_likeness(&mysql_gem, &weight, pg_gem.shared_lines(&mysql_gem)) < 0.86
        );
    }

    #[test]
    fn a_bare_exit_code_has_no_signature() {
        assert_eq!(Signature::of("Exit code 1"), None);
        assert_eq!(
            Signature::of("error: could not compile `x` (lib) due to 1 previous error"),
            None
        );
    }
}

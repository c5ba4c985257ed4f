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
        r"(?i)((?-u:\b)(?:error|errors|err!|fatal|failed|failure|exception|panicked|traceback|cannot|could not|couldn't|can't|unable|not found|no such|denied|refused|undefined|unresolved|unrecognized|unknown|missing|invalid|mismatch|mismatched|timed out|timeout|segmentation fault|core dumped|killed|aborted|conflict|unsatisfiable|not permitted|does not exist|doesn't exist|is not|are not|expected|[a-z]*backoff|oomkilled|evicted|errimagepull)(?-u:\b)|(?-u:\b)[a-z]+(?:error|exception)(?-u:\b)|(?-u:\b)e\d{3,5}(?-u:\b)|(?-u:\b)ts\d{4}(?-u:\b))",
    )
    .expect("valid")
});

/// Lines every failure of a tool prints, whatever went wrong: they would
/// make two different errors look alike.
static GENERIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:exit code <n>|process exited with code|command exited with|error: could not compile|warning: build failed|error: aborting due to|aborting due to|for more information about this error|some errors have detailed explanations|npm err! a complete log|npm err! for a full report|npm err!\s*$|npm err! <path>|error: process didn't exit successfully|caused by:$|traceback \(most recent call last\):?$|error: recipe for target|make: \*\*\*|error: command failed with exit code|error: script .* exited|error: lifecycle script|the above exception was the direct cause|during handling of the above exception|note: run with `rust_backtrace|error: test failed|test result: failed|failures:$|error: <n> errors? |found <n> errors?|<n> errors? generated|error: failed to run custom build command|run with --stacktrace|run with --info|\* try:|build failed with an exception|error: could not find `cargo.toml`)",
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
/// A number, with a short unit stuck to it (`10m`, `512Mi`, `14ms`).
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?-u:\b)\d+(?:[a-z]{1,3})?(?-u:\b)").expect("valid"));
/// A quoted name in an error line (an apostrophe inside a word, as in
/// "can't", opens no quote).
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[^\w'])'([^'\s][^']{0,60})'|"([^"\s][^"]{0,60})"|`([^`\s][^`]{0,60})`|‘([^’]{1,60})’|“([^”]{1,60})”"#).expect("valid")
});
/// The header of a Go program's log line (klog, glog: `E1014
/// 08:03:11.220417`): its level, the day and the time of the run.
static GLOG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[IWEF]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?").expect("valid")
});
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));

/// Most error lines kept: the first few say what failed; the rest repeat it.
const MAX_LINES: usize = 8;
/// Output read, in bytes: an error says what it is near its start or its
/// end, and a megabyte of build log must not slow the hook.
const HEAD_BYTES: usize = 16 * 1024;
const TAIL_BYTES: usize = 8 * 1024;

/// One normalised error line and its words.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorLine {
    pub text: String,
    pub words: BTreeSet<String>,
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
    "hex", "id", "url", "failed", "fatal", "warning", "note", "help", "line", "file", "npm",
];

impl Signature {
    /// The signature of an error output, or None when no line of it says
    /// what failed (a bare "Exit code 1"): nothing to recognise it by.
    pub fn of(output: &str) -> Option<Signature> {
        let mut lines: Vec<ErrorLine> = Vec::new();
        let text = bounded(output);
        let all: Vec<&str> = text.lines().map(str::trim).collect();
        for (i, raw) in all.iter().enumerate() {
            if raw.is_empty() || raw.len() > 600 || !ERROR_LINE.is_match(raw) {
                continue;
            }
            // "thread 'main' panicked at src/main.rs:4:5:" says what
            // failed on the next line: the two are one line of the error.
            let joined;
            let raw = match all.get(i + 1) {
                Some(next) if raw.ends_with(':') && !next.is_empty() && next.len() <= 600 => {
                    joined = format!("{raw} {next}");
                    joined.as_str()
                }
                _ => raw,
            };
            let text = normalise(raw);
            if GENERIC.is_match(&text) {
                continue;
            }
            let words = words(&text);
            if words.len() < 2 || lines.iter().any(|l| l.text == text) {
                continue;
            }
            lines.push(ErrorLine { text, words });
            if lines.len() >= MAX_LINES {
                break;
            }
        }
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

    /// How alike `past` is to this error, 0 to 1, each word weighing
    /// `weight(word)` (its rarity among past results, so that `openssl` or
    /// `eresolve` count and `compiling` hardly does). Mostly how much of
    /// this error the past one holds (a new run often shows only part of
    /// the old output: its tail, one of its lines), partly the converse;
    /// and 0 when the two quote different names (`'pyarrow'` and
    /// `'psycopg2'`: the same kind of error about another thing). The
    /// weights (0.8 / 0.2) were chosen on the tuning halves of
    /// tests/data/moment_dev.toml and moment_written.toml.
    pub fn weighted_likeness(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> f64 {
        let (ours, theirs) = (self.subjects(), past.subjects());
        if !ours.is_empty() && !theirs.is_empty() && ours.is_disjoint(&theirs) {
            return 0.0;
        }
        if names_another_thing(&self.words(), &past.words(), weight) {
            return 0.0;
        }
        let held = weighted_agreement(&self.lines, &past.lines, weight);
        let converse = weighted_agreement(&past.lines, &self.lines, weight);
        held.powf(0.8) * converse.powf(0.2)
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
            .filter(|q| q.chars().any(char::is_alphabetic) && !q.starts_with('<'))
            .collect()
    }

    /// The signature of `output` as the index keeps a failed result
    /// (`transcript::error_excerpt`: its start and its end; `chars` is
    /// `index.tool_result_chars`), else of all of it when that says nothing.
    pub fn of_window(output: &str, chars: usize) -> Option<Signature> {
        let cut = crate::platform::agents::transcript::error_excerpt(output, chars);
        Signature::of(&cut).or_else(|| Signature::of(output))
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
fn weighted_agreement(a: &[ErrorLine], b: &[ErrorLine], weight: &dyn Fn(&str) -> f64) -> f64 {
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
            tail.weighted_likeness(&past, &weight) >= 0.86,
            "{}",
            tail.weighted_likeness(&past, &weight)
        );
        assert!(
            tail.likeness(&past) < 0.72,
            "the unweighted likeness misses it"
        );
        let a = Signature::of("ModuleNotFoundError: No module named 'pyarrow'").unwrap();
        let b = Signature::of("ModuleNotFoundError: No module named 'psycopg2'").unwrap();
        assert_eq!(a.weighted_likeness(&b, &weight), 0.0);
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
            lpq.weighted_likeness(&lsqlite, &rare),
            0.0,
            "another library"
        );
        assert!(lpq.weighted_likeness(&lpq, &rare) > 0.99);
        let named = Signature::of("error: can't find 'foo' in this scope").unwrap();
        assert_eq!(named.subjects(), BTreeSet::from(["foo".to_string()]));
        assert!(a.weighted_likeness(&a, &weight) > 0.99);
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

//! An error's signature: the lines of a command's output that say what went
//! wrong, with what changes from one run to the next (paths, numbers, ids,
//! hex, URLs) replaced by placeholders, so the same error met weeks apart in
//! another checkout compares equal, and a different error of the same kind
//! (another missing module, another table) does not.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex_lite::Regex;

use super::distinct::{TEMPLATE_WORDS, names_another_thing};
pub use super::error_line::{ErrorLine, Says};
use super::error_line::{LINE_WORDS, contains_words, error_lines, last_lines};
use super::output_lines::read_ends;

/// A quoted name in an error line (an apostrophe inside a word, as in
/// "can't", opens no quote).
static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[^A-Za-z0-9_'])'([^' \t][^']*)'|"([^" \t][^"]*)"|`([^` \t][^`]*)`|‘([^’]+)’|“([^”]+)”"#).expect("valid")
});
/// Longest quoted name (a longer quote is a sentence, not a name).
const QUOTED_CHARS: usize = 61;

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
pub(super) const ONE_MESSAGE: f64 = 0.6;

/// Some of a signature's lines (at most 16; a signature holds 8), by their place.
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

/// What an error output comes down to.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub lines: Vec<ErrorLine>,
}

impl Signature {
    /// The signature of an error output, or None when no line of it says
    /// what failed (a bare "Exit code 1"): nothing to recognise it by.
    pub fn of(output: &str) -> Option<Signature> {
        let lines = error_lines(output);
        (!lines.is_empty()).then_some(Signature { lines })
    }

    /// The signature of the output of a command known to have failed: as
    /// [`Signature::of`], else its last lines that say something (a tool
    /// that says what went wrong without an error word: "pyproject.toml
    /// changed significantly since poetry.lock was last generated").
    pub fn of_failure(output: &str) -> Option<Signature> {
        Signature::of(output).or_else(|| Signature::of_tail(output))
    }

    /// The last 3 lines of `output` of three words or more
    /// that no failure of any tool prints.
    fn of_tail(output: &str) -> Option<Signature> {
        let lines = last_lines(output);
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
        if self.details_disagree(past, weight) || self.root_cause_unmet(past, weight) {
            return 0.0;
        }
        if self.codes_disagree(past) {
            return 0.0;
        }
        // a line pair that differs only in the user's code; one of
        // TEMPLATE_WORDS shared words or more is one message told again
        let code_pair = self.code_only_pair(past);
        let templated = code_pair.is_some_and(|shared| shared >= TEMPLATE_WORDS);
        if (!shared.is_empty() || templated) && !self.names_another_in_a_line(past, weight) {
            // what went wrong, whichever test it was; the code names of a
            // message told the same way do not count
            let code: BTreeSet<String> = if code_pair.is_some() {
                self.code_names()
                    .union(&past.code_names())
                    .cloned()
                    .collect()
            } else {
                BTreeSet::new()
            };
            let weight = |w: &str| if code.contains(w) { 0.0 } else { weight(w) };
            let (ours, theirs) = (self.what(), past.what());
            let held = weighted_agreement(&ours, &theirs, &weight);
            let converse = weighted_agreement(&theirs, &ours, &weight);
            // one error whole inside the other, not two that share a line;
            // or one root cause under two wrappers
            if held.max(converse) >= WHOLE || self.same_root_cause(past) {
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
        let (mut ours, mut theirs) = (self.subjects(), past.subjects());
        // a quoted path is a subject only against a quoted name: two errors
        // that each quote a path still differ by the names they quote
        let (our_path, their_path) = (ours.remove(PATH_SUBJECT), theirs.remove(PATH_SUBJECT));
        if !ours.is_empty() && !theirs.is_empty() && ours.is_disjoint(&theirs) {
            return 0.0;
        }
        if (our_path && ours.is_empty() && !their_path && !theirs.is_empty())
            || (their_path && theirs.is_empty() && !our_path && !ours.is_empty())
        {
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

    /// The words of the user's own code the error's lines quote.
    fn code_names(&self) -> BTreeSet<String> {
        self.lines
            .iter()
            .flat_map(|l| l.code.iter().cloned())
            .collect()
    }

    /// The lines that say what went wrong (not which test or where).
    pub(super) fn what(&self) -> Vec<&ErrorLine> {
        self.lines
            .iter()
            .filter(|l| l.says != Says::Where)
            .collect()
    }

    /// The names the error is about: what its lines quote (`'pandas'`,
    /// `` `serde_json` ``, `"orders"`), placeholders left out but a path
    /// ([`PATH_SUBJECT`]).
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
                    && (!q.starts_with('<') || q == PATH_SUBJECT)
            })
            .collect()
    }

    /// The signature of `output` as the index keeps a failed result
    /// (`transcript::error_excerpt`: its start and its end; `chars` is
    /// `index.tool_result_chars`), else of all of it when that says
    /// nothing, else of the kept part's last lines ([`Signature::of_failure`]).
    /// Redacted either way, as every chunk is: `anonymous token: unexpected
    /// status` is kept as `token: [REDACTED:password] status`, and a secret
    /// in a new output is in no word of its signature.
    pub fn of_window(output: &str, chars: usize) -> Option<Signature> {
        let excerpt = crate::platform::agents::transcript::error_excerpt(output, chars);
        Signature::of_excerpt(output, &excerpt)
    }

    /// [`Signature::of_window`] for a caller that holds the excerpt
    /// already (`transcript::error_excerpt` of `output`): the hook reads
    /// the error's place from it too.
    pub fn of_excerpt(output: &str, excerpt: &str) -> Option<Signature> {
        use crate::platform::redact::redact;
        let cut = redact(excerpt);
        Signature::of(&cut)
            .or_else(|| Signature::of(&redact(&read_ends(output))))
            .or_else(|| Signature::of_tail(&cut))
    }
}

/// A quoted path, as a subject: against a quoted name alone it is another
/// thing (TypeScript's alias `'@/lib/money'` and the package `'@orbit/ui'`
/// failing to resolve).
const PATH_SUBJECT: &str = "<path>";

/// How much of the lines of `a` the lines of `b` hold: each line of `a`
/// by its best match in `b` (the weight of their shared words over its
/// own), weighted by its words.
pub(super) fn weighted_agreement(
    a: &[&ErrorLine],
    b: &[&ErrorLine],
    weight: &dyn Fn(&str) -> f64,
) -> f64 {
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

/// How alike two outputs' errors are, every word weighing the same.
#[cfg(test)]
pub(super) fn alike(a: &str, b: &str) -> f64 {
    let (a, b) = (Signature::of(a).unwrap(), Signature::of(b).unwrap());
    a.weighted_likeness(&b, &|_| 1.0, a.shared_lines(&b))
}

#[cfg(test)]
mod tests {
    use super::super::error_line::{is_exception, normalise};
    use super::*;

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
            Signature::of(&format!("ERROR: test_wh (unittest.loader._FailedTest.test_wh)\n----------------------------------------------------------------------\nImportError: Failed to import test module: test_wh\nTraceback (most recent call last):\n  File \"/usr/lib/python3.11/unittest/loader.py\", line 407, in _find_test_path\n    module = self._get_module_from_name(name)\nModuleNotFoundError: No module named '{name}'")).unwrap()
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
    fn a_message_under_a_bare_label_is_read_and_a_target_triple_is_a_name() {
        // wasm-bindgen's mismatch: `error: ` alone, its message after a
        // blank line; the build's own lines name `wasm32-unknown-unknown`
        let met = |build: &str, ours: &str, theirs: &str| {
            format!(
                "   Compiling glyphforge v0.5.3\n{build}\nerror: \n\nit looks like the Rust project used to create this wasm file was linked against\nversion of wasm-bindgen that uses a different bindgen format than this binary:\n\n  rust wasm file schema version: {ours}\n     this binary schema version: {theirs}\n"
            )
        };
        let make = met(
            "wasm-bindgen --target web --out-dir web/pkg target/wasm32-unknown-unknown/release/g.wasm",
            "0.2.93",
            "0.2.92",
        );
        let test = met(
            "     Running unittests src/lib.rs (target/wasm32-unknown-unknown/debug/deps/g-8e2b.wasm)",
            "0.2.95",
            "0.2.93",
        );
        let sig = Signature::of(&make).unwrap();
        assert_eq!(
            sig.lines
                .iter()
                .map(|l| l.text.as_str())
                .collect::<Vec<_>>(),
            [
                "error: it looks like the rust project used to create this wasm file was linked against"
            ]
        );
        assert!(alike(&test, &make) >= 0.9, "{}", alike(&test, &make));
        // two blank lines between the label and its message at most
        let under = |blanks: usize| {
            Signature::of(&format!(
                "error:{}it looks like the Rust project was linked against",
                "\n".repeat(blanks + 1)
            ))
        };
        assert!(under(2).is_some());
        assert_eq!(under(3), None);
    }

    #[test]
    fn a_new_error_is_read_redacted_as_the_index_keeps_past_ones() {
        // containerd's message reads to the redactor like a token's value
        let pull = "Failed to pull image \"cr.io/thumbs:1.4\": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://cr.io/oauth2/token: 401 Unauthorized";
        let new = Signature::of_window(pull, 300).unwrap();
        let past = Signature::of(&crate::platform::redact::redact(pull)).unwrap();
        assert_eq!(new, past);
        // and a secret in an output is in no word of its signature, read
        // from the excerpt or, when the excerpt says nothing, from the whole
        let leaked = "error: login failed for DB_PASSWORD=correcthorsebattery";
        let sig = Signature::of_window(leaked, 300).unwrap();
        assert!(
            !sig.words().iter().any(|w| w.contains("correcthorse")),
            "{sig:?}"
        );
        // (past the middle lines the excerpt reads, before the end it keeps)
        let middle = format!(
            "{}{leaked}\n{}",
            "step ok\n".repeat(5_000),
            "step ok\n".repeat(200)
        );
        let sig = Signature::of_window(&middle, 300).unwrap();
        let words = sig.words();
        assert!(words.contains("login"), "{sig:?}");
        assert!(!words.iter().any(|w| w.contains("correcthorse")), "{sig:?}");
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

    #[test]
    fn one_long_message_about_other_code_is_the_same_error_a_missing_name_is_not() {
        let borrows = |name: &str| {
            format!(
                "error[E0373]: async block may outlive the current function, but it borrows `{name}`, which is owned by the current function\n  --> src/jobs/a.rs:22:18"
            )
        };
        assert!(alike(&borrows("state"), &borrows("pool")) >= 0.86);
        // a rustc type in backticks, lifetimes and all
        let guard = |f: &str, t: &str| {
            format!(
                "error: future cannot be sent between threads safely\n    | ^^^^ future returned by `{f}` is not `Send`\n    = help: within `impl Future<Output = Result<Response, AppError>>`, the trait `Send` is not implemented for `std::sync::MutexGuard<'_, {t}>`"
            )
        };
        assert!(
            alike(
                &guard("verify_api_key", "LruCache<String, ApiKey>"),
                &guard("create_transfer", "HashMap<CurrencyPair, Rate>")
            ) >= 0.86
        );
        // a library's generic type over the user's, unquoted (Scala 3)
        let given = |t: &str| {
            format!(
                "[error] -- [E172] Type Error: /w/core/src/Codec.scala:14:40\n[error]    |No given instance of type zio.json.JsonEncoder[com.harbor.track.model.{t}] was found for parameter encoder of method toJson in class EncoderOps"
            )
        };
        assert!(alike(&given("CarrierScan"), &given("TrackingEvent")) >= 0.86);
        // a path alias and a package that failed to resolve are two things
        let unresolved = |m: &str| {
            format!(
                "src/routes/$id.tsx:3:24 - error TS2307: Cannot find module '{m}' or its corresponding type declarations."
            )
        };
        assert!(alike(&unresolved("@/lib/money"), &unresolved("@orbit/ui")) < 0.86);
        assert!(alike(&unresolved("@/lib/money"), &unresolved("@/lib/dates")) >= 0.86);
        // two errors that each quote a path still differ by their names
        let resolve =
            |m: &str| format!("Module not found: Error: Can't resolve '{m}' in '/w/app/src/pages'");
        assert!(alike(&resolve("lodash"), &resolve("axios")) < 0.86);
        // ESLint quotes the user's names in single quotes: camel case is code
        let deps = |name: &str| {
            format!(
                "./src/components/List.tsx\n41:6  Error: React Hook useEffect has a missing dependency: '{name}'. Either include it or remove the dependency array.  react-hooks/exhaustive-deps"
            )
        };
        assert!(alike(&deps("loadReviews"), &deps("refreshCart")) >= 0.86);
        assert!(
            alike(
                "TypeError: Cannot read properties of undefined (reading 'firstName') in the render of this component",
                "TypeError: Cannot read properties of undefined (reading 'lastName') in the render of this component"
            ) < 0.86,
            "undefined: the name is what failed"
        );
        // a type or a trait of its own is another error (a drop before
        // the await against an Arc), and so is a missing name
        for (a, b) in [
            (
                guard("handler", "HashMap<String, Rate>").as_str(),
                "error: future cannot be sent between threads safely\n    | ^^^^ future returned by `handler` is not `Send`\n    = help: within `impl Future<Output = Result<Response, AppError>>`, the trait `Send` is not implemented for `Rc<RefCell<Session>>`",
            ),
            (
                "error: future cannot be sent between threads safely\n    = help: the trait `Sync` is not implemented for `Cell<u32>` in the future returned by `handler` here",
                "error: future cannot be sent between threads safely\n    = help: the trait `Send` is not implemented for `Cell<u32>` in the future returned by `handler` here",
            ),
            (
                "error[E0599]: the method `collect` exists for struct `Map<Iter<'_, u8>, F>`, but its trait bounds were not satisfied in this crate",
                "error[E0599]: the method `clone` exists for struct `Rc<Connection>`, but its trait bounds were not satisfied in this crate",
            ),
        ] {
            assert!(alike(a, b) < 0.86, "{a} / {b}: {}", alike(a, b));
        }
        // the name is what failed: another error
        for (a, b) in [
            (
                "error[E0425]: cannot find value `foo` in this scope of the current module and its parents here",
                "error[E0425]: cannot find value `bar` in this scope of the current module and its parents here",
            ),
            ("KeyError: 'user_id'", "KeyError: 'order_id'"),
            (
                "lib/sidekiq/job_util.rb:47:in `verify_json': Job arguments to ImportRecipeJob must be native JSON types, but a RecipeImport was given to the queue here (ArgumentError)",
                "lib/sidekiq/job_util.rb:47:in `verify_json': Job arguments to SyncFeedJob must be native JSON types, but a Feed was given to the queue here (ArgumentError)",
            ),
        ] {
            assert!(alike(a, b) < 0.86, "{a} / {b}: {}", alike(a, b));
        }
    }

    /// ScalaTest names the failed test on its own line and sums up after
    /// it: two tests failing on one exception are one error.
    #[test]
    fn two_scalatest_tests_failing_on_one_exception_are_one_error() {
        let failed = |test: &str, summary: &str| {
            format!(
                "[info] {test}Spec:\n[info] - {} *** FAILED ***\n[info]   org.apache.spark.sql.delta.DeltaAnalysisException: [DELTA_CONFIGURE_SPARK_SESSION_WITH_EXTENSION_AND_CATALOG] This Delta operation requires the SparkSession to be configured with the\n[info]   at io.delta.tables.DeltaTable$.forPath(DeltaTable.scala:721)\n{summary}[info] *** 1 TEST FAILED ***\n[error] Failed tests:\n[error] \tcom.x.{test}Spec",
                if test == "TileVacuum" {
                    "vacuums files older than the retention window"
                } else {
                    "compacts small files of one run into 128 MB files"
                }
            )
        };
        let vacuum = failed("TileVacuum", "");
        let compaction = failed(
            "TileCompaction",
            "[info] Run completed in 6 seconds, 12 milliseconds.\n[info] Tests: succeeded 0, failed 1, canceled 0, ignored 0, pending 0\n",
        );
        let sig = Signature::of(&compaction).unwrap();
        assert_eq!(sig.lines[0].says, Says::Where, "{sig:?}");
        assert!(
            !sig.lines.iter().any(|l| l.text.contains("test failed")),
            "{sig:?}"
        );
        // a suite that aborted says which suite, as the reporter writes it
        for aborted in [
            "[info] com.x.jobs.GribToTilesSpec *** ABORTED ***",
            "[info] Exception encountered when attempting to run a suite with class name: com.x.jobs.GribToTilesSpec *** ABORTED ***",
        ] {
            let sig = Signature::of(&format!(
                "{aborted}\n[info]   java.lang.IllegalAccessError: class A cannot access class B"
            ))
            .unwrap();
            assert_eq!(sig.lines[0].says, Says::Where, "{aborted}: {sig:?}");
        }
        assert!(
            !sig.lines.iter().any(|l| l.text.contains("succeeded")),
            "{sig:?}"
        );
        assert!(
            alike(&vacuum, &compaction) >= 0.86,
            "{}",
            alike(&vacuum, &compaction)
        );
    }

    /// Ansible's task headers say where: the same failure in another
    /// play's tasks is one error, another failure in the same task is not.
    #[test]
    fn ansible_task_headers_say_where_the_failure_was() {
        let failed = |play: &str, tasks: [&str; 2], msg: &str| {
            format!(
                "PLAY [{play}] *****\n\nTASK [{} : {}] *****\nok: [h1]\n\nTASK [{} : {}] *****\nfatal: [h1]: FAILED! => {{\"msg\": \"{msg}\"}}\n\nPLAY RECAP *****\nh1 : ok=2 changed=0 unreachable=0 failed=1 skipped=0 rescued=0 ignored=0",
                play, tasks[0], play, tasks[1]
            )
        };
        let jmespath = "You need to install \\\"jmespath\\\" prior to running json_query filter";
        let radar = failed(
            "radar_ingest",
            ["Read feed registry", "Pick active feeds"],
            jmespath,
        );
        let minio = failed(
            "minio_users",
            [
                "Read current bucket policies",
                "Select buckets that need a lifecycle rule",
            ],
            jmespath,
        );
        // no line has an error word: each is known by its last lines
        let alike = |a: &str, b: &str| {
            let (a, b) = (
                Signature::of_window(a, 4000).unwrap(),
                Signature::of_window(b, 4000).unwrap(),
            );
            a.weighted_likeness(&b, &|_| 1.0, a.shared_lines(&b))
        };
        assert!(alike(&minio, &radar) >= 0.86, "{}", alike(&minio, &radar));
        let netaddr = failed(
            "radar_ingest",
            ["Read feed registry", "Pick active feeds"],
            "The ipaddr filter requires python's netaddr be installed on the ansible controller",
        );
        assert!(
            alike(&netaddr, &radar) < 0.86,
            "{}",
            alike(&netaddr, &radar)
        );
    }

    /// The linker's closing line is every link failure's: what is
    /// undefined tells two apart.
    #[test]
    fn two_link_failures_differ_by_what_is_undefined() {
        let link = |file: &str, symbol: &str, closing: &str| {
            format!(
                "FAILED: tools/cli\n/nix/store/q3s5-binutils-2.43.1/bin/ld: src/liba.a({file}.cpp.o): in function `run()':\n{file}.cpp:(.text+0x4f2): undefined reference to `{symbol}'\n{closing}\nninja: build stopped: subcommand failed."
            )
        };
        let gcc = "collect2: error: ld returned 1 exit status";
        let clang =
            "clang++: error: linker command failed with exit code 1 (use -v to see invocation)";
        let aec = link("ccsds", "aec_buffer_decode", gcc);
        let template = link(
            "grid_definition",
            "std::vector<double, std::allocator<double> > gribkit::detail::gaussian_latitudes<double>(unsigned int)",
            gcc,
        );
        assert!(alike(&template, &aec) < 0.86, "{}", alike(&template, &aec));
        assert!(alike(&link("ccsds", "aec_buffer_decode", clang), &aec) >= 0.86);
        // the closing line is no error line, whichever driver wrote it
        for closing in [
            gcc,
            clang,
            "clang++-17: error: linker command failed with exit code 1 (use -v to see invocation)",
            "collect2.exe: error: ld returned 1 exit status",
        ] {
            let sig = Signature::of(&link("ccsds", "aec_buffer_decode", closing)).unwrap();
            assert!(
                !sig.lines.iter().any(|l| l.text.contains("exit")),
                "{closing}: {sig:?}"
            );
        }
    }
}

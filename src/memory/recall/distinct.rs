//! Whether two errors that look alike are two errors: the vetoes that
//! [`Signature::weighted_likeness`] applies before it calls them one.
//! Each names what two different errors still share (a wrapper, a long
//! generic line, an exception) and what tells them apart (a name in one
//! line, a detail under the exception, an error code, a root cause).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex_lite::Regex;

use super::error_line::words;
use super::signature::{ErrorLine, ONE_MESSAGE, Signature, weighted_agreement};

impl Signature {
    /// Whether a line of this error and one of `past` are one message
    /// naming two things: each has words the other lacks, and they share
    /// [`ONE_MESSAGE`] of their words' weight, or what differs is one or two
    /// words each in a line they mostly share (`no module named 'polars'`
    /// and `'pyarrow'`; `peer eslint@…` and `peer react@…`;
    /// `crashloopbackoff` and `imagepullbackoff` in one pod's line). Not
    /// when all that differs is in the lines' labels ([`ErrorLine::labels`]:
    /// Rails' `ActiveRecord::ConnectionNotEstablished: connection to
    /// server … failed` and pg's `PG::ConnectionBad: connection …`).
    pub(super) fn names_another_in_a_line(
        &self,
        past: &Signature,
        weight: &dyn Fn(&str) -> f64,
    ) -> bool {
        let sum = |words: &mut dyn Iterator<Item = &String>| words.map(|w| weight(w)).sum::<f64>();
        let past_lines = past.what();
        let (all_ours, all_theirs) = (self.words(), past.words());
        self.what().into_iter().any(|l| {
            past_lines.iter().any(|m| {
                let ours = l.words.difference(&m.words).count();
                let theirs = m.words.difference(&l.words).count();
                if ours == 0 || theirs == 0 {
                    return false;
                }
                // a type or a trait of its own on each side: `Send` not
                // implemented for `MutexGuard<…>` and for `Rc<…>` are two
                // errors with two fixes, however much else they share
                if l.words.difference(&m.words).any(|w| l.types.contains(w))
                    && m.words.difference(&l.words).any(|w| m.types.contains(w))
                {
                    return true;
                }
                if differ_in_code_only(l, m) {
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
                // what each line says of its own, the other error names
                // in another line (or it is a label): the same things told
                // in another order, not another thing
                if l.words
                    .difference(&m.words)
                    .all(|w| all_theirs.contains(w) || our_labels.contains(w))
                    && m.words
                        .difference(&l.words)
                        .all(|w| all_ours.contains(w) || their_labels.contains(w))
                {
                    return false;
                }
                if two_causes_after_one_message(l, m, weight) {
                    return true;
                }
                let shared = l.words.intersection(&m.words).count();
                let both = sum(&mut l.words.intersection(&m.words));
                let either = sum(&mut l.words.union(&m.words));
                (either > 0.0 && both / either >= ONE_MESSAGE)
                    || (ours <= 2 && theirs <= 2 && shared >= ours.max(theirs))
            })
        })
    }

    /// The most words a line pair of this error and `past` shares that
    /// differs only in the code it names ([`differ_in_code_only`]); None
    /// when no pair does. rustc's ``async block may outlive the current
    /// function, but it borrows `state` `` against `` `pool` `` is one
    /// error met in two places (11 words shared), and its fix (`move`) is
    /// the same.
    pub(super) fn code_only_pair(&self, past: &Signature) -> Option<usize> {
        let past_lines = past.what();
        self.what()
            .into_iter()
            .flat_map(|l| past_lines.iter().map(move |m| (l, *m)))
            .filter(|(l, m)| differ_in_code_only(l, m))
            .map(|(l, m)| l.words.intersection(&m.words).count())
            .max()
    }

    /// Whether each error says exactly what failed under its exception
    /// ([`ErrorLine::detail`]) in a line the other has nothing like: one
    /// exception, two failures (Flyway's `Validate failed` over a checksum
    /// mismatch once and a migration not applied next; the fixes differ).
    pub(super) fn details_disagree(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> bool {
        let unmatched = |a: &Signature, b: &Signature| {
            let b_lines: Vec<&ErrorLine> = b.lines.iter().collect();
            let details: Vec<&ErrorLine> = a.lines.iter().filter(|l| l.detail).collect();
            !details.is_empty()
                && details
                    .iter()
                    .all(|d| weighted_agreement(&[*d], &b_lines, weight) < DETAIL_MATCH)
        };
        unmatched(self, past) && unmatched(past, self)
    }

    /// Whether this error's root cause (its last `Caused by:`) is in no
    /// line of `past` (it holds less than [`DETAIL_MATCH`] of it), and
    /// `past` shows no cause at all: HikariCP's `Connection is not
    /// available, request timed out` once alone (a leak: every connection
    /// active) and now over `Caused by: … Connection to localhost:5432
    /// refused` (the database is down). Not the converse: a new output cut
    /// short often loses the cause its past one showed.
    pub(super) fn root_cause_unmet(&self, past: &Signature, weight: &dyn Fn(&str) -> f64) -> bool {
        let (Some(ours), None) = (self.root_cause(), past.root_cause()) else {
            return false;
        };
        let past_lines: Vec<&ErrorLine> = past.lines.iter().collect();
        weighted_agreement(&[ours], &past_lines, weight) < DETAIL_MATCH
    }

    /// Whether both errors are Java exception chains whose last `Caused
    /// by:` is the same message of [`TEMPLATE_WORDS`] words or more: the
    /// root cause, met again under another wrapper (Byte Buddy not
    /// supporting Java 21, under Mockito once and Hibernate's proxies
    /// next; the fix is the same).
    pub(super) fn same_root_cause(&self, past: &Signature) -> bool {
        match (self.root_cause(), past.root_cause()) {
            // a path or an address normalised away may be what failed
            // (`FileNotFoundException: <path>`)
            (Some(ours), Some(theirs)) => {
                ours.text == theirs.text
                    && ours.words.len() >= TEMPLATE_WORDS
                    && !ours.text.contains("<path>")
                    && !ours.text.contains("<url>")
            }
            _ => false,
        }
    }

    /// A Java chain's root cause: its last `Caused by:` line.
    fn root_cause(&self) -> Option<&ErrorLine> {
        self.lines
            .iter()
            .rev()
            .find(|l| l.text.starts_with("caused by: "))
    }

    /// Whether each error names itself by a code ([`is_error_code`]) and
    /// no code is in both: Postgres' `28p01` (a wrong password) and
    /// `3d000` (no such database) under one pool error are two errors with
    /// two fixes, however long the line they share.
    pub(super) fn codes_disagree(&self, past: &Signature) -> bool {
        let (ours, theirs) = (self.error_codes(), past.error_codes());
        !ours.is_empty() && !theirs.is_empty() && ours.is_disjoint(&theirs)
    }

    /// The error codes its lines that say what failed hold.
    /// A code stands alone: split at spaces, brackets, colons and commas,
    /// not inside a name glued by `-`, `+`, `_` or `.` (a wheel's
    /// `+cu121-cp311-…`, a GPU's `a100-sxm4`).
    fn error_codes(&self) -> BTreeSet<&str> {
        self.what()
            .into_iter()
            .flat_map(|l| {
                l.text
                    .split(|c: char| c.is_whitespace() || "[](){}:,;'\"`".contains(c))
                    .map(|t| t.trim_end_matches(['.', '!', '?']))
            })
            .filter(|w| is_error_code(w))
            .collect()
    }
}

/// Whether two lines say one message and then, after a `: `, each a
/// cause of its own ([`OPENING_WORDS`] words or more before it, two or
/// more after it on each side, sharing less than [`SAME_CAUSE`] of their
/// weight): Deno's `worker boot error: failed to create the graph:
/// relative import path "…" not prefixed …` and `…: module not found
/// "…"`, Go's `dial tcp: lookup db: no such host` and `dial tcp: …:
/// connect: connection refused`. A cut line has no words of its own and
/// is not two causes.
fn two_causes_after_one_message(
    l: &ErrorLine,
    m: &ErrorLine,
    weight: &dyn Fn(&str) -> f64,
) -> bool {
    let (a, b) = (l.text.as_str(), m.text.as_str());
    // the bytes both open with, to a character's start in each (`é` and
    // `è` share their first byte)
    let common = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    let Some(split) = a[..common].rfind(": ") else {
        return false;
    };
    let (ours, theirs) = (words(&a[split + 2..]), words(&b[split + 2..]));
    if words(&a[..split]).len() < OPENING_WORDS || ours.len() < 2 || theirs.len() < 2 {
        return false;
    }
    let sum = |w: &mut dyn Iterator<Item = &String>| w.map(|x| weight(x)).sum::<f64>();
    let both = sum(&mut ours.intersection(&theirs));
    let either = sum(&mut ours.union(&theirs));
    either > 0.0 && both / either < SAME_CAUSE
}

/// Least words of a message before its cause ([`two_causes_after_one_message`]).
const OPENING_WORDS: usize = 3;
/// Least share of two causes' word weight for them to be one cause.
const SAME_CAUSE: f64 = 0.3;

/// Whether a word is the code a tool names an error by: 4 to 8 letters
/// and digits, at least 3 of them digits and 1 or 2 letters (SQLSTATE's
/// `28p01` and `42p01`, rustc's `e0382`, TypeScript's `ts2339`, NuGet's
/// `nu1605`, C#'s `cs0246`, MySQL's `hy000`). `sha256`, `x86`, `utf8` and
/// `arm64` are not; a hash is `<hex>` by then.
fn is_error_code(word: &str) -> bool {
    let digits = word.bytes().filter(u8::is_ascii_digit).count();
    let letters = word.bytes().filter(u8::is_ascii_alphabetic).count();
    (4..=8).contains(&word.len())
        && digits + letters == word.len()
        && digits >= 3
        && (1..=2).contains(&letters)
}

/// How much of a detail line another line must hold to tell the same
/// failure ([`Signature::details_disagree`]).
const DETAIL_MATCH: f64 = 0.5;
/// Least words two lines share for a difference in code names alone to
/// leave them one message ([`Signature::code_only_pair`]).
pub(super) const TEMPLATE_WORDS: usize = 8;

/// A line that says a name is missing or unknown: there the name is what
/// failed (`cannot find value `foo``, `no method named `bar``), whatever
/// quotes it.
static NAMES_WHAT_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"cannot find|not found|no (?:such|method|field|function|module|member|variant|associated)|does(?: not|n't) exist|unresolved|undeclared|undefined|unknown|not defined|private|has no")
        .expect("valid")
});

/// Whether two lines are one message that differs only in the code it
/// names: each has words of its own, all of them the user's own code
/// ([`ErrorLine::code`]), and the line does not say the name is missing
/// ([`NAMES_WHAT_FAILED`]).
fn differ_in_code_only(l: &ErrorLine, m: &ErrorLine) -> bool {
    let mut ours = l.words.difference(&m.words).peekable();
    let mut theirs = m.words.difference(&l.words).peekable();
    // set lookups first, false for most pairs (most lines quote no code);
    // the pattern only for the pairs they leave
    ours.peek().is_some()
        && theirs.peek().is_some()
        && ours.all(|w| l.code.contains(w))
        && theirs.all(|w| m.code.contains(w))
        && !NAMES_WHAT_FAILED.is_match(&l.text)
        && !NAMES_WHAT_FAILED.is_match(&m.text)
}

/// Whether each of two errors has a word the other lacks that is at least
/// as rare as any word they share: the same message about two different
/// things, named without quotes (`cannot find -lpq` and `cannot find
/// -lsqlite3`). A recurrence shares its rarest words (`openssl`, `e0373`);
/// what differs is commoner (a version, a word of the tool's chatter).
pub(super) fn names_another_thing(
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

#[cfg(test)]
mod tests {
    use super::super::signature::alike;
    use super::*;

    #[test]
    fn one_root_cause_under_two_wrappers_is_one_error() {
        let byte_buddy = "Caused by: java.lang.IllegalArgumentException: Java 21 (65) is not supported by the current version of Byte Buddy which officially supports Java 19 (63) - update Byte Buddy or set net.bytebuddy.experimental as a VM property\n\tat net.bytebuddy.utility.OpenedClassReader.of(OpenedClassReader.java:96)";
        // the root cause past the eight lines a signature keeps
        let mockito = format!(
            "[ERROR] Tests run: 3, Failures: 0, Errors: 3 <<< FAILURE! -- in com.acme.FxRateServiceTest\n\
             org.mockito.exceptions.base.MockitoException: Mockito cannot mock this class: class com.acme.FxRateClient.\n\
             If you're not sure why you're getting this error, please open an issue on GitHub.\n\
             Underlying exception : org.mockito.exceptions.base.MockitoException: Could not modify all classes\n\
             Caused by: org.mockito.exceptions.base.MockitoException: Could not modify all classes [class com.acme.FxRateClient]\n\
             \tat net.bytebuddy.TypeCache.findOrInsert(TypeCache.java:168)\n\
             Caused by: java.lang.IllegalStateException: Byte Buddy could not instrument all classes within the mock's type hierarchy\n\
             \tat org.mockito.internal.creation.bytebuddy.InlineBytecodeGenerator.triggerRetransformation(InlineBytecodeGenerator.java:294)\n\
             Caused by: java.lang.IllegalStateException: Failed to transform class com.acme.FxRateClient for inlining\n\
             Caused by: java.lang.IllegalStateException: Could not retransform class com.acme.FxRateClient in this JVM\n\
             Caused by: java.lang.IllegalStateException: The type hierarchy of com.acme.FxRateClient was not instrumented\n\
             {byte_buddy}"
        );
        let past = Signature::of(&mockito).unwrap();
        assert!(past.lines.len() <= 8);
        assert!(
            past.lines.last().unwrap().text.contains("byte buddy"),
            "{:?}",
            past.lines
        );
        let hibernate = format!(
            "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory': Could not create proxy factory for:com.acme.Account\n\
             Caused by: org.hibernate.HibernateException: Could not create proxy factory for:com.acme.Account\n{byte_buddy}"
        );
        assert!(alike(&hibernate, &mockito) >= 0.86);
        // a root cause whose file or address was normalised away may be
        // another file's
        let missing = |wrapper: &str, file: &str| {
            format!(
                "{wrapper}\nCaused by: java.io.FileNotFoundException: {file} (No such file or directory) while reading the configuration of this job"
            )
        };
        assert!(
            alike(
                &missing(
                    "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'config'",
                    "/etc/app/config.yml"
                ),
                &missing(
                    "org.apache.spark.SparkException: Job aborted due to stage failure",
                    "/data/in/events.csv"
                )
            ) < 0.86
        );
        // a short root cause says too little of which failure it was
        let refused = |wrapper: &str| {
            format!("{wrapper}\nCaused by: java.net.ConnectException: Connection refused")
        };
        assert!(
            alike(
                &refused(
                    "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC Connection"
                ),
                &refused(
                    "org.apache.kafka.common.KafkaException: Failed to construct kafka consumer"
                )
            ) < 0.86
        );
    }

    #[test]
    fn one_exception_over_two_failures_is_two_errors() {
        let flyway = |detail: &str| {
            format!(
                "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'flywayInitializer' defined in class path resource [org/springframework/boot/autoconfigure/flyway/FlywayAutoConfiguration.class]: Validate failed: Migrations have failed validation\n\
                 Caused by: org.flywaydb.core.api.exception.FlywayValidateException: Validate failed: Migrations have failed validation\n\
                 {detail}\n\tat org.flywaydb.core.Flyway.migrate(Flyway.java:126)"
            )
        };
        let checksum = flyway("Migration checksum mismatch for migration version 7");
        let pending = flyway("Detected resolved migration not applied to database: 10.");
        let s = Signature::of(&checksum).unwrap();
        assert!(s.lines.iter().any(|l| l.detail), "{:?}", s.lines);
        assert!(
            alike(&pending, &checksum) < 0.86,
            "{}",
            alike(&pending, &checksum)
        );
        // the same failure again, another version
        let again = flyway("Migration checksum mismatch for migration version 9");
        assert!(
            alike(&again, &checksum) >= 0.86,
            "{}",
            alike(&again, &checksum)
        );
    }

    #[test]
    fn two_error_codes_under_one_wrapper_are_two_errors() {
        let postgrex = |code: &str, message: &str| {
            format!(
                "16:20:04.511 [error] Postgrex.Protocol (#PID<0.298.0>) failed to connect: ** (Postgrex.Error) FATAL {code} {message}\n\
                 ** (DBConnection.ConnectionError) connection not available and request was dropped from queue after 2961ms. This means requests are coming in and your connection pool cannot serve them fast enough. You can address this by:"
            )
        };
        let missing = postgrex(
            "3D000",
            "(invalid_catalog_name) database \"ledgerly_dev\" does not exist",
        );
        let password = postgrex(
            "28P01",
            "(invalid_password) password authentication failed for user \"postgres\"",
        );
        assert!(
            alike(&password, &missing) < 0.86,
            "{}",
            alike(&password, &missing)
        );
        // the same code again, under another wrapper
        let again =
            format!("make: entering directory\n{missing}\nmake: *** [Makefile:4: db] Error 1");
        assert!(
            alike(&again, &missing) >= 0.86,
            "{}",
            alike(&again, &missing)
        );
        // a tag inside a name is no code; a code in brackets is
        let wheel = Signature::of("ERROR: torch-2.1.0+cu121-cp311-cp311-linux_x86_64.whl is not a supported wheel on this platform.").unwrap();
        assert!(wheel.error_codes().is_empty(), "{:?}", wheel.error_codes());
        let rustc = Signature::of("error[E0382]: borrow of moved value: `conn`").unwrap();
        assert_eq!(rustc.error_codes(), BTreeSet::from(["e0382"]));
        for code in [
            "28p01", "3d000", "e0382", "ts2339", "nu1605", "cs0246", "hy000",
        ] {
            assert!(is_error_code(code), "{code}");
        }
        for word in ["sha256", "x86", "utf8", "arm64", "2026", "ab12", "error"] {
            assert!(!is_error_code(word), "{word}");
        }
    }

    #[test]
    fn one_message_over_two_causes_is_two_errors() {
        let deno = |cause: &str| {
            format!(
                "{{\"code\":\"BOOT_ERROR\",\"message\":\"Worker failed to boot (please check logs)\"}}\nworker boot error: failed to create the graph: {cause}\n    at file:///home/t/fn/index.ts:2:30"
            )
        };
        let bare =
            deno("Relative import path \"@supabase/supabase-js\" not prefixed with / or ./ or ../");
        let moved = deno("Module not found \"file:///home/t/fn/_shared/cors.ts\".");
        assert!(alike(&moved, &bare) < 0.86, "{}", alike(&moved, &bare));
        // the same cause in another function
        let again = bare.replace("index.ts:2:30", "index.ts:7:12");
        assert!(alike(&again, &bare) >= 0.86, "{}", alike(&again, &bare));
        // two causes that part in a character both spell with one first byte
        let accented = |cause: &str| {
            Signature::of(&format!(
                "error: failed to create the graph: {cause} fichier manquant"
            ))
            .unwrap()
        };
        let (e, f) = (accented("é"), accented("è"));
        // read by characters: a byte's cut inside `é` panicked
        assert!(e.names_another_in_a_line(&f, &|_| 1.0));
        // a cause cut short is the same cause
        let cut = deno("Relative import path \"@supabase/supabase-js\"");
        assert!(alike(&cut, &bare) >= 0.86, "{}", alike(&cut, &bare));
    }

    #[test]
    fn a_root_cause_the_past_error_never_showed_is_another_error() {
        let hikari = "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30004ms (total=10, active=10, idle=0, waiting=3)";
        let refused = format!(
            "{hikari}\nCaused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\nCaused by: java.net.ConnectException: Connection refused"
        );
        assert!(
            alike(&refused, hikari) < 0.86,
            "{}",
            alike(&refused, hikari)
        );
        // the same cause met again, and the past cause met cut short
        assert!(alike(&refused, &refused) >= 0.86);
        assert!(
            alike(hikari, &refused) >= 0.86,
            "{}",
            alike(hikari, &refused)
        );
    }

    #[test]
    fn a_line_that_names_what_the_other_error_names_elsewhere_names_nothing_else() {
        let weight = |_: &str| 1.0;
        // gem install names the gem in its label line, Bundler on a line
        // of its own under the build error's class
        let gem = Signature::of("ERROR:  Error installing pg:\nERROR: Failed to build gem native extension.\n*** extconf.rb failed ***").unwrap();
        let bundler = Signature::of("Gem::Ext::BuildError: ERROR: Failed to build gem native extension.\n*** extconf.rb failed ***\nAn error occurred while installing pg (1.5.9), and Bundler cannot continue.").unwrap();
        assert!(!gem.names_another_in_a_line(&bundler, &weight));
        // another gem, named nowhere in the other error
        let mysql = Signature::of("Gem::Ext::BuildError: ERROR: Failed to build gem native extension.\n*** extconf.rb failed ***\nAn error occurred while installing mysql2 (0.5.6), and Bundler cannot continue.").unwrap();
        assert!(gem.names_another_in_a_line(&mysql, &weight));
        let polars = Signature::of("ModuleNotFoundError: No module named 'polars'").unwrap();
        let pyarrow = Signature::of("ModuleNotFoundError: No module named 'pyarrow'").unwrap();
        assert!(polars.names_another_in_a_line(&pyarrow, &weight));
    }
}

//! What changes from one run of a command to the next, replaced by
//! placeholders: paths, URLs, ids, hex, generated names, numbers and the
//! times logs write, so that the same error met weeks apart in another
//! checkout reads the same.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::platform::agents::transcript::failure::without_colours;

// From URL to NUMBER, the patterns read the line in lower case (see
// [`normalise`]), with ASCII classes: a hook process builds each anew (see
// the module `recall` on why these are regex-lite's).
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[a-z][a-z0-9+.-]*://[^\s'`)\]]+").expect("valid"));
static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").expect("valid")
});
/// Paths with at least one slash (`/home/x/a.rs:4:5`, `src/db/x.rs`,
/// `C:\x\y`, `/home/zoë/文档/a.txt`), with any `:line:col` after them.
/// A name's characters: ASCII word characters, `@.+~-`, and any other
/// character but a quote, a space or CJK punctuation (GNU tools quote a
/// path in `‘…’`). Two classes, as regex-lite nests none.
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    const NAME: &str = r"(?:[a-z0-9_@.+~\-]|[^\x00-\x7f‘’‚‛“”„‟‹›«»…\u{a0}\u{2000}-\u{200b}\u{3000}-\u{303f}\u{ff01}-\u{ff0f}\u{ff1a}-\u{ff20}])";
    let first = NAME.replace('~', "");
    Regex::new(&format!(
        r"(?:[a-z]:\\|~?/|\.{{1,2}}/|{first}+/){NAME}*(?:[/\\]{NAME}*)*(?::[0-9]+)*"
    ))
    .expect("valid")
});
static HEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?:0x[0-9a-f]+|[0-9a-f]*[0-9][0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*[0-9][0-9a-f]*)(?-u:\b)")
        .expect("valid")
});
static MIXED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?-u:\b)[a-z0-9]{5,}(?-u:\b)").expect("valid"));
/// A number, with a short unit stuck to it (`10m`, `512Mi`, `14ms`); a
/// version, an address or an amount (`3.10.12`, `127.0.0.1`, `1.299,00`)
/// is one number.
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[0-9]+(?:[.,][0-9]+)*(?:[a-z]{1,3})?(?-u:\b)").expect("valid")
});
/// The header of a Go program's log line (klog, glog: `E1014
/// 08:03:11.220417`): its level, the day and the time of the run.
static GLOG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[IWEF][0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?").expect("valid")
});
/// A moment as logs write it (`2026-10-30T10:11:48.310+01:00`,
/// `2026-11-18 19:04:11.772`, `[2026-10-08T07:55:12.004118 #1]`), with
/// its zone (`2026-11-24 09:12:05.771 WET` in winter, `WEST` in summer).
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2}| (?:UTC|GMT|WET|WEST|CET|CEST|EET|EEST|BST|IST|EST|EDT|CST|CDT|MST|MDT|PST|PDT|JST|KST|AEST|AEDT|NZST|NZDT|MSK|SGT|HKT)(?-u:\b))?")
        .expect("valid")
});

/// A line with what varies between runs replaced: lower case, no colours,
/// `<url>`, `<id>`, `<path>`, `<hex>`, `<n>`, single spaces.
pub(crate) fn normalise(line: &str) -> String {
    let mut s = without_colours(line);
    // a pattern is built only when the line can hold a match: the time
    // patterns took about a millisecond each to build, and most errors
    // hold no time; every path has a slash
    if four_digits(&s, Some(b"IWEF"), b' ') {
        s = replaced(s, &GLOG, "<time>");
    }
    if four_digits(&s, None, b'-') {
        s = replaced(s, &TIMESTAMP, "<time>");
    }
    let mut s: Cow<str> = Cow::Owned(s.to_lowercase());
    if s.contains("://") {
        s = replaced(s, &URL, "<url>");
    }
    s = replaced(s, &UUID, "<id>");
    if s.contains(['/', '\\']) {
        s = replaced(s, &PATH, |c: &regex_lite::Captures| {
            let m = &c[0];
            // `a/b` inside a word such as `and/or` or `I/O` is not a path,
            // nor a scoped package (`@orbit/ui`, `@prisma/client`: what failed
            // to resolve; `@/lib/money`, an alias, is a path)
            if (m.len() <= 4 && !m.starts_with('/')) || is_scoped_package(m) {
                m.to_string()
            } else {
                "<path>".to_string()
            }
        });
    }
    s = replaced(s, &HEX, |c: &regex_lite::Captures| {
        let m = &c[0];
        if m.len() >= 7 || m.starts_with("0x") {
            "<hex>".to_string()
        } else {
            m.to_string()
        }
    });
    s = replaced(s, &MIXED, |c: &regex_lite::Captures| {
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
    s = replaced(s, &NUMBER, "<n>");
    let s = without_statement_of_a_lost_connection(&s);
    // runs of white space, Unicode's as `\s` reads it, as one space
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Laravel's `SQLSTATE[HY000] [2002] Connection refused (Connection:
/// mysql, SQL: select …)` without its statement: the connection failed
/// before the statement ran (a refused connection, or any of MySQL's
/// client errors under `HY000`: no socket, access denied), and each
/// command runs another one first (`migrate` asks for the migrations
/// table, `migrate:fresh` turns off foreign key checks).
fn without_statement_of_a_lost_connection(line: &str) -> Cow<'_, str> {
    // Laravel 10 on: `(Connection: mysql, SQL: …)`; before: `(SQL: …)`
    let cut = line
        .find(", sql: ")
        .map(|at| (at, ")"))
        .or_else(|| line.find(" (sql: ").map(|at| (at, "")));
    match cut {
        Some((at, close))
            if line[..at].contains("connection refused")
                || line[..at].contains("sqlstate[hy000] [<n>]") =>
        {
            Cow::Owned(format!("{}{close}", &line[..at]))
        }
        _ => Cow::Borrowed(line),
    }
}

/// `s` with `pattern`'s matches replaced; `s` itself, not a copy, when
/// there is none.
fn replaced<'a>(s: Cow<'a, str>, pattern: &Regex, with: impl regex_lite::Replacer) -> Cow<'a, str> {
    let out = match pattern.replace_all(&s, with) {
        Cow::Owned(out) => Some(out),
        Cow::Borrowed(_) => None,
    };
    out.map_or(s, Cow::Owned)
}

/// Whether `text` holds four ASCII digits and the byte `after`, with one
/// of `before` just before them when given: what [`GLOG`] (`E1014 `) and
/// [`TIMESTAMP`] (`2026-`) cannot match without.
fn four_digits(text: &str, before: Option<&[u8]>, after: u8) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(4)).any(|i| {
        b[i + 4] == after
            && b[i..i + 4].iter().all(u8::is_ascii_digit)
            && before.is_none_or(|set| i > 0 && set.contains(&b[i - 1]))
    })
}

/// Whether `m` is an npm scoped package's name: `@scope/name`, no more.
fn is_scoped_package(m: &str) -> bool {
    m.strip_prefix('@')
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(scope, name)| {
            !scope.is_empty() && !name.is_empty() && !name.contains(['/', '\\', ':'])
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_connection_is_told_without_the_statement_it_was_for() {
        let migrate = normalise(
            "SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select exists (select 1 from information_schema.tables where table_schema = 'tenantdesk'))",
        );
        let fresh = normalise(
            "SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: SET FOREIGN_KEY_CHECKS=0;)",
        );
        assert_eq!(migrate, fresh);
        assert_eq!(
            migrate,
            "sqlstate[hy000] [<n>] connection refused (connection: mysql)"
        );
        // before Laravel 10, and a socket that is not there
        assert_eq!(
            normalise("SQLSTATE[HY000] [2002] Connection refused (SQL: select * from `users`)"),
            "sqlstate[hy000] [<n>] connection refused"
        );
        assert_eq!(
            normalise(
                "SQLSTATE[HY000] [2002] No such file or directory (Connection: mysql, SQL: select 1)"
            ),
            "sqlstate[hy000] [<n>] no such file or directory (connection: mysql)"
        );
        // a statement that failed is the error's own, whatever it holds
        assert!(
            normalise("SQLSTATE[22001]: Data too long for column 'exception' (Connection: mysql, SQL: insert into failed_jobs values ('Connection refused'))")
                .contains("sql: insert")
        );
        assert!(
            normalise("SQLSTATE[42S02]: Base table or view not found (Connection: mysql, SQL: select * from `tickets`)")
                .contains("sql: select")
        );
    }

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
    fn paths_times_and_spaces_beyond_ascii() {
        // a path's letters may be any script's; GNU's quotes, CJK
        // punctuation and spaces are not a path's
        assert_eq!(
            normalise("cannot open /home/zoë/文档/Ünits.txt: No such file"),
            "cannot open <path>: no such file"
        );
        assert_eq!(
            normalise("make: *** No rule to make target ‘src/x.o’, needed by ‘app’."),
            "make: *** no rule to make target ‘<path>’, needed by ‘app’."
        );
        assert_eq!(
            normalise("找不到文件：src/main.rs。"),
            "找不到文件：<path>。"
        );
        // a time at the line's start, a glog header after a tag
        assert_eq!(
            normalise("2026-11-18 19:04:11.772 ERROR db down"),
            "<time> error db down"
        );
        assert_eq!(
            normalise("[api] E1014 08:03:11.220417 down"),
            "[api] <time> down"
        );
        // hex and schemes in capitals, Unicode's spaces
        assert_eq!(
            normalise("at 0X7FFD3A2B see HTTPS://Example.com/A"),
            "at <hex> see <url>"
        );
        assert_eq!(normalise("\u{3000}too\u{a0}\u{a0} far\t "), "too far");
    }
}

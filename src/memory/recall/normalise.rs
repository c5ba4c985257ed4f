//! What changes from one run of a command to the next, replaced by
//! placeholders: paths, URLs, ids, hex, generated names, numbers and the
//! times logs write, so that the same error met weeks apart in another
//! checkout reads the same.

use std::sync::LazyLock;

use regex::Regex;

use crate::platform::agents::transcript::failure::ANSI;

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
/// The header of a Go program's log line (klog, glog: `E1014
/// 08:03:11.220417`): its level, the day and the time of the run.
static GLOG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[IWEF]\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?").expect("valid")
});
/// A moment as logs write it (`2026-10-30T10:11:48.310+01:00`,
/// `2026-11-18 19:04:11.772`, `[2026-10-08T07:55:12.004118 #1]`), with
/// its zone (`2026-11-24 09:12:05.771 WET` in winter, `WEST` in summer).
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2}| (?:UTC|GMT|WET|WEST|CET|CEST|EET|EEST|BST|IST|EST|EDT|CST|CDT|MST|MDT|PST|PDT|JST|KST|AEST|AEDT|NZST|NZDT|MSK|SGT|HKT)(?-u:\b))?")
        .expect("valid")
});
static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));

/// A line with what varies between runs replaced: lower case, no colours,
/// `<url>`, `<id>`, `<path>`, `<hex>`, `<n>`, single spaces.
pub(crate) fn normalise(line: &str) -> String {
    let s = ANSI.replace_all(line, "");
    let s = GLOG.replace_all(&s, "<time>");
    let s = TIMESTAMP.replace_all(&s, "<time>");
    let s = URL.replace_all(&s, "<url>");
    let s = UUID.replace_all(&s, "<id>");
    let s = PATH.replace_all(&s, |c: &regex::Captures| {
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
}

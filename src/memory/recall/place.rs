//! Where an error happened, for the errors whose message says nothing of
//! the user's own.
//!
//! Python's `'NoneType' object is not subscriptable`, Rust's ``called
//! `Option::unwrap()` on a `None` value``, Go's nil pointer dereference,
//! JavaScript's `Cannot read properties of undefined (reading 'map')`,
//! a bare `NullPointerException`, `cat: <path>: No such file or
//! directory` and curl's `The requested URL returned error: 404` read the
//! same wherever they happen, once paths and numbers are normalised, and
//! the cause of each is where it happened: two such errors in different
//! files, or from different hosts, are two errors with two fixes. Tried by
//! hand on such pairs, 7 of 10 of them recalled the other one's fix.
//!
//! So for an error whose every line that says what failed is such a
//! message ([`is_generic_message`]), a past error is the same one only if
//! it happened in the same place: a file of the user's named in both
//! outputs (by its name, so that another checkout is the same place) and,
//! when both traces name functions of the user's, a function in common
//! (line numbers move with every edit; a function does not); or, when
//! neither output names a file, the same host in both commands.

use std::collections::BTreeSet;

use super::signature::Signature;

/// Messages every program of a language or tool prints, whatever the
/// user's code, read in the normalised line (lower case, `<n>`, `<path>`).
const GENERIC_MESSAGES: &[&str] = &[
    // Python
    "'nonetype' object is not subscriptable",
    "'nonetype' object is not iterable",
    "'nonetype' object is not callable",
    "'nonetype' object has no attribute",
    "list index out of range",
    "division by zero",
    "maximum recursion depth exceeded",
    // Rust
    "called `option::unwrap()` on a `none` value",
    "index out of bounds: the len is",
    "with overflow",
    // Go
    "nil pointer dereference",
    "[signal sigsegv: segmentation violation",
    "assignment to entry in nil map",
    "runtime error: index out of range",
    // JavaScript
    "cannot read properties of undefined",
    "cannot read properties of null",
    "undefined is not an object",
    // Java
    "java.lang.nullpointerexception",
    "arrayindexoutofboundsexception",
    // the system's and curl's
    "segmentation fault",
    "the requested url returned error",
];

/// The system's messages about a file, generic only when what they are
/// about is a path (`cat: <path>: no such file or directory`): `no such
/// file or directory: 'ffmpeg'` and `permission denied for table orders`
/// name their cause.
const ABOUT_A_PATH: &[&str] = &["no such file or directory", "permission denied"];

/// Whether every line of `sig` that says what failed is a message any
/// program prints ([`GENERIC_MESSAGES`]): then where it happened is what
/// tells it from another.
pub fn is_generic_message(sig: &Signature) -> bool {
    let what = sig.what();
    // read once, and only when a line is about a path
    let mut names_only_paths: Option<bool> = None;
    !what.is_empty()
        && what.iter().all(|l| {
            GENERIC_MESSAGES.iter().any(|m| l.text.contains(m))
                || (l.text.contains("<path>")
                    && ABOUT_A_PATH.iter().any(|m| l.text.contains(m))
                    && *names_only_paths
                        .get_or_insert_with(|| sig.subjects().iter().all(|s| s == "<path>")))
        })
}

/// The files of the user's an output names (by file name, lower case), the
/// functions of the user's its frames name, and the hosts of the addresses
/// it holds.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Place {
    files: BTreeSet<String>,
    functions: BTreeSet<String>,
    hosts: BTreeSet<String>,
    read_from: Source,
}

/// What a place was read from: an output is compared with an output, a
/// command with a command (a trace's files are not the script it ran).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Source {
    #[default]
    Output,
    Command,
}

impl Place {
    /// Where the error `sig` (read from `output`, printed by `command`)
    /// happened when that tells it from another ([`is_generic_message`]);
    /// else an unknown place, which tells nothing.
    pub fn of_error(sig: &Signature, output: &str, command: &str) -> Place {
        if is_generic_message(sig) {
            Place::of(output, command)
        } else {
            Place::default()
        }
    }

    /// Where `output` says it failed; when it names no file and no host,
    /// where `command` points.
    pub fn of(output: &str, command: &str) -> Place {
        let place = Place::named_in(output);
        if place.is_known() {
            place
        } else {
            Place::named_in_command(command)
        }
    }

    /// The files and hosts a command names.
    pub fn named_in_command(command: &str) -> Place {
        Place {
            read_from: Source::Command,
            ..Place::named_in(command)
        }
    }

    /// The files, functions and hosts `text` names, but on the lines of a
    /// runtime's or a library's frames ([`NOT_THE_USERS`]).
    pub fn named_in(text: &str) -> Place {
        let mut place = Place::default();
        let text = crate::platform::agents::transcript::failure::without_colours(text);
        let lines: Vec<String> = text.lines().map(str::to_ascii_lowercase).collect();
        for (i, lower) in lines.iter().enumerate() {
            if not_the_users(lower) || says_what_every_run_says(lower) {
                continue;
            }
            let next = lines.get(i + 1).map(String::as_str);
            if let Some(function) = frame_function(lower, next)
                && !EVERY_TRACES.contains(&function.as_str())
            {
                // generated names are numbered in order (Go's `func1`,
                // Java's `lambda$transfer$0`): another one above moves them
                place
                    .functions
                    .insert(function.replace(|c: char| c.is_ascii_digit(), ""));
            }
            for token in lower.split(|c: char| c.is_whitespace() || "\"'`()[]{},;<>|=".contains(c))
            {
                if let Some(host) = host_of(token) {
                    place.hosts.insert(host);
                }
                if let Some(file) = users_file(token) {
                    place.files.insert(file);
                }
            }
        }
        place
    }

    /// Whether it names anything.
    pub fn is_known(&self) -> bool {
        !self.files.is_empty() || !self.hosts.is_empty()
    }

    /// Whether both name where they happened and it is not the same place:
    /// no file in common, or no function in common when both name some
    /// (the same file, another function: another cause), or (when neither
    /// names a file) no host.
    pub fn is_elsewhere_than(&self, other: &Place) -> bool {
        if self.read_from != other.read_from {
            return false;
        }
        if !self.files.is_empty() && !other.files.is_empty() {
            return self.files.is_disjoint(&other.files)
                || (!self.functions.is_empty()
                    && !other.functions.is_empty()
                    && self.functions.is_disjoint(&other.functions));
        }
        if !self.hosts.is_empty() && !other.hosts.is_empty() {
            return self.hosts.is_disjoint(&other.hosts);
        }
        false
    }
}

/// The function a frame names, in a line read in lower case: Python's
/// `File "…", line 42, in total` and pytest's `app/orders.py:42: in total`,
/// JavaScript's `at OrderList (src/…)`, Java's `at
/// com.kim.bank.TransferService.transfer(TransferService.java:31)`, Go's
/// `main.(*Server).routes(0x0)` over its tab-indented `….go:57` line.
fn frame_function(line: &str, next: Option<&str>) -> Option<String> {
    let trimmed = line.trim_start();
    if let Some((before, name)) = trimmed.rsplit_once(" in ")
        && (before.starts_with("file \"") || before.ends_with(':'))
        && !name.trim().is_empty()
        && !name.trim().contains(' ')
    {
        return Some(name.trim().to_string());
    }
    if let Some(rest) = trimmed.strip_prefix("at ") {
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        let name = rest.split([' ', '(']).next()?;
        return (!name.is_empty() && !name.contains(['/', '\\', ':'])).then(|| name.to_string());
    }
    // Go's file line is under its function's: a runtime's function is
    // known by it
    if !line.starts_with(char::is_whitespace)
        && next.is_some_and(|n| n.starts_with('\t') && n.contains(".go:") && !not_the_users(n))
    {
        let open = line.rfind('(')?;
        return (open > 0).then(|| line[..open].to_string());
    }
    None
}

/// Functions every trace of a runtime names.
const EVERY_TRACES: &[&str] = &[
    "<module>",
    "<anonymous>",
    "object.<anonymous>",
    "new",
    "array.map",
];

/// Lines a tool prints on every run, whatever failed: pytest's header,
/// cargo's `Running unittests src/lib.rs`, Node's version.
fn says_what_every_run_says(line: &str) -> bool {
    let line = line.trim_start();
    ["rootdir:", "configfile:", "running ", "node.js v"]
        .iter()
        .any(|o| line.starts_with(o))
}

/// The host of an address (`https://api.kim.dev/v1/orders` → `api.kim.dev`;
/// the machine itself, however written, `localhost`). None for what is no
/// host: a user name left before a redacted password (`postgres://app:`).
fn host_of(token: &str) -> Option<String> {
    let (_, rest) = token.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        host.split(']').next()?.trim_start_matches('[')
    } else {
        host.split(':').next()?
    };
    match host {
        "localhost" | "127.0.0.1" | "::1" | "0.0.0.0" => Some("localhost".into()),
        _ if host.contains('.') => Some(host.to_string()),
        _ => None,
    }
}

/// Folders and packages that hold a language's or a tool's own code, not
/// the user's: their frames are in every trace (read in lower case).
const NOT_THE_USERS: &[&str] = &[
    "/usr/lib/",
    "/usr/local/lib/",
    "/usr/share/",
    "/usr/include/",
    "/usr/local/go/",
    "/opt/homebrew/",
    "site-packages/",
    "site-packages\\",
    "dist-packages/",
    "node_modules/",
    "node_modules\\",
    "/rustc/",
    "/.cargo/registry/",
    "/.rustup/",
    "/go/src/runtime/",
    "/go/src/testing/",
    "/go/src/net/",
    "/go/src/reflect/",
    "/go/pkg/mod/",
    "/lib/python",
    "node:",
    "<frozen",
    "java.base/",
    "at java.",
    "at javax.",
    "at jdk.",
    "at sun.",
    "at kotlin.",
    "at scala.",
    "at org.junit.",
    "at org.springframework.",
    "at org.apache.",
    "at org.hibernate.",
    "at jakarta.",
    "at com.fasterxml.",
    "at io.netty.",
    "at kotlinx.",
];

/// Whether a line (in lower case) is a runtime's or a library's.
fn not_the_users(line: &str) -> bool {
    NOT_THE_USERS.iter().any(|n| line.contains(n))
}

/// File kinds a trace or a message names: source, configuration, data and
/// archives (`orders.py`, `OrderList.jsx`, `local.yaml`, `tool.tar.gz`).
const EXTENSIONS: &[&str] = &[
    "py", "rs", "go", "js", "jsx", "mjs", "cjs", "ts", "tsx", "java", "kt", "kts", "scala", "rb",
    "php", "cs", "fs", "swift", "m", "mm", "c", "h", "cc", "cpp", "hpp", "ex", "exs", "erl", "hs",
    "lua", "dart", "vue", "svelte", "sh", "sql", "yaml", "yml", "json", "toml", "ini", "cfg",
    "conf", "env", "xml", "html", "css", "scss", "md", "txt", "csv", "lock", "gz", "zip", "tgz",
    "jar", "proto", "tf", "sock", "pem", "key",
];

/// The file a token (in lower case) names, when it is a file of one of
/// [`EXTENSIONS`]: its name without the extension, so that a source and
/// what it compiles to are one place (`src/orders.ts`, `dist/orders.js`);
/// its folders and `:line:col` left out. Not a token that is an address's
/// host alone.
fn users_file(token: &str) -> Option<String> {
    let path = token.split("://").last()?;
    let path = path.split(':').find(|p| p.contains('.'))?;
    let name = path.rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    let stem = stem.strip_suffix(".tar").unwrap_or(stem);
    (!stem.is_empty() && EXTENSIONS.contains(&ext)).then(|| stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_names_the_users_files_not_the_runtimes() {
        let go = "panic: runtime error: invalid memory address or nil pointer dereference\n\
            goroutine 7 [running]:\n\
            testing.tRunner.func1.2({0x8a5f20, 0xd3c7a0})\n\
            \t/usr/local/go/src/testing/testing.go:1632 +0x230\n\
            github.com/kim/svc/internal/http.(*Handler).ServeHTTP(0xc0001a2000)\n\
            \t/home/kim/src/svc/internal/http/handler.go:40 +0x45";
        assert_eq!(
            Place::named_in(go).files,
            BTreeSet::from(["handler".to_string()])
        );
        let java = "java.lang.NullPointerException\n\tat com.kim.bank.Main.main(Main.java:12)\n\
            \tat java.base/java.lang.Thread.run(Thread.java:1583)";
        assert_eq!(
            Place::named_in(java).files,
            BTreeSet::from(["main".to_string()])
        );
        let python = "  File \"/home/kim/api/app/orders.py\", line 42, in total\n\
            \x20 File \"/usr/lib/python3.12/json/__init__.py\", line 346, in loads";
        assert_eq!(
            Place::named_in(python).files,
            BTreeSet::from(["orders".to_string()])
        );
        // a class's dotted name, a version and a host are no files
        assert!(
            Place::named_in("com.kim.bank.Ledger.post failed on 1.2.3")
                .files
                .is_empty()
        );
    }

    #[test]
    fn frames_name_the_users_functions() {
        let functions = |t: &str| Place::named_in(t).functions.into_iter().collect::<Vec<_>>();
        assert_eq!(
            functions("app/orders.py:42: in total\n  File \"/x/app/a.py\", line 3, in <module>"),
            ["total"]
        );
        assert_eq!(
            functions(
                "    at OrderList (src/components/OrderList.jsx:12:24)\n    at node:internal/x:1:2"
            ),
            ["orderlist"]
        );
        assert_eq!(
            functions(
                "\tat com.kim.bank.TransferService.transfer(TransferService.java:31)\n\tat java.lang.Thread.run(Thread.java:1583)"
            ),
            ["com.kim.bank.transferservice.transfer"]
        );
        let go = "testing.tRunner.func1.2({0x8a5f20})\n\t/usr/local/go/src/testing/testing.go:1632 +0x230\n\
            main.(*Server).routes(0x0)\n\t/home/kim/svc/main.go:57 +0x2a";
        assert_eq!(functions(go), ["main.(*server).routes"]);
    }

    #[test]
    fn the_same_file_in_another_function_is_another_place() {
        let total = Place::named_in(
            "app/orders.py:42: in total\nE   TypeError: 'NoneType' object is not subscriptable",
        );
        let again = Place::named_in(
            "app/orders.py:47: in total\nE   TypeError: 'NoneType' object is not subscriptable",
        );
        let refund = Place::named_in(
            "app/orders.py:90: in refund\nE   TypeError: 'NoneType' object is not subscriptable",
        );
        assert!(!total.is_elsewhere_than(&again));
        assert!(total.is_elsewhere_than(&refund));
        // a cut trace that names no function: its file alone
        assert!(!total.is_elsewhere_than(&Place::named_in("app/orders.py:42")));
    }

    #[test]
    fn the_same_file_in_another_checkout_is_the_same_place() {
        let here = Place::named_in("thread 'main' panicked at /home/kim/cli/src/config.rs:18:42:");
        let ci = Place::named_in("thread 'main' panicked at /builds/cli/src/config.rs:18:40:");
        let other = Place::named_in("thread 'main' panicked at src/store.rs:77:9:");
        assert!(!here.is_elsewhere_than(&ci));
        assert!(here.is_elsewhere_than(&other));
        // nothing named on one side: nothing to tell them apart by
        assert!(!here.is_elsewhere_than(&Place::default()));
    }

    #[test]
    fn a_redacted_address_a_compiled_file_and_the_machine_itself() {
        // the index keeps `postgres://app:[REDACTED:…]@db.internal`: no host
        let redacted =
            Place::named_in_command("psql postgres://app:[REDACTED:url-password]@db.internal/shop");
        assert!(!redacted.is_known());
        let raw = Place::named_in_command("psql postgres://app:pw@db.internal/shop");
        assert!(!raw.is_elsewhere_than(&redacted));
        let local = Place::named_in_command("curl -f http://localhost:8000/api/orders/17");
        let loopback = Place::named_in_command("curl -f http://127.0.0.1:8000/api/orders/18");
        assert!(!local.is_elsewhere_than(&loopback));
        let source = Place::named_in("    at total (src/orders.ts:10:3)");
        let compiled = Place::named_in("    at total (dist/orders.js:12:5)");
        assert!(!source.is_elsewhere_than(&compiled));
        // a trace's files are not compared with the script a command ran
        let trace = Place::named_in("app/orders.py:42: in total");
        let script = Place::named_in_command("python scripts/report.py");
        assert!(!trace.is_elsewhere_than(&script));
    }

    #[test]
    fn a_message_that_names_its_cause_is_not_placed() {
        let generic = |out: &str| is_generic_message(&Signature::of(out).unwrap());
        assert!(generic(
            "cat: /home/kim/api/config/local.yaml: No such file or directory"
        ));
        assert!(!generic(
            "FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'"
        ));
        assert!(!generic("ERROR:  permission denied for table orders"));
        assert!(generic("TypeError: 'NoneType' object is not subscriptable"));
    }

    #[test]
    fn an_output_that_names_nothing_is_placed_by_its_command() {
        let out = "curl: (22) The requested URL returned error: 404";
        let api = Place::of(out, "curl -fsS https://api.kim.dev/v1/orders/17");
        let again = Place::of(out, "curl -fsS https://api.kim.dev/v1/orders/18");
        let download = Place::of(out, "curl -fsSLO https://downloads.example.org/tool.tar.gz");
        assert!(!api.is_elsewhere_than(&again));
        assert!(api.is_elsewhere_than(&download));
    }
}

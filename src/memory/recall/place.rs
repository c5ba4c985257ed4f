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
    // Ruby (`undefined method 'x' for nil`, before 3.4 `for nil:NilClass`),
    // PHP (`Call to a member function x() on null`, `Attempt to read
    // property "x" on null`), .NET, Kotlin, Swift
    "' for nil",
    "() on null",
    "\" on null",
    "object reference not set to an instance of an object",
    "lateinit property",
    "unexpectedly found nil while",
    // C's sanitizers (not `AddressSanitizer:DEADLYSIGNAL`, the machine's)
    "addresssanitizer: ",
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
    /// The line of code the innermost of the user's frames shows, in each
    /// trace of the output where the runtime prints it (Python, pytest,
    /// Node, RSpec, Laravel, gdb), spaces collapsed.
    statements: BTreeSet<String>,
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
        if !is_generic_message(sig) {
            return Place::default();
        }
        let mut place = Place::of(output, command);
        // a recursion's innermost frame is wherever the stack ran out
        if sig
            .what()
            .iter()
            .any(|l| l.text.contains("maximum recursion depth"))
        {
            place.statements.clear();
        }
        place
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
        // the innermost line of code of the trace being read
        let mut innermost: Option<String> = None;
        for (i, lower) in lines.iter().enumerate() {
            if starts_a_trace(lower) {
                place.statements.extend(innermost.take());
            }
            if not_the_users(lower) || says_what_every_run_says(lower) {
                continue;
            }
            let next = lines.get(i + 1).map(String::as_str);
            if let Some(statement) = shown_statement(&lines, i) {
                innermost = Some(statement);
            }
            if let Some(function) = frame_function(lower, next)
                && !EVERY_TRACES.contains(&function.as_str())
            {
                place.functions.insert(unnumbered(&function));
            }
            for token in lower.split(|c: char| c.is_whitespace() || "\"'`()[]{},;<>|=".contains(c))
            {
                if let Some(host) = super::address::host_of(token) {
                    place.hosts.insert(host);
                }
                if let Some(file) = users_file(token) {
                    place.files.insert(file);
                }
            }
        }
        place.statements.extend(innermost);
        place
    }

    /// Whether it names anything.
    pub fn is_known(&self) -> bool {
        !self.files.is_empty() || !self.hosts.is_empty()
    }

    /// Whether both name where they happened and it is not the same place:
    /// no file in common, or no function in common when both name some
    /// (the same file, another function: another cause), or another line
    /// of code failing when both show it (the same function, another
    /// statement: another cause), or (when neither names a file) no host.
    pub fn is_elsewhere_than(&self, other: &Place) -> bool {
        if self.read_from != other.read_from {
            return false;
        }
        let equal = |a: &str, b: &str| a == b;
        if !self.files.is_empty() && !other.files.is_empty() {
            return share_none(&self.files, &other.files, equal)
                || share_none(&self.functions, &other.functions, equal)
                || share_none(&self.statements, &other.statements, same_code);
        }
        share_none(&self.hosts, &other.hosts, equal)
    }
}

/// Whether both sides name some and none of one is `same` as one of the
/// other's: a side that names none tells nothing.
fn share_none(
    a: &BTreeSet<String>,
    b: &BTreeSet<String>,
    same: impl Fn(&str, &str) -> bool,
) -> bool {
    !a.is_empty() && !b.is_empty() && !a.iter().any(|x| b.iter().any(|y| same(x, y)))
}

/// The function a frame names, in a line read in lower case: Python's
/// `File "…", line 42, in total` and pytest's `app/orders.py:42: in total`,
/// JavaScript's `at OrderList (src/…)`, Java's `at
/// com.kim.bank.TransferService.transfer(TransferService.java:31)`, Go's
/// `main.(*Server).routes(0x0)` over its tab-indented `….go:57` line.
fn frame_function(line: &str, next: Option<&str>) -> Option<String> {
    let trimmed = line.trim_start();
    if let Some(name) = ruby_frame_function(line).or_else(|| native_frame_function(trimmed)) {
        return Some(name);
    }
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

/// The line of code a frame at `lines[i]` shows, when the frame is the
/// user's: the line under Python's `File "…", line 42, in total` and
/// pytest's short `app/orders.py:42: in total`, pytest's `>` line (its
/// frame's `app/orders.py:42: …` comes after it), and the line under
/// Node's `/app/src/orders.js:12` (over its `^`). Line numbers move with
/// every edit; the failing line's code does not, and two errors of one
/// message on two lines of one function have two causes.
fn shown_statement(lines: &[String], i: usize) -> Option<String> {
    let line = lines[i].as_str();
    let trimmed = line.trim_start();
    let code = |l: &str| {
        let code = l.split_whitespace().collect::<Vec<_>>().join(" ");
        (!code.is_empty()).then_some(code)
    };
    if let Some(rest) = trimmed.strip_prefix('>')
        && line.starts_with('>')
    {
        // pytest's long form: the frame's place is the next `path:N: `
        // line, under the frame's error lines; looked for only so far, as
        // Gradle starts every line with `> `
        let place = lines[i + 1..]
            .iter()
            .take(PYTEST_FRAME_LINES)
            .find(|l| is_pytest_place(l))?;
        return if not_the_users(place) {
            None
        } else {
            code(rest)
        };
    }
    if let Some(rest) = trimmed.strip_prefix("failure/error: ") {
        // RSpec: the line that raised, wherever it is
        return code(rest);
    }
    if let Some(rest) = trimmed.strip_prefix('➜') {
        // Laravel's printer: `➜  52▕ $ticket->…`, under `at app/…:52`
        let place = lines[..i]
            .iter()
            .rev()
            .take(12)
            .find(|l| l.trim_start().starts_with("at "))?;
        return if not_the_users(place) {
            None
        } else {
            code(rest.split_once('▕')?.1)
        };
    }
    if not_the_users(line) {
        return None;
    }
    let next = lines.get(i + 1)?;
    // gdb's stop: `flow_table_insert (t=…) at src/flow.c:84` over `84\t…`
    if let Some((n, source)) = next.split_once('\t')
        && is_number(n)
        && native_frame_function(trimmed).is_some()
    {
        return code(source);
    }
    let is_frame = |l: &str| {
        let t = l.trim_start();
        t.starts_with("file \"") || t.contains(": in ")
    };
    let python = (trimmed.starts_with("file \"") && trimmed.contains("\", line "))
        || (is_pytest_place(line) && line.contains(": in "));
    let node = !line.starts_with(char::is_whitespace)
        && is_a_line_of_a_file(line)
        && lines
            .get(i + 2)
            .is_some_and(|l| l.trim() == "^" || l.trim_start().starts_with('^'));
    if (python && next.starts_with(char::is_whitespace) && !is_frame(next)) || node {
        code(next)
    } else {
        None
    }
}

/// Whether a line opens another trace in the same output: Python's
/// `Traceback (most recent call last):` and a chain's links, and pytest's
/// header of each failed test (`____ test_total ____`; its frames are
/// parted by `_ _ _ _`).
fn starts_a_trace(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("traceback (most recent call last)")
        || t.starts_with("during handling of the above exception")
        || t.starts_with("the above exception was the direct cause")
        || (t.starts_with("___")
            && t.ends_with("___")
            && t.trim_matches('_')
                .trim()
                .contains(|c: char| c.is_ascii_alphanumeric()))
}

/// Whether two lines of code are the same, one of them perhaps cut where
/// the index cut a long output (`e->nex…`).
fn same_code(a: &str, b: &str) -> bool {
    match (a.strip_suffix('…'), b.strip_suffix('…')) {
        (None, None) => a == b,
        (Some(cut), None) => b.starts_with(cut),
        (None, Some(cut)) => a.starts_with(cut),
        (Some(x), Some(y)) => x.starts_with(y) || y.starts_with(x),
    }
}

/// How far below its `>` line pytest writes a frame's place: the frame's
/// `E` lines come between, and an exception's message is seldom longer.
const PYTEST_FRAME_LINES: usize = 40;

/// pytest's place of a frame: `app/orders.py:42: in total`,
/// `app/orders.py:42: TypeError` or a middle frame's bare
/// `tests/test_orders.py:12: `, at the line's start.
fn is_pytest_place(line: &str) -> bool {
    // a middle frame's has nothing after it: `tests/test_orders.py:10: `
    let line = line.trim_end();
    let Some(path) = line
        .split_once(": ")
        .map(|(path, _)| path)
        .or_else(|| line.strip_suffix(':'))
    else {
        return false;
    };
    !line.starts_with(char::is_whitespace) && is_a_line_of_a_file(path)
}

/// Whether `text` is a file's line, `app/orders.py:42`.
fn is_a_line_of_a_file(text: &str) -> bool {
    text.rsplit_once(':')
        .is_some_and(|(file, n)| is_number(n) && users_file(file).is_some())
}

/// Whether `text` is digits, one or more.
fn is_number(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Ruby's `./app/models/loan.rb:42:in 'Loan#notify_overdue!'` (before 3.4,
/// `` in `notify_overdue!' ``), a block's frame named by its method.
fn ruby_frame_function(line: &str) -> Option<String> {
    let (before, rest) = line
        .split_once(":in '")
        .or_else(|| line.split_once(":in `"))?;
    before
        .rsplit_once(':')
        .and_then(|(file, _)| users_file(file.rsplit(' ').next()?))?;
    let name = rest.split('\'').next()?;
    let name = name.rsplit_once(" in ").map_or(name, |(_, method)| method);
    (!name.is_empty() && !name.starts_with('<')).then(|| name.to_string())
}

/// gdb's `#1  0x… in handle_packet (user=…) at src/main.c:66` (the frame
/// it stopped in without its `#0  0x… in `) and AddressSanitizer's `#0
/// 0x4f3a1b in parse_ipv4_options /home/kim/pcap/src/ipv4.c:42:9`: a
/// function of the user's when a file of the user's follows it.
fn native_frame_function(trimmed: &str) -> Option<String> {
    let (numbered, rest) = match trimmed.strip_prefix('#') {
        Some(rest) => (
            true,
            rest.trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start(),
        ),
        None => (false, trimmed),
    };
    let (addressed, rest) = match rest.split_once(" in ") {
        Some((address, rest)) if address.starts_with("0x") => (true, rest),
        _ => (false, rest),
    };
    // C++'s `Parser::parse(char const*)`: the name runs to its own brackets
    let end = rest.find(' ').unwrap_or(rest.len());
    let name = rest[..end].split('(').next()?;
    let after = &rest[name.len()..];
    let place = if let Some(arguments) = after.strip_prefix(" (") {
        // gdb's: the arguments, then `at <file>:<line>`; unnumbered (the
        // line it stopped at), only with arguments as gdb writes them
        let (arguments, place) = arguments.rsplit_once(") at ")?;
        if !(numbered || addressed || arguments.is_empty() || arguments.contains('=')) {
            return None;
        }
        place
    } else if addressed {
        // AddressSanitizer's: a C++ name's own brackets, then the file
        let after = match after.strip_prefix('(') {
            Some(inside) => &inside[inside.find(')')? + 1..],
            None => after,
        };
        after.split_whitespace().next()?
    } else {
        return None;
    };
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_:.~<>".contains(c));
    (is_name && users_file(place).is_some()).then(|| name.to_string())
}

/// A function's name without the numbers that end its parts: generated
/// names are numbered in order (Go's `func1.2`, Java's
/// `lambda$transfer$0`), and another one above moves them; a number inside
/// a word (`parse_ipv4_options`) is the name's own.
fn unnumbered(function: &str) -> String {
    let mut out = String::with_capacity(function.len());
    let mut digits = String::new();
    for c in function.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push_str(&digits);
        }
        digits.clear();
        out.push(c);
    }
    out
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
    "/.gem/",
    "vendor/bundle/",
    "vendor/laravel/",
    "vendor/symfony/",
    "vendor/phpunit/",
    "vendor/pestphp/",
    "vendor/nunomaduro/",
    "vendor/composer/",
    "vendor/github.com/",
    "vendor/golang.org/",
    "at system.",
    "at microsoft.",
    "/lib/x86_64-linux-gnu/",
    "/lib/aarch64-linux-gnu/",
    "/lib64/",
    "libsanitizer/",
    ") from /",
];

/// Whether a line (in lower case) is a runtime's or a library's.
fn not_the_users(line: &str) -> bool {
    NOT_THE_USERS.iter().any(|n| line.contains(n)) || names_an_installed_gem(line)
}

/// Whether a line names a file of an installed gem: `/gems/` and then a
/// folder named with its version (`actionpack-8.0.1/`); a folder of the
/// user's called `gems` is not one.
fn names_an_installed_gem(line: &str) -> bool {
    line.match_indices("/gems/").any(|(at, m)| {
        let folder = line[at + m.len()..].split('/').next().unwrap_or("");
        folder
            .rsplit_once('-')
            .is_some_and(|(_, version)| version.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// File kinds a trace or a message names: source, configuration, data and
/// archives (`orders.py`, `OrderList.jsx`, `local.yaml`, `tool.tar.gz`).
const EXTENSIONS: &[&str] = &[
    "py", "rs", "go", "js", "jsx", "mjs", "cjs", "ts", "tsx", "java", "kt", "kts", "scala", "rb",
    "php", "cs", "fs", "swift", "m", "mm", "c", "h", "cc", "cpp", "hpp", "ex", "exs", "erl", "hs",
    "lua", "dart", "vue", "svelte", "erb", "haml", "slim", "rake", "jbuilder", "sh", "sql", "yaml",
    "yml", "json", "toml", "ini", "cfg", "conf", "env", "xml", "html", "css", "scss", "md", "txt",
    "csv", "lock", "gz", "zip", "tgz", "jar", "proto", "tf", "sock", "pem", "key",
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
    fn the_same_function_failing_on_another_line_of_code_is_another_place() {
        let traceback = |n: u32, code: &str| {
            Place::named_in(&format!(
                "Traceback (most recent call last):\n\
                 \x20 File \"/home/kim/api/app/orders.py\", line {n}, in total\n\
                 \x20   {code}\n\
                 \x20 File \"/usr/lib/python3.12/json/__init__.py\", line 346, in loads\n\
                 \x20   return _default_decoder.decode(s)\n\
                 TypeError: 'NoneType' object is not subscriptable"
            ))
        };
        let rate = traceback(42, "rate = discounts_for(cart.user)[\"rate\"]");
        let moved = traceback(57, "rate  =  discounts_for(cart.user)[\"rate\"]");
        let tax = traceback(44, "tax = region_of(cart)[\"tax\"]");
        assert!(!rate.is_elsewhere_than(&moved));
        assert!(rate.is_elsewhere_than(&tax));
        // pytest's long form shows the failing line with `>`, its place after
        let pytest = |code: &str| {
            Place::named_in(&format!(
                "    def total(cart):\n>       {code}\nE       TypeError: 'NoneType' object is not subscriptable\n\n\
                 app/orders.py:42: TypeError"
            ))
        };
        assert_eq!(
            pytest("rate = discounts_for(cart.user)[\"rate\"]").statements,
            rate.statements
        );
        assert!(pytest("tax = region_of(cart)[\"tax\"]").is_elsewhere_than(&rate));
        // a middle frame's `>` line is placed by its own bare place line,
        // not by the next frame's (here a library's, as an excerpt that
        // cut the user's inner frame leaves it)
        let middle = Place::named_in(
            ">       assert total(guest_cart()) == 30\ntests/test_orders.py:12: \n\
             _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n\
             … .venv/lib/python3.12/site-packages/pricing/rates.py:9: TypeError",
        );
        assert_eq!(
            middle.statements.iter().collect::<Vec<_>>(),
            ["assert total(guest_cart()) == 30"]
        );
        // Node's uncaught error shows the line over a caret
        let node = |code: &str| {
            Place::named_in(&format!(
                "/home/kim/web/src/orders.js:12\n  {code}\n        ^\n\n\
                 TypeError: Cannot read properties of undefined (reading 'map')\n\
                 \x20   at total (/home/kim/web/src/orders.js:12:9)"
            ))
        };
        assert!(node("return rows.map(r => r.id);").is_elsewhere_than(&node("items.map(render)")));
        assert!(!node("items.map(render)").is_elsewhere_than(&node("items.map(render)")));
        // a library's line is not the user's statement
        let library = Place::named_in(
            "  File \"/x/.venv/lib/python3.12/site-packages/httpx/_client.py\", line 9, in post\n    return self.request()",
        );
        assert!(library.statements.is_empty());
        // one side shows no line: the function decides
        let cut = Place::named_in("app/orders.py:42: in total");
        assert!(!cut.is_elsewhere_than(&tax));
    }

    #[test]
    fn ruby_php_and_native_frames_name_the_users_functions() {
        let functions = |t: &str| Place::named_in(t).functions.into_iter().collect::<Vec<_>>();
        let rspec = "     # ./app/controllers/api/v1/holds_controller.rb:31:in 'Api::V1::HoldsController#mine'\n\
            \x20    # /home/dario/.gem/ruby/3.4.1/gems/actionpack-8.0.1/lib/abstract_controller/base.rb:226:in 'AbstractController::Base#process_action'\n\
            \x20    # ./app/models/hold.rb:9:in 'block in Hold.next_position'\n\
            \x20    # ./spec/requests/holds_spec.rb:52:in 'block (3 levels) in <top (required)>'";
        assert_eq!(
            functions(rspec),
            ["api::v::holdscontroller#mine", "hold.next_position"]
        );
        // before Ruby 3.4, a backquote opens the name
        assert_eq!(
            functions("app/models/loan.rb:42:in `notify_overdue!'"),
            ["notify_overdue!"]
        );
        let gdb = "flow_table_insert (t=t@entry=0x5555555592a0, key=key@entry=0x0) at src/flow.c:84\n\
            84\t    e->next = *slot;\n\
            #0  flow_table_insert (t=t@entry=0x5555555592a0, key=key@entry=0x0) at src/flow.c:84\n\
            #1  0x0000555555555bfe in handle_packet (user=<optimized out>) at src/main.c:61\n\
            #2  0x00007ffff7f8a1d4 in ?? () from /lib/x86_64-linux-gnu/libpcap.so.0.8\n\
            #3  0x00007ffff7f7b2f7 in pcap_loop () from /lib/x86_64-linux-gnu/libpcap.so.0.8";
        let place = Place::named_in(gdb);
        assert_eq!(
            place.functions.iter().collect::<Vec<_>>(),
            ["flow_table_insert", "handle_packet"]
        );
        assert_eq!(
            place.statements.iter().collect::<Vec<_>>(),
            ["e->next = *slot;"]
        );
        let asan = "    #0 0x55d4c1 in parse_ipv4_options /home/dario/src/pcapsum/src/ipv4.c:42:9\n\
            \x20   #1 0x7f3a2b in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)";
        assert_eq!(functions(asan), ["parse_ipv4_options"]);
    }

    #[test]
    fn rspec_and_laravel_show_the_failing_line() {
        let rspec = Place::named_in(
            "     Failure/Error: render json: { position: hold.position }\n\n     NoMethodError:\n       undefined method 'position' for nil\n\
             \x20    # ./app/controllers/holds_controller.rb:31:in 'HoldsController#mine'",
        );
        assert_eq!(
            rspec.statements.iter().collect::<Vec<_>>(),
            ["render json: { position: hold.position }"]
        );
        let laravel = |at: &str| {
            Place::named_in(&format!(
                "  Call to a member function notify() on null\n\n  at {at}\n     51▕         if ($ticket->wasRecentlyCreated) {{\n\
                 \x20 ➜  52▕             $ticket->reporter->notify(new TicketReceived($ticket));\n     53▕         }}"
            ))
        };
        assert_eq!(
            laravel("app/Services/TicketAssigner.php:52")
                .statements
                .iter()
                .collect::<Vec<_>>(),
            ["$ticket->reporter->notify(new ticketreceived($ticket));"]
        );
        // the framework's line is not the user's
        assert!(
            laravel("vendor/laravel/framework/src/Illuminate/Database/Connection.php:825")
                .statements
                .is_empty()
        );
    }

    #[test]
    fn each_trace_of_an_output_shows_its_own_failing_line() {
        let failure = |test: &str, code: &str| {
            format!(
                "______________________________ {test} _______________________________\n\
                 app/orders.py:42: in total\n    {code}\n\
                 E   TypeError: 'NoneType' object is not subscriptable\n"
            )
        };
        let rate = failure("test_total", "rate = discounts_for(cart.user)[\"rate\"]");
        let tax = failure("test_tax", "tax = region_of(cart)[\"tax\"]");
        // a run that fails one more test is still where the first failed
        let both = Place::named_in(&format!("{rate}{tax}"));
        assert_eq!(both.statements.len(), 2);
        assert!(!both.is_elsewhere_than(&Place::named_in(&rate)));
        assert!(Place::named_in(&tax).is_elsewhere_than(&Place::named_in(&rate)));
    }

    #[test]
    fn a_recursion_is_placed_by_its_functions_not_where_the_stack_ran_out() {
        let recursion = |code: &str| {
            format!(
                "Traceback (most recent call last):\n\
                 \x20 File \"/home/kim/app/parity.py\", line 3, in is_even\n    return is_odd(n - 1)\n\
                 \x20 File \"/home/kim/app/parity.py\", line 7, in is_odd\n    {code}\n\
                 RecursionError: maximum recursion depth exceeded"
            )
        };
        let a = recursion("return is_even(n - 1)");
        let b = recursion("if n == 0:");
        let place =
            |out: &str| Place::of_error(&Signature::of(out).unwrap(), out, "python parity.py");
        assert!(!place(&a).is_elsewhere_than(&Place::named_in(&b)));
    }

    #[test]
    fn a_log_line_is_no_frame_and_a_users_folder_no_library() {
        assert!(native_frame_function("error (job 42) at app/workers/sync.py:12").is_none());
        assert_eq!(
            native_frame_function(
                "#0 0x4f3a1b in Parser::parse(char const*) /home/kim/src/parser.cpp:42:9"
            )
            .as_deref(),
            Some("Parser::parse")
        );
        for users in [
            "  file \"/home/kim/shop/app/vendor/payouts.py\", line 4, in pay",
            "./app/controllers/vendor/payouts_controller.rb:9:in 'vendor::payoutscontroller#show'",
            "/home/kim/src/gems/ledger/lib/ledger.rb:3:in 'post'",
        ] {
            assert!(!not_the_users(users), "{users}");
        }
        for library in [
            "/home/kim/.gem/ruby/3.4.1/gems/actionpack-8.0.1/lib/x.rb:8:in 'send_action'",
            "/usr/local/bundle/gems/rack-3.1.8/lib/rack.rb:1:in 'call'",
            "  at vendor/laravel/framework/src/illuminate/database/connection.php:825",
            "   at system.threading.tasks.task.innerinvoke()",
        ] {
            assert!(not_the_users(library), "{library}");
        }
    }

    #[test]
    fn generated_numbers_leave_a_function_its_name() {
        assert_eq!(
            unnumbered("main.(*server).routes.func1.2"),
            "main.(*server).routes.func."
        );
        assert_eq!(
            unnumbered("bank.transfer.lambda$transfer$0"),
            "bank.transfer.lambda$transfer$"
        );
        assert_eq!(unnumbered("parse_ipv4_options"), "parse_ipv4_options");
        // a number that ends a name goes too
        assert_eq!(unnumbered("decode_utf8"), "decode_utf");
    }

    #[test]
    fn a_line_the_index_cut_is_the_same_as_the_whole() {
        assert!(same_code("e->nex…", "e->next = *slot;"));
        assert!(same_code("e->next = *slot;", "e->next = *slot;"));
        assert!(!same_code(
            "uint64_t h = flow_hash(key);",
            "e->next = *slot;"
        ));
        assert!(!same_code("e->nex…", "uint64_t h…"));
    }

    #[test]
    fn messages_any_runtime_prints() {
        let generic = |out: &str| is_generic_message(&Signature::of_failure(out).unwrap());
        for out in [
            "NoMethodError: undefined method 'position' for nil",
            "Call to a member function notify() on null",
            "System.NullReferenceException: Object reference not set to an instance of an object.",
            "kotlin.UninitializedPropertyAccessException: lateinit property binding has not been initialized",
            "Fatal error: Unexpectedly found nil while implicitly unwrapping an Optional value",
            "==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011",
        ] {
            assert!(generic(out), "{out}");
        }
        assert!(!generic("NameError: uninitialized constant Hold::Queue"));
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
        // the machine itself runs one service per port
        let admin = Place::named_in_command("curl -f http://localhost:3000/admin");
        assert!(local.is_elsewhere_than(&admin));
        let v6 = Place::named_in_command("curl -f http://[::1]:3000/admin/users");
        assert!(!admin.is_elsewhere_than(&v6));
        let bare = Place::named_in_command("curl -f http://localhost/health");
        let eighty = Place::named_in_command("curl -f http://0.0.0.0:80/health");
        assert!(!bare.is_elsewhere_than(&eighty));
        let db = Place::named_in_command("psql postgres://app@localhost/shop");
        let db_port = Place::named_in_command("psql postgres://app@127.0.0.1:5432/shop");
        let other_db = Place::named_in_command("psql postgres://app@localhost:5433/shop");
        assert!(!db.is_elsewhere_than(&db_port));
        assert!(db.is_elsewhere_than(&other_db));
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

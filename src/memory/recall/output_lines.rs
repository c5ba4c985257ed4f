//! An output's lines as a message reads them, unwrapped from what tools
//! wrote around it: its head and tail when long, colours gone, JSON read
//! as the lines it holds, an excerpt's cut mended, and what a log, a CI
//! runner or a process manager wrote before each line taken away. Then
//! [`super::error_line`] tells which lines say what failed: the same
//! message met bare and inside `docker compose`, `turbo`, GitHub Actions,
//! a journal or Ansible's result reads the same.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::platform::agents::transcript::failure::{
    error_word_end, has_error_word, without_colours,
};
use crate::platform::agents::transcript::{CUT, KEPT};
use crate::platform::host::text;

/// What a log or a CI runner writes before each line, whatever it says:
/// `gh run view --log`'s job, step and time (`build\tBuild and
/// push\t2026-10-03T07:12:40.118Z `), BuildKit's step and seconds (`#17
/// 3.021 `, and the seconds alone, `39.61 `, in the lines of a failed
/// step its summary repeats), Spring Boot's header (`2026-11-24T09:12:05.771+01:00  WARN
/// 31877 --- [app] [main] o.s.b.SpringApplication : `) and Ruby's Logger's
/// (`E, [2026-10-08T07:55:12.004118 #1] ERROR -- : `), and GitHub Actions'
/// time alone (a downloaded log: `2026-10-14T08:12:55.1234567Z `) and its
/// `##[error]` before a message, syslog's and journald's header (`Nov 20
/// 10:00:00 host app[4242]: `), docker compose's container (`api-1  |
/// `) and the columns before a Kubernetes event's message (`kubectl
/// describe`'s `Warning  Failed  79s (x4 over 2m48s)  kubelet  `, `kubectl
/// get events`' `4m40s  Warning  Failed  pod/api-5b8f  `) and pytest's
/// `E   ` before the lines of an exception, and a time alone (dbt's
/// `15:20:12  `), however few lines carry them. Read on the raw
/// line, where the tabs still are; nested ones are stripped in turn. ASCII
/// classes: `[^\t]+` compiled in 0.6 ms, a third of that as `[ -~]+`.
static LOG_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[ -~]+\t[ -~]+\t[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z ?|#[0-9]+ (?:[0-9]+\.[0-9]+ )?|[0-9]{1,4}\.[0-9]{2,3} +|[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.,]+(?:Z|[+-][0-9]{2}:?[0-9]{2})? +(?:ERROR|WARN|INFO|DEBUG|TRACE|FATAL) +[0-9]+ --- (?:\[[ -\\^-~]*\] +)*[!-~]+ +: |[A-Z], \[[ -\\^-~]*\] +(?:ERROR|WARN|INFO|DEBUG|FATAL|ANY) -- [ -9;-~]*: |[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z |[0-2][0-9]:[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)? +|##\[error\]|[A-Z][a-z]{2} +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2} [!-~]+ [!-9;-Z^-~]+(?:\[[0-9]+\])?: |[a-z0-9_.-]+-[0-9]+ +\| |(?:Normal|Warning) +[A-Za-z]+ +[0-9]+[smhd][0-9smhd]*(?: \(x[0-9]+ over [0-9smhd]+\))? +[!-+\--~]+(?:, [!-~]+)? +|[0-9]+[smhd][0-9smhd]* +(?:Normal|Warning) +[A-Za-z]+ +[a-z.]+/[!-~]+ +|E {2,})",
    )
    .expect("valid")
});

/// Output read, in bytes: an error says what it is near its start or its
/// end, and a megabyte of build log must not slow the hook.
const HEAD_BYTES: usize = 16 * 1024;
const TAIL_BYTES: usize = 8 * 1024;

/// An output as its lines are read: its head and tail when long
/// ([`read_ends`]), without colours (turbo's `\x1b[36mweb:build: \x1b[0m`
/// before each line: the label, the frame and the log header are found at
/// the line's start), what it holds as JSON as lines ([`unescaped`]).
pub(super) fn readable(output: &str) -> Cow<'_, str> {
    let mut text = read_ends(output);
    if let Cow::Owned(plain) = without_colours(&text) {
        text = Cow::Owned(plain);
    }
    // twice at most: a JSON log's message may be JSON in turn (an HTTP
    // response body inside Ansible's `stderr`)
    for _ in 0..JSON_DEPTH {
        match unescaped(&text) {
            Cow::Owned(read) => text = Cow::Owned(read),
            Cow::Borrowed(_) => break,
        }
    }
    text
}

/// The part of an output that is read: its head and tail when long
/// (whatever else reads it, such as the redaction of a new output, reads
/// no more than this).
pub(super) fn read_ends(output: &str) -> Cow<'_, str> {
    text::ends(output, HEAD_BYTES, TAIL_BYTES, "\n")
}

/// JSON inside JSON read, at most this deep.
const JSON_DEPTH: usize = 2;

/// The lines of `text` as they are read: uncut ([`uncut`]), without what a
/// log wrote before each ([`message`]) nor the labels runners write before
/// most of them ([`runner_labels`]), a line a tool cut short without its
/// last part word ([`unellipsed`]).
pub(super) fn messages(text: &str) -> Vec<&str> {
    let mut all: Vec<&str> = text.lines().collect();
    uncut(&mut all);
    let mut all: Vec<&str> = all.into_iter().map(message).collect();
    // each line's label read once, for the count and the cut
    let keys: Vec<Option<(String, usize)>> = all.iter().map(|l| label_key(l)).collect();
    let labels = runner_labels(&all, &keys);
    if !labels.is_empty() {
        for (line, key) in all.iter_mut().zip(&keys) {
            if let Some((key, end)) = key
                && labels.contains(key)
            {
                *line = message(&line[*end..]);
            }
        }
    }
    all.into_iter().map(unellipsed).collect()
}

/// What ends a runner's label before a line: docker compose's `api-1  | `,
/// turbo's `web:build: `, pnpm's `packages/api test: `, journald's `Oct 14
/// 08:12:55 host app[1234]: `, a script's `[deploy] `.
const LABEL_ENDS: [&str; 4] = ["| ", ": ", "] ", "$ "];

/// Longest runner label, in bytes.
const LABEL_BYTES: usize = 48;

/// A label's key (each run of digits as `0`: a pid, a time, a replica's
/// number change from line to line) and where its line's message starts.
fn label_key(line: &str) -> Option<(String, usize)> {
    // `grep -n`'s line number, `:` before a match and `-` before its
    // context (`101:npm ERR! …`, `102-npm ERR! …`): one label
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    // (grep counts from 1: anyhow's numbered causes, `0: …`, are not)
    if digits > 0
        && !line.starts_with('0')
        && matches!(line.as_bytes().get(digits), Some(b':' | b'-'))
        && !line
            .as_bytes()
            .get(digits + 1)
            .is_some_and(u8::is_ascii_digit)
    {
        return Some((GREP_LINE.to_string(), digits + 1));
    }
    let head = &line[..text::floor_boundary(line, LABEL_BYTES)];
    let end = LABEL_ENDS
        .iter()
        .filter_map(|sep| head.find(sep).map(|i| i + sep.len()))
        .min();
    // a label before an empty line, its space trimmed (`api-1  |`)
    let (label, end) = match end {
        Some(end) => (&line[..end], end),
        None if line.len() <= LABEL_BYTES
            && LABEL_ENDS.iter().any(|sep| line.ends_with(sep.trim_end())) =>
        {
            (line, line.len())
        }
        None => return None,
    };
    let mut key = String::with_capacity(label.len() + 1);
    for c in label.chars() {
        // a run of digits, however long, is one `0`
        if !(c.is_ascii_digit() && key.ends_with('0')) {
            key.push(if c.is_ascii_digit() { '0' } else { c });
        }
    }
    if !key.ends_with(' ') {
        key.push(' ');
    }
    Some((key, end))
}

/// Not a runner's label but the start of a message: a level, an error
/// word, a cause, a compiler's note.
static NOT_A_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(?:caused by|note|help|hint|info|warn|warning|debug|trace|notice|verbose|[a-z])\W*(?:\s|:|$)")
        .expect("valid")
});

/// The labels runners write before most lines of an output (each before
/// at least [`LABELLED_LINES`] lines, together before half of those that
/// say something), when they do: the same message met bare and inside
/// `docker compose up` (`api-1  | ` and `db-1  | `), `turbo run`,
/// `concurrently` (`[queue] `, `[vite] `) or a journal reads the same.
/// Their keys, of `keys` (each line's [`label_key`]).
fn runner_labels(lines: &[&str], keys: &[Option<(String, usize)>]) -> Vec<String> {
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for (key, _) in keys.iter().flatten() {
        *counts.entry(key).or_default() += 1;
    }
    let said = lines.iter().filter(|l| !l.is_empty()).count();
    let labels: Vec<(&str, usize)> = counts
        .iter()
        .map(|(key, n)| (*key, *n))
        .filter(|(key, n)| {
            let label = key.trim_end();
            *n >= LABELLED_LINES
                && (label.chars().any(char::is_alphabetic) || *key == GREP_LINE)
                && !has_error_word(label)
                && !NOT_A_LABEL.is_match(label)
        })
        .collect();
    let labelled: usize = labels.iter().map(|(_, n)| n).sum();
    if 2 * labelled < said {
        return Vec::new();
    }
    // a label's own variants, however few lines carry them: Earthly's
    // `+test *failed* | ` after its `+test | `
    let first_word = |key: &str| key.split(' ').next().unwrap_or_default().to_string();
    let words: Vec<String> = labels.iter().map(|(key, _)| first_word(key)).collect();
    counts
        .into_keys()
        .filter(|key| {
            labels.iter().any(|(label, _)| label == key)
                || (key.trim_end().contains(' ')
                    && words.contains(&first_word(key))
                    && *key != GREP_LINE)
        })
        .map(str::to_string)
        .collect()
}

/// The key of `grep -n`'s line numbers ([`label_key`]), one no line's
/// own label makes (`1: ` is anyhow's numbered cause).
const GREP_LINE: &str = "<grep -n> ";

/// Least lines a runner's label must stand before.
const LABELLED_LINES: usize = 3;

/// A line a tool cut short with `…` without the part word before it
/// (`… because these package versi…`): not a word of the message.
fn unellipsed(line: &str) -> &str {
    match line.strip_suffix('…') {
        Some(cut) => cut
            .rsplit_once(' ')
            .map_or(cut, |(whole, _)| whole.trim_end()),
        None => line,
    }
}

/// `text` with what a tool wrote as JSON read as the lines it holds: a
/// line that ends in a JSON object (Ansible's `fatal: [web1]: FAILED! =>
/// {"msg": …, "stderr": "…\n…"}`, a structured log's `{"level":"error",
/// "msg": …}`) as its label and each string in it, line by line; a JSON
/// string's escaped lines (`"stderr": "…\n…",` as `ansible -v` prints it)
/// as lines, and a JSON line a tool cut (`… "msg": "Failed to connect to
/// the host via ssh: …\r\n…`) as its values. Borrowed when there is none.
fn unescaped(text: &str) -> Cow<'_, str> {
    if !text.contains("\\n") && !text.contains("{\"") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut read = false;
    for line in text.lines() {
        if let Some((label, object)) = json_object(line) {
            read = true;
            // an excerpt's `… ` alone would read as its cut: its lines are
            // each kept whole instead
            let label = label.trim_end();
            let kept = label == CUT;
            if !label.is_empty() && !kept {
                out.push_str(label);
                out.push('\n');
            }
            let mark = if kept { KEPT } else { "" };
            push_strings(&serde_json::Value::Object(object), mark, &mut out);
        } else if is_cut_json(line) || PRETTY_KEY.is_match(line) {
            read = true;
            // cut, or one of a pretty-printed object's lines: each value
            // after its key
            for value in JSON_KEY.split(line) {
                let value = value.trim().trim_end_matches(['}', ',']).trim_matches('"');
                if !value.is_empty() {
                    out.push_str(&unescape(value));
                    out.push('\n');
                }
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if read {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// The JSON object a line ends with, and what comes before it, when it
/// holds a message (a string of two words or more): `Expected: {"a": 1}`
/// is a line, not a log record.
fn json_object(line: &str) -> Option<(&str, serde_json::Map<String, serde_json::Value>)> {
    let trimmed = line.trim_end();
    if !trimmed.ends_with('}') {
        return None;
    }
    let start = trimmed.find("{\"")?;
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&trimmed[start..]).ok()?;
    let says = |v: &serde_json::Value| v.as_str().is_some_and(|s| s.trim().contains(' '));
    object
        .values()
        .any(says)
        .then_some((&trimmed[..start], object))
}

/// Whether the JSON object a line holds from its first `{"` was cut (it
/// ends before it closes), not an object inside a sentence (pytest's
/// `assert {"id": 1} == {"id": 2}`).
fn is_cut_json(line: &str) -> bool {
    line.find("{\"").is_some_and(|start| {
        serde_json::from_str::<serde_json::Value>(&line[start..]).is_err_and(|e| e.is_eof())
    })
}

/// A pretty-printed object's line that holds an escaped string (`"stderr":
/// "…\n…",` as `ansible -v` prints it).
static PRETTY_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*"[A-Za-z_][A-Za-z0-9_]*": "(?:[^"\\]|\\.)*\\n"#).expect("valid")
});

/// Every string in `value`, a line each (a string's own lines each, after
/// `mark`), but
/// Ansible's `stdout_lines` and `stderr_lines`, which repeat `stdout` and
/// `stderr`.
fn push_strings(value: &serde_json::Value, mark: &str, out: &mut String) {
    match value {
        serde_json::Value::String(s) => {
            for line in s.lines() {
                out.push_str(mark);
                out.push_str(line);
                out.push('\n');
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| push_strings(v, mark, out)),
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(key, _)| !key.ends_with("_lines"))
            .for_each(|(_, v)| push_strings(v, mark, out)),
        _ => {}
    }
}

/// A JSON string's body unescaped (`\n`, `\t`, `\"`, `\\`, `\u…`); one a
/// cut left unterminated, escape by escape.
fn unescape(body: &str) -> String {
    if let Ok(s) = serde_json::from_str::<String>(&format!("\"{body}\"")) {
        return s;
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push(' '),
            Some('r') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

/// A JSON key and its colon, where a line that is not a whole object
/// (cut, or one of a pretty-printed one's lines) is split into its values.
static JSON_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[{,])\s*"[@A-Za-z_][@A-Za-z0-9_.-]*"\s*:\s*"#).expect("valid")
});

/// Lines without the part words an excerpt's cut left either side of its
/// `…` line ([`Signature::of_window`]): `missing colu` is not a word of the
/// error that a whole line lacks. The causes an excerpt kept from the
/// middle (`… Caused by: …`) are whole lines: only their mark goes.
fn uncut(lines: &mut [&str]) {
    for i in 0..lines.len() {
        if lines[i].trim() == CUT {
            if i > 0 && !lines[i - 1].starts_with(KEPT) {
                lines[i - 1] = lines[i - 1].rsplit_once(' ').map_or("", |(whole, _)| whole);
            }
            if let Some(after) = lines.get(i + 1)
                && !after.starts_with(KEPT)
            {
                lines[i + 1] = after.split_once(' ').map_or("", |(_, whole)| whole);
            }
        }
    }
    for line in lines.iter_mut() {
        if let Some(kept) = line.strip_prefix(KEPT) {
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

/// Longest line read, in bytes (a longer one is data, not a message); the
/// index keeps the causes of a long output's middle as long
/// (`transcript::error_excerpt`).
pub(super) const LONGEST_LINE: usize = 600;
/// A line longer than [`LONGEST_LINE`] that opens with what failed, read
/// by its first sentence (Azure Functions' `Exception:
/// ModuleNotFoundError: No module named 'azure.storage'. Cannot find
/// module. … Current sys.path: [… 700 bytes of paths]`); any other line
/// as it is (a longer one is data: a linker's command line).
pub(super) fn head_of(line: &str) -> &str {
    if line.len() <= LONGEST_LINE {
        return line;
    }
    let opening = &line[..text::floor_boundary(line, OPENING_BYTES)];
    match error_word_end(opening) {
        Some(at) => line[at..]
            .find(". ")
            .map_or(line, |end| &line[..at + end + 1]),
        None => line,
    }
}

/// Where a long line must say what failed to be read ([`head_of`]).
const OPENING_BYTES: usize = 80;

/// The line after message `i`, that a line ending in `:` says what failed
/// on. After a bare label (`error:`, as wasm-bindgen writes it) the
/// message may come after a blank line or two: the first line of it.
pub(super) fn message_after<'a>(all: &[&'a str], i: usize) -> Option<&'a str> {
    let next = all.get(i + 1).copied();
    if !BARE_LABEL.is_match(all[i]) || next.is_some_and(|n| !n.is_empty()) {
        return next;
    }
    all[i + 1..]
        .iter()
        .take(BLANK_LINES + 1)
        .find(|l| !l.is_empty())
        .copied()
}

/// A line that is an error label alone, its message on the lines below.
static BARE_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:error|fatal|failure)\s*:$").expect("valid"));
/// Blank lines read past between a bare label and its message.
const BLANK_LINES: usize = 2;

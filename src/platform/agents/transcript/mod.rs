//! Reading the agents' conversation logs into the turns a person would
//! search for: Claude Code's transcripts (`claude.rs`; OpenClaw's, which pms
//! records in the same format) and Codex's rollouts (`codex.rs`), read by the
//! same [`read`]: each line is told apart by its shape.
//!
//! What is kept: user prompts, assistant text (one turn per API message: the
//! lines that share a `message.id` are joined), tool calls reduced to the
//! tool's name and the argument a person remembers (file, command, pattern,
//! URL), a bounded excerpt of each tool result, and compaction summaries.
//! What is dropped: thinking blocks, metadata lines (snapshots, queue and API
//! bookkeeping, attachments), meta and wrapper-only user turns. A line that is
//! not valid JSON, or is shaped unexpectedly, is skipped and counted; a last
//! line without its newline is left for the next read (Claude Code may still
//! be writing it).

pub mod claude;
pub mod codex;
pub mod failure;

use std::collections::HashMap;
use std::io::BufRead;

use serde_json::Value;

use crate::platform::host::lines::{self, LineRead};
use crate::platform::host::text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    /// Tool results.
    Tool,
    /// A compaction summary written by Claude Code.
    Summary,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Summary => "summary",
        }
    }
}

/// One searchable turn, with the JSONL lines (1-based) it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub role: Role,
    pub text: String,
    pub line_start: u64,
    pub line_end: u64,
    /// Byte offset where the turn's first line starts.
    pub byte_start: u64,
    pub timestamp: Option<String>,
    /// Assistant turns: the API message id their lines share.
    pub message_id: Option<String>,
    /// Files written or edited by tool calls in this turn.
    pub files_changed: Vec<String>,
}

/// What a read saw besides the turns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadStats {
    /// Complete lines consumed.
    pub lines: u64,
    /// Lines that were not valid JSON or not shaped as expected.
    pub malformed: u64,
    /// Lines longer than `host::lines::MAX_LINE`, passed over unread.
    pub too_long: u64,
    /// Offset just past the last complete line consumed.
    pub end_offset: u64,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Characters of each tool result kept.
    pub tool_result_chars: usize,
    /// True for subagent transcripts, whose lines are all side-chain.
    pub keep_sidechain: bool,
    /// Stop after this many lines (for reading a range).
    pub max_lines: Option<u64>,
    /// Whether tool results are read into turns.
    pub tool_results: ToolResults,
}

/// Whether a read keeps tool results ([`ReadOptions::tool_results`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolResults {
    Kept,
    /// Left out, for a reader that uses only what was said (a session's
    /// summary). A Claude Code line that holds only tool results (most of
    /// a transcript's conversation bytes) is then read for its time and
    /// ids alone, not into JSON values: a third of the transcript read at a
    /// session end with 10 MB behind it (callgrind).
    Skipped,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            tool_result_chars: 300,
            keep_sidechain: false,
            max_lines: None,
            tool_results: ToolResults::Kept,
        }
    }
}

/// Reads lines from `input` (positioned at byte `start_offset`, which is the
/// start of line `start_line + 1`) to its end.
pub fn read(
    input: &mut impl BufRead,
    start_offset: u64,
    start_line: u64,
    opts: &ReadOptions,
) -> (Vec<Turn>, ReadStats) {
    let mut st = ReadStats {
        end_offset: start_offset,
        ..ReadStats::default()
    };
    let mut turns: Vec<Turn> = Vec::new();
    let mut tool_names: HashMap<String, String> = HashMap::new();
    let mut buf = Vec::new();
    let mut offset = start_offset;
    let mut line_no = start_line;
    loop {
        if opts.max_lines.is_some_and(|m| st.lines >= m) {
            break;
        }
        let n = match lines::next_line(input, &mut buf, lines::MAX_LINE) {
            Ok(LineRead::Line(n)) => n,
            Ok(LineRead::TooLong(n)) => {
                // passed over, never held whole (see `host::lines`)
                offset += n;
                line_no += 1;
                st.lines += 1;
                st.too_long += 1;
                st.end_offset = offset;
                continue;
            }
            // a half-written last line is left for the next read
            Ok(LineRead::Unfinished(_) | LineRead::End) | Err(_) => break,
        };
        let line_start = offset;
        offset += n as u64;
        line_no += 1;
        st.lines += 1;
        st.end_offset = offset;
        let bytes = &buf[..n - 1];
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if codex::is_rollout_line(bytes) {
            if !codex::take_line(
                bytes,
                line_no,
                line_start,
                opts.tool_result_chars,
                &mut st,
                &mut turns,
                &mut tool_names,
            ) {
                st.malformed += 1;
            }
            continue;
        }
        if !claude::is_conversation_line(bytes) {
            // Metadata lines are not parsed (they are most of the bytes); a
            // line that is not even shaped like a JSON object is counted.
            let trimmed = bytes.trim_ascii();
            if trimmed.first() != Some(&b'{') || trimmed.last() != Some(&b'}') {
                st.malformed += 1;
            }
            continue;
        }
        if opts.tool_results == ToolResults::Skipped && claude::holds_only_tool_results(bytes) {
            match serde_json::from_slice::<claude::Head>(bytes) {
                Ok(head) => claude::take_head(&head, &mut st),
                Err(_) => st.malformed += 1,
            }
            continue;
        }
        let line: claude::Line = match serde_json::from_slice(bytes) {
            Ok(l) => l,
            Err(_) => {
                st.malformed += 1;
                continue;
            }
        };
        claude::take_line(
            line,
            line_no,
            line_start,
            opts,
            &mut st,
            &mut turns,
            &mut tool_names,
        );
    }
    (turns, st)
}

/// Whether `tool` writes files (Claude Code's Write, Edit, MultiEdit,
/// NotebookEdit; Codex's and OpenClaw's `apply_patch`; OpenClaw's `write`,
/// `edit`).
pub fn is_edit_tool(tool: &str) -> bool {
    matches!(
        tool,
        "Write" | "write" | "Edit" | "edit" | "MultiEdit" | "NotebookEdit" | "apply_patch"
    )
}

/// `[tool Bash] ls -la`: the tool and the argument a person would remember.
pub fn describe_tool_use(name: &str, input: &Value) -> String {
    const KEYS: [&str; 11] = [
        "file_path",
        "notebook_path",
        "path",
        "command",
        "cmd",
        "pattern",
        "url",
        "query",
        "description",
        "skill",
        "prompt",
    ];
    let mut args = Vec::new();
    for k in KEYS {
        if let Some(v) = input.get(k).and_then(Value::as_str) {
            args.push(truncate(v, 200));
        }
        if args.len() == 2 {
            break;
        }
    }
    if args.is_empty() && input.as_object().is_some_and(|o| !o.is_empty()) {
        args.push(truncate(&input.to_string(), 200));
    }
    format!("[tool {name}] {}", args.join(" "))
}

/// The text of a message content that is a string or a list of parts with
/// `text` (Claude Code's tool results, Codex's `input_text`/`output_text`).
pub fn parts_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Characters kept of a failed tool's output at each end, at least: an
/// error says what it is near its start or its end (a build log's last
/// lines, a traceback's last line), and pms recalls past fixes by it.
pub const ERROR_END_CHARS: usize = 1_000;

/// Lines kept from the middle of a long failed output: its error lines, or
/// its `Caused by:` lines when it has some; and the characters kept of each
/// (as many as `recall::error_line` reads of a line).
const MIDDLE_LINES: usize = 6;
const MIDDLE_CAUSES: usize = 4;
/// Lines of the middle read for error lines, each up to CAUSE_CHARS (at
/// most 2.4 MB): the hook reads a new failure this way too, and a log of
/// megabytes whose middle says no error must not cost it a pattern match
/// per line.
const MIDDLE_READ: usize = 4_000;
const CAUSE_CHARS: usize = 600;
/// The line an excerpt puts where it cut, and the mark before each line it
/// kept whole from the part it cut ([`error_excerpt`]).
pub const CUT: &str = "…";
pub const KEPT: &str = "… ";

/// What the index keeps of a failed tool's output: all of it up to twice
/// [`ERROR_END_CHARS`] (or `result_chars`, if larger), else its start and
/// its end with a `…` line between, and between them, each after `… `, the
/// `Caused by:` lines of the middle (at most [`MIDDLE_CAUSES`]): a Java or
/// Kotlin stack trace names its root cause there, between the first
/// exception and the build's summary (Spring's `No qualifying bean of type
/// …`); or, when it has none, the lines of the middle that say something
/// failed ([`failure::says_failure`]; at most [`MIDDLE_LINES`], frames left
/// out): a test run cut with `head` or a CI log names its exception there,
/// between the passing tests and the runner's summary.
pub fn error_excerpt(body: &str, result_chars: usize) -> String {
    let body = body.trim();
    let end = ERROR_END_CHARS.max(result_chars / 2);
    let n = body.chars().count();
    if n <= 2 * end {
        return body.to_string();
    }
    let at = |chars: usize| {
        body.char_indices()
            .nth(chars)
            .map_or(body.len(), |(i, _)| i)
    };
    let (head, tail) = whole_lines(body, at(end), at(n - end));
    if head >= tail {
        return body.to_string();
    }
    let middle: Vec<&str> = body[head..tail].lines().map(str::trim).collect();
    // not the lines the two ends cut (after a whole head, the first is
    // the empty rest of its line; before a whole tail, the last is whole)
    let last = if body[..tail].ends_with('\n') {
        middle.len()
    } else {
        middle.len().saturating_sub(1)
    };
    let whole = middle.get(1..last).unwrap_or(&[]);
    let kept = failure_lines(whole);
    let (head, tail) = (&body[..head], &body[tail..]);
    if kept.is_empty() {
        return format!("{head}\n{CUT}\n{tail}");
    }
    format!("{head}\n{CUT}\n{}\n{CUT}\n{tail}", kept_lines(&kept))
}

/// The ends of an excerpt moved to the lines' own ends: the head to the
/// end of the line it cuts, the tail back to the start of the line it
/// cuts, when that line goes on at most [`LINE_SLACK`] bytes. The cut
/// lands where an error often is (BuildKit's `10.11 error[E0463]: can't
/// find crate for `core`` read as `463]: can't find …`), and a new run
/// cuts the same line elsewhere.
fn whole_lines(body: &str, head: usize, tail: usize) -> (usize, usize) {
    // only LINE_SLACK bytes either way are looked at: a megabyte-long line
    // (a minified bundle) must not be scanned on the hook's path
    let after = text::floor_boundary(body, head + LINE_SLACK + 1);
    let head = body[head..after]
        .find('\n')
        .map_or(head, |rest| head + rest);
    let before = text::ceil_boundary(body, tail.saturating_sub(LINE_SLACK + 1));
    let tail = body[before..tail]
        .rfind('\n')
        .map_or(tail, |start| before + start + 1);
    (head, tail)
}

/// Bytes an excerpt's end may move to keep its line whole ([`whole_lines`]).
const LINE_SLACK: usize = 120;

/// What the index keeps of a tool's output that did not fail: its first
/// `result_chars` characters and, when it goes on, the lines after them
/// that say something failed ([`failure_lines`], each after `… `). A
/// command that reads a log (`supervisorctl tail`, `kubectl logs`,
/// `journalctl`) succeeds while the error it shows is the one to recall.
pub fn result_excerpt(body: &str, result_chars: usize) -> String {
    let body = body.trim();
    let Some((cut, _)) = body.char_indices().nth(result_chars) else {
        return body.to_string();
    };
    let head = format!("{}…", &body[..cut]);
    let rest: Vec<&str> = body[cut..].lines().skip(1).map(str::trim).collect();
    let kept = failure_lines(&rest);
    if kept.is_empty() {
        return head;
    }
    format!("{head}\n{}", kept_lines(&kept))
}

/// The lines of a failed output's middle worth keeping: its `Caused by:`
/// lines when it has some (at most [`MIDDLE_CAUSES`]), else its lines that
/// say something failed (at most [`MIDDLE_LINES`], frames left out), each
/// once.
fn failure_lines<'a>(whole: &[&'a str]) -> Vec<&'a str> {
    // a Java chain names its causes in its `Caused by:` lines (the lines
    // under each say where, or go on with a message the chain repeats);
    // other outputs say what failed in their error lines
    let is_cause = |l: &str| l.starts_with("Caused by:");
    let causes = whole.iter().any(|l| is_cause(l));
    let room = if causes { MIDDLE_CAUSES } else { MIDDLE_LINES };
    // a cause is told by its start, anywhere in the middle; an error line
    // by a pattern, over the first MIDDLE_READ lines and CAUSE_CHARS of each
    let read = if causes { whole.len() } else { MIDDLE_READ };
    let mut kept: Vec<&str> = Vec::with_capacity(room);
    for l in whole.iter().take(read) {
        if kept.len() == room {
            break;
        }
        let wanted = if causes {
            is_cause(l)
        } else {
            // the line's first CAUSE_CHARS characters, borrowed: up to
            // MIDDLE_READ lines on the hook's path
            let head = l
                .char_indices()
                .nth(CAUSE_CHARS)
                .map_or(*l, |(i, _)| &l[..i]);
            !l.starts_with("at ") && failure::says_failure(&failure::without_colours(head))
        };
        if wanted && !kept.contains(l) {
            kept.push(l);
        }
    }
    kept
}

/// Kept lines, each after `… ` and cut to [`CAUSE_CHARS`].
fn kept_lines(kept: &[&str]) -> String {
    kept.iter()
        .map(|l| format!("{KEPT}{}", truncate(l, CAUSE_CHARS)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most `max` characters, cut at a character boundary, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Cursor;

    /// `read` over a string, from its start (the Codex reader's tests use it too).
    pub(crate) fn read_str(s: &str) -> (Vec<Turn>, ReadStats) {
        read(
            &mut Cursor::new(s.as_bytes()),
            0,
            0,
            &ReadOptions::default(),
        )
    }

    const A1: &str = r#"{"type":"assistant","uuid":"a1","timestamp":"2026-11-22T10:00:01Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"thinking","thinking":"secret plan"}]}}"#;
    const A2: &str = r#"{"type":"assistant","uuid":"a2","timestamp":"2026-11-22T10:00:02Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"I will list the files."}]}}"#;
    const A3: &str = r#"{"type":"assistant","uuid":"a3","timestamp":"2026-11-22T10:00:02Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la","description":"List files"}}]}}"#;
    const R1: &str = r#"{"type":"user","uuid":"u2","timestamp":"2026-11-22T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"total 8\nREADME.md"}]}}"#;
    const U1: &str = r#"{"type":"user","uuid":"u1","sessionId":"s-1","cwd":"/w/proj","timestamp":"2026-11-22T10:00:00Z","message":{"role":"user","content":"How do I list files?"}}"#;

    #[test]
    fn assistant_lines_are_grouped_by_message_id_and_thinking_is_dropped() {
        let text = [U1, A1, A2, A3, R1].join("\n") + "\n";
        let (turns, st) = read_str(&text);
        assert_eq!(st.lines, 5);
        assert_eq!(st.malformed, 0);
        assert_eq!(st.session_id.as_deref(), Some("s-1"));
        assert_eq!(st.cwd.as_deref(), Some("/w/proj"));
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[0].role, Role::User);
        assert_eq!(turns[1].role, Role::Assistant);
        assert_eq!((turns[1].line_start, turns[1].line_end), (3, 4));
        assert_eq!(
            turns[1].text,
            "I will list the files.\n[tool Bash] ls -la List files"
        );
        assert!(!turns[1].text.contains("secret plan"));
        assert_eq!(turns[2].role, Role::Tool);
        assert_eq!(turns[2].text, "[result Bash] total 8\nREADME.md");
    }

    #[test]
    fn broken_lines_are_counted_not_fatal() {
        let text = format!(
            "{U1}\nnot json at all\n{{\"type\":\"user\",\"message\":{{\"content\":5}}\n{{\"type\":\"assistant\",\"isSidechain\":\"yes\"}}\n{A2}\n"
        );
        let (turns, st) = read_str(&text);
        assert_eq!(st.lines, 5);
        assert_eq!(
            st.malformed, 3,
            "not JSON, a number as content, a bool field as a string"
        );
        assert_eq!(turns.len(), 2);
    }

    #[test]
    fn a_half_written_last_line_is_left_for_later() {
        let text = format!("{U1}\n{}", &A2[..40]);
        let (turns, st) = read_str(&text);
        assert_eq!(turns.len(), 1);
        assert_eq!(st.lines, 1);
        assert_eq!(st.end_offset as usize, U1.len() + 1);
    }

    #[test]
    fn reading_resumes_from_an_offset_with_right_line_numbers() {
        let text = [U1, A2, R1].join("\n") + "\n";
        let offset = (U1.len() + 1) as u64;
        let mut cur = Cursor::new(text.as_bytes());
        cur.set_position(offset);
        let (turns, st) = read(&mut cur, offset, 1, &ReadOptions::default());
        assert_eq!(turns[0].line_start, 2);
        assert_eq!(turns[0].byte_start, offset);
        assert_eq!(st.end_offset as usize, text.len());
    }

    #[test]
    fn wrappers_reminders_meta_and_sidechains_are_dropped() {
        let lines = [
            r#"{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"user","isMeta":true,"message":{"content":"meta stuff"}}"#,
            r#"{"type":"user","isSidechain":true,"message":{"content":"side"}}"#,
            r#"{"type":"user","message":{"content":"<system-reminder>ignore</system-reminder>Real question"}}"#,
            r#"{"type":"user","isCompactSummary":true,"message":{"content":"This session is being continued..."}}"#,
            r#"{"type":"file-history-snapshot","snapshot":{"type":"user"}}"#,
        ];
        let (turns, st) = read_str(&(lines.join("\n") + "\n"));
        assert_eq!(st.malformed, 0);
        let texts: Vec<(&str, &str)> = turns
            .iter()
            .map(|t| (t.role.as_str(), t.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            vec![
                ("user", "Real question"),
                ("summary", "This session is being continued...")
            ]
        );
    }

    #[test]
    fn huge_lines_are_read_and_results_bounded() {
        let big = "x".repeat(10 << 20);
        let line = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"t","content":"{big}"}}]}}}}"#
        );
        let (turns, _) = read_str(&(line + "\n"));
        assert_eq!(turns.len(), 1);
        assert!(turns[0].text.chars().count() < 400);
    }

    #[test]
    fn a_long_failure_keeps_its_ends_and_the_causes_between() {
        let frames = "\tat org.example.Frame.call(Frame.java:10)\n".repeat(80);
        let body = format!(
            "java.lang.IllegalStateException: Failed to load ApplicationContext\n{frames}Caused by: org.example.NoSuchBeanDefinitionException: No qualifying bean of type 'FxRateClient'\n{frames}[ERROR] BUILD FAILURE"
        );
        let kept = error_excerpt(&body, 300);
        assert!(
            kept.starts_with("java.lang.IllegalStateException"),
            "{kept}"
        );
        assert!(kept.ends_with("[ERROR] BUILD FAILURE"), "{kept}");
        assert!(
            kept.contains("\n…\n… Caused by: org.example.NoSuchBeanDefinitionException: No qualifying bean of type 'FxRateClient'\n…\n"),
            "{kept}"
        );
        assert!(kept.chars().count() < 2 * ERROR_END_CHARS + 200);
        // without a cause between, the two ends as before
        let plain = format!("error: x\n{frames}error: y");
        assert_eq!(error_excerpt(&plain, 300).matches('…').count(), 1);
        // a test run's exception between its passing tests and its summary
        let passing = "  ✓ it computes label dimensions                    0.02s\n".repeat(40);
        let run = format!(
            "{passing}Illuminate\\Foundation\\ViteManifestNotFoundException: Vite manifest not found at: /w/public/build/manifest.json\n{}{passing}  Tests:    1 failed, 80 passed",
            "#0 /w/vendor/Vite.php(337): Illuminate\\Foundation\\Vite->manifest('build')\n"
                .repeat(5)
        );
        let kept = error_excerpt(&run, 300);
        assert!(
            kept.contains(
                "\n… Illuminate\\Foundation\\ViteManifestNotFoundException: Vite manifest not found"
            ),
            "{kept}"
        );
        assert_eq!(kept.matches("\n… ").count(), 1, "{kept}");
        // each once, at most MIDDLE_LINES of them; a chain's causes alone
        let errors: String = (0..10).map(|i| format!("error: step {i}\n")).collect();
        let noisy = format!("{passing}{errors}{errors}{passing}done");
        let kept = error_excerpt(&noisy, 300);
        assert_eq!(kept.matches("\n… ").count(), MIDDLE_LINES, "{kept}");
        assert_eq!(kept.matches("… error: step 0\n").count(), 1, "{kept}");
        // an error line in colour is kept; causes far down the middle too
        let coloured =
            format!("{passing}\x1b[31mSyntaxError\x1b[39m: Unexpected token '<'\n{passing}done");
        assert!(error_excerpt(&coloured, 300).contains("\n… \x1b[31mSyntaxError"));
        let far = format!(
            "{}Caused by: a.B: far down\n{passing}done",
            "\tat a.B.c(B.java:1)\n".repeat(MIDDLE_READ + 10)
        );
        assert!(error_excerpt(&far, 300).contains("\n… Caused by: a.B: far down"));
        let chain = format!("{passing}{errors}Caused by: a.B: root\n{passing}done");
        let kept = error_excerpt(&chain, 300);
        assert_eq!(kept.matches("\n… ").count(), 1, "{kept}");
        assert!(kept.contains("\n… Caused by: a.B: root"), "{kept}");
    }

    #[test]
    fn an_excerpt_s_ends_keep_whole_lines() {
        // whatever the bytes before it, the error line at the tail's cut
        // is kept whole, and the head ends where its last line does
        for pad in 0..40 {
            let compiling = format!("{}\n", "x".repeat(pad))
                + &"10.02    Compiling proc-macro2 v1.0.92\n".repeat(60);
            let body = format!(
                "{compiling}10.11 error[E0463]: can't find crate for `core`\n{}",
                "10.11   = note: the target may not be installed\n".repeat(20)
            );
            let kept = error_excerpt(&body, 300);
            let (head, tail) = kept.split_once("\n…\n").unwrap();
            assert!(head.ends_with("v1.0.92"), "{head}");
            assert!(tail.lines().all(|l| l.starts_with("10.")), "{pad}: {tail}");
        }
        // a line much longer than that is still cut
        let long = format!("{}\n{}", "a".repeat(5_000), "b".repeat(5_000));
        let kept = error_excerpt(&long, 300);
        assert!(
            kept.chars().count() < 2 * ERROR_END_CHARS + 10,
            "{}",
            kept.len()
        );
    }

    #[test]
    fn a_result_that_did_not_fail_keeps_the_errors_it_shows() {
        // a log read by a command that succeeded
        let spawned = "2026-10-07 10:14:02,118 INFO spawned: 'logsift' with pid 4121\n".repeat(8);
        let log = format!(
            "{spawned}logsift: /var/log/nginx/access.log: openFile: permission denied (Permission denied)\n{spawned}"
        );
        let kept = result_excerpt(&log, 300);
        assert!(
            kept.starts_with("2026-10-07 10:14:02,118 INFO spawned"),
            "{kept}"
        );
        assert!(
            kept.ends_with("\n… logsift: /var/log/nginx/access.log: openFile: permission denied (Permission denied)"),
            "{kept}"
        );
        // a short result, or one that says nothing failed, as before
        assert_eq!(
            result_excerpt("total 8\nREADME.md", 300),
            "total 8\nREADME.md"
        );
        assert_eq!(result_excerpt(&spawned, 300), truncate(spawned.trim(), 300));
    }

    #[test]
    fn edits_record_the_files_changed() {
        let line = r#"{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"/w/src/main.rs","old_string":"a","new_string":"b"}}]}}"#;
        let (turns, _) = read_str(&(line.to_string() + "\n"));
        assert_eq!(turns[0].files_changed, vec!["/w/src/main.rs"]);
        assert_eq!(turns[0].text, "[tool Edit] /w/src/main.rs");
    }
}

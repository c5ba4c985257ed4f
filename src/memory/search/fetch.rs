//! Reading one file or one conversation by line range: `pms get` and the
//! `memory_get` MCP tool.
//!
//! A path comes from the agent, so it is treated as hostile: it must name a
//! file inside the workspace (not its `.pms/` state) or a `.jsonl` inside a
//! configured transcript root; `..`, absolute paths outside those folders,
//! and symlinks pointing out of them are refused; ranges are capped so one
//! call cannot return a whole 100 MB transcript. Transcripts are shown as a
//! readable conversation, each turn labelled with the JSONL lines it came
//! from, and everything shown is passed through the secret scrubber.

use std::fs::File;
use std::io::BufReader;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::memory::index::discover::AgentLogs;
use crate::platform::agents::transcript::{self, ReadOptions};
use crate::platform::host::env::HostEnv;
use crate::platform::host::lines::{self, LineRead};
use crate::platform::redact::redact;
use crate::platform::workspace::{NotMemory, Workspace, check_memory_file};

/// Most lines one call returns.
pub const MAX_LINES: u64 = 2_000;
/// Lines returned when none are asked for.
pub const DEFAULT_LINES: u64 = 200;
/// Most characters one call returns (Claude Code cuts tool output at 25,000
/// tokens; this stays far below).
pub const MAX_CHARS: usize = 40_000;
/// Longest line shown whole; a longer one (minified JSON, a base64 blob) is
/// cut with a note, so every page moves on by at least one line.
pub const MAX_LINE_CHARS: usize = 4_000;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FetchError {
    #[error(
        "{0:?} is not allowed: paths must stay inside the workspace or a transcript root (no `..`, no absolute paths elsewhere)"
    )]
    Escapes(String),
    #[error("{0:?} not found in the workspace or the transcript roots")]
    NotFound(String),
    #[error("{0:?} is pms's internal state, not memory")]
    Internal(String),
    #[error("{0:?} is a folder; give a file")]
    IsDir(String),
    #[error("{0:?} is not a regular file (a pipe, a device or a socket); only files are read")]
    NotRegular(String),
    #[error(
        "{0:?} has other hard links, which may be outside the memory; it is not read. Fix: copy the file instead of linking it"
    )]
    HardLinked(String),
    #[error("could not read {0}: {1}")]
    Io(String, String),
}

/// What was read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fetched {
    pub uri: String,
    pub kind: &'static str,
    /// First and last line shown (1-based; JSONL lines for transcripts).
    pub from: u64,
    pub to: u64,
    /// Lines in the file (for transcripts: lines read so far).
    pub total_lines: u64,
    pub text: String,
    /// Set when output stopped early; says how to get the rest.
    pub more: Option<String>,
}

/// Where a spec points.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    File { uri: String, path: PathBuf },
    Transcript { uri: String, path: PathBuf },
}

/// Resolves `spec` (workspace path, absolute path inside the workspace,
/// `cc://<folder>/<session>.jsonl`, or another agent's conversation,
/// `codex://YYYY/MM/DD/rollout-….jsonl`, `openclaw://<agent>/<session>.jsonl`)
/// to a file, refusing escapes.
pub fn resolve(
    ws: &Workspace,
    roots: &[PathBuf],
    logs: &AgentLogs,
    spec: &str,
) -> Result<Target, FetchError> {
    let spec = spec.trim();
    if let Some((root, rel)) = logs.resolve(spec) {
        let rel_path = safe_relative(&rel).ok_or_else(|| FetchError::Escapes(spec.into()))?;
        if rel_path.extension().is_none_or(|e| e != "jsonl") {
            return Err(FetchError::NotFound(spec.into()));
        }
        let root_c = root
            .canonicalize()
            .map_err(|_| FetchError::NotFound(spec.into()))?;
        let p = root
            .join(&rel_path)
            .canonicalize()
            .map_err(|_| FetchError::NotFound(spec.into()))?;
        if !p.starts_with(&root_c) {
            return Err(FetchError::Escapes(spec.into()));
        }
        check_file(&p, spec)?;
        let scheme = &spec[..spec.find("://").unwrap_or(0) + 3];
        return Ok(Target::Transcript {
            uri: format!("{scheme}{}", rel.trim_start_matches('/')),
            path: p,
        });
    }
    if let Some(rel) = spec.strip_prefix("cc://") {
        let rel_path = safe_relative(rel).ok_or_else(|| FetchError::Escapes(spec.into()))?;
        // A conversation, or an auto-memory file (`<project>/memory/<name>.md`).
        let memory = rel_path.extension().is_some_and(|e| e == "md")
            && rel_path.components().count() == 3
            && rel_path.components().nth(1) == Some(Component::Normal("memory".as_ref()));
        if rel_path.extension().is_none_or(|e| e != "jsonl") && !memory {
            return Err(FetchError::NotFound(spec.into()));
        }
        for root in roots {
            let Ok(root_c) = root.canonicalize() else {
                continue;
            };
            let Ok(p) = root.join(&rel_path).canonicalize() else {
                continue;
            };
            if !p.starts_with(&root_c) {
                return Err(FetchError::Escapes(spec.into()));
            }
            if p.exists() {
                check_file(&p, spec)?;
                let uri = format!("cc://{}", rel.trim_start_matches('/'));
                return Ok(if memory {
                    Target::File { uri, path: p }
                } else {
                    Target::Transcript { uri, path: p }
                });
            }
        }
        return Err(FetchError::NotFound(spec.into()));
    }
    let root_c = ws
        .root
        .canonicalize()
        .map_err(|e| FetchError::Io(ws.root.display().to_string(), e.to_string()))?;
    let candidate = if Path::new(spec).is_absolute() {
        PathBuf::from(spec)
    } else {
        let rel = safe_relative(spec).ok_or_else(|| FetchError::Escapes(spec.into()))?;
        ws.root.join(rel)
    };
    let p = candidate
        .canonicalize()
        .map_err(|_| FetchError::NotFound(spec.into()))?;
    let Ok(rel) = p.strip_prefix(&root_c) else {
        return Err(FetchError::Escapes(spec.into()));
    };
    if rel.components().next() == Some(Component::Normal(".pms".as_ref())) {
        return Err(FetchError::Internal(spec.into()));
    }
    check_file(&p, spec)?;
    Ok(Target::File {
        uri: rel.to_string_lossy().replace('\\', "/"),
        path: p,
    })
}

/// A path that may be read: [`check_memory_file`]'s rule, the one the index
/// follows too.
fn check_file(p: &Path, spec: &str) -> Result<(), FetchError> {
    let meta = std::fs::metadata(p).map_err(|_| FetchError::NotFound(spec.into()))?;
    check_memory_file(&meta).map_err(|why| match why {
        NotMemory::Folder => FetchError::IsDir(spec.into()),
        NotMemory::NotRegular => FetchError::NotRegular(spec.into()),
        NotMemory::HardLinked => FetchError::HardLinked(spec.into()),
    })
}

/// A relative path made only of normal components (no `..`, no root).
fn safe_relative(s: &str) -> Option<PathBuf> {
    let p = Path::new(s.trim_start_matches("./"));
    if s.is_empty() || p.is_absolute() {
        return None;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// Reads `lines` lines from line `from` (1-based) of what `spec` names, as
/// text: numbered lines, or a conversation whose turns are labelled with
/// their JSONL lines.
pub fn get(
    ws: &Workspace,
    env: &HostEnv,
    roots: &[PathBuf],
    spec: &str,
    from: Option<u64>,
    lines: Option<u64>,
) -> Result<Fetched, FetchError> {
    Ok(page(ws, env, roots, spec, from, lines)?.into_fetched())
}

/// The same read as [`get`], as lines or turns rather than one text (for
/// `pms ui`, which lays them out itself). Every line and turn is redacted.
pub fn page(
    ws: &Workspace,
    env: &HostEnv,
    roots: &[PathBuf],
    spec: &str,
    from: Option<u64>,
    lines: Option<u64>,
) -> Result<Page, FetchError> {
    let from = from.unwrap_or(1).max(1);
    let count = lines.unwrap_or(DEFAULT_LINES).clamp(1, MAX_LINES);
    let mut page = match resolve(ws, roots, &AgentLogs::of(env, ws), spec)? {
        Target::File { uri, path } => read_file(&uri, &path, from, count)?,
        Target::Transcript { uri, path } => read_conversation(&uri, &path, from, count)?,
    };
    if let Body::Turns(turns) = &mut page.body {
        for t in turns {
            if let std::borrow::Cow::Owned(clean) = redact(&t.text) {
                t.text = clean;
            }
        }
    }
    Ok(page)
}

/// One line of a file as shown (redacted, a very long line cut).
#[derive(Debug, Clone, PartialEq)]
pub struct ShownLine {
    /// 1-based.
    pub n: u64,
    pub text: String,
}

/// One turn of a conversation as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownTurn {
    /// The JSONL lines it came from (1-based).
    pub line_start: u64,
    pub line_end: u64,
    /// `YYYY-MM-DD HH:MM`, or empty.
    pub when: String,
    pub role: &'static str,
    pub text: String,
}

impl ShownTurn {
    /// `L12` or `L12-14`.
    pub fn lines_label(&self) -> String {
        if self.line_start == self.line_end {
            format!("L{}", self.line_start)
        } else {
            format!("L{}-{}", self.line_start, self.line_end)
        }
    }

    fn render(&self) -> String {
        format!(
            "[{}] {} {}:\n{}\n\n",
            self.lines_label(),
            self.when,
            self.role,
            self.text
        )
    }
}

/// What a page holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Lines(Vec<ShownLine>),
    Turns(Vec<ShownTurn>),
}

/// A range of a file or a conversation, before it is laid out as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub uri: String,
    /// First and last line shown (1-based; JSONL lines for transcripts).
    pub from: u64,
    pub to: u64,
    /// Lines in the file (for transcripts: lines read so far).
    pub total_lines: u64,
    pub body: Body,
    /// Set when output stopped early; says how to get the rest.
    pub more: Option<String>,
}

impl Page {
    fn into_fetched(self) -> Fetched {
        let (kind, text) = match &self.body {
            Body::Lines(lines) => (
                "file",
                lines
                    .iter()
                    .map(|l| format!("{:>5}│ {}\n", l.n, l.text))
                    .collect::<String>(),
            ),
            Body::Turns(turns) => {
                let mut out: String = turns.iter().map(ShownTurn::render).collect();
                if out.is_empty() {
                    out = format!(
                        "(no conversation turns in lines {}-{})\n",
                        self.from, self.total_lines
                    );
                }
                // each turn was redacted by `page`
                ("conversation", out)
            }
        };
        Fetched {
            uri: self.uri,
            kind,
            from: self.from,
            to: self.to,
            total_lines: self.total_lines,
            text,
            more: self.more,
        }
    }
}

/// Streams the file: lines before `from` are skipped, lines after the range
/// only counted, so a large file costs time, never its size in memory.
fn read_file(uri: &str, path: &Path, from: u64, count: u64) -> Result<Page, FetchError> {
    let io = |e: std::io::Error| FetchError::Io(uri.into(), e.to_string());
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    let mut shown_lines = Vec::new();
    let mut size = 0usize;
    let mut last = from.saturating_sub(1);
    let mut more = None;
    let mut n = 0u64;
    let mut buf = Vec::new();
    // Redacted from the top, then cut: a range that starts inside a private
    // key block must still hide it.
    let mut redactor = crate::platform::redact::Lines::default();
    loop {
        let too_long = match lines::next_line(&mut reader, &mut buf, lines::MAX_LINE).map_err(io)? {
            LineRead::End => break,
            LineRead::Line(_) | LineRead::Unfinished(_) => None,
            LineRead::TooLong(bytes) => Some(bytes),
        };
        n += 1;
        if more.is_some() || n >= from + count {
            continue;
        }
        let text = String::from_utf8_lossy(&buf);
        let line = redactor.line(text.trim_end_matches(['\n', '\r']));
        if n < from {
            continue;
        }
        let shown = if let Some(bytes) = too_long {
            format!("[a line of {bytes} bytes, too long to show]")
        } else if line.chars().count() > MAX_LINE_CHARS {
            let cut: String = line.chars().take(MAX_LINE_CHARS).collect();
            format!(
                "{cut} [… {} on this line]",
                crate::platform::plural::count(
                    line.chars().count() - MAX_LINE_CHARS,
                    "more character",
                    "more characters"
                )
            )
        } else {
            line.to_string()
        };
        let rendered = format!("{n:>5}│ {shown}\n");
        if size + rendered.len() > MAX_CHARS {
            more = Some(format!(
                "output cut at {MAX_CHARS} characters; continue with from={n}"
            ));
            continue;
        }
        size += rendered.len();
        shown_lines.push(ShownLine { n, text: shown });
        last = n;
    }
    let total = n;
    if more.is_none() && last < total {
        more = Some(format!(
            "{}; continue with from={}",
            crate::platform::plural::count(total - last, "more line", "more lines"),
            last + 1
        ));
    }
    Ok(Page {
        uri: uri.into(),
        from,
        to: last,
        total_lines: total,
        body: Body::Lines(shown_lines),
        more,
    })
}

fn read_conversation(uri: &str, path: &Path, from: u64, count: u64) -> Result<Page, FetchError> {
    let io = |e: std::io::Error| FetchError::Io(uri.into(), e.to_string());
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    // Skip to the first line wanted without parsing what comes before.
    let mut offset = 0u64;
    let mut buf = Vec::new();
    let mut skipped = 0u64;
    while skipped + 1 < from {
        offset += match lines::next_line(&mut reader, &mut buf, lines::MAX_LINE).map_err(io)? {
            LineRead::Line(n) => n as u64,
            LineRead::TooLong(n) => n,
            LineRead::Unfinished(_) | LineRead::End => break,
        };
        skipped += 1;
    }
    let opts = ReadOptions {
        tool_result_chars: 2_000,
        keep_sidechain: uri.contains("/subagents/"),
        max_lines: Some(count),
        ..ReadOptions::default()
    };
    let (turns, st) = transcript::read(&mut reader, offset, skipped, &opts);
    let mut shown_turns = Vec::new();
    let mut size = 0usize;
    let mut more = None;
    let mut last = skipped;
    for t in &turns {
        let when = t
            .timestamp
            .as_deref()
            .map(|ts| ts.get(..16).unwrap_or(ts).replace('T', " "))
            .unwrap_or_default();
        // One turn alone may exceed a page (a pasted log): cut it, so every
        // page moves on.
        let text = t.text.trim_end();
        let room = MAX_CHARS - 1_000;
        let text = if text.len() > room {
            let cut: String = text.chars().take(room / 4).collect();
            format!(
                "{cut}\n[… this turn continues: {}; the transcript file has it whole]",
                crate::platform::plural::count(
                    text.chars().count() - cut.chars().count(),
                    "more character",
                    "more characters"
                )
            )
        } else {
            text.to_string()
        };
        let shown = ShownTurn {
            line_start: t.line_start,
            line_end: t.line_end,
            when,
            role: t.role.as_str(),
            text,
        };
        let rendered = shown.render().len();
        if size + rendered > MAX_CHARS {
            more = Some(format!(
                "output cut at {MAX_CHARS} characters; continue with from={}",
                t.line_start
            ));
            break;
        }
        size += rendered;
        last = t.line_end;
        shown_turns.push(shown);
    }
    let end = skipped + st.lines;
    if more.is_none() {
        last = end;
        // Is there anything after the range?
        if lines::next_line(&mut reader, &mut buf, lines::MAX_LINE)
            .is_ok_and(|r| r != LineRead::End)
        {
            more = Some(format!("more lines follow; continue with from={}", end + 1));
        }
    }
    Ok(Page {
        uri: uri.into(),
        from,
        to: last,
        total_lines: end,
        body: Body::Turns(shown_turns),
        more,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Workspace, Vec<PathBuf>) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("ws"));
        std::fs::create_dir_all(ws.root.join("_me")).unwrap();
        std::fs::create_dir_all(ws.root.join(".pms")).unwrap();
        std::fs::write(
            ws.root.join("_me/profile.md"),
            "line one\nline two\nline three\n",
        )
        .unwrap();
        std::fs::write(ws.root.join(".pms/install.json"), "{}").unwrap();
        let root = dir.path().join("projects");
        std::fs::create_dir_all(root.join("-w-p")).unwrap();
        std::fs::write(
            root.join("-w-p/s1.jsonl"),
            concat!(
                r#"{"type":"user","timestamp":"2026-11-22T10:00:00Z","message":{"content":"What is my api_key? It is api_key=abcdef123456"}}"#,
                "\n",
                r#"{"type":"assistant","timestamp":"2026-11-22T10:00:01Z","message":{"id":"m1","content":[{"type":"text","text":"Do not paste keys."}]}}"#,
                "\n"
            ),
        )
        .unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        (dir, ws, vec![root])
    }

    #[test]
    fn files_are_numbered_and_ranged() {
        let (_d, ws, roots) = setup();
        let env = HostEnv::with_home("/h".into(), |_| None).unwrap();
        let f = get(&ws, &env, &roots, "_me/profile.md", Some(2), Some(1)).unwrap();
        assert_eq!(f.text, "    2│ line two\n");
        assert_eq!((f.from, f.to, f.total_lines), (2, 2, 3));
        assert!(f.more.unwrap().contains("from=3"));
    }

    #[test]
    fn conversations_are_readable_and_scrubbed() {
        let (_d, ws, roots) = setup();
        let env = HostEnv::with_home("/h".into(), |_| None).unwrap();
        let f = get(&ws, &env, &roots, "cc://-w-p/s1.jsonl", None, None).unwrap();
        assert!(f.text.contains("[L1] 2026-11-22 10:00 user:"), "{}", f.text);
        assert!(
            f.text
                .contains("[L2] 2026-11-22 10:00 assistant:\nDo not paste keys.")
        );
        assert!(!f.text.contains("abcdef123456"), "secret shown: {}", f.text);
        assert_eq!(f.more, None);
    }

    #[test]
    fn escapes_are_refused() {
        let (d, ws, roots) = setup();
        let env = HostEnv::with_home(d.path().to_path_buf(), |_| None).unwrap();
        std::fs::create_dir_all(env.codex_sessions().join("2026/11/25")).unwrap();
        std::fs::create_dir_all(ws.openclaw_logs().join("main")).unwrap();
        let outside = d.path().join("secret.txt");
        for bad in [
            "../secret.txt",
            "_me/../../secret.txt",
            outside.to_str().unwrap(),
            "cc://../secret.txt",
            "cc://-w-p/../../secret.txt",
            "codex://2026/../../../secret.txt",
            "codex://../../secret.txt",
            "openclaw://main/../../../../secret.txt",
            "/etc/passwd",
        ] {
            let err = resolve(&ws, &roots, &AgentLogs::of(&env, &ws), bad).unwrap_err();
            assert!(
                matches!(err, FetchError::Escapes(_) | FetchError::NotFound(_)),
                "{bad}: {err:?}"
            );
        }
        assert!(matches!(
            resolve(&ws, &roots, &AgentLogs::of(&env, &ws), ".pms/install.json"),
            Err(FetchError::Internal(_))
        ));
        assert!(matches!(
            resolve(&ws, &roots, &AgentLogs::of(&env, &ws), "_me"),
            Err(FetchError::IsDir(_))
        ));
    }

    #[test]
    fn symlinks_out_of_the_workspace_are_refused() {
        let (d, ws, roots) = setup();
        let env = HostEnv::with_home(d.path().to_path_buf(), |_| None).unwrap();
        std::os::unix::fs::symlink(d.path().join("secret.txt"), ws.root.join("_me/link.md"))
            .unwrap();
        assert_eq!(
            resolve(&ws, &roots, &AgentLogs::of(&env, &ws), "_me/link.md").unwrap_err(),
            FetchError::Escapes("_me/link.md".into())
        );
    }

    #[test]
    fn huge_ranges_are_capped() {
        let (_d, ws, roots) = setup();
        let big: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(ws.root.join("_me/big.md"), big).unwrap();
        let env = HostEnv::with_home("/h".into(), |_| None).unwrap();
        let f = get(&ws, &env, &roots, "_me/big.md", Some(1), Some(u64::MAX)).unwrap();
        assert_eq!(f.to, MAX_LINES);
        assert!(f.more.is_some());
    }

    #[test]
    fn only_regular_unlinked_files_are_read_and_long_lines_page_on() {
        let (d, ws, roots) = setup();
        let env = HostEnv::with_home("/h".into(), |_| None).unwrap();
        let fifo = ws.root.join("_me/pipe.md");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert_eq!(
            get(&ws, &env, &roots, "_me/pipe.md", None, None).unwrap_err(),
            FetchError::NotRegular("_me/pipe.md".into())
        );
        std::fs::hard_link(d.path().join("secret.txt"), ws.root.join("_me/linked.md")).unwrap();
        assert!(matches!(
            get(&ws, &env, &roots, "_me/linked.md", None, None),
            Err(FetchError::HardLinked(_))
        ));
        let long = "x".repeat(50_000);
        std::fs::write(ws.root.join("_me/long.md"), format!("{long}\nnext\n")).unwrap();
        let f = get(&ws, &env, &roots, "_me/long.md", Some(1), Some(2)).unwrap();
        assert!(f.text.contains("more characters on this line"));
        assert!(
            f.text.contains("    2│ next"),
            "the page moves past the long line"
        );
        assert_eq!((f.to, f.total_lines), (2, 2));
    }

    #[test]
    fn a_range_inside_a_private_key_shows_no_key_line() {
        let (_d, ws, roots) = setup();
        let env = HostEnv::with_home("/h".into(), |_| None).unwrap();
        std::fs::write(
            ws.root.join("_me/keys.md"),
            "notes\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACBrandomkeydata\n-----END OPENSSH PRIVATE KEY-----\nafter\n",
        )
        .unwrap();
        let f = get(&ws, &env, &roots, "_me/keys.md", Some(3), Some(2)).unwrap();
        assert!(
            !f.text.contains("b3Blbn") && !f.text.contains("QyNTUx"),
            "{}",
            f.text
        );
        assert!(
            f.text.starts_with("    3│ [REDACTED:private-key]"),
            "{}",
            f.text
        );
        assert_eq!((f.from, f.to), (3, 4), "line numbers stay true");
    }
}

//! Memory at the moment of need: what past sessions say about the error
//! just met (`errors`), the file about to be edited (`files`), and the
//! project a session starts in (`continuity`). Read on the hook path, so
//! each is a few indexed SQLite reads or a few small files: no model, no
//! network. The hooks in `app::hooks` decide when to ask and how to say it.
//!
//! The patterns here are regex-lite's, not regex's. A hook process builds
//! every pattern it uses anew, and reading an error uses some forty: regex
//! built them in about 6.3 ms, regex-lite in 0.5 ms (release build, least
//! of 15). They are matched against an error's signature lines and a
//! summary's items, where regex-lite's slower matching was not measurable:
//! over the 88 failed commands of the hook bench's kept workspace,
//! post-tool-use went from 12.4 to 8.3-9.0 ms of CPU per call, every answer
//! byte-identical. Its classes are ASCII ones (`\w`, `\d`, `\s`, `\b`)
//! and it nests none: a no-break or ideographic space is not `\s` here.

mod address;
mod boilerplate;
pub mod continuity;
mod distinct;
mod error_line;
pub mod errors;
pub mod files;
mod normalise;
mod output_lines;
pub mod place;
pub mod signature;

use std::path::Path;

use crate::memory::lessons::action::{is_command_tool, is_edit_tool};
use crate::platform::agents::transcript::truncate;

/// A past conversation, as a reference the agent can open with
/// `memory_get`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// `cc://<project folder>/<session>.jsonl` (or `codex://`, `openclaw://`).
    pub uri: String,
    /// Claude Code's folder name of its project.
    pub project: String,
    pub cwd: Option<String>,
    /// When the moment happened (RFC 3339), if known.
    pub date: Option<String>,
    /// The transcript line it starts from.
    pub line: u64,
}

impl Conversation {
    /// `2026-09-02`, or "an earlier session".
    pub fn day(&self) -> String {
        day(self.date.as_deref())
    }

    /// The project's folder as a person knows it: the last part of its cwd.
    pub fn project_name(&self) -> String {
        self.cwd
            .as_deref()
            .and_then(|c| Path::new(c).file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.project.clone())
    }
}

/// The date part of an RFC 3339 time.
pub fn day(date: Option<&str>) -> String {
    date.and_then(|d| d.get(..10))
        .map(str::to_string)
        .unwrap_or_else(|| "undated".into())
}

/// One thing done after a moment, as the transcript shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// What the agent said (its first sentences).
    Said(String),
    /// What the user said before the agent acted.
    Asked(String),
    /// A command it ran.
    Ran(String),
    /// A file it changed.
    Edited(String),
    /// A result that failed again (its first error line).
    Failed(String),
}

/// Most steps told.
const MAX_STEPS: usize = 8;

/// The steps in indexed turns (`role`, `text`), from the first until the
/// user speaks after the agent did (they moved on) or a compaction summary.
pub fn steps(rows: &[(Option<String>, String)]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for (role, text) in rows {
        match role.as_deref() {
            Some("assistant") => {
                let mut said = Vec::new();
                for line in text.lines() {
                    if let Some(rest) = line.strip_prefix("[tool ") {
                        if !said.is_empty() {
                            out.push(Step::Said(first_sentences(&said.join(" "), 2, 300)));
                            said.clear();
                        }
                        let (name, arg) = rest.split_once("] ").unwrap_or((rest, ""));
                        let name = name.trim_end_matches(']');
                        if is_command_tool(name) {
                            out.push(Step::Ran(truncate(arg.trim(), 200)));
                        } else if is_edit_tool(name) {
                            out.push(Step::Edited(truncate(
                                arg.split_whitespace().next().unwrap_or(""),
                                200,
                            )));
                        }
                    } else if !line.trim().is_empty() {
                        said.push(line.trim());
                    }
                }
                if !said.is_empty() {
                    out.push(Step::Said(first_sentences(&said.join(" "), 2, 300)));
                }
            }
            Some("tool") => {
                if text.lines().any(|l| l.starts_with("[error ")) {
                    let first = text
                        .lines()
                        .map(|l| l.split_once("] ").map_or(l, |(_, r)| r).trim())
                        .find(|l| signature::Signature::of(l).is_some())
                        .unwrap_or("");
                    if !first.is_empty() {
                        out.push(Step::Failed(truncate(first, 160)));
                    }
                }
            }
            Some("user") => {
                if out.iter().any(|s| matches!(s, Step::Said(_))) {
                    break;
                }
                out.push(Step::Asked(first_sentences(text, 2, 240)));
            }
            _ => break,
        }
        if out.len() >= MAX_STEPS {
            out.truncate(MAX_STEPS);
            break;
        }
    }
    out
}

/// The first `n` sentences of `text`, on one line, at most `max` characters.
pub fn first_sentences(text: &str, n: usize, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut end = flat.len();
    let mut seen = 0;
    for (i, c) in flat.char_indices() {
        if matches!(c, '.' | '!' | '?' | '。') && flat[i + c.len_utf8()..].starts_with(' ') {
            seen += 1;
            if seen == n {
                end = i + c.len_utf8();
                break;
            }
        }
    }
    truncate(&flat[..end], max)
}

/// Whether a past session's folder `cwd` (or its Claude Code folder name
/// `project`) belongs to the project whose root is `root`.
pub fn same_project(root: &Path, cwd: Option<&str>, project: &str) -> bool {
    match cwd {
        Some(c) => Path::new(c).starts_with(root),
        None => {
            !project.is_empty()
                && project
                    == crate::platform::agents::claude::project_folder_name(&root.to_string_lossy())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stop_when_the_user_moves_on() {
        let rows = vec![
            (Some("assistant".to_string()), "Missing headers. Installing them now.\n[tool Bash] sudo apt-get install -y libssl-dev".to_string()),
            (Some("tool".to_string()), "[result Bash] Setting up libssl-dev".to_string()),
            (Some("assistant".to_string()), "Build passes.".to_string()),
            (Some("user".to_string()), "thanks, now the docs".to_string()),
            (Some("assistant".to_string()), "Writing docs.".to_string()),
        ];
        let s = steps(&rows);
        assert_eq!(
            s,
            vec![
                Step::Said("Missing headers. Installing them now.".into()),
                Step::Ran("sudo apt-get install -y libssl-dev".into()),
                Step::Said("Build passes.".into()),
            ]
        );
    }
}

//! The past sessions of a project that changed or discussed a file.
//!
//! The indexer notes which files each user or agent turn writes or names
//! (`index::file_touches`): a session that edited the file shows as
//! `[tool Edit] <path>` in its transcript, one that discussed it by the
//! path in what the user or the agent wrote. A session may have written
//! the path whole or relative to its project, so both spellings are looked
//! up ([`spellings`]); each session found must belong to the same project.
//! The hook reads the rows from the index's shard files (no SQLite on its
//! path), or from the index while those are not written
//! (`index::file_touches::read`, `query`).

use std::path::Path;

pub use crate::memory::index::file_touches::TouchKind;
use crate::memory::index::file_touches::TouchRow;

use super::Conversation;

/// Sessions listed at most.
pub const MAX_SESSIONS: usize = 5;

/// A past session that touched the file, and one line about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Touch {
    pub conversation: Conversation,
    /// Whether it changed the file or only talked about it.
    pub kind: TouchKind,
    /// What was said about it, one line.
    pub line: String,
}

/// How sessions may have written `file` of the project rooted at `root`:
/// its absolute path, and its path in the project.
pub fn spellings(root: &Path, file: &Path) -> Vec<String> {
    let absolute = file.to_string_lossy().into_owned();
    let mut out = vec![absolute];
    if let Ok(rel) = file.strip_prefix(root)
        && !rel.as_os_str().is_empty()
    {
        out.push(rel.to_string_lossy().into_owned());
    }
    out
}

/// The sessions of the project rooted at `root`, other than
/// `exclude_session`, in `rows` (the touches of `file`'s [`spellings`]),
/// newest first: one per session, a change outweighing a mention.
pub fn history(rows: Vec<TouchRow>, root: &Path, exclude_session: &str) -> Vec<Touch> {
    let mut out: Vec<TouchRow> = Vec::new();
    for row in rows {
        if row.session_id.as_deref() == Some(exclude_session)
            || !super::same_project(root, row.cwd.as_deref(), &row.project)
        {
            continue;
        }
        match out.iter_mut().find(|r| r.uri == row.uri) {
            // the same session under both spellings: its newest turn speaks
            Some(kept) => {
                let kind = kept.kind.max(row.kind);
                if (row.line > kept.line && !row.about.is_empty()) || kept.about.is_empty() {
                    *kept = row;
                }
                kept.kind = kind;
            }
            None => out.push(row),
        }
    }
    let mut touches: Vec<Touch> = out
        .into_iter()
        .map(|row| Touch {
            line: super::first_sentences(&row.about, 2, 220),
            conversation: Conversation {
                uri: row.uri,
                project: row.project,
                cwd: row.cwd,
                date: row.date,
                line: row.line,
            },
            kind: row.kind,
        })
        .collect();
    touches.sort_by(|a, b| b.conversation.date.cmp(&a.conversation.date));
    touches.truncate(MAX_SESSIONS);
    touches
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, uri: &str, line: u64, kind: TouchKind, cwd: &str, about: &str) -> TouchRow {
        TouchRow {
            path: path.into(),
            kind,
            line,
            date: Some(format!("2026-10-{:02}T08:00:00Z", line % 28 + 1)),
            session_id: Some(uri.into()),
            project: String::new(),
            cwd: Some(cwd.into()),
            uri: uri.into(),
            about: about.into(),
        }
    }

    #[test]
    fn one_line_per_session_of_the_project_a_change_outweighing_a_mention() {
        let root = Path::new("/p/shop");
        let rows = vec![
            row(
                "src/a.rs",
                "cc://s1",
                10,
                TouchKind::Discussed,
                "/p/shop",
                "We keep the retry here.",
            ),
            row(
                "/p/shop/src/a.rs",
                "cc://s1",
                12,
                TouchKind::Changed,
                "/p/shop",
                "Moved the retry out.",
            ),
            row(
                "src/a.rs",
                "cc://s2",
                3,
                TouchKind::Discussed,
                "/p/other",
                "Another project.",
            ),
            row(
                "src/a.rs",
                "cc://now",
                5,
                TouchKind::Changed,
                "/p/shop",
                "This session.",
            ),
        ];
        let touches = history(rows, root, "cc://now");
        assert_eq!(touches.len(), 1, "{touches:?}");
        assert_eq!(touches[0].kind, TouchKind::Changed);
        assert_eq!(touches[0].line, "Moved the retry out.");
        assert_eq!(touches[0].conversation.line, 12);
    }

    #[test]
    fn a_file_is_looked_up_whole_and_in_its_project() {
        assert_eq!(
            spellings(Path::new("/p/shop"), Path::new("/p/shop/src/a.rs")),
            vec!["/p/shop/src/a.rs", "src/a.rs"]
        );
        assert_eq!(
            spellings(Path::new("/p/shop"), Path::new("/tmp/x.rs")),
            vec!["/tmp/x.rs"]
        );
    }
}

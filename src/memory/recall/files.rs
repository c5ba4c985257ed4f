//! The past sessions of a project that changed or discussed a file.
//!
//! A file a session edited shows in its transcript as `[tool Edit] <path>`;
//! one it discussed, by its path in what the user or the agent wrote. FTS5
//! finds the path's words as a phrase (the path relative to the project, so
//! both the absolute and the relative spelling match); each hit is then
//! checked to hold the path itself, to be a user or agent turn (a compiler
//! pointing at the file is not a discussion of it), and to belong to the
//! same project.

use std::path::Path;

use rusqlite::{Connection, params};

use super::Conversation;

/// Sessions listed at most.
pub const MAX_SESSIONS: usize = 5;
/// Candidate chunks read (newest first).
const CANDIDATES: i64 = 200;

/// A past session that touched the file, and one line about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Touch {
    pub conversation: Conversation,
    /// Whether it changed the file or only talked about it.
    pub kind: TouchKind,
    /// What was said about it, one line.
    pub line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TouchKind {
    Changed,
    Discussed,
}

/// The sessions of the project rooted at `root`, other than
/// `exclude_session`, that changed or discussed `file`, newest first.
pub fn history(
    conn: &Connection,
    root: &Path,
    file: &Path,
    exclude_session: &str,
) -> rusqlite::Result<Vec<Touch>> {
    let spelled = match file.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => file.to_string_lossy().into_owned(),
    };
    let phrase: Vec<&str> = spelled
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if phrase.is_empty() {
        return Ok(Vec::new());
    }
    let query = format!("\"{}\"", phrase.join(" "));
    let absolute = file.to_string_lossy();
    let mut stmt = conn.prepare_cached(
        "SELECT c.file_id, c.line_start, c.role, c.ts, c.text, f.uri, f.project, f.cwd, f.session_id, f.first_ts
         FROM (SELECT rowid AS id FROM transcript_fts WHERE transcript_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2) m
         JOIN chunks c ON c.id = m.id JOIN files f ON f.id = c.file_id
         WHERE c.role IN ('assistant', 'user')",
    )?;
    let rows = stmt.query_map(params![query, CANDIDATES], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, i64>(1)? as u64,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, Option<String>>(7)?,
            r.get::<_, Option<String>>(8)?,
            r.get::<_, Option<String>>(9)?,
        ))
    })?;
    let mut out: Vec<(i64, Touch)> = Vec::new();
    for row in rows {
        let (file_id, line, role, ts, text, uri, project, cwd, session, first_ts) = row?;
        if session.as_deref() == Some(exclude_session)
            || !super::same_project(root, cwd.as_deref(), &project)
        {
            continue;
        }
        let changed = text.lines().any(|l| {
            l.starts_with("[tool ")
                && is_edit_tool(l)
                && (l.contains(absolute.as_ref()) || l.contains(&spelled))
        });
        let mentioned = text
            .lines()
            .filter(|l| !l.starts_with("[tool "))
            .any(|l| mentions(l, &absolute, &spelled));
        if !changed && !mentioned {
            continue;
        }
        let kind = if changed {
            TouchKind::Changed
        } else {
            TouchKind::Discussed
        };
        if let Some((_, t)) = out.iter_mut().find(|(id, _)| *id == file_id) {
            // one line per session: a change says more than a mention
            if kind == TouchKind::Changed && t.kind == TouchKind::Discussed {
                t.kind = kind;
            }
            if t.line.is_empty() {
                t.line = about(conn, file_id, line, &text, role.as_deref())?;
            }
            continue;
        }
        let line_text = about(conn, file_id, line, &text, role.as_deref())?;
        out.push((
            file_id,
            Touch {
                conversation: Conversation {
                    uri,
                    project,
                    cwd,
                    date: ts.or(first_ts),
                    line,
                },
                kind,
                line: line_text,
            },
        ));
    }
    let mut touches: Vec<Touch> = out.into_iter().map(|(_, t)| t).collect();
    touches.sort_by(|a, b| b.conversation.date.cmp(&a.conversation.date));
    touches.truncate(MAX_SESSIONS);
    Ok(touches)
}

/// Whether `line` is a transcript's `[tool <name>] <path>` line of a tool
/// that writes files.
fn is_edit_tool(line: &str) -> bool {
    line.strip_prefix("[tool ")
        .and_then(|rest| rest.split_once(']'))
        .is_some_and(|(name, _)| crate::memory::lessons::action::is_edit_tool(name))
}

/// Whether `line` names the file by its absolute path or its path in the
/// project (not as the tail of a longer name: `xsrc/a.rs`).
fn mentions(line: &str, absolute: &str, spelled: &str) -> bool {
    if line.contains(absolute) {
        return true;
    }
    line.match_indices(spelled).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + spelled.len()..].chars().next();
        before.is_none_or(|c| !(c.is_alphanumeric() || c == '/' || c == '_' || c == '-'))
            && after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    })
}

/// One line about what the session did with the file: what the turn said
/// (besides its tool calls), else what the turn before it said.
fn about(
    conn: &Connection,
    file_id: i64,
    line: u64,
    text: &str,
    role: Option<&str>,
) -> rusqlite::Result<String> {
    let own: Vec<&str> = text.lines().filter(|l| !l.starts_with("[tool ")).collect();
    let prefix = if role == Some("user") { "asked: " } else { "" };
    if !own.join(" ").trim().is_empty() {
        return Ok(format!(
            "{prefix}{}",
            super::first_sentences(&own.join(" "), 2, 220)
        ));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT role, text FROM chunks WHERE file_id = ?1 AND line_start < ?2 AND role IN ('assistant', 'user')
         ORDER BY line_start DESC LIMIT 3",
    )?;
    let rows: Vec<(Option<String>, String)> = stmt
        .query_map(params![file_id, line as i64], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    for (role, text) in rows {
        let own: Vec<&str> = text.lines().filter(|l| !l.starts_with("[tool ")).collect();
        let joined = own.join(" ");
        if !joined.trim().is_empty() {
            let prefix = if role.as_deref() == Some("user") {
                "asked: "
            } else {
                ""
            };
            return Ok(format!(
                "{prefix}{}",
                super::first_sentences(&joined, 2, 220)
            ));
        }
    }
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_mentioned_whole() {
        assert!(mentions(
            "see src/db/accounts.rs:47",
            "/p/src/db/accounts.rs",
            "src/db/accounts.rs"
        ));
        assert!(!mentions(
            "see xsrc/db/accounts.rs",
            "/p/src/db/accounts.rs",
            "src/db/accounts.rs"
        ));
        assert!(!mentions(
            "see lib/src/db/accounts.rs",
            "/p/src/db/accounts.rs",
            "src/db/accounts.rs"
        ));
        assert!(!mentions(
            "see src/db/accounts.rsx",
            "/p/src/db/accounts.rs",
            "src/db/accounts.rs"
        ));
    }
}

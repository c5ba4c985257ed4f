//! Notes the agent saves when the user asks it to keep something
//! (`memory_save`): a markdown file in a domain's `projects/` folder (or
//! `notes/` when no domain is named), with front matter saying where it came
//! from, secrets redacted, never written over an existing file, and indexed
//! at once so the next search finds it.

use std::path::PathBuf;

use crate::app::upkeep::{self, IndexLock};
use crate::platform::host::durable;
use crate::platform::host::error::FileError;
use crate::platform::redact::redact;
use crate::platform::workspace::context::Context;

/// A note to save.
#[derive(Debug, Clone)]
pub struct Note<'a> {
    pub title: &'a str,
    pub text: &'a str,
    /// A domain id: the note goes to `<domain>/projects/`; else `notes/`.
    pub domain: Option<&'a str>,
}

/// Where a note went.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub path: PathBuf,
    /// Workspace-relative path (what search and `memory_get` show).
    pub uri: String,
    /// False when another index run held the lock: the next run indexes it.
    pub indexed: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("a note needs a title and some text")]
    Empty,
    #[error(
        "no domain {domain:?} in this workspace (installed: {installed}).\n  Fix: pick one of those, or leave the domain out to save in notes/"
    )]
    UnknownDomain { domain: String, installed: String },
    #[error(transparent)]
    Io(#[from] FileError),
}

/// Longest title kept in the file name.
const SLUG_CHARS: usize = 60;

/// Saves `note`; returns where it went.
pub fn save(ctx: &Context, note: &Note) -> Result<Saved, NoteError> {
    let title = crate::memory::lessons::one_line(note.title);
    if title.is_empty() || note.text.trim().is_empty() {
        return Err(NoteError::Empty);
    }
    let dir = match note.domain.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) if ctx.ws.installed_domains().iter().any(|x| x == d) => {
            ctx.ws.domain_dir(d).join("projects")
        }
        Some(d) => {
            return Err(NoteError::UnknownDomain {
                domain: d.to_string(),
                installed: ctx.ws.installed_domains().join(", "),
            });
        }
        None => ctx.ws.root.join("notes"),
    };
    let now = chrono::Utc::now();
    let body = format!(
        "---\ntitle: {}\nsaved: {}\nsaved_by: the agent, with memory_save, at the user's request\n---\n\n# {}\n\n{}\n",
        redact(&title),
        now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        redact(&title),
        redact(note.text.trim())
    );
    let stem = format!("{}-{}", now.format("%Y-%m-%d"), slug(&title));
    let mut n = 1;
    let path = loop {
        let name = if n == 1 {
            format!("{stem}.md")
        } else {
            format!("{stem}-{n}.md")
        };
        let p = dir.join(name);
        match durable::write_new(&p, body.as_bytes()) {
            Ok(()) => break p,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(FileError::new(&p, e).into()),
        }
    };
    let uri = ctx.ws.relative(&path).unwrap_or_default();
    let indexed = match IndexLock::try_acquire(&ctx.ws) {
        Ok(Some(lock)) => upkeep::index_paths(ctx, &lock, std::slice::from_ref(&path)).is_ok(),
        _ => false,
    };
    Ok(Saved { path, uri, indexed })
}

/// A file-name-safe form of a title: letters and digits of any script,
/// the rest as single dashes, lower case, at most [`SLUG_CHARS`].
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= SLUG_CHARS {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() { "note".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe() {
        assert_eq!(
            slug("Q3 pricing: decision & why!"),
            "q3-pricing-decision-why"
        );
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("定价决策"), "定价决策");
        assert_eq!(slug("!!!"), "note");
    }
}

//! Claude Code's own auto-memory: `<projects>/<project folder>/memory/`,
//! one markdown file per memory with front matter, and a `MEMORY.md` index
//! Claude Code loads into every session of that project.
//!
//! ```markdown
//! ---
//! name: never-force-push-main
//! description: one-line summary used to decide relevance
//! metadata:
//!   type: feedback            # user | feedback | project | reference
//! ---
//! Never force-push to main. **Why:** ... **How to apply:** ...
//! ```
//!
//! (Older files put `type:` at the top level; both are read.) It is on by
//! default (`autoMemoryEnabled` in settings, `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`
//! turns it off). pms works with it: it reads these files (they are indexed
//! as the `memory` source, and `feedback` entries are shown in `pms lessons
//! review` beside pms's own pending learnings), never stages a learning a
//! memory already holds, and changes a memory file only when the user says
//! so ([`forget`], after a memory became a pms lesson). It never turns
//! auto-memory off.

use std::path::{Path, PathBuf};

use crate::platform::host::env::HostEnv;

/// One memory file.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    pub path: PathBuf,
    /// The project folder it belongs to.
    pub project: String,
    pub name: String,
    pub description: String,
    /// user, feedback, project, reference (or whatever the file says).
    pub kind: Option<String>,
    /// The text after the front matter.
    pub body: String,
}

impl Memory {
    /// The memory's rule or fact: its description, else its body's first line.
    pub fn summary(&self) -> String {
        let line = if !self.description.trim().is_empty() {
            self.description.trim()
        } else {
            self.body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or_default()
        };
        // shown and offered as a lesson's wording: no terminal controls
        crate::platform::redact::controls::strip(line).into_owned()
    }

    /// True for the memories that are corrections or confirmed approaches.
    pub fn is_feedback(&self) -> bool {
        self.kind.as_deref() == Some("feedback")
    }

    /// Its `cc://` address (what search and `memory_get` use).
    pub fn uri(&self) -> String {
        let file = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("cc://{}/memory/{file}", self.project)
    }
}

/// Whether Claude Code's auto-memory is on: not turned off by
/// `CLAUDE_CODE_DISABLE_AUTO_MEMORY` nor by `autoMemoryEnabled: false` in the
/// user's settings.
pub fn enabled(env: &HostEnv) -> bool {
    if std::env::var("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
        .is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
    {
        return false;
    }
    std::fs::read_to_string(env.user_settings())
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("autoMemoryEnabled").and_then(|b| b.as_bool()))
        .unwrap_or(true)
}

/// Every memory file under `projects_root` (`MEMORY.md` itself excluded).
pub fn all(projects_root: &Path) -> Vec<Memory> {
    let mut out = Vec::new();
    let Ok(projects) = std::fs::read_dir(projects_root) else {
        return out;
    };
    for p in projects.flatten() {
        let dir = p.path().join("memory");
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        let project = p.file_name().to_string_lossy().into_owned();
        for f in files.flatten() {
            let path = f.path();
            let is_md = path.extension().is_some_and(|x| x == "md");
            if !is_md || path.file_name().is_some_and(|n| n == "MEMORY.md") {
                continue;
            }
            if !f.file_type().is_ok_and(|t| t.is_file()) {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.push(parse(&path, &project, &text));
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// A memory file's front matter and body.
pub fn parse(path: &Path, project: &str, text: &str) -> Memory {
    let mut m = Memory {
        path: path.to_path_buf(),
        project: project.to_string(),
        name: path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        description: String::new(),
        kind: None,
        body: text.to_string(),
    };
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return m;
    };
    let Some(end) = rest.find("\n---") else {
        return m;
    };
    let front = &rest[..end];
    m.body = rest[end + 4..]
        .trim_start_matches(['-', '\r'])
        .trim_start_matches('\n')
        .to_string();
    for line in front.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let v = v.trim().trim_matches(['"', '\'']).to_string();
        match k.trim() {
            "name" if !v.is_empty() => m.name = v,
            "description" => m.description = v,
            "type" if !v.is_empty() => m.kind = Some(v.to_lowercase()),
            _ => {}
        }
    }
    m
}

/// Removes a memory (after the user said it now lives as a pms lesson):
/// its file, and its line in the project's `MEMORY.md` index. The index is
/// rewritten atomically with only that line gone.
pub fn forget(memory: &Memory) -> std::io::Result<()> {
    let file = memory
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(dir) = memory.path.parent() {
        let index = dir.join("MEMORY.md");
        if let Ok(text) = std::fs::read_to_string(&index) {
            let kept: Vec<&str> = text
                .split_inclusive('\n')
                .filter(|l| {
                    !l.contains(&format!("({file})"))
                        && !l.contains(&format!("[[{}]]", memory.name))
                })
                .collect();
            let new = kept.concat();
            if new != text {
                crate::platform::host::durable::write_atomic(&index, new.as_bytes())?;
            }
        }
    }
    match std::fs::remove_file(&memory.path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_front_matter_shapes_and_forgets_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let mem = dir.path().join("-home-u-app/memory");
        std::fs::create_dir_all(&mem).unwrap();
        std::fs::write(
            mem.join("no-force-push.md"),
            "---\nname: no-force-push\ndescription: Never force-push to main\nmetadata:\n  type: feedback\n---\nNever force-push to main.\n**Why:** it rewrote history.\n",
        )
        .unwrap();
        std::fs::write(
            mem.join("user-role.md"),
            "---\nname: user-role\ndescription: The user is a data engineer\ntype: user\n---\nData engineer.\n",
        )
        .unwrap();
        std::fs::write(
            mem.join("MEMORY.md"),
            "# Memory\n- [No force push](no-force-push.md) — never force-push to main\n- [Role](user-role.md) — data engineer\n",
        )
        .unwrap();
        let all = all(dir.path());
        assert_eq!(all.len(), 2);
        let fb = all.iter().find(|m| m.is_feedback()).unwrap();
        assert_eq!(fb.summary(), "Never force-push to main");
        assert_eq!(fb.uri(), "cc://-home-u-app/memory/no-force-push.md");
        assert!(fb.body.starts_with("Never force-push to main."));
        assert_eq!(
            all.iter()
                .find(|m| !m.is_feedback())
                .unwrap()
                .kind
                .as_deref(),
            Some("user")
        );
        forget(fb).unwrap();
        assert!(!mem.join("no-force-push.md").exists());
        assert_eq!(
            std::fs::read_to_string(mem.join("MEMORY.md")).unwrap(),
            "# Memory\n- [Role](user-role.md) — data engineer\n"
        );
    }
}

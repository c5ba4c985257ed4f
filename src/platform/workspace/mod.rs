//! The pms workspace: the folder of markdown the user owns (`_me/`, domain
//! folders, session summaries), plus `.pms/` for state pms derives or keeps
//! for itself.
//!
//! [`Workspace`] names every path in it, so the layout is written down once
//! (and documented in docs/architecture.md). [`Workspace::locate`] finds the
//! workspace for commands that were not told where it is.

pub mod config;
pub mod context;
pub mod domains;
pub mod log;
pub mod manifest;
pub mod markers;
pub mod scaffold;
pub mod summary_meta;
pub mod templates;

use std::path::{Path, PathBuf};

use crate::platform::host::env::HostEnv;

/// The files of `_me/`, in the order layer 0 injects them.
pub const ME_FILES: [&str; 6] = [
    "profile.md",
    "writing-style.md",
    "preferences.md",
    "response-format.md",
    "lessons.md",
    "workflows.md",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub root: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    #[error(
        "no pms workspace found (looked at --workspace, $PMS_WORKSPACE, the current directory and its parents, and {pointer}).\n  Fix: run `pms init` to create one, or pass --workspace <dir>."
    )]
    NotFound { pointer: String },
    #[error(
        "{path} is not a pms workspace (it has no .pms/ folder).\n  Fix: run `pms init --dir {path}` to create one there, or point at the right folder."
    )]
    NotAWorkspace { path: String },
}

impl Workspace {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Workspace { root: root.into() }
    }

    /// Finds the workspace: an explicit path, then `$PMS_WORKSPACE`, then the
    /// current directory or a parent holding `.pms/`, then the pointer file
    /// `pms init` wrote.
    pub fn locate(explicit: Option<&Path>, env: &HostEnv) -> Result<Workspace, LocateError> {
        let check = |p: PathBuf| {
            let ws = Workspace::new(p);
            if ws.is_initialised() {
                Ok(ws)
            } else {
                Err(LocateError::NotAWorkspace {
                    path: ws.root.display().to_string(),
                })
            }
        };
        if let Some(p) = explicit {
            return check(env.expand_tilde(&p.to_string_lossy()));
        }
        if let Some(p) = std::env::var_os("PMS_WORKSPACE").filter(|v| !v.is_empty()) {
            return check(env.expand_tilde(&p.to_string_lossy()));
        }
        if let Ok(cwd) = std::env::current_dir() {
            for dir in cwd.ancestors() {
                let ws = Workspace::new(dir);
                if ws.is_initialised() {
                    return Ok(ws);
                }
            }
        }
        let pointer = env.workspace_pointer();
        if let Ok(text) = std::fs::read_to_string(&pointer) {
            let p = text.trim();
            if !p.is_empty() {
                return check(PathBuf::from(p));
            }
        }
        Err(LocateError::NotFound {
            pointer: env.display(&pointer),
        })
    }

    pub fn is_initialised(&self) -> bool {
        self.state_dir().is_dir()
    }

    pub fn me_dir(&self) -> PathBuf {
        self.root.join("_me")
    }
    pub fn me_file(&self, name: &str) -> PathBuf {
        self.me_dir().join(name)
    }

    /// A `- Name: value` line of `_me/profile.md` (what init wrote from the
    /// wizard's answers), when present and not empty. Repairs and upgrades
    /// use it to re-render templates with the user's own answers.
    pub fn profile_field(&self, name: &str) -> Option<String> {
        let profile = std::fs::read_to_string(self.me_file("profile.md")).ok()?;
        let label = format!("- {name}:");
        profile
            .lines()
            .find_map(|l| l.trim().strip_prefix(&label).map(|v| v.trim().to_string()))
            .filter(|v| !v.is_empty())
    }

    pub fn claude_md(&self) -> PathBuf {
        self.root.join("CLAUDE.md")
    }
    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn sessions_dir(&self) -> PathBuf {
        self.root.join("sessions")
    }
    pub fn domain_dir(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }
    /// `.pms/`: state that is not user data.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".pms")
    }
    pub fn db_path(&self) -> PathBuf {
        self.state_dir().join("index.db")
    }
    /// The lessons index: one line per rule in force (see lessons::store).
    pub fn lessons_index_path(&self) -> PathBuf {
        self.state_dir().join("lessons.idx")
    }
    pub fn manifest_path(&self) -> PathBuf {
        self.state_dir().join("manifest.json")
    }
    pub fn install_record_path(&self) -> PathBuf {
        self.state_dir().join("install.json")
    }
    pub fn pending_path(&self) -> PathBuf {
        self.state_dir().join("pending-learnings.json")
    }
    pub fn session_state_dir(&self) -> PathBuf {
        self.state_dir().join("state")
    }
    pub fn logs_dir(&self) -> PathBuf {
        self.state_dir().join("logs")
    }
    pub fn hook_log(&self) -> PathBuf {
        self.logs_dir().join("hooks.log")
    }
    /// OpenClaw conversations as pms's plugin recorded them
    /// (`<agent id>/<session id>.jsonl`): OpenClaw keeps its own in SQLite.
    pub fn openclaw_logs(&self) -> PathBuf {
        self.state_dir().join("openclaw")
    }
    /// Workspace-scope settings, used when the memory loads only inside it.
    pub fn local_settings(&self) -> PathBuf {
        self.root.join(".claude").join("settings.json")
    }

    /// Domain folders present in the workspace (those with a domain.toml).
    pub fn installed_domains(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&self.root) {
            for entry in rd.flatten() {
                if entry.path().join("domain.toml").is_file() {
                    out.push(entry.file_name().to_string_lossy().into_owned());
                }
            }
        }
        out.sort();
        out
    }

    /// A path relative to the workspace root, with `/` separators, as the
    /// index and the manifest store it.
    pub fn relative(&self, path: &Path) -> Option<String> {
        path.strip_prefix(&self.root)
            .ok()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
    }
}
/// Why a file is not read as memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotMemory {
    Folder,
    /// A pipe, a device or a socket: a FIFO would block the reader for good.
    NotRegular,
    /// A file with other hard links: a link made inside the workspace to a
    /// file outside it would otherwise be readable.
    HardLinked,
}

/// The one rule for which files pms reads as memory, asked by `pms get` and
/// `memory_get` and by the index alike: what one refuses, the other never
/// shows (a hard-linked note was refused by `pms get` and still indexed, so
/// `pms search` showed its text).
pub fn check_memory_file(meta: &std::fs::Metadata) -> Result<(), NotMemory> {
    use std::os::unix::fs::MetadataExt;
    if meta.is_dir() {
        Err(NotMemory::Folder)
    } else if !meta.is_file() {
        Err(NotMemory::NotRegular)
    } else if meta.nlink() > 1 {
        Err(NotMemory::HardLinked)
    } else {
        Ok(())
    }
}

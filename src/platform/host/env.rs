//! Where things live on this machine: the home directory, the configuration
//! of Claude Code, Codex and OpenClaw, and pms's own pointer to the workspace.
//!
//! Everything is derived from environment variables once, in
//! [`HostEnv::from_process`], so tests can point every path at a temporary
//! HOME and never touch the real `~/.claude`.

use std::path::{Path, PathBuf};

/// A missing or unusable home directory. pms cannot guess where Claude Code
/// keeps its settings without one, so it stops and says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error(
        "HOME is not set, so pms cannot find ~/.claude (Claude Code's settings).\n  Fix: set HOME to your home directory and run the command again."
    )]
    NoHome,
    #[error(
        "HOME is set to {0:?}, which is not an absolute path.\n  Fix: set HOME to the absolute path of your home directory."
    )]
    RelativeHome(PathBuf),
}

/// Paths of the host programs pms wires itself into.
#[derive(Debug, Clone)]
pub struct HostEnv {
    pub home: PathBuf,
    /// `$CLAUDE_CONFIG_DIR` or `~/.claude`: holds `settings.json` and `projects/`.
    pub claude_dir: PathBuf,
    /// Claude Code's state file with user-scope MCP servers.
    pub claude_json: PathBuf,
    /// `$CODEX_HOME` or `~/.codex`.
    pub codex_home: PathBuf,
    /// OpenClaw's state folder: `$OPENCLAW_STATE_DIR`, else `.openclaw` in
    /// `$OPENCLAW_HOME` (or HOME). Holds `extensions/` (plugins).
    pub openclaw_dir: PathBuf,
    /// OpenClaw's config: `$OPENCLAW_CONFIG_PATH`, else `openclaw.json` in
    /// [`HostEnv::openclaw_dir`].
    pub openclaw_config: PathBuf,
    /// `$XDG_CONFIG_HOME/pms` or `~/.config/pms`: remembers where the workspace is.
    pub pms_config_dir: PathBuf,
    /// `$XDG_CACHE_HOME/pms` or `~/.cache/pms`: downloaded embedding models.
    pub pms_cache_dir: PathBuf,
}

impl HostEnv {
    pub fn from_process() -> Result<Self, EnvError> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .ok_or(EnvError::NoHome)?;
        Self::with_home(home, |k| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// Builds the paths from `home` and a variable lookup (tests pass their own).
    pub fn with_home(
        home: PathBuf,
        var: impl Fn(&str) -> Option<PathBuf>,
    ) -> Result<Self, EnvError> {
        if !home.is_absolute() {
            return Err(EnvError::RelativeHome(home));
        }
        let claude_config = var("CLAUDE_CONFIG_DIR");
        let claude_dir = claude_config
            .clone()
            .unwrap_or_else(|| home.join(".claude"));
        // Claude Code keeps .claude.json inside CLAUDE_CONFIG_DIR when that is set.
        let claude_json = match claude_config {
            Some(dir) => dir.join(".claude.json"),
            None => home.join(".claude.json"),
        };
        let codex_home = var("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
        let openclaw_dir = var("OPENCLAW_STATE_DIR").unwrap_or_else(|| {
            var("OPENCLAW_HOME")
                .filter(|h| h.is_absolute())
                .unwrap_or_else(|| home.clone())
                .join(".openclaw")
        });
        let openclaw_config =
            var("OPENCLAW_CONFIG_PATH").unwrap_or_else(|| openclaw_dir.join("openclaw.json"));
        let pms_config_dir = var("XDG_CONFIG_HOME")
            .unwrap_or_else(|| home.join(".config"))
            .join("pms");
        let pms_cache_dir = var("XDG_CACHE_HOME")
            .unwrap_or_else(|| home.join(".cache"))
            .join("pms");
        Ok(HostEnv {
            home,
            claude_dir,
            claude_json,
            codex_home,
            openclaw_dir,
            openclaw_config,
            pms_config_dir,
            pms_cache_dir,
        })
    }

    pub fn user_settings(&self) -> PathBuf {
        self.claude_dir.join("settings.json")
    }

    pub fn claude_projects(&self) -> PathBuf {
        self.claude_dir.join("projects")
    }

    pub fn codex_config(&self) -> PathBuf {
        self.codex_home.join("config.toml")
    }

    /// Where Codex writes its session logs (`YYYY/MM/DD/rollout-*.jsonl`).
    pub fn codex_sessions(&self) -> PathBuf {
        self.codex_home.join("sessions")
    }

    /// The file `pms init` writes so that commands run outside the workspace
    /// still find it.
    pub fn workspace_pointer(&self) -> PathBuf {
        self.pms_config_dir.join("workspace")
    }

    /// The file naming the workspace `pms init` is writing, from before its
    /// first write until it has written [`Self::workspace_pointer`]: the
    /// pointer comes last (it must never name a half-made workspace), so a
    /// killed init is found through this one, and what it left is swept.
    pub fn init_in_progress(&self) -> PathBuf {
        self.pms_config_dir.join("workspace.init")
    }

    /// The workspace a killed `pms init` was writing ([`Self::init_in_progress`]).
    pub fn interrupted_init(&self) -> Option<PathBuf> {
        let text = std::fs::read_to_string(self.init_in_progress()).ok()?;
        let p = PathBuf::from(text.trim());
        p.is_absolute().then_some(p)
    }

    /// Expands a leading `~/` (or a bare `~`) against this HOME.
    pub fn expand_tilde(&self, raw: &str) -> PathBuf {
        if raw == "~" {
            self.home.clone()
        } else if let Some(rest) = raw.strip_prefix("~/") {
            self.home.join(rest)
        } else {
            PathBuf::from(raw)
        }
    }

    /// The user's name, for the setup's default: `git config user.name`,
    /// else the account's full name (the passwd entry's GECOS field), else
    /// `$USER`. None when none of them says.
    pub fn person_name(&self) -> Option<String> {
        let git = std::process::Command::new("git")
            .args(["config", "--get", "user.name"])
            .env("HOME", &self.home)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        git.filter(|n| !n.is_empty())
            .or_else(account_full_name)
            .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
    }

    /// Shows `path` with the home directory written as `~`, for messages.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.home) {
            Ok(rest) if rest.as_os_str().is_empty() => "~".into(),
            Ok(rest) => format!("~/{}", rest.display()),
            Err(_) => path.display().to_string(),
        }
    }
}

/// The full name in this account's passwd entry (GECOS, up to the first
/// comma), if it holds one.
fn account_full_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage or null; the
    // fields are read at once, before any other passwd call.
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        if pw.is_null() || (*pw).pw_gecos.is_null() {
            return None;
        }
        let gecos = std::ffi::CStr::from_ptr((*pw).pw_gecos).to_string_lossy();
        let name = gecos.split(',').next().unwrap_or("").trim().to_string();
        (!name.is_empty()).then_some(name)
    }
}

/// The absolute path of the running pms binary, as hooks and the MCP
/// registration must name it (Claude Code runs hooks without our PATH).
pub fn current_binary() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<PathBuf> {
        None
    }

    #[test]
    fn defaults_follow_home() {
        let e = HostEnv::with_home("/h".into(), none).unwrap();
        assert_eq!(e.user_settings(), PathBuf::from("/h/.claude/settings.json"));
        assert_eq!(e.claude_json, PathBuf::from("/h/.claude.json"));
        assert_eq!(e.codex_config(), PathBuf::from("/h/.codex/config.toml"));
        assert_eq!(
            e.workspace_pointer(),
            PathBuf::from("/h/.config/pms/workspace")
        );
    }

    #[test]
    fn claude_config_dir_moves_both_files() {
        let e = HostEnv::with_home("/h".into(), |k| {
            (k == "CLAUDE_CONFIG_DIR").then(|| PathBuf::from("/c"))
        })
        .unwrap();
        assert_eq!(e.user_settings(), PathBuf::from("/c/settings.json"));
        assert_eq!(e.claude_json, PathBuf::from("/c/.claude.json"));
    }

    #[test]
    fn relative_home_is_refused() {
        assert!(matches!(
            HostEnv::with_home("rel".into(), none),
            Err(EnvError::RelativeHome(_))
        ));
    }

    #[test]
    fn tilde_expansion_and_display() {
        let e = HostEnv::with_home("/h".into(), none).unwrap();
        assert_eq!(e.expand_tilde("~/pms"), PathBuf::from("/h/pms"));
        assert_eq!(e.expand_tilde("/abs"), PathBuf::from("/abs"));
        assert_eq!(e.display(Path::new("/h/pms/x")), "~/pms/x");
    }
}

//! Wiring a workspace into the agents: pms's hooks in Claude Code's
//! `settings.json`, the `pms` MCP server in `~/.claude.json` (through the
//! `claude` CLI when it is on PATH), and `[mcp_servers.pms]` in Codex's
//! `config.toml`. One plan-then-apply, used by `pms init` (with the user's
//! choices), and by `verify --fix` and `upgrade` (with the choices the
//! install record remembers, [`rewire`]).
//!
//! [`plan`] reads and checks every file it will change, so a settings.json
//! that is not JSON stops everything before a byte is written. [`WirePlan::apply`]
//! then writes, and records in `.pms/install.json` what it created, so that
//! uninstall can give back exactly what was there.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::claude::json_file::JsonFile;
use crate::claude::settings::{self, CreatedContainers, MergeReport};
use crate::claude::{codex, mcp_registration as mcp};
use crate::context::Context;
use crate::durable;
use crate::env::HostEnv;
use crate::workspace::Workspace;

/// Which settings file carries the hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `~/.claude/settings.json`: memory in every session.
    User,
    /// `<workspace>/.claude/settings.json`: only sessions started inside it.
    Workspace,
}

impl Scope {
    pub fn settings_path(self, env: &HostEnv, ws: &Workspace) -> PathBuf {
        match self {
            Scope::User => env.user_settings(),
            Scope::Workspace => ws.local_settings(),
        }
    }
}

/// The `claude` CLI, when it is on PATH.
pub fn claude_cli() -> Option<PathBuf> {
    which::which("claude").ok()
}

/// The `codex` CLI, when it is on PATH.
pub fn codex_cli() -> Option<PathBuf> {
    which::which("codex").ok()
}

/// The settings file pms's hooks are in: the one the install record names,
/// else the user's.
pub fn settings_path(env: &HostEnv, ws: &Workspace) -> PathBuf {
    InstallRecord::load(ws)
        .map(|r| r.settings_path)
        .unwrap_or_else(|| env.user_settings())
}

/// The settings file of the scope pms is not installed in (user settings,
/// or the workspace's): pms hooks there as well would run every event twice.
pub fn other_settings(env: &HostEnv, ws: &Workspace, installed: &Path) -> PathBuf {
    if installed == env.user_settings() {
        ws.local_settings()
    } else {
        env.user_settings()
    }
}

/// `.pms/install.json`: what init changed outside the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstallRecord {
    pub pms_version: String,
    pub binary: PathBuf,
    pub scope: Scope,
    pub settings_path: PathBuf,
    #[serde(default)]
    pub created: CreatedContainers,
    #[serde(default)]
    pub claude_mcp: bool,
    /// What registering the MCP server creates in `~/.claude.json`.
    #[serde(default)]
    pub claude_json_created: mcp::Created,
    #[serde(default)]
    pub codex_config: Option<PathBuf>,
    pub installed_at: String,
}

impl InstallRecord {
    pub fn load(ws: &Workspace) -> Option<InstallRecord> {
        let text = std::fs::read_to_string(ws.install_record_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn save(&self, ws: &Workspace) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("record serialises");
        durable::write_atomic(&ws.install_record_path(), text.as_bytes())
    }
}

/// What to wire.
#[derive(Debug, Clone)]
pub struct Choices {
    /// The pms binary the hooks and the MCP server run.
    pub binary: PathBuf,
    pub scope: Scope,
    /// Codex's config.toml, when pms registers with Codex.
    pub codex: Option<PathBuf>,
}

impl Choices {
    /// The choices the install record remembers (user scope and no Codex
    /// when there is none), pointing at `binary`.
    pub fn from_record(ws: &Workspace, binary: &Path) -> Choices {
        let record = InstallRecord::load(ws);
        Choices {
            binary: binary.to_path_buf(),
            scope: record.as_ref().map_or(Scope::User, |r| r.scope),
            codex: record.and_then(|r| r.codex_config),
        }
    }
}

/// Every change the wiring is about to make, computed without making any.
pub struct WirePlan {
    pub choices: Choices,
    pub settings: JsonFile,
    pub settings_report: MergeReport,
    /// Hooks of ours in the other scope's settings file (moved on re-init).
    pub stale_settings: Option<PathBuf>,
    pub mcp_entry: Value,
    pub mcp_current: Option<Value>,
    /// What registering will create in `~/.claude.json`.
    pub mcp_creates: mcp::Created,
    pub claude_cli: Option<PathBuf>,
}

/// Plans the wiring of `ws`; an error (a file that cannot be read or
/// understood) means nothing was changed.
pub fn plan(env: &HostEnv, ws: &Workspace, choices: Choices) -> Result<WirePlan> {
    let settings_path = choices.scope.settings_path(env, ws);
    for p in [&settings_path, &env.claude_json] {
        durable::check_writable(p).map_err(|e| crate::error::FileError::new(p, e))?;
    }
    let mut settings = JsonFile::load(&settings_path)?;
    let handlers = settings::pms_handlers(&choices.binary, &ws.root);
    let settings_report = settings::merge_hooks(&mut settings.doc, &settings_path, &handlers)?;
    let other = other_settings(env, ws, &settings_path);
    let stale_settings = match JsonFile::load(&other) {
        Ok(f) if !settings::installed_handlers(&f.doc).is_empty() => Some(other),
        _ => None,
    };
    let mcp_entry = mcp::server_entry(&choices.binary, &ws.root);
    mcp::check(&env.claude_json)?;
    let mcp_current = mcp::read_entry(&env.claude_json)?;
    let claude_json = JsonFile::load(&env.claude_json)?;
    let mcp_creates = mcp::Created {
        file: !claude_json.existed,
        mcp_servers: claude_json.doc.get("mcpServers").is_none(),
    };
    if let Some(p) = &choices.codex {
        codex::check(p)?;
    }
    Ok(WirePlan {
        choices,
        settings,
        settings_report,
        stale_settings,
        mcp_entry,
        mcp_current,
        mcp_creates,
        claude_cli: claude_cli(),
    })
}

/// What applying a plan did.
#[derive(Debug, Default)]
pub struct WireSummary {
    pub settings_path: PathBuf,
    pub settings_backup: Option<PathBuf>,
    pub settings_changed: bool,
    pub stale_removed_from: Option<PathBuf>,
    pub mcp: Option<mcp::RegisterOutcome>,
    /// Whether Codex's config changed, when pms registers with Codex.
    pub codex_changed: Option<bool>,
}

impl WirePlan {
    /// Lines describing the plan, for init's confirmation screen and --dry-run.
    pub fn describe(&self, env: &HostEnv) -> Vec<String> {
        let mut lines = Vec::new();
        let r = &self.settings_report;
        let sp = env.display(&self.settings.path);
        if r.changed() {
            let backup = if self.settings.existed {
                ", after a timestamped backup"
            } else {
                ""
            };
            let mut what = Vec::new();
            if !r.added.is_empty() {
                what.push(format!("add {}", r.added.join(", ")));
            }
            if !r.replaced.is_empty() {
                what.push(format!("update {}", r.replaced.join(", ")));
            }
            if r.duplicates_removed > 0 {
                what.push(format!("remove {} duplicate(s)", r.duplicates_removed));
            }
            lines.push(format!("Hooks in {sp}: {}{backup}", what.join("; ")));
        } else {
            lines.push(format!("Hooks in {sp}: already in place"));
        }
        if let Some(stale) = &self.stale_settings {
            lines.push(format!(
                "  and pms hooks removed from {} (scope changed)",
                env.display(stale)
            ));
        }
        let mcp_state = match &self.mcp_current {
            Some(cur) if mcp::same_server(cur, &self.mcp_entry) => "already registered".to_string(),
            Some(_) => "update the existing entry".to_string(),
            None => "register".to_string(),
        };
        let how = match &self.claude_cli {
            Some(_) => "with `claude mcp add-json -s user`".to_string(),
            None => format!(
                "in {} (claude is not on PATH)",
                env.display(&env.claude_json)
            ),
        };
        lines.push(format!("MCP server `pms` (user scope): {mcp_state}, {how}"));
        if let Some(p) = &self.choices.codex {
            lines.push(format!("Codex: [mcp_servers.pms] in {}", env.display(p)));
        }
        lines
    }

    /// Writes the plan and the install record.
    pub fn apply(mut self, env: &HostEnv, ws: &Workspace) -> Result<WireSummary> {
        let previous = InstallRecord::load(ws);
        // The record first: it says which containers pms creates in the
        // user's settings (kept across re-runs, so uninstall restores the
        // file the user had before the first init). Written after the
        // settings, a kill between the two left uninstall removing the
        // user's own empty `"hooks": {}`.
        let mut created = self.settings_report.created.clone();
        if let Some(prev) = previous
            .as_ref()
            .filter(|r| r.settings_path == self.settings.path)
        {
            created.hooks_key |= prev.created.hooks_key;
            for e in &prev.created.events {
                if !created.events.contains(e) {
                    created.events.push(e.clone());
                }
            }
        }
        let prev_mcp = previous
            .as_ref()
            .map(|r| r.claude_json_created)
            .unwrap_or_default();
        let record = InstallRecord {
            pms_version: env!("CARGO_PKG_VERSION").into(),
            binary: self.choices.binary.clone(),
            scope: self.choices.scope,
            settings_path: self.settings.path.clone(),
            created,
            claude_mcp: true,
            claude_json_created: mcp::Created {
                file: prev_mcp.file || (self.mcp_current.is_none() && self.mcp_creates.file),
                mcp_servers: prev_mcp.mcp_servers
                    || (self.mcp_current.is_none() && self.mcp_creates.mcp_servers),
            },
            codex_config: self.choices.codex.clone(),
            installed_at: previous
                .as_ref()
                .map(|r| r.installed_at.clone())
                .unwrap_or_else(|| chrono::Utc::now().to_rfc3339()),
        };
        record.save(ws).context("writing .pms/install.json")?;
        let mut summary = WireSummary {
            settings_path: self.settings.path.clone(),
            settings_changed: self.settings.is_dirty(),
            settings_backup: self.settings.save()?,
            ..WireSummary::default()
        };
        if let Some(stale) = &self.stale_settings {
            let mut f = JsonFile::load(stale)?;
            let created = previous
                .as_ref()
                .filter(|r| &r.settings_path == stale)
                .map(|r| r.created.clone());
            settings::remove_hooks(&mut f.doc, created.as_ref());
            f.save()?;
            summary.stale_removed_from = Some(stale.clone());
        }
        summary.mcp = Some(mcp::register(
            &env.claude_json,
            &self.mcp_entry,
            self.claude_cli.as_deref(),
        )?);
        if let Some(p) = &self.choices.codex {
            let (changed, _) = codex::register(p, &self.choices.binary, &ws.root)?;
            summary.codex_changed = Some(changed);
        }
        Ok(summary)
    }
}

/// Wires `ctx`'s workspace again as the install record says, pointing at
/// `binary`: what `verify --fix` does for hooks or an MCP entry gone
/// missing, and `upgrade` when the binary moved.
pub fn rewire(ctx: &Context, binary: &Path) -> Result<WireSummary> {
    let choices = Choices::from_record(&ctx.ws, binary);
    plan(&ctx.env, &ctx.ws, choices)?.apply(&ctx.env, &ctx.ws)
}

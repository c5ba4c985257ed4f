//! Wiring a workspace into Claude Code (and Codex), and unwiring it.
//!
//! `pms init` is two phases. [`plan`] reads everything it will change and
//! checks it (a settings.json that is not JSON, a Codex config that is not
//! TOML), so that an error stops init before any file is touched. [`apply`]
//! then writes: the workspace, the hooks, the MCP registration, and the
//! install record (`.pms/install.json`) that lets [`uninstall`] remove
//! exactly what was added.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::claude::json_file::JsonFile;
use crate::claude::settings::{self, CreatedContainers, MergeReport};
use crate::claude::{codex, mcp_registration as mcp};
use crate::durable;
use crate::env::HostEnv;
use crate::workspace::Workspace;
use crate::workspace::scaffold::{self, Answers, PlannedFile, ScaffoldPlan};

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

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub answers: Answers,
    pub workspace: PathBuf,
    pub scope: Scope,
    pub codex: bool,
    pub binary: PathBuf,
}

/// Everything init is about to do, computed without changing anything.
pub struct InstallPlan {
    pub env: HostEnv,
    pub ws: Workspace,
    pub opts: InitOptions,
    pub scaffold: ScaffoldPlan,
    pub settings: JsonFile,
    pub settings_report: MergeReport,
    /// Hooks of ours in the other scope's settings file (moved on re-init).
    pub stale_settings: Option<PathBuf>,
    pub mcp_entry: Value,
    pub mcp_current: Option<Value>,
    pub claude_cli: Option<PathBuf>,
    pub codex_path: Option<PathBuf>,
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

/// The settings file of the scope pms is not installed in (user settings,
/// or the workspace's): pms hooks there as well would run every event twice.
pub fn other_settings(env: &HostEnv, ws: &Workspace, installed: &Path) -> PathBuf {
    if installed == env.user_settings() {
        ws.local_settings()
    } else {
        env.user_settings()
    }
}

/// Plans init; returns an error (and changes nothing) if any file it must
/// edit cannot be read or understood.
pub fn plan(env: HostEnv, opts: InitOptions, today: &str) -> Result<InstallPlan> {
    let ws = Workspace::new(&opts.workspace);
    let scaffold = scaffold::plan(&ws, &opts.answers, today)?;

    let settings_path = opts.scope.settings_path(&env, &ws);
    let mut settings = JsonFile::load(&settings_path)?;
    let handlers = settings::pms_handlers(&opts.binary, &ws.root);
    let settings_report = settings::merge_hooks(&mut settings.doc, &settings_path, &handlers)?;

    let other = other_settings(&env, &ws, &settings_path);
    let stale_settings = match JsonFile::load(&other) {
        Ok(f) if !settings::installed_handlers(&f.doc).is_empty() => Some(other),
        _ => None,
    };

    let mcp_entry = mcp::server_entry(&opts.binary, &ws.root);
    let mcp_current = mcp::read_entry(&env.claude_json)?;
    let claude_cli = which::which("claude").ok();

    let codex_path = if opts.codex {
        let p = env.codex_config();
        codex::check(&p)?;
        Some(p)
    } else {
        None
    };
    Ok(InstallPlan {
        env,
        ws,
        opts,
        scaffold,
        settings,
        settings_report,
        stale_settings,
        mcp_entry,
        mcp_current,
        claude_cli,
        codex_path,
    })
}

impl InstallPlan {
    /// Lines describing the plan, for the confirmation screen and --dry-run.
    pub fn describe(&self) -> Vec<String> {
        let env = &self.env;
        let mut lines = Vec::new();
        let creates: Vec<&PlannedFile> = self.scaffold.writes().collect();
        let existing = self.scaffold.existing().count();
        lines.push(format!(
            "Workspace {}: {} file(s) to write, {} already there (kept as they are)",
            env.display(&self.ws.root),
            creates.len(),
            existing
        ));
        for f in &creates {
            let what = match f.action {
                scaffold::FileAction::Create => "create",
                scaffold::FileAction::AppendBlock => "add pms block to",
                scaffold::FileAction::UpdateBlock => "refresh pms block in",
                scaffold::FileAction::Exists => "keep",
            };
            lines.push(format!("  {what} {}", f.rel));
        }
        let r = &self.settings_report;
        let sp = env.display(&self.settings.path);
        if r.changed() {
            let backup = if self.settings.existed {
                ", after a timestamped backup"
            } else {
                ""
            };
            lines.push(format!(
                "Hooks in {sp}: {} added, {} updated{}{backup}",
                r.added.len(),
                r.replaced.len(),
                if r.duplicates_removed > 0 {
                    format!(", {} duplicate(s) removed", r.duplicates_removed)
                } else {
                    String::new()
                }
            ));
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
        if let Some(p) = &self.codex_path {
            lines.push(format!("Codex: [mcp_servers.pms] in {}", env.display(p)));
        }
        lines
    }
}

/// What apply did, for the closing summary.
#[derive(Debug, Default)]
pub struct InstallSummary {
    pub files_written: usize,
    pub files_kept: Vec<String>,
    pub settings_backup: Option<PathBuf>,
    pub settings_changed: bool,
    pub stale_removed_from: Option<PathBuf>,
    pub mcp: Option<mcp::RegisterOutcome>,
    pub codex_changed: Option<bool>,
}

/// Applies the plan. `on_file` is called per workspace file (progress bar).
pub fn apply(mut plan: InstallPlan, on_file: impl FnMut(&PlannedFile)) -> Result<InstallSummary> {
    let ws = plan.ws.clone();
    let env = plan.env.clone();
    let mut summary = InstallSummary::default();
    scaffold::apply(&ws, &plan.scaffold, on_file)?;
    summary.files_written = plan.scaffold.writes().count();
    summary.files_kept = plan.scaffold.existing().map(|f| f.rel.clone()).collect();

    let previous = InstallRecord::load(&ws);
    summary.settings_changed = plan.settings.is_dirty();
    summary.settings_backup = plan.settings.save()?;

    if let Some(stale) = &plan.stale_settings {
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
        &plan.mcp_entry,
        plan.claude_cli.as_deref(),
    )?);
    if let Some(p) = &plan.codex_path {
        let (changed, _) = codex::register(p, &plan.opts.binary, &ws.root)?;
        summary.codex_changed = Some(changed);
    }

    // Remember which containers we created, across re-runs, so that
    // uninstall restores the file the user had before the first init.
    let mut created = plan.settings_report.created.clone();
    if let Some(prev) = previous
        .as_ref()
        .filter(|r| r.settings_path == plan.settings.path)
    {
        created.hooks_key |= prev.created.hooks_key;
        for e in &prev.created.events {
            if !created.events.contains(e) {
                created.events.push(e.clone());
            }
        }
    }
    let record = InstallRecord {
        pms_version: env!("CARGO_PKG_VERSION").into(),
        binary: plan.opts.binary.clone(),
        scope: plan.opts.scope,
        settings_path: plan.settings.path.clone(),
        created,
        claude_mcp: true,
        codex_config: plan.codex_path.clone(),
        installed_at: chrono::Utc::now().to_rfc3339(),
    };
    record.save(&ws).context("writing .pms/install.json")?;
    durable::write_atomic(
        &env.workspace_pointer(),
        format!("{}\n", ws.root.display()).as_bytes(),
    )
    .with_context(|| format!("writing {}", env.workspace_pointer().display()))?;
    plan.settings.existed = true;
    Ok(summary)
}

/// What uninstall removed.
#[derive(Debug, Default)]
pub struct UninstallSummary {
    pub hooks_removed: Vec<(PathBuf, usize)>,
    pub mcp_removed: bool,
    pub codex_removed: bool,
    pub pointer_removed: bool,
}

/// Removes pms's hooks (from both scopes' settings), its MCP registrations
/// and the workspace pointer. User data is not touched here.
pub fn uninstall(env: &HostEnv, ws: Option<&Workspace>) -> Result<UninstallSummary> {
    let mut summary = UninstallSummary::default();
    let record = ws.and_then(InstallRecord::load);
    let mut paths = vec![env.user_settings()];
    if let Some(ws) = ws {
        paths.push(ws.local_settings());
    }
    if let Some(r) = &record
        && !paths.contains(&r.settings_path)
    {
        paths.push(r.settings_path.clone());
    }
    for p in paths {
        if !p.exists() {
            continue;
        }
        let mut f = JsonFile::load(&p)?;
        let created = record
            .as_ref()
            .filter(|r| r.settings_path == p)
            .map(|r| r.created.clone());
        let r = settings::remove_hooks(&mut f.doc, created.as_ref());
        if r.removed > 0 {
            f.save()?;
            summary.hooks_removed.push((p, r.removed));
        }
    }
    let cli = which::which("claude").ok();
    summary.mcp_removed = mcp::unregister(&env.claude_json, cli.as_deref())?;
    let codex_path = record
        .as_ref()
        .and_then(|r| r.codex_config.clone())
        .unwrap_or_else(|| env.codex_config());
    summary.codex_removed = codex::unregister(&codex_path)?;
    let pointer = env.workspace_pointer();
    if let Ok(text) = std::fs::read_to_string(&pointer) {
        let points_here = ws.is_none_or(|w| Path::new(text.trim()) == w.root);
        if points_here {
            std::fs::remove_file(&pointer)
                .with_context(|| format!("removing {}", pointer.display()))?;
            summary.pointer_removed = true;
        }
    }
    if let Some(ws) = ws {
        let _ = std::fs::remove_file(ws.install_record_path());
    }
    Ok(summary)
}

//! `pms init` and `pms uninstall`: the workspace, its wiring into the agents
//! ([`crate::platform::agents::wiring`]) and the pointer to it.
//!
//! Init is two phases. [`plan`] reads everything it will change and checks
//! it (a settings.json that is not JSON, a Codex config that is not TOML),
//! so that an error stops init before any file is touched. [`apply`] then
//! writes: the workspace, the wiring with its install record
//! (`.pms/install.json`, which lets [`uninstall`] remove exactly what was
//! added), and the workspace pointer.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::platform::agents::Agent;
use crate::platform::agents::wiring::{
    self, Choices, CodexHooksFeature, InstallRecord, Scope, WirePlan, WireSummary,
};
use crate::platform::host::durable;
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::scaffold::{self, Answers, PlannedFile, ScaffoldPlan};

#[derive(Debug, Clone)]
pub struct InitOptions {
    pub answers: Answers,
    pub workspace: PathBuf,
    pub scope: Scope,
    /// The agents to wire (Claude Code, Codex, OpenClaw).
    pub agents: Vec<Agent>,
    pub codex_hooks_feature: CodexHooksFeature,
    pub binary: PathBuf,
}

/// Everything init is about to do, computed without changing anything.
pub struct InstallPlan {
    pub env: HostEnv,
    pub ws: Workspace,
    pub scaffold: ScaffoldPlan,
    pub wiring: WirePlan,
}

/// Plans init; returns an error (and changes nothing) if any file it must
/// edit cannot be read or understood.
pub fn plan(env: HostEnv, opts: InitOptions, today: &str) -> Result<InstallPlan> {
    let ws = Workspace::new(&opts.workspace);
    let scaffold = scaffold::plan(&ws, &opts.answers, today)?;
    let choices = Choices {
        binary: opts.binary,
        scope: opts.scope,
        agents: opts.agents,
        codex_hooks_feature: opts.codex_hooks_feature,
    };
    let wiring = wiring::plan(&env, &ws, choices)?;
    Ok(InstallPlan {
        env,
        ws,
        scaffold,
        wiring,
    })
}

impl InstallPlan {
    /// True when applying would change no file: every workspace file is
    /// there, the wiring is as pms writes it now, and the pointer names
    /// this workspace. Init then says so and stops instead of asking.
    pub fn changes_nothing(&self) -> bool {
        let pointer = std::fs::read_to_string(self.env.workspace_pointer()).ok();
        self.scaffold.writes().next().is_none()
            && self.wiring.changes_nothing(&self.ws)
            && pointer.as_deref().map(str::trim) == Some(&*self.ws.root.to_string_lossy())
    }

    /// Lines describing the plan, for the confirmation screen and --dry-run.
    pub fn describe(&self) -> Vec<String> {
        let env = &self.env;
        let mut lines = Vec::new();
        let creates: Vec<&PlannedFile> = self.scaffold.writes().collect();
        let existing = self.scaffold.existing().count();
        lines.push(format!(
            "Workspace {}: {} to write, {} already there (kept as they are)",
            env.display(&self.ws.root),
            crate::platform::plural::count(creates.len(), "file", "files"),
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
        lines.extend(self.wiring.describe(env));
        lines
    }
}

/// What apply did, for the closing summary.
#[derive(Debug, Default)]
pub struct InstallSummary {
    pub files_written: usize,
    pub files_kept: Vec<String>,
    pub wiring: WireSummary,
}

/// Applies the plan. `on_file` is called per workspace file (progress bar).
pub fn apply(plan: InstallPlan, on_file: impl FnMut(&PlannedFile)) -> Result<InstallSummary> {
    let InstallPlan {
        env,
        ws,
        scaffold: files,
        wiring,
    } = plan;
    // Named before anything is written there, so that what a kill leaves
    // in the workspace is found (and swept) before the pointer names it.
    let in_progress = env.init_in_progress();
    durable::write_atomic(&in_progress, format!("{}\n", ws.root.display()).as_bytes())
        .with_context(|| format!("writing {}", in_progress.display()))?;
    scaffold::apply(&ws, &files, on_file)?;
    let wiring = wiring.apply(&env, &ws)?;
    durable::write_atomic(
        &env.workspace_pointer(),
        format!("{}\n", ws.root.display()).as_bytes(),
    )
    .with_context(|| format!("writing {}", env.workspace_pointer().display()))?;
    // Left by a kill just before this, it names a whole workspace: harmless.
    let _ = std::fs::remove_file(&in_progress);
    Ok(InstallSummary {
        files_written: files.writes().count(),
        files_kept: files.existing().map(|f| f.rel.clone()).collect(),
        wiring,
    })
}

/// What uninstall removed.
#[derive(Debug, Default)]
pub struct UninstallSummary {
    pub hooks_removed: Vec<(PathBuf, usize)>,
    pub mcp_removed: bool,
    pub codex_removed: bool,
    pub openclaw_removed: bool,
}

/// What [`uninstall`] would remove, per agent it finds pms wired into
/// (each with its lines of changes), read without changing anything.
pub fn uninstall_plan(env: &HostEnv, ws: Option<&Workspace>) -> Vec<(Agent, Vec<String>)> {
    let record = ws
        .and_then(InstallRecord::load)
        .unwrap_or_else(|| no_record(env));
    Agent::ALL
        .into_iter()
        .map(|a| (a, wiring::found_wiring(env, ws, &record, a)))
        .filter(|(_, lines)| !lines.is_empty())
        .collect()
}

/// The record uninstall goes by when init left none (an older install, or
/// none): pms's wiring is looked for at the default places.
fn no_record(env: &HostEnv) -> InstallRecord {
    InstallRecord {
        pms_version: String::new(),
        binary: PathBuf::new(),
        scope: Scope::User,
        settings_path: env.user_settings(),
        created: Default::default(),
        settings_file_created: false,
        claude_mcp: false,
        claude_json_created: Default::default(),
        codex_config: None,
        agents: None,
        codex: None,
        openclaw: None,
        installed_at: String::new(),
    }
}

/// Removes pms's wiring from every agent: hooks (from both scopes'
/// settings), MCP registrations, Codex's hooks and the trust given them,
/// OpenClaw's plugin, each as the install record says it was made (and,
/// without one, whatever of pms's is found). The workspace and the pointer
/// to it stay (so `pms uninstall --purge` or `pms init` later still find
/// it); [`purge`] removes both.
pub fn uninstall(env: &HostEnv, ws: Option<&Workspace>) -> Result<UninstallSummary> {
    let mut summary = UninstallSummary::default();
    let record = ws
        .and_then(InstallRecord::load)
        .unwrap_or_else(|| no_record(env));
    for agent in Agent::ALL {
        let u = wiring::unwire(env, ws, &record, agent)?;
        summary.hooks_removed.extend(u.hooks_removed);
        summary.mcp_removed |= u.mcp_removed;
        summary.codex_removed |= u.codex_removed;
        summary.openclaw_removed |= u.openclaw_removed;
    }
    if let Some(ws) = ws {
        let _ = std::fs::remove_file(ws.install_record_path());
    }
    Ok(summary)
}

/// Deletes the workspace and everything in it (`uninstall --purge`, after
/// the user's yes), and the pointer to it.
pub fn purge(env: &HostEnv, ws: &Workspace) -> Result<()> {
    std::fs::remove_dir_all(&ws.root).with_context(|| format!("deleting {}", ws.root.display()))?;
    let pointer = env.workspace_pointer();
    if let Ok(text) = std::fs::read_to_string(&pointer)
        && Path::new(text.trim()) == ws.root
    {
        std::fs::remove_file(&pointer)
            .with_context(|| format!("removing {}", pointer.display()))?;
    }
    if env.interrupted_init().as_deref() == Some(ws.root.as_path()) {
        let _ = std::fs::remove_file(env.init_in_progress());
    }
    Ok(())
}

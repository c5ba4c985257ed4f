//! Wiring a workspace into the agents the user chose ([`Agent`]):
//!
//! - Claude Code: pms's hooks in `settings.json`, the `pms` MCP server in
//!   `~/.claude.json` (through the `claude` CLI when it is on PATH);
//! - Codex: the hooks in `$CODEX_HOME/hooks.json` (same merge), the MCP
//!   server as `[mcp_servers.pms]` in `config.toml`, and the `hooks` feature
//!   turned on there only when the user's config turns it off and the user
//!   agreed ([`CodexHooksFeature`]); the trust Codex asks for is the user's
//!   step, never written here;
//! - OpenClaw: pms's plugin, enabled in `openclaw.json` ([`crate::platform::agents::openclaw`]).
//!
//! One plan-then-apply, used by `pms init` (with the user's choices), and by
//! `verify --fix` and `upgrade` (with the choices the install record
//! remembers, [`rewire`]). [`plan`] reads and checks every file it will
//! change, so a settings.json that is not JSON stops everything before a
//! byte is written. [`WirePlan::apply`] then writes the install record
//! (`.pms/install.json`: what each merge creates, so that uninstall gives
//! back exactly what was there) and then the files. An agent the record
//! names but the new choices drop is unwired ([`unwire`]).

use crate::platform::agents::json_file::WhenEmpty;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::platform::agents::Agent;
use crate::platform::agents::claude::mcp_registration as mcp;
use crate::platform::agents::claude::settings::{self, CreatedContainers, MergeReport};
use crate::platform::agents::codex::{self, config::HooksFeature};
use crate::platform::agents::json_file::JsonFile;
use crate::platform::agents::openclaw::{self, OpenClawPlan, OpenClawRecord, OpenClawSummary};
use crate::platform::host::durable;
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;

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
    Agent::Claude.cli()
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

/// What to do about Codex's `hooks` feature when the user's config turns it
/// off (it is on by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CodexHooksFeature {
    /// Leave the user's setting; the hooks are wired but do not run, and
    /// init and verify say so.
    #[default]
    Leave,
    /// The user agreed: set it to true (uninstall sets it back).
    TurnOn,
}

/// The Codex part of `.pms/install.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodexRecord {
    pub config: PathBuf,
    pub hooks: PathBuf,
    /// What the merge created in hooks.json.
    #[serde(default)]
    pub hooks_created: CreatedContainers,
    /// hooks.json did not exist before pms.
    #[serde(default)]
    pub hooks_file_created: bool,
    /// config.toml did not exist before pms: uninstall deletes it when
    /// nothing else is left in it.
    #[serde(default)]
    pub config_file_created: bool,
    /// `[features]` keys pms turned from false to true.
    #[serde(default)]
    pub features_turned_on: Vec<String>,
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
    /// The settings file did not exist before pms: uninstall deletes it
    /// when nothing else is left in it.
    #[serde(default)]
    pub settings_file_created: bool,
    #[serde(default)]
    pub claude_mcp: bool,
    /// What registering the MCP server creates in `~/.claude.json`.
    #[serde(default)]
    pub claude_json_created: mcp::Created,
    /// Codex's config.toml, when pms is wired into Codex (records written
    /// before the hooks existed have only this: the MCP server).
    #[serde(default)]
    pub codex_config: Option<PathBuf>,
    /// The agents pms is wired into; absent in records from before the
    /// choice existed ([`InstallRecord::agents`] then infers it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<Agent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codex: Option<CodexRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openclaw: Option<OpenClawRecord>,
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

    /// The agents wired: as recorded, or for an older record Claude Code,
    /// and Codex when its config was recorded.
    pub fn agents(&self) -> Vec<Agent> {
        match &self.agents {
            Some(a) => a.clone(),
            None if self.codex_config.is_some() => vec![Agent::Claude, Agent::Codex],
            None => vec![Agent::Claude],
        }
    }

    pub fn has(&self, agent: Agent) -> bool {
        self.agents().contains(&agent)
    }
}

/// The agents a workspace is wired into (Claude Code when there is no
/// install record, as before the choice existed).
pub fn wired_agents(ws: &Workspace) -> Vec<Agent> {
    InstallRecord::load(ws).map_or_else(|| vec![Agent::Claude], |r| r.agents())
}

/// What to wire.
#[derive(Debug, Clone)]
pub struct Choices {
    /// The pms binary the hooks and the MCP server run.
    pub binary: PathBuf,
    pub scope: Scope,
    pub agents: Vec<Agent>,
    pub codex_hooks_feature: CodexHooksFeature,
}

impl Choices {
    /// The choices the install record remembers (Claude Code at user scope
    /// when there is none), pointing at `binary`.
    pub fn from_record(ws: &Workspace, binary: &Path) -> Choices {
        let record = InstallRecord::load(ws);
        Choices {
            binary: binary.to_path_buf(),
            scope: record.as_ref().map_or(Scope::User, |r| r.scope),
            agents: record.as_ref().map_or(vec![Agent::Claude], |r| r.agents()),
            codex_hooks_feature: CodexHooksFeature::Leave,
        }
    }
}

/// Claude Code's part of a plan.
pub struct ClaudePlan {
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

/// Codex's part of a plan.
pub struct CodexPlan {
    pub config: PathBuf,
    /// config.toml was there before this init.
    pub config_existed: bool,
    pub hooks: JsonFile,
    pub hooks_report: MergeReport,
    pub feature: HooksFeature,
    pub turn_feature_on: bool,
}

/// Every change the wiring is about to make, computed without making any.
pub struct WirePlan {
    pub choices: Choices,
    pub claude: Option<ClaudePlan>,
    pub codex: Option<CodexPlan>,
    pub openclaw: Option<OpenClawPlan>,
    /// Agents the install record names that the choices drop.
    pub dropped: Vec<Agent>,
}

/// Plans the wiring of `ws`; an error (a file that cannot be read or
/// understood) means nothing was changed.
pub fn plan(env: &HostEnv, ws: &Workspace, choices: Choices) -> Result<WirePlan> {
    let claude = if choices.agents.contains(&Agent::Claude) {
        Some(plan_claude(env, ws, &choices)?)
    } else {
        None
    };
    let codex = if choices.agents.contains(&Agent::Codex) {
        Some(plan_codex(env, ws, &choices)?)
    } else {
        None
    };
    let openclaw = if choices.agents.contains(&Agent::OpenClaw) {
        Some(openclaw::plan(env, &choices.binary, &ws.root)?)
    } else {
        None
    };
    let dropped = InstallRecord::load(ws)
        .map(|r| r.agents())
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !choices.agents.contains(a))
        .collect();
    Ok(WirePlan {
        choices,
        claude,
        codex,
        openclaw,
        dropped,
    })
}

fn plan_claude(env: &HostEnv, ws: &Workspace, choices: &Choices) -> Result<ClaudePlan> {
    let settings_path = choices.scope.settings_path(env, ws);
    for p in [&settings_path, &env.claude_json] {
        durable::check_writable(p)
            .map_err(|e| crate::platform::host::error::FileError::new(p, e))?;
    }
    let mut settings = JsonFile::load(&settings_path)?;
    let handlers = settings::pms_handlers(&choices.binary, &ws.root);
    let settings_report = settings::merge_hooks_into(&mut settings, &handlers)?;
    let other = other_settings(env, ws, &settings_path);
    let stale_settings = match JsonFile::load(&other) {
        Ok(f) if !settings::installed_handlers(&f.doc).is_empty() => Some(other),
        _ => None,
    };
    let mcp_entry = mcp::server_entry(&choices.binary, &ws.root);
    mcp::check(&env.claude_json)?;
    let mcp_current = mcp::read_entry(&env.claude_json)?;
    let claude_json = JsonFile::load(&env.claude_json)?;
    let mcp_creates = mcp::creates(&claude_json, &mcp_entry);
    Ok(ClaudePlan {
        settings,
        settings_report,
        stale_settings,
        mcp_entry,
        mcp_current,
        mcp_creates,
        claude_cli: claude_cli(),
    })
}

fn plan_codex(env: &HostEnv, ws: &Workspace, choices: &Choices) -> Result<CodexPlan> {
    let config = env.codex_config();
    let hooks_path = codex::hooks::hooks_path(&env.codex_home);
    for p in [&config, &hooks_path] {
        durable::check_writable(p)
            .map_err(|e| crate::platform::host::error::FileError::new(p, e))?;
    }
    codex::config::check(&config)?;
    let config_existed = codex::config::exists(&config)?;
    let mut hooks = JsonFile::load(&hooks_path)?;
    let handlers = codex::hooks::handlers(&choices.binary, &ws.root);
    let hooks_report = settings::merge_hooks_into(&mut hooks, &handlers)?;
    let feature = codex::config::hooks_feature(&config);
    let turn_feature_on = matches!(feature, HooksFeature::Off(_))
        && choices.codex_hooks_feature == CodexHooksFeature::TurnOn;
    Ok(CodexPlan {
        config,
        config_existed,
        hooks,
        hooks_report,
        feature,
        turn_feature_on,
    })
}

/// Claude Code's part of what applying a plan did.
#[derive(Debug, Default)]
pub struct ClaudeSummary {
    pub settings_path: PathBuf,
    pub settings_backup: Option<PathBuf>,
    pub settings_changed: bool,
    pub stale_removed_from: Option<PathBuf>,
    pub mcp: Option<mcp::RegisterOutcome>,
}

/// Codex's part of what applying a plan did.
#[derive(Debug, Default)]
pub struct CodexSummary {
    pub hooks_path: PathBuf,
    pub hooks_backup: Option<PathBuf>,
    pub hooks_changed: bool,
    pub mcp_changed: bool,
    /// Still off after init (the user did not agree to turn it on).
    pub feature_off: bool,
    pub feature_turned_on: bool,
    /// pms's hooks Codex does not trust yet (every one, after a first init).
    pub untrusted: usize,
}

/// What applying a plan did.
#[derive(Debug, Default)]
pub struct WireSummary {
    pub claude: Option<ClaudeSummary>,
    pub codex: Option<CodexSummary>,
    pub openclaw: Option<OpenClawSummary>,
    pub unwired: Vec<Agent>,
}

impl WirePlan {
    /// Lines describing the plan, for init's confirmation screen and --dry-run.
    pub fn describe(&self, env: &HostEnv) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(c) = &self.claude {
            lines.extend(describe_claude(c, env));
        }
        if let Some(c) = &self.codex {
            lines.push(describe_hooks(
                "Codex hooks",
                &c.hooks,
                &c.hooks_report,
                env,
            ));
            lines.push(format!(
                "Codex MCP server: [mcp_servers.pms] in {}",
                env.display(&c.config)
            ));
            if let HooksFeature::Off(keys) = &c.feature {
                lines.push(if c.turn_feature_on {
                    format!(
                        "Codex: turn the hooks feature on ([features] {} = true in {})",
                        keys.join(", "),
                        env.display(&c.config)
                    )
                } else {
                    format!(
                        "Codex: your config turns hooks off ([features] {} = false); they stay off, so Codex gets the MCP server only",
                        keys.join(", ")
                    )
                });
            }
        }
        if let Some(o) = &self.openclaw {
            lines.extend(o.describe(env));
        }
        for a in &self.dropped {
            lines.push(format!(
                "{}: remove pms's wiring (not chosen this time)",
                a.title()
            ));
        }
        lines
    }

    /// True when applying would change no file: each chosen agent's hooks,
    /// MCP entry and plugin already as pms writes them now, nothing to
    /// unwire, and the install record there for the same choices.
    pub fn changes_nothing(&self, ws: &Workspace) -> bool {
        let record_current = InstallRecord::load(ws).is_some_and(|r| {
            r.pms_version == env!("CARGO_PKG_VERSION")
                && r.binary == self.choices.binary
                && r.scope == self.choices.scope
                && same_set(&r.agents(), &self.choices.agents)
        });
        let claude_current = self.claude.as_ref().is_none_or(|c| {
            !c.settings.is_dirty()
                && c.stale_settings.is_none()
                && c.mcp_current
                    .as_ref()
                    .is_some_and(|cur| mcp::same_server(cur, &c.mcp_entry))
        });
        let codex_current = self.codex.as_ref().is_none_or(|c| {
            let want = vec![
                "serve".to_string(),
                "--workspace".to_string(),
                ws.root.to_string_lossy().into_owned(),
            ];
            !c.hooks.is_dirty()
                && !c.turn_feature_on
                && codex::config::registered_server(&c.config).is_some_and(|(cmd, args)| {
                    Path::new(&cmd) == self.choices.binary && args == want
                })
        });
        let openclaw_current = self
            .openclaw
            .as_ref()
            .is_none_or(|o| o.stale_files.is_empty() && !o.config.is_dirty());
        record_current
            && self.dropped.is_empty()
            && claude_current
            && codex_current
            && openclaw_current
    }

    /// Writes the install record, then every agent's files.
    pub fn apply(self, env: &HostEnv, ws: &Workspace) -> Result<WireSummary> {
        let previous = InstallRecord::load(ws);
        // The record first: it says which containers pms creates in the
        // user's files (kept across re-runs, so uninstall restores the file
        // the user had before the first init). Written after the files, a
        // kill between the two left uninstall removing the user's own empty
        // `"hooks": {}`.
        let record = self.record(env, ws, previous.as_ref());
        // An agent being dropped is unwired with the old record, before the
        // new one forgets what it created.
        let mut summary = WireSummary::default();
        if let Some(prev) = &previous {
            for a in &self.dropped {
                unwire(env, Some(ws), prev, *a)?;
                summary.unwired.push(*a);
            }
        }
        record.save(ws).context("writing .pms/install.json")?;
        let binary = self.choices.binary.clone();
        if let Some(c) = self.claude {
            summary.claude = Some(apply_claude(c, env, previous.as_ref())?);
        }
        if let Some(c) = self.codex {
            summary.codex = Some(apply_codex(c, env, &binary, ws, &record)?);
        }
        if let Some(o) = self.openclaw {
            summary.openclaw = Some(o.apply()?);
        }
        Ok(summary)
    }

    fn record(
        &self,
        env: &HostEnv,
        ws: &Workspace,
        previous: Option<&InstallRecord>,
    ) -> InstallRecord {
        let settings_path = self
            .claude
            .as_ref()
            .map(|c| c.settings.path.clone())
            .or_else(|| previous.map(|r| r.settings_path.clone()))
            .unwrap_or_else(|| self.choices.scope.settings_path(env, ws));
        let created = self
            .claude
            .as_ref()
            .map(|c| c.settings_report.created.clone())
            .unwrap_or_default();
        let prev_settings =
            previous.filter(|r| r.settings_path == settings_path && r.has(Agent::Claude));
        let created = match prev_settings {
            Some(prev) => created.merged(&prev.created),
            None => created,
        };
        let settings_file_created = prev_settings.is_some_and(|r| r.settings_file_created)
            || self.claude.as_ref().is_some_and(|c| !c.settings.existed);
        let prev_mcp = previous
            .filter(|r| r.has(Agent::Claude))
            .map(|r| r.claude_json_created.clone())
            .unwrap_or_default();
        let claude_json_created = match &self.claude {
            Some(c) => {
                // what this registration creates, only when it registers
                let now = if c.mcp_current.is_none() {
                    c.mcp_creates.clone()
                } else {
                    mcp::Created::default()
                };
                mcp::Created {
                    file: prev_mcp.file || now.file,
                    mcp_servers: prev_mcp.mcp_servers || now.mcp_servers,
                    empty_layouts: prev_mcp.empty_layouts.merged(&now.empty_layouts),
                }
            }
            None => mcp::Created::default(),
        };
        let codex = self.codex.as_ref().map(|c| {
            let prev = previous.and_then(|r| r.codex.as_ref());
            let mut hooks_created = c.hooks_report.created.clone();
            let mut features = Vec::new();
            if let Some(p) = prev {
                hooks_created = hooks_created.merged(&p.hooks_created);
                features = p.features_turned_on.clone();
            }
            if let (true, HooksFeature::Off(keys)) = (c.turn_feature_on, &c.feature) {
                for k in keys {
                    if !features.contains(k) {
                        features.push(k.clone());
                    }
                }
            }
            CodexRecord {
                config: c.config.clone(),
                hooks: c.hooks.path.clone(),
                hooks_created,
                hooks_file_created: prev.is_some_and(|p| p.hooks_file_created) || !c.hooks.existed,
                config_file_created: prev.is_some_and(|p| p.config_file_created)
                    || !c.config_existed,
                features_turned_on: features,
            }
        });
        InstallRecord {
            pms_version: env!("CARGO_PKG_VERSION").into(),
            binary: self.choices.binary.clone(),
            scope: self.choices.scope,
            settings_path,
            created,
            settings_file_created,
            claude_mcp: self.claude.is_some(),
            claude_json_created,
            codex_config: codex.as_ref().map(|c| c.config.clone()),
            agents: Some(self.choices.agents.clone()),
            codex,
            openclaw: self
                .openclaw
                .as_ref()
                .map(|o| o.record(previous.and_then(|r| r.openclaw.as_ref()))),
            installed_at: previous
                .map(|r| r.installed_at.clone())
                .unwrap_or_else(|| chrono::Utc::now().to_rfc3339()),
        }
    }
}

/// The same agents, in whatever order.
fn same_set(a: &[Agent], b: &[Agent]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort();
    a.dedup();
    b.sort();
    b.dedup();
    a == b
}

fn describe_hooks(what: &str, file: &JsonFile, r: &MergeReport, env: &HostEnv) -> String {
    let sp = env.display(&file.path);
    if !r.changed() {
        return format!("{what} in {sp}: already in place");
    }
    let backup = if file.existed {
        ", after a timestamped backup"
    } else {
        ""
    };
    let mut parts = Vec::new();
    if !r.added.is_empty() {
        parts.push(format!("add {}", r.added.join(", ")));
    }
    if !r.replaced.is_empty() {
        parts.push(format!("update {}", r.replaced.join(", ")));
    }
    if r.duplicates_removed > 0 {
        parts.push(format!(
            "remove {}",
            crate::platform::plural::count(r.duplicates_removed, "duplicate", "duplicates")
        ));
    }
    format!("{what} in {sp}: {}{backup}", parts.join("; "))
}

fn describe_claude(c: &ClaudePlan, env: &HostEnv) -> Vec<String> {
    let mut lines = vec![describe_hooks(
        "Hooks",
        &c.settings,
        &c.settings_report,
        env,
    )];
    if let Some(stale) = &c.stale_settings {
        lines.push(format!(
            "  and pms hooks removed from {} (scope changed)",
            env.display(stale)
        ));
    }
    let mcp_state = match &c.mcp_current {
        Some(cur) if mcp::same_server(cur, &c.mcp_entry) => "already registered".to_string(),
        Some(_) => "update the existing entry".to_string(),
        None => "register".to_string(),
    };
    let how = match &c.claude_cli {
        Some(_) => "with `claude mcp add-json -s user`".to_string(),
        None => format!(
            "in {} (claude is not on PATH)",
            env.display(&env.claude_json)
        ),
    };
    lines.push(format!("MCP server `pms` (user scope): {mcp_state}, {how}"));
    lines
}

fn apply_claude(
    mut c: ClaudePlan,
    env: &HostEnv,
    previous: Option<&InstallRecord>,
) -> Result<ClaudeSummary> {
    let mut summary = ClaudeSummary {
        settings_path: c.settings.path.clone(),
        settings_changed: c.settings.is_dirty(),
        settings_backup: c.settings.save()?,
        ..ClaudeSummary::default()
    };
    if let Some(stale) = &c.stale_settings {
        let mut f = JsonFile::load(stale)?;
        let prev = previous.filter(|r| &r.settings_path == stale);
        settings::remove_hooks_from(&mut f, prev.map(|r| &r.created));
        f.save_or_remove(WhenEmpty::created_by_pms(
            prev.is_some_and(|r| r.settings_file_created),
        ))?;
        summary.stale_removed_from = Some(stale.clone());
    }
    summary.mcp = Some(mcp::register(
        &env.claude_json,
        &c.mcp_entry,
        c.claude_cli.as_deref(),
    )?);
    Ok(summary)
}

fn apply_codex(
    mut c: CodexPlan,
    env: &HostEnv,
    binary: &Path,
    ws: &Workspace,
    record: &InstallRecord,
) -> Result<CodexSummary> {
    let hooks_changed = c.hooks.is_dirty();
    let hooks_backup = c.hooks.save()?;
    let features_on = match (&c.feature, c.turn_feature_on) {
        (HooksFeature::Off(keys), true) => keys.clone(),
        _ => Vec::new(),
    };
    let (mcp_changed, _) = codex::config::register(&c.config, binary, &ws.root, &features_on)?;
    let feature_turned_on = !features_on.is_empty();
    let untrusted = codex_untrusted(env, record);
    Ok(CodexSummary {
        hooks_path: c.hooks.path.clone(),
        hooks_backup,
        hooks_changed,
        mcp_changed,
        feature_off: matches!(
            codex::config::hooks_feature(&c.config),
            HooksFeature::Off(_)
        ),
        feature_turned_on,
        untrusted,
    })
}

/// How many of pms's Codex hooks Codex would not run yet for want of trust.
pub fn codex_untrusted(env: &HostEnv, record: &InstallRecord) -> usize {
    let Some(c) = &record.codex else {
        return 0;
    };
    let Ok(f) = JsonFile::load(&c.hooks) else {
        return 0;
    };
    let states = codex::config::hook_states(&env.codex_config());
    codex::hooks::trust(&c.hooks, &f.doc, &states)
        .into_iter()
        .filter(|(_, t)| *t != codex::hooks::Trust::Trusted)
        .count()
}

/// What [`unwire`] would take out of `agent`'s files, read without
/// changing anything: one line per change, empty when pms is not wired in
/// there. Uninstall shows it before asking, as init shows its plan.
pub fn found_wiring(
    env: &HostEnv,
    ws: Option<&Workspace>,
    record: &InstallRecord,
    agent: Agent,
) -> Vec<String> {
    let handlers_in = |p: &Path| {
        JsonFile::load(p)
            .map(|f| settings::installed_handlers(&f.doc).len())
            .unwrap_or(0)
    };
    let count = crate::platform::plural::count;
    let mut out = Vec::new();
    match agent {
        Agent::Claude => {
            let mut paths = vec![env.user_settings()];
            if let Some(ws) = ws {
                paths.push(ws.local_settings());
            }
            if !paths.contains(&record.settings_path) {
                paths.push(record.settings_path.clone());
            }
            for p in paths.iter().filter(|p| p.exists()) {
                let n = handlers_in(p);
                if n > 0 {
                    out.push(format!(
                        "remove {} from {}",
                        count(n, "pms hook", "pms hooks"),
                        env.display(p)
                    ));
                }
            }
            if matches!(mcp::read_entry(&env.claude_json), Ok(Some(_))) {
                out.push(format!(
                    "remove the `pms` MCP server from {}",
                    env.display(&env.claude_json)
                ));
            }
        }
        Agent::Codex => {
            let hooks_path = record.codex.as_ref().map_or_else(
                || codex::hooks::hooks_path(&env.codex_home),
                |c| c.hooks.clone(),
            );
            let config = record
                .codex_config
                .clone()
                .unwrap_or_else(|| env.codex_config());
            let n = handlers_in(&hooks_path);
            if n > 0 {
                out.push(format!(
                    "remove {} from {}",
                    count(n, "pms hook", "pms hooks"),
                    env.display(&hooks_path)
                ));
            }
            if codex::config::registered_server(&config).is_some() {
                out.push(format!(
                    "remove [mcp_servers.pms] from {}",
                    env.display(&config)
                ));
            }
        }
        Agent::OpenClaw => {
            let dir = record
                .openclaw
                .as_ref()
                .map_or_else(|| openclaw::plugin_dir(env), |r| r.plugin_dir.clone());
            let files = openclaw::plugin_files(Path::new("pms"), Path::new("w"));
            if files.iter().any(|(name, _)| dir.join(name).exists()) {
                out.push(format!("remove the pms plugin in {}", env.display(&dir)));
            }
        }
    }
    out
}

/// Removes pms's wiring from one agent, as `record` says it was made (the
/// files it names, the containers it created). `ws` is needed for Claude
/// Code's workspace-scope settings.
pub fn unwire(
    env: &HostEnv,
    ws: Option<&Workspace>,
    record: &InstallRecord,
    agent: Agent,
) -> Result<Unwired> {
    let mut out = Unwired::default();
    match agent {
        Agent::Claude => {
            let mut paths = vec![env.user_settings()];
            if let Some(ws) = ws {
                paths.push(ws.local_settings());
            }
            if !paths.contains(&record.settings_path) {
                paths.push(record.settings_path.clone());
            }
            for p in paths {
                if !p.exists() {
                    continue;
                }
                let mut f = JsonFile::load(&p)?;
                let recorded = record.settings_path == p;
                let r = settings::remove_hooks_from(&mut f, recorded.then_some(&record.created));
                if r.removed > 0 {
                    f.save_or_remove(WhenEmpty::created_by_pms(
                        recorded && record.settings_file_created,
                    ))?;
                    out.hooks_removed.push((p, r.removed));
                }
            }
            out.mcp_removed = mcp::unregister(
                &env.claude_json,
                claude_cli().as_deref(),
                &record.claude_json_created,
            )?;
        }
        Agent::Codex => {
            out.codex_removed = unwire_codex(env, record)?;
        }
        Agent::OpenClaw => {
            out.openclaw_removed = openclaw::unwire(env, record.openclaw.as_ref())?;
        }
    }
    Ok(out)
}

/// Removes pms's Codex hooks (and the trust the user gave them), the MCP
/// server, and gives back the feature flag pms turned on: as the record's
/// Codex part says, or, without one (an older record, no record), from
/// the default paths, removing any empty container of pms's.
fn unwire_codex(env: &HostEnv, record: &InstallRecord) -> Result<bool> {
    let c = record.codex.as_ref();
    let config = record
        .codex_config
        .clone()
        .unwrap_or_else(|| env.codex_config());
    let hooks_path = c.map_or_else(
        || codex::hooks::hooks_path(&env.codex_home),
        |c| c.hooks.clone(),
    );
    let features = c.map(|c| c.features_turned_on.clone()).unwrap_or_default();
    let mut removed = false;
    let mut trust_keys = Vec::new();
    if hooks_path.exists() {
        let mut f = JsonFile::load(&hooks_path)?;
        trust_keys = codex::hooks::pms_trust_keys(&hooks_path, &f.doc);
        let r = settings::remove_hooks_from(&mut f, c.map(|c| &c.hooks_created));
        if r.removed > 0 {
            removed = true;
            let created = c.is_some_and(|c| c.hooks_file_created);
            f.save_or_remove(WhenEmpty::created_by_pms(created))?;
        }
    }
    let config_created = c.is_some_and(|c| c.config_file_created);
    removed |= codex::config::unwire(
        &config,
        &trust_keys,
        &features,
        WhenEmpty::created_by_pms(config_created),
    )?;
    Ok(removed)
}

/// What unwiring removed.
#[derive(Debug, Default)]
pub struct Unwired {
    pub hooks_removed: Vec<(PathBuf, usize)>,
    pub mcp_removed: bool,
    pub codex_removed: bool,
    pub openclaw_removed: bool,
}

/// Wires `ctx`'s workspace again as the install record says, pointing at
/// `binary`: what `verify --fix` does for hooks or an MCP entry gone
/// missing, and `upgrade` when the binary moved.
pub fn rewire(ctx: &Context, binary: &Path) -> Result<WireSummary> {
    let choices = Choices::from_record(&ctx.ws, binary);
    plan(&ctx.env, &ctx.ws, choices)?.apply(&ctx.env, &ctx.ws)
}

//! `pms status`: the state of an install in one snapshot, gathered from the
//! same sources as the checks but without the slow ones (no `pms serve`
//! probe, no hook runs). The command renders it as one screen or as JSON.

use std::path::PathBuf;

use serde::Serialize;

use crate::memory::embed::Plan;
use crate::memory::index::{db, stats};
use crate::memory::lessons::{self, pending};
use crate::platform::agents::Agent;
use crate::platform::agents::claude::{mcp_registration as mcp, settings};
use crate::platform::agents::json_file::JsonFile;
use crate::platform::agents::wiring::{self, InstallRecord, Scope};
use crate::platform::workspace::context::Context;

#[derive(Debug, Serialize)]
pub struct Snapshot {
    pub workspace: PathBuf,
    pub domains: Vec<String>,
    pub scope: Option<Scope>,
    pub settings: PathBuf,
    /// pms hooks found in `settings`.
    pub hooks: usize,
    /// Why `settings` could not be read (not JSON, not an object...), with where.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings_error: Option<String>,
    pub mcp_registered: bool,
    /// The agents pms is wired into, and how each stands.
    pub agents: Vec<AgentState>,
    pub index: IndexState,
    /// The embedding provider in use, or why search is keyword only.
    pub search: String,
    #[serde(skip)]
    pub semantic: bool,
    pub sessions: SessionsState,
    pub lessons: LessonsState,
    /// Files killed runs left that the sweep before this command could not
    /// remove (see the `debris` check).
    pub debris: DebrisState,
    /// Other tools' memory: found on this machine, imported, or both.
    pub imports: Vec<crate::app::import::SourceState>,
}

#[derive(Debug, Serialize)]
pub struct DebrisState {
    pub files: Vec<PathBuf>,
    pub bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct AgentState {
    pub agent: Agent,
    /// pms hooks in the agent's hooks file (Claude Code, Codex); for
    /// OpenClaw, all of them when the plugin is in place.
    pub hooks: usize,
    pub mcp_registered: bool,
    /// Codex: pms hooks the user has not trusted yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untrusted: Option<usize>,
    /// Every hook in place (and trusted), the MCP server registered.
    pub healthy: bool,
}

#[derive(Debug, Serialize)]
pub struct IndexState {
    pub files: i64,
    pub chunks: i64,
    pub vectors: i64,
    pub bytes: u64,
    pub last_index: Option<String>,
    /// Why the index could not be read (locked by another process, ...):
    /// the counts are then unknown, not zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SessionsState {
    pub summaries: usize,
    /// File name of the newest summary.
    pub last: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct LessonsState {
    pub in_force: usize,
    pub pending: usize,
}

impl Snapshot {
    pub fn gather(ctx: &Context) -> Snapshot {
        let (env, ws) = (&ctx.env, &ctx.ws);
        let settings_path = wiring::settings_path(env, ws);
        let (hooks, settings_error) = match JsonFile::load(&settings_path) {
            Ok(f) => (settings::installed_handlers(&f.doc).len(), None),
            Err(e) => (0, Some(e.to_string())),
        };
        let (counts, last_index, unreadable) = match db::open_ro(&ws.db_path()) {
            Ok(c) => (
                stats::counts(&c).unwrap_or_default(),
                db::get_meta(&c, "last_index"),
                None,
            ),
            Err(db::DbError::Missing { .. }) => (stats::Counts::default(), None, None),
            Err(e) => (stats::Counts::default(), None, Some(e.to_string())),
        };
        let plan = Plan::resolve(&ctx.cfg.embeddings, env);
        let summaries = newest_last(&ws.sessions_dir());
        let mcp_registered = mcp::read_entry(&env.claude_json).ok().flatten().is_some();
        let record = InstallRecord::load(ws);
        let agents = wiring::wired_agents(ws)
            .into_iter()
            .map(|agent| match agent {
                Agent::Claude => AgentState {
                    agent,
                    hooks,
                    mcp_registered,
                    untrusted: None,
                    healthy: hooks == settings::HOOK_EVENTS.len() && mcp_registered,
                },
                Agent::Codex => {
                    let hooks_path =
                        crate::platform::agents::codex::hooks::hooks_path(&env.codex_home);
                    let hooks = JsonFile::load(&hooks_path)
                        .map(|f| settings::installed_handlers(&f.doc).len())
                        .unwrap_or(0);
                    let mcp_registered = crate::platform::agents::codex::config::registered_server(
                        &env.codex_config(),
                    )
                    .is_some();
                    let untrusted = record.as_ref().map(|r| wiring::codex_untrusted(env, r));
                    AgentState {
                        agent,
                        hooks,
                        mcp_registered,
                        untrusted,
                        healthy: hooks == settings::HOOK_EVENTS.len()
                            && mcp_registered
                            && untrusted.unwrap_or(0) == 0,
                    }
                }
                Agent::OpenClaw => {
                    let h = crate::platform::agents::openclaw::health(env, &ctx_binary(), &ws.root);
                    let ok = h.stale_files.is_empty() && h.config_problems.is_empty();
                    AgentState {
                        agent,
                        hooks: if ok { settings::HOOK_EVENTS.len() } else { 0 },
                        mcp_registered: ok,
                        untrusted: None,
                        healthy: ok,
                    }
                }
            })
            .collect();
        Snapshot {
            workspace: ws.root.clone(),
            domains: ws.installed_domains(),
            scope: InstallRecord::load(ws).map(|r| r.scope),
            settings: settings_path,
            hooks,
            settings_error,
            mcp_registered,
            agents,
            index: IndexState {
                files: counts.files,
                chunks: counts.chunks,
                vectors: counts.vectors,
                bytes: std::fs::metadata(ws.db_path())
                    .map(|m| m.len())
                    .unwrap_or(0),
                last_index,
                unreadable,
            },
            search: plan.describe(env),
            semantic: !matches!(plan, Plan::Off(_)),
            sessions: SessionsState {
                summaries: summaries.len(),
                last: summaries.last().cloned(),
            },
            lessons: LessonsState {
                in_force: lessons::all_rules(ws).len(),
                pending: pending::load(ws).map(|p| p.items.len()).unwrap_or(0),
            },
            debris: {
                let left = crate::app::upkeep::debris(env, Some(ws));
                DebrisState {
                    bytes: left.iter().map(|d| d.bytes).sum(),
                    files: left.into_iter().map(|d| d.path).collect(),
                }
            },
            imports: crate::app::import::overview(ctx),
        }
    }
}

fn ctx_binary() -> PathBuf {
    crate::platform::host::env::current_binary().unwrap_or_default()
}

/// The summaries' file names, oldest first by the time each session ended
/// (front matter `end`, else the file's modification time): names start
/// with the start minute, so two sessions of one minute sort by their ids.
fn newest_last(dir: &std::path::Path) -> Vec<String> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
                .map(|e| {
                    let end = std::fs::read_to_string(e.path())
                        .ok()
                        .and_then(|t| {
                            crate::platform::workspace::summary_meta::SummaryMeta::parse(&t).end
                        })
                        .filter(|t| !t.is_empty())
                        .or_else(|| {
                            let t = e.metadata().and_then(|m| m.modified()).ok()?;
                            Some(chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339())
                        })
                        .unwrap_or_default();
                    (end, e.file_name().to_string_lossy().into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.into_iter().map(|(_, name)| name).collect()
}

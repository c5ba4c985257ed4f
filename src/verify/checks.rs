//! The checks, one function per area. Each reads; none writes (the index
//! integrity checks open the database read-write only because FTS5's
//! `integrity-check` command is an INSERT, which changes nothing).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Check, Fix};
use crate::agent::Agent;
use crate::claude::json_file::JsonFile;
use crate::claude::mcp_registration as mcp;
use crate::claude::settings::{self, HOOK_EVENTS};
use crate::env::HostEnv;
use crate::index::{db, health, stats};
use crate::lessons;
use crate::wiring::{self, InstallRecord};
use crate::workspace::config::{self, Config};
use crate::workspace::domains::DomainSpec;
use crate::workspace::markers::{self, ROOT_BLOCK};
use crate::workspace::{ME_FILES, Workspace};

/// Which slow checks to run.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Start `pms serve` and talk to it.
    pub probe_mcp: bool,
    /// Run each hook once with a sample payload.
    pub run_hooks: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            probe_mcp: true,
            run_hooks: true,
        }
    }
}

pub fn run_all(env: &HostEnv, ws: Option<&Workspace>, opts: Options) -> Vec<Check> {
    let binary = crate::env::current_binary().unwrap_or_default();
    let mut out = vec![Check::ok(
        "binary",
        format!("pms {} at {}", env!("CARGO_PKG_VERSION"), binary.display()),
    )];
    let Some(ws) = ws else {
        out.push(
            Check::fail("workspace", "no pms workspace found")
                .hint("run `pms init`, or pass --workspace <dir>"),
        );
        return out;
    };
    out.push(Check::ok("workspace", env.display(&ws.root).to_string()));
    out.push(me_files(ws));
    out.push(root_block(ws));
    out.extend(config_check(ws));
    out.push(domains(ws));
    let agents = wiring::wired_agents(ws);
    out.extend(agent_wiring(env, ws, &binary, &agents));
    if opts.probe_mcp {
        out.push(mcp_answers(ws, &binary));
    }
    out.push(disk(ws, env));
    out.extend(index(ws, env));
    out.extend(embeddings(ws, env));
    out.push(lessons_index(ws));
    out.push(pending(ws));
    if opts.run_hooks {
        out.extend(run_hooks(ws, &binary, &agents));
    }
    for a in agents {
        out.push(cli(a.as_str(), a.program(), a.cli()));
    }
    out
}

/// The agent's wiring: the hooks in settings and the MCP registration, and
/// with `opts` the live checks (`pms serve` answering, each hook run as
/// the agent runs it). The same checks `run_all` makes, for `pms ui`.
pub fn wiring(env: &HostEnv, ws: &Workspace, opts: Options) -> Vec<Check> {
    let binary = crate::env::current_binary().unwrap_or_default();
    let agents = wiring::wired_agents(ws);
    let mut out = agent_wiring(env, ws, &binary, &agents);
    if opts.probe_mcp {
        out.push(mcp_answers(ws, &binary));
    }
    if opts.run_hooks {
        out.extend(run_hooks(ws, &binary, &agents));
    }
    out
}

/// The hooks and MCP registration of each agent pms is wired into.
fn agent_wiring(env: &HostEnv, ws: &Workspace, binary: &Path, agents: &[Agent]) -> Vec<Check> {
    let mut out = Vec::new();
    if agents.contains(&Agent::Claude) {
        out.extend(hooks(env, ws, binary));
        out.push(mcp_registration(env, ws, binary));
    }
    if agents.contains(&Agent::Codex) {
        out.extend(codex_checks(env, ws, binary));
    }
    if agents.contains(&Agent::OpenClaw) {
        out.extend(openclaw_checks(env, ws, binary));
    }
    out
}

/// Codex: pms's hooks in hooks.json, whether Codex trusts them and runs
/// hooks at all, and the MCP server in config.toml.
fn codex_checks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    use crate::codex::{config as cfg, hooks as ch};
    let record = InstallRecord::load(ws);
    let hooks_path = record
        .as_ref()
        .and_then(|r| r.codex.as_ref())
        .map_or_else(|| ch::hooks_path(&env.codex_home), |c| c.hooks.clone());
    let config_path = env.codex_config();
    let shown = env.display(&hooks_path);
    let mut out = Vec::new();
    let doc = match JsonFile::load(&hooks_path) {
        Ok(f) => f.doc,
        Err(e) => {
            return vec![
                Check::fail("codex.hooks", e.to_string())
                    .hint("correct the JSON, then `pms verify --fix`"),
            ];
        }
    };
    let mine = settings::installed_handlers(&doc);
    let mut problems = Vec::new();
    for e in ch::CODEX_EVENTS {
        let want = ch::handler(binary, &ws.root, &e);
        match mine.iter().find(|(ev, _)| ev == e.name) {
            None => problems.push(format!("{} missing", e.name)),
            Some((_, h)) if h["command"] != want["command"] => problems.push(format!(
                "{} runs {}",
                e.name,
                h["command"].as_str().unwrap_or("?")
            )),
            Some(_) => {}
        }
    }
    let dups = mine.len().saturating_sub(ch::CODEX_EVENTS.len());
    if dups > 0 && problems.is_empty() {
        problems.push(format!("{dups} duplicate handler(s)"));
    }
    out.push(if problems.is_empty() {
        Check::ok(
            "codex.hooks",
            format!("all five hooks in {shown}, running this binary on this workspace"),
        )
    } else {
        Check::fail(
            "codex.hooks",
            format!("in {shown}: {}", problems.join("; ")),
        )
        .fixable(Fix::MergeHooks)
    });
    let states = cfg::hook_states(&config_path);
    let trust = ch::trust(&hooks_path, &doc, &states);
    let not: Vec<String> = trust
        .iter()
        .filter(|(_, t)| *t != ch::Trust::Trusted)
        .map(|(e, t)| {
            let why = match t {
                ch::Trust::Untrusted => "not reviewed",
                ch::Trust::Modified => "changed since reviewed",
                ch::Trust::Disabled => "turned off",
                ch::Trust::Trusted => "",
            };
            format!("{e} ({why})")
        })
        .collect();
    if !trust.is_empty() {
        out.push(if not.is_empty() {
            Check::ok("codex.trust", "Codex trusts all five pms hooks")
        } else {
            Check::warn(
                "codex.trust",
                format!(
                    "Codex runs no hook it has not been told to trust: {}",
                    not.join(", ")
                ),
            )
            .hint("start `codex` and choose \"Trust all and continue\" when it asks to review hooks (or type /hooks and trust the pms hooks)")
        });
    }
    out.push(match cfg::hooks_feature(&config_path) {
        cfg::HooksFeature::On => Check::ok("codex.feature", "Codex's hooks feature is on"),
        cfg::HooksFeature::Off(keys) => Check::warn(
            "codex.feature",
            format!(
                "{} turns hooks off ([features] {} = false): Codex gets the memory tools only",
                env.display(&config_path),
                keys.join(", ")
            ),
        )
        .hint("set it to true, or `pms init --agent codex --enable-codex-hooks`"),
    });
    let want_args: Vec<String> = vec![
        "serve".into(),
        "--workspace".into(),
        ws.root.to_string_lossy().into_owned(),
    ];
    out.push(match cfg::registered_server(&config_path) {
        Some((cmd, args)) if Path::new(&cmd) == binary && args == want_args => Check::ok(
            "codex.mcp",
            "[mcp_servers.pms] runs this binary on this workspace",
        ),
        Some((cmd, _)) => Check::fail(
            "codex.mcp",
            format!("[mcp_servers.pms] points elsewhere: {cmd}"),
        )
        .fixable(Fix::RegisterMcp),
        None => Check::fail(
            "codex.mcp",
            format!("no [mcp_servers.pms] in {}", env.display(&config_path)),
        )
        .fixable(Fix::RegisterMcp),
    });
    out
}

/// OpenClaw: the plugin's files and its entry in openclaw.json.
fn openclaw_checks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    let h = crate::openclaw::health(env, binary, &ws.root);
    let dir = env.display(&crate::openclaw::plugin_dir(env));
    vec![
        if h.stale_files.is_empty() {
            Check::ok(
                "openclaw.plugin",
                format!("the pms plugin in {dir} runs this binary on this workspace"),
            )
        } else {
            Check::fail(
                "openclaw.plugin",
                format!(
                    "in {dir}, missing or out of date: {}",
                    h.stale_files.join(", ")
                ),
            )
            .fixable(Fix::MergeHooks)
        },
        if h.config_problems.is_empty() {
            Check::ok(
                "openclaw.config",
                format!(
                    "plugin `pms` enabled with conversation access in {}",
                    env.display(&env.openclaw_config)
                ),
            )
        } else {
            Check::fail("openclaw.config", h.config_problems.join("; "))
                .fixable(Fix::MergeHooks)
                .hint("restart the gateway after a change (`openclaw gateway restart`)")
        },
    ]
}

fn me_files(ws: &Workspace) -> Check {
    let missing: Vec<&str> = ME_FILES
        .iter()
        .copied()
        .filter(|f| !ws.me_file(f).is_file())
        .collect();
    if missing.is_empty() {
        Check::ok("workspace.me", "all six _me/ files present")
    } else {
        Check::fail(
            "workspace.me",
            format!("missing in _me/: {}", missing.join(", ")),
        )
        .fixable(Fix::RestoreFiles)
        .hint("create the file (any content); --fix creates it from the template")
    }
}

fn root_block(ws: &Workspace) -> Check {
    match crate::durable::read_existing_text(&ws.claude_md()) {
        Ok(None) => Check::fail("workspace.claude_md", "the root CLAUDE.md is missing")
            .fixable(Fix::RefreshBlock),
        Err(e) => Check::fail(
            "workspace.claude_md",
            format!("{}: {e}", ws.claude_md().display()),
        ),
        Ok(Some(text)) => match markers::inner(&text, ROOT_BLOCK) {
            Some(_) => Check::ok("workspace.claude_md", "root CLAUDE.md has the pms block"),
            None => Check::fail(
                "workspace.claude_md",
                "root CLAUDE.md has no pms block (the layered-loading rules)",
            )
            .fixable(Fix::RefreshBlock)
            .hint("--fix adds the block at the end; your text stays"),
        },
    }
}

fn config_check(ws: &Workspace) -> Vec<Check> {
    let path = ws.config_path();
    let text = match crate::durable::read_existing_text(&path) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return vec![
                Check::warn("config", "config.toml is missing (the defaults apply)")
                    .fixable(Fix::AddConfigKeys),
            ];
        }
        // Unreadable is not missing: --fix must not write the defaults
        // over the user's file.
        Err(e) => {
            return vec![
                Check::fail("config", format!("config.toml cannot be read: {e}"))
                    .hint("the hooks use the defaults meanwhile"),
            ];
        }
    };
    let mut out = Vec::new();
    match Config::parse(&path, &text) {
        Ok(_) => out.push(Check::ok(
            "config",
            "config.toml parses and its values are valid",
        )),
        Err(e) => out.push(
            Check::fail("config", e.to_string())
                .hint("correct the value; hooks use the defaults meanwhile"),
        ),
    }
    if let Ok(doc) = text.parse::<toml_edit::DocumentMut>() {
        let unknown = config::unknown_keys(&doc);
        if !unknown.is_empty() {
            out.push(Check::warn(
                "config.keys",
                format!("unknown keys (typos?): {}", unknown.join(", ")),
            ));
        }
        let mut probe = doc.clone();
        let missing = config::add_missing_keys(&mut probe);
        if !missing.is_empty() {
            out.push(
                Check::warn(
                    "config.keys",
                    format!(
                        "keys not yet in the file (defaults apply): {}",
                        missing.join(", ")
                    ),
                )
                .fixable(Fix::AddConfigKeys),
            );
        }
    }
    out
}

fn domains(ws: &Workspace) -> Check {
    let ids = ws.installed_domains();
    let mut problems = Vec::new();
    for id in &ids {
        let dir = ws.domain_dir(id);
        match DomainSpec::load(&dir) {
            Err(e) => problems.push(e.to_string()),
            Ok(spec) => {
                for f in ["CLAUDE.md", "content-index.md"] {
                    if !dir.join(f).is_file() {
                        problems.push(format!("{id}/{f} is missing"));
                    }
                }
                for wf in &spec.workflows {
                    for f in &wf.load {
                        if !dir.join(f).is_file() {
                            problems.push(format!("{id}/{f} (workflow {}) is missing", wf.name));
                        }
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        Check::ok(
            "workspace.domains",
            format!("{} domain(s) complete: {}", ids.len(), ids.join(", ")),
        )
    } else {
        Check::fail("workspace.domains", problems.join("; "))
            .fixable(Fix::RestoreFiles)
            .hint("--fix restores missing files from the shipped templates; a broken domain.toml must be corrected or deleted first")
    }
}

fn hooks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    let main = wiring::settings_path(env, ws);
    let other = wiring::other_settings(env, ws, &main);
    let shown = env.display(&main);
    let doc = match JsonFile::load(&main) {
        Ok(f) => f.doc,
        Err(e) => {
            return vec![
                Check::fail("hooks", e.to_string())
                    .hint("correct the JSON, then `pms verify --fix`"),
            ];
        }
    };
    let mine = settings::installed_handlers(&doc);
    let theirs = JsonFile::load(&other)
        .map(|f| settings::installed_handlers(&f.doc))
        .unwrap_or_default();
    let mut out = Vec::new();
    let missing: Vec<&str> = HOOK_EVENTS
        .iter()
        .filter(|e| !mine.iter().any(|(ev, _)| ev == e.name))
        .map(|e| e.name)
        .collect();
    out.push(if missing.is_empty() {
        Check::ok("hooks.present", format!("all five hooks in {shown}"))
    } else {
        Check::fail(
            "hooks.present",
            format!("missing in {shown}: {}", missing.join(", ")),
        )
        .fixable(Fix::MergeHooks)
    });
    // Stale: not what `pms init` would write now for its event.
    let stale: Vec<String> = mine
        .iter()
        .filter(|(e, h)| {
            HOOK_EVENTS
                .iter()
                .find(|ev| ev.name == e)
                .is_some_and(|ev| {
                    let want = settings::pms_handler(binary, &ws.root, ev);
                    h["command"] != want["command"] || h["args"] != want["args"]
                })
        })
        .map(|(e, h)| format!("{e} → {}", h["command"].as_str().unwrap_or("?")))
        .collect();
    out.push(if stale.is_empty() {
        Check::ok("hooks.binary", "hooks run this binary on this workspace")
    } else {
        Check::fail(
            "hooks.binary",
            format!(
                "stale hooks (old binary path or workspace): {}",
                stale.join(", ")
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let untimed: Vec<&String> = mine
        .iter()
        .filter(|(_, h)| h.get("timeout").is_none())
        .map(|(e, _)| e)
        .collect();
    out.push(if untimed.is_empty() {
        Check::ok("hooks.timeouts", "every hook declares a timeout")
    } else {
        Check::warn(
            "hooks.timeouts",
            format!(
                "no timeout on: {:?} (SessionEnd then gets only 1.5 s)",
                untimed
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let mut dups = Vec::new();
    for e in HOOK_EVENTS {
        let n = mine
            .iter()
            .chain(theirs.iter())
            .filter(|(ev, _)| ev == e.name)
            .count();
        if n > 1 {
            dups.push(format!("{} ×{n}", e.name));
        }
    }
    out.push(if dups.is_empty() {
        Check::ok("hooks.duplicates", "one pms handler per event")
    } else {
        Check::fail(
            "hooks.duplicates",
            format!(
                "pms runs more than once per event ({}), counting {}",
                dups.join(", "),
                env.display(&other)
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let plugin_copies = plugin_hooks(env);
    if !plugin_copies.is_empty() {
        out.push(
            Check::warn(
                "hooks.plugin",
                format!(
                    "a plugin also registers pms hooks: {}",
                    plugin_copies.join(", ")
                ),
            )
            .hint("disable that plugin (`claude plugin`), or its hooks run beside these"),
        );
    }
    out
}

/// Plugin hook files that run `pms hook`.
fn plugin_hooks(env: &HostEnv) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(dir: &Path, depth: usize, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && depth < 6 {
                walk(&p, depth + 1, out);
            } else if p.file_name().is_some_and(|n| n == "hooks.json")
                && let Ok(text) = std::fs::read_to_string(&p)
                && let Ok(doc) = serde_json::from_str::<Value>(&text)
                && !settings::installed_handlers(&doc).is_empty()
            {
                out.push(p.display().to_string());
            }
        }
    }
    walk(&env.claude_dir.join("plugins"), 0, &mut out);
    out
}

fn mcp_registration(env: &HostEnv, ws: &Workspace, binary: &Path) -> Check {
    let want = mcp::server_entry(binary, &ws.root);
    match mcp::read_entry(&env.claude_json) {
        Err(e) => Check::fail("mcp.registered", e.to_string()),
        Ok(None) => Check::fail(
            "mcp.registered",
            format!("no `pms` MCP server in {}", env.display(&env.claude_json)),
        )
        .fixable(Fix::RegisterMcp),
        Ok(Some(cur)) if mcp::same_server(&cur, &want) => Check::ok(
            "mcp.registered",
            "user-scope MCP server `pms` runs this binary on this workspace",
        ),
        Ok(Some(cur)) => Check::fail(
            "mcp.registered",
            format!(
                "the `pms` MCP server points elsewhere: {} {}",
                cur["command"], cur["args"]
            ),
        )
        .fixable(Fix::RegisterMcp),
    }
}

fn mcp_answers(ws: &Workspace, binary: &Path) -> Check {
    let t = Instant::now();
    match super::mcp_probe::probe(binary, &ws.root, Duration::from_secs(2)) {
        Ok(tools) => Check::ok(
            "mcp.answers",
            format!(
                "`pms serve` answered initialize and tools/list in {} ms ({} tools)",
                t.elapsed().as_millis(),
                tools.len()
            ),
        ),
        Err(e) => Check::fail("mcp.answers", format!("`pms serve` did not answer: {e}"))
            .hint("run `pms serve --workspace <dir>` by hand and read its error"),
    }
}

/// Room on the disk that holds the workspace: the hooks write session
/// state, summaries and learnings there, the index grows there.
fn disk(ws: &Workspace, env: &HostEnv) -> Check {
    const LOW_BYTES: u64 = 64 << 20;
    let shown = env.display(&ws.root);
    match crate::durable::free_space(&ws.root) {
        None => Check::warn("disk", format!("cannot tell how much room is left for {shown}")),
        Some(free) if free < crate::durable::FULL_BELOW_BYTES => Check::fail(
            "disk",
            format!(
                "the disk holding {shown} is full ({} KB free): the hooks cannot save sessions or learnings and the index cannot grow; search and the hooks' injections still answer",
                free / 1024
            ),
        )
        .hint("free some space on that disk; nothing is lost, the next session start catches up from Claude Code's transcripts"),
        Some(free) if free < LOW_BYTES => Check::warn(
            "disk",
            format!("the disk holding {shown} is nearly full ({} MB free)", free >> 20),
        )
        .hint("free some space on that disk before it fills"),
        Some(free) => Check::ok("disk", format!("{} MB free for {shown}", free >> 20)),
    }
}

fn index(ws: &Workspace, env: &HostEnv) -> Vec<Check> {
    let path = ws.db_path();
    if !path.exists() {
        return vec![Check::warn("index", "no search index yet").fixable(Fix::Reindex)];
    }
    let conn = match db::open_ro(&path) {
        Ok(c) => c,
        Err(db::DbError::Newer { .. }) => {
            return vec![
                Check::fail("index", "the index was written by a newer pms").hint("`pms upgrade`"),
            ];
        }
        // held by another process: nothing is wrong with the file, and a
        // rebuild would only wait for the same lock
        Err(e @ db::DbError::Busy { .. }) => {
            return vec![
                Check::warn("index", e.to_string().lines().next().unwrap_or_default())
                    .hint("run `pms verify` again once that process has finished"),
            ];
        }
        Err(e) => return vec![Check::fail("index", e.to_string()).fixable(Fix::RebuildIndex)],
    };
    let mut out = Vec::new();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap_or_else(|e| e.to_string());
    // FTS5's own check needs a connection that may write; one that cannot
    // be had (a full disk, a read-only file) says nothing about damage.
    let fts = rusqlite::Connection::open(&path).map_or(Ok(()), |c| {
        // a writer holding the lock only postpones this part of the check
        let _ = c.busy_timeout(std::time::Duration::from_millis(500));
        for t in ["knowledge_fts", "transcript_fts"] {
            match c.execute(
                &format!("INSERT INTO {t}({t}) VALUES ('integrity-check')"),
                [],
            ) {
                Err(e) if health::is_corrupt(&e) => return Err(format!("{t}: {e}")),
                _ => {}
            }
        }
        Ok(())
    });
    // The tables can each be sound and still disagree (searches then miss
    // silently): compared entry by entry.
    let in_step = match health::entries_out_of_step(&conn) {
        Err(e) if health::is_corrupt(&e) => Err(e.to_string()),
        other => Ok(other.unwrap_or(None)),
    };
    let damage = match (integrity.as_str(), fts, in_step) {
        ("ok", Ok(()), Ok(None)) => None,
        ("ok", Ok(()), Ok(Some(what))) => {
            Some(format!("the full-text index is out of step: {what}"))
        }
        (other, fts, in_step) => Some(format!(
            "integrity check failed: {other}{}{}",
            fts.err().map(|e| format!("; {e}")).unwrap_or_default(),
            in_step.err().map(|e| format!("; {e}")).unwrap_or_default()
        )),
    };
    out.push(match damage {
        None => {
            health::clear(&path);
            let chunks = stats::counts(&conn).map(|c| c.chunks).unwrap_or(0);
            let whole = format!(
                "schema {}, integrity ok, {chunks} chunks",
                db::SCHEMA_VERSION
            );
            if db::writable(&path) {
                Check::ok("index", whole)
            } else {
                Check::warn(
                    "index",
                    format!("{whole}, but read-only: it cannot be updated (search answers from what it holds)"),
                )
                .hint("make .pms/index.db and its folder writable (`chmod u+w`, `chattr -i`, or mount the disk read-write), then `pms index`")
            }
        }
        Some(what) => {
            // searches warn until the rebuild
            let one_line: String = what.replace('\n', "; ").chars().take(300).collect();
            health::record(&path, &one_line, "pms verify");
            Check::fail("index", what).fixable(Fix::RebuildIndex)
        }
    });
    let _ = env;
    out.push(freshness(ws, &conn));
    out
}

/// The `index.fresh` check alone (no integrity scan, which takes seconds
/// on a large index): for `pms ui`'s overview.
pub fn index_freshness(ws: &Workspace) -> Check {
    match db::open_ro(&ws.db_path()) {
        Ok(conn) => freshness(ws, &conn),
        Err(_) => Check::warn("index.fresh", "no search index yet").fixable(Fix::Reindex),
    }
}

/// Workspace files changed since the last index run.
fn freshness(ws: &Workspace, conn: &rusqlite::Connection) -> Check {
    let last = db::get_meta(conn, "last_index")
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
        .map(|t| t.with_timezone(&chrono::Utc));
    let newer = changed_since(ws, last);
    match (last, newer) {
        (None, _) => Check::warn("index.fresh", "never indexed").fixable(Fix::Reindex),
        (Some(_), 0) => Check::ok(
            "index.fresh",
            "no workspace file changed since the last index run",
        ),
        (Some(_), n) => Check::warn(
            "index.fresh",
            format!("{n} workspace file(s) changed since the last index run"),
        )
        .fixable(Fix::Reindex),
    }
}

/// Indexed workspace files modified after `since`.
fn changed_since(ws: &Workspace, since: Option<chrono::DateTime<chrono::Utc>>) -> usize {
    let Some(since) = since.and_then(|t| t.timestamp_nanos_opt()) else {
        return 0;
    };
    crate::index::discover::workspace(ws)
        .iter()
        .filter(|f| f.mtime_ns > since)
        .count()
}

/// The embedding provider and the vectors in the index.
fn embeddings(ws: &Workspace, env: &HostEnv) -> Vec<Check> {
    use crate::embed::{Plan, download::Installed};
    let cfg = Config::load(&ws.config_path()).unwrap_or_default();
    let plan = Plan::resolve(&cfg.embeddings, env);
    let mut out = Vec::new();
    let id = match &plan {
        Plan::Off(reason) => {
            out.push(Check::ok(
                "embeddings",
                format!("keyword search only: {reason}"),
            ));
            return out;
        }
        Plan::Local {
            installed: false,
            model,
            ..
        } => {
            out.push(
                Check::warn(
                    "embeddings",
                    format!("the local model {model} is not installed, so search is keyword only"),
                )
                .hint("`pms embeddings install` (or the next `pms index`) downloads it"),
            );
            return out;
        }
        Plan::Local { dir, model, .. } => {
            let changed = Installed::load(dir)
                .map(|i| i.size_mismatches(dir))
                .unwrap_or_default();
            if !changed.is_empty() {
                out.push(
                    Check::fail(
                        "embeddings",
                        format!(
                            "model files changed since they were installed: {}",
                            changed.join(", ")
                        ),
                    )
                    .hint("`pms embeddings install` installs them again"),
                );
                return out;
            }
            match crate::embed::local::Local::load(dir, model) {
                Ok(m) => {
                    out.push(Check::ok(
                        "embeddings",
                        format!(
                            "local {model}: loads in {} ms, {} dimensions",
                            m.load_ms,
                            m.dim()
                        ),
                    ));
                    crate::embed::Embedder::id(&m).to_string()
                }
                Err(e) => {
                    out.push(
                        Check::fail("embeddings", e.to_string()).hint("`pms embeddings install`"),
                    );
                    return out;
                }
            }
        }
        Plan::OpenAi {
            url,
            model,
            key_env,
        } => {
            let key = std::env::var_os(key_env).is_some_and(|k| !k.is_empty());
            let local = url.contains("://localhost") || url.contains("://127.0.0.1");
            out.push(if key || local {
                Check::ok("embeddings", format!("openai-compatible {model} at {url}"))
            } else {
                Check::warn(
                    "embeddings",
                    format!("openai-compatible {model} at {url}, but {key_env} is not set"),
                )
                .hint(format!(
                    "export {key_env}=<your key> where Claude Code runs"
                ))
            });
            crate::embed::openai::OpenAi::new(url, model, key_env).id_string()
        }
    };
    let Ok(conn) = db::open_ro(&ws.db_path()) else {
        return out;
    };
    let stats::Counts {
        chunks,
        vectors: with,
        ..
    } = stats::counts(&conn).unwrap_or_default();
    let stored = crate::index::vectors::stored_model(&conn);
    out.push(if stored.as_deref() != Some(id.as_str()) && chunks > 0 {
        Check::warn(
            "index.vectors",
            format!("the index has no vectors from {id} yet (search is keyword only)"),
        )
        .fixable(Fix::Reindex)
    } else if with < chunks {
        Check::warn(
            "index.vectors",
            format!("{with} of {chunks} chunks have vectors"),
        )
        .fixable(Fix::Reindex)
    } else {
        Check::ok("index.vectors", format!("all {chunks} chunks have vectors"))
    });
    out
}

fn lessons_index(ws: &Workspace) -> Check {
    use crate::lessons::index_file::{self, IndexState};
    let rules = lessons::all_rules(ws).len();
    match index_file::state(ws) {
        Some(IndexState {
            rules: n,
            current: true,
        }) if n == rules => Check::ok(
            "lessons.index",
            format!("{rules} lesson(s) in force, all indexed"),
        ),
        None if rules == 0 => Check::ok("lessons.index", "no lessons in force yet"),
        Some(IndexState { rules: n, current }) => Check::warn(
            "lessons.index",
            format!(
                "{rules} lesson(s) in force but {n} indexed{}",
                if current {
                    ""
                } else {
                    " (a rule file changed since; the next prompt rebuilds it)"
                }
            ),
        )
        .fixable(Fix::RefreshLessons),
        None => Check::warn(
            "lessons.index",
            format!("{rules} lesson(s) in force, none indexed"),
        )
        .fixable(Fix::RefreshLessons),
    }
}

fn pending(ws: &Workspace) -> Check {
    match lessons::pending::load(ws) {
        Ok(p) => Check::ok(
            "pending",
            format!("{} learning(s) waiting for confirmation", p.items.len()),
        ),
        Err(e) => Check::fail("pending", e.to_string()),
    }
}

/// Runs each hook once, as Claude Code would, with a sample payload.
/// When Codex is among `agents`, the session-start injection is also
/// measured as Codex counts it (bytes), run with `--agent codex`.
fn run_hooks(ws: &Workspace, binary: &Path, agents: &[Agent]) -> Vec<Check> {
    let codex = agents.contains(&Agent::Codex);
    let sid = format!("pms-verify-{}", std::process::id());
    let log_before = std::fs::metadata(ws.hook_log())
        .map(|m| m.len())
        .unwrap_or(0);
    let mut out = Vec::new();
    let mut results = Vec::new();
    let mut cap_check = None;
    for e in HOOK_EVENTS {
        let mut payload = json!({"session_id": sid, "hook_event_name": e.name, "cwd": ws.root});
        match e.arg {
            "session-start" => payload["source"] = json!("startup"),
            "user-prompt" => payload["prompt"] = json!("verify that the pms hooks answer"),
            "stop" => payload["last_assistant_message"] = json!("Done."),
            "pre-compact" => payload["trigger"] = json!("manual"),
            _ => payload["reason"] = json!("other"),
        }
        let t = Instant::now();
        let run = run_one(
            binary,
            ws,
            &[e.arg],
            &payload,
            Duration::from_secs(u64::from(e.timeout_secs)),
        );
        let took = t.elapsed();
        match run {
            Err(err) => results.push(format!("{}: {err}", e.arg)),
            Ok(stdout) if stdout.trim().is_empty() => {}
            Ok(stdout) => match serde_json::from_str::<Value>(stdout.trim()) {
                Ok(v) if v["hookSpecificOutput"]["hookEventName"] == e.name => {
                    if e.arg == "session-start" {
                        let ctx = v["hookSpecificOutput"]["additionalContext"]
                            .as_str()
                            .unwrap_or("");
                        cap_check = Some(ctx.encode_utf16().count());
                    }
                }
                _ => results.push(format!(
                    "{}: output is not one JSON object for {}",
                    e.arg, e.name
                )),
            },
        }
        if took > Duration::from_secs(u64::from(e.timeout_secs)) {
            results.push(format!(
                "{} took {} ms, over its {} s timeout",
                e.arg,
                took.as_millis(),
                e.timeout_secs
            ));
        }
    }
    let codex_bytes = codex.then(|| {
        let payload = json!({"session_id": sid, "hook_event_name": "SessionStart", "cwd": ws.root, "source": "startup"});
        run_one(binary, ws, &["session-start", "--agent", "codex"], &payload, Duration::from_secs(10))
            .ok()
            .and_then(|out| serde_json::from_str::<Value>(out.trim()).ok())
            .and_then(|v| {
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .map(str::len)
            })
    });
    crate::sessions::state::SessionState::remove(ws, &sid);
    let logged = std::fs::read_to_string(ws.hook_log())
        .map(|t| {
            t.get(log_before as usize..)
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default();
    if !logged.is_empty() {
        results.push(format!(
            "errors logged: {}",
            logged.lines().next().unwrap_or("")
        ));
    }
    out.push(if results.is_empty() {
        Check::ok(
            "hooks.run",
            "each hook ran on a sample payload and answered correctly",
        )
    } else {
        Check::fail("hooks.run", results.join("; ")).hint("see .pms/logs/hooks.log")
    });
    out.push(match (cap_check, codex_bytes) {
        (_, Some(None)) => Check::fail("hooks.cap", "session-start for Codex gave no injection"),
        (_, Some(Some(b))) if b >= 10_000 => Check::fail("hooks.cap", format!("the session-start injection for Codex is {b} bytes: Codex shows only a preview over 10,000"))
            .hint("lower hooks.budget_chars in config.toml"),
        (Some(n), Some(Some(b))) if n < 10_000 => Check::ok("hooks.cap", format!("the session-start injection is {n} characters (Claude Code's cap: 10,000), {b} bytes for Codex (its cap: 10,000 bytes)")),
        (cap, _) => cap_message(cap),
    });
    out
}

fn cap_message(cap_check: Option<usize>) -> Check {
    match cap_check {
        Some(n) if n < 10_000 => Check::ok("hooks.cap", format!("the session-start injection is {n} characters (Claude Code's cap: 10,000)")),
        Some(n) => Check::fail("hooks.cap", format!("the session-start injection is {n} characters: Claude Code shows only a preview over 10,000"))
            .hint("lower hooks.budget_chars in config.toml"),
        None => Check::fail("hooks.cap", "session-start gave no injection"),
    }
}

fn run_one(
    binary: &Path,
    ws: &Workspace,
    hook_args: &[&str],
    payload: &Value,
    limit: Duration,
) -> Result<String, String> {
    use std::io::{Read, Write};
    let mut child = Command::new(binary)
        .arg("hook")
        .arg(hook_args[0])
        .arg("--workspace")
        .arg(&ws.root)
        .args(&hook_args[1..])
        .env("PMS_NO_BACKGROUND", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(payload.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let mut s = String::new();
            if let Some(mut o) = child.stdout.take() {
                let _ = o.read_to_string(&mut s);
            }
            return if status.success() {
                Ok(s)
            } else {
                Err(format!("exited with {status}"))
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("no answer within {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn cli(id: &'static str, name: &str, found: Option<PathBuf>) -> Check {
    match found {
        None => Check::warn(id, format!("`{name}` is not on PATH")),
        Some(path) => {
            let version = Command::new(&path)
                .arg("--version")
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "version unknown".into());
            Check::ok(id, format!("{version} at {}", path.display()))
        }
    }
}

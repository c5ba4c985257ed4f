//! The checks, one function per area. Each reads; none writes (the index
//! integrity checks open the database read-write only because FTS5's
//! `integrity-check` command is an INSERT, which changes nothing).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Check, Fix};
use crate::platform::agents::Agent;
use crate::platform::agents::wiring::{self};
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::config::{self, Config};
use crate::platform::workspace::domains::DomainSpec;
use crate::platform::workspace::markers::{self, ROOT_BLOCK};
use crate::platform::workspace::{ME_FILES, Workspace};

pub use super::data_checks::index_freshness;
use super::data_checks::{embeddings, index, lessons_index, pending};
use super::wiring_checks::{
    codex_checks, hooks, mcp_answers, mcp_registration, openclaw_checks, run_hooks,
};

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
    let binary = crate::platform::host::env::current_binary().unwrap_or_default();
    let mut out = vec![Check::ok(
        "binary",
        format!("pms {} at {}", env!("CARGO_PKG_VERSION"), binary.display()),
    )];
    out.push(debris(env, ws));
    let Some(ws) = ws else {
        let hint = match env.interrupted_init() {
            Some(dir) => format!(
                "`pms init` was interrupted while creating {}: run `pms init` again",
                env.display(&dir)
            ),
            None => "run `pms init`, or pass --workspace <dir>".into(),
        };
        out.push(Check::fail("workspace", "no pms workspace found").hint(hint));
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
        out.push(cli(a, a.cli()));
    }
    out
}

/// Files killed pms runs left (temporary files, an abandoned rebuild of the
/// index). Every command that writes removes them first, this one too, so
/// what is listed here could not be removed.
fn debris(env: &HostEnv, ws: Option<&Workspace>) -> Check {
    let left = crate::app::upkeep::debris(env, ws);
    if left.is_empty() {
        return Check::ok("debris", "nothing left by interrupted runs");
    }
    let bytes: u64 = left.iter().map(|d| d.bytes).sum();
    let mut named: Vec<String> = left.iter().take(3).map(|d| env.display(&d.path)).collect();
    if left.len() > 3 {
        named.push(format!("and {} more", left.len() - 3));
    }
    Check::warn(
        "debris",
        format!(
            "{}, {:.1} MB, left by interrupted pms runs and not removed: {}",
            crate::platform::plural::count(left.len(), "file", "files"),
            bytes as f64 / 1e6,
            named.join(", ")
        ),
    )
    .hint("pms removes these before every command that writes; still here, their folder does not let it (check its owner and permissions), so delete them by hand")
}

/// The agent's wiring: the hooks in settings and the MCP registration, and
/// with `opts` the live checks (`pms serve` answering, each hook run as
/// the agent runs it). The same checks `run_all` makes, for `pms ui`.
pub fn wiring(env: &HostEnv, ws: &Workspace, opts: Options) -> Vec<Check> {
    let binary = crate::platform::host::env::current_binary().unwrap_or_default();
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
    match crate::platform::host::durable::read_existing_text(&ws.claude_md()) {
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
    let text = match crate::platform::host::durable::read_existing_text(&path) {
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
            format!(
                "{} complete: {}",
                crate::platform::plural::count(ids.len(), "domain", "domains"),
                ids.join(", ")
            ),
        )
    } else {
        Check::fail("workspace.domains", problems.join("; "))
            .fixable(Fix::RestoreFiles)
            .hint("--fix restores missing files from the shipped templates; a broken domain.toml must be corrected or deleted first")
    }
}

/// Room on the disk that holds the workspace: the hooks write session
/// state, summaries and learnings there, the index grows there.
fn disk(ws: &Workspace, env: &HostEnv) -> Check {
    const LOW_BYTES: u64 = 64 << 20;
    let shown = env.display(&ws.root);
    match crate::platform::host::durable::free_space(&ws.root) {
        None => Check::warn("disk", format!("cannot tell how much room is left for {shown}")),
        Some(free) if free < crate::platform::host::durable::FULL_BELOW_BYTES => Check::fail(
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

/// The agent's own program. Without it on PATH nothing runs pms's wiring;
/// the hint says how to get it, so that doctor's "by hand" step is never
/// empty.
fn cli(agent: Agent, found: Option<PathBuf>) -> Check {
    let (id, name) = (agent.as_str(), agent.program());
    match found {
        None => Check::warn(id, format!("`{name}` is not on PATH")).hint(format!(
            "install {} (or add the folder holding `{name}` to PATH)",
            agent.title()
        )),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debris_the_sweep_left_is_named_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let env = HostEnv::with_home(dir.path().to_path_buf(), |_| None).unwrap();
        let ws = Workspace::new(dir.path().join("pms"));
        std::fs::create_dir_all(ws.state_dir()).unwrap();
        assert_eq!(debris(&env, Some(&ws)).status, super::super::Status::Ok);
        std::fs::write(
            ws.state_dir().join(".pms-tmp-999999999-x"),
            [0u8; 2_000_000],
        )
        .unwrap();
        let c = debris(&env, Some(&ws));
        assert_eq!(c.status, super::super::Status::Warn);
        assert!(c.message.contains("1 file, 2.0 MB"), "{}", c.message);
        assert!(
            c.message.contains("~/pms/.pms/.pms-tmp-999999999-x"),
            "{}",
            c.message
        );
    }
}

//! `pms hook <event>`: what the agent runs at session start, on every
//! prompt, after every reply, before compaction and at session end. Claude
//! Code and Codex run it directly (the same payload and output shape, see
//! docs/architecture.md); OpenClaw through pms's plugin, whose events
//! [`crate::openclaw::hook`] translates both ways.
//!
//! Hooks fail open. Whatever goes wrong (no workspace, a broken file, a
//! panic) the process exits 0 with no output, so a conversation is never
//! blocked, and the cause is appended to `.pms/logs/hooks.log`. The path is
//! synchronous and small: no async runtime, no network, no model loading.
//! Heavy work (indexing, recovering summaries) goes to a detached `pms sync`.

pub mod budget;
pub mod layers;
pub mod pre_compact;
pub mod session_end;
pub mod session_start;
pub mod stop;
pub mod user_prompt;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, anyhow};
use serde_json::Value;

use crate::agent::Agent;
use crate::claude::hook_io::{self, HookInput};
use crate::context::Context;
use crate::workspace::Workspace;

/// The events pms handles, by their `pms hook <event>` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPrompt,
    Stop,
    PreCompact,
    SessionEnd,
}

impl Event {
    pub const ALL: [Event; 5] = [
        Event::SessionStart,
        Event::UserPrompt,
        Event::Stop,
        Event::PreCompact,
        Event::SessionEnd,
    ];

    pub fn parse(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::UserPrompt => "user-prompt",
            Event::Stop => "stop",
            Event::PreCompact => "pre-compact",
            Event::SessionEnd => "session-end",
        }
    }
}

/// Notes a problem that did not stop a hook in the workspace's hook log.
pub fn log(ctx: &Context, event: Event, msg: &str) {
    let msg = explain_storage_problem(Some(&ctx.ws.root), msg.to_string());
    crate::log::append(Some(&ctx.ws.root), event.as_str(), &msg);
}

/// Runs the hook for `event` on behalf of `agent` and writes its output, if
/// any. Never fails.
pub fn run(event: &str, workspace: Option<&Path>, agent: Agent) {
    // Payloads close stdin at once; the deadline only matters when Claude
    // Code keeps the pipe open (seen at SessionEnd).
    let deadline = if event == "session-end" { 1_000 } else { 3_000 };
    let raw = hook_io::read_stdin_with_deadline(Duration::from_millis(deadline));
    record_payload(event, &raw);
    budget::set_length_unit(agent.length_unit());
    std::panic::set_hook(Box::new(|_| {})); // a panic is logged below, not printed
    let outcome = std::panic::catch_unwind(|| dispatch(event, workspace, &raw, agent));
    let error = match outcome {
        Ok(Ok(Some(out))) => {
            hook_io::write_json(&out);
            None
        }
        Ok(Ok(None)) => None,
        Ok(Err(e)) => Some(format!("{e:#}")),
        Err(panic) => Some(format!("panic: {}", panic_message(&panic))),
    };
    if let Some(msg) = error {
        crate::log::append(workspace, event, &explain_storage_problem(workspace, msg));
    }
}

/// A hook problem met while the workspace cannot be written (the disk is
/// full, or it is read-only) says so first, and that nothing is lost (the
/// transcript stays; the next session start catches up), rather than
/// leaving "No space left on device" or "Read-only file system" somewhere
/// in a chain.
fn explain_storage_problem(workspace: Option<&Path>, msg: String) -> String {
    let Some(root) = workspace.map(Path::to_path_buf).or_else(|| {
        let env = crate::env::HostEnv::from_process().ok()?;
        Workspace::locate(None, &env).ok().map(|w| w.root)
    }) else {
        return msg;
    };
    let state = Workspace::new(root.clone()).state_dir();
    let problem = if crate::durable::disk_is_full(&root) {
        "the disk is full"
    } else if state.exists() && !crate::index::db::writable(&state.join("state")) {
        "the workspace cannot be written (a read-only file, folder or disk)"
    } else {
        return msg;
    };
    format!(
        "{problem}: {msg}. Fix: {}; the session's transcript stays, and the next session start catches up on what was not saved",
        if problem.starts_with("the disk") {
            format!("free some space on the disk holding {}", root.display())
        } else {
            format!("make {} writable again", state.display())
        }
    )
}

/// With `PMS_HOOK_RECORD=<dir>`, appends each payload to `<dir>/<event>.jsonl`:
/// a way to see exactly what Claude Code sends (the e2e tests record the
/// fixtures the hook tests replay this way).
fn record_payload(event: &str, raw: &str) {
    let Some(dir) = std::env::var_os("PMS_HOOK_RECORD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("{event}.jsonl")))
    {
        use std::io::Write;
        // A debugging aid, and still a file pms writes: redacted.
        let one_line: String = crate::redact::redact(raw.trim()).replace('\n', " ");
        let _ = writeln!(f, "{one_line}");
    }
}

fn dispatch(
    event: &str,
    workspace: Option<&Path>,
    raw: &str,
    agent: Agent,
) -> Result<Option<Value>> {
    let Some(event) = Event::parse(event) else {
        return Err(anyhow!(
            "unknown hook event {event:?} (expected session-start, user-prompt, stop, pre-compact or session-end)"
        ));
    };
    let ctx = Context::open_lenient(workspace)?;
    // A broken config.toml must not silence the memory: log it, use defaults.
    for e in &ctx.cfg_problems {
        log(&ctx, event, &format!("{e} (using the defaults for it)"));
    }
    let input = match agent {
        Agent::OpenClaw => crate::openclaw::hook::input(&ctx, event, raw)?,
        Agent::Claude | Agent::Codex => HookInput::from_json(raw),
    };
    if matches!(event, Event::Stop | Event::PreCompact | Event::SessionEnd) {
        check_transcript(&ctx, event, &input);
    }
    let out = match event {
        Event::SessionStart => session_start::run(&ctx, &input)?,
        Event::UserPrompt => user_prompt::run(&ctx, &input)?,
        Event::Stop => stop::run(&ctx, &input)?,
        Event::PreCompact => pre_compact::run(&ctx, &input)?,
        Event::SessionEnd => session_end::run(&ctx, &input)?,
    };
    Ok(match agent {
        Agent::OpenClaw => crate::openclaw::hook::output(&ctx, event, &input, out),
        Agent::Claude | Agent::Codex => out,
    })
}

/// The hooks that read the transcript carry on without one they cannot
/// read (the learnings and summary of that session are lost), so the hook
/// log says which and why. A missing one is not a problem: Claude Code
/// writes it only once something was said.
fn check_transcript(ctx: &Context, event: Event, input: &HookInput) {
    let Some(path) = input.transcript() else {
        return;
    };
    let problem = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => e.to_string(),
        Ok(m) if !m.is_file() => "not a regular file".to_string(),
        Ok(_) => match std::fs::File::open(path) {
            Ok(_) => return,
            Err(e) => e.to_string(),
        },
    };
    log(
        ctx,
        event,
        &format!(
            "{}: the session's transcript cannot be read ({problem}), so its learnings and summary are missing. Fix: make it a readable file (Claude Code writes it under ~/.claude/projects)",
            path.display()
        ),
    );
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Starts `pms <args>` detached (own process group, no stdio), so it
/// outlives the hook and Claude Code's teardown. Set PMS_NO_BACKGROUND=1 to
/// skip it (tests that want to run the sync themselves).
pub fn spawn_detached(ws: &Workspace, args: &[&str]) {
    if std::env::var("PMS_NO_BACKGROUND").is_ok_and(|v| v == "1") {
        return;
    }
    use std::os::unix::process::CommandExt;
    let Ok(exe) = crate::env::current_binary() else {
        return;
    };
    let result = std::process::Command::new(exe)
        .args(args)
        .arg("--workspace")
        .arg(&ws.root)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
    if let Err(e) = result {
        crate::log::append(
            Some(&ws.root),
            "spawn",
            &format!("could not start `pms {}`: {e}", args.join(" ")),
        );
    }
}

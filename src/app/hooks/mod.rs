//! What `pms hook <event>` does at session start, on every prompt, after
//! every reply, before compaction and at session end. Claude
//! Code and Codex run it directly (the same payload and output shape, see
//! docs/architecture.md); OpenClaw through pms's plugin, whose events
//! [`crate::platform::agents::openclaw::hook`] translates both ways.
//!
//! Hooks fail open: [`handle`] returns an error rather than stopping, and
//! the entry (`pms hook`, in the front ends) logs it and exits 0. The path is
//! synchronous and small: no async runtime, no network, no model loading.
//! Heavy work (indexing, recovering summaries) goes to a detached `pms sync`.

pub mod budget;
pub mod layers;
pub mod post_tool_use;
pub mod pre_compact;
pub mod pre_tool_use;
pub mod session_end;
pub mod session_start;
pub mod stop;
pub mod user_prompt;

use std::path::Path;

use anyhow::{Result, anyhow};
use serde_json::Value;

use crate::platform::agents::Agent;
use crate::platform::agents::hook_io::Event;
use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;

/// Notes a problem that did not stop a hook in the workspace's hook log.
pub fn log(ctx: &Context, event: Event, msg: &str) {
    let (msg, _) = explain_storage_problem(Some(&ctx.ws.root), msg.to_string());
    crate::platform::workspace::log::append(Some(&ctx.ws.root), event.as_str(), &msg);
}

/// Updates session `sid`'s state with `f` under its lock; a write that
/// fails (a full disk) is logged for `event` and gives None: a hook goes on
/// without it.
pub fn save_state<R>(
    ctx: &Context,
    event: Event,
    sid: &str,
    f: impl FnOnce(&mut crate::memory::sessions::state::SessionState) -> R,
) -> Option<R> {
    crate::memory::sessions::state::SessionState::update(&ctx.ws, sid, f)
        .map_err(|e| log(ctx, event, &format!("saving session state: {e}")))
        .ok()
}

/// Logs the failure `msg` of hook `event` (whose payload was `raw`). A
/// failure met while the workspace cannot be written (the disk is full, or
/// it is read-only) says so first, and that nothing is lost: the session is
/// noted as unsaved, and the next session start finishes it from its
/// transcript, which stays.
pub fn record_failure(workspace: Option<&Path>, event: &str, raw: &str, msg: String) {
    let (msg, storage) = explain_storage_problem(workspace, msg);
    crate::platform::workspace::log::append(workspace, event, &msg);
    if storage {
        let session = HookInput::from_json(raw).session_id();
        crate::platform::workspace::log::note_unsaved(workspace, &session);
    }
}

/// `msg`, explained when the workspace cannot be written, rather than
/// leaving "No space left on device" or "Read-only file system" somewhere
/// in a chain; and whether that is why.
fn explain_storage_problem(workspace: Option<&Path>, msg: String) -> (String, bool) {
    let Some(root) = workspace.map(Path::to_path_buf).or_else(|| {
        let env = crate::platform::host::env::HostEnv::from_process().ok()?;
        Workspace::locate(None, &env).ok().map(|w| w.root)
    }) else {
        return (msg, false);
    };
    let state = Workspace::new(root.clone()).state_dir();
    let problem = if crate::platform::host::durable::disk_is_full(&root) {
        "the disk is full"
    } else if state.exists() && !crate::memory::index::db::writable(&state.join("state")) {
        "the workspace cannot be written (a read-only file, folder or disk)"
    } else {
        return (msg, false);
    };
    let msg = format!(
        "{problem}: {msg}. Fix: {}; the session's transcript stays, and the next session start catches up on what was not saved",
        if problem.starts_with("the disk") {
            format!("free some space on the disk holding {}", root.display())
        } else {
            format!("make {} writable again", state.display())
        }
    );
    (msg, true)
}

/// What pms answers the agent for `event` (None: nothing to say), from
/// the payload `raw` it sent. The caller (`pms hook`, a front end) reads
/// stdin, catches panics and logs failures.
pub fn handle(
    event: &str,
    workspace: Option<&Path>,
    raw: &str,
    agent: Agent,
) -> Result<Option<Value>> {
    let Some(event) = Event::parse(event) else {
        return Err(anyhow!(
            "unknown hook event {event:?} (expected session-start, user-prompt, stop, pre-compact, session-end, pre-tool-use or post-tool-use)"
        ));
    };
    budget::set_length_unit(agent.length_unit());
    let ctx = Context::open_lenient(workspace)?;
    // A broken config.toml must not silence the memory: log it, use defaults.
    for e in &ctx.cfg_problems {
        log(&ctx, event, &format!("{e} (using the defaults for it)"));
    }
    let input = match agent {
        Agent::OpenClaw => {
            crate::platform::agents::openclaw::hook::input(&ctx.ws.openclaw_logs(), event, raw)?
        }
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
        Event::PreToolUse => pre_tool_use::run(&ctx, &input, agent)?,
        Event::PostToolUse => post_tool_use::run(&ctx, &input)?,
    };
    Ok(match agent {
        // OpenClaw rebuilds the system prompt every turn: layer 0 rides
        // there, beside the prompt's own lessons and rules.
        Agent::OpenClaw if event == Event::UserPrompt => {
            // the prompt hook above recorded the session's folder
            let st =
                crate::memory::sessions::state::SessionState::load(&ctx.ws, &input.session_id());
            let layer0 = session_start::layer0(&ctx, "startup", &st);
            Some(crate::platform::agents::openclaw::hook::prompt_result(
                out.as_ref(),
                &layer0,
            ))
        }
        // before_tool_call takes a block (pre_tool_use made it so).
        Agent::OpenClaw if event == Event::PreToolUse => {
            crate::platform::agents::openclaw::hook::tool_result(out)
        }
        // The other OpenClaw hooks observe; a result is ignored.
        Agent::OpenClaw => None,
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

/// Starts `pms <args>` detached (own process group, no stdio), so it
/// outlives the hook and Claude Code's teardown. Set PMS_NO_BACKGROUND=1 to
/// skip it (tests that want to run the sync themselves).
pub fn spawn_detached(ws: &Workspace, args: &[&str]) {
    if std::env::var("PMS_NO_BACKGROUND").is_ok_and(|v| v == "1") {
        return;
    }
    use std::os::unix::process::CommandExt;
    let Ok(exe) = crate::platform::host::env::current_binary() else {
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
        crate::platform::workspace::log::append(
            Some(&ws.root),
            "spawn",
            &format!("could not start `pms {}`: {e}", args.join(" ")),
        );
    }
}

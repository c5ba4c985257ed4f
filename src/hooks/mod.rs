//! `pms hook <event>`: what Claude Code runs at session start, on every
//! prompt, after every reply, before compaction and at session end.
//!
//! Hooks fail open. Whatever goes wrong (no workspace, a broken file, a
//! panic) the process exits 0 with no output, so a conversation is never
//! blocked, and the cause is appended to `.pms/logs/hooks.log`. The path is
//! synchronous and small: no async runtime, no network, no model loading.

pub mod log;
pub mod session_start;

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, anyhow};
use serde_json::Value;

use crate::claude::hook_io::{self, HookInput};
use crate::env::HostEnv;
use crate::workspace::Workspace;

/// What a hook needs: the parsed input, the workspace and the host paths.
pub struct HookContext {
    pub input: HookInput,
    pub ws: Workspace,
    pub env: HostEnv,
}

/// Runs the hook for `event` and writes its output, if any. Never fails.
pub fn run(event: &str, workspace: Option<&Path>) {
    // Payloads close stdin at once; the deadline only matters when Claude
    // Code keeps the pipe open (seen at SessionEnd).
    let deadline = if event == "session-end" { 1_000 } else { 3_000 };
    let raw = hook_io::read_stdin_with_deadline(Duration::from_millis(deadline));
    std::panic::set_hook(Box::new(|_| {})); // a panic is logged below, not printed
    let outcome = std::panic::catch_unwind(|| dispatch(event, workspace, &raw));
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
        log::append(workspace, event, &msg);
    }
}

fn dispatch(event: &str, workspace: Option<&Path>, raw: &str) -> Result<Option<Value>> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(workspace, &env)?;
    let ctx = HookContext {
        input: HookInput::from_json(raw),
        ws,
        env,
    };
    match event {
        "session-start" => session_start::run(&ctx),
        "user-prompt" | "stop" | "pre-compact" | "session-end" => Ok(None),
        other => Err(anyhow!(
            "unknown hook event {other:?} (expected session-start, user-prompt, stop, pre-compact or session-end)"
        )),
    }
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

//! `pms hook <event>`: what Claude Code runs at session start, on every
//! prompt, after every reply, before compaction and at session end.
//!
//! Hooks fail open. Whatever goes wrong (no workspace, a broken file, a
//! panic) the process exits 0 with no output, so a conversation is never
//! blocked, and the cause is appended to `.pms/logs/hooks.log`. The path is
//! synchronous and small: no async runtime, no network, no model loading.
//! Heavy work (indexing, recovering summaries) goes to a detached `pms sync`.

pub mod budget;
pub mod layers;
pub mod log;
pub mod pre_compact;
pub mod session_end;
pub mod session_start;
pub mod signals;
pub mod state;
pub mod stop;
pub mod summary;
pub mod user_prompt;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, anyhow};
use serde_json::Value;

use crate::claude::hook_io::{self, HookInput};
use crate::context::Context;
use crate::env::HostEnv;
use crate::workspace::Workspace;
use crate::workspace::config::Config;

/// What a hook needs: the parsed input, the workspace, its settings and the
/// host paths.
pub struct HookContext {
    pub input: HookInput,
    pub ws: Workspace,
    pub env: HostEnv,
    pub cfg: Config,
}

impl HookContext {
    /// Notes a problem that did not stop the hook.
    pub fn log(&self, event: &str, msg: &str) {
        log::append(Some(&self.ws.root), event, msg);
    }

    pub fn session_id(&self) -> String {
        self.input
            .session_id
            .clone()
            .or_else(|| std::env::var("CLAUDE_CODE_SESSION_ID").ok())
            .unwrap_or_else(|| "unknown".into())
    }
}

/// Runs the hook for `event` and writes its output, if any. Never fails.
pub fn run(event: &str, workspace: Option<&Path>) {
    // Payloads close stdin at once; the deadline only matters when Claude
    // Code keeps the pipe open (seen at SessionEnd).
    let deadline = if event == "session-end" { 1_000 } else { 3_000 };
    let raw = hook_io::read_stdin_with_deadline(Duration::from_millis(deadline));
    record_payload(event, &raw);
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
        let one_line: String = raw.trim().replace('\n', " ");
        let _ = writeln!(f, "{one_line}");
    }
}

fn dispatch(event: &str, workspace: Option<&Path>, raw: &str) -> Result<Option<Value>> {
    // A broken config.toml must not silence the memory: log it, use defaults.
    let Context {
        env,
        ws,
        cfg,
        cfg_error,
    } = Context::open_lenient(workspace)?;
    if let Some(e) = cfg_error {
        log::append(Some(&ws.root), event, &format!("{e} (using the defaults)"));
    }
    let ctx = HookContext {
        input: HookInput::from_json(raw),
        ws,
        env,
        cfg,
    };
    match event {
        "session-start" => session_start::run(&ctx),
        "user-prompt" => user_prompt::run(&ctx),
        "stop" => stop::run(&ctx),
        "pre-compact" => pre_compact::run(&ctx),
        "session-end" => session_end::run(&ctx),
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
        log::append(
            Some(&ws.root),
            "spawn",
            &format!("could not start `pms {}`: {e}", args.join(" ")),
        );
    }
}

/// The transcript a hook should read: the payload's path, or the one the
/// session state remembers (some payloads leave it out), if the file exists.
pub fn transcript_path(ctx: &HookContext, st: &state::SessionState) -> Option<PathBuf> {
    [&ctx.input.transcript_path, &st.transcript_path]
        .into_iter()
        .flatten()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

//! `pms hook <event>`: the entry the agents call (Claude Code and Codex
//! directly, OpenClaw through pms's plugin). It reads the payload from stdin,
//! asks [`hooks::handle`] what to answer, and prints it.
//!
//! Hooks fail open. Whatever goes wrong (no workspace, a broken file, a
//! panic) the process exits 0 with no output, so a conversation is never
//! blocked, and the cause is appended to `.pms/logs/hooks.log`. Claude Code
//! takes exit 2 from UserPromptSubmit as "block this prompt" and erases it,
//! so no path here exits otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::app::hooks;
use crate::front::cli::HookArgs;
use crate::platform::agents::hook_io;

/// Runs the hook for `args.event` on behalf of `args.agent` and writes its
/// output, if any. Always exits 0.
pub fn run(args: &HookArgs) -> ExitCode {
    let event = args.event.as_str();
    let workspace = args.ws.workspace.as_deref();
    // Payloads close stdin at once; the deadline only matters when Claude
    // Code keeps the pipe open (seen at SessionEnd).
    let deadline = if event == "session-end" { 1_000 } else { 3_000 };
    let raw = hook_io::read_stdin_with_deadline(Duration::from_millis(deadline));
    record_payload(event, &raw);
    std::panic::set_hook(Box::new(|_| {})); // a panic is logged below, not printed
    let outcome = std::panic::catch_unwind(|| hooks::handle(event, workspace, &raw, args.agent));
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
        hooks::record_failure(workspace, event, &raw, msg);
    }
    ExitCode::SUCCESS
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
        let one_line: String = crate::platform::redact::redact(raw.trim()).replace('\n', " ");
        let _ = writeln!(f, "{one_line}");
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

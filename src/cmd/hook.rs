//! `pms hook <event>`: run by the agent (Claude Code, Codex, OpenClaw's plugin). Always exits 0 (see hooks::run).

use std::process::ExitCode;

use crate::cli::HookArgs;

pub fn run(args: &HookArgs) -> ExitCode {
    crate::hooks::run(&args.event, args.ws.workspace.as_deref(), args.agent);
    ExitCode::SUCCESS
}

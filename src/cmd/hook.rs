//! `pms hook <event>`: run by Claude Code. Always exits 0 (see hooks::run).

use std::process::ExitCode;

use crate::cli::HookArgs;

pub fn run(args: &HookArgs) -> ExitCode {
    crate::hooks::run(&args.event, args.ws.workspace.as_deref());
    ExitCode::SUCCESS
}

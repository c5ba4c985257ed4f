//! `pms serve`: the MCP server over stdio (see src/mcp).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::WorkspaceArg;
use crate::context::Context;

pub fn run(args: &WorkspaceArg) -> Result<ExitCode> {
    let ctx = Context::open(args.workspace.as_deref())?;
    crate::mcp::serve(ctx)?;
    Ok(ExitCode::SUCCESS)
}

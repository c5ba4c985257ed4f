//! `pms serve`: the MCP server over stdio (see src/mcp).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::WorkspaceArg;

pub fn run(args: &WorkspaceArg) -> Result<ExitCode> {
    let ctx = super::context(args)?;
    crate::mcp::serve(ctx)?;
    Ok(ExitCode::SUCCESS)
}

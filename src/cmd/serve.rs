//! `pms serve`: the MCP server over stdio (see src/mcp).

use std::process::ExitCode;

use anyhow::Result;

use crate::context::Context;

pub fn run(ctx: Context) -> Result<ExitCode> {
    crate::mcp::serve(ctx)?;
    Ok(ExitCode::SUCCESS)
}

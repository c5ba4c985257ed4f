//! `pms serve`: the MCP server over stdio (see src/front/mcp).

use std::process::ExitCode;

use anyhow::Result;

use crate::platform::workspace::context::Context;

pub fn run(ctx: Context) -> Result<ExitCode> {
    crate::front::mcp::serve(ctx)?;
    Ok(ExitCode::SUCCESS)
}

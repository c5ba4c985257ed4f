//! `pms serve`: the MCP server over stdio.

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::WorkspaceArg;

pub fn run(_args: &WorkspaceArg) -> Result<ExitCode> {
    bail!("the MCP server is not built yet in this version; search with `pms search` instead")
}

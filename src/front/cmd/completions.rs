//! `pms completions <shell>` and `pms man`: generated from the same clap
//! definitions as the parser (clap_complete, clap_mangen), so they never
//! drift from the flags.

use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;

use crate::front::cli::{Cli, CompletionsArgs};

pub fn run(args: &CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "pms", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

pub fn man() -> Result<ExitCode> {
    clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout())?;
    Ok(ExitCode::SUCCESS)
}

//! `pms`: parse the command line, run the subcommand, report errors the way a
//! person can act on them.

use std::process::ExitCode;

use clap::Parser;
use pms::cli::{Cli, Command};
use pms::cmd;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        // Hooks never fail from Claude Code's point of view: they exit 0
        // whatever happens, and log what went wrong.
        Command::Hook(args) => return cmd::hook::run(&args),
        Command::Init(args) => cmd::init::run(&args),
        Command::Serve(args) => cmd::serve::run(&args),
        Command::Index(args) => cmd::index::run(&args),
        Command::Search(args) => cmd::search::run(&args),
        Command::Get(args) => cmd::get::run(&args),
        Command::Uninstall(args) => cmd::uninstall::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pms: {}", format_error(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes, one per line.
fn format_error(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    out
}

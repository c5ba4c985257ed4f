//! `pms`: parse the command line, run the subcommand, report errors the way a
//! person can act on them.

use std::process::ExitCode;

use clap::Parser;
use pms::cli::{Cli, Command};
use pms::cmd;

fn main() -> ExitCode {
    // Claude Code runs `pms hook <event> --workspace <dir>` on every prompt:
    // skip building clap's whole command tree for that one shape.
    if let Some(code) = fast_hook() {
        return code;
    }
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
        Command::Sync(args) => cmd::sync::run(&args),
        Command::Lessons(args) => cmd::lessons::run(&args),
        Command::Uninstall(args) => cmd::uninstall::run(&args),
        Command::Verify(args) => cmd::verify::run(&args),
        Command::Doctor(args) => cmd::doctor::run(&args),
        Command::Status(args) => cmd::status::run(&args),
        Command::Upgrade(args) => cmd::upgrade::run(&args),
        Command::Embeddings(args) => cmd::embeddings::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pms: {}", format_error(&e));
            ExitCode::FAILURE
        }
    }
}

/// `pms hook <event> [--workspace|-w <dir>]` parsed by hand; anything else
/// (including `--help`) goes through clap.
fn fast_hook() -> Option<ExitCode> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().map(|a| a == "hook") != Some(true) {
        return None;
    }
    let event = args.get(1)?.to_str()?.to_string();
    if event.starts_with('-') {
        return None;
    }
    let workspace = match &args[2..] {
        [] => None,
        [flag, dir] if flag == "--workspace" || flag == "-w" => Some(std::path::PathBuf::from(dir)),
        _ => return None,
    };
    pms::hooks::run(&event, workspace.as_deref());
    Some(ExitCode::SUCCESS)
}

/// The error and its causes, one per line.
fn format_error(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    out
}

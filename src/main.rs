//! `pms`: parse the command line, run the subcommand, report errors the way a
//! person can act on them.

use std::process::ExitCode;

use clap::Parser;
use pms::cli::{Cli, Command};
use pms::cmd;
use pms::context::Context;

fn main() -> ExitCode {
    // Claude Code runs `pms hook <event> --workspace <dir>` on every prompt:
    // skip building clap's whole command tree for that one shape.
    if let Some(code) = fast_hook() {
        return code;
    }
    restore_sigpipe();
    let cli = Cli::parse();
    sweep_debris(&cli.command);
    let result = match cli.command {
        // Hooks never fail from Claude Code's point of view: they exit 0
        // whatever happens, and log what went wrong.
        Command::Hook(args) => return cmd::hook::run(&args),
        // These work without a workspace, or on a broken one.
        Command::Init(args) => cmd::init::run(&args),
        Command::Uninstall(args) => cmd::uninstall::run(&args),
        Command::Verify(args) => cmd::verify::run(&args),
        Command::Doctor(args) => cmd::doctor::run(&args),
        Command::Upgrade(args) => cmd::upgrade::run(&args),
        Command::Embeddings(args) => cmd::embeddings::run(&args),
        // A typo in config.toml must not take the agent's tools away:
        // wrong keys get their defaults, and the server says so.
        Command::Serve(args) => {
            Context::open_lenient(args.workspace.as_deref()).and_then(cmd::serve::run)
        }
        // The page shows what is wrong in config.toml rather than refusing.
        Command::Ui(args) => {
            Context::open_lenient(args.ws.workspace.as_deref()).and_then(|c| cmd::ui::run(c, &args))
        }
        Command::Completions(args) => cmd::completions::run(&args),
        Command::Man => cmd::completions::man(),
        // The rest get the opened workspace handed down.
        command => with_workspace(command),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pms: {}", format_error(&e));
            ExitCode::FAILURE
        }
    }
}

/// Rust ignores SIGPIPE, so a closed pipe (`pms search x --json | head -1`)
/// makes the next `println!` panic. Commands die quietly instead, as Unix
/// tools do. (Hooks keep ignoring it: their output is optional, their exit
/// status must stay 0.)
fn restore_sigpipe() {
    // SAFETY: setting a signal's disposition to its default before any
    // thread is started has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Before a command that writes: the temp files of earlier runs that were
/// killed mid-write go (`upkeep::sweep`).
fn sweep_debris(command: &Command) {
    if matches!(
        command,
        Command::Serve(_)
            | Command::Completions(_)
            | Command::Man
            | Command::Search(_)
            | Command::Get(_)
    ) {
        return;
    }
    if let Ok(env) = pms::env::HostEnv::from_process() {
        let ws = pms::workspace::Workspace::locate(command.workspace(), &env).ok();
        pms::upkeep::sweep(&env, ws.as_ref());
    }
}

/// Opens the workspace the command names (or the default one) and runs it.
fn with_workspace(command: Command) -> anyhow::Result<ExitCode> {
    let ctx = Context::open(command.workspace())?;
    match command {
        Command::Index(args) => cmd::index::run(&ctx, &args),
        Command::Search(args) => cmd::search::run(&ctx, &args),
        Command::Get(args) => cmd::get::run(&ctx, &args),
        Command::Sync(args) => cmd::sync::run(&ctx, &args),
        Command::Lessons(args) => cmd::lessons::run(&ctx, &args),
        Command::Status(args) => cmd::status::run(&ctx, &args),
        other => unreachable!("{other:?} is dispatched in main"),
    }
}

/// `pms hook <event> [--workspace|-w <dir>] [--agent <name>]` parsed by hand;
/// anything else (including `--help`) goes through clap.
fn fast_hook() -> Option<ExitCode> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().map(|a| a == "hook") != Some(true) {
        return None;
    }
    // `pms hook` alone or asking for help is a person at a terminal: clap.
    let event = args.get(1)?.to_str()?.to_string();
    if event.starts_with('-') {
        return None;
    }
    // From here on an agent is calling, and a hook must exit 0 whatever it
    // is given: Claude Code takes exit 2 from UserPromptSubmit as "block
    // this prompt" and erases it. A flag this version does not know (from
    // a newer pms sharing the settings, say) is passed over.
    let mut workspace = None;
    let mut agent = pms::agent::Agent::Claude;
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().and_then(|v| v.to_str());
        match (flag.to_str(), value) {
            (Some("--workspace" | "-w"), Some(v)) => workspace = Some(std::path::PathBuf::from(v)),
            (Some("--agent"), Some(v)) => {
                agent = pms::agent::Agent::parse(v).unwrap_or(pms::agent::Agent::Claude)
            }
            _ => {}
        }
    }
    pms::hooks::run(&event, workspace.as_deref(), agent);
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

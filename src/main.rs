//! `pms`: parse the command line, run the subcommand, report errors the way a
//! person can act on them. This is the one place that dispatches commands:
//! each arm says what the command needs (no workspace, a workspace opened
//! leniently or strictly) and whether it writes (then the debris of killed
//! runs is swept first).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use pms::front::cli::{Cli, Command, HookArgs, WorkspaceArg};
use pms::front::cmd;
use pms::platform::agents::Agent;
use pms::platform::workspace::context::Context;

fn main() -> ExitCode {
    // The agents run `pms hook <event> --workspace <dir>` on every prompt
    // and every tool call: that one shape skips building clap's whole
    // command tree (about 1 ms), and runs the same `cmd::hook::run`.
    if let Some(args) = hook_args() {
        return cmd::hook::run(&args);
    }
    restore_sigpipe();
    let result = match Cli::parse().command {
        // Hooks never fail from the agent's point of view: they exit 0
        // whatever happens, and log what went wrong.
        Command::Hook(args) => return cmd::hook::run(&args),
        // These work without a workspace, or on a broken one.
        Command::Init(args) => {
            sweep_debris(None);
            cmd::init::run(&args)
        }
        Command::Uninstall(args) => {
            sweep_debris(dir(&args.ws));
            cmd::uninstall::run(&args)
        }
        Command::Verify(args) => {
            sweep_debris(dir(&args.ws));
            cmd::verify::run(&args)
        }
        Command::Doctor(args) => {
            sweep_debris(dir(&args.ws));
            cmd::doctor::run(&args)
        }
        Command::Upgrade(args) => {
            sweep_debris(dir(&args.ws));
            cmd::upgrade::run(&args)
        }
        Command::Embeddings(args) => {
            sweep_debris(dir(&args.ws));
            cmd::embeddings::run(&args)
        }
        // A typo in config.toml must not take the agent's tools away:
        // wrong keys get their defaults, and the server says so.
        Command::Serve(args) => Context::open_lenient(dir(&args)).and_then(cmd::serve::run),
        // The page shows what is wrong in config.toml rather than refusing.
        Command::Ui(args) => {
            sweep_debris(dir(&args.ws));
            Context::open_lenient(dir(&args.ws)).and_then(|c| cmd::ui::run(c, &args))
        }
        Command::Completions(args) => cmd::completions::run(&args),
        Command::Man => cmd::completions::man(),
        // The rest get the opened workspace handed down; searching and
        // reading write nothing, so they leave the sweep to others.
        Command::Search(args) => {
            Context::open(dir(&args.ws)).and_then(|c| cmd::search::run(&c, &args))
        }
        Command::Get(args) => Context::open(dir(&args.ws)).and_then(|c| cmd::get::run(&c, &args)),
        Command::Index(args) => {
            sweep_debris(dir(&args.ws));
            Context::open(dir(&args.ws)).and_then(|c| cmd::index::run(&c, &args))
        }
        Command::Sync(args) => {
            sweep_debris(dir(&args.ws));
            Context::open(dir(&args.ws)).and_then(|c| cmd::sync::run(&c, &args))
        }
        Command::Import(args) => {
            sweep_debris(dir(&args.ws));
            Context::open(dir(&args.ws)).and_then(|c| cmd::import::run(&c, &args))
        }
        Command::Lessons(args) => {
            sweep_debris(dir(&args.ws));
            Context::open(dir(&args.ws)).and_then(|c| cmd::lessons::run(&c, &args))
        }
        Command::Status(args) => {
            sweep_debris(dir(&args.ws));
            Context::open(dir(&args.ws)).and_then(|c| cmd::status::run(&c, &args))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // an error names paths and quotes files: no terminal controls
            let message = format_error(&e);
            eprintln!("pms: {}", pms::platform::redact::controls::strip(&message));
            ExitCode::FAILURE
        }
    }
}

/// The folder `--workspace` names, if any.
fn dir(arg: &WorkspaceArg) -> Option<&Path> {
    arg.workspace.as_deref()
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
fn sweep_debris(workspace: Option<&Path>) {
    if let Ok(env) = pms::platform::host::env::HostEnv::from_process() {
        let ws = pms::platform::workspace::Workspace::locate(workspace, &env).ok();
        pms::app::upkeep::sweep(&env, ws.as_ref());
    }
}

/// `pms hook <event> [--workspace|-w <dir>] [--agent <name>]` read by hand
/// into the arguments clap would give; anything else (including `--help`)
/// goes through clap.
fn hook_args() -> Option<HookArgs> {
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
    // is given. A flag this version does not know (from a newer pms sharing
    // the settings, say) is passed over.
    let mut workspace = None;
    let mut agent = Agent::Claude;
    let mut rest = args[2..].iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().and_then(|v| v.to_str());
        match (flag.to_str(), value) {
            (Some("--workspace" | "-w"), Some(v)) => workspace = Some(PathBuf::from(v)),
            (Some("--agent"), Some(v)) => agent = Agent::parse(v).unwrap_or(Agent::Claude),
            _ => {}
        }
    }
    Some(HookArgs {
        event,
        ws: WorkspaceArg { workspace },
        agent,
    })
}

/// The error and its causes, one per line.
fn format_error(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    out
}

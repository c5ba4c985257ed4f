//! `pms uninstall`: take out exactly what `pms init` put in. The workspace
//! (the user's notes, lessons and summaries) stays unless --purge, which asks.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::app::install;
use crate::front::cli::UninstallArgs;
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;

pub fn run(args: &UninstallArgs) -> Result<ExitCode> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(args.ws.workspace.as_deref(), &env).ok();
    // Asked in a terminal, as --purge is. Without one (a script, an agent)
    // nothing is removed unless --yes says so: a command that edits the
    // user's settings does not take silence for a yes.
    let can_ask = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !args.yes && !can_ask {
        match (&ws, args.purge) {
            (Some(ws), true) => bail!(
                "there is no terminal to ask whether to remove pms's hooks and MCP server and delete {} with everything in it, so nothing changed.\n  Fix: run `pms uninstall --purge --yes` to do both without asking (`pms uninstall --yes` keeps the workspace).",
                env.display(&ws.root)
            ),
            _ => bail!(
                "there is no terminal to ask whether to remove pms's hooks and MCP server, so nothing changed.\n  Fix: run `pms uninstall --yes` to remove them without asking."
            ),
        }
    }
    // What will change, shown before the question as init shows its plan;
    // the question names only the agents pms is wired into.
    let plan = install::uninstall_plan(&env, ws.as_ref());
    if !plan.is_empty() {
        println!("This is what pms will do:");
        for (agent, lines) in &plan {
            for line in lines {
                println!("  {}: {line}", agent.title());
            }
        }
    }
    if !args.yes && !plan.is_empty() {
        let agents: Vec<&str> = plan.iter().map(|(a, _)| a.title()).collect();
        let ok = dialoguer::Confirm::new()
            .with_prompt(format!(
                "Remove pms from {}? Your workspace stays",
                and_list(&agents)
            ))
            .default(true)
            .interact()?;
        if !ok {
            println!("Nothing changed.");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let summary = install::uninstall(&env, ws.as_ref())?;
    for (path, n) in &summary.hooks_removed {
        println!(
            "Removed {} from {}",
            crate::platform::plural::count(*n, "pms hook", "pms hooks"),
            env.display(path)
        );
    }
    if summary.mcp_removed {
        println!("Removed the `pms` MCP server from Claude Code");
    }
    if summary.codex_removed {
        println!("Removed pms's hooks and [mcp_servers.pms] from Codex");
    }
    if summary.openclaw_removed {
        println!("Removed the pms plugin from OpenClaw");
    }
    if summary.hooks_removed.is_empty()
        && !summary.mcp_removed
        && !summary.codex_removed
        && !summary.openclaw_removed
    {
        println!("pms was not wired into Claude Code, Codex or OpenClaw; nothing to remove.");
    }
    let backups = crate::platform::host::durable::backups_made();
    for b in &backups {
        println!("Saved the file as it was before: {}", env.display(b));
        if let Some(oldest) =
            crate::platform::host::durable::oldest_backup_beside(b).filter(|o| o != b)
        {
            println!("  its oldest copy: {}", env.display(&oldest));
        }
    }
    if !backups.is_empty() {
        println!(
            "(pms keeps the oldest and the newest {} such copies of each file, beside it; delete them once you do not need them.)",
            crate::platform::host::durable::BACKUPS_KEPT
        );
    }
    match (&ws, args.purge) {
        (Some(ws), true) => {
            let shown = env.display(&ws.root);
            if !args.yes {
                println!("{shown} holds your profile, lessons, notes and session summaries.");
                let ok = dialoguer::Confirm::new()
                    .with_prompt(format!("Delete {shown} and everything in it?"))
                    .default(false)
                    .interact()?;
                if !ok {
                    println!("Kept {shown}.");
                    return Ok(ExitCode::SUCCESS);
                }
            }
            install::purge(&env, ws)?;
            println!("Deleted {shown}.");
        }
        (Some(ws), false) => println!(
            "Your workspace {} is untouched (pass --purge to delete it).",
            env.display(&ws.root)
        ),
        (None, true) => bail!("no workspace found to purge; pass --workspace <dir>"),
        (None, false) => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// "A", "A and B", "A, B and C".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

//! `pms doctor`: the verify checks, plus the environment, the last hook
//! errors and lock state, a summary with the next step, and (in a terminal)
//! the fixes offered one confirmation away.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;

use crate::app::verify::checks::{self, Options};
use crate::app::verify::doctor::{self, Environment};
use crate::app::verify::{Report, Status, fix};
use crate::front::cli::DoctorArgs;
use crate::platform::host::env::HostEnv;
use crate::platform::plural::count;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;

pub fn run(args: &DoctorArgs) -> Result<ExitCode> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(args.ws.workspace.as_deref(), &env).ok();
    let machine = Environment::gather();
    if args.json {
        return json(&env, ws.as_ref(), &machine);
    }
    println!("Environment");
    println!("  os        {}", machine.os);
    println!("  kernel    {}", machine.kernel);
    println!("  arch      {}", machine.arch);
    println!("  pms       {}", machine.pms);
    println!("  home      {}", env.home.display());
    println!("  claude    {}", env.display(&env.claude_dir));
    println!();
    let found = checks::run_all(&env, ws.as_ref(), Options::default());
    let report = Report::new(
        ws.as_ref().map(|w| w.root.display().to_string()),
        found,
        Vec::new(),
    );
    println!("Checks");
    for line in report.render().lines() {
        if line.is_empty() {
            println!();
        } else {
            println!("  {line}");
        }
    }
    if let Some(ws) = &ws {
        println!("Recent hook errors ({})", env.display(&ws.hook_log()));
        let tail = doctor::recent_hook_errors(ws, 10);
        if tail.is_empty() {
            println!("  none");
        }
        for l in &tail {
            println!("  {l}");
        }
        println!("Locks");
        for (name, held) in doctor::locks(ws) {
            println!(
                "  {name:<13} {}",
                if held {
                    "held by a running pms (an index run or a hook)"
                } else {
                    "free"
                }
            );
        }
    }
    let failing: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.status != Status::Ok)
        .collect();
    println!();
    if failing.is_empty() {
        println!("Everything is in order.");
        return Ok(ExitCode::SUCCESS);
    }
    let fixable = failing.iter().filter(|c| c.fix.is_some()).count();
    println!(
        "{}; {fixable} can be repaired automatically.",
        count(failing.len(), "problem", "problems")
    );
    if fixable > 0 && std::io::stdin().is_terminal() && ws.is_some() {
        let yes = dialoguer::Confirm::new()
            .with_prompt(format!(
                "Repair {} now?",
                count(fixable, "problem", "problems")
            ))
            .default(true)
            .interact()?;
        if yes {
            let ctx = Context::open_lenient(args.ws.workspace.as_deref())?;
            let (found, fixed) = fix::repair(&ctx, Options::default())?;
            for f in fixed {
                println!("  fixed: {f}");
            }
            let after = Report::new(None, found, Vec::new());
            println!("{} left.", count(after.counts.fail, "failure", "failures"));
            return Ok(if after.ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            });
        }
        println!("Nothing changed. `pms verify --fix` makes the same repairs later.");
    } else if fixable > 0 {
        println!("Next: run `pms verify --fix`.");
    } else if failing.iter().any(|c| c.hint.is_some()) {
        println!("Next: follow the \"by hand\" notes above (VERIFY.md explains each check).");
    } else {
        // Every check that can go wrong carries a hint; this line is for
        // one that someday does not, rather than pointing at nothing.
        println!("Next: VERIFY.md explains each check named above and how to fix it.");
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The verify report (schema as in VERIFY.md) with the doctor's facts added.
fn json(env: &HostEnv, ws: Option<&Workspace>, machine: &Environment) -> Result<ExitCode> {
    let report = Report::new(
        ws.map(|w| w.root.display().to_string()),
        checks::run_all(env, ws, Options::default()),
        Vec::new(),
    );
    let mut v = serde_json::to_value(&report)?;
    v["environment"] = serde_json::json!({
        "os": machine.os, "kernel": machine.kernel, "arch": machine.arch,
        "pms": machine.pms, "home": env.home, "claude_dir": env.claude_dir,
    });
    if let Some(ws) = ws {
        v["hook_errors"] = serde_json::json!(doctor::recent_hook_errors(ws, 10));
        v["locks"] = doctor::locks(ws)
            .into_iter()
            .map(|(name, held)| serde_json::json!({"name": name, "held": held}))
            .collect();
    }
    println!("{}", serde_json::to_string_pretty(&v)?);
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

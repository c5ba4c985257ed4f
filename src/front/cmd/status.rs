//! `pms status`: one screen (or one JSON object) with the state of things.

use crate::platform::agents::claude::settings::HOOK_EVENTS;
use std::process::ExitCode;

use anyhow::Result;

use crate::app::verify::status::Snapshot;
use crate::front::cli::StatusArgs;
use crate::platform::agents::Agent;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &StatusArgs) -> Result<ExitCode> {
    let s = Snapshot::gather(ctx);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
        return Ok(ExitCode::SUCCESS);
    }
    let env = &ctx.env;
    println!(
        "Workspace  {} (domains: {})",
        env.display(&s.workspace),
        s.domains.join(", ")
    );
    let claude = s.agents.iter().any(|a| a.agent == Agent::Claude);
    match &s.settings_error {
        _ if !claude => {}
        Some(e) => println!(
            "Hooks      {} {e}",
            console::style("settings unreadable:").red().bold()
        ),
        None => {
            let n = format!("{}/{}", s.hooks, HOOK_EVENTS.len());
            let n = if s.hooks == HOOK_EVENTS.len() {
                console::style(n).green()
            } else {
                console::style(n).red().bold()
            };
            println!("Hooks      {n} in {}", env.display(&s.settings));
        }
    }
    if claude {
        println!(
            "MCP        {}",
            if s.mcp_registered {
                console::style("`pms` registered with Claude Code").green()
            } else {
                console::style("not registered (pms verify --fix)")
                    .red()
                    .bold()
            }
        );
    }
    for a in s.agents.iter().filter(|a| a.agent != Agent::Claude) {
        let line = match a.agent {
            Agent::OpenClaw if a.healthy => {
                console::style("plugin in place, with the `pms` MCP server".to_string()).green()
            }
            Agent::OpenClaw => {
                console::style("plugin missing or out of date (pms verify --fix)".to_string())
                    .red()
                    .bold()
            }
            _ => {
                let mut t = format!(
                    "{}/{} hooks, MCP {}",
                    a.hooks,
                    HOOK_EVENTS.len(),
                    if a.mcp_registered {
                        "registered"
                    } else {
                        "not registered"
                    }
                );
                if let Some(n) = a.untrusted.filter(|n| *n > 0) {
                    t.push_str(&format!(
                        "; {} not trusted yet (codex, /hooks)",
                        crate::platform::plural::count(n, "hook", "hooks")
                    ));
                }
                if a.healthy {
                    console::style(t).green()
                } else {
                    console::style(t).yellow()
                }
            }
        };
        println!("{:<10} {line}", a.agent.title());
    }
    let ix = &s.index;
    if let Some(e) = &ix.unreadable {
        println!(
            "Index      {} {}",
            console::style("unreadable:").red().bold(),
            e.lines().next().unwrap_or_default()
        );
    } else {
        println!(
            "Index      {} chunks from {} files, {:.1} MB, last run {}",
            ix.chunks,
            ix.files,
            ix.bytes as f64 / 1e6,
            ix.last_index
                .as_deref()
                .map(ago)
                .unwrap_or_else(|| "never (pms index)".into())
        );
    }
    println!(
        "Search     {}{}",
        s.search,
        if s.semantic {
            format!("; {} of {} chunks have vectors", ix.vectors, ix.chunks)
        } else {
            String::new()
        }
    );
    println!(
        "Sessions   {} summaries{}",
        s.sessions.summaries,
        s.sessions
            .last
            .as_ref()
            .map(|l| format!(", newest {l}"))
            .unwrap_or_default()
    );
    let waiting = s.lessons.pending;
    println!(
        "Lessons    {} in force, {waiting} waiting for your yes{}",
        s.lessons.in_force,
        if waiting > 0 {
            " (pms lessons review)"
        } else {
            ""
        }
    );
    for i in &s.imports {
        println!("{:<10} {}", "Import", super::import::describe(env, i));
    }
    if let Some(first) = s.debris.files.first() {
        println!(
            "Debris     {} {}, {:.1} MB, left by interrupted runs and not removable, e.g. {} (pms verify says more)",
            console::style("warning:").yellow(),
            crate::platform::plural::count(s.debris.files.len(), "file", "files"),
            s.debris.bytes as f64 / 1e6,
            env.display(first)
        );
    }
    // An unreadable settings file means the memory is not loading: say so
    // in the exit status too.
    Ok(if s.settings_error.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn ago(rfc3339: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => {
            let mins = (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_minutes();
            match mins {
                m if m < 1 => "just now".into(),
                m if m < 60 => format!("{m} min ago"),
                m if m < 48 * 60 => format!("{} h ago", m / 60),
                m => format!("{} days ago", m / 1440),
            }
        }
        Err(_) => rfc3339.to_string(),
    }
}

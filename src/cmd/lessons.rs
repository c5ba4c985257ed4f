//! `pms lessons`: the user's side of the experience → rule pipeline.
//! Learnings the hooks staged wait here for a yes; accepted ones become
//! rules in `_me/lessons.md` or a domain's CLAUDE.md.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dialoguer::theme::ColorfulTheme;
use dialoguer::{Input, Select};

use crate::cli::{LessonsAction, LessonsArgs};
use crate::context::Context;
use crate::lessons::accept::{self, Accepted};
use crate::lessons::pending::{self, PendingItem};
use crate::lessons::store::{self, Promoted, Target};
use crate::lessons::{self as lessons, Rule};
use crate::workspace::Workspace;

pub fn run(ctx: &Context, args: &LessonsArgs) -> Result<ExitCode> {
    let ws = &ctx.ws;
    match &args.action {
        None => list(ws, args.json),
        Some(LessonsAction::Review) => review(ws),
        Some(LessonsAction::Accept {
            id,
            to,
            text,
            merge,
            force,
        }) => {
            match accept::accept_with(ws, id, text.as_deref(), to.as_deref(), *merge, *force)? {
                Accepted::Promoted(r) => println!("Added {} to {}: {}", r.id, r.file, r.text),
                Accepted::Merged(r) => println!("Merged into {} in {}: {}", r.id, r.file, r.text),
                Accepted::Duplicate { existing, .. } => {
                    println!(
                        "{id} says nearly the same as {} ({}): {}\nNothing changed. Pass --merge to replace that rule's wording with this one, --force to keep both, or `pms lessons reject {id}`.",
                        existing.id, existing.file, existing.text
                    );
                    return Ok(ExitCode::FAILURE);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Reject { id }) => {
            let item = accept::reject(ws, id)?;
            println!("Rejected {}: {}", item.id, item.text);
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Add {
            text,
            domain,
            force,
        }) => {
            let target = Target::parse(ws, domain.as_deref())?;
            match store::promote_with(ws, text, &target, None, *force)? {
                Promoted::Added(r) => {
                    println!("Added {} to {}: {}", r.id, r.file, r.text);
                    Ok(ExitCode::SUCCESS)
                }
                Promoted::Duplicate(r) => {
                    println!(
                        "Nearly the same rule is already in force: {} ({}): {}\nNothing changed (pass --force to add it anyway).",
                        r.id, r.file, r.text
                    );
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        Some(LessonsAction::Retire { id }) => {
            let r = store::retire(ws, id)?;
            println!(
                "Retired {} (moved to the archive in _me/lessons.md): {}",
                r.id, r.text
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn list(ws: &Workspace, json: bool) -> Result<ExitCode> {
    let waiting = pending::load(ws)?.items;
    let rules = lessons::all_rules(ws);
    if json {
        let rules: Vec<_> = rules
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "text": r.text, "file": r.file, "scope": r.scope, "date": r.date, "source": r.source_ref}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"pending": waiting, "rules": rules}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if waiting.is_empty() {
        println!("No learnings waiting for confirmation.");
    } else {
        println!("Waiting for your yes ({}):", waiting.len());
        for i in &waiting {
            let home = i.domain.as_deref().unwrap_or("me");
            println!("  {}  [{} → {home}] {}", i.id, i.kind, i.text);
        }
        println!(
            "  Review them with `pms lessons review`, or `pms lessons accept <id> [--text ...] [--to <domain>]`."
        );
    }
    println!();
    if rules.is_empty() {
        println!("No lessons in force yet.");
    } else {
        println!("Lessons in force ({}):", rules.len());
        for r in &rules {
            println!("  {}  ({}) {}", r.id, r.file, r.text);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn review(ws: &Workspace) -> Result<ExitCode> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        bail!(
            "`pms lessons review` asks in a terminal.\n  Fix: run it in one, or use `pms lessons accept <id>` / `reject <id>`."
        );
    }
    let waiting = pending::load(ws)?.items;
    if waiting.is_empty() {
        println!("No learnings waiting for confirmation.");
        return Ok(ExitCode::SUCCESS);
    }
    let theme = ColorfulTheme::default();
    let total = waiting.len();
    for (n, item) in waiting.iter().enumerate() {
        println!(
            "\n[{}/{total}] {} ({}){}",
            n + 1,
            item.id,
            item.kind,
            source(item)
        );
        println!("  {}", item.text);
        let choice = Select::with_theme(&theme)
            .with_prompt("What should happen to it?")
            .items([
                "Accept as a rule",
                "Edit the wording, then accept",
                "Reject",
                "Skip for now",
                "Stop reviewing",
            ])
            .default(0)
            .interact()?;
        let wording = match choice {
            0 => accept::suggested_wording(&item.text),
            1 => Input::with_theme(&theme)
                .with_prompt("The rule (what to do, when, and why)")
                .with_initial_text(accept::suggested_wording(&item.text))
                .interact_text()?,
            2 => {
                accept::reject(ws, &item.id)?;
                println!("  Rejected.");
                continue;
            }
            3 => continue,
            _ => break,
        };
        let target = pick_target(ws, &theme, item)?;
        match accept::accept(ws, &item.id, Some(&wording), Some(&target), false)? {
            Accepted::Promoted(r) | Accepted::Merged(r) => {
                println!("  Added {} to {}.", r.id, r.file)
            }
            Accepted::Duplicate { existing, .. } => {
                merge_or_keep(ws, &theme, item, &wording, &target, &existing)?
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn source(item: &PendingItem) -> String {
    item.transcript_ref
        .as_deref()
        .map(|r| format!(", from {r}"))
        .unwrap_or_default()
}

fn pick_target(ws: &Workspace, theme: &ColorfulTheme, item: &PendingItem) -> Result<String> {
    let mut options = vec!["me".to_string()];
    options.extend(ws.installed_domains());
    let labels: Vec<String> = options
        .iter()
        .map(|o| {
            if o == "me" {
                "_me/lessons.md (all work)".to_string()
            } else {
                format!("{o}/CLAUDE.md")
            }
        })
        .collect();
    let default = item
        .domain
        .as_ref()
        .and_then(|d| options.iter().position(|o| o == d))
        .unwrap_or(0);
    let i = Select::with_theme(theme)
        .with_prompt("Where does it belong?")
        .items(&labels)
        .default(default)
        .interact()?;
    Ok(options[i].clone())
}

fn merge_or_keep(
    ws: &Workspace,
    theme: &ColorfulTheme,
    item: &PendingItem,
    wording: &str,
    target: &str,
    existing: &Rule,
) -> Result<()> {
    println!(
        "  A rule in force says nearly the same: {} ({}): {}",
        existing.id, existing.file, existing.text
    );
    let i = Select::with_theme(theme)
        .with_prompt("Merge?")
        .items([
            "Merge: replace that rule's wording with this one",
            "Keep both: they say different things",
            "Keep the existing rule, drop this learning",
            "Skip for now",
        ])
        .default(0)
        .interact()?;
    match i {
        0 => {
            let outcome = accept::accept(ws, &item.id, Some(wording), Some(target), true)?;
            if let Accepted::Merged(r) | Accepted::Promoted(r) = outcome {
                println!("  Merged into {}.", r.id);
            }
        }
        1 => {
            if let Accepted::Promoted(r) =
                accept::accept_with(ws, &item.id, Some(wording), Some(target), false, true)?
            {
                println!("  Added {} to {}.", r.id, r.file);
            }
        }
        2 => {
            accept::reject(ws, &item.id)?;
            println!("  Kept {}.", existing.id);
        }
        _ => {}
    }
    Ok(())
}

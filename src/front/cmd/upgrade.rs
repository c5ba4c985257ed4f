//! `pms upgrade [--check] [--yes] [--workspace-only]`.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::app::upgrade;
use crate::front::cli::UpgradeArgs;
use crate::platform::workspace::context::Context;

pub fn run(args: &UpgradeArgs) -> Result<ExitCode> {
    if args.workspace_only {
        return refresh(args);
    }
    let latest = upgrade::latest()?;
    println!(
        "pms {} installed; newest release {}.",
        env!("CARGO_PKG_VERSION"),
        latest.version
    );
    if args.check {
        println!(
            "{}",
            if latest.newer {
                "An upgrade is available: `pms upgrade`."
            } else {
                "Up to date."
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    if latest.newer {
        if !args.yes {
            if !std::io::stdin().is_terminal() {
                bail!("replacing the binary needs a yes: run `pms upgrade --yes`");
            }
            let ok = dialoguer::Confirm::new()
                .with_prompt(format!(
                    "Replace pms {} with {}?",
                    env!("CARGO_PKG_VERSION"),
                    latest.version
                ))
                .default(true)
                .interact()?;
            if !ok {
                println!("Nothing changed.");
                return Ok(ExitCode::SUCCESS);
            }
        }
        // Once replaced, this process's own path names a deleted file: take it first.
        let exe = crate::platform::host::env::current_binary()?;
        let v = upgrade::replace_binary(std::io::stderr().is_terminal())?;
        println!("Installed pms {v}.");
        let refreshed = upgrade::refresh_with(&exe, args.ws.workspace.as_deref())?;
        return Ok(if refreshed {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    refresh(args)
}

fn refresh(args: &UpgradeArgs) -> Result<ExitCode> {
    let ctx = Context::open_lenient(args.ws.workspace.as_deref())?;
    let r = upgrade::refresh_workspace(&ctx)?;
    let show = |label: &str, items: &[String]| {
        if !items.is_empty() {
            println!("  {label}: {}", items.join(", "));
        }
    };
    println!(
        "Workspace {} brought in step with pms {}:",
        ctx.env.display(&ctx.ws.root),
        env!("CARGO_PKG_VERSION")
    );
    show("replaced (unchanged since installed)", &r.replaced);
    show("restored (were missing)", &r.restored);
    show(
        "kept (you edited them; the new version is beside each as .pms-new)",
        &r.kept,
    );
    show(
        "left as they are (unreadable; the new version is beside each as .pms-new)",
        &r.unreadable,
    );
    show("config.toml gained", &r.config_keys);
    if let Some(b) = r.block {
        println!("  root CLAUDE.md pms block: {b}");
    }
    if let Some((a, b)) = r.index_migrated {
        println!("  index migrated from schema {a} to {b} (backup beside it)");
    }
    if r.rewired {
        println!("  hooks and MCP registration now point at this binary");
    }
    match &r.embedding_model {
        Some(upgrade::EmbeddingDefault::Adopted) => println!(
            "  config.toml: embeddings.model is now {}, the new default (the multilingual model it named was never installed; set it back for languages other than English). `pms embeddings install` downloads it",
            crate::platform::workspace::config::DEFAULT_MODEL
        ),
        Some(upgrade::EmbeddingDefault::NotWritten(e)) => println!(
            "  config.toml: embeddings.model was left as it is ({e}); the next `pms upgrade` tries again"
        ),
        Some(upgrade::EmbeddingDefault::Settled | upgrade::EmbeddingDefault::RetryLater) | None => {
        }
    }
    show(
        "still to merge by hand (from an earlier upgrade, .pms-new beside each)",
        &r.awaiting_review,
    );
    let unchanged = upgrade::Refreshed {
        awaiting_review: r.awaiting_review.clone(),
        ..Default::default()
    };
    if r == unchanged {
        println!("  nothing to change");
    }
    println!("Your notes, lessons, projects and sessions were not touched.");
    Ok(ExitCode::SUCCESS)
}

//! `pms import [<source> [PATH]]`: another tool's memory brought in, with
//! bars while it reads, a report after, and, in a terminal, a question for
//! each addition to `_me/` the import proposes. Without a source: what is
//! on this machine to import. `pms init` runs the same import through
//! [`import_found`].

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, anyhow};

use crate::app::import::identity::{self, Status};
use crate::app::import::ledger::Decision;
use crate::app::import::{self, Mode, Report, Request, SourceState};
use crate::front::cli::{IdentityArg, ImportArgs};
use crate::platform::host::env::HostEnv;
use crate::platform::imports::Kind;
use crate::platform::progress::{Progress, Quiet};
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &ImportArgs) -> Result<ExitCode> {
    let Some(kind) = args.source else {
        return list(ctx, args.json);
    };
    let path = match &args.path {
        Some(p) => std::path::absolute(ctx.env.expand_tilde(&p.to_string_lossy()))?,
        None => {
            import::default_path(ctx, kind).ok_or_else(|| anyhow!(not_found(&ctx.env, kind)))?
        }
    };
    let mode = if args.dry_run {
        Mode::DryRun
    } else {
        Mode::Import
    };
    let can_ask = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let bars = super::index::Bars::default();
    let progress: &dyn Progress = if args.json || !std::io::stderr().is_terminal() {
        &Quiet
    } else {
        &bars
    };
    let mut report = import::run(ctx, &Request { kind, path, mode }, progress)?;
    if mode == Mode::Import {
        let settle = match args.identity {
            IdentityArg::Add => Settle::AddAll,
            IdentityArg::Skip => Settle::LeaveProposed,
            IdentityArg::Ask if can_ask && !args.json => Settle::AskEach,
            // no one to ask: listed in the report, written only with a yes
            IdentityArg::Ask => Settle::LeaveProposed,
        };
        settle_identity(ctx, &mut report, settle)?;
    }
    if args.json {
        super::print_json(&report)?;
    } else {
        print_report(&ctx.env, &report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Where to get `kind`'s memory when it is not where the tool keeps it.
fn not_found(env: &HostEnv, kind: Kind) -> String {
    let downloads = env.display(&env.home.join("Downloads"));
    match kind {
        Kind::ChatGpt => format!(
            "no ChatGPT export found in {downloads}.\n  Fix: export your data (ChatGPT: Settings → Data controls → Export data), then run `pms import chatgpt <the .zip>`"
        ),
        Kind::ClaudeAi => format!(
            "no Claude.ai export found in {downloads}.\n  Fix: export your data (Claude: Settings → Privacy → Export data), then run `pms import claude <the .zip>`"
        ),
        Kind::ClaudeMem => "no claude-mem database at ~/.claude-mem/claude-mem.db (or in $CLAUDE_MEM_DATA_DIR).\n  Fix: give its path: `pms import claude-mem <path to claude-mem.db>`".into(),
        Kind::ClaudeMemLite => "no claude-mem-lite database at ~/.claude-mem-lite/claude-mem-lite.db (or in $CLAUDE_MEM_DIR).\n  Fix: give its path: `pms import claude-mem-lite <path to claude-mem-lite.db>`".into(),
        Kind::BasicMemory => "no basic-memory config (~/.basic-memory/config.json) or notes (~/basic-memory) found.\n  Fix: give its config.json or a project's folder: `pms import basic-memory <path>`".into(),
        Kind::McpMemory => "no MCP memory server file (memory.jsonl) found ($MEMORY_FILE_PATH, ~/.claude.json, npx's cache).\n  Fix: give its path: `pms import mcp-memory <path to memory.jsonl>`".into(),
    }
}

/// What becomes of the additions to `_me/` an import proposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle {
    /// Each shown and asked about (in a terminal).
    AskEach,
    /// The user's yes, given ahead (`--identity add`).
    AddAll,
    /// Left proposed: listed in the report, nothing written.
    LeaveProposed,
}

/// Asks about, adds, or leaves each addition to `_me/` the import proposes.
pub fn settle_identity(ctx: &Context, report: &mut Report, settle: Settle) -> Result<()> {
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let source = report.source;
    for p in report
        .identity
        .iter_mut()
        .filter(|p| p.status == Status::Proposed)
    {
        let decision = match settle {
            Settle::AddAll => Decision::Added,
            Settle::LeaveProposed => continue,
            Settle::AskEach => {
                eprintln!();
                eprintln_stripped!(
                    "{} ({} characters) could go into {}:",
                    p.heading,
                    p.text.chars().count(),
                    p.file
                );
                for line in shown(&p.text).lines() {
                    eprintln_stripped!("  │ {line}");
                }
                if p.text.len() > 2_000 {
                    eprintln!(
                        "  ({} is read at the start of every session: a long addition takes room from the rest; you can shorten it after)",
                        p.file
                    );
                }
                let yes = dialoguer::Confirm::new()
                    .with_prompt(format!("Add it to {}?", p.file))
                    .default(true)
                    .interact()?;
                if yes {
                    Decision::Added
                } else {
                    Decision::Declined
                }
            }
        };
        identity::decide(&ctx.ws, source, p, decision, &today)?;
    }
    Ok(())
}

/// At most 40 lines of `text`, for the question.
fn shown(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 40 {
        return text.to_string();
    }
    format!(
        "{}\n… ({} more lines)",
        lines[..40].join("\n"),
        lines.len() - 40
    )
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn counts(c: &import::Counts) -> String {
    format!(
        "{} new, {} changed, {} unchanged",
        c.new, c.changed, c.unchanged
    )
}

pub fn print_report(env: &HostEnv, r: &Report) {
    let head = if r.dry_run {
        "Would import"
    } else {
        "Imported"
    };
    super::print_fitted(&format!(
        "{head} from the {} at {} ({:.1} MB in {:.1} s):",
        r.source.title(),
        env.display(&r.path),
        r.bytes as f64 / 1e6,
        r.elapsed_ms as f64 / 1e3
    ));
    if r.conversations.total() > 0 {
        super::print_fitted(&format!(
            "  Conversations  {} ({}://<id>, searchable like your agents' own)",
            counts(&r.conversations),
            r.source.id()
        ));
    }
    if r.notes.total() > 0 || !r.kept_edited.is_empty() {
        super::print_fitted(&format!(
            "  Notes          {} (in imported/{}/ in your workspace)",
            counts(&r.notes),
            r.source.id()
        ));
    }
    if !r.found.is_empty() {
        let what: Vec<String> = r.found.iter().map(|(k, n)| format!("{n} {k}")).collect();
        super::print_fitted(&format!("  Found          {}", what.join(", ")));
    }
    if !r.skipped.is_empty() {
        let what: Vec<String> = r
            .skipped
            .iter()
            .map(|(k, n)| format!("{n} × {k}"))
            .collect();
        super::print_fitted(&format!("  Left out       {}", what.join("; ")));
    }
    if !r.kept_edited.is_empty() {
        super::print_fitted(&format!(
            "  Kept           {} you edited since they were imported (delete one to have it imported again): {}",
            plural(r.kept_edited.len() as u64, "note", "notes"),
            r.kept_edited.join(", ")
        ));
    }
    if r.learnings > 0 {
        super::print_fitted(&format!(
            "  Learnings      {} {} for your yes (pms lessons review)",
            plural(
                r.learnings as u64,
                "rule or correction",
                "rules or corrections"
            ),
            if r.dry_run {
                "would be staged"
            } else {
                "staged"
            }
        ));
    }
    for p in &r.identity {
        let line = match p.status {
            Status::Added => format!("added to {}", p.file),
            Status::AlreadyThere => format!("already in {}", p.file),
            Status::Declined => format!("not added to {} (you said no)", p.file),
            Status::Proposed if r.dry_run => format!("would be proposed for {}", p.file),
            Status::Proposed => format!(
                "proposed for {}, not added: run the import again in a terminal to answer, or with --identity add",
                p.file
            ),
        };
        super::print_fitted(&format!("  About you      \"{}\" {line}", p.heading));
    }
    if r.dry_run {
        for s in &r.sample {
            super::print_fitted(&format!(
                "  e.g.           {}{} → {}",
                s.date
                    .as_deref()
                    .map(|d| format!("{d} "))
                    .unwrap_or_default(),
                s.title,
                s.to
            ));
        }
        println!("Dry run: nothing was written.");
        return;
    }
    match (&r.indexed_chunks, &r.index_error) {
        (Some(n), _) => super::print_fitted(&format!(
            "  Index          {} added: searchable now (pms search, memory_search)",
            crate::platform::plural::count(*n, "chunk", "chunks")
        )),
        (None, Some(e)) => super::print_fitted(&format!(
            "  Index          not updated ({e}); run `pms index` to make the imported text searchable"
        )),
        (None, None) => {}
    }
}

/// `pms import` alone: what is on this machine, and what was imported.
fn list(ctx: &Context, json: bool) -> Result<ExitCode> {
    let states = import::overview(ctx);
    if json {
        super::print_json(&states)?;
        return Ok(ExitCode::SUCCESS);
    }
    if states.is_empty() {
        println!("No other tool's memory found on this machine.");
    }
    for s in &states {
        println!("{}", describe(&ctx.env, s));
    }
    println!(
        "Sources: chatgpt, claude, claude-mem, claude-mem-lite, basic-memory, mcp-memory (`pms import <source> [PATH] --dry-run` shows what would come)."
    );
    Ok(ExitCode::SUCCESS)
}

/// One line about a source, for `pms import`, `pms init` and `pms status`.
pub fn describe(env: &HostEnv, s: &SourceState) -> String {
    let mut parts = Vec::new();
    if let Some(last) = &s.last {
        parts.push(format!(
            "imported {} ({} conversations, {} notes) from {}",
            last.at.get(..10).unwrap_or(&last.at),
            last.conversations,
            last.notes,
            env.display(&last.path)
        ));
    }
    if let Some(f) = s.found.as_ref().filter(|_| s.waiting()) {
        let size = if f.bytes > 0 {
            format!(", {:.1} MB", f.bytes as f64 / 1e6)
        } else {
            String::new()
        };
        parts.push(format!(
            "found at {}{size}: pms import {} {}",
            env.display(&f.path),
            s.source.command_name(),
            shell_word(&env.display(&f.path))
        ));
    }
    format!("{:<18} {}", s.source.title(), parts.join("; "))
}

fn shell_word(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-~".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `pms init`'s import of what it found: each source in turn, with bars,
/// the report, and `settle` for what it proposes for `_me/`.
pub fn import_found(ctx: &Context, found: &[(Kind, PathBuf)], settle: Settle) -> Result<()> {
    let bars = super::index::Bars::default();
    for (kind, path) in found {
        let req = Request {
            kind: *kind,
            path: path.clone(),
            mode: Mode::Import,
        };
        match import::run(ctx, &req, &bars) {
            Ok(mut report) => {
                settle_identity(ctx, &mut report, settle)?;
                print_report(&ctx.env, &report);
            }
            // One source that cannot be read does not stop the setup.
            Err(e) => eprintln_stripped!("  {}: not imported: {e:#}", kind.title()),
        }
    }
    Ok(())
}

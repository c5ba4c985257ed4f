//! `pms verify --fix`: repair what the checks found, then check again.
//!
//! A missing user file is created from its template only when absent (an
//! existing one is never overwritten); missing system files are restored;
//! hooks and the MCP registration are re-merged with the same non-destructive
//! code init uses; the index, being derived data, is rebuilt.

use std::collections::BTreeSet;

use anyhow::{Context as _, Result};

use super::{Check, Fix};
use crate::app::upkeep::{self, IndexLock, ModelDownload};
use crate::platform::agents::wiring;
use crate::platform::progress::Quiet;
use crate::platform::workspace::context::Context;
use crate::platform::workspace::scaffold::{self, Answers, FileAction, FileClass};
use crate::platform::workspace::{Workspace, config, markers, templates};

/// Checks, repairs, and checks again until nothing repairable is left or a
/// round changes nothing (at most three rounds): a repair can cause another
/// (restored files make the index stale), and `--fix` must not need a second
/// run. Returns the last checks and what was done.
pub fn repair(ctx: &Context, opts: super::checks::Options) -> Result<(Vec<Check>, Vec<String>)> {
    let run = || super::checks::run_all(&ctx.env, Some(&ctx.ws), opts);
    let mut found = run();
    let mut done = Vec::new();
    let mut tried: BTreeSet<Fix> = BTreeSet::new();
    for _ in 0..3 {
        let wanted: BTreeSet<Fix> = found
            .iter()
            .filter(|c| c.status != super::Status::Ok)
            .filter_map(|c| c.fix)
            .collect();
        if wanted.is_empty() || wanted.is_subset(&tried) {
            break;
        }
        done.extend(apply(ctx, &found)?);
        tried.extend(wanted);
        found = run();
    }
    Ok((found, done))
}

/// Applies the fixes the checks asked for; returns what was done.
pub fn apply(ctx: &Context, checks: &[Check]) -> Result<Vec<String>> {
    let wanted: BTreeSet<Fix> = checks.iter().filter_map(|c| c.fix).collect();
    let has = |f: Fix| wanted.contains(&f);
    let mut done = Vec::new();
    let binary = crate::platform::host::env::current_binary()?;
    let ws = &ctx.ws;
    if has(Fix::RestoreFiles) {
        let n = restore_files(ws)?;
        done.push(format!(
            "restored {} from the templates",
            crate::platform::plural::count(n, "missing file", "missing files")
        ));
    }
    if has(Fix::RefreshBlock) {
        refresh_block(ws)?;
        done.push("wrote the pms block of the root CLAUDE.md".into());
    }
    if has(Fix::AddConfigKeys) {
        let added = config::add_config_keys(ws, config::WhenAbsent::Create)?;
        done.push(format!("config.toml: added {}", added.join(", ")));
    }
    if has(Fix::MergeHooks) || has(Fix::RegisterMcp) {
        // One rewiring for both, of every agent the install record names:
        // hooks (and a copy in the other scope removed, which would make
        // each hook run twice), MCP servers, Codex's hooks, OpenClaw's plugin.
        let w = wiring::rewire(ctx, &binary)?;
        if has(Fix::MergeHooks) {
            let mut wired = Vec::new();
            if let Some(c) = &w.claude {
                wired.push(ctx.env.display(&c.settings_path));
            }
            if let Some(c) = &w.codex {
                wired.push(ctx.env.display(&c.hooks_path));
            }
            if let Some(o) = &w.openclaw {
                wired.push(format!(
                    "the OpenClaw plugin ({})",
                    ctx.env.display(&o.plugin_dir)
                ));
            }
            done.push(format!("merged the hooks into {}", wired.join(", ")));
        }
        if has(Fix::RegisterMcp) {
            done.push("registered the `pms` MCP server".into());
        }
    }
    if has(Fix::RebuildIndex) || has(Fix::Reindex) {
        let lock = IndexLock::wait(ws)?;
        if has(Fix::RebuildIndex) {
            upkeep::rebuild(ctx, &lock, &Quiet, ModelDownload::Never)?;
            done.push("rebuilt the search index".into());
        } else {
            upkeep::index_now(ctx, &lock, &Quiet, ModelDownload::Never)?;
            done.push("updated the search index".into());
        }
    }
    if has(Fix::RefreshLessons) && !has(Fix::Reindex) && !has(Fix::RebuildIndex) {
        crate::memory::lessons::index_file::refresh_index(ws);
        done.push("rebuilt the lessons index".into());
    }
    Ok(done)
}

/// The wizard's answers, recovered from the profile as well as they can be.
fn answers_from_workspace(ws: &Workspace) -> Answers {
    let field = |name: &str| ws.profile_field(name);
    Answers {
        name: field("Name").unwrap_or_else(|| "the user".into()),
        role: field("Role").unwrap_or_default(),
        domains: ws.installed_domains(),
        languages: field("Answers in")
            .map(|l| vec![l])
            .unwrap_or_else(|| vec!["English".into()]),
        tone: "Direct and concise".into(),
    }
}

/// Creates files that are missing; never touches an existing one.
fn restore_files(ws: &Workspace) -> Result<usize> {
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let plan = scaffold::plan(ws, &answers_from_workspace(ws), &today)?;
    let mut manifest = crate::platform::workspace::manifest::Manifest::load(&ws.manifest_path())?;
    let mut n = 0;
    for f in plan
        .files
        .iter()
        .filter(|f| f.action == FileAction::Create && f.rel != "CLAUDE.md")
    {
        let p = ws.root.join(&f.rel);
        crate::platform::host::durable::write_atomic(&p, f.content.as_bytes())?;
        if f.class == FileClass::System {
            manifest.record(&f.rel, &f.content);
        }
        n += 1;
    }
    manifest.save(&ws.manifest_path())?;
    for d in &plan.dirs {
        std::fs::create_dir_all(ws.root.join(d))?;
    }
    Ok(n)
}

fn refresh_block(ws: &Workspace) -> Result<()> {
    let a = answers_from_workspace(ws);
    let vars = templates::Vars {
        name: a.name.clone(),
        role: a.role.clone(),
        ..templates::Vars::default()
    };
    let inner = scaffold::root_block_inner(&vars, &ws.installed_domains());
    let path = ws.claude_md();
    let text = crate::platform::host::durable::read_existing_text(&path)
        .with_context(|| path.display().to_string())?
        .unwrap_or_default();
    let new = markers::replace_inner(&text, markers::ROOT_BLOCK, &inner)
        .unwrap_or_else(|| markers::append_block(&text, markers::ROOT_BLOCK, &inner));
    crate::platform::host::durable::write_atomic(&path, new.as_bytes())?;
    let mut m = crate::platform::workspace::manifest::Manifest::load(&ws.manifest_path())?;
    m.record("CLAUDE.md#pms-block", &inner);
    m.save(&ws.manifest_path())?;
    Ok(())
}

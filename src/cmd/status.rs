//! `pms status`: one screen (or one JSON object) with the state of things.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::claude::json_file::JsonFile;
use crate::claude::{mcp_registration as mcp, settings};
use crate::cli::StatusArgs;
use crate::context::Context;
use crate::index::{db, stats};
use crate::lessons::{self, pending};
use crate::wiring::{self, InstallRecord};

pub fn run(args: &StatusArgs) -> Result<ExitCode> {
    let ctx = Context::open(args.ws.workspace.as_deref())?;
    let (env, ws) = (&ctx.env, &ctx.ws);
    let record = InstallRecord::load(ws);
    let settings_path = wiring::settings_path(env, ws);
    let hooks = JsonFile::load(&settings_path)
        .map(|f| settings::installed_handlers(&f.doc).len())
        .unwrap_or(0);
    let mcp_ok = mcp::read_entry(&env.claude_json).ok().flatten().is_some();
    let (counts, last_index) = match db::open_ro(&ws.db_path()) {
        Ok(c) => (
            stats::counts(&c).unwrap_or_default(),
            db::get_meta(&c, "last_index"),
        ),
        Err(_) => (stats::Counts::default(), None),
    };
    let stats::Counts {
        files,
        chunks,
        vectors,
    } = counts;
    let semantic = crate::embed::Plan::resolve(&ctx.cfg.embeddings, env);
    let db_bytes = std::fs::metadata(ws.db_path())
        .map(|m| m.len())
        .unwrap_or(0);
    let waiting = pending::load(ws).map(|p| p.items.len()).unwrap_or(0);
    let rules = lessons::all_rules(ws).len();
    let mut summaries: Vec<String> = std::fs::read_dir(ws.sessions_dir())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    summaries.sort();
    if args.json {
        let v = json!({
            "workspace": ws.root,
            "domains": ws.installed_domains(),
            "scope": record.as_ref().map(|r| r.scope),
            "settings": settings_path,
            "hooks": hooks,
            "mcp_registered": mcp_ok,
            "index": {"files": files, "chunks": chunks, "vectors": vectors, "bytes": db_bytes, "last_index": last_index},
            "search": semantic.describe(env),
            "sessions": {"summaries": summaries.len(), "last": summaries.last()},
            "lessons": {"in_force": rules, "pending": waiting},
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Workspace  {} (domains: {})",
        env.display(&ws.root),
        ws.installed_domains().join(", ")
    );
    println!("Hooks      {hooks}/5 in {}", env.display(&settings_path));
    println!(
        "MCP        {}",
        if mcp_ok {
            "`pms` registered with Claude Code"
        } else {
            "not registered (pms verify --fix)"
        }
    );
    println!(
        "Index      {chunks} chunks from {files} files, {:.1} MB, last run {}",
        db_bytes as f64 / 1e6,
        last_index
            .as_deref()
            .map(ago)
            .unwrap_or_else(|| "never (pms index)".into())
    );
    println!(
        "Search     {}{}",
        semantic.describe(env),
        if matches!(semantic, crate::embed::Plan::Off(_)) {
            String::new()
        } else {
            format!("; {vectors} of {chunks} chunks have vectors")
        }
    );
    println!(
        "Sessions   {} summaries{}",
        summaries.len(),
        summaries
            .last()
            .map(|s| format!(", newest {s}"))
            .unwrap_or_default()
    );
    println!(
        "Lessons    {rules} in force, {waiting} waiting for your yes{}",
        if waiting > 0 {
            " (pms lessons review)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
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

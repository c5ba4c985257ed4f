//! `pms search`: ranked hits for a person (or JSON for scripts).

use std::process::ExitCode;

use anyhow::Result;

use crate::front::cli::SearchArgs;
use crate::memory::embed::Plan;
use crate::memory::index::db;
use crate::memory::search::Request;
use crate::memory::search::hybrid::Semantic;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &SearchArgs) -> Result<ExitCode> {
    let params = Request {
        query: &args.query,
        limit: args.limit,
        sources: args.source.iter().map(String::as_str).collect(),
        project: args.project.as_deref(),
        since: args.since.as_deref(),
        until: args.until.as_deref(),
        group: args.group.as_deref(),
    }
    .parse(&ctx.cfg.search, usize::MAX)?;
    let db_path = ctx.ws.db_path();
    let conn = db::open_ro(&db_path)?;
    let plan = if args.keyword {
        Plan::Off("--keyword".into())
    } else {
        Plan::resolve(&ctx.cfg.embeddings, &ctx.env)
    };
    let loaded = plan.load();
    let semantic = Semantic::from_loaded(&loaded, ctx.cfg.embeddings.vector_weight, None);
    let crate::memory::search::Checked {
        outcome: out,
        warning,
    } = crate::memory::search::search(&conn, &db_path, &ctx.cfg.search, &params, &semantic)?;
    if args.json {
        let mut v = serde_json::to_value(&out)?;
        if let Some(w) = &warning {
            v["warning"] = w.as_str().into();
        }
        super::print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(w) = &warning {
        eprintln_stripped!("warning: {w}");
    }
    if out.hits.is_empty() {
        println_stripped!("No results for {:?}.", args.query);
        return Ok(ExitCode::SUCCESS);
    }
    let mut n = 0;
    for (gi, g) in out.groups.iter().enumerate() {
        let grouped = out.group != crate::platform::workspace::config::Group::None
            && (g.hits > 1 || g.more > 0);
        if grouped {
            println_stripped!(
                "{}  ({}{})",
                g.key,
                crate::platform::plural::count(g.hits, "hit", "hits"),
                more_text(g.more)
            );
        }
        for h in out.group_hits(gi) {
            n += 1;
            let date = h.date.as_deref().and_then(|d| d.get(..10)).unwrap_or("");
            let title = h.heading.as_deref().or(h.role.as_deref()).unwrap_or("");
            let indent = if grouped { "  " } else { "" };
            println_stripped!(
                "{indent}{:>2}. {:.2}  {}:{}-{}  [{}] {} {}",
                n,
                h.score,
                h.uri,
                h.line_start,
                h.line_end,
                h.source,
                date,
                title
            );
            println_stripped!("{indent}    {}", h.snippet);
        }
    }
    if let Some(note) = out.fallback_note() {
        println_stripped!("({note})");
    }
    if let (Some(reason), false) = (&out.mode_reason, matches!(plan, Plan::Off(_))) {
        println_stripped!("(keyword search only: {reason})");
    }
    Ok(ExitCode::SUCCESS)
}

fn more_text(more: usize) -> String {
    if more == 0 {
        String::new()
    } else {
        format!(", {more} more match there")
    }
}

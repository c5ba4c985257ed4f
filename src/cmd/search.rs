//! `pms search`: ranked hits for a person (or JSON for scripts).

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::cli::SearchArgs;
use crate::embed::Plan;
use crate::index::db;
use crate::index::indexer::Source;
use crate::search::SearchParams;
use crate::search::hybrid::{self, Semantic};

pub fn run(args: &SearchArgs) -> Result<ExitCode> {
    let ctx = super::context(&args.ws)?;
    let mut sources = Vec::new();
    for s in &args.source {
        match Source::parse(s.trim()) {
            Some(src) => sources.push(src),
            None => bail!("unknown source {s:?}.\n  Fix: use knowledge, summary or transcript"),
        }
    }
    let params = SearchParams {
        query: args.query.clone(),
        limit: args.limit.unwrap_or(ctx.cfg.search.default_limit).max(1),
        sources,
        project: args.project.clone(),
        since: args.since.as_deref().map(parse_date).transpose()?,
        until: args.until.as_deref().map(parse_date).transpose()?,
        within: None,
        per_file: 1,
    };
    let conn = db::open_ro(&ctx.ws.db_path())?;
    let plan = if args.keyword {
        Plan::Off("--keyword".into())
    } else {
        Plan::resolve(&ctx.cfg.embeddings, &ctx.env)
    };
    let loaded = plan.load();
    let semantic = match &loaded {
        Ok(e) => Semantic::On {
            embedder: e.as_ref(),
            weight: ctx.cfg.embeddings.vector_weight,
            cache: None,
        },
        Err(reason) => Semantic::Off(reason.clone()),
    };
    let out = hybrid::search(&conn, &ctx.cfg.search, &params, &semantic)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    if out.hits.is_empty() {
        println!("No results for {:?}.", args.query);
        return Ok(ExitCode::SUCCESS);
    }
    for (i, h) in out.hits.iter().enumerate() {
        let date = h.date.as_deref().and_then(|d| d.get(..10)).unwrap_or("");
        let title = h.heading.as_deref().or(h.role.as_deref()).unwrap_or("");
        println!(
            "{:>2}. {:.2}  {}:{}-{}  [{}] {} {}",
            i + 1,
            h.score,
            h.uri,
            h.line_start,
            h.line_end,
            h.source,
            date,
            title
        );
        println!("    {}", h.snippet);
    }
    if out.matched == "most-terms" {
        println!("(no result had every word; these have at least two of them)");
    } else if out.matched == "any-term" {
        println!("(no result had every word; these have some of them)");
    } else if out.matched == "single-character" {
        println!("(no result had the words; these share single characters with the query)");
    } else if out.matched == "semantic" {
        println!("(no result had the words; these are close in meaning)");
    }
    if let (Some(reason), false) = (&out.mode_reason, matches!(plan, Plan::Off(_))) {
        println!("(keyword search only: {reason})");
    }
    Ok(ExitCode::SUCCESS)
}

/// `YYYY-MM-DD`, an RFC 3339 time, or a relative `7d` / `2w` / `3m`.
pub fn parse_date(s: &str) -> Result<String> {
    let s = s.trim();
    if let Some((n, unit)) = s
        .strip_suffix(['d', 'w', 'm'])
        .and_then(|n| n.parse::<i64>().ok())
        .map(|n| (n, s.chars().last().unwrap_or('d')))
    {
        let days = match unit {
            'w' => n * 7,
            'm' => n * 30,
            _ => n,
        };
        let t = chrono::Utc::now() - chrono::Duration::days(days);
        return Ok(t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    }
    if chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
        || chrono::DateTime::parse_from_rfc3339(s).is_ok()
    {
        return Ok(s.to_string());
    }
    bail!(
        "{s:?} is not a date.\n  Fix: use YYYY-MM-DD, or a span back from now such as 7d, 2w or 3m"
    )
}

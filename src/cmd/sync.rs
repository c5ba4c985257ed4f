//! `pms sync` (hidden): the background upkeep a session start triggers.
//!
//! 1. Sessions that ended without SessionEnd (Ctrl+C never fires it) get
//!    their summary now, and their recorded learning signals are staged:
//!    any transcript changed within `sessions.recover_hours` that has no
//!    summary, except the session that started this sync.
//! 2. A full index pass (knowledge files added or changed since the last
//!    run, new transcripts, deleted files).
//!
//! It exits at once if another index run holds the lock.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Result;

use crate::cli::SyncArgs;
use crate::context::Context;
use crate::hooks::session_end::merge_state;
use crate::hooks::state::SessionState;
use crate::hooks::summary;
use crate::index::discover;
use crate::index::indexer::{self, transcript_roots};
use crate::lessons::{self, pending};
use crate::progress::Quiet;
use crate::upkeep::{self, IndexLock, ModelDownload};

pub fn run(args: &SyncArgs) -> Result<ExitCode> {
    let ctx = Context::open(args.ws.workspace.as_deref())?;
    let Some(lock) = IndexLock::try_acquire(&ctx.ws)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let recovered = recover(&ctx, args.exclude_session.as_deref());
    if let Err(e) = &recovered {
        crate::hooks::log::append(
            Some(&ctx.ws.root),
            "sync",
            &format!("recovering summaries: {e:#}"),
        );
    }
    upkeep::index_now(&ctx, &lock, &Quiet, ModelDownload::Never)?;
    Ok(ExitCode::SUCCESS)
}

/// Summarises recent sessions that have no summary. Returns how many.
pub fn recover(ctx: &Context, exclude: Option<&str>) -> Result<usize> {
    let window = Duration::from_secs(u64::from(ctx.cfg.sessions.recover_hours) * 3600);
    let now = SystemTime::now();
    let summarised = summarised_sessions(&ctx.ws.sessions_dir());
    let rules = lessons::all_rules(&ctx.ws);
    let mut n = 0;
    for path in recent_transcripts(&transcript_roots(&ctx.env, &ctx.cfg), now, window) {
        let Some(sid) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if Some(sid.as_str()) == exclude || summarised.contains(&sid) {
            continue;
        }
        let mut facts = summary::facts_from_transcript(&path, &sid)?;
        if facts.turns.is_empty() {
            continue;
        }
        let st = SessionState::load(&ctx.ws, &sid);
        merge_state(&mut facts, &st);
        summary::write(&ctx.ws, &facts)?;
        let candidates = st
            .signals
            .iter()
            .map(|s| pending::Candidate {
                kind: s.kind.clone(),
                text: s.text.clone(),
                domain: st
                    .loaded
                    .iter()
                    .find_map(|k| k.strip_prefix("domain:").map(str::to_string)),
                session_id: Some(sid.clone()),
                transcript_ref: facts.transcript_ref.clone(),
            })
            .collect();
        pending::stage(&ctx.ws, candidates, &rules)?;
        SessionState::remove(&ctx.ws, &sid);
        n += 1;
    }
    if n > 0 {
        summary::prune(&ctx.ws, ctx.cfg.sessions.summaries_kept);
    }
    Ok(n)
}

/// Session ids that already have a summary.
fn summarised_sessions(dir: &Path) -> HashSet<String> {
    let mut out = HashSet::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path())
                && let Some(id) = indexer::summary_frontmatter(&text).session_id
            {
                out.insert(id);
            }
        }
    }
    out
}

/// Main-session transcripts (not subagents) modified within `window`.
fn recent_transcripts(roots: &[PathBuf], now: SystemTime, window: Duration) -> Vec<PathBuf> {
    let window_ns = window.as_nanos() as i64;
    let now_ns = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    discover::transcripts(roots)
        .into_iter()
        .filter(|f| !f.subagent && now_ns - f.mtime_ns <= window_ns)
        .map(|f| f.abs)
        .collect()
}

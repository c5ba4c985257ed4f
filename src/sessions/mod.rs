//! A Claude Code session's life as pms sees it: the per-session state the
//! hooks keep (`state`), the summary written when it ends (`summary`), and
//! finishing it: one [`finish_session`] for a session that ended (the
//! SessionEnd hook) and for one that ended without saying so (a closed
//! terminal; Ctrl+C never fires SessionEnd), found by [`recover`].

pub mod state;
pub mod summary;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Result;

use crate::context::Context;
use crate::index::discover;
use crate::index::indexer::transcript_roots;
use crate::lessons::{self, pending};
use state::{SessionState, extend_unique};
use summary::{SessionFacts, SummaryMeta};

/// What finishing a session wrote.
#[derive(Debug, Default)]
pub struct Finished {
    /// The transcript that was read.
    pub transcript: Option<PathBuf>,
    /// The summary, when the session said anything.
    pub summary: Option<PathBuf>,
    /// Learnings staged for the user's confirmation.
    pub staged: usize,
}

/// Ends session `session_id`: writes its summary (when anything was said),
/// stages the learning signals its hooks recorded since the last time, and
/// prunes old summaries. The state is kept (marked as staged): a session
/// resumed later goes on with what it had loaded. `transcript` is the
/// payload's path, if it has one; the state's remembered path is the
/// fallback.
pub fn finish_session(
    ctx: &Context,
    session_id: &str,
    transcript: Option<&Path>,
) -> Result<Finished> {
    let mut st = SessionState::load(&ctx.ws, session_id);
    let path = st.transcript(transcript);
    let mut facts = match &path {
        Some(p) => summary::facts_from_transcript(p, session_id)?,
        None => SessionFacts {
            session_id: session_id.to_string(),
            ..SessionFacts::default()
        },
    };
    merge_state(&mut facts, &st);
    let written = if facts.turns.is_empty() {
        None // nothing was said (`claude mcp list`, an empty start): no summary
    } else {
        Some(summary::write(&ctx.ws, &facts)?)
    };
    let domain = st.first_domain();
    let candidates: Vec<pending::Candidate> = st
        .signals
        .iter()
        .skip(st.signals_staged)
        .map(|s| pending::Candidate {
            kind: s.kind.clone(),
            text: s.text.clone(),
            domain: domain.clone(),
            session_id: Some(session_id.to_string()),
            transcript_ref: facts.transcript_ref.clone(),
        })
        .collect();
    let staged = pending::stage(&ctx.ws, candidates, &lessons::known_learnings(ctx))?.len();
    summary::prune(&ctx.ws, ctx.cfg.sessions.summaries_kept);
    st.signals_staged = st.signals.len();
    st.save(&ctx.ws)?;
    Ok(Finished {
        transcript: path,
        summary: written,
        staged,
    })
}

/// Adds what the hooks recorded during the session to the transcript facts.
pub fn merge_state(facts: &mut SessionFacts, st: &SessionState) {
    extend_unique(&mut facts.files_changed, &st.files_changed);
    for s in &st.signals {
        *facts.signals.entry(s.kind.clone()).or_default() += 1;
    }
    facts.rounds = facts.rounds.max(st.rounds);
    if facts.cwd.is_none() {
        facts.cwd = st.cwd.clone();
    }
}

/// Finishes the sessions that ended without SessionEnd: transcripts changed
/// within `sessions.recover_hours` that have no summary, except `exclude`
/// (the session that is starting). Returns how many.
pub fn recover(ctx: &Context, exclude: Option<&str>) -> Result<usize> {
    let window = Duration::from_secs(u64::from(ctx.cfg.sessions.recover_hours) * 3600);
    let summarised = summarised_sessions(&ctx.ws.sessions_dir());
    let mut n = 0;
    for path in recent_transcripts(
        &transcript_roots(&ctx.env, &ctx.cfg),
        SystemTime::now(),
        window,
    ) {
        let Some(sid) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if Some(sid.as_str()) == exclude || summarised.contains(&sid) {
            continue;
        }
        finish_session(ctx, &sid, Some(&path))?;
        n += 1;
    }
    Ok(n)
}

/// Session ids that already have a summary.
fn summarised_sessions(dir: &Path) -> HashSet<String> {
    let mut out = HashSet::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path())
                && let Some(id) = SummaryMeta::parse(&text).session_id
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

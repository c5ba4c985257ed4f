//! A session's life as pms sees it (Claude Code's, Codex's or OpenClaw's): the per-session state the
//! hooks keep (`state`), the summary written when it ends (`summary`), and
//! finishing it: one [`finish_session`] for a session that ended (the
//! SessionEnd hook) and for one that ended without saying so (a closed
//! terminal; Ctrl+C never fires SessionEnd), found by [`recover`].

pub mod state;
pub mod summary;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Result;

use crate::memory::index::discover;
use crate::memory::index::indexer::transcript_roots;
use crate::memory::lessons::{self, pending};
use crate::platform::workspace::context::Context;
use crate::platform::workspace::summary_meta::SummaryMeta;
use state::{SessionState, extend_unique};
use summary::SessionFacts;

/// What finishing a session wrote.
#[derive(Debug, Default)]
pub struct Finished {
    /// The transcript that was read.
    pub transcript: Option<PathBuf>,
    /// The summary, when the session said anything.
    pub summary: Option<PathBuf>,
    /// Learnings staged for the user's confirmation.
    pub staged: usize,
    /// Why staging failed (a pending file pms cannot read, say): the
    /// summary is written all the same, the learnings wait in the state for
    /// the next finish, and the caller logs this.
    pub staging_failed: Option<String>,
}

/// Ends session `session_id`: catches up with the transcript, stages the
/// learning signals not staged before, writes the summary (when anything
/// was said) and prunes old summaries. The state is kept: a session resumed
/// later goes on with what it had loaded and staged. `transcript` is the
/// payload's path, if it has one; the state's remembered path is the
/// fallback.
///
/// Taking the unstaged signals, staging them and marking them staged is one
/// step under the session's lock, so a session finished twice at once (its
/// SessionEnd and a background recovery) stages each learning once.
pub fn finish_session(
    ctx: &Context,
    session_id: &str,
    transcript: Option<&Path>,
) -> Result<Finished> {
    let known = lessons::known_learnings(ctx);
    let staging = SessionState::update(&ctx.ws, session_id, |st| {
        let path = st.transcript(transcript);
        // Read from its start (a session pms first sees at its end, a
        // crashed one), the catch-up holds the whole conversation: the
        // summary is made from it, not from a second read.
        let whole = match &path {
            Some(p) => Some(st.catch_up(p)).filter(|c| c.from_start),
            None => None,
        };
        let domain = st.first_domain();
        let transcript_ref = path.as_deref().and_then(summary::transcript_ref);
        let project = st.cwd.as_deref().map(|c| {
            crate::platform::host::project::root_of(Path::new(c))
                .to_string_lossy()
                .into_owned()
        });
        let candidates: Vec<pending::Candidate> = st
            .signals
            .iter()
            .skip(st.signals_staged)
            .map(|s| pending::Candidate {
                kind: s.kind.clone(),
                text: s.text.clone(),
                origin: s.origin,
                why: s.why.clone(),
                domain: domain.clone(),
                session_id: Some(session_id.to_string()),
                transcript_ref: transcript_ref.clone(),
                project: project.clone(),
            })
            .collect();
        let staged = pending::stage(&ctx.ws, candidates, &known);
        if staged.is_ok() {
            st.signals_staged = st.signals.len();
        }
        (path, staged, st.clone(), whole)
    })?;
    let (path, staged, st, whole) = staging;
    let (staged, staging_failed) = match staged {
        Ok(items) => (items.len(), None),
        Err(e) => (0, Some(e.to_string())),
    };
    let mut facts = match (&path, whole) {
        (Some(p), Some(read)) => summary::facts_from_turns(p, session_id, read.turns, read.stats),
        (Some(p), None) => summary::facts_from_transcript(p, session_id)?,
        (None, _) => SessionFacts {
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
    summary::prune(&ctx.ws, ctx.cfg.sessions.summaries_kept);
    Ok(Finished {
        transcript: path,
        summary: written,
        staged,
        staging_failed,
    })
}

/// Adds what the hooks recorded during the session to the transcript facts.
///
/// A summary covers the transcript only as far as the session's learnings
/// are staged (they are staged at its end, and a failed staging leaves
/// them waiting): while some wait, it claims no coverage, so that recovery
/// finishes a session that dies with them (at its compaction checkpoint, or
/// after a staging that failed) instead of skipping it.
pub fn merge_state(facts: &mut SessionFacts, st: &SessionState) {
    if st.signals_staged < st.signals.len() {
        facts.covers = 0;
    }
    extend_unique(&mut facts.files_changed, &st.files_changed);
    for s in &st.signals {
        *facts.signals.entry(s.kind.clone()).or_default() += 1;
    }
    facts.rounds = facts.rounds.max(st.rounds);
    if facts.cwd.is_none() {
        facts.cwd = st.cwd.clone();
    }
}

/// Finishes the sessions that ended without SessionEnd (a closed terminal,
/// a crash; Ctrl+C never fires it): transcripts changed within
/// `sessions.recover_hours`, idle for `sessions.crash_idle_minutes` (a
/// session still open in another terminal is left to its own hooks), whose
/// summary is missing or covers less than the transcript holds now (a
/// checkpoint written before compaction, a session resumed after its end).
/// `exclude` is the session that is starting. Returns how many.
pub fn recover(ctx: &Context, exclude: Option<&str>) -> Result<usize> {
    let window = Duration::from_secs(u64::from(ctx.cfg.sessions.recover_hours) * 3600);
    let idle = Duration::from_secs(u64::from(ctx.cfg.sessions.crash_idle_minutes) * 60);
    let covered = covered_bytes(&ctx.ws.sessions_dir());
    let mut n = 0;
    let found = discover::transcripts(&transcript_roots(&ctx.env, &ctx.cfg))
        .into_iter()
        .chain(discover::agent_transcripts(&discover::AgentLogs::of(
            &ctx.env, &ctx.ws,
        )));
    // Sessions whose hooks could not save (a full disk) are finished at
    // once, as the hook log promised, not after their idle time.
    let unsaved = crate::platform::workspace::log::unsaved_sessions(&ctx.ws);
    let mut saved_now = Vec::new();
    for (path, size, idle) in recent_transcripts(found, SystemTime::now(), window, idle) {
        let Some(sid) = session_id_of(&path) else {
            continue;
        };
        let was_unsaved = unsaved.contains(&sid);
        if !(idle || was_unsaved) || Some(sid.as_str()) == exclude {
            continue;
        }
        let covers = covered.get(&summary::one_line(&sid));
        if covers.is_some_and(|c| *c >= size) {
            if was_unsaved {
                saved_now.push(sid);
            }
            continue;
        }
        // One session that cannot be finished (its file unreadable, a
        // full disk) does not stop the others: it is logged and retried at
        // the next start.
        match finish_session(ctx, &sid, Some(&path)) {
            Ok(done) => {
                match done.staging_failed {
                    Some(why) => crate::platform::workspace::log::append(
                        Some(&ctx.ws.root),
                        "sync",
                        &format!("staging the learnings of {sid}: {why}"),
                    ),
                    None if was_unsaved => saved_now.push(sid),
                    None => {}
                }
                n += 1;
            }
            Err(e) => crate::platform::workspace::log::append(
                Some(&ctx.ws.root),
                "sync",
                &format!("finishing session {sid}: {e:#}"),
            ),
        }
    }
    crate::platform::workspace::log::forget_unsaved(&ctx.ws, &saved_now);
    Ok(n)
}

/// How many transcript bytes each session's summary covers.
fn covered_bytes(dir: &Path) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != "md") {
                continue; // a temp file of an interrupted write, or not ours
            }
            if let Ok(text) = std::fs::read_to_string(&p) {
                let meta = SummaryMeta::parse(&text);
                if let Some(id) = meta.session_id {
                    out.insert(id, meta.covers);
                }
            }
        }
    }
    out
}

/// The session a transcript file belongs to: its name without `.jsonl`
/// (Claude Code, OpenClaw), or the id at the end of a Codex rollout's name.
fn session_id_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    if discover::is_rollout_name(&name) {
        return crate::platform::agents::transcript::codex::session_id_of(&name)
            .map(str::to_string);
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned())
}

/// Main-session transcripts (not subagents) modified within `window`, with
/// their sizes and whether they have been untouched for `idle`.
fn recent_transcripts(
    found: impl Iterator<Item = discover::Found>,
    now: SystemTime,
    window: Duration,
    idle: Duration,
) -> Vec<(PathBuf, u64, bool)> {
    let now_ns = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0);
    let (window_ns, idle_ns) = (window.as_nanos() as i64, idle.as_nanos() as i64);
    found
        .filter(|f| !f.subagent)
        .filter(|f| (0..=window_ns).contains(&(now_ns - f.mtime_ns)))
        .map(|f| (f.abs, f.size, now_ns - f.mtime_ns >= idle_ns))
        .collect()
}

//! SessionEnd: the session's summary and its learnings.
//!
//! Claude Code gives SessionEnd hooks 1.5 s unless they declare more (pms
//! declares 10 s), so only the small writes happen here: the summary (built
//! from the transcript, deterministic), the learnings staged into
//! `pending-learnings.json` (locked, deduplicated), and old summaries
//! pruned. Indexing the transcript and the summary is handed to a detached
//! `pms index --path ...`.

use anyhow::Result;
use serde_json::Value;

use super::HookContext;
use super::state::{SessionState, extend_unique};
use super::summary::{self, SessionFacts};
use crate::lessons::{self, pending};

pub fn run(ctx: &HookContext) -> Result<Option<Value>> {
    let sid = ctx.session_id();
    let st = SessionState::load(&ctx.ws, &sid);
    let path = super::transcript_path(ctx, &st);
    let mut facts = match &path {
        Some(p) => summary::facts_from_transcript(p, &sid)?,
        None => SessionFacts {
            session_id: sid.clone(),
            ..SessionFacts::default()
        },
    };
    merge_state(&mut facts, &st);
    let written = if facts.turns.is_empty() {
        None // nothing was said (`claude mcp list`, an empty start): no summary
    } else {
        Some(summary::write(&ctx.ws, &facts)?)
    };

    let domain = st
        .loaded
        .iter()
        .find_map(|k| k.strip_prefix("domain:").map(str::to_string));
    let candidates: Vec<pending::Candidate> = st
        .signals
        .iter()
        .map(|s| pending::Candidate {
            kind: s.kind.clone(),
            text: s.text.clone(),
            domain: domain.clone(),
            session_id: Some(sid.clone()),
            transcript_ref: facts.transcript_ref.clone(),
        })
        .collect();
    pending::stage(&ctx.ws, candidates, &lessons::all_rules(&ctx.ws))?;
    summary::prune(&ctx.ws, ctx.cfg.sessions.summaries_kept);

    let mut args: Vec<String> = vec!["index".into(), "--quiet".into(), "--if-idle".into()];
    for p in path.iter().cloned().chain(written) {
        args.push("--path".into());
        args.push(p.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    super::spawn_detached(&ctx.ws, &args);
    SessionState::remove(&ctx.ws, &sid);
    Ok(None)
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

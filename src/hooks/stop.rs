//! Stop: after each reply. Records, never blocks (a Stop hook that answers
//! makes Claude keep going): counts the round, finds learning signals in
//! the reply, notes files changed, flags the heartbeat. Prints nothing.

use anyhow::Result;
use serde_json::Value;

use super::HookContext;
use super::signals;
use super::state::{SessionState, Signal};
use crate::claude::transcript::Role;
use crate::lessons::{DUPLICATE_SIMILARITY, similarity};

pub fn run(ctx: &HookContext) -> Result<Option<Value>> {
    let sid = ctx.session_id();
    let mut st = SessionState::load(&ctx.ws, &sid);
    st.rounds += 1;
    let path = super::transcript_path(ctx)
        .or_else(|| st.transcript_path.as_deref().map(std::path::PathBuf::from));
    let mut last_reply = None;
    if let Some(p) = &path {
        let (turns, offset, lines) =
            super::read_new_turns(p, st.transcript_offset, st.transcript_lines);
        st.transcript_offset = offset;
        st.transcript_lines = lines;
        for t in &turns {
            for f in &t.files_changed {
                if !st.files_changed.contains(f) {
                    st.files_changed.push(f.clone());
                }
            }
        }
        last_reply = turns
            .iter()
            .rev()
            .find(|t| t.role == Role::Assistant)
            .map(|t| t.text.clone());
    }
    // The payload's message is current; the transcript may lag behind it.
    let message = ctx
        .input
        .last_assistant_message
        .clone()
        .or(last_reply)
        .unwrap_or_default();
    record_signals(&mut st, &message);
    let n = ctx.cfg.hooks.heartbeat_rounds;
    if n > 0 && st.rounds.is_multiple_of(n) {
        st.heartbeat_due = true;
    }
    st.save(&ctx.ws)?;
    Ok(None)
}

/// Adds the signals of `message` not already recorded.
pub fn record_signals(st: &mut SessionState, message: &str) {
    for f in signals::detect(message) {
        let dup = st
            .signals
            .iter()
            .any(|s| similarity(&s.text, &f.sentence) >= DUPLICATE_SIMILARITY);
        if !dup {
            st.signals.push(Signal {
                kind: f.kind.to_string(),
                text: f.sentence,
                round: st.rounds,
            });
        }
    }
}

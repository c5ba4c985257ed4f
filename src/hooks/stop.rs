//! Stop: after each reply. Records, never blocks (a Stop hook that answers
//! makes Claude keep going): counts the round, finds learning signals in
//! the round's replies, notes files changed, flags the heartbeat. Prints nothing.

use anyhow::Result;
use serde_json::Value;

use super::HookContext;
use super::state::SessionState;

pub fn run(ctx: &HookContext) -> Result<Option<Value>> {
    let sid = ctx.session_id();
    let mut st = SessionState::load(&ctx.ws, &sid);
    st.rounds += 1;
    if let Some(p) = super::transcript_path(ctx, &st) {
        st.catch_up(&p);
    }
    // The payload's message is current; the transcript may lag behind it.
    if let Some(message) = &ctx.input.last_assistant_message {
        st.record_signals(message);
    }
    let n = ctx.cfg.hooks.heartbeat_rounds;
    if n > 0 && st.rounds.is_multiple_of(n) {
        st.heartbeat_due = true;
    }
    st.save(&ctx.ws)?;
    Ok(None)
}

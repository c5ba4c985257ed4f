//! Stop: after each reply. Records, never blocks (a Stop hook that answers
//! makes Claude keep going): counts the round, finds learning signals in
//! the round's replies, notes files changed, flags the heartbeat. Prints nothing.

use anyhow::Result;
use serde_json::Value;

use crate::memory::sessions::state::SessionState;
use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let n = ctx.cfg.hooks.heartbeat_rounds;
    SessionState::update(&ctx.ws, &input.session_id(), |st| {
        st.rounds += 1;
        if let Some(p) = st.transcript(input.transcript()) {
            st.catch_up(&p);
        }
        // The payload's message is current; the transcript may lag behind it.
        if let Some(message) = &input.last_assistant_message {
            st.record_signals(message);
        }
        if n > 0 && st.rounds.is_multiple_of(n) {
            st.heartbeat_due = true;
        }
    })?;
    Ok(None)
}

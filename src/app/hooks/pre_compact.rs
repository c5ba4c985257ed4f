//! PreCompact: before Claude Code summarises the conversation away, take
//! what the hooks need from it: learning signals in replies not yet seen,
//! files changed, and a checkpoint session summary (replaced by the final
//! one at session end).

use anyhow::Result;
use serde_json::Value;

use crate::memory::sessions::state::SessionState;
use crate::memory::sessions::{merge_state, summary};
use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let sid = input.session_id();
    let (path, st) = SessionState::update(&ctx.ws, &sid, |st| {
        let path = st.transcript(input.transcript());
        if let Some(p) = &path {
            st.catch_up(p);
        }
        (path, st.clone())
    })?;
    let Some(path) = path else {
        return Ok(None);
    };
    let mut facts = summary::facts_from_transcript(&path, &sid)?;
    merge_state(&mut facts, &st);
    summary::write(&ctx.ws, &facts)?;
    Ok(None)
}

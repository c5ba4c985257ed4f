//! PreCompact: before Claude Code summarises the conversation away, take
//! what the hooks need from it: learning signals in replies not yet seen,
//! files changed, and a checkpoint session summary (replaced by the final
//! one at session end).

use anyhow::Result;
use serde_json::Value;

use super::state::SessionState;
use super::{HookContext, summary};

pub fn run(ctx: &HookContext) -> Result<Option<Value>> {
    let sid = ctx.session_id();
    let mut st = SessionState::load(&ctx.ws, &sid);
    let Some(path) = super::transcript_path(ctx, &st) else {
        st.save(&ctx.ws)?;
        return Ok(None);
    };
    st.catch_up(&path);
    let mut facts = summary::facts_from_transcript(&path, &sid)?;
    super::session_end::merge_state(&mut facts, &st);
    summary::write(&ctx.ws, &facts)?;
    st.save(&ctx.ws)?;
    Ok(None)
}

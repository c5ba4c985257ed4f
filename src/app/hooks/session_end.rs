//! SessionEnd: the session's summary and its learnings.
//!
//! Claude Code gives SessionEnd hooks 1.5 s unless they declare more (pms
//! declares 10 s), so only the small writes happen here
//! ([`sessions::finish_session`]); indexing the transcript and the summary
//! is handed to a detached `pms index --path ...`.

use anyhow::Result;
use serde_json::Value;

use crate::memory::sessions;
use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let done = sessions::finish_session(ctx, &input.session_id(), input.transcript())?;
    if let Some(why) = &done.staging_failed {
        super::log(
            ctx,
            super::Event::SessionEnd,
            &format!(
                "staging the session's learnings: {why} (they stay in its state for the next try)"
            ),
        );
    }
    let mut args: Vec<String> = vec!["index".into(), "--quiet".into(), "--if-idle".into()];
    for p in done.transcript.iter().chain(&done.summary) {
        args.push("--path".into());
        args.push(p.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    super::spawn_detached(&ctx.ws, &args);
    Ok(None)
}

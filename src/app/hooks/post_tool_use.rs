//! After a tool call (PostToolUse, and Claude Code's PostToolUseFailure,
//! told apart by `hook_event_name`; Codex fires PostToolUse for a failed
//! command too, and OpenClaw's `after_tool_call` carries an `error`).

use anyhow::Result;
use serde_json::Value;

use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::context::Context;

pub fn run(_ctx: &Context, _input: &HookInput) -> Result<Option<Value>> {
    Ok(None)
}

//! SessionStart: layer 0, who the user is, from the first message.

use anyhow::Result;
use serde_json::Value;

use super::HookContext;
use crate::claude::hook_io;

pub fn run(ctx: &HookContext) -> Result<Option<Value>> {
    let profile = std::fs::read_to_string(ctx.ws.me_file("profile.md"))?;
    Ok(Some(hook_io::additional_context("SessionStart", &profile)))
}

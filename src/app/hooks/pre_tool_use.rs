//! Before a tool call (PreToolUse): the user's lessons at the moment of
//! action.
//!
//! The call's tool and input become an [`Action`] (a command line, or a file
//! about to be written); the lessons index says which guard and which
//! lessons it meets ([`index_file::for_action`]), among the lessons in force
//! in the session's folder. Then:
//! - a guard that denies: the call is denied with the lesson as the reason,
//!   which the model reads in place of the tool's result and changes course
//!   (Claude Code: "PreToolUse:Bash hook error: <reason>"; Codex: "Command
//!   blocked by PreToolUse hook: <reason>"; OpenClaw: the block reason);
//! - a guard that asks: Claude Code asks the user; Codex cannot ask (it
//!   runs the call when told "ask"), so there the call is denied with a
//!   reason that says to ask the user in the conversation; OpenClaw the same;
//! - the lessons that apply and were not shown before an action in this
//!   session (again after compaction) go to the model as context right
//!   before the call runs (Claude Code, Codex; OpenClaw has no such field).
//!
//! Never "allow": that would skip the agent's own permission prompt. Every
//! error lets the call through (the hook entry logs it and prints nothing).

use anyhow::Result;
use serde_json::{Value, json};

use super::Event;
use super::budget;
use crate::memory::lessons::action::Action;
use crate::memory::lessons::guard::GuardMode;
use crate::memory::lessons::index_file::{self, GuardHit, Matched, Place};
use crate::memory::sessions::state::SessionState;
use crate::platform::agents::Agent;
use crate::platform::agents::hook_io::HookInput;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, input: &HookInput, agent: Agent) -> Result<Option<Value>> {
    let Some(action) = input
        .tool_name
        .as_deref()
        .and_then(|tool| Action::from_tool(tool, &input.tool_input))
    else {
        return Ok(None);
    };
    let place = Place::of(input.cwd.as_deref());
    let verdict = index_file::for_action(&ctx.ws, &action, place)?;
    if verdict.guard.is_none() && verdict.lessons.is_empty() {
        return Ok(None);
    }
    let sid = input.session_id();
    let shown = SessionState::load(&ctx.ws, &sid).action_lessons;
    let fresh: Vec<&Matched> = verdict
        .lessons
        .iter()
        .filter(|m| !shown.contains(&m.id))
        .filter(|m| verdict.guard.as_ref().is_none_or(|g| g.id != m.id))
        .collect();
    if !fresh.is_empty() {
        let ids: Vec<String> = fresh.iter().map(|m| m.id.clone()).collect();
        if let Err(e) = SessionState::update(&ctx.ws, &sid, |st| {
            crate::memory::sessions::state::extend_unique(&mut st.action_lessons, &ids)
        }) {
            super::log(
                ctx,
                Event::PreToolUse,
                &format!("saving session state: {e}"),
            );
        }
    }
    let context = lessons_context(&fresh);
    Ok(match (verdict.guard, agent) {
        (Some(g), Agent::OpenClaw) => Some(json!({"block": true, "blockReason": reason(&g, agent)})),
        (None, Agent::OpenClaw) => None,
        (Some(g), _) => {
            let decision = match (g.guard.mode, agent) {
                (GuardMode::Ask, Agent::Claude) => "ask",
                _ => "deny",
            };
            let mut out = json!({
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "permissionDecisionReason": reason(&g, agent),
            });
            if let Some(c) = context {
                out["additionalContext"] = Value::String(c);
            }
            Some(json!({ "hookSpecificOutput": out }))
        }
        (None, _) => context.map(|c| {
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": c}})
        }),
    })
}

/// Why a guard stopped the call, as the model (or the user, asked) reads it.
fn reason(hit: &GuardHit, agent: Agent) -> String {
    let lesson = budget::neutralise(&hit.text);
    let asks = hit.guard.mode == GuardMode::Ask;
    match (asks, agent) {
        (true, Agent::Claude) => format!(
            "pms: the user's confirmed lesson [{}] asks to be asked before this: \"{lesson}\" ({})",
            hit.id, hit.file
        ),
        (true, _) => format!(
            "pms: the user's confirmed lesson [{}] says to ask them before this: \"{lesson}\" ({}). \
Do not run it now: ask the user in the conversation, and run it only once they say yes.",
            hit.id, hit.file
        ),
        (false, _) => format!(
            "pms: blocked by the user's confirmed lesson [{}]: \"{lesson}\" ({}). \
Do not retry this call or work around the rule: follow the lesson, or tell the user why you would need to break it.",
            hit.id, hit.file
        ),
    }
}

/// The context shown before the call: the lessons that apply to it.
fn lessons_context(fresh: &[&Matched]) -> Option<String> {
    if fresh.is_empty() {
        return None;
    }
    let mut text = String::from(
        "pms: the user's confirmed lessons that apply to this tool call (the user's own rules; follow them before it runs):\n",
    );
    for m in fresh {
        text.push_str(&format!(
            "- [{}] {} ({})\n",
            m.id,
            budget::neutralise(&m.text),
            m.file
        ));
    }
    Some(text.trim_end().to_string())
}

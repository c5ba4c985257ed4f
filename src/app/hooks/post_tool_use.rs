//! After a tool call (PostToolUse, and Claude Code's PostToolUseFailure,
//! told apart by `hook_event_name`; Codex fires PostToolUse for a failed
//! command too, and OpenClaw's `after_tool_call` carries an `error`).
//!
//! When a command failed with an error met in an earlier session, the agent
//! is told what was done next there (the fix), with the conversation's
//! reference, in at most [`MAX_CHARS`]; once per error per session (again
//! after compaction); nothing when no past error is alike enough
//! (`memory::recall::errors::STRONG`). `hooks.error_recall = false` turns it
//! off. The index is opened read-only; no model, no network.

use anyhow::Result;
use serde_json::{Value, json};

use super::Event;
use super::budget;
use crate::memory::recall::errors::{self, PastFix};
use crate::memory::recall::place::Place;
use crate::memory::recall::signature::Signature;
use crate::memory::recall::{Conversation, Step};
use crate::memory::sessions::state::{self, SessionState};
use crate::platform::agents::hook_io::HookInput;
use crate::platform::agents::transcript::{codex, failure};
use crate::platform::workspace::context::Context;

/// Longest injection, in characters (the budget).
pub const MAX_CHARS: usize = 1_500;

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    if !ctx.cfg.hooks.error_recall {
        return Ok(None);
    }
    let Some(output) = failed_output(input) else {
        return Ok(None);
    };
    // read as the index keeps a failed result (its two ends), so that it
    // is compared with past ones read the same way; one reading serves the
    // once-per-session key, the search and the comparison, and the excerpt
    // the place (a past error's is read from its excerpt: the middle of a
    // long trace is in neither)
    let kept = crate::platform::agents::transcript::error_excerpt(
        &output,
        ctx.cfg.index.tool_result_chars,
    );
    let Some(sig) = Signature::of_excerpt(&output, &kept) else {
        return Ok(None);
    };
    let sid = input.session_id();
    let key = sig.key();
    if SessionState::load(&ctx.ws, &sid)
        .recalled_errors
        .contains(&key)
    {
        return Ok(None);
    }
    let db = ctx.ws.db_path();
    if !db.exists() {
        return Ok(None);
    }
    let conn = crate::memory::index::db::open_ro(&db)?;
    let here = input
        .transcript()
        .and_then(crate::memory::index::discover::transcript_uri);
    let place = Place::of_error(&sig, &kept, full_command(input));
    let Some(fix) = errors::recall(&conn, &sig, &place, &sid, here.as_deref())? else {
        return Ok(None);
    };
    let text = render(&fix);
    let first = sig
        .lines
        .first()
        .map(|l| l.text.clone())
        .unwrap_or_default();
    super::save_state(ctx, Event::PostToolUse, &sid, |st| {
        state::extend_unique(&mut st.recalled_errors, std::slice::from_ref(&key));
        st.record_moment(
            "error_recall",
            &format!(
                "`{}` failed with \"{}\", met on {} ({}, likeness {:.2})",
                command(input),
                first,
                fix.conversation.day(),
                fix.conversation.uri,
                fix.likeness
            ),
            &text,
        );
    });
    let event = input
        .hook_event_name
        .clone()
        .unwrap_or_else(|| "PostToolUse".into());
    Ok(Some(json!({
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text}
    })))
}

/// The output of a command that failed, or None when the call succeeded
/// (or was not a command). Claude Code: PostToolUseFailure's `error`
/// ("Exit code N\n<output>"). Codex: PostToolUse with the output alone as
/// a string; the exit code is in its rollout (or, in older versions, the
/// string). Others: an exit code in the response.
fn failed_output(input: &HookInput) -> Option<String> {
    let tool = input.tool_name.as_deref()?;
    // a call the user stopped did not fail: there is no error to recall
    if !crate::memory::lessons::action::is_command_tool(tool) || input.is_interrupt {
        return None;
    }
    if let Some(e) = &input.error {
        return Some(e.clone());
    }
    if input.hook_event_name.as_deref() == Some("PostToolUseFailure") {
        return None;
    }
    match &input.tool_response {
        Value::String(s) => {
            // what Codex recorded first: the output may quote an old failure
            let recorded = input
                .tool_use_id
                .as_deref()
                .zip(input.transcript())
                .and_then(|(id, rollout)| codex::command_exit_code(rollout, id));
            let code = recorded.or_else(|| failure::stated_exit_code(s))?;
            (code != 0).then(|| s.clone())
        }
        Value::Object(o) => {
            let code = o
                .get("exit_code")
                .or_else(|| o.get("exitCode"))
                .and_then(Value::as_i64)?;
            if code == 0 {
                return None;
            }
            let text = ["stdout", "stderr", "output"]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            Some(text)
        }
        _ => None,
    }
}

/// The command that failed, as the call gave it.
fn full_command(input: &HookInput) -> &str {
    input
        .tool_input
        .get("command")
        .or_else(|| input.tool_input.get("cmd"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The command's first line, cut to 80 characters, for the record.
fn command(input: &HookInput) -> String {
    let c = full_command(input);
    crate::platform::agents::transcript::truncate(c.lines().next().unwrap_or(""), 80)
}

/// The past fix as the model reads it: where and when, the error as it was
/// met, the steps that followed (as data), the reference; within
/// [`MAX_CHARS`].
pub fn render(fix: &PastFix) -> String {
    let c: &Conversation = &fix.conversation;
    let head = format!(
        "pms: this error was met before, on {} in {} (a past session). What was done next there is below: check it fits this case before repeating it.",
        c.day(),
        c.project_name()
    );
    let foot = format!(
        "The conversation: {} from line {} (memory_get reads it).",
        c.uri, c.line
    );
    let mut body = format!("Error then: {}\n", budget::neutralise(&fix.error_line));
    for s in &fix.steps {
        let line = match s {
            Step::Said(t) => format!("- said: {t}\n"),
            Step::Asked(t) => format!("- the user said: {t}\n"),
            Step::Ran(t) => format!("- ran: `{t}`\n"),
            Step::Edited(t) => format!("- edited: {t}\n"),
            Step::Failed(t) => format!("- that failed: {t}\n"),
        };
        body.push_str(&budget::neutralise(&line));
    }
    let frame = head.len() + foot.len() + budget::DATA_OPEN.len() + budget::DATA_CLOSE.len() + 4;
    let room = MAX_CHARS.saturating_sub(frame);
    let body = crate::platform::redact::redact(&body).into_owned();
    let body = if body.chars().count() > room {
        let cut: String = body.chars().take(room.saturating_sub(1)).collect();
        let cut = cut
            .rsplit_once('\n')
            .map_or(cut.clone(), |(a, _)| a.to_string());
        format!("{cut}\n…")
    } else {
        body
    };
    format!(
        "{head}\n{}\n{}\n{}\n{foot}",
        budget::DATA_OPEN,
        body.trim_end(),
        budget::DATA_CLOSE
    )
}

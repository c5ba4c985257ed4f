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
//! Before the first edit of a file in a session, the past sessions of the
//! same project that changed or discussed it, one line each with the
//! conversation's reference, in at most [`HISTORY_CHARS`]
//! (`hooks.file_history`; nothing for a file with no history).
//!
//! Never "allow": that would skip the agent's own permission prompt. Every
//! error lets the call through (the hook entry logs it and prints nothing).

use anyhow::Result;
use serde_json::{Value, json};

use super::Event;
use super::budget;
use crate::memory::index::file_touches;
use crate::memory::lessons::action::Action;
use crate::memory::lessons::guard::GuardMode;
use crate::memory::lessons::index_file::{self, GuardHit, Matched, Place};
use crate::memory::recall::files::{self, Touch, TouchKind};
use crate::memory::sessions::state::{SessionState, extend_unique};
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
    let candidates: Vec<&Matched> = verdict
        .lessons
        .iter()
        .filter(|m| verdict.guard.as_ref().is_none_or(|g| g.id != m.id))
        .collect();
    // OpenClaw's before_tool_call cannot carry context: no history there.
    let edited = match (&action, agent) {
        (_, Agent::OpenClaw) => None,
        (Action::Edit { path, .. }, _) if ctx.cfg.hooks.file_history => Some(path.as_str()),
        _ => None,
    };
    if candidates.is_empty() && edited.is_none() {
        return Ok(reply(verdict.guard, agent, None));
    }
    // The session's state is read once and written at most once per call.
    let sid = input.session_id();
    let st = SessionState::load(&ctx.ws, &sid);
    let first_edit = edited.and_then(|path| {
        first_edit(ctx, input, path, &st).unwrap_or_else(|e| {
            super::log(ctx, Event::PreToolUse, &format!("file history: {e}"));
            None
        })
    });
    // Claude Code runs the PreToolUse hooks of parallel tool calls at the
    // same time: which lessons are new, and whether this is the file's
    // first edit, are decided under the session's lock, so two calls never
    // both show one. A lesson shown already costs a read only.
    let unshown = |shown: &[String]| -> Vec<String> {
        candidates
            .iter()
            .filter(|m| !shown.contains(&m.id))
            .map(|m| m.id.clone())
            .collect()
    };
    let (new_ids, first) = if unshown(&st.action_lessons).is_empty() && first_edit.is_none() {
        (Vec::new(), false)
    } else {
        super::save_state(ctx, Event::PreToolUse, &sid, |s| {
            let new = unshown(&s.action_lessons);
            extend_unique(&mut s.action_lessons, &new);
            let mut first = false;
            if let Some(f) = &first_edit {
                // only the first edit asks: later ones of this file skip it
                first = !s.history_files.contains(&f.key);
                if first {
                    s.history_files.push(f.key.clone());
                    if let Some(h) = &f.history {
                        s.record_moment("file_history", &h.why, &h.text);
                    }
                }
            }
            (new, first)
        })
        // unsaved (a full disk): shown again next time rather than never
        .unwrap_or_else(|| (unshown(&st.action_lessons), first_edit.is_some()))
    };
    let fresh: Vec<&Matched> = candidates
        .into_iter()
        .filter(|m| new_ids.contains(&m.id))
        .collect();
    let history = first_edit
        .filter(|_| first)
        .and_then(|f| f.history)
        .map(|h| h.text);
    let context = match (lessons_context(&fresh), history) {
        (Some(l), Some(h)) => Some(format!("{l}\n\n{h}")),
        (l, h) => l.or(h),
    };
    Ok(reply(verdict.guard, agent, context))
}

/// What the hook answers: the guard's decision, if one applies, with the
/// context for the model (lessons, history), if any.
fn reply(guard: Option<GuardHit>, agent: Agent, context: Option<String>) -> Option<Value> {
    match (guard, agent) {
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
    }
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

/// Longest file history, in characters (the budget).
pub const HISTORY_CHARS: usize = 800;
/// Least of what a session said that is worth a line.
const MIN_SAID: usize = 20;

/// The first edit of a file in the session: the key the session state
/// remembers it by, and its history when it has one.
struct FirstEdit {
    key: String,
    history: Option<History>,
}

struct History {
    /// What the model reads.
    text: String,
    /// Why it was said, for the page.
    why: String,
}

/// The file at `path` looked up the first time this session edits it, or
/// None (told before, no index). Saves nothing: the caller writes the
/// session state once.
fn first_edit(
    ctx: &Context,
    input: &HookInput,
    path: &str,
    st: &SessionState,
) -> Result<Option<FirstEdit>> {
    let cwd = input.cwd.as_deref().map(std::path::Path::new);
    let file = match (std::path::Path::new(path), cwd) {
        (p, Some(c)) if p.is_relative() => c.join(p),
        (p, _) => p.to_path_buf(),
    };
    let key = file.to_string_lossy().into_owned();
    if st.history_files.contains(&key) {
        return Ok(None);
    }
    let db = ctx.ws.db_path();
    if !db.exists() {
        return Ok(None);
    }
    let root = crate::platform::host::project::root_of(
        cwd.or_else(|| file.parent())
            .unwrap_or(std::path::Path::new("/")),
    );
    let sid = input.session_id();
    // the index's shard files, read without opening SQLite; the index
    // itself until they are written
    let spelled = files::spellings(&root, &file);
    let keys: Vec<&str> = spelled.iter().map(String::as_str).collect();
    let rows = match file_touches::read(&ctx.ws.state_dir(), &keys) {
        Some(rows) => rows,
        None => file_touches::query(&crate::memory::index::db::open_ro(&db)?, &keys)?,
    };
    let touches = files::history(rows, &root, &sid);
    if touches.is_empty() {
        return Ok(Some(FirstEdit { key, history: None }));
    }
    let shown = file
        .strip_prefix(&root)
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_else(|_| key.clone());
    let history = History {
        text: render_history(&shown, &touches),
        why: format!(
            "first edit of {shown} in this session; {} touched it",
            crate::platform::plural::count(touches.len(), "past session", "past sessions")
        ),
    };
    Ok(Some(FirstEdit {
        key,
        history: Some(history),
    }))
}

/// The history as the model reads it, within [`HISTORY_CHARS`]: the room
/// is shared among the sessions (what each said cut to its share, so that
/// four sessions are named rather than two told at length: when each took
/// up to 220 characters, the written set's file history named 0.82 of the
/// sessions it should, now 0.92); sessions that still do not fit are left
/// out whole.
pub fn render_history(shown: &str, touches: &[Touch]) -> String {
    let head = format!(
        "pms: past sessions in this project touched {} (newest first; what they decided may still hold):",
        budget::neutralise(shown)
    );
    let mut room = HISTORY_CHARS.saturating_sub(
        head.chars().count() + budget::DATA_OPEN.len() + budget::DATA_CLOSE.len() + 3,
    );
    let mut lines = String::new();
    for (i, t) in touches.iter().enumerate() {
        let share = room / (touches.len() - i);
        let what = match t.kind {
            TouchKind::Changed => "changed it",
            TouchKind::Discussed => "discussed it",
        };
        let reference = format!("({} from line {})", t.conversation.uri, t.conversation.line);
        let fixed = t.conversation.day().len() + what.len() + reference.len() + 8;
        // at least MIN_SAID: a line that does not fit then is left out below
        let said_room = share.saturating_sub(fixed).clamp(MIN_SAID, 220);
        let said = crate::platform::redact::redact(&budget::neutralise(&t.line)).into_owned();
        let said =
            crate::platform::agents::transcript::truncate(&said, said_room.saturating_sub(1));
        let line = format!("- {} {what}: {said} {reference}\n", t.conversation.day());
        let n = line.chars().count();
        if n > room {
            break;
        }
        room -= n;
        lines.push_str(&line);
    }
    format!(
        "{head}\n{}\n{}{}",
        budget::DATA_OPEN,
        lines,
        budget::DATA_CLOSE
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::recall::Conversation;

    #[test]
    fn the_history_names_four_sessions_that_said_much_within_its_budget() {
        let touches: Vec<Touch> = (0..4)
            .map(|i| Touch {
                conversation: Conversation {
                    uri: format!("cc://-home-maya-code-storefront/358a3b34-9bb7-4a96-8b6e-9bafdae702{i}f.jsonl"),
                    project: "-home-maya-code-storefront".into(),
                    cwd: Some("/home/maya/code/storefront".into()),
                    date: Some(format!("2026-10-0{}T08:00:00Z", 5 - i)),
                    line: 10,
                },
                kind: TouchKind::Changed,
                line: "refreshCart is defined inside the component and recreated every render, so the effect can't just list it. ".repeat(3),
            })
            .collect();
        let text = render_history("src/components/CartDrawer.tsx", &touches);
        assert!(text.chars().count() <= HISTORY_CHARS, "{text}");
        for t in &touches {
            assert!(text.contains(&t.conversation.uri), "{text}");
        }
        // one session alone says more
        let one = render_history("src/components/CartDrawer.tsx", &touches[..1]);
        assert!(one.contains("recreated every render"), "{one}");
    }
}

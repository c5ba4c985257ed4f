//! UserPromptSubmit: what each prompt carries.
//!
//! 1. The response-format rules, compact, every time (drift prevention),
//!    except on a session's first prompt after its SessionStart: layer 0
//!    carried the whole format block in that same request (about 490
//!    characters twice, issue 24).
//! 2. The lessons that apply (`crate::memory::lessons::index_file`: scored on the
//!    words and cues the prompt shares with them; at most
//!    `hooks.lessons_per_prompt`): sure matches as rules to follow, weaker
//!    ones as rules that may apply. They come from the small lessons index,
//!    never from the big transcript index, so this stays fast.
//! 3. Layers 1 and 2: a prompt that names a domain or starts a workflow
//!    (domain.toml triggers) gets that domain's rules and the workflow's SOP,
//!    once per session.
//! 4. The heartbeat: every `hooks.heartbeat_rounds` rounds, a short review
//!    reminder (the stop hook flags it).
//!
//! It also records the rules the user states ("from now on, never …",
//! "remember: …", "以后不要…") in the session state, as the user's: the
//! strongest learning signal there is. A substring prefilter keeps this off
//! the path of the prompts that state none.
//!
//! Trivial prompts (short acknowledgements, slash commands) get only (1).

use anyhow::Result;
use serde_json::Value;

use super::budget::{self, Section};
use super::{Event, layers};
use crate::memory::lessons;
use crate::memory::lessons::index_file::{Matched, Place, Selection, Strength};
use crate::memory::sessions::state::{SessionState, extend_unique, prompt_rules};
use crate::platform::agents::hook_io::{self, HookInput};
use crate::platform::workspace::context::Context;

/// What a prompt records of the session: that it was prompted, and its
/// folder when no session start named one (OpenClaw's `session_start` has
/// none; its prompts carry the agent's workspace), so that layer 0's
/// continuity, a project's lessons and the summary's project know it.
fn prompted(st: &mut SessionState, input: &HookInput) {
    st.prompted = true;
    if st.cwd.is_none() {
        st.cwd.clone_from(&input.cwd);
    }
}

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let whole = input.prompt.as_deref().unwrap_or("").trim();
    let prompt = request_part(whole);
    let sid = input.session_id();
    let st = SessionState::load(&ctx.ws, &sid);
    let first_after_start = st.started.is_some() && !st.prompted;
    let format = if first_after_start {
        String::new()
    } else {
        layers::format_rules(&ctx.ws)
    };
    // the first prompt marks the session prompted, in the one state write
    // this hook makes
    let first_prompt = !st.prompted;
    let mut sections = Vec::new();
    if is_trivial(whole, ctx.cfg.hooks.trivial_prompt_chars) {
        if first_prompt {
            super::save_state(ctx, Event::UserPrompt, &sid, |st| prompted(st, input));
        }
        return Ok(reply(&format, &sections, ctx.cfg.hooks.prompt_budget_chars));
    }
    let mut heartbeat_delivered = false;
    let mut newly_loaded: Vec<String> = Vec::new();

    if st.heartbeat_due {
        sections.push(Section::new(
            format!("Review (round {})", st.rounds),
            "Before answering: check that recent replies followed the response format and the lessons in force. \
If something worth keeping was learned in this session (a correction, a root cause, a better method), say it \
in one plain sentence so it can be staged for the user's confirmation.",
        ));
        heartbeat_delivered = true;
    }

    let how = Selection::from_config(&ctx.cfg.hooks);
    let place = Place::of(input.cwd.as_deref());
    match lessons::index_file::matching(&ctx.ws, &prompt, how, place) {
        Ok(found) if !found.is_empty() => {
            sections.push(Section::new("Lessons that apply", lessons_body(&found)));
        }
        Ok(_) => {}
        Err(e) => super::log(ctx, Event::UserPrompt, &format!("lesson matching: {e}")),
    }

    let domains = layers::domains(&ctx.ws);
    let t = domains.triggered(&prompt);
    let loaded = |key: &str, new: &[String]| st.is_loaded(key) || new.iter().any(|k| k == key);
    for (d, word) in &t.domains {
        let key = format!("domain:{}", d.id);
        if !loaded(&key, &newly_loaded) {
            sections.extend(layers::domain_sections(&ctx.ws, d, word));
            newly_loaded.push(key);
        }
    }
    for (d, wf, word) in &t.workflows {
        let key = format!("workflow:{}/{}", d.id, wf.name);
        if !loaded(&key, &newly_loaded) {
            let domain_loaded = loaded(&format!("domain:{}", d.id), &newly_loaded);
            sections.extend(layers::workflow_sections(
                &ctx.ws,
                d,
                wf,
                word,
                domain_loaded,
            ));
            newly_loaded.push(key);
        }
    }
    let loading = !newly_loaded.is_empty();
    let said = prompt_rules(&prompt);
    if first_prompt || heartbeat_delivered || loading || !said.is_empty() {
        super::save_state(ctx, Event::UserPrompt, &sid, |st| {
            prompted(st, input);
            st.heartbeat_due &= !heartbeat_delivered;
            extend_unique(&mut st.loaded, &newly_loaded);
            st.record(said, 0);
        });
    }
    // Loading a domain or workflow needs room for its rules.
    let budget = if loading {
        ctx.cfg.hooks.budget_chars
    } else {
        ctx.cfg.hooks.prompt_budget_chars
    };
    Ok(reply(&format, &sections, budget))
}

/// The user's confirmed lessons for this prompt: sure matches to follow,
/// weaker ones to judge.
fn lessons_body(found: &[Matched]) -> String {
    let mut body = String::new();
    for (strength, head) in [
        (
            Strength::Applies,
            "These confirmed lessons apply to this request. Follow them:",
        ),
        (
            Strength::MayApply,
            "These confirmed lessons may apply to this request. Follow each one that does:",
        ),
    ] {
        let mut of_kind = found.iter().filter(|l| l.strength == strength).peekable();
        if of_kind.peek().is_none() {
            continue;
        }
        body.push_str(head);
        body.push('\n');
        for l in of_kind {
            body.push_str(&format!("- [{}] {} ({})\n", l.id, l.text, l.file));
        }
    }
    body
}

/// Bytes of a prompt that lesson and trigger matching read.
const ANALYSED_BYTES: usize = 16 * 1024;

/// The part of a prompt that says what is asked: all of it, or for a long
/// one (a pasted log, a file) its start and its end, where a request is
/// written. Matching a 6 MB prompt whole took 6 s; this keeps it bounded.
fn request_part(prompt: &str) -> std::borrow::Cow<'_, str> {
    let half = ANALYSED_BYTES / 2;
    crate::platform::host::text::ends(prompt, half, half, "\n")
}

/// A prompt that gets only the format rules, no lessons and no domain:
/// shorter than `trivial_chars` (weighted) or a slash command.
pub fn is_trivial(prompt: &str, trivial_chars: usize) -> bool {
    weighted_len(prompt) < trivial_chars || is_slash_command(prompt)
}

/// `/clear`, `/compact now`: a slash command, not a path such as
/// "/etc/nginx/nginx.conf: reload it" (a first word with another `/`).
fn is_slash_command(prompt: &str) -> bool {
    prompt.starts_with('/')
        && !prompt
            .split_whitespace()
            .next()
            .is_some_and(|w| w[1..].contains('/'))
}

/// Length for the "trivial prompt" test, a CJK character counting as three:
/// "好的" (ok) is trivial, "帮我写一份需求文档" (write me a PRD) is not.
fn weighted_len(prompt: &str) -> usize {
    prompt
        .chars()
        .map(|c| {
            if crate::memory::words::terms::is_cjk(c) {
                3
            } else {
                1
            }
        })
        .sum()
}

fn reply(format: &str, sections: &[Section], budget: usize) -> Option<Value> {
    let text = budget::pack(format, sections, budget);
    (!text.trim().is_empty()).then(|| hook_io::additional_context("UserPromptSubmit", &text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_not_a_slash_command() {
        assert!(is_trivial("/compact keep the plan", 12));
        assert!(!is_trivial(
            "/etc/nginx/nginx.conf: reload nginx after the change",
            12
        ));
    }

    #[test]
    fn a_long_prompt_is_read_at_its_start_and_its_end() {
        let short = "fix the migration";
        assert_eq!(request_part(short), short);
        let long = format!(
            "deploy this é{}and roll it back",
            "log line ".repeat(10_000)
        );
        let part = request_part(&long);
        assert!(part.len() <= ANALYSED_BYTES + 1);
        assert!(part.starts_with("deploy this é"));
        assert!(part.ends_with("and roll it back"));
        let cjk = "部署".repeat(20_000);
        assert!(
            request_part(&cjk)
                .chars()
                .all(|c| c == '部' || c == '署' || c == '\n')
        );
    }
}

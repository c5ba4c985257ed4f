//! UserPromptSubmit: what each prompt carries.
//!
//! 1. The response-format rules, compact, every time (drift prevention).
//! 2. Lessons whose key terms the prompt shares (at least
//!    `hooks.lesson_min_score` of them, at most `hooks.lessons_per_prompt`
//!    lessons), as rules to follow. They come from the small lessons index,
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
use crate::claude::hook_io::{self, HookInput};
use crate::context::Context;
use crate::lessons;
use crate::lessons::index_file::Selection;
use crate::sessions::state::{SessionState, extend_unique, prompt_rules};

pub fn run(ctx: &Context, input: &HookInput) -> Result<Option<Value>> {
    let prompt = input.prompt.as_deref().unwrap_or("").trim();
    let format = layers::format_rules(&ctx.ws);
    let trivial =
        weighted_len(prompt) < ctx.cfg.hooks.trivial_prompt_chars || prompt.starts_with('/');
    let mut sections = Vec::new();
    if trivial {
        return Ok(reply(&format, &sections, ctx.cfg.hooks.prompt_budget_chars));
    }
    let sid = input.session_id();
    let st = SessionState::load(&ctx.ws, &sid);
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

    let how = Selection {
        floor: ctx.cfg.hooks.lesson_score_floor,
        max: ctx.cfg.hooks.lessons_per_prompt,
    };
    match lessons::index_file::matching(&ctx.ws, prompt, how) {
        Ok(found) if !found.is_empty() => {
            let mut body =
                String::from("These confirmed lessons apply to this request. Follow them:\n");
            for l in &found {
                body.push_str(&format!("- [{}] {} ({})\n", l.id, l.text, l.file));
            }
            sections.push(Section::new("Lessons that apply", body));
        }
        Ok(_) => {}
        Err(e) => super::log(ctx, Event::UserPrompt, &format!("lesson matching: {e}")),
    }

    let specs = layers::domains(&ctx.ws);
    let t = layers::triggered(prompt, &specs);
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
    let said = prompt_rules(prompt);
    if (heartbeat_delivered || loading || !said.is_empty())
        && let Err(e) = SessionState::update(&ctx.ws, &sid, |st| {
            st.heartbeat_due &= !heartbeat_delivered;
            extend_unique(&mut st.loaded, &newly_loaded);
            st.record(said, 0);
        })
    {
        super::log(
            ctx,
            Event::UserPrompt,
            &format!("saving session state: {e}"),
        );
    }
    // Loading a domain or workflow needs room for its rules.
    let budget = if loading {
        ctx.cfg.hooks.budget_chars
    } else {
        ctx.cfg.hooks.prompt_budget_chars
    };
    Ok(reply(&format, &sections, budget))
}

/// Length for the "trivial prompt" test, a CJK character counting as three:
/// "好的" (ok) is trivial, "帮我写一份需求文档" (write me a PRD) is not.
fn weighted_len(prompt: &str) -> usize {
    prompt
        .chars()
        .map(|c| if crate::index::text::is_cjk(c) { 3 } else { 1 })
        .sum()
}

fn reply(format: &str, sections: &[Section], budget: usize) -> Option<Value> {
    let text = budget::pack(format, sections, budget);
    (!text.trim().is_empty()).then(|| hook_io::additional_context("UserPromptSubmit", &text))
}

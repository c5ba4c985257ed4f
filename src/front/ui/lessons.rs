//! Lessons: the rules in force (edit, move, retire), the learnings waiting
//! for a yes and Claude Code's auto-memory corrections (accept, edit,
//! reject), and which lessons a prompt would get. Every change goes through
//! the functions `pms lessons` calls (`lessons::accept`, `lessons::store`),
//! under the same locks.

use super::form::{self, Form};
use super::html::{Html, Tab};
use super::{App, Reply, Req};
use crate::app::hooks::user_prompt;
use crate::memory::lessons::accept::{self, Acceptance, Accepted, AdoptError, Forget};
use crate::memory::lessons::guard::{Guard, GuardMode};
use crate::memory::lessons::index_file::{self, Selection, Strength};
use crate::memory::lessons::pending::{self, PendingItem};
use crate::memory::lessons::store::{self, Change, NewRule, OnDuplicate, Promoted, Target};
use crate::memory::lessons::{self, Rule, split_cues};
use crate::platform::agents::claude::auto_memory::{self, Memory};

/// Most rules listed in the matcher's score table.
const SCOREBOARD: usize = 30;

pub fn page(app: &App, req: &Req) -> Reply {
    let ctx = &app.ctx;
    let ws = &ctx.ws;
    let rules = lessons::all_rules(ws);
    let (waiting, pending_error) = match pending::load(ws) {
        Ok(p) => (p.items, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let memories = lessons::memory_feedback(ctx);
    let mut h = super::notice(&req.query);
    h.s("<h1>Lessons</h1><p class=\"muted\">")
        .n(rules.len())
        .s(" in force · ")
        .n(waiting.len())
        .s(" waiting for your yes · ")
        .n(memories.len())
        .s(" in Claude Code's auto-memory only</p>");
    h.h(&matcher(app, req.query.get("prompt").unwrap_or("")));
    h.h(&call_matcher(app, req.query.get("call").unwrap_or("")));

    h.s("<section id=\"pending\"><h2>Waiting for your yes</h2>");
    if let Some(e) = pending_error {
        h.s("<div class=\"notice err\">").t(e).s("</div>");
    }
    if waiting.is_empty() {
        h.s("<p class=\"muted\">No learnings are waiting. The hooks stage them from corrections and insights in your sessions.</p>");
    }
    for item in &waiting {
        h.h(&pending_card(app, item));
    }
    h.s("</section>");

    if !memories.is_empty() {
        h.s("<section id=\"auto-memory\"><h2>In Claude Code's auto-memory, not pms lessons yet</h2><p class=\"small muted\">Claude Code saved these corrections itself and follows them in their project. Making one a pms lesson gives it cues and every project; removing it from auto-memory keeps it in one place.</p>");
        for m in &memories {
            h.h(&memory_card(app, m));
        }
        h.s("</section>");
    }

    h.s("<section id=\"in-force\"><h2>In force</h2>");
    if rules.is_empty() {
        h.s("<p class=\"muted\">No lessons in force yet.</p>");
    }
    let mut file = "";
    for r in &rules {
        if r.file != file {
            file = &r.file;
            h.s("<h3><a href=\"")
                .t(form::link("/view", &[("uri", file)]))
                .s("\"><code>")
                .t(file)
                .s("</code></a></h3>");
        }
        h.h(&rule_card(app, r));
    }
    h.s("</section>");
    app.page(Tab::Lessons, "Lessons", &h)
}

/// "Which lessons would this prompt get?": the per-prompt hook's own
/// matcher, with the scores. The prompt is matched as typed and shown back
/// redacted: a token pasted into the box is not put on the page (issue 27).
/// Which guard and lessons a command the agent might run would meet, as
/// the pre-tool-use hook decides (`pms lessons test`).
fn call_matcher(app: &App, call: &str) -> Html {
    use crate::memory::lessons::action::Action;
    let mut h = Html::new();
    h.s("<section id=\"call\"><h2>Which guard and lessons would this command meet?</h2><form method=\"get\" action=\"/lessons#call\"><label for=\"call-input\">A command line the agent might run</label><input type=\"text\" id=\"call-input\" name=\"call\" value=\"")
        .t(crate::platform::redact::redact(call))
        .s("\"><div class=\"actions\"><button>Test</button></div></form>");
    let call = call.trim();
    if call.is_empty() {
        h.s("</section>");
        return h;
    }
    let verdict = match index_file::for_action(
        &app.ctx.ws,
        &Action::Command(call.to_string()),
        index_file::Place::Anywhere,
    ) {
        Ok(v) => v,
        Err(e) => {
            h.s("<p class=\"notice err\">")
                .t(e.to_string())
                .s("</p></section>");
            return h;
        }
    };
    match &verdict.guard {
        Some(g) => h
            .s("<p class=\"notice err\">")
            .t(if g.guard.mode == GuardMode::Ask {
                "Asked first"
            } else {
                "Denied"
            })
            .s(" by <a href=\"#")
            .t(&g.id)
            .s("\">")
            .t(&g.id)
            .s("</a>: ")
            .t(&g.text)
            .s(" (guard <code>")
            .t(&g.guard.pattern)
            .s("</code>)</p>"),
        None => h.s("<p>No guard matches: the call runs.</p>"),
    };
    if verdict.lessons.is_empty() {
        h.s("<p>No lesson is shown before it.</p>");
    } else {
        h.s("<p>Shown before it (once per session):</p><ul>");
        for m in &verdict.lessons {
            h.s("<li><a href=\"#")
                .t(&m.id)
                .s("\">")
                .t(&m.id)
                .s("</a> ")
                .t(&m.text)
                .s("</li>");
        }
        h.s("</ul>");
    }
    h.s("</section>");
    h
}

fn matcher(app: &App, prompt: &str) -> Html {
    let cfg = &app.ctx.cfg.hooks;
    let mut h = Html::new();
    h.s("<section id=\"match\"><h2>Which lessons would this prompt get?</h2><form method=\"get\" action=\"/lessons#match\"><label for=\"prompt\">A prompt, as you would type it to the agent</label><textarea id=\"prompt\" name=\"prompt\" rows=\"2\">")
        .t(crate::platform::redact::redact(prompt))
        .s("</textarea><div class=\"actions\"><button>Match</button><span class=\"small muted\">Floors <code>hooks.lesson_score_floor</code> = ")
        .f(cfg.lesson_score_floor, 1)
        .s(" (applies), <code>hooks.lesson_hint_floor</code> = ")
        .f(cfg.lesson_hint_floor, 1)
        .s(" (may apply), at most <code>hooks.lessons_per_prompt</code> = ")
        .n(cfg.lessons_per_prompt)
        .s("</span></div></form>");
    let prompt = prompt.trim();
    if prompt.is_empty() {
        h.s("</section>");
        return h;
    }
    if user_prompt::is_trivial(prompt, cfg.trivial_prompt_chars) {
        h.s("<p class=\"notice err\">The hook treats this prompt as trivial (shorter than <code>hooks.trivial_prompt_chars</code> = ")
            .n(cfg.trivial_prompt_chars)
            .s(", or a slash command): it gets the format rules only, no lessons. Scores for it anyway:</p>");
    }
    let how = Selection::from_config(cfg);
    let ws = &app.ctx.ws;
    let chosen = match index_file::matching(ws, prompt, how, index_file::Place::Anywhere) {
        Ok(c) => c,
        Err(e) => {
            h.s("<p class=\"notice err\">")
                .t(format!("{}: {e}", ws.lessons_index_path().display()))
                .s("</p></section>");
            return h;
        }
    };
    // The same matcher without the floor and the limit, for the near misses
    // (rules under 0.4 × the best score are left out by the matcher itself).
    let index = std::fs::read_to_string(ws.lessons_index_path()).unwrap_or_default();
    let all = index_file::select(
        &index,
        prompt,
        Selection::sure(0.0, SCOREBOARD),
        index_file::Place::Anywhere,
    );
    if all.is_empty() {
        h.s("<p>No lesson shares a key term with this prompt.</p></section>");
        return h;
    }
    h.s("<p>The hook would add <b>")
        .t(crate::platform::plural::count(chosen.len(), "lesson", "lessons"))
        .s("</b> to this prompt.</p><table><thead><tr><th class=\"nowrap\">Score</th><th class=\"nowrap\">Added?</th><th>Lesson</th><th class=\"opt\">File</th></tr></thead><tbody>");
    for m in &all {
        h.s("<tr><td class=\"score nowrap\">")
            .f(m.score, 2)
            .s("</td><td class=\"nowrap\">");
        let strength = chosen.iter().find(|c| c.id == m.id).map(|c| c.strength);
        if strength == Some(Strength::Applies) {
            h.s("<span class=\"status-ok\">yes</span>");
        } else if strength == Some(Strength::MayApply) {
            h.s("<span class=\"status-ok\">yes, as one that may apply</span>");
        } else if m.score < cfg.lesson_hint_floor {
            h.s("<span class=\"muted\">no: under the floor</span>");
        } else {
            h.s("<span class=\"muted\">no: past the limit</span>");
        }
        h.s("</td><td><a href=\"#")
            .t(&m.id)
            .s("\" class=\"id\">")
            .t(&m.id)
            .s("</a> ")
            .t(&m.text)
            .s("</td><td class=\"opt\"><code>")
            .t(&m.file)
            .s("</code></td></tr>");
    }
    h.s("</tbody></table><p class=\"small muted\">Rules scoring under 0.4 × the best are never added and not listed. Each shared word counts by how rare it is among the lessons and in English; the best-covered cue (or the text) counts half again. Lessons at or above <code>hooks.lesson_score_floor</code> are added as rules to follow, those at or above <code>hooks.lesson_hint_floor</code> as rules that may apply.</p></section>");
    h
}

/// `<select>` of where a lesson can live: `me` and each domain.
fn target_select(app: &App, name: &'static str, selected: &str) -> Html {
    let mut h = Html::new();
    h.s("<select name=\"").s(name).s("\">");
    let mut options = vec!["me".to_string()];
    options.extend(app.ctx.ws.installed_domains());
    for o in &options {
        h.s("<option value=\"").t(o).s("\"");
        if o == selected {
            h.s(" selected");
        }
        h.s(">");
        if o == "me" {
            h.s("_me/lessons.md (all work)");
        } else {
            h.t(o).s("/CLAUDE.md");
        }
        h.s("</option>");
    }
    h.s("</select>");
    h
}

fn duplicate_select() -> Html {
    let mut h = Html::new();
    h.s("<select name=\"on_duplicate\"><option value=\"stop\">stop and tell me</option><option value=\"merge\">merge: give that rule this wording and cues</option><option value=\"keep\">keep both</option></select>");
    h
}

fn source_link(h: &mut Html, source: Option<&str>) {
    if let Some(s) = source {
        h.s(" · from <a href=\"")
            .t(form::link("/view", &[("uri", s)]))
            .s("\">")
            .t(s)
            .s("</a>");
    }
}

fn pending_card(app: &App, item: &PendingItem) -> Html {
    let wording = accept::suggested_wording(&item.text);
    let cues = accept::suggested_cues(item, &wording).join("; ");
    let mut h = Html::new();
    h.s("<article class=\"card\" id=\"")
        .t(&item.id)
        .s("\"><div><span class=\"badge\">")
        .t(&item.kind)
        .s("</span> <span class=\"id\">")
        .t(&item.id)
        .s("</span></div><p class=\"rule-text\">")
        .t(&item.text)
        .s("</p><p class=\"meta\">staged ")
        .t(item.created.get(..10).unwrap_or(&item.created));
    source_link(&mut h, item.transcript_ref.as_deref());
    if let Some(old) = &item.replaces {
        h.s(" · replaces ")
            .t(old)
            .s(" (it says the opposite; accepting retires it)");
    }
    if let Some(p) = &item.project {
        h.s(" · only in ").t(p);
    }
    h.s("</p><form method=\"post\" action=\"/lessons/accept\">")
        .h(&app.csrf_field())
        .s("<input type=\"hidden\" name=\"id\" value=\"")
        .t(&item.id)
        .s("\"><label>The rule (what to do, when, and why)</label><textarea name=\"text\" rows=\"2\">")
        .t(&wording)
        .s("</textarea><label>Applies when (situations, commands, synonyms; <code>;</code> between them)</label><input type=\"text\" name=\"cues\" value=\"")
        .t(&cues)
        .s("\"><div class=\"row\"><div><label>Where it belongs</label>")
        .h(&target_select(app, "to", item.domain.as_deref().unwrap_or("me")))
        .s("</div><div><label>If a rule says nearly the same</label>")
        .h(&duplicate_select())
        .s("</div></div>");
    if let Some(g) = &item.guard {
        h.s("<div class=\"checks\"><label><input type=\"checkbox\" name=\"guard\" value=\"")
            .t(g)
            .s("\"> and block the tool calls it forbids: guard <code>")
            .t(g)
            .s("</code> (the agent is stopped with this rule as the reason)</label></div>");
    }
    h.s("<div class=\"actions\"><button>Accept</button><button class=\"danger\" formaction=\"/lessons/reject\" data-confirm=\"Drop this learning?\">Reject</button></div></form></article>");
    h
}

fn memory_card(app: &App, m: &Memory) -> Html {
    let uri = m.uri();
    let mut h = Html::new();
    h.s("<article class=\"card\"><div><span class=\"badge\">auto-memory</span> <a class=\"id\" href=\"")
        .t(form::link("/view", &[("uri", &uri)]))
        .s("\">")
        .t(&uri)
        .s("</a></div><p class=\"rule-text\">")
        .t(m.summary())
        .s("</p><form method=\"post\" action=\"/lessons/memory/accept\">")
        .h(&app.csrf_field())
        .s("<input type=\"hidden\" name=\"uri\" value=\"")
        .t(&uri)
        .s("\"><label>The rule</label><textarea name=\"text\" rows=\"2\">")
        .t(m.summary())
        .s("</textarea><label>Applies when (<code>;</code> between cues)</label><input type=\"text\" name=\"cues\" value=\"\"><div class=\"row\"><div><label>Where it belongs</label>")
        .h(&target_select(app, "to", "me"))
        .s("</div><div><label>If a rule says nearly the same</label>")
        .h(&duplicate_select())
        .s("</div></div><div class=\"checks\"><label><input type=\"checkbox\" name=\"forget\" value=\"1\" checked> then remove it from auto-memory (one place)</label></div><div class=\"actions\"><button>Make it a lesson</button><button class=\"danger\" formaction=\"/lessons/memory/forget\" data-confirm=\"Remove this memory from Claude Code's auto-memory (its file and its MEMORY.md line)?\">Remove from auto-memory</button></div></form></article>");
    h
}

fn rule_card(app: &App, r: &Rule) -> Html {
    let mut h = Html::new();
    h.s("<article class=\"card\" id=\"")
        .t(&r.id)
        .s("\"><div class=\"id\">")
        .t(&r.id)
        .s("</div><p class=\"rule-text\">")
        .t(&r.text)
        .s("</p>");
    if !r.cues.is_empty() {
        h.s("<ul class=\"cues\" aria-label=\"applies when\">");
        for c in &r.cues {
            h.s("<li>").t(c).s("</li>");
        }
        h.s("</ul>");
    }
    if let Some(g) = &r.guard {
        h.s("<p class=\"meta\">guard (")
            .t(g.mode.as_str())
            .s(" before a matching tool call): <code>")
            .t(&g.pattern)
            .s("</code></p>");
    }
    h.s("<p class=\"meta\">scope: ");
    match &r.project {
        Some(p) => h.s("only in ").t(p),
        None => h.s("everywhere"),
    };
    h.s("</p>");
    h.s("<p class=\"meta\"><a href=\"")
        .t(form::link(
            "/view",
            &[("uri", &r.file), ("hl", &r.line.to_string())],
        ))
        .s("#L")
        .n(r.line)
        .s("\">")
        .t(&r.file)
        .s(":")
        .n(r.line)
        .s("</a>");
    if let Some(d) = &r.date {
        h.s(" · ").t(d);
    }
    source_link(&mut h, r.source_ref.as_deref());
    if let Some(o) = &r.origin {
        h.s(" · accepted from ").t(o);
    }
    h.s("</p><details><summary>Edit, move or retire</summary><form method=\"post\" action=\"/lessons/edit\">")
        .h(&app.csrf_field())
        .s("<input type=\"hidden\" name=\"id\" value=\"")
        .t(&r.id)
        .s("\"><label>The rule</label><textarea name=\"text\" rows=\"2\">")
        .t(&r.text)
        .s("</textarea><label>Applies when (<code>;</code> between cues; empty removes them)</label><input type=\"text\" name=\"cues\" value=\"")
        .t(r.cues.join("; "))
        .s("\"><div class=\"row\"><div><label>Guard: a regular expression over the command line or the edited path that blocks the call (empty: none)</label><input type=\"text\" name=\"guard\" value=\"")
        .t(r.guard.as_ref().map_or("", |g| g.pattern.as_str()))
        .s("\"></div><div class=\"narrow\"><label>It</label><select name=\"guard_mode\"><option value=\"deny\"")
        .s(if r.guard.as_ref().is_some_and(|g| g.mode == GuardMode::Ask) { "" } else { " selected" })
        .s(">denies</option><option value=\"ask\"")
        .s(if r.guard.as_ref().is_some_and(|g| g.mode == GuardMode::Ask) { " selected" } else { "" })
        .s(">asks</option></select></div></div><div class=\"actions\"><button>Save</button></div></form><form method=\"post\" action=\"/lessons/move\">")
        .h(&app.csrf_field())
        .s("<input type=\"hidden\" name=\"id\" value=\"")
        .t(&r.id)
        .s("\"><div class=\"row\"><div><label>Move to</label>")
        .h(&target_select(app, "to", &r.scope))
        .s("</div><div class=\"narrow\"><button class=\"secondary\">Move</button></div></div></form><form method=\"post\" action=\"/lessons/retire\">")
        .h(&app.csrf_field())
        .s("<input type=\"hidden\" name=\"id\" value=\"")
        .t(&r.id)
        .s("\"><div class=\"actions\"><button class=\"danger\" data-confirm=\"Retire this lesson? It moves to the archive in _me/lessons.md.\">Retire</button></div></form></details></article>");
    h
}

/// Back to the lessons page with what happened (and `anchor` in view).
fn done(message: &str, failed: bool, anchor: &str) -> Reply {
    let mut params = vec![("notice", message)];
    if failed {
        params.push(("failed", "1"));
    }
    let mut to = form::link("/lessons", &params);
    if !anchor.is_empty() {
        to.push('#');
        to.push_str(&form::encode(anchor));
    }
    Reply::redirect(to)
}

fn on_duplicate(f: &Form) -> OnDuplicate {
    match f.get("on_duplicate") {
        Some("merge") => OnDuplicate::Merge,
        Some("keep") => OnDuplicate::KeepBoth,
        _ => OnDuplicate::Stop,
    }
}

fn shown(r: &Rule) -> String {
    format!("{} in {}: {}", r.id, r.file, r.text)
}

pub fn accept(app: &App, req: &Req) -> Reply {
    let f = &req.form;
    let id = f.given("id").unwrap_or("");
    let guard = match guard_field(f) {
        Ok(g) => g.flatten(),
        Err(e) => return done(&e, true, id),
    };
    let how = Acceptance {
        text: f.given("text"),
        cues: f.get("cues").map(split_cues),
        target: f.given("to"),
        on_duplicate: on_duplicate(f),
        guard,
        project: None,
    };
    match accept::accept(&app.ctx.ws, id, &how) {
        Ok(Accepted::Promoted(r)) => done(&format!("Added {}", shown(&r)), false, &r.id),
        Ok(Accepted::Merged(r)) => done(&format!("Merged into {}", shown(&r)), false, &r.id),
        Ok(Accepted::Duplicate { existing, .. }) => done(
            &format!(
                "{id} says nearly the same as {}. Nothing changed: choose \"merge\" or \"keep both\" and accept again, or reject it.",
                shown(&existing)
            ),
            true,
            id,
        ),
        Err(e) => done(&e.to_string(), true, "pending"),
    }
}

/// The form's guard: absent (None), cleared (`Some(None)`), or a pattern
/// checked now (with its mode, `guard_mode`: deny or ask).
fn guard_field(f: &Form) -> Result<Option<Option<Guard>>, String> {
    let Some(pattern) = f.get("guard") else {
        return Ok(None);
    };
    if pattern.trim().is_empty() {
        return Ok(Some(None));
    }
    let mode = f
        .given("guard_mode")
        .and_then(GuardMode::parse)
        .unwrap_or_default();
    Guard::new(pattern, mode)
        .map(|g| Some(Some(g)))
        .map_err(|e| e.to_string())
}

pub fn reject(app: &App, req: &Req) -> Reply {
    let id = req.form.given("id").unwrap_or("");
    match accept::reject(&app.ctx.ws, id) {
        Ok(item) => done(
            &format!("Rejected {}: {}", item.id, item.text),
            false,
            "pending",
        ),
        Err(e) => done(&e.to_string(), true, "pending"),
    }
}

pub fn edit(app: &App, req: &Req) -> Reply {
    let f = &req.form;
    let id = f.given("id").unwrap_or("");
    let guard = match guard_field(f) {
        Ok(g) => g,
        Err(e) => return done(&e, true, id),
    };
    let change = Change {
        text: f.given("text"),
        cues: f.get("cues").map(split_cues),
        guard,
        project: None,
    };
    match store::edit(&app.ctx.ws, id, change) {
        Ok(r) => done(&format!("Changed {}", shown(&r)), false, &r.id),
        Err(e) => done(&e.to_string(), true, id),
    }
}

pub fn move_rule(app: &App, req: &Req) -> Reply {
    let f = &req.form;
    let id = f.given("id").unwrap_or("");
    let ws = &app.ctx.ws;
    let moved = Target::parse(ws, f.given("to")).and_then(|t| store::move_to(ws, id, &t));
    match moved {
        Ok(r) => done(&format!("Moved {}", shown(&r)), false, &r.id),
        Err(e) => done(&e.to_string(), true, id),
    }
}

pub fn retire(app: &App, req: &Req) -> Reply {
    let id = req.form.given("id").unwrap_or("");
    match store::retire(&app.ctx.ws, id) {
        Ok(r) => done(
            &format!(
                "Retired {} (kept in the archive of _me/lessons.md): {}",
                r.id, r.text
            ),
            false,
            "in-force",
        ),
        Err(e) => done(&e.to_string(), true, id),
    }
}

/// The auto-memory correction a form names, among the ones the page
/// offered: no other file can be touched from here.
fn listed_memory(app: &App, uri: &str) -> Option<Memory> {
    lessons::memory_feedback(&app.ctx)
        .into_iter()
        .find(|m| m.uri() == uri)
}

pub fn memory_accept(app: &App, req: &Req) -> Reply {
    let f = &req.form;
    let uri = f.given("uri").unwrap_or("");
    let Some(m) = listed_memory(app, uri) else {
        return done(
            &format!(
                "{uri} is not an auto-memory correction waiting here (already a lesson, or removed)."
            ),
            true,
            "auto-memory",
        );
    };
    let ws = &app.ctx.ws;
    let summary = m.summary();
    let new = NewRule {
        guard: None,
        project: None,
        text: f.given("text").unwrap_or(&summary),
        cues: f.get("cues").map(split_cues).unwrap_or_default(),
        source_ref: Some(uri),
        origin: None,
    };
    let forget = if f.get("forget") == Some("1") {
        Forget::Yes
    } else {
        Forget::No
    };
    let target = match Target::parse(ws, f.given("to")) {
        Ok(t) => t,
        Err(e) => return done(&e.to_string(), true, "auto-memory"),
    };
    let adopted = match accept::adopt_memory(ws, &m, &new, &target, on_duplicate(f), forget) {
        Ok(a) => a,
        Err(AdoptError::Forget { rule, source }) => {
            return done(
                &format!(
                    "Added {}, but removing {uri} from auto-memory failed: {source}",
                    shown(&rule)
                ),
                true,
                &rule.id,
            );
        }
        Err(e) => return done(&e.to_string(), true, "auto-memory"),
    };
    let rule = match adopted.promoted {
        Promoted::Added(r) | Promoted::Merged(r) => r,
        Promoted::Duplicate(r) => {
            return done(
                &format!(
                    "Nearly the same rule is in force: {}. Nothing changed: choose \"merge\" or \"keep both\".",
                    shown(&r)
                ),
                true,
                "auto-memory",
            );
        }
    };
    if adopted.forgotten {
        return done(
            &format!("Added {} and removed it from auto-memory.", shown(&rule)),
            false,
            &rule.id,
        );
    }
    done(&format!("Added {}", shown(&rule)), false, &rule.id)
}

pub fn memory_forget(app: &App, req: &Req) -> Reply {
    let uri = req.form.given("uri").unwrap_or("");
    let Some(m) = listed_memory(app, uri) else {
        return done(
            &format!("{uri} is not an auto-memory correction waiting here."),
            true,
            "auto-memory",
        );
    };
    match auto_memory::forget(&m) {
        Ok(()) => done(
            &format!("Removed {uri} from Claude Code's auto-memory."),
            false,
            "auto-memory",
        ),
        Err(e) => done(&format!("{}: {e}", m.path.display()), true, "auto-memory"),
    }
}

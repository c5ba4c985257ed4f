//! Sessions: the timeline `memory_timeline` gives the agent, by day and
//! project, and any file or conversation read as `memory_get` reads it,
//! with the lines a search hit points to highlighted.

use super::form;
use super::html::{Html, Tab};
use super::{App, Reply, Req};
use crate::memory::index::db;
use crate::memory::index::indexer::transcript_roots;
use crate::memory::search::fetch::{self, Body, FetchError, Page, ShownTurn};
use crate::memory::search::timeline::{self, Around};

/// Days shown when none are asked for (as `memory_timeline`).
const DEFAULT_DAYS: u32 = 7;
/// Most sessions in one timeline.
const MAX_SESSIONS: usize = 500;
/// Lines per page of a file or a conversation.
const PAGE_LINES: u64 = 200;

pub fn timeline(app: &App, req: &Req) -> Reply {
    let q = &req.query;
    let days: u32 = q.number("days").unwrap_or(DEFAULT_DAYS).clamp(1, 366);
    let project = q.given("project");
    let around_text = q.given("around");
    let around = match around_text {
        None => Around::Now,
        Some(d) => match crate::memory::search::parse_date(d) {
            Ok(d) => Around::Date(d),
            Err(e) => return app.error(Tab::Sessions, 400, &e.to_string()),
        },
    };
    let conn = match db::open_ro(&app.ctx.ws.db_path()) {
        Ok(c) => c,
        Err(e) => {
            let mut h = Html::new();
            h.s("<h1>Sessions</h1><p>").t(e.to_string()).s("</p>");
            return app.page(Tab::Sessions, "Sessions", &h);
        }
    };
    let projects = timeline::projects(&conn).unwrap_or_default();
    let found = match timeline::timeline(&conn, &around, days, project, MAX_SESSIONS) {
        Ok(d) => d,
        Err(e) => return app.error(Tab::Sessions, 400, &e.to_string()),
    };
    let mut h = Html::new();
    h.s("<h1>Sessions</h1><form method=\"get\" action=\"/sessions\"><div class=\"row\"><div><label for=\"project\">Project</label><select id=\"project\" name=\"project\"><option value=\"\">all projects</option>");
    for p in &projects {
        h.s("<option value=\"").t(p).s("\"");
        if Some(p.as_str()) == project {
            h.s(" selected");
        }
        h.s(">").t(p).s("</option>");
    }
    h.s("</select></div><div class=\"narrow\"><label for=\"days\">Days</label><input id=\"days\" type=\"number\" name=\"days\" min=\"1\" max=\"366\" value=\"")
        .n(days)
        .s("\"></div><div><label for=\"around\">Around (a date; empty: up to now)</label><input id=\"around\" type=\"date\" name=\"around\" value=\"")
        .t(around_text.unwrap_or(""))
        .s("\"></div><div class=\"narrow\"><button>Show</button></div></div></form>");

    moments(app, &mut h);
    let sessions: usize = found.iter().map(|d| d.sessions.len()).sum();
    h.s("<p class=\"muted\">").t(crate::platform::plural::count(
        sessions, "session", "sessions",
    ));
    if sessions >= MAX_SESSIONS {
        h.s(" (the most recent ").n(MAX_SESSIONS).s(")");
    }
    h.s("</p>");
    if found.is_empty() {
        h.s("<section><p>No sessions in this window. Claude Code's transcripts appear here once <code>pms index</code> has read them.</p></section>");
    }
    // Newest day first, each day's sessions in the order they started.
    for day in found.iter().rev() {
        h.s("<section class=\"day\"><h2>").t(&day.date).s("</h2>");
        for s in &day.sessions {
            h.s("<div class=\"session\"><span class=\"time\">")
                .t(s.start.get(11..16).unwrap_or(""))
                .s("</span><div><a class=\"title\" href=\"")
                .t(form::link("/view", &[("uri", &s.uri)]))
                .s("\">")
                .t(&s.title)
                .s("</a><div class=\"meta\"><span class=\"badge\">")
                .t(&s.project)
                .s("</span> ")
                .t(span(&s.start, &s.end));
            if let Some(summary) = &s.summary {
                h.s(" · <a href=\"")
                    .t(form::link("/view", &[("uri", summary)]))
                    .s("\">summary</a>");
            }
            h.s("</div></div></div>");
        }
        h.s("</section>");
    }
    // Earlier: the window of the same length just before this one.
    if let Ok(c) = timeline::earlier(&conn, &around, days) {
        let days_text = days.to_string();
        let c = c.format("%Y-%m-%d").to_string();
        h.s("<div class=\"pager\"><a href=\"")
            .t(form::link(
                "/sessions",
                &[
                    ("around", &c),
                    ("days", &days_text),
                    ("project", project.unwrap_or("")),
                ],
            ))
            .s("\">← Earlier</a></div>");
    }
    app.page(Tab::Sessions, "Sessions", &h)
}

/// Sessions with the most recent moments shown.
const MOMENT_SESSIONS: usize = 8;

/// "At the moment of need": what pms told the agent unasked in the last
/// sessions (a past fix, a file's history, the project's open items), when
/// and why, and which kinds are on.
fn moments(app: &App, h: &mut Html) {
    let hooks = &app.ctx.cfg.hooks;
    h.s("<section><h2>At the moment of need</h2><p class=\"muted\">");
    for (key, on) in [
        ("error_recall", hooks.error_recall),
        ("file_history", hooks.file_history),
        ("continuity", hooks.continuity),
    ] {
        h.s("<code>hooks.")
            .t(key)
            .s("</code> ")
            .t(if on { "on" } else { "off" })
            .s(" · ");
    }
    h.s("turn one off in config.toml.</p>");
    let recent = crate::memory::sessions::state::recent_moments(&app.ctx.ws, MOMENT_SESSIONS);
    if recent.is_empty() {
        h.s("<p>Nothing said at a moment of need yet.</p>");
    }
    for (session, moments) in recent {
        h.s("<h3>Session <code>").t(&session).s("</code></h3><ul>");
        for m in moments.iter().rev() {
            h.s("<li><span class=\"time\">")
                .t(m.at.replace('T', " ").trim_end_matches('Z'))
                .s("</span> <span class=\"badge\">")
                .t(&m.kind)
                .s("</span> ")
                .t(&m.why)
                .s("<details><summary>what was said</summary><pre>")
                .t(&m.text)
                .s("</pre></details></li>");
        }
        h.s("</ul>");
    }
    h.s("</section>");
}

/// "10:02–10:47", or with the end's date when it ended on another day.
fn span(start: &str, end: &str) -> String {
    let t = |s: &str| s.get(11..16).unwrap_or("").to_string();
    if start.get(..10) == end.get(..10) {
        format!("{}–{} UTC", t(start), t(end))
    } else {
        format!(
            "{}–{} {} UTC",
            t(start),
            end.get(..10).unwrap_or(""),
            t(end)
        )
    }
}

/// The highlighted lines `hl=A-B` (or `hl=A`).
fn highlight(spec: Option<&str>) -> Option<(u64, u64)> {
    let spec = spec?;
    let (a, b) = spec.split_once('-').unwrap_or((spec, spec));
    let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    Some((a, b.max(a)))
}

pub fn view(app: &App, req: &Req) -> Reply {
    let q = &req.query;
    let Some(uri) = q.given("uri") else {
        return app.error(
            Tab::Sessions,
            400,
            "Which file? Pass uri=<path or cc://...>.",
        );
    };
    let hl = highlight(q.get("hl"));
    // Open a little before the highlighted lines, so they are read in context.
    let from = q
        .number::<u64>("from")
        .or_else(|| hl.map(|(a, _)| a.saturating_sub(if uri.starts_with("cc://") { 4 } else { 8 })))
        .unwrap_or(1)
        .max(1);
    let roots = transcript_roots(&app.ctx.env, &app.ctx.cfg);
    let page = match fetch::page(
        &app.ctx.ws,
        &app.ctx.env,
        &roots,
        uri,
        Some(from),
        Some(PAGE_LINES),
    ) {
        Ok(p) => p,
        Err(e) => {
            let status = match e {
                FetchError::NotFound(_) => 404,
                FetchError::Io(..) => 500,
                _ => 403,
            };
            return app.error(Tab::Sessions, status, &e.to_string());
        }
    };
    let mut h = Html::new();
    h.s(match page.body {
        Body::Lines(_) => "<h1>File</h1>",
        Body::Turns(_) => "<h1>Conversation</h1>",
    })
    .s("<p class=\"mono\">")
    .t(&page.uri)
    .s("</p>");
    h.h(&related(app, &page));
    h.h(&pager(&page, q.get("hl").unwrap_or("")));
    match &page.body {
        Body::Lines(lines) => {
            h.s("<div class=\"lines\">");
            for l in lines {
                let lit = hl.is_some_and(|(a, b)| l.n >= a && l.n <= b);
                h.s("<div id=\"L").n(l.n).s("\"");
                if lit {
                    h.s(" class=\"hl\"");
                }
                h.s("><span class=\"no\">")
                    .n(l.n)
                    .s("</span><span class=\"tx\">")
                    .t(&l.text)
                    .s("</span></div>");
            }
            if lines.is_empty() {
                h.s("<div><span class=\"no\"></span><span class=\"tx muted\">(no lines here)</span></div>");
            }
            h.s("</div>");
        }
        Body::Turns(turns) => {
            if turns.is_empty() {
                h.s("<p class=\"muted\">No conversation turns in these lines.</p>");
            }
            for t in turns {
                h.h(&turn(t, hl));
            }
        }
    }
    h.h(&pager(&page, q.get("hl").unwrap_or("")));
    app.page(Tab::Sessions, &page.uri, &h)
}

fn turn(t: &ShownTurn, hl: Option<(u64, u64)>) -> Html {
    let lit = hl.is_some_and(|(a, b)| t.line_start <= b && t.line_end >= a);
    let role = match t.role {
        "user" => "user",
        "assistant" => "assistant",
        "tool" => "tool",
        _ => "summary",
    };
    let mut h = Html::new();
    // Every line of the turn can be a link target (a hit may point inside it).
    h.s("<article class=\"turn ").s(role);
    if lit {
        h.s(" hl");
    }
    h.s("\" id=\"L").n(t.line_start).s("\">");
    for extra in (t.line_start + 1)..=t.line_end.min(t.line_start + 200) {
        h.s("<span id=\"L").n(extra).s("\"></span>");
    }
    h.s("<header><b>")
        .s(role)
        .s("</b><span>")
        .t(&t.when)
        .s("</span><span class=\"id\">")
        .t(t.lines_label())
        .s("</span></header><div class=\"text\">")
        .t(&t.text)
        .s("</div></article>");
    h
}

/// Links from a summary to its conversation.
fn related(app: &App, page: &Page) -> Html {
    let mut h = Html::new();
    if page.uri.starts_with("sessions/") {
        let text = std::fs::read_to_string(app.ctx.ws.root.join(&page.uri)).unwrap_or_default();
        if let Some(t) =
            crate::platform::workspace::summary_meta::SummaryMeta::parse(&text).transcript_ref
        {
            h.s("<p><a class=\"button\" href=\"")
                .t(form::link("/view", &[("uri", &t)]))
                .s("\">Open the conversation</a></p>");
        }
    }
    h
}

/// Where this page is in the file, and the links to the pages around it.
fn pager(page: &Page, hl: &str) -> Html {
    let mut h = Html::new();
    h.s("<div class=\"pager\"><span>");
    if page.from > 1 {
        let prev = page.from.saturating_sub(PAGE_LINES).max(1).to_string();
        h.s("<a href=\"")
            .t(form::link(
                "/view",
                &[("uri", &page.uri), ("from", &prev), ("hl", hl)],
            ))
            .s("\">← Earlier lines</a>");
    }
    h.s("</span><span class=\"muted small\">lines ")
        .n(page.from)
        .s("–")
        .n(page.to)
        .s(" of ")
        .n(page.total_lines)
        .s("</span><span>");
    if page.more.is_some() {
        let next = (page.to + 1).max(page.from + 1).to_string();
        h.s("<a href=\"")
            .t(form::link(
                "/view",
                &[("uri", &page.uri), ("from", &next), ("hl", hl)],
            ))
            .s("\">Later lines →</a>");
    }
    h.s("</span></div>");
    h
}

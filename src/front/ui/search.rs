//! Search: the request `pms search` and `memory_search` make
//! (`search::Request`), keyword or hybrid, each hit a link to the lines it
//! came from.

use super::form;
use super::html::{Html, Tab};
use super::{App, Reply, Req};
use crate::memory::index::db;
use crate::memory::search::hybrid::Semantic;
use crate::memory::search::{Mode, Request};

/// Most hits one page asks for.
const MAX_LIMIT: usize = 100;
const SOURCES: [(&str, &str); 4] = [
    ("knowledge", "your notes"),
    ("summary", "session summaries"),
    ("transcript", "conversations"),
    ("memory", "Claude Code's auto-memory"),
];

/// How a person asked to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// Keyword and meaning, when an embedding provider is in use.
    Hybrid,
    Keyword,
}

pub fn page(app: &App, req: &Req) -> Reply {
    let q = &req.query;
    let query = q.get("q").unwrap_or("").trim();
    let asked = match q.get("mode") {
        Some("keyword") => Asked::Keyword,
        _ => Asked::Hybrid,
    };
    let sources = q.all("source");
    let mut h = Html::new();
    h.s("<h1>Search</h1><section><form method=\"get\" action=\"/search\" role=\"search\"><label for=\"q\">Words, a question, or a phrase (English, Chinese, Japanese, Korean)</label><input id=\"q\" type=\"search\" name=\"q\" value=\"")
        .t(query)
        .s("\" autofocus><div class=\"checks\">");
    for (mode, label, checked) in [
        ("hybrid", "keyword + meaning", asked == Asked::Hybrid),
        ("keyword", "keyword only", asked == Asked::Keyword),
    ] {
        h.s("<label><input type=\"radio\" name=\"mode\" value=\"")
            .s(mode)
            .s("\"");
        if checked {
            h.s(" checked");
        }
        h.s("> ").s(label).s("</label>");
    }
    h.s("</div><div class=\"checks\">");
    for (name, label) in SOURCES {
        h.s("<label><input type=\"checkbox\" name=\"source\" value=\"")
            .s(name)
            .s("\"");
        if sources.contains(&name) {
            h.s(" checked");
        }
        h.s("> ").s(label).s("</label>");
    }
    h.s("</div><div class=\"row\"><div><label for=\"project\">Project or domain</label><input id=\"project\" type=\"text\" name=\"project\" value=\"")
        .t(q.get("project").unwrap_or(""))
        .s("\"></div><div><label for=\"since\">Since (date, or 7d / 2w / 3m)</label><input id=\"since\" type=\"text\" name=\"since\" value=\"")
        .t(q.get("since").unwrap_or(""))
        .s("\"></div><div><label for=\"until\">Until (date)</label><input id=\"until\" type=\"text\" name=\"until\" value=\"")
        .t(q.get("until").unwrap_or(""))
        .s("\"></div><div class=\"narrow\"><label for=\"limit\">Results</label><input id=\"limit\" type=\"number\" name=\"limit\" min=\"1\" max=\"100\" value=\"")
        .t(q.get("limit").unwrap_or(""))
        .s("\"></div></div><div class=\"actions\"><button>Search</button></div></form></section>");
    if query.is_empty() {
        return app.page(Tab::Search, "Search", &h);
    }

    let request = Request {
        query,
        limit: q.number("limit"),
        sources: sources.clone(),
        project: q.get("project"),
        since: q.get("since"),
        until: q.get("until"),
        group: None,
    };
    let params = match request.parse(&app.ctx.cfg.search, MAX_LIMIT) {
        Ok(p) => p,
        Err(e) => {
            h.s("<div class=\"notice err\">")
                .t(e.to_string())
                .s("</div>");
            return app.page(Tab::Search, "Search", &h);
        }
    };
    let db_path = app.ctx.ws.db_path();
    let conn = match db::open_ro(&db_path) {
        Ok(c) => c,
        Err(e) => {
            h.s("<div class=\"notice err\">")
                .t(e.to_string())
                .s("</div>");
            return app.page(Tab::Search, "Search", &h);
        }
    };
    let semantic = match asked {
        Asked::Keyword => Semantic::Off("keyword only was asked for".into()),
        Asked::Hybrid => app.semantic(),
    };
    let out = match crate::memory::search::search(
        &conn,
        &db_path,
        &app.ctx.cfg.search,
        &params,
        &semantic,
    ) {
        Ok(found) => {
            if let Some(w) = &found.warning {
                h.s("<div class=\"notice err\">").t(w).s("</div>");
            }
            found.outcome
        }
        Err(e) => {
            h.s("<div class=\"notice err\">")
                .t(e.to_string())
                .s("</div>");
            return app.page(Tab::Search, "Search", &h);
        }
    };
    h.s("<section id=\"results\"><p class=\"muted small\">")
        .t(crate::platform::plural::count(
            out.hits.len(),
            "result",
            "results",
        ))
        .s(" · ")
        .s(match out.mode {
            Mode::Hybrid => "keyword + meaning",
            Mode::Keyword => "keyword",
        })
        .s(" · matched: ")
        .s(out.matched.as_str());
    if let Some(note) = out.fallback_note() {
        h.s(" · ").s(note);
    }
    if let (Some(reason), Asked::Hybrid) = (&out.mode_reason, asked) {
        h.s(" · keyword only: ").t(reason);
    }
    h.s("</p>");
    if out.hits.is_empty() {
        h.s("<p>No results.</p>");
    }
    for hit in &out.hits {
        let hl = format!("{}-{}", hit.line_start, hit.line_end);
        let mut href = form::link("/view", &[("uri", &hit.uri), ("hl", &hl)]);
        href.push_str(&format!("#L{}", hit.line_start));
        h.s("<div class=\"hit\"><div><a href=\"")
            .t(&href)
            .s("\">")
            .t(hit
                .heading
                .as_deref()
                .filter(|s| !s.is_empty())
                .unwrap_or(&hit.uri))
            .s("</a></div><div class=\"meta\"><span class=\"score\">")
            .f(hit.score, 2)
            .s("</span> · <span class=\"badge\">")
            .t(&hit.source)
            .s("</span> ");
        if let Some(role) = &hit.role {
            h.t(role).s(" · ");
        }
        if let Some(d) = &hit.date {
            h.t(d.get(..10).unwrap_or(d)).s(" · ");
        }
        if !hit.project.is_empty() {
            h.t(&hit.project).s(" · ");
        }
        h.s("<span class=\"mono\">")
            .t(&hit.uri)
            .s(":")
            .n(hit.line_start)
            .s("–")
            .n(hit.line_end)
            .s("</span></div><p class=\"snippet\">")
            .t(&hit.snippet)
            .s("</p>");
        // The last hit shown of a conversation or file says how many more of
        // its passages matched (memory_search says the same).
        let group = out.groups.iter().find(|g| g.key == hit.group);
        let last_of_group = out
            .hits
            .iter()
            .rposition(|o| o.group == hit.group)
            .is_some_and(|i| std::ptr::eq(&out.hits[i], hit));
        if let Some(g) = group.filter(|g| g.more > 0 && last_of_group) {
            h.s("<p class=\"small muted\">")
                .t(crate::platform::plural::count(
                    g.more,
                    "more passage",
                    "more passages",
                ))
                .s(" of it matched: open it to read them.</p>");
        }
        h.s("</div>");
    }
    h.s("</section>");
    app.page(Tab::Search, &format!("Search: {query}"), &h)
}

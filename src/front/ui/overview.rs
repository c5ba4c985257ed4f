//! Overview: what the agent is told at session start, whether the wiring
//! works, what the index holds, and what went wrong in the hooks lately.

use super::html::{Html, Tab};
use super::{App, Reply, Req};
use crate::app::hooks::{budget, session_start};
use crate::app::verify::checks::{self, Options};
use crate::app::verify::{Check, Status};
use crate::memory::index::{db, stats};
use crate::memory::sessions::state::SessionState;

/// Claude Code shows the model only a preview of a hook's output past this.
const CLAUDE_CODE_CAP: usize = 10_000;
/// Hook log lines shown.
const HOOK_ERRORS: usize = 20;

pub fn page(app: &App, req: &Req) -> Reply {
    let ctx = &app.ctx;
    let mut h = super::notice(&req.query);
    h.s("<h1>Overview</h1>");

    for p in &ctx.cfg_problems {
        h.s("<div class=\"notice err\">config.toml: ")
            .t(p.to_string())
            .s(" (the default is used; `pms verify` says how to fix it)</div>");
    }

    // Layer 0, exactly as the session-start hook builds it for a new session.
    let layer0 = session_start::layer0(ctx, "startup", &SessionState::default());
    let size = budget::len(&layer0);
    h.s("<section id=\"layer0\"><h2>What the agent is told at session start</h2>");
    h.s("<p><b>")
        .n(size)
        .s("</b> of Claude Code's ")
        .n(CLAUDE_CODE_CAP);
    h.s(" characters (pms packs at most <code>hooks.budget_chars</code> = ")
        .n(ctx.cfg.hooks.budget_chars)
        .s(").</p>");
    // <meter>, not a styled bar: the page's CSP allows no inline style.
    h.s("<meter min=\"0\" max=\"")
        .n(CLAUDE_CODE_CAP)
        .s("\" high=\"")
        .n(ctx.cfg.hooks.budget_chars.min(CLAUDE_CODE_CAP))
        .s("\" value=\"")
        .n(size)
        .s("\">")
        .n(size)
        .s("</meter>");
    h.s("<details open><summary>The text</summary><pre class=\"layer0\">")
        .t(&layer0)
        .s("</pre></details></section>");

    // Wiring: the same checks as `pms verify`, without the slow ones.
    let wiring = checks::wiring(
        &ctx.env,
        &ctx.ws,
        Options {
            probe_mcp: false,
            run_hooks: false,
        },
    );
    h.s("<section id=\"health\"><h2>Hooks and MCP</h2>");
    h.h(&check_table(&wiring));
    h.s("<p class=\"small\"><a href=\"/health\">Run the live checks</a> <span class=\"muted\">(starts <code>pms serve</code> and runs each hook as Claude Code would: a few seconds)</span></p></section>");

    h.h(&index_section(app));
    h.h(&hook_errors(app));
    app.page(Tab::Overview, "Overview", &h)
}

/// The wiring checks with the live ones (`mcp.answers`, `hooks.run`).
pub fn live(app: &App) -> Reply {
    let ctx = &app.ctx;
    let all = checks::wiring(&ctx.env, &ctx.ws, Options::default());
    let mut h = Html::new();
    h.s("<h1>Live checks</h1><p class=\"muted\">The same checks as <code>pms verify</code>: the hooks and the MCP registration, <code>pms serve</code> answering, and each hook run with a sample payload.</p><section>");
    h.h(&check_table(&all));
    h.s("</section><p><a href=\"/\">Back to the overview</a></p>");
    app.page(Tab::Overview, "Live checks", &h)
}

fn check_table(checks: &[Check]) -> Html {
    let mut h = Html::new();
    h.s("<table class=\"stack\"><thead><tr><th>Status</th><th>Check</th><th>Found</th></tr></thead><tbody>");
    for c in checks {
        let class = match c.status {
            Status::Ok => "status-ok",
            Status::Warn => "status-warn",
            Status::Fail => "status-fail",
        };
        h.s("<tr><td class=\"nowrap ")
            .s(class)
            .s("\">")
            .s(c.status.label())
            .s("</td><td><code>")
            .t(c.id)
            .s("</code></td><td>")
            .t(&c.message);
        if c.status != Status::Ok {
            if c.fix.is_some() {
                h.s("<br><span class=\"small muted\"><code>pms verify --fix</code> repairs this</span>");
            }
            if let Some(hint) = &c.hint {
                h.s("<br><span class=\"small muted\">By hand: ")
                    .t(hint)
                    .s("</span>");
            }
        }
        h.s("</td></tr>");
    }
    h.s("</tbody></table>");
    h
}

fn index_section(app: &App) -> Html {
    let ws = &app.ctx.ws;
    let mut h = Html::new();
    h.s("<section id=\"index\"><h2>Search index</h2>");
    let conn = match db::open_ro(&ws.db_path()) {
        Ok(c) => c,
        Err(e) => {
            h.s("<p>").t(e.to_string()).s("</p></section>");
            return h;
        }
    };
    let counts = stats::counts(&conn).unwrap_or_default();
    let history = stats::history(&conn).unwrap_or_default();
    let bytes = std::fs::metadata(ws.db_path())
        .map(|m| m.len())
        .unwrap_or(0);
    let last = db::get_meta(&conn, "last_index");
    h.s("<div class=\"grid\">");
    stat(&mut h, "chunks", counts.chunks);
    stat(&mut h, "files", counts.files);
    stat(&mut h, "with vectors", counts.vectors);
    stat(&mut h, "sessions", history.sessions);
    stat(&mut h, "projects", history.projects);
    h.s("<div class=\"stat\"><b>")
        .t(format!("{:.1} MB", bytes as f64 / 1e6))
        .s("</b>on disk</div></div>");
    h.s("<p>Last indexed: ");
    match &last {
        Some(t) => {
            h.t(t.get(..19).unwrap_or(t).replace('T', " "))
                .s(" UTC (")
                .t(ago(t))
                .s(")");
        }
        None => {
            h.s("never");
        }
    }
    h.s("</p>");
    h.h(&check_table(&[checks::index_freshness(ws)]));
    h.s("</section>");
    h
}

fn stat(h: &mut Html, label: &'static str, n: i64) {
    h.s("<div class=\"stat\"><b>")
        .n(n)
        .s("</b>")
        .s(label)
        .s("</div>");
}

/// "3 minutes ago", "2 days ago".
fn ago(rfc3339: &str) -> String {
    let Ok(t) = chrono::DateTime::parse_from_rfc3339(rfc3339) else {
        return "unknown".into();
    };
    let secs = (chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds();
    match secs {
        s if s < 90 => "just now".into(),
        s if s < 90 * 60 => format!("{} minutes ago", s / 60),
        s if s < 36 * 3600 => format!("{} hours ago", s / 3600),
        s => format!("{} days ago", s / 86_400),
    }
}

fn hook_errors(app: &App) -> Html {
    let lines = crate::app::verify::doctor::recent_hook_errors(&app.ctx.ws, HOOK_ERRORS);
    let mut h = Html::new();
    h.s("<section id=\"hook-errors\"><h2>Recent hook errors</h2>");
    if lines.is_empty() {
        h.s("<p class=\"muted\">None logged.</p>");
    } else {
        h.s("<p class=\"small muted\">The last ")
            .t(crate::platform::plural::count(lines.len(), "line", "lines"))
            .s(" of <code>.pms/logs/hooks.log</code>, oldest first. The hooks never fail Claude Code: they log and go on.</p><pre>");
        for l in &lines {
            h.t(crate::platform::redact::redact(l)).s("\n");
        }
        h.s("</pre>");
    }
    h.s("</section>");
    h
}

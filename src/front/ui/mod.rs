//! `pms ui`: a local web page to see and tend the memory.
//!
//! A small blocking HTTP server (tiny_http) on 127.0.0.1, a few worker
//! threads, server-rendered HTML from templates embedded in the binary, a
//! few lines of optional JavaScript. Nothing here is reached from the hook
//! path: `pms hook` is dispatched before the command line is even parsed.
//!
//! Every page calls the same library functions as the CLI and the MCP
//! server: the session-start injection (`hooks::session_start::layer0`),
//! the verify checks, the lessons store and accept flow, the per-prompt
//! matcher, the timeline, the search request and `memory_get`'s reader.
//!
//! | Route | What |
//! |---|---|
//! | `GET /` | Overview: layer 0 as injected, its size, wiring health, index, hook errors |
//! | `GET /health` | The live checks too (`pms serve` answering, each hook run) |
//! | `GET /lessons` | Lessons in force, pending learnings, auto-memory corrections, the matcher box (`?prompt=`) |
//! | `POST /lessons/{accept,reject,edit,move,retire}` | The `pms lessons` actions |
//! | `POST /lessons/memory/{accept,forget}` | An auto-memory correction made a lesson, or removed |
//! | `GET /sessions` | Timeline by day (`?days=&around=&project=`) |
//! | `GET /view` | A file or a conversation (`?uri=&from=&hl=A-B`) |
//! | `GET /search` | Search (`?q=&mode=&source=&project=&since=&until=&limit=`) |
//! | `GET /static/{style.css,app.js,icon.svg}` | The stylesheet, the script, the icon |
//!
//! Who may ask is decided in [`guard`].

pub mod browser;
pub mod form;
pub mod guard;
pub mod html;
mod lessons;
mod overview;
mod search;
mod sessions;

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Result, anyhow};

use crate::memory::search::hybrid::{Semantic, SemanticCache};
use crate::platform::workspace::context::Context;
use form::Form;
use guard::{Admission, Guard, Refusal};
use html::{Html, Tab};

/// Threads answering requests: a slow page (the live checks, the first
/// hybrid search loading its model) does not hold up the others.
const WORKERS: usize = 4;
/// Largest request body read (a lesson and its cues are a few hundred bytes).
const MAX_BODY: u64 = 256 * 1024;
/// How often a waiting worker looks at the stop flag.
const POLL: Duration = Duration::from_millis(100);

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// The bound server.
pub struct Server {
    http: tiny_http::Server,
    app: App,
    port: u16,
}

/// What every request handler gets.
pub(crate) struct App {
    pub ctx: Context,
    pub guard: Guard,
    semantic: SemanticCache,
}

impl Server {
    /// Listens on 127.0.0.1:`port` (0: any free port). Nothing listens on
    /// any other interface.
    pub fn bind(ctx: Context, port: u16) -> Result<Server> {
        let http = tiny_http::Server::http(("127.0.0.1", port)).map_err(|e| {
            anyhow!(
                "127.0.0.1:{port}: cannot listen ({e}).\n  Fix: pass another --port, or leave it out for any free one"
            )
        })?;
        let port = http
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| anyhow!("127.0.0.1:{port}: the server has no IP address"))?;
        Ok(Server {
            http,
            app: App {
                ctx,
                guard: Guard::new(port)?,
                semantic: SemanticCache::new(),
            },
            port,
        })
    }

    /// The address to open, with the access token.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.port,
            self.app.guard.token()
        )
    }

    /// Serves until SIGINT (Ctrl+C) or SIGTERM, then returns once the
    /// requests under way are answered.
    pub fn run_until_interrupted(self) {
        // SAFETY: the handler only stores to an atomic, which is
        // async-signal-safe.
        unsafe {
            let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
        std::thread::scope(|s| {
            for _ in 0..WORKERS {
                s.spawn(|| {
                    while !STOP.load(Ordering::SeqCst) {
                        match self.http.recv_timeout(POLL) {
                            Ok(Some(rq)) => self.app.handle(rq),
                            Ok(None) => {}
                            Err(_) => std::thread::sleep(POLL),
                        }
                    }
                });
            }
        });
    }
}

/// HTTP methods the server knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
}

/// A request after the guard let it in.
pub(crate) struct Req {
    method: Method,
    path: String,
    pub query: Form,
    /// The POST body's fields (empty for GET).
    pub form: Form,
}

/// An answer.
pub(crate) struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    location: Option<String>,
    cookie: Option<String>,
}

impl Reply {
    pub fn html(status: u16, page: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
            location: None,
            cookie: None,
        }
    }

    /// 303 See Other: after a POST, and after the token became a cookie.
    pub fn redirect(location: String) -> Reply {
        Reply {
            status: 303,
            content_type: "text/plain; charset=utf-8",
            body: b"See Other\n".to_vec(),
            location: Some(location),
            cookie: None,
        }
    }

    fn asset(content_type: &'static str, body: &'static str) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: body.as_bytes().to_vec(),
            location: None,
            cookie: None,
        }
    }

    /// A bare page for a refused request: it says why, and shows nothing else.
    fn refused(r: Refusal) -> Reply {
        let mut body = Html::new();
        body.s("<!doctype html><meta charset=\"utf-8\"><title>pms ui</title><p>")
            .s(r.message())
            .s("</p>\n");
        Reply::html(r.status(), body.into_string())
    }

    fn into_response(self) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
        let header = |k: &str, v: &str| {
            tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).expect("ASCII header")
        };
        let mut r = tiny_http::Response::from_data(self.body)
            .with_status_code(self.status)
            .with_header(header("Content-Type", self.content_type))
            .with_header(header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; \
form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ))
            .with_header(header("X-Content-Type-Options", "nosniff"))
            .with_header(header("X-Frame-Options", "DENY"))
            // Not no-referrer: with it Chromium sends `Origin: null` on the
            // page's own form posts, which the guard must refuse.
            .with_header(header("Referrer-Policy", "same-origin"))
            .with_header(header("Cross-Origin-Opener-Policy", "same-origin"))
            .with_header(header("Cross-Origin-Resource-Policy", "same-origin"))
            .with_header(header("Cache-Control", "no-store"));
        if let Some(l) = &self.location {
            r.add_header(header("Location", l));
        }
        if let Some(c) = &self.cookie {
            r.add_header(header("Set-Cookie", c));
        }
        r
    }
}

impl App {
    fn handle(&self, mut rq: tiny_http::Request) {
        let reply = self.answer(&mut rq);
        let _ = rq.respond(reply.into_response());
    }

    fn header<'a>(rq: &'a tiny_http::Request, name: &str) -> Option<&'a str> {
        rq.headers()
            .iter()
            .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    fn answer(&self, rq: &mut tiny_http::Request) -> Reply {
        if let Err(r) = self.guard.check_host(Self::header(rq, "Host")) {
            return Reply::refused(r);
        }
        if let Err(r) = self.guard.check_origin(
            Self::header(rq, "Origin"),
            Self::header(rq, "Sec-Fetch-Site"),
        ) {
            return Reply::refused(r);
        }
        let (path, query) = match rq.url().split_once('?') {
            Some((p, q)) => (p.to_string(), Form::parse(q)),
            None => (rq.url().to_string(), Form::default()),
        };
        match self
            .guard
            .admit(query.get("token"), Self::header(rq, "Cookie"))
        {
            Err(r) => return Reply::refused(r),
            Ok(Admission::UrlToken) => {
                let rest = query.without("token").encode();
                let mut to = if rest.is_empty() {
                    path.clone()
                } else {
                    format!("{path}?{rest}")
                };
                if !to.starts_with('/') || to.starts_with("//") {
                    to = "/".into();
                }
                let mut r = Reply::redirect(to);
                r.cookie = Some(self.guard.set_cookie());
                return r;
            }
            Ok(Admission::Cookie) => {}
        }
        let method = match rq.method() {
            tiny_http::Method::Get | tiny_http::Method::Head => Method::Get,
            tiny_http::Method::Post => Method::Post,
            _ => return self.error(Tab::Overview, 405, "Only GET and POST are served."),
        };
        let mut form = Form::default();
        if method == Method::Post {
            let urlencoded = Self::header(rq, "Content-Type").is_some_and(|t| {
                t.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/x-www-form-urlencoded")
            });
            if !urlencoded {
                return self.error(Tab::Overview, 415, "Forms are sent URL-encoded.");
            }
            let mut body = String::new();
            if rq
                .as_reader()
                .take(MAX_BODY + 1)
                .read_to_string(&mut body)
                .is_err()
                || body.len() as u64 > MAX_BODY
            {
                return self.error(Tab::Overview, 413, "The form is too large.");
            }
            form = Form::parse(&body);
            if let Err(r) = self.guard.check_csrf(form.get("csrf")) {
                return Reply::refused(r);
            }
        }
        let req = Req {
            method,
            path,
            query,
            form,
        };
        self.route(&req)
    }

    fn route(&self, req: &Req) -> Reply {
        let reply = self.dispatch(req);
        // A lesson the page wrote is indexed at once, as the CLI's are, so
        // that `index.fresh` never reports pms's own change as staleness.
        if req.method == Method::Post && req.path.starts_with("/lessons/") {
            let files: Vec<std::path::PathBuf> = crate::memory::lessons::rule_files(&self.ctx.ws)
                .into_iter()
                .map(|(path, _, _)| path)
                .collect();
            crate::app::upkeep::index_own_writes(&self.ctx, &files);
        }
        reply
    }

    fn dispatch(&self, req: &Req) -> Reply {
        use Method::{Get, Post};
        match (req.method, req.path.as_str()) {
            (Get, "/") => overview::page(self, req),
            (Get, "/health") => overview::live(self),
            (Get, "/lessons") => lessons::page(self, req),
            (Post, "/lessons/accept") => lessons::accept(self, req),
            (Post, "/lessons/reject") => lessons::reject(self, req),
            (Post, "/lessons/edit") => lessons::edit(self, req),
            (Post, "/lessons/move") => lessons::move_rule(self, req),
            (Post, "/lessons/retire") => lessons::retire(self, req),
            (Post, "/lessons/memory/accept") => lessons::memory_accept(self, req),
            (Post, "/lessons/memory/forget") => lessons::memory_forget(self, req),
            (Get, "/sessions") => sessions::timeline(self, req),
            (Get, "/view") => sessions::view(self, req),
            (Get, "/search") => search::page(self, req),
            (Get, "/static/style.css") => {
                Reply::asset("text/css; charset=utf-8", include_str!("assets/style.css"))
            }
            (Get, "/static/app.js") => Reply::asset(
                "text/javascript; charset=utf-8",
                include_str!("assets/app.js"),
            ),
            (Get, "/static/icon.svg") => {
                Reply::asset("image/svg+xml", include_str!("assets/icon.svg"))
            }
            (
                _,
                "/"
                | "/health"
                | "/lessons"
                | "/sessions"
                | "/view"
                | "/search"
                | "/lessons/accept"
                | "/lessons/reject"
                | "/lessons/edit"
                | "/lessons/move"
                | "/lessons/retire"
                | "/lessons/memory/accept"
                | "/lessons/memory/forget",
            ) => self.error(
                Tab::Overview,
                405,
                "That address does not take this method.",
            ),
            _ => self.error(Tab::Overview, 404, "No such page."),
        }
    }

    /// A page in the layout.
    pub fn page(&self, tab: Tab, title: &str, body: &Html) -> Reply {
        Reply::html(200, html::page(tab, title, &self.footer(), body))
    }

    /// An error page in the layout.
    pub fn error(&self, tab: Tab, status: u16, message: &str) -> Reply {
        let mut body = Html::new();
        body.s("<div class=\"notice err\">").t(message).s("</div>");
        Reply::html(status, html::page(tab, "Error", &self.footer(), &body))
    }

    fn footer(&self) -> String {
        format!(
            "pms {} · workspace {}",
            env!("CARGO_PKG_VERSION"),
            self.ctx.env.display(&self.ctx.ws.root)
        )
    }

    /// The hidden field every form posts.
    pub fn csrf_field(&self) -> Html {
        let mut h = Html::new();
        h.s("<input type=\"hidden\" name=\"csrf\" value=\"")
            .t(self.guard.csrf())
            .s("\">");
        h
    }

    /// The semantic side of a hybrid search, loaded at the first one and
    /// kept, as `pms serve` does.
    pub fn semantic(&self) -> Semantic<'_> {
        self.semantic
            .semantic(&self.ctx.cfg.embeddings, &self.ctx.env)
    }
}

/// The `notice` a POST left for the page it redirected to.
pub(crate) fn notice(q: &Form) -> Html {
    let mut h = Html::new();
    if let Some(n) = q.given("notice") {
        let class = if q.get("failed") == Some("1") {
            "notice err"
        } else {
            "notice ok"
        };
        h.s("<div class=\"");
        h.s(class).s("\" role=\"status\">").t(n).s("</div>");
    }
    h
}

//! The memory and lessons tools of `pms serve` and the instructions that
//! tell the agent when to use them. Tool failures (a bad argument, no index yet, a path outside the
//! memory) are normal results with `isError`, so the model can read the
//! message and correct itself; every result is bounded well below Claude
//! Code's 25,000-token tool output cap.

use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock as Content, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData as McpError, ServerHandler, schemars, tool, tool_handler, tool_router};
use rusqlite::Connection;
use serde::Deserialize;

use crate::memory::index::db;
use crate::memory::index::indexer::transcript_roots;
use crate::memory::search::hybrid::{Semantic, SemanticCache};
use crate::memory::search::request::MAX_QUERY_CHARS;
use crate::memory::search::{self, Request, SearchParams, fetch};
use crate::platform::workspace::context::Context;

/// Shown to the agent with the tool names (Claude Code defers MCP tool
/// schemas, so this is what tells it when to reach for them). Under 2 KB.
pub const INSTRUCTIONS: &str = "pms is the user's personal memory: their notes and domain rules, confirmed lessons, \
session summaries, and every past conversation (Claude Code, Codex, OpenClaw; ChatGPT and Claude.ai chats imported). Search it before answering anything about past work, \
decisions, people, preferences or \"what did we do about X\" (including \"yesterday\", \"last week\"), and before \
redoing work that may have been done. memory_search finds passages (turns of past conversations, parts of files; ask in plain words or as a question), \
shown together per conversation (cc://, codex://, openclaw://, chatgpt:// or claude-ai:// URIs) or file (e.g. product/CLAUDE.md) with how many more \
matched there; memory_search_context opens those, the best passages inside one of them. memory_get reads the original text around a hit by line range: quote it rather than guessing. \
memory_timeline lists past sessions by day (\"what did I do last week?\") with no query. memory_save keeps a note \
the user asks you to remember. Session summaries (sessions/*.md) carry a transcript_ref pointing to the full conversation. Learnings staged from past \
sessions wait for the user's confirmation: lessons_pending lists them; after the user explicitly says yes to one, \
lessons_promote makes it a rule (reword it as an imperative: what to do, when, why); lessons_reject drops one. \
Never promote without the user's yes.";

/// Most hits one call returns.
const MAX_LIMIT: usize = 50;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// Words to look for, in any language.
    pub query: String,
    /// Most results (default 10, at most 50).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Only one source: "knowledge" (notes and rules), "summary" (session summaries), "transcript" (past conversations) or "memory" (Claude Code's auto-memory).
    #[serde(default)]
    pub source: Option<String>,
    /// Only one project: a transcript folder (e.g. -home-me-app) or a domain (e.g. product).
    #[serde(default)]
    pub project: Option<String>,
    /// Only results on or after this date (YYYY-MM-DD).
    #[serde(default)]
    pub since: Option<String>,
    /// How hits are put together: "session" (default: the turns of one conversation together, with how many more it holds), "file", or "none" (plain rank order).
    #[serde(default)]
    pub group: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ContextArgs {
    /// The file or conversation to look inside: a path from memory_search (e.g. product/CLAUDE.md) or a conversation URI (cc://<project>/<session>.jsonl, chatgpt://<id>.jsonl, ...).
    pub source: String,
    /// Words to look for inside it.
    pub query: String,
    /// Most passages (default 5, at most 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PromoteArgs {
    /// The pending learning's id (P-...), from lessons_pending.
    pub id: String,
    /// The rule as the user agreed to it, phrased as an imperative: what to do, when, and why, in one line. Default: the staged text.
    #[serde(default)]
    pub text: Option<String>,
    /// 5 to 10 short cues for when the rule applies, written from the rule itself: situations, commands, synonyms, file types a request would show (for "Never force-push to main": "git push --force", "overwrite the remote branch", "rewrite history on main"). pms matches them against every prompt.
    #[serde(default)]
    pub applies_when: Option<Vec<String>>,
    /// Where it belongs: a domain (e.g. product) or "me" for all work. Default: the suggested domain, else me.
    #[serde(default)]
    pub domain: Option<String>,
    /// If a near-duplicate lesson is in force (the previous answer named it), merge into it: it takes this wording, and these cues join its own. Only with the user's yes.
    #[serde(default)]
    pub merge: Option<bool>,
    /// Add it even beside a near-duplicate (the user said they differ).
    #[serde(default)]
    pub allow_duplicate: Option<bool>,
    /// Only with the user's yes: a regular expression over the command line (or an edited file's path) that blocks the tool calls the rule forbids, e.g. "\\bnpm\\s+(install|i|ci)\\b". lessons_pending shows the one pms proposes.
    #[serde(default)]
    pub guard: Option<String>,
    /// What the guard does: "deny" (default: the call is blocked, the rule is the reason) or "ask" (the user is asked).
    #[serde(default)]
    pub guard_mode: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct TimelineArgs {
    /// Centre of the window: a date (YYYY-MM-DD), a span back from now (7d, 2w), or a path/cc:// URI from memory_search. Default: now, looking back.
    #[serde(default)]
    pub around: Option<String>,
    /// Days the window spans (default 7, at most 366).
    #[serde(default)]
    pub days: Option<u32>,
    /// Only one project (a transcript folder such as -home-me-app).
    #[serde(default)]
    pub project: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SaveArgs {
    /// A short title for the note.
    pub title: String,
    /// The note itself (markdown), as the user asked to keep it.
    pub text: String,
    /// The domain it belongs to (e.g. product): saved in <domain>/projects/. Default: notes/.
    #[serde(default)]
    pub domain: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RejectArgs {
    /// The pending learning's id (P-...).
    pub id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct GetArgs {
    /// A workspace path (e.g. _me/lessons.md) or a conversation URI from memory_search (cc://<project>/<session>.jsonl, codex://..., chatgpt://<id>.jsonl, ...).
    pub path: String,
    /// First line (1-based; for conversations, the JSONL line numbers shown in hits).
    #[serde(default)]
    pub from: Option<u64>,
    /// How many lines (default 200, at most 2000).
    #[serde(default)]
    pub lines: Option<u64>,
}

/// What the tools work on, shared by the calls running at once.
pub struct Memory {
    ctx: Context,
    conn: Mutex<Option<Connection>>,
    /// The embedding provider, loaded by the first search that needs it: a
    /// session that never searches never pays for the model (a large one
    /// takes a second or two and a hundred MB or more of memory).
    semantic: SemanticCache,
}

pub struct MemoryServer {
    memory: Arc<Memory>,
    tool_router: ToolRouter<Self>,
}

fn fail(msg: impl Into<String>) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::error(vec![Content::text(msg.into())]))
}

/// A tool result with every text part redacted.
fn redacted(mut r: CallToolResult) -> CallToolResult {
    for c in &mut r.content {
        if let Some(t) = c.as_text()
            && let std::borrow::Cow::Owned(clean) = crate::platform::redact::redact(&t.text)
        {
            *c = Content::text(clean);
        }
    }
    r
}

/// `text` after the warning that the index is damaged, when there is one.
fn warned(warning: Option<String>, text: String) -> String {
    match warning {
        Some(w) => format!("Warning: {w}\n\n{text}"),
        None => text,
    }
}

fn ok(text: String) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::success(vec![Content::text(text)]))
}

fn clamp_query(q: &str) -> String {
    q.chars().take(MAX_QUERY_CHARS).collect()
}

impl Memory {
    /// The semantic side of a search: the loaded provider, or why not.
    fn semantic(&self) -> Semantic<'_> {
        self.semantic
            .semantic(&self.ctx.cfg.embeddings, &self.ctx.env)
    }

    /// [`INSTRUCTIONS`], and what is wrong in `config.toml` when something
    /// is (the agent can tell the user; the tools work with the defaults).
    fn instructions(&self) -> String {
        if self.ctx.cfg_problems.is_empty() {
            return INSTRUCTIONS.to_string();
        }
        let problems: Vec<String> = self
            .ctx
            .cfg_problems
            .iter()
            .map(|e| {
                crate::platform::agents::transcript::truncate(
                    &e.to_string().replace('\n', " "),
                    200,
                )
            })
            .collect();
        format!(
            "{INSTRUCTIONS} Note for the user: their pms config.toml has problems, so defaults are used for: {}. `pms verify` shows how to fix it.",
            problems.join("; ")
        )
    }

    /// Runs `f` with the index open (opened on first use, so a server started
    /// before the first `pms index` still works once it exists).
    fn with_db<T>(&self, f: impl FnOnce(&Connection) -> Result<T, String>) -> Result<T, String> {
        let mut guard = self
            .conn
            .lock()
            .map_err(|_| "internal error: lock poisoned".to_string())?;
        if guard.is_none() {
            *guard = Some(db::open_ro(&self.ctx.ws.db_path()).map_err(|e| e.to_string())?);
        }
        f(guard.as_ref().expect("opened above"))
    }

    /// One search on the open index ([`search::search`]).
    fn search_db(
        &self,
        c: &Connection,
        params: &SearchParams,
        semantic: &Semantic,
    ) -> Result<crate::memory::search::Checked, String> {
        crate::memory::search::search(
            c,
            &self.ctx.ws.db_path(),
            &self.ctx.cfg.search,
            params,
            semantic,
        )
        .map_err(|e| e.to_string())
    }

    fn memory_search(&self, a: SearchArgs) -> Result<CallToolResult, McpError> {
        let request = Request {
            query: &a.query,
            limit: a.limit.map(|l| l as usize),
            sources: a.source.as_deref().into_iter().collect(),
            project: a.project.as_deref(),
            since: a.since.as_deref(),
            until: None,
            group: a.group.as_deref(),
        };
        let params = match request.parse(&self.ctx.cfg.search, MAX_LIMIT) {
            Ok(p) => p,
            Err(e) => return fail(e.to_string()),
        };
        let semantic = self.semantic();
        match self.with_db(|c| self.search_db(c, &params, &semantic)) {
            Ok(found) => ok(warned(
                found.warning,
                format_hits(&a.query, &found.outcome, false),
            )),
            Err(e) => fail(e),
        }
    }

    fn memory_search_context(&self, a: ContextArgs) -> Result<CallToolResult, McpError> {
        let roots = transcript_roots(&self.ctx.env, &self.ctx.cfg);
        let logs = crate::memory::index::discover::AgentLogs::of(&self.ctx.env, &self.ctx.ws);
        let uri = match fetch::resolve(&self.ctx.ws, &roots, &logs, &a.source) {
            Ok(fetch::Target::File { uri, .. }) | Ok(fetch::Target::Transcript { uri, .. }) => uri,
            Err(e) => return fail(e.to_string()),
        };
        let limit = a.limit.map(|l| l as usize).unwrap_or(5).clamp(1, MAX_LIMIT);
        let params = SearchParams {
            query: clamp_query(&a.query),
            limit,
            within: Some(uri.clone()),
            group: crate::platform::workspace::config::Group::None,
            ..SearchParams::default()
        };
        let semantic = self.semantic();
        match self.with_db(|c| self.search_db(c, &params, &semantic)) {
            Ok(found) if found.outcome.hits.is_empty() => ok(warned(
                found.warning,
                format!(
                    "No passage of {uri} matches {:?}. It may not be indexed yet, or use memory_get to read it.",
                    shown(&a.query)
                ),
            )),
            Ok(found) => ok(warned(
                found.warning,
                format_hits(&a.query, &found.outcome, true),
            )),
            Err(e) => fail(e),
        }
    }

    fn lessons_pending(&self) -> Result<CallToolResult, McpError> {
        let items = match crate::memory::lessons::pending::load(&self.ctx.ws) {
            Ok(p) => p.items,
            Err(e) => return fail(e.to_string()),
        };
        let rules = crate::memory::lessons::all_rules(&self.ctx.ws);
        let mut s = if items.is_empty() {
            "No learnings wait for confirmation.\n".to_string()
        } else {
            let mut s = format!(
                "{} for the user's yes. Ask the user about them; promote only the ones they accept.\n",
                crate::platform::plural::count(items.len(), "learning waits", "learnings wait")
            );
            for i in items.iter().take(50) {
                let home = i.domain.as_deref().unwrap_or("me");
                let by = match i.origin {
                    Some(crate::memory::lessons::signals::Origin::User) => ", said by the user",
                    _ => "",
                };
                s.push_str(&format!(
                    "- {} [{} → {home}{by}] {}\n",
                    i.id,
                    i.kind,
                    crate::platform::agents::transcript::truncate(&i.text, 300)
                ));
                if let Some(why) = &i.why {
                    s.push_str(&format!(
                        "  why: {}\n",
                        crate::platform::agents::transcript::truncate(why, 200)
                    ));
                }
                if let Some(r) = crate::memory::lessons::near_duplicate(&rules, &i.text) {
                    s.push_str(&format!(
                        "  nearly the same as lesson {} ({}): {}. Ask the user: merge it into {} (lessons_promote with merge: true), keep both (allow_duplicate: true), or reject it.\n",
                        r.id,
                        r.file,
                        crate::platform::agents::transcript::truncate(&r.text, 200),
                        r.id
                    ));
                }
            }
            s
        };
        s.push_str(&format!(
            "\n{} in force.\n",
            crate::platform::plural::count(rules.len(), "lesson", "lessons")
        ));
        for r in rules.iter().take(50) {
            s.push_str(&format!(
                "- {} ({}) {}\n",
                r.id,
                r.file,
                crate::platform::agents::transcript::truncate(&r.text, 200)
            ));
        }
        ok(s)
    }

    fn lessons_promote(&self, a: PromoteArgs) -> Result<CallToolResult, McpError> {
        use crate::memory::lessons::accept::{Acceptance, Accepted, accept};
        use crate::memory::lessons::guard::{Guard, GuardMode};
        use crate::memory::lessons::store::OnDuplicate;
        let how = Acceptance {
            text: a.text.as_deref(),
            cues: a.applies_when.clone(),
            target: a.domain.as_deref(),
            on_duplicate: OnDuplicate::from_flags(
                a.merge.unwrap_or(false),
                a.allow_duplicate.unwrap_or(false),
            ),
            guard: match a.guard.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
                None => None,
                Some(pattern) => {
                    let mode = match a.guard_mode.as_deref().map(str::trim) {
                        None | Some("") | Some("deny") => GuardMode::Deny,
                        Some("ask") => GuardMode::Ask,
                        Some(other) => {
                            return fail(format!(
                                "guard_mode {other:?} is not one of \"deny\" or \"ask\". Nothing changed."
                            ));
                        }
                    };
                    match Guard::new(pattern, mode) {
                        Ok(g) => Some(g),
                        Err(e) => return fail(format!("{e}. Nothing changed.")),
                    }
                }
            },
            project: None,
        };
        match accept(&self.ctx.ws, a.id.trim(), &how) {
            Ok(Accepted::Promoted(r)) => ok(format!(
                "Promoted {} as rule {} in {}: {}",
                a.id, r.id, r.file, r.text
            )),
            Ok(Accepted::Merged(r)) => ok(format!(
                "Merged {} into rule {} in {}: {}",
                a.id, r.id, r.file, r.text
            )),
            Ok(Accepted::Duplicate { existing, .. }) => fail(format!(
                "Nothing changed: lesson {} ({}) already says nearly the same: {}. Ask the user whether to merge \
(call lessons_promote again with merge: true: {} takes this wording and cues), add it anyway (allow_duplicate: true), \
or reject this learning.",
                existing.id, existing.file, existing.text, existing.id
            )),
            Err(e) => fail(e.to_string()),
        }
    }

    fn lessons_reject(&self, a: RejectArgs) -> Result<CallToolResult, McpError> {
        match crate::memory::lessons::accept::reject(&self.ctx.ws, a.id.trim()) {
            Ok(item) => ok(format!("Rejected {}: {}", item.id, item.text)),
            Err(e) => fail(e.to_string()),
        }
    }

    fn memory_timeline(&self, a: TimelineArgs) -> Result<CallToolResult, McpError> {
        use crate::memory::search::timeline::{Around, timeline};
        let around = match a.around.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => Around::Now,
            Some(s) if s.starts_with("cc://") || s.contains('/') || s.ends_with(".md") => {
                Around::Hit(s.to_string())
            }
            Some(s) => match search::parse_date(s) {
                Ok(d) => Around::Date(d),
                Err(e) => return fail(e.to_string()),
            },
        };
        let days = a.days.unwrap_or(7);
        match self.with_db(|c| {
            timeline(c, &around, days, a.project.as_deref(), 200).map_err(|e| e.to_string())
        }) {
            Ok(days) if days.is_empty() => ok("No sessions in that window.".into()),
            Ok(days) => {
                let mut s = String::new();
                for d in days {
                    s.push_str(&format!("{}\n", d.date));
                    for x in d.sessions {
                        let time = x.start.get(11..16).unwrap_or("");
                        s.push_str(&format!(
                            "  {time} {} ({}) {}{}\n",
                            crate::app::hooks::budget::neutralise(&x.title),
                            x.project,
                            x.uri,
                            x.summary
                                .map(|p| format!(", summary {p}"))
                                .unwrap_or_default()
                        ));
                    }
                }
                s.push_str("\nOpen a session with memory_get(uri); look inside one with memory_search_context.");
                ok(s)
            }
            Err(e) => fail(e),
        }
    }

    fn memory_save(&self, a: SaveArgs) -> Result<CallToolResult, McpError> {
        let note = crate::app::notes::Note {
            title: &a.title,
            text: &a.text,
            domain: a.domain.as_deref(),
        };
        match crate::app::notes::save(&self.ctx, &note) {
            Ok(saved) => ok(format!(
                "Saved {}{}.",
                saved.uri,
                if saved.indexed {
                    " (searchable now)"
                } else {
                    " (searchable after the next index run)"
                }
            )),
            Err(e) => fail(e.to_string()),
        }
    }

    fn memory_get(&self, a: GetArgs) -> Result<CallToolResult, McpError> {
        let roots = transcript_roots(&self.ctx.env, &self.ctx.cfg);
        match fetch::get(
            &self.ctx.ws,
            &self.ctx.env,
            &roots,
            &a.path,
            a.from,
            a.lines,
        ) {
            Ok(f) => {
                let mut text = format!("{} (lines {}-{}):\n\n{}", f.uri, f.from, f.to, f.text);
                if let Some(more) = f.more {
                    text.push_str(&format!("\n[{more}]"));
                }
                ok(text)
            }
            Err(e) => fail(e.to_string()),
        }
    }
}

#[tool_router]
impl MemoryServer {
    pub fn new(ctx: Context) -> Self {
        MemoryServer {
            memory: Arc::new(Memory {
                ctx,
                conn: Mutex::new(None),
                semantic: SemanticCache::new(),
            }),
            tool_router: Self::tool_router(),
        }
    }

    /// Runs a tool on the blocking pool: a slow call (a large transcript,
    /// a model loading) must not stop the server answering the others,
    /// `ping` included.
    async fn run(
        &self,
        f: impl FnOnce(&Memory) -> Result<CallToolResult, McpError> + Send + 'static,
    ) -> Result<CallToolResult, McpError> {
        let memory = Arc::clone(&self.memory);
        // The tests' slow call (`PMS_TEST_TOOL_DELAY_MS`).
        let delay = std::env::var("PMS_TEST_TOOL_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_millis);
        match tokio::task::spawn_blocking(move || {
            if let Some(d) = delay {
                std::thread::sleep(d);
            }
            // Whatever a tool answers, no secret leaves: stored text is
            // redacted already, this also covers what older versions stored.
            f(&memory).map(redacted)
        })
        .await
        {
            Ok(r) => r,
            Err(e) => fail(format!("internal error: {e}")),
        }
    }

    #[tool(
        description = "Search the user's memory (notes, lessons, session summaries, past conversations with Claude Code, Codex and OpenClaw). Ask in plain words or as a question. Returns ranked passages (single turns of a conversation, or parts of a file) with path or conversation URI, line range, score, source, date and a snippet. By default the hits of one conversation are shown together under its URI (group=\"session\"; \"file\" or \"none\" for plain rank order), and each group says how many more passages of it matched beyond the limit: open those with memory_search_context(source=<that URI>, query).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.memory_search(a)).await
    }

    #[tool(
        description = "Find the best passages for a query inside one file or one past conversation (a path or cc:// URI from memory_search).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_search_context(
        &self,
        Parameters(a): Parameters<ContextArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.memory_search_context(a)).await
    }

    #[tool(
        description = "List the learnings staged from past sessions that wait for the user's confirmation, and the lessons in force.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn lessons_pending(
        &self,
        Parameters(_): Parameters<NoArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.lessons_pending()).await
    }

    #[tool(
        description = "Make a pending learning a rule in force (written to _me/lessons.md or a domain's CLAUDE.md). Call ONLY after the user has explicitly said yes to this learning in this conversation. Pass `text`: the rule as an imperative (what to do, when, why), in one line. Pass `applies_when`: 5 to 10 short cues for when it applies (situations, commands, synonyms, file types), written from the rule alone; pms uses them to put the rule in front of you whenever a request matches. If a lesson in force says nearly the same, nothing is written and the answer names it: ask the user, then call again with `merge: true` (that lesson takes this wording and cues) or `allow_duplicate: true`.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn lessons_promote(
        &self,
        Parameters(a): Parameters<PromoteArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.lessons_promote(a)).await
    }

    #[tool(
        description = "Drop a pending learning the user does not want as a rule.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            open_world_hint = false
        )
    )]
    async fn lessons_reject(
        &self,
        Parameters(a): Parameters<RejectArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.lessons_reject(a)).await
    }

    #[tool(
        description = "The user's past sessions (Claude Code, Codex, OpenClaw) by day and project, with each session's title and its conversation URI: for \"what did I do last week?\", \"what was I working on around March 3?\", or what happened around a hit. No query needed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_timeline(
        &self,
        Parameters(a): Parameters<TimelineArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.memory_timeline(a)).await
    }

    #[tool(
        description = "Save a note the user asked you to keep (a decision, a fact, a checklist) into their memory: a markdown file in the domain's projects/ folder (or notes/), never overwriting a file, secrets redacted, searchable at once. Only when the user asks to remember or save something.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn memory_save(
        &self,
        Parameters(a): Parameters<SaveArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.memory_save(a)).await
    }

    #[tool(
        description = "Read a memory file or a past conversation by line range. Conversations are shown as turns labelled with their JSONL line numbers.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn memory_get(
        &self,
        Parameters(a): Parameters<GetArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |m| m.memory_get(a)).await
    }
}

/// The query as quoted back in messages: short, whatever was sent.
fn shown(query: &str) -> String {
    crate::platform::agents::transcript::truncate(query, 80)
}

fn format_hits(query: &str, out: &search::SearchOutcome, inside: bool) -> String {
    if out.hits.is_empty() {
        return format!(
            "No memory matches {:?}. Try fewer or different words.",
            shown(query)
        );
    }
    let mut s = String::new();
    if let Some(note) = out.fallback_note() {
        s.push_str(&format!("({note})\n"));
    }
    let mut n = 0;
    for (gi, g) in out.groups.iter().enumerate() {
        let grouped = !inside && out.group != crate::platform::workspace::config::Group::None;
        if grouped {
            let more = if g.more > 0 {
                format!(
                    "; {} there: memory_search_context(source=\"{}\", query)",
                    crate::platform::plural::count(
                        g.more,
                        "more matching passage",
                        "more matching passages"
                    ),
                    g.key
                )
            } else {
                String::new()
            };
            s.push_str(&format!(
                "== {} ({}{more})\n",
                g.key,
                crate::platform::plural::count(g.hits, "hit", "hits")
            ));
        }
        for h in out.group_hits(gi) {
            n += 1;
            let date = h
                .date
                .as_deref()
                .and_then(|d| d.get(..10))
                .unwrap_or("undated");
            let what = h.heading.as_deref().or(h.role.as_deref()).unwrap_or("");
            s.push_str(&format!(
                "{}. {} lines {}-{} ({}, {}, score {:.2}) {}\n   {}\n",
                n, h.uri, h.line_start, h.line_end, h.source, date, h.score, what, h.snippet
            ));
        }
    }
    if !inside {
        s.push_str("\nRead around a hit with memory_get(path, from, lines); look inside one with memory_search_context.");
    }
    s
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("pms", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.memory.instructions())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_claude_codes_2kb_cut() {
        assert!(INSTRUCTIONS.len() < 2_000, "{}", INSTRUCTIONS.len());
    }
}

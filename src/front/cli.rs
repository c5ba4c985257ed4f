//! Command-line interface: every subcommand and flag, parsed by clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "pms",
    version,
    about = "Personal memory for Claude Code, Codex and OpenClaw: who you are, what you learned, and everything you discussed.",
    long_about = None,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a workspace and wire it into Claude Code, Codex or OpenClaw (guided, or unattended with --yes)
    Init(InitArgs),
    /// Run a hook (called by the agent, reads JSON on stdin)
    Hook(HookArgs),
    /// Serve the memory tools to Claude Code, Codex or OpenClaw over MCP (stdio)
    Serve(WorkspaceArg),
    /// Build or update the search index (knowledge, session summaries, the agents' transcripts)
    Index(IndexArgs),
    /// Search your notes, session summaries and past conversations with the agents
    Search(SearchArgs),
    /// Show a file or a past conversation (cc://<project>/<session>.jsonl, chatgpt://<id>) by line range
    Get(GetArgs),
    /// Learnings waiting for your yes, and the lessons in force (review, accept, reject, add, retire)
    Lessons(LessonsArgs),
    /// Bring your memory from ChatGPT, Claude.ai, claude-mem, claude-mem-lite, basic-memory or the MCP memory server
    Import(ImportArgs),
    /// Background upkeep started by the hooks: summarise sessions that ended without SessionEnd, then index
    #[command(hide = true)]
    Sync(SyncArgs),
    /// Remove pms's hooks and MCP registrations from the agents (user data stays unless --purge)
    Uninstall(UninstallArgs),
    /// Check every part of the install; --fix repairs what it can
    Verify(VerifyArgs),
    /// verify plus the environment, recent hook errors and locks, with fixes offered
    Doctor(DoctorArgs),
    /// One screen: workspace, hooks, MCP, index, lessons
    Status(StatusArgs),
    /// Install the newest release, then bring the workspace in step (user data untouched)
    Upgrade(UpgradeArgs),
    /// Semantic recall: the embedding provider's state, and installing the local model
    Embeddings(EmbeddingsArgs),
    /// A local web page to see and tend the memory: what the agent is told, lessons, sessions, search
    Ui(UiArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(CompletionsArgs),
    /// Print the man page (roff), e.g. `pms man > ~/.local/share/man/man1/pms.1`
    Man,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Print the report as JSON (the verify report plus environment, hook errors and locks; no fixes offered)
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct EmbeddingsArgs {
    #[command(subcommand)]
    pub action: Option<EmbeddingsAction>,
    /// Print the status as JSON
    #[arg(long, global = true)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Subcommand)]
pub enum EmbeddingsAction {
    /// Which provider is in use, the local model's files, and how much of the index has vectors
    Status,
    /// Download the local model (embeddings.model) with checksums, or install it from a folder
    ///
    /// The default model is sentence-transformers/all-MiniLM-L6-v2: English, about 90 MB, reads
    /// words in context. For other languages install the static multilingual model instead:
    /// `pms embeddings install --model minishlab/potion-multilingual-128M` (about 500 MB, faster
    /// to index, weaker on English paraphrases).
    Install {
        /// A folder holding the model's config.json, tokenizer.json and model.safetensors (for machines without network)
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        /// Install this Hugging Face model id (or use this model folder) instead of embeddings.model, and set embeddings.model to it in config.toml
        #[arg(long, value_name = "ID")]
        model: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct UiArgs {
    /// Port on 127.0.0.1 (default: any free one)
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Print the address but do not open a browser
    #[arg(long)]
    pub no_open: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Clone, Args)]
pub struct WorkspaceArg {
    /// The workspace folder (default: $PMS_WORKSPACE, the current folder's, or the one `pms init` made)
    #[arg(long, short = 'w', global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    /// Every Claude Code session (~/.claude/settings.json)
    User,
    /// Only sessions started inside the workspace (<dir>/.claude/settings.json)
    Workspace,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Answer every question with the flags or their defaults; never prompt
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Your name
    #[arg(long)]
    pub name: Option<String>,
    /// Your role (e.g. "Product manager")
    #[arg(long)]
    pub role: Option<String>,
    /// Domain workspaces to create, comma-separated (see --list-domains)
    #[arg(long, value_delimiter = ',')]
    pub domains: Option<Vec<String>>,
    /// Languages answers should be in, comma-separated (e.g. "English,中文")
    #[arg(long, value_delimiter = ',')]
    pub languages: Option<Vec<String>>,
    /// The tone of your writing (e.g. "direct and concise")
    #[arg(long)]
    pub tone: Option<String>,
    /// Where the workspace lives
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Load the memory in every session (user) or only inside the workspace
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
    /// The agents to wire, comma-separated: claude, codex, openclaw (default: every one whose CLI is on PATH)
    #[arg(long = "agent", value_delimiter = ',', value_name = "AGENTS")]
    pub agents: Option<Vec<String>>,
    /// Leave Codex out even when `codex` is on PATH (same as leaving it out of --agent)
    #[arg(long)]
    pub no_codex: bool,
    /// When your Codex config turns hooks off ([features] hooks = false), turn them on
    #[arg(long)]
    pub enable_codex_hooks: bool,
    /// Show what would change, change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not index the existing conversation history at the end
    #[arg(long)]
    pub no_index: bool,
    /// Do not offer to import the memory other tools keep on this machine (claude-mem, ChatGPT's export, ...)
    #[arg(long)]
    pub no_import: bool,
    /// Download the embedding model at the end (embeddings.model: all-MiniLM-L6-v2, about 90 MB, English) so search also finds by meaning
    #[arg(long, conflicts_with = "no_embeddings")]
    pub embeddings: bool,
    /// Do not offer the embedding model (the answer --yes gives unless --embeddings)
    #[arg(long)]
    pub no_embeddings: bool,
    /// Print the available domains and exit
    #[arg(long)]
    pub list_domains: bool,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// session-start, user-prompt, stop, pre-compact or session-end
    pub event: String,
    #[command(flatten)]
    pub ws: WorkspaceArg,
    /// The agent running the hook: claude (default), codex or openclaw
    #[arg(long, default_value = "claude", value_parser = parse_agent)]
    pub agent: crate::platform::agents::Agent,
}

fn parse_agent(s: &str) -> Result<crate::platform::agents::Agent, String> {
    crate::platform::agents::Agent::parse(s)
        .ok_or_else(|| format!("unknown agent {s:?} (claude, codex, openclaw)"))
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Also delete the workspace folder (asks first unless --yes)
    #[arg(long)]
    pub purge: bool,
    /// Do not ask for confirmation
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Rebuild the whole index from scratch (built beside the current one, which search keeps using until it is replaced)
    #[arg(long, conflicts_with = "paths")]
    pub full: bool,
    /// No progress bar, no summary (for hooks and scripts)
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Exit quietly when another index run holds the lock (for background syncs)
    #[arg(long, hide = true)]
    pub if_idle: bool,
    /// Index only these files (a transcript that grew, a note just edited)
    #[arg(long = "path", value_name = "FILE")]
    pub paths: Vec<std::path::PathBuf>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What to look for (English, Chinese, Japanese or Korean; any punctuation is safe)
    pub query: String,
    /// Most results to show
    #[arg(long, short = 'n')]
    pub limit: Option<usize>,
    /// Only these sources: knowledge, summary, transcript, memory (Claude Code's auto-memory; comma-separated)
    #[arg(long, value_delimiter = ',')]
    pub source: Vec<String>,
    /// Only this project (a transcript folder such as -home-me-app, or a domain such as product)
    #[arg(long)]
    pub project: Option<String>,
    /// Only results from this date on (YYYY-MM-DD, or 7d / 2w / 3m ago)
    #[arg(long)]
    pub since: Option<String>,
    /// Only results before this date (YYYY-MM-DD)
    #[arg(long)]
    pub until: Option<String>,
    /// Show hits together by conversation (session), by file, or in plain rank order (none); default: search.group in config.toml (session)
    #[arg(long, value_parser = ["session", "file", "none"])]
    pub group: Option<String>,
    /// Print results as JSON
    #[arg(long)]
    pub json: bool,
    /// Keyword search only: skip loading the embedding model (it can take a second or two)
    #[arg(long)]
    pub keyword: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    /// A workspace path (e.g. product/CLAUDE.md), cc://<project>/<session>.jsonl or an imported conversation (chatgpt://<id>, claude-ai://<id>)
    pub path: String,
    /// First line to show (1-based; JSONL lines for conversations)
    #[arg(long)]
    pub from: Option<u64>,
    /// How many lines to show (default 200, at most 2000)
    #[arg(long)]
    pub lines: Option<u64>,
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// chatgpt, claude, claude-mem, claude-mem-lite, basic-memory or mcp-memory (leave it out to list what is on this machine)
    #[arg(value_parser = parse_source)]
    pub source: Option<crate::platform::imports::Kind>,
    /// The export (.zip, its folder or its .json), database, config.json or file (default: where the tool keeps it)
    pub path: Option<PathBuf>,
    /// Show what would be imported (counts and a sample) and write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// What you told the other tool about yourself: ask before adding it to _me/ (in a terminal), add it, or skip it
    #[arg(long, value_enum, default_value = "ask")]
    pub identity: IdentityArg,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

/// What `pms import` does with what the user told another tool about themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdentityArg {
    /// Show each addition to _me/ and ask (without a terminal: list them, write nothing)
    Ask,
    /// Add them (your yes, given ahead)
    Add,
    /// Leave them out
    Skip,
}

fn parse_source(s: &str) -> Result<crate::platform::imports::Kind, String> {
    crate::platform::imports::Kind::parse(s).ok_or_else(|| {
        format!("unknown source {s:?} (chatgpt, claude, claude-mem, claude-mem-lite, basic-memory, mcp-memory)")
    })
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The session that started this sync (still running: not summarised)
    #[arg(long)]
    pub exclude_session: Option<String>,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct LessonsArgs {
    #[command(subcommand)]
    pub action: Option<LessonsAction>,
    /// Print as JSON: the list (also `review --json`, what a review would go through) or `test`'s verdict; before or after the subcommand
    #[arg(long, global = true)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Subcommand)]
pub enum LessonsAction {
    /// Walk through the pending learnings: accept, reword, add cues, choose where it goes, reject or skip
    Review,
    /// Make a pending learning a rule in force
    Accept {
        /// The pending learning (P-...)
        id: String,
        /// Where it goes: a domain (e.g. product), or "me" for _me/lessons.md (default: its suggested domain, else me)
        #[arg(long)]
        to: Option<String>,
        /// Your wording of the rule (what to do, when, and why)
        #[arg(long)]
        text: Option<String>,
        /// When the rule applies, ';'-separated: situations, commands, synonyms ("git push --force; rewrite history")
        #[arg(long, value_name = "CUES")]
        when: Option<String>,
        /// If a near-duplicate rule exists, give it this wording instead of stopping
        #[arg(long, conflicts_with = "force")]
        merge: bool,
        /// Add it even if a rule in force looks nearly the same
        #[arg(long)]
        force: bool,
        /// Block the tool calls this rule forbids: a regular expression over the command line (or, for an edit, the file's path), e.g. 'git push .*(--force|-f)\b'
        #[arg(long, value_name = "REGEX")]
        guard: Option<String>,
        /// What the guard does to a call it matches: deny it (the model reads the rule as the reason) or ask the user
        #[arg(long, value_name = "MODE", value_parser = ["deny", "ask"], requires = "guard")]
        guard_mode: Option<String>,
        /// The rule belongs to one project: it applies only in sessions inside PATH (default: the git root of the current folder)
        #[arg(long, value_name = "PATH", num_args = 0..=1)]
        project: Option<Option<std::path::PathBuf>>,
    },
    /// Drop a pending learning
    Reject {
        /// The pending learning (P-...)
        id: String,
    },
    /// Write a new rule directly
    Add {
        /// The rule (what to do, when, and why)
        text: String,
        /// When the rule applies, ';'-separated: situations, commands, synonyms, file types
        #[arg(long, value_name = "CUES")]
        when: Option<String>,
        /// The domain it belongs to (default: _me/lessons.md, all work)
        #[arg(long)]
        domain: Option<String>,
        /// If a near-duplicate rule exists, give it this wording (and add the cues) instead of stopping
        #[arg(long, conflicts_with = "force")]
        merge: bool,
        /// Add it even if a rule in force looks nearly the same
        #[arg(long)]
        force: bool,
        /// Block the tool calls this rule forbids: a regular expression over the command line (or, for an edit, the file's path), e.g. 'git push .*(--force|-f)\b'
        #[arg(long, value_name = "REGEX")]
        guard: Option<String>,
        /// What the guard does to a call it matches: deny it (the model reads the rule as the reason) or ask the user
        #[arg(long, value_name = "MODE", value_parser = ["deny", "ask"], requires = "guard")]
        guard_mode: Option<String>,
        /// The rule belongs to one project: it applies only in sessions inside PATH (default: the git root of the current folder)
        #[arg(long, value_name = "PATH", num_args = 0..=1)]
        project: Option<Option<std::path::PathBuf>>,
    },
    /// Change a rule's wording or its cues
    Edit {
        /// The rule (L-...)
        id: String,
        /// The new wording
        #[arg(long)]
        text: Option<String>,
        /// The new cues, ';'-separated (replacing the old ones; "" removes them)
        #[arg(long, value_name = "CUES")]
        when: Option<String>,
        /// The new guard, a regular expression over the command line or the edited path ("" removes it)
        #[arg(long, value_name = "REGEX")]
        guard: Option<String>,
        /// What the guard does: deny or ask
        #[arg(long, value_name = "MODE", value_parser = ["deny", "ask"])]
        guard_mode: Option<String>,
        /// Make the rule belong to one project (default: the git root of the current folder)
        #[arg(long, value_name = "PATH", num_args = 0..=1, conflicts_with = "everywhere")]
        project: Option<Option<std::path::PathBuf>>,
        /// Make a project's rule apply everywhere again
        #[arg(long)]
        everywhere: bool,
    },
    /// Which guard and lessons a tool call would meet: a command line, or with --file a file about to be written
    Test {
        /// The command line (or, with --file, the text being written)
        #[arg(default_value = "")]
        command: String,
        /// Test an edit of this file instead of a command
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
        /// The folder the session would work in (default: the current one)
        #[arg(long, value_name = "DIR")]
        cwd: Option<std::path::PathBuf>,
    },
    /// Move a rule to another file: a domain's CLAUDE.md, or "me" for _me/lessons.md
    Move {
        /// The rule (L-...)
        id: String,
        /// A domain id, or "me"
        #[arg(long)]
        to: String,
    },
    /// Take a rule out of force (kept in the archive of _me/lessons.md)
    Retire {
        /// The rule (L-...)
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Repair what can be repaired, then check again
    #[arg(long)]
    pub fix: bool,
    /// Print the report as JSON (schema in VERIFY.md)
    #[arg(long)]
    pub json: bool,
    /// Skip the slow checks (starting the MCP server, running each hook)
    #[arg(long)]
    pub quick: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Print as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// Only show the current and the newest version
    #[arg(long)]
    pub check: bool,
    /// Do not ask before replacing the binary
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Only bring the workspace in step with this binary (no download)
    #[arg(long)]
    pub workspace_only: bool,
    #[command(flatten)]
    pub ws: WorkspaceArg,
}

//! `pms import`: another tool's memory brought into the workspace.
//!
//! One run: the whole input is checked first (`platform::imports::check`),
//! so a file cut short or of the wrong kind is refused before anything is
//! written; then it is read again, item by item, and each item written:
//!
//! - a conversation (ChatGPT, Claude.ai) to `.pms/imports/<source>/<id>.jsonl`
//!   as a transcript in Claude Code's format (`render.rs`), found by the
//!   index like the agents' own (`chatgpt://<id>.jsonl`, `claude-ai://…`);
//! - a note (claude-mem's sessions, basic-memory's notes, a Claude project,
//!   the MCP server's entities) to `imported/<source>/…` in the workspace,
//!   Markdown the user owns, with its provenance in its front matter;
//! - what the user told the tool about themselves, proposed for `_me/`
//!   (`identity.rs`), never written without their yes;
//! - rules and corrections in the conversations, staged as pending
//!   learnings (`learn.rs`).
//!
//! Items have stable names (the tool's own ids), so a run again writes only
//! what is new or changed: a conversation's file is replaced when its text
//! changed, a note when the file is still what pms wrote (the ledger,
//! `ledger.rs`, has its hash) and is kept, and reported, when its owner
//! edited it. A run that was interrupted leaves whole files (each is written
//! to a temporary file and renamed), and the next run finds them unchanged
//! and goes on. The written files are indexed at once, so the imported text
//! is searchable when the command returns.

pub mod identity;
pub mod learn;
pub mod ledger;
pub mod render;

use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result};
use serde::Serialize;

use crate::app::upkeep::{self, IndexLock};
use crate::platform::host::durable;
use crate::platform::host::error::{AtPath, FileError};
use crate::platform::imports::{self, Conversation, Identity, Kind, Note, Sink, detect};
use crate::platform::progress::{Progress, Step};
use crate::platform::redact::redact;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;
use identity::Proposal;
use ledger::Ledger;

/// Whether a run writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Import,
    /// Everything but the writing: counts, a sample, the proposals.
    DryRun,
}

/// What to import.
#[derive(Debug, Clone)]
pub struct Request {
    pub kind: Kind,
    pub path: PathBuf,
    pub mode: Mode,
}

/// New, changed, unchanged items of one kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub new: u64,
    pub changed: u64,
    pub unchanged: u64,
}

impl Counts {
    pub fn total(&self) -> u64 {
        self.new + self.changed + self.unchanged
    }
}

/// One item as the dry run shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub title: String,
    pub date: Option<String>,
    /// Where it goes: a URI or a workspace path.
    pub to: String,
}

/// What a run did (or, in a dry run, would do).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub source: Kind,
    pub path: PathBuf,
    pub dry_run: bool,
    pub conversations: Counts,
    pub notes: Counts,
    /// Notes whose file was edited since pms wrote it: left as they are.
    pub kept_edited: Vec<String>,
    /// What the items held (observations, relations, …).
    pub found: BTreeMap<String, u64>,
    /// Items left out, by why.
    pub skipped: BTreeMap<String, u64>,
    pub identity: Vec<Proposal>,
    /// Learnings staged (in a dry run: that would be).
    pub learnings: usize,
    /// Bytes of the input.
    pub bytes: u64,
    pub elapsed_ms: u128,
    /// Chunks the index gained (None in a dry run, or when indexing failed).
    pub indexed_chunks: Option<usize>,
    /// Why the written files could not be indexed (they are, at the next
    /// `pms index`).
    pub index_error: Option<String>,
    pub sample: Vec<Sample>,
}

/// Held while an import writes (`.pms/import.lock`): two at once would
/// race on the ledger.
pub fn lock(ws: &Workspace) -> Result<durable::FileLock, FileError> {
    let p = ws.state_dir().join("import.lock");
    durable::lock_exclusive(&p).at(&p)
}

/// Where a source's conversations are kept.
pub fn conversations_dir(ws: &Workspace, kind: Kind) -> PathBuf {
    ws.state_dir().join("imports").join(kind.id())
}

/// Where a source's notes go.
pub fn notes_dir(ws: &Workspace, kind: Kind) -> PathBuf {
    ws.root.join("imported").join(kind.id())
}

/// Items shown by a dry run.
const SAMPLE: usize = 5;

/// Runs one import.
pub fn run(ctx: &Context, req: &Request, progress: &dyn Progress) -> Result<Report> {
    let started = Instant::now();
    // The exports' readers start the bar (with their files' total); the
    // other sources are checked in milliseconds, without one.
    let checked = imports::check(req.kind, &req.path, progress);
    progress.finish();
    let checked = checked?;
    // Only once the input is known whole: a refused one leaves no trace.
    let _lock = match req.mode {
        Mode::Import => Some(lock(&ctx.ws)?),
        Mode::DryRun => None,
    };
    let mut ledger = Ledger::load(&ctx.ws, req.kind)?;
    progress.start(Step::Importing {
        bytes: checked.bytes,
    });
    let mut w = Writer::new(ctx, req, &ledger, progress);
    let read = imports::read(req.kind, &req.path, &mut w);
    progress.finish();
    read.map_err(|e| match e {
        imports::ReadError::Format(f) => anyhow::Error::new(f),
        imports::ReadError::Write(io) => {
            anyhow::Error::new(io).context("writing what was imported")
        }
    })?;
    let Writer {
        mut report,
        touched,
        learnings,
        learned,
        identities,
        notes_written,
        ..
    } = w;
    report.bytes = checked.bytes;
    let learnings = learn::strongest(learnings, learn::PER_IMPORT);
    report.learnings = learnings.len();
    if req.mode == Mode::Import {
        // One flush for every file written, before the ledger names them.
        if let Err(e) = durable::sync_filesystem(&ctx.ws.root) {
            progress.note(&format!("could not flush the imported files to disk: {e}"));
        }
        ledger.notes.extend(notes_written);
        ledger.runs.push(ledger::Run {
            path: req.path.clone(),
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            conversations: report.conversations.total(),
            notes: report.notes.total(),
        });
        ledger.save(&ctx.ws, req.kind)?;
        match index(ctx, &touched, progress) {
            Ok(chunks) => report.indexed_chunks = Some(chunks),
            Err(e) => report.index_error = Some(format!("{e:#}")),
        }
        if !learned.is_empty() {
            let known = crate::memory::lessons::known_learnings(ctx);
            let candidates = learnings.into_iter().map(|f| f.candidate).collect();
            report.learnings = crate::memory::lessons::pending::stage(&ctx.ws, candidates, &known)
                .context("staging the learnings found in the conversations")?
                .len();
            // Only now: a run killed before this point reads them again
            // (and staging merges what it had staged already).
            ledger.learned.extend(learned);
            ledger.save(&ctx.ws, req.kind)?;
        }
    }
    report.identity = identity::proposals(&ctx.ws, &ledger, &identities);
    report.elapsed_ms = started.elapsed().as_millis();
    Ok(report)
}

/// Indexes the files of this import (all of them: those an interrupted run
/// wrote and did not index too; unchanged ones cost a look at their size).
fn index(ctx: &Context, paths: &[PathBuf], progress: &dyn Progress) -> Result<usize> {
    if paths.is_empty() {
        return Ok(0);
    }
    let lock = IndexLock::wait(&ctx.ws)?;
    let outcome = upkeep::index_paths_with(ctx, &lock, paths, progress)?;
    Ok(outcome.report.chunks_written)
}

/// The [`Sink`] that writes (or, in a dry run, counts) what a reader finds.
struct Writer<'a> {
    ctx: &'a Context,
    kind: Kind,
    mode: Mode,
    ledger: &'a Ledger,
    progress: &'a dyn Progress,
    report: Report,
    /// Every item's file, written or unchanged.
    touched: Vec<PathBuf>,
    /// Workspace-relative path → hash, of the notes written this run.
    notes_written: BTreeMap<String, String>,
    notes_seen: HashSet<PathBuf>,
    learnings: Vec<learn::Found>,
    /// Conversations read for learnings this run (URI → transcript hash).
    learned: BTreeMap<String, String>,
    identities: Vec<Identity>,
}

impl<'a> Writer<'a> {
    fn new(
        ctx: &'a Context,
        req: &Request,
        ledger: &'a Ledger,
        progress: &'a dyn Progress,
    ) -> Self {
        Writer {
            ctx,
            kind: req.kind,
            mode: req.mode,
            ledger,
            progress,
            report: Report {
                source: req.kind,
                path: req.path.clone(),
                dry_run: req.mode == Mode::DryRun,
                conversations: Counts::default(),
                notes: Counts::default(),
                kept_edited: Vec::new(),
                found: BTreeMap::new(),
                skipped: BTreeMap::new(),
                identity: Vec::new(),
                learnings: 0,
                bytes: 0,
                elapsed_ms: 0,
                indexed_chunks: None,
                index_error: None,
                sample: Vec::new(),
            },
            touched: Vec::new(),
            notes_written: BTreeMap::new(),
            notes_seen: HashSet::new(),
            learnings: Vec::new(),
            learned: BTreeMap::new(),
            identities: Vec::new(),
        }
    }

    fn sample(&mut self, title: &str, date: Option<chrono::DateTime<chrono::Utc>>, to: String) {
        if self.report.sample.len() < SAMPLE {
            self.report.sample.push(Sample {
                title: imports::note::shorten(&redact(title), 80),
                date: date.map(|d| d.format("%Y-%m-%d").to_string()),
                to,
            });
        }
    }

    /// Writes `bytes` to `path` unless it holds them already; sets its
    /// modification time to `date` (the index dates a note by it).
    fn put(
        &self,
        path: &Path,
        bytes: &[u8],
        date: Option<chrono::DateTime<chrono::Utc>>,
    ) -> std::io::Result<()> {
        if self.mode == Mode::DryRun {
            return Ok(());
        }
        durable::write_atomic_nosync(path, bytes)?;
        // A new file is 0600 (a temporary file's mode): make it as readable
        // as the user's other notes.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))?;
        if let Some(d) = date {
            let t = std::time::SystemTime::from(d);
            std::fs::File::open(path)?.set_times(std::fs::FileTimes::new().set_modified(t))?;
        }
        Ok(())
    }
}

/// What is at `path` now, compared with what would be written.
enum OnDisk {
    Missing,
    Same,
    Different(Vec<u8>),
}

fn on_disk(path: &Path, bytes: &[u8]) -> std::io::Result<OnDisk> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(OnDisk::Missing),
        Err(e) => Err(e),
        Ok(m) if m.len() != bytes.len() as u64 => Ok(OnDisk::Different(std::fs::read(path)?)),
        Ok(_) => {
            let cur = std::fs::read(path)?;
            Ok(if cur == bytes {
                OnDisk::Same
            } else {
                OnDisk::Different(cur)
            })
        }
    }
}

/// `rel` made of plain path components only (a reader's slugs and a
/// basic-memory project's own folders; nothing that climbs out).
fn safe_rel(rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) if !n.to_string_lossy().starts_with('.') => out.push(n),
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

impl Sink for Writer<'_> {
    fn conversation(&mut self, c: Conversation) -> std::io::Result<()> {
        let scheme = self.kind.id();
        let path = conversations_dir(&self.ctx.ws, self.kind).join(format!("{}.jsonl", c.id));
        let uri = format!("{scheme}://{}.jsonl", c.id);
        let bytes = render::transcript(self.kind, &c);
        self.sample(&c.title, c.created, uri.clone());
        let fresh = match on_disk(&path, bytes.as_bytes())? {
            OnDisk::Same => {
                self.report.conversations.unchanged += 1;
                false
            }
            OnDisk::Missing => {
                self.report.conversations.new += 1;
                true
            }
            OnDisk::Different(_) => {
                self.report.conversations.changed += 1;
                true
            }
        };
        if fresh {
            self.put(&path, bytes.as_bytes(), c.last_time())?;
        }
        let hash = ledger::hash(bytes.as_bytes());
        if self.ledger.learned.get(&uri) != Some(&hash) {
            self.learnings.extend(learn::in_conversation(&c, &uri));
            self.learned.insert(uri, hash);
        }
        self.touched.push(path);
        Ok(())
    }

    fn note(&mut self, n: Note) -> std::io::Result<()> {
        let Some(rel) = safe_rel(&n.rel) else {
            self.skipped("a note whose name would leave its folder");
            return Ok(());
        };
        let path = notes_dir(&self.ctx.ws, self.kind).join(rel);
        if !self.notes_seen.insert(path.clone()) {
            self.skipped("the same note twice");
            return Ok(());
        }
        let key = ledger::rel(&self.ctx.ws, &path);
        let text = redact(&n.text).into_owned();
        let title = n
            .text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .unwrap_or(&n.key)
            .to_string();
        self.sample(&title, n.date, key.clone());
        let hash = ledger::hash(text.as_bytes());
        match on_disk(&path, text.as_bytes())? {
            OnDisk::Same => self.report.notes.unchanged += 1,
            OnDisk::Missing => {
                self.report.notes.new += 1;
                self.put(&path, text.as_bytes(), n.date)?;
            }
            OnDisk::Different(cur) if self.ledger.notes.get(&key) == Some(&ledger::hash(&cur)) => {
                self.report.notes.changed += 1;
                self.put(&path, text.as_bytes(), n.date)?;
            }
            OnDisk::Different(_) => {
                // Its owner changed it (or it was never pms's): kept.
                self.report.kept_edited.push(key);
                self.touched.push(path);
                return Ok(());
            }
        }
        self.notes_written.insert(key, hash);
        self.touched.push(path);
        Ok(())
    }

    fn identity(&mut self, i: Identity) {
        self.identities.push(i);
    }

    fn skipped(&mut self, why: &str) {
        *self.report.skipped.entry(why.to_string()).or_default() += 1;
    }

    fn advanced(&mut self, bytes: u64) {
        self.progress.advance(bytes);
    }

    fn found(&mut self, what: &'static str, n: u64) {
        *self.report.found.entry(what.to_string()).or_default() += n;
    }
}

/// A source as `pms status` and `pms init` see it: found on this machine,
/// imported before, or both.
#[derive(Debug, Clone, Serialize)]
pub struct SourceState {
    pub source: Kind,
    /// Where it is on this machine, when found.
    pub found: Option<detect::Found>,
    /// The last import, when there was one.
    pub last: Option<ledger::Run>,
}

impl SourceState {
    /// Found where it was not imported from (or never imported).
    pub fn waiting(&self) -> bool {
        match (&self.found, &self.last) {
            (Some(f), Some(last)) => f.path != last.path,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// Every source found on this machine or imported before.
pub fn overview(ctx: &Context) -> Vec<SourceState> {
    let found = detect::on_this_machine(&ctx.env.home, &ctx.env.claude_json);
    Kind::ALL
        .iter()
        .filter_map(|k| {
            let last = Ledger::load(&ctx.ws, *k)
                .ok()
                .and_then(|l| l.runs.last().cloned());
            let found = found.iter().find(|f| f.kind == *k).cloned();
            (found.is_some() || last.is_some()).then_some(SourceState {
                source: *k,
                found,
                last,
            })
        })
        .collect()
}

/// Where `kind` keeps its memory on this machine (for `pms import <kind>`
/// without a path).
pub fn default_path(ctx: &Context, kind: Kind) -> Option<PathBuf> {
    detect::default_path(kind, &ctx.env.home, &ctx.env.claude_json, &|k| {
        std::env::var_os(k)
    })
    .map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_cannot_climb_out() {
        assert_eq!(
            safe_rel("pms/2026-a.md"),
            Some(PathBuf::from("pms/2026-a.md"))
        );
        for bad in ["../x.md", "/etc/x.md", "a/../../x.md", ".hidden/x.md", ""] {
            assert_eq!(safe_rel(bad), None, "{bad}");
        }
    }
}

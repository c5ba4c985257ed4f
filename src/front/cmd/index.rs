//! `pms index`: update the search index, with a progress bar.

use std::cell::RefCell;
use std::process::ExitCode;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::app::upkeep::{self, IndexLock, IndexOutcome, ModelDownload, VectorOutcome};
use crate::front::cli::IndexArgs;
use crate::memory::index::indexer::IndexReport;
use crate::memory::index::stats::HistoryStats;
use crate::platform::plural::count;
use crate::platform::progress::{Progress, Quiet, Step};
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &IndexArgs) -> Result<ExitCode> {
    let lock = match IndexLock::try_acquire(&ctx.ws)? {
        Some(l) => l,
        None if args.if_idle => return Ok(ExitCode::SUCCESS), // another run is syncing
        None => {
            if !args.quiet {
                eprintln!("Waiting for another `pms index` run to finish...");
            }
            IndexLock::wait(&ctx.ws)?
        }
    };
    let bars = Bars::default();
    let progress: &dyn Progress = match (args.quiet, args.json) {
        (true, _) => &Quiet,
        (false, true) => &NotesOnly,
        (false, false) => &bars,
    };
    let download = if args.quiet || args.json {
        ModelDownload::Never
    } else {
        ModelDownload::IfChosen
    };
    let outcome = if !args.paths.is_empty() {
        let paths: Vec<std::path::PathBuf> = args
            .paths
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .collect();
        upkeep::index_paths(ctx, &lock, &paths)
    } else if args.full {
        upkeep::rebuild(ctx, &lock, progress, download)
    } else {
        upkeep::index_now(ctx, &lock, progress, download)
    };
    let outcome = match outcome {
        Ok(o) => o,
        // --if-idle is the hooks' background run: nobody reads its stderr.
        Err(e) if args.if_idle => {
            crate::platform::workspace::log::append(Some(&ctx.ws.root), "index", &format!("{e:#}"));
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json(&outcome))?);
    } else if !args.quiet {
        print_report(&outcome.report, &outcome.stats);
        print_vectors(&outcome.vectors);
    }
    if let Some(e) = &outcome.file_history_error {
        if args.quiet || args.json {
            crate::platform::workspace::log::append(Some(&ctx.ws.root), "index", e);
        } else {
            eprintln!("pms: {e}");
        }
    }
    let Some(stop) = &outcome.report.stopped_for_space else {
        return Ok(ExitCode::SUCCESS);
    };
    let note = upkeep::space_note(&ctx.ws, stop);
    if args.quiet || args.if_idle || !args.paths.is_empty() {
        // the hooks' background runs: the hook log is what is read
        crate::platform::workspace::log::append(Some(&ctx.ws.root), "index", &note);
    }
    if !args.quiet {
        eprintln!("pms: {note}");
    }
    Ok(ExitCode::FAILURE)
}

fn json(o: &IndexOutcome) -> serde_json::Value {
    let (r, s, v) = (&o.report, &o.stats, &o.vectors);
    serde_json::json!({
        "files_seen": r.files_seen,
        "files_unchanged": r.files_unchanged,
        "files_indexed": r.files_indexed,
        "files_appended": r.files_appended,
        "files_removed": r.files_removed,
        "chunks_written": r.chunks_written,
        "bytes_read": r.bytes_read,
        "malformed_lines": r.malformed_lines,
        "elapsed_ms": r.elapsed_ms,
        "stopped_for_space": r.stopped_for_space.map(|s| serde_json::json!({
            "free_bytes": s.free_bytes,
            "files_left": s.files_left,
        })),
        "reclaimed_bytes": o.reclaimed.bytes,
        "file_history_error": o.file_history_error,
        "sessions": s.sessions,
        "projects": s.projects,
        "first": s.first,
        "last": s.last,
        "chunks": s.chunks,
        "vectors": {
            "provider": v.provider,
            "embedded": v.embedded,
            "elapsed_ms": v.elapsed_ms,
            "error": v.error,
            "file_written": v.file_written.map(|(n, ms)| serde_json::json!({"vectors": n, "elapsed_ms": ms})),
            "file_error": v.file_error,
        },
    })
}

pub fn print_vectors(v: &VectorOutcome) {
    if let Some(e) = &v.error {
        super::print_fitted(&format!(
            "Semantic search: not updated ({e}). Keyword search is up to date."
        ));
    } else if v.embedded > 0 {
        super::print_fitted(&format!(
            "Semantic search: {} embedded in {} ms ({}).",
            count(v.embedded, "chunk", "chunks"),
            v.elapsed_ms,
            v.provider
        ));
    }
    if let Some(e) = &v.file_error {
        super::print_fitted(&format!("Semantic search: {e}"));
    } else if let Some((n, ms)) = v.file_written {
        super::print_fitted(&format!(
            "Semantic search: vector file written ({n} vectors, {ms} ms)."
        ));
    }
    if v.keyword_only && v.error.is_none() && v.embedded == 0 {
        super::print_fitted(&format!(
            "Semantic search: off, {}.",
            v.provider.trim_start_matches("keyword only: ")
        ));
    }
}

pub fn print_report(r: &IndexReport, s: &HistoryStats) {
    super::print_fitted(&format!(
        "Indexed {} ({} new or changed, {} appended, {} unchanged, {} removed): {} written from {:.1} MB in {} ms.",
        count(r.files_seen, "file", "files"),
        r.files_indexed,
        r.files_appended,
        r.files_unchanged,
        r.files_removed,
        count(r.chunks_written, "chunk", "chunks"),
        r.bytes_read as f64 / 1e6,
        r.elapsed_ms
    ));
    if r.malformed_lines > 0 {
        super::print_fitted(&format!(
            "Skipped {}.",
            count(
                r.malformed_lines,
                "malformed transcript line",
                "malformed transcript lines"
            )
        ));
    }
    let day = |t: &Option<String>| t.as_deref().and_then(|t| t.get(..10)).map(str::to_string);
    match (s.sessions, day(&s.first), day(&s.last)) {
        (0, _, _) => super::print_fitted(&format!(
            "Claude Code history: no conversations found yet; {} searchable in all.",
            count(s.chunks, "chunk", "chunks")
        )),
        (n, Some(first), Some(last)) => super::print_fitted(&format!(
            "Claude Code history: {} in {}, {first} to {last}; {} searchable in all.",
            count(n, "session", "sessions"),
            count(s.projects, "project", "projects"),
            count(s.chunks, "chunk", "chunks")
        )),
        (n, _, _) => super::print_fitted(&format!(
            "Claude Code history: {} in {}; {} searchable in all.",
            count(n, "session", "sessions"),
            count(s.projects, "project", "projects"),
            count(s.chunks, "chunk", "chunks")
        )),
    }
}

/// Notes on stderr, no bars (`--json`, whose stdout is the report).
struct NotesOnly;

impl Progress for NotesOnly {
    fn note(&self, message: &str) {
        eprintln!("{message}");
    }
}

/// Indicatif bars for every step of an index run (and a model download):
/// one bar at a time, styled for what it counts; notes printed above it.
#[derive(Default)]
pub struct Bars {
    current: RefCell<Option<(ProgressBar, Step)>>,
    files_done: std::cell::Cell<u64>,
}

impl Bars {
    fn style(step: Step) -> ProgressStyle {
        let template = match step {
            Step::Indexing { .. } => "  {bar:30} {binary_bytes}/{binary_total_bytes} {msg}",
            Step::Downloading { .. } => {
                "  {bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}"
            }
            Step::Embedding { .. } => "  {bar:30} {pos}/{len} chunks embedded {per_sec}",
            Step::Checking { .. } => {
                "  {bar:30} {binary_bytes}/{binary_total_bytes} checked {binary_bytes_per_sec}"
            }
            Step::Importing { .. } => {
                "  {bar:30} {binary_bytes}/{binary_total_bytes} imported {binary_bytes_per_sec} eta {eta}"
            }
        };
        ProgressStyle::with_template(template)
            .expect("static template")
            .progress_chars("=> ")
    }
}

impl Progress for Bars {
    fn start(&self, step: Step) {
        let len = match step {
            Step::Indexing { bytes, .. }
            | Step::Downloading { bytes }
            | Step::Checking { bytes }
            | Step::Importing { bytes } => bytes,
            Step::Embedding { chunks } => chunks,
        };
        self.files_done.set(0);
        let bar = ProgressBar::new(len).with_style(Self::style(step));
        if let Some((old, _)) = self.current.replace(Some((bar, step))) {
            old.finish_and_clear();
        }
    }

    fn advance(&self, done: u64) {
        if let Some((bar, step)) = &*self.current.borrow() {
            bar.inc(done);
            if let Step::Indexing { files, .. } = step {
                self.files_done.set(self.files_done.get() + 1);
                bar.set_message(format!("{}/{files} files", self.files_done.get()));
            }
        }
    }

    fn finish(&self) {
        if let Some((bar, _)) = self.current.take() {
            bar.finish_and_clear();
        }
    }

    fn note(&self, message: &str) {
        match &*self.current.borrow() {
            Some((bar, _)) => bar.suspend(|| eprintln!("{message}")),
            None => eprintln!("{message}"),
        }
    }
}

//! `pms index`: update the search index, with a progress bar.

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::IndexArgs;
use crate::durable;
use crate::index::db;
use crate::index::indexer::{self, IndexReport, Progress};

pub fn run(args: &IndexArgs) -> Result<ExitCode> {
    let ctx = super::context(&args.ws)?;
    let lock_path = ctx.ws.state_dir().join("index.lock");
    let _lock = if args.if_idle {
        match durable::try_lock_exclusive(&lock_path)? {
            Some(l) => l,
            None => return Ok(ExitCode::SUCCESS), // another run is already syncing
        }
    } else {
        match durable::try_lock_exclusive(&lock_path)? {
            Some(l) => l,
            None => {
                if !args.quiet {
                    eprintln!("Waiting for another `pms index` run to finish...");
                }
                durable::lock_exclusive(&lock_path)?
            }
        }
    };
    if args.full {
        let db_path = ctx.ws.db_path();
        db::remove(&db_path).with_context(|| format!("removing {}", db_path.display()))?;
    }
    let bar = if args.quiet || args.json {
        None
    } else {
        Some(Bar::new())
    };
    let progress: &dyn Progress = match &bar {
        Some(b) => b,
        None => &indexer::Quiet,
    };
    let (report, stats) = if args.paths.is_empty() {
        index_now(&ctx, progress, !args.quiet)?
    } else {
        let mut conn = db::open_rw(&ctx.ws.db_path())?;
        let paths: Vec<std::path::PathBuf> = args
            .paths
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .collect();
        let r = indexer::run_paths(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, &paths)?;
        (r, indexer::history_stats(&conn)?)
    };
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "files_seen": report.files_seen,
                "files_unchanged": report.files_unchanged,
                "files_indexed": report.files_indexed,
                "files_appended": report.files_appended,
                "files_removed": report.files_removed,
                "chunks_written": report.chunks_written,
                "bytes_read": report.bytes_read,
                "malformed_lines": report.malformed_lines,
                "elapsed_ms": report.elapsed_ms,
                "sessions": stats.sessions,
                "projects": stats.projects,
                "first": stats.first,
                "last": stats.last,
                "chunks": stats.chunks,
            })
        );
    } else if !args.quiet {
        print_report(&report, &stats);
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens (or rebuilds, if unusable) the index and runs one pass. The caller
/// holds the index lock.
pub fn index_now(
    ctx: &super::Context,
    progress: &dyn Progress,
    tell: bool,
) -> Result<(IndexReport, indexer::HistoryStats)> {
    let db_path = ctx.ws.db_path();
    let mut conn = match db::open_rw(&db_path) {
        Ok(c) => c,
        Err(db::DbError::Corrupt { cause, .. }) => {
            // Derived data: rebuild rather than make the user do it.
            if tell {
                eprintln!(
                    "The index at {} was unusable ({cause}); rebuilding it.",
                    db_path.display()
                );
            }
            db::remove(&db_path)?;
            db::open_rw(&db_path)?
        }
        Err(e) => return Err(e.into()),
    };
    let report = indexer::run(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, progress)?;
    let stats = indexer::history_stats(&conn)?;
    Ok((report, stats))
}

pub fn print_report(r: &IndexReport, s: &indexer::HistoryStats) {
    println!(
        "Indexed {} file(s) ({} new or changed, {} appended, {} unchanged, {} removed): {} chunk(s) written from {:.1} MB in {} ms.",
        r.files_seen,
        r.files_indexed,
        r.files_appended,
        r.files_unchanged,
        r.files_removed,
        r.chunks_written,
        r.bytes_read as f64 / 1e6,
        r.elapsed_ms
    );
    if r.malformed_lines > 0 {
        println!(
            "Skipped {} malformed transcript line(s).",
            r.malformed_lines
        );
    }
    let day = |t: &Option<String>| {
        t.as_deref()
            .and_then(|t| t.get(..10))
            .unwrap_or("?")
            .to_string()
    };
    println!(
        "Claude Code history: {} session(s) in {} project(s), {} to {}; {} chunk(s) searchable in all.",
        s.sessions,
        s.projects,
        day(&s.first),
        day(&s.last),
        s.chunks
    );
}

/// An indicatif bar over bytes, with the file count in the message.
pub struct Bar {
    bar: ProgressBar,
    files: std::cell::Cell<u64>,
    total_files: std::cell::Cell<u64>,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template("  {bar:30} {binary_bytes}/{binary_total_bytes} {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        Bar {
            bar,
            files: 0.into(),
            total_files: 0.into(),
        }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for Bar {
    fn start(&self, files: u64, bytes: u64) {
        self.total_files.set(files);
        self.bar.set_length(bytes);
    }
    fn advance(&self, bytes: u64, _label: &str) {
        self.files.set(self.files.get() + 1);
        self.bar.inc(bytes);
        self.bar.set_message(format!(
            "{}/{} files",
            self.files.get(),
            self.total_files.get()
        ));
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

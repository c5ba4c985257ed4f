//! `pms index`: update the search index, with a progress bar.

use std::process::ExitCode;

use anyhow::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::IndexArgs;
use crate::context::Context;
use crate::durable;
use crate::embed::{Plan, download};
use crate::index::indexer::{self, IndexReport, Progress};
use crate::index::{db, vectors};
use crate::workspace::config::Provider;

pub fn run(args: &IndexArgs) -> Result<ExitCode> {
    let ctx = Context::open(args.ws.workspace.as_deref())?;
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
    let show = !args.quiet && !args.json;
    let IndexOutcome {
        report,
        stats,
        vectors,
    } = if args.paths.is_empty() {
        index_now(&ctx, progress, !args.quiet, show)?
    } else {
        let mut conn = db::open_rw(&ctx.ws.db_path())?;
        let paths: Vec<std::path::PathBuf> = args
            .paths
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
            .collect();
        let report = indexer::run_paths(&mut conn, &ctx.ws, &ctx.env, &ctx.cfg, &paths)?;
        // Hooks run this in the background: embed what they added, never download.
        let vectors = embed_now(&ctx, &mut conn, false, false);
        IndexOutcome {
            report,
            stats: indexer::history_stats(&conn)?,
            vectors,
        }
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
                "vectors": {
                    "provider": vectors.provider,
                    "embedded": vectors.embedded,
                    "elapsed_ms": vectors.elapsed_ms,
                    "error": vectors.error,
                },
            })
        );
    } else if !args.quiet {
        print_report(&report, &stats);
        print_vectors(&vectors);
    }
    Ok(ExitCode::SUCCESS)
}

/// What one index run did.
pub struct IndexOutcome {
    pub report: IndexReport,
    pub stats: indexer::HistoryStats,
    pub vectors: VectorOutcome,
}

/// What the embedding pass did.
#[derive(Debug, Default)]
pub struct VectorOutcome {
    /// The provider, or why there is none.
    pub provider: String,
    pub embedded: usize,
    pub elapsed_ms: u128,
    /// A provider that failed: the keyword index is complete regardless.
    pub error: Option<String>,
}

/// Embeds the chunks that have no vector. With `download`, an explicitly
/// chosen local model that is not installed yet is downloaded first (its
/// first use); background runs never download. Failures are reported, not
/// raised: the keyword index is already complete and usable.
pub fn embed_now(
    ctx: &Context,
    conn: &mut rusqlite::Connection,
    download: bool,
    show: bool,
) -> VectorOutcome {
    let plan = Plan::resolve(&ctx.cfg.embeddings, &ctx.env);
    let mut out = VectorOutcome {
        provider: plan.describe(&ctx.env),
        ..Default::default()
    };
    if ctx.cfg.embeddings.provider == Provider::None {
        // Switched off: vectors nobody will read are only weight.
        let _ = vectors::clear(conn);
    }
    if let Plan::Local {
        model,
        dir,
        installed: false,
    } = &plan
        && download
    {
        if show {
            eprintln!(
                "Downloading the embedding model {model} (once) from {}...",
                ctx.cfg.embeddings.download_url
            );
        }
        let bar = show.then(CountBar::bytes);
        let progress: &dyn crate::progress::Progress = match &bar {
            Some(b) => b,
            None => &crate::progress::Quiet,
        };
        if let Err(e) = download::install(&ctx.cfg.embeddings.download_url, model, dir, progress) {
            out.error = Some(e.to_string());
            return out;
        }
    }
    let plan = Plan::resolve(&ctx.cfg.embeddings, &ctx.env);
    out.provider = plan.describe(&ctx.env);
    let embedder = match plan {
        Plan::Off(_) => return out,
        Plan::Local {
            installed: false, ..
        } => {
            out.error =
                Some("the local model is not installed: run `pms embeddings install`".into());
            return out;
        }
        _ => match plan.load() {
            Ok(e) => e,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        },
    };
    let bar = show.then(CountBar::chunks);
    let progress: &dyn crate::progress::Progress = match &bar {
        Some(b) => b,
        None => &crate::progress::Quiet,
    };
    match vectors::embed_missing(conn, embedder.as_ref(), progress) {
        Ok(r) => {
            out.embedded = r.chunks;
            out.elapsed_ms = r.elapsed_ms;
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

pub fn print_vectors(v: &VectorOutcome) {
    if let Some(e) = &v.error {
        println!("Semantic search: not updated ({e}). Keyword search is up to date.");
    } else if v.embedded > 0 {
        println!(
            "Semantic search: {} chunk(s) embedded in {} ms ({}).",
            v.embedded, v.elapsed_ms, v.provider
        );
    } else if v.provider.starts_with("keyword only") {
        println!(
            "Semantic search: off, {}.",
            v.provider.trim_start_matches("keyword only: ")
        );
    }
}

/// Opens (or rebuilds, if unusable) the index and runs one pass. The caller
/// holds the index lock.
pub fn index_now(
    ctx: &Context,
    progress: &dyn Progress,
    tell: bool,
    download: bool,
) -> Result<IndexOutcome> {
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
    let vectors = embed_now(ctx, &mut conn, download, tell);
    let stats = indexer::history_stats(&conn)?;
    Ok(IndexOutcome {
        report,
        stats,
        vectors,
    })
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

/// A bar for a step that counts up to a known total: a download in bytes,
/// the embedding pass in chunks.
pub struct CountBar(ProgressBar);

impl CountBar {
    pub fn bytes() -> CountBar {
        CountBar::with_template(
            "  {bar:30} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
        )
    }

    fn chunks() -> CountBar {
        CountBar::with_template("  {bar:30} {pos}/{len} chunks embedded {per_sec}")
    }

    fn with_template(template: &str) -> CountBar {
        CountBar(
            ProgressBar::new(0).with_style(
                ProgressStyle::with_template(template)
                    .expect("static template")
                    .progress_chars("=> "),
            ),
        )
    }
}

impl crate::progress::Progress for CountBar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn advance(&self, done: u64) {
        self.0.inc(done);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

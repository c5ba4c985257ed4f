//! `pms sync` (hidden): the background upkeep a session start triggers.
//!
//! 1. Sessions that ended without SessionEnd get finished now
//!    ([`sessions::recover`]).
//! 2. Temporary files of interrupted writes are removed ([`upkeep::sweep`]).
//! 3. A full index pass (knowledge files added or changed since the last
//!    run, new transcripts, deleted files).
//!
//! It exits at once if another index run holds the lock.

use std::process::ExitCode;

use anyhow::Result;

use crate::app::upkeep::{self, IndexLock, ModelDownload};
use crate::front::cli::SyncArgs;
use crate::memory::sessions;
use crate::platform::progress::Quiet;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &SyncArgs) -> Result<ExitCode> {
    let Some(lock) = IndexLock::try_acquire(&ctx.ws)? else {
        return Ok(ExitCode::SUCCESS);
    };
    if let Err(e) = sessions::recover(ctx, args.exclude_session.as_deref()) {
        crate::platform::workspace::log::append(
            Some(&ctx.ws.root),
            "sync",
            &format!("recovering summaries: {e:#}"),
        );
    }
    upkeep::sweep(&ctx.env, Some(&ctx.ws));
    // Nobody reads this run's stderr: its failure goes to the hook log.
    if let Err(e) = upkeep::index_now(ctx, &lock, &Quiet, ModelDownload::Never) {
        crate::platform::workspace::log::append(
            Some(&ctx.ws.root),
            "sync",
            &format!("indexing: {e:#}"),
        );
        return Err(e);
    }
    Ok(ExitCode::SUCCESS)
}

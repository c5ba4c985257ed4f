//! `pms serve`: the memory tools over MCP (stdio), for Claude Code and Codex.
//!
//! This is the only place pms runs an async runtime (rmcp needs tokio); the
//! hooks stay synchronous. Nothing but protocol is written to stdout. The
//! server exits when the client closes stdin or sends SIGINT/SIGTERM (Claude
//! Code stops servers with SIGINT).

mod framing;
mod server;

pub use server::{INSTRUCTIONS, MemoryServer};

use anyhow::Result;
use rmcp::ServiceExt;

use crate::platform::workspace::context::Context;

/// Serves until the client goes away.
pub fn serve(ctx: Context) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let server = MemoryServer::new(ctx);
        let (input, output) = framing::guard(tokio::io::stdin(), tokio::io::stdout());
        let running = server.serve((input, output)).await?;
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            r = running.waiting() => { r?; }
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        Ok::<(), anyhow::Error>(())
    })?;
    // A pending read of stdin cannot be cancelled; leave without waiting for it.
    std::process::exit(0);
}

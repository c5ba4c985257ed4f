//! `pms get`: print a workspace file or a past conversation by line range.

use std::process::ExitCode;

use anyhow::Result;

use crate::front::cli::GetArgs;
use crate::memory::index::indexer::transcript_roots;
use crate::memory::search::fetch;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &GetArgs) -> Result<ExitCode> {
    let roots = transcript_roots(&ctx.env, &ctx.cfg);
    let f = fetch::get(&ctx.ws, &ctx.env, &roots, &args.path, args.from, args.lines)?;
    if args.json {
        super::print_json(&f)?;
    } else {
        print_stripped!("{}", f.text);
        if let Some(more) = &f.more {
            eprintln_stripped!("({more})");
        }
    }
    Ok(ExitCode::SUCCESS)
}

//! `pms ui`: the local web page (see src/ui). Binds, prints the address,
//! opens the browser unless told not to, serves until Ctrl+C.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::UiArgs;
use crate::context::Context;
use crate::ui;

pub fn run(ctx: Context, args: &UiArgs) -> Result<ExitCode> {
    let server = ui::Server::bind(ctx, args.port)?;
    let url = server.url();
    println!("pms ui: {url}");
    println!(
        "  (the link holds this run's access token: keep it to yourself. Ctrl+C stops the page.)"
    );
    let opener = if args.no_open {
        None
    } else {
        ui::browser::open(&url)
    };
    server.run_until_interrupted();
    if let Some(o) = opener {
        o.finish();
    }
    println!("pms ui: stopped.");
    Ok(ExitCode::SUCCESS)
}

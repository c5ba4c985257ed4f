//! `pms ui`: the local web page (see src/front/ui). Binds, prints the address,
//! opens the browser unless told not to, serves until Ctrl+C.

use std::process::ExitCode;

use anyhow::Result;

use crate::front::cli::UiArgs;
use crate::front::ui;
use crate::platform::workspace::context::Context;

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

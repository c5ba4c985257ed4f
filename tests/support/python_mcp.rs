//! The official MCP Python SDK (PyPI `mcp`), installed once into a cache
//! folder for the tests that drive `pms serve` with a client we did not
//! write. Skips loudly without python3/pip unless PMS_E2E_REQUIRED=1.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

pub const MCP_SDK_VERSION: &str = "2.3.0";

/// The folder to put on PYTHONPATH, or None (after a loud message).
pub fn sdk_path() -> Option<PathBuf> {
    static P: OnceLock<Option<PathBuf>> = OnceLock::new();
    P.get_or_init(install).clone()
}

fn install() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("py-mcp-{MCP_SDK_VERSION}"));
    let lib = dir.join("lib");
    std::fs::create_dir_all(&dir).unwrap();
    let lock = std::fs::File::create(dir.join(".install.lock")).unwrap();
    lock.lock().unwrap();
    if lib.join("mcp").is_dir() {
        return Some(lib);
    }
    if !super::pip::pip_ready("the MCP Python SDK client tests") {
        return None;
    }
    let out = Command::new("python3")
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--target",
        ])
        .arg(&lib)
        .arg(format!("mcp=={MCP_SDK_VERSION}"))
        .output()
        .expect("pip runs");
    assert!(
        lib.join("mcp").is_dir(),
        "pip install mcp=={MCP_SDK_VERSION} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(lib)
}

/// Runs one of tests/mcp_client/*.py against `pms serve` on `home`'s
/// workspace, with the SDK on PYTHONPATH.
pub fn run_client(
    home: &super::TestHome,
    sdk: &std::path::Path,
    script: &str,
    args: &[&str],
) -> std::process::Output {
    let script = format!("{}/tests/mcp_client/{script}", env!("CARGO_MANIFEST_DIR"));
    Command::new("python3")
        .arg(script)
        .arg(super::PMS)
        .arg(home.workspace())
        .args(args)
        .env_clear()
        .env("HOME", home.home())
        .env("PATH", home.path_var())
        .env("PYTHONPATH", sdk)
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap()
}

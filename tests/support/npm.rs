//! Installing a CLI the end-to-end tests drive, from npm, once per cache
//! folder: Claude Code, Codex and OpenClaw each ship as npm packages.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

/// npm, installing into one prefix.
pub struct Npm {
    npm: PathBuf,
    prefix: PathBuf,
}

impl Npm {
    /// `npm install <spec>` into the prefix (with `path` as PATH, for
    /// install scripts that need a particular node); panics on failure.
    pub fn install(&self, spec: &str, path: Option<&str>) {
        let mut cmd = Command::new(&self.npm);
        cmd.args(["install", "--prefix"]).arg(&self.prefix).args([
            spec,
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ]);
        if let Some(p) = path {
            cmd.env("PATH", p);
        }
        let out = cmd.output().expect("npm runs");
        assert!(
            out.status.success(),
            "npm install {spec} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Under `prefix`'s install lock (tests run in parallel): unless
/// `installed()` says the CLI is there already, `setup` installs it with npm
/// and puts it in place. False (after the loud skip message naming `what`)
/// when npm is not on PATH.
pub fn install_once(
    prefix: &Path,
    what: &str,
    installed: impl Fn() -> bool,
    setup: impl FnOnce(&Npm),
) -> bool {
    std::fs::create_dir_all(prefix).unwrap();
    let lock = std::fs::File::create(prefix.join(".install.lock")).unwrap();
    lock.lock().unwrap();
    if installed() {
        return true;
    }
    let Some(npm) = which("npm") else {
        super::skip::missing_tool(
            &format!("npm is not installed: the end-to-end tests against {what} cannot run here"),
            "Install Node.js and npm to run them.",
        );
        return false;
    };
    setup(&Npm {
        npm,
        prefix: prefix.to_path_buf(),
    });
    true
}

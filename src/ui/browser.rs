//! Opening the page in the user's browser, without ever waiting on it.
//!
//! The opener (`$BROWSER`, else `xdg-open` on Linux, `open` on macOS) runs
//! in its own process group, so the Ctrl+C that stops `pms ui` does not also
//! reach a browser it started. Nothing waits for it while the page is
//! served; when `pms ui` stops, an opener still running (some wait for the
//! browser they started to exit) is killed, so none is left behind.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// A started opener.
pub struct Opener {
    child: Child,
}

/// Starts the browser on `url`. None when no opener could be started (the
/// address is printed anyway).
pub fn open(url: &str) -> Option<Opener> {
    let program = std::env::var("BROWSER")
        .ok()
        .map(|b| b.trim().to_string())
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open".into()
            } else {
                "xdg-open".into()
            }
        });
    // $BROWSER may hold a program and its arguments ("firefox --new-tab").
    let mut words = program.split_whitespace();
    let mut cmd = Command::new(words.next()?);
    cmd.args(words)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    match cmd.spawn() {
        Ok(child) => Some(Opener { child }),
        Err(e) => {
            eprintln!("pms ui: could not start {program} ({e}); open the address above yourself.");
            None
        }
    }
}

impl Opener {
    /// Reaps the opener, killing it first if it is still running (only
    /// it: the browser it started is in no group of ours). Called when the
    /// server stops.
    pub fn finish(mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

//! Opening the page in the user's browser, without ever waiting on it.
//!
//! The opener (`$BROWSER`, else `xdg-open` on Linux, `open` on macOS) runs
//! in its own process group, so the Ctrl+C that stops `pms ui` does not also
//! reach a browser it started. A watcher thread gives it [`GRACE`] to hand
//! the address over, then kills it if it is still running (some openers wait
//! for the browser they started to exit; the browser itself is left alone)
//! and reaps it; when `pms ui` stops first, the opener is killed then.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an opener may run.
pub const GRACE: Duration = Duration::from_secs(20);

/// A started opener.
pub struct Opener {
    child: Arc<Mutex<Option<Child>>>,
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
        Ok(child) => {
            let child = Arc::new(Mutex::new(Some(child)));
            let watched = Arc::clone(&child);
            // Tests shorten the grace (`PMS_TEST_OPENER_GRACE_MS`).
            let grace = std::env::var("PMS_TEST_OPENER_GRACE_MS")
                .ok()
                .and_then(|v| v.parse().ok())
                .map_or(GRACE, Duration::from_millis);
            std::thread::spawn(move || {
                let started = Instant::now();
                while started.elapsed() < grace {
                    std::thread::sleep(Duration::from_millis(100));
                    let mut slot = watched.lock().unwrap_or_else(|p| p.into_inner());
                    match slot.as_mut().map(Child::try_wait) {
                        Some(Ok(None)) => {}
                        // exited (now reaped), or already finished by `finish`
                        _ => {
                            slot.take();
                            return;
                        }
                    }
                }
                finish_slot(&watched);
            });
            Some(Opener { child })
        }
        Err(e) => {
            eprintln!("pms ui: could not start {program} ({e}); open the address above yourself.");
            None
        }
    }
}

impl Opener {
    /// Kills the opener if it still runs, and reaps it. Called when the
    /// server stops.
    pub fn finish(self) {
        finish_slot(&self.child);
    }
}

fn finish_slot(slot: &Mutex<Option<Child>>) {
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(mut child) = slot.take() {
        // Only the opener: the browser it started is in no group of ours.
        if let Ok(None) = child.try_wait() {
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

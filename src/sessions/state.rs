//! Per-session state, `.pms/state/<session>.json`: what the hooks of one
//! Claude Code session remember between events (rounds, rules already
//! force-loaded, learning signals seen, files changed, how far the
//! transcript has been read). Written atomically; deleted at session end.

use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::claude::transcript::{self, ReadOptions, Role, Turn};
use crate::durable;
use crate::lessons::{DUPLICATE_SIMILARITY, signals, similarity};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionState {
    #[serde(default)]
    pub session_id: String,
    #[serde(default)]
    pub started: Option<String>,
    #[serde(default)]
    pub transcript_path: Option<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// Completed assistant replies (Stop events).
    #[serde(default)]
    pub rounds: u32,
    /// Set by the stop hook every N rounds; cleared when delivered.
    #[serde(default)]
    pub heartbeat_due: bool,
    /// "domain:<id>" and "workflow:<id>/<name>" already injected.
    #[serde(default)]
    pub loaded: Vec<String>,
    #[serde(default)]
    pub signals: Vec<Signal>,
    /// How many of `signals` were staged already (a session resumed after
    /// its end goes on from there).
    #[serde(default)]
    pub signals_staged: usize,
    #[serde(default)]
    pub files_changed: Vec<String>,
    /// Bytes and lines of the transcript already read.
    #[serde(default)]
    pub transcript_offset: u64,
    #[serde(default)]
    pub transcript_lines: u64,
}

/// A learning signal found in an assistant reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub kind: String,
    pub text: String,
    pub round: u32,
}

/// A session id made safe for a file name.
fn file_stem(session_id: &str) -> String {
    if !session_id.is_empty()
        && session_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        session_id.to_string()
    } else {
        format!(
            "h{:016x}",
            xxhash_rust::xxh3::xxh3_64(session_id.as_bytes())
        )
    }
}

impl SessionState {
    pub fn path(ws: &Workspace, session_id: &str) -> PathBuf {
        ws.session_state_dir()
            .join(format!("{}.json", file_stem(session_id)))
    }

    /// The state of `session_id`, or a fresh one. A corrupt file is replaced
    /// by a fresh state rather than failing the hook.
    pub fn load(ws: &Workspace, session_id: &str) -> SessionState {
        let mut st: SessionState = std::fs::read_to_string(Self::path(ws, session_id))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        st.session_id = session_id.to_string();
        st
    }

    pub fn save(&self, ws: &Workspace) -> std::io::Result<()> {
        let text = serde_json::to_string(self).expect("state serialises");
        durable::write_atomic_nosync(&Self::path(ws, &self.session_id), text.as_bytes())
    }

    /// Loads, changes and saves the state of `session_id` as one step,
    /// under `.pms/state.lock`: hooks of other sessions and the background
    /// recovery change state files too, and a load-change-save that
    /// interleaved with another would lose one of the changes.
    pub fn update<T>(
        ws: &Workspace,
        session_id: &str,
        f: impl FnOnce(&mut SessionState) -> T,
    ) -> std::io::Result<T> {
        let _lock = durable::lock_exclusive(&ws.state_dir().join("state.lock"))?;
        let mut st = SessionState::load(ws, session_id);
        let out = f(&mut st);
        st.save(ws)?;
        Ok(out)
    }

    /// The signals not staged yet, marked as staged.
    pub fn take_unstaged(&mut self) -> Vec<Signal> {
        let new = self
            .signals
            .iter()
            .skip(self.signals_staged)
            .cloned()
            .collect();
        self.signals_staged = self.signals.len();
        new
    }

    pub fn remove(ws: &Workspace, session_id: &str) {
        let _ = std::fs::remove_file(Self::path(ws, session_id));
    }

    /// The transcript to read: `payload` (the hook's own path), else the one
    /// remembered from an earlier event (some payloads leave it out), if the
    /// file exists.
    pub fn transcript(&self, payload: Option<&Path>) -> Option<PathBuf> {
        payload
            .map(Path::to_path_buf)
            .into_iter()
            .chain(self.transcript_path.iter().map(PathBuf::from))
            .find(|p| p.is_file())
    }

    /// The first domain this session loaded: where its learnings likely belong.
    pub fn first_domain(&self) -> Option<String> {
        self.loaded
            .iter()
            .find_map(|k| k.strip_prefix("domain:").map(str::to_string))
    }

    pub fn is_loaded(&self, key: &str) -> bool {
        self.loaded.iter().any(|k| k == key)
    }

    /// Reads the transcript lines added since the last call and records what
    /// they show: files changed, and learning signals in every assistant
    /// turn (an insight often comes in the text before a tool call, not in
    /// the final reply). Returns the new turns.
    pub fn catch_up(&mut self, transcript: &Path) -> Vec<Turn> {
        let (turns, offset, lines) =
            read_new_turns(transcript, self.transcript_offset, self.transcript_lines);
        self.transcript_offset = offset;
        self.transcript_lines = lines;
        for t in &turns {
            extend_unique(&mut self.files_changed, &t.files_changed);
            if t.role == Role::Assistant {
                self.record_signals(&t.text);
            }
        }
        turns
    }

    /// Adds the learning signals of `message` not already recorded.
    pub fn record_signals(&mut self, message: &str) {
        // The state is written to disk: no secret goes in.
        let message = crate::redact::redact(message);
        for f in signals::detect(&message) {
            let dup = self
                .signals
                .iter()
                .any(|s| similarity(&s.text, &f.sentence) >= DUPLICATE_SIMILARITY);
            if !dup {
                self.signals.push(Signal {
                    kind: f.kind.to_string(),
                    text: f.sentence,
                    round: self.rounds,
                });
            }
        }
    }
}

/// Appends the items of `new` that `list` does not hold yet, keeping order.
pub fn extend_unique(list: &mut Vec<String>, new: &[String]) {
    for item in new {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

/// Turns added to the transcript since `offset` (bytes) / `lines`; returns
/// them with the new offset and line count. A missing or unreadable file
/// gives nothing (the transcript may not exist yet).
fn read_new_turns(path: &Path, offset: u64, lines: u64) -> (Vec<Turn>, u64, u64) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return (Vec::new(), offset, lines);
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    // A transcript shorter than what we read was replaced: start over.
    let (offset, lines) = if len < offset {
        (0, 0)
    } else {
        (offset, lines)
    };
    if file.seek(SeekFrom::Start(offset)).is_err() {
        return (Vec::new(), offset, lines);
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let (turns, st) = transcript::read(&mut reader, offset, lines, &ReadOptions::default());
    (turns, st.end_offset, lines + st.lines)
}

/// Deletes the state of sessions that can no longer be resumed: untouched
/// for longer than Claude Code keeps transcripts ([`KEPT_DAYS`]), or
/// untouched for a day with its transcript gone. A session resumed within
/// that time finds what it had loaded, so `--resume` and `--continue` do not
/// inject its domain rules again.
pub fn prune(ws: &Workspace) {
    let Ok(rd) = std::fs::read_dir(ws.session_state_dir()) else {
        return;
    };
    let day = std::time::Duration::from_secs(86_400);
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "json")
            || p.file_name().is_some_and(|n| n == "domains.json")
        {
            continue;
        }
        let idle = e
            .metadata()
            .and_then(|m| m.modified())
            .map(|t| t.elapsed().unwrap_or_default())
            .unwrap_or_default();
        let gone = || {
            std::fs::read_to_string(&p)
                .ok()
                .and_then(|t| serde_json::from_str::<SessionState>(&t).ok())
                .and_then(|st| st.transcript_path)
                .is_some_and(|t| !Path::new(&t).exists())
        };
        if idle > day * KEPT_DAYS || (idle > day && gone()) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// Days a session's state is kept: Claude Code's default `cleanupPeriodDays`.
pub const KEPT_DAYS: u32 = 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_hostile_ids() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let mut st = SessionState::load(&ws, "../../etc/passwd");
        assert!(SessionState::path(&ws, "../../etc/passwd").starts_with(ws.session_state_dir()));
        st.rounds = 3;
        st.loaded.push("domain:product".into());
        st.save(&ws).unwrap();
        let back = SessionState::load(&ws, "../../etc/passwd");
        assert_eq!(back, st);
        std::fs::write(SessionState::path(&ws, "abc"), "{not json").unwrap();
        assert_eq!(SessionState::load(&ws, "abc").rounds, 0);
    }
}

//! Per-session state, `.pms/state/<session>.json`: what the hooks of one
//! Claude Code session remember between events (rounds, rules already
//! force-loaded, learning signals seen, files changed, how far the
//! transcript has been read). Written atomically; kept after the session
//! ends (a resumed session goes on from it), pruned by age ([`prune`]).

use std::collections::HashMap;
use std::io::{BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::memory::lessons::signals::{self, Learning, Origin};
use crate::memory::lessons::{DUPLICATE_SIMILARITY, KeyTerms, similarity_of};
use crate::platform::agents::transcript::{self, ReadOptions, ReadStats, Role, Turn};
use crate::platform::host::durable;
use crate::platform::workspace::Workspace;

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
    /// Transcript line of the last user prompt read: the reply that follows
    /// answers it (the assistant's learnings of one reply are grouped by it).
    #[serde(default)]
    pub prompt_line: u64,
    /// Lessons shown before a tool call in this session (each is shown once;
    /// compaction, which drops them from the context, clears the list).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub action_lessons: Vec<String>,
    /// Errors whose past fix was told in this session (their signature
    /// keys): each is told once; compaction clears the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recalled_errors: Vec<String>,
    /// Files whose history was told before their first edit in this
    /// session; compaction clears the list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history_files: Vec<String>,
    /// What pms said at the moment of need in this session, newest last
    /// (at most [`MAX_MOMENTS`]), for the page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moments: Vec<Moment>,
    /// A prompt of this session has been answered by the prompt hook. The
    /// first one after a SessionStart (`started` set) leaves the response
    /// format out: layer 0 carried it in the same request.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompted: bool,
}

/// The sessions that recorded moments, the most recently changed first (at
/// most `max`), each with its moments, for the page.
pub fn recent_moments(ws: &Workspace, max: usize) -> Vec<(String, Vec<Moment>)> {
    let Ok(rd) = std::fs::read_dir(ws.session_state_dir()) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = rd
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut out = Vec::new();
    for (_, path) in files {
        let Some(st) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<SessionState>(&t).ok())
        else {
            continue;
        };
        if st.moments.is_empty() {
            continue;
        }
        out.push((st.session_id, st.moments));
        if out.len() >= max {
            break;
        }
    }
    out
}

/// Moments kept per session.
pub const MAX_MOMENTS: usize = 20;

/// One injection at the moment of need: when, which kind, why, and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    pub at: String,
    /// `error_recall`, `file_history` or `continuity` (the config keys).
    pub kind: String,
    /// What set it off (the error's first line, the file, the project).
    pub why: String,
    /// What was injected (redacted as injected).
    pub text: String,
}

impl SessionState {
    /// Notes an injection for the page, keeping the newest [`MAX_MOMENTS`].
    pub fn record_moment(&mut self, kind: &str, why: &str, text: &str) {
        self.moments.push(Moment {
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            kind: kind.to_string(),
            why: why.to_string(),
            text: text.to_string(),
        });
        let excess = self.moments.len().saturating_sub(MAX_MOMENTS);
        self.moments.drain(..excess);
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A learning found in the session: a rule the user or the agent stated,
/// or what a reply that stated none found out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub kind: String,
    /// The rule as staged (redacted).
    pub text: String,
    pub round: u32,
    /// Who said it; states written before origins were kept are the assistant's.
    #[serde(default)]
    pub origin: Origin,
    /// The narrative around the rule: the correction, the root cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The transcript line of the prompt the reply answered (0: not known).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reply: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Signal {
    fn from_learning(l: Learning, round: u32, reply: u64) -> Signal {
        Signal {
            kind: l.kind.to_string(),
            text: l.text,
            round,
            origin: l.origin,
            why: l.why,
            reply,
        }
    }

    /// Whether `l` says more than this signal: the user's own words over
    /// the agent's, a rule over a narrative.
    fn weaker_than(&self, l: &Learning) -> bool {
        (l.origin == Origin::User && self.origin != Origin::User)
            || (signals::is_rule_kind(l.kind) && !signals::is_rule_kind(&self.kind))
    }

    /// Takes what `l` says better. The user's own rule wins whole, with the
    /// reason the user gave or none: the agent's apology or promise around
    /// it ("Sorry — I'll use pnpm") is no reason for it. Of the agent's own
    /// words, a rule takes a narrative's place, and the narrative becomes
    /// its why only when it says more than the rule (a root cause, not
    /// "I'll use pnpm").
    fn absorb(&mut self, l: Learning) {
        if l.origin == Origin::User {
            if self.origin != Origin::User {
                self.kind = l.kind.to_string();
                self.text = l.text;
                self.origin = Origin::User;
                self.why = l.why;
            } else if self.why.is_none() {
                self.why = l.why;
            }
            return;
        }
        if self.origin == Origin::User {
            return;
        }
        if signals::is_rule_kind(l.kind) && !signals::is_rule_kind(&self.kind) {
            let old = std::mem::replace(&mut self.text, l.text);
            self.kind = l.kind.to_string();
            let reason = (!signals::restates(&old, &self.text)).then_some(old);
            self.why = match (reason, self.why.take()) {
                (Some(r), Some(w)) => Some(format!("{r} {w}")),
                (r, w) => r.or(w),
            };
        } else if self.why.is_none() {
            self.why = l.why.filter(|w| !signals::restates(w, &self.text));
        }
    }

    /// Whether `l` says what this signal says: nearly the same words, or
    /// the agent saying a part of it again and nothing more ("Always use
    /// pnpm." after the user's "always use pnpm in this repo"), or the
    /// agent's narrative ("I'll use pnpm.") that rule `l` says in full.
    fn says_the_same(&self, mine: &KeyTerms, l: &Learning, theirs: &KeyTerms) -> bool {
        similarity_of(mine, theirs) >= DUPLICATE_SIMILARITY
            || (l.origin == Origin::Assistant && theirs.within(mine))
            || (self.origin == Origin::Assistant
                && !signals::is_rule_kind(&self.kind)
                && signals::is_rule_kind(l.kind)
                && mine.within(theirs))
    }
}

/// `text`'s key terms, analysed once per `known`.
fn key_terms<'k>(known: &'k mut HashMap<String, KeyTerms>, text: &str) -> &'k KeyTerms {
    if !known.contains_key(text) {
        known.insert(text.to_string(), KeyTerms::of(text));
    }
    &known[text]
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

    /// Loads, changes and saves the state of `session_id` as one step, under
    /// that session's lock (`state/<session>.lock`): its hooks and the
    /// background recovery change the file, and a load-change-save that
    /// interleaved with another would lose one of the changes. One lock per
    /// session, not one for all: a long finish of one session (a 10 MB
    /// transcript) held a single lock for seconds, and another session's
    /// prompt hook waited past its 5 s timeout.
    pub fn update<T>(
        ws: &Workspace,
        session_id: &str,
        f: impl FnOnce(&mut SessionState) -> T,
    ) -> std::io::Result<T> {
        let lock = ws
            .session_state_dir()
            .join(format!("{}.lock", file_stem(session_id)));
        let _lock = durable::lock_exclusive(&lock)?;
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
    /// they show: files changed, and learnings in every user prompt and every
    /// assistant turn (an insight often comes in the text before a tool
    /// call, not in the final reply). A user's rule the prompt hook recorded
    /// already is found again here and merged, not recorded twice. Returns
    /// the new turns.
    ///
    /// The work is bounded whatever the backlog (a session pms first sees
    /// at its end, a crashed one recovered, the first Stop of a long resumed
    /// session): every prompt is read (a user's rule is the strongest
    /// signal, and prompts are short), but of the replies only the newest
    /// [`REPLY_TEXT_ANALYSED`] bytes, each at most its [`REPLY_WINDOW`] ends.
    pub fn catch_up(&mut self, transcript: &Path) -> CaughtUp {
        let from_start = self.transcript_offset == 0;
        let (turns, stats, lines) =
            read_new_turns(transcript, self.transcript_offset, self.transcript_lines);
        self.transcript_offset = stats.end_offset;
        self.transcript_lines = lines;
        let first_analysed = newest_replies(&turns, REPLY_TEXT_ANALYSED);
        let mut files = FileSet::new(&self.files_changed);
        for (i, t) in turns.iter().enumerate() {
            files.extend(&mut self.files_changed, &t.files_changed);
            match t.role {
                Role::User => {
                    self.prompt_line = t.line_start;
                    self.record_prompt(&t.text);
                }
                Role::Assistant if i >= first_analysed => self.record_signals(&t.text),
                Role::Assistant | Role::Tool | Role::Summary => {}
            }
        }
        CaughtUp {
            turns,
            stats,
            from_start,
        }
    }

    /// Records the learnings of assistant reply `message` (it answers the
    /// last prompt read). A long reply is read at its start and end only: a
    /// rule is said in a sentence or two around the work, not in the middle
    /// of a generated file or a tutorial.
    pub fn record_signals(&mut self, message: &str) {
        // The state is written to disk: no secret goes in.
        let window = window_ends(message, REPLY_WINDOW);
        let message = crate::platform::redact::redact(&window);
        let found = signals::learnings(&message, Origin::Assistant);
        self.record(found, self.prompt_line);
    }

    /// Records the rules the user states in `prompt`.
    pub fn record_prompt(&mut self, prompt: &str) {
        self.record(prompt_rules(prompt), 0);
    }

    /// Adds `found` to the session's signals. A learning that restates one
    /// already recorded ([`Signal::says_the_same`]) is merged into it (the
    /// user's words and a rule win over the agent's narrative); one already staged is recorded again
    /// only when it says more, so staging can upgrade the pending item. One
    /// reply gives at most one narrative learning, and none once it stated
    /// a rule: a rule replaces a narrative of the same reply.
    pub fn record(&mut self, found: Vec<Learning>, reply: u64) {
        let staged = self.signals_staged.min(self.signals.len());
        // each recorded signal's key terms once per reply, not once per
        // learning found in it (a reply of rules found a dozen, and
        // analysing every signal again for each was 37 M instructions of a
        // cold 20 MB session end)
        let mut known: HashMap<String, KeyTerms> = HashMap::new();
        for l in found {
            let theirs = KeyTerms::of(&l.text);
            if let Some(i) = self.signals.iter().position(|s| {
                let mine = key_terms(&mut known, &s.text);
                s.says_the_same(mine, &l, &theirs)
            }) {
                if i >= staged {
                    self.signals[i].absorb(l);
                } else if self.signals[i].weaker_than(&l) && self.has_room(staged, &l) {
                    self.signals
                        .push(Signal::from_learning(l, self.rounds, reply));
                }
                continue;
            }
            if l.origin == Origin::Assistant && reply != 0 {
                let mut same_reply = self.signals[staged..]
                    .iter_mut()
                    .filter(|s| s.origin == Origin::Assistant && s.reply == reply);
                if signals::is_rule_kind(l.kind) {
                    if let Some(s) = same_reply.find(|s| !signals::is_rule_kind(&s.kind)) {
                        s.absorb(l);
                        continue;
                    }
                } else if let Some(s) = same_reply.next() {
                    if s.why.is_none() && !signals::restates(&l.text, &s.text) {
                        s.why = Some(l.text);
                    }
                    continue;
                }
            }
            if self.has_room(staged, &l) {
                self.signals
                    .push(Signal::from_learning(l, self.rounds, reply));
            }
        }
    }
}

impl SessionState {
    /// Whether `l` may join the unstaged signals: there is room, or the
    /// weakest one is weaker than `l` and makes way ([`MAX_UNSTAGED`]).
    fn has_room(&mut self, staged: usize, l: &Learning) -> bool {
        self.signals.len() - staged < MAX_UNSTAGED
            || self.make_room(staged, strength(l.origin, l.kind))
    }

    /// Drops the weakest unstaged signal if it is weaker than `incoming`
    /// (the later one of equal strength goes: the first said stays).
    /// Returns whether there is room now.
    fn make_room(&mut self, staged: usize, incoming: u8) -> bool {
        let weakest = (staged..self.signals.len())
            .rev()
            .min_by_key(|&i| strength(self.signals[i].origin, &self.signals[i].kind));
        match weakest {
            Some(i) if strength(self.signals[i].origin, &self.signals[i].kind) < incoming => {
                self.signals.remove(i);
                true
            }
            _ => false,
        }
    }
}

/// At most this many learnings wait to be staged per session: a session
/// that says more "rules" than a person would confirm is reading docs or
/// code aloud (20 MB of docstring-like replies staged 1,445 learnings from
/// 361 sessions, and comparing each new one with all before it made a cold
/// session end take 35 s). The strongest are kept ([`strength`]).
pub const MAX_UNSTAGED: usize = 5;

/// Reply text analysed per catch-up, newest first: far more than the
/// replies between two Stop hooks, so only a session pms first sees at its
/// end is read in part. Replies whose every sentence reads like a rule
/// cost 0.4 G instructions at 256 KB (callgrind, a 20 MB cold session end
/// of them: 884 M in all, some 200 ms), and only [`MAX_UNSTAGED`]
/// learnings are kept whatever is read.
pub const REPLY_TEXT_ANALYSED: usize = 128 * 1024;

/// Bytes read at each end of a long reply.
pub const REPLY_WINDOW: usize = 4 * 1024;

/// How much a learning weighs when a session has more than it keeps: the
/// user's own rule, then a rule the agent stated, then what a correction
/// taught, then the rest of the narrative.
fn strength(origin: Origin, kind: &str) -> u8 {
    let by_kind = match kind {
        "rule" | "anti-pattern" => 3,
        "correction" => 2,
        "method" | "error" => 1,
        _ => 0,
    };
    by_kind + if origin == Origin::User { 4 } else { 0 }
}

/// The index of the first assistant turn among the newest ones whose text
/// adds up to at most `budget` bytes (each counted at most at its two
/// windows).
fn newest_replies(turns: &[Turn], budget: usize) -> usize {
    let mut used = 0;
    for (i, t) in turns.iter().enumerate().rev() {
        if t.role != Role::Assistant {
            continue;
        }
        used += t.text.len().min(2 * REPLY_WINDOW);
        if used > budget {
            return i + 1;
        }
    }
    0
}

/// `text`, or its first and last `window` bytes (cut at character
/// boundaries) with a paragraph break between when it is longer.
fn window_ends(text: &str, window: usize) -> std::borrow::Cow<'_, str> {
    crate::platform::host::text::ends(text, window, window, "\n\n")
}

/// The files already listed, for adding new ones without comparing each
/// with the whole list (a long session edits thousands of times).
struct FileSet(std::collections::HashSet<String>);

impl FileSet {
    fn new(list: &[String]) -> FileSet {
        FileSet(list.iter().cloned().collect())
    }

    fn extend(&mut self, list: &mut Vec<String>, new: &[String]) {
        for f in new {
            if self.0.insert(f.clone()) {
                list.push(f.clone());
            }
        }
    }
}

/// The rules the user states in `prompt`, redacted. Cheap for the prompts
/// that state none (most): a substring prefilter runs before any pattern is
/// compiled or tried.
pub fn prompt_rules(prompt: &str) -> Vec<Learning> {
    if !signals::may_state_rule(prompt) {
        return Vec::new();
    }
    signals::learnings(&crate::platform::redact::redact(prompt), Origin::User)
}

/// Appends the items of `new` that `list` does not hold yet, keeping order.
pub fn extend_unique(list: &mut Vec<String>, new: &[String]) {
    for item in new {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

/// What [`SessionState::catch_up`] read.
pub struct CaughtUp {
    /// The turns added since the last catch-up.
    pub turns: Vec<Turn>,
    /// What the read saw (`end_offset`: how far the transcript is read).
    pub stats: ReadStats,
    /// Whether the read started at the transcript's first byte: then
    /// `turns` is the whole conversation (the summary needs no second read).
    pub from_start: bool,
}

/// Turns added to the transcript since `offset` (bytes) / `lines`, what the
/// read saw, and the lines read in all now (a transcript shorter than what
/// was read was replaced and is read from its start). A missing or
/// unreadable file gives nothing (the transcript may not exist yet).
fn read_new_turns(path: &Path, offset: u64, lines: u64) -> (Vec<Turn>, ReadStats, u64) {
    let unread = ReadStats {
        end_offset: offset,
        ..ReadStats::default()
    };
    let Ok(mut file) = std::fs::File::open(path) else {
        return (Vec::new(), unread, lines);
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let (offset, lines) = if len < offset {
        (0, 0)
    } else {
        (offset, lines)
    };
    if file.seek(SeekFrom::Start(offset)).is_err() {
        return (Vec::new(), unread, lines);
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let (turns, stats) = transcript::read(&mut reader, offset, lines, &ReadOptions::default());
    let lines = lines + stats.lines;
    (turns, stats, lines)
}

/// Deletes the state of sessions that can no longer be resumed: untouched
/// for longer than Claude Code keeps transcripts ([`KEPT_DAYS`]), or
/// untouched for a day with its transcript gone. A session resumed within
/// that time finds what it had loaded, so `--resume` and `--continue` do not
/// inject its domain rules again.
///
/// At most once per [`PRUNE_EVERY`] (a marker file's time says when it last
/// ran): every session start called it, and it reads the time of every
/// state file. On a workspace with 2,119 session states, strace counted
/// 1,342 `statx` calls in one start and perf put most of its time in the
/// kernel.
pub fn prune(ws: &Workspace) {
    let marker = ws.session_state_dir().join(PRUNED_MARKER);
    let recent = std::fs::metadata(&marker)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().unwrap_or_default() < PRUNE_EVERY);
    if recent {
        return;
    }
    let Ok(rd) = std::fs::read_dir(ws.session_state_dir()) else {
        return;
    };
    // written before the work, so that starts soon after skip it; two
    // starts at the same moment may both prune, which is harmless
    let _ = std::fs::write(&marker, b"");
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
            let _ = std::fs::remove_file(p.with_extension("lock"));
        }
    }
}

/// Days a session's state is kept: Claude Code's default `cleanupPeriodDays`.
pub const KEPT_DAYS: u32 = 30;
/// How often old session states are looked for (they are kept for days).
const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(3_600);
/// The file in the state folder whose time says when [`prune`] last ran.
const PRUNED_MARKER: &str = "pruned.at";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_states_are_pruned_at_most_once_an_hour() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::create_dir_all(ws.session_state_dir()).unwrap();
        let aged = |name: &str, days: u64| {
            let p = ws.session_state_dir().join(name);
            std::fs::write(&p, b"{}").unwrap();
            let t = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(t)
                .unwrap();
            p
        };
        let old = aged("old.json", 40);
        let fresh = aged("fresh.json", 0);
        prune(&ws);
        assert!(!old.exists() && fresh.exists());
        // within the hour, nothing is looked at
        let later = aged("later.json", 40);
        prune(&ws);
        assert!(later.exists());
        // an hour on, it is
        aged(PRUNED_MARKER, 1);
        prune(&ws);
        assert!(!later.exists() && fresh.exists());
    }

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

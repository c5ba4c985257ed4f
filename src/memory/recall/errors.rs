//! The same error met in an earlier session, and what was done next there.
//!
//! The index holds each tool result of every past conversation as a chunk
//! (`role = 'tool'`, `[error Bash] …` when it failed). A failing command's
//! output becomes a [`Signature`]; its rarest words find candidate results
//! through FTS5, each candidate's own signature is compared with ours, first
//! cheaply ([`Signature::likeness`], to keep a [`SHORTLIST`], and every one
//! that holds a telling line of ours whole), then by
//! [`Signature::weighted_likeness`] (a telling line held whole, else each
//! word weighed by its rarity in past results); the best one past [`STRONG`]
//! gives the turns that followed it in its conversation: the fix.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension, params};

use super::place::Place;
use super::signature::{LineSet, Signature};
use super::{Conversation, Step};

/// Least weighted likeness of a past error to count as the same error.
/// Chosen on the tuning halves of tests/data/moment_dev.toml and
/// moment_written.toml (tests/moment.rs prints the figures): the same error
/// in another checkout, or part of it, scores 0.9 and more; two errors of
/// one kind about different things, 0.8 and less. With the unweighted
/// likeness and 0.72, the written set's fix was found 0.39 of the time.
pub const STRONG: f64 = 0.86;

/// Candidates weighed word by word: the most alike by the cheap likeness,
/// and at least [`SHORTLISTED`] alike (the right past error ranked first
/// among them on every case of the dev and written sets' tuning halves;
/// the least of them scored 0.085), besides those holding a telling line.
const SHORTLIST: usize = 8;
const SHORTLISTED: f64 = 0.05;

/// Different past errors that may share a line of ours for it to tell
/// which error this is: one (the same error met in several conversations
/// is one error).
const TELLING_ERRORS: usize = 1;

/// Words of the signature searched for, rarest first.
const QUERY_WORDS: usize = 10;
/// A word in more than 1/COMMON_PART of the chunks (and more than
/// COMMON_LEAST) is too common to search for.
const COMMON_PART: i64 = 50;
const COMMON_LEAST: i64 = 200;
/// Candidate chunks read from FTS5 (about a millisecond for 300 on a
/// 100k-chunk index).
const CANDIDATES: i64 = 100;
/// Turns read after the error.
const FOLLOWING: i64 = 14;

/// A past error like the one just met, and what followed it.
#[derive(Debug, Clone, PartialEq)]
pub struct PastFix {
    pub conversation: Conversation,
    /// The past error's first line, as it was met.
    pub error_line: String,
    pub likeness: f64,
    /// What was done next, in order.
    pub steps: Vec<Step>,
}

/// The best past fix for the error whose signature is `cut` (read with
/// [`Signature::of_window`], as the index keeps a past result) and which
/// happened at `place` ([`Place::of_error`]: unknown when it does not
/// matter), in conversations other than `exclude` (the current session's
/// id and transcript address), or None when no past error is
/// [`STRONG`]ly alike or nothing was done after it. A message any program
/// prints met elsewhere is another error.
pub fn recall(
    conn: &Connection,
    cut: &Signature,
    place: &Place,
    exclude_session: &str,
    exclude_uri: Option<&str>,
) -> rusqlite::Result<Option<PastFix>> {
    // one count per word, shared by the search and the weighing below
    let rarity = Rarity::new(conn)?;
    let Some(query) = fts_query(&rarity, cut) else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.file_id, c.line_end, c.ts, c.text, f.uri, f.project, f.cwd, f.session_id, f.first_ts, c.line_start
         FROM (SELECT rowid AS id, rank FROM transcript_fts WHERE transcript_fts MATCH ?1 ORDER BY rank LIMIT ?2) m
         JOIN chunks c ON c.id = m.id JOIN files f ON f.id = c.file_id
         WHERE c.role = 'tool'",
    )?;
    let rows = stmt.query_map(params![query, CANDIDATES], |r| {
        Ok(Candidate {
            file_id: r.get(1)?,
            line_end: r.get::<_, i64>(2)? as u64,
            ts: r.get(3)?,
            text: r.get(4)?,
            uri: r.get(5)?,
            project: r.get(6)?,
            cwd: r.get(7)?,
            session_id: r.get(8)?,
            first_ts: r.get(9)?,
            line_start: r.get::<_, i64>(10)? as u64,
        })
    })?;
    // where it happened tells a message any program prints from the same
    // message met elsewhere
    let placed = place.is_known();
    let mut read: Vec<Read> = Vec::new();
    for c in rows {
        let c = c?;
        if c.session_id.as_deref() == Some(exclude_session) || Some(c.uri.as_str()) == exclude_uri {
            continue;
        }
        if placed && place.is_elsewhere_than(&past_place(conn, &c)?) {
            continue;
        }
        // a past failure is read as the new one is; a result that did
        // not fail only by its error lines
        let text = unlabelled(&c.text);
        let past = if c.text.lines().any(|l| l.starts_with("[error ")) {
            Signature::of_failure(&text)
        } else {
            Signature::of(&text)
        };
        let Some(past) = past else {
            continue;
        };
        read.push(Read {
            likeness: cut.likeness(&past),
            shared: cut.shared_lines(&past),
            candidate: c,
            past,
        });
    }
    let telling = telling_lines(cut, &read);
    // Weighed word by word: the most alike by the cheap likeness, and every
    // one that holds a telling line of ours (a short line inside a long
    // output is not alike by words).
    read.sort_by(|a, b| b.likeness.total_cmp(&a.likeness));
    let mut candidates: Vec<(f64, Candidate)> = Vec::new();
    for (rank, r) in read.into_iter().enumerate() {
        let shared = r.shared.and(telling);
        if shared.is_empty() && (rank >= SHORTLIST || r.likeness < SHORTLISTED) {
            continue;
        }
        let likeness = cut.weighted_likeness(&r.past, &|w| rarity.of(w), shared);
        if likeness >= STRONG {
            candidates.push((likeness, r.candidate));
        }
    }
    // The most alike first; of equals, the newest (the latest fix).
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.ts.cmp(&a.1.ts)));
    let mut tried: HashSet<i64> = HashSet::new();
    for (likeness, c) in candidates {
        if !tried.insert(c.file_id) {
            continue;
        }
        let steps = following(conn, c.file_id, c.line_end)?;
        if !steps.iter().any(|s| matches!(s, Step::Said(_))) {
            continue; // nothing was said after it: no fix to tell
        }
        let text = unlabelled(&c.text);
        let mut lines = text.lines().map(str::trim);
        let error_line = lines
            .clone()
            .find(|l| Signature::of(l).is_some())
            .or_else(|| lines.rfind(|l| !l.is_empty()))
            .unwrap_or_default()
            .to_string();
        return Ok(Some(PastFix {
            conversation: Conversation {
                uri: c.uri,
                project: c.project,
                cwd: c.cwd,
                date: c.ts.or(c.first_ts),
                line: c.line_end,
            },
            error_line,
            likeness,
            steps,
        }));
    }
    Ok(None)
}

/// How rare a word is among the indexed chunks: how many hold it (the
/// vocabulary table answers one term at a time from its b-tree), asked
/// once per word, and the weight ln(1 + chunks / (1 + that count)).
struct Rarity<'c> {
    /// The largest chunk id, standing for the count: exact enough for a
    /// weight, and a b-tree lookup where count(*) reads every row.
    chunks: i64,
    lookup: RefCell<rusqlite::CachedStatement<'c>>,
    known: RefCell<HashMap<String, i64>>,
}

impl<'c> Rarity<'c> {
    fn new(conn: &'c Connection) -> rusqlite::Result<Rarity<'c>> {
        let chunks: Option<i64> =
            conn.query_row("SELECT max(rowid) FROM chunks", [], |r| r.get(0))?;
        Ok(Rarity {
            chunks: chunks.unwrap_or(1).max(1),
            lookup: RefCell::new(
                conn.prepare_cached("SELECT doc FROM transcript_vocab WHERE term = ?1")?,
            ),
            known: RefCell::new(HashMap::new()),
        })
    }

    /// Chunks holding `word` (0 when none or it cannot be read). FTS5
    /// splits `serde_json` in two: its first part stands for it.
    fn docs(&self, word: &str) -> i64 {
        if let Some(n) = self.known.borrow().get(word) {
            return *n;
        }
        let first = word.split('_').find(|p| !p.is_empty()).unwrap_or(word);
        let n: i64 = self
            .lookup
            .borrow_mut()
            .query_row([first], |r| r.get(0))
            .unwrap_or(0);
        self.known.borrow_mut().insert(word.to_string(), n);
        n
    }

    fn of(&self, word: &str) -> f64 {
        (1.0 + self.chunks as f64 / (1.0 + self.docs(word) as f64)).ln()
    }
}

/// A candidate read: its signature, how alike it is by the cheap measure
/// and which of our lines it shares whole.
struct Read {
    likeness: f64,
    shared: LineSet,
    candidate: Candidate,
    past: Signature,
}

/// Our lines that at most [`TELLING_ERRORS`] different past errors
/// share whole (errors told apart by [`Signature::key`]): a line many
/// errors print (`= note: this error originates in the macro …`) does not
/// tell which one this is.
fn telling_lines(sig: &Signature, read: &[Read]) -> LineSet {
    // each holder's key once, whatever lines it holds
    let holders: Vec<(LineSet, String)> = read
        .iter()
        .filter(|r| !r.shared.is_empty())
        .map(|r| (r.shared, r.past.key()))
        .collect();
    let mut telling = LineSet::default();
    for i in 0..sig.lines.len() {
        let errors: HashSet<&str> = holders
            .iter()
            .filter(|(shared, _)| shared.contains(i))
            .map(|(_, key)| key.as_str())
            .collect();
        if errors.len() <= TELLING_ERRORS {
            telling = telling.with(i);
        }
    }
    telling
}

struct Candidate {
    file_id: i64,
    line_end: u64,
    ts: Option<String>,
    text: String,
    uri: String,
    project: String,
    cwd: Option<String>,
    session_id: Option<String>,
    first_ts: Option<String>,
    line_start: u64,
}

/// Where a past error happened: what its output names, else what the
/// command before it named (the turn before a result holds its call,
/// `[tool Bash] curl …`).
fn past_place(conn: &Connection, c: &Candidate) -> rusqlite::Result<Place> {
    let named = Place::named_in(&c.text);
    if named.is_known() {
        return Ok(named);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT text FROM chunks WHERE file_id = ?1 AND line_start < ?2 ORDER BY line_start DESC LIMIT 1",
    )?;
    let before: Option<String> = stmt
        .query_row(params![c.file_id, c.line_start as i64], |r| r.get(0))
        .optional()?;
    let calls: Vec<&str> = before
        .as_deref()
        .unwrap_or("")
        .lines()
        .filter(|l| l.starts_with("[tool "))
        .collect();
    Ok(Place::named_in_command(&calls.join("\n")))
}

/// A tool chunk's text without the `[error Bash] ` / `[result Bash] `
/// labels the transcript reader puts before each result.
fn unlabelled(text: &str) -> String {
    text.lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix('[')
                && (rest.starts_with("error ") || rest.starts_with("result "))
                && let Some(end) = rest.find("] ")
            {
                &rest[end + 2..]
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `"w1" OR "w2" …`: the signature's words the index holds in fewest
/// chunks (FTS5 splits `serde_json` in two, so such a word is a phrase).
fn fts_query(rarity: &Rarity, sig: &Signature) -> Option<String> {
    let mut counted: Vec<(i64, String)> = sig
        .words()
        .into_iter()
        .filter(|w| w.len() >= 3 && w.chars().any(char::is_alphabetic))
        .map(|w| (rarity.docs(&w), w))
        .filter(|(n, _)| *n > 0)
        .collect();
    counted.sort();
    // A word in many chunks ("use", "run", "test") finds nothing the rare
    // ones do not, and FTS5 ranks every chunk holding it before it can cut
    // to CANDIDATES. An error whose only indexed words are such words was
    // never met (its own words are in no past result): on the 105k-chunk
    // bench index, searching for them anyway took 25-55 ms and found
    // nothing alike.
    let common = (rarity.chunks / COMMON_PART).max(COMMON_LEAST);
    let parts: Vec<String> = counted
        .into_iter()
        .filter(|(n, _)| *n <= common)
        .take(QUERY_WORDS)
        .map(|(_, w)| {
            let phrase: Vec<&str> = w.split('_').filter(|p| !p.is_empty()).collect();
            crate::memory::search::query::quote(&phrase.join(" "))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" OR "))
}

/// What followed line `after` of a conversation: what the agent said and
/// ran, until the user moved on or [`FOLLOWING`] turns were read.
fn following(conn: &Connection, file_id: i64, after: u64) -> rusqlite::Result<Vec<Step>> {
    let mut stmt = conn.prepare_cached(
        "SELECT role, text FROM chunks WHERE file_id = ?1 AND line_start > ?2 ORDER BY line_start LIMIT ?3",
    )?;
    let rows: Vec<(Option<String>, String)> = stmt
        .query_map(params![file_id, after as i64, FOLLOWING], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(super::steps(&rows))
}

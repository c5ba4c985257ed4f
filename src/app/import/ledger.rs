//! `.pms/imports/<source>.json`: what earlier imports of one source did.
//! The notes pms wrote into the workspace, by path, with the hash of what
//! it wrote (a note whose file no longer has that hash was edited by its
//! owner and is never written over); the answers the user gave about
//! additions to `_me/` (never asked twice); the conversations whose
//! learnings were staged; and the last runs, for `pms status`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::platform::host::durable;
use crate::platform::host::error::{AtPath, FileError};
use crate::platform::imports::Kind;
use crate::platform::workspace::Workspace;

/// Runs kept in the ledger.
const RUNS_KEPT: usize = 20;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    #[serde(default = "one")]
    pub version: u32,
    /// Workspace-relative path → `xxh3:<hex>` of the bytes pms wrote.
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    /// An addition to `_me/` (by its id) → what the user said.
    #[serde(default)]
    pub identity: BTreeMap<String, Decision>,
    /// A conversation (its URI) → the hash of the transcript whose learnings
    /// were staged: a conversation is read for learnings once per version,
    /// and again after a run killed before it staged them.
    #[serde(default)]
    pub learned: BTreeMap<String, String>,
    #[serde(default)]
    pub runs: Vec<Run>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Added,
    Declined,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub path: PathBuf,
    /// RFC 3339.
    pub at: String,
    pub conversations: u64,
    pub notes: u64,
}

pub fn path(ws: &Workspace, kind: Kind) -> PathBuf {
    ws.state_dir()
        .join("imports")
        .join(format!("{}.json", kind.id()))
}

/// The bytes' hash as the ledger keeps it.
pub fn hash(bytes: &[u8]) -> String {
    format!("xxh3:{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

impl Ledger {
    /// The ledger of `kind`, or an empty one. One that does not parse is
    /// an error naming it: treating it as empty would let an import write
    /// over notes the user edited.
    pub fn load(ws: &Workspace, kind: Kind) -> Result<Ledger, FileError> {
        let p = path(ws, kind);
        match std::fs::read_to_string(&p) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                FileError::new(
                    &p,
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "not valid JSON ({e}). Fix: move it aside; the next import then keeps every imported note that already exists"
                        ),
                    ),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ledger {
                version: 1,
                ..Ledger::default()
            }),
            Err(e) => Err(FileError::new(p, e)),
        }
    }

    pub fn save(&mut self, ws: &Workspace, kind: Kind) -> Result<(), FileError> {
        if self.runs.len() > RUNS_KEPT {
            self.runs.drain(..self.runs.len() - RUNS_KEPT);
        }
        let p = path(ws, kind);
        let text = serde_json::to_string_pretty(self).expect("the ledger serialises");
        durable::write_atomic(&p, text.as_bytes()).at(&p)
    }
}

/// The workspace-relative form of `p`.
pub fn rel(ws: &Workspace, p: &Path) -> String {
    ws.relative(p).unwrap_or_else(|| p.display().to_string())
}

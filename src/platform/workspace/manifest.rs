//! `.pms/manifest.json`: the system files pms wrote and the hash of what it
//! wrote. `pms upgrade` compares a file's current hash with this one to tell
//! a file the user never touched (replace it) from one they edited (keep it,
//! put the new version beside it).
//!
//! Rules promoted into a domain CLAUDE.md live between lesson markers; they
//! are the user's data, so the hash ignores that section: promoting a lesson
//! does not make the rest of the file count as edited.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::markers;
use crate::platform::host::durable;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub pms_version: String,
    /// The default `embeddings.model` this workspace was made with or
    /// brought to by an upgrade; absent in a workspace made before the
    /// default became all-MiniLM-L6-v2 (`app::upgrade` moves such a
    /// workspace once, and only when the old model was never used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_default: Option<String>,
    /// Path relative to the workspace → entry.
    pub files: BTreeMap<String, ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub hash: String,
}

impl Manifest {
    pub fn load(path: &Path) -> std::io::Result<Manifest> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
            Err(e) => Err(e),
        }
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("manifest serialises");
        durable::write_atomic(path, text.as_bytes())
    }

    pub fn record(&mut self, rel: &str, text: &str) {
        self.files.insert(
            rel.to_string(),
            ManifestEntry {
                hash: content_hash(text),
            },
        );
    }
}

/// Hash of a system file's text, ignoring the promoted-lessons section.
pub fn content_hash(text: &str) -> String {
    let normalised = match markers::replace_inner(text, markers::LESSONS, "") {
        Some(t) => t,
        None => text.to_string(),
    };
    format!(
        "xxh3:{:032x}",
        xxhash_rust::xxh3::xxh3_128(normalised.as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promoted_lessons_do_not_change_the_hash() {
        let base = format!(
            "# Rules\n{}\n{}\n",
            markers::LESSONS.begin,
            markers::LESSONS.end
        );
        let with = format!(
            "# Rules\n{}\n- Always X.\n{}\n",
            markers::LESSONS.begin,
            markers::LESSONS.end
        );
        assert_eq!(content_hash(&base), content_hash(&with));
        assert_ne!(content_hash(&base), content_hash("# Rules edited\n"));
    }
}

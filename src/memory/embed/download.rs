//! Installing a local model: downloaded from Hugging Face (or a mirror) with
//! a progress bar and a checksum for every file, or copied from a folder the
//! user already has.
//!
//! The checksums come from the hub's file listing
//! (`GET <base>/api/models/<id>/tree/main`): a file stored with Git LFS is
//! listed with the SHA-256 of its content, any other file with its Git blob
//! id (SHA-1 of `blob <size>\0<content>`). Files are written into a temporary
//! folder beside the destination and the folder is renamed into place only
//! when every file matched, so a failed or interrupted download never leaves
//! a half-installed model behind.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha1::Digest as _;

use super::EmbedError;
use super::local::{self, FILES};
use crate::platform::progress::{Progress, Step};
use crate::platform::workspace::config::{DEFAULT_MODEL, MULTILINGUAL_MODEL};

/// `pms-model.json`, written beside the model files: where they came from
/// and what they hash to, for `pms verify` and `pms embeddings status`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Installed {
    pub model: String,
    pub source: String,
    pub installed_at: String,
    pub files: Vec<InstalledFile>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstalledFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
}

pub const RECORD: &str = "pms-model.json";

impl Installed {
    pub fn load(dir: &Path) -> Option<Installed> {
        let text = std::fs::read_to_string(dir.join(RECORD)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Files whose size no longer matches what was installed.
    pub fn size_mismatches(&self, dir: &Path) -> Vec<String> {
        self.files
            .iter()
            .filter(|f| std::fs::metadata(dir.join(&f.name)).map(|m| m.len()).ok() != Some(f.size))
            .map(|f| f.name.clone())
            .collect()
    }
}

/// One entry of the hub's file listing.
#[derive(Debug, Deserialize)]
struct TreeEntry {
    /// "file" or "directory".
    #[serde(default, rename = "type")]
    kind: String,
    path: String,
    #[serde(default)]
    size: u64,
    /// Git blob id.
    #[serde(default)]
    oid: String,
    #[serde(default)]
    lfs: Option<Lfs>,
}

#[derive(Debug, Deserialize)]
struct Lfs {
    /// SHA-256 of the content.
    oid: String,
    size: u64,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(20)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Downloads `model` from `base` (e.g. `https://huggingface.co`) into `dest`.
pub fn install(
    base: &str,
    model: &str,
    dest: &Path,
    progress: &dyn Progress,
) -> Result<Installed, EmbedError> {
    let base = base.trim_end_matches('/');
    let agent = agent();
    let token = std::env::var("HF_TOKEN").ok().filter(|t| !t.is_empty());
    let get = |url: &str| {
        let mut req = agent.get(url);
        if let Some(t) = &token {
            req = req.header("Authorization", format!("Bearer {t}"));
        }
        let resp = req.call().map_err(|e| EmbedError::Http {
            url: url.to_string(),
            cause: e.to_string(),
        })?;
        let status = resp.status().as_u16();
        if status != 200 {
            return Err(EmbedError::Http {
                url: url.to_string(),
                cause: format!(
                    "HTTP {status}{}",
                    if status == 404 {
                        " (no such model; check the model id: embeddings.model, or --model)"
                    } else if status == 401 {
                        " (the model needs a token: set HF_TOKEN)"
                    } else {
                        ""
                    }
                ),
            });
        }
        Ok(resp)
    };

    let tree_url = format!("{base}/api/models/{model}/tree/main");
    let listing: Vec<TreeEntry> =
        get(&tree_url)?
            .body_mut()
            .read_json()
            .map_err(|e| EmbedError::BadResponse {
                url: tree_url.clone(),
                cause: e.to_string(),
            })?;
    let mut nested: Vec<TreeEntry> = Vec::new();
    let mut wanted = Vec::new();
    for name in FILES {
        let entry = listing
            .iter()
            .find(|e| e.path == name)
            .ok_or_else(|| {
                EmbedError::Install(format!(
                    "{model} has no {name}: it is neither a BERT sentence encoder nor a Model2Vec model (pms needs {}).\n  Fix: set embeddings.model to one, e.g. {DEFAULT_MODEL} (English) or {MULTILINGUAL_MODEL} (every language).",
                    FILES.join(", ")
                ))
            })?;
        wanted.push(entry);
    }
    // A sentence-transformers folder's pooling and length settings come
    // along when the model has them. `1_Pooling/config.json` is in a
    // subfolder, which the hub lists apart (`tree/main/1_Pooling`), and
    // only when the top listing shows that folder. The files are optional:
    // a mirror that cannot list a subfolder leaves them out, it does not
    // fail the install.
    let mut listed: Vec<&str> = Vec::new();
    for name in OPTIONAL_FILES {
        if let Some((folder, _)) = name.split_once('/')
            && listing
                .iter()
                .any(|e| e.path == folder && e.kind == "directory")
            && !listed.contains(&folder)
        {
            listed.push(folder);
            let url = format!("{base}/api/models/{model}/tree/main/{folder}");
            let more: Option<Vec<TreeEntry>> = get(&url)
                .ok()
                .and_then(|mut r| r.body_mut().read_json().ok());
            nested.extend(more.unwrap_or_default());
        }
    }
    for name in OPTIONAL_FILES {
        if let Some(entry) = listing
            .iter()
            .chain(&nested)
            .find(|e| e.path == name && e.kind != "directory")
        {
            wanted.push(entry);
        }
    }
    let total: u64 = wanted
        .iter()
        .map(|e| e.lfs.as_ref().map_or(e.size, |l| l.size))
        .sum();

    let staging = staging_dir(dest)?;
    let result = (|| {
        progress.start(Step::Downloading { bytes: total });
        let mut files = Vec::new();
        for entry in &wanted {
            let url = format!("{base}/{model}/resolve/main/{}", entry.path);
            let mut resp = get(&url)?;
            let expected_size = entry.lfs.as_ref().map_or(entry.size, |l| l.size);
            let path = staging.join(&entry.path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|source| {
                    EmbedError::Io(crate::platform::host::error::FileError::new(dir, source))
                })?;
            }
            let mut out = std::fs::File::create(&path).map_err(|source| {
                EmbedError::Io(crate::platform::host::error::FileError::new(
                    path.clone(),
                    source,
                ))
            })?;
            let mut sha256 = sha2::Sha256::new();
            let mut blob = sha1::Sha1::new();
            blob.update(format!("blob {expected_size}\0").as_bytes());
            let mut reader = resp.body_mut().as_reader();
            let mut buf = vec![0u8; 1 << 16];
            let mut size = 0u64;
            loop {
                let n = reader.read(&mut buf).map_err(|e| EmbedError::Http {
                    url: url.clone(),
                    cause: e.to_string(),
                })?;
                if n == 0 {
                    break;
                }
                sha256.update(&buf[..n]);
                blob.update(&buf[..n]);
                out.write_all(&buf[..n]).map_err(|source| {
                    EmbedError::Io(crate::platform::host::error::FileError::new(
                        path.clone(),
                        source,
                    ))
                })?;
                size += n as u64;
                progress.advance(n as u64);
            }
            out.sync_all().map_err(|source| {
                EmbedError::Io(crate::platform::host::error::FileError::new(
                    path.clone(),
                    source,
                ))
            })?;
            let sha256 = hex(&sha256.finalize());
            let (expected, actual) = match &entry.lfs {
                Some(lfs) => (lfs.oid.to_lowercase(), sha256.clone()),
                None => (entry.oid.to_lowercase(), hex(&blob.finalize())),
            };
            if expected != actual || size != expected_size {
                return Err(EmbedError::Checksum {
                    file: url,
                    expected: format!("{expected} ({expected_size} bytes)"),
                    actual: format!("{actual} ({size} bytes)"),
                });
            }
            files.push(InstalledFile {
                name: entry.path.clone(),
                size,
                sha256,
            });
        }
        progress.finish();
        Ok(Installed {
            model: model.to_string(),
            source: format!("{base}/{model}"),
            installed_at: chrono::Utc::now().to_rfc3339(),
            files,
        })
    })();
    finish(staging, dest, result)
}

/// Files a sentence-transformers folder may hold beside the three: how its
/// token vectors are pooled and how many tokens it reads (embed::bert reads
/// them; without them it pools by mean over 256 tokens, as all-MiniLM-L6-v2
/// does).
const OPTIONAL_FILES: [&str; 2] = ["sentence_bert_config.json", "1_Pooling/config.json"];

/// Installs a model from a folder holding its three files (a Model2Vec
/// static model or a BERT sentence encoder such as all-MiniLM-L6-v2), after
/// checking that it loads.
pub fn install_from(folder: &Path, model: &str, dest: &Path) -> Result<Installed, EmbedError> {
    if !local::is_installed(folder) {
        return Err(EmbedError::Install(format!(
            "{} does not hold a Model2Vec or BERT model (it needs {}).",
            folder.display(),
            FILES.join(", ")
        )));
    }
    super::LocalModel::load(folder, model)?;
    let staging = staging_dir(dest)?;
    let result = (|| {
        let mut files = Vec::new();
        let optional = OPTIONAL_FILES
            .into_iter()
            .filter(|name| folder.join(name).is_file());
        for name in FILES.into_iter().chain(optional) {
            let from = folder.join(name);
            let to = staging.join(name);
            if let Some(dir) = to.parent() {
                std::fs::create_dir_all(dir).map_err(|source| {
                    EmbedError::Io(crate::platform::host::error::FileError::new(dir, source))
                })?;
            }
            let bytes = std::fs::read(&from).map_err(|source| {
                EmbedError::Io(crate::platform::host::error::FileError::new(
                    from.clone(),
                    source,
                ))
            })?;
            std::fs::write(&to, &bytes).map_err(|source| {
                EmbedError::Io(crate::platform::host::error::FileError::new(to, source))
            })?;
            files.push(InstalledFile {
                name: name.to_string(),
                size: bytes.len() as u64,
                sha256: hex(&sha2::Sha256::digest(&bytes)),
            });
        }
        Ok(Installed {
            model: model.to_string(),
            source: folder.display().to_string(),
            installed_at: chrono::Utc::now().to_rfc3339(),
            files,
        })
    })();
    finish(staging, dest, result)
}

fn staging_dir(dest: &Path) -> Result<PathBuf, EmbedError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|source| {
        EmbedError::Io(crate::platform::host::error::FileError::new(parent, source))
    })?;
    let staging = parent.join(format!(
        ".{}.partial-{}",
        dest.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|source| {
        EmbedError::Io(crate::platform::host::error::FileError::new(
            staging.clone(),
            source,
        ))
    })?;
    Ok(staging)
}

/// Moves a complete staging folder into place, or removes a failed one.
fn finish(
    staging: PathBuf,
    dest: &Path,
    result: Result<Installed, EmbedError>,
) -> Result<Installed, EmbedError> {
    let installed = match result {
        Ok(i) => i,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    let record = serde_json::to_string_pretty(&installed).expect("record serialises");
    let io = |path: &Path, source| {
        EmbedError::Io(crate::platform::host::error::FileError::new(path, source))
    };
    std::fs::write(staging.join(RECORD), record).map_err(|e| io(&staging, e))?;
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(|e| io(dest, e))?;
    }
    std::fs::rename(&staging, dest).map_err(|e| io(dest, e))?;
    Ok(installed)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_blob_ids_are_computed_as_git_does() {
        // `printf 'hello\n' | git hash-object --stdin`
        let mut h = sha1::Sha1::new();
        h.update(b"blob 6\0hello\n");
        assert_eq!(
            hex(&h.finalize()),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    #[test]
    fn a_folder_without_the_model_files_is_refused_and_nothing_is_installed() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("models/m");
        let err = install_from(dir.path(), "m", &dest).unwrap_err();
        assert!(
            err.to_string()
                .contains("does not hold a Model2Vec or BERT model"),
            "{err}"
        );
        assert!(!dest.exists());
    }
}

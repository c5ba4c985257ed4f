//! Embedding providers: text in, unit vectors out, for semantic recall.
//!
//! Keyword search misses paraphrases ("how do I log in" against a note about
//! JWT setup); vectors close that gap. Three providers, chosen by
//! `embeddings.provider` in config.toml:
//!
//! - `none`: keyword search only.
//! - `local`: a model run in-process: by default all-MiniLM-L6-v2, a BERT
//!   sentence encoder (English, 90 MB, words read in context: see bert.rs),
//!   or a Model2Vec static model (model2vec-rs), a table lookup and an
//!   average that encodes thousands of chunks a second and, with
//!   potion-multilingual-128M, reads every language (workspaces that mix
//!   English and Chinese).
//! - `openai-compatible`: any `/v1/embeddings` server (OpenAI, Ollama, LM
//!   Studio, llama.cpp), its key read from an environment variable.
//!
//! `auto` (the default) means `local` when the model's files are installed
//! and `none` otherwise, so a fresh install never downloads anything on its
//! own. Loading the local model's tokenizer takes from milliseconds to two
//! seconds depending on its vocabulary, which is why the per-prompt hook
//! never embeds: only the indexer, `pms search` and `pms serve` do.

pub mod bert;
pub mod download;
pub mod local;
pub mod openai;

use std::path::{Path, PathBuf};

use crate::platform::host::env::HostEnv;
use crate::platform::workspace::config::{EmbeddingsConfig, Provider};

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "{path}: cannot load the embedding model: {cause}\n  Fix: reinstall it with `pms embeddings install`."
    )]
    Load { path: PathBuf, cause: String },
    #[error("{url}: {cause}")]
    Http { url: String, cause: String },
    #[error("{url} answered with something that is not an embeddings response: {cause}")]
    BadResponse { url: String, cause: String },
    #[error(
        "{file}: checksum mismatch (expected {expected}, got {actual}); nothing was installed.\n  Fix: run the command again; if it keeps failing, the download source is serving a different file."
    )]
    Checksum {
        file: String,
        expected: String,
        actual: String,
    },
    #[error("{0}")]
    Install(String),
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

/// Turns texts into vectors. Implementations return one unit-length vector
/// per text, all of the same length.
pub trait Embedder: Send + Sync {
    /// Names the model and its dimensions. Vectors made under one id are
    /// never compared with another's: a change of model re-embeds the index.
    fn id(&self) -> &str;
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// What the configuration resolves to on this machine.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Keyword search only; the reason is shown to people and in `--json`.
    Off(String),
    /// The local model, whose files are (or should be) in `dir`.
    Local {
        model: String,
        dir: PathBuf,
        installed: bool,
    },
    OpenAi {
        url: String,
        model: String,
        key_env: String,
    },
}

impl Plan {
    pub fn resolve(cfg: &EmbeddingsConfig, env: &HostEnv) -> Plan {
        let local = || {
            let dir = model_dir(env, &cfg.model);
            let installed = local::is_installed(&dir);
            Plan::Local {
                model: cfg.model.clone(),
                dir,
                installed,
            }
        };
        match cfg.provider {
            Provider::None => Plan::Off("embeddings.provider is \"none\"".into()),
            Provider::Local => local(),
            Provider::OpenaiCompatible => Plan::OpenAi {
                url: cfg.api_url.trim_end_matches('/').to_string(),
                model: cfg.api_model.clone(),
                key_env: cfg.api_key_env.clone(),
            },
            Provider::Auto => match local() {
                p @ Plan::Local {
                    installed: true, ..
                } => p,
                _ => Plan::Off(format!(
                    "no embedding model installed (run `pms embeddings install` for {})",
                    cfg.model
                )),
            },
        }
    }

    /// Loads the provider. `Off` and a local model that is not installed give
    /// the reason search falls back to keywords.
    pub fn load(&self) -> Result<Box<dyn Embedder>, String> {
        match self {
            Plan::Off(reason) => Err(reason.clone()),
            Plan::Local {
                installed: false,
                model,
                ..
            } => Err(format!(
                "the local model {model} is not installed (run `pms embeddings install`)"
            )),
            Plan::Local { model, dir, .. } => LocalModel::load(dir, model)
                .map(|m| m.boxed())
                .map_err(|e| e.to_string()),
            Plan::OpenAi {
                url,
                model,
                key_env,
            } => Ok(Box::new(openai::OpenAi::new(url, model, key_env))),
        }
    }

    /// One line for `pms status` and `pms embeddings status`.
    pub fn describe(&self, env: &HostEnv) -> String {
        match self {
            Plan::Off(reason) => format!("keyword only: {reason}"),
            Plan::Local {
                model,
                dir,
                installed,
            } => format!(
                "local {model} ({}{})",
                env.display(dir),
                if *installed { "" } else { ", not installed" }
            ),
            Plan::OpenAi { url, model, .. } => format!("openai-compatible {model} at {url}"),
        }
    }
}

/// A model run in process: a Model2Vec static model or a BERT encoder,
/// told apart by the folder's config.json.
pub enum LocalModel {
    Static(local::Local),
    /// Boxed: its tokenizer and weight table are large next to a static
    /// model's handle.
    Bert(Box<bert::Bert>),
}

impl LocalModel {
    pub fn load(dir: &Path, name: &str) -> Result<LocalModel, EmbedError> {
        if bert::is_bert(dir) {
            bert::Bert::load(dir, name).map(|b| LocalModel::Bert(Box::new(b)))
        } else {
            local::Local::load(dir, name).map(LocalModel::Static)
        }
    }

    pub fn dim(&self) -> usize {
        match self {
            LocalModel::Static(m) => m.dim(),
            LocalModel::Bert(m) => m.dim(),
        }
    }

    /// How long loading took.
    pub fn load_ms(&self) -> u128 {
        match self {
            LocalModel::Static(m) => m.load_ms,
            LocalModel::Bert(m) => m.load_ms,
        }
    }

    /// What kind of model it is, for people.
    pub fn kind(&self) -> &'static str {
        match self {
            LocalModel::Static(_) => "static (Model2Vec)",
            LocalModel::Bert(_) => "transformer (BERT)",
        }
    }

    pub fn boxed(self) -> Box<dyn Embedder> {
        match self {
            LocalModel::Static(m) => Box::new(m),
            LocalModel::Bert(m) => m,
        }
    }
}

impl Embedder for LocalModel {
    fn id(&self) -> &str {
        match self {
            LocalModel::Static(m) => m.id(),
            LocalModel::Bert(m) => m.id(),
        }
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        match self {
            LocalModel::Static(m) => m.embed(texts),
            LocalModel::Bert(m) => m.embed(texts),
        }
    }
}

/// Where a local model lives: a folder path as given, or the cache folder of
/// a Hugging Face model id (`owner/name` → `~/.cache/pms/models/owner--name`).
pub fn model_dir(env: &HostEnv, model: &str) -> PathBuf {
    if names_a_folder(model) {
        env.expand_tilde(model)
    } else {
        env.pms_cache_dir
            .join("models")
            .join(model.replace('/', "--"))
    }
}

/// Whether `embeddings.model` names a folder (used as it is) rather than a
/// Hugging Face model id (downloaded into the cache).
pub fn names_a_folder(model: &str) -> bool {
    model.starts_with('/')
        || model.starts_with('~')
        || model.starts_with('.')
        || Path::new(model).is_dir()
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: &Path) -> HostEnv {
        HostEnv::with_home(home.to_path_buf(), |_| None).unwrap()
    }

    #[test]
    fn auto_is_keyword_only_until_a_model_is_installed() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        let cfg = EmbeddingsConfig::default();
        let plan = Plan::resolve(&cfg, &env);
        assert!(
            matches!(&plan, Plan::Off(r) if r.contains("pms embeddings install")),
            "{plan:?}"
        );
        let model = model_dir(&env, &cfg.model);
        assert_eq!(
            model,
            dir.path()
                .join(".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2")
        );
        std::fs::create_dir_all(&model).unwrap();
        for f in local::FILES {
            std::fs::write(model.join(f), "x").unwrap();
        }
        assert!(matches!(
            Plan::resolve(&cfg, &env),
            Plan::Local {
                installed: true,
                ..
            }
        ));
    }

    #[test]
    fn an_explicit_local_provider_without_its_model_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = EmbeddingsConfig {
            provider: Provider::Local,
            ..Default::default()
        };
        let plan = Plan::resolve(&cfg, &env(dir.path()));
        assert!(matches!(
            plan,
            Plan::Local {
                installed: false,
                ..
            }
        ));
        let err = plan.load().err().unwrap();
        assert!(err.contains("pms embeddings install"), "{err}");
    }

    #[test]
    fn a_folder_path_is_used_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        assert_eq!(model_dir(&env, "~/models/m"), dir.path().join("models/m"));
        assert_eq!(model_dir(&env, "/opt/m"), PathBuf::from("/opt/m"));
    }

    #[test]
    fn normalise_gives_unit_length() {
        let mut v = vec![3.0, 4.0];
        normalise(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        let mut z = vec![0.0, 0.0];
        normalise(&mut z);
        assert_eq!(z, vec![0.0, 0.0]);
    }
}

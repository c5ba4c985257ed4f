//! The in-process provider: a Model2Vec static model (model2vec-rs).
//!
//! A model is a folder of three files: `tokenizer.json`, `model.safetensors`
//! (one embedding row per token, float or int8, optionally with per-token
//! weights and a vocabulary mapping) and `config.json`. A float table is
//! quantised to int8 after loading: a quarter of the memory for the MCP
//! server, which keeps the model for the whole session, at a cosine of
//! about 0.9999 to the original vectors.

use std::path::Path;
use std::time::Instant;

use model2vec_rs::model::StaticModel;

use super::{EmbedError, Embedder};

/// The files a model folder must hold.
pub const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// Tokens read per text: a chunk is at most a few hundred words, and a
/// static model's average moves little after that.
const MAX_TOKENS: usize = 512;

pub fn is_installed(dir: &Path) -> bool {
    FILES.iter().all(|f| dir.join(f).is_file())
}

pub struct Local {
    model: StaticModel,
    id: String,
    /// How long loading took, for `pms verify` and the benchmarks.
    pub load_ms: u128,
}

impl Local {
    pub fn load(dir: &Path, name: &str) -> Result<Local, EmbedError> {
        let started = Instant::now();
        if !is_installed(dir) {
            let missing: Vec<&str> = FILES
                .iter()
                .copied()
                .filter(|f| !dir.join(f).is_file())
                .collect();
            return Err(EmbedError::Load {
                path: dir.into(),
                cause: format!("missing {}", missing.join(", ")),
            });
        }
        let model = StaticModel::from_pretrained(dir, None, Some(true), None)
            .map_err(|e| EmbedError::Load {
                path: dir.into(),
                cause: format!("{e:#}"),
            })?
            .quantize_int8();
        let id = format!("local:{name}:{}", model.dim());
        Ok(Local {
            model,
            id,
            load_ms: started.elapsed().as_millis(),
        })
    }

    pub fn dim(&self) -> usize {
        self.model.dim()
    }
}

impl Embedder for Local {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = self.model.encode_with_args(texts, Some(MAX_TOKENS), 256);
        for v in &mut out {
            super::normalise(v);
        }
        Ok(out)
    }
}

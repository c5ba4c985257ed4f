//! Wiring pms into OpenClaw (npm `openclaw`, checked against 2026.9.6).
//!
//! OpenClaw hooks are in-process JavaScript plugins, so pms ships the
//! smallest one that can carry events across (`integrations/openclaw/
//! index.js`, embedded in the binary): it runs `pms hook <event> --agent
//! openclaw` and returns what pms prints ([`hook`] does the translating).
//! `pms init --agent openclaw` writes it to `~/.openclaw/extensions/pms/`
//! (`package.json`, `openclaw.plugin.json`, `index.js`), where OpenClaw
//! discovers global plugins, with the MCP server declared in the manifest
//! (`mcpServers.pms`: OpenClaw starts it while the plugin is enabled), and
//! enables it in `openclaw.json`: `plugins.entries.pms = {"enabled": true,
//! "hooks": {"allowConversationAccess": true}}` (a non-bundled plugin needs
//! that grant for `before_prompt_build` and `agent_end`), and `"pms"` added
//! to `plugins.allow` when the user keeps an allowlist. `openclaw.json` is
//! edited like Claude Code's settings (byte-preserving, backed up, atomic;
//! [`crate::platform::agents::json_file`]); the install record says what the merge
//! created, so uninstall gives back the bytes that were there.

pub mod hook;

use crate::platform::agents::json_file::WhenEmpty;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::platform::agents::claude::settings::HOOK_EVENTS;
use crate::platform::agents::json_file::{EmptyLayouts, JsonFile, JsonFileError};
use crate::platform::host::env::HostEnv;

/// The plugin's id (its folder, its `plugins.entries` key, the MCP server).
pub const PLUGIN_ID: &str = "pms";

const INDEX_JS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/integrations/openclaw/index.js"
));

#[derive(Debug, thiserror::Error)]
pub enum OpenClawError {
    #[error(
        "{0}\n  OpenClaw's config may use JSON5 (comments, trailing commas), which pms cannot edit without losing them. Fix: remove those, or add `\"plugins\": {{\"entries\": {{\"pms\": {{\"enabled\": true, \"hooks\": {{\"allowConversationAccess\": true}}}}}}}}` yourself and run `pms init --agent openclaw` again."
    )]
    Config(#[source] JsonFileError),
    #[error(
        "{path}: \"{key}\" is {found}, but OpenClaw expects an object.\n  pms changed nothing. Fix: make it an object (or remove it) and run the command again."
    )]
    NotAnObject {
        path: PathBuf,
        key: &'static str,
        found: &'static str,
    },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

impl OpenClawError {
    /// A file that is not JSON gets the JSON5 hint; an I/O error is itself.
    fn from_json(e: JsonFileError) -> OpenClawError {
        match e {
            JsonFileError::Io(io) => OpenClawError::Io(io),
            other => OpenClawError::Config(other),
        }
    }
}

/// `~/.openclaw/extensions/pms`.
pub fn plugin_dir(env: &HostEnv) -> PathBuf {
    env.openclaw_dir.join("extensions").join(PLUGIN_ID)
}

/// OpenClaw's hook for each of pms's events (`pms hook` argument), and the
/// tools a tool hook is for (OpenClaw's names; its matcher takes no
/// wildcards). OpenClaw has one after-call hook for success and failure.
const OPENCLAW_HOOKS: [(&str, &str, &[&str]); 7] = [
    ("session_start", "session-start", &[]),
    ("before_prompt_build", "user-prompt", &[]),
    ("agent_end", "stop", &[]),
    ("before_compaction", "pre-compact", &[]),
    ("session_end", "session-end", &[]),
    (
        "before_tool_call",
        "pre-tool-use",
        &["exec", "write", "edit", "apply_patch"],
    ),
    (
        "after_tool_call",
        "post-tool-use",
        &["exec", "write", "edit", "apply_patch"],
    ),
];

/// The plugin's `HOOKS` table: OpenClaw hook -> [pms event, time limit in
/// ms, tools], the limits Claude Code's hooks have; 0 (the plugin's
/// `DETACHED`) for session-end, which the plugin does not wait for.
/// `before_tool_call` fails closed in OpenClaw (a throw or its 15 s timeout
/// blocks the call), so the plugin's own limit (5 s) comes first and lets
/// the call through.
fn hooks_table() -> Value {
    let table: Map<String, Value> = OPENCLAW_HOOKS
        .iter()
        .map(|(hook, arg, tools)| {
            let secs = HOOK_EVENTS
                .iter()
                .find(|e| e.arg == *arg)
                .map_or(5, |e| e.timeout_secs);
            let ms = if *arg == "session-end" {
                0
            } else {
                secs * 1000
            };
            (hook.to_string(), json!([arg, ms, tools]))
        })
        .collect();
    Value::Object(table)
}

/// The plugin's files, for this binary and workspace.
pub fn plugin_files(binary: &Path, workspace: &Path) -> Vec<(&'static str, String)> {
    let js_string = |p: &Path| serde_json::to_string(&p.to_string_lossy()).expect("a string");
    let index = INDEX_JS
        .replace("\"__PMS_BINARY__\"", &js_string(binary))
        .replace("\"__PMS_WORKSPACE__\"", &js_string(workspace))
        .replace("\"__PMS_HOOKS__\"", &hooks_table().to_string());
    let pretty = |v: Value| serde_json::to_string_pretty(&v).expect("a Value") + "\n";
    let package = json!({
        "name": "pms-openclaw",
        "version": env!("CARGO_PKG_VERSION"),
        "private": true,
        "description": "pms for OpenClaw (written by pms init; do not edit)",
        "type": "module",
        "openclaw": {"extensions": ["./index.js"]},
    });
    let manifest = json!({
        "id": PLUGIN_ID,
        "name": "pms",
        "description": "Personal memory: who you are, lessons, learnings, session summaries and search, from pms.",
        "version": env!("CARGO_PKG_VERSION"),
        "activation": {"onStartup": true},
        "configSchema": {"type": "object", "additionalProperties": false},
        "mcpServers": {
            PLUGIN_ID: {
                "transport": "stdio",
                "command": binary.to_string_lossy(),
                "args": ["serve", "--workspace", workspace.to_string_lossy()],
            }
        },
    });
    vec![
        ("package.json", pretty(package)),
        ("openclaw.plugin.json", pretty(manifest)),
        ("index.js", index),
    ]
}

/// What wiring created in `openclaw.json`, so that uninstall removes exactly
/// that.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigCreated {
    #[serde(default)]
    pub file: bool,
    #[serde(default)]
    pub plugins: bool,
    #[serde(default)]
    pub entries: bool,
    /// `"pms"` was appended to the user's `plugins.allow`.
    #[serde(default)]
    pub allow_entry: bool,
    /// A `plugins.entries.pms` the user had before, given back on uninstall.
    #[serde(default)]
    pub previous_entry: Option<Value>,
    /// The user's empty containers the merge filled (`plugins`,
    /// `plugins.entries`, `plugins.allow`), as written when not `{}` or
    /// `[]`: uninstall, emptying them again, writes them so.
    #[serde(default, skip_serializing_if = "EmptyLayouts::is_empty")]
    pub empty_layouts: EmptyLayouts,
}

/// The OpenClaw part of `.pms/install.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenClawRecord {
    pub config: PathBuf,
    pub plugin_dir: PathBuf,
    #[serde(default)]
    pub created: ConfigCreated,
}

/// Every change wiring OpenClaw makes, computed without making any.
pub struct OpenClawPlan {
    pub config: JsonFile,
    pub creates: ConfigCreated,
    pub plugin_dir: PathBuf,
    pub files: Vec<(&'static str, String)>,
    /// Plugin files missing or different from what pms writes now.
    pub stale_files: Vec<&'static str>,
}

pub fn plan(env: &HostEnv, binary: &Path, workspace: &Path) -> Result<OpenClawPlan, OpenClawError> {
    crate::platform::host::durable::check_writable(&env.openclaw_config)
        .map_err(|e| crate::platform::host::error::FileError::new(&env.openclaw_config, e))?;
    let mut config = JsonFile::load(&env.openclaw_config).map_err(OpenClawError::from_json)?;
    let creates = merge_entry(&mut config)?;
    let dir = plugin_dir(env);
    let files = plugin_files(binary, workspace);
    let stale_files = files
        .iter()
        .filter(|(name, text)| {
            std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text)
        })
        .map(|(name, _)| *name)
        .collect();
    Ok(OpenClawPlan {
        config,
        creates,
        plugin_dir: dir,
        files,
        stale_files,
    })
}

/// Adds pms's entry to the document; refuses shapes it cannot merge into.
fn merge_entry(config: &mut JsonFile) -> Result<ConfigCreated, OpenClawError> {
    let path = config.path.clone();
    let mut created = ConfigCreated {
        file: !config.existed,
        ..ConfigCreated::default()
    };
    let not_object = |key, v: &Value| OpenClawError::NotAnObject {
        path: path.clone(),
        key,
        found: crate::platform::agents::json_file::kind_name(v),
    };
    let root = config.object_mut();
    match root.get("plugins") {
        None => {
            root.insert("plugins".into(), Value::Object(Map::new()));
            created.plugins = true;
        }
        Some(Value::Object(_)) => {}
        Some(v) => return Err(not_object("plugins", v)),
    }
    let plugins = root["plugins"].as_object_mut().expect("checked above");
    match plugins.get("entries") {
        None => {
            plugins.insert("entries".into(), Value::Object(Map::new()));
            created.entries = true;
        }
        Some(Value::Object(_)) => {}
        Some(v) => return Err(not_object("plugins.entries", v)),
    }
    if let Some(Value::Array(allow)) = plugins.get_mut("allow")
        && !allow.iter().any(|a| a == PLUGIN_ID)
    {
        allow.push(Value::String(PLUGIN_ID.into()));
        created.allow_entry = true;
    }
    let entries = plugins["entries"].as_object_mut().expect("checked above");
    let mut entry = match entries.get(PLUGIN_ID) {
        Some(Value::Object(o)) => Value::Object(o.clone()),
        _ => json!({}),
    };
    if let Some(prev) = entries.get(PLUGIN_ID)
        && *prev != wanted_entry(prev)
    {
        created.previous_entry = Some(prev.clone());
    }
    entry = wanted_entry(&entry);
    entries.insert(PLUGIN_ID.into(), entry);
    created.empty_layouts = config.filled_empties();
    Ok(created)
}

/// `entry` with what pms needs: enabled, and allowed to see the
/// conversation (for `before_prompt_build` and `agent_end`).
fn wanted_entry(entry: &Value) -> Value {
    let mut e = match entry {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    e.insert("enabled".into(), Value::Bool(true));
    let mut hooks = match e.get("hooks") {
        Some(Value::Object(h)) => h.clone(),
        _ => Map::new(),
    };
    hooks.insert("allowConversationAccess".into(), Value::Bool(true));
    e.insert("hooks".into(), Value::Object(hooks));
    Value::Object(e)
}

/// What applying the plan did.
#[derive(Debug, Default, Clone)]
pub struct OpenClawSummary {
    pub config_path: PathBuf,
    pub config_backup: Option<PathBuf>,
    pub config_changed: bool,
    pub plugin_dir: PathBuf,
    pub files_written: usize,
}

impl OpenClawPlan {
    pub fn describe(&self, env: &HostEnv) -> Vec<String> {
        let mut out = Vec::new();
        out.push(if self.stale_files.is_empty() {
            format!(
                "OpenClaw plugin in {}: already in place",
                env.display(&self.plugin_dir)
            )
        } else {
            format!(
                "OpenClaw plugin in {}: write {} (hooks + the `pms` MCP server)",
                env.display(&self.plugin_dir),
                self.stale_files.join(", ")
            )
        });
        out.push(if self.config.is_dirty() {
            format!(
                "OpenClaw: enable plugin `pms` in {}{}",
                env.display(&self.config.path),
                if self.config.existed {
                    ", after a timestamped backup"
                } else {
                    ""
                }
            )
        } else {
            format!(
                "OpenClaw: plugin `pms` already enabled in {}",
                env.display(&self.config.path)
            )
        });
        out
    }

    /// The record of this install, keeping what an earlier one created.
    pub fn record(&self, previous: Option<&OpenClawRecord>) -> OpenClawRecord {
        let prev = previous
            .filter(|r| r.config == self.config.path)
            .map(|r| r.created.clone())
            .unwrap_or_default();
        OpenClawRecord {
            config: self.config.path.clone(),
            plugin_dir: self.plugin_dir.clone(),
            created: ConfigCreated {
                file: prev.file || self.creates.file,
                plugins: prev.plugins || self.creates.plugins,
                entries: prev.entries || self.creates.entries,
                allow_entry: prev.allow_entry || self.creates.allow_entry,
                previous_entry: prev.previous_entry.or(self.creates.previous_entry.clone()),
                empty_layouts: prev.empty_layouts.merged(&self.creates.empty_layouts),
            },
        }
    }

    pub fn apply(mut self) -> Result<OpenClawSummary, OpenClawError> {
        let changed = self.config.is_dirty();
        let backup = self.config.save().map_err(OpenClawError::from_json)?;
        for (name, text) in &self.files {
            let p = self.plugin_dir.join(name);
            if self.stale_files.contains(name) {
                crate::platform::host::durable::write_atomic(&p, text.as_bytes())
                    .map_err(|e| crate::platform::host::error::FileError::new(&p, e))?;
            }
        }
        Ok(OpenClawSummary {
            config_path: self.config.path.clone(),
            config_backup: backup,
            config_changed: changed,
            plugin_dir: self.plugin_dir,
            files_written: self.stale_files.len(),
        })
    }
}

/// Removes the plugin and pms's entry in `openclaw.json` (what the record
/// says was created goes too; with no record, the paths in `env`). Returns
/// whether anything was there.
pub fn unwire(env: &HostEnv, record: Option<&OpenClawRecord>) -> Result<bool, OpenClawError> {
    let config_path = record.map_or_else(|| env.openclaw_config.clone(), |r| r.config.clone());
    let dir = record.map_or_else(|| plugin_dir(env), |r| r.plugin_dir.clone());
    let created = record.map(|r| r.created.clone()).unwrap_or_default();
    let mut removed = false;
    for (name, _) in plugin_files(Path::new("pms"), Path::new("w")) {
        let p = dir.join(name);
        match std::fs::remove_file(&p) {
            Ok(()) => removed = true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(crate::platform::host::error::FileError::new(&p, e).into()),
        }
    }
    let _ = std::fs::remove_dir(&dir); // only when empty: the user's files stay
    if !config_path.exists() {
        return Ok(removed);
    }
    let mut f = JsonFile::load(&config_path).map_err(OpenClawError::from_json)?;
    f.restore_empties(&created.empty_layouts);
    let root = f.object_mut();
    let Some(Value::Object(plugins)) = root.get_mut("plugins") else {
        return Ok(removed);
    };
    if created.allow_entry
        && let Some(Value::Array(allow)) = plugins.get_mut("allow")
    {
        allow.retain(|a| a != PLUGIN_ID);
    }
    if let Some(Value::Object(entries)) = plugins.get_mut("entries") {
        match &created.previous_entry {
            Some(prev) => {
                entries.insert(PLUGIN_ID.into(), prev.clone());
            }
            None => {
                removed |= entries.shift_remove(PLUGIN_ID).is_some();
            }
        }
        if entries.is_empty() && created.entries {
            plugins.shift_remove("entries");
        }
    }
    if plugins.is_empty() && created.plugins {
        root.shift_remove("plugins");
    }
    let deleted = f
        .save_or_remove(WhenEmpty::created_by_pms(created.file))
        .map_err(OpenClawError::from_json)?;
    Ok(removed || deleted)
}

/// What `verify` reports about the OpenClaw wiring.
#[derive(Debug, Clone, PartialEq)]
pub struct Health {
    /// Plugin files missing or not what this binary would write.
    pub stale_files: Vec<&'static str>,
    /// Problems with `openclaw.json` (the entry, the allowlist), in words.
    pub config_problems: Vec<String>,
}

pub fn health(env: &HostEnv, binary: &Path, workspace: &Path) -> Health {
    let dir = plugin_dir(env);
    let stale_files = plugin_files(binary, workspace)
        .into_iter()
        .filter(|(name, text)| {
            std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(text)
        })
        .map(|(name, _)| name)
        .collect();
    let mut config_problems = Vec::new();
    match JsonFile::load(&env.openclaw_config) {
        Err(e) => config_problems.push(e.to_string()),
        Ok(f) => {
            let plugins = f.doc.get("plugins");
            let entry = plugins.and_then(|p| p.pointer("/entries/pms"));
            if plugins.and_then(|p| p.get("enabled")) == Some(&Value::Bool(false)) {
                config_problems.push("plugins.enabled is false: no plugin runs".into());
            }
            if entry.and_then(|e| e.get("enabled")) != Some(&Value::Bool(true)) {
                config_problems.push("plugins.entries.pms is not enabled".into());
            }
            if entry.and_then(|e| e.pointer("/hooks/allowConversationAccess"))
                != Some(&Value::Bool(true))
            {
                config_problems.push(
                    "plugins.entries.pms.hooks.allowConversationAccess is not true (no prompt hooks)"
                        .into(),
                );
            }
            if let Some(Value::Array(allow)) = plugins.and_then(|p| p.get("allow"))
                && !allow.iter().any(|a| a == PLUGIN_ID)
            {
                config_problems.push("plugins.allow does not list pms".into());
            }
            if let Some(Value::Array(deny)) = plugins.and_then(|p| p.get("deny"))
                && deny.iter().any(|a| a == PLUGIN_ID)
            {
                config_problems.push("plugins.deny lists pms".into());
            }
        }
    }
    Health {
        stale_files,
        config_problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: &Path) -> HostEnv {
        HostEnv::with_home(home.to_path_buf(), |_| None).unwrap()
    }

    #[test]
    fn wiring_and_unwiring_give_back_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        std::fs::create_dir_all(&env.openclaw_dir).unwrap();
        let user = "{\n  \"agents\": {\"defaults\": {}},\n  \"plugins\": {\n    \"allow\": [\"telegram\"]\n  }\n}\n";
        std::fs::write(&env.openclaw_config, user).unwrap();
        let plan = plan(&env, Path::new("/bin/pms"), Path::new("/w")).unwrap();
        assert_eq!(plan.stale_files.len(), 3);
        let record = plan.record(None);
        assert!(record.created.allow_entry && record.created.entries && !record.created.plugins);
        plan.apply().unwrap();
        assert_eq!(
            health(&env, Path::new("/bin/pms"), Path::new("/w")).config_problems,
            Vec::<String>::new()
        );
        let js = std::fs::read_to_string(plugin_dir(&env).join("index.js")).unwrap();
        assert!(js.contains("const PMS = \"/bin/pms\";"), "{js}");
        let again = super::plan(&env, Path::new("/bin/pms"), Path::new("/w")).unwrap();
        assert!(
            again.stale_files.is_empty() && !again.config.is_dirty(),
            "idempotent"
        );
        assert!(unwire(&env, Some(&record)).unwrap());
        assert_eq!(std::fs::read_to_string(&env.openclaw_config).unwrap(), user);
        assert!(!plugin_dir(&env).exists());
    }

    #[test]
    fn the_plugin_gets_the_hook_table_claude_code_has() {
        let files = plugin_files(Path::new("/bin/pms"), Path::new("/w"));
        let js = &files.iter().find(|(n, _)| *n == "index.js").unwrap().1;
        assert!(!js.contains("__PMS_"), "every placeholder filled:\n{js}");
        let line = js
            .lines()
            .find(|l| l.starts_with("const HOOKS = "))
            .unwrap();
        let table: Value =
            serde_json::from_str(line["const HOOKS = ".len()..].trim_end_matches(';')).unwrap();
        assert_eq!(
            table["before_prompt_build"],
            json!(["user-prompt", 5000, []])
        );
        assert_eq!(
            table["before_compaction"],
            json!(["pre-compact", 30000, []])
        );
        assert_eq!(table["session_end"], json!(["session-end", 0, []]));
        // well under OpenClaw's 15 s, after which it blocks the call
        assert_eq!(table["before_tool_call"][0], "pre-tool-use");
        assert_eq!(table["before_tool_call"][1], 5000);
        assert!(
            table["after_tool_call"][2]
                .as_array()
                .unwrap()
                .contains(&json!("exec"))
        );
        assert_eq!(table.as_object().unwrap().len(), OPENCLAW_HOOKS.len());
    }

    #[test]
    fn a_config_pms_created_goes_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        let plan = plan(&env, Path::new("/bin/pms"), Path::new("/w")).unwrap();
        let record = plan.record(None);
        plan.apply().unwrap();
        assert!(env.openclaw_config.exists());
        unwire(&env, Some(&record)).unwrap();
        assert!(!env.openclaw_config.exists());
    }

    #[test]
    fn wrong_shapes_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        std::fs::create_dir_all(&env.openclaw_dir).unwrap();
        std::fs::write(&env.openclaw_config, "{\"plugins\": []}").unwrap();
        let err = plan(&env, Path::new("/p"), Path::new("/w")).err().unwrap();
        assert!(err.to_string().contains("\"plugins\" is an array"), "{err}");
        std::fs::write(&env.openclaw_config, "{ // json5\n}").unwrap();
        let err = plan(&env, Path::new("/p"), Path::new("/w")).err().unwrap();
        assert!(err.to_string().contains("JSON5"), "{err}");
    }
}

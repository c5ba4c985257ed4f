//! Where each tool keeps its memory on this machine, so `pms init` can offer
//! an import and `pms status` list what is there:
//!
//! - claude-mem: `$CLAUDE_MEM_DATA_DIR` (or that key in
//!   `~/.claude-mem/settings.json`, at its top or under `env`), else
//!   `~/.claude-mem`; the file is `claude-mem.db` (claude-mem's
//!   `src/shared/paths.ts`).
//! - claude-mem-lite: `$CLAUDE_MEM_DIR`, else `~/.claude-mem-lite`;
//!   `claude-mem-lite.db` (its `lib/data-paths.mjs`).
//! - basic-memory: `config.json` in `$BASIC_MEMORY_CONFIG_DIR`, else
//!   `$XDG_CONFIG_HOME/basic-memory`, else `~/.basic-memory`
//!   (`config_models.py`); without one, the notes in `$BASIC_MEMORY_HOME`
//!   or `~/basic-memory`.
//! - the MCP memory server: `$MEMORY_FILE_PATH` (absolute), the
//!   `MEMORY_FILE_PATH` given to a `server-memory` entry of `~/.claude.json`,
//!   else `memory.jsonl` (or the older `memory.json`) in the package's
//!   `dist/` folder, where `npx` caches it (`~/.npm/_npx/*/node_modules/…`)
//!   or a global install put it.
//! - the ChatGPT and Claude.ai exports: the newest zip in `~/Downloads`
//!   that holds one, told apart by its files (Claude's has `users.json`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::Kind;

/// Zips in `~/Downloads` looked into, newest first.
const ZIPS_LOOKED_AT: usize = 40;

/// Memory another tool keeps, found where it keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    pub kind: Kind,
    pub path: PathBuf,
    /// Bytes (a database, an export, a file; a folder's notes).
    pub bytes: u64,
    pub modified: Option<DateTime<Utc>>,
}

/// How to read the environment (the process's, or a test's).
pub type Vars<'a> = &'a dyn Fn(&str) -> Option<OsString>;

fn var_path(vars: Vars, name: &str) -> Option<PathBuf> {
    vars(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Everything found, one per kind (the first place that has it).
pub fn all(home: &Path, claude_json: &Path, vars: Vars) -> Vec<Found> {
    Kind::ALL
        .iter()
        .filter_map(|k| default_path(*k, home, claude_json, vars))
        .filter_map(|(k, p)| found(k, p))
        .collect()
}

/// [`all`] with the process's environment.
pub fn on_this_machine(home: &Path, claude_json: &Path) -> Vec<Found> {
    all(home, claude_json, &|k| std::env::var_os(k))
}

/// Where `kind` keeps its memory on this machine, if it is there.
pub fn default_path(
    kind: Kind,
    home: &Path,
    claude_json: &Path,
    vars: Vars,
) -> Option<(Kind, PathBuf)> {
    let p = match kind {
        Kind::ClaudeMem => {
            let dir = var_path(vars, "CLAUDE_MEM_DATA_DIR")
                .or_else(|| claude_mem_setting(&home.join(".claude-mem/settings.json")))
                .unwrap_or_else(|| home.join(".claude-mem"));
            Some(dir.join("claude-mem.db")).filter(|p| p.is_file())
        }
        Kind::ClaudeMemLite => {
            let dir = var_path(vars, "CLAUDE_MEM_DIR")
                .filter(|d| d.is_absolute())
                .unwrap_or_else(|| home.join(".claude-mem-lite"));
            Some(dir.join("claude-mem-lite.db")).filter(|p| p.is_file())
        }
        Kind::BasicMemory => {
            let config_dir = var_path(vars, "BASIC_MEMORY_CONFIG_DIR")
                .or_else(|| var_path(vars, "XDG_CONFIG_HOME").map(|x| x.join("basic-memory")))
                .filter(|d| d.join("config.json").is_file())
                .unwrap_or_else(|| home.join(".basic-memory"));
            let config = config_dir.join("config.json");
            if config.is_file() {
                Some(config)
            } else {
                let notes = var_path(vars, "BASIC_MEMORY_HOME")
                    .unwrap_or_else(|| home.join("basic-memory"));
                Some(notes).filter(|n| has_markdown(n))
            }
        }
        Kind::McpMemory => mcp_memory_file(home, claude_json, vars),
        Kind::ChatGpt | Kind::ClaudeAi => newest_export(kind, &home.join("Downloads")),
    }?;
    Some((kind, p))
}

fn found(kind: Kind, path: PathBuf) -> Option<Found> {
    let meta = std::fs::metadata(&path).ok()?;
    Some(Found {
        kind,
        bytes: if meta.is_dir() { 0 } else { meta.len() },
        modified: meta.modified().ok().map(DateTime::<Utc>::from),
        path,
    })
}

/// `CLAUDE_MEM_DATA_DIR` in claude-mem's settings.json.
fn claude_mem_setting(settings: &Path) -> Option<PathBuf> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(settings).ok()?).ok()?;
    let dir = v
        .get("CLAUDE_MEM_DATA_DIR")
        .or_else(|| v.pointer("/env/CLAUDE_MEM_DATA_DIR"))?
        .as_str()?;
    Some(PathBuf::from(dir)).filter(|p| p.is_absolute())
}

fn has_markdown(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten().any(|e| {
            let p = e.path();
            p.extension().is_some_and(|x| x == "md")
                || (p.is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
        })
    })
}

fn mcp_memory_file(home: &Path, claude_json: &Path, vars: Vars) -> Option<PathBuf> {
    let non_empty = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0);
    if let Some(p) = var_path(vars, "MEMORY_FILE_PATH").filter(|p| p.is_absolute() && non_empty(p))
    {
        return Some(p);
    }
    // Claude Code's user-scope MCP servers: one running server-memory with
    // its file named.
    if let Ok(bytes) = std::fs::read(claude_json)
        && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && let Some(servers) = v.get("mcpServers").and_then(|s| s.as_object())
    {
        for s in servers.values() {
            let runs_it = s.to_string().contains("server-memory");
            if let Some(p) = s.pointer("/env/MEMORY_FILE_PATH").and_then(|p| p.as_str())
                && runs_it
                && Path::new(p).is_absolute()
                && non_empty(Path::new(p))
            {
                return Some(PathBuf::from(p));
            }
        }
    }
    let package = "node_modules/@modelcontextprotocol/server-memory/dist";
    let mut dists: Vec<PathBuf> = std::fs::read_dir(home.join(".npm/_npx"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join(package))
        .collect();
    for prefix in [
        home.join(".npm-global/lib"),
        home.join(".local/lib"),
        PathBuf::from("/usr/local/lib"),
        PathBuf::from("/usr/lib"),
    ] {
        dists.push(prefix.join(package));
    }
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = dists
        .iter()
        .flat_map(|d| [d.join("memory.jsonl"), d.join("memory.json")])
        .filter(|p| non_empty(p))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort();
    files.pop().map(|(_, p)| p)
}

/// What an export zip is, from the names in its central directory (read
/// without decompressing anything).
pub fn export_kind(zip: &Path) -> Option<Kind> {
    let file = std::fs::File::open(zip).ok()?;
    let archive = zip::ZipArchive::new(std::io::BufReader::new(file)).ok()?;
    let names: Vec<String> = archive
        .file_names()
        .filter_map(|n| n.ok())
        .map(|n| n.rsplit('/').next().unwrap_or(&n).to_string())
        .collect();
    let has = |n: &str| names.iter().any(|x| x == n);
    let conversations = has("conversations.json")
        || names
            .iter()
            .any(|n| n.starts_with("conversations-") && n.ends_with(".json"));
    if has("users.json") || has("memories.json") || (has("projects.json") && !has("user.json")) {
        Some(Kind::ClaudeAi)
    } else if conversations {
        Some(Kind::ChatGpt)
    } else {
        None
    }
}

/// The newest zip of `kind` among the newest [`ZIPS_LOOKED_AT`] in `dir`.
fn newest_export(kind: Kind, dir: &Path) -> Option<PathBuf> {
    let mut zips: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .to_ascii_lowercase()
                .ends_with(".zip")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    zips.sort_by_key(|z| std::cmp::Reverse(z.0));
    zips.into_iter()
        .take(ZIPS_LOOKED_AT)
        .map(|(_, p)| p)
        .find(|p| export_kind(p) == Some(kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(path: &Path, names: &[&str]) {
        let mut w = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for n in names {
            w.start_file(*n, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(b"[]").unwrap();
        }
        w.finish().unwrap();
    }

    #[test]
    fn each_tool_is_found_where_it_keeps_its_memory() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        let none: Vars = &|_| None;
        assert!(all(home, &home.join(".claude.json"), none).is_empty());
        for (rel, body) in [
            (".claude-mem/claude-mem.db", "x"),
            ("elsewhere/claude-mem-lite.db", "x"),
            (".basic-memory/config.json", "{}"),
            (
                ".npm/_npx/abc123/node_modules/@modelcontextprotocol/server-memory/dist/memory.jsonl",
                "{}",
            ),
        ] {
            let p = home.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        std::fs::create_dir_all(home.join("Downloads")).unwrap();
        zip_of(
            &home.join("Downloads/chatgpt-2026.zip"),
            &["conversations-000.json", "user.json", "chat.html"],
        );
        zip_of(
            &home.join("Downloads/data-abc-batch-0000.zip"),
            &["conversations.json", "users.json", "projects.json"],
        );
        zip_of(&home.join("Downloads/photos.zip"), &["a.jpg"]);
        let lite = home.join("elsewhere");
        let vars = move |k: &str| (k == "CLAUDE_MEM_DIR").then(|| lite.clone().into_os_string());
        let got: Vec<(Kind, String)> = all(home, &home.join(".claude.json"), &vars)
            .into_iter()
            .map(|f| {
                (
                    f.kind,
                    f.path.strip_prefix(home).unwrap().display().to_string(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (Kind::ChatGpt, "Downloads/chatgpt-2026.zip".to_string()),
                (Kind::ClaudeAi, "Downloads/data-abc-batch-0000.zip".into()),
                (Kind::ClaudeMem, ".claude-mem/claude-mem.db".into()),
                (Kind::ClaudeMemLite, "elsewhere/claude-mem-lite.db".into()),
                (Kind::BasicMemory, ".basic-memory/config.json".into()),
                (
                    Kind::McpMemory,
                    ".npm/_npx/abc123/node_modules/@modelcontextprotocol/server-memory/dist/memory.jsonl".into()
                ),
            ]
        );
    }
}

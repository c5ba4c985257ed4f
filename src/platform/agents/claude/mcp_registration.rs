//! Registering `pms serve` as the user-scope MCP server `pms` in Claude Code.
//!
//! Claude Code rewrites `~/.claude.json` itself while it runs, so when the
//! `claude` CLI is on PATH we let it do the write (`claude mcp add-json`);
//! otherwise we edit the file with the same backed-up, atomic, key-preserving
//! merge as settings.json. The server is named `pms`, not `memory`: Claude
//! Code 2.1.330 special-cases `mcp__memory__memory_*` tool names.

use crate::platform::agents::json_file::WhenEmpty;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::platform::agents::json_file::{EmptyLayouts, JsonFile, JsonFileError};

pub const SERVER_NAME: &str = "pms";

/// The `mcpServers.pms` entry: this binary, serving the workspace over stdio.
pub fn server_entry(binary: &Path, workspace: &Path) -> Value {
    json!({
        "type": "stdio",
        "command": binary.to_string_lossy(),
        "args": ["serve", "--workspace", workspace.to_string_lossy()],
    })
}

/// How the registration was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    ClaudeCli,
    File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Replaced,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterOutcome {
    pub status: Status,
    pub via: Via,
    pub backup: Option<PathBuf>,
    /// Why the CLI was not used when it was on PATH.
    pub note: Option<String>,
    /// What the registration created in the file (kept in the install
    /// record so that unregistering removes exactly that).
    pub created: Created,
}

/// Containers a file registration created in `~/.claude.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Created {
    /// The file itself did not exist.
    #[serde(default)]
    pub file: bool,
    /// The `mcpServers` object did not exist.
    #[serde(default)]
    pub mcp_servers: bool,
    /// An empty `mcpServers` of the user's, as written when not `{}`
    /// (`{\n  }`): unregistering, emptying it again, writes it so.
    #[serde(default, skip_serializing_if = "EmptyLayouts::is_empty")]
    pub empty_layouts: EmptyLayouts,
}

/// What registering `entry` in `f` (as read) would create there.
pub fn creates(f: &JsonFile, entry: &Value) -> Created {
    let mut after = f.clone();
    add_entry(&mut after, entry);
    Created {
        file: !f.existed,
        mcp_servers: f.doc.get("mcpServers").is_none(),
        empty_layouts: after.filled_empties(),
    }
}

/// Puts `entry` in `mcpServers` (made if missing; checked to be an object).
fn add_entry(f: &mut JsonFile, entry: &Value) {
    f.object_mut()
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .expect("checked to be an object")
        .insert(SERVER_NAME.into(), entry.clone());
}

/// Refuses a `~/.claude.json` whose `mcpServers` is not an object (null, an
/// array): replacing it would lose what the user had, and Claude Code would
/// not read a server in it either.
pub fn check(claude_json: &Path) -> Result<(), JsonFileError> {
    let f = JsonFile::load(claude_json)?;
    match f.doc.get("mcpServers") {
        None | Some(Value::Object(_)) => Ok(()),
        Some(other) => Err(JsonFileError::KeyNotAnObject {
            path: claude_json.to_path_buf(),
            key: "mcpServers",
            found: match other {
                Value::Null => "null",
                Value::Array(_) => "an array",
                _ => "a plain value",
            },
        }),
    }
}

/// The current `pms` entry in `claude_json`, if any.
pub fn read_entry(claude_json: &Path) -> Result<Option<Value>, JsonFileError> {
    let f = JsonFile::load(claude_json)?;
    Ok(f.doc
        .get("mcpServers")
        .and_then(|s| s.get(SERVER_NAME))
        .cloned())
}

/// Same server as far as Claude Code is concerned (it may add defaults such
/// as an empty `env` when it writes the entry itself).
pub fn same_server(a: &Value, b: &Value) -> bool {
    a.get("command") == b.get("command") && a.get("args") == b.get("args")
}

/// Makes sure `entry` is registered, through `claude` when given.
pub fn register(
    claude_json: &Path,
    entry: &Value,
    claude_cli: Option<&Path>,
) -> Result<RegisterOutcome, JsonFileError> {
    let current = read_entry(claude_json)?;
    let status = match &current {
        Some(cur) if same_server(cur, entry) => {
            return Ok(RegisterOutcome {
                status: Status::Unchanged,
                via: Via::File,
                backup: None,
                note: None,
                created: Created::default(),
            });
        }
        Some(_) => Status::Replaced,
        None => Status::Added,
    };
    let mut note = None;
    if let Some(cli) = claude_cli {
        match register_with_cli(cli, entry, current.is_some()) {
            Ok(()) => {
                if read_entry(claude_json)?.is_some_and(|e| same_server(&e, entry)) {
                    return Ok(RegisterOutcome {
                        status,
                        via: Via::ClaudeCli,
                        backup: None,
                        note: None,
                        created: Created::default(),
                    });
                }
                note = Some(format!(
                    "`claude mcp add-json` did not write {}; edited it directly",
                    claude_json.display()
                ));
            }
            Err(why) => {
                note = Some(format!(
                    "`claude mcp add-json` failed ({why}); edited the file directly"
                ))
            }
        }
    }
    check(claude_json)?;
    let mut f = JsonFile::load(claude_json)?;
    let created = creates(&f, entry);
    add_entry(&mut f, entry);
    let backup = f.save()?;
    Ok(RegisterOutcome {
        status,
        via: Via::File,
        backup,
        note,
        created,
    })
}

/// Removes the `pms` server, and the `mcpServers` object or the file when
/// `created` says the registration made them (and they hold nothing else);
/// an `mcpServers` of the user's left empty is written as it was.
/// Returns whether there was one.
pub fn unregister(
    claude_json: &Path,
    claude_cli: Option<&Path>,
    created: &Created,
) -> Result<bool, JsonFileError> {
    if read_entry(claude_json)?.is_none() {
        return Ok(false);
    }
    if let Some(cli) = claude_cli
        && run_cli(cli, &["mcp", "remove", "-s", "user", SERVER_NAME]).is_ok()
        && read_entry(claude_json)?.is_none()
    {
        return Ok(true);
    }
    let mut f = JsonFile::load(claude_json)?;
    f.restore_empties(&created.empty_layouts);
    let root = f.object_mut();
    let now_empty = match root.get_mut("mcpServers").and_then(Value::as_object_mut) {
        Some(servers) => {
            servers.shift_remove(SERVER_NAME);
            servers.is_empty()
        }
        None => false,
    };
    if now_empty && created.mcp_servers {
        root.shift_remove("mcpServers");
    }
    f.save_or_remove(WhenEmpty::created_by_pms(created.file))?;
    Ok(true)
}

fn register_with_cli(cli: &Path, entry: &Value, exists: bool) -> Result<(), String> {
    if exists {
        run_cli(cli, &["mcp", "remove", "-s", "user", SERVER_NAME])?;
    }
    let json = serde_json::to_string(entry).expect("entry serialises");
    run_cli(cli, &["mcp", "add-json", "-s", "user", SERVER_NAME, &json])
}

/// Runs `claude` with a deadline: a CLI that hangs must not hang init.
fn run_cli(cli: &Path, args: &[&str]) -> Result<(), String> {
    let mut child = Command::new(cli)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", cli.display()))?;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                let mut err = String::new();
                if let Some(mut s) = child.stderr.take() {
                    use std::io::Read;
                    let _ = s.read_to_string(&mut err);
                }
                let first = err.lines().next().unwrap_or("").trim().to_string();
                return Err(format!("exit {status}: {first}"));
            }
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("timed out after 30 s".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_registration_keeps_claude_state_and_replaces_stale_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".claude.json");
        std::fs::write(
            &p,
            r#"{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}, "projects": {}}"#,
        )
        .unwrap();
        let old = server_entry(Path::new("/old/pms"), Path::new("/w"));
        let out = register(&p, &old, None).unwrap();
        assert_eq!(out.status, Status::Added);
        assert!(out.backup.is_some());
        let new = server_entry(Path::new("/new/pms"), Path::new("/w"));
        assert_eq!(register(&p, &new, None).unwrap().status, Status::Replaced);
        assert_eq!(register(&p, &new, None).unwrap().status, Status::Unchanged);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["numStartups", "mcpServers", "projects"]);
        assert_eq!(doc["mcpServers"]["other"]["command"], "x");
        assert_eq!(doc["mcpServers"]["pms"]["command"], "/new/pms");
        assert!(unregister(&p, None, &Created::default()).unwrap());
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert!(doc["mcpServers"].get("pms").is_none());
        assert_eq!(doc["mcpServers"]["other"]["command"], "x");
    }

    #[test]
    fn broken_claude_json_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".claude.json");
        std::fs::write(&p, "{ nope").unwrap();
        let e = server_entry(Path::new("/p"), Path::new("/w"));
        assert!(register(&p, &e, None).is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{ nope");
    }
}

//! Registering the MCP server with the Codex CLI: `[mcp_servers.pms]` in
//! `$CODEX_HOME/config.toml`, edited with toml_edit so the user's comments,
//! formatting and other tables stay exactly as they were.

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, Table, value};

use crate::durable;

#[derive(Debug, thiserror::Error)]
pub enum CodexError {
    #[error(
        "{path}: not valid TOML: {message}\n  pms changed nothing. Fix: correct the file and run the command again."
    )]
    Invalid { path: PathBuf, message: String },
    #[error(
        "{path}: [mcp_servers] is not a table.\n  pms changed nothing. Fix: make it a table (or remove it)."
    )]
    NotATable { path: PathBuf },
    #[error(transparent)]
    Io(#[from] crate::error::FileError),
}

fn load(path: &Path) -> Result<(DocumentMut, bool), CodexError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            text.parse::<DocumentMut>()
                .map(|d| (d, true))
                .map_err(|e| CodexError::Invalid {
                    path: path.into(),
                    message: e.to_string().trim_end().replace('\n', "\n  "),
                })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((DocumentMut::new(), false)),
        Err(source) => Err(CodexError::Io(crate::error::FileError::new(path, source))),
    }
}

/// Checks the file can be edited, without changing it.
pub fn check(path: &Path) -> Result<(), CodexError> {
    let (doc, _) = load(path)?;
    match doc.get("mcp_servers") {
        Some(item) if !item.is_table_like() => Err(CodexError::NotATable { path: path.into() }),
        _ => Ok(()),
    }
}

/// True when `[mcp_servers.pms]` runs `binary`.
pub fn registered_binary(path: &Path) -> Option<String> {
    let (doc, _) = load(path).ok()?;
    doc.get("mcp_servers")?
        .get("pms")?
        .get("command")?
        .as_str()
        .map(String::from)
}

/// Adds or updates `[mcp_servers.pms]`. Returns the backup made, and whether
/// anything changed.
pub fn register(
    path: &Path,
    binary: &Path,
    workspace: &Path,
) -> Result<(bool, Option<PathBuf>), CodexError> {
    check(path)?;
    let (mut doc, existed) = load(path)?;
    let before = doc.to_string();
    if !doc.contains_key("mcp_servers") {
        let mut t = Table::new();
        t.set_implicit(true);
        doc.insert("mcp_servers", Item::Table(t));
    }
    let servers = doc["mcp_servers"]
        .as_table_like_mut()
        .expect("checked above");
    if servers.get("pms").is_none() {
        servers.insert("pms", Item::Table(Table::new()));
    }
    let pms = servers
        .get_mut("pms")
        .and_then(Item::as_table_like_mut)
        .ok_or_else(|| CodexError::NotATable { path: path.into() })?;
    set_keeping_decor(pms, "command", value(binary.to_string_lossy().as_ref()));
    let mut args = Array::new();
    for a in ["serve", "--workspace", &workspace.to_string_lossy()] {
        args.push(a);
    }
    set_keeping_decor(pms, "args", value(args));
    let after = doc.to_string();
    if after == before {
        return Ok((false, None));
    }
    let io = |source| CodexError::Io(crate::error::FileError::new(path, source));
    let backup = if existed {
        Some(durable::backup(path).map_err(io)?)
    } else {
        None
    };
    durable::write_atomic(path, after.as_bytes()).map_err(io)?;
    Ok((true, backup))
}

/// Sets `key`, keeping the comment that decorated its old value.
fn set_keeping_decor(table: &mut dyn toml_edit::TableLike, key: &str, mut new: Item) {
    if let (Some(old), Some(nv)) = (table.get(key).and_then(Item::as_value), new.as_value_mut()) {
        *nv.decor_mut() = old.decor().clone();
    }
    table.insert(key, new);
}

/// Removes `[mcp_servers.pms]`. Returns whether it was there.
pub fn unregister(path: &Path) -> Result<bool, CodexError> {
    let (mut doc, existed) = load(path)?;
    if !existed {
        return Ok(false);
    }
    let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut) else {
        return Ok(false);
    };
    if servers.remove("pms").is_none() {
        return Ok(false);
    }
    let io = |source| CodexError::Io(crate::error::FileError::new(path, source));
    durable::backup(path).map_err(io)?;
    durable::write_atomic(path, doc.to_string().as_bytes()).map_err(io)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "# my codex config\nmodel = \"o5\" # favourite\n\n[mcp_servers.other]\ncommand = \"x\" # keep\n";

    #[test]
    fn register_keeps_comments_and_other_servers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, USER).unwrap();
        let (changed, backup) = register(&p, Path::new("/bin/pms"), Path::new("/w")).unwrap();
        assert!(changed && backup.is_some());
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with(USER), "user text changed:\n{text}");
        assert!(text.contains("[mcp_servers.pms]"));
        assert!(text.contains("args = [\"serve\", \"--workspace\", \"/w\"]"));
        assert_eq!(registered_binary(&p).as_deref(), Some("/bin/pms"));
        let (changed, _) = register(&p, Path::new("/bin/pms"), Path::new("/w")).unwrap();
        assert!(!changed, "second run changes nothing");
        assert!(unregister(&p).unwrap());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), USER);
    }

    #[test]
    fn invalid_toml_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, "model = ").unwrap();
        assert!(matches!(
            register(&p, Path::new("/p"), Path::new("/w")),
            Err(CodexError::Invalid { .. })
        ));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "model = ");
    }
}

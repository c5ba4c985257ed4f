//! Codex's `$CODEX_HOME/config.toml`, edited with toml_edit so the user's
//! comments, formatting and other tables stay exactly as they were: the MCP
//! server (`[mcp_servers.pms]`), the hooks feature flag (`[features]
//! hooks`, turned on only when the user's config turns it off and the user
//! agrees), and the hook trust entries Codex keeps (`[hooks.state]`), read
//! to tell whether the user has reviewed pms's hooks yet, never written.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, Table, value};

use crate::platform::agents::json_file::WhenEmpty;
use crate::platform::host::durable;

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
    Io(#[from] crate::platform::host::error::FileError),
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
        Err(source) => Err(CodexError::Io(
            crate::platform::host::error::FileError::new(path, source),
        )),
    }
}

/// Whether the file is there (an unreadable one is an error, not "no").
pub fn exists(path: &Path) -> Result<bool, CodexError> {
    load(path).map(|(_, existed)| existed)
}

/// Checks the file can be edited, without changing it.
pub fn check(path: &Path) -> Result<(), CodexError> {
    let (doc, _) = load(path)?;
    match doc.get("mcp_servers") {
        Some(item) if !item.is_table_like() => Err(CodexError::NotATable { path: path.into() }),
        _ => Ok(()),
    }
}

/// The program and arguments `[mcp_servers.pms]` runs.
pub fn registered_server(path: &Path) -> Option<(String, Vec<String>)> {
    let (doc, _) = load(path).ok()?;
    let pms = doc.get("mcp_servers")?.get("pms")?;
    let command = pms.get("command")?.as_str()?.to_string();
    let args = pms
        .get("args")
        .and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    Some((command, args))
}

/// Adds or updates `[mcp_servers.pms]`, and sets the `[features]` keys in
/// `features_on` to true (the user agreed to turn Codex's hooks on), in one
/// write: the file holds the old bytes or the new, never half of it.
/// Returns whether anything changed, and the backup made.
pub fn register(
    path: &Path,
    binary: &Path,
    workspace: &Path,
    features_on: &[String],
) -> Result<(bool, Option<PathBuf>), CodexError> {
    check(path)?;
    let (mut doc, existed) = load(path)?;
    let before = doc.to_string();
    add_server(&mut doc, path, binary, workspace)?;
    turn_features(&mut doc, features_on, Switch::On);
    let after = doc.to_string();
    if after == before {
        return Ok((false, None));
    }
    let io = |source| CodexError::Io(crate::platform::host::error::FileError::new(path, source));
    let backup = if existed {
        Some(durable::backup(path).map_err(io)?)
    } else {
        None
    };
    durable::write_keeping_hard_links(path, with_line_ends_of(path, after).as_bytes(), 0o644)
        .map_err(io)?;
    Ok((true, backup))
}

fn add_server(
    doc: &mut DocumentMut,
    path: &Path,
    binary: &Path,
    workspace: &Path,
) -> Result<(), CodexError> {
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
    Ok(())
}

/// toml_edit keeps every byte of a document but its line ends: it writes
/// `\n` where the file had `\r\n`. A file that used CRLF gets it back.
fn with_line_ends_of(path: &Path, text: String) -> String {
    let crlf = std::fs::read(path)
        .map(|b| b.windows(2).any(|w| w == b"\r\n"))
        .unwrap_or(false);
    if crlf {
        text.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        text
    }
}

/// Sets `key`, keeping the comment that decorated its old value.
fn set_keeping_decor(table: &mut dyn toml_edit::TableLike, key: &str, mut new: Item) {
    if let (Some(old), Some(nv)) = (table.get(key).and_then(Item::as_value), new.as_value_mut()) {
        *nv.decor_mut() = old.decor().clone();
    }
    table.insert(key, new);
}

/// Whether Codex runs hooks: the `hooks` feature is on (stable and on by
/// default in 0.169.0) unless the config says `[features] hooks = false`,
/// or the deprecated alias `codex_hooks = false` without `hooks`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HooksFeature {
    On,
    /// Off, by these keys of `[features]`.
    Off(Vec<String>),
}

/// Reads the hooks feature flag; a missing or unreadable file means the
/// default (on).
pub fn hooks_feature(path: &Path) -> HooksFeature {
    let Ok((doc, _)) = load(path) else {
        return HooksFeature::On;
    };
    let flag = |k: &str| {
        doc.get("features")
            .and_then(|f| f.get(k))
            .and_then(Item::as_bool)
    };
    match (flag("hooks"), flag("codex_hooks")) {
        (Some(false), _) => HooksFeature::Off(vec!["hooks".into()]),
        (None, Some(false)) => HooksFeature::Off(vec!["codex_hooks".into()]),
        _ => HooksFeature::On,
    }
}

/// What a `[features]` key is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    On,
    Off,
}

/// Sets the `[features]` keys named to `to`, keeping their comments (only
/// keys that say the opposite: a key the user removed stays removed).
/// Returns whether the file changed.
pub fn set_features(path: &Path, keys: &[String], to: Switch) -> Result<bool, CodexError> {
    let (mut doc, existed) = load(path)?;
    if !existed || keys.is_empty() {
        return Ok(false);
    }
    let before = doc.to_string();
    turn_features(&mut doc, keys, to);
    write_if_changed(path, &doc, &before)
}

fn turn_features(doc: &mut DocumentMut, keys: &[String], to: Switch) {
    let on = to == Switch::On;
    if let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) {
        for k in keys {
            if features.get(k).and_then(Item::as_bool) == Some(!on) {
                set_keeping_decor(features, k, value(on));
            }
        }
    }
}

/// The `[hooks.state]` entries: trust key → (enabled, trusted_hash).
pub fn hook_states(path: &Path) -> HashMap<String, (Option<bool>, Option<String>)> {
    let mut out = HashMap::new();
    let Ok((doc, _)) = load(path) else {
        return out;
    };
    let Some(state) = doc
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(Item::as_table_like)
    else {
        return out;
    };
    for (key, entry) in state.iter() {
        let enabled = entry.get("enabled").and_then(Item::as_bool);
        let hash = entry
            .get("trusted_hash")
            .and_then(Item::as_str)
            .map(str::to_string);
        out.insert(key.to_string(), (enabled, hash));
    }
    out
}

/// Removes the `[hooks.state]` entries named (the trust the user gave pms's
/// hooks, which means nothing once they are gone), and the `state` and
/// `hooks` tables when that leaves them empty and they hold nothing else.
/// Returns whether the file changed.
pub fn remove_hook_states(path: &Path, keys: &[String]) -> Result<bool, CodexError> {
    let (mut doc, existed) = load(path)?;
    if !existed || keys.is_empty() {
        return Ok(false);
    }
    let before = doc.to_string();
    remove_states(&mut doc, keys);
    write_if_changed(path, &doc, &before)
}

fn remove_states(doc: &mut DocumentMut, keys: &[String]) {
    if keys.is_empty() {
        return;
    }
    if let Some(hooks) = doc.get_mut("hooks").and_then(Item::as_table_like_mut) {
        if let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) {
            for k in keys {
                state.remove(k);
            }
            if state.is_empty() {
                hooks.remove("state");
            }
        }
        if hooks.is_empty() {
            doc.remove("hooks");
        }
    }
}

/// Takes pms out of `config.toml` in one write: `[mcp_servers.pms]`, the
/// trust entries of its hooks (`trust_keys`), and the `[features]` keys pms
/// had turned on set back to false. A file pms created (`WhenEmpty::Remove`)
/// that is left with nothing in it is deleted. Returns whether the MCP
/// server was there.
pub fn unwire(
    path: &Path,
    trust_keys: &[String],
    features_off: &[String],
    when_empty: WhenEmpty,
) -> Result<bool, CodexError> {
    let (mut doc, existed) = load(path)?;
    if !existed {
        return Ok(false);
    }
    let before = doc.to_string();
    let had_server = remove_server(&mut doc);
    remove_states(&mut doc, trust_keys);
    turn_features(&mut doc, features_off, Switch::Off);
    if when_empty == WhenEmpty::Remove && doc.to_string().trim().is_empty() {
        durable::remove_written(path).map_err(|source| {
            CodexError::Io(crate::platform::host::error::FileError::new(path, source))
        })?;
        return Ok(had_server);
    }
    write_if_changed(path, &doc, &before)?;
    Ok(had_server)
}

fn remove_server(doc: &mut DocumentMut) -> bool {
    doc.get_mut("mcp_servers")
        .and_then(Item::as_table_like_mut)
        .is_some_and(|servers| servers.remove("pms").is_some())
}

fn write_if_changed(path: &Path, doc: &DocumentMut, before: &str) -> Result<bool, CodexError> {
    let after = doc.to_string();
    if after == before {
        return Ok(false);
    }
    let io = |source| CodexError::Io(crate::platform::host::error::FileError::new(path, source));
    durable::backup(path).map_err(io)?;
    durable::write_keeping_hard_links(path, with_line_ends_of(path, after).as_bytes(), 0o644)
        .map_err(io)?;
    Ok(true)
}

/// Removes `[mcp_servers.pms]`. Returns whether it was there.
pub fn unregister(path: &Path) -> Result<bool, CodexError> {
    unwire(path, &[], &[], WhenEmpty::Keep)
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
        let (changed, backup) = register(&p, Path::new("/bin/pms"), Path::new("/w"), &[]).unwrap();
        assert!(changed && backup.is_some());
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with(USER), "user text changed:\n{text}");
        assert!(text.contains("[mcp_servers.pms]"));
        assert!(text.contains("args = [\"serve\", \"--workspace\", \"/w\"]"));
        assert_eq!(
            registered_server(&p),
            Some((
                "/bin/pms".into(),
                vec!["serve".into(), "--workspace".into(), "/w".into()]
            ))
        );
        let (changed, _) = register(&p, Path::new("/bin/pms"), Path::new("/w"), &[]).unwrap();
        assert!(!changed, "second run changes nothing");
        assert!(unregister(&p).unwrap());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), USER);
    }

    #[test]
    fn the_feature_flag_is_read_turned_on_and_given_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        assert_eq!(hooks_feature(&p), HooksFeature::On);
        let user = "[features]\nhooks = false # not yet\nother = true\n";
        std::fs::write(&p, user).unwrap();
        let HooksFeature::Off(keys) = hooks_feature(&p) else {
            panic!("off in the file")
        };
        assert!(set_features(&p, &keys, Switch::On).unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "[features]\nhooks = true # not yet\nother = true\n"
        );
        assert_eq!(hooks_feature(&p), HooksFeature::On);
        assert!(set_features(&p, &keys, Switch::Off).unwrap());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), user);
        std::fs::write(&p, "features.codex_hooks = false\n").unwrap();
        assert_eq!(
            hooks_feature(&p),
            HooksFeature::Off(vec!["codex_hooks".into()])
        );
    }

    #[test]
    fn trust_entries_are_read_and_removed_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        let user = "model = \"o5\"\n";
        let codex_wrote = format!(
            "{user}\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\"\n\n[hooks.state.\"/h/hooks.json:other:0:0\"]\nenabled = false\n"
        );
        std::fs::write(&p, &codex_wrote).unwrap();
        let st = hook_states(&p);
        assert_eq!(
            st["/h/hooks.json:stop:0:0"],
            (None, Some("sha256:ab".into()))
        );
        assert_eq!(st["/h/hooks.json:other:0:0"], (Some(false), None));
        assert!(remove_hook_states(&p, &["/h/hooks.json:stop:0:0".into()]).unwrap());
        assert!(hook_states(&p).len() == 1);
        assert!(remove_hook_states(&p, &["/h/hooks.json:other:0:0".into()]).unwrap());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap().trim_end(),
            user.trim_end()
        );
    }

    #[test]
    fn crlf_files_keep_their_line_ends() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        let user = USER.replace('\n', "\r\n");
        std::fs::write(&p, &user).unwrap();
        register(&p, Path::new("/bin/pms"), Path::new("/w"), &[]).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.starts_with(&user) && !text.replace("\r\n", "").contains('\n'),
            "{text:?}"
        );
        assert!(unregister(&p).unwrap());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), user);
    }

    #[test]
    fn invalid_toml_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        std::fs::write(&p, "model = ").unwrap();
        assert!(matches!(
            register(&p, Path::new("/p"), Path::new("/w"), &[]),
            Err(CodexError::Invalid { .. })
        ));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "model = ");
    }
}

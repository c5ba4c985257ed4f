//! A JSON file that belongs to another program (Claude Code's
//! `settings.json` and `~/.claude.json`), read and written without losing
//! anything that was in it.
//!
//! pms changes the document as a `serde_json::Value` (keys in order, with
//! `preserve_order`), but saving edits the original text, not a
//! re-serialised tree: the old and new values are compared and only the
//! parts that differ are rewritten ([`super::json_edit`]), which keeps every
//! other byte (number spellings such as `1E5` or `-0`, integers past 2^64,
//! escapes, CRLF line ends, compact arrays, duplicate keys). An unchanged document is never rewritten, and
//! a changed one is backed up and replaced atomically (written in place
//! when a dotfile manager hard-linked it, [`durable::write_keeping_hard_links`]).
//! A container pms fills and later empties again comes back as it was
//! written ([`EmptyLayouts`], kept in the install record). A file that is not
//! valid JSON is refused with its line and column: guessing what the user
//! meant could destroy their settings.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

pub use super::json_edit::EmptyLayouts;
use crate::platform::host::durable;

#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    #[error(
        "{path}: not valid JSON at line {line}, column {column}: {message}.\n  pms changed nothing. Fix: correct the file (or move it aside) and run the command again."
    )]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: the top level is {found}, not a JSON object.\n  pms changed nothing. Fix: the file must look like {{ ... }}."
    )]
    NotAnObject { path: PathBuf, found: &'static str },
    #[error(
        "{path}: \"{key}\" is {found}, but it must be an object.\n  pms changed nothing. Fix: make it an object (or remove it) and run the command again."
    )]
    KeyNotAnObject {
        path: PathBuf,
        key: &'static str,
        found: &'static str,
    },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

/// A parsed JSON object file plus what is needed to write it back in the
/// same style.
#[derive(Debug, Clone)]
pub struct JsonFile {
    pub path: PathBuf,
    /// False when the file did not exist; saving creates it.
    pub existed: bool,
    original: String,
    pub doc: Value,
    indent: String,
    trailing_newline: bool,
    /// How the containers this save may empty were written before pms
    /// filled them ([`JsonFile::restore_empties`]).
    empty_layouts: EmptyLayouts,
}

/// What [`JsonFile::save_or_remove`] does with a file left empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenEmpty {
    /// pms created the file: it goes.
    Remove,
    /// The user's file: it stays, empty.
    Keep,
}

impl WhenEmpty {
    /// `Remove` for a file pms created.
    pub fn created_by_pms(created: bool) -> WhenEmpty {
        if created {
            WhenEmpty::Remove
        } else {
            WhenEmpty::Keep
        }
    }
}

impl JsonFile {
    pub fn load(path: &Path) -> Result<Self, JsonFileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(JsonFileError::Io(
                    crate::platform::host::error::FileError::new(path.to_path_buf(), source),
                ));
            }
        };
        match text {
            None => Ok(Self::empty(path)),
            Some(t) => Self::parse(path, t),
        }
    }

    /// Parses `text` as the content of `path` (which need not exist).
    pub fn parse(path: &Path, text: String) -> Result<Self, JsonFileError> {
        if text.trim().is_empty() {
            // An empty file is what `touch settings.json` leaves: treat it as {}.
            let mut f = Self::empty(path);
            f.existed = true;
            f.original = text;
            return Ok(f);
        }
        let doc: Value = serde_json::from_str(&text).map_err(|e| JsonFileError::Invalid {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        if !doc.is_object() {
            return Err(JsonFileError::NotAnObject {
                path: path.to_path_buf(),
                found: kind_name(&doc),
            });
        }
        Ok(JsonFile {
            path: path.to_path_buf(),
            existed: true,
            indent: detect_indent(&text),
            trailing_newline: text.ends_with('\n'),
            original: text,
            doc,
            empty_layouts: EmptyLayouts::default(),
        })
    }

    fn empty(path: &Path) -> Self {
        JsonFile {
            path: path.to_path_buf(),
            existed: false,
            original: String::new(),
            doc: Value::Object(Map::new()),
            indent: "  ".into(),
            trailing_newline: true,
            empty_layouts: EmptyLayouts::default(),
        }
    }

    pub fn object_mut(&mut self) -> &mut Map<String, Value> {
        self.doc
            .as_object_mut()
            .expect("JsonFile always holds an object")
    }

    /// The document as it would be written: the original text with only
    /// what changed rewritten, or (for a new or blank file) serialised.
    pub fn render(&self) -> String {
        if self.original.trim().is_empty() {
            return render_value(&self.doc, &self.indent, self.trailing_newline);
        }
        serde_json::from_str::<Value>(&self.original)
            .ok()
            .and_then(|old| {
                super::json_edit::edit_text(
                    &self.original,
                    &old,
                    &self.doc,
                    &self.indent,
                    &self.empty_layouts,
                )
            })
            .unwrap_or_else(|| render_value(&self.doc, &self.indent, self.trailing_newline))
    }

    /// The containers that were empty in the file as read and that the
    /// document now fills, with their text when it is not `{}` or `[]`:
    /// what the install record keeps so that uninstall, emptying them
    /// again, can give back their bytes ([`JsonFile::restore_empties`]).
    /// Call it before [`JsonFile::save`], which makes the saved text the
    /// new original.
    pub fn filled_empties(&self) -> EmptyLayouts {
        if self.original.trim().is_empty() {
            return EmptyLayouts::default();
        }
        match serde_json::from_str::<Value>(&self.original) {
            Ok(old) => super::json_edit::filled_empties(&self.original, &old, &self.doc),
            Err(_) => EmptyLayouts::default(),
        }
    }

    /// Containers the next save empties are written as `layouts` says
    /// (from [`JsonFile::filled_empties`] at install), not as `{}`/`[]`.
    pub fn restore_empties(&mut self, layouts: &EmptyLayouts) {
        self.empty_layouts = layouts.clone();
    }

    /// True when saving would change the bytes on disk.
    pub fn is_dirty(&self) -> bool {
        if !self.existed {
            return true;
        }
        // Compare documents, not bytes: a file whose content is unchanged is
        // left exactly as the user formatted it.
        match serde_json::from_str::<Value>(&self.original) {
            Ok(orig) => !super::json_edit::same(&orig, &self.doc),
            Err(_) => true,
        }
    }

    /// After removing pms's entries: deletes the file when pms created it
    /// (`WhenEmpty::Remove`) and nothing is left in it, else writes it back
    /// ([`JsonFile::save`]). Returns whether the file was deleted.
    pub fn save_or_remove(&mut self, when_empty: WhenEmpty) -> Result<bool, JsonFileError> {
        let empty = self.doc.as_object().is_some_and(|o| o.is_empty());
        if when_empty == WhenEmpty::Remove && empty {
            return match durable::remove_written(&self.path) {
                Err(e) => Err(JsonFileError::Io(
                    crate::platform::host::error::FileError::new(self.path.clone(), e),
                )),
                Ok(()) => Ok(true),
            };
        }
        self.save()?;
        Ok(false)
    }

    /// Writes the document back if it changed. Returns the backup made of the
    /// previous version, if there was one.
    pub fn save(&mut self) -> Result<Option<PathBuf>, JsonFileError> {
        if !self.is_dirty() {
            return Ok(None);
        }
        let io = |source| {
            JsonFileError::Io(crate::platform::host::error::FileError::new(
                self.path.clone(),
                source,
            ))
        };
        let backup = if self.existed && self.path.exists() {
            Some(durable::backup(&self.path).map_err(io)?)
        } else {
            None
        };
        let text = self.render();
        // Claude Code's files can hold credentials: a file we create is private.
        durable::write_keeping_hard_links(&self.path, text.as_bytes(), 0o600).map_err(io)?;
        self.original = text;
        self.existed = true;
        Ok(backup)
    }
}

/// Serialises with the given indentation and final newline.
pub fn render_value(doc: &Value, indent: &str, trailing_newline: bool) -> String {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    doc.serialize(&mut ser).expect("a Value always serialises");
    let mut s = String::from_utf8(out).expect("serde_json writes UTF-8");
    if trailing_newline {
        s.push('\n');
    }
    s
}

fn detect_indent(text: &str) -> String {
    for line in text.lines().skip(1) {
        let ws: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        if !ws.is_empty() && line.len() > ws.len() {
            return ws;
        }
    }
    "  ".into()
}

/// "a boolean", "an array"...: a JSON value's kind, for messages.
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json appends " at line L column C"; we report those separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_json_names_line_and_column() {
        let err = JsonFile::parse(
            Path::new("/x/settings.json"),
            "{\n  \"a\": 1,\n  oops\n}".into(),
        )
        .unwrap_err();
        match &err {
            JsonFileError::Invalid { line, column, .. } => {
                assert_eq!(*line, 3);
                assert_eq!(*column, 3);
            }
            other => panic!("unexpected {other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains("/x/settings.json"), "{msg}");
        assert!(msg.contains("line 3, column 3"), "{msg}");
    }

    #[test]
    fn array_root_is_refused() {
        let err = JsonFile::parse(Path::new("s.json"), "[1]".into()).unwrap_err();
        assert!(matches!(err, JsonFileError::NotAnObject { .. }));
    }

    #[test]
    fn edits_touch_only_what_changed() {
        let text = "{\r\n    \"b\": 1E5,\r\n    \"big\": 123456789012345678901234567890,\r\n    \"tiny\": 1e-400,\r\n    \"z\": -0,\r\n    \"s\": \"caf\\u00e9\",\r\n    \"a\": [2, 3],\r\n    \"d\": 1, \"d\": 2,\r\n    \"hooks\": {}\r\n}";
        let mut f = JsonFile::parse(Path::new("s.json"), text.into()).unwrap();
        assert!(!f.is_dirty());
        assert_eq!(f.render(), text);
        f.object_mut()
            .get_mut("hooks")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("Stop".into(), serde_json::json!([{"hooks": []}]));
        let out = f.render();
        for kept in [
            "1E5",
            "123456789012345678901234567890",
            "1e-400",
            "-0",
            "caf\\u00e9",
            "[2, 3]",
            "\"d\": 1, \"d\": 2",
        ] {
            assert!(out.contains(kept), "{kept} lost:\n{out}");
        }
        assert!(out.contains("\"Stop\""));
        // and back: removing what was added gives the original bytes
        let mut g = JsonFile::parse(Path::new("s.json"), out).unwrap();
        g.object_mut()
            .get_mut("hooks")
            .unwrap()
            .as_object_mut()
            .unwrap()
            .remove("Stop");
        assert_eq!(g.render(), text);
    }

    #[test]
    fn reorder_counts_as_change() {
        let mut f = JsonFile::parse(Path::new("s.json"), r#"{"a":1,"b":2}"#.into()).unwrap();
        let obj = f.object_mut();
        let a = obj.shift_remove("a").unwrap();
        obj.insert("a".into(), a);
        assert!(f.is_dirty());
    }

    #[test]
    fn unchanged_file_is_not_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        std::fs::write(&p, "{ \"odd\" :   true }").unwrap();
        let mut f = JsonFile::load(&p).unwrap();
        assert_eq!(f.save().unwrap(), None);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "{ \"odd\" :   true }");
    }
}

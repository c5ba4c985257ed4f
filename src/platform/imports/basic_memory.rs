//! basic-memory's notes: plain Markdown files in each project's folder,
//! with YAML front matter (`title`, `type`, `permalink`, `tags`, optional
//! `created`/`modified`), observations as list items `- [category] text
//! #tag (context)` and relations as `- relation_type [[Target]]` (any other
//! `[[Target]]` is a `links_to`). The projects are in basic-memory's
//! `config.json` (`$BASIC_MEMORY_CONFIG_DIR`, else
//! `$XDG_CONFIG_HOME/basic-memory`, else `~/.basic-memory`), whose
//! `projects` map has held either `{name: "/path"}` or `{name: {path,
//! mode, local_sync_path, …}}`; without one, the notes are in
//! `$BASIC_MEMORY_HOME` or `~/basic-memory`.
//!
//! A note is kept as it is, with where it came from added to its front
//! matter (`imported_from`, `original_id`: the project and the permalink):
//! the text is already the user's own Markdown. Observations and relations
//! are counted, for the report.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::note::front_matter;
use super::{Checked, FormatError, Note, ReadError, Sink, parse_time};

const FIX: &str = "give pms basic-memory's config.json (default ~/.basic-memory/config.json) or a project's folder of notes";
const MAX_DEPTH: usize = 12;

/// A project: its name and its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub name: String,
    pub root: PathBuf,
}

/// The projects `path` names: a config.json (or the folder holding one and
/// basic-memory's `memory.db`), else a folder of notes as one project.
pub fn projects(path: &Path) -> Result<Vec<Project>, FormatError> {
    let config =
        if path.is_dir() && path.join("config.json").is_file() && path.join("memory.db").exists() {
            Some(path.join("config.json"))
        } else if path.is_file() {
            Some(path.to_path_buf())
        } else {
            None
        };
    let Some(config) = config else {
        if !path.is_dir() {
            return Err(FormatError::new(
                path.display().to_string(),
                "no such file or folder",
                FIX,
            ));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "main".into());
        return Ok(vec![Project {
            name,
            root: path.to_path_buf(),
        }]);
    };
    let shown = config.display().to_string();
    let text = std::fs::read_to_string(&config)
        .map_err(|e| FormatError::new(&shown, format!("cannot be read ({e})"), FIX))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        FormatError::new(
            &shown,
            format!("line {}, column {}: {e}", e.line(), e.column()),
            "correct the JSON (basic-memory rewrites it on its next start) or give pms a project's folder",
        )
    })?;
    let Some(map) = v.get("projects").and_then(Value::as_object) else {
        return Err(FormatError::new(
            &shown,
            "has no \"projects\": it is not basic-memory's config.json",
            FIX,
        ));
    };
    let mut out = Vec::new();
    for (name, entry) in map {
        // {name: "/path"} (before 0.16) or {name: {path, mode, local_sync_path}}
        let root = match entry {
            Value::String(p) => Some(p.clone()),
            Value::Object(o) => {
                let local = o.get("local_sync_path").and_then(Value::as_str);
                match o.get("mode").and_then(Value::as_str) {
                    Some("cloud") => local.map(str::to_string),
                    _ => o
                        .get("path")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .or(local.map(str::to_string)),
                }
            }
            _ => None,
        };
        if let Some(root) = root.map(PathBuf::from).filter(|r| r.is_dir()) {
            out.push(Project {
                name: name.clone(),
                root,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The notes of a project, with their paths relative to it.
fn notes_of(p: &Project) -> Vec<(PathBuf, String)> {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<(PathBuf, String)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            let path = e.path();
            if ft.is_dir() && depth < MAX_DEPTH {
                walk(root, &path, depth + 1, out);
            } else if ft.is_file() && name.ends_with(".md") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((path, rel));
            }
        }
    }
    let mut out = Vec::new();
    walk(&p.root, &p.root, 0, &mut out);
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

fn read_note(path: &Path) -> Result<String, FormatError> {
    let bytes = std::fs::read(path).map_err(|e| {
        FormatError::new(
            path.display().to_string(),
            format!("cannot be read ({e})"),
            FIX,
        )
    })?;
    String::from_utf8(bytes).map_err(|e| {
        FormatError::new(
            path.display().to_string(),
            format!("is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            "save it as UTF-8, or move it out of the project's folder, then run the import again",
        )
    })
}

pub fn check(path: &Path) -> Result<Checked, FormatError> {
    let mut checked = Checked::default();
    for p in projects(path)? {
        for (file, _) in notes_of(&p) {
            checked.bytes += read_note(&file)?.len() as u64;
            checked.items += 1;
        }
    }
    Ok(checked)
}

pub fn read(path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    for p in projects(path)? {
        for (file, rel) in notes_of(&p) {
            let text = read_note(&file)?;
            let parsed = Parsed::of(&text);
            sink.found("observations", parsed.observations);
            sink.found("relations", parsed.relations);
            let id = format!(
                "{}/{}",
                p.name,
                parsed
                    .permalink
                    .clone()
                    .unwrap_or_else(|| rel.trim_end_matches(".md").to_string())
            );
            let mtime = std::fs::metadata(&file)
                .and_then(|m| m.modified())
                .ok()
                .map(chrono::DateTime::<chrono::Utc>::from);
            let date = parsed
                .modified
                .as_deref()
                .or(parsed.created.as_deref())
                .and_then(parse_time)
                .or(mtime);
            let stem = rel
                .rsplit('/')
                .next()
                .unwrap_or(&rel)
                .trim_end_matches(".md");
            sink.note(Note {
                key: id.clone(),
                rel: format!("{}/{rel}", super::safe_id(&p.name)),
                text: with_provenance(&text, &id, stem),
                date,
            })
            .map_err(ReadError::Write)?;
            sink.advanced(text.len() as u64);
        }
    }
    Ok(())
}

/// What pms reads of a note.
#[derive(Debug, Default, PartialEq)]
struct Parsed {
    permalink: Option<String>,
    created: Option<String>,
    modified: Option<String>,
    observations: u64,
    relations: u64,
}

/// The front matter's lines (without the `---` fences) and where the body
/// starts, when the note has front matter.
fn split_front_matter(text: &str) -> Option<(&str, usize)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let start = text.len() - rest.len();
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..at], start + at + line.len()));
        }
        at += line.len();
    }
    None
}

impl Parsed {
    fn of(text: &str) -> Parsed {
        let mut p = Parsed::default();
        let body = match split_front_matter(text) {
            Some((fm, end)) => {
                for line in fm.lines() {
                    if let Some((k, v)) = line.split_once(':')
                        && !line.starts_with([' ', '-'])
                    {
                        let v = v.trim().trim_matches(['"', '\'']).to_string();
                        match k.trim() {
                            "permalink" if !v.is_empty() => p.permalink = Some(v),
                            "created" if !v.is_empty() => p.created = Some(v),
                            "modified" if !v.is_empty() => p.modified = Some(v),
                            _ => {}
                        }
                    }
                }
                &text[end..]
            }
            None => text,
        };
        let mut fenced = false;
        for line in body.lines() {
            let t = line.trim_start();
            if t.starts_with("```") {
                fenced = !fenced;
            }
            if fenced || t.starts_with('>') {
                continue;
            }
            let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) else {
                p.relations += line.matches("[[").count() as u64;
                continue;
            };
            let item = item.trim();
            if is_observation(item) {
                p.observations += 1;
            } else {
                // `- relates_to [[Target]]`, and inline links
                p.relations += item.matches("[[").count() as u64;
            }
        }
        p
    }
}

/// `[category] text` (not a task box, a time, a link), or a plain item
/// with a `#tag`: basic-memory's `markdown/plugins.py` rules.
fn is_observation(item: &str) -> bool {
    if let Some(rest) = item.strip_prefix('[')
        && let Some(end) = rest.find(']')
    {
        let cat = &rest[..end];
        let after = &rest[end + 1..];
        let task = matches!(cat, " " | "x" | "X" | "-" | "/" | ">" | "?");
        let time = cat.bytes().all(|b| b.is_ascii_digit() || b == b':');
        return !cat.is_empty()
            && !task
            && !time
            && !cat.contains(['[', '(', ')'])
            && after.starts_with(' ')
            && !after.trim().is_empty()
            && !after.starts_with("(");
    }
    !item.starts_with("[[")
        && item
            .split_whitespace()
            .any(|w| w.len() > 1 && w.starts_with('#'))
}

/// The note with `imported_from` and `original_id` added at the end of its
/// front matter (or a front matter made for it).
fn with_provenance(text: &str, id: &str, stem: &str) -> String {
    match split_front_matter(text) {
        Some((fm, end)) => {
            let mut out = String::from("---\n");
            out.push_str(fm);
            if !fm.is_empty() && !fm.ends_with('\n') {
                out.push('\n');
            }
            let has = |k: &str| fm.lines().any(|l| l.starts_with(&format!("{k}:")));
            let extra = front_matter(&[
                (
                    "imported_from",
                    if has("imported_from") {
                        String::new()
                    } else {
                        "basic-memory".into()
                    },
                ),
                (
                    "original_id",
                    if has("original_id") {
                        String::new()
                    } else {
                        id.to_string()
                    },
                ),
            ]);
            // the fields alone, without their own fences
            out.push_str(extra.trim_start_matches("---\n"));
            out.push_str(&text[end..]);
            out
        }
        None => {
            let mut out = front_matter(&[
                ("title", stem.to_string()),
                ("imported_from", "basic-memory".into()),
                ("original_id", id.to_string()),
            ]);
            out.push('\n');
            out.push_str(text);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = include_str!("../../../tests/fixtures/import/basic-memory/Import Design.md");

    #[test]
    fn observations_and_relations_as_basic_memory_reads_them() {
        let p = Parsed::of(NOTE);
        assert_eq!(p.permalink.as_deref(), Some("main/specs/import-design"));
        // what basic-memory 0.24.1 itself stored for this note: 3
        // observations, 3 relations (2 explicit, 1 links_to)
        assert_eq!((p.observations, p.relations), (3, 3));
        for (item, is) in [
            ("[decision] Walk it #a", true),
            ("[ ] a task", false),
            ("[x] done", false),
            ("[00:01:02] a time", false),
            ("plain with #tag", true),
            ("plain", false),
            ("[[Target]] only", false),
        ] {
            assert_eq!(is_observation(item), is, "{item}");
        }
    }

    #[test]
    fn provenance_joins_the_front_matter() {
        let out = with_provenance(NOTE, "main/main/specs/import-design", "Import Design");
        assert!(out.starts_with("---\ntitle: Import Design\n"), "{out}");
        assert!(
            out.contains("- design\nimported_from: basic-memory\noriginal_id: main/main/specs/import-design\n---\n\n# Import design"),
            "{out}"
        );
        assert_eq!(
            out.len() - NOTE.len(),
            "imported_from: basic-memory\noriginal_id: main/main/specs/import-design\n".len()
        );
        let plain = with_provenance("# Hi\n", "main/hi", "hi");
        assert_eq!(
            plain,
            "---\ntitle: hi\nimported_from: basic-memory\noriginal_id: main/hi\n---\n\n# Hi\n"
        );
    }

    #[test]
    fn both_config_shapes_list_their_projects() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let legacy = dir.path().join("legacy.json");
        std::fs::write(
            &legacy,
            serde_json::json!({"projects": {"main": a, "work": b, "gone": "/nowhere"}}).to_string(),
        )
        .unwrap();
        let names: Vec<String> = projects(&legacy)
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["main", "work"]);
        let current = dir.path().join("current.json");
        std::fs::write(
            &current,
            serde_json::json!({"projects": {
                "main": {"path": a, "mode": "local"},
                "cloudy": {"path": "/cloud", "mode": "cloud", "local_sync_path": b},
                "remote": {"path": "/cloud2", "mode": "cloud"}}})
            .to_string(),
        )
        .unwrap();
        let got: Vec<(String, PathBuf)> = projects(&current)
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.root))
            .collect();
        assert_eq!(
            got,
            [("cloudy".into(), b.clone()), ("main".into(), a.clone())]
        );
        std::fs::write(&current, "{\"projects\": ").unwrap();
        let err = projects(&current).unwrap_err();
        assert!(err.problem.starts_with("line 1, column"), "{err}");
    }
}

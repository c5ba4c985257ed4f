//! The reference MCP memory server's knowledge graph
//! (`@modelcontextprotocol/server-memory`): `memory.jsonl` (before August
//! 2025 `memory.json`, the same content) in the package's `dist/` folder,
//! or `$MEMORY_FILE_PATH`. One JSON object a line: `{"type":"entity",
//! "name", "entityType", "observations": [..]}` or `{"type":"relation",
//! "from", "to", "relationType"}`, no timestamps. Forks spell them
//! `entityName`, `from_id`/`to_id`, `relation_type`; both are read.
//!
//! The server loses writes under concurrent calls, so a relation may name
//! an entity the file does not hold: it is kept, on a note of its own for
//! that name. Each entity becomes a note: its observations, then its
//! relations as sentences ("Alice maintains pms").

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::note::{front_matter, short_hash, slug};
use super::{Checked, FormatError, Note, ReadError, Sink};

const FIX: &str = "correct or delete that line (the memory server rewrites the whole file on its next write), then run the import again";

#[derive(Debug, Default)]
struct Entity {
    kind: Option<String>,
    observations: Vec<String>,
    relations: Vec<String>,
}

fn str_field<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The graph, checked line by line: a line that is not a JSON object is an
/// error naming it.
fn graph(path: &Path) -> Result<(BTreeMap<String, Entity>, u64), FormatError> {
    let shown = path.display().to_string();
    let text = std::fs::read(path).map_err(|e| {
        FormatError::new(
            &shown,
            format!("cannot be read ({e})"),
            "give pms the memory server's memory.jsonl (or memory.json)",
        )
    })?;
    let text = String::from_utf8_lossy(&text);
    let mut entities: BTreeMap<String, Entity> = BTreeMap::new();
    let mut lines = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| {
            let what = if e.is_eof() {
                "is cut short".to_string()
            } else {
                format!("is not JSON ({e})")
            };
            FormatError::new(&shown, format!("line {} {what}", i + 1), FIX)
        })?;
        if !v.is_object() {
            return Err(FormatError::new(
                &shown,
                format!("line {} is not a JSON object", i + 1),
                FIX,
            ));
        }
        lines += 1;
        let kind = v.get("type").and_then(Value::as_str);
        let from = str_field(&v, &["from", "from_id", "source"]);
        let to = str_field(&v, &["to", "to_id", "target"]);
        if kind == Some("relation") || (kind.is_none() && from.is_some() && to.is_some()) {
            let (Some(from), Some(to)) = (from, to) else {
                continue;
            };
            let rel = str_field(&v, &["relationType", "relation_type"]).unwrap_or("relates to");
            let sentence = format!("{from} {} {to}", rel.replace('_', " "));
            for end in [from, to] {
                let e = entities.entry(end.to_string()).or_default();
                if !e.relations.contains(&sentence) {
                    e.relations.push(sentence.clone());
                }
            }
            continue;
        }
        let Some(name) = str_field(&v, &["name", "entityName", "id"]) else {
            continue;
        };
        let e = entities.entry(name.to_string()).or_default();
        if let Some(k) = str_field(&v, &["entityType", "entity_type"]) {
            e.kind = Some(k.to_string());
        }
        for o in v
            .get("observations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let o = o.trim().to_string();
            if !o.is_empty() && !e.observations.contains(&o) {
                e.observations.push(o);
            }
        }
    }
    Ok((entities, lines))
}

pub fn check(path: &Path) -> Result<Checked, FormatError> {
    let (_, lines) = graph(path)?;
    Ok(Checked {
        bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        items: lines,
    })
}

pub fn read(path: &Path, sink: &mut dyn Sink) -> Result<(), ReadError> {
    let (entities, _) = graph(path)?;
    // No times in the file: its own modification time is when it was said.
    let date = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .map(chrono::DateTime::<chrono::Utc>::from);
    sink.found("entities", entities.len() as u64);
    sink.found(
        "relations",
        entities
            .values()
            .map(|e| e.relations.len() as u64)
            .sum::<u64>()
            / 2,
    );
    for (name, e) in entities {
        let kind = e.kind.clone().unwrap_or_else(|| "entity".into());
        let mut text = front_matter(&[
            ("title", name.clone()),
            ("imported_from", "mcp-memory".into()),
            ("original_id", format!("entity/{name}")),
            ("type", kind.clone()),
        ]);
        text.push_str(&format!(
            "\n# {name}\n\n_{kind} in the MCP memory server's knowledge graph_\n"
        ));
        if !e.observations.is_empty() {
            text.push_str("\n## Observations\n\n");
            for o in &e.observations {
                text.push_str(&format!("- {o}\n"));
            }
        }
        if !e.relations.is_empty() {
            text.push_str("\n## Relations\n\n");
            for r in &e.relations {
                text.push_str(&format!("- {r}\n"));
            }
        }
        sink.note(Note {
            rel: format!(
                "{}/{}-{}.md",
                slug(&kind, 30),
                slug(&name, 40),
                short_hash(&name)
            ),
            key: format!("entity/{name}"),
            text,
            date,
        })
        .map_err(ReadError::Write)?;
    }
    sink.advanced(std::fs::metadata(path).map(|m| m.len()).unwrap_or(0));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_relations_and_dangling_ends() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("memory.jsonl");
        std::fs::copy(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/import/mcp-memory/memory.legacy-memory.json"
            ),
            &p,
        )
        .unwrap();
        let (g, lines) = graph(&p).unwrap();
        assert_eq!(lines, 2);
        assert_eq!(g["pms"].relations, ["Alice maintains pms"]);
        assert_eq!(g["Alice"].kind, None, "only named by a relation");
        std::fs::write(
            &p,
            "{\"type\":\"entity\",\"name\":\"a\"}\n\n{\"type\":\"ent",
        )
        .unwrap();
        let err = graph(&p).unwrap_err();
        assert!(err.problem.starts_with("line 3 is cut short"), "{err}");
    }
}

//! The floor plan holds: `src/` is four layers (front, app, memory,
//! platform; see src/lib.rs), every `crate::` path points to the same layer
//! or one below, and no two folders depend on each other, directly or
//! round a loop. Run alone with `cargo test --test tests architecture`.
//!
//! A folder is a node; a file belongs to the folder it sits in (a `mod.rs`
//! too). A path in a file (`crate::a::b::Item`, grouped `crate::a::{b, c}`,
//! or `super::`) is resolved to the module file it names, and from there to
//! that file's folder. Paths inside test modules count: a test that reaches
//! up a layer ties the floors together as much as code does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// The layers, top first. A file may name its own layer and those after it.
const LAYERS: [&str; 4] = ["front", "app", "memory", "platform"];

/// A module path (`["memory", "index", "db"]`) to the file that holds it.
fn module_file(segments: &[String]) -> Option<PathBuf> {
    let base = Path::new(SRC).join(segments.join("/"));
    let file = base.with_extension("rs");
    if file.is_file() {
        return Some(file);
    }
    let m = base.join("mod.rs");
    m.is_file().then_some(m)
}

/// The module path of a source file (`src/memory/index/db.rs` ->
/// `memory::index::db`; a `mod.rs` is its folder's module).
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(SRC).unwrap().with_extension("");
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    segs
}

/// The folder (relative to src/) a module lives in: the deepest prefix of
/// `path` that is a module, and the folder of its file.
fn folder_of_path(path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|n| {
        let file = module_file(&path[..n])?;
        let dir = file.parent()?.strip_prefix(SRC).ok()?.to_path_buf();
        Some(dir.to_string_lossy().into_owned())
    })
}

/// Every path a use or an expression names after `crate::` or `super::`,
/// grouped imports expanded, as module segments from the crate root.
fn named_paths(text: &str, me: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !text.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &text[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let prefix = if !boundary {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with("super::") {
            // `super` of the module `a::b::c` is `a::b`, whether its file
            // is `a/b/c.rs` or `a/b/c/mod.rs`.
            let mut base = me.to_vec();
            let mut len = 0;
            let mut r = rest;
            while let Some(t) = r.strip_prefix("super::") {
                base.pop();
                len += "super::".len();
                r = t;
            }
            Some((base, len))
        } else {
            None
        };
        let Some((base, len)) = prefix else {
            i += 1;
            continue;
        };
        i += len;
        i = parse_tree(text, i, base, &mut out);
    }
    out
}

/// Parses `a::b::{c, d::e}` at `i`, pushing each full path; returns the
/// index after it.
fn parse_tree(text: &str, mut i: usize, base: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = text.as_bytes();
    let mut path = base;
    loop {
        if bytes.get(i) == Some(&b'{') {
            i += 1;
            loop {
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                {
                    i += 1;
                }
                match bytes.get(i) {
                    None => return i,
                    Some(b'}') => return i + 1,
                    _ => {}
                }
                let before = i;
                i = parse_tree(text, i, path.clone(), out);
                // `self` inside braces, a glob, or a comment: move on.
                if i == before {
                    i += 1;
                }
            }
        }
        let start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        if i == start {
            if !path.is_empty() {
                out.push(path);
            }
            return i;
        }
        let word = &text[start..i];
        if word != "self" {
            path.push(word.to_string());
        }
        if text[i..].starts_with("::") {
            i += 2;
            continue;
        }
        out.push(path);
        return i;
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Folder -> folder -> the files that make the edge.
type Edges = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn folder_edges() -> Edges {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let mut edges = Edges::new();
    for file in files {
        let rel = file
            .strip_prefix(SRC)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel == "main.rs" || rel == "lib.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let me = module_of(&file);
        let from = file
            .parent()
            .unwrap()
            .strip_prefix(SRC)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for path in named_paths(&text, &me) {
            let Some(to) = folder_of_path(&path) else {
                continue; // an item of lib.rs, or a macro in a string
            };
            if to != from && !to.is_empty() {
                edges
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(rel.clone());
            }
        }
    }
    edges
}

fn layer_of(folder: &str) -> Option<usize> {
    let top = folder.split('/').next()?;
    LAYERS.iter().position(|l| *l == top)
}

/// A cycle in the folder graph, as the folders round it, if there is one.
fn find_cycle(edges: &Edges) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        edges: &Edges,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = stack.iter().position(|n| n == node).unwrap();
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flat_map(|m| m.keys()) {
            if let Some(c) = visit(next, edges, marks, stack) {
                return Some(c);
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in edges.keys() {
        let mut stack = Vec::new();
        if let Some(c) = visit(node, edges, &mut marks, &mut stack) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_module_reaches_up_a_layer() {
    let edges = folder_edges();
    let mut wrong = Vec::new();
    for (from, tos) in &edges {
        let Some(lf) = layer_of(from) else {
            wrong.push(format!("{from}: not inside one of the layers {LAYERS:?}"));
            continue;
        };
        for (to, files) in tos {
            if layer_of(to).is_some_and(|lt| lt < lf) {
                wrong.push(format!("{from} -> {to} (in {files:?})"));
            }
        }
    }
    assert!(wrong.is_empty(), "paths up a layer:\n{}", wrong.join("\n"));
}

#[test]
fn no_two_folders_depend_on_each_other() {
    let edges = folder_edges();
    if let Some(cycle) = find_cycle(&edges) {
        let why: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} -> {} (in {:?})", w[0], w[1], edges[&w[0]][&w[1]]))
            .collect();
        panic!("a folder cycle:\n{}", why.join("\n"));
    }
}

#[test]
fn the_checker_sees_a_cycle_and_a_grouped_import() {
    // The two tests above pass trivially if the parser finds no paths.
    let me = vec!["memory".to_string(), "index".to_string(), "db".to_string()];
    let paths = named_paths(
        "use crate::memory::{search::hybrid, words::{self, terms::Term}};\nlet x = super::chunk::f();",
        &me,
    );
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert!(
        joined.contains(&"memory::search::hybrid".to_string()),
        "{joined:?}"
    );
    assert!(joined.contains(&"memory::words".to_string()), "{joined:?}");
    assert!(
        joined.contains(&"memory::words::terms::Term".to_string()),
        "{joined:?}"
    );
    assert!(
        joined.contains(&"memory::index::chunk::f".to_string()),
        "{joined:?}"
    );
    let mut edges = Edges::new();
    for (a, b) in [("x", "y"), ("y", "z"), ("z", "x")] {
        edges
            .entry(a.into())
            .or_default()
            .entry(b.into())
            .or_default()
            .insert("f.rs".into());
    }
    assert_eq!(find_cycle(&edges).map(|c| c.len()), Some(4));
    assert!(!folder_edges().is_empty());
}

#[test]
fn the_floor_plan_stays_small_enough_to_read() {
    let top: Vec<String> = std::fs::read_dir(SRC)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(top.len() <= 12, "src/ has {} entries: {top:?}", top.len());
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 1000).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "files over 1,000 lines: {long:?}");
}

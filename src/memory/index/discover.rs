//! Which files the index covers, decided in one place: the walk over the
//! workspace's markdown, the walk over Claude Code's transcripts, and the
//! check of a single path (what `pms index --path` and the hooks pass).
//! Everything that counts or lists "the files pms indexes" (init's question
//! before the first index, crash recovery, verify's freshness check) uses
//! these, so they can never disagree with the indexer.
//!
//! Every file, of every kind, is one `pms get` would read
//! ([`check_memory_file`]: a regular file with no other hard links).
//! Workspace rules: `*.md` files, at most [`MAX_DEPTH`] folders deep, outside
//! hidden folders (`.pms/`, `.git/`, `.claude/`, ...) and `node_modules/`;
//! `sessions/*.md` are session summaries, everything else is knowledge.
//! Transcript rules: `*.jsonl` under `<root>/<project folder>/`, at most
//! [`MAX_TRANSCRIPT_DEPTH`] folders below it (subagents' transcripts live in
//! `<session>/subagents/`), outside `tool-results/` and `memory/`; a file
//! reachable from two roots counts once, under the first. The other agents'
//! conversations ([`AgentLogs`]): Codex's rollouts,
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` (`codex://YYYY/MM/DD/
//! <file>`), and the OpenClaw conversations pms's plugin recorded,
//! `.pms/openclaw/<agent>/<session>.jsonl` (`openclaw://<agent>/<file>`).
//! Their project is not in their path: the indexer derives it from the cwd
//! they record, as Claude Code names its project folders. The conversations
//! `pms import` brought from ChatGPT and Claude.ai
//! ([`imported_conversations`]), `.pms/imports/<source>/<id>.jsonl`
//! (`chatgpt://<id>.jsonl`, `claude-ai://<id>.jsonl`), are read like them,
//! with no project (they belong to none), and are no sessions pms saw:
//! crash recovery never looks at them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::indexer::Source;
use crate::platform::imports::Kind;
use crate::platform::workspace::{Workspace, check_memory_file};

/// Deepest folder level of the workspace walked for markdown.
const MAX_DEPTH: usize = 12;
/// Deepest folder level below a project folder walked for transcripts.
const MAX_TRANSCRIPT_DEPTH: usize = 4;

/// Where the other agents' conversations are.
#[derive(Debug, Clone)]
pub struct AgentLogs {
    /// Codex's `sessions/` folder.
    pub codex: PathBuf,
    /// pms's records of OpenClaw conversations.
    pub openclaw: PathBuf,
    /// The conversations `pms import` brought (`<source>/<id>.jsonl`).
    pub imports: PathBuf,
}

impl AgentLogs {
    pub fn of(env: &crate::platform::host::env::HostEnv, ws: &Workspace) -> AgentLogs {
        AgentLogs {
            codex: env.codex_sessions(),
            openclaw: ws.openclaw_logs(),
            imports: ws.state_dir().join("imports"),
        }
    }

    /// The file a `codex://`, `openclaw://` or imported conversation's
    /// address (`chatgpt://<id>.jsonl`; `.jsonl` may be left out) names, if
    /// `uri` is one (None for any other address; the path is not checked).
    pub fn resolve(&self, uri: &str) -> Option<(PathBuf, String)> {
        if let Some(rel) = uri.strip_prefix("codex://") {
            return Some((self.codex.clone(), rel.to_string()));
        }
        if let Some(rel) = uri.strip_prefix("openclaw://") {
            return Some((self.openclaw.clone(), rel.to_string()));
        }
        let (scheme, rel) = uri.split_once("://")?;
        if !Kind::CONVERSATION_SCHEMES.contains(&scheme) || rel.is_empty() {
            return None;
        }
        let rel = if rel.ends_with(".jsonl") {
            rel.to_string()
        } else {
            format!("{rel}.jsonl")
        };
        Some((self.imports.join(scheme), rel))
    }
}

/// A file the index covers.
#[derive(Debug, Clone)]
pub struct Found {
    /// Workspace-relative path, or `cc://<project folder>/<path>.jsonl`.
    pub uri: String,
    pub abs: PathBuf,
    pub source: Source,
    /// A knowledge file's first folder (its domain), a transcript's project
    /// folder; empty for summaries.
    pub project: String,
    pub size: u64,
    pub mtime_ns: i64,
    /// A subagent's transcript (not a session of its own).
    pub subagent: bool,
}

impl Found {
    /// A transcript under `root`: `<root>/<project folder>/<session>.jsonl`,
    /// or deeper for a subagent's.
    fn transcript(root: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let rel = relative(root, path)?;
        let (project, rest) = rel.split_once('/')?;
        let depth = rest.matches('/').count();
        if depth > MAX_TRANSCRIPT_DEPTH
            || rest
                .split('/')
                .any(|d| d == "tool-results" || d == "memory")
        {
            return None;
        }
        Some(Found {
            uri: format!("cc://{rel}"),
            abs: path.to_path_buf(),
            source: Source::Transcript,
            subagent: depth > 0,
            project: project.to_string(),
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
        })
    }

    /// A Codex rollout under `root`: `<root>/YYYY/MM/DD/rollout-*.jsonl`.
    fn codex(root: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let rel = relative(root, path)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let [y, m, d, file] = parts.as_slice() else {
            return None;
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !(digits(y) && digits(m) && digits(d) && is_rollout_name(file)) {
            return None;
        }
        Some(Found::other_agent(format!("codex://{rel}"), path, meta))
    }

    /// An OpenClaw conversation pms recorded: `<root>/<agent>/<session>.jsonl`.
    fn openclaw(root: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let rel = relative(root, path)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let [_agent, file] = parts.as_slice() else {
            return None;
        };
        if !file.ends_with(".jsonl") {
            return None;
        }
        Some(Found::other_agent(format!("openclaw://{rel}"), path, meta))
    }

    /// An imported conversation: `<root>/<source>/<id>.jsonl`.
    fn imported(root: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let rel = relative(root, path)?;
        let (scheme, file) = rel.split_once('/')?;
        if !Kind::CONVERSATION_SCHEMES.contains(&scheme)
            || file.contains('/')
            || !file.ends_with(".jsonl")
        {
            return None;
        }
        Some(Found::other_agent(format!("{scheme}://{file}"), path, meta))
    }

    fn other_agent(uri: String, path: &Path, meta: &std::fs::Metadata) -> Found {
        Found {
            uri,
            abs: path.to_path_buf(),
            source: Source::Transcript,
            // Set from the cwd the file records, when it is indexed.
            project: String::new(),
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            subagent: false,
        }
    }

    /// An auto-memory file under `root`: `<root>/<project>/memory/<name>.md`.
    fn memory(root: &Path, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let rel = relative(root, path)?;
        let parts: Vec<&str> = rel.split('/').collect();
        let [project, "memory", file] = parts.as_slice() else {
            return None;
        };
        if !file.ends_with(".md") || *file == "MEMORY.md" {
            return None;
        }
        Some(Found {
            uri: format!("cc://{rel}"),
            abs: path.to_path_buf(),
            source: Source::Memory,
            project: project.to_string(),
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            subagent: false,
        })
    }

    /// A workspace markdown file, if the rules above cover `rel`.
    fn markdown(rel: String, path: &Path, meta: &std::fs::Metadata) -> Option<Found> {
        check_memory_file(meta).ok()?;
        let source = markdown_source(&rel)?;
        let project = match (source, rel.split_once('/')) {
            (Source::Knowledge, Some((first, _))) => first.to_string(),
            _ => String::new(),
        };
        Some(Found {
            uri: rel,
            abs: path.to_path_buf(),
            source,
            project,
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            subagent: false,
        })
    }
}

/// The source of a workspace-relative path, or None when it is not indexed.
fn markdown_source(rel: &str) -> Option<Source> {
    if !rel.ends_with(".md") {
        return None;
    }
    let folders: Vec<&str> = rel.split('/').collect();
    let folders = &folders[..folders.len() - 1];
    if folders.len() > MAX_DEPTH || folders.iter().any(|f| skipped_folder(f)) {
        return None;
    }
    match folders.first() {
        Some(&"sessions") if folders.len() == 1 => Some(Source::Summary),
        Some(&"sessions") => None,
        _ => Some(Source::Knowledge),
    }
}

fn skipped_folder(name: &str) -> bool {
    name.starts_with('.') || name == "node_modules"
}

/// Every markdown file of the workspace the index covers.
pub fn workspace(ws: &Workspace) -> Vec<Found> {
    fn walk(ws: &Workspace, dir: &Path, depth: usize, out: &mut Vec<Found>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                let name = e.file_name();
                if depth < MAX_DEPTH && !skipped_folder(&name.to_string_lossy()) {
                    walk(ws, &p, depth + 1, out);
                }
            } else if ft.is_file()
                && let Some(rel) = ws.relative(&p)
                && let Ok(meta) = e.metadata()
                && let Some(f) = Found::markdown(rel, &p, &meta)
            {
                out.push(f);
            }
        }
    }
    let mut out = Vec::new();
    walk(ws, &ws.root, 0, &mut out);
    out
}

/// Every transcript under `roots` the index covers.
pub fn transcripts(roots: &[PathBuf]) -> Vec<Found> {
    fn walk(
        root: &Path,
        dir: &Path,
        depth: usize,
        seen: &mut HashSet<String>,
        out: &mut Vec<Found>,
    ) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                if depth < MAX_TRANSCRIPT_DEPTH + 1 {
                    walk(root, &p, depth + 1, seen, out);
                }
            } else if ft.is_file()
                && e.file_name().to_string_lossy().ends_with(".jsonl")
                && let Ok(meta) = e.metadata()
                && let Some(found) = Found::transcript(root, &p, &meta)
                && seen.insert(found.uri.clone())
            {
                out.push(found); // else an earlier root has the same file
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for root in roots {
        walk(root, root, 0, &mut seen, &mut out);
    }
    out
}

/// `rollout-<time>-<id>.jsonl`.
pub fn is_rollout_name(file: &str) -> bool {
    file.starts_with("rollout-") && file.ends_with(".jsonl")
}

/// Codex's rollouts and the recorded OpenClaw conversations.
pub fn agent_transcripts(logs: &AgentLogs) -> Vec<Found> {
    fn walk(dir: &Path, depth: usize, max: usize, files: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() && depth < max {
                walk(&e.path(), depth + 1, max, files);
            } else if ft.is_file() && depth == max {
                files.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    let mut files = Vec::new();
    walk(&logs.codex, 0, 3, &mut files);
    for p in files.drain(..) {
        if let Ok(meta) = std::fs::metadata(&p)
            && let Some(f) = Found::codex(&logs.codex, &p, &meta)
        {
            out.push(f);
        }
    }
    walk(&logs.openclaw, 0, 1, &mut files);
    for p in files {
        if let Ok(meta) = std::fs::metadata(&p)
            && let Some(f) = Found::openclaw(&logs.openclaw, &p, &meta)
        {
            out.push(f);
        }
    }
    out
}

/// The conversations `pms import` brought (`<imports>/<source>/*.jsonl`).
pub fn imported_conversations(logs: &AgentLogs) -> Vec<Found> {
    let mut out = Vec::new();
    for scheme in Kind::CONVERSATION_SCHEMES {
        let dir = logs.imports.join(scheme);
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if let Ok(meta) = std::fs::metadata(&p)
                && let Some(f) = Found::imported(&logs.imports, &p, &meta)
            {
                out.push(f);
            }
        }
    }
    out
}

/// The address of a transcript file: `codex://…` for a Codex rollout
/// (`…/YYYY/MM/DD/rollout-*.jsonl`), `openclaw://…` for a recorded
/// OpenClaw conversation (`…/.pms/openclaw/<agent>/<file>`), else Claude
/// Code's `cc://<folder>/<file>`. Decided from the path's shape, which each
/// agent fixes, so it needs no roots.
pub fn transcript_uri(path: &Path) -> Option<String> {
    let names: Vec<String> = path
        .components()
        .rev()
        .take(5)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = names.first()?;
    let digits = |s: &String| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if is_rollout_name(file) && names.len() >= 4 && names[1..4].iter().all(digits) {
        return Some(format!(
            "codex://{}/{}/{}/{file}",
            names[3], names[2], names[1]
        ));
    }
    if names.len() >= 4 && names[2] == "openclaw" && names[3] == ".pms" {
        return Some(format!("openclaw://{}/{file}", names[1]));
    }
    if names.len() >= 4
        && names[2] == "imports"
        && names[3] == ".pms"
        && Kind::CONVERSATION_SCHEMES.contains(&names[1].as_str())
    {
        return Some(format!("{}://{file}", names[1]));
    }
    Some(format!("cc://{}/{file}", names.get(1)?))
}

/// Claude Code's auto-memory files under `roots`
/// (`<root>/<project>/memory/*.md`, its `MEMORY.md` index left out).
pub fn auto_memory(roots: &[PathBuf]) -> Vec<Found> {
    let mut out = Vec::new();
    for root in roots {
        for m in crate::platform::agents::claude::auto_memory::all(root) {
            if let Ok(meta) = std::fs::metadata(&m.path)
                && let Some(f) = Found::memory(root, &m.path, &meta)
            {
                out.push(f);
            }
        }
    }
    out
}

/// One path as the walks would have found it (None: the index does not
/// cover it).
pub fn classify(ws: &Workspace, roots: &[PathBuf], logs: &AgentLogs, path: &Path) -> Option<Found> {
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    if path.extension().is_some_and(|x| x == "jsonl") {
        return Found::codex(&logs.codex, path, &meta)
            .or_else(|| Found::openclaw(&logs.openclaw, path, &meta))
            .or_else(|| Found::imported(&logs.imports, path, &meta))
            .or_else(|| {
                roots
                    .iter()
                    .find_map(|root| Found::transcript(root, path, &meta))
            });
    }
    if let Some(f) = roots
        .iter()
        .find_map(|root| Found::memory(root, path, &meta))
    {
        return Some(f);
    }
    Found::markdown(ws.relative(path)?, path, &meta)
}

/// `path` below `root`, with forward slashes (the form in URIs).
fn relative(root: &Path, path: &Path) -> Option<String> {
    Some(
        path.strip_prefix(root)
            .ok()?
            .to_string_lossy()
            .replace('\\', "/"),
    )
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_rules() {
        assert_eq!(markdown_source("product/prd.md"), Some(Source::Knowledge));
        assert_eq!(markdown_source("notes.md"), Some(Source::Knowledge));
        assert_eq!(markdown_source("sessions/x.md"), Some(Source::Summary));
        assert_eq!(markdown_source("sessions/old/x.md"), None);
        assert_eq!(markdown_source(".pms/x.md"), None);
        assert_eq!(markdown_source("a/.git/x.md"), None);
        assert_eq!(markdown_source("web/node_modules/pkg/README.md"), None);
        assert_eq!(markdown_source("product/prd.txt"), None);
    }

    fn walked_files(ws: &Workspace, roots: &[PathBuf], logs: &AgentLogs) -> Vec<Found> {
        workspace(ws)
            .into_iter()
            .chain(transcripts(roots))
            .chain(agent_transcripts(logs))
            .chain(imported_conversations(logs))
            .collect()
    }

    #[test]
    fn walks_and_classify_agree() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("ws"));
        let roots = vec![dir.path().join("projects")];
        let logs = AgentLogs {
            codex: dir.path().join("codex/sessions"),
            openclaw: ws.openclaw_logs(),
            imports: ws.state_dir().join("imports"),
        };
        for rel in [
            "ws/product/a.md",
            "ws/sessions/s.md",
            "ws/.pms/x.md",
            "ws/node_modules/r.md",
            "ws/a/b/c/d/e.md",
            "projects/-p/s1.jsonl",
            "projects/-p/s1/subagents/agent-1.jsonl",
            "projects/-p/s1/tool-results/t.jsonl",
            "projects/-p/memory/m.jsonl",
            "projects/-p/notes.txt",
            "codex/sessions/2026/11/25/rollout-2026-11-25T08-03-48-01a211bb-79d6-7f93-ba77-17680efe70eb.jsonl",
            "codex/sessions/2026/11/25/notes.jsonl",
            "codex/sessions/2026/11/rollout-x.jsonl",
            "ws/.pms/openclaw/main/s1.jsonl",
            "ws/.pms/imports/chatgpt/6781f0a2.jsonl",
            "ws/.pms/imports/claude-ai/1f0e8b7a.jsonl",
            "ws/.pms/imports/gemini/x.jsonl",
            "ws/.pms/imports/chatgpt.json",
        ] {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x\n").unwrap();
        }
        let mut walked: Vec<String> = walked_files(&ws, &roots, &logs)
            .into_iter()
            .map(|f| f.uri)
            .collect();
        walked.sort();
        assert_eq!(
            walked,
            [
                "a/b/c/d/e.md",
                "cc://-p/s1.jsonl",
                "cc://-p/s1/subagents/agent-1.jsonl",
                "chatgpt://6781f0a2.jsonl",
                "claude-ai://1f0e8b7a.jsonl",
                "codex://2026/11/25/rollout-2026-11-25T08-03-48-01a211bb-79d6-7f93-ba77-17680efe70eb.jsonl",
                "openclaw://main/s1.jsonl",
                "product/a.md",
                "sessions/s.md"
            ]
        );
        for rel in [
            "ws/.pms/x.md",
            "ws/node_modules/r.md",
            "projects/-p/s1/tool-results/t.jsonl",
            "projects/-p/memory/m.jsonl",
            "codex/sessions/2026/11/25/notes.jsonl",
            "ws/.pms/imports/gemini/x.jsonl",
        ] {
            assert!(
                classify(&ws, &roots, &logs, &dir.path().join(rel)).is_none(),
                "{rel}"
            );
        }
        let sub = classify(
            &ws,
            &roots,
            &logs,
            &dir.path().join("projects/-p/s1/subagents/agent-1.jsonl"),
        )
        .unwrap();
        assert!(sub.subagent && sub.project == "-p");
        for f in walked_files(&ws, &roots, &logs) {
            let again = classify(&ws, &roots, &logs, &f.abs).expect("classify agrees");
            assert_eq!(again.uri, f.uri);
            if f.source == Source::Transcript && !f.subagent {
                assert_eq!(transcript_uri(&f.abs), Some(f.uri.clone()));
            }
        }
    }
}

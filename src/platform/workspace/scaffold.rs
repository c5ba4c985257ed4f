//! Creating a workspace: what `pms init` writes, planned first (so the wizard
//! can show it and `--dry-run` can print it) and then applied.
//!
//! An existing user file is never overwritten: the plan marks it "exists"
//! and init says so. The one exception is pms's own block in the root
//! CLAUDE.md, which is refreshed between its markers and nowhere else.

use std::path::{Path, PathBuf};

use super::domains::DomainSpec;
use super::manifest::Manifest;
use super::markers::{self, ROOT_BLOCK};
use super::templates::{self, Vars};
use super::{ME_FILES, Workspace, config};
use crate::platform::host::durable;

/// What the user told the wizard (or the flags).
#[derive(Debug, Clone, PartialEq)]
pub struct Answers {
    pub name: String,
    pub role: String,
    pub domains: Vec<String>,
    pub languages: Vec<String>,
    pub tone: String,
}

impl Answers {
    /// The answers an installed workspace was set up with, read back from
    /// what the setup wrote (the profile, the writing style, the domain
    /// folders), so a second `pms init` starts from them and changes only
    /// what the user changes. None when the workspace has no profile.
    pub fn installed(ws: &Workspace) -> Option<Answers> {
        let name = ws.profile_field("Name")?;
        let style = std::fs::read_to_string(ws.me_file("writing-style.md")).unwrap_or_default();
        // the first bullet under the `## Tone` heading
        let tone = style
            .lines()
            .skip_while(|l| !(l.starts_with('#') && l.trim_start_matches('#').trim() == "Tone"))
            .skip(1)
            .take_while(|l| !l.starts_with('#'))
            .find_map(|l| l.trim().strip_prefix("- "))
            .map(|t| t.trim().to_string())
            .unwrap_or_default();
        Some(Answers {
            name,
            role: ws.profile_field("Role").unwrap_or_default(),
            domains: ws.installed_domains(),
            languages: ws
                .profile_field("Answers in")
                .map(|l| parse_languages(&l))
                .unwrap_or_default(),
            tone,
        })
    }
}

/// Languages as the files say them: the default first, then the others
/// that are also fine (`English (also fine: Deutsch, 中文)`). One language
/// is just its name.
pub fn languages_phrase(languages: &[String]) -> String {
    match languages {
        [] => String::new(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} (also fine: {})", rest.join(", ")),
    }
}

/// The inverse of [`languages_phrase`]; a comma list (as older versions
/// wrote) is read with its first language as the default.
pub fn parse_languages(text: &str) -> Vec<String> {
    let (first, rest) = match text.split_once("(also fine:") {
        Some((first, rest)) => (first, rest.trim_end().trim_end_matches(')')),
        None => (text, ""),
    };
    first
        .split(',')
        .chain(rest.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether a file is the user's to edit or a system file pms may refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileClass {
    User,
    System,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAction {
    Create,
    /// Present already; left exactly as it is.
    Exists,
    /// Root CLAUDE.md exists: pms's block is added at its end.
    AppendBlock,
    /// Root CLAUDE.md has pms's block, with older content: the block is refreshed.
    UpdateBlock,
}

#[derive(Debug, Clone)]
pub struct PlannedFile {
    /// Relative to the workspace root, `/`-separated.
    pub rel: String,
    pub content: String,
    pub class: FileClass,
    pub action: FileAction,
}

#[derive(Debug, Clone)]
pub struct ScaffoldPlan {
    pub root: PathBuf,
    pub dirs: Vec<String>,
    pub files: Vec<PlannedFile>,
}

impl ScaffoldPlan {
    pub fn writes(&self) -> impl Iterator<Item = &PlannedFile> {
        self.files.iter().filter(|f| f.action != FileAction::Exists)
    }
    pub fn existing(&self) -> impl Iterator<Item = &PlannedFile> {
        self.files.iter().filter(|f| f.action == FileAction::Exists)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    #[error("unknown domain {0:?}. Available: {1}")]
    UnknownDomain(String, String),
    #[error("{path} exists and is not a folder.\n  Fix: choose another --dir.")]
    NotADirectory { path: PathBuf },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

/// Plans the workspace at `ws` for `answers`, looking at what already exists.
pub fn plan(ws: &Workspace, answers: &Answers, today: &str) -> Result<ScaffoldPlan, ScaffoldError> {
    if ws.root.exists() && !ws.root.is_dir() {
        return Err(ScaffoldError::NotADirectory {
            path: ws.root.clone(),
        });
    }
    let available = templates::domain_ids();
    for d in &answers.domains {
        if !available.contains(d) {
            return Err(ScaffoldError::UnknownDomain(
                d.clone(),
                available.join(", "),
            ));
        }
    }
    let vars = Vars {
        name: answers.name.clone(),
        role: answers.role.clone(),
        languages: languages_phrase(&answers.languages),
        tone: answers.tone.clone(),
        date: today.to_string(),
        domains: answers.domains.join(", "),
    };
    let mut files = Vec::new();
    let mut dirs = vec![
        "_me".to_string(),
        "sessions".into(),
        ".pms".into(),
        ".pms/state".into(),
        ".pms/logs".into(),
    ];

    for name in ME_FILES {
        let content = vars.render(templates::template(&format!("me/{name}")));
        files.push(planned(ws, format!("_me/{name}"), content, FileClass::User));
    }
    files.push(root_claude_md(
        ws,
        &vars,
        &all_domains(ws, &answers.domains),
    ));
    files.push(planned(
        ws,
        "config.toml".into(),
        config::default_document().to_string(),
        FileClass::User,
    ));
    files.push(planned(
        ws,
        ".pms/.gitignore".into(),
        "# pms state: derived or machine-local, not worth committing.\n*\n".into(),
        FileClass::System,
    ));

    for id in &answers.domains {
        dirs.push(id.clone());
        dirs.push(format!("{id}/projects"));
        for (rel, text) in templates::domain_files(id) {
            // The reference index is the user's to fill; the rest is ours.
            let class = if rel == "content-index.md" || rel.starts_with("projects/") {
                FileClass::User
            } else {
                FileClass::System
            };
            files.push(planned(ws, format!("{id}/{rel}"), vars.render(text), class));
        }
    }
    Ok(ScaffoldPlan {
        root: ws.root.clone(),
        dirs,
        files,
    })
}

/// Domains already in the workspace plus the newly chosen ones, for the
/// root CLAUDE.md's domain table.
fn all_domains(ws: &Workspace, chosen: &[String]) -> Vec<String> {
    let mut ids = ws.installed_domains();
    for d in chosen {
        if !ids.contains(d) {
            ids.push(d.clone());
        }
    }
    ids.sort();
    ids
}

fn planned(ws: &Workspace, rel: String, content: String, class: FileClass) -> PlannedFile {
    let action = if ws.root.join(&rel).exists() {
        FileAction::Exists
    } else {
        FileAction::Create
    };
    PlannedFile {
        rel,
        content,
        class,
        action,
    }
}

/// The inner text of pms's block in the root CLAUDE.md.
pub fn root_block_inner(vars: &Vars, domain_ids: &[String]) -> String {
    let mut table = String::new();
    let catalog = super::domains::catalog();
    for id in domain_ids {
        let title = catalog
            .iter()
            .find(|d| &d.id == id)
            .map(|d: &DomainSpec| d.title.clone())
            .unwrap_or_else(|| id.clone());
        table.push_str(&format!(
            "| {title} | `{id}/CLAUDE.md` | `{id}/content-index.md` |\n"
        ));
    }
    if table.is_empty() {
        table.push_str("| (no domain workspaces yet: `pms init --domains ...` adds them) | | |\n");
    }
    let body = vars.render(templates::template("root-claude-block.md"));
    format!(
        "\n{}\n",
        body.replace("{{domain_table}}", table.trim_end()).trim()
    )
}

fn root_claude_md(ws: &Workspace, vars: &Vars, domains: &[String]) -> PlannedFile {
    let inner = root_block_inner(vars, domains);
    let path = ws.claude_md();
    let (content, action) = match crate::platform::host::durable::read_existing_text(&path) {
        Ok(None) => {
            let head = vars.render(templates::template("root-claude-head.md"));
            (
                markers::append_block(&head, ROOT_BLOCK, &inner),
                FileAction::Create,
            )
        }
        // Unreadable (not UTF-8, no permission): left exactly as it is;
        // verify says why the block is missing.
        Err(_) => (String::new(), FileAction::Exists),
        Ok(Some(existing)) => match markers::inner(&existing, ROOT_BLOCK) {
            Some(cur) if cur == inner => (existing, FileAction::Exists),
            Some(_) => (
                markers::replace_inner(&existing, ROOT_BLOCK, &inner).expect("markers found"),
                FileAction::UpdateBlock,
            ),
            None => (
                markers::append_block(&existing, ROOT_BLOCK, &inner),
                FileAction::AppendBlock,
            ),
        },
    };
    PlannedFile {
        rel: "CLAUDE.md".into(),
        content,
        class: FileClass::User,
        action,
    }
}

/// Applies `plan`: creates folders and every file not already present, and
/// records the system files in the manifest. `on_file` is called after each
/// file (for the progress bar).
pub fn apply(
    ws: &Workspace,
    plan: &ScaffoldPlan,
    mut on_file: impl FnMut(&PlannedFile),
) -> Result<Manifest, ScaffoldError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ScaffoldError::Io(crate::platform::host::error::FileError::new(path, source))
    };
    for d in &plan.dirs {
        let p = ws.root.join(d);
        std::fs::create_dir_all(&p).map_err(io(&p))?;
    }
    let manifest_path = ws.manifest_path();
    let mut manifest = Manifest::load(&manifest_path).map_err(io(&manifest_path))?;
    manifest.pms_version = env!("CARGO_PKG_VERSION").to_string();
    if plan
        .files
        .iter()
        .any(|f| f.rel == "config.toml" && f.action == FileAction::Create)
    {
        // a config.toml written now names the current default
        manifest.embedding_default = Some(config::DEFAULT_MODEL.to_string());
    }
    for f in &plan.files {
        let p = ws.root.join(&f.rel);
        if f.action != FileAction::Exists {
            durable::write_atomic(&p, f.content.as_bytes()).map_err(io(&p))?;
        }
        if f.class == FileClass::System && f.action == FileAction::Create {
            manifest.record(&f.rel, &f.content);
        }
        if f.rel == "CLAUDE.md" && f.action != FileAction::Exists {
            let block = markers::inner(&f.content, ROOT_BLOCK).unwrap_or_default();
            manifest.record("CLAUDE.md#pms-block", block);
        }
        on_file(f);
    }
    manifest.save(&manifest_path).map_err(io(&manifest_path))?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_read_back_as_written() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for langs in [l(&["English"]), l(&["English", "Deutsch", "中文"])] {
            assert_eq!(parse_languages(&languages_phrase(&langs)), langs);
        }
        assert_eq!(
            parse_languages("English, Deutsch"),
            l(&["English", "Deutsch"])
        );
    }

    fn answers() -> Answers {
        Answers {
            name: "Ada Lovelace".into(),
            role: "PM".into(),
            domains: vec!["product".into(), "growth".into()],
            languages: vec!["English".into(), "中文".into()],
            tone: "direct".into(),
        }
    }

    #[test]
    fn fresh_workspace_gets_every_file_filled_in() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("pms"));
        let p = plan(&ws, &answers(), "2026-11-22").unwrap();
        assert!(p.files.iter().all(|f| f.action == FileAction::Create));
        apply(&ws, &p, |_| {}).unwrap();
        let profile = std::fs::read_to_string(ws.me_file("profile.md")).unwrap();
        assert!(profile.contains("Ada Lovelace") && profile.contains("PM"));
        assert!(!profile.contains("{{"), "unfilled placeholder in profile");
        for f in &p.files {
            assert!(
                !f.content.contains("{{"),
                "{} has an unfilled placeholder",
                f.rel
            );
        }
        assert!(ws.root.join("product/projects").is_dir());
        assert!(ws.root.join("growth/domain.toml").is_file());
        let manifest = Manifest::load(&ws.manifest_path()).unwrap();
        assert!(manifest.files.contains_key("product/domain.toml"));
        assert!(
            !manifest.files.contains_key("_me/profile.md"),
            "user data is not a system file"
        );
        let root = std::fs::read_to_string(ws.claude_md()).unwrap();
        assert!(root.contains("`product/CLAUDE.md`"));
    }

    #[test]
    fn rerun_keeps_user_edits_and_reports_them() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().join("pms"));
        apply(&ws, &plan(&ws, &answers(), "2026-11-22").unwrap(), |_| {}).unwrap();
        std::fs::write(ws.me_file("profile.md"), "my own words").unwrap();
        let p = plan(&ws, &answers(), "2026-11-23").unwrap();
        assert!(p.writes().next().is_none(), "nothing to write on a re-run");
        apply(&ws, &p, |_| {}).unwrap();
        assert_eq!(
            std::fs::read_to_string(ws.me_file("profile.md")).unwrap(),
            "my own words"
        );
    }

    #[test]
    fn user_claude_md_gets_the_block_appended_and_refreshed() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        std::fs::write(ws.claude_md(), "# My rules\nBe brief.\n").unwrap();
        let p = plan(&ws, &answers(), "d").unwrap();
        let root = p.files.iter().find(|f| f.rel == "CLAUDE.md").unwrap();
        assert_eq!(root.action, FileAction::AppendBlock);
        apply(&ws, &p, |_| {}).unwrap();
        let text = std::fs::read_to_string(ws.claude_md()).unwrap();
        assert!(text.starts_with("# My rules\nBe brief.\n"));
        // adding a domain refreshes only the block
        let mut more = answers();
        more.domains.push("engineering".into());
        let p = plan(&ws, &more, "d").unwrap();
        let root = p.files.iter().find(|f| f.rel == "CLAUDE.md").unwrap();
        assert_eq!(root.action, FileAction::UpdateBlock);
        apply(&ws, &p, |_| {}).unwrap();
        let text = std::fs::read_to_string(ws.claude_md()).unwrap();
        assert!(text.starts_with("# My rules\nBe brief.\n"));
        assert!(text.contains("`engineering/CLAUDE.md`"));
    }

    #[test]
    fn unknown_domain_lists_the_choices() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        let mut a = answers();
        a.domains = vec!["astrology".into()];
        let err = plan(&ws, &a, "d").unwrap_err().to_string();
        assert!(
            err.contains("astrology") && err.contains("product"),
            "{err}"
        );
    }
}

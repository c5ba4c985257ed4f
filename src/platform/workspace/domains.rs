//! Domain workspaces and their `domain.toml`: the trigger words (English and
//! Chinese) that tell the user-prompt hook a task belongs to the domain, and
//! the workflows whose SOP and references must be loaded when one starts.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::templates;

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct DomainSpec {
    pub id: String,
    pub title: String,
    pub description: String,
    /// Words or phrases; a prompt containing one (case-insensitive, whole
    /// words) is about this domain. An everyday English word counts as a
    /// hint (see `hooks::layers::trigger_weight`).
    pub triggers: Vec<String>,
    /// Broad words that suggest the domain: two of them load it.
    #[serde(default)]
    pub hints: Vec<String>,
    #[serde(default)]
    pub workflows: Vec<WorkflowSpec>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct WorkflowSpec {
    pub name: String,
    pub title: String,
    pub triggers: Vec<String>,
    /// Files, relative to the domain folder, loaded when the workflow starts.
    pub load: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    #[error(
        "{path}: {message}\n  Fix: correct the file, or run `pms verify --fix` to restore the shipped version."
    )]
    Parse { path: PathBuf, message: String },
    #[error(transparent)]
    Io(#[from] crate::platform::host::error::FileError),
}

impl DomainSpec {
    pub fn parse(path: &Path, text: &str) -> Result<DomainSpec, DomainError> {
        let spec: DomainSpec = toml_edit::de::from_str(text).map_err(|e| DomainError::Parse {
            path: path.into(),
            message: e.to_string().trim_end().replace('\n', "\n  "),
        })?;
        for wf in &spec.workflows {
            for f in &wf.load {
                if f.contains("..") || Path::new(f).is_absolute() {
                    return Err(DomainError::Parse {
                        path: path.into(),
                        message: format!(
                            "workflow {:?} loads {f:?}, which is outside the domain folder",
                            wf.name
                        ),
                    });
                }
            }
        }
        Ok(spec)
    }

    pub fn load(domain_dir: &Path) -> Result<DomainSpec, DomainError> {
        let path = domain_dir.join("domain.toml");
        let text = std::fs::read_to_string(&path).map_err(|source| {
            DomainError::Io(crate::platform::host::error::FileError::new(
                path.clone(),
                source,
            ))
        })?;
        Self::parse(&path, &text)
    }
}

/// The domains the setup preselects for `role` (the user ticks or unticks
/// from there): a product manager gets product, competitors and writing,
/// not engineering. Unknown roles get engineering, research and writing.
pub fn suggested_for(role: &str) -> Vec<&'static str> {
    let r = format!(" {} ", role.to_lowercase());
    let has = |words: &[&str]| words.iter().any(|w| r.contains(w));
    if has(&["product", " pm ", "product owner"]) {
        vec!["product", "competitors", "writing"]
    } else if has(&["market", "brand", "content", "seo"]) {
        vec!["marketing", "growth", "writing"]
    } else if has(&["growth", "sales", "founder", "ceo", "business"]) {
        vec!["growth", "product", "competitors"]
    } else if has(&["operation", " ops ", "program manager", "project manager"]) {
        vec!["operations", "writing"]
    } else if has(&["research", "scientist", "analyst", "phd", "student"]) {
        vec!["research", "writing"]
    } else if has(&["writer", "editor", "journalist", "author"]) {
        vec!["writing", "research"]
    } else if has(&[
        "engineer",
        "developer",
        "programmer",
        " sre ",
        "devops",
        "architect",
        "coder",
    ]) {
        // Research and writing are for people whose work is research or
        // writing; an engineer picks them in the list when they are.
        vec!["engineering"]
    } else {
        vec!["engineering", "research", "writing"]
    }
}

/// The domains shipped in the binary, in id order.
pub fn catalog() -> Vec<DomainSpec> {
    templates::domain_ids()
        .into_iter()
        .filter_map(|id| {
            let text = templates::DOMAINS
                .get_file(format!("{id}/domain.toml"))?
                .contents_utf8()?;
            DomainSpec::parse(Path::new(&id), text).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_eight_complete_domains_ship() {
        let cat = catalog();
        assert_eq!(
            cat.len(),
            templates::domain_ids().len(),
            "every domain.toml parses"
        );
        assert!(cat.len() >= 8, "only {} domains", cat.len());
        for d in &cat {
            let files: Vec<String> = templates::domain_files(&d.id)
                .into_iter()
                .map(|f| f.0)
                .collect();
            for required in ["CLAUDE.md", "content-index.md", "domain.toml"] {
                assert!(
                    files.contains(&required.to_string()),
                    "{} lacks {required}",
                    d.id
                );
            }
            assert!(
                d.triggers
                    .iter()
                    .any(|t| t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))),
                "{} has no Chinese trigger",
                d.id
            );
            assert!(!d.workflows.is_empty(), "{} has no workflow", d.id);
            for wf in &d.workflows {
                for f in &wf.load {
                    assert!(
                        files.contains(f),
                        "{}: workflow {} loads missing {f}",
                        d.id,
                        wf.name
                    );
                }
            }
            // real content, not a placeholder
            let rules = templates::DOMAINS
                .get_file(format!("{}/CLAUDE.md", d.id))
                .unwrap()
                .contents_utf8()
                .unwrap();
            assert!(rules.len() > 800, "{} CLAUDE.md is too thin", d.id);
            assert!(
                !rules.to_lowercase().contains("todo"),
                "{} has a TODO",
                d.id
            );
        }
    }

    #[test]
    fn the_role_picks_the_preselected_domains() {
        let ids = templates::domain_ids();
        for role in [
            "Product manager",
            "PM",
            "Engineer",
            "Growth marketer",
            "Researcher",
            "x",
        ] {
            let picked = suggested_for(role);
            assert!(picked.iter().all(|d| ids.iter().any(|i| i == d)), "{role}");
        }
        assert!(suggested_for("Product manager").contains(&"product"));
        assert!(!suggested_for("Product manager").contains(&"engineering"));
        assert!(suggested_for("Senior engineer").contains(&"engineering"));
    }

    #[test]
    fn escaping_load_paths_are_refused() {
        let text = "id='x'\ntitle='X'\ndescription='d'\ntriggers=['a']\n[[workflows]]\nname='w'\ntitle='W'\ntriggers=['b']\nload=['../../etc/passwd']\n";
        assert!(DomainSpec::parse(Path::new("x/domain.toml"), text).is_err());
    }
}

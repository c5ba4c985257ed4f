//! The text pms writes into a new workspace, embedded in the binary so a
//! release is one file: `templates/` (the `_me/` files, the root CLAUDE.md)
//! and `domains/` (one folder per domain workspace).
//!
//! Templates use `{{name}}`-style placeholders filled from the wizard's
//! answers; nothing more is needed, so there is no template engine.

use include_dir::{Dir, include_dir};

pub static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");
pub static DOMAINS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/domains");

/// Values substituted into templates.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub name: String,
    pub role: String,
    pub languages: String,
    pub tone: String,
    pub date: String,
    pub domains: String,
}

impl Vars {
    pub fn render(&self, text: &str) -> String {
        text.replace("{{name}}", &self.name)
            .replace("{{role}}", &self.role)
            .replace("{{languages}}", &self.languages)
            .replace("{{tone}}", &self.tone)
            .replace("{{date}}", &self.date)
            .replace("{{domains}}", &self.domains)
    }
}

/// The text of `templates/<path>`; panics on a path the binary does not
/// ship, which is a programming error caught by tests.
pub fn template(path: &str) -> &'static str {
    TEMPLATES
        .get_file(path)
        .and_then(|f| f.contents_utf8())
        .unwrap_or_else(|| panic!("template {path} is not embedded"))
}

/// Every file of one embedded domain, as (path inside the domain, text).
pub fn domain_files(id: &str) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    if let Some(dir) = DOMAINS.get_dir(id) {
        collect(dir, dir.path(), &mut out);
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn collect(
    dir: &'static Dir<'static>,
    base: &std::path::Path,
    out: &mut Vec<(String, &'static str)>,
) {
    for f in dir.files() {
        if let (Ok(rel), Some(text)) = (f.path().strip_prefix(base), f.contents_utf8()) {
            out.push((rel.to_string_lossy().replace('\\', "/"), text));
        }
    }
    for d in dir.dirs() {
        collect(d, base, out);
    }
}

/// Ids of the embedded domains, sorted.
pub fn domain_ids() -> Vec<String> {
    let mut ids: Vec<String> = DOMAINS
        .dirs()
        .map(|d| d.path().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    ids
}

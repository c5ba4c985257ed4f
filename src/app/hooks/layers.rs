//! The text the hooks inject, layer by layer.
//!
//! - Layer 0 (session start): who the user is (profile, writing style,
//!   preferences, response format), the lessons in force, learnings waiting
//!   for confirmation, and how the workspace is organised.
//! - Layer 1 (a prompt names a domain): that domain's rules and reference index.
//! - Layer 2 (a prompt starts a workflow): the workflow's SOP and references.
//!
//! Injected text is phrased as facts and instructions from the user's own
//! files, with paths, so the agent can read more.

use std::path::Path;

use super::budget::{Section, clean_markdown, demote_headings, drop_empty_sections};
use crate::memory::lessons::Rule;
use crate::memory::lessons::pending::PendingItem;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::domains::{DomainSpec, WorkflowSpec};

/// A file as injected: comments, placeholders and unfilled sections gone,
/// headings nested one level under the section heading.
fn read_clean(path: &Path) -> String {
    std::fs::read_to_string(path)
        .map(|t| demote_headings(&drop_empty_sections(&clean_markdown(&t))))
        .unwrap_or_default()
}

/// Profile, writing style, preferences and response format.
pub fn identity(ws: &Workspace) -> Vec<Section> {
    [
        ("Profile", "profile.md"),
        ("Writing style", "writing-style.md"),
        ("Preferences", "preferences.md"),
        ("Response format", "response-format.md"),
    ]
    .iter()
    .map(|(title, file)| {
        let p = ws.me_file(file);
        Section::from_file(
            *title,
            strip_title(&read_clean(&p)),
            p.display().to_string(),
        )
    })
    .collect()
}

/// The first `# Title` line adds nothing under our own heading.
fn strip_title(text: &str) -> String {
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("## ") && !first.starts_with("### ") => {
            rest.trim_start().to_string()
        }
        _ if text.starts_with("## ") && !text.starts_with("### ") && !text.contains('\n') => {
            String::new()
        }
        _ => text.to_string(),
    }
}

/// The response-format rules, compact, for every prompt (drift prevention):
/// only the rule lines, not the explanations.
pub fn format_rules(ws: &Workspace) -> String {
    let text = read_clean(&ws.me_file("response-format.md"));
    let rules: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("- ")
                || l.starts_with("* ")
                || l.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .collect();
    if rules.is_empty() {
        return String::new();
    }
    format!(
        "Response format (from _me/response-format.md, applies to every answer):\n{}",
        rules.join("\n")
    )
}

/// Titles of the lessons in force.
pub fn lesson_index(ws: &Workspace, rules: &[Rule]) -> Section {
    if rules.is_empty() {
        return Section::new("Lessons in force", "");
    }
    let mut body = format!(
        "{} confirmed lesson(s). Each is a rule to follow whenever it applies; the full text is in the file named.\n",
        rules.len()
    );
    for r in rules {
        let mut scope = if r.scope == "me" {
            "all work".to_string()
        } else {
            format!("{} work", r.scope)
        };
        if r.project.is_some() {
            scope.push_str(", this project");
        }
        if r.guard.is_some() {
            scope.push_str(", enforced before tool calls");
        }
        body.push_str(&format!(
            "- [{}] {} ({scope}; {})\n",
            r.id,
            r.title(),
            r.file
        ));
    }
    Section::from_file(
        "Lessons in force",
        body,
        ws.me_file("lessons.md").display().to_string(),
    )
}

/// Learnings waiting for the user's yes, and exactly how to confirm them:
/// pms's instructions, then the learnings themselves as data (machine
/// extracted from conversations, so never to be obeyed as they stand).
pub fn pending(items: &[PendingItem]) -> Vec<Section> {
    if items.is_empty() {
        return Vec::new();
    }
    let how = format!(
        "Earlier sessions produced {} learning(s) that are not rules yet (below, as data). At a natural pause, show \
them to the user and ask which to keep. Only after the user says yes, promote one with the pms MCP tool \
`lessons_promote` (arguments: id; text: the rule as an imperative; applies_when: 5-10 cues for when it applies; \
optional domain) or tell them to run `pms lessons review`; reject with `lessons_reject`. Never promote without \
the user's explicit yes.\n",
        items.len()
    );
    let mut body = String::new();
    for i in items.iter().take(15) {
        let home = i
            .domain
            .as_deref()
            .map(|d| format!(" → {d}"))
            .unwrap_or_default();
        // Who said it: a rule the user stated outweighs one the agent drew.
        let said = match i.origin {
            Some(crate::memory::lessons::signals::Origin::User) => ", the user said it",
            _ => "",
        };
        body.push_str(&format!(
            "- {} [{}{home}{said}] {}\n",
            i.id,
            i.kind,
            crate::platform::agents::transcript::truncate(&i.text, 240)
        ));
    }
    if items.len() > 15 {
        body.push_str(&format!(
            "- … and {} more (`pms lessons`)\n",
            items.len() - 15
        ));
    }
    vec![
        Section::new("Learnings waiting for confirmation", how),
        Section::data("The learnings (not rules yet)", body),
    ]
}

/// How the workspace is organised, with absolute paths (sessions started
/// outside it do not load its CLAUDE.md).
pub fn guide(ws: &Workspace, domains: &[DomainSpec]) -> Section {
    let root = ws.root.display();
    let mut body = format!(
        "The user's memory workspace is {root}. When you identify the task's domain, read its CLAUDE.md (rules, \
confirmed lessons) and content-index.md (reference material) before working; when you start one of its \
workflows, follow the SOP in its workflows/ folder. Search past conversations and notes with the pms MCP \
tools (memory_search, memory_get).\n"
    );
    for d in domains {
        let wfs: Vec<&str> = d.workflows.iter().map(|w| w.title.as_str()).collect();
        body.push_str(&format!(
            "- {}: {root}/{}/CLAUDE.md — workflows: {}\n",
            d.title,
            d.id,
            wfs.join(", ")
        ));
    }
    Section::new("Workspace", body)
}

/// The domain specs of the workspace (unreadable ones are skipped).
///
/// Parsing eight domain.toml files costs a third of a millisecond on every
/// prompt, so the specs are cached as JSON in `.pms/state/domains.json`,
/// keyed by each file's size and mtime; a changed, added or removed domain
/// refreshes the cache.
pub fn domains(ws: &Workspace) -> Domains {
    let ids = ws.installed_domains();
    let stamps: Vec<(String, String)> = ids
        .iter()
        .map(|d| {
            let stamp = std::fs::metadata(ws.domain_dir(d).join("domain.toml"))
                .map(|m| format!("{}:{:?}", m.len(), m.modified().ok()))
                .unwrap_or_default();
            (d.clone(), stamp)
        })
        .collect();
    let cache_path = ws.session_state_dir().join("domains.json");
    if let Ok(text) = std::fs::read_to_string(&cache_path)
        && let Ok(cache) = serde_json::from_str::<DomainCache>(&text)
        && cache.version == DOMAIN_CACHE_VERSION
        && cache.stamps == stamps
    {
        return cache.domains;
    }
    let specs: Vec<DomainSpec> = ids
        .iter()
        .filter_map(|d| DomainSpec::load(&ws.domain_dir(d)).ok())
        .collect();
    let cache = DomainCache {
        version: DOMAIN_CACHE_VERSION,
        stamps,
        domains: Domains::new(specs),
    };
    if let Ok(text) = serde_json::to_string(&cache) {
        let _ = crate::platform::host::durable::write_atomic_nosync(&cache_path, text.as_bytes());
    }
    cache.domains
}

/// `.pms/state/domains.json`: the installed domains' specs and trigger
/// weights, so that a prompt pays for neither the TOML nor the word table.
#[derive(serde::Serialize, serde::Deserialize)]
struct DomainCache {
    /// [`DOMAIN_CACHE_VERSION`]: a cache made by another version's weighing
    /// is made again, whatever the stamps say.
    version: u32,
    stamps: Vec<(String, String)>,
    domains: Domains,
}

/// Raised when how triggers are weighed changes.
const DOMAIN_CACHE_VERSION: u32 = 1;

/// Score a domain or workflow needs from the triggers a prompt holds: one
/// trigger, or two hints.
const TRIGGER_FLOOR: f64 = 1.0;
/// Weight of a hint, and of a trigger that is an everyday English word.
const HINT: f64 = 0.5;
/// Trigger scores of a prompt that asks what something is or means.
const CONCEPT_QUESTION: f64 = 0.5;

/// Words and phrases with their weights.
type Weighted = Vec<(String, f64)>;

/// The installed domains, with the weight of each trigger and hint.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Domains {
    pub specs: Vec<DomainSpec>,
    /// Per spec: its triggers, hints and its workflows' triggers (the
    /// domain's score), then each workflow's own triggers.
    weights: Vec<(Weighted, Vec<Weighted>)>,
}

impl Domains {
    pub fn new(specs: Vec<DomainSpec>) -> Domains {
        let weighted = |list: &[String], weight: &dyn Fn(&str) -> f64| -> Weighted {
            list.iter().map(|t| (t.to_lowercase(), weight(t))).collect()
        };
        let weights = specs
            .iter()
            .map(|d| {
                let workflows: Vec<Weighted> = d
                    .workflows
                    .iter()
                    .map(|w| weighted(&w.triggers, &trigger_weight))
                    .collect();
                let mut own = weighted(&d.triggers, &trigger_weight);
                own.extend(weighted(&d.hints, &|_| HINT));
                own.extend(workflows.iter().flatten().cloned());
                // One entry per word, with its highest weight.
                own.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
                own.dedup_by(|a, b| a.0 == b.0);
                (own, workflows)
            })
            .collect();
        Domains { specs, weights }
    }

    /// What `prompt` triggers: a domain when the weights of its triggers and
    /// hints found (its workflows' triggers included) reach
    /// [`TRIGGER_FLOOR`], a workflow when its own triggers do. A workflow
    /// implies its domain.
    pub fn triggered(&self, prompt: &str) -> Triggered<'_> {
        let lower = prompt.to_lowercase();
        let damping = if crate::memory::words::asks_what_something_is(prompt) {
            CONCEPT_QUESTION
        } else {
            1.0
        };
        let mut t = Triggered::default();
        for (d, (own, workflows)) in self.specs.iter().zip(&self.weights) {
            // The domain's list holds its workflows' triggers too: each is
            // looked for in the prompt once.
            let found: Vec<&str> = own
                .iter()
                .map(|(w, _)| w.as_str())
                .filter(|w| contains_trigger(&lower, w))
                .collect();
            if found.is_empty() {
                continue;
            }
            let is_found = |w: &str| found.contains(&w);
            for (wf, weights) in d.workflows.iter().zip(workflows) {
                if let Some(word) = decide(weights, is_found, damping) {
                    t.workflows.push((d, wf, word));
                }
            }
            if let Some(word) = decide(own, is_found, damping) {
                t.domains.push((d, word));
            } else if let Some((_, _, word)) = t.workflows.iter().find(|(dd, _, _)| dd.id == d.id) {
                t.domains.push((d, word.clone()));
            }
        }
        t
    }
}

/// The strongest word of `weights` found in the prompt, when those found
/// reach the floor. A word found inside a longer one found ("post" in "blog
/// post") does not count again.
fn decide(
    weights: &[(String, f64)],
    is_found: impl Fn(&str) -> bool,
    damping: f64,
) -> Option<String> {
    let found: Vec<&(String, f64)> = weights.iter().filter(|(w, _)| is_found(w)).collect();
    let counted: Vec<&&(String, f64)> = found
        .iter()
        .filter(|(w, _)| !found.iter().any(|(o, _)| o != w && o.contains(w.as_str())))
        .collect();
    let score: f64 = counted.iter().map(|(_, weight)| weight).sum::<f64>() * damping;
    (score >= TRIGGER_FLOOR)
        .then(|| {
            counted
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1).then(a.0.len().cmp(&b.0.len())))
                .map(|(w, _)| w.clone())
        })
        .flatten()
}

/// How much finding `trigger` in a prompt says about its domain: 1 for a
/// phrase, an acronym ("PRD"), a CJK term, or a word of some specialty;
/// [`HINT`] for one of the ~4,000 most common English words ("code",
/// "test", "draft"), which so often mean something else ("the code for the
/// wifi", "test whether this regex matches").
pub fn trigger_weight(trigger: &str) -> f64 {
    let t = trigger.trim();
    if t.chars().any(crate::memory::words::terms::is_cjk)
        || t.contains(|c: char| c.is_whitespace() || c == '-' || c == '/')
    {
        return 1.0;
    }
    let acronym = t.chars().count() >= 2
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '&');
    let everyday = crate::memory::words::commonness(&crate::memory::words::stem(&t.to_lowercase()))
        == Some(crate::memory::words::Commonness::VeryCommon);
    if everyday && !acronym { HINT } else { 1.0 }
}

/// Layer 1: a domain's rules and reference index.
pub fn domain_sections(ws: &Workspace, d: &DomainSpec, trigger: &str) -> Vec<Section> {
    let dir = ws.domain_dir(&d.id);
    let rules = dir.join("CLAUDE.md");
    let index = dir.join("content-index.md");
    vec![
        Section::from_file(
            format!(
                "{} rules (this request matched \"{trigger}\"; follow them for this task)",
                d.title
            ),
            strip_title(&read_clean(&rules)),
            rules.display().to_string(),
        ),
        Section::from_file(
            format!("{} reference index", d.title),
            strip_title(&read_clean(&index)),
            index.display().to_string(),
        ),
    ]
}

/// Layer 2: a workflow's SOP and references.
///
/// The domain's own `CLAUDE.md` and `content-index.md` are left out when
/// `domain_loaded` (layer 1 already injected them).
pub fn workflow_sections(
    ws: &Workspace,
    d: &DomainSpec,
    wf: &WorkflowSpec,
    trigger: &str,
    domain_loaded: bool,
) -> Vec<Section> {
    let dir = ws.domain_dir(&d.id);
    wf.load
        .iter()
        .filter(|f| !(domain_loaded && matches!(f.as_str(), "CLAUDE.md" | "content-index.md")))
        .enumerate()
        .map(|(i, f)| {
            let p = dir.join(f);
            let title = if i == 0 {
                format!(
                    "Workflow \"{}\" (matched \"{trigger}\"): follow this SOP step by step — {f}",
                    wf.title
                )
            } else {
                format!("Workflow \"{}\" reference — {f}", wf.title)
            };
            Section::from_file(title, strip_title(&read_clean(&p)), p.display().to_string())
        })
        .collect()
}

/// What a prompt triggers: workflows first (they imply their domain).
#[derive(Debug, Default)]
pub struct Triggered<'a> {
    pub domains: Vec<(&'a DomainSpec, String)>,
    pub workflows: Vec<(&'a DomainSpec, &'a WorkflowSpec, String)>,
}

/// Case-insensitive; words of spaced scripts must match whole (so "PR" is
/// not found in "product"); CJK triggers match anywhere.
fn contains_trigger(lower_prompt: &str, trigger: &str) -> bool {
    // [`Domains`] keeps its triggers lower-cased already
    let needle = if trigger.chars().any(char::is_uppercase) {
        std::borrow::Cow::Owned(trigger.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(trigger)
    };
    let needle: &str = &needle;
    if needle.is_empty() {
        return false;
    }
    if needle.chars().any(crate::memory::words::terms::is_cjk) {
        return lower_prompt.contains(needle);
    }
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    // Every occurrence, overlapping ones too: "x-x" is whole in "ax-x-x"
    // only at 3. `find` keeps this fast on every prompt.
    let mut from = 0;
    while let Some(pos) = lower_prompt[from..].find(needle) {
        let at = from + pos;
        let before = lower_prompt[..at].chars().next_back();
        let after = lower_prompt[at + needle.len()..].chars().next();
        if boundary(before) && boundary(after) {
            return true;
        }
        from = at + lower_prompt[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_match_whole_words_and_cjk() {
        assert!(contains_trigger("please write a prd for sso", "PRD"));
        assert!(!contains_trigger("the product team", "PRD"));
        assert!(contains_trigger("帮我写一份需求文档", "需求文档"));
        assert!(contains_trigger("a/b test plan", "A/B test"));
        assert!(!contains_trigger("", "x"));
        assert!(
            contains_trigger("ax-x-x", "x-x"),
            "an overlapping later match"
        );
        assert!(!contains_trigger("prds and prdx", "prd"));
    }

    #[test]
    fn a_workflow_trigger_loads_its_domain() {
        let domains = Domains::new(crate::platform::workspace::domains::catalog());
        let t = domains.triggered("Can you write a PRD for usage-based pricing?");
        assert!(
            t.workflows
                .iter()
                .any(|(d, w, _)| d.id == "product" && w.name == "prd")
        );
        assert!(t.domains.iter().any(|(d, _)| d.id == "product"));
        let t = domains.triggered("帮我做一个竞品分析");
        assert!(
            t.domains.iter().any(|(d, _)| d.id == "competitors"),
            "{:?}",
            t.domains.iter().map(|x| &x.0.id).collect::<Vec<_>>()
        );
        let t = domains.triggered("thanks!");
        assert!(t.domains.is_empty() && t.workflows.is_empty());
    }

    #[test]
    fn one_everyday_word_loads_nothing_a_phrase_or_jargon_does() {
        let domains = Domains::new(crate::platform::workspace::domains::catalog());
        let ids = |p: &str| -> Vec<String> {
            domains
                .triggered(p)
                .domains
                .iter()
                .map(|(d, _)| d.id.clone())
                .collect()
        };
        assert!(ids("what are the specs of the M3 MacBook?").is_empty());
        assert!(ids("the app crashes on launch").is_empty());
        assert!(ids("kill the process on port 3000").is_empty());
        assert_eq!(ids("draft a PRD for offline mode"), ["product"]);
        assert_eq!(ids("Draft Q3 OKRs for the support team"), ["operations"]);
        assert!(ids("what database does Discord use? I saw a blog post about it").is_empty());
        assert_eq!(trigger_weight("code"), HINT);
        assert_eq!(trigger_weight("PRD"), 1.0);
        assert_eq!(trigger_weight("需求文档"), 1.0);
    }
}

//! Merging pms's hooks into a Claude Code `settings.json`, and taking them
//! out again.
//!
//! The file belongs to the user and to Claude Code, so the merge only ever
//! touches handlers that are recognisably ours (a `command` whose program is
//! the pms binary and whose first argument is `hook`). Everything else (other
//! keys, other tools' hooks, array order, key order) stays where it was.
//! Merging is idempotent, a handler of ours that points at an old binary is
//! replaced in place, and [`remove_hooks`] undoes [`merge_hooks`] exactly,
//! using the [`CreatedContainers`] record to know which empty containers it
//! made itself and how the empty ones it filled were written
//! ([`merge_hooks_into`] and [`remove_hooks_from`] do both on a file).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::platform::agents::json_file::{EmptyLayouts, JsonFile};

/// One Claude Code event pms listens to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// The key in `settings.json` and `hook_event_name` on stdin.
    pub name: &'static str,
    /// The argument to `pms hook`.
    pub arg: &'static str,
    /// Seconds Claude Code waits before killing the hook.
    pub timeout_secs: u32,
    /// The tools the hook is for (tool events only): a group pms creates
    /// carries it, so that Read, Grep or an MCP tool never starts pms.
    pub matcher: Option<&'static str>,
}

/// The tools that run a command or write a file, in Claude Code's names
/// and Codex's (`apply_patch`; its `Edit` and `Write` aliases select it too).
pub const TOOL_MATCHER: &str = "Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch";

/// The events pms handles, with explicit timeouts. SessionEnd's is what
/// raises Claude Code's 1.5 s default budget for session-end hooks. The
/// tool events come last; PostToolUseFailure is Claude Code's alone.
pub const HOOK_EVENTS: [HookEvent; 8] = [
    HookEvent {
        name: "SessionStart",
        arg: "session-start",
        timeout_secs: 10,
        matcher: None,
    },
    HookEvent {
        name: "UserPromptSubmit",
        arg: "user-prompt",
        timeout_secs: 5,
        matcher: None,
    },
    HookEvent {
        name: "Stop",
        arg: "stop",
        timeout_secs: 5,
        matcher: None,
    },
    HookEvent {
        name: "PreCompact",
        arg: "pre-compact",
        timeout_secs: 30,
        matcher: None,
    },
    HookEvent {
        name: "SessionEnd",
        arg: "session-end",
        timeout_secs: 10,
        matcher: None,
    },
    HookEvent {
        name: "PreToolUse",
        arg: "pre-tool-use",
        timeout_secs: 5,
        matcher: Some(TOOL_MATCHER),
    },
    HookEvent {
        name: "PostToolUse",
        arg: "post-tool-use",
        timeout_secs: 5,
        matcher: Some(TOOL_MATCHER),
    },
    HookEvent {
        name: "PostToolUseFailure",
        arg: "post-tool-use",
        timeout_secs: 5,
        matcher: Some(TOOL_MATCHER),
    },
];

/// The matcher pms gives a group it creates for `event`.
pub fn matcher_for(event: &str) -> Option<&'static str> {
    HOOK_EVENTS
        .iter()
        .find(|e| e.name == event)
        .and_then(|e| e.matcher)
}

/// The command a hook runs: this binary, in exec form (no shell, so paths
/// with spaces or quotes need no escaping), told where the workspace is.
pub fn pms_handler(binary: &Path, workspace: &Path, event: &HookEvent) -> Value {
    json!({
        "type": "command",
        "command": binary.to_string_lossy(),
        "args": ["hook", event.arg, "--workspace", workspace.to_string_lossy()],
        "timeout": event.timeout_secs,
    })
}

/// The handlers for every event, ready for [`merge_hooks`].
pub fn pms_handlers(binary: &Path, workspace: &Path) -> Vec<(&'static str, Value)> {
    HOOK_EVENTS
        .iter()
        .map(|e| (e.name, pms_handler(binary, workspace, e)))
        .collect()
}

/// True for a handler that runs `pms hook ...`, in exec or shell form,
/// whatever directory the binary was in.
pub fn is_pms_handler(handler: &Value) -> bool {
    let Some(obj) = handler.as_object() else {
        return false;
    };
    if obj.get("type").and_then(Value::as_str).unwrap_or("command") != "command" {
        return false;
    }
    let Some(command) = obj.get("command").and_then(Value::as_str) else {
        return false;
    };
    match obj.get("args").and_then(Value::as_array) {
        Some(args) => {
            is_pms_program(command) && args.first().and_then(Value::as_str) == Some("hook")
        }
        None => {
            let (program, rest) = first_shell_word(command);
            is_pms_program(program) && rest.split_whitespace().next() == Some("hook")
        }
    }
}

/// The program of a shell command line, honouring one level of quotes
/// (`"/Applications/My Tools/pms" hook stop`), and the rest of the line.
fn first_shell_word(command: &str) -> (&str, &str) {
    let command = command.trim_start();
    for quote in ['"', '\''] {
        if let Some(rest) = command.strip_prefix(quote) {
            return match rest.find(quote) {
                Some(end) => (&rest[..end], &rest[end + 1..]),
                None => (rest, ""),
            };
        }
    }
    match command.find(char::is_whitespace) {
        Some(i) => (&command[..i], &command[i..]),
        None => (command, ""),
    }
}

fn is_pms_program(program: &str) -> bool {
    Path::new(program)
        .file_name()
        .map(|n| n == "pms" || n == "pms.exe")
        .unwrap_or(false)
}

/// Containers (the `hooks` object, event arrays) that a merge created. Kept
/// in the install record so that uninstall removes them and nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedContainers {
    #[serde(default)]
    pub hooks_key: bool,
    #[serde(default)]
    pub events: Vec<String>,
    /// The user's empty containers the merge filled, as they were written
    /// when not `{}` or `[]` (`"hooks": {\n  }`): uninstall, emptying them
    /// again, writes them so. Set by [`merge_hooks_into`], which sees the
    /// text; [`merge_hooks`] sees only the document.
    #[serde(default, skip_serializing_if = "EmptyLayouts::is_empty")]
    pub empty_layouts: EmptyLayouts,
}

impl CreatedContainers {
    /// What an earlier merge into the same file recorded and this one adds:
    /// together, what the file was before the first.
    pub fn merged(&self, earlier: &CreatedContainers) -> CreatedContainers {
        let mut events = earlier.events.clone();
        for e in &self.events {
            if !events.contains(e) {
                events.push(e.clone());
            }
        }
        CreatedContainers {
            hooks_key: self.hooks_key || earlier.hooks_key,
            events,
            empty_layouts: earlier.empty_layouts.merged(&self.empty_layouts),
        }
    }
}

/// What a merge did, for the user and for the install record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    pub added: Vec<String>,
    pub replaced: Vec<String>,
    pub unchanged: Vec<String>,
    pub duplicates_removed: usize,
    pub created: CreatedContainers,
}

impl MergeReport {
    pub fn changed(&self) -> bool {
        !self.added.is_empty() || !self.replaced.is_empty() || self.duplicates_removed > 0
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error(
        "{path}: \"hooks\" is {found}, but Claude Code expects an object of events.\n  pms changed nothing. Fix: make \"hooks\" an object (or remove it) and run the command again."
    )]
    HooksNotObject { path: PathBuf, found: String },
    #[error(
        "{path}: \"hooks.{event}\" is {found}, but Claude Code expects an array of matcher groups.\n  pms changed nothing. Fix: make it an array (or remove it) and run the command again."
    )]
    EventNotArray {
        path: PathBuf,
        event: String,
        found: String,
    },
}

/// Checks that `doc` has a shape the merge can work on, without changing it.
pub fn check_shape(doc: &Value, path: &Path) -> Result<(), MergeError> {
    let Some(hooks) = doc.get("hooks") else {
        return Ok(());
    };
    let Some(hooks) = hooks.as_object() else {
        return Err(MergeError::HooksNotObject {
            path: path.to_path_buf(),
            found: describe(hooks),
        });
    };
    for e in HOOK_EVENTS {
        if let Some(v) = hooks.get(e.name)
            && !v.is_array()
        {
            return Err(MergeError::EventNotArray {
                path: path.to_path_buf(),
                event: e.name.into(),
                found: describe(v),
            });
        }
    }
    Ok(())
}

/// Adds `handlers` (event name, handler) to the settings document `doc`.
///
/// For each event: if a handler of ours is already there it is updated in
/// place (and any second copy dropped); otherwise a new matcher group holding
/// only our handler is appended after the user's groups.
pub fn merge_hooks(
    doc: &mut Value,
    path: &Path,
    handlers: &[(&str, Value)],
) -> Result<MergeReport, MergeError> {
    check_shape(doc, path)?;
    let root = doc.as_object_mut().expect("settings root is an object");
    let mut report = MergeReport::default();
    if !root.contains_key("hooks") {
        root.insert("hooks".into(), Value::Object(Map::new()));
        report.created.hooks_key = true;
    }
    let hooks = root
        .get_mut("hooks")
        .and_then(Value::as_object_mut)
        .expect("checked above");
    for (event, handler) in handlers {
        if !hooks.contains_key(*event) {
            hooks.insert((*event).to_string(), Value::Array(Vec::new()));
            report.created.events.push((*event).to_string());
        }
        let groups = hooks
            .get_mut(*event)
            .and_then(Value::as_array_mut)
            .expect("checked above");
        merge_event(groups, event, handler, &mut report);
    }
    Ok(report)
}

/// [`merge_hooks`] on a file's document, recording how the empty
/// containers it fills were written.
pub fn merge_hooks_into(
    file: &mut JsonFile,
    handlers: &[(&str, Value)],
) -> Result<MergeReport, MergeError> {
    let path = file.path.clone();
    let mut report = merge_hooks(&mut file.doc, &path, handlers)?;
    report.created.empty_layouts = file.filled_empties();
    Ok(report)
}

fn merge_event(groups: &mut Vec<Value>, event: &str, handler: &Value, report: &mut MergeReport) {
    let positions = pms_positions(groups);
    let Some(&(g0, h0)) = positions.first() else {
        groups.push(match matcher_for(event) {
            Some(m) => json!({ "matcher": m, "hooks": [handler.clone()] }),
            None => json!({ "hooks": [handler.clone()] }),
        });
        report.added.push(event.to_string());
        return;
    };
    let slot = &mut groups[g0]["hooks"][h0];
    if slot == handler {
        report.unchanged.push(event.to_string());
    } else {
        *slot = handler.clone();
        report.replaced.push(event.to_string());
    }
    // Drop later copies, back to front so earlier indices stay valid.
    for &(g, h) in positions[1..].iter().rev() {
        remove_handler(groups, g, h);
        report.duplicates_removed += 1;
    }
}

/// (group index, handler index) of every pms handler in an event's groups.
fn pms_positions(groups: &[Value]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (gi, group) in groups.iter().enumerate() {
        if let Some(hs) = group.get("hooks").and_then(Value::as_array) {
            for (hi, h) in hs.iter().enumerate() {
                if is_pms_handler(h) {
                    out.push((gi, hi));
                }
            }
        }
    }
    out
}

/// Removes one handler; a group left with no handlers goes too.
fn remove_handler(groups: &mut Vec<Value>, g: usize, h: usize) {
    let empty = {
        let hs = groups[g]["hooks"]
            .as_array_mut()
            .expect("positions point at arrays");
        hs.remove(h);
        hs.is_empty()
    };
    if empty {
        groups.remove(g);
    }
}

/// What [`remove_hooks`] took out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemoveReport {
    pub removed: usize,
}

/// Removes every pms handler from `doc`. An event array or the `hooks` object
/// left empty by the removal is deleted when `created` says the merge made it
/// (or, with no record, always: an empty container of ours is noise).
pub fn remove_hooks(doc: &mut Value, created: Option<&CreatedContainers>) -> RemoveReport {
    let mut report = RemoveReport::default();
    let Some(root) = doc.as_object_mut() else {
        return report;
    };
    let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) else {
        return report;
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let positions = pms_positions(groups);
        if positions.is_empty() {
            continue;
        }
        for &(g, h) in positions.iter().rev() {
            remove_handler(groups, g, h);
            report.removed += 1;
        }
        let ours = created.is_none_or(|c| c.events.iter().any(|e| e == event));
        if groups.is_empty() && ours {
            emptied_events.push(event.clone());
        }
    }
    for e in &emptied_events {
        hooks.shift_remove(e);
    }
    let hooks_ours = created.is_none_or(|c| c.hooks_key);
    if hooks.is_empty() && report.removed > 0 && hooks_ours {
        root.shift_remove("hooks");
    }
    report
}

/// [`remove_hooks`] on a file's document; the containers it empties are
/// written as `created` says they were before the merge.
pub fn remove_hooks_from(file: &mut JsonFile, created: Option<&CreatedContainers>) -> RemoveReport {
    if let Some(c) = created {
        file.restore_empties(&c.empty_layouts);
    }
    remove_hooks(&mut file.doc, created)
}

/// Reads which of our events are wired in `doc`, and to what binary.
pub fn installed_handlers(doc: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if let Some(hooks) = doc.get("hooks").and_then(Value::as_object) {
        for (event, groups) in hooks {
            if let Some(groups) = groups.as_array() {
                for (g, h) in pms_positions(groups) {
                    out.push((event.clone(), groups[g]["hooks"][h].clone()));
                }
            }
        }
    }
    out
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handlers(bin: &str) -> Vec<(&'static str, Value)> {
        pms_handlers(Path::new(bin), Path::new("/home/u/pms"))
    }

    #[test]
    fn merge_into_empty_adds_every_event() {
        let mut doc = json!({});
        let r = merge_hooks(&mut doc, Path::new("s"), &handlers("/bin/pms")).unwrap();
        assert_eq!(r.added.len(), HOOK_EVENTS.len());
        assert!(r.created.hooks_key);
        // the tool events only for the tools that run or write
        assert_eq!(doc["hooks"]["PreToolUse"][0]["matcher"], TOOL_MATCHER);
        assert_eq!(
            doc["hooks"]["PostToolUseFailure"][0]["hooks"][0]["args"][1],
            "post-tool-use"
        );
        assert!(doc["hooks"]["SessionStart"][0].get("matcher").is_none());
        let start = &doc["hooks"]["SessionStart"][0]["hooks"][0];
        assert_eq!(start["command"], "/bin/pms");
        assert_eq!(
            start["args"],
            json!(["hook", "session-start", "--workspace", "/home/u/pms"])
        );
        assert_eq!(doc["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 10);
    }

    #[test]
    fn other_tools_hooks_and_keys_stay_in_order() {
        let mut doc = json!({
            "model": "opus",
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
            "theme": "dark"
        });
        merge_hooks(&mut doc, Path::new("s"), &handlers("/bin/pms")).unwrap();
        let keys: Vec<_> = doc.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "hooks", "theme"]);
        let stop = doc["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
        assert!(is_pms_handler(&stop[1]["hooks"][0]));
    }

    #[test]
    fn merging_twice_adds_nothing() {
        let mut doc = json!({"hooks": {}});
        merge_hooks(&mut doc, Path::new("s"), &handlers("/bin/pms")).unwrap();
        let once = doc.clone();
        let r = merge_hooks(&mut doc, Path::new("s"), &handlers("/bin/pms")).unwrap();
        assert!(!r.changed());
        assert_eq!(doc, once);
    }

    #[test]
    fn stale_binary_is_replaced_in_place() {
        let mut doc = json!({});
        merge_hooks(&mut doc, Path::new("s"), &handlers("/old/pms")).unwrap();
        doc["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(json!({"hooks": [{"type": "command", "command": "other"}]}));
        let r = merge_hooks(&mut doc, Path::new("s"), &handlers("/new/pms")).unwrap();
        assert_eq!(r.replaced.len(), HOOK_EVENTS.len());
        let stop = doc["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "/new/pms");
        assert_eq!(stop[1]["hooks"][0]["command"], "other");
    }

    #[test]
    fn shell_form_copies_from_older_installs_are_deduplicated() {
        let mut doc = json!({"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "/a/pms hook stop"}]},
            {"hooks": [{"type": "command", "command": "\"/b c/pms\" hook stop --workspace x"}]}
        ]}});
        let r = merge_hooks(&mut doc, Path::new("s"), &handlers("/bin/pms")).unwrap();
        assert_eq!(r.duplicates_removed, 1);
        assert_eq!(doc["hooks"]["Stop"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn lookalikes_are_not_ours() {
        assert!(!is_pms_handler(
            &json!({"type": "command", "command": "/bin/pmsx", "args": ["hook"]})
        ));
        assert!(!is_pms_handler(
            &json!({"type": "command", "command": "pms index"})
        ));
        assert!(!is_pms_handler(
            &json!({"type": "http", "command": "/bin/pms", "args": ["hook"]})
        ));
        assert!(is_pms_handler(
            &json!({"command": "/x/pms", "args": ["hook", "stop"]})
        ));
    }

    #[test]
    fn wrong_shapes_are_refused_untouched() {
        let mut doc = json!({"hooks": []});
        let before = doc.clone();
        let err = merge_hooks(&mut doc, Path::new("/s.json"), &handlers("/p/pms")).unwrap_err();
        assert!(matches!(err, MergeError::HooksNotObject { .. }));
        assert_eq!(doc, before);
        let mut doc = json!({"hooks": {"Stop": {"hooks": []}}});
        let err = merge_hooks(&mut doc, Path::new("/s.json"), &handlers("/p/pms")).unwrap_err();
        assert!(err.to_string().contains("hooks.Stop"));
    }

    #[test]
    fn remove_restores_the_original() {
        let original = json!({"a": 1, "hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": []}]}});
        let mut doc = original.clone();
        let r = merge_hooks(&mut doc, Path::new("s"), &handlers("/p/pms")).unwrap();
        remove_hooks(&mut doc, Some(&r.created));
        assert_eq!(doc, original);
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            serde_json::to_string(&original).unwrap()
        );
    }
}

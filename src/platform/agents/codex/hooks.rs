//! pms's hooks in Codex's `$CODEX_HOME/hooks.json`, and whether Codex
//! trusts them.
//!
//! The file has Claude Code's shape (`{"hooks": {"SessionStart": [{"hooks":
//! [{"type": "command", "command": ..., "timeout": N}]}]}}`), so the merge
//! is [`crate::platform::agents::claude::settings`]'s: the user's entries kept, ours updated
//! in place, idempotent, saved by editing the text (backup, atomic). Two
//! differences, both checked against Codex 0.169.0: Codex ignores `args`
//! and runs `command` through the shell, so ours is one quoted command
//! line; and it clamps a SessionEnd hook to 3 seconds (with a warning on
//! every run if more is asked), so ours asks for 3.
//!
//! Trust: Codex runs a hook from the user's files only once the user has
//! reviewed it (`/hooks` in the TUI, or the "Hooks need review" prompt at
//! start-up), and records that as `[hooks.state."<key>"] trusted_hash =
//! "sha256:…"` in `config.toml`. The key is `<hooks.json path>:<event in
//! snake case>:<group index>:<handler index>`; the hash is the SHA-256 of
//! the handler's normalised identity (below). pms never writes that entry;
//! it computes the hash only to tell the user whether the step is still to
//! do ([`trust`]). The computation is Codex's `command_hook_hash`
//! (codex-rs/hooks/src/engine/discovery.rs) and was checked against the
//! real CLI: `codex app-server`'s `hooks/list` reports the same
//! `currentHash` (tests/e2e_codex.rs).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::platform::agents::claude::settings::{self, HookEvent};

/// The events pms handles, with the timeouts written for Codex: Claude
/// Code's, but SessionEnd's at 3 s, since Codex 0.169.0 clamps SessionEnd
/// hooks to that ("warning: clamping SessionEnd hook timeout to 3s") on
/// every run that asks for more; and without PostToolUseFailure, which
/// Codex does not have (a failed command fires PostToolUse there).
pub const CODEX_EVENTS: [HookEvent; 7] = {
    let all = settings::HOOK_EVENTS;
    let mut events = [all[0], all[1], all[2], all[3], all[4], all[5], all[6]];
    // SessionEnd is the fifth, PostToolUseFailure the last (a test checks it).
    events[4].timeout_secs = 3;
    events
};

/// `$CODEX_HOME/hooks.json`.
pub fn hooks_path(codex_home: &Path) -> PathBuf {
    codex_home.join("hooks.json")
}

/// `s` as one shell word: as it is when it needs no quoting, else in single
/// quotes (a `'` inside becomes `'\''`).
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./,:@%+=".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The command line a Codex hook runs.
pub fn command_line(binary: &Path, workspace: &Path, event: &HookEvent) -> String {
    format!(
        "{} hook {} --workspace {} --agent codex",
        shell_word(&binary.to_string_lossy()),
        event.arg,
        shell_word(&workspace.to_string_lossy())
    )
}

/// One handler as written to hooks.json.
pub fn handler(binary: &Path, workspace: &Path, event: &HookEvent) -> Value {
    json!({
        "type": "command",
        "command": command_line(binary, workspace, event),
        "timeout": event.timeout_secs,
    })
}

/// Every handler, ready for [`settings::merge_hooks`].
pub fn handlers(binary: &Path, workspace: &Path) -> Vec<(&'static str, Value)> {
    CODEX_EVENTS
        .iter()
        .map(|e| (e.name, handler(binary, workspace, e)))
        .collect()
}

/// `SessionStart` → `session_start`: how Codex names an event in trust keys
/// and hashes.
pub fn event_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The trust key of the handler at (`group`, `index`) of `event` in the
/// hooks file at `path`.
pub fn trust_key(path: &Path, event: &str, group: usize, index: usize) -> String {
    format!("{}:{}:{group}:{index}", path.display(), event_label(event))
}

/// Codex's hash of a command handler: SHA-256 of the compact JSON, keys
/// sorted, of `{"event_name", "hooks": [handler], "matcher"?}` where the
/// handler is normalised to `type`, `command`, `timeout` (600 when absent),
/// `async` (false when absent) and `statusMessage` (when set). Events that
/// take no matcher (UserPromptSubmit, Stop) are hashed without one.
pub fn trust_hash(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    let mut h = Map::new(); // inserted in sorted key order (preserve_order)
    h.insert(
        "async".into(),
        Value::Bool(handler.get("async").and_then(Value::as_bool) == Some(true)),
    );
    h.insert(
        "command".into(),
        handler.get("command").cloned().unwrap_or(Value::Null),
    );
    if let Some(m) = handler.get("statusMessage").filter(|m| m.is_string()) {
        h.insert("statusMessage".into(), m.clone());
    }
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600)
        .max(1);
    h.insert("timeout".into(), Value::from(timeout));
    h.insert("type".into(), Value::String("command".into()));
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::String(event_label(event)));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(h)]));
    if let Some(m) = matcher.filter(|_| !matches!(event, "UserPromptSubmit" | "Stop")) {
        identity.insert("matcher".into(), Value::String(m.into()));
    }
    let bytes = serde_json::to_vec(&Value::Object(identity)).expect("a Value serialises");
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// What Codex would say about one of pms's hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Reviewed, and unchanged since.
    Trusted,
    /// Never reviewed: Codex skips it.
    Untrusted,
    /// Reviewed, but its definition changed since (a new binary path):
    /// Codex skips it until it is reviewed again.
    Modified,
    /// Turned off by the user in `/hooks`.
    Disabled,
}

/// pms's handlers in a hooks document: (event, matcher, group, index, handler).
pub fn located_handlers(doc: &Value) -> Vec<(String, Option<String>, usize, usize, Value)> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for (gi, group) in groups.iter().enumerate() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(hs) = group.get("hooks").and_then(Value::as_array) {
                for (hi, h) in hs.iter().enumerate() {
                    if settings::is_pms_handler(h) {
                        out.push((event.clone(), matcher.clone(), gi, hi, h.clone()));
                    }
                }
            }
        }
    }
    out
}

/// The trust of each pms handler in the hooks file at `hooks_path`, given
/// the `[hooks.state]` entries of Codex's config (`state`: key → (enabled,
/// trusted_hash)).
pub fn trust(
    hooks_path: &Path,
    doc: &Value,
    state: &std::collections::HashMap<String, (Option<bool>, Option<String>)>,
) -> Vec<(String, Trust)> {
    located_handlers(doc)
        .into_iter()
        .map(|(event, matcher, g, i, h)| {
            let key = trust_key(hooks_path, &event, g, i);
            let want = trust_hash(&event, matcher.as_deref(), &h);
            let verdict = match state.get(&key) {
                Some((Some(false), _)) => Trust::Disabled,
                Some((_, Some(hash))) if *hash == want => Trust::Trusted,
                Some((_, Some(_))) => Trust::Modified,
                _ => Trust::Untrusted,
            };
            (event, verdict)
        })
        .collect()
}

/// The trust keys of pms's handlers in `doc` (what uninstall clears from
/// `[hooks.state]` along with the hooks).
pub fn pms_trust_keys(hooks_path: &Path, doc: &Value) -> Vec<String> {
    located_handlers(doc)
        .into_iter()
        .map(|(event, _, g, i, _)| trust_key(hooks_path, &event, g, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_session_end_is_clamped_to_three_seconds() {
        assert_eq!(CODEX_EVENTS[4].name, "SessionEnd");
        assert_eq!(CODEX_EVENTS[4].timeout_secs, 3);
        assert_eq!(CODEX_EVENTS[..4], settings::HOOK_EVENTS[..4]);
        assert_eq!(CODEX_EVENTS[5..], settings::HOOK_EVENTS[5..7]);
        assert_eq!(settings::HOOK_EVENTS[7].name, "PostToolUseFailure");
    }

    #[test]
    fn hashes_match_what_codex_0_169_reported() {
        // `codex app-server` hooks/list, currentHash, for these two entries.
        let h =
            json!({"type":"command","command":"/tmp/agents-exp/dump.sh SessionStart","timeout":10});
        assert_eq!(
            trust_hash("SessionStart", None, &h),
            "sha256:3e53f104f8593c7b29da60e83c2c298baa2c48c44f40d3c74d8e86c6a24988bb"
        );
        let h =
            json!({"type":"command","command":"/tmp/agents-exp/dump.sh SessionEnd","timeout":3});
        assert_eq!(
            trust_hash("SessionEnd", Some("x"), &h),
            "sha256:e759dc6c6e62c5a68044d4d4c46103a2a4a8c76686d4cdd1c4ca1187a60a446c"
        );
        assert_eq!(
            trust_key(Path::new("/h/.codex/hooks.json"), "UserPromptSubmit", 1, 0),
            "/h/.codex/hooks.json:user_prompt_submit:1:0"
        );
    }

    #[test]
    fn command_lines_quote_what_the_shell_would_split() {
        let e = &CODEX_EVENTS[1];
        assert_eq!(
            command_line(Path::new("/usr/bin/pms"), Path::new("/home/u/pms"), e),
            "/usr/bin/pms hook user-prompt --workspace /home/u/pms --agent codex"
        );
        let line = command_line(
            Path::new("/Apps/My Tools/pms"),
            Path::new("/home/u/it's mine"),
            e,
        );
        assert_eq!(
            line,
            r"'/Apps/My Tools/pms' hook user-prompt --workspace '/home/u/it'\''s mine' --agent codex"
        );
        assert!(settings::is_pms_handler(
            &json!({"type":"command","command": line})
        ));
    }

    #[test]
    fn trust_follows_the_state_entries() {
        let path = Path::new("/h/.codex/hooks.json");
        let mut doc =
            json!({"hooks": {"Stop": [{"hooks": [{"type":"command","command":"notify"}]}]}});
        settings::merge_hooks(
            &mut doc,
            path,
            &handlers(Path::new("/b/pms"), Path::new("/w")),
        )
        .unwrap();
        let start = doc["hooks"]["SessionStart"][0]["hooks"][0].clone();
        let mut state = std::collections::HashMap::new();
        state.insert(
            trust_key(path, "SessionStart", 0, 0),
            (None, Some(trust_hash("SessionStart", None, &start))),
        );
        state.insert(
            trust_key(path, "Stop", 1, 0),
            (None, Some("sha256:00".to_string())),
        );
        state.insert(trust_key(path, "PreCompact", 0, 0), (Some(false), None));
        let got: std::collections::HashMap<String, Trust> =
            trust(path, &doc, &state).into_iter().collect();
        assert_eq!(got["SessionStart"], Trust::Trusted);
        assert_eq!(got["Stop"], Trust::Modified);
        assert_eq!(got["PreCompact"], Trust::Disabled);
        assert_eq!(got["UserPromptSubmit"], Trust::Untrusted);
    }
}

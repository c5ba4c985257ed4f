//! The hook contract: one JSON object on stdin, at most one JSON object on
//! stdout.
//!
//! Input is read leniently. Claude Code adds fields almost every release and
//! a field of an unexpected type must not cost us the rest, so the payload is
//! parsed as a `Value` and each field picked out by hand. Stdin is read with
//! a deadline because at SessionEnd it is not guaranteed to close.

use std::io::{Read, Write};
use std::time::Duration;

use serde_json::{Value, json};

/// The fields pms uses, all optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    pub hook_event_name: Option<String>,
    /// SessionStart: startup | resume | clear | compact | fork.
    pub source: Option<String>,
    /// UserPromptSubmit.
    pub prompt: Option<String>,
    /// Stop / SubagentStop.
    pub last_assistant_message: Option<String>,
    pub stop_hook_active: bool,
    /// PreCompact: manual | auto.
    pub trigger: Option<String>,
    /// SessionEnd: clear | resume | logout | prompt_input_exit | other.
    pub reason: Option<String>,
    pub agent_id: Option<String>,
    /// PreToolUse / PostToolUse: the tool (`Bash`, `Edit`, `apply_patch`).
    pub tool_name: Option<String>,
    /// Its input (`{"command": …}`, `{"file_path", "new_string", …}`).
    pub tool_input: Value,
    /// PostToolUse: what it returned (an object in Claude Code, a string in
    /// Codex).
    pub tool_response: Value,
    /// PostToolUseFailure: `"Exit code N\n<output>"` or the tool's error.
    pub error: Option<String>,
    /// PreToolUse / PostToolUse: the call's id (Codex: the `call_id` its
    /// rollout records the call under).
    pub tool_use_id: Option<String>,
    /// PostToolUseFailure: the user stopped the call (nothing failed).
    pub is_interrupt: bool,
}

impl HookInput {
    pub fn from_json(text: &str) -> HookInput {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => Self::from_value(&v),
            Err(_) => HookInput::default(),
        }
    }

    /// The session this event belongs to: the payload's id, else Claude
    /// Code's environment variable, else "unknown".
    pub fn session_id(&self) -> String {
        self.session_id
            .clone()
            .or_else(|| std::env::var("CLAUDE_CODE_SESSION_ID").ok())
            .unwrap_or_else(|| "unknown".into())
    }

    /// The payload's transcript path.
    pub fn transcript(&self) -> Option<&std::path::Path> {
        self.transcript_path.as_deref().map(std::path::Path::new)
    }

    pub fn from_value(v: &Value) -> HookInput {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        HookInput {
            session_id: s("session_id"),
            transcript_path: s("transcript_path"),
            cwd: s("cwd"),
            hook_event_name: s("hook_event_name"),
            source: s("source"),
            prompt: s("prompt"),
            last_assistant_message: s("last_assistant_message"),
            stop_hook_active: v
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            trigger: s("trigger"),
            reason: s("reason"),
            agent_id: s("agent_id"),
            tool_name: s("tool_name"),
            tool_input: v.get("tool_input").cloned().unwrap_or(Value::Null),
            tool_response: v.get("tool_response").cloned().unwrap_or(Value::Null),
            error: s("error"),
            tool_use_id: s("tool_use_id"),
            is_interrupt: v
                .get("is_interrupt")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// Reads stdin to EOF, or gives up after `deadline` with what it has.
///
/// Uses `poll(2)` rather than a reader thread: on the per-prompt path a
/// thread's start and join cost about half a millisecond of scheduling on a
/// busy machine, and the deadline is only ever needed when Claude Code keeps
/// the pipe open (seen at SessionEnd).
pub fn read_stdin_with_deadline(deadline: Duration) -> String {
    use std::os::fd::AsRawFd;
    let stdin = std::io::stdin();
    let fd = stdin.as_raw_fd();
    let end = std::time::Instant::now() + deadline;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let left = end.saturating_duration_since(std::time::Instant::now());
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        let ready =
            unsafe { libc::poll(&mut pfd, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if ready <= 0 {
            break; // timed out (or poll failed): go on with what we have
        }
        match stdin.lock().read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                // Cap what we accept: a hook payload is small, a runaway pipe is not.
                if buf.len() > 16 << 20 {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// `{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}`,
/// the only form in which SessionStart and UserPromptSubmit context reaches
/// the model as structured output.
pub fn additional_context(event_name: &str, text: &str) -> Value {
    json!({
        "hookSpecificOutput": {
            "hookEventName": event_name,
            "additionalContext": text,
        }
    })
}

/// Writes one JSON object and a newline to stdout. A closed stdout is not an
/// error worth failing a hook for (`println!` would panic).
pub fn write_json(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer(&mut out, v);
    let _ = writeln!(out);
    let _ = out.flush();
}

/// The events pms handles, by their `pms hook <event>` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    SessionStart,
    UserPrompt,
    Stop,
    PreCompact,
    SessionEnd,
    /// Before a tool call (PreToolUse).
    PreToolUse,
    /// After one (PostToolUse, and PostToolUseFailure when it failed).
    PostToolUse,
}

impl Event {
    pub const ALL: [Event; 7] = [
        Event::SessionStart,
        Event::UserPrompt,
        Event::Stop,
        Event::PreCompact,
        Event::SessionEnd,
        Event::PreToolUse,
        Event::PostToolUse,
    ];

    pub fn parse(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == name)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Event::SessionStart => "session-start",
            Event::UserPrompt => "user-prompt",
            Event::Stop => "stop",
            Event::PreCompact => "pre-compact",
            Event::SessionEnd => "session-end",
            Event::PreToolUse => "pre-tool-use",
            Event::PostToolUse => "post-tool-use",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_and_unknown_fields_are_tolerated() {
        let h = HookInput::from_json(
            r#"{"session_id":"s1","prompt":42,"cwd":"/w","new_field":{"x":1},"stop_hook_active":"yes"}"#,
        );
        assert_eq!(h.session_id.as_deref(), Some("s1"));
        assert_eq!(h.prompt, None);
        assert_eq!(h.cwd.as_deref(), Some("/w"));
        assert!(!h.stop_hook_active);
    }

    #[test]
    fn garbage_is_an_empty_input() {
        assert_eq!(HookInput::from_json("not json"), HookInput::default());
        assert_eq!(HookInput::from_json(""), HookInput::default());
    }

    #[test]
    fn output_shape() {
        let v = additional_context("SessionStart", "hi");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "hi");
    }
}

//! The coding agents pms wires itself into: Claude Code, the Codex CLI and
//! OpenClaw. Which ones a workspace is wired into is the user's choice at
//! `pms init` (default: every agent whose CLI is on PATH), remembered in the
//! install record; a hook is told which agent runs it (`--agent`), because
//! the agents measure and shape hook output differently.

pub mod claude;
pub mod codex;
pub mod hook_io;
pub mod json_edit;
pub mod json_file;
pub mod openclaw;
pub mod transcript;
pub mod wiring;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Claude,
    Codex,
    #[serde(rename = "openclaw")]
    OpenClaw,
}

impl Agent {
    pub const ALL: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::OpenClaw];

    /// The name on the command line (`--agent claude,codex,openclaw`).
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::OpenClaw => "openclaw",
        }
    }

    /// The name people know it by.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::OpenClaw => "OpenClaw",
        }
    }

    /// The program on PATH that says the agent is installed.
    pub fn program(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::OpenClaw => "openclaw",
        }
    }

    pub fn parse(s: &str) -> Option<Agent> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "claude" | "claude-code" | "claudecode" => Some(Agent::Claude),
            "codex" => Some(Agent::Codex),
            "openclaw" => Some(Agent::OpenClaw),
            _ => None,
        }
    }

    /// The agent's CLI, when it is on PATH.
    pub fn cli(self) -> Option<PathBuf> {
        which::which(self.program()).ok()
    }

    /// The agents whose CLI is on PATH; Claude Code alone when none is (pms
    /// was made for it, and its files are where a later install looks).
    pub fn found_on_path() -> Vec<Agent> {
        let found: Vec<Agent> = Agent::ALL
            .into_iter()
            .filter(|a| a.cli().is_some())
            .collect();
        if found.is_empty() {
            vec![Agent::Claude]
        } else {
            found
        }
    }

    /// How the agent measures hook output against its cap: Claude Code
    /// counts UTF-16 code units (JavaScript string length) and shows the
    /// model a preview past 10,000; Codex counts bytes (2,500 tokens of 4
    /// bytes, `HOOK_OUTPUT_TOKEN_LIMIT` in codex-rs/hooks) and spills the
    /// rest to a file past 10,000; measured with 0.169.0: 9,608 bytes of CJK
    /// text arrived whole, 10,102 bytes were cut. OpenClaw has no cap of its
    /// own; the Claude Code measure keeps the same budget meaning there.
    pub fn length_unit(self) -> LengthUnit {
        match self {
            Agent::Codex => LengthUnit::Utf8Bytes,
            Agent::Claude | Agent::OpenClaw => LengthUnit::Utf16Units,
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a length budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthUnit {
    Utf16Units,
    Utf8Bytes,
}

/// Parses `claude,codex` (as typed after `--agent`), rejecting unknown names.
pub fn parse_list(items: &[String]) -> Result<Vec<Agent>, String> {
    let mut out = Vec::new();
    for item in items {
        for name in item.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let a = Agent::parse(name).ok_or_else(|| {
                format!("unknown agent {name:?}.\n  Fix: choose from claude, codex, openclaw")
            })?;
            if !out.contains(&a) {
                out.push(a);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_dedupe_and_sort() {
        assert_eq!(
            parse_list(&["openclaw,claude".into(), "codex, claude".into()]).unwrap(),
            vec![Agent::Claude, Agent::Codex, Agent::OpenClaw]
        );
        assert!(
            parse_list(&["cursor".into()])
                .unwrap_err()
                .contains("cursor")
        );
        assert_eq!(
            serde_json::to_string(&Agent::OpenClaw).unwrap(),
            "\"openclaw\""
        );
    }
}

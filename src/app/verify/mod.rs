//! `pms verify`: every part of an install checked, each with ok / warn /
//! fail, the reason, and whether `--fix` can repair it. `pms doctor` and
//! `pms status` build on the same checks. VERIFY.md documents each check
//! and how to fix it by hand; the JSON report's shape is stable (a test
//! holds it to the documented schema).

pub mod checks;
pub mod data_checks;
pub mod doctor;
pub mod fix;
pub mod mcp_probe;
pub mod status;
pub mod wiring_checks;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    /// The label padded to five columns, coloured on a terminal (green,
    /// yellow, bold red); plain when stdout is not a terminal or NO_COLOR
    /// is set.
    pub fn styled(self) -> console::StyledObject<String> {
        let s = console::style(format!("{:<5}", self.label()));
        match self {
            Status::Ok => s.green(),
            Status::Warn => s.yellow(),
            Status::Fail => s.red().bold(),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        }
    }
}

/// What `--fix` would do about a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fix {
    MergeHooks,
    RegisterMcp,
    RestoreFiles,
    RefreshBlock,
    AddConfigKeys,
    RebuildIndex,
    Reindex,
    RefreshLessons,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Stable identifier, e.g. `hooks.present` (listed in VERIFY.md).
    pub id: &'static str,
    pub status: Status,
    /// What was found, in a sentence.
    pub message: String,
    /// Set when `pms verify --fix` can repair it.
    pub fix: Option<Fix>,
    /// How to fix it by hand.
    pub hint: Option<String>,
}

impl Check {
    pub fn ok(id: &'static str, message: impl Into<String>) -> Check {
        Check {
            id,
            status: Status::Ok,
            message: message.into(),
            fix: None,
            hint: None,
        }
    }
    pub fn warn(id: &'static str, message: impl Into<String>) -> Check {
        Check {
            status: Status::Warn,
            ..Check::ok(id, message)
        }
    }
    pub fn fail(id: &'static str, message: impl Into<String>) -> Check {
        Check {
            status: Status::Fail,
            ..Check::ok(id, message)
        }
    }
    pub fn fixable(mut self, fix: Fix) -> Check {
        if self.status != Status::Ok {
            self.fix = Some(fix);
        }
        self
    }
    pub fn hint(mut self, hint: impl Into<String>) -> Check {
        self.hint = Some(hint.into());
        self
    }
}

/// The whole report, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Version of this JSON document's shape.
    pub schema: u32,
    pub pms_version: &'static str,
    pub workspace: Option<String>,
    /// True when no check failed.
    pub ok: bool,
    pub counts: Counts,
    pub checks: Vec<Check>,
    /// What `--fix` changed (empty without --fix).
    pub fixed: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub ok: usize,
    pub warn: usize,
    pub fail: usize,
}

impl Report {
    pub fn new(workspace: Option<String>, checks: Vec<Check>, fixed: Vec<String>) -> Report {
        let mut counts = Counts::default();
        for c in &checks {
            match c.status {
                Status::Ok => counts.ok += 1,
                Status::Warn => counts.warn += 1,
                Status::Fail => counts.fail += 1,
            }
        }
        Report {
            schema: 1,
            pms_version: env!("CARGO_PKG_VERSION"),
            workspace,
            ok: counts.fail == 0,
            counts,
            checks,
            fixed,
        }
    }

    /// The report for a person.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.checks {
            out.push_str(&format!(
                "{} {:<22} {}\n",
                c.status.styled(),
                c.id,
                c.message
            ));
            if c.status != Status::Ok {
                if c.fix.is_some() {
                    out.push_str("      `pms verify --fix` repairs this\n");
                }
                if let Some(h) = &c.hint {
                    out.push_str(&format!("      by hand: {h}\n"));
                }
            }
        }
        for f in &self.fixed {
            out.push_str(&format!("fixed: {f}\n"));
        }
        out.push_str(&format!(
            "\n{} ok, {}, {}\n",
            self.counts.ok,
            crate::platform::plural::count(self.counts.warn, "warning", "warnings"),
            crate::platform::plural::count(self.counts.fail, "failure", "failures")
        ));
        out
    }
}

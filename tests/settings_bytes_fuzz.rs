//! Init then uninstall, on 2,000 fuzzed settings.json and ~/.claude.json
//! texts written the many ways people and tools write JSON (compact,
//! 2/4-space, tabs, CRLF, no final newline, spaces around colons, `1E5`,
//! `-0`, `1e-400`, integers past 2^64, `\u00e9` escapes, duplicate keys,
//! empty `hooks` or event arrays, user hooks, and empty objects and arrays
//! written across lines, `"hooks": {\n  }` as deleting the last member by
//! hand leaves it): the round trip, with what the install record keeps in
//! between, must give back the original bytes (goal: 99.9% of files) and
//! never change a value (goal: all of them).

use std::path::Path;

use pms::platform::agents::claude::mcp_registration as mcp;
use pms::platform::agents::claude::settings::{
    CreatedContainers, merge_hooks_into, pms_handlers, remove_hooks_from,
};
use pms::platform::agents::json_file::JsonFile;
use serde_json::Value;

/// A JSON text generator with a seed.
struct Gen {
    rng: fastrand::Rng,
    indent: String,
    nl: &'static str,
    colon: &'static str,
    compact: bool,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        let mut rng = fastrand::Rng::with_seed(seed);
        let indent = ["  ", "    ", "\t", " "][rng.usize(..4)].to_string();
        Gen {
            nl: if rng.u8(..5) == 0 { "\r\n" } else { "\n" },
            colon: [": ", ":", " : "][rng.usize(..3)],
            compact: rng.u8(..4) == 0,
            indent,
            rng,
        }
    }

    fn scalar(&mut self) -> String {
        let choices = [
            "true",
            "false",
            "null",
            "0",
            "-0",
            "1E5",
            "1e-400",
            "3.14",
            "-2.5e+3",
            "123456789012345678901234567890",
            "42",
            "\"opus\"",
            "\"caf\\u00e9\"",
            "\"\\\\n\\\"q\\\"\"",
            "\"Bash(ls:*)\"",
            "\"\"",
            "\"日本語\"",
            "\"tab\\there\"",
        ];
        choices[self.rng.usize(..choices.len())].to_string()
    }

    fn key(&mut self) -> String {
        let keys = [
            "model",
            "permissions",
            "env",
            "allow",
            "deny",
            "statusLine",
            "theme",
            "n",
            "x",
            "includeCoAuthoredBy",
            "cleanupPeriodDays",
            "apiKeyHelper",
            "projects",
            "numStartups",
        ];
        format!("\"{}\"", keys[self.rng.usize(..keys.len())])
    }

    fn value(&mut self, depth: usize, level: usize) -> String {
        match (depth, self.rng.u8(..6)) {
            (0, _) | (_, 0..=2) => self.scalar(),
            (_, 3 | 4) => {
                let n = self.rng.usize(0..4);
                let members: Vec<(String, String)> = (0..n)
                    .map(|_| (self.key(), self.value(depth - 1, level + 1)))
                    .collect();
                self.object(&members, level)
            }
            _ => {
                let n = self.rng.usize(0..4);
                let items: Vec<String> = (0..n).map(|_| self.value(depth - 1, level + 1)).collect();
                if items.is_empty() {
                    self.empty('[', ']', level)
                } else if self.compact || self.rng.bool() {
                    format!("[{}]", items.join(", "))
                } else {
                    self.block('[', ']', &items, level)
                }
            }
        }
    }

    fn object(&mut self, members: &[(String, String)], level: usize) -> String {
        let items: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("{k}{}{v}", self.colon))
            .collect();
        if members.is_empty() {
            return self.empty('{', '}', level);
        }
        if self.compact {
            return format!("{{{}}}", items.join(", "));
        }
        self.block('{', '}', &items, level)
    }

    /// An empty object or array as people and tools leave one: mostly `{}`,
    /// but also across lines (`{\n  }`, what deleting the last member by
    /// hand leaves), with a blank line or an indented one inside, or a space.
    fn empty(&mut self, open: char, close: char, level: usize) -> String {
        let (nl, outer, inner) = (
            self.nl,
            self.indent.repeat(level),
            self.indent.repeat(level + 1),
        );
        match self.rng.u8(..8) {
            0 | 1 => format!("{open}{nl}{outer}{close}"),
            2 => format!("{open}{nl}{nl}{outer}{close}"),
            3 => format!("{open}{nl}{inner}{nl}{outer}{close}"),
            4 => format!("{open} {close}"),
            _ => format!("{open}{close}"),
        }
    }

    fn block(&self, open: char, close: char, items: &[String], level: usize) -> String {
        if items.is_empty() {
            return format!("{open}{close}");
        }
        let inner = self.indent.repeat(level + 1);
        let outer = self.indent.repeat(level);
        let body: Vec<String> = items.iter().map(|i| format!("{inner}{i}")).collect();
        format!(
            "{open}{nl}{}{nl}{outer}{close}",
            body.join(&format!(",{}", self.nl)),
            nl = self.nl
        )
    }

    /// A settings document: random keys, sometimes a hooks object of the
    /// user's (empty, with empty event arrays, or with their own hooks),
    /// sometimes a duplicate key.
    fn settings(&mut self) -> String {
        let mut members: Vec<(String, String)> = Vec::new();
        for _ in 0..self.rng.usize(0..5) {
            let (k, v) = (self.key(), self.value(3, 1));
            if !members.iter().any(|(x, _)| *x == k) || self.rng.u8(..10) == 0 {
                members.push((k, v));
            }
        }
        match self.rng.u8(..5) {
            0 => {
                let hooks = self.empty('{', '}', 1);
                members.push(("\"hooks\"".into(), hooks));
            }
            1 => {
                let stop = self.empty('[', ']', 2);
                let hooks = self.object(&[("\"Stop\"".into(), stop)], 1);
                members.push(("\"hooks\"".into(), hooks));
            }
            2 => {
                let user = "{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/bin/audit\"}]}";
                let arr = format!("[{user}]");
                let hooks = self.object(
                    &[
                        ("\"PreToolUse\"".into(), arr.clone()),
                        ("\"Stop\"".into(), arr),
                    ],
                    1,
                );
                members.push(("\"hooks\"".into(), hooks));
            }
            _ => {}
        }
        let mut text = self.object(&members, 0);
        if self.rng.u8(..4) != 0 {
            text.push_str(self.nl);
        }
        text
    }

    /// A ~/.claude.json: random keys, sometimes an `mcpServers` of the user's.
    fn claude_json(&mut self) -> String {
        let mut members: Vec<(String, String)> = Vec::new();
        for _ in 0..self.rng.usize(0..4) {
            let (k, v) = (self.key(), self.value(2, 1));
            if !members.iter().any(|(x, _)| *x == k) {
                members.push((k, v));
            }
        }
        match self.rng.u8(..4) {
            0 => {
                let servers = self.empty('{', '}', 1);
                members.push(("\"mcpServers\"".into(), servers));
            }
            1 => members.push((
                "\"mcpServers\"".into(),
                "{\"other\": {\"type\": \"stdio\", \"command\": \"other-server\", \"args\": []}}"
                    .into(),
            )),
            _ => {}
        }
        let mut text = self.object(&members, 0);
        if self.rng.bool() {
            text.push_str(self.nl);
        }
        text
    }
}

/// The record's part for a file, as uninstall reads it back from
/// `.pms/install.json`.
fn through_the_record<T: serde::Serialize + serde::de::DeserializeOwned>(created: &T) -> T {
    serde_json::from_str(&serde_json::to_string(created).unwrap()).unwrap()
}

/// settings.json: init merges the hooks, uninstall removes them. Returns
/// the text after both, and whether the record kept the layout of an empty
/// container the merge filled.
fn settings_round_trip(text: &str) -> Option<(String, bool)> {
    let path = Path::new("settings.json");
    let mut f = JsonFile::parse(path, text.to_string()).ok()?;
    let handlers = pms_handlers(Path::new("/opt/pms/bin/pms"), Path::new("/home/u/pms"));
    let report = merge_hooks_into(&mut f, &handlers).ok()?;
    let installed = f.render();
    let created: CreatedContainers = through_the_record(&report.created);
    let mut g = JsonFile::parse(path, installed).unwrap();
    remove_hooks_from(&mut g, Some(&created));
    Some((g.render(), !created.empty_layouts.is_empty()))
}

#[test]
fn init_then_uninstall_gives_back_the_bytes_of_2000_fuzzed_files() {
    let dir = tempfile::tempdir().unwrap();
    let (mut same_bytes, mut values_changed, mut tried) = (0usize, Vec::new(), 0usize);
    let (mut layouts_kept, mut not_same) = (0usize, Vec::new());
    let entry = mcp::server_entry(Path::new("/opt/pms/bin/pms"), Path::new("/home/u/pms"));
    for seed in 0..1000u64 {
        let mut g = Gen::new(seed);
        // settings.json, in memory
        let text = g.settings();
        let before: Value = serde_json::from_str(&text).expect("the generator writes JSON");
        if let Some((after, kept_layout)) = settings_round_trip(&text) {
            tried += 1;
            layouts_kept += usize::from(kept_layout);
            let v: Value = serde_json::from_str(&after).unwrap();
            if v != before {
                values_changed.push(text.clone());
            }
            if after == text {
                same_bytes += 1;
            } else {
                not_same.push(format!("{text:?}\n  came back as\n{after:?}"));
            }
        }
        // ~/.claude.json, through the files
        let text = g.claude_json();
        let before: Value = serde_json::from_str(&text).unwrap();
        let p = dir.path().join(format!("claude-{seed}.json"));
        std::fs::write(&p, &text).unwrap();
        let out = mcp::register(&p, &entry, None).unwrap();
        let created: mcp::Created = through_the_record(&out.created);
        layouts_kept += usize::from(!created.empty_layouts.is_empty());
        assert!(mcp::unregister(&p, None, &created).unwrap());
        let after = std::fs::read_to_string(&p).unwrap();
        tried += 1;
        if serde_json::from_str::<Value>(&after).unwrap() != before {
            values_changed.push(text.clone());
        }
        if after == text {
            same_bytes += 1;
        } else {
            not_same.push(format!("{text:?}\n  came back as\n{after:?}"));
        }
    }
    // and a file that did not exist is gone again
    let p = dir.path().join("absent.json");
    let out = mcp::register(&p, &entry, None).unwrap();
    mcp::unregister(&p, None, &out.created).unwrap();
    assert!(!p.exists(), "a file pms created is not left behind as {{}}");
    eprintln!(
        "settings fuzz: {tried} files ({layouts_kept} with an empty container written across lines or spaced that init fills), {same_bytes} byte-identical after init + uninstall, {} with a value changed",
        values_changed.len()
    );
    assert!(
        values_changed.is_empty(),
        "values changed in:\n{}",
        values_changed.join("\n---\n")
    );
    assert!(
        layouts_kept >= 100,
        "the generator wrote only {layouts_kept} files with a filled empty container not written {{}}"
    );
    assert!(
        same_bytes * 1000 >= tried * 999,
        "only {same_bytes} of {tried} byte-identical:\n{}",
        not_same
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n---\n")
    );
}

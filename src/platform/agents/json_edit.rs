//! Editing JSON text the way a careful person would: only the bytes of what
//! changes are rewritten. pms changes a `serde_json::Value`; this compares
//! the old and the new value and turns the difference into splices of the
//! original text, located with jsonc-parser's syntax tree (byte ranges of
//! every member and element). Everything else keeps its bytes: number
//! spellings (`1E5`, `-0`, integers past 2^64, `1e-400`), escapes
//! (`\u00e9`), CRLF line ends, compact arrays, duplicate keys, comments.
//!
//! Insertions follow the surrounding layout (a one-line object gets `, "k":
//! v` on the same line; a multi-line one a new line at its members'
//! indentation), and removing a member removes exactly what inserting it
//! added, so init followed by uninstall gives back the original bytes.
//! A container emptied again is written `{}` or `[]`, or as it was before
//! pms filled it when [`EmptyLayouts`] (from the install record) says it
//! was written otherwise (`{\n  }`): the text alone cannot tell, since
//! filling `{}` and filling `{\n  }` lay the members out the same way.

use jsonc_parser::ast::{self, ObjectPropName};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How empty containers were written before pms filled them, by JSON
/// pointer (`/hooks`, `/hooks/Stop`), for those not written `{}` or `[]`
/// (`"hooks": {\n  }`, what deleting the last member by hand leaves). Kept
/// in the install record so that uninstall, emptying one again, gives back
/// its bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EmptyLayouts(pub BTreeMap<String, String>);

impl EmptyLayouts {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// These layouts with `newer`'s added; for the same container the newer
    /// wins (it is how the container is written now).
    pub fn merged(&self, newer: &EmptyLayouts) -> EmptyLayouts {
        let mut out = self.clone();
        out.0
            .extend(newer.0.iter().map(|(k, v)| (k.clone(), v.clone())));
        out
    }

    /// The text of the container at `pointer` once emptied: as recorded
    /// when the record holds an empty container of this kind with nothing
    /// but blanks inside (the record is a file anyone can edit: anything
    /// else is ignored), else `{}` or `[]`.
    fn text_for(&self, pointer: &str, open: char, close: char) -> String {
        match self.0.get(pointer) {
            Some(t)
                if t.len() >= 2
                    && t.starts_with(open)
                    && t.ends_with(close)
                    && t[1..t.len() - 1]
                        .chars()
                        .all(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) =>
            {
                t.clone()
            }
            _ => format!("{open}{close}"),
        }
    }
}

/// The containers empty in `original` (whose parsed value is `old`) that
/// `new` fills, with their text, when that is not `{}` or `[]`.
pub fn filled_empties(original: &str, old: &Value, new: &Value) -> EmptyLayouts {
    let mut out = EmptyLayouts::default();
    if let Ok(parsed) = parse_to_ast(
        original,
        &CollectOptions::default(),
        &ParseOptions::default(),
    ) && let Some(root) = parsed.value
    {
        find_filled(original, &root, "", old, new, &mut out);
    }
    out
}

fn find_filled(
    text: &str,
    node: &ast::Value,
    pointer: &str,
    old: &Value,
    new: &Value,
    out: &mut EmptyLayouts,
) {
    let filled = |written: &str| {
        let now_full = match new {
            Value::Object(m) => !m.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => false,
        };
        now_full && written != "{}" && written != "[]"
    };
    match (node, old, new) {
        (ast::Value::Object(o), Value::Object(a), Value::Object(b)) => {
            if o.properties.is_empty() && a.is_empty() {
                let written = &text[o.range.start..o.range.end];
                if filled(written) {
                    out.0.insert(pointer.to_string(), written.to_string());
                }
                return;
            }
            // the member a parser keeps for a repeated key is the last
            let mut seen = std::collections::HashSet::new();
            for p in o.properties.iter().rev() {
                let k = name(&p.name);
                if !seen.insert(k.clone()) {
                    continue;
                }
                if let (Some(ov), Some(nv)) = (a.get(&k), b.get(&k)) {
                    let child = format!("{pointer}/{}", escape_pointer(&k));
                    find_filled(text, &p.value, &child, ov, nv, out);
                }
            }
        }
        (ast::Value::Array(arr), Value::Array(a), Value::Array(b)) => {
            if arr.elements.is_empty() && a.is_empty() {
                let written = &text[arr.range.start..arr.range.end];
                if filled(written) {
                    out.0.insert(pointer.to_string(), written.to_string());
                }
                return;
            }
            for (i, (e, (ov, nv))) in arr.elements.iter().zip(a.iter().zip(b)).enumerate() {
                find_filled(text, e, &format!("{pointer}/{i}"), ov, nv, out);
            }
        }
        _ => {}
    }
}

/// A key as a JSON pointer segment (RFC 6901).
fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// One splice: replace `start..end` with `text`.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// `original` (whose parsed value is `old`) changed to say `new`, a
/// container emptied written as `layouts` says. None when the text cannot
/// be edited (the caller then serialises the document).
pub fn edit_text(
    original: &str,
    old: &Value,
    new: &Value,
    indent_unit: &str,
    layouts: &EmptyLayouts,
) -> Option<String> {
    let parsed = parse_to_ast(
        original,
        &CollectOptions::default(),
        &ParseOptions::default(),
    )
    .ok()?;
    let root = parsed.value?;
    let mut e = Editor {
        text: original,
        unit: indent_unit,
        newline: if original.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        },
        edits: Vec::new(),
        layouts,
    };
    e.value(&root, "", old, new)?;
    let mut out = original.to_string();
    e.edits.sort_by_key(|ed| std::cmp::Reverse(ed.start));
    for ed in e.edits {
        out.replace_range(ed.start..ed.end, &ed.text);
    }
    // Whatever the editor did, the result must say exactly `new`.
    (serde_json::from_str::<Value>(&out).ok()? == *new).then_some(out)
}

struct Editor<'t> {
    text: &'t str,
    unit: &'t str,
    newline: &'static str,
    edits: Vec<Edit>,
    layouts: &'t EmptyLayouts,
}

/// Equal values with their keys in the same order (`Value`'s `==` ignores
/// order; the edits and the "is anything changed" test must not).
pub fn same(a: &Value, b: &Value) -> bool {
    a == b && same_order(a, b)
}

/// `Value` equality ignores key order; these edits must not.
fn same_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same_order(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_order(p, q))
        }
        _ => true,
    }
}

impl Editor<'_> {
    /// Edits `node` (at JSON pointer `pointer`) from `old` to `new`.
    fn value(&mut self, node: &ast::Value, pointer: &str, old: &Value, new: &Value) -> Option<()> {
        if same(old, new) {
            return Some(());
        }
        match (node, old, new) {
            (ast::Value::Object(o), Value::Object(a), Value::Object(b)) => {
                self.object(o, pointer, a, b)
            }
            (ast::Value::Array(arr), Value::Array(a), Value::Array(b)) => {
                self.array(arr, pointer, a, b)
            }
            _ => {
                let r = node.range();
                let text = self.render(new, &self.indent_at(r.start));
                self.edits.push(Edit {
                    start: r.start,
                    end: r.end,
                    text,
                });
                Some(())
            }
        }
    }

    fn object(
        &mut self,
        o: &ast::Object,
        pointer: &str,
        old: &Map<String, Value>,
        new: &Map<String, Value>,
    ) -> Option<()> {
        // the member a parser keeps for a repeated key: the last
        let member = |k: &str| {
            o.properties
                .iter()
                .enumerate()
                .rev()
                .find(|(_, p)| name(&p.name) == k)
        };
        let removed: Vec<usize> = old
            .keys()
            .filter(|k| !new.contains_key(*k))
            .filter_map(|k| member(k).map(|(i, _)| i))
            .collect();
        let kept = o.properties.len() - removed.len();
        if kept == 0 && new.is_empty() {
            // everything goes: the object becomes `{}`, or what it was
            self.edits.push(Edit {
                start: o.range.start,
                end: o.range.end,
                text: self.layouts.text_for(pointer, '{', '}'),
            });
            return Some(());
        }
        let ranges: Vec<(usize, usize)> = o
            .properties
            .iter()
            .map(|p| (p.range.start, p.range.end))
            .collect();
        for i in &removed {
            self.remove_member(&ranges, *i);
        }
        for (k, nv) in new {
            if let Some(ov) = old.get(k)
                && !same(ov, nv)
            {
                let (_, p) = member(k)?;
                let child = format!("{pointer}/{}", escape_pointer(k));
                self.value(&p.value, &child, ov, nv)?;
            }
        }
        let added: Vec<(&String, &Value)> =
            new.iter().filter(|(k, _)| !old.contains_key(*k)).collect();
        if added.is_empty() {
            return Some(());
        }
        let indent = self.member_indent(o.range.start, ranges.last().map(|r| r.0));
        let members: Vec<String> = added
            .iter()
            .map(|(k, v)| {
                let key = serde_json::to_string(k).expect("a string serialises");
                format!("{key}: {}", self.render(v, &indent))
            })
            .collect();
        self.insert_members(o.range.start, o.range.end, &ranges, kept, &members);
        Some(())
    }

    fn array(
        &mut self,
        arr: &ast::Array,
        pointer: &str,
        old: &[Value],
        new: &[Value],
    ) -> Option<()> {
        let prefix = old.iter().zip(new).take_while(|(a, b)| same(a, b)).count();
        let suffix = old[prefix..]
            .iter()
            .rev()
            .zip(new[prefix..].iter().rev())
            .take_while(|(a, b)| same(a, b))
            .count();
        let (old_mid, new_mid) = (
            &old[prefix..old.len() - suffix],
            &new[prefix..new.len() - suffix],
        );
        if old_mid.len() == new_mid.len() {
            for (i, (o, n)) in old_mid.iter().zip(new_mid).enumerate() {
                let child = format!("{pointer}/{}", prefix + i);
                self.value(arr.elements.get(prefix + i)?, &child, o, n)?;
            }
            return Some(());
        }
        let ranges: Vec<(usize, usize)> = arr
            .elements
            .iter()
            .map(|e| {
                let r = e.range();
                (r.start, r.end)
            })
            .collect();
        // Removed from the middle, added at the end of the middle: the
        // common cases (append, remove one) are exact.
        if new.is_empty() {
            self.edits.push(Edit {
                start: arr.range.start,
                end: arr.range.end,
                text: self.layouts.text_for(pointer, '[', ']'),
            });
            return Some(());
        }
        if suffix > 0 && !new_mid.is_empty() {
            return None; // an insertion before kept elements: not worth the layout guesswork
        }
        for i in prefix..prefix + old_mid.len() {
            self.remove_member(&ranges, i);
        }
        if new_mid.is_empty() {
            return Some(());
        }
        let kept = old.len() - old_mid.len();
        let members: Vec<String> = new_mid
            .iter()
            .map(|v| {
                let indent = self.member_indent(arr.range.start, ranges.last().map(|r| r.0));
                self.render(v, &indent)
            })
            .collect();
        let kept_ranges: Vec<(usize, usize)> = ranges[..prefix].to_vec();
        self.insert_members(arr.range.start, arr.range.end, &kept_ranges, kept, &members);
        Some(())
    }

    /// Removes member `i` of a container whose members span `ranges`,
    /// with the comma and the space that separated it.
    fn remove_member(&mut self, ranges: &[(usize, usize)], i: usize) {
        let (start, end) = ranges[i];
        if i > 0 {
            // from the end of the previous member: ", member"
            self.edits.push(Edit {
                start: ranges[i - 1].1,
                end,
                text: String::new(),
            });
        } else if let Some(next) = ranges.get(1) {
            // the first of several: "member, " up to the next
            self.edits.push(Edit {
                start,
                end: next.0,
                text: String::new(),
            });
        } else {
            self.edits.push(Edit {
                start,
                end,
                text: String::new(),
            });
        }
    }

    /// Adds `members` (rendered) after the `kept` members of the container
    /// spanning `open..close`.
    fn insert_members(
        &mut self,
        open: usize,
        close: usize,
        ranges: &[(usize, usize)],
        kept: usize,
        members: &[String],
    ) {
        let multiline = self.text[open..close].contains('\n');
        if kept > 0 {
            let last_end = ranges.last().map(|r| r.1).unwrap_or(open + 1);
            let sep = if multiline {
                let indent = self.member_indent(open, ranges.last().map(|r| r.0));
                format!(",{}{indent}", self.newline)
            } else {
                self.inline_separator(ranges)
            };
            let mut text = String::new();
            for m in members {
                text.push_str(&sep);
                text.push_str(m);
            }
            self.edits.push(Edit {
                start: last_end,
                end: last_end,
                text,
            });
            return;
        }
        // an empty container: lay it out as its parent is laid out
        let outer = self.indent_at(open);
        let parent_multiline = self.text.contains('\n');
        let (open_ch, close_ch) = (&self.text[open..open + 1], &self.text[close - 1..close]);
        let text = if parent_multiline {
            let inner = format!("{outer}{}", self.unit);
            let body: Vec<String> = members.iter().map(|m| format!("{inner}{m}")).collect();
            format!(
                "{open_ch}{nl}{}{nl}{outer}{close_ch}",
                body.join(&format!(",{}", self.newline)),
                nl = self.newline
            )
        } else {
            format!("{open_ch}{}{close_ch}", members.join(", "))
        };
        self.edits.push(Edit {
            start: open,
            end: close,
            text,
        });
    }

    /// What separates members on one line: `, ` unless the text shows `,`.
    fn inline_separator(&self, ranges: &[(usize, usize)]) -> String {
        match ranges {
            [.., a, b] => {
                let between = &self.text[a.1..b.0];
                if between.trim().is_empty() || between.trim() == "," {
                    between.to_string()
                } else {
                    ", ".into()
                }
            }
            _ => ", ".into(),
        }
    }

    /// The indentation of the line holding byte `pos`.
    fn indent_at(&self, pos: usize) -> String {
        let line_start = self.text[..pos].rfind('\n').map_or(0, |i| i + 1);
        self.text[line_start..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect()
    }

    /// The indentation of a container's members: the last member's line's,
    /// or the container's line's plus one unit.
    fn member_indent(&self, open: usize, last_member: Option<usize>) -> String {
        match last_member {
            Some(p) if self.text[open..p].contains('\n') => self.indent_at(p),
            _ => format!("{}{}", self.indent_at(open), self.unit),
        }
    }

    /// `v` as JSON text: pretty, with `indent` (the indentation of the line
    /// it starts on) before its continuation lines, in a multi-line
    /// document; compact in a one-line one.
    fn render(&self, v: &Value, indent: &str) -> String {
        if !self.text.trim_end().contains('\n') || !matches!(v, Value::Object(_) | Value::Array(_))
        {
            return serde_json::to_string(v).expect("a Value serialises");
        }
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        v.serialize(&mut ser).expect("a Value serialises");
        let pretty = String::from_utf8(out).expect("UTF-8");
        pretty
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    l.to_string()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect::<Vec<_>>()
            .join(self.newline)
    }
}

fn name(n: &ObjectPropName) -> String {
    match n {
        ObjectPropName::String(s) => s.value.to_string(),
        ObjectPropName::Word(w) => w.value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(text: &str, change: impl Fn(&mut Value)) -> (String, String) {
        let old: Value = serde_json::from_str(text).unwrap();
        let mut new = old.clone();
        change(&mut new);
        let none = EmptyLayouts::default();
        let edited = edit_text(text, &old, &new, "  ", &none).expect("editable");
        let layouts = filled_empties(text, &old, &new);
        let back = edit_text(&edited, &new, &old, "  ", &layouts).expect("editable back");
        (edited, back)
    }

    #[test]
    fn adding_then_removing_gives_the_bytes_back() {
        for text in [
            "{\"numStartups\": 3, \"projects\": {}}\n",
            "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n",
            "{\r\n\t\"a\": 1E5,\r\n\t\"b\": -0,\r\n\t\"c\": 123456789012345678901234567890\r\n}",
            "{}",
            "{\"hooks\":{}}",
            "{ \"x\" : [ 1 , 2 ] }",
        ] {
            let (edited, back) = round_trip(text, |v| {
                v.as_object_mut().unwrap().insert(
                    "mcpServers".into(),
                    json!({"pms": {"type": "stdio", "args": ["serve"]}}),
                );
            });
            assert_ne!(edited, text);
            assert_eq!(back, text, "via:\n{edited}");
        }
    }

    #[test]
    fn emptied_containers_come_back_as_they_were_written() {
        for text in [
            "{\n  \"model\": \"opus\",\n  \"hooks\": {\n  }\n}\n",
            "{\r\n\t\"hooks\": {\r\n\r\n\t},\r\n\t\"x\": 1\r\n}",
            "{\"hooks\": { }}",
            "{\n    \"hooks\": {\n        \"Stop\": [\n        ]\n    }\n}\n",
            "{\n}\n",
            "{ }",
        ] {
            let (edited, back) = round_trip(text, |v| {
                let root = v.as_object_mut().unwrap();
                let hooks = root.entry("hooks").or_insert_with(|| json!({}));
                let stop = hooks
                    .as_object_mut()
                    .unwrap()
                    .entry("Stop")
                    .or_insert_with(|| json!([]));
                stop.as_array_mut()
                    .unwrap()
                    .push(json!({"hooks": [{"type": "command", "command": "/bin/pms"}]}));
            });
            assert!(edited.contains("/bin/pms"), "{edited}");
            assert_eq!(back, text, "via:\n{edited}");
        }
    }

    #[test]
    fn a_recorded_layout_that_is_not_an_empty_container_is_ignored() {
        let text = "{\"a\": {\"k\": 1}}";
        let old: Value = serde_json::from_str(text).unwrap();
        let new = json!({"a": {}});
        for bad in ["{\"k\": 2}", "[\n]", "{ x }", "{"] {
            let layouts = EmptyLayouts([("/a".to_string(), bad.to_string())].into());
            let out = edit_text(text, &old, &new, "  ", &layouts).unwrap();
            assert_eq!(out, "{\"a\": {}}", "{bad}");
        }
    }

    #[test]
    fn changes_inside_keep_the_rest() {
        let text = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"matcher\": \"\", \"hooks\": []}\n    ]\n  },\n  \"n\": 1E5\n}\n";
        let (edited, back) = round_trip(text, |v| {
            v["hooks"]["Stop"]
                .as_array_mut()
                .unwrap()
                .push(json!({"hooks": [{"type": "command", "command": "/bin/pms"}]}));
            v["hooks"]["SessionEnd"] = json!([{"hooks": []}]);
        });
        assert!(edited.contains("\"n\": 1E5"), "{edited}");
        assert!(
            edited.contains("{\"matcher\": \"\", \"hooks\": []}"),
            "{edited}"
        );
        assert_eq!(back, text, "via:\n{edited}");
    }
}

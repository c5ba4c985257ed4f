//! Property tests of the settings.json merge: for random settings files,
//! merging keeps every pre-existing JSON pointer and value (and key order),
//! merging twice equals merging once, and removing after merging gives back
//! the original document exactly, and, written out with its empty objects
//! and arrays laid out any way people leave them (`{}`, `{\n  }`, `{ }`),
//! the original bytes.

use std::path::Path;

use pms::platform::agents::claude::settings::{
    CreatedContainers, HOOK_EVENTS, is_pms_handler, merge_hooks, merge_hooks_into, pms_handlers,
    remove_hooks, remove_hooks_from,
};
use pms::platform::agents::json_file::JsonFile;
use proptest::prelude::*;
use serde_json::{Map, Value};

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "[ -~]{0,12}".prop_map(Value::String),
        "\\PC{0,6}".prop_map(Value::String),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-zA-Z_]{1,8}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn handler() -> impl Strategy<Value = Value> {
    (
        "[a-z/._-]{1,14}( [a-z-]{1,6}){0,2}",
        prop::option::of(prop::collection::vec("[a-z-]{1,6}", 0..3)),
        prop::option::of(1u32..600),
    )
        .prop_map(|(command, args, timeout)| {
            let mut m = Map::new();
            m.insert("type".into(), "command".into());
            m.insert("command".into(), command.into());
            if let Some(a) = args {
                m.insert("args".into(), a.into());
            }
            if let Some(t) = timeout {
                m.insert("timeout".into(), t.into());
            }
            Value::Object(m)
        })
        .prop_filter("not one of ours", |h| !is_pms_handler(h))
}

fn group() -> impl Strategy<Value = Value> {
    (
        prop::option::of("[A-Za-z|*]{0,10}"),
        prop::collection::vec(handler(), 0..3),
    )
        .prop_map(|(matcher, hs)| {
            let mut m = Map::new();
            if let Some(mt) = matcher {
                m.insert("matcher".into(), mt.into());
            }
            m.insert("hooks".into(), Value::Array(hs));
            Value::Object(m)
        })
}

const EVENT_KEYS: [&str; 8] = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreCompact",
    "SessionEnd",
    "PreToolUse",
    "PostToolUse",
    "Notification",
];

fn hooks_object() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (
            prop::sample::select(EVENT_KEYS.to_vec()),
            prop::collection::vec(group(), 0..3),
        ),
        0..6,
    )
    .prop_map(|events| {
        Value::Object(
            events
                .into_iter()
                .map(|(k, g)| (k.to_string(), Value::Array(g)))
                .collect::<Map<_, _>>(),
        )
    })
}

fn settings_doc() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(("[a-zA-Z]{1,10}", any_json()), 0..6),
        prop::option::of(hooks_object()),
        0usize..7,
    )
        .prop_map(|(pairs, hooks, at)| {
            let mut m: Map<String, Value> =
                pairs.into_iter().filter(|(k, _)| k != "hooks").collect();
            if let Some(h) = hooks {
                // put "hooks" somewhere among the other keys, not always last
                let mut entries: Vec<(String, Value)> = m.into_iter().collect();
                let at = at.min(entries.len());
                entries.insert(at, ("hooks".into(), h));
                m = entries.into_iter().collect();
            }
            Value::Object(m)
        })
}

/// Every (pointer, leaf or empty-container value) in `v`.
fn pointers(v: &Value, prefix: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let esc = k.replace('~', "~0").replace('/', "~1");
                pointers(x, format!("{prefix}/{esc}"), out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{prefix}/{i}"), out);
            }
        }
        _ => out.push((prefix, v.clone())),
    }
}

/// For every object in `before`, its keys keep their relative order in `after`.
fn key_order_kept(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            let order: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
            let orig: Vec<&String> = b.keys().collect();
            order == orig && b.iter().all(|(k, v)| key_order_kept(v, &a[k]))
        }
        (Value::Array(b), Value::Array(a)) => b.iter().zip(a).all(|(x, y)| key_order_kept(x, y)),
        _ => true,
    }
}

/// `v` as a multi-line JSON text indented with `indent`, each empty object
/// or array written the way `empties` says, in turn: `{}`, across lines at
/// the parent's indentation (`{\n  }`), with a blank line inside, or `{ }`.
fn write_text(v: &Value, indent: &str, empties: &[u8]) -> String {
    fn go(v: &Value, level: usize, indent: &str, empties: &[u8], n: &mut usize, out: &mut String) {
        let (open, close, len) = match v {
            Value::Object(m) => ('{', '}', m.len()),
            Value::Array(a) => ('[', ']', a.len()),
            _ => {
                out.push_str(&serde_json::to_string(v).unwrap());
                return;
            }
        };
        let outer = indent.repeat(level);
        if len == 0 {
            let style = empties[*n % empties.len()];
            *n += 1;
            out.push_str(&match style {
                0 => format!("{open}{close}"),
                1 => format!("{open}\n{outer}{close}"),
                2 => format!("{open}\n\n{outer}{close}"),
                _ => format!("{open} {close}"),
            });
            return;
        }
        let inner = indent.repeat(level + 1);
        out.push(open);
        let items: Vec<(Option<&String>, &Value)> = match v {
            Value::Object(m) => m.iter().map(|(k, x)| (Some(k), x)).collect(),
            Value::Array(a) => a.iter().map(|x| (None, x)).collect(),
            _ => unreachable!(),
        };
        for (i, (k, x)) in items.into_iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.push_str(&inner);
            if let Some(k) = k {
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push_str(": ");
            }
            go(x, level + 1, indent, empties, n, out);
        }
        out.push('\n');
        out.push_str(&outer);
        out.push(close);
    }
    let mut out = String::new();
    go(v, 0, indent, empties, &mut 0, &mut out);
    out.push('\n');
    out
}

fn ours() -> Vec<(&'static str, Value)> {
    pms_handlers(Path::new("/opt/pms/bin/pms"), Path::new("/home/u/pms"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn merge_keeps_every_existing_pointer_and_value(doc in settings_doc()) {
        let mut merged = doc.clone();
        merge_hooks(&mut merged, Path::new("s.json"), &ours()).unwrap();
        let mut ps = Vec::new();
        pointers(&doc, String::new(), &mut ps);
        for (p, v) in ps {
            let got = merged.pointer(&p);
            // an empty container of the original may have gained our entries
            let ok = match (&v, got) {
                (Value::Object(m), Some(Value::Object(_))) if m.is_empty() => true,
                (Value::Array(a), Some(Value::Array(_))) if a.is_empty() => true,
                (_, Some(g)) => g == &v,
                (_, None) => false,
            };
            prop_assert!(ok, "pointer {} changed: {:?} -> {:?}", p, v, got);
        }
        prop_assert!(key_order_kept(&doc, &merged));
    }

    #[test]
    fn merging_twice_equals_merging_once(doc in settings_doc()) {
        let mut once = doc.clone();
        merge_hooks(&mut once, Path::new("s.json"), &ours()).unwrap();
        let mut twice = once.clone();
        let report = merge_hooks(&mut twice, Path::new("s.json"), &ours()).unwrap();
        prop_assert!(!report.changed());
        prop_assert_eq!(serde_json::to_string(&once).unwrap(), serde_json::to_string(&twice).unwrap());
    }

    #[test]
    fn uninstall_after_install_gives_back_the_original(doc in settings_doc()) {
        let mut d = doc.clone();
        let report = merge_hooks(&mut d, Path::new("s.json"), &ours()).unwrap();
        let removed = remove_hooks(&mut d, Some(&report.created));
        prop_assert_eq!(removed.removed, HOOK_EVENTS.len());
        prop_assert_eq!(serde_json::to_string(&d).unwrap(), serde_json::to_string(&doc).unwrap());
    }

    #[test]
    fn uninstall_after_install_gives_back_the_bytes_of_empties_written_any_way(
        doc in settings_doc(),
        indent in prop::sample::select(vec!["  ", "    ", "\t"]),
        empties in prop::collection::vec(0u8..4, 1..6),
    ) {
        let text = write_text(&doc, indent, &empties);
        let path = Path::new("s.json");
        let mut f = JsonFile::parse(path, text.clone()).unwrap();
        let report = merge_hooks_into(&mut f, &ours()).unwrap();
        let installed = f.render();
        // what uninstall reads back from the install record
        let created: CreatedContainers =
            serde_json::from_str(&serde_json::to_string(&report.created).unwrap()).unwrap();
        let mut g = JsonFile::parse(path, installed.clone()).unwrap();
        remove_hooks_from(&mut g, Some(&created));
        prop_assert_eq!(g.render(), text, "via:\n{}", installed);
    }

    #[test]
    fn a_new_binary_path_replaces_ours_in_place(doc in settings_doc()) {
        let mut d = doc.clone();
        merge_hooks(&mut d, Path::new("s.json"), &ours()).unwrap();
        let moved = pms_handlers(Path::new("/new/place/pms"), Path::new("/home/u/pms"));
        let report = merge_hooks(&mut d, Path::new("s.json"), &moved).unwrap();
        prop_assert_eq!(report.replaced.len(), HOOK_EVENTS.len());
        let text = serde_json::to_string(&d).unwrap();
        prop_assert!(!text.contains("/opt/pms/bin/pms"));
        prop_assert_eq!(text.matches("/new/place/pms").count(), HOOK_EVENTS.len());
    }
}

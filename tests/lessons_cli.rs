//! `pms lessons`: staged learnings become rules, as a user (or a script)
//! drives it. Real binary, temporary HOME.

use crate::support::{TestHome, stderr, stdout};
use serde_json::{Value, json};

/// A workspace with three staged learnings.
fn staged() -> (TestHome, Vec<String>) {
    let home = TestHome::new();
    home.init(&["--no-index"]);
    let ws = pms::platform::workspace::Workspace::new(home.workspace());
    let texts = [
        (
            "correction",
            "You're right — the staging database listens on port 5433, not 5432.",
            None,
        ),
        (
            "method",
            "A simpler approach is to batch invoice writes in one transaction.",
            Some("product"),
        ),
        (
            "anti-pattern",
            "Never run the payroll export on the last day of the month.",
            None,
        ),
    ];
    let candidates = texts
        .iter()
        .map(|(k, t, d)| pms::memory::lessons::pending::Candidate {
            kind: k.to_string(),
            text: t.to_string(),
            domain: d.map(str::to_string),
            session_id: Some("s1".into()),
            transcript_ref: Some("cc://-home-u-app/s1.jsonl".into()),
            ..Default::default()
        })
        .collect();
    let added = pms::memory::lessons::pending::stage(&ws, candidates, &[]).unwrap();
    (home, added.into_iter().map(|i| i.id).collect())
}

fn rules(home: &TestHome) -> Vec<Value> {
    let out = home.ok(&["lessons", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["rules"].as_array().unwrap().clone()
}

#[test]
fn listing_shows_pending_and_rules() {
    let (home, ids) = staged();
    let out = home.ok(&["lessons"]);
    let text = stdout(&out);
    assert!(text.contains("Waiting for your yes (3)"), "{text}");
    assert!(text.contains(&ids[0]) && text.contains("[method → product]"));
    assert!(text.contains("No lessons in force yet."));
}

#[test]
fn accept_writes_a_dated_rule_with_its_source_and_the_next_prompt_matches_it() {
    let (home, ids) = staged();
    let out = home.ok(&["lessons", "accept", &ids[0]]);
    assert!(
        stdout(&out).contains("to _me/lessons.md"),
        "{}",
        stdout(&out)
    );
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains("] The staging database listens on port 5433, not 5432. _(")
            && lessons.contains(&format!("; cc://-home-u-app/s1.jsonl; from {})_", ids[0])),
        "{lessons}"
    );
    // the lessons index is updated at once: no `pms index` in between
    let hook = home.hook(
        "user-prompt",
        &json!({"session_id": "x", "prompt": "connect to the staging database port"}),
    );
    let ctx: Value = serde_json::from_slice(&hook.stdout).unwrap();
    assert!(
        ctx["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("5433")
    );
    // accepted learnings leave the pending list
    let v: Value = serde_json::from_slice(&home.ok(&["lessons", "--json"]).stdout).unwrap();
    assert_eq!(v["pending"].as_array().unwrap().len(), 2);
}

#[test]
fn accept_with_wording_and_target_then_retire() {
    let (home, ids) = staged();
    home.ok(&[
        "lessons",
        "accept",
        &ids[1],
        "--text",
        "Batch invoice writes in one transaction, because row-by-row writes timed out.",
        "--to",
        "product",
    ]);
    let product = std::fs::read_to_string(home.workspace().join("product/CLAUDE.md")).unwrap();
    assert!(
        product.contains(
            "Batch invoice writes in one transaction, because row-by-row writes timed out."
        )
    );
    let r = rules(&home);
    assert_eq!(r[0]["file"], "product/CLAUDE.md");
    let id = r[0]["id"].as_str().unwrap().to_string();
    home.ok(&["lessons", "retire", &id]);
    assert!(rules(&home).is_empty());
    let lessons = std::fs::read_to_string(home.workspace().join("_me/lessons.md")).unwrap();
    assert!(
        lessons.contains(&id) && lessons.contains("retired"),
        "archived"
    );
}

#[test]
fn a_near_duplicate_is_offered_as_a_merge() {
    let (home, ids) = staged();
    home.ok(&[
        "lessons",
        "add",
        "Never run the payroll export on the last day of a month",
    ]);
    let out = home.run(&["lessons", "accept", &ids[2]]);
    assert!(!out.status.success());
    assert!(stdout(&out).contains("--merge"), "{}", stdout(&out));
    assert_eq!(rules(&home).len(), 1, "no second copy");
    home.ok(&[
        "lessons",
        "accept",
        &ids[2],
        "--merge",
        "--text",
        "Never run the payroll export on the month's last day: the bank batch closes early.",
    ]);
    let r = rules(&home);
    assert_eq!(r.len(), 1);
    assert!(r[0]["text"].as_str().unwrap().contains("bank batch"));
}

#[test]
fn reject_and_unknown_ids() {
    let (home, ids) = staged();
    home.ok(&["lessons", "reject", &ids[2]]);
    let out = home.run(&["lessons", "accept", &ids[2]]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no pending learning"),
        "{}",
        stderr(&out)
    );
    let out = home.run(&["lessons", "accept", &ids[0], "--to", "astrology"]);
    assert!(
        stderr(&out).contains("no domain \"astrology\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn promotions_from_many_processes_at_once_all_land() {
    let (home, _) = staged();
    let rules_to_add = [
        "Pin the Terraform provider version in every module",
        "Rotate the signing keys before their ninety-day expiry",
        "Keep invoices in integer cents, never floating point",
        "Tag every release image with the git commit hash",
        "Page the on-call engineer only for customer-facing alerts",
        "Review feature flags older than three months each sprint",
        "Back up the orders database before each schema migration",
        "Write the postmortem within two working days of an outage",
    ];
    let children: Vec<_> = rules_to_add
        .iter()
        .map(|t| home.pms(&["lessons", "add", t]).spawn().unwrap())
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert_eq!(rules(&home).len(), 8, "{:?}", rules(&home));
}

#[test]
fn force_keeps_two_rules_that_only_look_alike() {
    let (home, _) = staged();
    home.ok(&[
        "lessons",
        "add",
        "Write a runbook for invoices before the on-call rotation starts",
    ]);
    let out = home.run(&[
        "lessons",
        "add",
        "Write a runbook for backups before the on-call rotation starts",
    ]);
    assert!(!out.status.success() && stdout(&out).contains("--force"));
    home.ok(&[
        "lessons",
        "add",
        "--force",
        "Write a runbook for backups before the on-call rotation starts",
    ]);
    assert_eq!(rules(&home).len(), 2);
}

#[test]
fn a_hand_edited_lessons_file_keeps_the_users_text() {
    let (home, ids) = staged();
    let path = home.workspace().join("_me/lessons.md");
    let mine = "# My lessons\n\nThings I wrote myself, in my own order.\n- keep this line\n\n";
    let original = std::fs::read_to_string(&path).unwrap();
    let (_, section) = original.split_once("<!-- pms:lessons:begin").unwrap();
    std::fs::write(&path, format!("{mine}<!-- pms:lessons:begin{section}")).unwrap();
    home.ok(&["lessons", "accept", &ids[0]]);
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.starts_with(mine), "{after}");
    assert_eq!(rules(&home).len(), 1);
}

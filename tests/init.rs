//! `pms init` and `pms uninstall` as a user runs them: the real binary, a
//! temporary HOME, real files.

use crate::support::{TestHome, stderr, stdout};
use serde_json::{Value, json};

const EVENTS: [&str; 8] = [
    "SessionStart",
    "UserPromptSubmit",
    "Stop",
    "PreCompact",
    "SessionEnd",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
];

fn pms_handlers(settings: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for e in EVENTS {
        for group in settings["hooks"][e].as_array().into_iter().flatten() {
            for h in group["hooks"].as_array().into_iter().flatten() {
                if h["args"][0] == "hook" {
                    out.push(h.clone());
                }
            }
        }
    }
    out
}

#[test]
fn unattended_init_creates_the_workspace_and_wires_claude_code() {
    let home = TestHome::new();
    let out = home.init(&[]);
    assert!(stdout(&out).contains("pms is set up"), "{}", stdout(&out));
    let ws = home.workspace();
    for f in [
        "_me/profile.md",
        "_me/writing-style.md",
        "_me/preferences.md",
        "_me/lessons.md",
        "_me/workflows.md",
        "_me/response-format.md",
        "CLAUDE.md",
        "config.toml",
        "product/CLAUDE.md",
        "product/content-index.md",
        "product/domain.toml",
        "growth/workflows/experiment.md",
        ".pms/manifest.json",
        ".pms/install.json",
    ] {
        assert!(ws.join(f).is_file(), "missing {f}");
    }
    assert!(ws.join("product/projects").is_dir());
    assert!(!ws.join("engineering").exists(), "only the chosen domains");
    let profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    assert!(profile.contains("Ada Lovelace") && profile.contains("- Role: PM"));

    let settings = home.read_json(".claude/settings.json");
    let handlers = pms_handlers(&settings);
    assert_eq!(
        handlers.len(),
        pms::platform::agents::claude::settings::HOOK_EVENTS.len()
    );
    for h in &handlers {
        assert_eq!(h["command"], crate::support::PMS_CANONICAL.as_str());
        assert_eq!(h["args"][2], "--workspace");
        assert_eq!(h["args"][3], ws.to_str().unwrap());
        assert!(h["timeout"].as_u64().unwrap() > 0, "explicit timeout");
    }
    let claude = home.read_json(".claude.json");
    assert_eq!(
        claude["mcpServers"]["pms"]["args"],
        json!(["serve", "--workspace", ws.to_str().unwrap()])
    );
    let pointer = std::fs::read_to_string(home.path(".config/pms/workspace")).unwrap();
    assert_eq!(pointer.trim(), ws.to_str().unwrap());
}

#[test]
fn existing_settings_keep_every_byte_of_meaning_and_get_a_backup() {
    let home = TestHome::new();
    let original = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}],\n        \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}]\n    },\n    \"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n";
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), original).unwrap();
    home.init(&[]);
    let after = std::fs::read_to_string(home.settings()).unwrap();
    let doc: Value = serde_json::from_str(&after).unwrap();
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    assert_eq!(
        doc["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert_eq!(doc["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(doc["permissions"]["allow"][0], "Bash(ls)");
    assert!(
        after.contains("\n    \"model\""),
        "indentation kept:\n{after}"
    );
    let backups: Vec<_> = std::fs::read_dir(home.path(".claude"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("pms-backup"))
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(
        std::fs::read_to_string(backups[0].path()).unwrap(),
        original
    );
}

#[test]
fn running_init_twice_adds_nothing_and_overwrites_nothing() {
    let home = TestHome::new();
    home.init(&[]);
    std::fs::write(
        home.workspace().join("_me/profile.md"),
        "I rewrote my profile.",
    )
    .unwrap();
    let settings_before = std::fs::read(home.settings()).unwrap();
    let claude_before = std::fs::read(home.path(".claude.json")).unwrap();
    let out = home.init(&[]);
    assert_eq!(std::fs::read(home.settings()).unwrap(), settings_before);
    assert_eq!(
        std::fs::read(home.path(".claude.json")).unwrap(),
        claude_before
    );
    assert_eq!(
        std::fs::read_to_string(home.workspace().join("_me/profile.md")).unwrap(),
        "I rewrote my profile."
    );
    // Issue 24, item 7: nothing to change is said in one line, not as a
    // plan of every file left as it is.
    let text = stdout(&out);
    assert!(text.contains("Nothing to change: ~/pms"), "{text}");
    assert!(
        !text.contains("This is what pms will do") && !text.contains("_me/profile.md"),
        "{text}"
    );
    let n_backups = std::fs::read_dir(home.path(".claude"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("pms-backup"))
        .count();
    assert_eq!(
        n_backups, 0,
        "an unchanged file is not backed up or rewritten"
    );
}

#[test]
fn invalid_settings_json_stops_init_before_any_change() {
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n";
    std::fs::write(home.settings(), broken).unwrap();
    let ws = home.workspace();
    let out = home.run(&["init", "--yes", "--dir", ws.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(home.settings().to_str().unwrap()), "{err}");
    assert!(err.contains("line 3, column 13"), "{err}");
    assert!(err.contains("changed nothing"), "{err}");
    assert_eq!(std::fs::read_to_string(home.settings()).unwrap(), broken);
    assert!(!ws.exists(), "the workspace was not created");
    assert!(!home.path(".claude.json").exists());
    // an install that leaves Claude Code out does not read the file at all
    let out = home.run(&[
        "init",
        "--yes",
        "--no-index",
        "--agent",
        "openclaw",
        "--dir",
        ws.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(home.settings()).unwrap(), broken);
}

#[test]
fn hooks_that_are_not_an_object_are_refused_with_the_fix() {
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), r#"{"hooks": ["oops"]}"#).unwrap();
    let out = home.run(&["init", "--yes", "--dir", home.workspace().to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("\"hooks\" is an array"),
        "{}",
        stderr(&out)
    );
    assert!(!home.workspace().exists());
}

#[test]
fn dry_run_shows_the_plan_and_changes_nothing() {
    let home = TestHome::new();
    let before = crate::support::snapshot(home.home());
    let ws = home.workspace();
    let out = home.ok(&[
        "init",
        "--yes",
        "--dry-run",
        "--domains",
        "engineering",
        "--dir",
        ws.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(text.contains("create engineering/CLAUDE.md"), "{text}");
    assert!(
        text.contains("Hooks in ~/.claude/settings.json: add SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd"),
        "{text}"
    );
    assert!(text.contains("Dry run: nothing was changed"), "{text}");
    assert_eq!(crate::support::snapshot(home.home()), before);
}

#[test]
fn uninstall_gives_back_the_original_settings() {
    let home = TestHome::new();
    let original = json!({
        "env": {"A": "1"},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
        "theme": "dark"
    });
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(
        home.settings(),
        serde_json::to_string_pretty(&original).unwrap(),
    )
    .unwrap();
    std::fs::write(
        home.path(".claude.json"),
        r#"{"numStartups": 4, "projects": {}}"#,
    )
    .unwrap();
    home.init(&[]);
    home.init(&["--scope", "user"]); // re-running keeps the record of what the first run created
    let out = home.ok(&["uninstall", "--yes"]);
    assert!(
        stdout(&out).contains("Removed 8 pms hooks"),
        "{}",
        stdout(&out)
    );
    let after: Value = home.read_json(".claude/settings.json");
    assert_eq!(
        serde_json::to_string(&after).unwrap(),
        serde_json::to_string(&original).unwrap(),
        "same keys, same order, same values"
    );
    let claude = home.read_json(".claude.json");
    assert_eq!(claude, json!({"numStartups": 4, "projects": {}}));
    assert!(
        home.workspace().join("_me/profile.md").exists(),
        "user data stays"
    );
    // the pointer stays with the workspace: `uninstall --purge` later still finds it
    assert!(home.path(".config/pms/workspace").exists());
    home.ok(&["uninstall", "--purge", "--yes"]);
    assert!(!home.workspace().exists());
    assert!(!home.path(".config/pms/workspace").exists());
}

/// Issue 27: with no settings.json before init, uninstall left `{}`. The
/// files init created (settings.json, ~/.claude.json) go, re-run or not,
/// and leave no backup of themselves behind.
#[test]
fn uninstall_deletes_the_files_init_created() {
    let home = TestHome::new();
    home.init(&[]);
    home.init(&[]);
    assert!(home.settings().is_file() && home.path(".claude.json").is_file());
    home.ok(&[
        "uninstall",
        "--yes",
        "--workspace",
        home.workspace().to_str().unwrap(),
    ]);
    assert!(
        !home.settings().exists(),
        "settings.json pms created is left"
    );
    assert!(!home.path(".claude.json").exists());
    let left: Vec<_> = std::fs::read_dir(home.path(".claude"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("settings.json"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 27: an empty object written across lines (`"hooks": {\n  }`, what
/// deleting the last hook by hand leaves) came back as `{}` after init and
/// uninstall, in settings.json and ~/.claude.json alike. The install record
/// keeps how it was written; a second init must not forget it.
#[test]
fn empty_objects_written_across_lines_come_back_byte_for_byte() {
    let home = TestHome::new();
    let settings = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n    ]\n  },\n  \"env\": {\n\n  }\n}\n";
    let claude_json = "{\r\n\t\"numStartups\": 3,\r\n\t\"mcpServers\": {\r\n\t}\r\n}";
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), settings).unwrap();
    std::fs::write(home.path(".claude.json"), claude_json).unwrap();
    home.init(&["--no-index"]);
    assert_eq!(
        pms_handlers(&home.read_json(".claude/settings.json")).len(),
        EVENTS.len()
    );
    home.init(&["--no-index"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(std::fs::read_to_string(home.settings()).unwrap(), settings);
    assert_eq!(
        std::fs::read_to_string(home.path(".claude.json")).unwrap(),
        claude_json
    );
    // and with an empty settings object, across lines, that init fills
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), "{\n}\n").unwrap();
    home.init(&["--no-index"]);
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(std::fs::read_to_string(home.settings()).unwrap(), "{\n}\n");
}

#[test]
fn purge_deletes_the_workspace_only_when_confirmed() {
    let home = TestHome::new();
    home.init(&[]);
    let ws = home.workspace();
    let out = home.run(&["uninstall", "--purge", "--workspace", ws.to_str().unwrap()]);
    assert!(!out.status.success(), "no terminal and no --yes: refuse");
    assert!(ws.exists());
    home.init(&[]);
    home.ok(&[
        "uninstall",
        "--purge",
        "--yes",
        "--workspace",
        ws.to_str().unwrap(),
    ]);
    assert!(!ws.exists());
}

#[test]
fn a_moved_binary_replaces_the_stale_hooks_instead_of_adding_more() {
    let home = TestHome::new();
    let old_dir = home.path("old-bin");
    std::fs::create_dir_all(&old_dir).unwrap();
    let old = old_dir.join("pms");
    std::fs::copy(crate::support::PMS, &old).unwrap();
    let ws = home.workspace();
    let run_old = || {
        std::process::Command::new(&old)
            .args([
                "init",
                "--yes",
                "--domains",
                "product",
                "--dir",
                ws.to_str().unwrap(),
            ])
            .env_clear()
            .env("HOME", home.home())
            .env("PATH", home.path_var())
            .output()
    };
    // A test thread forking while the copy was open for writing leaves the
    // child holding it, and exec answers "text file busy" until it exits.
    let status = (0..50)
        .find_map(|_| match run_old() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(100));
                None
            }
            other => Some(other.unwrap()),
        })
        .expect("the copied binary runs within 5 s");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let before = pms_handlers(&home.read_json(".claude/settings.json"));
    assert!(before.iter().all(|h| h["command"] == old.to_str().unwrap()));
    home.init(&[]);
    let after = pms_handlers(&home.read_json(".claude/settings.json"));
    assert_eq!(after.len(), EVENTS.len(), "replaced, not duplicated");
    assert!(
        after
            .iter()
            .all(|h| h["command"] == crate::support::PMS_CANONICAL.as_str())
    );
    let claude = home.read_json(".claude.json");
    assert_eq!(
        claude["mcpServers"]["pms"]["command"],
        crate::support::PMS_CANONICAL.as_str()
    );
}

#[test]
fn workspace_scope_writes_the_workspace_settings_and_moving_scope_cleans_up() {
    let home = TestHome::new();
    home.init(&["--scope", "workspace"]);
    let local = home.workspace().join(".claude/settings.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&local).unwrap()).unwrap();
    assert_eq!(
        pms_handlers(&doc).len(),
        pms::platform::agents::claude::settings::HOOK_EVENTS.len()
    );
    assert!(!home.settings().exists(), "user settings untouched");
    home.init(&["--scope", "user"]);
    assert_eq!(
        pms_handlers(&home.read_json(".claude/settings.json")).len(),
        EVENTS.len()
    );
    assert!(
        !local.exists(),
        "moved, not copied: the file the first init created there is gone"
    );
}

#[test]
fn codex_is_registered_when_on_path_and_not_with_no_codex() {
    let mut home = TestHome::new();
    let bin = home.path("fakebin");
    crate::support::write_script(&bin.join("codex"), "#!/bin/sh\nexit 0\n");
    home.path_prefix.push(bin);
    std::fs::create_dir_all(home.path(".codex")).unwrap();
    let user = "# my settings\nmodel = \"o5\"\n";
    std::fs::write(home.path(".codex/config.toml"), user).unwrap();
    home.init(&["--no-codex"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        user
    );
    home.init(&[]);
    let text = std::fs::read_to_string(home.path(".codex/config.toml")).unwrap();
    assert!(text.starts_with(user), "{text}");
    assert!(text.contains("[mcp_servers.pms]"), "{text}");
    home.ok(&["uninstall", "--yes"]);
    assert_eq!(
        std::fs::read_to_string(home.path(".codex/config.toml")).unwrap(),
        user
    );
}

#[test]
fn without_a_terminal_init_asks_for_yes_instead_of_hanging() {
    let home = TestHome::new();
    let out = home.run(&["init"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert!(!home.workspace().exists());
}

#[test]
fn a_missing_home_is_a_clear_error() {
    let out = std::process::Command::new(crate::support::PMS)
        .args(["init", "--yes"])
        .env_clear()
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("HOME is not set"), "{}", stderr(&out));
}

#[test]
fn unknown_domain_is_refused_with_the_choices() {
    let home = TestHome::new();
    let out = home.run(&[
        "init",
        "--yes",
        "--domains",
        "astrology",
        "--dir",
        home.workspace().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("astrology") && stderr(&out).contains("engineering"));
}

#[test]
fn session_start_hook_returns_the_profile() {
    let home = TestHome::new();
    home.init(&[]);
    let out = home.hook(
        "session-start",
        &json!({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("Ada Lovelace")
    );
}

#[test]
fn a_hook_without_a_workspace_fails_open_and_logs() {
    let home = TestHome::new();
    let out = home
        .pms(&["hook", "session-start", "--workspace", "/nonexistent/ws"])
        .output()
        .unwrap();
    assert!(out.status.success(), "exit 0 whatever happens");
    assert!(out.stdout.is_empty(), "no output: {}", stdout(&out));
    let log = std::fs::read_to_string(home.path(".config/pms/hooks.log")).unwrap();
    assert!(
        log.contains("session-start") && log.contains("/nonexistent/ws"),
        "{log}"
    );
}

/// A dotfiles setup: settings.json is a link into a repository. init and
/// uninstall write through the link (it stays a link); a dangling link gets
/// its target created; a read-only settings file is refused by name.
#[test]
fn linked_dangling_and_read_only_settings_files() {
    use std::os::unix::fs::PermissionsExt;
    let home = TestHome::new();
    let dotfiles = home.path("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    let original = "{\n  \"model\": \"opus\"\n}\n";
    std::fs::write(dotfiles.join("settings.json"), original).unwrap();
    std::os::unix::fs::symlink("../dotfiles/settings.json", home.settings()).unwrap();
    home.init(&["--no-index"]);
    assert!(
        std::fs::symlink_metadata(home.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let target = std::fs::read_to_string(dotfiles.join("settings.json")).unwrap();
    assert!(target.contains("SessionStart"), "{target}");
    home.ok(&["uninstall", "--yes"]);
    assert!(
        std::fs::symlink_metadata(home.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(dotfiles.join("settings.json")).unwrap(),
        original
    );

    // a dangling link: the target is created, the link kept; uninstall
    // deletes the target it created, and the link dangles as it did
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::create_dir_all(home.path("dotfiles")).unwrap();
    std::os::unix::fs::symlink(home.path("dotfiles/new-settings.json"), home.settings()).unwrap();
    home.init(&["--no-index"]);
    assert!(
        std::fs::symlink_metadata(home.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(home.path("dotfiles/new-settings.json").is_file());
    home.ok(&["uninstall", "--yes"]);
    assert!(
        std::fs::symlink_metadata(home.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!home.path("dotfiles/new-settings.json").exists());

    // a read-only settings file is refused, named, and left as it was
    let home = TestHome::new();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    std::fs::write(home.settings(), original).unwrap();
    std::fs::set_permissions(home.settings(), std::fs::Permissions::from_mode(0o444)).unwrap();
    let ws = home.workspace();
    let out = home.run(&["init", "--yes", "--no-index", "--dir", ws.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("settings.json") && err.contains("read-only"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(home.settings()).unwrap(), original);
    assert!(
        !ws.exists(),
        "refused before any change, the workspace included"
    );
}

/// Issue 27: a dotfile manager hard-links settings.json (and ~/.claude.json)
/// to its own copy. pms wrote by rename, which points the name at a new file
/// and leaves the dotfiles copy behind: init and uninstall must write into
/// the file itself, so both names see every change.
#[test]
fn hard_linked_settings_files_keep_their_link() {
    use std::os::unix::fs::MetadataExt;
    let home = TestHome::new();
    let dotfiles = home.path("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(home.path(".claude")).unwrap();
    let settings = "{\n  \"model\": \"opus\",\n  \"theme\": \"dark\"\n}\n";
    let claude_json = "{\"numStartups\": 3, \"mcpServers\": {\"other\": {\"command\": \"x\"}}}\n";
    let linked = [
        (dotfiles.join("settings.json"), home.settings(), settings),
        (
            dotfiles.join("claude.json"),
            home.path(".claude.json"),
            claude_json,
        ),
    ];
    for (copy, name, text) in &linked {
        std::fs::write(copy, text).unwrap();
        std::fs::hard_link(copy, name).unwrap();
    }
    let same_file = |home_name: &std::path::Path, copy: &std::path::Path| {
        let (a, b) = (
            std::fs::metadata(home_name).unwrap(),
            std::fs::metadata(copy).unwrap(),
        );
        assert_eq!(
            (a.ino(), a.nlink()),
            (b.ino(), 2),
            "{home_name:?} lost its link"
        );
    };
    home.init(&["--no-index"]);
    for (copy, name, _) in &linked {
        same_file(name, copy);
    }
    assert_eq!(
        pms_handlers(
            &serde_json::from_str(&std::fs::read_to_string(&linked[0].0).unwrap()).unwrap()
        )
        .len(),
        EVENTS.len()
    );
    let servers: Value =
        serde_json::from_str(&std::fs::read_to_string(&linked[1].0).unwrap()).unwrap();
    assert_eq!(servers["mcpServers"]["pms"]["args"][0], "serve");
    home.ok(&["uninstall", "--yes"]);
    for (copy, name, text) in &linked {
        same_file(name, copy);
        assert_eq!(&std::fs::read_to_string(copy).unwrap(), text);
    }
}

/// Issue 14's defaults, as `pms init --yes` takes them: the name from
/// `git config user.name` (not "Me"), the domains from the role (a product
/// manager does not get engineering), and the first language as the default
/// with the others also fine (not "Write in English, Deutsch.").
#[test]
fn defaults_come_from_git_the_role_and_a_default_language() {
    let home = TestHome::new();
    std::fs::write(home.path(".gitconfig"), "[user]\n\tname = Grace Hopper\n").unwrap();
    let ws = home.workspace();
    home.ok(&[
        "init",
        "--yes",
        "--no-index",
        "--role",
        "Product manager",
        "--languages",
        "English,Deutsch",
        "--dir",
        ws.to_str().unwrap(),
    ]);
    let profile = std::fs::read_to_string(ws.join("_me/profile.md")).unwrap();
    assert!(profile.contains("- Name: Grace Hopper"), "{profile}");
    assert!(ws.join("product/CLAUDE.md").is_file());
    assert!(!ws.join("engineering").exists());
    let format = std::fs::read_to_string(ws.join("_me/response-format.md")).unwrap();
    assert!(
        format.contains("Write in English (also fine: Deutsch)."),
        "{format}"
    );
    // run again with no answers at all: everything is kept
    let before = crate::support::snapshot(&ws);
    home.ok(&["init", "--yes", "--no-index"]);
    assert_eq!(crate::support::snapshot(&ws), before);
}

/// Issue 11: init says in one line that Claude Code's auto-memory is on and
/// how pms works with it, and leaves it on; with auto-memory off it says so.
#[test]
fn init_says_how_it_works_with_claude_codes_auto_memory() {
    let home = TestHome::new();
    let out = home.init(&[]);
    let said = crate::support::stdout(&out);
    assert!(
        said.contains("Auto-memory") && said.contains("stays on"),
        "{said}"
    );
    let settings = std::fs::read_to_string(home.settings()).unwrap();
    assert!(!settings.contains("autoMemoryEnabled"), "{settings}");

    let off = TestHome::new();
    let out = off
        .pms(&[
            "init",
            "--yes",
            "--no-index",
            "--dir",
            off.workspace().to_str().unwrap(),
        ])
        .env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = crate::support::stdout(&out);
    assert!(said.contains("pms reads none of it"), "{said}");
}

/// Issue 24, item 8: the plan said "claude is not on PATH", and the closing
/// steps then said "Start Claude Code anywhere (`claude`)". Without the
/// program the step says to install it first; with it, to start it.
#[test]
fn the_closing_step_says_install_first_when_the_agent_is_not_on_path() {
    let home = TestHome::new();
    let said = stdout(&home.init(&["--no-index"]));
    assert!(said.contains("claude is not on PATH"), "{said}");
    assert!(
        said.contains("Install Claude Code (`claude` is not on PATH yet), then start Claude Code"),
        "{said}"
    );
    assert!(!said.contains("Start Claude Code"), "{said}");

    let mut found = TestHome::new();
    let bin = found.path("fakebin");
    crate::support::write_script(&bin.join("claude"), "#!/bin/sh\nexit 0\n");
    found.path_prefix.push(bin);
    let said = stdout(&found.init(&["--no-index", "--agent", "claude"]));
    assert!(
        said.contains("2. Start Claude Code anywhere (`claude`)"),
        "{said}"
    );
    assert!(!said.contains("not on PATH yet"), "{said}");
}

//! The checks of the wiring into each agent: Claude Code's hooks and MCP
//! registration, Codex's hooks, trust and MCP server, OpenClaw's plugin,
//! and each hook run once on a sample payload.

use super::{Check, Fix};
use crate::platform::agents::Agent;
use crate::platform::agents::claude::mcp_registration as mcp;
use crate::platform::agents::claude::settings::{self, HOOK_EVENTS};
use crate::platform::agents::json_file::JsonFile;
use crate::platform::agents::wiring::{self, InstallRecord};
use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Codex: pms's hooks in hooks.json, whether Codex trusts them and runs
/// hooks at all, and the MCP server in config.toml.
pub(crate) fn codex_checks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    use crate::platform::agents::codex::{config as cfg, hooks as ch};
    let record = InstallRecord::load(ws);
    let hooks_path = record
        .as_ref()
        .and_then(|r| r.codex.as_ref())
        .map_or_else(|| ch::hooks_path(&env.codex_home), |c| c.hooks.clone());
    let config_path = env.codex_config();
    let shown = env.display(&hooks_path);
    let mut out = Vec::new();
    let doc = match JsonFile::load(&hooks_path) {
        Ok(f) => f.doc,
        Err(e) => {
            return vec![
                Check::fail("codex.hooks", e.to_string())
                    .hint("correct the JSON, then `pms verify --fix`"),
            ];
        }
    };
    let mine = settings::installed_handlers(&doc);
    let mut problems = Vec::new();
    for e in ch::CODEX_EVENTS {
        let want = ch::handler(binary, &ws.root, &e);
        match mine.iter().find(|(ev, _)| ev == e.name) {
            None => problems.push(format!("{} missing", e.name)),
            Some((_, h)) if h["command"] != want["command"] => problems.push(format!(
                "{} runs {}",
                e.name,
                h["command"].as_str().unwrap_or("?")
            )),
            Some(_) => {}
        }
    }
    let dups = mine.len().saturating_sub(ch::CODEX_EVENTS.len());
    if dups > 0 && problems.is_empty() {
        problems.push(crate::platform::plural::count(
            dups,
            "duplicate handler",
            "duplicate handlers",
        ));
    }
    out.push(if problems.is_empty() {
        Check::ok(
            "codex.hooks",
            format!(
                "all {} hooks in {shown}, running this binary on this workspace",
                ch::CODEX_EVENTS.len()
            ),
        )
    } else {
        Check::fail(
            "codex.hooks",
            format!("in {shown}: {}", problems.join("; ")),
        )
        .fixable(Fix::MergeHooks)
    });
    let states = cfg::hook_states(&config_path);
    let trust = ch::trust(&hooks_path, &doc, &states);
    let not: Vec<String> = trust
        .iter()
        .filter(|(_, t)| *t != ch::Trust::Trusted)
        .map(|(e, t)| {
            let why = match t {
                ch::Trust::Untrusted => "not reviewed",
                ch::Trust::Modified => "changed since reviewed",
                ch::Trust::Disabled => "turned off",
                ch::Trust::Trusted => "",
            };
            format!("{e} ({why})")
        })
        .collect();
    if !trust.is_empty() {
        out.push(if not.is_empty() {
            Check::ok(
                "codex.trust",
                format!("Codex trusts all {} pms hooks", trust.len()),
            )
        } else {
            Check::warn(
                "codex.trust",
                format!(
                    "Codex runs no hook it has not been told to trust: {}",
                    not.join(", ")
                ),
            )
            .hint("start `codex` and choose \"Trust all and continue\" when it asks to review hooks (or type /hooks and trust the pms hooks)")
        });
    }
    out.push(match cfg::hooks_feature(&config_path) {
        cfg::HooksFeature::On => Check::ok("codex.feature", "Codex's hooks feature is on"),
        cfg::HooksFeature::Off(keys) => Check::warn(
            "codex.feature",
            format!(
                "{} turns hooks off ([features] {} = false): Codex gets the memory tools only",
                env.display(&config_path),
                keys.join(", ")
            ),
        )
        .hint("set it to true, or `pms init --agent codex --enable-codex-hooks`"),
    });
    let want_args: Vec<String> = vec![
        "serve".into(),
        "--workspace".into(),
        ws.root.to_string_lossy().into_owned(),
    ];
    out.push(match cfg::registered_server(&config_path) {
        Some((cmd, args)) if Path::new(&cmd) == binary && args == want_args => Check::ok(
            "codex.mcp",
            "[mcp_servers.pms] runs this binary on this workspace",
        ),
        Some((cmd, _)) => Check::fail(
            "codex.mcp",
            format!("[mcp_servers.pms] points elsewhere: {cmd}"),
        )
        .fixable(Fix::RegisterMcp),
        None => Check::fail(
            "codex.mcp",
            format!("no [mcp_servers.pms] in {}", env.display(&config_path)),
        )
        .fixable(Fix::RegisterMcp),
    });
    out
}

/// OpenClaw: the plugin's files and its entry in openclaw.json.
pub(crate) fn openclaw_checks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    let h = crate::platform::agents::openclaw::health(env, binary, &ws.root);
    let dir = env.display(&crate::platform::agents::openclaw::plugin_dir(env));
    vec![
        if h.stale_files.is_empty() {
            Check::ok(
                "openclaw.plugin",
                format!("the pms plugin in {dir} runs this binary on this workspace"),
            )
        } else {
            Check::fail(
                "openclaw.plugin",
                format!(
                    "in {dir}, missing or out of date: {}",
                    h.stale_files.join(", ")
                ),
            )
            .fixable(Fix::MergeHooks)
        },
        if h.config_problems.is_empty() {
            Check::ok(
                "openclaw.config",
                format!(
                    "plugin `pms` enabled with conversation access in {}",
                    env.display(&env.openclaw_config)
                ),
            )
        } else {
            Check::fail("openclaw.config", h.config_problems.join("; "))
                .fixable(Fix::MergeHooks)
                .hint("restart the gateway after a change (`openclaw gateway restart`)")
        },
    ]
}

pub(crate) fn hooks(env: &HostEnv, ws: &Workspace, binary: &Path) -> Vec<Check> {
    let main = wiring::settings_path(env, ws);
    let other = wiring::other_settings(env, ws, &main);
    let shown = env.display(&main);
    let doc = match JsonFile::load(&main) {
        Ok(f) => f.doc,
        Err(e) => {
            return vec![
                Check::fail("hooks", e.to_string())
                    .hint("correct the JSON, then `pms verify --fix`"),
            ];
        }
    };
    let mine = settings::installed_handlers(&doc);
    let theirs = JsonFile::load(&other)
        .map(|f| settings::installed_handlers(&f.doc))
        .unwrap_or_default();
    let mut out = Vec::new();
    let missing: Vec<&str> = HOOK_EVENTS
        .iter()
        .filter(|e| !mine.iter().any(|(ev, _)| ev == e.name))
        .map(|e| e.name)
        .collect();
    out.push(if missing.is_empty() {
        Check::ok(
            "hooks.present",
            format!("all {} hooks in {shown}", HOOK_EVENTS.len()),
        )
    } else if mine.is_empty() {
        Check::fail(
            "hooks.present",
            format!("no pms hook in {shown} (0 of {})", HOOK_EVENTS.len()),
        )
        .fixable(Fix::MergeHooks)
    } else {
        Check::fail(
            "hooks.present",
            format!("missing in {shown}: {}", missing.join(", ")),
        )
        .fixable(Fix::MergeHooks)
    });
    // With no pms hook here the next checks have nothing to look at; an
    // "ok" that reads like a finding ("hooks run this binary") beside
    // "0 of 8" misled (issue 24). They stay in the report (its shape is
    // stable) and say they checked nothing.
    let nothing_here = format!("nothing to check: no pms hook in {shown}");
    // Stale: not what `pms init` would write now for its event.
    let stale: Vec<String> = mine
        .iter()
        .filter(|(e, h)| {
            HOOK_EVENTS
                .iter()
                .find(|ev| ev.name == e)
                .is_some_and(|ev| {
                    let want = settings::pms_handler(binary, &ws.root, ev);
                    h["command"] != want["command"] || h["args"] != want["args"]
                })
        })
        .map(|(e, h)| format!("{e} → {}", h["command"].as_str().unwrap_or("?")))
        .collect();
    out.push(if mine.is_empty() {
        Check::ok("hooks.binary", nothing_here.clone())
    } else if stale.is_empty() {
        Check::ok("hooks.binary", "hooks run this binary on this workspace")
    } else {
        Check::fail(
            "hooks.binary",
            format!(
                "stale hooks (old binary path or workspace): {}",
                stale.join(", ")
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let untimed: Vec<&String> = mine
        .iter()
        .filter(|(_, h)| h.get("timeout").is_none())
        .map(|(e, _)| e)
        .collect();
    out.push(if mine.is_empty() {
        Check::ok("hooks.timeouts", nothing_here.clone())
    } else if untimed.is_empty() {
        Check::ok("hooks.timeouts", "every hook declares a timeout")
    } else {
        Check::warn(
            "hooks.timeouts",
            format!(
                "no timeout on: {:?} (SessionEnd then gets only 1.5 s)",
                untimed
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let mut dups = Vec::new();
    for e in HOOK_EVENTS {
        let n = mine
            .iter()
            .chain(theirs.iter())
            .filter(|(ev, _)| ev == e.name)
            .count();
        if n > 1 {
            dups.push(format!("{} ×{n}", e.name));
        }
    }
    out.push(if mine.is_empty() && theirs.is_empty() {
        Check::ok(
            "hooks.duplicates",
            format!(
                "nothing to check: no pms hook in {shown} or {}",
                env.display(&other)
            ),
        )
    } else if dups.is_empty() {
        Check::ok("hooks.duplicates", "one pms handler per event")
    } else {
        Check::fail(
            "hooks.duplicates",
            format!(
                "pms runs more than once per event ({}), counting {}",
                dups.join(", "),
                env.display(&other)
            ),
        )
        .fixable(Fix::MergeHooks)
    });
    let plugin_copies = plugin_hooks(env);
    if !plugin_copies.is_empty() {
        out.push(
            Check::warn(
                "hooks.plugin",
                format!(
                    "a plugin also registers pms hooks: {}",
                    plugin_copies.join(", ")
                ),
            )
            .hint("disable that plugin (`claude plugin`), or its hooks run beside these"),
        );
    }
    out
}

/// Plugin hook files that run `pms hook`.
pub(crate) fn plugin_hooks(env: &HostEnv) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(dir: &Path, depth: usize, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() && depth < 6 {
                walk(&p, depth + 1, out);
            } else if p.file_name().is_some_and(|n| n == "hooks.json")
                && let Ok(text) = std::fs::read_to_string(&p)
                && let Ok(doc) = serde_json::from_str::<Value>(&text)
                && !settings::installed_handlers(&doc).is_empty()
            {
                out.push(p.display().to_string());
            }
        }
    }
    walk(&env.claude_dir.join("plugins"), 0, &mut out);
    out
}

pub(crate) fn mcp_registration(env: &HostEnv, ws: &Workspace, binary: &Path) -> Check {
    let want = mcp::server_entry(binary, &ws.root);
    match mcp::read_entry(&env.claude_json) {
        Err(e) => Check::fail("mcp.registered", e.to_string()),
        Ok(None) => Check::fail(
            "mcp.registered",
            format!("no `pms` MCP server in {}", env.display(&env.claude_json)),
        )
        .fixable(Fix::RegisterMcp),
        Ok(Some(cur)) if mcp::same_server(&cur, &want) => Check::ok(
            "mcp.registered",
            "user-scope MCP server `pms` runs this binary on this workspace",
        ),
        Ok(Some(cur)) => Check::fail(
            "mcp.registered",
            format!(
                "the `pms` MCP server points elsewhere: {} {}",
                cur["command"], cur["args"]
            ),
        )
        .fixable(Fix::RegisterMcp),
    }
}

pub(crate) fn mcp_answers(ws: &Workspace, binary: &Path) -> Check {
    let t = Instant::now();
    match super::mcp_probe::probe(binary, &ws.root, Duration::from_secs(2)) {
        Ok(tools) => Check::ok(
            "mcp.answers",
            format!(
                "`pms serve` answered initialize and tools/list in {} ms ({} tools)",
                t.elapsed().as_millis(),
                tools.len()
            ),
        ),
        Err(e) => Check::fail("mcp.answers", format!("`pms serve` did not answer: {e}"))
            .hint("run `pms serve --workspace <dir>` by hand and read its error"),
    }
}

/// Runs each hook once, as Claude Code would, with a sample payload.
/// When Codex is among `agents`, the session-start injection is also
/// measured as Codex counts it (bytes), run with `--agent codex`.
pub(crate) fn run_hooks(ws: &Workspace, binary: &Path, agents: &[Agent]) -> Vec<Check> {
    let codex = agents.contains(&Agent::Codex);
    let sid = format!("pms-verify-{}", std::process::id());
    let log_before = std::fs::metadata(ws.hook_log())
        .map(|m| m.len())
        .unwrap_or(0);
    let mut out = Vec::new();
    let mut results = Vec::new();
    let mut cap_check = None;
    for e in HOOK_EVENTS {
        let mut payload = json!({"session_id": sid, "hook_event_name": e.name, "cwd": ws.root});
        match e.arg {
            "session-start" => payload["source"] = json!("startup"),
            "user-prompt" => payload["prompt"] = json!("verify that the pms hooks answer"),
            "stop" => payload["last_assistant_message"] = json!("Done."),
            "pre-compact" => payload["trigger"] = json!("manual"),
            _ => payload["reason"] = json!("other"),
        }
        let t = Instant::now();
        let run = run_one(
            binary,
            ws,
            &[e.arg],
            &payload,
            Duration::from_secs(u64::from(e.timeout_secs)),
        );
        let took = t.elapsed();
        match run {
            Err(err) => results.push(format!("{}: {err}", e.arg)),
            Ok(stdout) if stdout.trim().is_empty() => {}
            Ok(stdout) => match serde_json::from_str::<Value>(stdout.trim()) {
                Ok(v) if v["hookSpecificOutput"]["hookEventName"] == e.name => {
                    if e.arg == "session-start" {
                        let ctx = v["hookSpecificOutput"]["additionalContext"]
                            .as_str()
                            .unwrap_or("");
                        cap_check = Some(ctx.encode_utf16().count());
                    }
                }
                _ => results.push(format!(
                    "{}: output is not one JSON object for {}",
                    e.arg, e.name
                )),
            },
        }
        if took > Duration::from_secs(u64::from(e.timeout_secs)) {
            results.push(format!(
                "{} took {} ms, over its {} s timeout",
                e.arg,
                took.as_millis(),
                e.timeout_secs
            ));
        }
    }
    let codex_bytes = codex.then(|| {
        let payload = json!({"session_id": sid, "hook_event_name": "SessionStart", "cwd": ws.root, "source": "startup"});
        run_one(binary, ws, &["session-start", "--agent", "codex"], &payload, Duration::from_secs(10))
            .ok()
            .and_then(|out| serde_json::from_str::<Value>(out.trim()).ok())
            .and_then(|v| {
                v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .map(str::len)
            })
    });
    crate::memory::sessions::state::SessionState::remove(ws, &sid);
    let logged = std::fs::read_to_string(ws.hook_log())
        .map(|t| {
            t.get(log_before as usize..)
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_default();
    if !logged.is_empty() {
        results.push(format!(
            "errors logged: {}",
            logged.lines().next().unwrap_or("")
        ));
    }
    out.push(if results.is_empty() {
        Check::ok(
            "hooks.run",
            "each hook ran on a sample payload and answered correctly",
        )
    } else {
        Check::fail("hooks.run", results.join("; ")).hint("see .pms/logs/hooks.log")
    });
    out.push(match (cap_check, codex_bytes) {
        (_, Some(None)) => Check::fail("hooks.cap", "session-start for Codex gave no injection"),
        (_, Some(Some(b))) if b >= 10_000 => Check::fail("hooks.cap", format!("the session-start injection for Codex is {b} bytes: Codex shows only a preview over 10,000"))
            .hint("lower hooks.budget_chars in config.toml"),
        (Some(n), Some(Some(b))) if n < 10_000 => Check::ok("hooks.cap", format!("the session-start injection is {n} characters (Claude Code's cap: 10,000), {b} bytes for Codex (its cap: 10,000 bytes)")),
        (cap, _) => cap_message(cap),
    });
    out
}

pub(crate) fn cap_message(cap_check: Option<usize>) -> Check {
    match cap_check {
        Some(n) if n < 10_000 => Check::ok("hooks.cap", format!("the session-start injection is {n} characters (Claude Code's cap: 10,000)")),
        Some(n) => Check::fail("hooks.cap", format!("the session-start injection is {n} characters: Claude Code shows only a preview over 10,000"))
            .hint("lower hooks.budget_chars in config.toml"),
        None => Check::fail("hooks.cap", "session-start gave no injection"),
    }
}

pub(crate) fn run_one(
    binary: &Path,
    ws: &Workspace,
    hook_args: &[&str],
    payload: &Value,
    limit: Duration,
) -> Result<String, String> {
    use std::io::{Read, Write};
    let mut child = Command::new(binary)
        .arg("hook")
        .arg(hook_args[0])
        .arg("--workspace")
        .arg(&ws.root)
        .args(&hook_args[1..])
        .env("PMS_NO_BACKGROUND", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(payload.to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let mut s = String::new();
            if let Some(mut o) = child.stdout.take() {
                let _ = o.read_to_string(&mut s);
            }
            return if status.success() {
                Ok(s)
            } else {
                Err(format!("exited with {status}"))
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(format!("no answer within {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

//! `pms init`: the guided setup. Every question has a flag, so the same
//! setup runs unattended with `--yes`; without a terminal and without
//! `--yes`, init stops instead of waiting for answers that cannot come.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use dialoguer::theme::ColorfulTheme;
use dialoguer::{Confirm, Input, MultiSelect, Select};
use indicatif::{ProgressBar, ProgressStyle};

use crate::agent::Agent;
use crate::cli::{InitArgs, ScopeArg};
use crate::codex::config::HooksFeature;
use crate::context::Context;
use crate::env::{self, HostEnv};
use crate::install::{self, InitOptions};
use crate::upkeep::{self, IndexLock, ModelDownload};
use crate::wiring::{CodexHooksFeature, Scope};
use crate::workspace::domains::{self, DomainSpec};
use crate::workspace::scaffold::Answers;

const DEFAULT_DOMAINS: [&str; 3] = ["engineering", "research", "writing"];
const DEFAULT_ROLE: &str = "Engineer";
const DEFAULT_LANGUAGE: &str = "English";
const TONES: [&str; 4] = [
    "Direct and concise",
    "Warm and conversational",
    "Formal and precise",
    "Plain and friendly",
];

pub fn run(args: &InitArgs) -> Result<ExitCode> {
    let catalog = domains::catalog();
    if args.list_domains {
        for d in &catalog {
            println!("{:<12} {} — {}", d.id, d.title, d.description);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let env = HostEnv::from_process()?;
    let interactive = !args.yes;
    if interactive && !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        bail!(
            "pms init asks its questions in a terminal, and this is not one.\n  Fix: run it in a terminal, or answer with flags: pms init --yes --name \"Your Name\" --domains product,writing (see pms init --help)"
        );
    }
    let theme = ColorfulTheme::default();
    let asker = Asker {
        interactive,
        theme: &theme,
    };
    if interactive {
        eprintln!(
            "pms setup: a few questions, then a summary of every change before anything is written.\n"
        );
    }
    let opts = ask(args, &asker, &env, &catalog)?;
    let scope = opts.scope;
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let plan = install::plan(env.clone(), opts, &today)?;
    show_plan(&plan);
    if args.dry_run {
        println!("\nDry run: nothing was changed.");
        return Ok(ExitCode::SUCCESS);
    }
    if interactive && !asker.confirm("Apply these changes?", true)? {
        println!("Cancelled: nothing was changed.");
        return Ok(ExitCode::FAILURE);
    }
    let ws_root = plan.ws.root.clone();
    let summary = apply_with_bar(plan)?;
    print_summary(&env, &ws_root, &summary);
    bootstrap_index(&asker, &env, &ws_root, args.no_index)?;
    print_next(&env, &ws_root, scope, &summary);
    Ok(ExitCode::SUCCESS)
}

/// Every answer, from its flag, the question, or its default.
fn ask(
    args: &InitArgs,
    asker: &Asker,
    env: &HostEnv,
    catalog: &[DomainSpec],
) -> Result<InitOptions> {
    let default_name = std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "Me".into());
    let name = asker.text("Your name", args.name.clone(), &default_name)?;
    let role = asker.text("Your role", args.role.clone(), DEFAULT_ROLE)?;
    let domains = pick_domains(asker, args.domains.clone(), catalog)?;
    let languages = asker
        .text(
            "Language(s) for answers, comma-separated",
            args.languages.as_ref().map(|l| l.join(", ")),
            DEFAULT_LANGUAGE,
        )?
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>();
    let tone = pick_tone(asker, args.tone.clone())?;
    let dir_raw = asker.text(
        "Where should the workspace live?",
        args.dir.as_ref().map(|d| d.to_string_lossy().into_owned()),
        "~/pms",
    )?;
    let workspace = absolute(env, &dir_raw)?;
    let agents = pick_agents(asker, args)?;
    let scope = if agents.contains(&Agent::Claude) {
        pick_scope(asker, args.scope)?
    } else {
        args.scope.map_or(Scope::User, scope_of)
    };
    let codex_hooks_feature = if agents.contains(&Agent::Codex) {
        codex_feature(asker, env, args.enable_codex_hooks)?
    } else {
        CodexHooksFeature::Leave
    };
    Ok(InitOptions {
        answers: Answers {
            name,
            role,
            domains,
            languages: if languages.is_empty() {
                vec![DEFAULT_LANGUAGE.into()]
            } else {
                languages
            },
            tone,
        },
        workspace,
        scope,
        agents,
        codex_hooks_feature,
        binary: env::current_binary().context("finding the pms binary's own path")?,
    })
}

fn show_plan(plan: &install::InstallPlan) {
    println!("\nThis is what pms will do:");
    for line in plan.describe() {
        println!("  {line}");
    }
    let kept: Vec<&str> = plan.scaffold.existing().map(|f| f.rel.as_str()).collect();
    if !kept.is_empty() {
        println!("  Already there, left untouched: {}", kept.join(", "));
    }
}

fn apply_with_bar(plan: install::InstallPlan) -> Result<install::InstallSummary> {
    let bar = ProgressBar::new(plan.scaffold.files.len() as u64).with_style(
        ProgressStyle::with_template("  {bar:30} {pos}/{len} {wide_msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    let summary = install::apply(plan, |f| {
        bar.set_message(f.rel.clone());
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    Ok(summary)
}

fn print_summary(env: &HostEnv, ws_root: &Path, summary: &install::InstallSummary) {
    println!("\npms is set up.");
    println!(
        "  Workspace   {} ({} file(s) written, {} kept)",
        env.display(ws_root),
        summary.files_written,
        summary.files_kept.len()
    );
    let wired = &summary.wiring;
    if let Some(c) = &wired.claude {
        let hooks_line = if c.settings_changed {
            match &c.settings_backup {
                Some(b) => format!(
                    "merged into {} (backup: {})",
                    env.display(&c.settings_path),
                    env.display(b)
                ),
                None => format!("written to {}", env.display(&c.settings_path)),
            }
        } else {
            format!("already in {}", env.display(&c.settings_path))
        };
        println!("  Hooks       {hooks_line}");
        if let Some(m) = &c.mcp {
            use crate::claude::mcp_registration::{Status, Via};
            let how = match (m.status, m.via) {
                (Status::Unchanged, _) => "already registered".to_string(),
                (_, Via::ClaudeCli) => "registered with `claude mcp add-json`".into(),
                (_, Via::File) => format!("registered in {}", env.display(&env.claude_json)),
            };
            println!("  MCP server  `pms` {how}");
            if let Some(b) = &m.backup {
                println!("              (backup: {})", env.display(b));
            }
            if let Some(note) = &m.note {
                println!("              ({note})");
            }
        }
    }
    if let Some(c) = &wired.codex {
        let hooks = match (c.hooks_changed, &c.hooks_backup) {
            (false, _) => format!("already in {}", env.display(&c.hooks_path)),
            (true, Some(b)) => format!(
                "merged into {} (backup: {})",
                env.display(&c.hooks_path),
                env.display(b)
            ),
            (true, None) => format!("written to {}", env.display(&c.hooks_path)),
        };
        println!("  Codex       hooks {hooks}");
        println!(
            "              MCP server {} in {}",
            if c.mcp_changed {
                "registered"
            } else {
                "already registered"
            },
            env.display(&env.codex_config())
        );
        if c.feature_turned_on {
            println!("              hooks feature turned on in config.toml");
        } else if c.feature_off {
            println!(
                "              hooks are OFF in your config.toml ([features]): Codex gets the memory tools only"
            );
        }
    }
    if let Some(o) = &wired.openclaw {
        println!(
            "  OpenClaw    plugin in {} ({} file(s) written); enabled in {}",
            env.display(&o.plugin_dir),
            o.files_written,
            env.display(&o.config_path)
        );
    }
    for a in &wired.unwired {
        println!(
            "  {:<11} pms's wiring removed (not chosen this time)",
            a.title()
        );
    }
}

fn print_next(env: &HostEnv, ws_root: &Path, scope: Scope, summary: &install::InstallSummary) {
    println!("\nNext:");
    println!(
        "  1. Fill in {}/_me/profile.md and writing-style.md: they load in every session.",
        env.display(ws_root)
    );
    let mut n = 2;
    if summary.wiring.claude.is_some() {
        match scope {
            Scope::User => println!(
                "  {n}. Start Claude Code anywhere (`claude`): it knows who you are from the first message."
            ),
            Scope::Workspace => println!(
                "  {n}. Start Claude Code inside the workspace (`cd {} && claude`).",
                env.display(ws_root)
            ),
        }
        n += 1;
    }
    if let Some(c) = &summary.wiring.codex {
        if c.untrusted > 0 {
            println!(
                "  {n}. Codex runs hooks only once you have reviewed them: start `codex`, and when it says \"Hooks need review\", choose \"Trust all and continue\" (or type /hooks and trust the {} pms hooks). Until then Codex gets the memory tools only; `pms verify` tells you when it is done.",
                c.untrusted
            );
        } else {
            println!("  {n}. Start `codex`: your memory loads in every session.");
        }
        n += 1;
    }
    if summary.wiring.openclaw.is_some() {
        println!(
            "  {n}. Restart the OpenClaw gateway (`openclaw gateway restart`) so it loads the pms plugin."
        );
    }
}

/// The first index run: the user's existing Claude Code history becomes
/// searchable at once. Offered in the wizard, done by default with --yes.
fn bootstrap_index(asker: &Asker, env: &HostEnv, ws_root: &Path, skip: bool) -> Result<()> {
    if skip {
        return Ok(());
    }
    let ctx = Context::for_workspace(env.clone(), crate::workspace::Workspace::new(ws_root));
    let roots = crate::index::indexer::transcript_roots(&ctx.env, &ctx.cfg);
    let mut found = crate::index::discover::transcripts(&roots);
    found.extend(crate::index::discover::agent_transcripts(
        &crate::index::discover::AgentLogs::of(&ctx.env, &ctx.ws),
    ));
    let (files, bytes) = (found.len(), found.iter().map(|f| f.size).sum::<u64>());
    let question = if files == 0 {
        "Build the search index of your workspace now?".to_string()
    } else {
        format!(
            "Found {files} past conversation file(s) ({:.1} MB). Index them now so they are searchable?",
            bytes as f64 / 1e6
        )
    };
    if !asker.confirm(&question, true)? {
        println!("  Skipped indexing; run `pms index` any time.");
        return Ok(());
    }
    let lock = IndexLock::wait(&ctx.ws)?;
    let bars = super::index::Bars::default();
    let outcome = upkeep::index_now(&ctx, &lock, &bars, ModelDownload::Never)?;
    drop(lock);
    println!();
    super::index::print_report(&outcome.report, &outcome.stats);
    Ok(())
}

/// Asks a question when interactive; otherwise takes the flag or the default.
struct Asker<'a> {
    interactive: bool,
    theme: &'a ColorfulTheme,
}

impl Asker<'_> {
    fn text(&self, prompt: &str, flag: Option<String>, default: &str) -> Result<String> {
        if let Some(v) = flag {
            return Ok(v);
        }
        if !self.interactive {
            return Ok(default.to_string());
        }
        let v: String = Input::with_theme(self.theme)
            .with_prompt(prompt)
            .default(default.to_string())
            .interact_text()?;
        Ok(v.trim().to_string())
    }

    fn confirm(&self, prompt: &str, default: bool) -> Result<bool> {
        if !self.interactive {
            return Ok(default);
        }
        Ok(Confirm::with_theme(self.theme)
            .with_prompt(prompt)
            .default(default)
            .interact()?)
    }
}

fn pick_domains(
    asker: &Asker,
    flag: Option<Vec<String>>,
    catalog: &[DomainSpec],
) -> Result<Vec<String>> {
    if let Some(list) = flag {
        let ids: Vec<String> = list
            .iter()
            .map(|d| d.trim().to_lowercase())
            .filter(|d| !d.is_empty() && d != "none")
            .collect();
        for id in &ids {
            if !catalog.iter().any(|d| &d.id == id) {
                let known: Vec<&str> = catalog.iter().map(|d| d.id.as_str()).collect();
                bail!(
                    "unknown domain {id:?}.\n  Fix: choose from {}",
                    known.join(", ")
                );
            }
        }
        return Ok(ids);
    }
    if !asker.interactive {
        return Ok(DEFAULT_DOMAINS.iter().map(|s| s.to_string()).collect());
    }
    let items: Vec<String> = catalog
        .iter()
        .map(|d| format!("{} — {}", d.title, d.description))
        .collect();
    let defaults: Vec<bool> = catalog
        .iter()
        .map(|d| DEFAULT_DOMAINS.contains(&d.id.as_str()))
        .collect();
    let picked = MultiSelect::with_theme(asker.theme)
        .with_prompt("What do you mostly do? (space to toggle, enter to confirm)")
        .items(&items)
        .defaults(&defaults)
        .interact()?;
    Ok(picked.into_iter().map(|i| catalog[i].id.clone()).collect())
}

fn pick_tone(asker: &Asker, flag: Option<String>) -> Result<String> {
    if let Some(t) = flag {
        return Ok(t);
    }
    if !asker.interactive {
        return Ok(TONES[0].into());
    }
    let mut items: Vec<&str> = TONES.to_vec();
    items.push("Something else (type it)");
    let i = Select::with_theme(asker.theme)
        .with_prompt("The tone of your writing")
        .items(&items)
        .default(0)
        .interact()?;
    if i < TONES.len() {
        Ok(TONES[i].into())
    } else {
        asker.text("Describe your tone", None, TONES[0])
    }
}

fn scope_of(s: ScopeArg) -> Scope {
    match s {
        ScopeArg::User => Scope::User,
        ScopeArg::Workspace => Scope::Workspace,
    }
}

/// The agents to wire: `--agent`, else the question (every agent whose CLI
/// is on PATH ticked), else those on PATH; `--no-codex` takes Codex out.
fn pick_agents(asker: &Asker, args: &InitArgs) -> Result<Vec<Agent>> {
    let mut agents = match &args.agents {
        Some(list) => crate::agent::parse_list(list).map_err(anyhow::Error::msg)?,
        None if asker.interactive => {
            let found = Agent::found_on_path();
            let items: Vec<String> = Agent::ALL
                .iter()
                .map(|a| {
                    let where_ = if a.cli().is_some() {
                        "found on PATH"
                    } else {
                        "not found on PATH"
                    };
                    format!("{} ({where_})", a.title())
                })
                .collect();
            let defaults: Vec<bool> = Agent::ALL.iter().map(|a| found.contains(a)).collect();
            MultiSelect::with_theme(asker.theme)
                .with_prompt(
                    "Wire the memory into which agents? (space to toggle, enter to confirm)",
                )
                .items(&items)
                .defaults(&defaults)
                .interact()?
                .into_iter()
                .map(|i| Agent::ALL[i])
                .collect()
        }
        None => Agent::found_on_path(),
    };
    if args.no_codex {
        agents.retain(|a| *a != Agent::Codex);
        if args.agents.is_none() && agents.is_empty() {
            agents.push(Agent::Claude); // as when no agent is on PATH
        }
    }
    if agents.is_empty() {
        bail!(
            "no agent to wire pms into.\n  Fix: choose at least one: --agent claude, codex or openclaw"
        );
    }
    Ok(agents)
}

/// Codex's hooks feature, when the user's config turns it off: turned on
/// only with `--enable-codex-hooks` or the user's yes.
fn codex_feature(asker: &Asker, env: &HostEnv, flag: bool) -> Result<CodexHooksFeature> {
    let HooksFeature::Off(keys) = crate::codex::config::hooks_feature(&env.codex_config()) else {
        return Ok(CodexHooksFeature::Leave);
    };
    let yes = flag
        || (asker.interactive
            && asker.confirm(
                &format!(
                    "Your Codex config turns hooks off ([features] {} = false), so Codex would get the memory tools but not your profile or lessons. Turn hooks on?",
                    keys.join(", ")
                ),
                true,
            )?);
    Ok(if yes {
        CodexHooksFeature::TurnOn
    } else {
        CodexHooksFeature::Leave
    })
}

fn pick_scope(asker: &Asker, flag: Option<ScopeArg>) -> Result<Scope> {
    if let Some(s) = flag {
        return Ok(scope_of(s));
    }
    if !asker.interactive {
        return Ok(Scope::User);
    }
    let i = Select::with_theme(asker.theme)
        .with_prompt("Load the memory in")
        .items([
            "every Claude Code session (your user settings)",
            "only sessions started inside the workspace",
        ])
        .default(0)
        .interact()?;
    Ok(if i == 0 {
        Scope::User
    } else {
        Scope::Workspace
    })
}

/// `~` expanded, relative paths made absolute against the current folder.
fn absolute(env: &HostEnv, raw: &str) -> Result<PathBuf> {
    let p = env.expand_tilde(raw.trim());
    if p.as_os_str().is_empty() {
        bail!("the workspace folder cannot be empty");
    }
    if p.is_absolute() {
        return Ok(p);
    }
    Ok(std::env::current_dir()
        .context("reading the current folder")?
        .join(Path::new(&p)))
}

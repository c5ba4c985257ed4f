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

use crate::app::install::{self, InitOptions};
use crate::app::upkeep::{self, IndexLock, ModelDownload};
use crate::front::cli::{InitArgs, ScopeArg};
use crate::platform::agents::Agent;
use crate::platform::agents::codex::config::HooksFeature;
use crate::platform::agents::wiring::{self, CodexHooksFeature, Scope};
use crate::platform::host::env::{self, HostEnv};
use crate::platform::workspace::context::Context;
use crate::platform::workspace::domains::{self, DomainSpec};
use crate::platform::workspace::scaffold::Answers;

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
    // A settings.json init cannot change stops it before the first question,
    // not after seven (the plan checks again, for the scope chosen); an
    // install that leaves Claude Code out (`--agent codex`) never reads it.
    let claude_left_out = args.agents.as_ref().is_some_and(|list| {
        crate::platform::agents::parse_list(list)
            .is_ok_and(|agents| !agents.contains(&Agent::Claude))
    });
    if !claude_left_out {
        check_settings(&env)?;
    }
    let previous = Previous::find(args, &env);
    let opts = ask(args, &asker, &env, &catalog, &previous)?;
    let model = pick_model(&asker, args, &env, &opts.workspace)?;
    let scope = opts.scope;
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let plan = install::plan(env.clone(), opts, &today)?;
    if plan.changes_nothing() {
        // Asking "Apply these changes?" over a list of files left as they
        // are, when there is no change, made a re-run look like it would
        // write something.
        println!(
            "\nNothing to change: {} and its wiring are already as these answers make them.\n  `pms verify` checks the install; `pms index` brings the search index up to date.",
            env.display(&plan.ws.root)
        );
        if !args.dry_run {
            install_model(&env, &plan.ws.root, &model);
        }
        return Ok(ExitCode::SUCCESS);
    }
    show_plan(&plan);
    if let ModelChoice::Install(m) = &model {
        println!("  then download the embedding model {m} (checksums checked)");
    }
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
    offer_imports(&asker, &env, &ws_root, args.no_import)?;
    bootstrap_index(&asker, &env, &ws_root, args.no_index)?;
    install_model(&env, &ws_root, &model);
    print_next(&env, &ws_root, scope, &summary);
    Ok(ExitCode::SUCCESS)
}

/// What an earlier `pms init` left: a re-run starts from these answers, so
/// pressing Enter through it changes nothing.
#[derive(Default)]
struct Previous {
    workspace: Option<PathBuf>,
    answers: Option<Answers>,
    record: Option<wiring::InstallRecord>,
}

impl Previous {
    fn find(args: &InitArgs, env: &HostEnv) -> Previous {
        let ws = match &args.dir {
            Some(d) => absolute(env, &d.to_string_lossy())
                .ok()
                .map(crate::platform::workspace::Workspace::new),
            None => crate::platform::workspace::Workspace::locate(None, env).ok(),
        };
        let Some(ws) = ws.filter(|w| w.me_file("profile.md").is_file()) else {
            return Previous::default();
        };
        Previous {
            answers: Answers::installed(&ws),
            record: wiring::InstallRecord::load(&ws),
            workspace: Some(ws.root),
        }
    }
}

/// The user's settings.json and ~/.claude.json parse and have the shape init
/// needs.
fn check_settings(env: &HostEnv) -> Result<()> {
    use crate::platform::agents::claude::{mcp_registration, settings};
    use crate::platform::agents::json_file::JsonFile;
    let path = env.user_settings();
    let file = JsonFile::load(&path)?;
    settings::check_shape(&file.doc, &path)?;
    mcp_registration::check(&env.claude_json)?;
    Ok(())
}

/// Every answer, from its flag, the question, or its default (what an
/// earlier setup answered, else a guess from the machine).
fn ask(
    args: &InitArgs,
    asker: &Asker,
    env: &HostEnv,
    catalog: &[DomainSpec],
    previous: &Previous,
) -> Result<InitOptions> {
    let before = previous.answers.as_ref();
    let default_name = before
        .map(|a| a.name.clone())
        .or_else(|| env.person_name())
        .unwrap_or_else(|| "Me".into());
    let name = asker.text("Your name", args.name.clone(), &default_name)?;
    let default_role = before
        .map(|a| a.role.clone())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| DEFAULT_ROLE.into());
    let role = asker.text("Your role", args.role.clone(), &default_role)?;
    let preselected: Vec<String> = match before {
        Some(a) => a.domains.clone(),
        None => domains::suggested_for(&role)
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let domains = pick_domains(asker, args.domains.clone(), catalog, &preselected)?;
    let languages = pick_languages(asker, args.languages.clone(), before)?;
    let tone = pick_tone(asker, args.tone.clone(), before.map(|a| a.tone.as_str()))?;
    let default_dir = previous
        .workspace
        .as_ref()
        .map(|w| env.display(w))
        .unwrap_or_else(|| "~/pms".into());
    let dir_raw = asker.text(
        "Where should the workspace live?",
        args.dir.as_ref().map(|d| d.to_string_lossy().into_owned()),
        &default_dir,
    )?;
    let workspace = absolute(env, &dir_raw)?;
    let agents = pick_agents(asker, args, previous.record.as_ref())?;
    let scope = if agents.contains(&Agent::Claude) {
        pick_scope(asker, args.scope, previous.record.as_ref().map(|r| r.scope))?
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
            languages,
            tone,
        },
        workspace,
        scope,
        agents,
        codex_hooks_feature,
        binary: env::current_binary().context("finding the pms binary's own path")?,
    })
}

/// The default language for answers, then the others that are also fine:
/// "English, Deutsch" as one answer became "Write in English, Deutsch."
fn pick_languages(
    asker: &Asker,
    flag: Option<Vec<String>>,
    before: Option<&Answers>,
) -> Result<Vec<String>> {
    if let Some(list) = flag {
        let list: Vec<String> = list
            .iter()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        return Ok(if list.is_empty() {
            vec![DEFAULT_LANGUAGE.into()]
        } else {
            list
        });
    }
    let known = before.map(|a| a.languages.clone()).unwrap_or_default();
    let first = known
        .first()
        .cloned()
        .unwrap_or_else(|| DEFAULT_LANGUAGE.into());
    let main = asker.text("Language for answers", None, &first)?;
    let others = asker.text_optional(
        "Other languages that are fine too (comma-separated, or empty)",
        &known.get(1..).unwrap_or_default().join(", "),
    )?;
    let mut out = vec![if main.is_empty() {
        DEFAULT_LANGUAGE.to_string()
    } else {
        main
    }];
    for l in others.split(',').map(str::trim).filter(|l| !l.is_empty()) {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(l)) {
            out.push(l.to_string());
        }
    }
    Ok(out)
}

fn show_plan(plan: &install::InstallPlan) {
    println!("\nThis is what pms will do:");
    for line in plan.describe() {
        println!("  {line}");
    }
    // The files already there are counted in the first line; naming each
    // (20 of them on a re-run) drowned the one change in a wrapped block.
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
        "  Workspace   {} ({} written, {} kept)",
        env.display(ws_root),
        crate::platform::plural::count(summary.files_written, "file", "files"),
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
            use crate::platform::agents::claude::mcp_registration::{Status, Via};
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
        // pms works with Claude Code's own memory, never against it.
        if crate::platform::agents::claude::auto_memory::enabled(env) {
            println!(
                "  Auto-memory Claude Code's own stays on: pms indexes it, never stages a learning twice, and offers its corrections in `pms lessons review`"
            );
        } else {
            println!("  Auto-memory turned off in Claude Code: pms reads none of it");
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
            "  OpenClaw    plugin in {} ({} written); enabled in {}",
            env.display(&o.plugin_dir),
            crate::platform::plural::count(o.files_written, "file", "files"),
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
        // The plan said "claude is not on PATH" a few lines up; "start
        // `claude`" right after it would send the user to a command that
        // is not there.
        let start = start_step(Agent::Claude);
        match scope {
            Scope::User => println!(
                "  {n}. {start} Claude Code anywhere (`claude`): it knows who you are from the first message."
            ),
            Scope::Workspace => println!(
                "  {n}. {start} Claude Code inside the workspace (`cd {} && claude`).",
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
            println!(
                "  {n}. {} `codex`: your memory loads in every session.",
                start_step(Agent::Codex)
            );
        }
        n += 1;
    }
    if summary.wiring.openclaw.is_some() {
        if Agent::OpenClaw.cli().is_some() {
            println!(
                "  {n}. Restart the OpenClaw gateway (`openclaw gateway restart`) so it loads the pms plugin."
            );
        } else {
            println!(
                "  {n}. Install OpenClaw (`openclaw` is not on PATH yet), then start its gateway: it loads the pms plugin."
            );
        }
    }
}

/// The verb of a "Start <agent>" step: "Start" when the agent's program is
/// on PATH, "Install <agent> (`<program>` is not on PATH yet), then start"
/// when not.
fn start_step(agent: Agent) -> String {
    if agent.cli().is_some() {
        "Start".into()
    } else {
        format!(
            "Install {} (`{}` is not on PATH yet), then start",
            agent.title(),
            agent.program()
        )
    }
}

/// The memory other tools keep on this machine (claude-mem's database, a
/// ChatGPT export in Downloads, ...), offered in one question, yes by
/// default: a new workspace need not start empty. With --yes it is
/// imported, but nothing is added to `_me/` (that needs the user's own yes,
/// which `pms import` asks for in a terminal).
fn offer_imports(asker: &Asker, env: &HostEnv, ws_root: &Path, skip: bool) -> Result<()> {
    if skip {
        return Ok(());
    }
    let ctx = Context::for_workspace(
        env.clone(),
        crate::platform::workspace::Workspace::new(ws_root),
    );
    let found: Vec<(crate::platform::imports::Kind, PathBuf)> = crate::app::import::overview(&ctx)
        .into_iter()
        .filter(|s| s.waiting())
        .filter_map(|s| Some((s.source, s.found?.path)))
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = found
        .iter()
        .map(|(k, p)| format!("{} ({})", k.title(), env.display(p)))
        .collect();
    println!();
    let question = format!(
        "Found memory from other tools: {}. Import it into pms?",
        list.join(", ")
    );
    if !asker.confirm(&question, true)? {
        println!("  Skipped; `pms import` lists them any time.");
        return Ok(());
    }
    // With --yes nothing goes into `_me/`: that needs the user's own yes.
    let settle = if asker.interactive {
        super::import::Settle::AskEach
    } else {
        super::import::Settle::LeaveProposed
    };
    super::import::import_found(&ctx, &found, settle)
}

/// The first index run: the user's existing Claude Code history becomes
/// searchable at once. Offered in the wizard, done by default with --yes.
fn bootstrap_index(asker: &Asker, env: &HostEnv, ws_root: &Path, skip: bool) -> Result<()> {
    if skip {
        return Ok(());
    }
    let ctx = Context::for_workspace(
        env.clone(),
        crate::platform::workspace::Workspace::new(ws_root),
    );
    let roots = crate::memory::index::indexer::transcript_roots(&ctx.env, &ctx.cfg);
    let mut found = crate::memory::index::discover::transcripts(&roots);
    found.extend(crate::memory::index::discover::agent_transcripts(
        &crate::memory::index::discover::AgentLogs::of(&ctx.env, &ctx.ws),
    ));
    let (files, bytes) = (found.len(), found.iter().map(|f| f.size).sum::<u64>());
    let question = if files == 0 {
        "Build the search index of your workspace now?".to_string()
    } else {
        format!(
            "Found {} ({:.1} MB). Index them now so they are searchable?",
            crate::platform::plural::count(
                files,
                "past conversation file",
                "past conversation files"
            ),
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
    if let Some(stop) = &outcome.report.stopped_for_space {
        super::print_fitted(&format!("  {}", upkeep::space_note(&ctx.ws, stop)));
    }
    Ok(())
}

/// Whether init installs the local embedding model at the end.
enum ModelChoice {
    /// This model id (or folder), `embeddings.model` of the workspace.
    Install(String),
    Skip,
}

/// The embedding model: one question, no by default (and with --yes),
/// since it costs a download and a long first index; `--embeddings` and
/// `--no-embeddings` answer it. Not asked when the model is already there
/// or the workspace's config.toml chose no local model.
fn pick_model(
    asker: &Asker,
    args: &InitArgs,
    env: &HostEnv,
    workspace: &Path,
) -> Result<ModelChoice> {
    use crate::memory::embed::{Plan, model_dir};
    use crate::platform::workspace::config::{DEFAULT_MODEL, Provider};
    if args.no_embeddings {
        return Ok(ModelChoice::Skip);
    }
    let ctx = Context::for_workspace(
        env.clone(),
        crate::platform::workspace::Workspace::new(workspace),
    );
    let cfg = &ctx.cfg.embeddings;
    let model = cfg.model.clone();
    let local = matches!(cfg.provider, Provider::Auto | Provider::Local);
    let installed = crate::memory::embed::local::is_installed(&model_dir(env, &model));
    if !local || installed {
        if args.embeddings && !local {
            println!(
                "  --embeddings: left out, since embeddings.provider is {:?} in {} ({}).",
                cfg.provider.as_str(),
                env.display(&ctx.ws.config_path()),
                Plan::resolve(cfg, env).describe(env)
            );
        }
        return Ok(ModelChoice::Skip);
    }
    if args.embeddings {
        return Ok(ModelChoice::Install(model));
    }
    if !asker.interactive {
        return Ok(ModelChoice::Skip);
    }
    // The costs, measured on all-MiniLM-L6-v2 (docs/architecture.md,
    // Search): 90.9 MB of weights, English only (Chinese notes: Recall@1
    // 1.0 -> 0.7), and about 50 chunks per CPU-second (`cargo bench
    // --bench memory`), so the first `pms index` of a large history takes
    // hours.
    // The costs first, as lines that wrap, then a short question: a prompt
    // that wraps is redrawn over itself.
    let costs = if model == DEFAULT_MODEL {
        format!(
            "Search by meaning (optional) finds notes worded differently from your question. It needs the embedding model {model}: about 90 MB to download, English only. The first `pms index` of a large history then embeds for hours (keyword search works meanwhile); the hooks never embed. For other languages see `pms embeddings install --help`."
        )
    } else {
        format!(
            "Search by meaning (optional) needs the embedding model {model} (embeddings.model in config.toml). The first `pms index` of a large history then embeds for a long time (keyword search works meanwhile); the hooks never embed."
        )
    };
    println!();
    super::print_fitted(&costs);
    let question = "Download the embedding model now?";
    Ok(if asker.confirm(question, false)? {
        ModelChoice::Install(model)
    } else {
        ModelChoice::Skip
    })
}

/// Runs `pms embeddings install` for the model chosen. A failure is told,
/// with how to try again, and init still succeeds: the workspace and its
/// wiring are set up, and keyword search works without the model.
fn install_model(env: &HostEnv, ws_root: &Path, choice: &ModelChoice) {
    let ModelChoice::Install(model) = choice else {
        return;
    };
    let ctx = Context::for_workspace(
        env.clone(),
        crate::platform::workspace::Workspace::new(ws_root),
    );
    println!();
    match super::embeddings::install_model(&ctx, model, None) {
        Ok(()) => println!(
            "  `pms index` embeds your memory (a large history takes a while; keyword search works meanwhile)."
        ),
        Err(e) => {
            println!("The embedding model was not installed: {e:#}");
            println!(
                "  Fix: run `pms embeddings install` when the download can work (or `pms embeddings install --from DIR` with the model's files); search is keyword only until then."
            );
        }
    }
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

    /// A question whose answer may be empty (Enter on an empty default).
    fn text_optional(&self, prompt: &str, default: &str) -> Result<String> {
        if !self.interactive {
            return Ok(default.to_string());
        }
        let v: String = Input::with_theme(self.theme)
            .with_prompt(prompt)
            .default(default.to_string())
            .show_default(!default.is_empty())
            .allow_empty(true)
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
    preselected: &[String],
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
        return Ok(preselected.to_vec());
    }
    let items: Vec<String> = catalog
        .iter()
        .map(|d| format!("{} — {}", d.title, d.description))
        .collect();
    let defaults: Vec<bool> = catalog
        .iter()
        .map(|d| preselected.contains(&d.id))
        .collect();
    let picked = pick_many(asker, "What do you mostly do?", &items, &defaults)?;
    let ids: Vec<String> = picked.into_iter().map(|i| catalog[i].id.clone()).collect();
    // The answer in a few words, not every description again.
    echo_answer("Domains", &ids);
    Ok(ids)
}

/// A multiple choice, one line per option cut to the terminal: an option
/// that wraps makes the list redraw over itself (at 80 columns every one
/// did, and left seven garbled lines behind). The list is cleared after
/// Enter; the caller echoes the answer in a few words.
fn pick_many(
    asker: &Asker,
    prompt: &str,
    items: &[String],
    defaults: &[bool],
) -> Result<Vec<usize>> {
    let width = console::Term::stderr().size().1 as usize;
    let items: Vec<String> = items
        .iter()
        .map(|i| fit(i, width.saturating_sub(6)))
        .collect();
    let prompt = format!("{prompt} (space to toggle, enter to confirm)");
    Ok(MultiSelect::with_theme(asker.theme)
        .with_prompt(fit(&prompt, width.saturating_sub(4)))
        .items(&items)
        .defaults(defaults)
        .report(false)
        .interact()?)
}

/// "✔ Label · a, b", as the other questions report their answers.
fn echo_answer(label: &str, answers: &[String]) {
    let width = console::Term::stderr().size().1 as usize;
    let list = if answers.is_empty() {
        "none".to_string()
    } else {
        answers.join(", ")
    };
    eprintln!(
        "{}",
        fit(&format!("✔ {label} · {list}"), width.saturating_sub(1))
    );
}

/// `text` cut to `width` characters (with an ellipsis), so it stays on one
/// terminal line.
fn fit(text: &str, width: usize) -> String {
    if width < 8 || text.chars().count() <= width {
        return text.to_string();
    }
    let cut: String = text.chars().take(width - 1).collect();
    format!("{}…", cut.trim_end())
}

fn pick_tone(asker: &Asker, flag: Option<String>, before: Option<&str>) -> Result<String> {
    if let Some(t) = flag {
        return Ok(t);
    }
    let before = before.filter(|t| !t.is_empty());
    if !asker.interactive {
        return Ok(before.unwrap_or(TONES[0]).to_string());
    }
    let mut items: Vec<&str> = TONES.to_vec();
    if let Some(t) = before.filter(|t| !TONES.contains(t)) {
        items.push(t); // the user's own words from last time
    }
    let own = items.len();
    items.push("Something else (type it)");
    let default = before
        .and_then(|t| items.iter().position(|i| *i == t))
        .unwrap_or(0);
    let i = Select::with_theme(asker.theme)
        .with_prompt("The tone of your writing")
        .items(&items)
        .default(default)
        .interact()?;
    if i < own {
        Ok(items[i].into())
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

/// The agents to wire: `--agent`, else the question (ticked: the agents
/// wired before, or on a first run every agent whose CLI is on PATH), else
/// those on PATH; `--no-codex` takes Codex out.
fn pick_agents(
    asker: &Asker,
    args: &InitArgs,
    previous: Option<&wiring::InstallRecord>,
) -> Result<Vec<Agent>> {
    let mut agents = match &args.agents {
        Some(list) => crate::platform::agents::parse_list(list).map_err(anyhow::Error::msg)?,
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
            let ticked = previous.map_or(found, |r| r.agents());
            let defaults: Vec<bool> = Agent::ALL.iter().map(|a| ticked.contains(a)).collect();
            let picked: Vec<Agent> = pick_many(
                asker,
                "Wire the memory into which agents?",
                &items,
                &defaults,
            )?
            .into_iter()
            .map(|i| Agent::ALL[i])
            .collect();
            let titles: Vec<String> = picked.iter().map(|a| a.title().to_string()).collect();
            echo_answer("Agents", &titles);
            picked
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
    let HooksFeature::Off(keys) =
        crate::platform::agents::codex::config::hooks_feature(&env.codex_config())
    else {
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

fn pick_scope(asker: &Asker, flag: Option<ScopeArg>, before: Option<Scope>) -> Result<Scope> {
    if let Some(s) = flag {
        return Ok(scope_of(s));
    }
    let before = before.unwrap_or(Scope::User);
    if !asker.interactive {
        return Ok(before);
    }
    let i = Select::with_theme(asker.theme)
        .with_prompt("Load the memory in")
        .items([
            "every Claude Code session (your user settings)",
            "only sessions started inside the workspace",
        ])
        .default(usize::from(before == Scope::Workspace))
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

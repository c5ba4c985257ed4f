//! `pms lessons`: the user's side of the experience → rule pipeline.
//! Learnings the hooks staged wait here for a yes; accepted ones become
//! rules in `_me/lessons.md` or a domain's CLAUDE.md, with the cues that
//! tell pms when to put them in front of the model.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{Result, bail};
use dialoguer::Select;
use dialoguer::theme::ColorfulTheme;

use crate::front::cli::{LessonsAction, LessonsArgs};
use crate::front::cmd::{Answer, ask_line};
use crate::memory::lessons::accept::{self, Acceptance, Accepted, Forget};
use crate::memory::lessons::guard::{Guard, GuardMode};
use crate::memory::lessons::pending::{self, PendingItem};
use crate::memory::lessons::signals::Origin;
use crate::memory::lessons::store::{self, Change, NewRule, OnDuplicate, Promoted, Target};
use crate::memory::lessons::{self as lessons, Rule, split_cues};
use crate::platform::redact::controls::strip;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::context::Context;

pub fn run(ctx: &Context, args: &LessonsArgs) -> Result<ExitCode> {
    let ws = &ctx.ws;
    if args.json
        && let Some(name) = args.action.as_ref().and_then(changes_rules)
    {
        // A flag taken and then ignored reads as a report that never came.
        bail!(
            "--json: `pms lessons {name}` changes the lessons and prints one line, not a report.\n  Fix: leave out --json; `pms lessons --json` prints the lessons and learnings as JSON afterwards"
        );
    }
    let changes = args.action.as_ref().and_then(changes_rules);
    let done = act(ctx, args)?;
    if changes.is_some() && done == ExitCode::SUCCESS {
        let files: Vec<std::path::PathBuf> = lessons::rule_files(ws)
            .into_iter()
            .map(|(path, _, _)| path)
            .collect();
        crate::app::upkeep::index_own_writes(ctx, &files);
    }
    Ok(done)
}

/// The subcommand itself.
fn act(ctx: &Context, args: &LessonsArgs) -> Result<ExitCode> {
    let ws = &ctx.ws;
    match &args.action {
        None => list(ctx, args.json),
        // The report-like side of a review: what it would go through.
        Some(LessonsAction::Review) if args.json => list(ctx, true),
        Some(LessonsAction::Review) => review(ctx),
        Some(LessonsAction::Accept {
            id,
            to,
            text,
            when,
            merge,
            force,
            guard,
            guard_mode,
            project,
        }) => {
            let project = project_arg(project.as_ref())?;
            let how = Acceptance {
                text: text.as_deref(),
                cues: when.as_deref().map(split_cues),
                target: to.as_deref(),
                on_duplicate: OnDuplicate::from_flags(*merge, *force),
                guard: guard_arg(guard.as_deref(), guard_mode.as_deref())?,
                project: project.as_deref().map(Some),
            };
            match accept::accept(ws, id, &how)? {
                Accepted::Promoted(r) => {
                    println_stripped!("Added {}", shown(&r, Placed::To));
                    if let Some(old) = &how_replaced(ws, &r) {
                        println_stripped!("{old}");
                    }
                }
                Accepted::Merged(r) => println_stripped!("Merged into {}", shown(&r, Placed::In)),
                Accepted::Duplicate { existing, .. } => {
                    println_stripped!(
                        "{id} says nearly the same as {} ({}): {}\nNothing changed. Pass --merge to give that rule this wording, --force to keep both, or `pms lessons reject {id}`.",
                        existing.id,
                        existing.file,
                        existing.text
                    );
                    return Ok(ExitCode::FAILURE);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Reject { id }) => {
            let item = accept::reject(ws, id)?;
            println_stripped!("Rejected {}: {}", item.id, item.text);
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Add {
            text,
            when,
            domain,
            merge,
            force,
            guard,
            guard_mode,
            project,
        }) => {
            let target = Target::parse(ws, domain.as_deref())?;
            let project = project_arg(project.as_ref())?;
            let new = NewRule {
                guard: guard_arg(guard.as_deref(), guard_mode.as_deref())?,
                project: project.as_deref(),
                text,
                cues: when.as_deref().map(split_cues).unwrap_or_default(),
                ..NewRule::default()
            };
            // A rule that says the opposite of one in force replaces it.
            let (promoted, retired) = accept::add_rule(
                ws,
                &new,
                &target,
                OnDuplicate::from_flags(*merge, *force),
                None,
            )?;
            match promoted {
                Promoted::Added(r) => {
                    println_stripped!("Added {}", shown(&r, Placed::To));
                    if let Some(old) = retired {
                        println_stripped!(
                            "It reverses {}, which is retired (archived with a pointer to {}): {}",
                            old.id,
                            r.id,
                            old.text
                        );
                    }
                }
                Promoted::Merged(r) => println_stripped!("Merged into {}", shown(&r, Placed::In)),
                Promoted::Duplicate(r) => {
                    println_stripped!(
                        "Nearly the same rule is already in force: {} ({}): {}\nNothing changed (pass --merge to give it this wording and these cues, --force to add it anyway).",
                        r.id,
                        r.file,
                        r.text
                    );
                    return Ok(ExitCode::FAILURE);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Edit {
            id,
            text,
            when,
            guard,
            guard_mode,
            project,
            everywhere,
        }) => edit(
            ws,
            id,
            EditArgs {
                text: text.as_deref(),
                when: when.as_deref(),
                guard: guard.as_deref(),
                guard_mode: guard_mode.as_deref(),
                project: project.as_ref(),
                everywhere: *everywhere,
            },
        ),
        Some(LessonsAction::Move { id, to }) => {
            let target = Target::parse(ws, Some(to))?;
            println_stripped!(
                "Moved {}",
                shown(&store::move_to(ws, id, &target)?, Placed::To)
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(LessonsAction::Test { command, file, cwd }) => {
            test_call(ws, command, file.as_deref(), cwd.as_deref(), args.json)
        }
        Some(LessonsAction::Retire { id }) => {
            let r = store::retire(ws, id)?;
            println_stripped!(
                "Retired {} (moved to the archive in _me/lessons.md): {}",
                r.id,
                r.text
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The subcommand's name when it changes the lessons (and so has no report
/// to print as JSON); None for the list, review and test.
fn changes_rules(action: &LessonsAction) -> Option<&'static str> {
    match action {
        LessonsAction::Review | LessonsAction::Test { .. } => None,
        LessonsAction::Accept { .. } => Some("accept"),
        LessonsAction::Reject { .. } => Some("reject"),
        LessonsAction::Add { .. } => Some("add"),
        LessonsAction::Edit { .. } => Some("edit"),
        LessonsAction::Move { .. } => Some("move"),
        LessonsAction::Retire { .. } => Some("retire"),
    }
}

/// How a rule relates to its file in a report: "Added L-… to <file>",
/// "Moved … to", but "Changed L-… in <file>" (it did not go anywhere).
#[derive(Clone, Copy)]
enum Placed {
    To,
    In,
}

/// What `pms lessons edit` was given.
struct EditArgs<'a> {
    text: Option<&'a str>,
    when: Option<&'a str>,
    guard: Option<&'a str>,
    guard_mode: Option<&'a str>,
    project: Option<&'a Option<std::path::PathBuf>>,
    everywhere: bool,
}

/// `pms lessons edit`: a rule's wording, cues, guard or project.
fn edit(ws: &Workspace, id: &str, a: EditArgs) -> Result<ExitCode> {
    if a.text.is_none()
        && a.when.is_none()
        && a.guard.is_none()
        && a.guard_mode.is_none()
        && a.project.is_none()
        && !a.everywhere
    {
        bail!(
            "nothing to change.\n  Fix: pass --text \"new wording\", --when \"cue; cue\", --guard REGEX, --project [PATH] or --everywhere"
        );
    }
    let guard = match (a.guard, a.guard_mode) {
        (None, None) => None,
        (Some(""), _) => Some(None),
        (Some(g), m) => Some(guard_arg(Some(g), m)?),
        (None, Some(m)) => {
            let rule = store::find(ws, id)?;
            let Some(g) = rule.guard else {
                bail!(
                    "{id} has no guard to change the mode of.\n  Fix: pass --guard REGEX with --guard-mode {m}"
                );
            };
            Some(guard_arg(Some(&g.pattern), Some(m))?)
        }
    };
    let project = match (a.project, a.everywhere) {
        (_, true) => Some(None),
        (Some(p), false) => Some(project_arg(Some(p))?),
        (None, false) => None,
    };
    let change = Change {
        text: a.text,
        cues: a.when.map(split_cues),
        guard,
        project,
    };
    println_stripped!(
        "Changed {}",
        shown(&store::edit(ws, id, change)?, Placed::In)
    );
    Ok(ExitCode::SUCCESS)
}

/// A rule as the commands report it: id, file, text, cues, guard, scope.
fn shown(r: &Rule, placed: Placed) -> String {
    let word = match placed {
        Placed::To => "to",
        Placed::In => "in",
    };
    let mut s = format!("{} {word} {}: {}", r.id, r.file, r.text);
    if !r.cues.is_empty() {
        s.push_str(&format!("\n  applies when: {}", r.cues.join("; ")));
    }
    if let Some(g) = &r.guard {
        s.push_str(&format!("\n  guard ({}): {}", g.mode.as_str(), g.pattern));
    }
    if let Some(p) = &r.project {
        s.push_str(&format!("\n  project: {p} (only in sessions there)"));
    }
    s
}

/// A guard from `--guard` and `--guard-mode`, checked now (never at a tool
/// call).
fn guard_arg(pattern: Option<&str>, mode: Option<&str>) -> Result<Option<Guard>> {
    let Some(pattern) = pattern else {
        return Ok(None);
    };
    let mode = mode.and_then(GuardMode::parse).unwrap_or_default();
    Ok(Some(Guard::new(pattern, mode)?))
}

/// The project of `--project [PATH]`: PATH's git root (or PATH itself
/// when it is in none), or the current folder's when no PATH is given.
fn project_arg(arg: Option<&Option<std::path::PathBuf>>) -> Result<Option<String>> {
    let Some(path) = arg else {
        return Ok(None);
    };
    let dir = match path {
        Some(p) => p.clone(),
        None => std::env::current_dir()?,
    };
    if !dir.is_dir() {
        bail!(
            "{}: not a folder.\n  Fix: pass the project's folder to --project, or run the command inside it with --project alone",
            dir.display()
        );
    }
    Ok(Some(
        crate::platform::host::project::root_of(&dir)
            .to_string_lossy()
            .into_owned(),
    ))
}

/// `pms lessons test`: which guard and lessons a tool call would meet in
/// `cwd`, as the pre-tool-use hook decides.
fn test_call(
    ws: &Workspace,
    command: &str,
    file: Option<&str>,
    cwd: Option<&std::path::Path>,
    json: bool,
) -> Result<ExitCode> {
    use crate::memory::lessons::action::Action;
    use crate::memory::lessons::index_file::{self, Place};
    let action = match file {
        Some(path) => Action::Edit {
            path: path.to_string(),
            content: command.to_string(),
        },
        None if command.trim().is_empty() => bail!(
            "nothing to test.\n  Fix: give a command line (`pms lessons test \"npm install\"`), or --file PATH for an edit"
        ),
        None => Action::Command(command.to_string()),
    };
    let here = match cwd {
        Some(c) => c.to_path_buf(),
        None => std::env::current_dir()?,
    };
    let verdict = index_file::for_action(ws, &action, Place::In(&here))?;
    if json {
        let guard = verdict.guard.as_ref().map(|g| {
            serde_json::json!({"id": g.id, "text": g.text, "file": g.file,
                               "pattern": g.guard.pattern, "mode": g.guard.mode.as_str()})
        });
        let lessons: Vec<_> = verdict
            .lessons
            .iter()
            .map(|m| serde_json::json!({"id": m.id, "text": m.text, "file": m.file}))
            .collect();
        println_stripped!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"guard": guard, "lessons": lessons}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    match &verdict.guard {
        Some(g) => println_stripped!(
            "{} by {} ({}): {}\n  guard: {}",
            match g.guard.mode {
                GuardMode::Deny => "Denied",
                GuardMode::Ask => "Asked first",
            },
            g.id,
            g.file,
            g.text,
            g.guard.pattern
        ),
        None => println_stripped!("No guard matches: the call runs."),
    }
    if verdict.lessons.is_empty() {
        println_stripped!("No lesson is shown before it.");
    } else {
        println_stripped!("Shown before it (once per session):");
        for m in &verdict.lessons {
            println_stripped!("  [{}] {} ({})", m.id, m.text, m.file);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What accepting `r` retired, when it replaced a rule.
fn how_replaced(ws: &Workspace, r: &Rule) -> Option<String> {
    let old = store::replaced_by(ws, &r.id)?;
    Some(format!(
        "It replaces {}, which is retired (archived with a pointer to {}).",
        old, r.id
    ))
}

fn list(ctx: &Context, json: bool) -> Result<ExitCode> {
    let ws = &ctx.ws;
    let waiting = pending::load(ws)?.items;
    let rules = lessons::all_rules(ws);
    let memories = lessons::memory_feedback(ctx);
    if json {
        let rules: Vec<_> = rules
            .iter()
            .map(|r| serde_json::json!({"id": r.id, "text": r.text, "when": r.cues, "file": r.file, "scope": r.scope, "date": r.date, "source": r.source_ref,
                                       "project": r.project, "guard": r.guard.as_ref().map(|g| serde_json::json!({"pattern": g.pattern, "mode": g.mode.as_str()}))}))
            .collect();
        super::print_json(&serde_json::json!({
            "pending": waiting,
            "rules": rules,
            "auto_memory": memories.iter().map(|m| serde_json::json!({"uri": m.uri(), "text": m.summary()})).collect::<Vec<_>>(),
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    if waiting.is_empty() {
        println_stripped!("No learnings waiting for confirmation.");
    } else {
        println_stripped!("Waiting for your yes ({}):", waiting.len());
        for i in &waiting {
            let home = i.domain.as_deref().unwrap_or("me");
            println_stripped!("  {}  [{} → {home}{}] {}", i.id, i.kind, said_by(i), i.text);
            if let Some(old) = &i.replaces {
                println_stripped!(
                    "      replaces {old} (it says the opposite): accepting retires {old}"
                );
            }
            if let Some(p) = &i.project {
                println_stripped!("      proposed scope: only in {p}");
            }
            if let Some(g) = &i.guard {
                println_stripped!("      proposed guard (added only if you say yes): {g}");
            }
            if let Some(r) = lessons::near_duplicate(&rules, &i.text) {
                println_stripped!(
                    "      nearly the same as {} ({}): merge it in `pms lessons review`",
                    r.id,
                    r.file
                );
            }
        }
        println_stripped!(
            "  Review them with `pms lessons review`, or `pms lessons accept <id> [--text ...] [--when ...] [--to <domain>]`."
        );
    }
    if !memories.is_empty() {
        println_stripped!(
            "\nCorrections in Claude Code's auto-memory that are not pms lessons yet ({}):",
            memories.len()
        );
        for m in &memories {
            println_stripped!("  {}  {}", m.uri(), m.summary());
        }
        println_stripped!(
            "  `pms lessons review` can make them lessons (with cues), in one place."
        );
    }
    println_stripped!();
    if rules.is_empty() {
        println_stripped!("No lessons in force yet.");
    } else {
        println_stripped!("Lessons in force ({}):", rules.len());
        for r in &rules {
            println_stripped!("  {}  ({}) {}", r.id, r.file, r.text);
            if !r.cues.is_empty() {
                println_stripped!("      applies when: {}", r.cues.join("; "));
            }
            println_stripped!(
                "      scope: {}",
                r.project
                    .as_deref()
                    .map_or_else(|| "everywhere".to_string(), |p| format!("only in {p}"))
            );
            if let Some(g) = &r.guard {
                println_stripped!("      guard ({}): {}", g.mode.as_str(), g.pattern);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn review(ctx: &Context) -> Result<ExitCode> {
    let ws = &ctx.ws;
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        bail!(
            "`pms lessons review` asks in a terminal.\n  Fix: run it in one, or use `pms lessons accept <id>` / `reject <id>`."
        );
    }
    let waiting = pending::load(ws)?.items;
    let memories = lessons::memory_feedback(ctx);
    if waiting.is_empty() && memories.is_empty() {
        println_stripped!("No learnings waiting for confirmation.");
        return Ok(ExitCode::SUCCESS);
    }
    let theme = ColorfulTheme::default();
    if !review_pending(ws, &theme, &waiting)? {
        return Ok(ExitCode::SUCCESS);
    }
    for (n, m) in memories.iter().enumerate() {
        if !review_memory(ws, &theme, m, (n + 1, memories.len()))? {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One auto-memory correction: make it a pms lesson (asking for cues), and
/// with the user's yes remove it from auto-memory so it lives in one place.
/// Returns false when the user stops reviewing.
fn review_memory(
    ws: &Workspace,
    theme: &ColorfulTheme,
    m: &crate::platform::agents::claude::auto_memory::Memory,
    (n, total): (usize, usize),
) -> Result<bool> {
    println_stripped!(
        "\n[auto-memory {n}/{total}] {} (saved by Claude Code in {})",
        m.summary(),
        m.uri()
    );
    let choice = Select::with_theme(theme)
        .with_prompt("Claude Code already follows this. Make it a pms lesson?")
        .items([
            "Make it a pms lesson, and remove it from auto-memory (one place)",
            "Make it a pms lesson, and keep it in auto-memory too",
            "Leave it in auto-memory only",
            "Stop reviewing",
        ])
        .default(0)
        .interact()?;
    if choice == 2 {
        return Ok(true);
    }
    if choice == 3 {
        return Ok(false);
    }
    let wording = ask_line(theme, WORDING, &strip(&m.summary()), Answer::Required)?;
    println_stripped!("{CUES_HELP}");
    let cues = ask_line(theme, CUES, "", Answer::MayBeEmpty)?;
    let uri = m.uri();
    let new = NewRule {
        text: &wording,
        cues: split_cues(&cues),
        guard: None,
        project: None,
        source_ref: Some(&uri),
        origin: None,
    };
    let target = Target::parse(ws, Some(&pick_domain(ws, theme, None)?))?;
    let forget = if choice == 0 { Forget::Yes } else { Forget::No };
    let adopted = accept::adopt_memory(ws, m, &new, &target, OnDuplicate::Stop, forget)?;
    match &adopted.promoted {
        Promoted::Added(r) | Promoted::Merged(r) => {
            println_stripped!("  Added {} to {}.", r.id, r.file)
        }
        Promoted::Duplicate(r) => {
            println_stripped!(
                "  {} already says nearly the same; nothing added, auto-memory kept.",
                r.id
            )
        }
    }
    if adopted.forgotten {
        println_stripped!("  Removed {} from auto-memory.", m.uri());
    }
    Ok(true)
}

/// ", you said" for a learning the user stated (the agent's are the
/// default, and items staged before origins were kept say nothing).
fn said_by(item: &PendingItem) -> &'static str {
    match item.origin {
        Some(Origin::User) => ", you said",
        Some(Origin::Assistant) | None => "",
    }
}

/// The pending learnings, one by one. Returns false when the user stops.
fn review_pending(ws: &Workspace, theme: &ColorfulTheme, waiting: &[PendingItem]) -> Result<bool> {
    let total = waiting.len();
    for (n, item) in waiting.iter().enumerate() {
        println_stripped!(
            "\n[{}/{total}] {} ({}{}){}",
            n + 1,
            item.id,
            item.kind,
            said_by(item),
            source(item)
        );
        println_stripped!("  {}", item.text);
        if let Some(why) = &item.why {
            println_stripped!("  why: {why}");
        }
        if !item.seen_again.is_empty() {
            println_stripped!(
                "  said again in {}",
                crate::platform::plural::count(
                    item.seen_again.len(),
                    "later session",
                    "later sessions"
                )
            );
        }
        if let Some(old) = item
            .replaces
            .as_deref()
            .and_then(|id| store::find(ws, id).ok())
        {
            println_stripped!(
                "  replaces {} ({}): {}\n  It says the opposite; accepting it retires {}.",
                old.id,
                old.file,
                old.text,
                old.id
            );
        }
        // Read now, not once: an earlier answer may have added or merged a rule.
        let rules = lessons::all_rules(ws);
        let step = match lessons::near_duplicate(&rules, &item.text) {
            Some(existing) => review_near_duplicate(ws, theme, item, existing)?,
            None => review_one(ws, theme, item)?,
        };
        if step == Step::Stop {
            return Ok(false);
        }
    }
    Ok(true)
}

#[derive(PartialEq)]
enum Step {
    Next,
    Stop,
}

/// A learning no rule in force says yet: accept, edit, reject, skip.
fn review_one(ws: &Workspace, theme: &ColorfulTheme, item: &PendingItem) -> Result<Step> {
    let choice = Select::with_theme(theme)
        .with_prompt("What should happen to it?")
        .items([
            "Accept as a rule",
            "Edit the wording, then accept",
            "Reject",
            "Skip for now",
            "Stop reviewing",
        ])
        .default(0)
        .interact()?;
    let wording = match choice {
        0 => accept::suggested_wording(&item.text),
        1 => ask_wording(theme, item)?,
        2 => {
            accept::reject(ws, &item.id)?;
            println_stripped!("  Rejected.");
            return Ok(Step::Next);
        }
        3 => return Ok(Step::Next),
        _ => return Ok(Step::Stop),
    };
    let cues = ask_cues(theme, item, &wording)?;
    let target = pick_domain(ws, theme, item.domain.as_deref())?;
    let (guard, project) = ask_guard_and_scope(theme, item)?;
    let how = Acceptance {
        text: Some(&wording),
        cues: Some(cues),
        target: Some(&target),
        on_duplicate: OnDuplicate::Stop,
        guard,
        project: Some(project.as_deref()),
    };
    match accept::accept(ws, &item.id, &how)? {
        Accepted::Promoted(r) | Accepted::Merged(r) => {
            println_stripped!("  Added {} to {}.", r.id, r.file)
        }
        Accepted::Duplicate { existing, .. } => merge_or_keep(ws, theme, item, &how, &existing)?,
    }
    Ok(Step::Next)
}

/// A learning a rule in force nearly says already: said before the menu,
/// and merging it into that rule is the first choice.
fn review_near_duplicate(
    ws: &Workspace,
    theme: &ColorfulTheme,
    item: &PendingItem,
    existing: &Rule,
) -> Result<Step> {
    println_stripped!(
        "  A lesson in force says nearly the same: {} ({}): {}",
        existing.id,
        existing.file,
        existing.text
    );
    let merge = format!(
        "Merge into {}: it takes this wording, and these cues join its own",
        existing.id
    );
    let keep = format!("Keep {} as it is, and drop this learning", existing.id);
    let choice = Select::with_theme(theme)
        .with_prompt("It restates a lesson in force. What should happen to it?")
        .items([
            merge.as_str(),
            "Edit the wording, then merge",
            keep.as_str(),
            "Add it as a separate rule: they say different things",
            "Skip for now",
            "Stop reviewing",
        ])
        .default(0)
        .interact()?;
    let (wording, on_duplicate) = match choice {
        0 => (accept::suggested_wording(&item.text), OnDuplicate::Merge),
        1 => (ask_wording(theme, item)?, OnDuplicate::Merge),
        2 => {
            accept::reject(ws, &item.id)?;
            println_stripped!("  Kept {}.", existing.id);
            return Ok(Step::Next);
        }
        3 => (accept::suggested_wording(&item.text), OnDuplicate::KeepBoth),
        4 => return Ok(Step::Next),
        _ => return Ok(Step::Stop),
    };
    let cues = ask_cues(theme, item, &wording)?;
    let target = match on_duplicate {
        OnDuplicate::KeepBoth => pick_domain(ws, theme, item.domain.as_deref())?,
        _ => existing.scope.clone(),
    };
    let how = Acceptance {
        text: Some(&wording),
        cues: Some(cues),
        target: Some(&target),
        on_duplicate,
        ..Acceptance::default()
    };
    match accept::accept(ws, &item.id, &how)? {
        Accepted::Merged(r) => println_stripped!("  Merged into {} in {}.", r.id, r.file),
        Accepted::Promoted(r) => println_stripped!("  Added {} to {}.", r.id, r.file),
        Accepted::Duplicate { existing, .. } => merge_or_keep(ws, theme, item, &how, &existing)?,
    }
    Ok(Step::Next)
}

/// The guard pms proposes for an explicit prohibition, and the project a
/// learning said it is about: each added only with the user's yes.
fn ask_guard_and_scope(
    theme: &ColorfulTheme,
    item: &PendingItem,
) -> Result<(Option<Guard>, Option<String>)> {
    let guard = match &item.guard {
        Some(pattern) => {
            let yes = dialoguer::Confirm::with_theme(theme)
                .with_prompt(format!(
                    "Block the commands it forbids (guard `{}`): the agent is stopped with this rule as the reason?",
                    strip(pattern)
                ))
                .default(false)
                .interact()?;
            if yes {
                Some(Guard::new(pattern, GuardMode::Deny)?)
            } else {
                None
            }
        }
        None => None,
    };
    let project = match &item.project {
        Some(p) => {
            let yes = dialoguer::Confirm::with_theme(theme)
                .with_prompt(format!(
                    "Only in {} (it says \"this repo\"), not in other projects?",
                    strip(p)
                ))
                .default(true)
                .interact()?;
            yes.then(|| p.clone())
        }
        None => None,
    };
    Ok((guard, project))
}

fn ask_wording(theme: &ColorfulTheme, item: &PendingItem) -> Result<String> {
    let staged = accept::suggested_wording(&item.text);
    ask_line(theme, WORDING, &strip(&staged), Answer::Required)
}

const WORDING: &str = "The rule (what to do, when, and why)";
const CUES: &str = "When does it apply?";

/// Said on its own line before the cue question, so that the question
/// stays short and the suggested cues start on its line.
const CUES_HELP: &str = "  Cues: situations, commands, synonyms, file types; ';' between them.";

fn ask_cues(theme: &ColorfulTheme, item: &PendingItem, wording: &str) -> Result<Vec<String>> {
    println_stripped!("{CUES_HELP}");
    let suggested = accept::suggested_cues(item, wording).join("; ");
    let cues = ask_line(theme, CUES, &strip(&suggested), Answer::MayBeEmpty)?;
    Ok(split_cues(&cues))
}

fn source(item: &PendingItem) -> String {
    item.transcript_ref
        .as_deref()
        .map(|r| format!(", from {r}"))
        .unwrap_or_default()
}

/// Where a rule goes: "me" or a domain id (`suggested` preselected).
fn pick_domain(ws: &Workspace, theme: &ColorfulTheme, suggested: Option<&str>) -> Result<String> {
    let mut options = vec!["me".to_string()];
    options.extend(ws.installed_domains());
    let labels: Vec<String> = options
        .iter()
        .map(|o| {
            if o == "me" {
                "_me/lessons.md (all work)".to_string()
            } else {
                format!("{o}/CLAUDE.md")
            }
        })
        .collect();
    let default = suggested
        .and_then(|d| options.iter().position(|o| o == d))
        .unwrap_or(0);
    let i = Select::with_theme(theme)
        .with_prompt("Where does it belong?")
        .items(&labels)
        .default(default)
        .interact()?;
    Ok(options[i].clone())
}

fn merge_or_keep(
    ws: &Workspace,
    theme: &ColorfulTheme,
    item: &PendingItem,
    how: &Acceptance,
    existing: &Rule,
) -> Result<()> {
    println_stripped!(
        "  A rule in force says nearly the same: {} ({}): {}",
        existing.id,
        existing.file,
        existing.text
    );
    let i = Select::with_theme(theme)
        .with_prompt("Merge?")
        .items([
            "Merge: give that rule this wording, and add these cues to its own",
            "Keep both: they say different things",
            "Keep the existing rule, drop this learning",
            "Skip for now",
        ])
        .default(0)
        .interact()?;
    let on_duplicate = match i {
        0 => OnDuplicate::Merge,
        1 => OnDuplicate::KeepBoth,
        2 => {
            accept::reject(ws, &item.id)?;
            println_stripped!("  Kept {}.", existing.id);
            return Ok(());
        }
        _ => return Ok(()),
    };
    let how = Acceptance {
        on_duplicate,
        ..how.clone()
    };
    if let Accepted::Merged(r) | Accepted::Promoted(r) = accept::accept(ws, &item.id, &how)? {
        println_stripped!("  Saved {} in {}.", r.id, r.file);
    }
    Ok(())
}

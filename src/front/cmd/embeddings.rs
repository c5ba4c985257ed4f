//! `pms embeddings [status|install]`: the semantic side of search.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::json;

use crate::front::cli::{EmbeddingsAction, EmbeddingsArgs};
use crate::memory::embed::download::{self, Installed};
use crate::memory::embed::{Plan, model_dir, names_a_folder};
use crate::memory::index::{db, stats, vectors};
use crate::platform::workspace::config::{self, Provider};
use crate::platform::workspace::context::Context;

pub fn run(args: &EmbeddingsArgs) -> Result<ExitCode> {
    match &args.action {
        None | Some(EmbeddingsAction::Status) => status(args),
        Some(EmbeddingsAction::Install { .. }) if args.json => bail!(
            "--json: `pms embeddings install` downloads a model and shows its progress, not a report.\n  Fix: leave out --json; `pms embeddings --json` prints the state as JSON afterwards"
        ),
        Some(EmbeddingsAction::Install { from, model }) => {
            install(args, from.as_deref(), model.as_deref())
        }
    }
}

fn status(args: &EmbeddingsArgs) -> Result<ExitCode> {
    let ctx = Context::open(args.ws.workspace.as_deref())?;
    let cfg = &ctx.cfg.embeddings;
    let plan = Plan::resolve(cfg, &ctx.env);
    let dir = model_dir(&ctx.env, &cfg.model);
    let installed = Installed::load(&dir);
    let (counts, stored) = match db::open_ro(&ctx.ws.db_path()) {
        Ok(c) => (
            stats::counts(&c).unwrap_or_default(),
            vectors::stored_model(&c),
        ),
        Err(_) => (stats::Counts::default(), None),
    };
    let (chunks, with_vectors) = (counts.chunks, counts.vectors);
    if args.json {
        let v = json!({
            "provider": cfg.provider.as_str(),
            "in_use": plan.describe(&ctx.env),
            "semantic": !matches!(plan, Plan::Off(_)),
            "model": cfg.model,
            "model_dir": dir,
            "installed": installed,
            "index": {"chunks": chunks, "vectors": with_vectors, "model": stored},
            "vector_weight": cfg.vector_weight,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Provider   {} ({})",
        plan.describe(&ctx.env),
        cfg.provider.as_str()
    );
    match &installed {
        Some(i) => println!(
            "Model      {} from {}, {}, {:.1} MB, installed {}",
            i.model,
            i.source,
            crate::platform::plural::count(i.files.len(), "file", "files"),
            i.files.iter().map(|f| f.size).sum::<u64>() as f64 / 1e6,
            i.installed_at.get(..10).unwrap_or("")
        ),
        None => println!(
            "Model      {} not installed ({})",
            cfg.model,
            ctx.env.display(&dir)
        ),
    }
    println!(
        "Index      {with_vectors} of {} have vectors{}",
        crate::platform::plural::count(chunks, "chunk", "chunks"),
        stored.map(|m| format!(" ({m})")).unwrap_or_default()
    );
    if matches!(plan, Plan::Off(_)) {
        println!(
            "\nSearch is keyword only. `pms embeddings install` downloads {} (then `pms index`).",
            cfg.model
        );
    } else if with_vectors < chunks {
        println!("\n`pms index` embeds the rest.");
    }
    Ok(ExitCode::SUCCESS)
}

fn install(
    args: &EmbeddingsArgs,
    from: Option<&std::path::Path>,
    model: Option<&str>,
) -> Result<ExitCode> {
    let ctx = Context::open_lenient(args.ws.workspace.as_deref())?;
    let cfg = &ctx.cfg.embeddings;
    if matches!(cfg.provider, Provider::OpenaiCompatible | Provider::None) {
        bail!(
            "embeddings.provider is {:?} in {}, so a local model would not be used.\n  Fix: set it to \"auto\" or \"local\" first.",
            cfg.provider.as_str(),
            ctx.ws.config_path().display()
        );
    }
    // A folder is written to config.toml as an absolute path: the hooks and
    // `pms serve` run from other folders.
    let chosen = match model {
        Some(m) if names_a_folder(m) => {
            let dir = ctx.env.expand_tilde(m);
            std::path::absolute(&dir)
                .unwrap_or(dir)
                .to_string_lossy()
                .into_owned()
        }
        Some(m) => m.trim().to_string(),
        None => cfg.model.clone(),
    };
    install_model(&ctx, &chosen, from)?;
    if chosen != cfg.model {
        config::set_string_key(&ctx.ws, "embeddings", "model", &chosen)?;
        println!(
            "embeddings.model is now {chosen} in {} (it was {}).",
            ctx.env.display(&ctx.ws.config_path()),
            cfg.model
        );
    }
    println!("Run `pms index` to embed your memory.");
    Ok(ExitCode::SUCCESS)
}

/// Installs `model` into its folder (downloaded with every file's checksum
/// checked, or copied from `from`) and loads it once, saying what it is.
/// `pms init` runs the same install when the user says yes to it.
pub fn install_model(ctx: &Context, model: &str, from: Option<&std::path::Path>) -> Result<()> {
    let cfg = &ctx.cfg.embeddings;
    let dir = model_dir(&ctx.env, model);
    if names_a_folder(model) {
        // A folder is used where it is: nothing to copy, only to check.
        if from.is_some() {
            bail!(
                "the model to install, {model}, is a folder (from embeddings.model or --model), which pms uses where it is; --from copies a folder into pms's cache under a model id.\n  Fix: leave out --from to use {model} as it is, or name a model id: --from <folder> --model <owner/name>"
            );
        }
    } else {
        let started = Instant::now();
        let installed = match from {
            Some(folder) => {
                let folder = ctx.env.expand_tilde(&folder.to_string_lossy());
                download::install_from(&folder, model, &dir)?
            }
            None => {
                println!(
                    "Downloading {model} from {} into {}",
                    cfg.download_url,
                    ctx.env.display(&dir)
                );
                let bars = super::index::Bars::default();
                download::install(&cfg.download_url, model, &dir, &bars)?
            }
        };
        let mb = installed.files.iter().map(|f| f.size).sum::<u64>() as f64 / 1e6;
        println!(
            "Installed {} ({mb:.1} MB, {}) in {:.1} s.",
            installed.model,
            if from.is_some() {
                "SHA-256 of each file recorded"
            } else {
                "every file's checksum verified"
            },
            started.elapsed().as_secs_f64()
        );
    }
    match crate::memory::embed::LocalModel::load(&dir, model) {
        Ok(m) => println!(
            "It is a {} model, loads in {} ms and gives {}-dimension vectors.",
            m.kind(),
            m.load_ms(),
            m.dim()
        ),
        Err(e) if names_a_folder(model) => bail!("{e}"),
        Err(e) => bail!("the model was installed but does not load: {e}"),
    }
    Ok(())
}

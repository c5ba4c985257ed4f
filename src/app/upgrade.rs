//! `pms upgrade`: a new binary from the project's GitHub releases, then the
//! workspace brought in step with it, without touching user data.
//!
//! The binary is replaced by self_update (rustls, no OpenSSL); the new
//! binary then refreshes the workspace itself (`pms upgrade
//! --workspace-only`), because only it carries the new templates.
//!
//! The refresh follows conffile rules: a system file the user never changed
//! (its hash matches the one in `.pms/manifest.json`) is replaced; one they
//! changed is kept and the new version written beside it as
//! `<file>.pms-new`; a missing one is restored. Promoted lessons inside a
//! domain CLAUDE.md are carried into the new version. User data (`_me/`,
//! content indexes, projects, sessions, pending learnings) is never written.
//! config.toml gains the keys a new version adds, with their comments; the
//! index migrates forward after a backup; hooks and the MCP registration
//! follow the binary if it moved.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::platform::agents::wiring::{self, InstallRecord};
use crate::platform::workspace::context::Context;
use crate::platform::workspace::manifest::{Manifest, content_hash};
use crate::platform::workspace::markers::{self, LESSONS, ROOT_BLOCK};
use crate::platform::workspace::{Workspace, scaffold, templates};

/// Where releases come from (`PMS_UPDATE_URL` replaces the API base, for a
/// GitHub Enterprise mirror or a test feed on 127.0.0.1).
pub const REPO_OWNER: &str = "citrolabs";
pub const REPO_NAME: &str = "pms";

#[derive(Debug, Clone, PartialEq)]
pub struct LatestRelease {
    pub version: String,
    pub newer: bool,
}

fn updater(confirm: bool) -> Result<self_update::backends::github::Update> {
    let mut b = self_update::backends::github::Update::configure();
    b.repo_owner(REPO_OWNER)
        .repo_name(REPO_NAME)
        .bin_name("pms")
        .current_version(env!("CARGO_PKG_VERSION"))
        .show_download_progress(confirm)
        .show_output(false)
        .no_confirm(true)
        // a release is a release: we print what changes and ask ourselves
        .update_strategy(self_update::update::UpdateStrategy::Latest);
    if let Some(url) = std::env::var_os("PMS_UPDATE_URL") {
        b.api_base_url(url.to_string_lossy().trim_end_matches('/'));
    }
    Ok(b.build()?)
}

/// The newest release and whether it is newer than this binary.
pub fn latest() -> Result<LatestRelease> {
    let u = updater(false)?;
    let releases = u
        .get_latest_release()
        .context("asking the release feed for the latest version")?;
    let r = releases
        .latest()
        .context("the release feed lists no release")?;
    let newer = self_update::version::bump_is_greater(env!("CARGO_PKG_VERSION"), r.version())
        .unwrap_or(false);
    Ok(LatestRelease {
        version: r.version().to_string(),
        newer,
    })
}

/// Downloads the latest release and replaces this binary. Returns the new version.
pub fn replace_binary(show_progress: bool) -> Result<String> {
    let status = updater(show_progress)?
        .update()
        .context("downloading and installing the new binary")?;
    Ok(status.version().to_string())
}

/// What a workspace refresh did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Refreshed {
    pub replaced: Vec<String>,
    pub restored: Vec<String>,
    /// Edited by the user: kept, the new version written beside as `.pms-new`.
    pub kept: Vec<String>,
    /// Edited by the user, with the same new version already beside it
    /// from an earlier upgrade: nothing written, still for the user to merge.
    pub awaiting_review: Vec<String>,
    /// Not readable as text (not UTF-8, no permission): left exactly as
    /// they are, the new version written beside as `.pms-new`, each with
    /// the reason. One such file does not stop the upgrade of the others.
    pub unreadable: Vec<String>,
    pub config_keys: Vec<String>,
    pub block: Option<&'static str>,
    pub index_migrated: Option<(i32, i32)>,
    pub rewired: bool,
    /// What became of `embeddings.model` when the default changed (None:
    /// done at an earlier upgrade).
    pub embedding_model: Option<EmbeddingDefault>,
}

/// What the one-time move of `embeddings.model` to the new default
/// ([`DEFAULT_MODEL`](crate::platform::workspace::config::DEFAULT_MODEL))
/// did.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbeddingDefault {
    /// Moved to the new default.
    Adopted,
    /// Left for good: another model chosen, the old one installed or used.
    Settled,
    /// Tried again at the next upgrade: the index could not be read.
    RetryLater,
    /// Tried again at the next upgrade: config.toml could not be written.
    NotWritten(String),
}

/// Runs `exe upgrade --workspace-only`: the new binary carries the new
/// templates, so it refreshes the workspace. Returns whether it succeeded.
pub fn refresh_with(exe: &Path, workspace: Option<&Path>) -> Result<bool> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["upgrade", "--workspace-only"]);
    if let Some(w) = workspace {
        cmd.arg("--workspace").arg(w);
    }
    Ok(cmd.status().context("running the new binary")?.success())
}

/// Brings the workspace in step with this binary's templates and schema.
pub fn refresh_workspace(ctx: &Context) -> Result<Refreshed> {
    let ws = &ctx.ws;
    let mut out = Refreshed::default();
    let mut manifest = Manifest::load(&ws.manifest_path())?;
    let vars = vars_from_profile(ws);
    for id in ws.installed_domains() {
        for (rel, text) in templates::domain_files(&id) {
            if rel == "content-index.md" || rel.starts_with("projects/") {
                continue; // the user's
            }
            refresh_file(
                ws,
                &mut manifest,
                &format!("{id}/{rel}"),
                &vars.render(text),
                &mut out,
            )?;
        }
    }
    refresh_file(
        ws,
        &mut manifest,
        ".pms/.gitignore",
        "# pms state: derived or machine-local, not worth committing.\n*\n",
        &mut out,
    )?;
    out.block = refresh_root_block(ws, &mut manifest, &vars, &mut out.unreadable)?;
    if out.block.is_none() && ws.root.join("CLAUDE.md.pms-new").exists() {
        out.awaiting_review.push("CLAUDE.md".into());
    }
    manifest.pms_version = env!("CARGO_PKG_VERSION").to_string();
    manifest.save(&ws.manifest_path())?;

    out.config_keys = crate::platform::workspace::config::add_config_keys(
        ws,
        crate::platform::workspace::config::WhenAbsent::Leave,
    )?;

    let db_path = ws.db_path();
    if db_path.exists() {
        let from = crate::memory::index::db::version_of(&db_path);
        if from > 0 && from < crate::memory::index::db::SCHEMA_VERSION {
            crate::memory::index::db::open_rw(&db_path)?;
            out.index_migrated = Some((from, crate::memory::index::db::SCHEMA_VERSION));
        }
    }
    // after the migration: the index says which model its vectors are from
    if manifest.embedding_default.is_none() {
        let step = adopt_new_embedding_default(ctx);
        // done for good unless it is to be tried again
        if matches!(step, EmbeddingDefault::Adopted | EmbeddingDefault::Settled) {
            manifest.embedding_default =
                Some(crate::platform::workspace::config::DEFAULT_MODEL.to_string());
            manifest.save(&ws.manifest_path())?;
        }
        out.embedding_model = Some(step);
    }
    out.rewired = rewire(ctx)?;
    Ok(out)
}

/// The default embedding model became all-MiniLM-L6-v2 (on the held-out
/// half of `cargo bench --bench memory`, it finds notes by a paraphrase
/// 0.69 of the time, where keyword search and the registry's static model
/// find 0.23). `pms init` writes every key, so a workspace made before names the
/// old default as if it had been chosen: it moves to the new one, once per
/// workspace (the manifest's `embedding_default` marks it done), only when
/// nothing was made with the old one (the model is not installed and the
/// index, readable, holds no vectors from it) and the local model is in
/// use. A value set later is the user's and is never touched.
fn adopt_new_embedding_default(ctx: &Context) -> EmbeddingDefault {
    use crate::platform::workspace::config::{DEFAULT_MODEL, MULTILINGUAL_MODEL, Provider};
    let e = &ctx.cfg.embeddings;
    if e.model != MULTILINGUAL_MODEL || !matches!(e.provider, Provider::Auto | Provider::Local) {
        return EmbeddingDefault::Settled; // another model, or none, was chosen
    }
    let dir = crate::memory::embed::model_dir(&ctx.env, MULTILINGUAL_MODEL);
    if crate::memory::embed::local::is_installed(&dir) {
        return EmbeddingDefault::Settled;
    }
    let db = ctx.ws.db_path();
    if db.exists() {
        let Ok(conn) = crate::memory::index::db::open_ro(&db) else {
            return EmbeddingDefault::RetryLater; // the index cannot say
        };
        if crate::memory::index::vectors::stored_model(&conn)
            .is_some_and(|id| id.contains(MULTILINGUAL_MODEL))
        {
            return EmbeddingDefault::Settled; // made with it
        }
    }
    match crate::platform::workspace::config::set_string_key(
        &ctx.ws,
        "embeddings",
        "model",
        DEFAULT_MODEL,
    ) {
        Ok(_) => EmbeddingDefault::Adopted,
        Err(e) => EmbeddingDefault::NotWritten(format!("{e:#}")),
    }
}

fn vars_from_profile(ws: &Workspace) -> templates::Vars {
    let field = |name: &str| ws.profile_field(name).unwrap_or_default();
    templates::Vars {
        name: field("Name"),
        role: field("Role"),
        languages: field("Answers in"),
        tone: String::new(),
        date: chrono::Local::now().format("%Y-%m-%d").to_string(),
        domains: ws.installed_domains().join(", "),
    }
}

/// One system file, by the conffile rules.
fn refresh_file(
    ws: &Workspace,
    manifest: &mut Manifest,
    rel: &str,
    new: &str,
    out: &mut Refreshed,
) -> Result<()> {
    let path = ws.root.join(rel);
    let current = match crate::platform::host::durable::read_existing_text(&path) {
        Ok(Some(t)) => t,
        Err(e) => {
            let beside_too = match crate::platform::host::durable::write_atomic(
                &beside(&path),
                new.as_bytes(),
            ) {
                Ok(()) => String::new(),
                Err(w) => format!("; writing the new version beside it failed too: {w}"),
            };
            out.unreadable.push(format!("{rel} ({e}{beside_too})"));
            return Ok(());
        }
        Ok(None) => {
            crate::platform::host::durable::write_atomic(&path, new.as_bytes())?;
            manifest.record(rel, new);
            out.restored.push(rel.to_string());
            return Ok(());
        }
    };
    // Promoted lessons are the user's: they travel into the new version.
    let carried = match (
        markers::inner(&current, LESSONS),
        markers::inner(new, LESSONS),
    ) {
        (Some(lessons), Some(_)) => {
            markers::replace_inner(new, LESSONS, lessons).unwrap_or_else(|| new.to_string())
        }
        _ => new.to_string(),
    };
    let current_hash = content_hash(&current);
    if current_hash == content_hash(new) {
        manifest.record(rel, new);
        return Ok(()); // already this version
    }
    let untouched = manifest
        .files
        .get(rel)
        .is_some_and(|e| e.hash == current_hash);
    if untouched {
        crate::platform::host::durable::write_atomic(&path, carried.as_bytes())?;
        manifest.record(rel, new);
        out.replaced.push(rel.to_string());
    } else if std::fs::read_to_string(beside(&path)).is_ok_and(|b| b == carried) {
        out.awaiting_review.push(rel.to_string());
    } else {
        crate::platform::host::durable::write_atomic(&beside(&path), carried.as_bytes())?;
        out.kept.push(rel.to_string());
    }
    Ok(())
}

fn beside(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.pms-new", path.display()))
}

/// The pms block of the root CLAUDE.md; a file that cannot be read is
/// named in `unreadable` and left as it is.
fn refresh_root_block(
    ws: &Workspace,
    manifest: &mut Manifest,
    vars: &templates::Vars,
    unreadable: &mut Vec<String>,
) -> Result<Option<&'static str>> {
    let path = ws.claude_md();
    let text = match crate::platform::host::durable::read_existing_text(&path) {
        Ok(t) => t.unwrap_or_default(),
        // The user's file, unreadable as text: never written over.
        Err(e) => {
            unreadable.push(format!("CLAUDE.md ({e})"));
            return Ok(None);
        }
    };
    let new_inner = scaffold::root_block_inner(vars, &ws.installed_domains());
    let key = "CLAUDE.md#pms-block";
    match markers::inner(&text, ROOT_BLOCK) {
        None => {
            crate::platform::host::durable::write_atomic(
                &path,
                markers::append_block(&text, ROOT_BLOCK, &new_inner).as_bytes(),
            )?;
            manifest.record(key, &new_inner);
            Ok(Some("added"))
        }
        Some(cur) if cur == new_inner => Ok(None),
        Some(cur)
            if manifest
                .files
                .get(key)
                .is_some_and(|e| e.hash == content_hash(cur)) =>
        {
            let new = markers::replace_inner(&text, ROOT_BLOCK, &new_inner).expect("markers found");
            crate::platform::host::durable::write_atomic(&path, new.as_bytes())?;
            manifest.record(key, &new_inner);
            Ok(Some("refreshed"))
        }
        Some(_) => {
            let new = markers::replace_inner(&text, ROOT_BLOCK, &new_inner).expect("markers found");
            if std::fs::read_to_string(beside(&path)).is_ok_and(|b| b == new) {
                return Ok(None); // reported under awaiting_review by the caller
            }
            crate::platform::host::durable::write_atomic(&beside(&path), new.as_bytes())?;
            Ok(Some(
                "edited by hand: kept, new version in CLAUDE.md.pms-new",
            ))
        }
    }
}

/// Points hooks, the MCP registration and Codex at this binary if it moved.
fn rewire(ctx: &Context) -> Result<bool> {
    let Some(record) = InstallRecord::load(&ctx.ws) else {
        return Ok(false);
    };
    let binary = crate::platform::host::env::current_binary()?;
    if record.binary == binary {
        return Ok(false);
    }
    wiring::rewire(ctx, &binary)?;
    Ok(true)
}

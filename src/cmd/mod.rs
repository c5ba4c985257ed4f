//! One file per subcommand. Each is thin: it turns flags into calls to the
//! library modules and prints the result for a person (or as JSON).

pub mod doctor;
pub mod embeddings;
pub mod get;
pub mod hook;
pub mod index;
pub mod init;
pub mod lessons;
pub mod search;
pub mod serve;
pub mod status;
pub mod sync;
pub mod uninstall;
pub mod upgrade;
pub mod verify;

use anyhow::Result;

use crate::cli::WorkspaceArg;
use crate::env::HostEnv;
use crate::workspace::Workspace;
use crate::workspace::config::Config;

/// What most commands start from: the host paths, the workspace and its
/// settings.
pub struct Context {
    pub env: HostEnv,
    pub ws: Workspace,
    pub cfg: Config,
}

pub fn context(arg: &WorkspaceArg) -> Result<Context> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(arg.workspace.as_deref(), &env)?;
    let cfg = Config::load(&ws.config_path())?;
    Ok(Context { env, ws, cfg })
}

/// [`context`] for commands that must work on a broken install (verify's
/// fixes, upgrade): an invalid config.toml means the defaults, not an error.
pub fn context_lenient(arg: &WorkspaceArg) -> Result<Context> {
    let env = HostEnv::from_process()?;
    let ws = Workspace::locate(arg.workspace.as_deref(), &env)?;
    let cfg = Config::load(&ws.config_path()).unwrap_or_default();
    Ok(Context { env, ws, cfg })
}

//! What every use case starts from: the host paths, the located workspace
//! and its settings, opened once by a front end (a subcommand, the MCP
//! server, a hook) and handed down. Lower code takes a `&Context`; it never
//! locates the workspace or reads `config.toml` on its own.

use std::path::Path;

use anyhow::Result;

use crate::platform::host::env::HostEnv;
use crate::platform::workspace::Workspace;
use crate::platform::workspace::config::{Config, ConfigError};

pub struct Context {
    pub env: HostEnv,
    pub ws: Workspace,
    pub cfg: Config,
    /// What was wrong in `config.toml` (the keys concerned have their
    /// defaults), when the context was opened with [`Context::open_lenient`].
    pub cfg_problems: Vec<ConfigError>,
}

impl Context {
    /// The workspace named by `workspace` (else `$PMS_WORKSPACE`, the
    /// current folder's, or the pointer `pms init` wrote) with its settings;
    /// an invalid `config.toml` is an error.
    pub fn open(workspace: Option<&Path>) -> Result<Context> {
        let env = HostEnv::from_process()?;
        let ws = Workspace::locate(workspace, &env)?;
        let cfg = Config::load(&ws.config_path())?;
        Ok(Context {
            env,
            ws,
            cfg,
            cfg_problems: Vec::new(),
        })
    }

    /// [`Context::open`] for what must work on a broken install (the hooks,
    /// `pms serve`, verify's fixes, upgrade): a wrong key in `config.toml`
    /// means its default, and the problems are kept in `cfg_problems` for the
    /// caller to report.
    pub fn open_lenient(workspace: Option<&Path>) -> Result<Context> {
        let env = HostEnv::from_process()?;
        let ws = Workspace::locate(workspace, &env)?;
        Ok(Context::for_workspace(env, ws))
    }

    /// A context for a workspace already located (init, right after it
    /// created one), with the same leniency as [`Context::open_lenient`].
    pub fn for_workspace(env: HostEnv, ws: Workspace) -> Context {
        let (cfg, cfg_problems) = Config::load_lenient(&ws.config_path());
        Context {
            env,
            ws,
            cfg,
            cfg_problems,
        }
    }
}

//! Locating the workspace and resolving its settings.

use std::path::{Path, PathBuf};

use agent_guard_config::{EnvSnapshot, Settings};
use agent_guard_recovery::Migration;
use agent_guard_types::guard_files::UserDirs;
use agent_guard_world::{RealWorld, discover_workspace};

use crate::error::{EngineError, Result};
use crate::location::{StoreKind, StoreLocation};

/// A located workspace with its resolved settings.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The physical workspace root.
    pub root: PathBuf,
    /// Settings resolved from the environment and `.agent-guard.toml`.
    pub settings: Settings,
    /// The home directory, from `HOME`.
    pub home: Option<PathBuf>,
    /// agent-guard's per-user state directory: `$XDG_STATE_HOME/agent-guard` when that is
    /// absolute, else `~/.local/state/agent-guard`; `None` without either. The audit chain
    /// key lives under it.
    pub state_dir: Option<PathBuf>,
    /// Where the store is, and how that was chosen (docs/recovery.md).
    pub store: StoreLocation,
    /// What moving an older store from inside the workspace did, when something was to do.
    pub migration: Option<String>,
    /// Git's per-user configuration directory (`$XDG_CONFIG_HOME/git`), for its `ignore`.
    pub git_user_dir: Option<PathBuf>,
    /// The user's directories where the harnesses and the guard keep their configuration
    /// (protected from the agent's commands: `agent_guard_types::guard_files`).
    pub user_dirs: UserDirs,
    /// The project file's settings that loosen the guard and were set aside because no
    /// person trusted the file (`agent-guard config trust`); empty when none.
    pub untrusted: Vec<&'static str>,
}

impl Workspace {
    /// The warning that says which project settings were set aside, if any.
    pub fn untrusted_warning(&self) -> Option<String> {
        (!self.untrusted.is_empty()).then(|| {
            format!(
                "{} in {} would loosen the guard and is not in effect until a person runs \
                 `agent-guard config trust` (the safe default is used)",
                self.untrusted.join(", "),
                self.root
                    .join(agent_guard_config::CONFIG_FILE_NAME)
                    .display()
            )
        })
    }
}

/// The user directories of [`guard_files`](agent_guard_types::guard_files), from `env`.
fn user_dirs(env: &EnvSnapshot, home: Option<&Path>) -> UserDirs {
    let path = |value: &Option<std::ffi::OsString>| {
        value
            .as_deref()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    UserDirs {
        home: home.map(Path::to_path_buf),
        claude_config_dir: path(&env.claude_config_dir),
        codex_home: path(&env.codex_home),
        gemini_cli_home: path(&env.gemini_cli_home),
        qwen_home: path(&env.qwen_home),
        copilot_home: path(&env.copilot_home),
        xdg_config_home: path(&env.xdg_config_home),
        xdg_state_home: path(&env.xdg_state_home),
        guard_binary: current_binary(),
        path_dirs: env
            .path
            .as_deref()
            .map(|value| std::env::split_paths(value).collect())
            .unwrap_or_default(),
    }
}

/// The running binary, the one a hook names (not followed through links: the name the
/// hook runs is what must not be replaced).
fn current_binary() -> Option<PathBuf> {
    std::env::current_exe().ok()
}

impl Workspace {
    /// Locates the workspace from `cwd` (or `AGENT_GUARD_WORKSPACE`) and loads its settings.
    pub fn open(cwd: &Path, env: &EnvSnapshot) -> Result<Workspace> {
        let (root, home) = Workspace::discover(cwd, env)?;
        let user = agent_guard_config::layers::user_config_path(env);
        let layered = agent_guard_config::layers::load_layers(
            &root,
            state_dir(env, home.as_deref()).as_deref(),
            user.as_deref(),
            Some(Path::new(agent_guard_config::layers::SYSTEM_CONFIG_PATH)),
        )
        .map_err(EngineError::Config)?;
        let untrusted = layered.set_aside;
        let file = layered.any.then_some(layered.file);
        let settings =
            Settings::resolve(root.clone(), env, file.as_ref()).map_err(EngineError::Config)?;
        let mut workspace = Workspace::placed(root, settings, env, home);
        workspace.untrusted = untrusted;
        Ok(workspace)
    }

    /// The workspace with its store located (and an older in-workspace store moved there).
    fn placed(
        root: PathBuf,
        mut settings: Settings,
        env: &EnvSnapshot,
        home: Option<PathBuf>,
    ) -> Workspace {
        let store = crate::location::locate(&root, &settings, env);
        settings.trash.clone_from(&store.path);
        let migration = match store.kind {
            StoreKind::PerUser | StoreKind::SameFilesystem => {
                let old = root.join(crate::location::IN_WORKSPACE);
                match agent_guard_recovery::migrate_store(&root, &old, &store.path) {
                    Ok(Migration::Nothing) => None,
                    Ok(Migration::Moved) => Some(format!(
                        "the store inside the workspace ({}) was moved to {}",
                        old.display(),
                        store.path.display()
                    )),
                    Ok(Migration::LeftBoth) => Some(format!(
                        "an older store remains inside the workspace ({}); its transactions \
                         are read with AGENT_GUARD_TRASH={}",
                        old.display(),
                        old.display()
                    )),
                    Err(error) => Some(format!(
                        "moving the store inside the workspace ({}) did not finish: {}; the \
                         next command tries again",
                        old.display(),
                        agent_guard_types::error_chain(&error)
                    )),
                }
            }
            _ => None,
        };
        let state_dir = state_dir(env, home.as_deref());
        let user_dirs = user_dirs(env, home.as_deref());
        Workspace {
            user_dirs,
            untrusted: Vec::new(),
            root,
            settings,
            home,
            state_dir,
            store,
            migration,
            git_user_dir: env.git_user_dir(),
        }
    }

    /// [`Workspace::open`], but a project file that cannot be read does not stop it: the
    /// settings come from the environment and the defaults, and the error is returned beside
    /// them (for `status`, the first thing one runs to diagnose).
    ///
    /// # Errors
    /// The workspace cannot be located, or the environment's own settings are invalid.
    pub fn open_lenient(cwd: &Path, env: &EnvSnapshot) -> Result<(Workspace, Option<String>)> {
        match Workspace::open(cwd, env) {
            Err(EngineError::Config(error)) => {
                let (root, home) = Workspace::discover(cwd, env)?;
                let settings =
                    Settings::resolve(root.clone(), env, None).map_err(EngineError::Config)?;
                let detail = agent_guard_types::error_chain(&error);
                Ok((Workspace::placed(root, settings, env, home), Some(detail)))
            }
            other => other.map(|workspace| (workspace, None)),
        }
    }

    /// The workspace root for `cwd` (or `AGENT_GUARD_WORKSPACE`), and the home directory.
    fn discover(cwd: &Path, env: &EnvSnapshot) -> Result<(PathBuf, Option<PathBuf>)> {
        let override_ = env
            .workspace
            .as_deref()
            .filter(|v| !v.is_empty())
            .map(Path::new);
        let home = env
            .home
            .as_deref()
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let root = discover_workspace(cwd, override_, home.as_deref()).map_err(|source| {
            EngineError::Workspace {
                cwd: cwd.to_owned(),
                source,
            }
        })?;
        Ok((root, home))
    }

    /// The read-only world over this workspace.
    pub fn world(&self) -> RealWorld {
        RealWorld::new(
            self.root.clone(),
            self.settings.trash.clone(),
            self.home.clone(),
        )
        .with_git_user_dir(self.git_user_dir.clone())
        .with_artifacts(&self.settings.artifacts)
        .with_user_dirs(&self.user_dirs)
    }

    /// The quarantine root.
    pub fn trash(&self) -> &Path {
        &self.settings.trash
    }
}

/// agent-guard's per-user state directory, resolved as `agent-guard install` resolves it.
pub(crate) fn state_dir(env: &EnvSnapshot, home: Option<&Path>) -> Option<PathBuf> {
    let base = match env.xdg_state_home.as_deref().map(Path::new) {
        Some(dir) if dir.is_absolute() => dir.to_owned(),
        _ => home
            .filter(|h| h.is_absolute())?
            .join(".local")
            .join("state"),
    };
    Some(base.join("agent-guard"))
}

//! Where a workspace's store (the quarantine, its journals and its checkpoints) lives: out of
//! reach of the commands it guards.
//!
//! A store inside the workspace (`<workspace>/.agent-trash`, the reference tool's place) can
//! be deleted by the very command it keeps things for: `rm -rf .[!.]* *`, `find . -mindepth 1
//! -delete`, `git clean -ffdx`, a script. So by default it lives per user, outside the
//! workspace (docs/recovery.md):
//!
//! 1. a store of this workspace that exists already, where the guard would put one;
//! 2. `$XDG_DATA_HOME/agent-guard/<workspace id>` (`~/.local/share/…`) when that is on the
//!    workspace's filesystem, so that relocating stays a rename;
//! 3. else `<top>/.agent-guard/stores/<workspace id>`, `<top>` the highest directory above the
//!    workspace on its filesystem that the user may write and that no git work tree holds;
//! 4. else the per-user place on another filesystem (relocations copy; `status` says so);
//! 5. only without a home directory: `<workspace>/.agent-trash`, as before.
//!
//! `AGENT_GUARD_TRASH` and `trash` in `.agent-guard.toml` name it instead. The workspace id
//! is its directory's name and a hash of its physical path: the same workspace always finds
//! its store, and a moved workspace starts a new one.

use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_config::{EnvSnapshot, Settings};

/// How a store's place was chosen (`status --json`'s `store.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StoreKind {
    /// `AGENT_GUARD_TRASH` or `trash` in `.agent-guard.toml`.
    Named,
    /// `$XDG_DATA_HOME/agent-guard/<workspace id>`.
    PerUser,
    /// `<top of the workspace's filesystem>/.agent-guard/stores/<workspace id>`.
    SameFilesystem,
    /// `<workspace>/.agent-trash`: no home directory to keep it in.
    InWorkspace,
}

/// Where a workspace's store is, and how that was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StoreLocation {
    /// The store's root.
    pub path: PathBuf,
    /// How it was chosen.
    pub kind: StoreKind,
    /// It is on the workspace's filesystem (a relocation is a rename).
    pub same_filesystem: bool,
    /// It lies inside the workspace, where a command run there can reach it.
    pub inside_workspace: bool,
}

/// The name the reference tool's in-workspace store has.
pub(crate) const IN_WORKSPACE: &str = agent_guard_config::DEFAULT_TRASH_DIRNAME;

/// Locates the store of the workspace at `root` (physical).
pub(crate) fn locate(root: &Path, settings: &Settings, env: &EnvSnapshot) -> StoreLocation {
    let device = |path: &Path| {
        path.ancestors()
            .find_map(|p| p.symlink_metadata().ok())
            .map(|m| m.dev())
    };
    let here = device(root);
    let describe = |path: PathBuf, kind: StoreKind| StoreLocation {
        same_filesystem: here.is_some() && device(&path) == here,
        inside_workspace: path.starts_with(root),
        path,
        kind,
    };
    if settings.trash_explicit {
        return describe(settings.trash.clone(), StoreKind::Named);
    }
    let id = workspace_id(root);
    let per_user = data_home(env).map(|data| data.join("agent-guard").join(&id));
    let same_fs = top_of_filesystem(root).map(|top| top.join(".agent-guard/stores").join(&id));
    let usable = |path: &Option<PathBuf>| path.clone().filter(|p| !p.starts_with(root));
    let (per_user, same_fs) = (usable(&per_user), usable(&same_fs));
    // 1. An existing store stays where it is.
    for (place, kind) in [
        (&same_fs, StoreKind::SameFilesystem),
        (&per_user, StoreKind::PerUser),
    ] {
        if let Some(path) = place
            && path.is_dir()
        {
            return describe(path.clone(), kind);
        }
    }
    // 2. to 4.
    match (per_user, same_fs) {
        (Some(path), _) if device(&path) == here => describe(path, StoreKind::PerUser),
        (_, Some(path)) => describe(path, StoreKind::SameFilesystem),
        (Some(path), None) => describe(path, StoreKind::PerUser),
        (None, None) => describe(root.join(IN_WORKSPACE), StoreKind::InWorkspace),
    }
}

/// `<name>-<16 hex digits of the SHA-256 of the physical path>`: readable, and distinct for
/// distinct workspaces.
pub fn workspace_id(root: &Path) -> String {
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        .take(40)
        .collect();
    let name = name.trim_start_matches('.');
    let hash = agent_guard_audit::sha256_bytes(root.as_os_str().as_bytes());
    let name = if name.is_empty() { "workspace" } else { name };
    format!("{name}-{}", &hash[..16])
}

/// `$XDG_DATA_HOME` when absolute, else `~/.local/share`.
fn data_home(env: &EnvSnapshot) -> Option<PathBuf> {
    let absolute = |v: &std::ffi::OsStr| {
        let path = PathBuf::from(v);
        path.is_absolute().then_some(path)
    };
    env.xdg_data_home
        .as_deref()
        .filter(|v| !v.is_empty())
        .and_then(absolute)
        .or_else(|| {
            env.home
                .as_deref()
                .filter(|v| !v.is_empty())
                .and_then(absolute)
                .map(|home| home.join(".local").join("share"))
        })
}

/// The highest directory above `root` on its filesystem that the user may write, and that no
/// git work tree holds (a store there would be some other workspace's content).
fn top_of_filesystem(root: &Path) -> Option<PathBuf> {
    let here = root.symlink_metadata().ok()?.dev();
    let mut above: Vec<&Path> = Vec::new();
    for dir in root.ancestors().skip(1) {
        match dir.symlink_metadata() {
            Ok(meta) if meta.dev() == here => above.push(dir),
            _ => break,
        }
    }
    // A `.git` in an ancestor puts it and everything below it in that work tree.
    if let Some(held) = above
        .iter()
        .rposition(|d| d.join(".git").symlink_metadata().is_ok())
    {
        above.drain(..=held);
    }
    above
        .into_iter()
        .rev()
        .find(|d| rustix::fs::access(*d, rustix::fs::Access::WRITE_OK).is_ok())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_readable_and_distinct() {
        let a = workspace_id(Path::new("/home/u/proj"));
        let b = workspace_id(Path::new("/srv/proj"));
        assert!(a.starts_with("proj-") && b.starts_with("proj-"), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(a, workspace_id(Path::new("/home/u/proj")));
        assert!(workspace_id(Path::new("/")).starts_with("workspace-"));
        assert!(workspace_id(Path::new("/x/.hidden dir")).starts_with("hiddendir-"));
    }

    #[test]
    fn the_store_is_per_user_and_outside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join("ws");
        std::fs::create_dir(&ws).unwrap();
        let env = EnvSnapshot {
            home: Some(root.join("home").into()),
            ..EnvSnapshot::default()
        };
        let settings = Settings::resolve(ws.clone(), &env, None).unwrap();
        let found = locate(&ws, &settings, &env);
        assert_eq!(found.kind, StoreKind::PerUser);
        assert!(
            found
                .path
                .starts_with(root.join("home/.local/share/agent-guard"))
        );
        assert!(found.same_filesystem && !found.inside_workspace);
        // The workspace is the home directory: the per-user place would be inside it.
        let env = EnvSnapshot {
            home: Some(ws.clone().into()),
            ..EnvSnapshot::default()
        };
        let found = locate(&ws, &settings, &env);
        assert!(!found.inside_workspace, "{found:?}");
        // No home at all: the reference tool's place.
        let found = locate(&ws, &settings, &EnvSnapshot::default());
        assert!(
            found.kind == StoreKind::SameFilesystem || found.kind == StoreKind::InWorkspace,
            "{found:?}"
        );
        // Named: as named.
        let env = EnvSnapshot {
            trash: Some(root.join("mine").into()),
            ..EnvSnapshot::default()
        };
        let settings = Settings::resolve(ws.clone(), &env, None).unwrap();
        assert_eq!(locate(&ws, &settings, &env).kind, StoreKind::Named);
    }
}

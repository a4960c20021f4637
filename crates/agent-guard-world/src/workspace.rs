//! Workspace discovery: which directory the guard protects.

use std::path::{Path, PathBuf};

use crate::error::WorldError;

/// Finds the physical workspace root.
///
/// - With `override_` (the value of `AGENT_GUARD_WORKSPACE`): that path, made absolute against
///   `start` and resolved with `realpath`.
/// - Otherwise the nearest ancestor of `start` (inclusive) that has a `.git` entry — a directory,
///   or a file for worktrees and submodules — resolved with `realpath`.
/// - Otherwise `start` itself, resolved with `realpath` — unless that is the filesystem root,
///   another protected root (`/tmp`, `/usr`, …) or the home directory `home`: a workspace
///   there is never chosen by fallback ([`WorldError::NoWorkspace`]); set one with
///   `AGENT_GUARD_WORKSPACE` or work inside a git repository.
///
/// The ancestors are those of `start` *as spelled* (made absolute, then folded lexically), as
/// the reference tool does; only the chosen directory is resolved. The result is always
/// physical, so a symlinked alias of the workspace yields the same root (macOS `/var` →
/// `/private/var`).
///
/// # Errors
///
/// [`WorldError::Realpath`] when the chosen directory cannot be resolved (it does not exist,
/// or a component is not searchable), [`WorldError::Absolute`] when a relative `start`
/// cannot be made absolute, and [`WorldError::NoWorkspace`] when only a fallback to the
/// root or the home directory is left.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// std::fs::create_dir_all(dir.path().join("repo/.git"))?;
/// std::fs::create_dir_all(dir.path().join("repo/src/deep"))?;
/// let root =
///     agent_guard_world::discover_workspace(&dir.path().join("repo/src/deep"), None, None)?;
/// assert_eq!(root, std::fs::canonicalize(dir.path().join("repo"))?);
/// # Ok(())
/// # }
/// ```
pub fn discover_workspace(
    start: &Path,
    override_: Option<&Path>,
    home: Option<&Path>,
) -> Result<PathBuf, WorldError> {
    let start = absolute(start)?;
    if let Some(chosen) = override_ {
        return realpath(&start.join(chosen));
    }
    let start = crate::resolve::fold_lexical(&start);
    for dir in start.ancestors() {
        // `symlink_metadata`: a `.git` entry of any kind counts, as for git itself (a gitfile
        // for worktrees and submodules, even a symlink).
        if dir.join(".git").symlink_metadata().is_ok() {
            return realpath(dir);
        }
    }
    let fallback = realpath(&start)?;
    let home = home.and_then(|h| h.canonicalize().ok());
    let protected = crate::protect::PROTECTED_ROOTS
        .iter()
        .any(|root| fallback == Path::new(root))
        || home.as_deref() == Some(fallback.as_path());
    if protected {
        return Err(WorldError::NoWorkspace { cwd: fallback });
    }
    Ok(fallback)
}

fn absolute(path: &Path) -> Result<PathBuf, WorldError> {
    std::path::absolute(path).map_err(|source| WorldError::Absolute {
        path: path.to_path_buf(),
        source,
    })
}

fn realpath(path: &Path) -> Result<PathBuf, WorldError> {
    path.canonicalize().map_err(|source| WorldError::Realpath {
        path: path.to_path_buf(),
        source,
    })
}

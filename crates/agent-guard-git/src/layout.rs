//! What the quarantine's layout needs from git: the common directory, ignore checks and a
//! nested repository that shields the quarantine from git's destructive commands.

use std::path::{Path, PathBuf};

use git2::Repository;

use crate::error::GitError;

/// The common git directory of the repository at `workspace` (the main repository's for a
/// worktree), or `None` when `workspace` is not a repository.
pub fn common_dir(workspace: &Path) -> Option<PathBuf> {
    Repository::open(workspace)
        .ok()
        .map(|repository| repository.commondir().to_path_buf())
}

/// The repository's `info/exclude` file (in the common directory).
///
/// # Errors
/// `workspace` is not a repository.
pub fn exclude_file(workspace: &Path) -> Result<PathBuf, GitError> {
    let repository = open(workspace)?;
    Ok(repository.commondir().join("info").join("exclude"))
}

/// Whether git ignores `relative` (a `/`-separated path inside the work tree; a trailing
/// `/` asks about a directory).
///
/// # Errors
/// `workspace` is not a repository, or git cannot evaluate its ignore rules.
pub fn ignores(workspace: &Path, relative: &str) -> Result<bool, GitError> {
    open(workspace)?
        .is_path_ignored(relative)
        .map_err(|source| GitError::IgnoreCheck {
            path: workspace.join(relative),
            source,
        })
}

/// Makes `dir` a (non-bare) git repository of its own. Git then treats it as a nested
/// repository, which `git clean -fdx`, `git stash -u` and `git add -A` leave alone.
///
/// # Errors
/// The repository cannot be created.
pub fn init_nested(dir: &Path) -> Result<(), GitError> {
    Repository::init(dir)
        .map(drop)
        .map_err(|source| GitError::Init {
            path: dir.to_path_buf(),
            source,
        })
}

fn open(workspace: &Path) -> Result<Repository, GitError> {
    Repository::open(workspace).map_err(|source| GitError::OpenRepository {
        path: workspace.to_path_buf(),
        source,
    })
}

/// Creates a repository at `dir` whose first commit (on `HEAD`) holds `paths` (relative to
/// `dir`, already written), as `author`. For throw-away workspaces such as `agent-guard demo`.
///
/// # Errors
/// The repository, the index or the commit cannot be written.
pub fn init_with_commit(dir: &Path, paths: &[&Path], author: (&str, &str)) -> Result<(), GitError> {
    let git = |source| GitError::Init {
        path: dir.to_path_buf(),
        source,
    };
    let repo = Repository::init(dir).map_err(git)?;
    let mut index = repo.index().map_err(git)?;
    for path in paths {
        index.add_path(path).map_err(git)?;
    }
    index.write().map_err(git)?;
    let tree = repo
        .find_tree(index.write_tree().map_err(git)?)
        .map_err(git)?;
    let signature = git2::Signature::now(author.0, author.1).map_err(git)?;
    repo.commit(Some("HEAD"), &signature, &signature, "initial", &tree, &[])
        .map_err(git)?;
    Ok(())
}

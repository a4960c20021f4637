//! Git compensations: work-tree snapshots, kept refs and `git clean` enumeration.
//!
//! Before a destructive git command runs, the engine asks for one of these:
//!
//! - [`Quarantine::snapshot_worktree`](crate::Quarantine::snapshot_worktree) (before
//!   `git reset --hard`, `git checkout -- p`, `git restore p`, `git rm -f`, …) records the
//!   tracked changes as an index commit and a work-tree commit, the way `git stash create`
//!   does, under `refs/agent-guard/snapshots/<txid>`.
//! - [`Quarantine::preserve_refs`](crate::Quarantine::preserve_refs) (before
//!   `git stash drop|clear`, `git branch -D`) keeps the commits a ref deletion would orphan
//!   under `refs/agent-guard/stash/<txid>/<n>` and `refs/agent-guard/branches/<txid>/<name>`.
//! - [`Quarantine::enumerate_clean`](crate::Quarantine::enumerate_clean) lists exactly what
//!   `git clean` would remove, so it can be relocated into the quarantine first.
//!
//! [`Quarantine::restore_git_items`](crate::Quarantine::restore_git_items) puts snapshots and
//! kept refs back; [`Quarantine::drop_git_refs`](crate::Quarantine::drop_git_refs) deletes the
//! private refs of a purged transaction.
//!
//! Everything goes through git2, never a git subprocess. A snapshot never writes or locks the
//! user's index file and never touches `refs/stash`: the work-tree tree is derived from the
//! index's tree by updating only the changed paths (`git_tree_create_updated`).

mod apply;
mod clean;
mod clean_walk;
mod expand;
mod ignore;
mod pathspec;
mod refs;
mod repo_dir;
mod scan;
mod snapshot;
mod stash_list;
mod tree_write;
mod wildmatch;
mod worktree;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use git2::{Repository, Signature};
use serde::Serialize;

use crate::error::RecoveryError;

/// The namespace of every ref this crate creates.
pub(crate) const REF_NAMESPACE: &str = "refs/agent-guard/";

/// What a work-tree snapshot produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GitSnapshot {
    /// The work-tree commit, `None` when the tree was clean.
    pub sha: Option<String>,
    /// The private ref that keeps it, `None` when the tree was clean.
    pub refname: Option<String>,
}

/// A ref kept before a command drops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptRef {
    /// `stash` or `branch`.
    pub subject: &'static str,
    /// `stash@{n}` (its position when it was kept) or the branch name.
    pub name: String,
    /// The commit kept.
    pub sha: String,
    /// The private ref that keeps it.
    pub refname: String,
}

/// The refs a command is about to drop.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RefSubject {
    /// `git stash drop [<stash>]`: selectors such as `stash@{0}`, `refs/stash@{2}` or `1`.
    /// An empty list means `stash@{0}`, as for `git stash drop` without an argument.
    StashEntries(Vec<String>),
    /// `git stash clear`: every entry.
    AllStashEntries,
    /// `git branch -D` or a forced overwrite: branch names (without `refs/heads/`).
    Branches(Vec<String>),
}

/// The outcome of [`Quarantine::restore_git_items`](crate::Quarantine::restore_git_items).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitRestore {
    /// What is back in place: `stash:<sha>` for snapshots and stash entries, `ref:<name>`
    /// for branches (including those found already restored).
    pub restored: Vec<String>,
    /// Work-tree paths (absolute) or refs (`refs/heads/<name>`) that hold something else
    /// now; they were left untouched.
    pub conflicts: Vec<String>,
    /// Failures, one line each.
    pub errors: Vec<String>,
}

/// An open repository and its work tree's root.
pub(crate) struct WorkTree {
    pub(crate) repo: Repository,
    pub(crate) root: PathBuf,
    /// Git's per-user configuration directory (`$XDG_CONFIG_HOME/git`), if known.
    pub(crate) user_dir: Option<PathBuf>,
}

impl std::fmt::Debug for WorkTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkTree")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl WorkTree {
    /// Opens the repository whose work tree contains `cwd` (searching upwards, not across
    /// filesystems, like git). `user_dir` is git's per-user configuration directory.
    pub(crate) fn discover(cwd: &Path, user_dir: Option<&Path>) -> Result<WorkTree, RecoveryError> {
        let repo = Repository::discover(cwd).map_err(|source| RecoveryError::OpenRepository {
            path: cwd.to_path_buf(),
            source,
        })?;
        let root =
            repo.workdir()
                .map(Path::to_path_buf)
                .ok_or_else(|| RecoveryError::NotAWorkTree {
                    path: cwd.to_path_buf(),
                })?;
        Ok(WorkTree {
            repo,
            root,
            user_dir: user_dir.map(Path::to_path_buf),
        })
    }

    /// A per-user git file (`ignore`, `attributes`) at git's default location, which git
    /// reads without any configuration.
    pub(crate) fn user_file(&self, name: &str) -> Option<PathBuf> {
        self.user_dir.as_ref().map(|dir| dir.join(name))
    }

    /// Maps a git error to [`RecoveryError::Git`] for this work tree.
    pub(crate) fn error(
        &self,
        action: &'static str,
    ) -> impl FnOnce(git2::Error) -> RecoveryError + '_ {
        move |source| RecoveryError::Git {
            action,
            path: self.root.clone(),
            source,
        }
    }

    /// The absolute path of a repository-relative path.
    pub(crate) fn path_of(&self, relative: &[u8]) -> PathBuf {
        self.root.join(OsStr::from_bytes(relative))
    }

    /// The identity for commits and reflog entries: the configured one, else a fixed one
    /// (a snapshot must not fail because `user.name` is unset).
    pub(crate) fn signature(&self) -> Signature<'static> {
        self.repo
            .signature()
            .or_else(|_| Signature::now("agent-guard", "agent-guard@localhost"))
            .map_or_else(|_| fallback_signature(), |signature| signature.to_owned())
    }
}

/// A signature that cannot fail to build (epoch time).
fn fallback_signature() -> Signature<'static> {
    Signature::new(
        "agent-guard",
        "agent-guard@localhost",
        &git2::Time::new(0, 0),
    )
    .expect("a fixed ASCII name and e-mail always make a valid signature")
}

/// The ref that keeps a work-tree snapshot.
pub(crate) fn snapshot_ref(txid: &str) -> String {
    format!("{REF_NAMESPACE}snapshots/{txid}")
}

/// The ref that keeps stash entry `index`.
pub(crate) fn stash_ref(txid: &str, index: usize) -> String {
    format!("{REF_NAMESPACE}stash/{txid}/{index}")
}

/// The ref that keeps branch `name`.
pub(crate) fn branch_ref(txid: &str, name: &str) -> String {
    format!("{REF_NAMESPACE}branches/{txid}/{name}")
}

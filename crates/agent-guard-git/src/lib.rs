//! The git layer of agent-guard, over the user's repository: git facts (ignore rules on
//! `gix-ignore`, [`Excludes`]; artifact patterns, [`Artifacts`]), work-tree snapshots, kept
//! refs, `git clean` enumeration and git's pathspec rules. Workspace checkpoints live in
//! `agent-guard-checkpoint`.
//!
//! In the pipeline this sits under the compensations: before a destructive git command runs,
//! `agent-guard-recovery` asks this crate for
//!
//! - a work-tree snapshot ([`PreparedSnapshot`], before `git reset --hard`, `git checkout -- p`,
//!   `git restore p`, `git rm -f`, …): the tracked changes as an index commit and a work-tree
//!   commit, the way `git stash create` makes them, kept under
//!   `refs/agent-guard/snapshots/<txid>`;
//! - kept refs ([`resolve_keeps`], [`create_kept_refs`], before `git stash drop|clear` and
//!   `git branch -D`): the commits a ref deletion would orphan, under
//!   `refs/agent-guard/stash/<txid>/<n>` and `refs/agent-guard/branches/<txid>/<name>`;
//! - the exact list of what `git clean` would remove ([`enumerate_clean`]), so it can be
//!   relocated into the quarantine first;
//!
//! [`restore_items`] puts snapshots and kept refs back without overwriting anything that
//! changed since; [`drop_private_refs`] deletes the refs of a purged transaction.
//!
//! What it must not do: journal or decide. It knows nothing of the quarantine's manifest;
//! the recovery layer records what this crate did. Everything goes through git2, never a git
//! subprocess. A snapshot never writes or locks the user's index file and never touches
//! `refs/stash`: the work-tree tree is derived from the index's tree by updating only the
//! changed paths (`git_tree_create_updated`). The only files it writes or removes are the
//! work-tree paths a restore puts back, through `agent-guard-fsops`.
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! assert!(agent_guard_git::WorkTree::discover(dir.path(), None).is_err());
//! ```

#![warn(missing_docs)]

mod apply;
mod artifacts;
mod clean;
mod clean_walk;
mod diffstat;
mod error;
mod expand;
mod ignore;
mod index_file;
mod index_tree;
mod layout;
mod moved_index;
mod nested;
mod pathspec;
mod reflog;
mod refs;
mod repo_dir;
mod scan;
mod snapshot;
mod stash_list;
mod symbolic;
mod tree_write;
mod wildmatch;
mod worktree;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use git2::{Repository, Signature};
use serde::Serialize;

pub use apply::restore_items;
pub use artifacts::Artifacts;
pub use moved_index::{MovedEntries, index_path, put_back_entries};

/// Returns `true` if the file name `name` matches the shell glob `pattern` (`*`, `?`,
/// `[…]` with `!`/`^` negation, ranges and `[:class:]`, `\` escapes), byte for byte: names
/// that are not UTF-8 match as they are. Leading dots are the caller's business.
pub fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
    wildmatch::wildmatch(pattern, name, false)
}
pub use clean::enumerate_clean;
pub use diffstat::{FileStat, diffstat};
pub use error::GitError;
pub use ignore::Excludes;
pub use index_file::{IndexCursor, IndexFile, IndexSpan};
pub use index_tree::{CachedTree, IndexChild};
pub use layout::{common_dir, exclude_file, ignores, init_nested, init_with_commit};
pub use nested::in_or_holds_a_repository;
pub use refs::{
    Keep, branch_tip, create_kept_refs, drop_private_refs, kept_ref_name, resolve_keeps,
    set_branch, set_ref,
};
pub use snapshot::{CLEAN_NOTE, PreparedSnapshot, delete_refs};
pub use symbolic::{is_symbolic, set_symbolic};

/// Makes libgit2 read objects the way git reads trees for a checkout or a reset, without
/// re-hashing each object it inflates (zlib's own checksum still catches a corrupt object;
/// `git fsck` and some of git's object-parsing paths re-hash, `read-tree` and
/// `unpack-trees` do not). On a 100,000-file tree the hashing (collision-detecting SHA-1)
/// is a tenth of a hard-reset preflight. Objects this crate
/// writes are still hashed, and objects it creates are still checked to reference existing
/// ones. Process-wide and idempotent; every repository open in agent-guard calls it first.
pub fn configure_libgit2() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| git2::opts::strict_hash_verification(false));
}

/// The namespace of every ref this crate creates.
pub(crate) const REF_NAMESPACE: &str = "refs/agent-guard/";

/// What a kept commit stands for, as the manifest's `snapshot` records name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Subject {
    /// A work-tree snapshot (tracked changes of index and work tree).
    Worktree,
    /// A stash entry.
    Stash,
    /// A branch tip.
    Branch,
    /// Any other ref (a tag, a note, a remote-tracking ref), by its full name: what it points
    /// to (an annotated tag object included).
    Ref,
    /// A reflog (`HEAD`, `refs/heads/main`): its lines, and one commit that keeps every
    /// commit they name.
    Reflog,
    /// A symbolic ref (`HEAD`, `refs/remotes/origin/HEAD`): the ref it names, in the note.
    Symbolic,
}

impl Subject {
    /// The stable name: `worktree`, `stash`, `branch`, `ref`, `reflog` or `symbolic`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Subject::Worktree => "worktree",
            Subject::Stash => "stash",
            Subject::Branch => "branch",
            Subject::Ref => "ref",
            Subject::Reflog => "reflog",
            Subject::Symbolic => "symbolic",
        }
    }

    /// Parses a stable name; `None` (no subject recorded) is a work-tree snapshot, as in
    /// the reference tool's records.
    pub fn parse(name: Option<&str>) -> Option<Subject> {
        match name {
            None | Some("worktree") => Some(Subject::Worktree),
            Some("stash") => Some(Subject::Stash),
            Some("branch") => Some(Subject::Branch),
            Some("ref") => Some(Subject::Ref),
            Some("reflog") => Some(Subject::Reflog),
            Some("symbolic") => Some(Subject::Symbolic),
            Some(_) => None,
        }
    }
}

/// A ref kept before a command drops it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptRef {
    /// `stash` or `branch`.
    pub subject: Subject,
    /// `stash@{n}` (its position when it was kept) or the branch name.
    pub name: String,
    /// The commit kept.
    pub sha: String,
    /// The private ref that keeps it; empty when nothing needs keeping (a symbolic ref names
    /// a ref, not a commit).
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
    /// `git branch -D` or a forced overwrite: branch names (without `refs/heads/`). A name
    /// starting with `refs/` other than `refs/heads/` is a full ref name (`refs/tags/v1`,
    /// kept as [`Subject::Ref`]); one ending in `/` (`refs/notes/`, `refs/`) stands for every
    /// ref under it but the private namespace.
    Branches(Vec<String>),
    /// `git reflog expire|delete`, and beside every ref deletion: every reflog of the
    /// repository.
    AllReflogs,
    /// `git symbolic-ref [-d] NAME`: symbolic refs by their full names (`HEAD`,
    /// `refs/remotes/origin/HEAD`), kept with the ref each names.
    Symbolic(Vec<String>),
}

/// A kept commit to put back: a work-tree snapshot, a stash entry or a branch tip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitItem {
    /// What it stands for.
    pub subject: Subject,
    /// The kept commit.
    pub sha: String,
    /// The private ref that keeps it.
    pub refname: Option<String>,
    /// The stash position (`stash@{n}`) or the branch name.
    pub name: Option<String>,
    /// The repository's work tree.
    pub repository: PathBuf,
    /// A kept stash entry's original message.
    pub note: Option<String>,
    /// The commit the destructive command wrote into the work tree (`reset --hard REV`),
    /// whose content a restore may overwrite without loss.
    pub writes_commit: Option<String>,
}

/// What putting kept commits back did ([`restore_items`]).
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
    /// The refs (full names) this restore created because they were absent: their kept
    /// reflogs are written back exactly, without the line creating them added.
    pub recreated: Vec<String>,
}

/// An open repository and its work tree's root.
pub struct WorkTree {
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
    ///
    /// # Errors
    /// No repository contains `cwd`, or it is bare.
    pub fn discover(cwd: &Path, user_dir: Option<&Path>) -> Result<WorkTree, GitError> {
        configure_libgit2();
        let repo = Repository::discover(cwd).map_err(|source| GitError::OpenRepository {
            path: cwd.to_path_buf(),
            source,
        })?;
        let root = repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| GitError::NotAWorkTree {
                path: cwd.to_path_buf(),
            })?;
        Ok(WorkTree {
            repo,
            root,
            user_dir: user_dir.map(Path::to_path_buf),
        })
    }

    /// The work tree's root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A per-user git file (`ignore`, `attributes`) at git's default location, which git
    /// reads without any configuration.
    pub(crate) fn user_file(&self, name: &str) -> Option<PathBuf> {
        self.user_dir.as_ref().map(|dir| dir.join(name))
    }

    /// Maps a git error to [`GitError::Git`] for this work tree.
    pub(crate) fn error(&self, action: &'static str) -> impl FnOnce(git2::Error) -> GitError + '_ {
        move |source| GitError::Git {
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

/// The ref that keeps the full ref `name` (`refs/tags/v1` → `…/refs/<txid>/tags/v1`).
pub(crate) fn other_ref(txid: &str, name: &str) -> String {
    format!(
        "{REF_NAMESPACE}refs/{txid}/{}",
        name.strip_prefix("refs/").unwrap_or(name)
    )
}

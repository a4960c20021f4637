//! [`RealWorld`]: the read-only world over one workspace.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use agent_guard_types::{PathSpec, ResetPreflight, Target, World};

use crate::protect::{HomeRoots, TrashRoots};
use crate::repo::GitRepo;
use crate::resolve::{LinkBudget, TooManyLinks, fold_lexical, resolve_following_all, steps, walk};

/// The read-only world over one workspace: path facts, git ignore rules and the hard-reset
/// preflight, answered from the real filesystem and git repository.
///
/// Construction does no I/O. Everything is probed lazily: the home directory and the quarantine
/// root are resolved on first use, and the git repository is opened at most once, only when
/// [`World::regenerable`] or [`World::reset_preflight`] needs it. Nothing is ever written,
/// moved or deleted.
///
/// `RealWorld` is `Send` and `Sync`; it is meant to live for one check.
///
/// ```
/// use agent_guard_types::{Protected, Target, World};
/// use agent_guard_world::RealWorld;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let workspace = std::fs::canonicalize(dir.path())?;
/// let world = RealWorld::new(workspace.clone(), workspace.join(".agent-trash"), None);
///
/// let facts = world.path(&Target::literal("../elsewhere"), &workspace);
/// assert_eq!(facts.protected, Some(Protected::OutsideWorkspace));
///
/// let facts = world.path(&Target::literal("."), &workspace);
/// assert_eq!(facts.protected, Some(Protected::WorkspaceRoot));
/// # Ok(())
/// # }
/// ```
pub struct RealWorld {
    pub(crate) workspace: PathBuf,
    pub(crate) trash: PathBuf,
    pub(crate) home: Option<PathBuf>,
    trash_roots: OnceLock<TrashRoots>,
    home_roots: OnceLock<Option<HomeRoots>>,
    /// The last base directory resolved, with its physical spelling: a command's targets
    /// usually share one base.
    base_cache: Mutex<Option<(PathBuf, PathBuf)>>,
    repo: OnceLock<Option<Mutex<GitRepo>>>,
    /// Git's per-user configuration directory, for its `ignore` file.
    pub(crate) git_user_dir: Option<PathBuf>,
    /// The artifact patterns of [`World::regenerable`].
    artifacts: agent_guard_git::Artifacts,
    /// The user-level guard files (see [`RealWorld::with_user_dirs`]).
    user_guard_files: Vec<PathBuf>,
    /// Every guard file, project and user level, in both spellings; built on first use.
    guard_files: OnceLock<Vec<PathBuf>>,
}

impl RealWorld {
    /// Creates the world over `workspace` (its physical root, as [`discover_workspace`]
    /// returns), with the quarantine at `trash` (as configured; it may not exist yet) and the
    /// user's home directory, if known (used for `~` and to protect the home directory).
    ///
    /// A relative `trash` is taken relative to the workspace.
    ///
    /// [`discover_workspace`]: crate::discover_workspace
    pub fn new(workspace: PathBuf, trash: PathBuf, home: Option<PathBuf>) -> RealWorld {
        let trash = if trash.is_absolute() {
            trash
        } else {
            workspace.join(trash)
        };
        RealWorld {
            workspace,
            trash,
            home,
            trash_roots: OnceLock::new(),
            home_roots: OnceLock::new(),
            base_cache: Mutex::new(None),
            repo: OnceLock::new(),
            git_user_dir: None,
            artifacts: agent_guard_git::Artifacts::default(),
            user_guard_files: Vec::new(),
            guard_files: OnceLock::new(),
        }
    }

    /// Protects the user-level guard files of `dirs` (the harnesses' hook configurations in
    /// the user's directories, the guard's own user and system settings) besides the
    /// workspace's own, which every world protects.
    #[must_use]
    pub fn with_user_dirs(mut self, dirs: &agent_guard_types::guard_files::UserDirs) -> RealWorld {
        self.user_guard_files = dirs.entries();
        // The directories of the hook's `PATH` outside the workspace: a program planted in
        // one (`~/.local/bin/git`) would run, unseen, for every later command that names
        // it. Not one that holds the workspace (everything in it would be a guard file),
        // nor one inside it (its programs are checkpointed when run: `path_programs`).
        let workspace = &self.workspace;
        self.user_guard_files.extend(
            dirs.path_dirs
                .iter()
                .filter(|dir| dir.is_absolute())
                .filter(|dir| !workspace.starts_with(dir) && !dir.starts_with(workspace))
                .cloned(),
        );
        self.guard_files = OnceLock::new();
        self
    }

    /// Every guard file, lexically and physically spelled.
    pub(crate) fn guard_files(&self) -> &[PathBuf] {
        self.guard_files.get_or_init(|| {
            let mut files = agent_guard_types::guard_files::project_entries(&self.workspace);
            files.extend(self.user_guard_files.iter().cloned());
            // Only where the directory is there can a link lead elsewhere (one `lstat` for
            // the others).
            let physical: Vec<PathBuf> = files
                .iter()
                .filter(|file| {
                    file.parent()
                        .is_some_and(|dir| dir.symlink_metadata().is_ok())
                })
                .map(|file| resolve_following_all(file))
                .filter(|resolved| !files.contains(resolved))
                .collect();
            files.extend(physical);
            files
        })
    }

    /// Sets the artifact patterns (`node_modules`, `*.pyc`…) of [`World::regenerable`];
    /// without any, nothing is regenerable.
    #[must_use]
    pub fn with_artifacts(mut self, patterns: &[String]) -> RealWorld {
        self.artifacts = agent_guard_git::Artifacts::new(patterns);
        self
    }

    /// Whether git ignores `path` (absolute, or relative to the workspace) as
    /// `git check-ignore` would, and nothing at or below it is tracked; see
    /// [`World::regenerable`] for the whole fact.
    pub fn git_ignored(&self, path: &Path) -> bool {
        crate::ignore::git_ignored(self, path)
    }

    /// Reads git's per-user `ignore` file from `dir` (`$XDG_CONFIG_HOME/git`), as git does
    /// when `core.excludesFile` is not set.
    #[must_use]
    pub fn with_git_user_dir(mut self, dir: Option<PathBuf>) -> RealWorld {
        self.git_user_dir = dir;
        self
    }

    /// The quarantine root, resolved once: physically (every component followed, a missing
    /// tail kept verbatim) and, if the configured path is itself a symlink, as the link.
    pub(crate) fn trash_roots(&self) -> &TrashRoots {
        self.trash_roots.get_or_init(|| {
            let physical = resolve_following_all(&self.trash);
            let link = walk(
                PathBuf::from(std::path::MAIN_SEPARATOR_STR),
                steps(Some(&self.trash), ""),
                &mut LinkBudget::default(),
            )
            .ok()
            .filter(|link| *link != physical);
            TrashRoots { physical, link }
        })
    }

    /// The home directory, folded and resolved once.
    pub(crate) fn home_roots(&self) -> Option<&HomeRoots> {
        self.home_roots
            .get_or_init(|| {
                self.home.as_ref().map(|home| HomeRoots {
                    spelled: fold_lexical(home),
                    real: home.canonicalize().ok(),
                })
            })
            .as_ref()
    }

    /// Resolves a base directory to its physical spelling, remembering the last one.
    pub(crate) fn physical_base(
        &self,
        base: &Path,
        budget: &mut LinkBudget,
    ) -> Result<PathBuf, TooManyLinks> {
        if let Ok(cache) = self.base_cache.lock()
            && let Some((cached_base, physical)) = cache.as_ref()
            && cached_base == base
        {
            return Ok(physical.clone());
        }
        // `realpath` is the common, fast case; the walk handles a base that does not exist.
        let physical = match base.canonicalize() {
            Ok(physical) => physical,
            Err(_) => walk(
                PathBuf::from(std::path::MAIN_SEPARATOR_STR),
                crate::resolve::steps_following_all(base),
                budget,
            )?,
        };
        if let Ok(mut cache) = self.base_cache.lock() {
            *cache = Some((base.to_path_buf(), physical.clone()));
        }
        Ok(physical)
    }

    /// The repository containing the workspace, opened on first use (at most once).
    pub(crate) fn repository(&self) -> Option<MutexGuard<'_, GitRepo>> {
        self.repo
            .get_or_init(|| GitRepo::open(&self.workspace).map(Mutex::new))
            .as_ref()
            .and_then(|repo| repo.lock().ok())
    }
}

impl fmt::Debug for RealWorld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RealWorld")
            .field("workspace", &self.workspace)
            .field("trash", &self.trash)
            .field("home", &self.home)
            .field("repository_opened", &self.repo.get().is_some())
            .finish_non_exhaustive()
    }
}

impl World for RealWorld {
    fn workspace(&self) -> &Path {
        &self.workspace
    }

    fn guard_files_in_git(&self) -> Vec<(PathBuf, agent_guard_types::GuardFileState)> {
        crate::guard_git::guard_files_in_git(self)
    }

    fn guard_tree_changes(
        &self,
        dir: &Path,
        source: &agent_guard_types::TreeSource,
    ) -> agent_guard_types::GuardTreeChanges {
        crate::guard_tree::guard_tree_changes(self, dir, source)
    }

    fn guard_files_committed(&self, dir: &Path) -> bool {
        crate::guard_tree::guard_files_committed(self, dir)
    }

    fn listed_paths(
        &self,
        listed: &agent_guard_types::ListedWrites,
        base: &Path,
    ) -> Option<Vec<String>> {
        crate::listed::paths(listed, base)
    }

    fn trash(&self) -> &Path {
        &self.trash
    }

    fn path(&self, target: &Target, base: &Path) -> PathSpec {
        crate::facts::path_facts(self, target, base)
    }

    fn regenerable(&self, paths: &[&Path]) -> bool {
        !paths.is_empty()
            && paths.iter().all(|path| {
                fold_lexical(&self.workspace.join(path))
                    .strip_prefix(&self.workspace)
                    .is_ok_and(|relative| {
                        !relative.as_os_str().is_empty()
                            && self
                                .artifacts
                                .matches_some_component(relative.as_os_str().as_encoded_bytes())
                    })
            })
            && paths.iter().all(|path| self.git_ignored(path))
    }

    fn reset_preflight(&self, cwd: &Path, target: Option<&str>) -> ResetPreflight {
        crate::reset_preflight::reset_preflight(self, cwd, target)
    }

    fn checkpoint_reach(&self, dir: &Path, reach: agent_guard_types::Reach<'_>) -> bool {
        crate::reach::reaches(self, dir, reach)
    }

    fn write_reaches_link(&self, dir: &Path, reach: agent_guard_types::Reach<'_>) -> bool {
        crate::reach::links(dir, reach)
    }

    fn names_split(&self, dir: &Path) -> bool {
        crate::reach::names_split(dir)
    }

    fn creates_guarded(&self, dir: &Path, reach: agent_guard_types::Reach<'_>) -> bool {
        crate::reach::creates_guarded(self, dir, reach)
    }

    fn over_cap(
        &self,
        dir: &Path,
        reach: agent_guard_types::Reach<'_>,
        cap: u64,
    ) -> Option<PathBuf> {
        crate::reach::over_cap(dir, reach, cap)
    }

    fn shares_extents(&self, path: &Path) -> bool {
        crate::extents::shares_extents(path, &self.trash)
    }

    fn enterable(&self, dir: &Path) -> bool {
        dir.metadata().is_ok_and(|meta| meta.is_dir())
            && rustix::fs::access(dir, rustix::fs::Access::EXEC_OK).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_world_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<RealWorld>();
    }

    #[test]
    fn construction_does_no_io() {
        let world = RealWorld::new("/no/such/ws".into(), "trash".into(), None);
        assert_eq!(world.trash, PathBuf::from("/no/such/ws/trash"));
        assert!(world.trash_roots.get().is_none() && world.repo.get().is_none());
    }
}

//! The lazily opened git repository behind the workspace.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use git2::{Repository, RepositoryOpenFlags};

/// A repository opened read-only, with the facts every git probe needs.
pub(crate) struct GitRepo {
    /// The repository. Only reading calls are made on it: no index write, no checkout.
    pub(crate) repo: Repository,
    /// The work-tree root, resolved with `realpath`; `None` for a bare repository.
    pub(crate) workdir: Option<PathBuf>,
    /// `core.ignorecase`: path comparisons fold case.
    pub(crate) ignorecase: bool,
    /// Its ignore rules, read on the first question.
    pub(crate) excludes: Option<agent_guard_git::Excludes>,
    /// Its index as last read, with the index file's modification time and size then.
    index: Option<(
        Option<std::time::SystemTime>,
        u64,
        agent_guard_git::IndexFile,
    )>,
}

impl GitRepo {
    /// Opens the repository containing `dir`, searching upward like git does (without
    /// crossing filesystems and without reading `GIT_DIR` and friends from the environment).
    /// Any failure is `None`.
    pub(crate) fn open(dir: &Path) -> Option<GitRepo> {
        agent_guard_git::configure_libgit2();
        let repo = Repository::open_ext(
            dir,
            RepositoryOpenFlags::empty(),
            std::iter::empty::<&OsStr>(),
        )
        .ok()?;
        Some(GitRepo::from_repository(repo))
    }

    fn from_repository(repo: Repository) -> GitRepo {
        let workdir = repo.workdir().and_then(|dir| dir.canonicalize().ok());
        let ignorecase = repo
            .config()
            .and_then(|config| config.get_bool("core.ignorecase"))
            .unwrap_or(false);
        GitRepo {
            repo,
            workdir,
            ignorecase,
            excludes: None,
            index: None,
        }
    }

    /// The index, read once and again only when the file changed (a read, never a write);
    /// `None` when it cannot be read.
    pub(crate) fn index_file(&mut self) -> Option<&agent_guard_git::IndexFile> {
        let stamp = fs_err::metadata(self.repo.path().join("index"))
            .map_or((None, 0), |m| (m.modified().ok(), m.len()));
        let fresh = self
            .index
            .as_ref()
            .is_some_and(|(modified, len, _)| (*modified, *len) == stamp);
        if !fresh {
            let index = agent_guard_git::IndexFile::load(&self.repo).ok()?;
            self.index = Some((stamp.0, stamp.1, index));
        }
        self.index.as_ref().map(|(_, _, index)| index)
    }
}

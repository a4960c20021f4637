//! Git's ignore rules, on `gix-ignore` (one engine for `git clean`'s walk, the world's
//! "regenerable" fact and the checkpoint walk, issue 36): `.gitignore` files from the
//! deepest directory up, then `info/exclude`, then `core.excludesFile`; within a file the
//! last matching pattern wins, and a negation in a deeper file re-includes what a shallower
//! one ignores. `core.ignoreCase` folds case as git does.
//!
//! [`Excludes::is_excluded`] is git's `is_excluded` for one path (a walk passes excluded
//! ancestors down itself); [`Excludes::is_ignored`] is `git check-ignore`: a path below an
//! excluded directory is ignored whatever deeper files say, since git never reads them.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use bstr::ByteSlice as _;
use gix_glob::pattern::Case;
use gix_glob::search::pattern::List;
use gix_ignore::search::Ignore;

use crate::WorkTree;

/// The ignore rules of one repository, `.gitignore` files loaded on demand.
#[derive(Clone)]
pub struct Excludes {
    root: PathBuf,
    /// `core.excludesFile`, then `info/exclude` (the later wins).
    global: gix_ignore::Search,
    /// The `.gitignore` of each directory asked about (repository-relative, empty or ending
    /// with `/`), `None` when it has none: a lookup reads only the files above the path.
    per_directory: HashMap<Vec<u8>, Option<List<Ignore>>>,
    case: Case,
    /// A configuration file includes another under a condition libgit2 does not evaluate
    /// (`includeIf "hasconfig:…"`): git may read an ignore file the guard does not.
    unseen: bool,
}

impl std::fmt::Debug for Excludes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Excludes")
            .field("root", &self.root)
            .field("directories", &self.per_directory.len())
            .finish_non_exhaustive()
    }
}

/// Git's parser settings: `$` is an ordinary character (precious files are a gitoxide
/// extension that git does not have).
const PARSE: Ignore = Ignore {
    support_precious: false,
};

impl Excludes {
    /// Loads `info/exclude` and `core.excludesFile` of `tree` (default
    /// `$XDG_CONFIG_HOME/git/ignore` or `~/.config/git/ignore`, as git).
    pub(crate) fn load(tree: &WorkTree) -> Excludes {
        Excludes::open(&tree.repo, &tree.root, tree.user_dir.as_deref())
    }

    /// The rules of `repo`, whose work tree is `root`; `user_dir` is git's per-user
    /// configuration directory (`$XDG_CONFIG_HOME/git`), where `ignore` is read when
    /// `core.excludesFile` is not set.
    pub fn open(repo: &git2::Repository, root: &Path, user_dir: Option<&Path>) -> Excludes {
        let config = repo.config().ok();
        let configured = config
            .as_ref()
            .and_then(|c| c.get_path("core.excludesFile").ok());
        let ignorecase = config
            .as_ref()
            .and_then(|c| c.get_bool("core.ignorecase").ok())
            .unwrap_or(false);
        // git reads a relative `core.excludesFile` from the top of the work tree.
        let configured = configured.map(|file| root.join(file));
        let user = configured.or_else(|| user_dir.map(|dir| dir.join("ignore")));
        let mut buffer = Vec::new();
        let global = gix_ignore::Search::from_git_dir(repo.commondir(), user, &mut buffer, PARSE)
            .unwrap_or_default();
        Excludes {
            root: root.to_path_buf(),
            global,
            unseen: conditional_includes(repo),
            per_directory: HashMap::new(),
            case: if ignorecase {
                Case::Fold
            } else {
                Case::Sensitive
            },
        }
    }

    /// Whether the patterns exclude `path` itself (repository-relative, no trailing `/`);
    /// `is_dir` for directories (not for symlinks to them). Excluded ancestors are not
    /// looked at (see [`Excludes::is_ignored`]).
    pub fn is_excluded(&mut self, path: &[u8], is_dir: bool) -> bool {
        let basename = path.iter().rposition(|b| *b == b'/').map(|i| i + 1);
        let mut end = basename.unwrap_or(0);
        let case = self.case;
        // The deepest file first: the first file with a matching pattern decides.
        loop {
            let list = self.list_of(&path[..end]);
            if let Some(found) = list.and_then(|list| {
                gix_ignore::search::pattern_matching_relative_path(
                    list,
                    path.as_bstr(),
                    basename,
                    Some(is_dir),
                    case,
                )
            }) {
                return !found.pattern.is_negative();
            }
            if end == 0 {
                break;
            }
            end = path[..end - 1]
                .iter()
                .rposition(|b| *b == b'/')
                .map_or(0, |i| i + 1);
        }
        self.global
            .pattern_matching_relative_path(path.as_bstr(), Some(is_dir), self.case)
            .is_some_and(|found| !found.pattern.is_negative())
    }

    /// Whether git ignores `path` (repository-relative, no trailing `/`; `is_dir` for a
    /// real directory): it, or a directory above it, is excluded — `git check-ignore`.
    /// Never, when git's configuration includes a file under a condition the guard cannot
    /// evaluate (`includeIf "hasconfig:…"`): git might ignore less, and what the guard
    /// calls ignored is left out of checkpoints and deleted without a copy.
    pub fn is_ignored(&mut self, path: &[u8], is_dir: bool) -> bool {
        if self.unseen {
            return false;
        }
        let mut end = 0;
        while let Some(slash) = path[end..].iter().position(|b| *b == b'/') {
            let directory = &path[..end + slash];
            if self.is_excluded(directory, true) {
                return true;
            }
            end += slash + 1;
        }
        !path.is_empty() && self.is_excluded(path, is_dir)
    }

    /// The patterns of `directory`'s `.gitignore` (empty or ending with `/`), read once.
    fn list_of(&mut self, directory: &[u8]) -> Option<&List<Ignore>> {
        let root = &self.root;
        self.per_directory
            .entry(directory.to_vec())
            .or_insert_with(|| {
                let file = root.join(OsStr::from_bytes(directory)).join(".gitignore");
                let bytes = read_in_tree(&file)?;
                List::from_bytes(&bytes, file, Some(root), PARSE).ok()
            })
            .as_ref()
    }
}

/// A `.gitignore` in the work tree: read only when it is a regular file (git does not
/// follow a symlinked one), with a UTF-8 byte order mark dropped.
fn read_in_tree(file: &Path) -> Option<Vec<u8>> {
    let metadata = fs_err::symlink_metadata(file).ok()?;
    if !metadata.is_file() {
        return None;
    }
    fs_err::read(file).ok()
}

/// Whether one of git's configuration files for `repo` (the repository's, the worktree's,
/// the user's, the system's) has an `includeIf "hasconfig:…"` section, which libgit2 does
/// not evaluate.
pub(crate) fn conditional_includes(repo: &git2::Repository) -> bool {
    let mut files = vec![
        repo.path().join("config"),
        repo.commondir().join("config"),
        repo.path().join("config.worktree"),
    ];
    files.extend(
        [
            git2::Config::find_global(),
            git2::Config::find_xdg(),
            git2::Config::find_system(),
        ]
        .into_iter()
        .flatten(),
    );
    files.iter().any(|file| {
        std::fs::metadata(file).is_ok_and(|meta| meta.is_file())
            && std::fs::read(file).is_ok_and(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .to_ascii_lowercase()
                    .contains("hasconfig:")
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules of a fresh repository with `files` (path → content) written in it.
    fn rules(files: &[(&str, &str)]) -> (tempfile::TempDir, Excludes) {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
        let excludes = Excludes::open(&repo, dir.path(), None);
        (dir, excludes)
    }

    #[test]
    fn deeper_negations_win() {
        let (_dir, mut x) = rules(&[
            (".gitignore", "*.tmp\nbuild/\n/top-only\n"),
            ("t/.gitignore", "!important.tmp\n"),
        ]);
        assert!(x.is_excluded(b"a.tmp", false));
        assert!(x.is_excluded(b"t/x.tmp", false));
        assert!(!x.is_excluded(b"t/important.tmp", false));
        assert!(x.is_excluded(b"important.tmp", false));
        assert!(x.is_excluded(b"build", true));
        assert!(
            !x.is_excluded(b"build", false),
            "a directory pattern does not match a file"
        );
        assert!(x.is_excluded(b"top-only", false));
        assert!(!x.is_excluded(b"t/top-only", false));
    }

    /// The bug of issue 36: a root `build` and `sub/.gitignore`'s `!build`.
    #[test]
    fn a_deeper_negation_re_includes_a_directory() {
        let (_dir, mut x) = rules(&[(".gitignore", "build\n"), ("sub/.gitignore", "!build\n")]);
        assert!(x.is_ignored(b"build", true));
        assert!(!x.is_ignored(b"sub/build", true));
        assert!(!x.is_ignored(b"sub/build/out.o", false));
        assert!(x.is_ignored(b"build/out.o", false), "below an excluded one");
    }

    #[test]
    fn pattern_syntax() {
        let (_dir, mut x) = rules(&[(
            ".gitignore",
            "# comment\n\\#hash\nsp ace \r\ndoc/*.md\n**/deep\n*.LOG\n",
        )]);
        assert!(x.is_excluded(b"#hash", false));
        assert!(x.is_excluded(b"x/sp ace", false));
        assert!(x.is_excluded(b"doc/a.md", false));
        assert!(!x.is_excluded(b"doc/sub/a.md", false));
        assert!(x.is_excluded(b"a/b/deep", true));
        assert!(!x.is_excluded(b"x.log", false), "case-sensitive");
        assert!(!x.is_excluded(b"# comment", false));
    }

    #[test]
    fn a_symlinked_gitignore_is_not_read() {
        let (dir, _) = rules(&[("real", "*.tmp\n")]);
        std::os::unix::fs::symlink("real", dir.path().join(".gitignore")).unwrap();
        let repo = git2::Repository::open(dir.path()).unwrap();
        let mut x = Excludes::open(&repo, dir.path(), None);
        assert!(!x.is_excluded(b"a.tmp", false));
    }
}

//! Protection rules: which paths may never be deleted through the guard.

use std::path::{Path, PathBuf};

use agent_guard_types::Protected;

use crate::resolve::is_within;

/// The protected filesystem roots (exact-match list).
///
/// A target that *is* one of these (lexically or physically) is refused by identity, whatever
/// the workspace geometry. Paths below them (`/home/alice/build`) and siblings sharing a prefix
/// (`/homework`) are not matched.
pub const PROTECTED_ROOTS: &[&str] = &[
    "/",
    "/home",
    "/root",
    "/Users",
    "/Volumes",
    "/tmp",
    "/var",
    "/usr",
    "/etc",
    "/opt",
    "/srv",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/boot",
    "/proc",
    "/sys",
    "/dev",
    "/mnt",
    "/media",
    "/Applications",
    "/System",
    "/Library",
    "/private",
];

/// Quarantine control names (first component under the quarantine root).
///
/// Only the first component counts: `.agent-trash/tx1/state.json` is ordinary payload of
/// transaction `tx1`. Names are compared ASCII-case-insensitively, because on a case-insensitive
/// filesystem (macOS, Windows) `MANIFEST.JSONL` *is* the manifest.
pub const CONTROL_NAMES: &[&str] = &[
    "manifest.jsonl",
    "manifest.checkpoint",
    "audit.jsonl",
    "state.json",
    "state.json.tmp",
    "sessions",
    "lock",
    ".git",
];

/// The quarantine root in its two spellings.
#[derive(Debug, Clone)]
pub(crate) struct TrashRoots {
    /// Every component followed (where the storage really is).
    pub(crate) physical: PathBuf,
    /// The parent chain followed, the last component verbatim, when that differs from
    /// `physical` (the configured quarantine is itself a symlink). Removing this spelling, or a
    /// directory above it, severs access to the storage.
    pub(crate) link: Option<PathBuf>,
}

/// The home directory in its two spellings.
#[derive(Debug, Clone)]
pub(crate) struct HomeRoots {
    /// As configured, folded lexically.
    pub(crate) spelled: PathBuf,
    /// Resolved with `realpath`, when it exists.
    pub(crate) real: Option<PathBuf>,
}

impl HomeRoots {
    fn matches(&self, path: &Path) -> bool {
        self.spelled == path || self.real.as_deref() == Some(path)
    }
}

/// The fixed points every target is compared with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Roots<'a> {
    pub(crate) workspace: &'a Path,
    pub(crate) trash: &'a TrashRoots,
    pub(crate) home: Option<&'a HomeRoots>,
    /// The guard files ([`agent_guard_types::guard_files`]), absolute.
    pub(crate) guard: &'a [PathBuf],
}

/// The spellings of one target that the protection rules look at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spellings<'a> {
    /// The lexical spelling.
    pub(crate) resolved: &'a Path,
    /// The physical spelling (final symlink not followed unless the target goes through it).
    pub(crate) physical: &'a Path,
    /// When the entry is a symlink: where it finally leads (`realpath`), if anywhere.
    pub(crate) link_target: Option<&'a Path>,
    /// `physical` relative to the workspace root, when inside it.
    pub(crate) relative: Option<&'a Path>,
    /// The target holds active wildcards (its spellings are patterns).
    pub(crate) glob: bool,
}

/// Returns `true` if `path` is exactly a protected root or the home directory.
pub(crate) fn is_ancestor_root(path: &Path, home: Option<&HomeRoots>) -> bool {
    PROTECTED_ROOTS.iter().any(|root| path == Path::new(root))
        || home.is_some_and(|home| home.matches(path))
}

/// Returns the first protection that applies to a target, if any.
///
/// Order: ancestor root, workspace or quarantine root (or an alias of either), quarantine
/// control path, outside the workspace, git metadata.
pub(crate) fn classify(spellings: Spellings<'_>, roots: Roots<'_>) -> Option<Protected> {
    let Spellings {
        resolved,
        physical,
        link_target,
        relative,
        glob,
    } = spellings;
    let trash = &roots.trash.physical;

    if is_ancestor_root(resolved, roots.home)
        || is_ancestor_root(physical, roots.home)
        || link_target.is_some_and(|target| is_ancestor_root(target, roots.home))
    {
        return Some(Protected::AncestorRoot);
    }

    let is_root = |path: &Path| path == roots.workspace || path == trash;
    if is_root(physical) || link_target.is_some_and(is_root) {
        return Some(Protected::WorkspaceRoot);
    }

    if is_quarantine_control(physical, roots) {
        return Some(Protected::QuarantineControl);
    }

    let guard_control = if glob {
        [resolved, physical]
            .into_iter()
            .any(|pattern| may_match_guard_control(pattern, roots))
    } else {
        [Some(resolved), Some(physical), link_target]
            .into_iter()
            .flatten()
            .any(|path| is_guard_control(path, roots.guard))
            || is_guard_file_link(physical, roots.guard)
    };
    if guard_control {
        return Some(Protected::GuardControl);
    }

    let Some(relative) = relative else {
        return Some(Protected::OutsideWorkspace);
    };

    // Case-insensitive: on macOS and Windows `.GIT` is the git directory.
    if relative
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        return Some(Protected::GitMetadata);
    }
    None
}

/// A guard file, a path below one, or a directory above one that holds a guard file or
/// does not exist yet (creating it, as a link or a copied directory, could plant one).
/// Components are compared without ASCII case, as on the case-folding filesystems where
/// `.CLAUDE/settings.json` is the file the harness reads.
fn is_guard_control(path: &Path, guard: &[PathBuf]) -> bool {
    let mut above = guard
        .iter()
        .filter(|file| is_within_folded(file, path))
        .peekable();
    if guard.iter().any(|file| is_within_folded(path, file)) {
        return true;
    }
    above.peek().is_some()
        && (path.symlink_metadata().is_err() || above.any(|file| file.symlink_metadata().is_ok()))
}

/// The most entries looked at below one guard directory for [`is_guard_file_link`].
const MAX_LINK_SCAN: usize = 2_000;

/// Whether `path` is another name of a guard file: a regular file with more than one name
/// whose inode is a guard file's, or one's below a guard directory (`.github/hooks/`, the
/// state directory). A write through that name changes the hook file. Only a file with
/// several names costs more than its own `lstat`.
fn is_guard_file_link(path: &Path, guard: &[PathBuf]) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let Ok(target) = path.symlink_metadata() else {
        return false;
    };
    if !target.is_file() || target.nlink() < 2 {
        return false;
    }
    let same = |metadata: &std::fs::Metadata| {
        metadata.is_file() && metadata.dev() == target.dev() && metadata.ino() == target.ino()
    };
    guard.iter().any(|file| {
        walkdir::WalkDir::new(file)
            .max_depth(4)
            .into_iter()
            .take(MAX_LINK_SCAN)
            .filter_map(Result::ok)
            .any(|entry| entry.metadata().is_ok_and(|m| same(&m)))
    })
}

/// Whether the wildcard `pattern` could name a guard file, a path below one or a directory
/// directly above one: every component it shares with a guard file's matches (without
/// case; a name with a leading dot only by a pattern with one, as a POSIX shell expands).
fn may_match_guard_control(pattern: &Path, roots: Roots<'_>) -> bool {
    let depth = pattern.components().count();
    let workspace_depth = roots.workspace.components().count();
    // Directories more than one level above a guard file, and the workspace root and what
    // lies above it, are left to their own rules (`../*` is outside the workspace).
    // A wildcard expands to what exists: only guard files that are there can be named, and
    // a pattern deeper than one only if it is a directory.
    roots.guard.iter().any(|file| {
        let entries = file.components().count();
        depth + 1 >= entries
            && !(depth <= workspace_depth && is_within(file, roots.workspace))
            && (if depth > entries {
                file.is_dir()
            } else {
                file.symlink_metadata().is_ok()
            })
            && pattern
                .components()
                .zip(file.components())
                .all(|(wanted, name)| {
                    let wanted = wanted.as_os_str().as_encoded_bytes().to_ascii_lowercase();
                    let name = name.as_os_str().as_encoded_bytes().to_ascii_lowercase();
                    (name.first() != Some(&b'.') || wanted.first() == Some(&b'.'))
                        && agent_guard_git::glob_matches(&wanted, &name)
                })
    })
}

/// Returns `true` if `path` is `ancestor` or lies below it, comparing components without
/// ASCII case.
fn is_within_folded(path: &Path, ancestor: &Path) -> bool {
    let mut path = path.components();
    ancestor.components().all(|component| {
        path.next()
            .is_some_and(|c| c.as_os_str().eq_ignore_ascii_case(component.as_os_str()))
    })
}

/// A quarantine control path: an in-workspace directory that holds the quarantine (deleting it
/// would remove or sever the storage), or a control file directly under the quarantine root.
fn is_quarantine_control(physical: &Path, roots: Roots<'_>) -> bool {
    let trash = roots.trash;
    if is_within(physical, roots.workspace) {
        let holds = |storage: &Path| storage != physical && is_within(storage, physical);
        if holds(&trash.physical) || trash.link.as_deref().is_some_and(holds) {
            return true;
        }
    }
    physical.strip_prefix(&trash.physical).is_ok_and(|below| {
        below.components().next().is_some_and(|first| {
            CONTROL_NAMES
                .iter()
                .any(|name| first.as_os_str().eq_ignore_ascii_case(name))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots_fixture() -> (PathBuf, TrashRoots, HomeRoots) {
        let trash = TrashRoots {
            physical: PathBuf::from("/ws/.agent-trash"),
            link: None,
        };
        let home = HomeRoots {
            spelled: PathBuf::from("/home/u"),
            real: None,
        };
        (PathBuf::from("/ws"), trash, home)
    }

    fn check(physical: &str) -> Option<Protected> {
        let (workspace, trash, home) = roots_fixture();
        let guard = [
            PathBuf::from("/ws/.claude/settings.json"),
            PathBuf::from("/ws/.github/hooks"),
            PathBuf::from("/home/u/.codex/hooks.json"),
        ];
        let roots = Roots {
            workspace: &workspace,
            trash: &trash,
            home: Some(&home),
            guard: &guard,
        };
        let glob = physical.contains('*');
        let physical = Path::new(physical);
        let relative = physical.strip_prefix(&workspace).ok();
        let spellings = Spellings {
            resolved: physical,
            physical,
            link_target: None,
            relative,
            glob,
        };
        classify(spellings, roots)
    }

    #[test]
    fn exact_roots_only() {
        assert_eq!(check("/"), Some(Protected::AncestorRoot));
        assert_eq!(check("/usr"), Some(Protected::AncestorRoot));
        assert_eq!(check("/home/u"), Some(Protected::AncestorRoot));
        assert_eq!(check("/homework"), Some(Protected::OutsideWorkspace));
        assert_eq!(check("/home/u/build"), Some(Protected::OutsideWorkspace));
    }

    #[test]
    fn workspace_quarantine_and_git() {
        assert_eq!(check("/ws"), Some(Protected::WorkspaceRoot));
        assert_eq!(check("/ws/.agent-trash"), Some(Protected::WorkspaceRoot));
        assert_eq!(
            check("/ws/.agent-trash/Manifest.JSONL"),
            Some(Protected::QuarantineControl)
        );
        assert_eq!(check("/ws/.agent-trash/tx/state.json"), None);
        assert_eq!(check("/ws/a/.GIT/x"), Some(Protected::GitMetadata));
        assert_eq!(check("/ws2"), Some(Protected::OutsideWorkspace));
        assert_eq!(check("/ws/src"), None);
    }

    #[test]
    fn guard_files_below_and_above() {
        let guarded = Some(Protected::GuardControl);
        assert_eq!(check("/ws/.claude/settings.json"), guarded);
        assert_eq!(check("/ws/.CLAUDE/Settings.JSON"), guarded);
        assert_eq!(check("/ws/.github/hooks/agent-guard.json"), guarded);
        assert_eq!(check("/home/u/.codex/hooks.json"), guarded);
        // Above a guard file: these directories do not exist in the fixture, so creating
        // them could plant one.
        assert_eq!(check("/ws/.claude"), guarded);
        assert_eq!(check("/ws/.github"), guarded);
        assert_eq!(check("/ws/.claude/commands"), None);
        assert_eq!(check("/ws/.github/workflows/ci.yml"), None);
        // A wildcard names only what exists (none of the fixture's paths do; the corpus,
        // tests/corpus/*/self_protection.toml, has the real ones).
        assert_eq!(check("/ws/.claude/*"), None);
        assert_eq!(check("/ws/*"), None);
    }
}

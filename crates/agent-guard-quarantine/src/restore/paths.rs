//! Path checks for restore: lexical shape, physical resolution and containment.
//!
//! A recorded path is trusted only after two checks. Lexically it must be absolute and
//! already normalised (no `.`/`..`, no empty or trailing components, no NUL), so that what
//! the checks see is what the kernel will walk. Physically its parent chain is resolved
//! (`realpath` of the longest existing ancestor, the rest appended) and its final component
//! kept as spelled, so a symlink *at* the leaf is restored or preserved as a link while a
//! symlink *above* it is followed and judged where it leads.

use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

/// The static error of an origin (or `--to` destination) that fails the boundary checks.
pub(crate) const TARGET_OUTSIDE: &str = "restore target is outside workspace or cannot be resolved";
/// The static error of a quarantine path that fails the containment checks.
pub(crate) const SOURCE_OUTSIDE: &str =
    "restore source is outside its transaction or cannot be resolved";
/// The static error of a target that is, contains or lies inside the quarantine.
pub(crate) const TARGET_OVERLAPS: &str = "restore target overlaps the quarantine";

/// Returns `true` if `path` is absolute, not the root, and already normalised: no empty,
/// `.` or `..` component, no trailing separator, no NUL byte.
pub(crate) fn is_normalised_absolute(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    let Some(rest) = bytes.strip_prefix(b"/") else {
        return false;
    };
    !rest.is_empty()
        && !bytes.contains(&0)
        && rest
            .split(|b| *b == b'/')
            .all(|part| !matches!(part, b"" | b"." | b".."))
}

/// Returns the physical form of `path`: the parent chain resolved, the final component kept.
///
/// `None` if `path` has no parent or final component, or an existing ancestor cannot be
/// resolved (a dangling link, a permission error, a non-directory in the way).
pub(crate) fn physical(path: &Path) -> Option<PathBuf> {
    let leaf = path.file_name()?;
    Some(resolve_existing(path.parent()?)?.join(leaf))
}

/// Resolves the longest existing ancestor of `path` (following links) and appends the
/// missing components verbatim. `path` must be normalised (the missing tail is not
/// re-interpreted).
pub(crate) fn resolve_existing(path: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut current = path;
    loop {
        match current.symlink_metadata() {
            Ok(_) => {
                let mut real = fs_err::canonicalize(current).ok()?;
                real.extend(missing.iter().rev());
                return Some(real);
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                missing.push(current.file_name()?);
                current = current.parent()?;
            }
            Err(_) => return None,
        }
    }
}

/// Returns `true` if `inner` lies strictly below `outer` (component-wise).
pub(crate) fn strictly_inside(inner: &Path, outer: &Path) -> bool {
    inner != outer && inner.starts_with(outer)
}

/// Returns `true` if one of the paths is, or lies inside, the other.
pub(crate) fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The fixed places every check of one restore compares against.
#[derive(Debug, Clone)]
pub(crate) struct Bounds {
    /// The physical workspace root.
    pub(crate) workspace: PathBuf,
    /// The quarantine root as configured.
    pub(crate) trash: PathBuf,
    /// The physical quarantine root.
    pub(crate) trash_physical: PathBuf,
    /// The physical transaction directory, `<physical trash>/<txid>`.
    pub(crate) tx_dir: PathBuf,
}

impl Bounds {
    /// Returns `true` if `path` is, or lies inside, the quarantine (either spelling).
    pub(crate) fn inside_quarantine(&self, path: &Path) -> bool {
        path.starts_with(&self.trash) || path.starts_with(&self.trash_physical)
    }

    /// Returns `true` if `path` is, contains or lies inside the quarantine (either spelling).
    pub(crate) fn overlaps_quarantine(&self, path: &Path) -> bool {
        overlaps(path, &self.trash) || overlaps(path, &self.trash_physical)
    }

    /// The physical form of a recorded quarantine path, if it is normalised and lies strictly
    /// inside the transaction directory.
    pub(crate) fn source(&self, recorded: &Path) -> Option<PathBuf> {
        if !is_normalised_absolute(recorded) {
            return None;
        }
        physical(recorded).filter(|p| strictly_inside(p, &self.tx_dir))
    }

    /// The physical form of a restore destination, if it is normalised, lies strictly inside
    /// `base` (the physical workspace, or the `--to` directory) and outside the quarantine.
    pub(crate) fn target(&self, lexical: &Path, base: &Path) -> Result<PathBuf, &'static str> {
        if !is_normalised_absolute(lexical) {
            return Err(TARGET_OUTSIDE);
        }
        let resolved = physical(lexical)
            .filter(|p| strictly_inside(p, base))
            .ok_or(TARGET_OUTSIDE)?;
        if self.inside_quarantine(lexical) || self.inside_quarantine(&resolved) {
            return Err(TARGET_OVERLAPS);
        }
        Ok(resolved)
    }

    /// Checks that an occupied target may be preserved (moved into a new transaction): it
    /// must not be, contain or alias the quarantine, in any spelling.
    pub(crate) fn preservable(&self, lexical: &Path, resolved: &Path) -> Result<(), &'static str> {
        let followed = fs_err::canonicalize(resolved).ok();
        let spellings = [Some(lexical), Some(resolved), followed.as_deref()];
        if spellings
            .into_iter()
            .flatten()
            .any(|p| self.overlaps_quarantine(p))
        {
            return Err(TARGET_OVERLAPS);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_normalised_absolute_paths_pass() {
        for good in ["/a", "/ws/a b", "/ws/.hidden", "/ws/a..b"] {
            assert!(is_normalised_absolute(Path::new(good)), "{good}");
        }
        for bad in [
            "", "/", "a", "a/b", "/ws/", "/ws//a", "/ws/./a", "/ws/../a", "/ws/..", "/ws/a\0b",
        ] {
            assert!(!is_normalised_absolute(Path::new(bad)), "{bad:?}");
        }
    }

    #[test]
    fn missing_tails_are_appended_to_the_resolved_ancestor() {
        let dir = tempfile::tempdir().unwrap();
        let real = fs_err::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink(&real, real.join("alias")).unwrap();
        let resolved = resolve_existing(&real.join("alias/missing/deeper")).unwrap();
        assert_eq!(resolved, real.join("missing/deeper"));
        assert_eq!(physical(&real.join("alias")).unwrap(), real.join("alias"));
        std::os::unix::fs::symlink(real.join("nowhere"), real.join("dangling")).unwrap();
        assert!(resolve_existing(&real.join("dangling/x")).is_none());
    }

    #[test]
    fn containment_is_component_wise() {
        assert!(strictly_inside(Path::new("/ws/a"), Path::new("/ws")));
        assert!(!strictly_inside(Path::new("/ws"), Path::new("/ws")));
        assert!(!strictly_inside(Path::new("/wsx/a"), Path::new("/ws")));
        assert!(overlaps(Path::new("/ws"), Path::new("/ws/.agent-trash")));
        assert!(!overlaps(Path::new("/ws/a"), Path::new("/ws/.agent-trash")));
    }
}

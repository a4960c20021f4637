//! The index side of undoing a `git mv`: the entries it renamed go back to their names.
//!
//! Before the line runs, the quarantine keeps the index file as it is ([`index_path`]: git
//! replaces it by renaming a new file over it, so a hard link keeps the old one whole). After
//! the work tree's paths are moved back, [`put_back_entries`] removes, for each moved path, the
//! entries at and below where the line put it, takes from that kept index the entries at and
//! below its old name and at and below where it landed (what it replaced), and writes the
//! index: the other entries — anything staged since — are left as they are.

use std::os::unix::ffi::OsStringExt as _;
use std::path::{Path, PathBuf};

use git2::{Index, Repository};

use crate::error::GitError;

/// The index file of the repository whose work tree holds `path`, if there is one.
pub fn index_path(path: &Path) -> Option<PathBuf> {
    let repository = Repository::discover(path).ok()?;
    repository.workdir()?;
    Some(repository.path().join("index"))
}

/// One moved path: its name before the line, and where the line put it (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedEntries {
    /// The name it had and has again.
    pub origin: PathBuf,
    /// Where the line had put it.
    pub landed: PathBuf,
}

/// Puts the index entries of `moved` back from the index kept at `kept` into the index of the
/// repository whose work tree holds `workspace`. Returns how many entries it put back.
///
/// # Errors
/// The repository, its index or the kept index cannot be read, or the index cannot be
/// written.
pub fn put_back_entries(
    workspace: &Path,
    kept: &Path,
    moved: &[MovedEntries],
) -> Result<usize, GitError> {
    let repository =
        Repository::discover(workspace).map_err(|source| GitError::OpenRepository {
            path: workspace.to_path_buf(),
            source,
        })?;
    let Some(workdir) = repository.workdir().map(Path::to_path_buf) else {
        return Err(GitError::NotAWorkTree {
            path: workspace.to_path_buf(),
        });
    };
    let failed = |action: &'static str| {
        let path = workdir.clone();
        move |source| GitError::Git {
            action,
            path: path.clone(),
            source,
        }
    };
    let old = Index::open(kept).map_err(failed("read the kept index"))?;
    let mut index = repository.index().map_err(failed("read the index"))?;
    let mut put_back = 0;
    for entry in moved {
        let (Ok(origin), Ok(landed)) = (
            entry.origin.strip_prefix(&workdir),
            entry.landed.strip_prefix(&workdir),
        ) else {
            continue;
        };
        let below = |name: &[u8], at: &Path| {
            let at = at.as_os_str().as_encoded_bytes();
            name == at || (name.starts_with(at) && name.get(at.len()) == Some(&b'/'))
        };
        let stale: Vec<Vec<u8>> = index
            .iter()
            .filter(|e| below(&e.path, landed))
            .map(|e| e.path)
            .collect();
        for path in stale {
            let path = PathBuf::from(std::ffi::OsString::from_vec(path));
            index
                .remove_path(&path)
                .map_err(failed("remove a moved entry from the index"))?;
        }
        // Its old entries come back, and so do the ones it replaced where it landed
        // (`git mv -f a b` over a tracked `b`).
        for kept_entry in old
            .iter()
            .filter(|e| below(&e.path, origin) || below(&e.path, landed))
        {
            index
                .add(&kept_entry)
                .map_err(failed("put an entry back into the index"))?;
            put_back += 1;
        }
    }
    index.write().map_err(failed("write the index"))?;
    Ok(put_back)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    #[test]
    fn a_git_mv_is_undone_in_the_index_and_what_was_staged_since_stays() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        git(&ws, &["init", "-q"]);
        std::fs::create_dir(ws.join("d")).unwrap();
        for (path, body) in [("a.txt", "a\n"), ("d/x.txt", "x\n"), ("other.txt", "o\n")] {
            std::fs::write(ws.join(path), body).unwrap();
        }
        git(&ws, &["add", "."]);
        git(
            &ws,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "one",
            ],
        );
        let before = git(&ws, &["ls-files", "-s"]);
        let kept = ws.join("kept-index");
        std::fs::hard_link(index_path(&ws).unwrap(), &kept).unwrap();

        git(&ws, &["mv", "a.txt", "b.txt"]);
        git(&ws, &["mv", "d", "e"]);
        std::fs::write(ws.join("new.txt"), "new\n").unwrap();
        git(&ws, &["add", "new.txt"]);
        // The work tree goes back first (the quarantine's part of an undo).
        agent_guard_fsops::rename(&ws.join("b.txt"), &ws.join("a.txt")).unwrap();
        agent_guard_fsops::rename(&ws.join("e"), &ws.join("d")).unwrap();
        let moved = [
            MovedEntries {
                origin: ws.join("a.txt"),
                landed: ws.join("b.txt"),
            },
            MovedEntries {
                origin: ws.join("d"),
                landed: ws.join("e"),
            },
        ];
        assert_eq!(put_back_entries(&ws, &kept, &moved).unwrap(), 2);
        let after = git(&ws, &["ls-files", "-s"]);
        let expected: String = before
            .lines()
            .chain(std::iter::once(
                "100644 3e757656cf36eca53338e520d134963a44f793f8 0\tnew.txt",
            ))
            .map(|l| format!("{l}\n"))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let after_sorted: String = after
            .lines()
            .map(|l| format!("{l}\n"))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(after_sorted, expected);
        assert_eq!(
            git(&ws, &["status", "--porcelain"]),
            "A  new.txt\n?? kept-index\n"
        );
    }
}

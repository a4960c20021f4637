//! Other repositories inside the user's: a nested clone (`CMake`'s `_deps`, a vendored
//! checkout), a linked worktree (`git worktree add dist pages`) or a submodule keeps its own
//! history and index, which the outer repository's ignore rules and index know nothing
//! about. Nothing at, below or above such a repository (up to the work tree's root) is
//! regenerable, however the outer `.gitignore` reads.

use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

/// How many entries a search below a path may look at before it gives up and answers
/// "maybe": a larger tree is not called regenerable (it is kept, never lost).
const BUDGET: usize = 500_000;

/// Whether `relative` (inside the work tree `root`, `/`-separated, no trailing `/`) is
/// inside another repository or holds one: a `.git` (directory or file) in a directory
/// between `root` and it, at it, or anywhere below it. Symlinks are not followed. A tree
/// too large to search, or one that cannot be read, counts as holding one.
pub fn in_or_holds_a_repository(root: &Path, relative: &[u8]) -> bool {
    let relative = Path::new(std::ffi::OsStr::from_bytes(relative));
    let mut dir = root.to_path_buf();
    let mut components = relative.components().peekable();
    while let Some(component) = components.next() {
        dir.push(component);
        if components.peek().is_some() && dir.join(".git").symlink_metadata().is_ok() {
            return true;
        }
    }
    holds_a_repository(&dir)
}

/// Whether `path` is a `.git` or a real directory with a `.git` somewhere below it.
fn holds_a_repository(path: &Path) -> bool {
    if path.file_name().is_some_and(|n| n == ".git") {
        return true;
    }
    let Ok(metadata) = path.symlink_metadata() else {
        return false;
    };
    if !metadata.is_dir() {
        return false;
    }
    let mut budget = BUDGET;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return true;
        };
        for entry in entries {
            let Ok(entry) = entry else {
                return true;
            };
            if entry.file_name() == ".git" {
                return true;
            }
            budget = match budget.checked_sub(1) {
                Some(left) => left,
                None => return true,
            };
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_above_at_or_below_counts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for path in [
            "build/_deps/lib/.git/HEAD",
            "dist/.git",
            "plain/a/b.txt",
            "sub/.git",
            "sub/node_modules/x.js",
        ] {
            let path = root.join(path);
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, "x").unwrap();
        }
        assert!(in_or_holds_a_repository(root, b"build"), "below");
        assert!(in_or_holds_a_repository(root, b"build/_deps"), "below");
        assert!(
            in_or_holds_a_repository(root, b"build/_deps/lib/x"),
            "above"
        );
        assert!(
            in_or_holds_a_repository(root, b"dist"),
            "a worktree's .git file"
        );
        assert!(
            in_or_holds_a_repository(root, b"sub/node_modules"),
            "a submodule above"
        );
        assert!(!in_or_holds_a_repository(root, b"plain"));
        assert!(!in_or_holds_a_repository(root, b"plain/a/b.txt"));
        assert!(!in_or_holds_a_repository(root, b"missing"));
    }
}

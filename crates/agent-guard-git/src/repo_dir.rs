//! Recognising nested repositories the way `git clean` does (`is_nonbare_repository_dir`).

use std::ffi::OsStr;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

/// Returns `true` if `dir/.git` is a git directory, or a `gitdir:` file pointing to one
/// (or a `.git` file git cannot open or read, which git also treats as a repository).
pub(crate) fn is_nonbare_repository_dir(dir: &Path) -> bool {
    let dot_git = dir.join(".git");
    match fs_err::metadata(&dot_git) {
        Ok(metadata) if metadata.is_file() => gitfile_points_to_repository(dir, &dot_git),
        Ok(_) => is_git_directory(&dot_git),
        Err(_) => false,
    }
}

/// A `.git` file: `gitdir: <path>` (relative to the file's directory) naming a git
/// directory. Unreadable files count as repositories, as in git.
fn gitfile_points_to_repository(dir: &Path, dot_git: &Path) -> bool {
    let mut content = Vec::new();
    match fs_err::File::open(dot_git) {
        Ok(file) => {
            if file.take(1 << 20).read_to_end(&mut content).is_err() {
                return true;
            }
        }
        Err(_) => return true,
    }
    let Some(rest) = content.strip_prefix(b"gitdir: ") else {
        return false;
    };
    let target = rest.trim_ascii_end();
    if target.is_empty() {
        return false;
    }
    is_git_directory(&dir.join(OsStr::from_bytes(target)))
}

/// Git's `is_git_directory`: a valid `HEAD`, and `objects/` and `refs/` (in the common
/// directory for linked worktrees).
pub(crate) fn is_git_directory(dir: &Path) -> bool {
    if !valid_head(&dir.join("HEAD")) {
        return false;
    }
    let common = match fs_err::read(dir.join("commondir")) {
        Ok(content) => {
            let text = String::from_utf8_lossy(&content);
            let relative = Path::new(text.trim_end_matches(['\n', '\r']));
            if relative.is_absolute() {
                relative.to_path_buf()
            } else {
                dir.join(relative)
            }
        }
        Err(_) => dir.to_path_buf(),
    };
    common.join("objects").is_dir() && common.join("refs").is_dir()
}

/// Git's `validate_headref`: a symlink into `refs/`, `ref: refs/…`, or a commit id.
fn valid_head(head: &Path) -> bool {
    if let Ok(target) = fs_err::read_link(head) {
        return target.starts_with("refs/");
    }
    let Ok(content) = fs_err::read(head) else {
        return false;
    };
    let content = &content[..content.len().min(256)];
    if let Some(rest) = content.strip_prefix(b"ref:") {
        return rest.trim_ascii_start().starts_with(b"refs/");
    }
    let hex = content.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    hex == 40 || hex == 64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_repositories_and_gitfiles() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        git2::Repository::init(&repo).unwrap();
        assert!(is_nonbare_repository_dir(&repo));
        let plain = dir.path().join("plain");
        fs_err::create_dir_all(plain.join(".git")).unwrap();
        assert!(!is_nonbare_repository_dir(&plain));
        let linked = dir.path().join("linked");
        fs_err::create_dir(&linked).unwrap();
        fs_err::write(linked.join(".git"), "gitdir: ../repo/.git\n").unwrap();
        assert!(is_nonbare_repository_dir(&linked));
        fs_err::write(linked.join(".git"), "gitdir: ../plain/.git\n").unwrap();
        assert!(!is_nonbare_repository_dir(&linked));
    }
}

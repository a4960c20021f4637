//! [`enumerate_clean`]: exactly what `git clean -n` would list.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::WorkTree;
use crate::clean_walk::{Tracked, Walk};
use crate::error::GitError;
use crate::expand::{Expander, Identity};
use crate::index_file::IndexFile;
use crate::pathspec::{IgnoreMode, Pathspec, parse_flags};
/// Returns exactly the paths `git clean -n` would list ("Would remove …") for `flags`
/// (`-d`, `-x`, `-X`, with `-f`, `-n`, `-q` accepted and ignored) and literal
/// `pathspecs`, run from `cwd`: absolute, directories without a trailing slash, sorted.
///
/// Like git, it works on the cwd's subtree when no pathspec is given, resolves
/// pathspecs relative to `cwd`, removes untracked directories only with `-d` or a
/// pathspec, and never lists nested repositories ("Would skip repository") or what a
/// removed directory must keep because of them. `keep` (the quarantine) is never listed,
/// even where git would remove it. `user_dir` is git's per-user configuration directory.
///
/// # Errors
/// Unsupported flags (`-ff`, `-e`, `-i`, `-x` with `-X`) or pathspecs (wildcards, magic,
/// outside the repository), a `cwd` outside any work tree, or an unreadable index.
pub fn enumerate_clean(
    cwd: &Path,
    user_dir: Option<&Path>,
    keep: &Path,
    flags: &[String],
    pathspecs: &[String],
) -> Result<Vec<PathBuf>, GitError> {
    let flags = parse_flags(flags)?;
    let tree = WorkTree::discover(cwd, user_dir)?;
    // git may read an ignore file the guard does not (`includeIf "hasconfig:…"`): what a
    // clean that consults the ignore rules removes is then not known.
    if flags.mode != IgnoreMode::All && crate::ignore::conditional_includes(&tree.repo) {
        return Err(GitError::UnsupportedCleanArgument {
            argument: "includeIf \"hasconfig:…\"".to_owned(),
            reason: "git's configuration includes a file under a condition the guard does not \
                     evaluate, which may change what git ignores; use git clean -x, or remove \
                     the include",
        });
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| GitError::GitWorktree {
            action: "resolve",
            path,
            source,
        }
    };
    let root = fs_err::canonicalize(&tree.root).map_err(io(&tree.root))?;
    let cwd_physical = fs_err::canonicalize(cwd).map_err(io(cwd))?;
    let prefix = prefix_of(&root, &cwd_physical).ok_or_else(|| GitError::NotAWorkTree {
        path: cwd.to_path_buf(),
    })?;
    let pathspec = Pathspec::parse(&root, &prefix, pathspecs)?;
    let directories = flags.directories || !pathspecs.is_empty();

    let index = IndexFile::load(&tree.repo).map_err(tree.error("read the index"))?;
    let tracked = Tracked::new(&index);
    let entries = Walk::new(&tree, &tracked, &pathspec, flags.mode, directories).run()?;

    let trash = keep_location(keep, &root);
    let expander = Expander {
        cwd: identity(&cwd_physical),
        trash: trash.as_ref().and_then(|(_, id)| *id),
    };
    let mut out = Vec::new();
    for entry in entries {
        if !tracked.is_other(&entry) {
            continue;
        }
        let directory = entry.last() == Some(&b'/');
        let relative = entry.strip_suffix(b"/").unwrap_or(&entry);
        if trash
            .as_ref()
            .is_some_and(|(trash_relative, _)| is_at_or_under(relative, trash_relative))
        {
            continue;
        }
        let path = root.join(OsStr::from_bytes(relative));
        let metadata = fs_err::symlink_metadata(&path).map_err(io(&path))?;
        if metadata.is_dir() {
            if directories {
                expander.expand(&path, &mut out);
            }
        } else if !directory {
            out.push(path);
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The kept directory's path relative to `root` (when inside it) and its identity.
fn keep_location(keep: &Path, root: &Path) -> Option<(Vec<u8>, Option<Identity>)> {
    let physical = fs_err::canonicalize(keep).ok()?;
    let relative = physical
        .strip_prefix(root)
        .ok()?
        .as_os_str()
        .as_bytes()
        .to_vec();
    Some((relative, identity(&physical)))
}

/// The cwd relative to the root, empty or ending with `/`; `None` outside the work tree or
/// inside its `.git`.
fn prefix_of(root: &Path, cwd: &Path) -> Option<Vec<u8>> {
    let relative = cwd.strip_prefix(root).ok()?;
    if relative
        .components()
        .next()
        .is_some_and(|first| first.as_os_str() == ".git")
    {
        return None;
    }
    let mut prefix = relative.as_os_str().as_bytes().to_vec();
    if !prefix.is_empty() {
        prefix.push(b'/');
    }
    Some(prefix)
}

fn identity(path: &Path) -> Option<Identity> {
    fs_err::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

fn is_at_or_under(path: &[u8], ancestor: &[u8]) -> bool {
    !ancestor.is_empty()
        && path.starts_with(ancestor)
        && (path.len() == ancestor.len() || path[ancestor.len()] == b'/')
}

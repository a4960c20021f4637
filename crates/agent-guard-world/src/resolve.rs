//! Path spelling: lexical folding, Windows spellings and the kernel-faithful physical walk.
//!
//! Two spellings of every target are computed:
//!
//! - the *lexical* one (`resolved`): joined to the base and folded with `.`/`..` removed
//!   textually. It is what the user wrote, for messages and the manifest;
//! - the *physical* one: what the kernel would reach. `..` after a symlinked directory goes to
//!   the parent of where the link *leads*, not back to where it sits; every symlink met on the
//!   way is followed, except a final component that the command names without going through it
//!   (`rm link` removes the link, `rm link/` goes through it).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, MAIN_SEPARATOR_STR, Path, PathBuf};

/// The most symlinks followed while resolving one path (Linux's `MAXSYMLINKS`).
pub(crate) const MAX_SYMLINKS: u32 = 40;

/// The error text for a symlink chain longer than [`MAX_SYMLINKS`] (or a loop).
pub(crate) const TOO_MANY_LINKS: &str = "too many levels of symbolic links";

/// Folds `.` and `..` in `path` without touching the filesystem.
///
/// `..` at the root stays at the root, as in the kernel. A relative input stays relative, with
/// leading `..` components kept.
pub(crate) fn fold_lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if out.file_name().is_some() {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
        }
    }
    out
}

/// A Windows-absolute spelling, which is never mapped onto the POSIX tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WindowsSpelling {
    /// A bare drive root (`C:`, `C:/`, `c:\`), or a UNC prefix without a server name.
    DriveRoot,
    /// Any other drive path (`C:/Users`, `C:foo`) or UNC path (`//server/share`).
    Other,
}

/// Recognises Windows-absolute spellings: `X:` followed by anything, and UNC paths starting
/// with `//` or `\\` (Windows classifiers hand us `/`, but both are accepted).
pub(crate) fn windows_spelling(text: &str) -> Option<WindowsSpelling> {
    let is_separator = |c: char| c == '/' || c == '\\';
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        let rest = &text[2..];
        return Some(if rest.chars().all(is_separator) {
            WindowsSpelling::DriveRoot
        } else {
            WindowsSpelling::Other
        });
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if is_separator(a) && is_separator(b) => {
            // `//` alone (or `///…`) names no server: on POSIX it is the root itself.
            Some(if text.chars().all(is_separator) {
                WindowsSpelling::DriveRoot
            } else {
                WindowsSpelling::Other
            })
        }
        _ => None,
    }
}

/// One component to walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// `.`: stays where it is.
    Current,
    /// `..`: goes to the parent of the current physical directory.
    Parent,
    /// A name; `follow` says whether a symlink found there is followed.
    Name { name: OsString, follow: bool },
}

/// Builds the steps for a target spelled `text`, preceded by the steps of `prefix` (a base
/// directory or the home directory), all of which are followed.
///
/// The last name is followed only if the text ends with `/` (or the last raw component is
/// `.`/`..`, which makes the name before it non-final anyway).
pub(crate) fn steps(prefix: Option<&Path>, text: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    if let Some(prefix) = prefix {
        for component in prefix.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => {}
                Component::CurDir => steps.push(Step::Current),
                Component::ParentDir => steps.push(Step::Parent),
                Component::Normal(name) => {
                    steps.push(Step::Name {
                        name: name.to_os_string(),
                        follow: true,
                    });
                }
            }
        }
    }
    for raw in text.split('/') {
        match raw {
            "" => {}
            "." => steps.push(Step::Current),
            ".." => steps.push(Step::Parent),
            name => steps.push(Step::Name {
                name: OsString::from(name),
                follow: true,
            }),
        }
    }
    let trailing_slash = text.ends_with('/');
    if !trailing_slash && let Some(Step::Name { follow, .. }) = steps.last_mut() {
        *follow = false;
    }
    steps
}

/// The steps of an exact relative or absolute path (no trailing slash: the last name is not
/// followed), for a name the text cannot spell.
pub(crate) fn steps_of_path(path: &Path) -> Vec<Step> {
    let mut all = steps(Some(path), "");
    if let Some(Step::Name { follow, .. }) = all.last_mut() {
        *follow = false;
    }
    all
}

/// The steps that resolve `path` completely, following every component including the last.
pub(crate) fn steps_following_all(path: &Path) -> Vec<Step> {
    let mut all = steps(Some(path), "");
    if let Some(Step::Name { follow, .. }) = all.last_mut() {
        *follow = true;
    }
    all
}

/// Symlinks followed so far, shared by every walk that resolves one path.
#[derive(Debug, Default)]
pub(crate) struct LinkBudget(u32);

impl LinkBudget {
    fn spend(&mut self) -> Result<(), TooManyLinks> {
        self.0 += 1;
        if self.0 > MAX_SYMLINKS {
            Err(TooManyLinks)
        } else {
            Ok(())
        }
    }
}

/// More than [`MAX_SYMLINKS`] symlinks met while resolving one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooManyLinks;

/// Walks `steps` from the physical directory `start`, the way the kernel resolves a path.
///
/// - `.` is skipped; `..` goes to the parent of the current *physical* directory.
/// - A name is joined; if it is a symlink and its step says `follow`, the link is read and its
///   target walked in its place (relative targets from the link's directory, absolute ones from
///   the root), every component of the target being followed.
/// - Once a component is missing (or unreadable, or not a directory), the rest is joined
///   verbatim: there is nothing left to follow.
///
/// Costs one `lstat` per followed name plus one `readlink` per link, and no other I/O.
pub(crate) fn walk(
    start: PathBuf,
    steps: Vec<Step>,
    budget: &mut LinkBudget,
) -> Result<PathBuf, TooManyLinks> {
    let mut current = start;
    let mut queue: VecDeque<Step> = steps.into();
    let mut lexical = false;
    while let Some(step) = queue.pop_front() {
        match step {
            Step::Current => {}
            Step::Parent => {
                current.pop();
            }
            Step::Name { name, follow } => {
                current.push(&name);
                if lexical || !follow {
                    continue;
                }
                let Ok(metadata) = current.symlink_metadata() else {
                    lexical = true;
                    continue;
                };
                if !metadata.file_type().is_symlink() {
                    continue;
                }
                budget.spend()?;
                let Ok(link) = current.read_link() else {
                    lexical = true;
                    continue;
                };
                current.pop();
                if link.has_root() {
                    current = PathBuf::from(MAIN_SEPARATOR_STR);
                }
                let mut link_steps = steps_following_all(&link);
                if link_steps.is_empty() && !link.has_root() {
                    // An empty link target resolves to nothing (ENOENT): keep the name, stop
                    // probing.
                    current.push(&name);
                    lexical = true;
                    continue;
                }
                link_steps.extend(queue);
                queue = link_steps.into();
            }
        }
    }
    Ok(current)
}

/// Resolves `path` completely (every component followed), tolerating missing components.
///
/// Unlike `realpath`, this succeeds for paths that do not exist yet: the missing tail is kept
/// verbatim. On a symlink loop the lexical spelling is returned.
pub(crate) fn resolve_following_all(path: &Path) -> PathBuf {
    let root = PathBuf::from(MAIN_SEPARATOR_STR);
    walk(root, steps_following_all(path), &mut LinkBudget::default())
        .unwrap_or_else(|TooManyLinks| fold_lexical(path))
}

/// Returns `true` if `path` is `root` or lies below it, comparing whole components (`/ws2` is
/// not inside `/ws`).
pub(crate) fn is_within(path: &Path, root: &Path) -> bool {
    path.starts_with(root)
}

/// Joins workspace-relative components with `/` into the byte form git uses.
pub(crate) fn git_path_bytes(relative: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for component in relative.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push(b'/');
            }
            out.extend_from_slice(OsStr::as_encoded_bytes(name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_dots_lexically() {
        assert_eq!(
            fold_lexical(Path::new("/a/./b/../c")),
            PathBuf::from("/a/c")
        );
        assert_eq!(fold_lexical(Path::new("/../..")), PathBuf::from("/"));
        assert_eq!(fold_lexical(Path::new("/a/b/")), PathBuf::from("/a/b"));
        assert_eq!(
            fold_lexical(Path::new("../a/../../b")),
            PathBuf::from("../../b")
        );
    }

    #[test]
    fn recognises_windows_spellings() {
        use WindowsSpelling::{DriveRoot, Other};
        for root in ["C:", "C:/", "c:\\", "z:/", "C://"] {
            assert_eq!(windows_spelling(root), Some(DriveRoot), "{root}");
        }
        for other in [
            "C:/Users",
            "C:\\Users",
            "C:foo",
            "a:b",
            "//server/share",
            "\\\\server\\share",
        ] {
            assert_eq!(windows_spelling(other), Some(Other), "{other}");
        }
        assert_eq!(windows_spelling("//"), Some(DriveRoot));
        for posix in ["/", "/etc", "ab:c", "1:", "ab:", "./C:", ""] {
            assert_eq!(windows_spelling(posix), None, "{posix}");
        }
    }

    #[test]
    fn steps_follow_all_but_a_bare_final_name() {
        let name = |n: &str, follow| Step::Name {
            name: n.into(),
            follow,
        };
        assert_eq!(steps(None, "a/b"), vec![name("a", true), name("b", false)]);
        assert_eq!(steps(None, "a/b/"), vec![name("a", true), name("b", true)]);
        assert_eq!(steps(None, "a/."), vec![name("a", true), Step::Current]);
        assert_eq!(steps(None, "a/.."), vec![name("a", true), Step::Parent]);
        assert_eq!(
            steps(Some(Path::new("/h/u")), ""),
            vec![name("h", true), name("u", false)]
        );
        assert_eq!(
            steps_following_all(Path::new("/h/u")),
            vec![name("h", true), name("u", true)]
        );
    }

    #[test]
    fn git_paths_use_forward_slashes() {
        assert_eq!(git_path_bytes(Path::new("a/b/c")), b"a/b/c".to_vec());
        assert_eq!(git_path_bytes(Path::new("")), Vec::<u8>::new());
    }
}

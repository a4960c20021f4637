//! [`World::checkpoint_reach`]: could a delete confined to a directory remove something a
//! checkpoint does not keep?
//!
//! A checkpoint keeps the workspace's files but never its `.git` or the quarantine, so a
//! glob or `find` delete that could match either (`rm -rf .*`, `find . -delete`,
//! `find . -name 'index*' -delete` reaching `.git/index`) stays refused. Only what exists
//! is looked at: the protected roots below the directory, and for name patterns every name
//! inside them (a `.git` with more entries than [`MAX_ENTRIES`] is assumed to match).
//!
//! [`World::checkpoint_reach`]: agent_guard_types::World::checkpoint_reach

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use agent_guard_types::Reach;

use crate::RealWorld;

/// The most entries of a protected tree compared against name patterns.
const MAX_ENTRIES: usize = 200_000;

/// Returns `true` if a delete below `dir` removing what `reach` says could remove part of
/// the workspace's `.git` or the quarantine, or one of its guard files.
pub(crate) fn reaches(world: &RealWorld, dir: &Path, reach: Reach<'_>) -> bool {
    let trash = world.trash_roots();
    let mut stores: Vec<PathBuf> = vec![trash.physical.clone()];
    stores.extend(trash.link.clone());
    let own_git = world.workspace.join(".git");
    root_reached(&own_git, dir, reach, false)
        || stores
            .iter()
            .any(|root| root_reached(root, dir, reach, true))
        || guard_files_reached(world, dir, reach)
        || nested_reached(dir, &own_git, reach)
}

/// Whether the delete could remove part of a repository nested below `dir`. A glob that
/// removes no directory (`rm src/.*`) can only remove a `.git` file right in `dir`; the
/// tree is not walked for it.
fn nested_reached(dir: &Path, own_git: &Path, reach: Reach<'_>) -> bool {
    if matches!(
        reach,
        Reach::Children {
            recursive: false,
            ..
        }
    ) {
        let git = dir.join(".git");
        return git != own_git && root_reached(&git, dir, reach, false);
    }
    nested_gits(dir, own_git)
        .is_none_or(|gits| gits.iter().any(|git| root_reached(git, dir, reach, false)))
}

/// The `.git` entries of repositories nested below `dir` (not `own_git`, the workspace's),
/// which no checkpoint keeps (`rm -rf src/*` with `src/lib/.git`); `None` when the tree has
/// more than [`MAX_ENTRIES`] entries. Links are not followed, and a `.git` is not entered.
fn nested_gits(dir: &Path, own_git: &Path) -> Option<Vec<PathBuf>> {
    let mut found = Vec::new();
    let too_big = walk_below(dir, None, &mut |entry| {
        if entry.file_name() != ".git" {
            return Step::Enter;
        }
        let path = entry.path();
        if path != own_git {
            found.push(path);
        }
        Step::Skip
    });
    (!too_big).then_some(found)
}

/// The workspace's guard files that exist (`agent_guard_types::guard_files`): a checkpoint
/// keeps them, but a delete that removes one switches the guard off before any restore
/// (`find . -name settings.json -delete`, `rm -rf .c*`).
fn guard_files_reached(world: &RealWorld, dir: &Path, reach: Reach<'_>) -> bool {
    world
        .guard_files()
        .iter()
        .filter(|file| file.starts_with(&world.workspace) && file.symlink_metadata().is_ok())
        .any(|file| root_reached(file, dir, reach, false))
}

/// With `store`, `root` is the quarantine: judged as the checkpoint and the journal will
/// leave it (it may not exist yet), so its names are also matched by shape.
fn root_reached(root: &Path, dir: &Path, reach: Reach<'_>, store: bool) -> bool {
    let Ok(below) = root.strip_prefix(dir) else {
        return false;
    };
    if !store && root.symlink_metadata().is_err() {
        return false;
    }
    let mut components = below.components();
    let Some(first) = components.next() else {
        // The directory is the protected root itself.
        return true;
    };
    let first = first.as_os_str();
    match reach {
        Reach::Everything => true,
        Reach::Children {
            pattern,
            dot_rule,
            recursive,
        } => {
            let matched = glob(pattern.as_bytes(), first, dot_rule, false);
            // A match that is the root goes; one above it goes whole only with `-r`.
            matched && (components.next().is_none() || recursive)
        }
        Reach::Names {
            patterns,
            ignore_case,
            whole_matches,
            max_depth,
            files_only,
        } => {
            let matches = |name: &OsStr| {
                patterns
                    .iter()
                    .all(|p| glob(p.as_bytes(), name, false, ignore_case))
            };
            let depth = u32::try_from(below.components().count()).unwrap_or(u32::MAX);
            let within = |level: u32| max_depth.is_none_or(|most| level <= most);
            // With `-exec rm -r`, a matched directory above the root takes it along (with
            // `-type f`, no directory matches).
            let above = !files_only
                && below
                    .parent()
                    .into_iter()
                    .flat_map(Path::components)
                    .zip(1..)
                    .any(|(c, level)| within(level) && matches(c.as_os_str()));
            // The quarantine's future names lie in it or below it.
            let store_reached = store
                && crate::store_names::could_match(patterns, ignore_case)
                && (within(depth.saturating_add(1)) || (!files_only && within(depth)));
            (whole_matches && above)
                || store_reached
                || (within(depth) && {
                    let rest = max_depth.map(|most| most - depth);
                    if max_depth.is_none() && !files_only {
                        tree_matches(root, &matches)
                    } else {
                        // The quarantine is a directory, made by the checkpoint if need be.
                        bounded_tree_matches(root, &matches, rest, files_only, store)
                    }
                })
        }
    }
}

/// Implements [`World::write_reaches_link`](agent_guard_types::World::write_reaches_link):
/// whether an entry a rewrite confined to `dir` can match, or anything below a matched
/// directory, is a symbolic link or a file with more than one name (or the tree is too big
/// to tell). Links are never followed.
pub(crate) fn links(dir: &Path, reach: Reach<'_>) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    first_reached(dir, reach, &|meta| {
        meta.file_type().is_symlink() || (meta.is_file() && meta.nlink() > 1)
    })
    .is_some()
}

/// Implements [`World::creates_guarded`](agent_guard_types::World::creates_guarded): every
/// name the patterns allow is tried against `.git`, the quarantine's name and the guard
/// files whose directory is `dir`; without name patterns, any name is allowed.
pub(crate) fn creates_guarded(world: &RealWorld, dir: &Path, reach: Reach<'_>) -> bool {
    let Reach::Names {
        patterns,
        ignore_case,
        ..
    } = reach
    else {
        return true;
    };
    if patterns.is_empty() {
        return true;
    }
    let matches = |name: &OsStr| {
        patterns
            .iter()
            .all(|p| glob(p.as_bytes(), name, false, ignore_case))
    };
    let trash = world.trash_roots();
    let mut guarded: Vec<&Path> = vec![trash.physical.as_path()];
    guarded.extend(trash.link.as_deref());
    guarded.extend(world.guard_files().iter().map(PathBuf::as_path));
    matches(OsStr::new(".git"))
        || crate::store_names::could_match(patterns, ignore_case)
        || guarded
            .iter()
            .any(|path| path.parent() == Some(dir) && path.file_name().is_some_and(&matches))
}

/// Implements [`World::over_cap`](agent_guard_types::World::over_cap): the first regular
/// file larger than `cap` bytes that a delete or rewrite confined to `dir` can reach (`dir`
/// itself when the tree is too big to tell).
pub(crate) fn over_cap(dir: &Path, reach: Reach<'_>, cap: u64) -> Option<PathBuf> {
    first_reached(dir, reach, &|meta| meta.is_file() && meta.len() > cap)
}

/// The first entry an op confined to `dir` can reach, by what `reach` says (an entry it
/// matches, or anything below a matched directory), whose metadata (not following links)
/// satisfies `hit`; `dir` itself when there are more than [`MAX_ENTRIES`] to look at. A
/// name pattern is matched at every depth (`-maxdepth` is not used here: the answer errs
/// towards "reached").
fn first_reached(
    dir: &Path,
    reach: Reach<'_>,
    hit: &dyn Fn(&std::fs::Metadata) -> bool,
) -> Option<PathBuf> {
    let Ok(entries) = fs_err::read_dir(dir) else {
        return None;
    };
    let mut seen = 0usize;
    // (path, whether it is matched itself or lies below a match)
    let mut pending: Vec<(PathBuf, bool)> = entries
        .filter_map(Result::ok)
        .map(|e| (e.path(), false))
        .collect();
    while let Some((path, below_match)) = pending.pop() {
        seen += 1;
        if seen > MAX_ENTRIES {
            return Some(dir.to_path_buf());
        }
        let name = path.file_name().unwrap_or_default();
        let direct = path.parent() == Some(dir);
        let matched = below_match
            || match reach {
                Reach::Everything => true,
                Reach::Children {
                    pattern, dot_rule, ..
                } => direct && glob(pattern.as_bytes(), name, dot_rule, false),
                Reach::Names {
                    patterns,
                    ignore_case,
                    ..
                } => patterns
                    .iter()
                    .all(|p| glob(p.as_bytes(), name, false, ignore_case)),
            };
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if matched && hit(&meta) {
            return Some(path);
        }
        let descend = match reach {
            Reach::Children { recursive, .. } => matched && recursive,
            _ => true,
        };
        if descend
            && meta.is_dir()
            && let Ok(entries) = fs_err::read_dir(&path)
        {
            pending.extend(entries.filter_map(Result::ok).map(|e| (e.path(), matched)));
        }
    }
    None
}

/// Whether `root` or anything below it has a name that `matches` (or the tree is too big
/// to tell).
fn tree_matches(root: &Path, matches: &dyn Fn(&OsStr) -> bool) -> bool {
    root.file_name().is_some_and(matches) || below_matches(root, matches)
}

/// [`tree_matches`] for `find -maxdepth`/`-type f`: `root` and what lies at most `rest`
/// levels below it (any depth with `None`), only entries that are not directories with
/// `files_only` (`root_is_dir`: the root counts as one even before it exists); more than
/// [`MAX_ENTRIES`] is a match.
fn bounded_tree_matches(
    root: &Path,
    matches: &dyn Fn(&OsStr) -> bool,
    rest: Option<u32>,
    files_only: bool,
    root_is_dir: bool,
) -> bool {
    let is_dir = |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let counts = |path: &Path, name: &OsStr| matches(name) && !(files_only && is_dir(path));
    let root_counts = root
        .file_name()
        .is_some_and(|name| matches(name) && !(files_only && (root_is_dir || is_dir(root))));
    if root_counts {
        return true;
    }
    walk_below(root, rest, &mut |entry| {
        if counts(&entry.path(), &entry.file_name()) {
            Step::Stop
        } else {
            Step::Enter
        }
    })
}

/// Implements [`World::names_split`](agent_guard_types::World::names_split): `find`
/// prints its starting point as written (the classifier checks that text), then the names
/// below it, which are looked at here. Links are not followed.
pub(crate) fn names_split(dir: &Path) -> bool {
    below_matches(dir, &|name: &OsStr| {
        name.as_bytes()
            .iter()
            .any(|b| agent_guard_types::xargs_splits(*b))
    })
}

/// Whether anything below `root` has a name that `matches` (or the tree is too big to
/// tell).
fn below_matches(root: &Path, matches: &dyn Fn(&OsStr) -> bool) -> bool {
    walk_below(root, None, &mut |entry| {
        if matches(&entry.file_name()) {
            Step::Stop
        } else {
            Step::Enter
        }
    })
}

/// What [`walk_below`] does after visiting an entry.
enum Step {
    /// End the walk: found.
    Stop,
    /// Go on, into the entry if it is a directory.
    Enter,
    /// Go on, not into the entry.
    Skip,
}

/// Visits every entry below `root` (at most `rest` levels down; any depth with `None`),
/// without following links; returns `true` when `visit` stops the walk or the tree has more
/// than [`MAX_ENTRIES`] entries. Unreadable directories are passed over.
fn walk_below(
    root: &Path,
    rest: Option<u32>,
    visit: &mut dyn FnMut(&std::fs::DirEntry) -> Step,
) -> bool {
    let mut pending = vec![(root.to_path_buf(), 0u32)];
    let mut seen = 0usize;
    while let Some((dir, level)) = pending.pop() {
        if rest.is_some_and(|most| level >= most) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            seen += 1;
            if seen > MAX_ENTRIES {
                return true;
            }
            match visit(&entry) {
                Step::Stop => return true,
                Step::Enter if entry.file_type().is_ok_and(|t| t.is_dir()) => {
                    pending.push((entry.path(), level + 1));
                }
                Step::Enter | Step::Skip => {}
            }
        }
    }
    false
}

/// Shell-pattern match of one name; with `dot_rule`, a leading dot must be literal.
///
/// Errs towards a match where `find` and the shell (`fnmatch` in the user's locale) may read
/// the pattern otherwise than git's wildmatch: an unclosed `[` is literal there (both
/// readings are tried), `?` and a bracket match one character, not one byte, of a name
/// that is not ASCII, and case is folded beyond ASCII.
fn glob(pattern: &[u8], name: &OsStr, dot_rule: bool, ignore_case: bool) -> bool {
    let name = name.as_bytes();
    if dot_rule && name.first() == Some(&b'.') && pattern.first() != Some(&b'.') {
        return false;
    }
    let wild = |pattern: &[u8], name: &[u8]| {
        if ignore_case {
            agent_guard_git::glob_matches(&pattern.to_ascii_lowercase(), &name.to_ascii_lowercase())
        } else {
            agent_guard_git::glob_matches(pattern, name)
        }
    };
    let unicode = !name.is_ascii() || !pattern.is_ascii();
    if unicode && (ignore_case || pattern.iter().any(|b| matches!(b, b'?' | b'['))) {
        return true;
    }
    if wild(pattern, name) {
        return true;
    }
    // `[` read literally (an unclosed bracket is, in fnmatch).
    pattern.contains(&b'[') && {
        let mut literal = Vec::with_capacity(pattern.len() + 4);
        for byte in pattern {
            if *byte == b'[' {
                literal.push(b'\\');
            }
            literal.push(*byte);
        }
        wild(&literal, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find -name PATTERN`'s reach.
    fn names(pattern: &str) -> Reach<'static> {
        Reach::Names {
            patterns: vec![pattern.to_owned()].leak(),
            ignore_case: false,
            whole_matches: false,
            max_depth: None,
            files_only: false,
        }
    }

    /// A glob's reach: the directory's children matching `pattern`.
    fn children(pattern: &'static str, recursive: bool) -> Reach<'static> {
        Reach::Children {
            pattern,
            dot_rule: true,
            recursive,
        }
    }

    /// From an outside review: where fnmatch may match and wildmatch does not, a name is
    /// taken as matched (`[*` is literal in find, `?` is one UTF-8 character, `-iname`
    /// folds `É` to `é`).
    #[test]
    fn names_err_towards_a_match_where_find_reads_the_pattern_otherwise() {
        let m = |pattern: &str, name: &str, ignore_case: bool| {
            glob(pattern.as_bytes(), OsStr::new(name), false, ignore_case)
        };
        assert!(m("[*", "[lib", false));
        assert!(m("[big.bin", "[big.bin", false));
        assert!(m("?.bin", "é.bin", false));
        assert!(m("ÉLIB", "élib", true));
        assert!(m("[a-c]*", "b.txt", false));
        assert!(!m("*.py", "x.txt", false));
        assert!(!m("?.bin", "ab.bin", false));
    }

    #[test]
    fn only_deletes_that_can_match_git_or_the_quarantine_reach_them() {
        let dir = tempfile::tempdir().unwrap();
        let ws = fs_err::canonicalize(dir.path()).unwrap();
        fs_err::create_dir_all(ws.join(".git/refs")).unwrap();
        fs_err::write(ws.join(".git/index"), "").unwrap();
        fs_err::create_dir_all(ws.join("build")).unwrap();
        let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
        assert!(!reaches(&world, &ws, children("*.log", true)));
        assert!(!reaches(&world, &ws, children("*", true)), "the dot rule");
        assert!(reaches(&world, &ws, children(".*", true)));
        assert!(!reaches(&world, &ws.join("build"), Reach::Everything));
        assert!(reaches(&world, &ws, Reach::Everything));
        assert!(!reaches(&world, &ws, names("*.tmp")));
        assert!(reaches(&world, &ws, names("ind*")));
        assert!(reaches(&world, &ws, names("*")));
    }

    #[test]
    fn a_rewrite_reaches_a_link_only_among_what_it_can_match() {
        let dir = tempfile::tempdir().unwrap();
        let ws = fs_err::canonicalize(dir.path()).unwrap();
        fs_err::create_dir_all(ws.join("src/deep")).unwrap();
        fs_err::write(ws.join("src/a.py"), "").unwrap();
        fs_err::write(ws.join("outside.txt"), "").unwrap();
        std::os::unix::fs::symlink(ws.join("outside.txt"), ws.join("src/evil.log")).unwrap();
        fs_err::hard_link(ws.join("outside.txt"), ws.join("src/deep/h.txt")).unwrap();
        let src = ws.join("src");
        assert!(!links(&src, children("*.py", false)));
        assert!(links(&src, children("*.log", false)), "a symlink match");
        assert!(
            !links(&src, children("*.txt", false)),
            "the hard link is one level down"
        );
        assert!(links(&src, names("*.txt")), "a hard link at any depth");
        assert!(!links(&src, names("*.py")));
        assert!(links(&src, Reach::Everything));
        assert!(!links(&ws.join("nowhere"), Reach::Everything));
    }

    /// Before the first checkpoint the quarantine does not exist; the checkpoint taken for
    /// the delete creates it, and the delete must not reach what it creates.
    #[test]
    fn the_quarantine_is_judged_as_the_checkpoint_will_leave_it() {
        let dir = tempfile::tempdir().unwrap();
        let ws = fs_err::canonicalize(dir.path()).unwrap();
        let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
        for pattern in ["HEAD", "*.pack", "*.idx", "agent-guard-index", "2026*"] {
            assert!(reaches(&world, &ws, names(pattern)), "{pattern}");
        }
        assert!(!reaches(&world, &ws, names("*.tmp")));
        assert!(reaches(&world, &ws, Reach::Everything), "find . -delete");
        assert!(!reaches(&world, &ws.join("src"), Reach::Everything));
    }

    /// `xargs` without `-0` splits on blanks and unquotes: any such name below the starting
    /// point, at any depth, is found; the starting point's own name is not looked at (find
    /// prints it as written, and the classifier checks that text).
    #[test]
    fn names_xargs_would_split_are_found_at_any_depth() {
        let dir = tempfile::tempdir().unwrap();
        let ws = fs_err::canonicalize(dir.path()).unwrap();
        let start = ws.join("has space");
        fs_err::create_dir_all(start.join("a/b")).unwrap();
        fs_err::write(start.join("a/b/plain.txt"), "x").unwrap();
        assert!(!names_split(&start));
        for (i, bad) in [
            "x y",
            "tab\there",
            "new\nline",
            "it's",
            "say\"hi\"",
            "back\\slash",
        ]
        .iter()
        .enumerate()
        {
            let other = ws.join(format!("start{i}"));
            fs_err::create_dir_all(other.join("a/b")).unwrap();
            fs_err::write(other.join("a/b").join(bad), "x").unwrap();
            assert!(names_split(&other), "{bad:?}");
        }
        fs_err::create_dir(start.join("a/dir ")).unwrap();
        assert!(names_split(&start), "a directory name");
        assert!(!names_split(&ws.join("nowhere")));
    }

    /// `find . -maxdepth 1 -type f`: the workspace's `.git` (a directory) and the
    /// quarantine's contents lie out of reach; `-maxdepth 2`, or no `-type f`, reach them.
    #[test]
    fn depth_and_type_bound_what_a_find_reaches() {
        let dir = tempfile::tempdir().unwrap();
        let ws = fs_err::canonicalize(dir.path()).unwrap();
        fs_err::create_dir_all(ws.join(".git")).unwrap();
        fs_err::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        fs_err::write(ws.join("notes.txt"), "n").unwrap();
        let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
        let bounded = |max_depth, files_only| Reach::Names {
            patterns: &[],
            ignore_case: false,
            whole_matches: false,
            max_depth,
            files_only,
        };
        assert!(!reaches(&world, &ws, bounded(Some(1), true)));
        assert!(reaches(&world, &ws, bounded(Some(2), true)), ".git/HEAD");
        assert!(reaches(&world, &ws, bounded(Some(1), false)), ".git itself");
        assert!(reaches(&world, &ws, bounded(None, true)), "any depth");
    }
}

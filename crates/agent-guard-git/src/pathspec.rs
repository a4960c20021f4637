//! `git clean`'s flags and literal pathspecs, parsed and matched the way git does.

use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;

use crate::error::GitError;

/// Which untracked paths the ignore rules select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IgnoreMode {
    /// Untracked paths that are not ignored (no `-x`/`-X`).
    Standard,
    /// All untracked paths; ignore rules are not consulted (`-x`).
    All,
    /// Only ignored paths (`-X`).
    Only,
}

/// The flags of one `git clean` invocation that change what it removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CleanFlags {
    /// `-d`: untracked directories are removed too.
    pub(crate) directories: bool,
    /// `-x` / `-X` / neither.
    pub(crate) mode: IgnoreMode,
}

/// Parses the flags as given on the command line (`-f`, `-fdx`, `--force`, `-n`, `-q`, …).
/// Flags that change what is removed in ways not reproduced here (`-ff`, `-e`, `-i`) are
/// refused.
pub(crate) fn parse_flags(flags: &[String]) -> Result<CleanFlags, GitError> {
    let unsupported = |argument: &str, reason| GitError::UnsupportedCleanArgument {
        argument: argument.to_owned(),
        reason,
    };
    let (mut directories, mut all, mut only, mut force) = (false, false, false, 0);
    for flag in flags {
        match flag.as_str() {
            "--force" => force += 1,
            "--dry-run" | "--quiet" | "--" => {}
            long if long.starts_with("--") => {
                return Err(unsupported(long, "unknown or unsupported option"));
            }
            short if short.starts_with('-') && short.len() > 1 => {
                for letter in short[1..].chars() {
                    match letter {
                        'f' => force += 1,
                        'n' | 'q' => {}
                        'd' => directories = true,
                        'x' => all = true,
                        'X' => only = true,
                        _ => return Err(unsupported(short, "unknown or unsupported option")),
                    }
                }
            }
            other => return Err(unsupported(other, "not a flag")),
        }
    }
    if force > 1 {
        return Err(unsupported(
            "-ff",
            "a doubled -f also removes nested repositories",
        ));
    }
    let mode = match (all, only) {
        (true, true) => return Err(unsupported("-x -X", "git refuses -x together with -X")),
        (true, false) => IgnoreMode::All,
        (false, true) => IgnoreMode::Only,
        (false, false) => IgnoreMode::Standard,
    };
    Ok(CleanFlags { directories, mode })
}

/// How a path matched a pathspec (git's `MATCHED_*`; the best match over all items wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Match {
    /// No item matched.
    None,
    /// An item names a leading directory of the path (or is empty).
    Recursively,
    /// The path is a leading directory of an item: the directory must be entered.
    Leading,
    /// An item names the path itself.
    Exactly,
}

/// Literal pathspec items, repository-relative, `/`-separated (a trailing `/` kept). No
/// items means "everything".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pathspec {
    items: Vec<Vec<u8>>,
}

impl Pathspec {
    /// The pathspec of `git clean [-- <raw>…]` run from `prefix` (the cwd relative to the
    /// root, empty or ending with `/`). Without arguments git uses the cwd itself.
    pub(crate) fn parse(root: &Path, prefix: &[u8], raw: &[String]) -> Result<Pathspec, GitError> {
        if raw.is_empty() {
            let items = if prefix.is_empty() {
                Vec::new()
            } else {
                vec![prefix.to_vec()]
            };
            return Ok(Pathspec { items });
        }
        let items = raw
            .iter()
            .map(|spec| item(root, prefix, spec))
            .collect::<Result<_, _>>()?;
        Ok(Pathspec { items })
    }

    /// Git's `common_prefix_len`: the longest leading directory (ending with `/`) shared by
    /// every item; the walk starts there.
    pub(crate) fn common_prefix(&self) -> &[u8] {
        let Some(first) = self.items.first() else {
            return b"";
        };
        let mut common = first.len();
        for item in &self.items {
            let shared = first
                .iter()
                .zip(item)
                .take(common)
                .take_while(|(a, b)| a == b)
                .count();
            common = first[..shared]
                .iter()
                .rposition(|b| *b == b'/')
                .map_or(0, |i| i + 1);
            if common == 0 {
                break;
            }
        }
        &first[..common]
    }

    /// Git's `simplify_away`: `true` if no item shares the path's leading characters, so
    /// nothing at or below it can match. A character-wise test, not per component.
    pub(crate) fn simplify_away(&self, path: &[u8]) -> bool {
        !self.items.is_empty()
            && !self.items.iter().any(|item| {
                let length = item.len().min(path.len());
                item[..length] == path[..length]
            })
    }

    /// The best match of `name` (a directory ends with `/`) over all items; with `leading`,
    /// a directory on the way to an item matches as [`Match::Leading`].
    pub(crate) fn matches(&self, name: &[u8], leading: bool) -> Match {
        if self.items.is_empty() {
            return Match::Recursively;
        }
        self.items
            .iter()
            .map(|item| match_item(item, name, leading))
            .max()
            .unwrap_or(Match::None)
    }
}

/// Git's `match_pathspec_item` for a literal item.
fn match_item(item: &[u8], name: &[u8], leading: bool) -> Match {
    if item.is_empty() {
        return Match::Recursively;
    }
    if item.len() <= name.len() && name[..item.len()] == *item {
        if item.len() == name.len() {
            return Match::Exactly;
        }
        if item[item.len() - 1] == b'/' || name[item.len()] == b'/' {
            return Match::Recursively;
        }
    }
    if leading && !name.is_empty() && name.len() < item.len() {
        let offset = usize::from(name[name.len() - 1] == b'/');
        if item[name.len() - offset] == b'/' && item[..name.len()] == *name {
            return Match::Leading;
        }
    }
    Match::None
}

/// One pathspec argument, made repository-relative and normalised (git's `prefix_path`).
fn item(root: &Path, prefix: &[u8], spec: &str) -> Result<Vec<u8>, GitError> {
    let unsupported = |reason| GitError::UnsupportedCleanArgument {
        argument: spec.to_owned(),
        reason,
    };
    if spec.is_empty() {
        return Err(unsupported("an empty string is not a valid pathspec"));
    }
    if spec.starts_with(':') {
        return Err(unsupported("pathspec magic is not supported"));
    }
    if spec
        .bytes()
        .any(|b| matches!(b, b'*' | b'?' | b'[' | b'\\'))
    {
        // Git would also match these as glob patterns.
        return Err(unsupported("wildcard pathspecs are not supported"));
    }
    if let Some(absolute) = spec.strip_prefix('/') {
        let outside = || unsupported("outside the repository");
        let spec_path = normalize(absolute.as_bytes()).ok_or_else(outside)?;
        let root_bytes = root.as_os_str().as_bytes();
        let root_path =
            normalize(root_bytes.strip_prefix(b"/").unwrap_or(root_bytes)).ok_or_else(outside)?;
        let root_path = root_path.strip_suffix(b"/").unwrap_or(&root_path);
        if root_path.is_empty() {
            return Ok(spec_path);
        }
        let rest = spec_path.strip_prefix(root_path).ok_or_else(outside)?;
        return match rest.split_first() {
            None => Ok(Vec::new()),
            Some((b'/', inside)) => Ok(inside.to_vec()),
            Some(_) => Err(outside()),
        };
    }
    let mut joined = prefix.to_vec();
    joined.extend_from_slice(spec.as_bytes());
    normalize(&joined).ok_or_else(|| unsupported("outside the repository"))
}

/// Git's `normalize_path_copy`: squashes `//`, drops `.`, resolves `..` textually (failing
/// above the root), keeps a trailing `/`.
fn normalize(path: &[u8]) -> Option<Vec<u8>> {
    let mut parts: Vec<&[u8]> = Vec::new();
    let mut trailing = false;
    for part in path.split(|b| *b == b'/') {
        trailing = true;
        match part {
            b"" | b"." => {}
            b".." => {
                parts.pop()?;
            }
            _ => {
                parts.push(part);
                trailing = false;
            }
        }
    }
    let mut out = parts.join(&b'/');
    if trailing && !out.is_empty() {
        out.push(b'/');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(items: &[&str]) -> Pathspec {
        Pathspec {
            items: items.iter().map(|i| i.as_bytes().to_vec()).collect(),
        }
    }

    #[test]
    fn flags() {
        let parse = |flags: &[&str]| {
            parse_flags(&flags.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>())
        };
        assert_eq!(
            parse(&["-fdx"]).unwrap(),
            CleanFlags {
                directories: true,
                mode: IgnoreMode::All
            }
        );
        assert_eq!(
            parse(&["-f", "-X"]).unwrap(),
            CleanFlags {
                directories: false,
                mode: IgnoreMode::Only
            }
        );
        assert_eq!(
            parse(&["--force", "-n"]).unwrap(),
            CleanFlags {
                directories: false,
                mode: IgnoreMode::Standard
            }
        );
        for bad in [
            &["-ff"][..],
            &["-f", "-f"],
            &["-xX"],
            &["-e"],
            &["-i"],
            &["--exclude=x"],
            &["x"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn normalisation() {
        let root = Path::new("/ws");
        let one = |prefix: &str, raw: &str| {
            item(root, prefix.as_bytes(), raw).map(|v| String::from_utf8(v).unwrap())
        };
        assert_eq!(one("", "a/./b//c").unwrap(), "a/b/c");
        assert_eq!(one("sub/", ".").unwrap(), "sub/");
        assert_eq!(one("sub/", "../x/").unwrap(), "x/");
        assert_eq!(one("sub/", "..").unwrap(), "");
        assert_eq!(one("", "/ws/a/b").unwrap(), "a/b");
        assert_eq!(one("", "/ws").unwrap(), "");
        assert!(one("", "..").is_err());
        assert!(one("", "/elsewhere/a").is_err());
        assert!(one("", "/wsx/a").is_err());
        for bad in ["", ":(glob)a", "*.txt", "a?", "[ab]", "a\\b"] {
            assert!(one("", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn matching_follows_git() {
        let mix = spec(&["mix"]);
        assert_eq!(mix.matches(b"mix/", true), Match::Recursively);
        assert_eq!(mix.matches(b"mix", false), Match::Exactly);
        assert_eq!(mix.matches(b"mixer/", true), Match::None);
        assert!(!mix.simplify_away(b"mixer"), "character-wise, as git");
        assert!(mix.simplify_away(b"t"));
        let deep = spec(&["mix/a.txt"]);
        assert_eq!(deep.matches(b"mix/", true), Match::Leading);
        assert_eq!(deep.matches(b"mix/", false), Match::None);
        assert_eq!(deep.matches(b"mix/a.txt", false), Match::Exactly);
        let both = spec(&["mix", "mix/a.txt"]);
        assert_eq!(both.matches(b"mix/", true), Match::Leading);
        let slash = spec(&["mix/"]);
        assert_eq!(slash.matches(b"mix/", true), Match::Exactly);
        assert_eq!(slash.matches(b"mix", false), Match::None);
        assert_eq!(Pathspec::default().matches(b"x", false), Match::Recursively);
        assert_eq!(spec(&["a/b/c", "a/b/d/e"]).common_prefix(), b"a/b/");
        assert_eq!(spec(&["a/b/"]).common_prefix(), b"a/b/");
        assert_eq!(spec(&["mix", "mix/a"]).common_prefix(), b"");
        assert_eq!(spec(&["ab/x", "a/x"]).common_prefix(), b"");
    }
}

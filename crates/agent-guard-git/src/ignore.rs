//! Git's ignore rules, evaluated the way `dir.c` does: `.gitignore` files from the deepest
//! directory up, then `info/exclude`, then `core.excludesFile`; within a file the last
//! matching pattern wins, and a negation in a deeper file re-includes what a shallower one
//! ignores. Ignored ancestors are the caller's business (the walk passes them down).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use crate::WorkTree;
use crate::wildmatch::{PATHNAME, simple_length, wildmatch};

/// One ignore pattern (git's `path_pattern`).
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "git's independent pattern flags"
)]
struct Pattern {
    /// The pattern without `!` and without a trailing `/`.
    text: Vec<u8>,
    /// The directory of the file it came from, empty or ending with `/`.
    base: Vec<u8>,
    negative: bool,
    must_be_dir: bool,
    /// No `/` in the pattern: it matches basenames.
    no_dir: bool,
    /// `*literal`: a suffix test.
    ends_with: bool,
    /// Leading characters without glob specials.
    literal_prefix: usize,
}

/// The ignore rules of one repository, `.gitignore` files loaded on demand.
#[derive(Debug)]
pub(crate) struct Excludes {
    root: PathBuf,
    per_directory: HashMap<Vec<u8>, Vec<Pattern>>,
    /// `info/exclude`, then the user's excludes file (lookup order).
    global: Vec<Vec<Pattern>>,
}

impl Excludes {
    /// Loads `info/exclude` and `core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`
    /// or `~/.config/git/ignore`, as git).
    pub(crate) fn load(tree: &WorkTree) -> Excludes {
        let info = tree.repo.commondir().join("info").join("exclude");
        let configured = tree
            .repo
            .config()
            .ok()
            .and_then(|c| c.get_path("core.excludesFile").ok());
        let user = configured.or_else(|| tree.user_file("ignore"));
        let mut global = vec![read_patterns(&info, b"")];
        if let Some(user) = user {
            global.push(read_patterns(&user, b""));
        }
        Excludes {
            root: tree.root.clone(),
            per_directory: HashMap::new(),
            global,
        }
    }

    /// Returns `true` if the patterns exclude `path` (repository-relative, no trailing
    /// `/`); `is_dir` for directories (not for symlinks to them).
    pub(crate) fn is_excluded(&mut self, path: &[u8], is_dir: bool) -> bool {
        let basename_at = path.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
        let mut directory_end = basename_at;
        loop {
            let directory = &path[..directory_end];
            if !self.per_directory.contains_key(directory) {
                let file = self
                    .root
                    .join(OsStr::from_bytes(directory))
                    .join(".gitignore");
                let patterns = read_patterns(&file, directory);
                self.per_directory.insert(directory.to_vec(), patterns);
            }
            if let Some(pattern) = self
                .per_directory
                .get(directory)
                .and_then(|list| last_match(list, path, basename_at, is_dir))
            {
                return !pattern.negative;
            }
            if directory_end == 0 {
                break;
            }
            directory_end = path[..directory_end - 1]
                .iter()
                .rposition(|b| *b == b'/')
                .map_or(0, |i| i + 1);
        }
        self.global
            .iter()
            .find_map(|list| last_match(list, path, basename_at, is_dir))
            .is_some_and(|pattern| !pattern.negative)
    }
}

/// The patterns of one file (none if it is missing, unreadable or not a regular file).
fn read_patterns(file: &Path, base: &[u8]) -> Vec<Pattern> {
    let Ok(metadata) = fs_err::symlink_metadata(file) else {
        return Vec::new();
    };
    if !metadata.is_file() {
        return Vec::new();
    }
    let Ok(content) = fs_err::read(file) else {
        return Vec::new();
    };
    parse_patterns(&content, base)
}

/// Git's `add_patterns_from_buffer`.
fn parse_patterns(content: &[u8], base: &[u8]) -> Vec<Pattern> {
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    content
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty() && line[0] != b'#')
        .map(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            parse_pattern(trim_trailing_spaces(line), base)
        })
        .collect()
}

/// Git's `trim_trailing_spaces`: unescaped trailing spaces go.
fn trim_trailing_spaces(line: &[u8]) -> &[u8] {
    let mut last_space = None;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b' ' => {
                if last_space.is_none() {
                    last_space = Some(i);
                }
            }
            b'\\' => {
                i += 1;
                if i >= line.len() {
                    return line;
                }
                last_space = None;
            }
            _ => last_space = None,
        }
        i += 1;
    }
    last_space.map_or(line, |end| &line[..end])
}

/// Git's `parse_path_pattern`.
fn parse_pattern(line: &[u8], base: &[u8]) -> Pattern {
    let (negative, rest) = match line.strip_prefix(b"!") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let must_be_dir = rest.last() == Some(&b'/');
    let text = if must_be_dir {
        &rest[..rest.len() - 1]
    } else {
        rest
    };
    Pattern {
        no_dir: !text.contains(&b'/'),
        literal_prefix: simple_length(rest).min(text.len()),
        ends_with: rest.first() == Some(&b'*') && simple_length(&rest[1..]) == rest.len() - 1,
        text: text.to_vec(),
        base: base.to_vec(),
        negative,
        must_be_dir,
    }
}

/// Git's `last_matching_pattern_from_list`.
fn last_match<'a>(
    list: &'a [Pattern],
    path: &[u8],
    basename_at: usize,
    is_dir: bool,
) -> Option<&'a Pattern> {
    list.iter().rev().find(|pattern| {
        if pattern.must_be_dir && !is_dir {
            return false;
        }
        if pattern.no_dir {
            match_basename(&path[basename_at..], pattern)
        } else {
            match_pathname(path, pattern)
        }
    })
}

fn match_basename(basename: &[u8], pattern: &Pattern) -> bool {
    let text = &pattern.text;
    if pattern.literal_prefix == text.len() {
        text == basename
    } else if pattern.ends_with {
        basename.ends_with(&text[1..])
    } else {
        wildmatch(text, basename, false)
    }
}

fn match_pathname(path: &[u8], pattern: &Pattern) -> bool {
    let (mut text, mut prefix) = (pattern.text.as_slice(), pattern.literal_prefix);
    if text.first() == Some(&b'/') {
        text = &text[1..];
        prefix = prefix.saturating_sub(1);
    }
    let base_length = pattern.base.len().saturating_sub(1);
    if path.len() < base_length + 1
        || (base_length > 0 && path[base_length] != b'/')
        || path[..base_length] != pattern.base[..base_length]
    {
        return false;
    }
    let mut name = if base_length > 0 {
        &path[base_length + 1..]
    } else {
        path
    };
    if prefix > 0 {
        if prefix > name.len() || text[..prefix] != name[..prefix] {
            return false;
        }
        text = &text[prefix..];
        name = &name[prefix..];
        if text.is_empty() && name.is_empty() {
            return true;
        }
    }
    wildmatch(text, name, PATHNAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excluded(rules: &[(&str, &str)], path: &str, is_dir: bool) -> bool {
        let lists: Vec<(Vec<u8>, Vec<Pattern>)> = rules
            .iter()
            .map(|(base, text)| {
                (
                    base.as_bytes().to_vec(),
                    parse_patterns(text.as_bytes(), base.as_bytes()),
                )
            })
            .collect();
        let path = path.as_bytes();
        let basename_at = path.iter().rposition(|b| *b == b'/').map_or(0, |i| i + 1);
        // Deepest file first, as `is_excluded` walks them.
        let mut ordered: Vec<&(Vec<u8>, Vec<Pattern>)> = lists
            .iter()
            .filter(|(base, _)| path.starts_with(base))
            .collect();
        ordered.sort_by_key(|(base, _)| std::cmp::Reverse(base.len()));
        ordered
            .iter()
            .find_map(|(_, list)| last_match(list, path, basename_at, is_dir))
            .is_some_and(|p| !p.negative)
    }

    #[test]
    fn deeper_negations_win() {
        let rules = [
            ("", "*.tmp\nbuild/\n/top-only\n"),
            ("t/", "!important.tmp\n"),
        ];
        assert!(excluded(&rules, "a.tmp", false));
        assert!(excluded(&rules, "t/x.tmp", false));
        assert!(!excluded(&rules, "t/important.tmp", false));
        assert!(excluded(&rules, "important.tmp", false));
        assert!(excluded(&rules, "build", true));
        assert!(
            !excluded(&rules, "build", false),
            "a directory pattern does not match a file"
        );
        assert!(excluded(&rules, "top-only", false));
        assert!(!excluded(&rules, "t/top-only", false));
    }

    #[test]
    fn pattern_syntax() {
        assert_eq!(trim_trailing_spaces(b"a  "), b"a");
        assert_eq!(trim_trailing_spaces(b"a\\ "), b"a\\ ");
        let rules = [(
            "",
            "# comment\n\\#hash\nsp ace \r\ndoc/*.md\n**/deep\n*.LOG\n",
        )];
        assert!(excluded(&rules, "#hash", false));
        assert!(excluded(&rules, "x/sp ace", false));
        assert!(excluded(&rules, "doc/a.md", false));
        assert!(!excluded(&rules, "doc/sub/a.md", false));
        assert!(excluded(&rules, "a/b/deep", true));
        assert!(!excluded(&rules, "x.log", false), "case-sensitive");
        assert!(!excluded(&rules, "# comment", false));
    }
}

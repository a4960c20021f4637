//! Glob expansion of `safe-delete`'s arguments, byte for byte.
//!
//! File names are bytes: a name that is not UTF-8 is matched as it is and handed on as an
//! exact path ([`Target::exact`]), never as a lossy spelling that would name another file.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};

use agent_guard_types::Target;

/// At most this many matches per pattern; more is refused as a pattern too wide to review.
const MAX_MATCHES: usize = 100_000;

/// Expands `safe-delete`'s path arguments the way the tool promises: glob patterns (`*`, `?`,
/// `[…]`, and `**` for any depth, relative to `cwd`, or to `home` after `~/`) become their
/// sorted matches, literals pass through, and anything with `$` or a backquote is an opaque
/// target. As in the shell, a wildcard does not match a leading `.` unless the pattern
/// spells it, and `/` only by `**`. Returns the targets and the patterns that matched nothing.
/// Reads directories only; symlinks to directories are descended into only where the
/// pattern names them literally.
pub fn expand_patterns(
    paths: &[String],
    cwd: &Path,
    home: Option<&Path>,
) -> (Vec<Target>, Vec<String>) {
    let mut targets = Vec::new();
    let mut no_match = Vec::new();
    for raw in paths {
        let tilde = raw
            .strip_prefix('~')
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        if raw.contains(['$', '`']) {
            targets.push(Target {
                opaque: Some("a variable or substitution in a path".to_owned()),
                ..Target::literal(raw.clone())
            });
            continue;
        }
        if !raw.contains(['*', '?', '[']) {
            targets.push(Target {
                tilde,
                ..Target::literal(raw.clone())
            });
            continue;
        }
        let (base, pattern) = if tilde {
            let Some(home) = home else {
                targets.push(Target {
                    opaque: Some("home directory unknown".to_owned()),
                    ..Target::literal(raw.clone())
                });
                continue;
            };
            (home.to_path_buf(), raw[1..].trim_start_matches('/'))
        } else {
            (cwd.to_path_buf(), raw.as_str())
        };
        let absolute = Path::new(pattern).has_root();
        let start = if absolute {
            PathBuf::from("/")
        } else {
            base.clone()
        };
        let mut matches = matches(&start, Path::new(pattern));
        if matches.len() > MAX_MATCHES {
            targets.push(Target {
                opaque: Some(format!("the pattern matches more than {MAX_MATCHES} paths")),
                ..Target::literal(raw.clone())
            });
            continue;
        }
        matches.sort();
        matches.dedup();
        if matches.is_empty() {
            no_match.push(raw.clone());
        }
        for path in matches {
            let shown = if absolute {
                path
            } else {
                path.strip_prefix(&base)
                    .map(Path::to_path_buf)
                    .unwrap_or(path)
            };
            let text = shown.to_string_lossy().into_owned();
            let exact = (shown.to_str().is_none()).then_some(shown);
            targets.push(Target {
                exact,
                ..Target::literal(text)
            });
        }
    }
    (targets, no_match)
}

/// Every existing path below `start` that `pattern` matches, component by component.
fn matches(start: &Path, pattern: &Path) -> Vec<PathBuf> {
    let mut current = vec![start.to_path_buf()];
    let components: Vec<&OsStr> = pattern
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            Component::ParentDir => Some(OsStr::new("..")),
            _ => None,
        })
        .collect();
    let last = components.len().saturating_sub(1);
    for (index, component) in components.iter().enumerate() {
        let bytes = component.as_bytes();
        let mut next = Vec::new();
        for dir in &current {
            if bytes == b"**" {
                descend(dir, &mut next);
            } else if !is_glob(bytes) {
                let candidate = dir.join(component);
                if candidate.symlink_metadata().is_ok() {
                    next.push(candidate);
                }
            } else {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for entry in entries.filter_map(Result::ok) {
                    let name = entry.file_name();
                    let name = name.as_bytes();
                    let hidden = name.first() == Some(&b'.') && bytes.first() != Some(&b'.');
                    if !hidden && agent_guard_git::glob_matches(bytes, name) {
                        next.push(entry.path());
                    }
                }
            }
            if next.len() > MAX_MATCHES {
                return next;
            }
        }
        // Only directories can hold the next component.
        if index < last {
            next.retain(|p| p.is_dir());
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    if components.is_empty() {
        return Vec::new();
    }
    current
}

/// `dir` and every directory below it (not through symlinks, not into hidden directories),
/// for `**`.
fn descend(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        if out.len() > MAX_MATCHES {
            return;
        }
        let Ok(entries) = std::fs::read_dir(&current) else {
            out.push(current);
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let hidden = entry.file_name().as_bytes().first() == Some(&b'.');
            if !hidden && entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(entry.path());
            }
        }
        out.push(current);
    }
}

fn is_glob(bytes: &[u8]) -> bool {
    bytes.iter().any(|b| matches!(b, b'*' | b'?' | b'['))
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStringExt as _;

    use super::*;

    fn names(targets: &[Target]) -> Vec<String> {
        targets.iter().map(|t| t.text.clone()).collect()
    }

    #[test]
    fn globs_expand_sorted_and_skip_hidden_names() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.log", "a.log", ".hidden.log", "keep.txt"] {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        std::fs::write(dir.path().join("sub/deeper/c.log"), "x").unwrap();
        let (targets, missing) =
            expand_patterns(&["*.log".into(), "nope*".into()], dir.path(), None);
        assert_eq!(names(&targets), ["a.log", "b.log"]);
        assert_eq!(missing, ["nope*"]);
        let (targets, _) = expand_patterns(&[".*.log".into()], dir.path(), None);
        assert_eq!(names(&targets), [".hidden.log"]);
        let (targets, _) = expand_patterns(&["**/*.log".into()], dir.path(), None);
        assert_eq!(names(&targets), ["a.log", "b.log", "sub/deeper/c.log"]);
        let (targets, _) = expand_patterns(&["s?b/*/c.[lx]og".into()], dir.path(), None);
        assert_eq!(names(&targets), ["sub/deeper/c.log"]);
    }

    #[test]
    fn names_that_are_not_utf8_are_matched_and_kept_exact() {
        let dir = tempfile::tempdir().unwrap();
        let name = std::ffi::OsString::from_vec(b"caf\xe9.txt".to_vec());
        std::fs::write(dir.path().join(&name), "x").unwrap();
        std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
        let (targets, missing) = expand_patterns(&["*.txt".into()], dir.path(), None);
        assert!(missing.is_empty());
        assert_eq!(targets.len(), 2);
        let odd = targets.iter().find(|t| t.exact.is_some()).unwrap();
        assert_eq!(odd.exact.as_deref(), Some(Path::new(&name)));
        assert!(
            targets
                .iter()
                .any(|t| t.text == "plain.txt" && t.exact.is_none())
        );
    }

    #[test]
    fn literals_and_opaque_words_pass_through() {
        let dir = tempfile::tempdir().unwrap();
        let (targets, _) = expand_patterns(&["missing.txt".into(), "$X".into()], dir.path(), None);
        assert_eq!(targets[0].text, "missing.txt");
        assert!(targets[0].opaque.is_none());
        assert!(targets[1].opaque.is_some());
    }
}

//! Glob expansion of `safe-delete`'s arguments.

use std::path::{Path, PathBuf};

use agent_guard_types::Target;

/// Expands `safe-delete`'s path arguments the way the tool promises: glob patterns (`*`, `?`,
/// `[…]`, relative to `cwd`, or to `home` after `~/`) become their sorted matches, literals
/// pass through, and anything with `$` or a backquote is an opaque target. Returns the
/// targets and the patterns that matched nothing. Reads directories; never follows a
/// pattern outside what it names.
pub fn expand_patterns(
    paths: &[String],
    cwd: &Path,
    home: Option<&Path>,
) -> (Vec<Target>, Vec<String>) {
    let mut targets = Vec::new();
    let mut no_match = Vec::new();
    for raw in paths {
        let (text, tilde) = match raw.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => (raw.clone(), true),
            _ => (raw.clone(), false),
        };
        if text.contains(['$', '`']) {
            targets.push(Target {
                opaque: Some("a variable or substitution in a path".to_owned()),
                ..Target::literal(text)
            });
            continue;
        }
        if !text.contains(['*', '?', '[']) {
            targets.push(Target {
                tilde,
                ..Target::literal(text)
            });
            continue;
        }
        let base = if tilde {
            home.map(Path::to_path_buf).unwrap_or_default()
        } else {
            cwd.to_owned()
        };
        let pattern_text = if tilde {
            text[1..].trim_start_matches('/').to_owned()
        } else {
            text.clone()
        };
        let absolute = Path::new(&pattern_text).is_absolute();
        let pattern = if absolute {
            pattern_text.clone()
        } else {
            format!(
                "{}/{}",
                glob::Pattern::escape(&base.to_string_lossy()),
                pattern_text
            )
        };
        let options = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: true,
        };
        let mut matches: Vec<PathBuf> = glob::glob_with(&pattern, options)
            .map(|paths| paths.filter_map(Result::ok).collect())
            .unwrap_or_default();
        matches.sort();
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
            targets.push(Target::literal(shown.to_string_lossy().into_owned()));
        }
    }
    (targets, no_match)
}

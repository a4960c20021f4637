//! Reading the harnesses' own settings for doctor: JSON with comments, layered files, and
//! Gemini-style trusted-folder rules.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::fsio;
use crate::harness::canonical;

/// A settings file as the harness reads it, if it exists and parses (comments allowed).
///
/// An unreadable or invalid file counts as absent here: doctor reports what the harness would
/// do with the files it can read, and the harness itself complains about a broken one.
pub(crate) fn read(path: &Path) -> Option<Value> {
    let bytes = fsio::read(path).ok().flatten()?;
    let text = String::from_utf8(bytes).ok()?;
    serde_json::from_str(&strip_comments(&text)).ok()
}

/// The value at a dotted `key` (`hooksConfig.enabled`) of a settings object.
pub(crate) fn lookup<'a>(settings: &'a Value, key: &str) -> Option<&'a Value> {
    key.split('.')
        .try_fold(settings, |value, part| value.as_object()?.get(part))
}

/// The boolean `key` of the last layer that sets it (layers in increasing precedence), with
/// the file it came from.
pub(crate) fn last_bool<'a>(layers: &'a [Layer], key: &str) -> Option<(bool, &'a Path)> {
    layers.iter().rev().find_map(|layer| {
        let value = lookup(layer.settings.as_ref()?, key)?.as_bool()?;
        Some((value, layer.path.as_path()))
    })
}

/// One settings file of a harness.
pub(crate) struct Layer {
    /// The file.
    pub(crate) path: PathBuf,
    /// Its content, if it exists and parses.
    pub(crate) settings: Option<Value>,
}

impl Layer {
    /// Reads the layer at `path`.
    pub(crate) fn read(path: PathBuf) -> Layer {
        let settings = read(&path);
        Layer { path, settings }
    }
}

/// What a trusted-folders file (Gemini CLI, Qwen Code) says about a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FolderTrust {
    /// A `TRUST_FOLDER` or `TRUST_PARENT` rule covers it.
    Trusted,
    /// A `DO_NOT_TRUST` rule covers it.
    Untrusted,
    /// No rule covers it: the harness asks on its first interactive start.
    Unknown,
}

/// The trust of `dir` under the rules of `trusted_folders` (a `{path: level}` object): the
/// rule with the longest path that is `dir` or an ancestor of it wins, as in Gemini CLI 0.61
/// (`TRUST_PARENT` applies to the parent of its path).
pub(crate) fn folder_trust(trusted_folders: Option<&Value>, dir: &Path) -> FolderTrust {
    let Some(rules) = trusted_folders.and_then(Value::as_object) else {
        return FolderTrust::Unknown;
    };
    let dir = canonical(dir);
    let mut best: Option<(usize, &str)> = None;
    for (rule, level) in rules {
        let Some(level) = level.as_str() else {
            continue;
        };
        let rule_path = Path::new(rule);
        let effective = match level {
            "TRUST_PARENT" => rule_path.parent().unwrap_or(rule_path),
            "TRUST_FOLDER" | "DO_NOT_TRUST" => rule_path,
            _ => continue,
        };
        if dir.starts_with(canonical(effective)) && best.is_none_or(|(len, _)| rule.len() > len) {
            best = Some((rule.len(), level));
        }
    }
    match best {
        Some((_, "DO_NOT_TRUST")) => FolderTrust::Untrusted,
        Some(_) => FolderTrust::Trusted,
        None => FolderTrust::Unknown,
    }
}

/// Whether `dir` is one of `folders` or inside one (Copilot CLI's `trustedFolders` list).
pub(crate) fn listed(folders: Option<&Value>, dir: &Path) -> bool {
    let dir = canonical(dir);
    folders
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|folder| dir.starts_with(canonical(Path::new(folder))))
}

/// The harness's system-wide settings directory (Gemini CLI `gemini-cli`, Qwen Code
/// `qwen-code`), where `settings.json` overrides every other layer and
/// `system-defaults.json` sits below the user's settings.
pub(crate) fn system_dir(linux_name: &str, macos_name: &str) -> PathBuf {
    if cfg!(target_os = "macos") {
        Path::new("/Library/Application Support").join(macos_name)
    } else {
        Path::new("/etc").join(linux_name)
    }
}

/// `text` with `//` and `/* */` comments outside strings replaced by spaces (JSONC, as the
/// `strip-json-comments` package that these harnesses use reads it).
pub(crate) fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn comments_are_stripped_outside_strings() {
        let text = "// managed\n{\"a\": \"x // y\", /* b */ \"b\": [1, 2] // tail\n}";
        let value: Value = serde_json::from_str(&strip_comments(text)).unwrap();
        assert_eq!(value, json!({"a": "x // y", "b": [1, 2]}));
        let escaped = r#"{"a": "q\"//"}"#;
        assert_eq!(strip_comments(escaped), escaped);
    }

    #[test]
    fn the_longest_rule_wins() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(dir.path());
        let ws = root.join("ws");
        fs_err::create_dir_all(ws.join("sub")).unwrap();
        let rules = |value: Value| folder_trust(Some(&value), &ws.join("sub"));
        assert_eq!(rules(json!({})), FolderTrust::Unknown);
        assert_eq!(
            rules(json!({root.display().to_string(): "TRUST_FOLDER"})),
            FolderTrust::Trusted
        );
        assert_eq!(
            rules(json!({root.display().to_string(): "TRUST_FOLDER",
                         ws.display().to_string(): "DO_NOT_TRUST"})),
            FolderTrust::Untrusted
        );
        assert_eq!(
            rules(json!({ws.join("sub/x").display().to_string(): "TRUST_PARENT"})),
            FolderTrust::Trusted
        );
        assert_eq!(
            rules(json!({root.join("other").display().to_string(): "TRUST_FOLDER"})),
            FolderTrust::Unknown
        );
        assert!(listed(Some(&json!([root.display().to_string()])), &ws));
        assert!(!listed(Some(&json!(["/elsewhere"])), &ws));
    }

    #[test]
    fn the_last_layer_that_sets_a_key_wins() {
        let layers = [
            Layer {
                path: "a".into(),
                settings: Some(json!({"hooksConfig": {"enabled": false}})),
            },
            Layer {
                path: "b".into(),
                settings: Some(json!({"hooksConfig": {"enabled": true}})),
            },
            Layer {
                path: "c".into(),
                settings: None,
            },
        ];
        let (value, path) = last_bool(&layers, "hooksConfig.enabled").unwrap();
        assert!(value);
        assert_eq!(path, Path::new("b"));
        assert!(last_bool(&layers, "disableAllHooks").is_none());
    }
}

//! Reading payload fields strictly: every missing or mistyped field is a [`Malformed`] reason.
//!
//! Error texts name the field and what was wrong with it, never the field's value: a payload
//! carries the raw command, which can hold secrets.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::ShellCall;

/// The most payload bytes accepted; a larger payload is [`Malformed::TooLarge`].
pub const MAX_PAYLOAD_BYTES: usize = 1 << 20;

/// Why a payload cannot be read. Every variant makes the hook deny (fail closed).
///
/// The texts never contain payload values.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Malformed {
    /// Nothing (or only whitespace) arrived on stdin.
    Empty,
    /// The payload is larger than [`MAX_PAYLOAD_BYTES`].
    TooLarge,
    /// The payload is not valid JSON (or not UTF-8).
    NotJson {
        /// The 1-based line of the error.
        line: usize,
        /// The 1-based column of the error.
        column: usize,
    },
    /// The payload is JSON but not an object.
    NotObject,
    /// A required field is absent (or `null`).
    Missing(&'static str),
    /// A field has the wrong JSON type.
    WrongType {
        /// The dotted field name.
        field: &'static str,
        /// The type it must have.
        expected: &'static str,
    },
    /// A required string is empty or only whitespace.
    Blank(&'static str),
    /// The event field names an event this hook does not handle.
    UnexpectedEvent {
        /// The event field.
        field: &'static str,
        /// The event the hook is registered for.
        expected: &'static str,
    },
    /// The working directory is not an absolute path.
    RelativeCwd(&'static str),
    /// Neither a working directory nor a workspace root is given.
    NoCwd,
    /// `--harness auto` could not tell which harness sent the payload.
    Undetected,
}

impl fmt::Display for Malformed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Malformed::Empty => f.write_str("the payload is empty"),
            Malformed::TooLarge => {
                write!(f, "the payload is larger than {MAX_PAYLOAD_BYTES} bytes")
            }
            Malformed::NotJson { line, column } => {
                write!(f, "the payload is not JSON (line {line}, column {column})")
            }
            Malformed::NotObject => f.write_str("the payload is not a JSON object"),
            Malformed::Missing(field) => write!(f, "`{field}` is missing"),
            Malformed::WrongType { field, expected } => {
                write!(f, "`{field}` is not {expected}")
            }
            Malformed::Blank(field) => write!(f, "`{field}` is empty"),
            Malformed::UnexpectedEvent { field, expected } => {
                write!(f, "`{field}` is not `{expected}`")
            }
            Malformed::RelativeCwd(field) => write!(f, "`{field}` is not an absolute path"),
            Malformed::NoCwd => f.write_str("the payload gives no working directory"),
            Malformed::Undetected => f.write_str(
                "the harness could not be recognised from the payload; pass `--harness NAME`",
            ),
        }
    }
}

impl std::error::Error for Malformed {}

/// The result of reading one payload field.
pub(crate) type Field<T> = Result<T, Malformed>;

/// Parses payload bytes into a JSON object.
pub(crate) fn object(bytes: &[u8]) -> Field<Map<String, Value>> {
    if bytes.len() > MAX_PAYLOAD_BYTES {
        return Err(Malformed::TooLarge);
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Malformed::Empty);
    }
    // The serde error text can quote the payload; only its position is kept.
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Malformed::NotObject),
        Err(error) => Err(Malformed::NotJson {
            line: error.line(),
            column: error.column(),
        }),
    }
}

/// A field that must be a string when present; `null` counts as absent.
pub(crate) fn opt_str<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    field: &'static str,
) -> Field<Option<&'a str>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(Malformed::WrongType {
            field,
            expected: "a string",
        }),
    }
}

/// A required, non-blank string.
pub(crate) fn req_str<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    field: &'static str,
) -> Field<&'a str> {
    match opt_str(map, key, field)? {
        None => Err(Malformed::Missing(field)),
        Some(text) if text.trim().is_empty() => Err(Malformed::Blank(field)),
        Some(text) => Ok(text),
    }
}

/// A required object.
pub(crate) fn req_obj<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    field: &'static str,
) -> Field<&'a Map<String, Value>> {
    match map.get(key) {
        None | Some(Value::Null) => Err(Malformed::Missing(field)),
        Some(Value::Object(inner)) => Ok(inner),
        Some(_) => Err(Malformed::WrongType {
            field,
            expected: "an object",
        }),
    }
}

/// Requires the event field to equal `expected`.
pub(crate) fn expect_event(
    map: &Map<String, Value>,
    key: &str,
    field: &'static str,
    expected: &'static str,
) -> Field<()> {
    if req_str(map, key, field)? == expected {
        Ok(())
    } else {
        Err(Malformed::UnexpectedEvent { field, expected })
    }
}

/// The session id: the first of `keys` that is a non-blank string (other types are ignored:
/// the session only names the authorisation state, it never widens what is allowed).
pub(crate) fn session(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| {
        map.get(*key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    })
}

/// A shell call to judge: `command` run in `cwd`, its dialect selector read from the payload
/// `map` or the tool's own object `source`, its session from the first of `session_keys` in
/// `map`, and no tool input to rewrite.
pub(crate) fn shell_call(
    map: &Map<String, Value>,
    source: &Map<String, Value>,
    session_keys: &[&str],
    command: String,
    cwd: PathBuf,
) -> ShellCall {
    ShellCall {
        command,
        cwd,
        dialect: dialect(&[map, source]),
        session: session(map, session_keys),
        input: Map::new(),
    }
}

/// The dialect selector: the first present, non-blank `dialect`, `shell_dialect` or
/// `shellDialect` of `maps`, in order.
///
/// A non-string value is passed on as its JSON text, which the engine refuses as an unknown
/// or invalid selector (`BLOCK_DIALECT_*`) instead of silently ignoring it.
pub(crate) fn dialect(maps: &[&Map<String, Value>]) -> Option<String> {
    const KEYS: [&str; 3] = ["dialect", "shell_dialect", "shellDialect"];
    maps.iter()
        .flat_map(|map| KEYS.iter().filter_map(|key| map.get(*key)))
        .find_map(|value| match value {
            Value::Null => None,
            Value::String(text) if text.trim().is_empty() => None,
            Value::String(text) => Some(text.clone()),
            other => Some(other.to_string()),
        })
}

/// The working directory: `cwd` if given and non-blank, else the first workspace root.
/// Either must be absolute; the process's own directory is never used.
pub(crate) fn cwd(
    cwd: Option<&str>,
    cwd_field: &'static str,
    roots: Option<(&Value, &'static str)>,
) -> Field<PathBuf> {
    if let Some(dir) = cwd.filter(|d| !d.trim().is_empty()) {
        return absolute(dir, cwd_field);
    }
    let Some((roots, roots_field)) = roots else {
        return Err(Malformed::NoCwd);
    };
    match roots {
        Value::Null => Err(Malformed::NoCwd),
        Value::Array(list) => match list.first() {
            None => Err(Malformed::NoCwd),
            Some(Value::String(dir)) if !dir.trim().is_empty() => absolute(dir, roots_field),
            Some(_) => Err(Malformed::WrongType {
                field: roots_field,
                expected: "a list of paths",
            }),
        },
        _ => Err(Malformed::WrongType {
            field: roots_field,
            expected: "a list of paths",
        }),
    }
}

fn absolute(dir: &str, field: &'static str) -> Field<PathBuf> {
    let path = PathBuf::from(dir);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(Malformed::RelativeCwd(field))
    }
}

/// `cwd` moved by a tool's directory argument: the first of `keys` that `input` holds as a
/// non-blank string (a relative one is joined to `cwd`, an absolute one replaces it). Every
/// key present must be a string.
pub(crate) fn run_dir(
    cwd: PathBuf,
    input: &Map<String, Value>,
    keys: &[(&str, &'static str)],
) -> Field<PathBuf> {
    for (key, field) in keys {
        if let Some(dir) = opt_str(input, key, field)?.map(str::trim)
            && !dir.is_empty()
        {
            return Ok(cwd.join(dir));
        }
    }
    Ok(cwd)
}

/// The shell command: a required, non-blank string.
pub(crate) fn command(map: &Map<String, Value>, key: &str, field: &'static str) -> Field<String> {
    req_str(map, key, field).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::map;

    #[test]
    fn object_classifies_bad_input() {
        assert_eq!(object(b""), Err(Malformed::Empty));
        assert_eq!(object(b" \n\t"), Err(Malformed::Empty));
        assert_eq!(object(b"[1]"), Err(Malformed::NotObject));
        assert!(matches!(object(b"{"), Err(Malformed::NotJson { .. })));
        assert!(matches!(
            object(b"\xff\xfe"),
            Err(Malformed::NotJson { .. })
        ));
        let big = vec![b' '; MAX_PAYLOAD_BYTES + 1];
        assert_eq!(object(&big), Err(Malformed::TooLarge));
    }

    #[test]
    fn errors_never_quote_values() {
        let secret = br#"{"command": "rm -rf /secret-token-123", "#;
        let text = object(secret).unwrap_err().to_string();
        assert!(!text.contains("secret"), "{text}");
        let m = map(json!({"cwd": 7}));
        let text = opt_str(&m, "cwd", "cwd").unwrap_err().to_string();
        assert_eq!(text, "`cwd` is not a string");
    }

    #[test]
    fn dialect_takes_the_first_non_blank_field() {
        let outer = map(json!({"dialect": " ", "shellDialect": "pwsh"}));
        let inner = map(json!({"dialect": "cmd"}));
        assert_eq!(dialect(&[&outer, &inner]), Some("pwsh".into()));
        let numeric = map(json!({"shell_dialect": 42}));
        assert_eq!(dialect(&[&numeric]), Some("42".into()));
        assert_eq!(dialect(&[&map(json!({"dialect": null}))]), None);
    }

    #[test]
    fn run_dir_takes_the_first_non_blank_key() {
        let keys = [("directory", "directory"), ("dir_path", "dir_path")];
        let cwd = PathBuf::from("/w");
        let moved = |input: Value| run_dir(cwd.clone(), &map(input), &keys);
        assert_eq!(moved(json!({})), Ok(PathBuf::from("/w")));
        assert_eq!(
            moved(json!({"directory": " ", "dir_path": "web"})),
            Ok(PathBuf::from("/w/web"))
        );
        assert_eq!(moved(json!({"directory": "/x"})), Ok(PathBuf::from("/x")));
        assert!(moved(json!({"directory": 3})).is_err());
    }

    #[test]
    fn cwd_falls_back_to_the_first_root_and_must_be_absolute() {
        let roots = json!(["/w", "/x"]);
        assert_eq!(
            cwd(Some(""), "cwd", Some((&roots, "roots"))),
            Ok(PathBuf::from("/w"))
        );
        assert_eq!(
            cwd(Some("rel"), "cwd", None),
            Err(Malformed::RelativeCwd("cwd"))
        );
        assert_eq!(cwd(None, "cwd", None), Err(Malformed::NoCwd));
        assert_eq!(
            cwd(None, "cwd", Some((&json!([]), "roots"))),
            Err(Malformed::NoCwd)
        );
        assert!(cwd(None, "cwd", Some((&json!("x"), "roots"))).is_err());
    }
}

//! File-writing tool calls: reading the files a `Write`, `Edit`, `apply_patch`, … call changes
//! from its input.
//!
//! Each harness module names its own tools and the field that holds the path; what they share
//! is here: strict path fields (a known edit tool whose path is missing, blank or not a string
//! is [`Malformed`], so the hook denies), and the patch format of Codex's `apply_patch` (also
//! used by Copilot CLI and `OpenCode` for some models).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use agent_guard_types::{EditEffect, EditFile};

use crate::payload::{self, Field, Malformed};

/// A file-writing tool call a harness is about to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditCall {
    /// The tool, as the harness names it (`Write`, `apply_patch`, `write_file`, …).
    pub tool: String,
    /// The absolute directory relative paths are resolved against, from the payload; `None`
    /// when the payload names none (Windsurf's `pre_write_code` may not) and every file path
    /// is absolute. Hook mode then locates the workspace from its own working directory, where
    /// the harness runs its hooks: never from a file's own directory, which would make any
    /// file the root of its own workspace.
    pub cwd: Option<PathBuf>,
    /// The harness's session id, if any.
    pub session: Option<String>,
    /// The files it changes, in payload order (at least one).
    pub files: Vec<EditFile>,
}

/// `tool_input.file_path`, the path field of the file tools of Claude Code, Gemini CLI and
/// Qwen Code.
pub(crate) const FILE_PATH: &[(&str, &str)] = &[("file_path", "tool_input.file_path")];

/// `tool_input.notebook_path`, the path field of the notebook tools of Claude Code
/// (`NotebookEdit`) and Qwen Code (`notebook_edit`).
pub(crate) const NOTEBOOK_PATH: &[(&str, &str)] = &[("notebook_path", "tool_input.notebook_path")];

/// How a known edit tool names its target.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// One path, in the first present of these input fields (`(key, dotted field)`).
    Path(EditEffect, &'static [(&'static str, &'static str)]),
    /// Patch text (`*** Begin Patch` … `*** End Patch`) in any string of the input.
    Patch,
}

/// Looks `tool` up (trimmed, case-insensitively) in a harness's table of edit tools.
pub(crate) fn lookup(table: &[(&str, Shape)], tool: &str) -> Option<Shape> {
    let tool = tool.trim();
    table
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(tool))
        .map(|(_, shape)| *shape)
}

/// The files `input` names for a tool of `shape`.
pub(crate) fn files(shape: Shape, input: &Value) -> Field<Vec<EditFile>> {
    match shape {
        Shape::Path(effect, keys) => {
            let Value::Object(map) = input else {
                return Err(Malformed::WrongType {
                    field: keys.first().map_or("tool input", |(_, field)| field),
                    expected: "a field of an object",
                });
            };
            Ok(vec![EditFile::new(path(map, keys)?, effect)])
        }
        Shape::Patch => patch_files(input),
    }
}

/// The path in the first of `keys` that `map` holds: a non-blank string. A present key with
/// any other value is malformed, and so is the absence of all of them.
pub(crate) fn path(map: &Map<String, Value>, keys: &[(&str, &'static str)]) -> Field<String> {
    for (key, field) in keys {
        match map.get(*key) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.trim().is_empty() => {
                return Err(Malformed::Blank(field));
            }
            Some(Value::String(text)) => return Ok(text.clone()),
            Some(_) => {
                return Err(Malformed::WrongType {
                    field,
                    expected: "a string",
                });
            }
        }
    }
    Err(Malformed::Missing(
        keys.first().map_or("file path", |(_, field)| field),
    ))
}

/// Builds the call.
pub(crate) fn call(
    tool: &str,
    cwd: Option<PathBuf>,
    session: Option<String>,
    files: Vec<EditFile>,
) -> EditCall {
    EditCall {
        tool: tool.trim().to_owned(),
        cwd,
        session,
        files,
    }
}

/// The working directory of an edit whose payload may not give one: `cwd` if absolute;
/// `None` if the payload names none and every file path is absolute; a relative path with
/// nothing to resolve it against is malformed.
pub(crate) fn optional_cwd(cwd: Field<PathBuf>, files: &[EditFile]) -> Field<Option<PathBuf>> {
    match cwd {
        Ok(dir) => Ok(Some(dir)),
        Err(Malformed::NoCwd) if files.iter().all(|f| Path::new(&f.path).is_absolute()) => Ok(None),
        Err(other) => Err(other),
    }
}

/// The patch markers and what each does to the path after it.
const MARKERS: [(&str, EditEffect); 4] = [
    ("*** Add File:", EditEffect::Write),
    ("*** Delete File:", EditEffect::Delete),
    ("*** Update File:", EditEffect::Edit),
    ("*** Move to:", EditEffect::MoveTo),
];

/// The files a patch changes, from every string of `input` (the patch is `command` for Codex,
/// `patchText` for `OpenCode`, `input` or the bare string for Copilot CLI; a patch moved to
/// another field is still seen).
///
/// Every line that is a marker once trimmed counts, wherever it is: reading a line of a hunk
/// body as a marker can only make the guard keep one file more (or refuse a path it would
/// not touch), never miss one. `*** Move to:` turns the file of the `*** Update File:` before
/// it into the source of a rename. A patch that names no file, or a marker with no path, is
/// malformed: the guard cannot tell what it changes.
pub(crate) fn patch_files(input: &Value) -> Field<Vec<EditFile>> {
    let mut files: Vec<EditFile> = Vec::new();
    let mut blank = false;
    for text in strings(input) {
        let mut last_update: Option<usize> = None;
        for line in text.lines() {
            let line = line.trim();
            let Some((effect, rest)) = MARKERS
                .iter()
                .find_map(|(marker, effect)| line.strip_prefix(marker).map(|rest| (*effect, rest)))
            else {
                continue;
            };
            let path = rest.trim();
            if path.is_empty() {
                blank = true;
                continue;
            }
            if effect == EditEffect::MoveTo
                && let Some(index) = last_update.take()
            {
                files[index].effect = EditEffect::MoveFrom;
            }
            last_update = (effect == EditEffect::Edit).then_some(files.len());
            files.push(EditFile::new(path, effect));
        }
    }
    if blank {
        return Err(Malformed::Blank("patch file path"));
    }
    if files.is_empty() {
        return Err(Malformed::WrongType {
            field: "patch",
            expected: "a patch that names the files it changes",
        });
    }
    Ok(files)
}

/// Every string in `value`, depth first.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(text) => vec![text.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// `tool_input`, required for a known edit tool (an object, or for a patch a bare string).
pub(crate) fn input<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    field: &'static str,
) -> Field<&'a Value> {
    match map.get(key) {
        None | Some(Value::Null) => Err(Malformed::Missing(field)),
        Some(value @ (Value::Object(_) | Value::String(_))) => Ok(value),
        Some(_) => Err(Malformed::WrongType {
            field,
            expected: "an object",
        }),
    }
}

/// Reads the edit call of a known tool: its input value, files and session.
pub(crate) fn read(
    tool: &str,
    shape: Shape,
    input: &Value,
    cwd: Field<PathBuf>,
    session: Option<String>,
) -> Field<EditCall> {
    let files = files(shape, input)?;
    let cwd = optional_cwd(cwd, &files)?;
    Ok(call(tool, cwd, session, files))
}

/// The working directory field of a `PreToolUse`-shaped payload (`cwd`).
pub(crate) fn payload_cwd(map: &Map<String, Value>) -> Field<PathBuf> {
    payload::cwd(payload::opt_str(map, "cwd", "cwd")?, "cwd", None)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn effects(value: &Value) -> Vec<(String, EditEffect)> {
        patch_files(value)
            .unwrap()
            .into_iter()
            .map(|f| (f.path, f.effect))
            .collect()
    }

    #[test]
    fn a_patch_names_its_files_and_their_effects() {
        let patch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Update File: a.txt\n@@\n-x\n+y\n\
                     *** Delete File: gone.txt\n*** Update File: old/name.rs\n*** Move to: new/name.rs\n\
                     @@\n-a\n+b\n*** End Patch\n";
        assert_eq!(
            effects(&json!({"command": patch})),
            vec![
                ("new.txt".into(), EditEffect::Write),
                ("a.txt".into(), EditEffect::Edit),
                ("gone.txt".into(), EditEffect::Delete),
                ("old/name.rs".into(), EditEffect::MoveFrom),
                ("new/name.rs".into(), EditEffect::MoveTo),
            ]
        );
    }

    #[test]
    fn markers_are_found_in_any_field_with_any_indentation() {
        let elsewhere = json!({"input": ["  *** Delete File:   spaced name.txt  \r\n"]});
        assert_eq!(
            effects(&elsewhere),
            vec![("spaced name.txt".into(), EditEffect::Delete)]
        );
        assert_eq!(
            effects(&json!(
                "*** Begin Patch\n*** Update File: /abs/x\n*** End Patch"
            )),
            vec![("/abs/x".into(), EditEffect::Edit)]
        );
    }

    #[test]
    fn a_patch_without_files_or_with_a_blank_path_is_malformed() {
        for bad in [
            json!({"command": "*** Begin Patch\n*** End Patch"}),
            json!({"command": "just text"}),
            json!({"command": 7}),
            json!({"command": "*** Begin Patch\n*** Delete File:  \n*** End Patch"}),
        ] {
            assert!(patch_files(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn path_fields_are_strict() {
        const KEYS: &[(&str, &str)] = &[
            ("file_path", "tool_input.file_path"),
            ("path", "tool_input.path"),
        ];
        let map = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(path(&map(json!({"path": "a"})), KEYS), Ok("a".into()));
        assert_eq!(
            path(&map(json!({"file_path": "b", "path": "a"})), KEYS),
            Ok("b".into())
        );
        assert_eq!(
            path(&map(json!({})), KEYS),
            Err(Malformed::Missing("tool_input.file_path"))
        );
        assert_eq!(
            path(&map(json!({"file_path": " "})), KEYS),
            Err(Malformed::Blank("tool_input.file_path"))
        );
        assert!(matches!(
            path(&map(json!({"file_path": ["a"]})), KEYS),
            Err(Malformed::WrongType { .. })
        ));
    }

    #[test]
    fn a_missing_cwd_is_left_to_the_hook_only_for_absolute_paths() {
        let files = [EditFile::new("/p/src/a.rs", EditEffect::Edit)];
        assert_eq!(
            optional_cwd(Ok(PathBuf::from("/w")), &files),
            Ok(Some(PathBuf::from("/w")))
        );
        assert_eq!(optional_cwd(Err(Malformed::NoCwd), &files), Ok(None));
        let relative = [
            EditFile::new("/p/a.rs", EditEffect::Edit),
            EditFile::new("a.rs", EditEffect::Edit),
        ];
        assert_eq!(
            optional_cwd(Err(Malformed::NoCwd), &relative),
            Err(Malformed::NoCwd)
        );
        assert_eq!(
            optional_cwd(Err(Malformed::RelativeCwd("cwd")), &files),
            Err(Malformed::RelativeCwd("cwd"))
        );
    }
}

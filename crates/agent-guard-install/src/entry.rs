//! The hook entry in each harness's JSON config: what it looks like, and adding, finding
//! and removing exactly ours.

use std::path::Path;

use crate::error::{Error, Result};
use crate::harness::Harness;
use crate::json::Json;
use crate::shell;

/// Seconds a harness waits for the hook: well above the guard's own deadline (5 s by
/// default, `[hook] deadline_ms`), so the guard always answers before the harness gives up.
pub(crate) const TIMEOUT_SECS: u64 = 30;

/// How a harness nests its hook handlers under `hooks.<event>`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// `hooks.<event> = [{matcher, hooks: [handler…]}…]` (Claude Code, Codex, Gemini, Qwen).
    Grouped {
        event: &'static str,
        matcher: &'static str,
    },
    /// `hooks.<event> = [handler…]` (Copilot, Cursor, Windsurf).
    Flat { event: &'static str },
}

/// The JSON layout of one harness's hook config.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) shape: Shape,
    /// The handler key holding the command line.
    pub(crate) command_key: &'static str,
    /// Whether a new file starts with `"version": 1`.
    pub(crate) versioned: bool,
}

impl Layout {
    /// The layout of `harness`, or `None` when it is not configured through JSON.
    pub(crate) fn of(harness: Harness) -> Option<Layout> {
        let grouped = |event, matcher| Layout {
            shape: Shape::Grouped { event, matcher },
            command_key: "command",
            versioned: false,
        };
        match harness {
            // The shell and the file tools, whose edits are kept first (issue 13).
            Harness::ClaudeCode => Some(grouped(
                "PreToolUse",
                "Bash|Write|Edit|MultiEdit|NotebookEdit",
            )),
            // `apply_patch`: its add, update, delete and move hunks are kept first.
            Harness::Codex => Some(grouped("PreToolUse", "Bash|apply_patch")),
            Harness::Gemini => Some(grouped(
                "BeforeTool",
                "run_shell_command|write_file|replace",
            )),
            // Claude Code's event, Gemini CLI's tool names.
            Harness::QwenCode => Some(grouped(
                "PreToolUse",
                "run_shell_command|write_file|edit|notebook_edit",
            )),
            Harness::Copilot => Some(Layout {
                shape: Shape::Flat {
                    event: "preToolUse",
                },
                command_key: "bash",
                versioned: true,
            }),
            Harness::Cursor => Some(Layout {
                shape: Shape::Flat {
                    event: "beforeShellExecution",
                },
                command_key: "command",
                versioned: true,
            }),
            Harness::Windsurf => Some(Layout {
                shape: Shape::Flat {
                    event: "pre_run_command",
                },
                command_key: "command",
                versioned: false,
            }),
            Harness::Cline | Harness::OpenCode | Harness::Generic => None,
        }
    }

    /// The layout of a second event in the same file that carries the harness's edit-tool
    /// calls, where its shell event does not (Windsurf's `pre_write_code`). Install
    /// registers the same handler under it, so that edits are kept first (issue 13).
    pub(crate) fn edits(harness: Harness) -> Option<Layout> {
        match harness {
            Harness::Windsurf => Some(Layout {
                shape: Shape::Flat {
                    event: "pre_write_code",
                },
                command_key: "command",
                versioned: false,
            }),
            _ => None,
        }
    }

    /// The event key under `hooks`.
    pub(crate) fn event(self) -> &'static str {
        match self.shape {
            Shape::Grouped { event, .. } | Shape::Flat { event } => event,
        }
    }
}

/// The handler object agent-guard installs for `harness`.
///
/// `fail_closed` adds Claude Code's `onFailure: "block"` (2.1.295 and later); Cursor always
/// gets `failClosed: true`. The other harnesses have no such option.
pub(crate) fn handler(harness: Harness, command: &str, fail_closed: bool) -> Json {
    let command = Json::str(command);
    match harness {
        Harness::ClaudeCode if fail_closed => Json::object([
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::uint(TIMEOUT_SECS)),
            ("onFailure", Json::str("block")),
        ]),
        Harness::ClaudeCode | Harness::Codex => Json::object([
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::uint(TIMEOUT_SECS)),
        ]),
        Harness::Gemini => Json::object([
            ("name", Json::str("agent-guard")),
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::uint(TIMEOUT_SECS * 1000)),
        ]),
        // Seconds since Qwen Code 0.24 (values of 1000 and more still read as milliseconds).
        Harness::QwenCode => Json::object([
            ("name", Json::str("agent-guard")),
            ("type", Json::str("command")),
            ("command", command),
            ("timeout", Json::uint(TIMEOUT_SECS)),
        ]),
        Harness::Copilot => Json::object([
            ("type", Json::str("command")),
            ("bash", command),
            ("timeoutSec", Json::uint(TIMEOUT_SECS)),
        ]),
        Harness::Cursor => Json::object([
            ("command", command),
            ("timeout", Json::uint(TIMEOUT_SECS)),
            ("failClosed", Json::Bool(true)),
        ]),
        Harness::Windsurf | Harness::Cline | Harness::OpenCode | Harness::Generic => {
            Json::object([("command", command), ("show_output", Json::Bool(true))])
        }
    }
}

/// Where a handler sits: the index in `hooks.<event>` and, for grouped layouts, in that
/// group's `hooks` (0 for flat layouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    pub(crate) group: usize,
    pub(crate) handler: usize,
}

/// A removed handler: where it was, and whether its (then empty) group went with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Removed {
    pub(crate) at: Placement,
    pub(crate) group_removed: bool,
}

/// Finds agent-guard's handlers for `harness`, in document order.
pub(crate) fn find(doc: &Json, layout: Layout, harness: Harness) -> Vec<(Placement, Json)> {
    find_by(doc, layout, |command| shell::is_ours(command, harness))
}

/// The handlers whose command runs an `agent-guard…` program but is not what install writes
/// (a mistyped option, a wrapper): `doctor` fails them.
pub(crate) fn find_lookalikes(
    doc: &Json,
    layout: Layout,
    harness: Harness,
) -> Vec<(Placement, Json)> {
    find_by(doc, layout, |command| {
        shell::mentions_agent_guard(command) && !shell::is_ours(command, harness)
    })
}

fn find_by(doc: &Json, layout: Layout, wanted: impl Fn(&str) -> bool) -> Vec<(Placement, Json)> {
    let Some(Json::Array(items)) = doc.get("hooks").and_then(|h| h.get(layout.event())) else {
        return Vec::new();
    };
    let ours = |handler: &Json| {
        handler
            .get(layout.command_key)
            .and_then(Json::as_str)
            .is_some_and(&wanted)
    };
    let mut found = Vec::new();
    for (group, item) in items.iter().enumerate() {
        match layout.shape {
            Shape::Flat { .. } => {
                if ours(item) {
                    found.push((Placement { group, handler: 0 }, item.clone()));
                }
            }
            Shape::Grouped { .. } => {
                if let Some(Json::Array(handlers)) = item.get("hooks") {
                    for (index, handler) in handlers.iter().enumerate() {
                        if ours(handler) {
                            let at = Placement {
                                group,
                                handler: index,
                            };
                            found.push((at, handler.clone()));
                        }
                    }
                }
            }
        }
    }
    found
}

/// Adds (or updates in place) agent-guard's handler; duplicates of it are removed.
/// Returns where the handler ends up.
pub(crate) fn insert(
    doc: &mut Json,
    path: &Path,
    layout: Layout,
    harness: Harness,
    desired: &Json,
) -> Result<Placement> {
    check_shape(doc, path, layout)?;
    let found = find(doc, layout, harness);
    let Some(((first, _), duplicates)) = found.split_first() else {
        let items = event_array(doc, layout);
        let item = match layout.shape {
            Shape::Grouped { matcher, .. } => Json::object([
                ("matcher", Json::str(matcher)),
                ("hooks", Json::Array(vec![desired.clone()])),
            ]),
            Shape::Flat { .. } => desired.clone(),
        };
        items.push(item);
        return Ok(Placement {
            group: items.len() - 1,
            handler: 0,
        });
    };
    for (at, _) in duplicates.iter().rev() {
        remove_at(event_array(doc, layout), layout, *at);
    }
    if let Some(handler) = handler_mut(event_array(doc, layout), layout, *first)
        && let Json::Object(fields) = desired
    {
        for (key, value) in fields {
            handler.set(key, value.clone());
        }
    }
    update_matcher(event_array(doc, layout), layout, *first);
    Ok(*first)
}

/// Brings the matcher of a group that holds only agent-guard's handler up to date (an
/// install from before edit tools were judged matched `Bash` or `run_shell_command` alone).
/// A group shared with other handlers keeps its matcher: changing it would change theirs.
fn update_matcher(items: &mut [Json], layout: Layout, at: Placement) {
    let Shape::Grouped { matcher, .. } = layout.shape else {
        return;
    };
    let Some(group) = items.get_mut(at.group) else {
        return;
    };
    let alone = matches!(group.get("hooks"), Some(Json::Array(handlers)) if handlers.len() == 1);
    if alone && group.get("matcher").and_then(Json::as_str) != Some(matcher) {
        group.set("matcher", Json::str(matcher));
    }
}

/// Removes every agent-guard handler for `harness`, then the containers this left empty
/// (`hooks.<event>`, `hooks`). Returns what was removed, last first.
pub(crate) fn remove(doc: &mut Json, layout: Layout, harness: Harness) -> Vec<Removed> {
    let found = find(doc, layout, harness);
    if found.is_empty() {
        return Vec::new();
    }
    let mut removed = Vec::new();
    {
        let items = event_array(doc, layout);
        for (at, _) in found.iter().rev() {
            let group_removed = remove_at(items, layout, *at);
            removed.push(Removed {
                at: *at,
                group_removed,
            });
        }
    }
    if let Some(hooks) = doc.get_mut("hooks") {
        if hooks
            .get(layout.event())
            .is_some_and(Json::is_empty_container)
        {
            hooks.remove(layout.event());
        }
        if hooks.is_empty_container() {
            doc.remove("hooks");
        }
    }
    removed
}

/// Verifies that `hooks` and `hooks.<event>` have the shapes we edit (creating nothing).
fn check_shape(doc: &Json, path: &Path, layout: Layout) -> Result<()> {
    let shape_error = |key: String, expected| Error::Shape {
        path: path.to_path_buf(),
        key,
        expected,
    };
    if !matches!(doc, Json::Object(_)) {
        return Err(shape_error("(root)".into(), "an object"));
    }
    match doc.get("hooks") {
        None | Some(Json::Object(_)) => {}
        Some(_) => return Err(shape_error("hooks".into(), "an object")),
    }
    match doc.get("hooks").and_then(|h| h.get(layout.event())) {
        None | Some(Json::Array(_)) => Ok(()),
        Some(_) => Err(shape_error(format!("hooks.{}", layout.event()), "an array")),
    }
}

/// `hooks.<event>`, created if missing. The shape must have been checked.
fn event_array(doc: &mut Json, layout: Layout) -> &mut Vec<Json> {
    if doc.get("hooks").is_none() {
        doc.set("hooks", Json::Object(Vec::new()));
    }
    let hooks = doc.get_mut("hooks").expect("hooks was just ensured");
    if hooks.get(layout.event()).is_none() {
        hooks.set(layout.event(), Json::Array(Vec::new()));
    }
    match hooks.get_mut(layout.event()) {
        Some(Json::Array(items)) => items,
        _ => unreachable!("check_shape guarantees hooks.<event> is an array"),
    }
}

fn handler_mut(items: &mut [Json], layout: Layout, at: Placement) -> Option<&mut Json> {
    let item = items.get_mut(at.group)?;
    match layout.shape {
        Shape::Flat { .. } => Some(item),
        Shape::Grouped { .. } => match item.get_mut("hooks") {
            Some(Json::Array(handlers)) => handlers.get_mut(at.handler),
            _ => None,
        },
    }
}

/// Removes one handler; a group left without handlers goes too. Returns whether it did.
fn remove_at(items: &mut Vec<Json>, layout: Layout, at: Placement) -> bool {
    match layout.shape {
        Shape::Flat { .. } => {
            items.remove(at.group);
            false
        }
        Shape::Grouped { .. } => {
            let emptied = match items.get_mut(at.group).and_then(|g| g.get_mut("hooks")) {
                Some(Json::Array(handlers)) => {
                    handlers.remove(at.handler);
                    handlers.is_empty()
                }
                _ => false,
            };
            if emptied {
                items.remove(at.group);
            }
            emptied
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "'/bin/agent-guard' check --enforce --harness claude-code";

    fn layout() -> Layout {
        Layout::of(Harness::ClaudeCode).unwrap()
    }

    #[test]
    fn insert_is_idempotent_and_keeps_other_hooks() {
        let mut doc = Json::parse(
            r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}]}}"#,
        )
        .unwrap();
        let desired = handler(Harness::ClaudeCode, CMD, true);
        let path = Path::new("settings.json");
        let first = insert(&mut doc, path, layout(), Harness::ClaudeCode, &desired).unwrap();
        let once = doc.clone();
        let second = insert(&mut doc, path, layout(), Harness::ClaudeCode, &desired).unwrap();
        assert_eq!(first, second);
        assert_eq!(
            first,
            Placement {
                group: 1,
                handler: 0
            }
        );
        assert_eq!(doc, once);
        assert_eq!(find(&doc, layout(), Harness::ClaudeCode).len(), 1);

        let removed = remove(&mut doc, layout(), Harness::ClaudeCode);
        assert_eq!(removed.len(), 1);
        assert!(removed[0].group_removed);
        assert_eq!(
            doc,
            Json::parse(
                r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint"}]}]}}"#
            )
            .unwrap()
        );
    }

    #[test]
    fn update_keeps_user_fields_and_drops_duplicates() {
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "{old}", "statusMessage": "guard"}}, {{"type": "command", "command": "{old}"}}]}}]}}}}"#,
            old = "/old/agent-guard check --enforce --harness claude-code"
        );
        let mut doc = Json::parse(&text).unwrap();
        let desired = handler(Harness::ClaudeCode, CMD, false);
        insert(
            &mut doc,
            Path::new("s"),
            layout(),
            Harness::ClaudeCode,
            &desired,
        )
        .unwrap();
        let found = find(&doc, layout(), Harness::ClaudeCode);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.get("command").and_then(Json::as_str), Some(CMD));
        assert_eq!(
            found[0].1.get("statusMessage").and_then(Json::as_str),
            Some("guard")
        );
        // The group held only agent-guard's handler: its matcher now covers the file tools.
        let group = &doc.get("hooks").unwrap().get("PreToolUse").unwrap();
        let Json::Array(groups) = group else {
            panic!("array")
        };
        assert_eq!(
            groups[0].get("matcher").and_then(Json::as_str),
            Some("Bash|Write|Edit|MultiEdit|NotebookEdit")
        );
    }

    #[test]
    fn a_shared_group_keeps_its_matcher() {
        let text = format!(
            r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{{"type": "command", "command": "lint"}}, {{"type": "command", "command": "{CMD}"}}]}}]}}}}"#
        );
        let mut doc = Json::parse(&text).unwrap();
        let desired = handler(Harness::ClaudeCode, CMD, false);
        insert(
            &mut doc,
            Path::new("s"),
            layout(),
            Harness::ClaudeCode,
            &desired,
        )
        .unwrap();
        let Some(Json::Array(groups)) = doc.get("hooks").unwrap().get("PreToolUse") else {
            panic!("array")
        };
        assert_eq!(
            groups[0].get("matcher").and_then(Json::as_str),
            Some("Bash")
        );
    }

    #[test]
    fn unexpected_shapes_are_refused() {
        let mut doc = Json::parse(r#"{"hooks": []}"#).unwrap();
        let desired = handler(Harness::ClaudeCode, CMD, true);
        let error = insert(
            &mut doc,
            Path::new("s"),
            layout(),
            Harness::ClaudeCode,
            &desired,
        );
        assert!(matches!(error, Err(Error::Shape { .. })));
    }

    #[test]
    fn flat_layout_round_trip() {
        let layout = Layout::of(Harness::Cursor).unwrap();
        let command = "'/bin/agent-guard' check --enforce --harness cursor";
        let mut doc =
            Json::parse(r#"{"version": 1, "hooks": {"stop": [{"command": "x"}]}}"#).unwrap();
        let before = doc.clone();
        let desired = handler(Harness::Cursor, command, true);
        insert(&mut doc, Path::new("h"), layout, Harness::Cursor, &desired).unwrap();
        assert_eq!(
            doc.get("hooks")
                .and_then(|h| h.get("beforeShellExecution"))
                .and_then(|e| match e {
                    Json::Array(items) => items.first().and_then(|i| i.get("failClosed")).cloned(),
                    _ => None,
                }),
            Some(Json::Bool(true))
        );
        remove(&mut doc, layout, Harness::Cursor);
        assert_eq!(doc, before);
    }
}

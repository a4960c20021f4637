//! The `PreToolUse` shape shared by Claude Code and Codex (and Copilot's snake-case form):
//! `hook_event_name`, `tool_name`, `tool_input.command`, `cwd`, `session_id`, and the
//! `hookSpecificOutput` reply.

use serde_json::{Map, Value, json};

use crate::edit::{self, EditCall, Shape};
use crate::payload::{self, Field};
use crate::{HookReply, HookRequest, ShellCall};

/// The common fields of a `PreToolUse` payload.
pub(crate) struct ToolUse<'a> {
    /// The whole payload.
    pub map: &'a Map<String, Value>,
    /// `tool_name`.
    pub name: &'a str,
}

/// Reads a payload whose shell tool is `Bash` and whose file-writing tools are `edit_tools`
/// (Claude Code's and Codex's); any other tool is no shell call.
pub(crate) fn parse_bash_or_edit(
    map: &Map<String, Value>,
    edit_tools: &[(&str, Shape)],
) -> Field<HookRequest> {
    let tool = tool_use(map)?;
    if tool.is("bash") {
        return tool.shell(None).map(HookRequest::Shell);
    }
    if let Some(edit) = tool.edit(edit_tools) {
        return edit.map(HookRequest::Edit);
    }
    Ok(HookRequest::NotShell)
}

/// Reads the event and tool name; the event must be `PreToolUse`.
pub(crate) fn tool_use(map: &Map<String, Value>) -> Field<ToolUse<'_>> {
    payload::expect_event(map, "hook_event_name", "hook_event_name", "PreToolUse")?;
    let name = payload::req_str(map, "tool_name", "tool_name")?;
    Ok(ToolUse { map, name })
}

impl ToolUse<'_> {
    /// Whether the tool is named `name`, case-insensitively.
    pub(crate) fn is(&self, name: &str) -> bool {
        self.name.trim().eq_ignore_ascii_case(name)
    }

    /// `tool_input`, which must be an object.
    pub(crate) fn input(&self) -> Field<&Map<String, Value>> {
        payload::req_obj(self.map, "tool_input", "tool_input")
    }

    /// The edit call, when the tool is in `table` (see [`edit::lookup`]): the files of
    /// `tool_input`, `cwd` (else the directory of an absolute file path), `session_id`.
    pub(crate) fn edit(&self, table: &[(&str, Shape)]) -> Option<Field<EditCall>> {
        let shape = edit::lookup(table, self.name)?;
        Some(
            edit::input(self.map, "tool_input", "tool_input").and_then(|input| {
                edit::read(
                    self.name,
                    shape,
                    input,
                    edit::payload_cwd(self.map),
                    payload::session(self.map, &["session_id"]),
                )
            }),
        )
    }

    /// The shell call: `tool_input.command`, `cwd`, a dialect field of the payload or of
    /// `tool_input` (else `default_dialect`), and `session_id`.
    pub(crate) fn shell(&self, default_dialect: Option<&str>) -> Field<ShellCall> {
        let input = self.input()?;
        let command = payload::command(input, "command", "tool_input.command")?;
        let cwd = payload::cwd(payload::opt_str(self.map, "cwd", "cwd")?, "cwd", None)?;
        Ok(ShellCall {
            command,
            cwd,
            dialect: payload::dialect(&[self.map, input])
                .or_else(|| default_dialect.map(str::to_owned)),
            session: payload::session(self.map, &["session_id"]),
            input: input.clone(),
        })
    }
}

/// A `hookSpecificOutput` reply for the `PreToolUse` event.
pub(crate) fn reply(
    decision: Option<&str>,
    reason: Option<String>,
    context: Option<String>,
    updated_input: Option<&Map<String, Value>>,
) -> Value {
    let mut out = Map::new();
    out.insert("hookEventName".into(), json!("PreToolUse"));
    if let Some(decision) = decision {
        out.insert("permissionDecision".into(), json!(decision));
    }
    if let Some(reason) = reason {
        out.insert("permissionDecisionReason".into(), json!(reason));
    }
    if let Some(context) = context {
        out.insert("additionalContext".into(), json!(context));
    }
    if let Some(input) = updated_input {
        out.insert("updatedInput".into(), Value::Object(input.clone()));
    }
    json!({ "hookSpecificOutput": out })
}

/// A `deny` with `reason`, in the reply and on stderr.
pub(crate) fn deny(reason: String) -> HookReply {
    HookReply::json(&reply(Some("deny"), Some(reason.clone()), None, None)).with_stderr(reason)
}

/// Exit 2 with `reason` on stderr: the block every `PreToolUse` harness of this shape honours
/// (stdout is ignored).
pub(crate) fn exit_2(reason: String) -> HookReply {
    HookReply {
        stdout: None,
        stderr: Some(reason),
        exit: 2,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Malformed;
    use crate::test_support::map;

    #[test]
    fn event_and_tool_are_required() {
        let wrong = map(json!({"hook_event_name": "PostToolUse", "tool_name": "Bash"}));
        assert!(matches!(
            tool_use(&wrong),
            Err(Malformed::UnexpectedEvent { .. })
        ));
        let nameless = map(json!({"hook_event_name": "PreToolUse", "tool_name": ""}));
        assert!(matches!(tool_use(&nameless), Err(Malformed::Blank(_))));
    }

    #[test]
    fn shell_reads_command_cwd_dialect_and_session() {
        let m = map(json!({
            "hook_event_name": "PreToolUse", "tool_name": "bash", "cwd": "/w",
            "session_id": "s1", "tool_input": {"command": "ls", "shell_dialect": "pwsh"}
        }));
        let call = tool_use(&m).unwrap().shell(None).unwrap();
        assert_eq!(call.command, "ls");
        assert_eq!(call.cwd, std::path::PathBuf::from("/w"));
        assert_eq!(call.dialect.as_deref(), Some("pwsh"));
        assert_eq!(call.session.as_deref(), Some("s1"));
    }

    #[test]
    fn reply_omits_absent_fields() {
        let value = reply(Some("deny"), Some("no".into()), None, None);
        assert_eq!(
            value,
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        );
    }
}

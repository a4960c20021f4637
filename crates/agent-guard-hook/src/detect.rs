//! Guessing the harness from a payload's shape (`--harness auto`).
//!
//! A convenience only: an explicit `--harness NAME` always wins. Where two shapes are close,
//! the guess falls on the harness whose replies are the stricter superset: a `PreToolUse`
//! payload without Claude's `toolu_` id is taken for Codex, whose deny (exit 2 with stderr)
//! also blocks in Claude Code and whose ask is a deny.

use serde_json::Value;

use crate::{Harness, qwen};

/// The harness whose payload `bytes` looks like, or `None` when the shape is unknown (or the
/// bytes are not a JSON object).
pub fn detect(bytes: &[u8]) -> Option<Harness> {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(bytes) else {
        return None;
    };
    let has = |key: &str| map.get(key).is_some_and(|v| !v.is_null());
    let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or_default();
    if has("agent_action_name") {
        return Some(Harness::Windsurf);
    }
    if has("preToolUse") || has("clineVersion") || has("hookName") {
        return Some(Harness::Cline);
    }
    if has("toolName") || has("toolArgs") {
        return Some(Harness::Copilot);
    }
    if has("conversation_id") || has("cursor_version") || has("workspace_roots") {
        return Some(Harness::Cursor);
    }
    match text("hook_event_name") {
        "BeforeTool" => Some(Harness::Gemini),
        "tool.execute.before" => Some(Harness::OpenCode),
        // Qwen Code: Claude Code's shape with Gemini CLI's tool names (and its own call id).
        "PreToolUse" if has("tool_call_id") || text("tool_name") == qwen::SHELL_TOOL => {
            Some(Harness::QwenCode)
        }
        "PreToolUse" if has("turn_id") || has("model") => Some(Harness::Codex),
        "PreToolUse" if text("tool_use_id").starts_with("toolu_") => Some(Harness::ClaudeCode),
        "PreToolUse" if has("timestamp") && !has("tool_use_id") => Some(Harness::Copilot),
        "PreToolUse" => Some(Harness::Codex),
        "" if has("command") || has("files") => Some(Harness::Generic),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn guess(value: &Value) -> Option<Harness> {
        detect(value.to_string().as_bytes())
    }

    #[test]
    fn each_documented_shape_is_recognised() {
        let cases = [
            (
                json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "a",
                       "transcript_path": "/t", "tool_use_id": "toolu_01"}),
                Harness::ClaudeCode,
            ),
            (
                json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "turn_id": "t",
                       "model": "gpt-5-codex", "tool_use_id": "call_1"}),
                Harness::Codex,
            ),
            (
                json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}),
                Harness::Gemini,
            ),
            (
                json!({"toolName": "bash", "toolArgs": "{}"}),
                Harness::Copilot,
            ),
            (
                json!({"hook_event_name": "PreToolUse", "timestamp": "2026-11-30T10:00:00Z",
                       "tool_name": "bash"}),
                Harness::Copilot,
            ),
            (
                json!({"hook_event_name": "beforeShellExecution", "conversation_id": "c"}),
                Harness::Cursor,
            ),
            (
                json!({"hookName": "PreToolUse", "preToolUse": {}}),
                Harness::Cline,
            ),
            (
                json!({"agent_action_name": "pre_run_command"}),
                Harness::Windsurf,
            ),
            (
                json!({"hook_event_name": "PreToolUse", "tool_name": "run_shell_command",
                       "tool_use_id": "toolu_1796124619004_pwornfj5o",
                       "tool_call_id": "call_mock_01"}),
                Harness::QwenCode,
            ),
            (
                json!({"hook_event_name": "tool.execute.before", "tool": "bash"}),
                Harness::OpenCode,
            ),
            (json!({"command": "ls", "cwd": "/w"}), Harness::Generic),
        ];
        for (payload, harness) in cases {
            assert_eq!(guess(&payload), Some(harness), "{payload}");
        }
    }

    #[test]
    fn unknown_shapes_and_non_objects_are_not_guessed() {
        assert_eq!(guess(&json!({"x": 1})), None);
        assert_eq!(guess(&json!([1])), None);
        assert_eq!(detect(b"not json"), None);
        // Ambiguous PreToolUse: the stricter protocol.
        assert_eq!(
            guess(&json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"})),
            Some(Harness::Codex)
        );
    }
}

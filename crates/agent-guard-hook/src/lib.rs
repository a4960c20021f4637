//! Harness hook protocols: parse a pre-tool payload, render the harness's own reply.
//!
//! Agent harnesses (Claude Code, Codex, Gemini CLI, Copilot CLI, Cursor, Cline, Windsurf, Qwen
//! Code, and `OpenCode` through agent-guard's plugin) call a pre-tool hook with their own JSON on stdin and read their own reply format. This crate
//! sits between the CLI's hook mode and those harnesses:
//!
//! ```text
//! stdin bytes → parse → HookRequest → (cli: engine check --enforce) → Outcome → render → HookReply
//! ```
//!
//! It is **pure**: it never decides (the engine does) and never does I/O (the CLI reads stdin,
//! writes the reply and exits with its code). Every reply it renders for a deny is one the
//! harness honours as a block; in particular most harnesses run the command anyway when a
//! hook exits 1, so no reply ever uses exit 1.
//!
//! ```
//! use agent_guard_hook::{Harness, HookRequest, Outcome, parse, render};
//!
//! let payload = br#"{"hook_event_name": "PreToolUse", "tool_name": "Read", "cwd": "/w",
//!                    "tool_input": {"file_path": "/w/a"}}"#;
//! let harness = Harness::parse_name("claude-code").unwrap();
//! assert_eq!(parse(harness, payload), HookRequest::NotShell);
//!
//! let write = br#"{"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": "/w",
//!                  "tool_input": {"file_path": "/w/a", "content": "x"}}"#;
//! let HookRequest::Edit(call) = parse(harness, write) else { panic!() };
//! assert_eq!((call.tool.as_str(), call.files[0].path.as_str()), ("Write", "/w/a"));
//!
//! let reply = render(harness, &Outcome::pass());
//! assert_eq!((reply.stdout, reply.exit), (None, 0));
//! ```

#![warn(missing_docs)]

mod claude;
mod cline;
mod codex;
mod copilot;
mod cursor;
mod detect;
mod edit;
mod gemini;
mod generic;
mod opencode;
mod outcome;
mod payload;
mod qwen;
#[cfg(test)]
mod test_support;
mod tool_use;
mod windsurf;

use std::path::PathBuf;

pub use agent_guard_types::Harness;
pub use detect::detect;
pub use edit::EditCall;
pub use outcome::{Outcome, Refusal, Subject};
pub use payload::{MAX_PAYLOAD_BYTES, Malformed};

/// A shell command a harness is about to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCall {
    /// The command line, verbatim.
    pub command: String,
    /// The absolute directory it runs in, from the payload.
    pub cwd: PathBuf,
    /// The dialect selector from the payload (a dialect field or a PowerShell tool), if any.
    pub dialect: Option<String>,
    /// The harness's session id, if any.
    pub session: Option<String>,
    /// The tool's argument object as sent (with `command`), for harnesses that accept a
    /// rewritten input; empty for the others.
    pub input: serde_json::Map<String, serde_json::Value>,
}

/// What a payload asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookRequest {
    /// A shell command to judge.
    Shell(ShellCall),
    /// A file-writing tool call (`Write`, `Edit`, `apply_patch`, `write_file`, …) to judge:
    /// what it replaces is preserved first.
    Edit(EditCall),
    /// A tool call that neither runs a shell command nor writes files: proceed silently.
    NotShell,
    /// The payload cannot be read: deny.
    Malformed(Malformed),
}

/// The reply to write back: stdout, stderr and the process exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReply {
    /// What to print on stdout, if anything (the CLI adds the final newline).
    pub stdout: Option<String>,
    /// What to print on stderr, if anything (the CLI adds the final newline).
    pub stderr: Option<String>,
    /// The exit code: 0, 2 or 3, never 1.
    pub exit: u8,
}

impl HookReply {
    /// Exit 0 with nothing printed.
    pub(crate) const fn silent() -> HookReply {
        HookReply {
            stdout: None,
            stderr: None,
            exit: 0,
        }
    }

    /// Exit 0 with `value` as one JSON line on stdout.
    pub(crate) fn json(value: &serde_json::Value) -> HookReply {
        HookReply {
            stdout: Some(value.to_string()),
            stderr: None,
            exit: 0,
        }
    }

    /// Adds a line on stderr.
    #[must_use]
    pub(crate) fn with_stderr(mut self, text: String) -> HookReply {
        self.stderr = Some(text);
        self
    }
}

/// Parses `bytes` (the hook's whole stdin) as `harness`'s pre-tool payload.
///
/// Payloads larger than [`MAX_PAYLOAD_BYTES`], empty, not JSON, not an object, for another
/// event, without a usable command or absolute working directory, or a known file-writing
/// tool whose target path cannot be read are [`HookRequest::Malformed`].
pub fn parse(harness: Harness, bytes: &[u8]) -> HookRequest {
    let map = match payload::object(bytes) {
        Ok(map) => map,
        Err(why) => return HookRequest::Malformed(why),
    };
    let parsed = match harness {
        Harness::ClaudeCode => claude::parse(&map),
        Harness::Codex => codex::parse(&map),
        Harness::Gemini => gemini::parse(&map),
        Harness::Copilot => copilot::parse(&map),
        Harness::Cursor => cursor::parse(&map),
        Harness::Cline => cline::parse(&map),
        Harness::Windsurf => windsurf::parse(&map),
        Harness::QwenCode => qwen::parse(&map),
        Harness::OpenCode => opencode::parse(&map),
        Harness::Generic => generic::parse(&map),
    };
    parsed.unwrap_or_else(HookRequest::Malformed)
}

/// Renders `outcome` in the form `harness` honours for deny, ask and allow.
pub fn render(harness: Harness, outcome: &Outcome) -> HookReply {
    match harness {
        Harness::ClaudeCode => claude::render(outcome),
        Harness::Codex => codex::render(outcome),
        Harness::Gemini => gemini::render(outcome),
        Harness::Copilot => copilot::render(outcome),
        Harness::Cursor => cursor::render(outcome),
        Harness::Cline => cline::render(outcome),
        Harness::Windsurf => windsurf::render(outcome),
        Harness::QwenCode => qwen::render(outcome),
        Harness::OpenCode => opencode::render(outcome),
        Harness::Generic => generic::render(outcome),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{malformed, shell};

    #[test]
    fn the_five_malformed_kinds_are_malformed_for_every_harness() {
        let cases: [(&[u8], &str); 5] = [
            (b"", "empty"),
            (b"{not json", "invalid JSON"),
            (b"[1, 2]", "not an object"),
            (b"{\"x\": 1}", "missing command"),
            (b"\"rm -rf /\"", "a bare string"),
        ];
        for harness in Harness::ALL {
            for (bytes, what) in cases {
                assert!(malformed(harness, bytes), "{harness}: {what}");
            }
        }
    }

    /// A shell payload of `harness`, with `command` as the command value (absent if `None`).
    fn shell_payload(harness: Harness, command: Option<&serde_json::Value>) -> Vec<u8> {
        use serde_json::json;
        let mut value = match harness {
            Harness::ClaudeCode | Harness::Codex => json!({"hook_event_name": "PreToolUse",
                "tool_name": "Bash", "cwd": "/w", "tool_input": {}}),
            Harness::Gemini => json!({"hook_event_name": "BeforeTool",
                "tool_name": "run_shell_command", "cwd": "/w", "tool_input": {}}),
            Harness::Copilot => json!({"toolName": "bash", "cwd": "/w", "toolArgs": {}}),
            Harness::Cursor => json!({"hook_event_name": "beforeShellExecution", "cwd": "/w"}),
            Harness::Cline => json!({"hookName": "PreToolUse", "workspaceRoots": ["/w"],
                "preToolUse": {"toolName": "execute_command", "parameters": {}}}),
            Harness::Windsurf => json!({"agent_action_name": "pre_run_command",
                "tool_info": {"cwd": "/w"}}),
            Harness::QwenCode => json!({"hook_event_name": "PreToolUse",
                "tool_name": "run_shell_command", "cwd": "/w", "tool_input": {}}),
            Harness::OpenCode => json!({"hook_event_name": "tool.execute.before",
                "tool": "bash", "directory": "/w", "args": {}}),
            Harness::Generic => json!({"cwd": "/w"}),
        };
        if let Some(command) = command {
            let slot = match harness {
                Harness::ClaudeCode | Harness::Codex | Harness::Gemini | Harness::QwenCode => {
                    &mut value["tool_input"]["command"]
                }
                Harness::OpenCode => &mut value["args"]["command"],
                Harness::Copilot => &mut value["toolArgs"]["command"],
                Harness::Cline => &mut value["preToolUse"]["parameters"]["command"],
                Harness::Windsurf => &mut value["tool_info"]["command_line"],
                Harness::Cursor | Harness::Generic => &mut value["command"],
            };
            *slot = command.clone();
        }
        value.to_string().into_bytes()
    }

    #[test]
    fn command_must_be_a_present_non_blank_string() {
        use serde_json::json;
        for harness in Harness::ALL {
            let ok = parse(harness, &shell_payload(harness, Some(&json!("ls -la"))));
            let HookRequest::Shell(call) = ok else {
                panic!("{harness}: {ok:?}")
            };
            assert_eq!(
                (call.command.as_str(), call.cwd.to_str()),
                ("ls -la", Some("/w"))
            );
            assert!(
                matches!(
                    parse(harness, &shell_payload(harness, None)),
                    HookRequest::Malformed(Malformed::Missing(_))
                ),
                "{harness}: missing"
            );
            for bad in [json!(42), json!(["rm", "-rf", "/"]), json!({"a": 1})] {
                assert!(
                    matches!(
                        parse(harness, &shell_payload(harness, Some(&bad))),
                        HookRequest::Malformed(Malformed::WrongType { .. })
                    ),
                    "{harness}: {bad}"
                );
            }
            assert!(
                matches!(
                    parse(harness, &shell_payload(harness, Some(&json!("  ")))),
                    HookRequest::Malformed(Malformed::Blank(_))
                ),
                "{harness}: blank"
            );
        }
    }

    #[test]
    fn a_rewrite_is_rendered_only_on_a_compensated_allow_where_supported() {
        use agent_guard_types::{Decision, ReasonCode};
        use serde_json::{Value, json};
        let bytes = shell_payload(Harness::ClaudeCode, Some(&json!("rm -r build")));
        let call = shell(Harness::ClaudeCode, &bytes);
        let done = Outcome::verdict(Decision::Allow, ReasonCode::RelocateTree, "Moved.")
            .with_txids(vec!["t1".into()])
            .with_rewrite(&call, "echo moved".into());
        let out = |harness| -> Value {
            serde_json::from_str(render(harness, &done).stdout.as_deref().unwrap()).unwrap()
        };
        let claude = out(Harness::ClaudeCode);
        assert_eq!(
            claude["hookSpecificOutput"]["updatedInput"]["command"],
            "echo moved"
        );
        let codex = out(Harness::Codex);
        assert_eq!(codex["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(
            codex["hookSpecificOutput"]["updatedInput"]["command"],
            "echo moved"
        );
        let gemini = out(Harness::Gemini);
        assert_eq!(
            gemini["hookSpecificOutput"]["tool_input"]["command"],
            "echo moved"
        );
        assert_eq!(
            out(Harness::Copilot)["modifiedArgs"]["command"],
            "echo moved"
        );
        assert_eq!(out(Harness::OpenCode)["args"]["command"], "echo moved");
        // Qwen Code's `PreToolUse` has no rewrite: none is sent.
        assert!(!out(Harness::QwenCode).to_string().contains("echo moved"));
        assert!(
            out(Harness::ClaudeCode)["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .contains("replaced by an `echo`")
        );

        let mut refused = done.clone();
        refused.decision = Decision::Block;
        let reply = render(Harness::ClaudeCode, &refused);
        assert!(!reply.stdout.unwrap().contains("updatedInput"));
    }

    #[test]
    fn no_reply_exits_1() {
        let outcomes = [
            Outcome::pass(),
            Outcome::refused(Refusal::Panic),
            Outcome::verdict(
                agent_guard_types::Decision::Ask,
                agent_guard_types::ReasonCode::CompoundCwdDelete,
                "x",
            ),
            Outcome::verdict(
                agent_guard_types::Decision::Allow,
                agent_guard_types::ReasonCode::RelocateTree,
                "x",
            )
            .with_txids(vec!["t".into()]),
        ];
        for harness in Harness::ALL {
            for outcome in &outcomes {
                let reply = render(harness, outcome);
                assert!(matches!(reply.exit, 0 | 2 | 3), "{harness}: {reply:?}");
            }
        }
    }
}

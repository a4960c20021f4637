//! The agent harnesses agent-guard speaks to: one list, shared by the hook protocols and
//! the installer. Not `non_exhaustive`: every `match` over it in the workspace must be
//! revisited when a harness is added.

use serde::Serialize;

/// An agent harness whose pre-tool hook calls `agent-guard check --enforce --harness <name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Harness {
    /// Claude Code by Anthropic (`PreToolUse`, matcher `Bash` and its file tools).
    ClaudeCode,
    /// The Codex CLI by `OpenAI` (`PreToolUse`, matcher `Bash|apply_patch`).
    Codex,
    /// Gemini CLI by Google (`BeforeTool`, matcher `run_shell_command` and its file tools).
    Gemini,
    /// GitHub Copilot CLI (`preToolUse`).
    Copilot,
    /// Cursor (`beforeShellExecution`).
    Cursor,
    /// Cline (a `PreToolUse` hook script).
    Cline,
    /// Windsurf Cascade (`pre_run_command`).
    Windsurf,
    /// Qwen Code, a Gemini CLI fork (`PreToolUse`, matcher `run_shell_command` and its file
    /// tools).
    QwenCode,
    /// `OpenCode` (a plugin's `tool.execute.before` hands the call to the hook).
    #[serde(rename = "opencode")]
    OpenCode,
    /// Any other harness: `{"command", "cwd", "dialect"?}` in, the engine's report out
    /// (exit 0/2/3); no config file, it calls the hook itself.
    Generic,
}

impl Harness {
    /// Every harness, in documentation order.
    pub const ALL: [Harness; 10] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
        Harness::Cursor,
        Harness::Cline,
        Harness::Windsurf,
        Harness::QwenCode,
        Harness::OpenCode,
        Harness::Generic,
    ];

    /// The stable name used with `--harness` and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
            Harness::Cursor => "cursor",
            Harness::Cline => "cline",
            Harness::Windsurf => "windsurf",
            Harness::QwenCode => "qwen-code",
            Harness::OpenCode => "opencode",
            Harness::Generic => "generic",
        }
    }

    /// Parses a stable name (case-insensitive, surrounding blanks ignored); `None` for
    /// anything else, including `auto`.
    pub fn parse_name(name: &str) -> Option<Harness> {
        let name = name.trim();
        Harness::ALL
            .into_iter()
            .find(|h| h.name().eq_ignore_ascii_case(name))
            .or_else(|| {
                Harness::ALIASES
                    .into_iter()
                    .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
                    .map(|(_, harness)| harness)
            })
    }

    /// Other names people call a harness by (`qwen` for Qwen Code), accepted wherever a
    /// stable name is; the stable name is what is written and shown.
    pub const ALIASES: [(&'static str, Harness); 1] = [("qwen", Harness::QwenCode)];

    /// Whether the harness can put a question to the user itself (native `ask`).
    ///
    /// Copilot CLI and Qwen Code turn an ask into a deny when nobody can answer (`-p`).
    pub const fn can_ask(self) -> bool {
        matches!(
            self,
            Harness::ClaudeCode
                | Harness::Copilot
                | Harness::Cursor
                | Harness::QwenCode
                | Harness::Generic
        )
    }

    /// Whether `install` can write this harness's configuration (every harness but
    /// `generic`).
    pub const fn installable(self) -> bool {
        !matches!(self, Harness::Generic)
    }
}

impl std::fmt::Display for Harness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for harness in Harness::ALL {
            assert_eq!(Harness::parse_name(harness.name()), Some(harness));
            assert_eq!(Harness::parse_name("qwen"), Some(Harness::QwenCode));
            assert_eq!(Harness::parse_name(" QWEN "), Some(Harness::QwenCode));
            assert_eq!(harness.to_string(), harness.name());
            assert_eq!(
                serde_json::to_value(harness).unwrap(),
                serde_json::json!(harness.name())
            );
        }
        assert_eq!(
            Harness::parse_name(" Claude-Code "),
            Some(Harness::ClaudeCode)
        );
        assert_eq!(Harness::parse_name("auto"), None);
        assert_eq!(Harness::parse_name("claude"), None);
        assert_eq!(Harness::parse_name("Qwen-Code"), Some(Harness::QwenCode));
        assert_eq!(Harness::parse_name("opencode"), Some(Harness::OpenCode));
        assert_eq!(Harness::parse_name("vim"), None);
        assert!(!Harness::Generic.installable());
        assert!(Harness::ALL.iter().filter(|h| !h.installable()).count() == 1);
    }
}

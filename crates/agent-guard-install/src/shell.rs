//! The hook command line: building it, and recognising one agent-guard wrote.

use std::path::Path;

use crate::harness::Harness;

/// Quotes `word` for a POSIX shell (single quotes; an embedded `'` becomes `'\''`).
pub(crate) fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The hook command for `harness`: `'<exe>' check --enforce --harness <name>`.
pub(crate) fn hook_command(exe: &Path, harness: Harness) -> String {
    format!(
        "{} check --enforce --harness {}",
        quote(&exe.to_string_lossy()),
        harness.name()
    )
}

/// Splits a command line into words; `None` if the quoting is broken.
pub(crate) fn split(command: &str) -> Option<Vec<String>> {
    shell_words::split(command).ok()
}

/// Whether `command` is an agent-guard hook command for `harness`: a program named
/// `agent-guard…` followed by exactly `check --enforce --harness <name>`.
pub(crate) fn is_ours(command: &str, harness: Harness) -> bool {
    let Some(words) = split(command) else {
        return false;
    };
    let [program, rest @ ..] = words.as_slice() else {
        return false;
    };
    let named_agent_guard = Path::new(program)
        .file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with("agent-guard"));
    named_agent_guard && rest == ["check", "--enforce", "--harness", harness.name()]
}

/// Whether any word of `command` names an `agent-guard…` program (also through a wrapper
/// such as `sh -c '…'` or `env X=1 agent-guard …`).
pub(crate) fn mentions_agent_guard(command: &str) -> bool {
    let words = split(command).unwrap_or_else(|| vec![command.to_owned()]);
    words.iter().flat_map(|w| w.split_whitespace()).any(|word| {
        Path::new(word)
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with("agent-guard"))
    })
}

/// The program (first word) of a command line, unquoted.
pub(crate) fn program(command: &str) -> Option<String> {
    split(command)?.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_a_split() {
        let exe = Path::new("/opt/it's here/agent-guard");
        let command = hook_command(exe, Harness::Codex);
        assert_eq!(
            command,
            r"'/opt/it'\''s here/agent-guard' check --enforce --harness codex"
        );
        assert_eq!(
            program(&command).as_deref(),
            Some("/opt/it's here/agent-guard")
        );
        assert!(is_ours(&command, Harness::Codex));
        assert!(!is_ours(&command, Harness::Cursor));
    }

    #[test]
    fn other_commands_are_not_ours() {
        assert!(!is_ours(
            "my-guard check --enforce --harness codex",
            Harness::Codex
        ));
        assert!(!is_ours(
            "agent-guard check --enforce --harness codex --json",
            Harness::Codex
        ));
        assert!(!is_ours("'unterminated", Harness::Codex));
        assert!(mentions_agent_guard(
            "agent-guard check --enfroce --harness codex"
        ));
        assert!(mentions_agent_guard(
            "sh -c '/opt/agent-guard check --enforce'"
        ));
        assert!(!mentions_agent_guard("my-guard check"));
        assert!(is_ours(
            "agent-guard check --enforce --harness codex",
            Harness::Codex
        ));
    }
}

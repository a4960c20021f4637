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

/// The file name of the hook launcher `install` writes ([`crate::launcher`]).
pub(crate) const LAUNCHER_NAME: &str = "agent-guard-hook";

/// The hook command for `harness` through the launcher at `launcher`:
/// `'<launcher>' --timeout <secs> '<exe>' check --enforce --harness <name>`.
pub(crate) fn launched_command(
    launcher: &Path,
    timeout_secs: u64,
    exe: &Path,
    harness: Harness,
) -> String {
    format!(
        "{} --timeout {timeout_secs} {}",
        quote(&launcher.to_string_lossy()),
        hook_command(exe, harness)
    )
}

/// An agent-guard hook command line, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HookLine {
    /// The guard binary the hook runs.
    pub(crate) guard: String,
    /// The launcher it runs the guard through, and the launcher's timeout in seconds.
    pub(crate) launcher: Option<(String, u64)>,
}

/// Reads an agent-guard hook command for `harness`: a program named `agent-guard…` followed
/// by exactly `check --enforce --harness <name>`, run directly or through the launcher
/// (`agent-guard-hook --timeout <secs> <program> check …`). `None` for anything else.
pub(crate) fn parse(command: &str, harness: Harness) -> Option<HookLine> {
    let words = split(command)?;
    let (launcher, rest) = match words.as_slice() {
        [launcher, flag, secs, rest @ ..]
            if file_name(launcher) == Some(LAUNCHER_NAME) && flag == "--timeout" =>
        {
            (Some((launcher.clone(), secs.parse().ok()?)), rest)
        }
        rest => (None, rest),
    };
    let [program, args @ ..] = rest else {
        return None;
    };
    let named_agent_guard = file_name(program).is_some_and(|name| name.starts_with("agent-guard"));
    (named_agent_guard && args == ["check", "--enforce", "--harness", harness.name()]).then(|| {
        HookLine {
            guard: program.clone(),
            launcher,
        }
    })
}

/// Whether `command` is an agent-guard hook command for `harness` ([`parse`]).
pub(crate) fn is_ours(command: &str, harness: Harness) -> bool {
    parse(command, harness).is_some()
}

/// The guard program a command line runs: the word after the launcher's options when it
/// starts with the launcher, else its first word.
pub(crate) fn guard_program(command: &str) -> Option<String> {
    let words = split(command)?;
    match words.as_slice() {
        [launcher, flag, _, program, ..]
            if file_name(launcher) == Some(LAUNCHER_NAME) && flag == "--timeout" =>
        {
            Some(program.clone())
        }
        _ => words.into_iter().next(),
    }
}

fn file_name(word: &str) -> Option<&str> {
    Path::new(word).file_name().and_then(|name| name.to_str())
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
            guard_program(&command).as_deref(),
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

    #[test]
    fn launched_commands_name_the_launcher_and_the_guard() {
        let launcher = Path::new("/s/agent-guard/bin/agent-guard-hook");
        let exe = Path::new("/opt/it's here/agent-guard");
        let command = launched_command(launcher, 25, exe, Harness::QwenCode);
        assert_eq!(
            command,
            r"'/s/agent-guard/bin/agent-guard-hook' --timeout 25 '/opt/it'\''s here/agent-guard' check --enforce --harness qwen-code"
        );
        assert_eq!(
            parse(&command, Harness::QwenCode),
            Some(HookLine {
                guard: "/opt/it's here/agent-guard".to_owned(),
                launcher: Some((launcher.display().to_string(), 25)),
            })
        );
        assert_eq!(
            guard_program(&command).as_deref(),
            Some("/opt/it's here/agent-guard")
        );
        assert!(!is_ours(&command, Harness::Gemini));
        // Another launcher name, a missing or bad timeout, another program: not ours.
        for other in [
            "'/s/my-hook' --timeout 25 '/opt/agent-guard' check --enforce --harness qwen-code",
            "'/s/agent-guard-hook' '/opt/agent-guard' check --enforce --harness qwen-code",
            "'/s/agent-guard-hook' --timeout x '/opt/agent-guard' check --enforce --harness qwen-code",
            "'/s/agent-guard-hook' --timeout 25 '/opt/guard' check --enforce --harness qwen-code",
        ] {
            assert!(!is_ours(other, Harness::QwenCode), "{other}");
            assert!(mentions_agent_guard(other), "{other}");
        }
        assert_eq!(
            parse(
                "'/opt/agent-guard' check --enforce --harness cline",
                Harness::Cline
            )
            .map(|line| line.launcher),
            Some(None)
        );
    }
}

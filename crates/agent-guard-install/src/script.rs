//! Cline's hook: an executable file named after the event (`PreToolUse`).

use crate::harness::Harness;
use crate::shell;

/// The first line after the shebang, by which agent-guard recognises its own script.
const MARKER: &str = "# agent-guard hook for Cline";

/// The `PreToolUse` script that hands Cline's payload to `command`.
pub(crate) fn cline(command: &str) -> Vec<u8> {
    format!(
        "#!/bin/sh\n{MARKER} (written by `agent-guard install cline`; remove with `agent-guard uninstall cline`)\nexec {command}\n"
    )
    .into_bytes()
}

/// Whether `bytes` is a script agent-guard wrote.
pub(crate) fn is_ours(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .lines()
        .nth(1)
        .is_some_and(|line| line.starts_with(MARKER))
}

/// Whether `bytes` is exactly a script agent-guard writes (for some binary path): only
/// such a script is removed by uninstall; one the user edited stays.
pub(crate) fn is_pristine(bytes: &[u8]) -> bool {
    command(bytes).is_some_and(|command| cline(&command) == bytes)
}

/// The hook command a script of ours runs (its `exec` line), if it is one of ours.
pub(crate) fn command(bytes: &[u8]) -> Option<String> {
    if !is_ours(bytes) {
        return None;
    }
    String::from_utf8_lossy(bytes)
        .lines()
        .find_map(|line| line.strip_prefix("exec "))
        .map(str::to_owned)
        .filter(|command| shell::is_ours(command, Harness::Cline))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_recognised() {
        let command = "'/bin/agent-guard' check --enforce --harness cline";
        let script = cline(command);
        assert!(script.starts_with(b"#!/bin/sh\n"));
        assert!(is_ours(&script));
        assert_eq!(super::command(&script).as_deref(), Some(command));
        assert!(!is_ours(b"#!/bin/sh\necho mine\n"));
        assert!(is_pristine(&script));
        let mut edited = script.clone();
        edited.extend_from_slice(b"echo mine\n");
        assert!(is_ours(&edited) && !is_pristine(&edited));
    }
}

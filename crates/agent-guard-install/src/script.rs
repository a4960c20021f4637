//! The hook files that are programs of their own rather than entries in a JSON config:
//! Cline's `PreToolUse` script and `OpenCode`'s plugin.
//!
//! Each carries a marker line by which agent-guard recognises its own file, and the hook
//! command, from which doctor and uninstall read it back.

use crate::entry::TIMEOUT_SECS;
use crate::harness::Harness;
use crate::shell;

/// The line after the shebang by which agent-guard recognises its Cline script.
const CLINE_MARKER: &str = "# agent-guard hook for Cline";
/// The first line by which agent-guard recognises its `OpenCode` plugin.
const OPENCODE_MARKER: &str = "// agent-guard plugin for OpenCode";
/// The `OpenCode` plugin, with `{{GUARD}}` (the argv, as JSON) and `{{TIMEOUT_MS}}` to fill.
const OPENCODE_PLUGIN: &str = include_str!("opencode-plugin.js");
/// The start of the plugin line that holds the hook's argv.
const GUARD_LINE: &str = "const GUARD = ";

/// The file `install` writes for `harness` (Cline or `OpenCode`) to run `command`.
pub(crate) fn render(harness: Harness, command: &str) -> Vec<u8> {
    if harness == Harness::OpenCode {
        let argv = shell::split(command).unwrap_or_default();
        let argv = serde_json::to_string(&argv).unwrap_or_else(|_| "[]".to_owned());
        return OPENCODE_PLUGIN
            .replace("{{GUARD}}", &argv)
            .replace("{{TIMEOUT_MS}}", &(TIMEOUT_SECS * 1000).to_string())
            .into_bytes();
    }
    format!(
        "#!/bin/sh\n{CLINE_MARKER} (written by `agent-guard install cline`; remove with `agent-guard uninstall cline`)\nexec {command}\n"
    )
    .into_bytes()
}

/// The permission bits of the file: Cline runs its script, `OpenCode` imports its plugin.
pub(crate) const fn mode(harness: Harness) -> u32 {
    match harness {
        Harness::OpenCode => 0o644,
        _ => 0o755,
    }
}

/// Whether `bytes` is a file agent-guard wrote for `harness`.
pub(crate) fn is_ours(harness: Harness, bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.lines();
    match harness {
        Harness::OpenCode => lines.next().is_some_and(|l| l.starts_with(OPENCODE_MARKER)),
        _ => lines.nth(1).is_some_and(|l| l.starts_with(CLINE_MARKER)),
    }
}

/// Whether `bytes` is exactly a file agent-guard writes (for some binary path): only such a
/// file is removed by uninstall; one the user edited stays.
pub(crate) fn is_pristine(harness: Harness, bytes: &[u8]) -> bool {
    command(harness, bytes).is_some_and(|command| render(harness, &command) == bytes)
}

/// The hook command a file of ours runs, if it is one of ours.
pub(crate) fn command(harness: Harness, bytes: &[u8]) -> Option<String> {
    if !is_ours(harness, bytes) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    let command = if harness == Harness::OpenCode {
        let argv = text
            .lines()
            .find_map(|line| line.strip_prefix(GUARD_LINE))?
            .strip_suffix(';')?;
        let argv: Vec<String> = serde_json::from_str(argv).ok()?;
        let (program, rest) = argv.split_first()?;
        format!("{} {}", shell::quote(program), rest.join(" "))
    } else {
        text.lines()
            .find_map(|line| line.strip_prefix("exec "))?
            .to_owned()
    };
    shell::is_ours(&command, harness).then_some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cline_scripts_are_recognised() {
        let command = "'/bin/agent-guard' check --enforce --harness cline";
        let script = render(Harness::Cline, command);
        assert!(script.starts_with(b"#!/bin/sh\n"));
        assert!(is_ours(Harness::Cline, &script));
        assert_eq!(
            super::command(Harness::Cline, &script).as_deref(),
            Some(command)
        );
        assert!(!is_ours(Harness::Cline, b"#!/bin/sh\necho mine\n"));
        assert!(is_pristine(Harness::Cline, &script));
        let mut edited = script.clone();
        edited.extend_from_slice(b"echo mine\n");
        assert!(is_ours(Harness::Cline, &edited) && !is_pristine(Harness::Cline, &edited));
    }

    #[test]
    fn opencode_plugins_round_trip_the_command() {
        let command = r"'/opt/it'\''s here/agent-guard' check --enforce --harness opencode";
        let plugin = render(Harness::OpenCode, command);
        let text = String::from_utf8(plugin.clone()).unwrap();
        assert!(text.contains(
            r#"const GUARD = ["/opt/it's here/agent-guard","check","--enforce","--harness","opencode"];"#
        ));
        assert!(text.contains("const TIMEOUT_MS = 30000;"));
        assert!(!text.contains("{{"), "every placeholder is filled");
        assert!(is_ours(Harness::OpenCode, &plugin));
        assert!(!is_ours(Harness::Cline, &plugin));
        assert_eq!(
            super::command(Harness::OpenCode, &plugin).as_deref(),
            Some(command)
        );
        assert!(is_pristine(Harness::OpenCode, &plugin));
        let edited = text.replace("TIMEOUT_MS = 30000", "TIMEOUT_MS = 1");
        assert!(!is_pristine(Harness::OpenCode, edited.as_bytes()));
        assert!(!is_ours(
            Harness::OpenCode,
            b"export const Mine = async () => ({});\n"
        ));
    }
}

//! Whether a person runs this process (issue 35 point 3).
//!
//! The verbs that loosen the guard — `approve`, `mode normal`, `config trust`, `uninstall`,
//! `gc --execute` — are a person's. An agent reaches a shell only through its harness, so
//! the process is refused when it has no terminal, when the environment carries a harness's
//! marker (the variables the harnesses set for the commands they run), or when a harness is
//! among its ancestors (read from `/proc`, so a pseudo-terminal wrapper such as `script`,
//! `unbuffer` or `expect` started by the agent is still seen). A process detached from the
//! harness with a cleared environment is refused before it starts: `check` refuses every
//! command line that names one of these verbs (`BLOCK_SELF_PROTECTION`).

use crate::prompt;

/// Program names (of an ancestor's executable or its script) that are agent harnesses.
const HARNESS_PROGRAMS: &[&str] = &[
    "claude",
    "claude-code",
    "codex",
    "gemini",
    "gemini-cli",
    "copilot",
    "qwen",
    "qwen-code",
    "opencode",
    "cursor-agent",
    "cline",
    "windsurf",
    "aider",
    "goose",
    "amp",
    "crush",
];

/// Why the process is not taken for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAPerson {
    /// stdin or stderr is not a terminal.
    NoTerminal,
    /// The environment carries a harness's marker.
    HarnessEnvironment(&'static str),
    /// A harness is an ancestor of this process.
    HarnessAncestor(String),
}

impl std::fmt::Display for NotAPerson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAPerson::NoTerminal => write!(f, "it is not run at a terminal"),
            NotAPerson::HarnessEnvironment(name) => {
                write!(
                    f,
                    "it runs in an agent harness's environment ({name} is set)"
                )
            }
            NotAPerson::HarnessAncestor(what) => {
                write!(f, "it runs under an agent harness ({what})")
            }
        }
    }
}

/// Checks that a person runs this process at a terminal; see the module documentation.
pub fn check() -> Result<(), NotAPerson> {
    not_an_agent()?;
    if !prompt::interactive() {
        return Err(NotAPerson::NoTerminal);
    }
    Ok(())
}

/// Checks that no agent harness runs this process (a person's script without a terminal
/// passes): for the verbs a person may script, `uninstall` and `gc --execute`.
pub fn not_an_agent() -> Result<(), NotAPerson> {
    let env = agent_guard_engine::EnvSnapshot::capture();
    if let Some(marker) = env.harness_markers.first() {
        return Err(NotAPerson::HarnessEnvironment(marker));
    }
    if let Some(ancestor) = harness_ancestor() {
        return Err(NotAPerson::HarnessAncestor(ancestor));
    }
    Ok(())
}

/// `anyhow`'s error for `verb` refused because `why`.
pub fn refusal(verb: &str, why: &NotAPerson) -> anyhow::Error {
    anyhow::anyhow!(
        "`agent-guard {verb}` is a person's verb, and {why}; an agent may not run it. Run it \
         yourself in your own terminal"
    )
}

/// The first ancestor (parent, its parent, …) that is a harness, described.
fn harness_ancestor() -> Option<String> {
    let mut pid = parent_of(std::process::id())?;
    for _ in 0..64 {
        if pid <= 1 {
            return None;
        }
        if let Some(program) = harness_program(pid) {
            return Some(format!("process {pid}, {program}"));
        }
        pid = parent_of(pid)?;
    }
    None
}

/// The parent of `pid`, from `/proc/<pid>/stat` (the field after the parenthesised name).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// The harness `pid` runs, if any: its command name, or the base name of its executable or
/// of its first two arguments (a harness started by `node` or `python` names its script).
fn harness_program(pid: u32) -> Option<String> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let mut names = vec![comm.trim().to_owned()];
    names.extend(
        cmdline
            .split(|b| *b == 0)
            .take(2)
            .map(|arg| String::from_utf8_lossy(arg).into_owned()),
    );
    names.into_iter().find(|name| is_harness(name))
}

/// Whether a program name or path is a harness: its base name (without an extension), or a
/// package directory on its path (`…/@anthropic-ai/claude-code/cli.js`).
fn is_harness(name: &str) -> bool {
    let path = std::path::Path::new(name);
    let stem = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    HARNESS_PROGRAMS.contains(&stem.as_str())
        || path.components().any(|component| {
            let part = component.as_os_str().to_string_lossy().to_ascii_lowercase();
            matches!(
                part.as_str(),
                "claude-code" | "codex" | "gemini-cli" | "qwen-code" | "copilot" | "opencode-ai"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_programs_are_recognised_by_name_and_package() {
        for name in [
            "claude",
            "/usr/local/bin/codex",
            "/home/u/.npm/lib/node_modules/@anthropic-ai/claude-code/cli.js",
            "/opt/node_modules/@google/gemini-cli/dist/index.js",
            "qwen",
            "cursor-agent",
        ] {
            assert!(is_harness(name), "{name}");
        }
        for name in ["bash", "node", "/usr/bin/script", "agent-guard", "vim", ""] {
            assert!(!is_harness(name), "{name}");
        }
    }

    #[test]
    fn the_parent_chain_is_read_from_proc() {
        let parent = parent_of(std::process::id()).expect("a parent");
        assert!(parent >= 1);
        assert_eq!(parent_of(u32::MAX), None);
    }
}

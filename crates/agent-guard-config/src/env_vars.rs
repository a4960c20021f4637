//! Environment variable names read by agent-guard.
//!
//! Every variable the tool reads is declared here, once. Only
//! [`EnvSnapshot::capture`](crate::EnvSnapshot::capture) reads them.

/// Overrides workspace discovery.
pub const WORKSPACE: &str = "AGENT_GUARD_WORKSPACE";

/// The quarantine location; a relative value is taken against the workspace.
pub const TRASH: &str = "AGENT_GUARD_TRASH";

/// The default shell dialect selector.
pub const DIALECT: &str = "AGENT_GUARD_DIALECT";

/// The session identity: selects the authorisation state file; hashed in the audit log.
pub const SESSION: &str = "AGENT_GUARD_SESSION";

/// Extra artifact patterns, joined with the OS path-list separator (`:` on Unix).
pub const ARTIFACTS: &str = "AGENT_GUARD_ARTIFACTS";

/// `0`, `false`, `no` or `off` disables the direct deletion of regenerable artifacts.
pub const ALLOW_REGENERABLE: &str = "AGENT_GUARD_ALLOW_REGENERABLE";

/// `0`, `false`, `no` or `off`: a checkpoint never starts the background watcher that
/// spares the next checkpoints a full walk (docs/checkpoints.md, "The watcher").
pub const CHECKPOINT_WATCH: &str = "AGENT_GUARD_CHECKPOINT_WATCH";

/// Makes adapters print the raw verdict to stderr.
pub const DEBUG: &str = "AGENT_GUARD_DEBUG";

/// The internal deadline of one hook invocation, in milliseconds.
pub const DEADLINE_MS: &str = "AGENT_GUARD_DEADLINE_MS";

/// Test-only clock override (UTC timestamp). Unstable: not part of the public contract.
pub const NOW: &str = "AGENT_GUARD_NOW";

/// Test-only seed for generated ids. Unstable: not part of the public contract.
pub const ID_SEED: &str = "AGENT_GUARD_ID_SEED";

/// The home directory of the current user.
pub const HOME: &str = "HOME";

/// The shell's search path for `cd`: when set, `cd src` may go elsewhere than `./src`.
pub const CDPATH: &str = "CDPATH";

/// Git's per-user configuration base (`$XDG_CONFIG_HOME/git/ignore`, `…/attributes`).
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";

/// Where `install` keeps the previous bytes of the files it edits.
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";

/// Where the per-user stores live (`$XDG_DATA_HOME/agent-guard/<workspace id>`; default
/// `~/.local/share`).
pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";

/// Codex's configuration directory (default `~/.codex`).
pub const CODEX_HOME: &str = "CODEX_HOME";

/// Copilot CLI's configuration directory (default `~/.copilot`).
pub const COPILOT_HOME: &str = "COPILOT_HOME";

/// Claude Code's configuration directory (default `~/.claude`).
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";

/// The home directory Gemini CLI keeps `.gemini/` in (default `HOME`).
pub const GEMINI_CLI_HOME: &str = "GEMINI_CLI_HOME";

/// Qwen Code's configuration directory (default `~/.qwen`).
pub const QWEN_HOME: &str = "QWEN_HOME";

/// The program search path: a program named `agent-guard` planted in one of its
/// directories would answer a hook that names the guard without a path.
pub const PATH: &str = "PATH";

/// Test-only, unstable: arms one crash-injection point of the relocation
/// (`after-intent`, `after-move`, `before-done`, `during-copy`, `during-removal`), or, in hook
/// mode only, makes the hook panic (`hook-panic`) or stall past its deadline (`hook-stall`).
pub const FAULT: &str = "AGENT_GUARD_FAULT";

/// git's configuration from the environment, which git reads and libgit2 (the guard's reader
/// of git's configuration) does not: `GIT_CONFIG_PARAMETERS` (`git -c`), `GIT_CONFIG_COUNT`
/// with `GIT_CONFIG_KEY_<n>`, and the files `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` name.
pub const GIT_CONFIG: &[&str] = &[
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

/// The most `GIT_CONFIG_KEY_<n>` variables read.
pub const GIT_CONFIG_KEYS: usize = 100;

/// Variables an agent harness sets for the commands it runs (Claude Code's `CLAUDECODE`,
/// Codex's sandbox markers, Gemini CLI's `GEMINI_CLI`, …): their presence says an agent,
/// not a person, started the process.
pub const HARNESS_MARKERS: &[&str] = &[
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "CODEX_THREAD_ID",
    "GEMINI_CLI",
    "QWEN_CODE",
    "COPILOT_CLI",
    "CURSOR_AGENT",
    "CURSOR_TRACE_ID",
    "CLINE_ACTIVE",
    "WINDSURF_AGENT",
    "OPENCODE",
    "AGENT_GUARD_HOOK",
];

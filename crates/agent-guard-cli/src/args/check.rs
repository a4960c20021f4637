//! `agent-guard check` (also the `check` binary).

use std::path::PathBuf;

/// Judge a shell command before it runs
///
/// Prints the decision (ALLOW, RELOCATE, SNAPSHOT, ASK or BLOCK) and a stable reason code.
/// Without `--enforce` nothing is moved and the exit code is 0 whatever the decision: read
/// `decision` from the output.
///
/// Pass the command after `--`, as one quoted argument (`agent-guard check -- 'rm -rf
/// build'`: the text is judged as the shell will read it), or as several words (`agent-guard
/// check -- rm -- -rf`: exactly those words are judged, quoted for the dialect). An unknown
/// option before `--` is a usage error, never part of the command.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard check -- 'rm -rf build'            # what would happen (changes nothing)\n",
    "  agent-guard check --json -- 'git reset --hard' # the report, for scripts\n",
    "  agent-guard check --enforce -- 'rm -rf build'  # quarantine first; exit 0 means run it\n",
    "  agent-guard check --dialect powershell -- 'Remove-Item -Recurse src'\n\n",
    "Exit codes: advisory 0 whatever the decision (read `decision`), 1 internal error; with \
     --enforce 0 the command may run, 2 refused (BLOCK), 3 a human must approve (ASK). In hook \
     mode (--harness) every failure is the harness's own deny, never exit 1."
))]
pub struct CheckArgs {
    /// The directory the command will run in [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// The shell dialect of the command: `posix` (sh, bash, zsh), `cmd` or `powershell` (pwsh)
    ///
    /// An unknown or malformed selector is a BLOCK verdict (`BLOCK_DIALECT_UNKNOWN`,
    /// `BLOCK_DIALECT_INVALID`), never a silent fallback. Precedence: this flag, then a
    /// harness payload field, then `AGENT_GUARD_DIALECT`, then `.agent-guard.toml`, then posix.
    #[arg(long, value_name = "DIALECT")]
    pub dialect: Option<String>,

    /// Compensate first, then report whether the command may run
    ///
    /// RELOCATE moves the targets into the quarantine and SNAPSHOT keeps git state; after a
    /// full compensation the decision becomes ALLOW and the exit code 0. ASK exits 3 (a human
    /// must approve), BLOCK and any failed compensation exit 2. What was moved stays
    /// restorable with `agent-guard restore <txid>`.
    #[arg(long)]
    pub enforce: bool,

    /// Print the verdict as one JSON object on stdout
    #[arg(long)]
    pub json: bool,

    /// Run as an agent harness's pre-tool hook: read its JSON payload on stdin, reply in its format
    ///
    /// NAME is `claude-code`, `codex`, `gemini`, `copilot`, `cursor`, `cline`, `windsurf`,
    /// `qwen-code`, `opencode`, `generic`, or `auto` (guessed from the payload's shape; an explicit name is safer). The
    /// command, working directory, dialect and session come from the payload, so COMMAND and
    /// `--cwd` are refused; `--dialect` still ranks first. Hook mode always enforces, as
    /// `--enforce` does. It holds an internal deadline (`AGENT_GUARD_DEADLINE_MS` or the
    /// project's `[hook] deadline_ms`, default 5000 ms) and never exits 1: a malformed
    /// payload, an internal error, a panic, the deadline or a bad hook command line is a deny
    /// in the harness's own format. See `docs/hooks.md`.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["cwd", "command"])]
    pub harness: Option<String>,

    /// The command to judge (after `--`): one command line, or its words
    #[arg(
        value_name = "COMMAND",
        trailing_var_arg = true,
        required_unless_present = "harness"
    )]
    pub command: Vec<String>,
}

//! `audit verify`.

use std::path::PathBuf;

/// Inspect the audit log
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard audit verify          # is the log intact? (line numbers of anything that is not)\n",
    "  agent-guard audit verify --json   # the same, for a script\n\n",
    "Exit codes (audit verify): 0 intact, unchained or empty; 1 the log or the key cannot be \
     read; 4 a torn tail and nothing tampered; 5 tampered."
))]
pub struct AuditArgs {
    /// What to do with the audit log.
    #[command(subcommand)]
    pub command: AuditCommand,
}

/// The `audit` subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum AuditCommand {
    /// Check the audit log's hash chain
    Verify(AuditVerifyArgs),
}

/// Check the audit log's hash chain
///
/// Walks `<quarantine>/audit.jsonl` once and checks every chained record: its MAC with this
/// user's key (kept under `$XDG_STATE_HOME/agent-guard/keys/`, or
/// `~/.local/state/agent-guard/keys/`), its link to the line before it, and its sequence
/// number. It reports an intact chain; a torn tail (a crash cut the last line short: what was
/// lost, and whether a later record already repaired it); and every edited, missing,
/// reordered or inserted record, or one made with another key, with its line number. Records
/// written before chaining existed (or by the reference tool) are reported as an unchained
/// prefix, not as tampering. Nothing is written, and no key is created.
///
/// Exit codes: 0 intact, unchained or empty; 1 the log or the key cannot be read; 4 a torn
/// tail (repaired or pending) and nothing tampered; 5 tampered.
#[derive(Debug, Clone, clap::Args)]
pub struct AuditVerifyArgs {
    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

//! `agent-guard safe-delete` (also the `safe_delete` binary).

use std::path::PathBuf;

/// Move paths into the quarantine instead of deleting them
///
/// Each PATH (file, directory or symlink; symlinks are moved as links) is moved into
/// `.agent-trash/<txid>/`, from where `agent-guard restore <txid>` puts it back byte for byte.
/// Glob patterns (`'*.log'`, `'build/**/*.o'`) are expanded by the tool itself, sorted;
/// patterns that match nothing are listed as `no_match`. Git-ignored build artifacts
/// (`node_modules`, `target`, …) are deleted directly. Protected paths (the workspace root,
/// `.git`, the quarantine, anything outside the workspace) are refused with exit code 2.
/// Running it again on paths already deleted reports "already absent" and exits 0.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard safe-delete build notes.txt\n",
    "  agent-guard safe-delete 'build/**/*.o' --dry-run   # list the matches, move nothing\n",
    "  agent-guard undo                                   # put the last one back\n\n",
    "Exit codes: 0 done (also: already absent, nothing matched), 1 internal error, 2 refused \
     (BLOCK) or partly done (what moved is restorable)."
))]
pub struct SafeDeleteArgs {
    /// A path or glob pattern to delete (can be repeated)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// The directory relative paths are taken from [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Report what would happen; move nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

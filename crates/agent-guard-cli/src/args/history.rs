//! `restore`, `undo`, `redo`, `list`, `show`, `status`, `gc`.

use std::path::PathBuf;

/// Put a quarantined transaction back
///
/// Every item of the transaction returns to its original path. Restore never overwrites: an
/// occupied origin is a conflict (exit 3) unless `--force`, which first preserves the occupant
/// in a new transaction (listed in `backup_txids`, itself restorable). A transaction that
/// kept the old version of overwritten files puts it back over the new one, keeping the new
/// one the same way. Restoring the same transaction twice changes nothing the second time.
///
/// TARGET may also be a path (`src/app.py`): the newest transaction holding it is restored,
/// for that path only; on a terminal you choose when several hold it.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "A transaction is named by its id, a unique prefix or suffix of it, or `@`, `@-`, `@-2` \
     (the newest undoable ones).\n\n",
    "Examples:\n",
    "  agent-guard restore 20261201-084000-b3dcb9f9\n",
    "  agent-guard restore b3dc                    # a unique part of the id\n",
    "  agent-guard restore @ --path build/report.txt\n",
    "  agent-guard restore src/app.py              # the newest version kept of that file\n",
    "  agent-guard restore b3dc --to /tmp/rescue   # somewhere else, leaving the workspace alone\n\n",
    "Exit codes: 0 restored, 1 errors (nothing or not all restored), 3 conflicts (rerun with --force)."
))]
pub struct RestoreArgs {
    /// The transaction (id, unique part, `@`, `@-N`) or a path it holds
    #[arg(value_name = "TARGET")]
    pub target: String,

    /// Preserve whatever occupies an origin in a new transaction, then restore over it
    #[arg(long)]
    pub force: bool,

    /// Restore into this directory instead of the workspace (keeps relative paths)
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,

    /// Restore only this path, or a part of a quarantined tree (can be repeated)
    #[arg(long = "path", value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// Undo the newest delete or overwrite of this workspace
///
/// Restores the newest undoable transaction and says which it was. Run it again to step
/// further back. A transaction whose restore hit conflicts is skipped by the next `undo`
/// (`agent-guard restore <txid> --force` decides it); backups made by restores are what
/// `redo` takes. `--list` shows what `undo` would take, in order.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard undo            # the newest\n",
    "  agent-guard undo            # again: the one before\n",
    "  agent-guard undo --list     # what undo takes next, in order\n",
    "  agent-guard redo            # put back what the last undo replaced\n\n",
    "Exit codes: 0 restored, 1 nothing to undo or errors, 3 conflicts."
))]
pub struct UndoArgs {
    /// Preserve occupants in a new transaction, then restore over them
    #[arg(long)]
    pub force: bool,

    /// Only list what `undo` would take, newest first; change nothing
    #[arg(long, conflicts_with = "force")]
    pub list: bool,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// Redo: put back what the last undo replaced
///
/// When an undo restored the old version of files over newer ones (an overwrite's undo, or a
/// forced restore), the newer ones were kept in a backup transaction; `redo` restores the
/// newest such backup.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = "Exit codes: 0 restored, 1 nothing to redo or errors, 3 conflicts.")]
pub struct RedoArgs {
    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

/// List this workspace's quarantined transactions, newest first
///
/// By default only the ones that can still be restored; `--all` adds restored, purged,
/// failed and empty ones.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard list\n",
    "  agent-guard list --all --limit 50\n",
    "  agent-guard list --json | jq '.transactions[].txid'\n\n",
    "Exit codes: 0."
))]
pub struct ListArgs {
    /// Show at most this many transactions (0: all)
    #[arg(long, default_value_t = 20)]
    pub limit: usize,

    /// Also show restored, purged, failed and empty transactions
    #[arg(long)]
    pub all: bool,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the list as JSON
    #[arg(long)]
    pub json: bool,
}

/// Show one transaction: its items, sizes, files and what a git snapshot keeps
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "A transaction is named by its id, a unique prefix or suffix of it, or `@`, `@-`, `@-2`.\n\n",
    "Examples:\n",
    "  agent-guard show            # the newest undoable transaction\n",
    "  agent-guard show b3dc\n",
    "  agent-guard show @- --json\n\n",
    "Exit codes: 0 shown, 1 no such transaction."
))]
pub struct ShowArgs {
    /// The transaction (id, unique part, `@`, `@-N`)
    #[arg(value_name = "TXID", default_value = "@")]
    pub txid: String,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the transaction as JSON
    #[arg(long)]
    pub json: bool,
}

/// Show the quarantine's usage, the session mode and recent decisions
///
/// Always runs, even when `.agent-guard.toml` is broken (it says so). Also resolves
/// relocations a crash interrupted, and says what it resolved.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard status\n",
    "  agent-guard status --tail 30\n\n",
    "Exit codes: 0."
))]
pub struct StatusArgs {
    /// How many recent audit records to show
    #[arg(long, default_value_t = 10)]
    pub tail: usize,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the status as JSON
    #[arg(long)]
    pub json: bool,
}

/// Plan, or execute, garbage collection of quarantined transactions
///
/// Without `--execute` it only prints the plan: transactions older than the retention
/// (`[retention] days`, default 30) and, while the quarantine is over its size limit
/// (`[retention] max_bytes`, default 5 GiB), the oldest ones. Purging needs `--execute`
/// with `--txid` (can be repeated), `--all-eligible`, or `--all`. Transactions younger than
/// the grace window (`[retention] grace_minutes`, default 60) are purged only with `--now`,
/// which asks for confirmation on a terminal (or needs `--yes`).
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = concat!(
    "Examples:\n",
    "  agent-guard gc                                  # the plan; nothing is purged\n",
    "  agent-guard gc --execute --all-eligible         # what the plan lists (a cron job)\n",
    "  agent-guard gc --execute --txid b3dc --now      # one recent transaction, after confirmation\n",
    "  agent-guard gc --execute --all --now --yes      # empty this workspace's quarantine\n\n",
    "Exit codes: 0 done (also when there was nothing to purge), 1 refused or failed."
))]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each bool is a command-line flag"
)]
pub struct GcArgs {
    /// Purge instead of planning
    #[arg(long)]
    pub execute: bool,

    /// A transaction to purge (id, unique part, `@-N`; can be repeated)
    #[arg(long = "txid", value_name = "TXID", requires = "execute")]
    pub txids: Vec<String>,

    /// Purge every eligible transaction
    #[arg(long, requires = "execute", conflicts_with = "txids")]
    pub all_eligible: bool,

    /// Purge every transaction of this workspace (recent ones only with `--now`)
    #[arg(long, requires = "execute", conflicts_with_all = ["txids", "all_eligible"])]
    pub all: bool,

    /// Also purge transactions inside the grace window
    #[arg(long, requires = "execute")]
    pub now: bool,

    /// Do not ask for confirmation (needed for `--now` without a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,

    /// The workspace directory [default: the current directory]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,
}

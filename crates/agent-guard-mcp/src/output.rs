//! The tools' output schemas.
//!
//! The engine's reports are plain `serde::Serialize` types, and the engine stays free of
//! schemars. These types describe, field for field, the JSON those reports serialize to; they
//! exist only to generate each tool's `outputSchema` and are never built. The objects are
//! left open (no `additionalProperties: false`) so that a field the engine adds later does not
//! make clients reject a result; the stdio test checks every structured result strictly
//! against these schemas, so a drift fails there first.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::Value;

/// The result of `safe_delete`.
#[derive(Debug, JsonSchema)]
pub struct SafeDeleteOutput {
    /// Always `safe_delete`.
    pub tool: String,
    /// The session mode: `NORMAL`, or `RESTRICTED` after a human veto (then only single
    /// files may be deleted).
    pub mode: String,
    /// The workspace root, when it could be resolved.
    pub workspace: Option<String>,
    /// The guard's verdict on the whole batch.
    pub verdict: VerdictOutput,
    /// The concrete targets after glob expansion.
    pub targets: Vec<String>,
    /// Glob patterns that matched nothing.
    pub no_match: Vec<String>,
    /// Whether this was a dry run (nothing changed).
    pub dry_run: bool,
    /// What happened, in words (`relocated to quarantine`, `nothing to do (already absent)`,
    /// `BLOCKED [CODE]`, ...).
    pub outcome: String,
    /// The transaction id to pass to `restore`; present when something was moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub txid: Option<String>,
    /// What was moved into the quarantine.
    pub moved: Vec<MovedOutput>,
    /// Targets that were not moved, with why.
    pub skipped: Vec<SkippedOutput>,
    /// Direct deletions of provably regenerable artifacts: `deleted`, `deleted-tree`,
    /// `absent` or `failed`.
    pub deleted: Vec<String>,
    /// The equivalent shell command that undoes this deletion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_command: Option<String>,
    /// Non-fatal problems.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The engine's exit code: 0 done, 2 refused (then `isError` is true).
    pub exit: i32,
}

/// The verdict part of a `safe_delete` result.
#[derive(Debug, JsonSchema)]
pub struct VerdictOutput {
    /// The decision class: `ALLOW`, `RELOCATE`, `SNAPSHOT`, `ASK`, `BLOCK` (or `SANITIZE`).
    pub decision: String,
    /// The reason code, a stable identifier such as `BLOCK_PROTECTED_ROOT`.
    pub code: String,
    /// What the reason code means.
    pub explanation: String,
    /// Further reasons, if any.
    pub reasons: Vec<String>,
}

/// A path moved into the quarantine.
#[derive(Debug, JsonSchema)]
pub struct MovedOutput {
    /// Where it was.
    pub origin: String,
    /// Where it is now, inside the quarantine.
    pub trash: String,
}

/// A target that was not moved.
#[derive(Debug, JsonSchema)]
pub struct SkippedOutput {
    /// The caller's spelling of the path.
    pub raw: String,
    /// Why it was not moved.
    pub reason: String,
}

/// The result of `restore` and `undo`.
#[derive(Debug, JsonSchema)]
pub struct RestoreOutput {
    /// The transaction that was restored (empty when `undo` found nothing to undo).
    pub txid: String,
    /// No errors and no conflicts.
    pub ok: bool,
    /// Everything was already back; nothing changed. Not an error.
    pub already_restored: bool,
    /// The paths that were put back.
    pub restored: Vec<String>,
    /// Original paths that are occupied again; they were left untouched.
    pub conflicts: Vec<String>,
    /// Error lines (a refusal's message is here too).
    pub errors: Vec<String>,
    /// Transactions that preserved occupants (only a human's forced restore creates them).
    pub backup_txids: Vec<String>,
    /// Why the restore was refused before anything moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The engine's exit code: 0 done, 1 errors, 3 conflicts (then `isError` is true).
    pub exit: i32,
}

/// The result of `list`.
#[derive(Debug, JsonSchema)]
pub struct ListOutput {
    /// The quarantine directory.
    pub trash_root: String,
    /// What the quarantine holds.
    pub usage: UsageOutput,
    /// This workspace's transactions, newest first (at most `limit`).
    pub transactions: Vec<TxOutput>,
}

/// What the quarantine holds.
#[derive(Debug, JsonSchema)]
pub struct UsageOutput {
    /// Files, symlinks and other non-directories in the quarantine (journals included).
    pub files: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Transactions not purged by gc.
    pub transactions: u64,
    /// Transactions with at least one restorable item.
    pub restorable_transactions: u64,
    /// Restorable items over all transactions.
    pub restorable_items: u64,
}

/// One transaction in `list`.
#[derive(Debug, JsonSchema)]
pub struct TxOutput {
    /// The id to pass to `restore`.
    pub txid: String,
    /// When it started (UTC, RFC 3339).
    pub ts: Option<String>,
    /// `RESTORABLE`, `RESTORED`, `PURGED`, `FAILED` or `EMPTY`.
    pub state: String,
    /// Items quarantined (and git snapshots kept).
    pub items: u64,
    /// Items that can still be restored.
    pub restorable_items: u64,
    /// How it was protected: `relocate`, `snapshot`.
    pub strategies: Vec<String>,
    /// Who created it (`safe_delete`, `check --enforce`, `restore`).
    pub tool: Option<String>,
    /// Its first item, workspace-relative.
    pub first: Option<String>,
}

/// The result of `status`.
#[derive(Debug, JsonSchema)]
pub struct StatusOutput {
    /// The workspace root.
    pub workspace: String,
    /// The session mode: `NORMAL` or `RESTRICTED`.
    pub mode: String,
    /// When the mode was set.
    pub mode_since: Option<String>,
    /// The quarantine directory.
    pub trash_root: String,
    /// What the quarantine holds.
    pub usage: UsageOutput,
    /// Retention limits and what gc would purge.
    pub retention: RetentionOutput,
    /// Interrupted relocations this call resolved.
    pub reconciled_now: ReconciledOutput,
    /// Items ever recovered by crash reconciliation.
    pub reconciled_total: u64,
    /// Reason code → how often it was decided recently.
    pub decisions: BTreeMap<String, u64>,
    /// The last audit records (metadata only).
    pub recent_audit: Vec<BTreeMap<String, Value>>,
}

/// Retention limits and what gc would purge.
#[derive(Debug, JsonSchema)]
pub struct RetentionOutput {
    /// Days a transaction is kept before it becomes eligible for gc.
    pub soft_days: u32,
    /// The size above which the oldest transactions become eligible.
    pub soft_limit_bytes: u64,
    /// The quarantine's payload size.
    pub total_bytes: u64,
    /// What gc would purge.
    pub gc_eligible: Vec<GcEntryOutput>,
}

/// A transaction gc may purge.
#[derive(Debug, JsonSchema)]
pub struct GcEntryOutput {
    /// The id.
    pub txid: String,
    /// When it started.
    pub ts: Option<String>,
    /// Its payload size.
    pub bytes: u64,
    /// Its recorded items.
    pub items: u64,
    /// `age` or `capacity`.
    pub reason: String,
}

/// What a crash reconciliation resolved.
#[derive(Debug, JsonSchema)]
pub struct ReconciledOutput {
    /// Items found in the quarantine and recorded as relocated.
    pub relocated: u64,
    /// Items found still at their origin and recorded as not moved.
    pub not_moved: u64,
    /// Items whose quarantine copy and origin both exist.
    pub both_kept: u64,
    /// Items found nowhere (removed by something else).
    pub vanished: u64,
}

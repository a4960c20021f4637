//! The tools' inputs: what a model may pass, with the JSON Schemas it is shown.
//!
//! Every struct denies unknown fields, so its schema says `additionalProperties: false` and a
//! call with an unexpected argument (for example `force`) is a protocol error, not a silent
//! no-op. Field doc comments become the schema's property descriptions.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `safe_delete`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SafeDeleteParams {
    /// Paths or glob patterns to delete (at least one), relative to `cwd` or absolute; `~`
    /// is the home directory. Globs (`*`, `?`, `[...]`) are expanded by the guard, sorted;
    /// patterns that match nothing are reported in `no_match`. Variables (`$X`) and command
    /// substitutions are not expanded: pass the literal path.
    #[schemars(length(min = 1))]
    pub paths: Vec<String>,
    /// Only report the verdict and the targets; nothing is moved. Defaults to false.
    #[serde(default)]
    pub dry_run: bool,
    /// The directory that relative paths start from. Defaults to the directory the server
    /// was started in (the agent's workspace); a relative `cwd` is taken from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
}

/// Arguments of `restore`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RestoreParams {
    /// The transaction: the `txid` that `safe_delete` returned or `list` shows, a unique
    /// prefix or suffix of one, `@` (the newest undoable transaction) or `@-N` (the N-th
    /// before it). An ambiguous part is an error that lists the matches.
    pub txid: String,
    /// Restore into this directory instead of the original locations (relative to `cwd`).
    /// Useful when the original place is occupied again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub to: Option<String>,
    /// Restore only these original paths (relative to `cwd`), or parts of a quarantined
    /// directory. Defaults to every item of the transaction.
    #[serde(default)]
    pub paths: Vec<String>,
    /// The workspace directory. Defaults to the directory the server was started in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
}

/// Arguments of `undo`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoParams {
    /// The workspace directory. Defaults to the directory the server was started in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
}

/// Arguments of `list`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// The workspace directory. Defaults to the directory the server was started in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
    /// Show at most this many transactions, newest first. Defaults to 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(min = 1))]
    pub limit: Option<u32>,
}

/// Arguments of `status`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusParams {
    /// The workspace directory. Defaults to the directory the server was started in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub cwd: Option<String>,
    /// How many recent audit records to include (0 for none). Defaults to 10, at most 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(max = 200))]
    pub tail: Option<u32>,
}

/// The default of `list`'s `limit`.
pub(crate) const DEFAULT_LIST_LIMIT: u32 = 20;
/// The default of `status`'s `tail`.
pub(crate) const DEFAULT_STATUS_TAIL: u32 = 10;
/// The largest `status` `tail`.
pub(crate) const MAX_STATUS_TAIL: u32 = 200;

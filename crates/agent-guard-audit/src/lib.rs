//! The agent-guard audit log: append-only JSONL with a closed metadata projection.
//!
//! In the pipeline this is the *record* stage: after the policy decided and recovery
//! compensated, the engine appends one record per decision to `<trash>/audit.jsonl`.
//!
//! ```text
//! … → policy → Verdict → recovery → audit (this crate) → hook renders
//! ```
//!
//! What it must not do: it writes only the audit file inside an existing quarantine (it never
//! creates the directory, never moves or deletes anything) and, once per user, the chain key
//! in the state directory its caller names ([`AuditKey`]); it reads no environment, and never
//! stores free text. Every record is passed through [`project()`], a closed projection:
//!
//! * only known keys survive; enumerated labels (`event`, `decision`, `action`, `code`, `tool`,
//!   `phase`, `outcome`, `dialect`, `dialect_outcome`, `strategy`, `status`, `mode`, `error`)
//!   must be in their allowed set, or are dropped;
//! * `command` is always `<redacted>`; `reasons` survives only as `[]`;
//! * counts are non-negative integers; `guard_latency_ms` a non-negative number; `ts` the
//!   UTC shape `YYYY-MM-DDTHH:MM:SSZ`; `sha` null or 40/64 hex; `version` a semver string;
//!   `harness` `[a-z-]{1,32}`;
//! * ids (`txid`, `check_id`, `plan_id`, and the lists `txids`, `backup_txids`, `purged`,
//!   `missing`) keep the generated shape verbatim, anything else becomes `sha256:<hex>`;
//! * `session` is always `sha256:<hex>` ([`session_hash`]);
//! * the chain fields ([`chain`]) keep their shape: `seq` and `torn_length` counts,
//!   `prev_sha256`, `torn_sha256` and `mac` 64 hex digits, `key_id` `k1-` and 16 hex digits;
//!   the log sets them itself and drops any a caller passes;
//! * `compensations` items and `plan_reasons` are projected recursively.
//!
//! Projection is idempotent, so [`AuditLog::tail`] re-projects old lines on read without
//! rewriting the file.
//!
//! ```
//! use serde_json::{Map, Value, json};
//!
//! let record: Map<String, Value> = serde_json::from_value(json!({
//!     "event": "check",
//!     "decision": "BLOCK",
//!     "code": "BLOCK_WILDCARD",
//!     "command": "rm -rf *",
//!     "target": "/home/me/secret",
//! }))
//! .unwrap();
//! let projected = agent_guard_audit::project(&record);
//! assert_eq!(projected["command"], "<redacted>");
//! assert!(!projected.contains_key("target"));
//! ```

#![warn(missing_docs)]

mod backward;
pub mod chain;
mod error;
mod hash;
mod key;
mod log;
mod project;
mod record;
mod verify;

pub use agent_guard_fsops::SyncInFlight;
pub use error::AuditError;
pub use hash::{default_session, session_hash, sha256_bytes, sha256_hex};
pub use key::{AuditKey, KEY_DIR_NAME, KEY_FILE_NAME};
pub use log::{AUDIT_FILE_NAME, AuditFault, AuditLog, Clock, SCHEMA_VERSION, format_timestamp};
pub use project::{project, project_id};
pub use record::{
    Action, AuditRecord, CompensationRecord, ErrorLabel, Event, Phase, REDACTED, Tool,
};
pub use verify::{
    ChainReport, ChainState, Finding, FindingKind, TornRegion, TornStatus, verify_bytes, verify_log,
};

#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod tests;

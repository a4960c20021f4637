//! The typed audit record: every field this tool writes, with its closed type.
//!
//! The engine builds an [`AuditRecord`] and [`AuditLog::append`](crate::AuditLog::append)s it;
//! nothing is assembled as a free-form map. The projection ([`project`](fn@crate::project))
//! still runs on every line written and read (old lines, the reference tool's, the sibling
//! exfil guard's), and its allowed label sets are derived from the enums here, so a typed
//! record always survives it whole: a test checks exactly that.

use serde::{Deserialize, Serialize};

use agent_guard_types::{
    CompensationStatus, Decision, Dialect, DialectOutcome, ReasonCode, SafeDeleteOutcome,
    SessionMode, Strategy,
};

/// Declares a closed label set: an enum with stable names, `ALL` and `as_str`.
macro_rules! labels {
    ($(#[$meta:meta])* $name:ident { $( $(#[$vmeta:meta])* $variant:ident => $text:literal, )* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )*
        }

        impl $name {
            /// Every label.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The stable name.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text, )* }
            }

            /// Parses a stable name.
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|label| label.as_str() == text)
            }
        }
    };
}

labels! {
    /// What an audit record reports. The names are the reference tool's, a public contract.
    Event {
        /// An advisory `check`.
        Check => "check",
        /// `check --enforce` stored a durable ASK intent.
        Ask => "ask",
        /// A `safe-delete` decision (advisory or intent).
        Decision => "decision",
        /// An advisory record (reference).
        Advisory => "advisory",
        /// An intent record (reference).
        Intent => "intent",
        /// The outcome of a `safe-delete`.
        Outcome => "outcome",
        /// `check --enforce` refused.
        EnforceBlock => "enforce-block",
        /// `check --enforce` is about to compensate.
        EnforceIntent => "enforce-intent",
        /// A compensation failed under `check --enforce`.
        EnforceError => "enforce-error",
        /// `check --enforce` compensated; the command may run.
        EnforceProceed => "enforce-proceed",
        /// A restore.
        Restore => "restore",
        /// gc is about to purge.
        GcIntent => "gc-intent",
        /// gc purged.
        Gc => "gc",
        /// Crash reconciliation resolved interrupted moves.
        Reconcile => "reconcile",
        /// `undo` (reference).
        Undo => "undo",
        /// A person approved a command the guard asked about.
        Approve => "approve",
    }
}

labels! {
    /// Which command wrote the record.
    Tool {
        /// `safe-delete`.
        SafeDelete => "safe_delete",
        /// `check`.
        Check => "check",
        /// `restore`.
        Restore => "restore",
        /// `gc`.
        Gc => "gc",
        /// `undo`.
        Undo => "undo",
        /// `approve`.
        Approve => "approve",
    }
}

labels! {
    /// The phase of a `safe-delete` record.
    Phase {
        /// A dry run or a refusal: nothing was attempted.
        Advisory => "advisory",
        /// Durable, before anything moves.
        Intent => "intent",
        /// After the effect.
        Complete => "complete",
    }
}

labels! {
    /// A static error label (free text never reaches the log).
    ErrorLabel {
        /// A compensation failed.
        CompensationFailed => "compensation failed",
    }
}

labels! {
    /// The `action` of a gc record.
    Action {
        /// Transactions were purged.
        Purged => "PURGED",
    }
}

/// The placeholder that replaces any command text; it is the only value `command` takes.
pub const REDACTED: &str = "<redacted>";

/// One compensation, as the audit log keeps it (no paths).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompensationRecord {
    /// How it protected the targets.
    pub strategy: Strategy,
    /// The transaction.
    pub txid: String,
    /// How far it got.
    pub status: CompensationStatus,
    /// Items moved (or refs kept).
    pub moved: usize,
    /// Items that could not be protected.
    pub skipped: usize,
    /// Items enumerated (clean-enumerate only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enumerated: Option<usize>,
    /// The snapshot commit (snapshot only; `null` for a clean tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha: Option<Option<String>>,
}

/// One audit record, as this tool writes it. `ts`, `schema` and `session` are stamped by the
/// log when absent; the chain fields (`seq`, `prev_sha256`, `key_id`, `torn_*`, `mac`) are
/// always set by the log itself, so a record read back from a chained log keeps them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AuditRecord {
    /// What it reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Event>,
    /// Which command wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
    /// The check it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_id: Option<String>,
    /// The decision class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<ReasonCode>,
    /// Always [`REDACTED`] when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The effective dialect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// The requested selector (an alias, or [`REDACTED`]); `null` when none was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect_requested: Option<Option<String>>,
    /// Whether the selector could be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect_outcome: Option<DialectOutcome>,
    /// Time to judge the line, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_latency_ms: Option<f64>,
    /// The session mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<SessionMode>,
    /// The phase of a `safe-delete` record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// Always empty when present (reasons may hold raw targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasons: Option<[(); 0]>,
    /// What `safe-delete` did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<SafeDeleteOutcome>,
    /// A static error label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorLabel>,
    /// The gc action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
    /// The transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txid: Option<String>,
    /// The approval an ASK can be approved with, or that an `ALLOW_APPROVED` check used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// A transaction named by something that is not an id, hashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txid_sha256: Option<String>,
    /// Transactions (gc's intent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txids: Option<Vec<String>>,
    /// Transactions that preserved occupants (`restore --force`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_txids: Option<Vec<String>>,
    /// Transactions gc purged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purged: Option<Vec<String>>,
    /// The compensations of an enforced check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compensations: Option<Vec<CompensationRecord>>,
    /// `--force`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// The restore succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// Targets in a batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_count: Option<usize>,
    /// Items moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_count: Option<usize>,
    /// Items not moved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped_count: Option<usize>,
    /// Items restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_count: Option<usize>,
    /// Restore conflicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_count: Option<usize>,
    /// Restore errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_count: Option<usize>,
    /// gc ids that were not found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_count: Option<usize>,
    /// When it was written (stamped by the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    /// The schema version (stamped by the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<u64>,
    /// The hashed session (stamped by the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The position in the chain (set by a chained log; see [`crate::chain`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// SHA-256 of the previous intact line (set by a chained log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev_sha256: Option<String>,
    /// The id of the key that made `mac` (set by a chained log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// SHA-256 of torn bytes before this record (set by a chained log after a crash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torn_sha256: Option<String>,
    /// The length of those torn bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torn_length: Option<u64>,
    /// The keyed MAC over the record's canonical form (set by a chained log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

impl AuditRecord {
    /// A record of `event` by `tool`.
    pub fn new(event: Event, tool: Tool) -> AuditRecord {
        AuditRecord {
            event: Some(event),
            tool: Some(tool),
            ..AuditRecord::default()
        }
    }

    /// The record as a JSON object (sorted keys).
    pub fn to_map(&self) -> serde_json::Map<String, serde_json::Value> {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project;

    /// Every field a typed record can hold survives the projection unchanged: nothing this
    /// tool writes can silently drop out of the log.
    #[test]
    fn a_full_record_survives_the_projection() {
        let compensation = CompensationRecord {
            strategy: Strategy::CleanEnumerate,
            txid: "20261201-000000-0000beef".into(),
            status: CompensationStatus::Partial,
            moved: 2,
            skipped: 1,
            enumerated: Some(3),
            sha: Some(None),
        };
        for event in Event::ALL {
            for tool in Tool::ALL {
                let record = AuditRecord {
                    check_id: Some("20261201-000000-0000cafe".into()),
                    decision: Some(Decision::Relocate),
                    code: Some(ReasonCode::RelocateTree),
                    command: Some(REDACTED.into()),
                    dialect: Some(Dialect::PowerShell),
                    dialect_requested: Some(Some("pwsh".into())),
                    dialect_outcome: Some(DialectOutcome::Ok),
                    guard_latency_ms: Some(1.5),
                    mode: Some(SessionMode::Restricted),
                    phase: Some(Phase::Complete),
                    reasons: Some([]),
                    outcome: Some(SafeDeleteOutcome::BlockedPartial),
                    error: Some(ErrorLabel::CompensationFailed),
                    action: Some(Action::Purged),
                    txid: Some("20261201-000000-000000aa".into()),
                    txid_sha256: Some("a".repeat(64)),
                    approval_id: Some("20261201-000000-0000abcd".into()),
                    txids: Some(vec!["20261201-000000-000000ab".into()]),
                    backup_txids: Some(vec!["20261201-000000-000000ac".into()]),
                    purged: Some(vec!["20261201-000000-000000ad".into()]),
                    compensations: Some(vec![compensation.clone()]),
                    force: Some(true),
                    ok: Some(false),
                    target_count: Some(1),
                    moved_count: Some(2),
                    skipped_count: Some(3),
                    restored_count: Some(4),
                    conflict_count: Some(5),
                    error_count: Some(6),
                    missing_count: Some(7),
                    ts: Some("2026-12-01T00:00:00Z".into()),
                    schema: Some(1),
                    session: Some(crate::session_hash("s")),
                    seq: Some(8),
                    prev_sha256: Some("b".repeat(64)),
                    key_id: Some("k1-0123456789abcdef".into()),
                    torn_sha256: Some("c".repeat(64)),
                    torn_length: Some(9),
                    mac: Some("d".repeat(64)),
                    ..AuditRecord::new(*event, *tool)
                };
                let map = record.to_map();
                assert_eq!(project(&map), map, "{event:?} {tool:?}");
            }
        }
        for label in SafeDeleteOutcome::parse("would relocate (RELOCATE_TREE)")
            .into_iter()
            .chain(SafeDeleteOutcome::parse("BLOCKED [BLOCK_WILDCARD]"))
        {
            let record = AuditRecord {
                outcome: Some(label),
                ..AuditRecord::new(Event::Outcome, Tool::SafeDelete)
            };
            assert_eq!(project(&record.to_map()), record.to_map());
        }
    }

    #[test]
    fn records_read_back() {
        let record = AuditRecord {
            code: Some(ReasonCode::BlockWildcard),
            ..AuditRecord::new(Event::EnforceBlock, Tool::Check)
        };
        let json = serde_json::to_string(&record).unwrap();
        assert_eq!(serde_json::from_str::<AuditRecord>(&json).unwrap(), record);
    }
}

//! Typed outcomes shared by the engine, the audit log and the front ends: process exit codes,
//! the dialect selector's outcome, and what `safe-delete` did.

use serde::{Deserialize, Serialize};

use crate::{Decision, ReasonCode};

/// A process exit code of the `agent-guard` commands. The numbers are a public contract.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success; advisory `check` (any decision); enforced `check` may proceed |
/// | 1 | internal error (outside hook mode); `restore` errors |
/// | 2 | usage error; enforced BLOCK; `safe-delete` refusal |
/// | 3 | enforced ASK; `restore` conflicts |
/// | 4 | `audit verify`: the chain is intact apart from a torn tail (a crash mid-append), repaired or pending |
/// | 5 | `audit verify`: the chain is tampered |
///
/// It serialises as its number (the `exit` field of every `--json` report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitCode {
    /// 0: success, or proceed.
    Success,
    /// 1: internal error; `restore` errors.
    InternalError,
    /// 2: refused (BLOCK) or usage error.
    Blocked,
    /// 3: a human must approve (ASK), or `restore` conflicts.
    Ask,
    /// 4: `audit verify` found a torn tail (repaired or pending) and nothing tampered.
    TornTail,
    /// 5: `audit verify` found a tampered record.
    Tampered,
}

impl ExitCode {
    /// The numeric value.
    pub const fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::InternalError => 1,
            ExitCode::Blocked => 2,
            ExitCode::Ask => 3,
            ExitCode::TornTail => 4,
            ExitCode::Tampered => 5,
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> std::process::ExitCode {
        std::process::ExitCode::from(code.code())
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ExitCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ExitCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The command's exit code: 0 done, 1 errors, 2 refused, 3 ask or conflicts, 4 torn audit tail, 5 tampered audit log.",
            "type": "integer",
            "enum": [0, 1, 2, 3, 4, 5],
        })
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for SafeDeleteOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SafeDeleteOutcome".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "What happened, in the reference tool's words: `relocated to quarantine`, `nothing to do (already absent)`, `would relocate (RELOCATE_TREE)`, `BLOCKED [CODE]`, `BLOCKED: …`.",
            "type": "string",
        })
    }
}

impl Serialize for ExitCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u8(self.code())
    }
}

/// Whether the dialect selector could be used (`check --json`'s `dialect_outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum DialectOutcome {
    /// The selector named a dialect (or there was none).
    Ok,
    /// The selector is unknown or malformed; the command was not classified.
    Unusable,
}

impl DialectOutcome {
    /// Every outcome.
    pub const ALL: &'static [DialectOutcome] = &[DialectOutcome::Ok, DialectOutcome::Unusable];

    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            DialectOutcome::Ok => "ok",
            DialectOutcome::Unusable => "unusable",
        }
    }
}

/// What `safe-delete` did (its `outcome` field). The texts are the reference tool's, a public
/// contract; a parametrised outcome names a decision and a code from their closed sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SafeDeleteOutcome {
    /// Nothing was requested.
    NothingToDo,
    /// Every pattern matched nothing.
    NoMatches,
    /// Every target was already gone.
    AlreadyAbsent,
    /// `--dry-run`: what would happen.
    Would(Decision, ReasonCode),
    /// Provably regenerable artifacts were deleted directly.
    DeletedRegenerable,
    /// Quarantined payload was deleted directly (housekeeping).
    DeletedHousekeeping,
    /// Everything was moved into the quarantine.
    Relocated,
    /// The policy refused the batch.
    Blocked(ReasonCode),
    /// The quarantine could not be prepared; nothing moved.
    BlockedPreflight,
    /// The durable intent record could not be written; nothing moved.
    BlockedAuditIntent,
    /// The quarantine ran out of space; what moved is restorable.
    BlockedStorage,
    /// Some targets could not be moved; what moved is restorable.
    BlockedPartial,
    /// A direct deletion failed.
    BlockedDirectFailed,
    /// The verdict's plan has nothing `safe-delete` can carry out.
    BlockedNothingToCompensate,
}

impl SafeDeleteOutcome {
    /// The outcomes without parameters.
    const FIXED: &'static [SafeDeleteOutcome] = &[
        SafeDeleteOutcome::NothingToDo,
        SafeDeleteOutcome::NoMatches,
        SafeDeleteOutcome::AlreadyAbsent,
        SafeDeleteOutcome::DeletedRegenerable,
        SafeDeleteOutcome::DeletedHousekeeping,
        SafeDeleteOutcome::Relocated,
        SafeDeleteOutcome::BlockedPreflight,
        SafeDeleteOutcome::BlockedAuditIntent,
        SafeDeleteOutcome::BlockedStorage,
        SafeDeleteOutcome::BlockedPartial,
        SafeDeleteOutcome::BlockedDirectFailed,
        SafeDeleteOutcome::BlockedNothingToCompensate,
    ];

    /// Whether the outcome refuses (exit 2).
    pub const fn is_refusal(self) -> bool {
        matches!(
            self,
            SafeDeleteOutcome::Blocked(_)
                | SafeDeleteOutcome::BlockedPreflight
                | SafeDeleteOutcome::BlockedAuditIntent
                | SafeDeleteOutcome::BlockedStorage
                | SafeDeleteOutcome::BlockedPartial
                | SafeDeleteOutcome::BlockedDirectFailed
                | SafeDeleteOutcome::BlockedNothingToCompensate
        )
    }

    /// Parses the text form; `None` for anything that is not an outcome.
    pub fn parse(text: &str) -> Option<SafeDeleteOutcome> {
        if let Some(fixed) = SafeDeleteOutcome::FIXED
            .iter()
            .copied()
            .find(|o| o.to_string() == text)
        {
            return Some(fixed);
        }
        if let Some(code) = text
            .strip_prefix("BLOCKED [")
            .and_then(|rest| rest.strip_suffix(']'))
        {
            return ReasonCode::parse(code).map(SafeDeleteOutcome::Blocked);
        }
        let rest = text.strip_prefix("would ")?.strip_suffix(')')?;
        let (decision, code) = rest.split_once(" (")?;
        Some(SafeDeleteOutcome::Would(
            Decision::parse(&decision.to_ascii_uppercase())?,
            ReasonCode::parse(code)?,
        ))
    }
}

impl std::fmt::Display for SafeDeleteOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SafeDeleteOutcome::NothingToDo => f.write_str("nothing to do"),
            SafeDeleteOutcome::NoMatches => f.write_str("nothing to do (no matches)"),
            SafeDeleteOutcome::AlreadyAbsent => f.write_str("nothing to do (already absent)"),
            SafeDeleteOutcome::Would(decision, code) => write!(
                f,
                "would {} ({code})",
                decision.as_str().to_ascii_lowercase()
            ),
            SafeDeleteOutcome::DeletedRegenerable => {
                f.write_str("deleted directly (provably regenerable)")
            }
            SafeDeleteOutcome::DeletedHousekeeping => {
                f.write_str("deleted directly (quarantine housekeeping)")
            }
            SafeDeleteOutcome::Relocated => f.write_str("relocated to quarantine"),
            SafeDeleteOutcome::Blocked(code) => write!(f, "BLOCKED [{code}]"),
            SafeDeleteOutcome::BlockedPreflight => {
                f.write_str("BLOCKED: quarantine preflight failed")
            }
            SafeDeleteOutcome::BlockedAuditIntent => {
                f.write_str("BLOCKED: durable audit intent failed")
            }
            SafeDeleteOutcome::BlockedStorage => {
                f.write_str("BLOCKED: quarantine cannot accept relocation")
            }
            SafeDeleteOutcome::BlockedPartial => {
                f.write_str("BLOCKED: partial relocation remains recoverable")
            }
            SafeDeleteOutcome::BlockedDirectFailed => {
                f.write_str("BLOCKED: direct deletion failed")
            }
            SafeDeleteOutcome::BlockedNothingToCompensate => {
                f.write_str("BLOCKED: nothing to compensate with")
            }
        }
    }
}

impl Serialize for SafeDeleteOutcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SafeDeleteOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        SafeDeleteOutcome::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown outcome `{text}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_stable() {
        let codes: Vec<u8> = [
            ExitCode::Success,
            ExitCode::InternalError,
            ExitCode::Blocked,
            ExitCode::Ask,
        ]
        .iter()
        .map(|c| c.code())
        .collect();
        assert_eq!(codes, [0, 1, 2, 3]);
        assert_eq!(serde_json::to_string(&ExitCode::Ask).unwrap(), "3");
    }

    #[test]
    fn outcomes_keep_the_reference_texts_and_parse_back() {
        assert_eq!(
            SafeDeleteOutcome::Relocated.to_string(),
            "relocated to quarantine"
        );
        let would = SafeDeleteOutcome::Would(Decision::Relocate, ReasonCode::RelocateTree);
        assert_eq!(would.to_string(), "would relocate (RELOCATE_TREE)");
        let blocked = SafeDeleteOutcome::Blocked(ReasonCode::BlockWildcard);
        assert_eq!(blocked.to_string(), "BLOCKED [BLOCK_WILDCARD]");
        for outcome in SafeDeleteOutcome::FIXED
            .iter()
            .copied()
            .chain([would, blocked])
        {
            assert_eq!(
                SafeDeleteOutcome::parse(&outcome.to_string()),
                Some(outcome)
            );
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(
                serde_json::from_str::<SafeDeleteOutcome>(&json).unwrap(),
                outcome
            );
        }
        assert_eq!(SafeDeleteOutcome::parse("BLOCKED [NOPE]"), None);
        assert_eq!(SafeDeleteOutcome::parse("relocated somewhere"), None);
        assert!(blocked.is_refusal() && !SafeDeleteOutcome::Relocated.is_refusal());
    }
}

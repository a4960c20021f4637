//! Compensation strategies and their statuses: how a destructive effect is made undoable.

use serde::{Deserialize, Serialize};

use crate::Plan;

/// How a compensation makes an effect undoable. The kebab-case names are a public contract
/// (`compensations[].strategy` in `check --json`, the audit log, the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Strategy {
    /// Move the targets into the quarantine.
    Relocate,
    /// Enumerate what `git clean` would remove, then relocate it.
    CleanEnumerate,
    /// Snapshot the tracked changes of the work tree under a private ref.
    Snapshot,
    /// Keep the commits of dropped refs (stash entries, branches) under private refs.
    PreserveRefs,
    /// Keep the current version of files a command overwrites or consumes.
    Preserve,
    /// Record the workspace as a checkpoint before a command whose effects are unknown.
    Checkpoint,
    /// Record where moved paths were and keep what their destinations held.
    Move,
    /// Dump a database before a command destroys data in it.
    DatabaseDump,
}

impl Strategy {
    /// Every strategy.
    pub const ALL: &'static [Strategy] = &[
        Strategy::Relocate,
        Strategy::CleanEnumerate,
        Strategy::Snapshot,
        Strategy::PreserveRefs,
        Strategy::Preserve,
        Strategy::Checkpoint,
        Strategy::Move,
        Strategy::DatabaseDump,
    ];

    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Strategy::Relocate => "relocate",
            Strategy::CleanEnumerate => "clean-enumerate",
            Strategy::Snapshot => "snapshot",
            Strategy::PreserveRefs => "preserve-refs",
            Strategy::Preserve => "preserve",
            Strategy::Checkpoint => "checkpoint",
            Strategy::Move => "move",
            Strategy::DatabaseDump => "database-dump",
        }
    }

    /// Parses a stable name.
    pub fn parse(name: &str) -> Option<Strategy> {
        Strategy::ALL.iter().copied().find(|s| s.as_str() == name)
    }

    /// The strategy that carries out `plan`, or `None` when the plan compensates nothing
    /// ([`Plan::Nothing`], and [`Plan::Direct`], whose deletion the command itself does).
    pub fn for_plan(plan: &Plan) -> Option<Strategy> {
        match plan {
            Plan::Nothing | Plan::Direct(_) => None,
            Plan::Relocate(_) => Some(Strategy::Relocate),
            Plan::CleanEnumerate { .. } => Some(Strategy::CleanEnumerate),
            Plan::Snapshot { .. } => Some(Strategy::Snapshot),
            Plan::PreserveRefs { .. } => Some(Strategy::PreserveRefs),
            Plan::Preserve(_) => Some(Strategy::Preserve),
            Plan::Checkpoint(_) => Some(Strategy::Checkpoint),
            Plan::Move(_) => Some(Strategy::Move),
            Plan::DatabaseDump(_) => Some(Strategy::DatabaseDump),
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How far a compensation got. The kebab-case names are a public contract
/// (`compensations[].status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum CompensationStatus {
    /// Begun; still the status if a failure aborted the line before it finished.
    Started,
    /// Everything it had to protect is protected.
    Complete,
    /// Some items are protected, some are not; what moved stays restorable.
    Partial,
    /// The quarantine ran out of space.
    StorageFailed,
    /// Nothing could be protected.
    Failed,
    /// Was started when another compensation's failure aborted the line.
    Incomplete,
}

impl CompensationStatus {
    /// Every status.
    pub const ALL: &'static [CompensationStatus] = &[
        CompensationStatus::Started,
        CompensationStatus::Complete,
        CompensationStatus::Partial,
        CompensationStatus::StorageFailed,
        CompensationStatus::Failed,
        CompensationStatus::Incomplete,
    ];

    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            CompensationStatus::Started => "started",
            CompensationStatus::Complete => "complete",
            CompensationStatus::Partial => "partial",
            CompensationStatus::StorageFailed => "storage-failed",
            CompensationStatus::Failed => "failed",
            CompensationStatus::Incomplete => "incomplete",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_serde() {
        for strategy in Strategy::ALL {
            let json = serde_json::to_string(strategy).unwrap();
            assert_eq!(json, format!("\"{}\"", strategy.as_str()));
            assert_eq!(Strategy::parse(strategy.as_str()), Some(*strategy));
        }
        for status in CompensationStatus::ALL {
            let json = serde_json::to_string(status).unwrap();
            assert_eq!(json, format!("\"{}\"", status.as_str()));
        }
    }

    #[test]
    fn plans_name_their_strategy() {
        assert_eq!(Strategy::for_plan(&Plan::Nothing), None);
        assert_eq!(Strategy::for_plan(&Plan::Direct(Vec::new())), None);
        assert_eq!(
            Strategy::for_plan(&Plan::Relocate(Vec::new())),
            Some(Strategy::Relocate)
        );
    }
}

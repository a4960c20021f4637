//! Decision classes and their ranking.

use serde::{Deserialize, Serialize};

/// The class of a verdict: what happens to the command.
///
/// The stable strings (`ALLOW`, `RELOCATE`, …) are a public contract shared with the reference
/// tool. Ranks order the classes for aggregation: the verdict of a command line is the
/// highest-ranked verdict of its operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Decision {
    /// Run the command unchanged.
    Allow,
    /// Exfil-guard only: rewrite a payload. Never produced by the delete guard.
    Sanitize,
    /// Move the targets into the quarantine first, then run the command.
    Relocate,
    /// Snapshot git state first, then run the command.
    Snapshot,
    /// The effect is understood but cannot be compensated: a human must approve it once.
    Ask,
    /// Refuse the command.
    Block,
}

impl Decision {
    /// Every decision class, in rank order.
    pub const ALL: [Decision; 6] = [
        Decision::Allow,
        Decision::Sanitize,
        Decision::Relocate,
        Decision::Snapshot,
        Decision::Ask,
        Decision::Block,
    ];

    /// Returns the numeric rank used for aggregation (`ALLOW`=0 … `BLOCK`=4).
    ///
    /// `RELOCATE` and `SNAPSHOT` share rank 2; ties keep the first verdict in line order.
    pub const fn rank(self) -> u8 {
        match self {
            Decision::Allow => 0,
            Decision::Sanitize => 1,
            Decision::Relocate | Decision::Snapshot => 2,
            Decision::Ask => 3,
            Decision::Block => 4,
        }
    }

    /// Returns the stable upper-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "ALLOW",
            Decision::Sanitize => "SANITIZE",
            Decision::Relocate => "RELOCATE",
            Decision::Snapshot => "SNAPSHOT",
            Decision::Ask => "ASK",
            Decision::Block => "BLOCK",
        }
    }

    /// Parses a stable name; returns `None` for anything else.
    pub fn parse(text: &str) -> Option<Decision> {
        Decision::ALL.into_iter().find(|d| d.as_str() == text)
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_the_contract() {
        assert!(Decision::Allow.rank() < Decision::Sanitize.rank());
        assert!(Decision::Sanitize.rank() < Decision::Relocate.rank());
        assert_eq!(Decision::Relocate.rank(), Decision::Snapshot.rank());
        assert!(Decision::Snapshot.rank() < Decision::Ask.rank());
        assert!(Decision::Ask.rank() < Decision::Block.rank());
    }

    #[test]
    fn names_round_trip_through_serde_and_parse() {
        for d in Decision::ALL {
            let json = serde_json::to_string(&d).unwrap();
            assert_eq!(json, format!("\"{}\"", d.as_str()));
            assert_eq!(Decision::parse(d.as_str()), Some(d));
        }
        assert_eq!(Decision::parse("allow"), None);
    }
}

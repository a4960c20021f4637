//! What a line would destroy that the guard cannot keep before it runs: named in the
//! question a person answers (ASK), and in `check --json` as `not_kept`.

use serde::{Deserialize, Serialize};

/// Why something a line would destroy cannot be kept before it runs. The kebab-case names
/// are a public contract (`not_kept[].why` in `check --json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum UnkeptWhy {
    /// A file larger than `[preserve] max_bytes` that neither a hard link nor a reflink can
    /// keep.
    OverPreserveCap,
    /// Files larger than `[checkpoint] max_file_bytes`: the checkpoint lists them without
    /// their content.
    OverCheckpointCap,
    /// The effect may reach outside the workspace (a directory change the guard cannot
    /// follow, a target that leads out), where nothing is kept.
    OutsideWorkspace,
    /// Only a workspace checkpoint could keep it, and checkpoints are off
    /// (`[checkpoint] mode = "never"`).
    CheckpointsOff,
    /// Git refs (stash entries, branches) a line drops after a directory change: a
    /// checkpoint keeps files, not refs.
    GitRefs,
    /// A compensation failed before the question was put.
    NotKept,
}

impl UnkeptWhy {
    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            UnkeptWhy::OverPreserveCap => "over-preserve-cap",
            UnkeptWhy::OverCheckpointCap => "over-checkpoint-cap",
            UnkeptWhy::OutsideWorkspace => "outside-workspace",
            UnkeptWhy::CheckpointsOff => "checkpoints-off",
            UnkeptWhy::GitRefs => "git-refs",
            UnkeptWhy::NotKept => "not-kept",
        }
    }
}

/// One thing a line would destroy that cannot be kept first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Unkept {
    /// What it is, for a person: a workspace-relative path in backticks, or a description
    /// that echoes no command text ("what the delete after the directory change removes
    /// outside the workspace").
    pub what: String,
    /// Its size in bytes, when it is one file of known size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Why it cannot be kept.
    pub why: UnkeptWhy,
}

impl Unkept {
    /// Creates an entry with no size.
    pub fn new(what: impl Into<String>, why: UnkeptWhy) -> Unkept {
        Unkept {
            what: what.into(),
            size: None,
            why,
        }
    }

    /// Sets the size.
    #[must_use]
    pub fn sized(mut self, size: u64) -> Unkept {
        self.size = Some(size);
        self
    }

    /// The phrase a question shows: `` `big.bin` (300.0 MiB) `` or the description.
    pub fn phrase(&self) -> String {
        match self.size {
            Some(size) => format!("{} ({})", self.what, human_bytes(size)),
            None => self.what.clone(),
        }
    }
}

/// `size` in the largest binary unit that keeps it at one or more (`1.5 MiB`).
pub fn human_bytes(size: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    #[expect(
        clippy::cast_precision_loss,
        reason = "a human-readable size needs one decimal"
    )]
    let mut value = size as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{size} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_name_the_size() {
        let big = Unkept::new("`big.bin`", UnkeptWhy::OverPreserveCap).sized(3 * 1024 * 1024);
        assert_eq!(big.phrase(), "`big.bin` (3.0 MiB)");
        assert_eq!(human_bytes(12), "12 bytes");
        let json = serde_json::to_value(&big).unwrap();
        assert_eq!(json["why"], "over-preserve-cap");
        assert_eq!(json["size"], 3 * 1024 * 1024);
    }
}

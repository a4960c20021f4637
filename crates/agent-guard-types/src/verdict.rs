//! Verdicts: a decision, its reason code and the compensation plan.

use std::path::PathBuf;

use crate::{Decision, PathSpec, ReasonCode, Unkept};

/// What the recovery engine must do before the command may run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Plan {
    /// Nothing to compensate.
    #[default]
    Nothing,
    /// Move these existing paths into the quarantine.
    Relocate(Vec<PathSpec>),
    /// The command deletes these paths directly (regenerable artifacts, quarantine
    /// housekeeping); no compensation, but a durable intent record first.
    Direct(Vec<PathSpec>),
    /// Enumerate what `git clean` would remove, then relocate it.
    CleanEnumerate {
        /// The directory git runs in.
        cwd: PathBuf,
        /// Scope flags (`-d`, `-x`, `-X`).
        flags: Vec<String>,
        /// Literal pathspecs.
        pathspecs: Vec<String>,
    },
    /// Snapshot the work tree's tracked changes.
    Snapshot {
        /// The directory git runs in.
        cwd: PathBuf,
        /// The revision whose content the command writes into the work tree: the
        /// `reset --hard` target, or `git restore --source`'s revision.
        reset_target: Option<String>,
        /// The pathspecs being discarded, if the op is limited to paths.
        pathspecs: Vec<String>,
    },
    /// Keep the current version of existing paths a command overwrites or consumes, leaving
    /// them where they are: hard-linked into the quarantine when the line only replaces the
    /// name, else reflinked where the filesystem can, else copied.
    Preserve(Vec<Preserved>),
    /// Record the whole workspace as a checkpoint (what the command will change cannot be
    /// named beforehand).
    Checkpoint(CheckpointPlan),
    /// Record where the paths a line moves are, and keep what their destinations hold, so
    /// that undo moves each one back (nothing is taken away).
    Move(MovePlan),
    /// Dump a database the command destroys data in (`pg_dump -Fc`, `mysqldump`) into the
    /// store first; `undo` restores the dump.
    DatabaseDump(crate::Database),
    /// Keep the commits a ref-deleting command would drop, under private refs.
    PreserveRefs {
        /// The directory git runs in.
        cwd: PathBuf,
        /// Stash entries (`stash@{n}`; empty means every entry) or branch names.
        refs: Vec<String>,
        /// `true` for stash entries, `false` for branches.
        stash: bool,
        /// `true` to keep every reflog of the repository too (lines and commits), so that
        /// restore writes back what the command drops with a ref or expires.
        reflogs: bool,
        /// Symbolic refs by full name (`HEAD`, `refs/remotes/origin/HEAD`): the ref each
        /// names is kept.
        symbolic: Vec<String>,
    },
}

impl Plan {
    /// Whether carrying the plan out takes something away from the workspace before the
    /// command runs: a relocation moves its targets into the quarantine (so does
    /// `git clean`'s enumeration). Every other plan only adds (links, copies, private refs,
    /// a checkpoint) and may run before a person who can still say no has answered.
    pub fn takes_away(&self) -> bool {
        matches!(self, Plan::Relocate(_) | Plan::CleanEnumerate { .. })
    }
}

/// What a [`Plan::Checkpoint`] keeps: every file of the workspace but `.git`, the quarantine
/// and regenerable artifacts; files over the cap are listed without their content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointPlan {
    /// Artifact patterns: what matches one, is ignored by git and holds no tracked file is
    /// regenerable and left out.
    pub artifacts: Vec<String>,
    /// Leave regenerable artifacts out (regenerable deletion is enabled).
    pub skip_regenerable: bool,
    /// Files larger than this are listed as not kept.
    pub max_file_bytes: u64,
}

/// What a [`Plan::Move`] records before a line moves or renames paths: one plan for every
/// move of the line, so that one undo reverses them together (a chain `mv a b && mv b c`,
/// a swap through a temporary name).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MovePlan {
    /// Each existing path inside the workspace that leaves its name.
    pub sources: Vec<MovedSource>,
    /// Every path a source may land on, as it is now. Inside the workspace, an absent one is
    /// made absent again by undo and an empty directory is made again; outside, it is only
    /// where undo looks for a moved source.
    pub destinations: Vec<PathSpec>,
    /// The existing files and symlinks the destinations would replace: kept first, as a
    /// [`Plan::Preserve`] keeps them.
    pub kept: Vec<Preserved>,
    /// The line moves index entries too (`git mv`): the index is kept first, so that undo
    /// puts the moved entries back.
    pub index: bool,
}

/// One source of a [`MovePlan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovedSource {
    /// The path's facts.
    pub spec: PathSpec,
    /// A copy is kept too: the source may land outside the workspace (where the guard does
    /// not follow it) or on another filesystem (where it is a new file).
    pub copy: bool,
    /// The largest tree copied byte by byte when [`MovedSource::copy`] is set.
    pub max_copy: u64,
    /// Where this source may land (physical), looked at first when undo looks for it: two
    /// names of one file, moved apart, are told apart by where each went.
    pub landings: Vec<std::path::PathBuf>,
}

/// One path whose current version a [`Plan::Preserve`] keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preserved {
    /// The path's facts (what the world found).
    pub spec: PathSpec,
    /// How the command treats it.
    pub mode: crate::WriteMode,
    /// A hard link keeps this version: the line only replaces the name (a rename over it,
    /// an unlink first) and nothing else in it writes, reads or counts the links of this
    /// file, so the old inode stays as it is. Otherwise it is reflinked or copied.
    pub link: bool,
    /// The largest size copied byte by byte (when neither a link nor a reflink can keep
    /// it); a larger file is not kept, and the line is asked about instead.
    pub max_copy: u64,
}

/// The verdict on one operation (or on a whole line, after aggregation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The decision class.
    pub decision: Decision,
    /// The stable reason code.
    pub code: ReasonCode,
    /// Index of the op this verdict is about, when it is about one.
    pub op_index: Option<usize>,
    /// Internal notes (may contain raw target text; never echoed by `check`).
    pub reasons: Vec<String>,
    /// The compensation plan. For an ASK, what can be kept without taking anything away
    /// (a person may still say no): a workspace checkpoint, the files that fit the
    /// preservation cap.
    pub plan: Plan,
    /// What the plan cannot keep (an ASK's question names it: "if you approve, … cannot be
    /// restored").
    pub unkept: Vec<Unkept>,
}

impl Verdict {
    /// Creates a verdict whose decision is the code's own class and with no plan.
    pub fn of(code: ReasonCode) -> Verdict {
        Verdict {
            decision: code.decision(),
            code,
            op_index: None,
            reasons: Vec::new(),
            plan: Plan::Nothing,
            unkept: Vec::new(),
        }
    }

    /// Adds a reason note.
    #[must_use]
    pub fn because(mut self, reason: impl Into<String>) -> Verdict {
        self.reasons.push(reason.into());
        self
    }

    /// Sets the plan.
    #[must_use]
    pub fn with_plan(mut self, plan: Plan) -> Verdict {
        self.plan = plan;
        self
    }

    /// Adds what the plan cannot keep.
    #[must_use]
    pub fn not_keeping(mut self, unkept: impl IntoIterator<Item = Unkept>) -> Verdict {
        self.unkept.extend(unkept);
        self
    }

    /// Sets the op index.
    #[must_use]
    pub fn for_op(mut self, index: usize) -> Verdict {
        self.op_index = Some(index);
        self
    }

    /// Returns the highest-ranked verdict; ties keep the first in order. `None` when empty.
    pub fn worst(verdicts: &[Verdict]) -> Option<&Verdict> {
        let mut best: Option<&Verdict> = None;
        for verdict in verdicts {
            if best.is_none_or(|b| verdict.decision.rank() > b.decision.rank()) {
                best = Some(verdict);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_takes_highest_rank_and_first_on_ties() {
        let list = vec![
            Verdict::of(ReasonCode::RelocateTree).for_op(0),
            Verdict::of(ReasonCode::SnapshotGitStash).for_op(1),
            Verdict::of(ReasonCode::AllowNoop).for_op(2),
        ];
        assert_eq!(Verdict::worst(&list).unwrap().op_index, Some(0));
        let list = vec![
            Verdict::of(ReasonCode::RelocateTree),
            Verdict::of(ReasonCode::BlockWildcard),
            Verdict::of(ReasonCode::BlockOutOfWorkspace),
        ];
        assert_eq!(
            Verdict::worst(&list).unwrap().code,
            ReasonCode::BlockWildcard
        );
        assert!(Verdict::worst(&[]).is_none());
    }
}

//! Commits a git command writes into the work tree: the facts behind comparing the hook
//! files of the commit the work tree moves to with the ones it has (issue 35).

use serde::{Deserialize, Serialize};

use crate::Target;

/// A commit (or tree) whose content a git command writes into the work tree, as the
/// classifier read it from the command: `git checkout main`, `git merge topic`, `git pull`,
/// `git cherry-pick abc123`, `git stash apply`. The world says which guard files it would
/// change ([`World::guard_tree_changes`](crate::World::guard_tree_changes)); the policy
/// decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts about how git reaches one commit, not a state machine"
)]
pub struct TreeSource {
    /// The revision as written, for git to resolve (`main`, `HEAD~2`, `@{u}`, `@{-1}`,
    /// `stash@{1}`, `origin/main`; a [`TreePart::Change`] may name a range, `A..B` or
    /// `^A B`); `None` for the empty tree (`git switch --orphan`, the tracked files
    /// `git rm` removes).
    pub rev: Option<Target>,
    /// What of it reaches the work tree.
    pub part: TreePart,
    /// Only the op's targets (pathspecs) are written (`git checkout REV -- paths`,
    /// `git restore --source REV paths`, `git rm paths`); otherwise the whole tree.
    #[serde(default)]
    pub limited: bool,
    /// git fetches the commit first (`git pull`): what the guard compares is the ref as it is
    /// before the fetch, and a ref that is not there yet is not a failure git will report.
    #[serde(default)]
    pub fetched: bool,
    /// A name git may also read as a remote branch to start a local one from (`git checkout
    /// topic`, `git switch topic`, when `origin/topic` is the only such branch).
    #[serde(default)]
    pub guess: bool,
    /// A command before it in the line may make or move the ref (`git fetch && git checkout
    /// topic`, `git branch x evil; git checkout x`, a script): one that does not resolve
    /// now is not a failure git will report.
    #[serde(default)]
    pub made_earlier: bool,
}

impl TreeSource {
    /// A source of the whole tree of `rev` with what `part` says.
    pub fn new(rev: Target, part: TreePart) -> TreeSource {
        TreeSource {
            rev: Some(rev),
            part,
            limited: false,
            fetched: false,
            guess: false,
            made_earlier: false,
        }
    }

    /// The empty tree: every tracked file goes (`git switch --orphan`; limited to its
    /// pathspecs, what `git rm` removes).
    pub fn empty_tree() -> TreeSource {
        TreeSource {
            rev: None,
            part: TreePart::Whole,
            limited: false,
            fetched: false,
            guess: false,
            made_earlier: false,
        }
    }

    /// The same source, limited to the op's pathspecs.
    #[must_use]
    pub fn limited(mut self) -> TreeSource {
        self.limited = true;
        self
    }
}

/// What of a [`TreeSource`]'s commit reaches the work tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum TreePart {
    /// The work tree becomes the commit's tree, or passes through it: `checkout`,
    /// `switch`, `reset --hard|--keep|--merge`, `read-tree -u`, `rebase` (which starts
    /// from its new base and stays there when it stops), a rebasing `pull`.
    Whole,
    /// The commit is merged in: what changed on its side since the merge base, where the
    /// work tree does not have it already (`merge`, `pull`). For a pull the world reads
    /// `pull.rebase` and `branch.<name>.rebase`: a rebasing pull is judged as
    /// [`TreePart::Whole`].
    Merged,
    /// The commit's own change against its first parent is applied or reversed
    /// (`cherry-pick`, `revert`); for a range, each commit's.
    Change,
    /// A stash entry is applied: its change against the commit it was made on, its index,
    /// and the untracked files it holds (`stash apply`, `stash pop`).
    Stash,
}

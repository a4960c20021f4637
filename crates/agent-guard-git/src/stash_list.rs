//! The stash list: `refs/stash` and its reflog, read and re-inserted into through git2.
//!
//! `stash@{n}` is the n-th newest entry of the reflog of `refs/stash`; `refs/stash` itself
//! points to the newest one.

use git2::{ErrorCode, Oid, Signature};

use crate::WorkTree;
use crate::error::GitError;

/// The stash ref.
pub(crate) const STASH_REF: &str = "refs/stash";

/// One entry of the stash list.
pub(crate) struct StashEntry {
    /// The stash commit.
    pub(crate) id: Oid,
    /// The reflog message (`WIP on main: …`, `On main: <message>`).
    pub(crate) message: Option<String>,
    /// Who stored it, and when.
    committer: Signature<'static>,
}

impl std::fmt::Debug for StashEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StashEntry")
            .field("id", &self.id)
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

/// The stash list, newest first (`stash@{0}` first).
pub(crate) fn read(tree: &WorkTree) -> Result<Vec<StashEntry>, GitError> {
    let reflog = match tree.repo.reflog(STASH_REF) {
        Ok(reflog) => reflog,
        Err(error) if error.code() == ErrorCode::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(GitError::Git {
                action: "read the stash list",
                path: tree.root.clone(),
                source,
            });
        }
    };
    Ok(reflog
        .iter()
        .map(|entry| StashEntry {
            id: entry.id_new(),
            message: entry.message().map(str::to_owned),
            committer: entry.committer().to_owned(),
        })
        .collect())
}

/// Parses a `git stash drop` selector into a position: `stash@{n}`, `refs/stash@{n}` or a
/// bare `n`. Anything else (dates, `stash`, a commit) is `None`.
pub(crate) fn parse_selector(selector: &str) -> Option<usize> {
    let digits = selector
        .strip_prefix("refs/stash@{")
        .or_else(|| selector.strip_prefix("stash@{"))
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(selector);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Puts `id` back into the stash list at `position` (or at the oldest end when the list is
/// shorter now), with `message` and `committer` (who stored it, and when), the way `git stash store` would at position 0: `refs/stash`
/// points to the newest entry and the reflog lists every entry. Earlier entries keep their
/// messages, identities and times.
pub(crate) fn insert(
    tree: &WorkTree,
    position: usize,
    id: Oid,
    message: &str,
    committer: Signature<'static>,
) -> Result<(), GitError> {
    let mut entries = read(tree)?;
    let position = position.min(entries.len());
    entries.insert(
        position,
        StashEntry {
            id,
            message: Some(message.to_owned()),
            committer,
        },
    );
    if position == 0 {
        tree.repo
            .reference(STASH_REF, id, true, message)
            .map_err(tree.error("update refs/stash"))?;
    }
    // Updating the ref may have appended its own reflog entry (or created none, after
    // `git stash clear` deleted the log): rewrite the whole reflog from the list.
    let mut reflog = tree
        .repo
        .reflog(STASH_REF)
        .map_err(tree.error("read the stash list"))?;
    while !reflog.is_empty() {
        reflog
            .remove(0, false)
            .map_err(tree.error("rewrite the stash list"))?;
    }
    for entry in entries.iter().rev() {
        reflog
            .append(entry.id, &entry.committer, entry.message.as_deref())
            .map_err(tree.error("rewrite the stash list"))?;
    }
    reflog.write().map_err(tree.error("write the stash list"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        assert_eq!(parse_selector("stash@{0}"), Some(0));
        assert_eq!(parse_selector("stash@{12}"), Some(12));
        assert_eq!(parse_selector("refs/stash@{3}"), Some(3));
        assert_eq!(parse_selector("2"), Some(2));
        for bad in [
            "",
            "stash",
            "stash@{}",
            "stash@{-1}",
            "stash@{1.day.ago}",
            "HEAD",
            "1a",
            "stash@{1",
        ] {
            assert_eq!(parse_selector(bad), None, "{bad:?}");
        }
    }
}

//! Kept refs: stash entries and branches preserved before a command drops them, put back on
//! restore, and deleted with their transaction.

use std::collections::BTreeSet;
use std::path::Path;

use agent_guard_types::TxId;
use git2::{ErrorCode, Oid};

use crate::error::GitError;
use crate::snapshot::{create_private_ref, delete_refs};
use crate::{
    GitItem, GitRestore, KeptRef, REF_NAMESPACE, RefSubject, Subject, WorkTree, branch_ref,
    stash_list, stash_ref,
};

/// The message of a restored stash entry whose original message is unknown.
const RESTORE_MESSAGE: &str = "agent-guard restore";

/// A ref about to be kept, with the stash message to remember.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keep {
    /// The ref and its commit.
    pub kept: KeptRef,
    /// A stash entry's message.
    pub note: Option<String>,
}

/// Resolves what a ref-dropping command would lose into the refs that will keep it:
/// `refs/agent-guard/stash/<txid>/<n>` or `refs/agent-guard/branches/<txid>/<name>`.
///
/// Stash selectors are resolved against the current stash list; two selectors naming the
/// same entry keep it once. `git stash clear` on an empty list keeps nothing.
///
/// # Errors
/// A selector or branch that does not resolve (git would drop nothing, but we cannot know
/// what was meant).
pub fn resolve_keeps(
    tree: &WorkTree,
    txid: &TxId,
    subject: &RefSubject,
) -> Result<Vec<Keep>, GitError> {
    match subject {
        RefSubject::StashEntries(selectors) => stash_keeps(tree, txid, Some(selectors)),
        RefSubject::AllStashEntries => stash_keeps(tree, txid, None),
        RefSubject::Branches(names) => branch_keeps(tree, txid, names),
        RefSubject::AllReflogs => crate::reflog::reflog_keeps(tree, txid),
        RefSubject::Symbolic(names) => crate::symbolic::symbolic_keeps(tree, txid, names),
    }
}

/// Creates the private refs of `keeps`; returns the refs it created (not those already in
/// place), so that a caller whose record fails can [`delete_refs`] them again.
///
/// # Errors
/// A private ref that exists with another commit, or a ref that cannot be written; the refs
/// this call created are removed again.
pub fn create_kept_refs(tree: &WorkTree, keeps: &[Keep]) -> Result<Vec<String>, GitError> {
    let mut created = Vec::new();
    for keep in keeps.iter().filter(|keep| !keep.kept.refname.is_empty()) {
        let made = Oid::from_str(&keep.kept.sha)
            .map_err(tree.error("parse a kept commit id"))
            .and_then(|target| {
                let message = format!(
                    "agent-guard: keep {} {}",
                    keep.kept.subject.as_str(),
                    keep.kept.name
                );
                create_private_ref(tree, &keep.kept.refname, target, &message)
            });
        match made {
            Ok(true) => created.push(keep.kept.refname.clone()),
            Ok(false) => {}
            Err(error) => {
                delete_refs(tree, &created);
                return Err(error);
            }
        }
    }
    Ok(created)
}

/// Deletes the private refs (`refs/agent-guard/…`) of purged items whose repositories still
/// exist; returns how many were deleted. A ref that was moved to another commit since is
/// left alone.
///
/// # Errors
/// An existing repository that cannot be opened, or a ref that cannot be deleted.
pub fn drop_private_refs(items: &[GitItem], user_dir: Option<&Path>) -> Result<usize, GitError> {
    let mut dropped = 0;
    for item in items {
        let Some(refname) = &item.refname else {
            continue;
        };
        if !refname.starts_with(REF_NAMESPACE) || item.repository.symlink_metadata().is_err() {
            continue;
        }
        let tree = WorkTree::discover(&item.repository, user_dir)?;
        let mut reference = match tree.repo.find_reference(refname) {
            Ok(reference) => reference,
            Err(error) if error.code() == ErrorCode::NotFound => continue,
            Err(source) => {
                return Err(GitError::Git {
                    action: "look up a private ref",
                    path: tree.root.clone(),
                    source,
                });
            }
        };
        if reference.target().map(|id| id.to_string()).as_deref() != Some(item.sha.as_str()) {
            continue;
        }
        reference
            .delete()
            .map_err(tree.error("delete a private ref"))?;
        dropped += 1;
    }
    Ok(dropped)
}

/// The stash entries to keep: the selected positions, or all of them.
fn stash_keeps(
    tree: &WorkTree,
    txid: &TxId,
    selectors: Option<&Vec<String>>,
) -> Result<Vec<Keep>, GitError> {
    let entries = stash_list::read(tree)?;
    let positions: BTreeSet<usize> = match selectors {
        None => (0..entries.len()).collect(),
        Some(selectors) if selectors.is_empty() => {
            resolve_selector(tree, &entries, "stash@{0}").map(|p| BTreeSet::from([p]))?
        }
        Some(selectors) => selectors
            .iter()
            .map(|s| resolve_selector(tree, &entries, s))
            .collect::<Result<_, _>>()?,
    };
    Ok(positions
        .into_iter()
        .map(|position| Keep {
            kept: KeptRef {
                subject: Subject::Stash,
                name: format!("stash@{{{position}}}"),
                sha: entries[position].id.to_string(),
                refname: stash_ref(txid.as_str(), position),
            },
            note: entries[position].message.clone(),
        })
        .collect())
}

fn resolve_selector(
    tree: &WorkTree,
    entries: &[stash_list::StashEntry],
    selector: &str,
) -> Result<usize, GitError> {
    stash_list::parse_selector(selector)
        .filter(|p| *p < entries.len())
        .ok_or_else(|| GitError::UnknownRef {
            selector: selector.to_owned(),
            subject: "stash entry",
            path: tree.root.clone(),
        })
}

/// The branches (and full refs) to keep, each resolved to what it points to.
fn branch_keeps(tree: &WorkTree, txid: &TxId, names: &[String]) -> Result<Vec<Keep>, GitError> {
    let mut seen = BTreeSet::new();
    let mut keeps = Vec::new();
    for name in &expand_prefixes(tree, names)? {
        let (subject, short, full) = match name.strip_prefix("refs/heads/") {
            Some(short) => (Subject::Branch, short.to_owned(), name.clone()),
            // A detached `HEAD` a symbolic-ref turns into a link is kept by its full name too.
            None if name.starts_with("refs/") || name == "HEAD" => {
                (Subject::Ref, name.clone(), name.clone())
            }
            None => (Subject::Branch, name.clone(), format!("refs/heads/{name}")),
        };
        if !seen.insert(full.clone()) {
            continue;
        }
        let unknown = || GitError::UnknownRef {
            selector: name.clone(),
            subject: subject.as_str(),
            path: tree.root.clone(),
        };
        if !git2::Reference::is_valid_name(&full) {
            return Err(unknown());
        }
        if crate::symbolic::is_symbolic(tree, &full) {
            // `update-ref -d refs/remotes/origin/HEAD` deletes the ref it names: the link
            // and that ref are kept.
            keeps.extend(crate::symbolic::symbolic_keeps(tree, txid, &[full])?);
            continue;
        }
        let target = match tree.repo.find_reference(&full).and_then(|r| r.resolve()) {
            Ok(reference) => reference.target().ok_or_else(unknown)?,
            // A ref that does not exist has nothing to lose: `branch -f new`, `checkout -B
            // new`, `tag -f new` and `update-ref refs/heads/new` create it.
            Err(error) if error.code() == ErrorCode::NotFound => continue,
            Err(source) => {
                return Err(GitError::Git {
                    action: "resolve a ref",
                    path: tree.root.clone(),
                    source,
                });
            }
        };
        let refname = match subject {
            Subject::Ref => crate::other_ref(txid.as_str(), &full),
            _ => branch_ref(txid.as_str(), &short),
        };
        keeps.push(Keep {
            kept: KeptRef {
                subject,
                name: short,
                sha: target.to_string(),
                refname,
            },
            note: None,
        });
    }
    Ok(keeps)
}

/// The names with every `refs/…/` prefix replaced by the refs under it (the private
/// namespace left out).
fn expand_prefixes(tree: &WorkTree, names: &[String]) -> Result<Vec<String>, GitError> {
    let mut out = Vec::new();
    for name in names {
        if !(name.starts_with("refs/") && name.ends_with('/')) {
            out.push(name.clone());
            continue;
        }
        let references = tree
            .repo
            .references_glob(&format!("{name}*"))
            .map_err(tree.error("list refs"))?;
        for reference in references {
            let reference = reference.map_err(tree.error("list refs"))?;
            let Some(full) = reference.name() else {
                continue;
            };
            // A symbolic one (`refs/remotes/origin/HEAD`) is kept as a link, by
            // `branch_keeps`.
            if !full.starts_with(REF_NAMESPACE) {
                out.push(full.to_owned());
            }
        }
    }
    Ok(out)
}

/// The full ref name a kept branch or ref is restored to.
pub fn kept_ref_name(subject: Subject, name: &str) -> String {
    match subject {
        Subject::Ref | Subject::Symbolic => name.to_owned(),
        _ => format!("refs/heads/{name}"),
    }
}

/// Puts a kept stash entry back into the stash list at its old position, unless an entry
/// with that commit is already listed.
pub(crate) fn restore_stash_entry(tree: &WorkTree, item: &GitItem, out: &mut GitRestore) {
    let sha = item.sha.as_str();
    let label = format!("stash:{sha}");
    let result = (|| {
        let id = Oid::from_str(sha).map_err(tree.error("parse a kept commit id"))?;
        if stash_list::read(tree)?.iter().any(|entry| entry.id == id) {
            return Ok(());
        }
        let commit = tree
            .repo
            .find_commit(id)
            .map_err(tree.error("find a kept stash entry"))?;
        let message = item
            .note
            .clone()
            .or_else(|| commit.summary().map(str::to_owned))
            .unwrap_or_else(|| RESTORE_MESSAGE.to_owned());
        let position = item
            .name
            .as_deref()
            .and_then(stash_list::parse_selector)
            .unwrap_or(0);
        // `git stash` wrote the entry's reflog line and its commit with one identity and
        // time: the line comes back as it was.
        stash_list::insert(tree, position, id, &message, commit.committer().to_owned())
    })();
    match result {
        Ok(()) => out.restored.push(label),
        Err(error) => out.errors.push(format!(
            "{label}: {}",
            agent_guard_types::error_chain(&error)
        )),
    }
}

/// Recreates a kept branch or ref if it is absent; one that exists pointing elsewhere is a
/// conflict.
pub(crate) fn restore_branch(tree: &WorkTree, item: &GitItem, out: &mut GitRestore) {
    let sha = item.sha.as_str();
    let Some(name) = item.name.as_deref() else {
        out.errors.push(format!("kept ref {sha} has no name"));
        return;
    };
    let full = kept_ref_name(item.subject, name);
    let result = (|| {
        let id = Oid::from_str(sha).map_err(tree.error("parse a kept object id"))?;
        match tree.repo.find_reference(&full) {
            Ok(existing) => return Ok(existing.target() == Some(id)),
            Err(error) if error.code() == ErrorCode::NotFound => {}
            Err(source) => {
                return Err(GitError::Git {
                    action: "look up a ref",
                    path: tree.root.clone(),
                    source,
                });
            }
        }
        tree.repo
            .reference(&full, id, false, &format!("agent-guard: restore {full}"))
            .map_err(tree.error("recreate a ref"))?;
        out.recreated.push(full.clone());
        Ok(true)
    })();
    match result {
        Ok(true) => out.restored.push(format!("ref:{name}")),
        Ok(false) => out.conflicts.push(full),
        Err(error) => out.errors.push(format!(
            "ref:{name}: {}",
            agent_guard_types::error_chain(&error)
        )),
    }
}

/// The commit branch `name` (without `refs/heads/`) points to, or `None` when it does not
/// exist.
///
/// # Errors
/// The branch cannot be looked up.
pub fn branch_tip(tree: &WorkTree, name: &str) -> Result<Option<String>, GitError> {
    match tree.repo.find_reference(&format!("refs/heads/{name}")) {
        Ok(reference) => Ok(reference.target().map(|id| id.to_string())),
        Err(error) if error.code() == ErrorCode::NotFound => Ok(None),
        Err(source) => Err(GitError::Git {
            action: "look up a branch",
            path: tree.root.clone(),
            source,
        }),
    }
}

/// Points branch `name` at `sha`, replacing whatever it points to (the caller kept that
/// first).
///
/// # Errors
/// The id is invalid or the ref cannot be written.
pub fn set_branch(tree: &WorkTree, name: &str, sha: &str) -> Result<(), GitError> {
    set_ref(tree, &format!("refs/heads/{name}"), sha)
}

/// Points the full ref `full` at `sha`, replacing whatever it points to (the caller kept
/// that first).
///
/// # Errors
/// The id is invalid or the ref cannot be written.
pub fn set_ref(tree: &WorkTree, full: &str, sha: &str) -> Result<(), GitError> {
    let id = Oid::from_str(sha).map_err(tree.error("parse a kept object id"))?;
    tree.repo
        .reference(full, id, true, &format!("agent-guard: restore {full}"))
        .map_err(tree.error("restore a ref"))?;
    Ok(())
}

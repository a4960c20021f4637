//! Kept symbolic refs: `git symbolic-ref NAME REF` points `NAME` elsewhere (`HEAD` at
//! another branch) and `git symbolic-ref -d NAME` deletes it. Before either, the ref each
//! name points to is kept in the manifest (a symbolic ref names a ref, not a commit, so no
//! private ref is needed); restore points it back. A name that holds a commit id (a detached
//! `HEAD`, a branch `symbolic-ref` turns into a link) is kept as a ref, with its commit.

use git2::{ErrorCode, ReferenceType};

use crate::error::GitError;
use crate::refs::Keep;
use crate::{GitItem, GitRestore, KeptRef, Subject, WorkTree};

/// The object id recorded for a symbolic ref whose target does not resolve (an unborn
/// branch).
const NO_COMMIT: &str = "0000000000000000000000000000000000000000";

/// What each named ref holds now: a symbolic ref as [`Subject::Symbolic`] (its target in the
/// note) and the ref it names as a kept ref, a direct one as a kept ref (its commit under a
/// private ref). A name that does not exist has nothing to lose.
///
/// # Errors
/// A name git does not accept, or a ref that cannot be read.
pub(crate) fn symbolic_keeps(
    tree: &WorkTree,
    txid: &agent_guard_types::TxId,
    names: &[String],
) -> Result<Vec<Keep>, GitError> {
    let mut keeps = Vec::new();
    let mut direct = Vec::new();
    for name in names {
        if !git2::Reference::is_valid_name(name) {
            return Err(GitError::UnknownRef {
                selector: name.clone(),
                subject: Subject::Symbolic.as_str(),
                path: tree.root.clone(),
            });
        }
        let reference = match tree.repo.find_reference(name) {
            Ok(reference) => reference,
            Err(error) if error.code() == ErrorCode::NotFound => continue,
            Err(source) => {
                return Err(GitError::Git {
                    action: "read a symbolic ref",
                    path: tree.root.clone(),
                    source,
                });
            }
        };
        match (reference.kind(), reference.symbolic_target()) {
            (Some(ReferenceType::Symbolic), Some(target)) => {
                // The ref it names is kept too: `update-ref HEAD …` moves that one.
                if tree
                    .repo
                    .find_reference(target)
                    .is_ok_and(|r| r.kind() == Some(ReferenceType::Direct))
                {
                    direct.push(target.to_owned());
                }
                let sha = reference
                    .resolve()
                    .ok()
                    .and_then(|resolved| resolved.target())
                    .map_or_else(|| NO_COMMIT.to_owned(), |id| id.to_string());
                keeps.push(Keep {
                    kept: KeptRef {
                        subject: Subject::Symbolic,
                        name: name.clone(),
                        sha,
                        refname: String::new(),
                    },
                    note: Some(target.to_owned()),
                });
            }
            _ => direct.push(name.clone()),
        }
    }
    if !direct.is_empty() {
        keeps.extend(crate::refs::resolve_keeps(
            tree,
            txid,
            &crate::RefSubject::Branches(direct),
        )?);
    }
    Ok(keeps)
}

/// Points a kept symbolic ref back at the ref it named: recreated when absent, left alone
/// when it names that ref already, a conflict when it holds something else now (`restore
/// --force` sets it, see [`set_symbolic`]).
pub(crate) fn restore_symbolic(tree: &WorkTree, item: &GitItem, out: &mut GitRestore) {
    let (Some(name), Some(target)) = (item.name.as_deref(), item.note.as_deref()) else {
        out.errors.push(format!(
            "kept symbolic ref {} has no name or target",
            item.sha
        ));
        return;
    };
    let label = format!("symbolic:{name}");
    match tree.repo.find_reference(name) {
        Ok(current) if current.symbolic_target() == Some(target) => out.restored.push(label),
        Ok(_) => out.conflicts.push(name.to_owned()),
        Err(error) if error.code() == ErrorCode::NotFound => {
            match set_symbolic(tree, name, target) {
                Ok(()) => {
                    out.recreated.push(name.to_owned());
                    out.restored.push(label);
                }
                Err(error) => out.errors.push(format!(
                    "{label}: {}",
                    agent_guard_types::error_chain(&error)
                )),
            }
        }
        Err(source) => out.errors.push(format!(
            "{label}: {}",
            agent_guard_types::error_chain(&GitError::Git {
                action: "read a symbolic ref",
                path: tree.root.clone(),
                source,
            })
        )),
    }
}

/// Points the symbolic ref `name` at `target`, replacing what it holds (the caller kept that
/// first).
///
/// # Errors
/// The ref cannot be written.
pub fn set_symbolic(tree: &WorkTree, name: &str, target: &str) -> Result<(), GitError> {
    tree.repo
        .reference_symbolic(
            name,
            target,
            true,
            &format!("agent-guard: restore {name} to {target}"),
        )
        .map_err(tree.error("restore a symbolic ref"))?;
    Ok(())
}

/// Whether the ref `name` holds a symbolic link now (`false` when it is absent or direct).
pub fn is_symbolic(tree: &WorkTree, name: &str) -> bool {
    tree.repo
        .find_reference(name)
        .is_ok_and(|r| r.kind() == Some(ReferenceType::Symbolic))
}

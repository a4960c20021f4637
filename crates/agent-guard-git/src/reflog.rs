//! Kept reflogs: `git reflog expire|delete` drop reflog entries, and a commit only a reflog
//! reached becomes prunable. Before such a command, every reflog of the repository is kept
//! as it is (its lines go into the manifest) and one private commit whose parents are every
//! commit the reflogs name keeps them all reachable, whatever gc runs next. Restore writes
//! the dropped lines back, in time order, beside any written since.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agent_guard_types::TxId;
use git2::{ObjectType, Oid};

use crate::error::GitError;
use crate::refs::Keep;
use crate::{GitItem, GitRestore, KeptRef, REF_NAMESPACE, Subject, WorkTree};

/// The ref that keeps the reflogs' commits of transaction `txid`.
pub(crate) fn reflog_ref(txid: &str) -> String {
    format!("{REF_NAMESPACE}reflogs/{txid}")
}

/// One reflog file: the ref it logs and where it lives.
struct LogFile {
    name: String,
    path: PathBuf,
}

/// Every reflog of the repository: `HEAD` (this work tree's), every other work tree's
/// `HEAD` (`main-worktree/HEAD`, `worktrees/<id>/HEAD`, as git names them: `reflog expire
/// --all` expires them too), and each under the common directory's `logs/refs/`. The private
/// namespace is skipped.
fn log_files(tree: &WorkTree) -> Result<Vec<LogFile>, GitError> {
    let mut out = Vec::new();
    let mut heads = vec!["HEAD".to_owned()];
    if tree.repo.is_worktree() {
        heads.push("main-worktree/HEAD".to_owned());
    }
    let admin = tree.repo.commondir().join("worktrees");
    if let Ok(entries) = std::fs::read_dir(&admin) {
        let here = std::fs::canonicalize(tree.repo.path()).ok();
        for entry in entries.flatten() {
            let mine = std::fs::canonicalize(entry.path()).ok() == here;
            if let (false, Some(id)) = (mine, entry.file_name().to_str()) {
                heads.push(format!("worktrees/{id}/HEAD"));
            }
        }
    }
    for name in heads {
        let path = log_path(tree, &name);
        if path.is_file() {
            out.push(LogFile { name, path });
        }
    }
    let common = tree.repo.commondir().join("logs");
    let mut pending = vec![common.join("refs")];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(GitError::Reflog {
                    action: "list the reflogs in",
                    path: dir,
                    source,
                });
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let Ok(relative) = path.strip_prefix(&common) else {
                continue;
            };
            let name = relative.to_string_lossy().replace('\\', "/");
            if kind.is_file() && !name.starts_with(REF_NAMESPACE) && !is_lock(&name) {
                out.push(LogFile { name, path });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A lock file beside a reflog, not a reflog (no ref name may end in `.lock`; `.tmp` may).
fn is_lock(name: &str) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("lock"))
}

/// The file of the reflog `name` in `tree` (another work tree's `HEAD` by git's names for
/// it).
fn log_path(tree: &WorkTree, name: &str) -> PathBuf {
    let common = tree.repo.commondir();
    if name == "HEAD" {
        return tree.repo.path().join("logs/HEAD");
    }
    if name == "main-worktree/HEAD" {
        return common.join("logs/HEAD");
    }
    if let Some(id) = name
        .strip_prefix("worktrees/")
        .and_then(|rest| rest.strip_suffix("/HEAD"))
        .filter(|id| !id.is_empty() && !id.contains('/') && *id != "..")
    {
        return common.join("worktrees").join(id).join("logs/HEAD");
    }
    common.join("logs").join(name)
}

/// The old and new object ids of a reflog line.
fn line_ids(line: &str) -> impl Iterator<Item = Oid> + '_ {
    line.split(' ')
        .take(2)
        .filter_map(|id| Oid::from_str(id).ok())
        .filter(|id| !id.is_zero())
}

/// The time of a reflog line (`… <email> 1700000000 +0000\tmessage`).
fn line_time(line: &str) -> i64 {
    let head = line.split('\t').next().unwrap_or_default();
    head.rsplit(' ')
        .nth(1)
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

/// Keeps every reflog of `tree`: one [`Keep`] per reflog (subject `reflog`, its ref name, its
/// lines as the note), all held by one private commit whose parents are the commits the
/// reflogs name. No reflog, no keep.
///
/// # Errors
/// A reflog that cannot be read or is not UTF-8, or the keeping commit cannot be written.
pub(crate) fn reflog_keeps(tree: &WorkTree, txid: &TxId) -> Result<Vec<Keep>, GitError> {
    let mut logs = Vec::new();
    let mut commits = BTreeSet::new();
    for file in log_files(tree)? {
        let text = std::fs::read_to_string(&file.path).map_err(|source| GitError::Reflog {
            action: "read the reflog",
            path: file.path.clone(),
            source,
        })?;
        for line in text.lines() {
            commits.extend(line_ids(line));
        }
        logs.push((file.name, text));
    }
    if logs.is_empty() {
        return Ok(Vec::new());
    }
    let parents: Vec<git2::Commit<'_>> = commits
        .iter()
        .filter_map(|id| tree.repo.find_object(*id, None).ok())
        .filter_map(|object| object.peel(ObjectType::Commit).ok())
        .filter_map(|object| object.into_commit().ok())
        .collect();
    let empty = tree
        .repo
        .treebuilder(None)
        .and_then(|builder| builder.write())
        .map_err(tree.error("write an empty tree"))?;
    let empty = tree
        .repo
        .find_tree(empty)
        .map_err(tree.error("read an empty tree"))?;
    let signature = tree.signature();
    let parent_refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
    let keeper = tree
        .repo
        .commit(
            None,
            &signature,
            &signature,
            "agent-guard: the commits of every reflog, kept before they were expired",
            &empty,
            &parent_refs,
        )
        .map_err(tree.error("write the commit that keeps the reflogs"))?;
    let refname = reflog_ref(txid.as_str());
    Ok(logs
        .into_iter()
        .map(|(name, text)| Keep {
            kept: KeptRef {
                subject: Subject::Reflog,
                name,
                sha: keeper.to_string(),
                refname: refname.clone(),
            },
            note: Some(text),
        })
        .collect())
}

/// Writes the kept lines of a reflog back: the reflog becomes the kept lines plus every line
/// written since that is not among them, in time order. A reflog that holds every kept line
/// already is left as it is.
pub(crate) fn restore_reflog(tree: &WorkTree, item: &GitItem, out: &mut GitRestore) {
    let (Some(name), Some(kept)) = (item.name.as_deref(), item.note.as_deref()) else {
        out.errors
            .push(format!("kept reflog {} has no name or lines", item.sha));
        return;
    };
    let label = format!("reflog:{name}");
    let path = log_path(tree, name);
    // A ref this restore recreated had no reflog but the line that created it.
    let written = if out.recreated.iter().any(|full| full == name) {
        // Deleting the ref may have removed the reflog's directory too.
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| agent_guard_fsops::replace_file(&path, kept.as_bytes()))
    } else {
        write_back(&path, kept)
    };
    match written {
        Ok(()) => out.restored.push(label),
        Err(source) => out.errors.push(format!(
            "{label}: could not write {}: {source}",
            path.display()
        )),
    }
}

fn write_back(path: &Path, kept: &str) -> std::io::Result<()> {
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error),
    };
    // Counted, not as sets: two moves in the same second write two equal lines, and a
    // command that drops one of them has dropped a line.
    let mut unmatched: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for line in kept.lines() {
        *unmatched.entry(line).or_default() += 1;
    }
    let mut since = Vec::new();
    for line in current.lines() {
        match unmatched.get_mut(line) {
            Some(count) if *count > 0 => *count -= 1,
            _ => since.push(line),
        }
    }
    if unmatched.values().all(|count| *count == 0) {
        return Ok(());
    }
    let mut lines: Vec<&str> = kept.lines().collect();
    lines.extend(since);
    // Stable: lines of the same second keep their order.
    lines.sort_by_key(|line| line_time(line));
    let mut text = lines.join("\n");
    text.push('\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    agent_guard_fsops::replace_file(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_its_ids_and_time() {
        let line = "0000000000000000000000000000000000000000 \
                    1111111111111111111111111111111111111111 t <t@example.invalid> 1700000000 +0100\tcommit (initial): one";
        assert_eq!(line_time(line), 1_700_000_000);
        let ids: Vec<Oid> = line_ids(line).collect();
        assert_eq!(ids.len(), 1, "the zero id names nothing");
    }

    #[test]
    fn only_lock_files_are_not_reflogs() {
        assert!(is_lock("refs/heads/main.lock"));
        assert!(
            !is_lock("refs/heads/release.tmp"),
            "a branch may end in .tmp"
        );
        assert!(!is_lock("refs/heads/main"));
    }

    #[test]
    fn write_back_merges_in_time_order_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/HEAD");
        let a = "0 1 t <t> 100 +0000\ta";
        let b = "1 2 t <t> 200 +0000\tb";
        let c = "2 3 t <t> 300 +0000\tc";
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // The expire left only `c`; `b` was kept (with `a`).
        std::fs::write(&path, format!("{c}\n")).unwrap();
        write_back(&path, &format!("{a}\n{b}\n")).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{a}\n{b}\n{c}\n")
        );
        write_back(&path, &format!("{a}\n{b}\n")).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{a}\n{b}\n{c}\n")
        );
    }
}

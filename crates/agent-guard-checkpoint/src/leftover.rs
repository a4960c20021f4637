//! What an interrupted checkpoint restore left beside its targets, told apart from the
//! user's files (issue 34, point 5).
//!
//! When the store is on another filesystem than the workspace, a restore writes each file
//! under `.<name>.agent-guard-restore.<pid>-<n>` beside it and renames it into place. A kill
//! between the two leaves that name in the workspace, and the next restore would see a file
//! created since the checkpoint and keep it as the user's. Such a name is the guard's own
//! when the checkpoint still has to put back `<name>` beside it, and it holds nothing but
//! (a prefix of) that version: a file whose bytes begin the kept blob, or a link with the
//! kept target. It is removed and left out of the diff; anything else stays the user's.

use std::ffi::{OsStr, OsString};
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use super::CheckpointStore;
use super::diff::{ChangeKind, CheckpointDiff};
use agent_guard_fsops as fsops;

/// The infix of a file staged beside its target.
const INFIX: &[u8] = b".agent-guard-restore.";

/// The name a file is staged under beside `target`, with the unique `suffix`.
pub(crate) fn staged_beside(target: &Path, suffix: &str) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(OsStr::from_bytes(INFIX));
    name.push(suffix);
    target.with_file_name(name)
}

/// The name `staged` was staged for, when it has the shape of [`staged_beside`]'s.
fn staged_for(staged: &[u8]) -> Option<Vec<u8>> {
    let (dir, name) = match staged.iter().rposition(|b| *b == b'/') {
        Some(at) => (&staged[..=at], &staged[at + 1..]),
        None => (&b""[..], staged),
    };
    let name = name.strip_prefix(b".")?;
    let at = name
        .windows(INFIX.len())
        .rposition(|window| window == INFIX)?;
    let (target, suffix) = (&name[..at], &name[at + INFIX.len()..]);
    let (pid, serial) = std::str::from_utf8(suffix).ok()?.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (!target.is_empty() && digits(pid) && digits(serial)).then(|| [dir, target].concat())
}

impl CheckpointStore {
    /// Removes from the workspace what an interrupted restore staged beside the paths it
    /// is about to write again, and drops those names from `diff` (see the module docs).
    /// Returns how many were removed.
    pub fn clear_staged_beside(&self, workspace: &Path, diff: &mut CheckpointDiff) -> usize {
        let mut ours: Vec<Vec<u8>> = Vec::new();
        for change in diff
            .changes
            .iter()
            .filter(|c| c.kind == ChangeKind::Created)
        {
            let Some(target) = staged_for(&change.path) else {
                continue;
            };
            let Some(kept) = diff
                .changes
                .iter()
                .find(|c| c.path == target && c.kind != ChangeKind::Created)
                .and_then(|c| c.kept)
            else {
                continue;
            };
            let Ok(blob) = self.repo().and_then(|repo| repo.find_blob(kept.1)) else {
                continue;
            };
            let path = workspace.join(change.relative());
            if holds_a_prefix(&path, kept.0 == 0o120_000, blob.content())
                && fsops::remove_file(&path).is_ok()
            {
                ours.push(change.path.clone());
            }
        }
        diff.changes.retain(|c| !ours.contains(&c.path));
        ours.len()
    }
}

/// Whether `path` is a link to `content` (`link`), or a file whose bytes begin `content`.
fn holds_a_prefix(path: &Path, link: bool, content: &[u8]) -> bool {
    let Ok(metadata) = path.symlink_metadata() else {
        return false;
    };
    if link {
        return metadata.file_type().is_symlink()
            && std::fs::read_link(path).is_ok_and(|t| t.as_os_str().as_bytes() == content);
    }
    if !metadata.is_file() || metadata.len() > content.len() as u64 {
        return false;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path).is_ok_and(|mut f| f.read_to_end(&mut bytes).is_ok())
        && content.starts_with(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_name_names_its_target() {
        let staged = staged_beside(Path::new("/w/d/f.txt"), "12-3");
        assert_eq!(staged, Path::new("/w/d/.f.txt.agent-guard-restore.12-3"));
        assert_eq!(
            staged_for(b"d/.f.txt.agent-guard-restore.12-3").as_deref(),
            Some(&b"d/f.txt"[..])
        );
        assert_eq!(
            staged_for(b".f.agent-guard-restore.1-0").as_deref(),
            Some(&b"f"[..])
        );
        for other in [
            &b"d/f.txt.agent-guard-restore.12-3"[..],
            b"d/.f.txt.agent-guard-restore.x-3",
            b"d/.f.txt.agent-guard-restore.12",
            b"d/..agent-guard-restore.1-2",
            b".f.txt",
        ] {
            assert_eq!(
                staged_for(other),
                None,
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }

    #[test]
    fn only_a_prefix_of_the_kept_version_is_ours() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "abc").unwrap();
        assert!(holds_a_prefix(&path, false, b"abcdef"));
        assert!(holds_a_prefix(&path, false, b"abc"));
        assert!(!holds_a_prefix(&path, false, b"ab"));
        assert!(!holds_a_prefix(&path, false, b"abX"));
        assert!(!holds_a_prefix(&path, true, b"abc"));
        let link = dir.path().join("l");
        std::os::unix::fs::symlink("abc", &link).unwrap();
        assert!(holds_a_prefix(&link, true, b"abc"));
        assert!(!holds_a_prefix(&link, true, b"abcd"));
    }
}

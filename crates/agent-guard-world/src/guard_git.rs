//! How git sees the workspace's guard files: the fact behind refusing a git command that
//! would rewrite one (`git checkout -- .` over an uncommitted hook install, `git clean -fd`
//! over an untracked `.claude/settings.json`, `git stash`).

use std::path::{Path, PathBuf};

use agent_guard_types::GuardFileState;
use git2::Status;

use crate::world::RealWorld;

/// The most files listed from one guard directory (`.github/hooks/`, `.opencode/plugins/`).
const MAX_PER_DIRECTORY: usize = 256;

/// Implements [`World::guard_files_in_git`](agent_guard_types::World::guard_files_in_git).
pub(crate) fn guard_files_in_git(world: &RealWorld) -> Vec<(PathBuf, GuardFileState)> {
    let files = existing_files(&world.workspace);
    if files.is_empty() {
        return Vec::new();
    }
    let Some(repo) = world.repository() else {
        return Vec::new();
    };
    let Some(workdir) = repo.workdir.clone() else {
        return Vec::new();
    };
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(&workdir).ok()?;
            let status = repo.repo.status_file(relative).ok()?;
            state_of(status).map(|state| (file, state))
        })
        .collect()
}

/// What a status means for a guard file, if it matters.
fn state_of(status: Status) -> Option<GuardFileState> {
    if status.contains(Status::IGNORED) {
        Some(GuardFileState::Ignored)
    } else if status.contains(Status::WT_NEW) && !status.intersects(Status::INDEX_NEW) {
        Some(GuardFileState::Untracked)
    } else if status.intersects(
        Status::WT_MODIFIED
            | Status::WT_TYPECHANGE
            | Status::WT_RENAMED
            | Status::INDEX_NEW
            | Status::INDEX_MODIFIED
            | Status::INDEX_TYPECHANGE
            | Status::INDEX_RENAMED,
    ) {
        Some(GuardFileState::Modified)
    } else {
        None
    }
}

/// The workspace's guard files that exist (regular files and links), a guard directory's
/// files listed one level deep.
fn existing_files(workspace: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in agent_guard_types::guard_files::project_entries(workspace) {
        let Ok(metadata) = entry.symlink_metadata() else {
            continue;
        };
        if metadata.is_dir() {
            let Ok(listing) = std::fs::read_dir(&entry) else {
                continue;
            };
            files.extend(
                listing
                    .filter_map(Result::ok)
                    .filter(|child| child.file_type().is_ok_and(|t| !t.is_dir()))
                    .map(|child| child.path())
                    .take(MAX_PER_DIRECTORY),
            );
        } else {
            files.push(entry);
        }
    }
    files
}

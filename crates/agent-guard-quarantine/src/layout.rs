//! The quarantine layout: the directory, its git exclude rule and its nested repository.

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use agent_guard_fsops as fsops;

use crate::QuarantineError;

/// The legacy (sessionless) session-mode file at the quarantine root.
pub const STATE_FILE_NAME: &str = "state.json";

/// The directory of per-session mode files at the quarantine root.
pub const SESSIONS_DIR_NAME: &str = "sessions";

/// The private object store of workspace checkpoints, under the quarantine root.
pub const CHECKPOINTS_DIR_NAME: &str = "checkpoints";

/// The comment written above the exclude pattern.
pub const EXCLUDE_COMMENT: &str = "# added by agent-guard (quarantine is not project data)";

/// What [`ensure_layout`] had to do. All `false` means the layout was already complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayoutReport {
    /// A rule for the quarantine was appended to the repository's `info/exclude`.
    pub exclude_added: bool,
    /// The quarantine directory was created.
    pub created: bool,
    /// The quarantine was made a nested git repository.
    pub git_initialized: bool,
}

/// The marker file inside the quarantine's own `.git` that says the layout is complete.
const MARKER: &str = "agent-guard-quarantine";

/// Makes sure the quarantine exists and that git in the workspace leaves it alone.
///
/// In this order (reference 5.1):
///
/// 1. If the workspace has a `.git` entry and the quarantine lies inside the workspace, and git
///    does not already ignore it, append `/<rel>/` (under [`EXCLUDE_COMMENT`]) to the
///    repository's `info/exclude` (the common dir's, for worktrees). The user's `.gitignore`
///    is never modified. If that fails, nothing is created: a refused request never leaves an
///    untracked directory behind.
/// 2. Create the quarantine directory.
/// 3. In that same git case, make the quarantine a nested git repository (and mark it as
///    ours). This is what keeps `git clean -fdx` (which disregards ignore rules),
///    `git stash -u` and `git add -A` from touching it; the exclude rule alone does not.
///
/// A quarantine that is the workspace itself is refused. Idempotent. Once the marked nested
/// repository exists, the call costs one `stat`: a quarantine gets it only after step 1
/// succeeded. A quarantine without it (no git, or outside the workspace) always takes the
/// full path, which stays cheap (no repository is opened) and notices a workspace that became
/// a git repository since.
pub fn ensure_layout(workspace: &Path, trash: &Path) -> Result<LayoutReport, QuarantineError> {
    let marker = trash.join(".git").join(MARKER);
    if marker.is_file() {
        return Ok(LayoutReport::default());
    }
    // Concurrent first uses race here (several agents' commands at once): serialise them on
    // a lock in the repository's git directory, and accept a layout another process finished.
    let _lock = layout_lock(workspace);
    match build_layout(workspace, trash, &marker) {
        Err(_) if marker.is_file() => Ok(LayoutReport::default()),
        result => result,
    }
}

/// Takes an exclusive `flock` on the repository's git directory itself (no file is
/// created), if there is a repository; the layout is idempotent without it too.
fn layout_lock(workspace: &Path) -> Option<std::fs::File> {
    let directory = std::fs::File::open(agent_guard_git::common_dir(workspace)?).ok()?;
    directory.lock().ok()?;
    Some(directory)
}

fn build_layout(
    workspace: &Path,
    trash: &Path,
    marker: &Path,
) -> Result<LayoutReport, QuarantineError> {
    let mut report = LayoutReport::default();
    if marker.is_file() {
        return Ok(report);
    }
    let relative = relative_inside(workspace, trash)?;
    let guarded = relative.filter(|_| workspace.join(".git").symlink_metadata().is_ok());
    if let Some(relative) = &guarded {
        report.exclude_added = ensure_excluded(workspace, relative)?;
    }
    if !trash.is_dir() {
        // Private: what the store keeps is readable by no one else, whatever its own mode.
        crate::migrate::private_dirs(trash).map_err(|source| QuarantineError::CreateTrash {
            path: trash.to_path_buf(),
            source,
        })?;
        report.created = true;
    }
    if guarded.is_some() {
        if !trash.join(".git").join("HEAD").is_file() {
            agent_guard_git::init_nested(trash).map_err(QuarantineError::InitQuarantine)?;
            report.git_initialized = true;
        }
        fs_err::write(marker, "agent-guard quarantine\n").map_err(|source| {
            QuarantineError::CreateTrash {
                path: marker.to_path_buf(),
                source,
            }
        })?;
    }
    Ok(report)
}

/// Returns the quarantine's path relative to the workspace, `/`-separated and computed from
/// the physical spellings of both, or `None` when it lies outside the workspace or inside its
/// `.git` directory (which git never tracks).
fn relative_inside(workspace: &Path, trash: &Path) -> Result<Option<String>, QuarantineError> {
    let workspace_physical =
        fs_err::canonicalize(workspace).map_err(|source| QuarantineError::Workspace {
            path: workspace.to_path_buf(),
            source,
        })?;
    let trash_physical =
        physical(&workspace.join(trash)).map_err(|source| QuarantineError::TrashPath {
            path: trash.to_path_buf(),
            source,
        })?;
    let Ok(relative) = trash_physical.strip_prefix(&workspace_physical) else {
        return Ok(None);
    };
    let mut parts = Vec::new();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            continue;
        };
        let part = part.to_str().ok_or_else(|| QuarantineError::TrashNotUtf8 {
            path: trash.to_path_buf(),
        })?;
        parts.push(part);
    }
    match parts.first() {
        None => Err(QuarantineError::TrashIsWorkspace {
            path: trash.to_path_buf(),
        }),
        Some(&".git") => Ok(None),
        Some(_) => Ok(Some(parts.join("/"))),
    }
}

/// Resolves `path` physically: the longest existing prefix is canonicalised, the rest (which
/// does not exist, so it cannot contain symlinks) is appended lexically.
fn physical(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let components: Vec<Component<'_>> = absolute.components().collect();
    for split in (1..=components.len()).rev() {
        let prefix: PathBuf = components[..split].iter().collect();
        match fs_err::canonicalize(&prefix) {
            Ok(mut resolved) => {
                for component in &components[split..] {
                    match component {
                        Component::ParentDir => {
                            resolved.pop();
                        }
                        Component::Normal(part) => resolved.push(part),
                        _ => {}
                    }
                }
                return Ok(resolved);
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(error),
        }
    }
    Ok(absolute)
}

/// Escapes the characters that are special in a gitignore pattern.
fn escape_pattern(relative: &str) -> String {
    let mut escaped = String::with_capacity(relative.len());
    for c in relative.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ' ' | '!' | '#') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// Appends the exclude rule unless git already ignores the quarantine or the rule is present.
/// Returns whether it wrote.
fn ensure_excluded(workspace: &Path, relative: &str) -> Result<bool, QuarantineError> {
    let ignored = agent_guard_git::ignores(workspace, &format!("{relative}/"))
        .map_err(QuarantineError::IgnoreCheck)?;
    if ignored {
        return Ok(false);
    }
    let exclude = agent_guard_git::exclude_file(workspace).map_err(QuarantineError::IgnoreCheck)?;
    let exclude_error = |source| QuarantineError::Exclude {
        path: exclude.clone(),
        source,
    };
    let existing = match fs_err::read_to_string(&exclude) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(exclude_error(error)),
    };
    let escaped = escape_pattern(relative);
    let pattern = format!("/{escaped}/");
    let present = existing.lines().map(str::trim).any(|line| {
        line == pattern || line == escaped || line.strip_prefix('/') == Some(escaped.as_str())
    });
    if present {
        return Ok(false);
    }
    let mut addition = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        addition.push('\n');
    }
    addition.push_str(EXCLUDE_COMMENT);
    addition.push('\n');
    addition.push_str(&pattern);
    addition.push('\n');

    let info = exclude.parent().unwrap_or(workspace).to_path_buf();
    fs_err::create_dir_all(&info).map_err(exclude_error)?;
    let mut file = fs_err::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&exclude)
        .map_err(exclude_error)?;
    file.write_all(addition.as_bytes()).map_err(exclude_error)?;
    file.sync_all().map_err(exclude_error)?;
    if existing.is_empty() {
        fsops::sync_dir(&info).map_err(exclude_error)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_escaped() {
        assert_eq!(escape_pattern(".agent-trash"), ".agent-trash");
        assert_eq!(escape_pattern("a b/[x]*?"), "a\\ b/\\[x]\\*\\?");
    }

    #[test]
    fn physical_resolves_missing_suffixes_lexically() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs_err::canonicalize(dir.path()).unwrap();
        assert_eq!(
            physical(&dir.path().join("a/b/../c")).unwrap(),
            root.join("a/c")
        );
        assert_eq!(physical(dir.path()).unwrap(), root);
    }
}

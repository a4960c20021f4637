//! Checking a pending seal, and putting the guard files back when a program changed them.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{PENDING, Sealed, read, state};
use crate::workspace::Workspace;

/// What became of one guard path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Change {
    /// It was there and is different now.
    Changed,
    /// It was there and is gone.
    Removed,
    /// It was not there and is now.
    Created,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Changed => "changed",
            Change::Removed => "removed",
            Change::Created => "created",
        }
    }
}

/// One guard path a program changed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Found {
    /// The guard path.
    pub(crate) path: PathBuf,
    /// What happened to it.
    pub(crate) change: Change,
    /// Where what the program left there is kept, if anything was.
    pub(crate) kept_as: Option<PathBuf>,
    /// Whether the guard put the sealed version back.
    pub(crate) restored: bool,
}

/// Guard files changed since the seal was taken.
#[derive(Debug, Clone)]
pub(crate) struct Tampered {
    /// The check that took the seal (the line that ran the program).
    pub(crate) check_id: String,
    /// The session that ran it.
    pub(crate) session: Option<String>,
    /// The store its session's mode was kept in.
    pub(crate) store: Option<PathBuf>,
    /// Each changed path.
    pub(crate) found: Vec<Found>,
    /// The directory that keeps what the program left.
    pub(crate) kept_in: PathBuf,
}

impl Tampered {
    /// The sentences the refusal carries: what changed, what was put back, where the rest
    /// is, what a person does.
    pub(crate) fn sentences(&self) -> Vec<String> {
        let list = |restored: bool| -> Vec<String> {
            self.found
                .iter()
                .filter(|f| f.restored == restored)
                .map(|f| format!("{} ({})", f.path.display(), f.change.word()))
                .collect()
        };
        let mut out = vec![format!(
            "a program the guard could not see into (check {}) changed the guard's own files",
            self.check_id
        )];
        let restored = list(true);
        if !restored.is_empty() {
            out.push(format!("put back as they were: {}", restored.join(", ")));
        }
        let left = list(false);
        if !left.is_empty() {
            out.push(format!(
                "could not be put back (a person must check them): {}",
                left.join(", ")
            ));
        }
        out.push(format!(
            "what the program left is kept in {} (found.json lists it)",
            self.kept_in.display()
        ));
        out.push(
            "this session is RESTRICTED: a person reviews the change and, if it was wanted, \
             makes it again themselves and runs `agent-guard mode normal` in a terminal"
                .to_owned(),
        );
        out
    }
}

/// Checks the pending seal of `workspace`, if any: dropped when every guard path is as it
/// was (or a person changed guard files since); otherwise every changed path is put back,
/// what the program left is kept, and the change is returned. The caller restricts the
/// session and refuses the line.
///
/// # Errors
/// The seal could not be read or the store could not keep what it found: the caller
/// refuses the line, since the guard files cannot be vouched for.
pub(crate) fn verify(workspace: &Workspace) -> std::io::Result<Option<Tampered>> {
    let dir = super::seal_dir(workspace);
    let pending = dir.join(PENDING);
    let Some(seal) = state::read_pending(&pending)? else {
        return Ok(None);
    };
    let person = workspace
        .state_dir
        .as_ref()
        .and_then(|d| state::person_mark(d));
    if person.is_some() && person >= state::modified(&pending) {
        agent_guard_fsops::remove_file(&pending)?;
        return Ok(None);
    }
    let now = read::observe(
        workspace,
        seal.session.as_deref(),
        &super::seals_root(workspace),
        &mut |_, _| false,
    );
    let mut paths: Vec<&PathBuf> = seal.entries.keys().chain(now.keys()).collect();
    paths.sort();
    paths.dedup();
    let kept_in = dir.join("kept").join(&seal.check_id);
    let blobs = dir.join("blobs");
    let mut found = Vec::new();
    // Parents first (paths sort that way): a directory made a link again is a directory
    // before the files below it are compared.
    for path in paths {
        let was = seal.entries.get(path).unwrap_or(&Sealed::Absent);
        let is = read::shallow(path, was);
        if same(was, &is) {
            continue;
        }
        let aside = Aside {
            dir: &kept_in,
            index: found.len(),
        };
        found.push(put_back(path, was, &is, &aside, &blobs)?);
    }
    if found.is_empty() {
        agent_guard_fsops::remove_file(&pending)?;
        return Ok(None);
    }
    let list = serde_json::to_vec_pretty(&found).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(&kept_in)?;
    state::replace(&kept_in.join("found.json"), &list)?;
    agent_guard_fsops::remove_file(&pending)?;
    Ok(Some(Tampered {
        check_id: seal.check_id,
        session: seal.session,
        store: seal.store,
        found,
        kept_in,
    }))
}

/// The session's remembered definitions file `path` as the pending seals of other
/// workspaces recorded it (`own`: this workspace's seal directory, checked by [`verify`]):
/// a program run in one workspace may empty the file, and the session's next line may be
/// judged in another (a nested repository). Each seal of `session` that finds the file
/// changed has it put back (what the program left kept beside it) and the entry dropped;
/// returns what was found.
///
/// # Errors
/// A seal that finds a change could not put the file back or keep what it found.
pub(crate) fn verify_elsewhere(
    state_dir: &Path,
    session: Option<&str>,
    path: &Path,
    own: &Path,
) -> std::io::Result<Vec<(String, Option<PathBuf>, Found)>> {
    let mut found = Vec::new();
    let Ok(dirs) = std::fs::read_dir(state_dir.join("seals")) else {
        return Ok(found);
    };
    let person = state::person_mark(state_dir);
    for dir in dirs.filter_map(Result::ok).map(|entry| entry.path()) {
        let pending = dir.join(PENDING);
        if dir == own || (person.is_some() && person >= state::modified(&pending)) {
            continue;
        }
        let Ok(Some(mut seal)) = state::read_pending(&pending) else {
            continue;
        };
        if seal.session.as_deref() != session {
            continue;
        }
        let Some(was) = seal.entries.remove(path) else {
            continue;
        };
        let is = read::shallow(path, &was);
        if same(&was, &is) {
            continue;
        }
        let kept_in = dir.join("kept").join(&seal.check_id);
        std::fs::create_dir_all(&kept_in)?;
        let aside = Aside {
            dir: &kept_in,
            index: 0,
        };
        let one = put_back(path, &was, &is, &aside, &dir.join("blobs"))?;
        let list = serde_json::to_vec_pretty(&[&one]).map_err(std::io::Error::other)?;
        state::replace(&kept_in.join("found.json"), &list)?;
        let json = serde_json::to_vec(&seal).map_err(std::io::Error::other)?;
        state::replace(&pending, &json)?;
        found.push((seal.check_id.clone(), seal.store.clone(), one));
    }
    Ok(found)
}

/// Whether two readings are the same for the guard (whether bytes were kept does not
/// count). A directory made or removed is no change in itself: the guard files below it
/// are compared one by one.
pub(super) fn same(was: &Sealed, is: &Sealed) -> bool {
    match (was, is) {
        (
            Sealed::File {
                sha256: old_bytes,
                mode: old_mode,
                view: old_view,
                ..
            },
            Sealed::File {
                sha256: new_bytes,
                mode: new_mode,
                view: new_view,
                ..
            },
        ) => {
            old_mode == new_mode
                && match (old_view, new_view) {
                    (Some(old), Some(new)) => old == new,
                    _ => old_bytes == new_bytes,
                }
        }
        (
            Sealed::Link {
                target: old_target,
                through: old_file,
            },
            Sealed::Link {
                target: new_target,
                through: new_file,
            },
        ) => {
            old_target == new_target
                && match (old_file, new_file) {
                    (Some(old), Some(new)) => same(old, new),
                    (None, None) => true,
                    _ => false,
                }
        }
        (Sealed::Dir { mode: old, .. }, Sealed::Dir { mode: new, .. }) => old == new,
        (Sealed::Dir { .. }, Sealed::Absent) | (Sealed::Absent, Sealed::Dir { .. }) => true,
        _ => was == is,
    }
}

/// Where what a program left goes: `dir/<index>-<name>`.
struct Aside<'a> {
    dir: &'a Path,
    index: usize,
}

impl Aside<'_> {
    fn path_for(&self, path: &Path) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(self.dir)?;
        let name = path
            .file_name()
            .map_or_else(|| "entry".to_owned(), |n| n.to_string_lossy().into_owned());
        Ok(self.dir.join(format!("{:03}-{name}", self.index)))
    }
}

/// Keeps what stands at `path` and puts the sealed version back.
fn put_back(
    path: &Path,
    was: &Sealed,
    is: &Sealed,
    aside: &Aside<'_>,
    blobs: &Path,
) -> std::io::Result<Found> {
    let change = match (was, is) {
        (Sealed::Absent, _) => Change::Created,
        (_, Sealed::Absent) => Change::Removed,
        _ => Change::Changed,
    };
    let found = |kept_as, restored| Found {
        path: path.to_path_buf(),
        change,
        kept_as,
        restored,
    };
    match (was, is) {
        // Only the permissions changed (`chmod 000 .claude`): set back, nothing moved.
        (Sealed::Dir { mode, .. }, Sealed::Dir { .. }) => {
            set_mode(path, *mode)?;
            return Ok(found(None, true));
        }
        // The same link, written through (a dotfiles repository's file): the file it leads
        // to is copied aside and written back.
        (
            Sealed::Link {
                target: a,
                through: Some(file),
            },
            Sealed::Link { target: b, .. },
        ) if a == b => {
            let kept = aside.path_for(path)?;
            let copied = std::fs::copy(path, &kept).is_ok();
            let restored = write_back(path, file, blobs)?;
            return Ok(found(copied.then_some(kept), restored));
        }
        _ => {}
    }
    let mut kept_as = None;
    if *is != Sealed::Absent {
        let kept = aside.path_for(path)?;
        match agent_guard_fsops::rename_noreplace(path, &kept) {
            Ok(()) => kept_as = Some(kept),
            Err(error) if agent_guard_fsops::is_cross_device(&error) => {
                if copy_aside(path, is, &kept).is_err() {
                    // Left where it is: the person is told.
                    return Ok(found(None, false));
                }
                kept_as = Some(kept);
            }
            Err(error) => return Err(error),
        }
    }
    let restored = write_back(path, was, blobs)?;
    Ok(found(kept_as, restored))
}

/// Keeps a file or link found at `path` on another file system, then removes it.
fn copy_aside(path: &Path, is: &Sealed, aside: &Path) -> std::io::Result<()> {
    match is {
        Sealed::File { .. } => {
            std::fs::copy(path, aside)?;
            std::fs::File::open(aside)?.sync_all()?;
        }
        Sealed::Link { target, .. } => std::os::unix::fs::symlink(target, aside)?,
        _ => return Err(std::io::Error::other("not a file or a link")),
    }
    agent_guard_fsops::remove_file(path)
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Writes the sealed version of `path` back (through a link that stands there); `false`
/// when the seal did not keep it.
fn write_back(path: &Path, was: &Sealed, blobs: &Path) -> std::io::Result<bool> {
    match was {
        Sealed::Absent => Ok(true),
        Sealed::Dir { mode, .. } => {
            std::fs::create_dir_all(path)?;
            set_mode(path, *mode)?;
            Ok(true)
        }
        Sealed::Link { target, through } => {
            std::os::unix::fs::symlink(target, path)?;
            match through.as_deref() {
                Some(file) if !same(file, &read::shallow(path, file)) => {
                    write_back(path, file, blobs)
                }
                _ => Ok(true),
            }
        }
        Sealed::File {
            sha256,
            mode,
            kept: true,
            ..
        } => {
            let bytes = state::blob(blobs, sha256)?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, &bytes)?;
            set_mode(path, *mode)?;
            std::fs::File::open(path)?.sync_all()?;
            Ok(true)
        }
        Sealed::File { kept: false, .. } | Sealed::Identity { .. } => Ok(false),
    }
}

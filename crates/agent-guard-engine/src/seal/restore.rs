//! Checking a pending seal, and putting the guard files back when a program changed them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{PENDING, PERSON_MARK, Reading, SEAL_DIR, Sealed, read_path, state};
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
    let dir = workspace.trash().join(SEAL_DIR);
    let pending = dir.join(PENDING);
    let Some(seal) = state::read_pending(&pending)? else {
        return Ok(None);
    };
    let person = workspace
        .state_dir
        .as_ref()
        .and_then(|d| state::modified(&d.join(PERSON_MARK)));
    if person.is_some() && person >= state::modified(&pending) {
        agent_guard_fsops::remove_file(&pending)?;
        return Ok(None);
    }
    let now = super::observe(workspace, &mut |_, _| false);
    let mut paths: Vec<&PathBuf> = seal.entries.keys().chain(now.keys()).collect();
    paths.sort();
    paths.dedup();
    let kept_in = dir.join("kept").join(&seal.check_id);
    let mut found = Vec::new();
    for path in paths {
        let was = seal.entries.get(path).unwrap_or(&Sealed::Absent);
        let is = current(path, was);
        if same(was, &is) {
            continue;
        }
        found.push(put_back(path, was, &is, &kept_in, &dir, found.len())?);
    }
    if found.is_empty() {
        agent_guard_fsops::remove_file(&pending)?;
        return Ok(None);
    }
    let list = serde_json::to_vec_pretty(&found).map_err(std::io::Error::other)?;
    state::replace(&kept_in.join("found.json"), &list)?;
    agent_guard_fsops::remove_file(&pending)?;
    Ok(Some(Tampered {
        check_id: seal.check_id,
        found,
        kept_in,
    }))
}

/// What `path` is now, read as the seal read it (no recursion).
fn current(path: &Path, was: &Sealed) -> Sealed {
    let reading = match was {
        Sealed::Dir { names: None } => Reading::Above,
        _ => Reading::Content,
    };
    let mut one = BTreeMap::new();
    read_shallow(path, reading, &mut one);
    one.remove(path).unwrap_or(Sealed::Absent)
}

/// [`read_path`] without following a directory's entries.
fn read_shallow(path: &Path, reading: Reading, into: &mut BTreeMap<PathBuf, Sealed>) {
    read_path(path, reading, super::MAX_DEPTH, into, &mut |_, _| false);
}

/// Whether two readings are the same content (whether bytes were kept does not count).
fn same(was: &Sealed, is: &Sealed) -> bool {
    match (was, is) {
        (
            Sealed::File {
                sha256: a, mode: m, ..
            },
            Sealed::File {
                sha256: b, mode: n, ..
            },
        ) => a == b && m == n,
        // The entries below are compared one by one.
        (Sealed::Dir { .. }, Sealed::Dir { .. }) => true,
        _ => was == is,
    }
}

/// Moves what stands at `path` into `kept_in` and puts the sealed version back.
fn put_back(
    path: &Path,
    was: &Sealed,
    is: &Sealed,
    kept_in: &Path,
    seal_dir: &Path,
    index: usize,
) -> std::io::Result<Found> {
    let change = match (was, is) {
        (Sealed::Absent, _) => Change::Created,
        (_, Sealed::Absent) => Change::Removed,
        _ => Change::Changed,
    };
    let mut kept_as = None;
    let mut restored = true;
    if *is != Sealed::Absent {
        std::fs::create_dir_all(kept_in)?;
        let name = path
            .file_name()
            .map_or_else(|| "entry".to_owned(), |n| n.to_string_lossy().into_owned());
        let aside = kept_in.join(format!("{index:03}-{name}"));
        match agent_guard_fsops::rename_noreplace(path, &aside) {
            Ok(()) => kept_as = Some(aside),
            Err(error) if agent_guard_fsops::is_cross_device(&error) => {
                match copy_aside(path, is, &aside) {
                    Ok(()) => kept_as = Some(aside),
                    // Left where it is: the person is told.
                    Err(_) => restored = false,
                }
            }
            Err(error) => return Err(error),
        }
    }
    if restored {
        restored = write_back(path, was, &seal_dir.join("blobs"))?;
    }
    Ok(Found {
        path: path.to_path_buf(),
        change,
        kept_as,
        restored,
    })
}

/// Keeps a file or link found at `path` on another file system, then removes it.
fn copy_aside(path: &Path, is: &Sealed, aside: &Path) -> std::io::Result<()> {
    match is {
        Sealed::File { .. } => {
            std::fs::copy(path, aside)?;
            std::fs::File::open(aside)?.sync_all()?;
        }
        Sealed::Link { target } => std::os::unix::fs::symlink(target, aside)?,
        _ => return Err(std::io::Error::other("not a file or a link")),
    }
    agent_guard_fsops::remove_file(path)
}

/// Writes the sealed version of `path` back; `false` when the seal did not keep it.
fn write_back(path: &Path, was: &Sealed, blobs: &Path) -> std::io::Result<bool> {
    match was {
        Sealed::Absent => Ok(true),
        Sealed::Dir { .. } => {
            std::fs::create_dir_all(path)?;
            Ok(true)
        }
        Sealed::Link { target } => {
            std::os::unix::fs::symlink(target, path)?;
            Ok(true)
        }
        Sealed::File {
            sha256,
            mode,
            kept: true,
        } => {
            use std::os::unix::fs::PermissionsExt as _;
            let bytes = state::blob(blobs, sha256)?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, &bytes)?;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))?;
            std::fs::File::open(path)?.sync_all()?;
            Ok(true)
        }
        Sealed::File { kept: false, .. } | Sealed::Identity { .. } => Ok(false),
    }
}

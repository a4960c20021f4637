//! The guard-file seal: what a program the guard cannot see into did to the files that
//! switch the guard on (issue 35).
//!
//! A line the guard checkpoints runs code it cannot read (`python3 tool.py`, `make`, a
//! script). The checkpoint keeps the workspace, but such a program may also rewrite a hook
//! file (`.claude/settings.local.json` with `disableAllHooks`), the guard's config or a
//! user-level harness file without naming it on the line, so no rule can refuse it first.
//! Before such a line runs, [`take`] records every guard file
//! ([`agent_guard_types::guard_files`]) — its bytes, kept in the store, or what it is — in
//! `<store>/seal/pending.json`. The next enforced check that opens the workspace calls
//! [`verify`]: unchanged, the seal is dropped; changed, every guard file goes back to what
//! the seal kept, what the program left is kept beside the seal, the session becomes
//! RESTRICTED and the line is refused (`BLOCK_SELF_PROTECTION`) with what happened and
//! what a person does next.
//!
//! A person's own change is no tampering: `install`, `uninstall` and `config trust` mark
//! the moment ([`person_changed_guard_files`]) and a seal older than that mark is dropped
//! unread.
//!
//! Limits (docs/threat-model.md): the seal is checked when the guard next runs in the
//! workspace with something to judge; a program that keeps running after that check is not
//! seen; and a program written to defeat the guard can erase the seal with the same rights.

mod restore;
mod state;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use agent_guard_types::guard_files::{UserDirs, project_entries};

use crate::workspace::Workspace;

pub(crate) use restore::verify;

/// The largest guard file whose bytes a seal keeps; a larger one is compared by hash only.
const KEEP_MAX_BYTES: u64 = 1 << 20;

/// The most entries one seal records (below guard directories included).
const MAX_ENTRIES: usize = 4_000;

/// How deep a guard directory is followed.
const MAX_DEPTH: usize = 6;

/// The seal's directory in the store.
const SEAL_DIR: &str = "seal";

/// The name of the pending seal in [`SEAL_DIR`].
const PENDING: &str = "pending.json";

/// The mark a person's change of guard files leaves in the user's state directory.
const PERSON_MARK: &str = "guard-files-changed";

/// What one guard path was when the seal was taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Sealed {
    /// Nothing at the path.
    Absent,
    /// A regular file; its bytes are kept under `blobs/<sha256>` when `kept`.
    File {
        /// SHA-256 of the content, hex.
        sha256: String,
        /// Permission bits.
        mode: u32,
        /// Whether the bytes are in the store.
        kept: bool,
    },
    /// A symbolic link.
    Link {
        /// Where it points.
        target: PathBuf,
    },
    /// A directory, with the names it held (`None`: a directory above a guard file, whose
    /// other entries are not the guard's).
    Dir {
        /// The entries' names.
        names: Option<Vec<String>>,
    },
    /// Anything else (a special file), or a file too large to keep or unreadable: compared
    /// by `lstat`'s device, inode, size and modification time.
    Identity {
        /// `dev:ino:size:mtime_ns`.
        stamp: String,
    },
}

/// A seal: every guard path and what it was.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Seal {
    /// The check that took it.
    pub(crate) check_id: String,
    /// Guard path → what it was.
    pub(crate) entries: BTreeMap<PathBuf, Sealed>,
}

/// How a path is read into a seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Content hashed (and kept when taking).
    Content,
    /// Only whether it is a directory, a link, absent (a directory above a guard file).
    Above,
}

/// The guard paths of `workspace` and how each is read. The guard's binary and the
/// `agent-guard` names on `PATH` are left out: a replaced binary no longer runs this check,
/// and an upgrade by a person is no tampering.
fn guard_paths(workspace: &Workspace) -> Vec<(PathBuf, Reading)> {
    let content_dirs = UserDirs {
        guard_binary: None,
        path_dirs: Vec::new(),
        ..workspace.user_dirs.clone()
    };
    let mut paths: Vec<(PathBuf, Reading)> = Vec::new();
    for entry in project_entries(&workspace.root) {
        // The directories between the workspace and a project entry (`.claude`): replacing
        // one by a link moves every file below it.
        if let Ok(relative) = entry.strip_prefix(&workspace.root) {
            let mut above = workspace.root.clone();
            let parts: Vec<_> = relative.components().collect();
            for part in parts.iter().take(parts.len().saturating_sub(1)) {
                above.push(part);
                paths.push((above.clone(), Reading::Above));
            }
        }
        paths.push((entry, Reading::Content));
    }
    paths.extend(
        content_dirs
            .entries()
            .into_iter()
            .map(|p| (p, Reading::Content)),
    );
    paths
}

/// What each guard path of `workspace` is now; `keep` is called with the path and bytes of
/// every regular file small enough to keep (it answers whether they are kept).
fn observe(
    workspace: &Workspace,
    keep: &mut dyn FnMut(&str, &[u8]) -> bool,
) -> BTreeMap<PathBuf, Sealed> {
    let mut entries = BTreeMap::new();
    for (path, reading) in guard_paths(workspace) {
        if entries.len() >= MAX_ENTRIES {
            break;
        }
        if entries.contains_key(&path) {
            continue;
        }
        read_path(&path, reading, 0, &mut entries, keep);
    }
    entries
}

/// Records `path` (and, for a guard directory, what lies below it) into `entries`.
fn read_path(
    path: &Path,
    reading: Reading,
    depth: usize,
    entries: &mut BTreeMap<PathBuf, Sealed>,
    keep: &mut dyn FnMut(&str, &[u8]) -> bool,
) {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        entries.insert(path.to_path_buf(), Sealed::Absent);
        return;
    };
    let kind = metadata.file_type();
    let sealed = if kind.is_symlink() {
        Sealed::Link {
            target: std::fs::read_link(path).unwrap_or_default(),
        }
    } else if kind.is_dir() && reading == Reading::Above {
        Sealed::Dir { names: None }
    } else if kind.is_dir() {
        let mut names: Vec<String> = std::fs::read_dir(path)
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        if depth < MAX_DEPTH {
            for name in &names {
                if entries.len() >= MAX_ENTRIES {
                    break;
                }
                read_path(&path.join(name), reading, depth + 1, entries, keep);
            }
        }
        Sealed::Dir { names: Some(names) }
    } else if kind.is_file() && reading == Reading::Content {
        file(path, &metadata, keep)
    } else {
        Sealed::Identity {
            stamp: identity(&metadata),
        }
    };
    entries.insert(path.to_path_buf(), sealed);
}

/// A regular file's entry: hashed, and kept when small enough.
fn file(
    path: &Path,
    metadata: &std::fs::Metadata,
    keep: &mut dyn FnMut(&str, &[u8]) -> bool,
) -> Sealed {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = metadata.permissions().mode() & 0o7777;
    if metadata.len() > KEEP_MAX_BYTES {
        return Sealed::Identity {
            stamp: identity(metadata),
        };
    }
    match std::fs::read(path) {
        Ok(bytes) => {
            let sha256 = agent_guard_config::trust::digest(&bytes);
            let kept = keep(&sha256, &bytes);
            Sealed::File { sha256, mode, kept }
        }
        // Unreadable to this user: compared by what `lstat` says.
        Err(_) => Sealed::Identity {
            stamp: identity(metadata),
        },
    }
}

/// `dev:ino:size:mtime_ns` of an entry.
fn identity(metadata: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt as _;
    format!(
        "{}:{}:{}:{}.{}",
        metadata.dev(),
        metadata.ino(),
        metadata.size(),
        metadata.mtime(),
        metadata.mtime_nsec()
    )
}

/// Records every guard file of `workspace` before a line the guard cannot see into runs.
///
/// # Errors
/// The store could not keep a guard file's bytes or the seal itself: the caller refuses the
/// line, since a change to a guard file could not be undone.
pub(crate) fn take(workspace: &Workspace, check_id: &str) -> std::io::Result<()> {
    let dir = workspace.trash().join(SEAL_DIR);
    let blobs = dir.join("blobs");
    state::make_dir(&dir)?;
    state::make_dir(&blobs)?;
    let mut failed: Option<std::io::Error> = None;
    let mut written = false;
    let entries = observe(workspace, &mut |sha256, bytes| {
        if failed.is_some() {
            return false;
        }
        match state::keep_blob(&blobs, sha256, bytes) {
            Ok(new) => {
                written |= new;
                true
            }
            Err(error) => {
                failed = Some(error);
                false
            }
        }
    });
    if let Some(error) = failed {
        return Err(error);
    }
    if written {
        agent_guard_fsops::sync_dir(&blobs)?;
    }
    let seal = Seal {
        check_id: check_id.to_owned(),
        entries,
    };
    let json = serde_json::to_vec(&seal).map_err(std::io::Error::other)?;
    state::replace(&dir.join(PENDING), &json)?;
    state::prune_blobs(&blobs, &seal);
    Ok(())
}

/// Marks that a person changed guard files now (`install`, `uninstall`, `config trust`):
/// every seal taken before is dropped unread. Best effort: without a state directory there
/// is nothing to mark, and a seal then reports the change (restoring it, keeping the
/// person's version).
pub fn person_changed_guard_files(env: &agent_guard_config::EnvSnapshot) {
    let home = env.home.as_deref().map(Path::new);
    if let Some(dir) = crate::workspace::state_dir(env, home) {
        let _ = std::fs::create_dir_all(&dir);
        let _ = state::replace(&dir.join(PERSON_MARK), b"a person changed guard files\n");
    }
}

/// Checks the workspace's pending seal; when a program changed guard files, they are put
/// back and the session becomes RESTRICTED. Returns what a person is told, `None` when
/// there was nothing to find. A seal that cannot be checked is told as such.
pub(crate) fn settle(
    workspace: &Workspace,
    runtime: &crate::runtime::Runtime,
) -> Option<Vec<String>> {
    match verify(workspace) {
        Ok(None) => None,
        Ok(Some(tampered)) => {
            let restricted = agent_guard_session::set_mode(
                workspace.trash(),
                workspace.settings.session.as_deref(),
                agent_guard_types::SessionMode::Restricted,
                "guard",
                false,
                runtime.now(),
            );
            let mut reasons = tampered.sentences();
            if let Err(error) = restricted {
                reasons.push(format!("the session could not be restricted: {error}"));
            }
            Some(reasons)
        }
        Err(error) => Some(vec![format!(
            "the guard files' seal ({}) could not be checked: {error}; a person checks the \
             guard's and the harnesses' hook files, then removes that file",
            workspace.trash().join(SEAL_DIR).join(PENDING).display()
        )]),
    }
}

/// Before an enforced line is judged: [`settle`]s the workspace's pending seal. When a
/// program changed guard files, `report` refuses the line (`BLOCK_SELF_PROTECTION`),
/// saying what happened; answers whether it did.
pub(crate) fn refuse_if_tampered(
    report: &mut crate::report::CheckReport,
    workspace: &Workspace,
    runtime: &crate::runtime::Runtime,
) -> bool {
    use agent_guard_types::{ReasonCode, Verdict};
    let Some(reasons) = settle(workspace, runtime) else {
        return false;
    };
    let code = ReasonCode::BlockSelfProtection;
    report.set_verdict(code.decision(), code);
    report.message = Some(format!("agent-guard: {}", reasons.join("\nagent-guard: ")));
    report.reasons = reasons;
    report.verdicts = vec![Verdict::of(code)];
    report.mode =
        agent_guard_session::read_mode(workspace.trash(), workspace.settings.session.as_deref())
            .mode;
    true
}

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

mod read;
mod restore;
mod state;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::workspace::Workspace;

pub(crate) use restore::verify;

/// The seals' directory in the user's state directory (one per workspace below it), or the
/// seal's directory in the store without one.
const SEAL_DIR: &str = "seal";

/// The name of the pending seal in a seal directory.
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
        /// The digest of what the guard depends on, when that is less than the bytes (a
        /// Claude Code settings file without the `permissions` Claude Code writes itself).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<String>,
    },
    /// A symbolic link, and the regular file it leads to, if it leads to one.
    Link {
        /// Where it points.
        target: PathBuf,
        /// What it leads to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        through: Option<Box<Sealed>>,
    },
    /// A directory, with the names it held (`None`: a directory above a guard file, whose
    /// other entries are not the guard's) and its permission bits.
    Dir {
        /// The entries' names.
        names: Option<Vec<String>>,
        /// Permission bits.
        mode: u32,
    },
    /// Anything else (a special file), or a file too large to keep or unreadable: compared
    /// by `lstat`'s device, inode, size, modification and change times.
    Identity {
        /// `dev:ino:size:mtime:ctime`.
        stamp: String,
    },
}

/// A seal: every guard path and what it was.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Seal {
    /// The check that took it.
    pub(crate) check_id: String,
    /// The session that ran the line (`AGENT_GUARD_SESSION`).
    #[serde(default)]
    pub(crate) session: Option<String>,
    /// The store the session's mode was kept in when the seal was taken.
    #[serde(default)]
    pub(crate) store: Option<PathBuf>,
    /// Guard path → what it was.
    pub(crate) entries: BTreeMap<PathBuf, Sealed>,
}

/// Where `workspace`'s seal lives: in the user's state directory, named by the workspace,
/// so that no setting the sealed program could have written (a user config that moves the
/// store) moves it; in the store when there is no state directory.
fn seal_dir(workspace: &Workspace) -> PathBuf {
    match &workspace.state_dir {
        Some(state) => state
            .join("seals")
            .join(crate::location::workspace_id(&workspace.root)),
        None => workspace.trash().join(SEAL_DIR),
    }
}

/// The directory [`read::observe`] leaves out: the seals themselves.
fn seals_root(workspace: &Workspace) -> PathBuf {
    match &workspace.state_dir {
        Some(state) => state.join("seals"),
        None => workspace.trash().join(SEAL_DIR),
    }
}

/// Records every guard file of `workspace` before a line the guard cannot see into runs.
///
/// # Errors
/// The store could not keep a guard file's bytes or the seal itself: the caller refuses the
/// line, since a change to a guard file could not be undone.
pub(crate) fn take(workspace: &Workspace, check_id: &str) -> std::io::Result<()> {
    let dir = seal_dir(workspace);
    let blobs = dir.join("blobs");
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    state::make_dir(&dir)?;
    state::make_dir(&blobs)?;
    let mut failed: Option<std::io::Error> = None;
    let mut written = false;
    let session = workspace.settings.session.as_deref();
    let entries = read::observe(
        workspace,
        session,
        &seals_root(workspace),
        &mut |sha256, bytes| {
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
        },
    );
    if let Some(error) = failed {
        return Err(error);
    }
    if written {
        agent_guard_fsops::sync_dir(&blobs)?;
    }
    let seal = Seal {
        check_id: check_id.to_owned(),
        session: workspace.settings.session.clone(),
        store: Some(workspace.trash().to_path_buf()),
        entries,
    };
    let json = serde_json::to_vec(&seal).map_err(std::io::Error::other)?;
    state::replace(&dir.join(PENDING), &json)?;
    state::prune_blobs(&blobs, &seal);
    Ok(())
}

/// What the guard's own state file `path` is before the guard writes it (see
/// [`guard_wrote`]).
pub(crate) fn before_guard_writes(path: &Path) -> Sealed {
    read::content(path, &mut |_, _| false)
}

/// The guard itself wrote its state file `path` (a session's remembered shell definitions,
/// [`crate::definitions`]), which held `before`: every pending seal in the user's
/// `state_dir` that recorded `path` as `before` now records what the guard wrote, so the
/// write is not taken for a program's. A seal that recorded something else keeps its entry,
/// so what a program did to the file before this write is still found; so does a seal a
/// person's change of guard files already voids. Best effort: a seal that cannot be brought
/// up to date reports the file as changed (and puts the sealed version back).
pub(crate) fn guard_wrote(state_dir: &Path, path: &Path, before: &Sealed) {
    let Ok(seals) = std::fs::read_dir(state_dir.join("seals")) else {
        return;
    };
    let person = state::person_mark(state_dir);
    for dir in seals.filter_map(Result::ok).map(|entry| entry.path()) {
        let pending = dir.join(PENDING);
        let Ok(Some(mut seal)) = state::read_pending(&pending) else {
            continue;
        };
        if person.is_some() && person >= state::modified(&pending) {
            continue;
        }
        let Some(was) = seal.entries.get(path) else {
            continue;
        };
        if !restore::same(was, before) {
            continue;
        }
        let blobs = dir.join("blobs");
        let now = read::content(path, &mut |sha256, bytes| {
            state::keep_blob(&blobs, sha256, bytes).is_ok()
                && agent_guard_fsops::sync_dir(&blobs).is_ok()
        });
        seal.entries.insert(path.to_path_buf(), now);
        if let Ok(json) = serde_json::to_vec(&seal) {
            let _ = state::replace(&pending, &json);
        }
    }
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
    if let Some(reasons) = settle_elsewhere(workspace, runtime) {
        return Some(reasons);
    }
    match verify(workspace) {
        Ok(None) => None,
        Ok(Some(tampered)) => {
            let mut reasons = tampered.sentences();
            // The session that ran the program, in the store it ran with, and this one.
            let sealing = tampered
                .store
                .as_deref()
                .map(|store| (store, tampered.session.as_deref()));
            let current = (workspace.trash(), workspace.settings.session.as_deref());
            restrict(sealing.into_iter().chain([current]), runtime, &mut reasons);
            Some(reasons)
        }
        Err(error) => Some(vec![format!(
            "the guard files' seal ({}) could not be checked: {error}; a person checks the \
             guard's and the harnesses' hook files, then removes that file",
            seal_dir(workspace).join(PENDING).display()
        )]),
    }
}

/// The session's remembered definitions as other workspaces' seals recorded them
/// ([`restore::verify_elsewhere`]); when a program changed them, they are put back and the
/// session becomes RESTRICTED. Returns what a person is told.
fn settle_elsewhere(
    workspace: &Workspace,
    runtime: &crate::runtime::Runtime,
) -> Option<Vec<String>> {
    let state = workspace.state_dir.as_ref()?;
    let session = workspace.settings.session.as_deref();
    let path = agent_guard_session::definitions::definitions_path(state, session);
    let found = match restore::verify_elsewhere(state, session, &path, &seal_dir(workspace)) {
        Ok(found) if found.is_empty() => return None,
        Ok(found) => found,
        Err(error) => {
            return Some(vec![format!(
                "the session's remembered definitions ({}) could not be checked against a \
                 seal: {error}; a person checks that file, then removes the pending seals \
                 in {}",
                path.display(),
                state.join("seals").display()
            )]);
        }
    };
    let mut reasons: Vec<String> = found
        .iter()
        .map(|(check, _, one)| {
            format!(
                "a program the guard could not see into (check {check}) changed the session's \
                 remembered definitions ({}); {}",
                one.path.display(),
                if one.restored {
                    "put back as they were"
                } else {
                    "they could not be put back: a person must check them"
                }
            )
        })
        .collect();
    let stores = found
        .iter()
        .filter_map(|(_, store, _)| store.as_deref())
        .chain([workspace.trash()])
        .map(|store| (store, session));
    restrict(stores, runtime, &mut reasons);
    reasons.push(
        "this session is RESTRICTED: a person reviews the change and runs `agent-guard mode \
         normal` in a terminal"
            .to_owned(),
    );
    Some(reasons)
}

/// Makes each `(store, session)` RESTRICTED where the store exists; what failed is added
/// to `reasons`.
fn restrict<'a>(
    sessions: impl Iterator<Item = (&'a Path, Option<&'a str>)>,
    runtime: &crate::runtime::Runtime,
    reasons: &mut Vec<String>,
) {
    for (store, session) in sessions {
        if store.is_dir()
            && let Err(error) = agent_guard_session::set_mode(
                store,
                session,
                agent_guard_types::SessionMode::Restricted,
                "guard",
                false,
                runtime.now(),
            )
        {
            reasons.push(format!("the session could not be restricted: {error}"));
        }
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

//! One-time human approvals of a command the guard asked about (ASK).
//!
//! On harnesses that cannot prompt, an ASK is a deny that tells the agent to ask its user. The
//! guard stores the request (`<trash>/approvals/<id>.ask.json`); a person at a terminal
//! grants it (`<id>.granted.json`, with an expiry); the agent's next identical command
//! consumes it by renaming it to `<id>.used.json` — a rename succeeds once, so an approval
//! is single-use even under concurrent hooks. An approval is bound to the exact command text,
//! the working directory and the workspace.
//!
//! Like the mode files, these are advisory: an agent running as the same user could write
//! them. The guard refuses to let the agent's own commands touch the quarantine, and
//! approving needs a terminal.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use agent_guard_fsops as fsops;
use agent_guard_types::ReasonCode;

/// The directory of approval requests inside the quarantine.
pub const APPROVALS_DIR_NAME: &str = "approvals";

/// How long an unanswered request can still be approved.
pub const REQUEST_HOURS: i64 = 24;

/// Approval files larger than this are ignored as corrupt.
const MAX_APPROVAL_BYTES: u64 = 256 * 1024;

/// A request for approval, and, once granted, the approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The id (the id of the check that asked).
    pub id: String,
    /// The exact command text.
    pub command: String,
    /// The working directory the command runs in.
    pub cwd: PathBuf,
    /// The workspace root.
    pub workspace: PathBuf,
    /// Why the guard asked.
    pub code: ReasonCode,
    /// When it asked (UTC, `YYYY-MM-DDTHH:MM:SSZ`).
    pub asked_at: String,
    /// Until when the approval holds, once granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

impl Approval {
    /// Whether this approval is for `command` in `cwd` of `workspace`.
    pub fn binds(&self, command: &str, cwd: &Path, workspace: &Path) -> bool {
        self.command == command && self.cwd == cwd && self.workspace == workspace
    }
}

/// Where an approval is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Ask,
    Granted,
    Used,
}

impl Stage {
    fn suffix(self) -> &'static str {
        match self {
            Stage::Ask => ".ask.json",
            Stage::Granted => ".granted.json",
            Stage::Used => ".used.json",
        }
    }
}

/// An error granting an approval.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// No waiting request has this id.
    #[error(
        "no request waiting for approval matches `{0}`; `agent-guard approve` lists what is waiting"
    )]
    Unknown(String),
    /// Several waiting requests match.
    #[error("`{reference}` matches several requests: {}; give more of the id", .matches.join(", "))]
    Ambiguous {
        /// What was typed.
        reference: String,
        /// The matching ids.
        matches: Vec<String>,
    },
    /// Approving needs a person at a terminal.
    #[error(
        "approving needs a person at an interactive terminal; run `agent-guard approve {0}` yourself, not through the agent"
    )]
    NotInteractive(String),
    /// The approval could not be stored.
    #[error("failed to store the approval in `{path}`")]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

fn dir(trash: &Path) -> PathBuf {
    trash.join(APPROVALS_DIR_NAME)
}

fn path(trash: &Path, id: &str, stage: Stage) -> PathBuf {
    dir(trash).join(format!("{id}{}", stage.suffix()))
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%SZ")
        .ok()
        .map(|t| t.and_utc())
}

/// An id as the guard generates it: only `[A-Za-z0-9-]`, so it names a file directly inside
/// `approvals/`.
fn plain_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 80 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

fn read(file: &Path) -> Option<Approval> {
    let handle = fs_err::File::open(file).ok()?;
    let mut bytes = Vec::new();
    handle
        .take(MAX_APPROVAL_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_APPROVAL_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

fn write(file: &Path, approval: &Approval) -> std::io::Result<()> {
    if let Some(parent) = file.parent().filter(|d| !d.is_dir()) {
        fs_err::create_dir_all(parent)?;
    }
    let mut bytes = serde_json::to_vec_pretty(approval).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    fsops::replace_file(file, &bytes)
}

/// Every approval at `stage`, oldest first.
fn at_stage(trash: &Path, stage: Stage) -> Vec<Approval> {
    let Ok(entries) = fs_err::read_dir(dir(trash)) else {
        return Vec::new();
    };
    let mut found: Vec<Approval> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(stage.suffix()))
        .filter_map(|e| read(&e.path()))
        .filter(|a| plain_id(&a.id))
        .collect();
    found.sort_by(|a, b| a.asked_at.cmp(&b.asked_at).then(a.id.cmp(&b.id)));
    found
}

/// Stores a request for approval durably, unless an identical one is already waiting; returns
/// the id a person approves (the existing request's, or `request.id`).
///
/// # Errors
/// The request could not be written.
pub fn request(trash: &Path, request: &Approval, now: DateTime<Utc>) -> std::io::Result<String> {
    if let Some(existing) = waiting(trash, &request.workspace, now)
        .into_iter()
        .find(|a| a.binds(&request.command, &request.cwd, &request.workspace))
    {
        return Ok(existing.id);
    }
    if !plain_id(&request.id) {
        return Err(std::io::Error::other("approval id is not a generated id"));
    }
    write(&path(trash, &request.id, Stage::Ask), request)?;
    Ok(request.id.clone())
}

/// The requests of `workspace` waiting for a person, newest first (those older than
/// [`REQUEST_HOURS`] are left out).
pub fn waiting(trash: &Path, workspace: &Path, now: DateTime<Utc>) -> Vec<Approval> {
    let oldest = now - Duration::hours(REQUEST_HOURS);
    let mut found: Vec<Approval> = at_stage(trash, Stage::Ask)
        .into_iter()
        .filter(|a| a.workspace == workspace)
        .filter(|a| parse_time(&a.asked_at).is_some_and(|t| t >= oldest))
        .collect();
    found.reverse();
    found
}

/// The waiting request `reference` names: its id, or a unique prefix or suffix of it.
///
/// # Errors
/// Nothing, or several requests, match.
pub fn find(
    trash: &Path,
    workspace: &Path,
    reference: &str,
    now: DateTime<Utc>,
) -> Result<Approval, ApprovalError> {
    let reference = reference.trim();
    let candidates = waiting(trash, workspace, now);
    if let Some(exact) = candidates.iter().find(|a| a.id == reference) {
        return Ok(exact.clone());
    }
    let matches: Vec<Approval> = candidates
        .into_iter()
        .filter(|a| {
            !reference.is_empty() && (a.id.starts_with(reference) || a.id.ends_with(reference))
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(ApprovalError::Unknown(reference.to_owned())),
        many => Err(ApprovalError::Ambiguous {
            reference: reference.to_owned(),
            matches: many.iter().map(|a| a.id.clone()).collect(),
        }),
    }
}

/// Grants a waiting request for `minutes`; `interactive` must be `true` (the caller passes
/// `stdin.is_terminal()`, after the person confirmed).
///
/// # Errors
/// Not interactive, or the approval could not be stored.
pub fn grant(
    trash: &Path,
    approval: &Approval,
    minutes: u32,
    interactive: bool,
    now: DateTime<Utc>,
) -> Result<Approval, ApprovalError> {
    if !interactive {
        return Err(ApprovalError::NotInteractive(approval.id.clone()));
    }
    let granted = Approval {
        expires_at: Some(agent_guard_audit::format_timestamp(
            now + Duration::minutes(i64::from(minutes)),
        )),
        ..approval.clone()
    };
    let file = path(trash, &approval.id, Stage::Granted);
    write(&file, &granted).map_err(|source| ApprovalError::Write {
        path: file.clone(),
        source,
    })?;
    // The request is answered; a leftover `.ask.json` would only list it again.
    let _ = fsops::remove_file(&path(trash, &approval.id, Stage::Ask));
    Ok(granted)
}

/// Uses up the unexpired approval of `command` in `cwd` of `workspace`, if a person granted
/// one. The rename to `.used.json` succeeds for exactly one caller.
pub fn consume(
    trash: &Path,
    command: &str,
    cwd: &Path,
    workspace: &Path,
    now: DateTime<Utc>,
) -> Option<Approval> {
    at_stage(trash, Stage::Granted)
        .into_iter()
        .filter(|a| a.binds(command, cwd, workspace))
        .filter(|a| {
            a.expires_at
                .as_deref()
                .and_then(parse_time)
                .is_some_and(|t| t > now)
        })
        .find(|a| {
            let from = path(trash, &a.id, Stage::Granted);
            let to = path(trash, &a.id, Stage::Used);
            fsops::rename_noreplace(&from, &to).is_ok() && fsops::sync_dir(&dir(trash)).is_ok()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        parse_time(text).unwrap()
    }

    fn ask(id: &str, command: &str) -> Approval {
        Approval {
            id: id.into(),
            command: command.into(),
            cwd: "/w/sub".into(),
            workspace: "/w".into(),
            code: ReasonCode::CompoundCwdDelete,
            asked_at: "2026-12-01T10:00:00Z".into(),
            expires_at: None,
        }
    }

    #[test]
    fn an_approval_is_bound_single_use_and_expires() {
        let trash = tempfile::tempdir().unwrap();
        let now = at("2026-12-01T10:00:00Z");
        let id = request(
            trash.path(),
            &ask("20261201-100000-0000abcd", "cd x && rm y"),
            now,
        )
        .unwrap();
        // The same command again reuses the waiting request.
        let again = request(
            trash.path(),
            &ask("20261201-100001-0000ffff", "cd x && rm y"),
            now,
        )
        .unwrap();
        assert_eq!(again, id);
        let found = find(trash.path(), Path::new("/w"), "abcd", now).unwrap();
        assert!(matches!(
            grant(trash.path(), &found, 15, false, now),
            Err(ApprovalError::NotInteractive(_))
        ));
        grant(trash.path(), &found, 15, true, now).unwrap();
        assert!(waiting(trash.path(), Path::new("/w"), now).is_empty());
        // Another command, directory or workspace does not use it.
        let later = at("2026-12-01T10:05:00Z");
        let (cwd, ws) = (Path::new("/w/sub"), Path::new("/w"));
        assert!(consume(trash.path(), "cd x && rm z", cwd, ws, later).is_none());
        assert!(consume(trash.path(), "cd x && rm y", Path::new("/w"), ws, later).is_none());
        assert!(consume(trash.path(), "cd x && rm y", cwd, Path::new("/v"), later).is_none());
        // Expired, it does nothing; in time, it works once.
        let late = at("2026-12-01T10:16:00Z");
        assert!(consume(trash.path(), "cd x && rm y", cwd, ws, late).is_none());
        assert!(consume(trash.path(), "cd x && rm y", cwd, ws, later).is_some());
        assert!(consume(trash.path(), "cd x && rm y", cwd, ws, later).is_none());
    }

    #[test]
    fn stale_and_ambiguous_requests() {
        let trash = tempfile::tempdir().unwrap();
        let now = at("2026-12-01T10:00:00Z");
        request(trash.path(), &ask("20261201-100000-0000abcd", "a"), now).unwrap();
        request(trash.path(), &ask("20261201-100000-1111abcd", "b"), now).unwrap();
        assert!(matches!(
            find(trash.path(), Path::new("/w"), "abcd", now),
            Err(ApprovalError::Ambiguous { .. })
        ));
        assert!(matches!(
            find(trash.path(), Path::new("/w"), "zzz", now),
            Err(ApprovalError::Unknown(_))
        ));
        let tomorrow = at("2026-12-02T10:00:01Z");
        assert!(waiting(trash.path(), Path::new("/w"), tomorrow).is_empty());
        assert!(request(trash.path(), &ask("../escape", "c"), now).is_err());
    }
}

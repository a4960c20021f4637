//! The audit log's chain: the key its writers use, `audit verify`, and `status`'s summary.

use std::path::{Path, PathBuf};

use serde::Serialize;

use agent_guard_audit::{AuditKey, AuditLog, ChainReport, ChainState, Finding, TornRegion};
use agent_guard_config::EnvSnapshot;

use crate::error::{EngineError, Result};
use crate::workspace::Workspace;

/// The result of `audit verify`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditVerifyReport {
    /// The audit log's path.
    pub log: String,
    /// What the walk found.
    #[serde(flatten)]
    pub chain: ChainReport,
}

/// The chain's state in one line of `status` (the `audit_chain` field of `status --json`).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AuditChainStatus {
    /// The overall state (`empty`, `unchained`, `intact`, `repaired`, `torn-tail`,
    /// `tampered`).
    pub state: ChainState,
    /// Intact records.
    pub records: u64,
    /// Records before the first chained one.
    pub unchained_prefix: u64,
    /// Chained records.
    pub chained: u64,
    /// How many lines are bad.
    pub finding_count: u64,
    /// The first bad line.
    pub first_bad: Option<Finding>,
    /// The first run of torn (unreadable) lines, if any.
    pub torn: Option<TornRegion>,
}

impl AuditChainStatus {
    fn of(report: &ChainReport) -> AuditChainStatus {
        AuditChainStatus {
            state: report.state,
            records: report.records,
            unchained_prefix: report.unchained_prefix,
            chained: report.chained,
            finding_count: report.finding_count,
            first_bad: report.first_bad().cloned(),
            torn: report.torn.first().cloned(),
        }
    }
}

/// Verifies the audit log of the workspace at `cwd` with this user's key. Creates nothing:
/// without a key yet, chained records are reported as made with another key.
pub fn verify_audit(cwd: &Path, env: &EnvSnapshot) -> Result<AuditVerifyReport> {
    let workspace = Workspace::open(cwd, env)?;
    let key = existing_key(&workspace)?;
    let log = AuditLog::new(workspace.trash(), workspace.settings.session.as_deref());
    let chain = log.verify(key.as_ref())?;
    Ok(AuditVerifyReport {
        log: log.path().display().to_string(),
        chain,
    })
}

/// The chain's state for `status`; `None` when the key or the log cannot be read.
pub(crate) fn chain_status(workspace: &Workspace) -> Option<AuditChainStatus> {
    let key = existing_key(workspace).ok()?;
    let log = AuditLog::new(workspace.trash(), workspace.settings.session.as_deref());
    let report = log.verify(key.as_ref()).ok()?;
    Some(AuditChainStatus::of(&report))
}

/// The user's chain key, created on first use.
pub(crate) fn chain_key(workspace: &Workspace) -> Result<AuditKey> {
    Ok(AuditKey::load_or_create(key_dir(workspace)?)?)
}

/// The user's chain key if it exists; `None` also when there is no state directory.
fn existing_key(workspace: &Workspace) -> Result<Option<AuditKey>> {
    match key_dir(workspace) {
        Ok(dir) => Ok(AuditKey::load(dir)?),
        Err(EngineError::NoStateDirectory) => Ok(None),
        Err(error) => Err(error),
    }
}

/// The state directory, refused when it lies inside the quarantine, or inside the workspace:
/// the key must be out of reach of whatever can rewrite the log. The one exception is a
/// workspace that contains the home directory itself (`AGENT_GUARD_WORKSPACE=$HOME`, only
/// ever explicit): there is no place for per-user state outside it.
fn key_dir(workspace: &Workspace) -> Result<&Path> {
    let dir = workspace
        .state_dir
        .as_deref()
        .ok_or(EngineError::NoStateDirectory)?;
    let physical_dir = physical(dir);
    let root = physical(&workspace.root);
    let home_inside = workspace
        .home
        .as_deref()
        .is_some_and(|home| physical(home).starts_with(&root));
    let mut roots = vec![physical(workspace.trash())];
    if !home_inside {
        roots.push(root);
    }
    match roots
        .into_iter()
        .find(|root| physical_dir.starts_with(root))
    {
        Some(inside) => Err(EngineError::KeyInsideWorkspace {
            dir: dir.to_owned(),
            inside,
        }),
        None => Ok(dir),
    }
}

/// `path` with its longest existing ancestor resolved (symlinks, `..`), the rest appended.
fn physical(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = fs_err::canonicalize(existing) {
            return rest.iter().rev().fold(real, |out, name| out.join(name));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return path.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(root: &Path, state_dir: Option<PathBuf>) -> Workspace {
        let env = EnvSnapshot {
            home: Some(root.join("home").into()),
            ..EnvSnapshot::default()
        };
        fs_err::create_dir_all(root.join("ws/.git")).unwrap();
        let mut workspace = Workspace::open(&root.join("ws"), &env).unwrap();
        workspace.state_dir = state_dir;
        workspace
    }

    #[test]
    fn the_key_stays_outside_the_workspace_and_the_quarantine() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ws = workspace(root, Some(root.join("ws/state/agent-guard")));
        assert!(matches!(
            chain_key(&ws),
            Err(EngineError::KeyInsideWorkspace { .. })
        ));
        assert!(!root.join("ws/state").exists(), "nothing is created inside");
        let in_trash = workspace(root, Some(root.join("ws/.agent-trash/agent-guard")));
        assert!(chain_key(&in_trash).is_err());
        let outside = workspace(root, Some(root.join("home/.local/state/agent-guard")));
        assert!(chain_key(&outside).is_ok());
        // A workspace holding the home directory (explicit only) has no outside for it.
        let mut home_ws = workspace(root, Some(root.join("ws/home/.local/state/agent-guard")));
        home_ws.home = Some(root.join("ws/home"));
        assert!(chain_key(&home_ws).is_ok());
        let none = workspace(root, None);
        assert!(matches!(
            chain_key(&none),
            Err(EngineError::NoStateDirectory)
        ));
        assert!(existing_key(&none).unwrap().is_none());
    }

    #[test]
    fn the_state_directory_follows_xdg_then_home() {
        let env = EnvSnapshot {
            xdg_state_home: Some("/state".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(
            crate::workspace::state_dir(&env, Some(Path::new("/home/u"))),
            Some(PathBuf::from("/state/agent-guard"))
        );
        let relative = EnvSnapshot {
            xdg_state_home: Some("state".into()),
            ..EnvSnapshot::default()
        };
        assert_eq!(
            crate::workspace::state_dir(&relative, Some(Path::new("/home/u"))),
            Some(PathBuf::from("/home/u/.local/state/agent-guard"))
        );
        assert_eq!(crate::workspace::state_dir(&relative, None), None);
    }
}

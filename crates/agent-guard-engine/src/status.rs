//! `status`: usage, mode, retention, recent decisions, and what crash recovery reconciled.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use agent_guard_audit::AuditLog;
use agent_guard_checkpoint::watch;
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{GcEntry, Reconciled, Usage};
use agent_guard_session::read_mode;
use agent_guard_types::SessionMode;

use crate::audit::{AuditChainStatus, chain_status};
use crate::error::Result;
use crate::location::StoreLocation;
use crate::runtime::Runtime;
use crate::store::quarantine;
use crate::workspace::Workspace;

/// How many audit records the decision counts look at.
const DECISION_WINDOW: usize = 5000;
/// Events that carry a decision.
const DECISION_EVENTS: &[&str] = &[
    "check",
    "enforce-block",
    "enforce-proceed",
    "ask",
    "decision",
];

/// Retention facts: the soft limits and what gc would purge.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Retention {
    /// Days a transaction is kept before it becomes eligible.
    pub soft_days: u32,
    /// The size above which the oldest transactions become eligible.
    pub soft_limit_bytes: u64,
    /// The quarantine's size.
    pub total_bytes: u64,
    /// What `gc --execute --all-eligible` would purge.
    pub gc_eligible: Vec<GcEntry>,
}

/// The checkpoint watcher of the workspace (docs/checkpoints.md, "The watcher").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WatcherStatus {
    /// `running`; `not-running` (the next checkpoint starts one); `off` (one gave up
    /// within the hour: checkpoints walk); `impostor` (another program listens at its
    /// socket: checkpoints walk); `disabled` (`AGENT_GUARD_CHECKPOINT_WATCH=0`).
    pub state: &'static str,
    /// Why it is off, or what to do about an impostor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The result of `status`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatusReport {
    /// The workspace root.
    pub workspace: String,
    /// The session mode.
    pub mode: SessionMode,
    /// When the mode was set.
    pub mode_since: Option<String>,
    /// The quarantine root.
    pub trash_root: String,
    /// Where the store is and how that was chosen (docs/recovery.md).
    pub store: StoreLocation,
    /// What moving an older store from inside the workspace did, when there was something
    /// to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_migration: Option<String>,
    /// Quarantine usage.
    pub usage: Usage,
    /// Retention and gc eligibility.
    pub retention: Retention,
    /// Interrupted relocations this call resolved.
    pub reconciled_now: Reconciled,
    /// Items ever recovered from an intent by crash reconciliation.
    pub reconciled_total: usize,
    /// Reason code → count over the last decisions.
    pub decisions: BTreeMap<String, usize>,
    /// The last audit records (projected metadata only).
    pub recent_audit: Vec<Map<String, Value>>,
    /// Why `.agent-guard.toml` cannot be read, when it cannot (destructive commands are
    /// refused with `BLOCK_CONFIG_INVALID` until it is fixed; the status shown uses the
    /// defaults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
    /// The audit log's chain, verified with this user's key; `null` when the key or the log
    /// cannot be read. See `agent-guard audit verify` for every finding.
    pub audit_chain: Option<AuditChainStatus>,
    /// The checkpoint watcher; `null` when the workspace has no checkpoint yet.
    pub checkpoint_watcher: Option<WatcherStatus>,
    /// Packs of the checkpoint store that are missing or truncated since it wrote them
    /// (empty: none). The next checkpoint sets them aside and is taken in full; a
    /// checkpoint that named their objects cannot be restored completely.
    pub checkpoint_damage: Vec<CheckpointDamage>,
    /// What this call found a program had done to the guard's own files since the last
    /// checkpointed line, and put back (docs/threat-model.md); empty when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guard_files: Vec<String>,
}

/// One damaged pack of the checkpoint store (docs/recovery.md).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckpointDamage {
    /// The pack's file name.
    pub pack: String,
    /// `missing`, `truncated` or `index`.
    pub problem: String,
}

/// The damaged packs of the checkpoint store of the workspace at `cwd` (`doctor`): read
/// only, nothing reconciled or repaired.
///
/// # Errors
/// The workspace cannot be opened.
pub fn checkpoint_damage_at(cwd: &Path, env: &EnvSnapshot) -> Result<Vec<CheckpointDamage>> {
    let (workspace, _) = Workspace::open_lenient(cwd, env)?;
    let store = agent_guard_recovery::Quarantine::new(&workspace.root, workspace.trash());
    Ok(checkpoint_damage(&store))
}

/// The damage [`agent_guard_checkpoint::CheckpointStore::damage`] finds in `store`'s checkpoints.
fn checkpoint_damage(store: &agent_guard_recovery::Quarantine) -> Vec<CheckpointDamage> {
    let dir = agent_guard_recovery::checkpoint_store_dir(store);
    if !dir.is_dir() {
        return Vec::new();
    }
    agent_guard_checkpoint::CheckpointStore::open_existing(&dir)
        .map(|cp| cp.damage())
        .unwrap_or_default()
        .into_iter()
        .map(|d| CheckpointDamage {
            pack: d.pack,
            problem: d.problem,
        })
        .collect()
}

/// The watcher of `store`'s checkpoints, if it has any.
fn watcher_status(
    store: &agent_guard_recovery::Quarantine,
    env: &EnvSnapshot,
) -> Option<WatcherStatus> {
    let checkpoints = agent_guard_recovery::checkpoint_store_dir(store);
    if !checkpoints.is_dir() {
        return None;
    }
    if !env.checkpoint_watch() {
        return Some(WatcherStatus {
            state: "disabled",
            reason: None,
        });
    }
    Some(match watch::probe(&watch::dir_of(&checkpoints)) {
        watch::Probe::Running => WatcherStatus {
            state: "running",
            reason: None,
        },
        watch::Probe::Off(why) => WatcherStatus {
            state: "off",
            reason: Some(why),
        },
        watch::Probe::Impostor => WatcherStatus {
            state: "impostor",
            reason: Some(
                "another program listens at the watcher's socket; checkpoints ignore it and walk the workspace. Stop that program (`fuser -k` on the socket) and run `agent-guard doctor`"
                    .to_owned(),
            ),
        },
        _ => WatcherStatus {
            state: "not-running",
            reason: None,
        },
    })
}

/// Reports the quarantine's state; reconciles interrupted relocations first.
pub fn status(cwd: &Path, env: &EnvSnapshot, tail: usize) -> Result<StatusReport> {
    let (workspace, config_error) = Workspace::open_lenient(cwd, env)?;
    let runtime = Runtime::from_env(env)?;
    let guard_files = crate::seal::settle(&workspace, &runtime).unwrap_or_default();
    let store = quarantine(&workspace, &runtime, env);
    let state = read_mode(workspace.trash(), workspace.settings.session.as_deref());
    let policy = crate::gc::gc_policy(&workspace, &runtime);
    let overview = store.overview(&policy)?;
    let plan = overview.plan;
    let log = AuditLog::new(workspace.trash(), workspace.settings.session.as_deref());
    let records = log.tail(DECISION_WINDOW.max(tail)).unwrap_or_default();
    let mut decisions = BTreeMap::new();
    for record in records.iter().rev().take(DECISION_WINDOW) {
        let event = record
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if DECISION_EVENTS.contains(&event) {
            let code = record
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("PROCEED(compensated)");
            *decisions.entry(code.to_owned()).or_insert(0) += 1;
        }
    }
    let keep = [
        "ts",
        "event",
        "action",
        "decision",
        "code",
        "txid",
        "check_id",
        "guard_latency_ms",
        "tool",
    ];
    let recent_audit = records
        .iter()
        .skip(records.len().saturating_sub(tail))
        .map(|r| {
            r.iter()
                .filter(|(k, _)| keep.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .collect();
    Ok(StatusReport {
        workspace: workspace.root.display().to_string(),
        mode: state.mode,
        mode_since: state.since,
        trash_root: store.trash().display().to_string(),
        store: workspace.store.clone(),
        store_migration: workspace.migration.clone(),
        usage: overview.usage,
        retention: Retention {
            soft_days: policy.retention_days,
            soft_limit_bytes: policy.max_bytes,
            total_bytes: plan.as_ref().map_or(0, |p| p.total_bytes),
            gc_eligible: plan.map(|p| p.eligible).unwrap_or_default(),
        },
        reconciled_now: overview.reconciled,
        reconciled_total: overview.recovered_total,
        decisions,
        recent_audit,
        config_error,
        audit_chain: chain_status(&workspace),
        checkpoint_watcher: watcher_status(&store, env),
        checkpoint_damage: checkpoint_damage(&store),
        guard_files,
    })
}

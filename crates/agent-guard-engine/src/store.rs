//! Opening a workspace's quarantine with the command's clock, environment and armed faults.

use agent_guard_audit::Clock;
use agent_guard_config::EnvSnapshot;
use agent_guard_recovery::{FaultPoint, Faults, Quarantine};

use crate::runtime::Runtime;
use crate::workspace::Workspace;

/// The quarantine of `workspace`, stamped by `runtime`'s clock, reading git's per-user files
/// where git does, with the test-only fault point from `AGENT_GUARD_FAULT` armed.
pub(crate) fn quarantine(
    workspace: &Workspace,
    runtime: &Runtime,
    env: &EnvSnapshot,
) -> Quarantine {
    let clock = runtime.fixed_clock().map_or(Clock::System, Clock::Fixed);
    let faults = env
        .fault
        .as_deref()
        .and_then(FaultPoint::parse)
        .map_or(Faults::none(), Faults::armed);
    Quarantine::new(workspace.root.clone(), workspace.trash().to_owned())
        .with_clock(clock)
        .with_faults(faults)
        .with_git_user_dir(env.git_user_dir())
}

//! The environment snapshot.

use std::ffi::OsString;

use crate::env_vars;

/// A snapshot of the relevant environment, captured once by the engine (or built by tests).
///
/// Path-valued variables keep their raw bytes; text-valued ones are converted lossily (see
/// [`EnvSnapshot::capture`]). An unset variable is `None`; an empty one is kept as empty and
/// treated as unset by [`Settings::resolve`](crate::Settings::resolve).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvSnapshot {
    /// `AGENT_GUARD_WORKSPACE`: overrides workspace discovery.
    pub workspace: Option<OsString>,
    /// `AGENT_GUARD_TRASH`: the quarantine location.
    pub trash: Option<OsString>,
    /// `AGENT_GUARD_DIALECT`: the default dialect selector.
    pub dialect: Option<String>,
    /// `AGENT_GUARD_SESSION`: the raw session identity.
    pub session: Option<String>,
    /// `AGENT_GUARD_ARTIFACTS`: extra artifact patterns, path-list separated.
    pub artifacts: Option<OsString>,
    /// `AGENT_GUARD_ALLOW_REGENERABLE`: regenerable-artifact switch.
    pub allow_regenerable: Option<String>,
    /// `HOME`: the user's home directory.
    pub home: Option<OsString>,
    /// `AGENT_GUARD_DEADLINE_MS`: the hook deadline, unparsed.
    pub deadline_ms: Option<String>,
    /// `AGENT_GUARD_NOW`: test-only clock override, unparsed (unstable).
    pub now: Option<String>,
    /// `AGENT_GUARD_ID_SEED`: test-only id seed, unparsed (unstable).
    pub id_seed: Option<String>,
    /// `AGENT_GUARD_DEBUG`: adapter debug switch.
    pub debug: Option<String>,
    /// `AGENT_GUARD_FAULT`: test-only crash injection point (unstable).
    pub fault: Option<String>,
}

impl EnvSnapshot {
    /// Captures the variables of [`env_vars`] from the process environment.
    ///
    /// This is the one place agent-guard reads its environment. A text-valued variable that is
    /// not valid UTF-8 is kept as its lossy conversion, so that a garbled value is reported as
    /// invalid later instead of silently disappearing.
    pub fn capture() -> EnvSnapshot {
        let raw = |name: &str| std::env::var_os(name);
        let text = |name: &str| raw(name).map(|value| value.to_string_lossy().into_owned());
        EnvSnapshot {
            workspace: raw(env_vars::WORKSPACE),
            trash: raw(env_vars::TRASH),
            dialect: text(env_vars::DIALECT),
            session: text(env_vars::SESSION),
            artifacts: raw(env_vars::ARTIFACTS),
            allow_regenerable: text(env_vars::ALLOW_REGENERABLE),
            home: raw(env_vars::HOME),
            deadline_ms: text(env_vars::DEADLINE_MS),
            now: text(env_vars::NOW),
            id_seed: text(env_vars::ID_SEED),
            debug: text(env_vars::DEBUG),
            fault: text(env_vars::FAULT),
        }
    }
}

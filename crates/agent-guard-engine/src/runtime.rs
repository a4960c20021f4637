//! The clock and the id source, read once from the environment and injected everywhere.
//!
//! `AGENT_GUARD_NOW` (an RFC 3339 instant) and `AGENT_GUARD_ID_SEED` (any text) are
//! test-only overrides, documented as unstable: they make ids and timestamps reproducible.
//! `AGENT_GUARD_FAULT=audit-torn-append` (also unstable) aborts the process halfway through
//! the next audit append, for the torn-tail tests; the other fault points are the
//! quarantine's.

use std::cell::Cell;

use chrono::{DateTime, Utc};

use agent_guard_audit::AuditFault;
use agent_guard_config::{EnvSnapshot, env_vars};

use crate::error::{EngineError, Result};

/// The clock and id source of one command.
#[derive(Debug)]
pub struct Runtime {
    now: DateTime<Utc>,
    fixed_clock: bool,
    seed: Option<Cell<u64>>,
    audit_fault: Option<AuditFault>,
}

impl Runtime {
    /// Reads the overrides from the environment snapshot.
    pub fn from_env(env: &EnvSnapshot) -> Result<Runtime> {
        let (now, fixed_clock) = match env.now.as_deref().filter(|v| !v.trim().is_empty()) {
            Some(text) => {
                let instant = DateTime::parse_from_rfc3339(text.trim()).map_err(|_| {
                    EngineError::InvalidOverride {
                        name: env_vars::NOW,
                        value: text.to_owned(),
                    }
                })?;
                (instant.with_timezone(&Utc), true)
            }
            None => (Utc::now(), false),
        };
        let seed = env
            .id_seed
            .as_deref()
            .filter(|v| !v.is_empty())
            .map(|text| {
                Cell::new(text.bytes().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                }))
            });
        let audit_fault = env.fault.as_deref().and_then(AuditFault::parse);
        Ok(Runtime {
            now,
            fixed_clock,
            seed,
            audit_fault,
        })
    }

    /// A runtime on the system clock with random ids.
    pub fn system() -> Runtime {
        Runtime {
            now: Utc::now(),
            fixed_clock: false,
            seed: None,
            audit_fault: None,
        }
    }

    /// The audit log's test-only crash point from `AGENT_GUARD_FAULT`, if armed.
    pub fn audit_fault(&self) -> Option<AuditFault> {
        self.audit_fault
    }

    /// The instant the command started (or the fixed test instant).
    pub fn now(&self) -> DateTime<Utc> {
        if self.fixed_clock {
            self.now
        } else {
            Utc::now()
        }
    }

    /// Whether the clock is fixed by `AGENT_GUARD_NOW`.
    pub fn fixed_clock(&self) -> Option<DateTime<Utc>> {
        self.fixed_clock.then_some(self.now)
    }

    /// Returns 32 random (or seeded) bits.
    pub fn random_u32(&self) -> u32 {
        if let Some(state) = &self.seed {
            // splitmix64: deterministic, well-distributed test ids.
            let mut z = state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
            state.set(z);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            let bits = (z ^ (z >> 31)) >> 32;
            u32::try_from(bits).unwrap_or(u32::MAX)
        } else {
            let bytes = uuid::Uuid::new_v4().into_bytes();
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        }
    }

    /// Returns a new id in the transaction format `YYYYMMDD-HHMMSS-xxxxxxxx`.
    pub fn new_id(&self) -> String {
        format!(
            "{}-{:08x}",
            self.now().format("%Y%m%d-%H%M%S"),
            self.random_u32()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::is_generated_id;

    #[test]
    fn ids_have_the_transaction_shape() {
        let runtime = Runtime::system();
        let id = runtime.new_id();
        assert!(is_generated_id(&id), "{id}");
    }

    #[test]
    fn overrides_make_ids_reproducible() {
        let env = EnvSnapshot {
            now: Some("2026-11-30T10:00:00Z".into()),
            id_seed: Some("seed".into()),
            ..EnvSnapshot::default()
        };
        let a = Runtime::from_env(&env).unwrap();
        let b = Runtime::from_env(&env).unwrap();
        assert_eq!(a.new_id(), b.new_id());
        assert!(a.new_id().starts_with("20261130-100000-"));
        assert_ne!(a.new_id(), a.new_id());
    }

    #[test]
    fn bad_clock_override_is_an_error() {
        let env = EnvSnapshot {
            now: Some("yesterday".into()),
            ..EnvSnapshot::default()
        };
        assert!(Runtime::from_env(&env).is_err());
    }
}

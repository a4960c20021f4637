//! A line refused after some of its compensations ran does not run: what those took out of
//! the workspace (relocations into the quarantine) goes back before the answer, so the
//! workspace is as the line found it. Kept copies stay kept; they took nothing away.

use agent_guard_recovery::{Applied, Progress, Quarantine, RestoreOptions};
use agent_guard_types::Strategy;

use crate::enforce::new_txid;

/// What putting back did: the workspace paths that came back, and what stayed in the
/// quarantine (still restorable by its txid), each as a sentence.
#[derive(Debug, Default)]
pub(crate) struct PutBack {
    /// Workspace paths moved back from the quarantine.
    pub(crate) restored: Vec<String>,
    /// Problems, each naming the transaction that still holds what did not come back.
    pub(crate) left: Vec<String>,
    /// The transactions put back whole: they keep nothing any more.
    pub(crate) txids: Vec<String>,
}

/// Restores every transaction in `applied` that moved paths out of the workspace
/// (`relocate`, `clean-enumerate`), newest first, without overwriting anything (a path the
/// quarantine cannot put back stays there and is named in [`PutBack::left`]).
pub(crate) fn put_back(
    store: &Quarantine,
    applied: &[Applied],
    runtime: &crate::Runtime,
    progress: &dyn Progress,
) -> PutBack {
    let mut done = PutBack::default();
    for compensation in applied.iter().rev() {
        let takes_away = matches!(
            compensation.strategy,
            Strategy::Relocate | Strategy::CleanEnumerate
        );
        if !takes_away || compensation.moved == 0 {
            continue;
        }
        let report = agent_guard_recovery::restore(
            store,
            &compensation.txid,
            &RestoreOptions::default(),
            &mut || new_txid(runtime),
            progress,
        );
        done.restored.extend(report.restored);
        if report.conflicts.is_empty() && report.errors.is_empty() {
            done.txids.push(compensation.txid.clone());
        }
        for problem in report.conflicts.iter().chain(&report.errors) {
            done.left.push(format!(
                "{problem} (kept in transaction {}: `agent-guard restore {}`)",
                compensation.txid, compensation.txid
            ));
        }
    }
    done
}

impl PutBack {
    /// The sentence added to a refusal, or `None` when nothing had been taken away.
    pub(crate) fn sentence(&self) -> Option<String> {
        match (self.restored.is_empty(), self.left.is_empty()) {
            (true, true) => None,
            (false, true) => Some(format!(
                "what the guard had already moved into the quarantine is back in place ({}): \
                 the workspace is as it was",
                self.restored.len()
            )),
            (_, false) => Some(format!(
                "not everything the guard had already moved could go back: {}",
                self.left.join("; ")
            )),
        }
    }
}

//! `BLOCK_PROTECTED_PATH`.

use agent_guard_types::{PathSpec, Protected};

super::reason!(
    BlockProtectedPath, BlockProtectedPath, "BLOCK_PROTECTED_PATH",
    catches: "The workspace root (`rm -rf .`), anything with a `.git` component, the quarantine root or any alias of it (a symlink to it), the quarantine's control files (`manifest.jsonl`, `audit.jsonl`, `state.json`, `sessions/`, `lock`, `.git`), and any in-workspace directory that contains the quarantine — as the target of a delete, an overwrite, or an append (`echo x >> .git/config`, `tee -a .agent-trash/audit.jsonl`), reached directly or through a final symlink.",
    why: "Deleting these would destroy the project, its history, or the means of recovery itself; appending to them is tampering (a `[core] fsmonitor` line runs code, an appended record forges the audit log). The quarantine protects itself.",
    example: "rm -rf .git",
    verdict: "BLOCK, never askable; checked before quarantine housekeeping.",
    recovery: "Delete narrower paths. Quarantined payload is removed with `agent-guard gc --execute`.",
    enforcement: None,
    hint: "Name the files inside instead; the workspace root, `.git` and the quarantine are never deleted (`agent-guard gc` frees the quarantine).",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any target is the workspace root, git metadata or quarantine control.
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    specs.iter().any(|s| {
        matches!(
            s.protected,
            Some(Protected::WorkspaceRoot | Protected::GitMetadata | Protected::QuarantineControl)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, file, protected};

    #[test]
    fn protected_labels() {
        assert!(applies(&[protected(dir("."), Protected::WorkspaceRoot)]));
        assert!(applies(&[protected(dir(".git"), Protected::GitMetadata)]));
        assert!(applies(&[
            file("a"),
            protected(
                file(".agent-trash/audit.jsonl"),
                Protected::QuarantineControl
            )
        ]));
        assert!(!applies(&[file("a")]));
    }
}

//! Reason codes: the stable machine strings that say why a verdict was reached.

use serde::{Deserialize, Serialize};

use crate::Decision;

macro_rules! reason_codes {
    ($( $(#[$meta:meta])* $variant:ident => $text:literal, $decision:ident, $explanation:literal; )*) => {
        /// Why a verdict was reached. The string form is a stable public contract.
        ///
        /// Codes are never renamed or reused. New codes follow the `DECISION_WHAT` pattern.
        /// The policy crate holds one documented rule file per code; a test there checks that
        /// its registry and this enum agree.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum ReasonCode {
            $( $(#[$meta])* $variant, )*
        }

        impl ReasonCode {
            /// Every reason code, in registry order.
            pub const ALL: &'static [ReasonCode] = &[ $( ReasonCode::$variant, )* ];

            /// Returns the stable string, e.g. `RELOCATE_TREE`.
            pub const fn as_str(self) -> &'static str {
                match self { $( ReasonCode::$variant => $text, )* }
            }

            /// Returns the decision class this code belongs to.
            pub const fn decision(self) -> Decision {
                match self { $( ReasonCode::$variant => Decision::$decision, )* }
            }

            /// Returns the one-sentence human explanation. Wording is not part of the contract.
            pub const fn explanation(self) -> &'static str {
                match self { $( ReasonCode::$variant => $explanation, )* }
            }
        }
    };
}

reason_codes! {
    /// Nothing would be deleted.
    AllowNoop => "ALLOW_NOOP", Allow,
        "Nothing would be deleted by this command.";
    /// Every target is an ignored build artifact that can be regenerated.
    AllowRegenerable => "ALLOW_REGENERABLE", Allow,
        "Every target is a git-ignored build artifact that can be regenerated, so it is deleted directly.";
    /// Housekeeping of already-quarantined payload.
    AllowTrashGc => "ALLOW_TRASH_GC", Allow,
        "Every target is quarantined payload; removing it is quarantine housekeeping.";
    /// Named files are moved to the quarantine.
    RelocatePaths => "RELOCATE_PATHS", Relocate,
        "The named paths are moved into the quarantine first, so the delete can be undone.";
    /// A directory tree is moved to the quarantine.
    RelocateTree => "RELOCATE_TREE", Relocate,
        "The directory tree is moved into the quarantine first, so the delete can be undone.";
    /// Restricted session: single files may still be deleted, recoverably.
    RelocateNarrow => "RELOCATE_NARROW", Relocate,
        "The session is restricted; single files may still be deleted, and they are quarantined first.";
    /// Everything `git clean` would remove is enumerated and quarantined.
    RelocateViaCleanEnumerate => "RELOCATE_VIA_CLEAN_ENUMERATE", Relocate,
        "Everything git clean would remove is enumerated and quarantined first.";
    /// Tracked git changes are snapshotted first.
    SnapshotGitStash => "SNAPSHOT_GIT_STASH", Snapshot,
        "Uncommitted tracked changes are snapshotted in git first, so they can be restored.";
    /// A `cd` earlier in the line makes the targets' base directory unknown.
    CompoundCwdDelete => "COMPOUND_CWD_DELETE", Ask,
        "A directory change earlier in the line makes the targets unresolvable before it runs; run the delete as its own command from the right directory.";
    /// Files created earlier in the line do not exist yet.
    CompoundCreateDelete => "COMPOUND_CREATE_DELETE", Ask,
        "The line creates files and then deletes them; what it deletes does not exist yet and cannot be quarantined first.";
    /// The target set cannot be known statically.
    BlockUndeterminableEffect => "BLOCK_UNDETERMINABLE_EFFECT", Block,
        "What this command would delete cannot be determined before it runs; restate it with literal, workspace-relative paths.";
    /// A target is outside the workspace.
    BlockOutOfWorkspace => "BLOCK_OUT_OF_WORKSPACE", Block,
        "A target lies outside the workspace; the guard never deletes outside it.";
    /// A target is protected (workspace root, git metadata, quarantine).
    BlockProtectedPath => "BLOCK_PROTECTED_PATH", Block,
        "A target is protected: the workspace root, git metadata or the quarantine itself.";
    /// A target is a filesystem root or the home directory.
    BlockProtectedAncestor => "BLOCK_PROTECTED_ANCESTOR", Block,
        "A target is a filesystem root or the home directory, which is never deleted.";
    /// A target is the guard's own configuration or a harness's hook configuration, or the
    /// line runs a person-only verb of the guard.
    BlockSelfProtection => "BLOCK_SELF_PROTECTION", Block,
        "The command would change the guard's configuration or a harness's hook configuration, or run one of the guard's person-only verbs; only a person does that, so the guard stays on.";
    /// A target is a glob.
    BlockWildcard => "BLOCK_WILDCARD", Block,
        "A target is a wildcard whose matches are unknown; list the paths, or use safe-delete, which expands globs itself.";
    /// The session was restricted by a human.
    BlockRestrictedMode => "BLOCK_RESTRICTED_MODE", Block,
        "The session is restricted; only single files may be deleted until a human restores normal mode.";
    /// Remote history destruction.
    BlockForcePush => "BLOCK_FORCE_PUSH", Block,
        "Force pushes and remote ref deletions destroy remote history and are never automated.";
    /// A hard reset would overwrite untracked or ignored content.
    BlockGitResetCollision => "BLOCK_GIT_RESET_COLLISION", Block,
        "The hard reset would overwrite untracked or ignored files that a snapshot cannot preserve.";
    /// The dialect selector is not known.
    BlockDialectUnknown => "BLOCK_DIALECT_UNKNOWN", Block,
        "The shell dialect selector is not recognised; the command was not classified.";
    /// The dialect selector is malformed.
    BlockDialectInvalid => "BLOCK_DIALECT_INVALID", Block,
        "The shell dialect selector is malformed; the command was not classified.";
    /// Commits a ref-dropping git command would lose are kept under private refs.
    SnapshotGitRefs => "SNAPSHOT_GIT_REFS", Snapshot,
        "The commits this command drops (stash entries, branch tips, tags) are kept under private refs first, so they can be restored.";
    /// The project configuration could not be read.
    BlockConfigInvalid => "BLOCK_CONFIG_INVALID", Block,
        "A configuration file (the project's .agent-guard.toml, or the user's or the system's agent-guard/config.toml) could not be read; destructive commands are refused until it is fixed.";
    /// The quarantine ran out of space.
    RelocateFailedStorage => "RELOCATE_FAILED_STORAGE", Block,
        "The quarantine has no room for the targets; nothing more was moved and the command must not run.";
    /// A compensation was attempted and failed.
    CompensationFailed => "COMPENSATION_FAILED", Block,
        "The guard could not make this delete recoverable, so the command must not run; anything already moved stays restorable.";
    /// The current version of overwritten files is preserved first.
    SnapshotOverwrite => "SNAPSHOT_OVERWRITE", Snapshot,
        "The current version of every existing file the command overwrites is preserved first, so the overwrite can be undone.";
    /// Files the command reads and then deletes are preserved first.
    SnapshotConsumedInput => "SNAPSHOT_CONSUMED_INPUT", Snapshot,
        "The command deletes its input files after reading them (gzip, tar --remove-files, …); they are preserved first, so they can be restored.";
    /// A file to preserve is larger than the configured cap.
    AskPreserveTooLarge => "ASK_PRESERVE_TOO_LARGE", Ask,
        "A file this command overwrites is larger than the preservation cap, so keeping its current version first would be too costly; a human must approve.";
    /// Hook mode: the harness's payload could not be read.
    HookMalformedPayload => "HOOK_MALFORMED_PAYLOAD", Block,
        "The hook payload could not be read, so the tool call was refused (fail-closed).";
    /// Hook mode: the guard failed internally (an error or a caught panic).
    HookInternalError => "HOOK_INTERNAL_ERROR", Block,
        "agent-guard failed internally while judging the tool call, so it was refused (fail-closed).";
    /// Hook mode: no verdict within the hook's deadline.
    HookDeadlineExceeded => "HOOK_DEADLINE_EXCEEDED", Block,
        "agent-guard did not reach a verdict within its deadline, so the tool call was refused (fail-closed).";
    /// Hook mode: the hook's own command line could not be parsed.
    HookUsageError => "HOOK_USAGE_ERROR", Block,
        "The hook's command line is invalid, so the tool call was refused (fail-closed).";
    /// Hook mode: a Codex `apply_patch` deletes files that cannot be quarantined ahead of it.
    AskPatchDelete => "ASK_PATCH_DELETE", Ask,
        "The patch deletes files, which cannot be moved into the quarantine ahead of the patch.";
    /// A person approved this exact command once (`agent-guard approve`).
    AllowApproved => "ALLOW_APPROVED", Allow,
        "A person approved this exact command, in this directory and workspace, once; the approval is now used up.";
    /// A program the guard cannot see into runs after a workspace checkpoint.
    SnapshotCheckpoint => "SNAPSHOT_CHECKPOINT", Snapshot,
        "The command runs a program whose effects the guard cannot see (a script, an interpreter, a build tool, an unknown command); the workspace is checkpointed first, so what it changes inside the workspace can be undone.";
    /// A delete confined to the workspace whose targets only the shell knows runs after a
    /// workspace checkpoint.
    SnapshotCheckpointDelete => "SNAPSHOT_CHECKPOINT_DELETE", Snapshot,
        "What this delete removes is only known when it runs, but it cannot leave the workspace; the workspace is checkpointed first, so the delete can be undone.";
    /// An overwrite confined to the workspace whose targets only the shell or the program
    /// knows runs after a workspace checkpoint.
    SnapshotCheckpointWrite => "SNAPSHOT_CHECKPOINT_WRITE", Snapshot,
        "Which files this command rewrites is only known when it runs, but they all lie in the workspace; the workspace is checkpointed first, so every rewrite can be undone.";
    /// Checkpoints are off: a program the guard cannot see into runs unprotected.
    AllowUncheckpointed => "ALLOW_UNCHECKPOINTED", Allow,
        "The command runs a program whose effects the guard cannot see, and checkpoints are turned off ([checkpoint] mode = never), so it runs unprotected.";
    /// Hook mode: the current version of files an edit tool changes is preserved first.
    SnapshotEditTool => "SNAPSHOT_EDIT_TOOL", Snapshot,
        "The current version of every existing file this edit-tool call writes, edits, deletes or renames is copied into the quarantine first, so the edit can be undone.";
    /// A move or rename: where each source was, and what each destination held, is recorded
    /// first (nothing is taken away), so undo moves every source back.
    SnapshotMove => "SNAPSHOT_MOVE", Snapshot,
        "The command moves or renames paths; where each one was, and what each destination held, is recorded first (nothing is taken away), so undo puts every source back at its name and every destination back as it was.";
    /// Hook mode, from the hook launcher `install` writes: the guard could not answer (its
    /// binary is missing, it exited otherwise than with a reply, it was killed, or it did not
    /// answer within the launcher's timeout).
    HookGuardUnavailable => "HOOK_GUARD_UNAVAILABLE", Block,
        "agent-guard could not judge the tool call (its program is missing, failed, crashed or did not answer in time), so it was refused (fail-closed).";
    /// A command drops, truncates, resets or wipes a database, or runs statements the guard
    /// cannot read against one.
    AskDatabaseDestroy => "ASK_DATABASE_DESTROY", Ask,
        "The command drops, truncates or resets a database (or runs statements the guard cannot read against one); a database lives outside the workspace, so a person decides; a local database the line pins down is dumped into the store first, and undo restores the dump.";
    /// A command destroys cloud resources, cluster objects, container volumes or a hosted
    /// service's data.
    AskOutsideDestroy => "ASK_OUTSIDE_DESTROY", Ask,
        "The command destroys what lives outside the workspace (cloud resources, cluster objects, container volumes, a hosted service's data), which nothing the guard keeps can bring back; a person decides.";
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for ReasonCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReasonCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let codes: Vec<&str> = ReasonCode::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "description": "A stable reason code (see docs/reasons.md).",
            "type": "string",
            "enum": codes,
        })
    }
}

impl ReasonCode {
    /// Parses a stable string; returns `None` for unknown codes.
    pub fn parse(text: &str) -> Option<ReasonCode> {
        ReasonCode::ALL.iter().copied().find(|c| c.as_str() == text)
    }
}

impl std::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReasonCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ReasonCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ReasonCode::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown reason code `{text}`")))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn strings_are_unique_and_follow_the_pattern() {
        let mut seen = HashSet::new();
        for code in ReasonCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate {code}");
            assert!(
                code.as_str()
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_'),
                "{code}"
            );
            assert!(!code.explanation().is_empty());
            assert_eq!(ReasonCode::parse(code.as_str()), Some(*code));
        }
    }

    #[test]
    fn decision_prefixes_match_for_prefixed_codes() {
        for code in ReasonCode::ALL {
            let text = code.as_str();
            for d in Decision::ALL {
                if text.starts_with(&format!("{}_", d.as_str()))
                    && !text.starts_with("RELOCATE_FAILED")
                {
                    assert_eq!(code.decision(), d, "{code}");
                }
            }
        }
        assert_eq!(
            ReasonCode::RelocateFailedStorage.decision(),
            Decision::Block
        );
        assert_eq!(ReasonCode::CompoundCwdDelete.decision(), Decision::Ask);
    }

    #[test]
    fn serde_uses_the_stable_string() {
        let json = serde_json::to_string(&ReasonCode::RelocateTree).unwrap();
        assert_eq!(json, "\"RELOCATE_TREE\"");
        let back: ReasonCode = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ReasonCode::RelocateTree);
        assert!(serde_json::from_str::<ReasonCode>("\"NOPE\"").is_err());
    }
}

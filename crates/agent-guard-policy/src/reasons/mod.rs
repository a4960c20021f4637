//! The reason-code registry: one file per code, each with its documentation, the predicate
//! the state machine uses, and its tests (the ruff model).
//!
//! Codes are never renamed or reused. [`REGISTRY`] lists every code exactly once; a test
//! checks it against [`ReasonCode::ALL`], and `docs/reasons.md` is generated from it.

use agent_guard_types::{Decision, Dialect, ReasonCode};

pub mod allow_approved;
pub mod allow_noop;
pub mod allow_regenerable;
pub mod allow_trash_gc;
pub mod allow_uncheckpointed;
pub mod ask_database_destroy;
pub mod ask_outside_destroy;
pub mod ask_patch_delete;
pub mod ask_preserve_too_large;
pub mod block_config_invalid;
pub mod block_dialect_invalid;
pub mod block_dialect_unknown;
pub mod block_force_push;
pub mod block_git_reset_collision;
pub mod block_out_of_workspace;
pub mod block_protected_ancestor;
pub mod block_protected_path;
pub mod block_restricted_mode;
pub mod block_self_protection;
pub mod block_undeterminable_effect;
pub mod block_wildcard;
pub mod compensation_failed;
pub mod compound_create_delete;
pub mod compound_cwd_delete;
pub mod hook_deadline_exceeded;
pub mod hook_guard_unavailable;
pub mod hook_internal_error;
pub mod hook_malformed_payload;
pub mod hook_usage_error;
pub mod relocate_failed_storage;
pub mod relocate_narrow;
pub mod relocate_paths;
pub mod relocate_tree;
pub mod relocate_via_clean_enumerate;
pub mod snapshot_checkpoint;
pub mod snapshot_checkpoint_delete;
pub mod snapshot_checkpoint_write;
pub mod snapshot_consumed_input;
pub mod snapshot_edit_tool;
pub mod snapshot_git_refs;
pub mod snapshot_git_stash;
pub mod snapshot_move;
pub mod snapshot_overwrite;

/// The documentation of one reason code, in fixed sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReasonDoc {
    /// What shapes of command trigger the code.
    pub catches: &'static str,
    /// Why the guard reacts this way.
    pub why: &'static str,
    /// An example command line.
    pub example: &'static str,
    /// The default verdict and what configuration can change.
    pub verdict: &'static str,
    /// How to undo the effect, or what to do instead.
    pub recovery: &'static str,
}

/// How the command corpus covers a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// Advisory corpus cases reach it in every dialect.
    Corpus,
    /// Advisory corpus cases reach it, except in these dialects (and why not).
    CorpusExcept(&'static [Dialect], &'static str),
    /// No advisory corpus case can reach it; the named tests exercise it.
    Tests(&'static str),
}

impl Coverage {
    /// Whether the corpus of `dialect` must hold a case with this code.
    pub fn expects_corpus_case(self, dialect: Dialect) -> bool {
        match self {
            Coverage::Corpus => true,
            Coverage::CorpusExcept(dialects, _) => !dialects.contains(&dialect),
            Coverage::Tests(_) => false,
        }
    }
}

/// What a code asks of `check --enforce` before the command may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    /// Nothing: the command runs (ALLOW), or it does not run at all (ASK, BLOCK).
    None,
    /// A durable intent record first: the verdict's plan compensates (relocate, snapshot), or
    /// the command itself deletes what the plan names (regenerable artifacts, quarantine
    /// housekeeping).
    DurableIntent,
}

/// The Windows dialects, where `git` is a target-free unknown op (reference 4.5).
pub(crate) const WINDOWS: &[Dialect] = &[Dialect::Cmd, Dialect::PowerShell];

/// A reason code's rule: its stable code, default action, documentation, what enforcing it
/// takes, what to tell the agent next and how the corpus covers it.
pub trait Reason: Sync + std::fmt::Debug {
    /// The stable code.
    fn code(&self) -> ReasonCode;

    /// The decision this rule produces by default.
    fn default_action(&self) -> Decision {
        self.code().decision()
    }

    /// The documentation sections.
    fn doc(&self) -> &'static ReasonDoc;

    /// What `check --enforce` must do before the command runs.
    fn enforcement(&self) -> Enforcement;

    /// Whether `check --enforce` writes a durable intent record before the command runs.
    fn needs_intent(&self) -> bool {
        self.enforcement() == Enforcement::DurableIntent
    }

    /// The next thing an agent (or a person) should do after this verdict; empty when the
    /// command simply runs.
    fn hint(&self) -> &'static str;

    /// How the command corpus covers this code.
    fn coverage(&self) -> Coverage;
}

/// Declares a rule type with its documentation; the sections become the type's doc comment
/// and its [`ReasonDoc`], from one source.
macro_rules! reason {
    (
        $ty:ident, $code:ident, $text:literal,
        catches: $catches:literal,
        why: $why:literal,
        example: $example:literal,
        verdict: $verdict:literal,
        recovery: $recovery:literal,
        enforcement: $enforcement:ident,
        hint: $hint:literal,
        coverage: $coverage:expr $(,)?
    ) => {
        #[doc = concat!("`", $text, "`.")]
        #[doc = ""]
        #[doc = "## What it catches"]
        #[doc = $catches]
        #[doc = ""]
        #[doc = "## Why it matters"]
        #[doc = $why]
        #[doc = ""]
        #[doc = "## Example"]
        #[doc = concat!("`", $example, "`")]
        #[doc = ""]
        #[doc = "## Verdict"]
        #[doc = $verdict]
        #[doc = ""]
        #[doc = "## Recovery"]
        #[doc = $recovery]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $ty;

        impl $crate::reasons::Reason for $ty {
            fn code(&self) -> agent_guard_types::ReasonCode {
                agent_guard_types::ReasonCode::$code
            }

            fn doc(&self) -> &'static $crate::reasons::ReasonDoc {
                &$crate::reasons::ReasonDoc {
                    catches: $catches,
                    why: $why,
                    example: $example,
                    verdict: $verdict,
                    recovery: $recovery,
                }
            }

            fn enforcement(&self) -> $crate::reasons::Enforcement {
                $crate::reasons::Enforcement::$enforcement
            }

            fn hint(&self) -> &'static str {
                $hint
            }

            fn coverage(&self) -> $crate::reasons::Coverage {
                #[allow(unused_imports, reason = "not every coverage names dialects")]
                use $crate::reasons::{Coverage, WINDOWS};
                $coverage
            }
        }
    };
}
pub(crate) use reason;

/// Every rule, in registry order (the order of [`ReasonCode::ALL`]).
pub static REGISTRY: &[&dyn Reason] = &[
    &allow_noop::AllowNoop,
    &allow_regenerable::AllowRegenerable,
    &allow_trash_gc::AllowTrashGc,
    &relocate_paths::RelocatePaths,
    &relocate_tree::RelocateTree,
    &relocate_narrow::RelocateNarrow,
    &relocate_via_clean_enumerate::RelocateViaCleanEnumerate,
    &snapshot_git_stash::SnapshotGitStash,
    &compound_cwd_delete::CompoundCwdDelete,
    &compound_create_delete::CompoundCreateDelete,
    &block_undeterminable_effect::BlockUndeterminableEffect,
    &block_out_of_workspace::BlockOutOfWorkspace,
    &block_protected_path::BlockProtectedPath,
    &block_protected_ancestor::BlockProtectedAncestor,
    &block_self_protection::BlockSelfProtection,
    &block_wildcard::BlockWildcard,
    &block_restricted_mode::BlockRestrictedMode,
    &block_force_push::BlockForcePush,
    &block_git_reset_collision::BlockGitResetCollision,
    &block_dialect_unknown::BlockDialectUnknown,
    &block_dialect_invalid::BlockDialectInvalid,
    &snapshot_git_refs::SnapshotGitRefs,
    &block_config_invalid::BlockConfigInvalid,
    &relocate_failed_storage::RelocateFailedStorage,
    &compensation_failed::CompensationFailed,
    &snapshot_overwrite::SnapshotOverwrite,
    &snapshot_consumed_input::SnapshotConsumedInput,
    &ask_preserve_too_large::AskPreserveTooLarge,
    &hook_malformed_payload::HookMalformedPayload,
    &hook_internal_error::HookInternalError,
    &hook_deadline_exceeded::HookDeadlineExceeded,
    &hook_usage_error::HookUsageError,
    &ask_patch_delete::AskPatchDelete,
    &allow_approved::AllowApproved,
    &snapshot_checkpoint::SnapshotCheckpoint,
    &snapshot_checkpoint_delete::SnapshotCheckpointDelete,
    &snapshot_checkpoint_write::SnapshotCheckpointWrite,
    &allow_uncheckpointed::AllowUncheckpointed,
    &snapshot_edit_tool::SnapshotEditTool,
    &snapshot_move::SnapshotMove,
    &hook_guard_unavailable::HookGuardUnavailable,
    &ask_database_destroy::AskDatabaseDestroy,
    &ask_outside_destroy::AskOutsideDestroy,
];

/// Returns the rule for `code`.
pub fn lookup(code: ReasonCode) -> Option<&'static dyn Reason> {
    REGISTRY.iter().copied().find(|r| r.code() == code)
}

/// Renders one code's section of `docs/reasons.md` (what `agent-guard explain CODE` prints).
pub fn render_section(rule: &dyn Reason) -> String {
    let code = rule.code();
    let doc = rule.doc();
    format!(
        "## {code}\n\nDecision: **{}**. {}\n\n### What it catches\n\n{}\n\n### Why it matters\n\n{}\n\n\
         ### Example\n\n```sh\n{}\n```\n\n### Verdict\n\n{}\n\n### Recovery\n\n{}\n",
        rule.default_action(),
        code.explanation(),
        doc.catches,
        doc.why,
        doc.example,
        doc.verdict,
        doc.recovery
    )
}

/// Renders `docs/reasons.md` from the registry.
pub fn render_markdown() -> String {
    use std::fmt::Write as _;

    let mut out = String::from(
        "# Reason codes\n\n<!-- Generated from crates/agent-guard-policy/src/reasons by \
         `UPDATE_DOCS=1 cargo test -p agent-guard-policy`. Do not edit by hand. -->\n\n\
         Every verdict carries one stable reason code. Codes are a public contract: they are \
         never renamed or reused.\n\n| Code | Decision | Explanation |\n|---|---|---|\n",
    );
    for rule in REGISTRY {
        let code = rule.code();
        let _ = writeln!(
            out,
            "| [`{code}`](#{}) | {} | {} |",
            code.as_str().to_ascii_lowercase(),
            rule.default_action(),
            code.explanation()
        );
    }
    for rule in REGISTRY {
        out.push('\n');
        out.push_str(&render_section(*rule));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_matches_the_enum_exactly() {
        let registered: Vec<ReasonCode> = REGISTRY.iter().map(|r| r.code()).collect();
        assert_eq!(
            registered,
            ReasonCode::ALL,
            "registry order must follow ReasonCode::ALL"
        );
        for rule in REGISTRY {
            let doc = rule.doc();
            for section in [doc.catches, doc.why, doc.example, doc.verdict, doc.recovery] {
                assert!(
                    !section.trim().is_empty(),
                    "{} has an empty doc section",
                    rule.code()
                );
            }
            assert_eq!(rule.default_action(), rule.code().decision());
        }
    }

    /// `docs/reasons.md` is generated; this keeps it current.
    #[test]
    #[expect(
        clippy::disallowed_methods,
        reason = "test configuration from the environment"
    )]
    fn generated_docs_are_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reasons.md");
        let rendered = render_markdown();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &rendered).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == rendered,
            "docs/reasons.md is stale: run `UPDATE_DOCS=1 cargo test -p agent-guard-policy`"
        );
    }
}

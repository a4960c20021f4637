//! `ASK_PATCH_DELETE`.

super::reason!(
    AskPatchDelete, AskPatchDelete, "ASK_PATCH_DELETE",
    catches: "Hook mode, Codex: an `apply_patch` call with `*** Delete File:` sections.",
    why: "The patch needs the files it deletes, so they cannot be moved into the quarantine ahead of it.",
    example: "apply_patch with `*** Delete File: notes.txt`",
    verdict: "ASK where the harness can ask a human; a deny where it cannot.",
    recovery: "Delete the files with `agent-guard safe-delete <paths>` (reversible), then apply the patch without its delete sections.",
    enforcement: None,
    hint: "Delete the files with `agent-guard safe-delete <paths>` (reversible), then apply the patch without its `*** Delete File:` sections.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/hooks.rs: codex patch deletes"),
);

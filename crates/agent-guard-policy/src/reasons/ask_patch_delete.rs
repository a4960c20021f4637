//! `ASK_PATCH_DELETE` (no longer produced since issue 13; kept registered, as codes are
//! never removed or reused).

super::reason!(
    AskPatchDelete, AskPatchDelete, "ASK_PATCH_DELETE",
    catches: "No longer produced. Until issue 13, hook mode answered a Codex `apply_patch` with `*** Delete File:` sections with this code. Now the files a patch deletes or renames are copied into the quarantine first and the patch proceeds (`SNAPSHOT_EDIT_TOOL`).",
    why: "The patch needs the files it deletes, so they cannot be moved into the quarantine ahead of it; they are copied instead (the code stays registered so that old audit records and scripts that name it keep their meaning).",
    example: "apply_patch with `*** Delete File: notes.txt`",
    verdict: "ASK where the harness can ask a human; a deny where it cannot. Not produced any more.",
    recovery: "`agent-guard undo` brings back what a patch deleted (see `SNAPSHOT_EDIT_TOOL`).",
    enforcement: None,
    hint: "Delete the files with `agent-guard safe-delete <paths>` (reversible), then apply the patch without its `*** Delete File:` sections.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/edits.rs: a_patch_delete_is_preserved_not_asked"),
);

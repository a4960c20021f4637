//! `SNAPSHOT_EDIT_TOOL`.

super::reason!(
    SnapshotEditTool, SnapshotEditTool, "SNAPSHOT_EDIT_TOOL",
    catches: "Hook mode: a harness's file-writing tool call over existing files — Claude Code `Write`/`Edit`/`MultiEdit`/`NotebookEdit`, Codex `apply_patch` (update, delete and move hunks, and add hunks over an existing file), Gemini CLI `write_file`/`replace`, Qwen Code `write_file`/`edit`/`notebook_edit`, Copilot CLI `create`/`edit`/`str_replace_editor`/`apply_patch`, Cline `write_to_file`/`replace_in_file`, Windsurf `pre_write_code`, `OpenCode` `write`/`edit`/`multiedit`/`apply_patch`.",
    why: "An edit destroys the old content as surely as an overwrite in the shell, and a patch that deletes or renames a file destroys the file. The current version of every existing file the call touches is reflinked or copied into one transaction first (the file stays where it is: the tool reads it), so one `agent-guard undo` covers the editor and the shell alike. A new file has nothing to keep; targets outside the workspace, through a symlink leading outside, or protected are refused as for shell writes.",
    example: "Write {\"file_path\": \"/home/u/proj/notes.txt\", \"content\": \"…\"}",
    verdict: "SNAPSHOT; in hook mode the tool call then proceeds with the txid in the context the harness gives the model. Files over `[preserve] max_bytes` make it `ASK_PRESERVE_TOO_LARGE`; `[preserve] edit_tools = false` lets edit tools through unjudged.",
    recovery: "`agent-guard undo` (or `agent-guard restore <txid>`) writes the previous content back and brings deleted or renamed files back, keeping the edited version in a new transaction (`agent-guard redo` returns to it).",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard undo` (or `agent-guard restore <txid>`): the previous version comes back and the edited one is kept.",
    coverage: Coverage::Tests("crates/agent-guard-cli/tests/it/edits.rs"),
);

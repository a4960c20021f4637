//! `SNAPSHOT_CHECKPOINT_WRITE`: the rewriting twin of `SNAPSHOT_CHECKPOINT_DELETE`, decided
//! by the same confinement rules ([`super::snapshot_checkpoint_delete`]).

super::reason!(
    SnapshotCheckpointWrite, SnapshotCheckpointWrite, "SNAPSHOT_CHECKPOINT_WRITE",
    catches: "An overwrite whose files only the shell or the program knows, but which cannot leave the workspace: `find` from literal starting points inside it, without `-L`, in a plain conjunction, whose `-exec`/`-execdir` commands rewrite only the file found (`find src -name '*.py' -exec sed -i 's/a/b/' {} +`, `-exec perl -pi -e … {} \\;`), and an in-place rewrite of a glob whose literal directory resolves inside the workspace and whose pattern is its last component (`sed -i 's/a/b/' src/*.py`). A recursive copy into a literal directory inside the workspace (`cp -r src build`, `xcopy src build /e /i`, `Copy-Item -Recurse`, `robocopy src build /e`) too; into one that is not there yet it destroys nothing (`ALLOW_NOOP`). Never when what it could match includes the workspace's `.git`, the quarantine, a guard file (`find . -name '*.json' -exec sed -i …`) or a link (a symbolic link, or a file with a second name: the write would land where it leads), never through `..`, `--parents` or a variable, and never when anything else about the command is unknown (an unknown option).",
    why: "The files are decided when the command runs, so no version can be preserved first; but every one of them lies in the workspace, so a workspace checkpoint taken just before makes every rewrite undoable. Refusing them made agents rewrite a one-liner into a loop the guard could not follow either.",
    example: "find src -name '*.py' -exec sed -i 's/foo/bar/' {} +",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after the checkpoint under `--enforce`. With `[checkpoint] mode = \"never\"`, and in a RESTRICTED session, these stay `BLOCK_UNDETERMINABLE_EFFECT` and `BLOCK_WILDCARD`.",
    recovery: "`agent-guard undo` (or `agent-guard restore <txid>`): every rewritten file gets its old content back (the new versions are kept in a new transaction); `agent-guard show <txid>` lists them first.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard undo` (or `agent-guard restore <txid>`); `agent-guard show <txid>` lists what the command rewrote.",
    coverage: Coverage::Corpus,
);

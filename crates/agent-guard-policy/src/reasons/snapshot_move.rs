//! `SNAPSHOT_MOVE`.

super::reason!(
    SnapshotMove, SnapshotMove, "SNAPSHOT_MOVE",
    catches: "A command that moves or renames existing paths: `mv` (every form: several sources into a directory, `-t DIR`, `-T`, `--exchange`, `-b`, a directory into a directory, out of the workspace), `git mv`, PowerShell `Move-Item`/`Rename-Item`, cmd `move`/`ren`.",
    why: "A move destroys nothing by itself, but it takes a file from its name, and undoing it must put it back there. Before the command runs, the guard records where each source is (its device and inode, which a rename keeps) and keeps what each destination holds (a hard link where the line only replaces the name, else a reflink or a copy); a source that may leave the workspace is copied first. Nothing is taken away: the command finds every file where it was.",
    example: "mv src/old_name.py src/new_name.py",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after the record under `--enforce`. A source or destination that is protected is refused, as for a delete; an existing destination outside the workspace is `BLOCK_OUT_OF_WORKSPACE`; a source that would have to be copied byte by byte over `[preserve] max_bytes` (it leaves the workspace) makes it `ASK_PRESERVE_TOO_LARGE`.",
    recovery: "`agent-guard undo` (or `agent-guard restore <txid>`) moves every source back to its name (a rename when it is still where the command put it, else its kept copy), puts each destination's earlier file back (or its absence: what the command left there goes into a new transaction), so `redo` can move it all again.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard undo` (or `agent-guard restore <txid>`): every source goes back to its name and every destination back to what it held.",
    coverage: Coverage::Corpus,
);

//! `SNAPSHOT_OVERWRITE`.

super::reason!(
    SnapshotOverwrite, SnapshotOverwrite, "SNAPSHOT_OVERWRITE",
    catches: "A command that replaces or truncates existing files: redirections (`>`, `>|`, `&>`, `<>`), `truncate`, `dd of=`, `tee`, `sort -o`, `cp`/`mv`/`install`/`ln -f`/`rsync` onto existing files, in-place editors (`sed -i`, `perl -i`), PowerShell `Set-Content`/`Out-File`/`Copy-Item -Force`, cmd `copy /y`/`type nul >`.",
    why: "Overwriting destroys the old bytes as surely as `rm` does. The current version of every existing file is kept first: reflinked or copied when the command reads or rewrites it in place (the file stays where it is, with its inode), moved into the quarantine when the command replaces it unread.",
    example: "echo reset > notes.txt",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after preservation under `--enforce`. Files over `[preserve] max_bytes` make it `ASK_PRESERVE_TOO_LARGE`.",
    recovery: "`agent-guard restore <txid>` (or `undo`) writes the old bytes back into the file, keeping the current version in a new transaction.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo`: the old version comes back and the new one is kept.",
    coverage: Coverage::Corpus,
);

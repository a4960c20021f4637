//! `SNAPSHOT_OVERWRITE`.

super::reason!(
    SnapshotOverwrite, SnapshotOverwrite, "SNAPSHOT_OVERWRITE",
    catches: "A command that replaces or truncates existing files: redirections (`>`, `>|`, `&>`, `<>`), `truncate`, `dd of=`, `tee`, `sort -o`, `cp`/`install`/`ln -f`/`rsync` onto existing files (a move onto one is `SNAPSHOT_MOVE`), in-place editors (`sed -i`, `perl -i`), PowerShell `Set-Content`/`Out-File`/`Copy-Item -Force`, cmd `copy /y`/`type nul >`.",
    why: "Overwriting destroys the old bytes as surely as `rm` does. The current version of every existing file is kept first, and nothing is taken away (the command finds every file where it was): a hard link when the line only replaces the name (`ln -f`, `install`), else a reflink where the filesystem shares extents, else a verified copy.",
    example: "echo reset > notes.txt",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after preservation under `--enforce`. A file that would have to be copied byte by byte over `[preserve] max_bytes` makes it `ASK_PRESERVE_TOO_LARGE`.",
    recovery: "`agent-guard restore <txid>` (or `undo`) puts the old version back — by name when it was kept by a link, by writing its bytes into the file in place otherwise — keeping the current version in a new transaction.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo`: the old version comes back and the new one is kept.",
    coverage: Coverage::Corpus,
);

//! `SNAPSHOT_CONSUMED_INPUT`.

super::reason!(
    SnapshotConsumedInput, SnapshotConsumedInput, "SNAPSHOT_CONSUMED_INPUT",
    catches: "A command that reads files and then deletes them: `gzip`/`bzip2`/`xz`/`zstd --rm`/`lz4 --rm`, `zip -m`, `tar --remove-files`, `rsync --remove-source-files`.",
    why: "The input is gone once the command succeeds; its transformed output is not the original. A copy is kept first (the command still needs the file where it is).",
    example: "gzip notes.txt",
    verdict: "SNAPSHOT (advisory); ALLOW with the txid after preservation under `--enforce`.",
    recovery: "`agent-guard restore <txid>` (or `undo`) puts the input files back.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo`, which puts the input files back.",
    coverage: Coverage::Corpus,
);

//! `ALLOW_UNCHECKPOINTED`.

super::reason!(
    AllowUncheckpointed, AllowUncheckpointed, "ALLOW_UNCHECKPOINTED",
    catches: "A program whose effects the guard does not model (the commands of `SNAPSHOT_CHECKPOINT`) while the project turned checkpoints off with `[checkpoint] mode = \"never\"`.",
    why: "The project chose not to pay for checkpoints. The guard still cannot see what the program does, so it says so instead of calling it a no-op.",
    example: "make clean   # with [checkpoint] mode = \"never\"",
    verdict: "ALLOW. Set `[checkpoint] mode = \"opaque\"` (the default) to checkpoint first.",
    recovery: "None from the guard: what the program destroyed was not recorded.",
    enforcement: None,
    hint: "",
    coverage: Coverage::Corpus,
);

//! `RELOCATE_PATHS`.

super::reason!(
    RelocatePaths, RelocatePaths, "RELOCATE_PATHS",
    catches: "A delete of named, existing paths that is not a recursive directory delete: `rm report.txt`, `unlink f`, `shred -u f`, `rmdir empty`, or a recursive delete whose existing targets are not directories.",
    why: "The paths are moved into the quarantine (`.agent-trash/<txid>/…`) before the command runs, which then finds nothing to delete.",
    example: "rm report.txt",
    verdict: "RELOCATE (advisory); ALLOW with the txid after compensation under `--enforce`.",
    recovery: "`agent-guard restore <txid>` (or `agent-guard undo`) puts the paths back, byte for byte.",
    enforcement: DurableIntent,
    hint: "Undo with `agent-guard restore <txid>`, or `agent-guard undo` for the newest transaction.",
    coverage: Coverage::Corpus,
);

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, ReasonCode};

    use crate::DeleteMode;
    use crate::batch::decide_paths;
    use crate::testing::{FakeWorld, file};

    #[test]
    fn named_files_are_relocated() {
        let world = FakeWorld::default();
        let ctx = crate::PolicyContext::new("/ws");
        let verdict = decide_paths(
            vec![file("report.txt")],
            DeleteMode::default(),
            &ctx,
            &world,
        );
        assert_eq!(verdict.code, ReasonCode::RelocatePaths);
        assert_eq!(verdict.decision, Decision::Relocate);
    }
}

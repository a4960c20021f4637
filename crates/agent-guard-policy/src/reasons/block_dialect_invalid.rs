//! `BLOCK_DIALECT_INVALID`.

super::reason!(
    BlockDialectInvalid, BlockDialectInvalid, "BLOCK_DIALECT_INVALID",
    catches: "A malformed dialect selector: empty after trimming, or containing `:` `,` `/` `;` `\\` or control characters (`posix:cmd`).",
    why: "A malformed selector is a configuration defect; guessing a dialect could hide a delete.",
    example: "agent-guard check --dialect posix:cmd -- rm -rf build",
    verdict: "BLOCK; the command is not classified.",
    recovery: "Fix the selector: `posix`, `cmd` or `powershell`.",
    enforcement: None,
    hint: "Select a known dialect: `posix`, `cmd` or `powershell`.",
    coverage: Coverage::Corpus,
);

#[cfg(test)]
mod tests {
    use agent_guard_types::{Decision, DialectResolution, ReasonCode};

    use super::super::block_dialect_unknown::dialect_verdict;

    #[test]
    fn malformed_selectors_block() {
        for selector in ["", "  ", "a,b", "x/y", "posix;cmd", "a\\b"] {
            let verdict = dialect_verdict(&DialectResolution::resolve(Some(selector))).unwrap();
            assert_eq!(
                verdict.code,
                ReasonCode::BlockDialectInvalid,
                "{selector:?}"
            );
            assert_eq!(verdict.decision, Decision::Block);
        }
    }
}

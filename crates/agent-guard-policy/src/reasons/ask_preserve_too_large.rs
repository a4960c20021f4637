//! `ASK_PRESERVE_TOO_LARGE`.

use agent_guard_types::PathSpec;

super::reason!(
    AskPreserveTooLarge, AskPreserveTooLarge, "ASK_PRESERVE_TOO_LARGE",
    catches: "An overwrite or consuming command whose existing target is larger than the preservation cap (`[preserve] max_bytes` in `.agent-guard.toml`, default 256 MiB).",
    why: "Keeping the current version first would copy that much data on a filesystem without reflinks; the guard will not do it silently, and will not let the file be destroyed unprotected either.",
    example: "truncate -s 0 huge.bin",
    verdict: "ASK: a human approves the single command, or the cap is raised.",
    recovery: "Nothing is kept: back the file up yourself, raise `[preserve] max_bytes`, or approve knowingly.",
    enforcement: None,
    hint: "Ask the user: the file is too large to preserve automatically; raising `[preserve] max_bytes` in `.agent-guard.toml` lets the guard keep it first.",
    coverage: Coverage::Corpus,
);

/// The first target over `cap` bytes, if any.
pub(crate) fn over(affected: &[PathSpec], cap: u64) -> Option<&PathSpec> {
    affected.iter().find(|s| s.size > cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::file;

    #[test]
    fn only_files_over_the_cap() {
        let mut big = file("big");
        big.size = 11;
        assert!(over(&[file("small"), big.clone()], 10).is_some());
        assert!(over(&[big], 11).is_none());
    }
}

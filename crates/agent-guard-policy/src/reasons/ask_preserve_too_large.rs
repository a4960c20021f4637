//! `ASK_PRESERVE_TOO_LARGE`.

use agent_guard_types::{PathSpec, human_bytes};

super::reason!(
    AskPreserveTooLarge, AskPreserveTooLarge, "ASK_PRESERVE_TOO_LARGE",
    catches: "An overwrite or consuming command whose existing target is larger than the copy cap (`[preserve] max_bytes` in `.agent-guard.toml`, default 256 MiB) and can be kept neither by a hard link (the command writes or reads the file itself) nor by a reflink (the filesystem does not share extents: not Btrfs, nor XFS made with reflinks). Decided before the command runs from the filesystem type, and again by the copy itself under `--enforce`.",
    why: "Keeping the current version first would copy that much data; the guard will not do it silently, and will not let the file be destroyed unprotected either. The question names the file and its size: what approving would lose.",
    example: "truncate -s 0 huge.bin",
    verdict: "ASK: a human approves the single command, or the cap is raised.",
    recovery: "The question says that, if approved, this file's current version cannot be restored; everything else on the line is still kept first. Back the file up yourself, raise `[preserve] max_bytes`, or approve knowingly.",
    enforcement: None,
    hint: "Ask the user: the file is too large to preserve automatically; raising `[preserve] max_bytes` in `.agent-guard.toml` lets the guard keep it first.",
    coverage: Coverage::Corpus,
);

/// The targets over `cap` bytes.
pub(crate) fn over<'a>(affected: &[&'a PathSpec], cap: u64) -> Vec<&'a PathSpec> {
    affected.iter().copied().filter(|s| s.size > cap).collect()
}

/// Why a file is not kept: its name, its size and the cap, in the words the question shows
/// the person (what approving would lose).
pub fn reason(name: &str, size: u64, cap: u64) -> String {
    format!(
        "`{name}` is {} ({size} bytes), over the {} copy cap (`[preserve] max_bytes`), and \
         this filesystem cannot share its extents: if you approve, its current version cannot \
         be restored",
        human_bytes(size),
        human_bytes(cap)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::file;

    #[test]
    fn only_files_over_the_cap() {
        let mut big = file("big");
        big.size = 11;
        let small = file("small");
        assert_eq!(over(&[&small, &big], 10).len(), 1);
        assert!(over(&[&big], 11).is_empty());
    }

    #[test]
    fn the_reason_names_the_file_and_its_size() {
        let text = reason("big.bin", 300 * 1024 * 1024, 256 * 1024 * 1024);
        assert!(text.contains("`big.bin` is 300.0 MiB"), "{text}");
        assert!(text.contains("256.0 MiB copy cap"), "{text}");
    }
}

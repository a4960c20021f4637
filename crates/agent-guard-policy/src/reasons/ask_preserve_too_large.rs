//! `ASK_PRESERVE_TOO_LARGE`.

use agent_guard_types::PathSpec;

super::reason!(
    AskPreserveTooLarge, AskPreserveTooLarge, "ASK_PRESERVE_TOO_LARGE",
    catches: "An overwrite or consuming command whose existing target is larger than the copy cap (`[preserve] max_bytes` in `.agent-guard.toml`, default 256 MiB) and can be kept neither by a hard link (the command writes or reads the file itself) nor by a reflink (the filesystem does not share extents: not Btrfs, nor XFS made with reflinks). Decided before the command runs from the filesystem type, and again by the copy itself under `--enforce`.",
    why: "Keeping the current version first would copy that much data; the guard will not do it silently, and will not let the file be destroyed unprotected either. The question names the file and its size: what approving would lose.",
    example: "truncate -s 0 huge.bin",
    verdict: "ASK: a human approves the single command, or the cap is raised.",
    recovery: "Nothing is kept: back the file up yourself, raise `[preserve] max_bytes`, or approve knowingly.",
    enforcement: None,
    hint: "Ask the user: the file is too large to preserve automatically; raising `[preserve] max_bytes` in `.agent-guard.toml` lets the guard keep it first.",
    coverage: Coverage::Corpus,
);

/// The first target over `cap` bytes, if any.
pub(crate) fn over<'a>(affected: &[&'a PathSpec], cap: u64) -> Option<&'a PathSpec> {
    affected.iter().copied().find(|s| s.size > cap)
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

/// `size` in the largest binary unit that keeps it at one or more (`1.5 MiB`).
fn human_bytes(size: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    #[expect(
        clippy::cast_precision_loss,
        reason = "a human-readable size needs one decimal"
    )]
    let mut value = size as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{size} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
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
        assert!(over(&[&small, &big], 10).is_some());
        assert!(over(&[&big], 11).is_none());
    }

    #[test]
    fn the_reason_names_the_file_and_its_size() {
        let text = reason("big.bin", 300 * 1024 * 1024, 256 * 1024 * 1024);
        assert!(text.contains("`big.bin` is 300.0 MiB"), "{text}");
        assert!(text.contains("256.0 MiB copy cap"), "{text}");
    }
}

//! `BLOCK_OUT_OF_WORKSPACE`.

use agent_guard_types::{PathSpec, Protected};

super::reason!(
    BlockOutOfWorkspace, BlockOutOfWorkspace, "BLOCK_OUT_OF_WORKSPACE",
    catches: "A target whose physical location is outside the workspace: absolute paths elsewhere (`/etc/passwd`), `..` escapes, Windows drive or UNC paths, and paths *through* a symlink that leads outside (`escape/keep.txt` with `escape -> /elsewhere`). Removing a link itself (`rm link`) is judged where the link sits. Also a program the guard cannot see into that visibly runs outside the workspace, or in `.git` or the quarantine (`cd / && make clean`, `make -C /`, `npm --prefix ../other run reset`, `env -C / ./x.sh`, `find / -exec ./x.sh {} +`): a checkpoint would protect nothing it changes there.",
    why: "The workspace is the guard's boundary: it can only vouch for, and quarantine, what lies inside it.",
    example: "rm -rf ../other-project",
    verdict: "BLOCK, never askable.",
    recovery: "Work inside the workspace, or have a human delete outside it.",
    enforcement: None,
    hint: "Keep deletes inside the workspace; if something outside must go, ask the user to do it.",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any target lies outside the workspace.
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    specs
        .iter()
        .any(|s| s.protected == Some(Protected::OutsideWorkspace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{file, protected};

    #[test]
    fn any_outside_target() {
        assert!(applies(&[
            file("a"),
            protected(file("/etc/x"), Protected::OutsideWorkspace)
        ]));
        assert!(!applies(&[file("a")]));
    }
}

//! `BLOCK_PROTECTED_ANCESTOR`.

use agent_guard_types::{PathSpec, Protected};

super::reason!(
    BlockProtectedAncestor, BlockProtectedAncestor, "BLOCK_PROTECTED_ANCESTOR",
    catches: "A target that *is* a filesystem root (`/`, `/home`, `/usr`, `/etc`, `/tmp`, `/var`, …), the user's home directory (`~`), or a bare drive root (`C:\\`). Exact match only: `/home/alice/build` is merely outside the workspace.",
    why: "Refused by identity, whatever the workspace geometry, even when the workspace is `/`. Added after an incident where a compound `cd … && rm -rf …/../…` line deleted user files.",
    example: "rm -rf ~",
    verdict: "BLOCK, never askable, checked before every other path rule.",
    recovery: "There is no legitimate agent use; a human must do it by hand.",
    enforcement: None,
    hint: "Name the workspace paths you mean; a filesystem root or the home directory is never deleted.",
    coverage: Coverage::Corpus,
);

/// Returns `true` if any target is a protected root.
pub(crate) fn applies(specs: &[PathSpec]) -> bool {
    specs
        .iter()
        .any(|s| s.protected == Some(Protected::AncestorRoot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{dir, protected};

    #[test]
    fn any_root_target() {
        assert!(applies(&[
            dir("build"),
            protected(dir("/"), Protected::AncestorRoot)
        ]));
        assert!(!applies(&[protected(
            dir("/etc/nginx"),
            Protected::OutsideWorkspace
        )]));
    }
}

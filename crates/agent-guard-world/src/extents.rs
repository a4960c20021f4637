//! Whether the quarantine can keep a file's version by sharing its extents (a reflink).

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

/// Filesystems whose `FICLONE` shares extents: Btrfs, XFS (when made with reflinks; the
/// copy finds out), bcachefs and OCFS2.
const CLONING: &[u64] = &[0x9123_683E, 0x5846_5342, 0xCA45_1A4E, 0x7461_636F];

/// Returns `true` if `file` lies on a filesystem that clones extents and the quarantine at
/// `store` (or, while it does not exist yet, its nearest existing ancestor) is on the same
/// device. One `statfs` and two `lstat`s; any error is `false`.
pub(crate) fn shares_extents(file: &Path, store: &Path) -> bool {
    let Ok(meta) = file.symlink_metadata() else {
        return false;
    };
    let Some(store_dev) = store.ancestors().find_map(|dir| dir.metadata().ok()) else {
        return false;
    };
    if store_dev.dev() != meta.dev() {
        return false;
    }
    rustix::fs::statfs(file).is_ok_and(|fs| {
        #[allow(
            clippy::cast_sign_loss,
            clippy::unnecessary_cast,
            reason = "f_type's integer type differs between targets; magic numbers are bit patterns"
        )]
        let kind = fs.f_type as u64 & 0xFFFF_FFFF;
        CLONING.contains(&kind)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_or_store_shares_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!shares_extents(&dir.path().join("absent"), dir.path()));
    }
}

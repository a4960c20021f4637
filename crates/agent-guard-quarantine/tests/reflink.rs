//! Preservation on filesystems that share extents (issue 11): on a loop-mounted XFS
//! (`reflink=1`) and Btrfs image the old version is kept by a reflink, not a copy, and restore
//! writes it back into the same inode byte for byte.
//!
//! Needs root, `mkfs.xfs`/`mkfs.btrfs` and loop devices; the test says so and passes where
//! they are missing, unless `AGENT_GUARD_REQUIRE_NAMESPACES` is set (CI sets it), where it fails.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    clippy::print_stderr,
    reason = "test fixtures; a skip says why on stderr"
)]

mod support;

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_guard_quarantine::{KeptBy, NoProgress, PreserveItem, RestoreOptions};
use support::{Env, txid};

/// A filesystem image mounted on a temporary directory, unmounted on drop.
struct Mounted {
    point: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.point).status();
    }
}

fn required() -> bool {
    std::env::var_os("AGENT_GUARD_REQUIRE_NAMESPACES").is_some()
}

/// Makes a `size`-MiB image with `mkfs` and mounts it, or says why it cannot.
fn mount(mkfs: &[&str], size: u64) -> Result<Mounted, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let image = dir.path().join("fs.img");
    std::fs::File::create(&image)
        .and_then(|f| f.set_len(size << 20))
        .map_err(|e| e.to_string())?;
    let made = Command::new(mkfs[0])
        .args(&mkfs[1..])
        .arg(&image)
        .output()
        .map_err(|e| format!("{}: {e}", mkfs[0]))?;
    if !made.status.success() {
        return Err(format!(
            "{}: {}",
            mkfs[0],
            String::from_utf8_lossy(&made.stderr)
        ));
    }
    let point = dir.path().join("mnt");
    std::fs::create_dir(&point).map_err(|e| e.to_string())?;
    let mounted = Command::new("mount")
        .args(["-o", "loop"])
        .arg(&image)
        .arg(&point)
        .output()
        .map_err(|e| format!("mount: {e}"))?;
    if !mounted.status.success() {
        return Err(format!(
            "mount: {}",
            String::from_utf8_lossy(&mounted.stderr)
        ));
    }
    Ok(Mounted { point, _dir: dir })
}

fn preserve_reflinks_and_restores_in_place(point: &Path) {
    let env = Env::in_dir(point);
    let content: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    let path = env.ws.join("big.bin");
    std::fs::write(&path, &content).unwrap();
    let ino = std::fs::metadata(&path).unwrap().ino();
    // A reflink keeps a version of any size: the copy cap (1 MiB here, the file is 8 MiB)
    // only holds for byte copies.
    let items = [PreserveItem {
        origin: path.clone(),
        raw: "big.bin".to_owned(),
        link: false,
        max_copy: Some(1 << 20),
        by_name: false,
    }];
    let report = env
        .store
        .preserve(
            &items,
            &txid(1),
            agent_guard_quarantine::TxMeta::default(),
            &NoProgress,
        )
        .unwrap();
    assert!(report.complete(), "{report:?}");
    assert_eq!(report.kept[0].by, KeptBy::Reflink, "{report:?}");
    // The command overwrites it in place.
    std::fs::write(&path, b"overwritten\n").unwrap();
    let restored = env.restore(txid(1).as_str(), &RestoreOptions::default());
    assert!(restored.ok, "{restored:?}");
    assert_eq!(std::fs::read(&path).unwrap(), content, "byte-exact");
    assert_eq!(
        std::fs::metadata(&path).unwrap().ino(),
        ino,
        "the same inode"
    );
}

fn on(name: &str, mkfs: &[&str], size: u64) {
    match mount(mkfs, size) {
        Ok(mounted) => preserve_reflinks_and_restores_in_place(&mounted.point),
        Err(why) if !required() => eprintln!("skipped: no {name} image here ({why})"),
        Err(why) => panic!("{name}: {why}"),
    }
}

#[test]
fn xfs_keeps_the_old_version_by_reflink() {
    on("xfs", &["mkfs.xfs", "-q", "-f", "-m", "reflink=1"], 320);
}

#[test]
fn btrfs_keeps_the_old_version_by_reflink() {
    on("btrfs", &["mkfs.btrfs", "-q", "-f"], 160);
}

//! Tests of the verified copy, the tree digest and the source removal, on real temporary
//! directories (one of them on `/dev/shm`, a different filesystem, where available).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt as _;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rustix::fs::{AtFlags, CWD, FileType, Mode, Timespec, Timestamps};

use super::pool::BUFFER_SIZE;
use super::*;

const OLD: i64 = 1_000_000_000;

/// Sets atime `OLD - 1` and mtime `OLD` (+ `nanos`) on `path` without following a symlink.
fn set_old_times(path: &Path, nanos: i64) {
    let times = Timestamps {
        last_access: Timespec {
            tv_sec: OLD - 1,
            tv_nsec: nanos,
        },
        last_modification: Timespec {
            tv_sec: OLD,
            tv_nsec: nanos,
        },
    };
    rustix::fs::utimensat(CWD, path, &times, AtFlags::SYMLINK_NOFOLLOW).unwrap();
}

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

fn odd_name() -> OsString {
    OsString::from_vec(b"n\xffme".to_vec())
}

fn is_root() -> bool {
    let dir = tempfile::tempdir().unwrap();
    fs::metadata(dir.path()).unwrap().uid() == 0
}

/// Builds the reference tree at `root` (which must not exist).
fn build_tree(root: &Path, readonly_dir: bool) {
    fs::create_dir(root).unwrap();
    fs::create_dir_all(root.join("a/b/c")).unwrap();
    fs::write(root.join("a/b/c/deep.txt"), "deep").unwrap();
    fs::create_dir(root.join("empty")).unwrap();
    fs::write(root.join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    chmod(&root.join("run.sh"), 0o755);
    fs::write(root.join("ro.txt"), "read only").unwrap();
    chmod(&root.join("ro.txt"), 0o444);
    fs::write(root.join("old.txt"), vec![7u8; 300_000]).unwrap();
    set_old_times(&root.join("old.txt"), 123_456_789);
    symlink("a/b/c/deep.txt", root.join("rel-link")).unwrap();
    symlink("no/such/file", root.join("dangling")).unwrap();
    symlink("../../../etc/passwd", root.join("outside")).unwrap();
    set_old_times(&root.join("rel-link"), 5);
    fs::write(root.join("hard1"), "shared inode").unwrap();
    fs::hard_link(root.join("hard1"), root.join("a/hard2")).unwrap();
    fs::write(root.join(odd_name()), "odd").unwrap();
    fs::write(root.join("with space\nand newline"), "spaces").unwrap();
    if readonly_dir {
        fs::create_dir(root.join("ro-dir")).unwrap();
        fs::write(root.join("ro-dir/inner"), "inner").unwrap();
        chmod(&root.join("ro-dir"), 0o555);
    }
    chmod(&root.join("empty"), 0o750);
    set_old_times(&root.join("empty"), 0);
    set_old_times(&root.join("a"), 42);
}

/// Every entry below `root` (relative path → `lstat`), read with `std` only.
fn listing(root: &Path) -> BTreeMap<PathBuf, fs::Metadata> {
    fn visit(root: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, fs::Metadata>) {
        for child in fs::read_dir(root.join(rel)).unwrap() {
            let child = child.unwrap();
            let rel = rel.join(child.file_name());
            let metadata = child.metadata().unwrap();
            let is_dir = metadata.is_dir();
            out.insert(rel.clone(), metadata);
            if is_dir {
                visit(root, &rel, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    visit(root, Path::new(""), &mut out);
    out
}

/// Asserts that `dst` is a faithful copy of `src`.
fn assert_same_tree(src: &Path, dst: &Path) {
    let (before, after) = (listing(src), listing(dst));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (rel, a) in &before {
        let b = &after[rel];
        assert_eq!(a.file_type(), b.file_type(), "{rel:?}");
        assert_eq!(
            (a.mtime(), a.mtime_nsec()),
            (b.mtime(), b.mtime_nsec()),
            "mtime of {rel:?}"
        );
        if !a.file_type().is_symlink() {
            // (Reading a link for the copy updated the source link's atime; the copy has the
            // atime from before. The callers check a link's atime themselves.)
            assert_eq!(
                (a.atime(), a.atime_nsec()),
                (b.atime(), b.atime_nsec()),
                "atime of {rel:?}"
            );
        }
        assert_eq!((a.uid(), a.gid()), (b.uid(), b.gid()), "owner of {rel:?}");
        if a.file_type().is_symlink() {
            assert_eq!(
                fs::read_link(src.join(rel)).unwrap(),
                fs::read_link(dst.join(rel)).unwrap()
            );
        } else {
            assert_eq!(a.mode(), b.mode(), "mode of {rel:?}");
        }
        if a.is_file() {
            assert_eq!(
                fs::read(src.join(rel)).unwrap(),
                fs::read(dst.join(rel)).unwrap()
            );
        }
    }
}

#[derive(Default)]
struct Counting {
    total: AtomicU64,
    advanced: AtomicU64,
    finished: AtomicU64,
}

impl Progress for Counting {
    fn start(&self, total_bytes: u64) {
        self.total.store(total_bytes, Ordering::Relaxed);
    }
    fn advance(&self, bytes: u64) {
        self.advanced.fetch_add(bytes, Ordering::Relaxed);
    }
    fn finish(&self) {
        self.finished.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn copies_a_tree_faithfully() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
    build_tree(&src, true);
    let progress = Counting::default();
    let outcome = copy_verified(&src, &dst, &progress, Faults::none()).unwrap();

    let (ro, old) = (
        fs::metadata(dst.join("ro.txt")).unwrap(),
        dst.join("old.txt"),
    );
    assert_eq!(ro.mode() & 0o7777, 0o444);
    assert_eq!(
        fs::metadata(dst.join("run.sh")).unwrap().mode() & 0o7777,
        0o755
    );
    assert_eq!(
        fs::metadata(dst.join("ro-dir")).unwrap().mode() & 0o7777,
        0o555
    );
    let old = fs::symlink_metadata(old).unwrap();
    assert_eq!(
        (old.mtime(), old.mtime_nsec(), old.atime()),
        (OLD, 123_456_789, OLD - 1)
    );
    let link = fs::symlink_metadata(dst.join("rel-link")).unwrap();
    assert_eq!(
        (link.mtime(), link.mtime_nsec(), link.atime()),
        (OLD, 5, OLD - 1)
    );
    let a = fs::symlink_metadata(dst.join("a")).unwrap();
    assert_eq!((a.mtime(), a.mtime_nsec()), (OLD, 42));
    assert_same_tree(&src, &dst);
    assert_eq!(
        fs::read_link(dst.join("outside")).unwrap(),
        Path::new("../../../etc/passwd")
    );
    assert_eq!(
        fs::read_link(dst.join("dangling")).unwrap(),
        Path::new("no/such/file")
    );
    let (h1, h2) = (
        fs::metadata(dst.join("hard1")).unwrap(),
        fs::metadata(dst.join("a/hard2")),
    );
    assert_eq!((h1.ino(), h1.nlink()), (h2.unwrap().ino(), 2));
    assert_eq!(fs::read(dst.join(odd_name())).unwrap(), b"odd");

    assert_eq!(outcome.digest.len(), 64);
    assert_eq!(outcome.digest, digest_tree(&src).unwrap());
    assert_eq!(outcome.digest, digest_tree(&dst).unwrap());
    assert_eq!(outcome.files, 9);
    let bytes = listing(&src)
        .iter()
        .filter(|(rel, m)| m.is_file() && *rel != Path::new("a/hard2"))
        .map(|(_, m)| m.len())
        .sum::<u64>();
    assert_eq!(outcome.bytes, bytes);
    assert_eq!(progress.total.load(Ordering::Relaxed), bytes);
    assert_eq!(progress.advanced.load(Ordering::Relaxed), bytes);
    assert_eq!(progress.finished.load(Ordering::Relaxed), 1);
    assert!(src.join("a/b/c/deep.txt").is_file(), "the source stays");
    chmod(&src.join("ro-dir"), 0o755);
    chmod(&dst.join("ro-dir"), 0o755);
}

#[test]
fn crosses_devices_and_removes_the_source() {
    let shm = Path::new("/dev/shm");
    let dir = tempfile::tempdir().unwrap();
    let Ok(other) = tempfile::tempdir_in(shm) else {
        eprintln!("skipped: no /dev/shm");
        return;
    };
    if fs::metadata(dir.path()).unwrap().dev() == fs::metadata(other.path()).unwrap().dev() {
        eprintln!("skipped: /dev/shm is on the same filesystem as the temporary directory");
        return;
    }
    let (src, dst) = (dir.path().join("src"), other.path().join("dst"));
    build_tree(&src, false);
    let outcome = copy_verified(&src, &dst, &NoProgress, Faults::none()).unwrap();
    assert_same_tree(&src, &dst);
    remove_source(&src, Faults::none()).unwrap();
    assert!(fs::symlink_metadata(&src).is_err());
    assert!(dir.path().is_dir(), "only the source goes");
    assert_eq!(digest_tree(&dst).unwrap(), outcome.digest);
}

#[test]
fn refuses_a_fifo_before_creating_anything() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
    fs::create_dir_all(src.join("a")).unwrap();
    fs::write(src.join("0-first"), "x").unwrap();
    let fifo = src.join("a/pipe");
    rustix::fs::mknodat(CWD, &fifo, FileType::Fifo, Mode::from_raw_mode(0o644), 0).unwrap();

    let (sender, receiver) = std::sync::mpsc::channel();
    let (from, to) = (src.clone(), dst.clone());
    std::thread::spawn(move || {
        let result = copy_verified(&from, &to, &NoProgress, Faults::none());
        sender.send(result).unwrap();
    });
    // A liveness guard, not a speed assertion: opening a FIFO would block forever.
    let result = receiver
        .recv_timeout(Duration::from_mins(1))
        .expect("copying a tree with a FIFO must not hang");
    match result {
        Err(CopyError::Special { path, kind }) => assert_eq!((path, kind), (fifo.clone(), "FIFO")),
        other => panic!("expected a special-file error, got {other:?}"),
    }
    assert!(fs::symlink_metadata(&dst).is_err(), "nothing created");
    assert!(matches!(digest_tree(&src), Err(CopyError::Special { .. })));
    let error = copy_verified(&fifo, &dst, &NoProgress, Faults::none()).unwrap_err();
    assert!(
        matches!(error, CopyError::Special { kind: "FIFO", .. }),
        "{error:?}"
    );
    assert!(fs::symlink_metadata(&dst).is_err());
}

#[test]
fn digest_detects_any_change() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original");
    build_tree(&original, false);
    let digest = digest_tree(&original).unwrap();
    assert_eq!(
        digest,
        digest::fold(&digest::tree_entries(&original).unwrap())
    );

    let fresh = |name: &str| {
        let path = dir.path().join(name);
        build_tree(&path, false);
        assert_eq!(
            digest_tree(&path).unwrap(),
            digest,
            "identical trees, same digest"
        );
        path
    };
    let byte = fresh("byte");
    let mut content = fs::read(byte.join("old.txt")).unwrap();
    content[150_000] ^= 1;
    fs::write(byte.join("old.txt"), content).unwrap();
    let mode = fresh("mode");
    chmod(&mode.join("run.sh"), 0o754);
    let target = fresh("target");
    fsops::remove_file(&target.join("dangling")).unwrap();
    symlink("no/such/filf", target.join("dangling")).unwrap();
    let unlinked = fresh("unlinked");
    fsops::remove_file(&unlinked.join("a/hard2")).unwrap();
    fs::write(unlinked.join("a/hard2"), "shared inode").unwrap();
    let renamed = fresh("renamed");
    fsops::rename(&renamed.join("empty"), &renamed.join("emptz")).unwrap();
    let dir_mode = fresh("dir-mode");
    chmod(&dir_mode.join("a/b"), 0o700);

    let digests: Vec<String> = [&byte, &mode, &target, &unlinked, &renamed, &dir_mode]
        .iter()
        .map(|path| digest_tree(path).unwrap())
        .collect();
    for (i, other) in digests.iter().enumerate() {
        assert_ne!(*other, digest, "change {i} not detected");
        assert!(digests[..i].iter().all(|earlier| earlier != other));
    }
}

#[test]
fn mismatch_names_the_first_differing_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    build_tree(&a, false);
    build_tree(&b, false);
    chmod(&b.join("ro.txt"), 0o400);
    let (expected, actual) = (
        digest::tree_entries(&a).unwrap(),
        digest::tree_entries(&b).unwrap(),
    );
    assert_eq!(
        digest::first_difference(&b, &expected, &actual),
        b.join("ro.txt")
    );
    assert_eq!(
        digest::first_difference(&b, &expected, &expected[..3]),
        b.join(&expected[3].rel)
    );
}

#[test]
fn copies_and_removes_a_single_file() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("file"), dir.path().join("copy"));
    fs::write(&src, "payload").unwrap();
    chmod(&src, 0o640);
    set_old_times(&src, 9);
    let outcome = copy_verified(&src, &dst, &NoProgress, Faults::none()).unwrap();
    assert_eq!((outcome.files, outcome.bytes), (1, 7));
    assert_eq!(fs::read(&dst).unwrap(), b"payload");
    let metadata = fs::metadata(&dst).unwrap();
    assert_eq!(
        (
            metadata.mode() & 0o7777,
            metadata.mtime(),
            metadata.mtime_nsec()
        ),
        (0o640, OLD, 9)
    );
    assert_eq!(outcome.digest, digest_tree(&src).unwrap());
    remove_source(&src, Faults::none()).unwrap();
    assert!(!src.exists() && dst.is_file());
}

#[test]
fn copies_and_removes_a_single_symlink_without_following_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target-dir");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("keep"), "keep").unwrap();
    let (src, dst) = (dir.path().join("link"), dir.path().join("copy"));
    symlink("target-dir", &src).unwrap();
    set_old_times(&src, 1);
    let outcome = copy_verified(&src, &dst, &NoProgress, Faults::none()).unwrap();
    assert_eq!((outcome.files, outcome.bytes), (0, 0));
    let metadata = fs::symlink_metadata(&dst).unwrap();
    assert_eq!(
        (metadata.mtime(), metadata.mtime_nsec(), metadata.atime()),
        (OLD, 1, OLD - 1)
    );
    assert_eq!(fs::read_link(&dst).unwrap(), Path::new("target-dir"));
    assert_eq!(outcome.digest, digest_tree(&src).unwrap());
    remove_source(&src, Faults::none()).unwrap();
    assert!(fs::symlink_metadata(&src).is_err());
    assert_eq!(
        fs::read(target.join("keep")).unwrap(),
        b"keep",
        "the target stays"
    );
}

#[test]
fn never_touches_an_existing_destination() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
    build_tree(&src, false);
    fs::create_dir(&dst).unwrap();
    fs::write(dst.join("mine"), "mine").unwrap();
    let error = copy_verified(&src, &dst, &NoProgress, Faults::none()).unwrap_err();
    assert!(
        matches!(&error, CopyError::Io { path, .. } if *path == dst),
        "{error:?}"
    );
    assert_eq!(fs::read(dst.join("mine")).unwrap(), b"mine");
    let file = dir.path().join("file");
    fs::write(&file, "new").unwrap();
    assert!(copy_verified(&file, &dst.join("mine"), &NoProgress, Faults::none()).is_err());
    assert_eq!(fs::read(dst.join("mine")).unwrap(), b"mine");
}

#[test]
fn a_failed_copy_leaves_nothing_behind() {
    // The destination lies so deep that the source's deepest entry cannot be created there
    // (`ENAMETOOLONG`), although the source itself is fine: the copy fails halfway.
    let dir = tempfile::tempdir().unwrap();
    let mut parent = dir.path().to_path_buf();
    while parent.as_os_str().len() < 3000 {
        parent.push("d".repeat(250));
    }
    fs::create_dir_all(&parent).unwrap();
    let src = dir.path().join("src");
    let mut deep = src.clone();
    for _ in 0..6 {
        deep.push("s".repeat(250));
    }
    fs::create_dir_all(&deep).unwrap();
    fs::write(src.join("first"), "first").unwrap();
    let dst = parent.join("dst");
    let progress = Counting::default();
    let error = copy_verified(&src, &dst, &progress, Faults::none()).unwrap_err();
    match &error {
        CopyError::Io { path, .. } => assert!(path.starts_with(&dst), "{error:?}"),
        other => panic!("expected an I/O error, got {other:?}"),
    }
    assert!(!error.is_storage());
    assert!(
        fs::symlink_metadata(&dst).is_err(),
        "the partial copy was removed"
    );
    assert!(parent.is_dir());
    assert_eq!(progress.finished.load(Ordering::Relaxed), 1);
}

#[test]
fn discarding_handles_read_only_directories() {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("dst");
    fs::create_dir_all(dst.join("a/b")).unwrap();
    fs::write(dst.join("a/b/file"), "x").unwrap();
    symlink("/", dst.join("a/root")).unwrap();
    chmod(&dst.join("a/b"), 0o500);
    chmod(&dst.join("a"), 0o555);
    remove::discard(&dst);
    assert!(fs::symlink_metadata(&dst).is_err());
    let file = dir.path().join("file");
    fs::write(&file, "x").unwrap();
    remove::discard(&file);
    assert!(!file.exists());
}

#[test]
fn storage_errors_are_told_apart() {
    let full = io_error(Path::new("/q/x"), io::Error::from_raw_os_error(28));
    assert!(full.is_storage());
    assert!(matches!(&full, CopyError::Storage { path, .. } if path == Path::new("/q/x")));
    assert_eq!(full.to_string(), "no space or quota left for `/q/x`");
    assert!(!io_error(Path::new("/q/x"), io::Error::from_raw_os_error(5)).is_storage());
}

#[test]
fn removes_a_tree_bottom_up() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    build_tree(&src, true);
    fs::write(dir.path().join("sibling"), "stays").unwrap();
    if is_root() {
        remove_source(&src, Faults::none()).unwrap();
        assert!(fs::symlink_metadata(&src).is_err());
    } else {
        // Without `CAP_DAC_OVERRIDE` the read-only directory blocks the removal of its entry.
        let error = remove_source(&src, Faults::none()).unwrap_err();
        assert!(
            matches!(&error, CopyError::Io { path, .. } if *path == src.join("ro-dir/inner")),
            "{error:?}"
        );
        assert!(
            src.join("ro-dir/inner").is_file(),
            "what was not removed stays"
        );
        chmod(&src.join("ro-dir"), 0o755);
        remove_source(&src, Faults::none()).unwrap();
    }
    assert_eq!(fs::read(dir.path().join("sibling")).unwrap(), b"stays");
    let missing = dir.path().join("missing");
    let error = remove_source(&missing, Faults::none()).unwrap_err();
    assert!(
        matches!(&error, CopyError::Io { path, .. } if *path == missing),
        "{error:?}"
    );
}

#[test]
fn copies_many_files_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("src"), dir.path().join("dst"));
    for d in 0..10 {
        let sub = src.join(format!("d{d}"));
        fs::create_dir_all(&sub).unwrap();
        for f in 0..20 {
            fs::write(
                sub.join(format!("f{f}")),
                format!("{d}/{f}").repeat(f * 100),
            )
            .unwrap();
        }
    }
    let outcome = copy_verified(&src, &dst, &NoProgress, Faults::none()).unwrap();
    assert_eq!(outcome.files, 200);
    assert_same_tree(&src, &dst);
    assert_eq!(outcome.digest, digest_tree(&src).unwrap());
}

#[test]
fn a_cloned_file_has_the_tree_digest_of_its_copy_and_the_source_s_mode_and_times() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [
        ("empty", Vec::new()),
        ("big", vec![7_u8; BUFFER_SIZE * 2 + 3]),
        // Over the size at which the original and the copy are hashed on two threads.
        (
            "large",
            (0..5 * 1024 * 1024 + 17_u32)
                .map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes()[1])
                .collect(),
        ),
    ] {
        let src = dir.path().join(name);
        fs::write(&src, &content).unwrap();
        chmod(&src, 0o640);
        set_old_times(&src, 123);
        for tag in ["first", "second"] {
            let dst = dir.path().join(format!("{name}.{tag}"));
            let cloned = clone_file(&src, &dst, None, Faults::none()).unwrap();
            assert_eq!(fs::read(&dst).unwrap(), content, "{name} {tag}");
            let (copied, original) = (fs::metadata(&dst).unwrap(), fs::metadata(&src).unwrap());
            assert_eq!(copied.mode() & 0o7777, 0o640, "{name} {tag}");
            assert_eq!(copied.mtime_nsec(), original.mtime_nsec(), "{name} {tag}");
            match cloned {
                Cloned::Copy(outcome) => {
                    assert_eq!(outcome.digest, digest_tree(&dst).unwrap(), "{name} {tag}");
                    assert_eq!(outcome.digest, digest_tree(&src).unwrap(), "{name} {tag}");
                    assert_eq!(outcome.bytes, content.len() as u64);
                }
                Cloned::Reflink => {}
                other => panic!("clone_file never links: {other:?}"),
            }
        }
    }
}

use super::*;

/// A gitlink's mode.
const MODE_GITLINK: u32 = 0o160_000;

/// An index with awkward names, a conflict stage and a gitlink, written by libgit2 at
/// `version`.
fn written(version: u32) -> (tempfile::TempDir, git2::Repository) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = git2::Repository::init(dir.path()).expect("init");
    let blob = repo.blob(b"content").expect("blob");
    let mut index = repo.index().expect("index");
    let names: [&[u8]; 7] = [
        b"a-b",
        b"a/x",
        b"a/y/z",
        b"b",
        "中文/笔记.txt".as_bytes(),
        b"with space/and\nnewline",
        b"zz/a-very-long-directory-name-that-shares-its-prefix/file",
    ];
    for (n, name) in names.iter().enumerate() {
        index
            .add(&git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: if n == 6 { MODE_GITLINK } else { 0o100_644 },
                uid: 0,
                gid: 0,
                file_size: 7,
                id: blob,
                flags: if n == 3 { 2 << 12 } else { 0 },
                flags_extended: 0,
                path: name.to_vec(),
            })
            .expect("add");
    }
    index.set_version(version).expect("version");
    index.write().expect("write");
    drop(index);
    (dir, repo)
}

fn paths(index: &IndexFile) -> Vec<Vec<u8>> {
    index
        .entries()
        .iter()
        .map(|e| index.path(e).to_vec())
        .collect()
}

#[test]
fn every_version_reads_like_libgit2() {
    for version in [2, 3, 4] {
        let (_dir, repo) = written(version);
        let ours = IndexFile::read(&repo.path().join("index"))
            .expect("readable")
            .expect("a format this parser reads");
        let mut theirs = repo.index().expect("index");
        theirs.read(true).expect("read");
        let expected: Vec<Vec<u8>> = theirs.iter().map(|e| e.path).collect();
        assert_eq!(paths(&ours), expected, "version {version}");
        assert_eq!(paths(&IndexFile::from_libgit2(&theirs)), expected);
        assert!(ours.has_gitlink());
        assert_eq!(ours.entries()[3].stage(), 2, "version {version}");
    }
}

#[test]
fn spans_and_cursors_find_directories_and_names() {
    let (_dir, repo) = written(4);
    let index = IndexFile::load(&repo).expect("load");
    let a = index.below(index.all(), b"a");
    assert_eq!(a.end - a.start, 2);
    assert!(index.contains(a, b"a/y/z"));
    assert!(!index.contains(a, b"a-b"));
    let y = index.below(a, b"a/y");
    assert_eq!(y.end - y.start, 1);
    assert!(index.below(index.all(), b"nothing").is_empty());
    let mut cursor = index.cursor(index.all());
    assert!(index.seek(&mut cursor, b"a-b"));
    assert!(!index.seek_below(&mut cursor, b"a").is_empty());
    assert!(index.seek(&mut cursor, b"b"));
    assert!(!index.seek(&mut cursor, b"c"));
    assert!(index.contains(index.all(), b"with space/and\nnewline"));
    let zz = index.below(index.all(), b"zz");
    assert!(index.is_gitlink(
        zz,
        b"zz/a-very-long-directory-name-that-shares-its-prefix/file"
    ));
    assert!(!index.is_gitlink(index.all(), b"b"));
    assert!(index.contains_in(a, 2, b"a/x"));
    assert!(!index.contains_in(a, 2, b"a/y"));
    assert!(index.contains_in(index.all(), 0, b"a-b"));
    assert!(!index.contains_in(index.all(), 0, b"a"));
    assert_eq!(compare(b"ab", b"abc"), Ordering::Less);
    assert_eq!(compare(b"b", b"abc"), Ordering::Greater);
    assert_eq!(compare(b"", b""), Ordering::Equal);
}

#[test]
fn a_large_index_reads_whole() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = git2::Repository::init(dir.path()).expect("init");
    let blob = repo.blob(b"content").expect("blob");
    let mut index = repo.index().expect("index");
    for n in 0..6_000 {
        let name = format!("dir{:02}/{}/file-{n:05}.txt", n % 37, "x".repeat(n % 90));
        index
            .add_frombuffer(
                &git2::IndexEntry {
                    ctime: git2::IndexTime::new(0, 0),
                    mtime: git2::IndexTime::new(0, 0),
                    dev: 0,
                    ino: 0,
                    mode: 0o100_644,
                    uid: 0,
                    gid: 0,
                    file_size: 7,
                    id: blob,
                    flags: 0,
                    flags_extended: 0,
                    path: name.into_bytes(),
                },
                b"content",
            )
            .expect("add");
    }
    for version in [2, 4] {
        index.set_version(version).expect("version");
        index.write().expect("write");
        let path = repo.path().join("index");
        let ours = IndexFile::read(&path).expect("readable").expect("parsed");
        let expected: Vec<Vec<u8>> = index.iter().map(|e| e.path).collect();
        assert_eq!(paths(&ours), expected, "version {version}");
    }
}

#[test]
fn a_missing_index_is_empty_and_what_cannot_be_decoded_is_left_to_libgit2() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let missing = IndexFile::read(&dir.path().join("index")).expect("readable");
    assert!(missing.is_some_and(|index| index.is_empty()));
    for garbage in [
        &b"DIRC"[..],
        b"DIRC\0\0\0\x05\0\0\0\0",
        b"not an index at all",
    ] {
        let path = dir.path().join("garbage");
        fs_err::write(&path, garbage).expect("write");
        assert!(IndexFile::read(&path).expect("readable").is_none());
    }
}

#[test]
fn a_case_folding_lookup_finds_entries_at_and_below_in_any_case() {
    let (_dir, repo) = written(2);
    let index = IndexFile::load(&repo).expect("load");
    assert!(index.folded_at_or_below(b"A"), "a/x and a/y/z lie below");
    assert!(index.folded_at_or_below(b"A/Y/Z"));
    assert!(index.folded_at_or_below(b"ZZ"));
    assert!(!index.folded_at_or_below(b"A/Y/"), "a name, not a prefix");
    assert!(!index.folded_at_or_below(b"a-"), "a-b is not below a-");
    assert!(!index.folded_at_or_below(b"c"));
}

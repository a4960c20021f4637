//! The hard-reset preflight where the index's tree cache holds the target tree: the names
//! come from the index, as in git's own reset (`unpack-trees.c` takes a directory's entries
//! from the index when its cached tree id is the target's). The real `git reset --hard` is
//! the oracle for every verdict.

#![allow(
    clippy::disallowed_methods,
    reason = "the fixtures remove work-tree files to stage what a reset would meet"
)]

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use agent_guard_git::IndexFile;
use agent_guard_types::{ResetPreflight, World};

use crate::reset::{personal_content, survives};
use crate::support::{Scratch, commit_all, git, git_init, world};

/// A committed repository: a few named paths, and `packages` directories of 50 files each
/// (enough of them and the walk splits over threads).
fn committed(scratch: &Scratch, packages: usize) -> std::path::PathBuf {
    let ws = scratch.path("ws");
    git_init(&ws);
    for path in ["keep.txt", "file.txt", "dir/a.txt", "dir/sub/b.txt"] {
        scratch.file(&format!("ws/{path}"), "tracked\n");
    }
    for p in 0..packages {
        for f in 0..50 {
            scratch.file(
                &format!("ws/pkg{p:03}/mod{}/f{f:02}.txt", f % 5),
                "tracked\n",
            );
        }
    }
    commit_all(&ws, "tracked");
    ws
}

/// Returns `true` if the index's cache holds HEAD's tree for the whole repository.
fn cache_is_head(ws: &Path) -> bool {
    let index = IndexFile::read(&ws.join(".git/index")).unwrap().unwrap();
    let head = git(ws, &["rev-parse", "HEAD^{tree}"]);
    let cached = index
        .cached_root()
        .and_then(agent_guard_git::CachedTree::id)
        .map(hex);
    cached.as_deref() == Some(head.trim())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut text, b| {
        let _ = write!(text, "{b:02x}");
        text
    })
}

/// Each change to the work tree, at HEAD with a whole valid cache, gives the expected
/// verdict, and the real reset agrees: `Safe` keeps every untracked byte, a collision loses
/// some.
#[test]
fn verdicts_from_the_cache_agree_with_a_real_reset() {
    type Change = fn(&Path);
    let cases: [(&str, Change, &[&str]); 7] = [
        (
            "a file where the index has a directory",
            |ws| {
                fs::remove_dir_all(ws.join("dir")).unwrap();
                fs::write(ws.join("dir"), "personal").unwrap();
            },
            &["dir"],
        ),
        (
            "a directory with content where the index has a file",
            |ws| {
                fs::remove_file(ws.join("file.txt")).unwrap();
                fs::create_dir_all(ws.join("file.txt")).unwrap();
                fs::write(ws.join("file.txt/inner"), "personal").unwrap();
            },
            &["file.txt"],
        ),
        (
            "empty directories where the index has a file",
            |ws| {
                fs::remove_file(ws.join("file.txt")).unwrap();
                fs::create_dir_all(ws.join("file.txt/empty/deeper")).unwrap();
            },
            &[],
        ),
        (
            "an untracked file beside tracked ones",
            |ws| {
                fs::write(ws.join("dir/sub/new.txt"), "personal").unwrap();
            },
            &[],
        ),
        (
            "a symlink where the index has a directory",
            |ws| {
                fs::remove_dir_all(ws.join("dir/sub")).unwrap();
                std::os::unix::fs::symlink("../keep.txt", ws.join("dir/sub")).unwrap();
            },
            &["dir/sub"],
        ),
        (
            "a file deep in the tree where the index has a directory",
            |ws| {
                fs::remove_dir_all(ws.join("pkg037/mod3")).unwrap();
                fs::write(ws.join("pkg037/mod3"), "personal").unwrap();
            },
            &["pkg037/mod3"],
        ),
        (
            "a modified tracked file",
            |ws| {
                fs::write(ws.join("pkg001/mod1/f01.txt"), "changed").unwrap();
            },
            &[],
        ),
    ];
    for packages in [2, 60] {
        for (name, change, expected) in cases {
            if packages == 2 && name.contains("deep") {
                continue;
            }
            let scratch = Scratch::new();
            let ws = committed(&scratch, packages);
            assert!(
                cache_is_head(&ws),
                "{name}: the index should cache HEAD's tree"
            );
            change(&ws);
            let verdict = world(&ws, None).reset_preflight(&ws, None);
            let wanted = if expected.is_empty() {
                ResetPreflight::Safe
            } else {
                ResetPreflight::Collision(expected.iter().map(|p| (*p).to_owned()).collect())
            };
            assert_eq!(verdict, wanted, "{name} ({packages} packages)");
            let before = personal_content(&ws);
            git(&ws, &["reset", "-q", "--hard"]);
            assert_eq!(
                survives(&ws, &before),
                expected.is_empty(),
                "{name} ({packages} packages): the real reset disagrees"
            );
        }
    }
}

/// A cache valid for some directories only (a change staged in one): the staged
/// directory's tree is read, the others come from the index, and collisions are found in
/// both.
#[test]
fn a_partly_valid_cache_finds_collisions_on_both_sides() {
    let scratch = Scratch::new();
    let ws = committed(&scratch, 3);
    fs::write(ws.join("pkg000/mod0/f00.txt"), "staged").unwrap();
    git(&ws, &["add", "pkg000/mod0/f00.txt"]);
    assert!(!cache_is_head(&ws));
    fs::remove_dir_all(ws.join("pkg000/mod1")).unwrap();
    fs::write(ws.join("pkg000/mod1"), "personal").unwrap();
    fs::remove_dir_all(ws.join("pkg002/mod4")).unwrap();
    fs::write(ws.join("pkg002/mod4"), "personal").unwrap();
    let verdict = world(&ws, None).reset_preflight(&ws, None);
    assert_eq!(
        verdict,
        ResetPreflight::Collision(vec!["pkg000/mod1".into(), "pkg002/mod4".into()])
    );
}

/// git trusts the cache: where it names the target's tree for a directory, the reset
/// writes the index's entries there, not the tree's. A cache that lies (the old tree's id
/// over the new entries) therefore keeps the untracked file the old tree holds, and the
/// preflight, following the same cache, says so. If git ever stops trusting the cache, this
/// test fails, and the preflight must read the trees.
#[test]
fn git_follows_a_lying_cache_and_so_does_the_preflight() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/d/a", "a\n");
    scratch.file("ws/d/b", "b\n");
    let old = commit_all(&ws, "old");
    let old_tree = git(&ws, &["rev-parse", "HEAD:d"]);
    git(&ws, &["rm", "-q", "d/b"]);
    scratch.file("ws/d/c", "c\n");
    commit_all(&ws, "new");
    let new_tree = git(&ws, &["rev-parse", "HEAD:d"]);
    scratch.file("ws/d/b", "personal\n");
    patch_index(&ws, |index| {
        let at = find(index, &unhex(new_tree.trim()), tree_extension(index));
        index[at..at + 20].copy_from_slice(&unhex(old_tree.trim()));
    });
    let verdict = world(&ws, None).reset_preflight(&ws, Some(old.trim()));
    let before = personal_content(&ws);
    git(&ws, &["reset", "-q", "--hard", old.trim()]);
    assert!(survives(&ws, &before), "git wrote the old tree over d/b");
    assert_eq!(verdict, ResetPreflight::Safe);
}

/// A cache whose entry count disagrees with the index's entries: git's reset would walk a
/// wrong number of entries, so the effect is not judged.
#[test]
fn a_cache_that_miscounts_is_undeterminable() {
    let scratch = Scratch::new();
    let ws = committed(&scratch, 0);
    patch_index(&ws, |index| {
        // The root's record: an empty name, its NUL, then the count in decimal.
        let count = tree_extension(index) + 1;
        assert_eq!(index[count], b'4', "the root holds four entries");
        index[count] = b'3';
    });
    assert_eq!(
        world(&ws, None).reset_preflight(&ws, None),
        ResetPreflight::Undeterminable("the index's tree cache disagrees with its entries".into())
    );
}

/// Where the `TREE` extension's data starts.
fn tree_extension(index: &[u8]) -> usize {
    find(index, b"TREE", 12) + 8
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> usize {
    from + haystack[from..]
        .windows(needle.len())
        .position(|window| window == needle)
        .expect("the bytes are in the index")
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

/// Changes the index file's bytes and writes it back with a correct trailing checksum (git
/// verifies it), computed by `sha1sum`.
fn patch_index(ws: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let path = ws.join(".git/index");
    let mut index = fs::read(&path).unwrap();
    index.truncate(index.len() - 20);
    change(&mut index);
    let mut sha1sum = Command::new("sha1sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    sha1sum.stdin.take().unwrap().write_all(&index).unwrap();
    let output = sha1sum.wait_with_output().unwrap();
    let digest = String::from_utf8(output.stdout).unwrap();
    index.extend(unhex(&digest[..40]));
    fs::write(&path, index).unwrap();
}

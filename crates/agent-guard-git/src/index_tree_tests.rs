//! The index's tree cache and directory listing, with the `git` CLI as the oracle.

use std::path::Path;
use std::process::Command;

use super::*;

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .trim()
        .to_owned()
}

/// A committed repository with a name sorting between a directory and its entries (`a-b`).
fn committed() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path();
    git(root, &["init", "-q"]);
    for path in ["a-b", "a/x", "a/y/z", "b", "中文/笔记.txt"] {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "content\n").expect("write");
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "tracked"]);
    dir
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut text, b| {
        let _ = write!(text, "{b:02x}");
        text
    })
}

fn index_of(root: &Path) -> IndexFile {
    IndexFile::read(&root.join(".git/index"))
        .expect("readable")
        .expect("decodable")
}

#[test]
fn a_committed_index_caches_every_tree_id_git_has() {
    let dir = committed();
    let root = dir.path();
    let index = index_of(root);
    let cache = index.cached_root().expect("git commit writes the cache");
    let id = |tree: Option<CachedTree<'_>>| tree.and_then(CachedTree::id).map(hex);
    assert_eq!(
        id(Some(cache)),
        Some(git(root, &["rev-parse", "HEAD^{tree}"]))
    );
    let a = cache.child(b"a");
    assert_eq!(id(a), Some(git(root, &["rev-parse", "HEAD:a"])));
    assert_eq!(
        id(a.and_then(|a| a.child(b"y"))),
        Some(git(root, &["rev-parse", "HEAD:a/y"]))
    );
    assert_eq!(
        id(cache.child("中文".as_bytes())),
        Some(git(root, &["rev-parse", "HEAD:中文"]))
    );
    assert_eq!(cache.entries(), Some(index.len()));
    assert_eq!(a.and_then(CachedTree::entries), Some(2));
    assert!(cache.child(b"b").is_none(), "a file has no tree");
}

#[test]
fn a_staged_change_invalidates_its_directories_only() {
    let dir = committed();
    let root = dir.path();
    std::fs::write(root.join("a/y/z"), "changed\n").expect("write");
    git(root, &["add", "a/y/z"]);
    let index = index_of(root);
    let cache = index.cached_root().expect("the cache stays, partly");
    let a = cache.child(b"a").expect("a");
    assert_eq!(cache.id(), None);
    assert_eq!(a.id(), None);
    assert_eq!(a.child(b"y").and_then(CachedTree::id), None);
    assert_eq!(
        cache
            .child("中文".as_bytes())
            .and_then(CachedTree::id)
            .map(hex),
        Some(git(root, &["rev-parse", "HEAD:中文"]))
    );
}

#[test]
fn children_are_the_names_git_lists_in_the_tree() {
    let dir = committed();
    let root = dir.path();
    let index = index_of(root);
    let listed = |tree: &str| -> Vec<(String, bool)> {
        let mut names: Vec<(String, bool)> =
            git(root, &["-c", "core.quotePath=false", "ls-tree", tree])
                .lines()
                .map(|line| {
                    let (meta, name) = line.split_once('\t').expect("tab");
                    (name.to_owned(), meta.contains(" tree "))
                })
                .collect();
        names.sort();
        names
    };
    let named = |children: Vec<(&[u8], IndexChild)>| -> Vec<(String, bool)> {
        let mut names: Vec<(String, bool)> = children
            .into_iter()
            .map(|(name, child)| {
                let name = String::from_utf8(name.to_vec()).expect("utf-8");
                (name, matches!(child, IndexChild::Directory(_)))
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(named(index.children(index.all(), 0)), listed("HEAD"));
    let a = index.below(index.all(), b"a");
    assert_eq!(named(index.children(a, 2)), listed("HEAD:a"));
    let Some((_, IndexChild::Directory(y))) = index
        .children(a, 2)
        .into_iter()
        .find(|(name, _)| *name == b"y")
    else {
        panic!("a/y is a directory");
    };
    assert_eq!(y.len(), 1);
    assert!(index.resolved(index.all()));
}

//! Real repositories made with libgit2: which guard files each kind of source changes.

use std::path::{Path, PathBuf};

use agent_guard_types::{GuardTreeChanges, Target, TreePart, TreeSource};
use git2::{Commit, Oid, Repository, Signature};

use super::{guard_files_committed, guard_tree_changes};
use crate::world::RealWorld;

const SETTINGS: &str = ".claude/settings.json";
const LOCAL: &str = ".claude/settings.local.json";

/// A commit of `parent`'s tree with `files` set (`None`: removed), on `reference`.
fn commit(repo: &Repository, parent: Option<&Commit<'_>>, files: &[(&str, Option<&str>)]) -> Oid {
    let mut index = git2::Index::new().unwrap();
    if let Some(parent) = parent {
        index.read_tree(&parent.tree().unwrap()).unwrap();
    }
    for (path, content) in files {
        match content {
            Some(content) => index
                .add(&git2::IndexEntry {
                    ctime: git2::IndexTime::new(0, 0),
                    mtime: git2::IndexTime::new(0, 0),
                    dev: 0,
                    ino: 0,
                    mode: 0o100_644,
                    uid: 0,
                    gid: 0,
                    file_size: 0,
                    id: repo.blob(content.as_bytes()).unwrap(),
                    flags: 0,
                    flags_extended: 0,
                    path: path.as_bytes().to_vec(),
                })
                .unwrap(),
            None => index.remove_path(Path::new(path)).unwrap(),
        }
    }
    let tree = repo.find_tree(index.write_tree_to(repo).unwrap()).unwrap();
    let signature = Signature::now("t", "t@example.invalid").unwrap();
    let parents: Vec<&Commit<'_>> = parent.into_iter().collect();
    repo.commit(None, &signature, &signature, "c", &tree, &parents)
        .unwrap()
}

/// A repository whose `HEAD` (`ours`) changed `.claude/settings.json` since `base`;
/// `theirs` changed an ordinary file since `base`, `evil` added `settings.local.json`.
fn repository() -> (tempfile::TempDir, PathBuf, Repository) {
    let dir = tempfile::tempdir().unwrap();
    let ws = fs_err::canonicalize(dir.path()).unwrap();
    let repo = Repository::init(&ws).unwrap();
    let base = commit(&repo, None, &[(SETTINGS, Some("A")), ("src/a", Some("1"))]);
    let base = repo.find_commit(base).unwrap();
    for (name, files) in [
        ("ours", &[(SETTINGS, Some("B"))][..]),
        ("theirs", &[("src/a", Some("2"))]),
        ("evil", &[(LOCAL, Some("off"))]),
        ("gone", &[(SETTINGS, None)]),
    ] {
        let oid = commit(&repo, Some(&base), files);
        repo.reference(&format!("refs/heads/{name}"), oid, true, "test")
            .unwrap();
    }
    repo.set_head("refs/heads/ours").unwrap();
    repo.checkout_head(Some(git2::build::CheckoutBuilder::new().force()))
        .unwrap();
    drop(base);
    (dir, ws, repo)
}

fn source(rev: &str, part: TreePart) -> TreeSource {
    TreeSource::new(Target::literal(rev), part)
}

fn changed(ws: &Path, paths: &[&str]) -> GuardTreeChanges {
    GuardTreeChanges::Changed(paths.iter().map(|p| ws.join(p)).collect())
}

#[test]
fn each_part_counts_what_git_writes() {
    let (_dir, ws, _repo) = repository();
    let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
    let judge = |rev: &str, part| guard_tree_changes(&world, &ws, &source(rev, part));
    // The whole tree of `theirs` has the old settings.json; a merge keeps ours.
    assert_eq!(judge("theirs", TreePart::Whole), changed(&ws, &[SETTINGS]));
    assert_eq!(
        judge("theirs", TreePart::Merged),
        GuardTreeChanges::Unchanged
    );
    assert_eq!(judge("evil", TreePart::Merged), changed(&ws, &[LOCAL]));
    assert_eq!(judge("gone", TreePart::Merged), changed(&ws, &[SETTINGS]));
    assert_eq!(judge("evil", TreePart::Change), changed(&ws, &[LOCAL]));
    assert_eq!(
        judge("theirs", TreePart::Change),
        GuardTreeChanges::Unchanged
    );
    assert_eq!(
        judge("ours..evil", TreePart::Change),
        changed(&ws, &[LOCAL])
    );
    assert_eq!(
        judge("^ours evil", TreePart::Change),
        changed(&ws, &[LOCAL])
    );
    assert_eq!(judge("ours", TreePart::Whole), GuardTreeChanges::Unchanged);
    assert!(matches!(
        judge("nope", TreePart::Whole),
        GuardTreeChanges::Unresolved(_)
    ));
    let empty = guard_tree_changes(&world, &ws, &TreeSource::empty_tree());
    assert_eq!(empty, changed(&ws, &[SETTINGS]));
    let opaque = TreeSource::new(
        Target {
            opaque: Some("a variable".to_owned()),
            ..Target::literal("$B")
        },
        TreePart::Merged,
    );
    assert!(matches!(
        guard_tree_changes(&world, &ws, &opaque),
        GuardTreeChanges::Unknown(_)
    ));
    // A pull without an upstream fails in git.
    let pull = TreeSource {
        fetched: true,
        ..source("@{u}", TreePart::Merged)
    };
    assert_eq!(
        guard_tree_changes(&world, &ws, &pull),
        GuardTreeChanges::Unchanged
    );
    // From a subdirectory, the same repository.
    fs_err::create_dir_all(ws.join("src")).unwrap();
    assert_eq!(
        guard_tree_changes(&world, &ws.join("src"), &source("evil", TreePart::Whole)),
        changed(&ws, &[SETTINGS, LOCAL]),
        "evil has the old settings.json besides its own file"
    );
}

#[test]
fn a_stash_entry_counts_its_untracked_files() {
    let (_dir, ws, mut repo) = repository();
    fs_err::write(ws.join(LOCAL), "off").unwrap();
    let signature = Signature::now("t", "t@example.invalid").unwrap();
    repo.stash_save(
        &signature,
        "hooks off",
        Some(git2::StashFlags::INCLUDE_UNTRACKED),
    )
    .unwrap();
    assert!(!ws.join(LOCAL).exists());
    let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
    assert_eq!(
        guard_tree_changes(&world, &ws, &source("stash@{0}", TreePart::Stash)),
        changed(&ws, &[LOCAL])
    );
}

#[test]
fn committed_guard_files_are_found_on_any_branch() {
    let (_dir, ws, _repo) = repository();
    let world = RealWorld::new(ws.clone(), ws.join(".agent-trash"), None);
    assert!(guard_files_committed(&world, &ws));
    let plain = tempfile::tempdir().unwrap();
    let plain = fs_err::canonicalize(plain.path()).unwrap();
    let repo = Repository::init(&plain).unwrap();
    let oid = commit(&repo, None, &[("src/a", Some("1"))]);
    repo.reference("refs/heads/main", oid, true, "test")
        .unwrap();
    let world = RealWorld::new(plain.clone(), plain.join(".agent-trash"), None);
    assert!(!guard_files_committed(&world, &plain));
}

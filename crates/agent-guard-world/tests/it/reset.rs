use std::fs;
use std::path::{Path, PathBuf};

use agent_guard_types::{ResetPreflight, World};
use agent_guard_world::RealWorld;

use crate::support::{Scratch, commit_all, git, git_init, world};

/// A repository where `name` was committed (commit `old`), then `git rm`ed and committed.
struct Reset {
    scratch: Scratch,
    ws: PathBuf,
    old: String,
}

fn removed(name: &str) -> Reset {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/keep.txt", "keep");
    scratch.file(&format!("ws/{name}"), "committed");
    let old = commit_all(&ws, "with the file");
    git(&ws, &["rm", "-q", "-r", "--", name]);
    commit_all(&ws, "without the file");
    Reset { scratch, ws, old }
}

impl Reset {
    fn preflight(&self, target: Option<&str>) -> ResetPreflight {
        world(&self.ws, None).reset_preflight(&self.ws, target)
    }

    fn exclude(&self, pattern: &str) {
        fs::write(self.ws.join(".git/info/exclude"), format!("{pattern}\n")).unwrap();
    }
}

fn collision(paths: &[&str]) -> ResetPreflight {
    ResetPreflight::Collision(paths.iter().map(|p| (*p).to_owned()).collect())
}

fn undeterminable(reason: &str) -> ResetPreflight {
    ResetPreflight::Undeterminable(reason.to_owned())
}

#[test]
fn an_untracked_file_collides() {
    let r = removed("collision");
    r.scratch.file("ws/collision", "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
    // A dirty tracked tree changes nothing.
    r.scratch.file("ws/keep.txt", "edited");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn an_untracked_file_beside_a_tree_directory_does_not_collide() {
    let r = removed("dir/tracked.txt");
    r.scratch.file("ws/dir/mine.txt", "personal");
    assert_eq!(r.preflight(Some(&r.old)), ResetPreflight::Safe);
    r.scratch.file("ws/dir/tracked.txt", "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["dir/tracked.txt"]));
}

#[test]
fn an_untracked_directory_collides() {
    let r = removed("collision");
    r.scratch.file("ws/collision/personal.txt", "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn an_ignored_file_collides() {
    let r = removed("collision.log");
    r.exclude("*.log");
    r.scratch.file("ws/collision.log", "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision.log"]));
}

#[test]
fn an_ignored_directory_collides() {
    let r = removed("collision");
    r.exclude("collision/");
    r.scratch.file("ws/collision/personal.txt", "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn an_untracked_symlink_collides() {
    let r = removed("collision");
    r.scratch.link("ws/collision", "keep.txt");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn a_target_directory_collides_with_an_untracked_file() {
    let r = removed("collision/a.txt");
    r.scratch
        .file("ws/collision", "a file where the tree has a directory");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn a_target_directory_collides_with_an_untracked_link() {
    let r = removed("collision/a.txt");
    r.scratch.link("ws/collision", "keep.txt");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn a_target_file_collides_with_content_below_a_tracked_directory() {
    let r = removed("collision");
    r.scratch.file("ws/collision/tracked.txt", "tracked");
    commit_all(&r.ws, "a directory now");
    r.scratch.file("ws/collision/personal.log", "personal");
    assert_eq!(
        r.preflight(Some(&r.old)),
        collision(&["collision/personal.log"])
    );
}

#[test]
fn head_is_the_default_target() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/collision", "committed");
    commit_all(&ws, "base");
    git(&ws, &["rm", "-q", "--cached", "collision"]);
    scratch.file("ws/collision", "untracked replacement");
    let world = world(&ws, None);
    assert_eq!(world.reset_preflight(&ws, None), collision(&["collision"]));
    assert_eq!(
        world.reset_preflight(&ws, Some("HEAD")),
        collision(&["collision"])
    );
}

#[test]
fn unrelated_untracked_and_ignored_content_is_safe() {
    let r = removed("collision");
    r.exclude("*.log\nbuild/");
    r.scratch.file("ws/notes.txt", "untracked");
    r.scratch.file("ws/debug.log", "ignored");
    r.scratch.file("ws/build/out.o", "ignored dir");
    r.scratch.file("ws/.agent-trash/tx1/payload", "quarantined");
    assert_eq!(r.preflight(Some(&r.old)), ResetPreflight::Safe);
    assert_eq!(r.preflight(None), ResetPreflight::Safe);
}

#[test]
fn bad_and_stash_relative_targets_are_undeterminable() {
    let r = removed("collision");
    let unresolvable = undeterminable("unresolvable reset target");
    assert_eq!(r.preflight(Some("does-not-exist")), unresolvable);
    assert_eq!(r.preflight(Some("HEAD:keep.txt")), unresolvable);
    for stash in ["stash", "stash@{0}", "stash~1", "refs/stash", "stash^"] {
        assert_eq!(
            r.preflight(Some(stash)),
            undeterminable("stash-relative reset target")
        );
    }
}

#[test]
fn submodules_are_undeterminable() {
    let r = removed("collision");
    let head = git(&r.ws, &["rev-parse", "HEAD"]);
    git(
        &r.ws,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},sub"),
        ],
    );
    assert_eq!(r.preflight(None), undeterminable("submodules"));
    // In the target tree too, even once the index no longer has it.
    git(&r.ws, &["commit", "-q", "-m", "gitlink"]);
    let with_gitlink = git(&r.ws, &["rev-parse", "HEAD"]);
    git(&r.ws, &["rm", "-q", "--cached", "sub"]);
    assert_eq!(
        r.preflight(Some(&with_gitlink)),
        undeterminable("submodules")
    );
}

#[test]
fn the_workspace_must_be_the_repository_root() {
    let r = removed("collision");
    let sub = r.scratch.dir("ws/sub");
    let narrow = world(&sub, None);
    let not_root = undeterminable("the workspace is not the repository's work-tree root");
    assert_eq!(narrow.reset_preflight(&sub, None), not_root);
    // From a subdirectory of the right workspace the whole tree is judged.
    let whole = world(&r.ws, None);
    r.scratch.file("ws/collision", "personal");
    assert_eq!(
        whole.reset_preflight(&sub, Some(&r.old)),
        collision(&["collision"])
    );
    // A nested repository below the workspace is not the workspace's repository.
    git_init(&r.ws.join("nested"));
    assert_eq!(whole.reset_preflight(&r.ws.join("nested"), None), not_root);
}

#[test]
fn outside_a_repository_is_undeterminable() {
    let scratch = Scratch::new();
    let ws = scratch.dir("plain");
    let world = world(&ws, None);
    assert_eq!(
        world.reset_preflight(&ws, None),
        undeterminable("not a git repository")
    );
}

#[test]
fn a_bare_repository_is_undeterminable() {
    let scratch = Scratch::new();
    let bare = scratch.dir("bare.git");
    git(&bare, &["init", "-q", "--bare"]);
    let world = world(&bare, None);
    assert!(matches!(
        world.reset_preflight(&bare, None),
        ResetPreflight::Undeterminable(_)
    ));
}

#[test]
fn tracked_content_in_the_quarantine_collides() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/.agent-trash/user.txt", "tracked by the user");
    commit_all(&ws, "tracks the quarantine");
    let world = world(&ws, None);
    assert_eq!(
        world.reset_preflight(&ws, None),
        collision(&[".agent-trash"])
    );
    // Even when the quarantine does not exist yet.
    git(&ws, &["rm", "-q", "-r", ".agent-trash"]);
    git(&ws, &["commit", "-q", "-m", "untrack"]);
    assert!(!ws.join(".agent-trash").exists());
    let world = super::support::world(&ws, None);
    assert_eq!(
        world.reset_preflight(&ws, Some("HEAD~1")),
        collision(&[".agent-trash"])
    );
}

#[test]
fn a_tracked_file_where_the_quarantine_sits_collides() {
    let r = removed(".agent-trash");
    r.scratch.file("ws/.agent-trash/tx1/payload", "quarantined");
    assert_eq!(r.preflight(Some(&r.old)), collision(&[".agent-trash"]));
}

#[test]
fn a_quarantine_at_the_workspace_root_is_undeterminable() {
    let r = removed("collision");
    let world = RealWorld::new(r.ws.clone(), r.ws.clone(), None);
    let overlap = undeterminable("quarantine overlaps the workspace root");
    assert_eq!(world.reset_preflight(&r.ws, None), overlap);
    let above = RealWorld::new(r.ws.clone(), r.scratch.root.clone(), None);
    assert_eq!(above.reset_preflight(&r.ws, None), overlap);
    let external = RealWorld::new(r.ws.clone(), r.scratch.path("external"), None);
    assert_eq!(external.reset_preflight(&r.ws, None), ResetPreflight::Safe);
}

#[test]
fn odd_names_are_listed_exactly() {
    let name = "笔记\n\"collision";
    let r = removed(name);
    r.scratch.file(&format!("ws/{name}"), "personal");
    assert_eq!(r.preflight(Some(&r.old)), collision(&[name]));
}

#[test]
fn ignorecase_folds_comparisons() {
    let r = removed("Collision");
    r.scratch.file("ws/collision", "personal");
    assert_eq!(r.preflight(Some(&r.old)), ResetPreflight::Safe);
    git(&r.ws, &["config", "core.ignorecase", "true"]);
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

#[test]
fn the_preflight_writes_nothing() {
    let r = removed("collision");
    r.scratch.file("ws/collision", "personal");
    r.scratch.file("ws/keep.txt", "dirty");
    let snapshot = |ws: &Path| {
        (
            fs::read(ws.join(".git/index")).unwrap(),
            git(ws, &["status", "--porcelain", "--ignored"]),
            git(ws, &["stash", "list"]),
            git(ws, &["rev-parse", "HEAD"]),
        )
    };
    let before = snapshot(&r.ws);
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
    assert_eq!(
        r.preflight(Some("stash")),
        undeterminable("stash-relative reset target")
    );
    assert_eq!(snapshot(&r.ws), before);
}

#[test]
fn many_collisions_are_capped() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    for i in 0..25 {
        scratch.file(&format!("ws/f{i:02}"), "committed");
    }
    let old = commit_all(&ws, "many");
    git(&ws, &["rm", "-q", "f*"]);
    commit_all(&ws, "none");
    for i in 0..25 {
        scratch.file(&format!("ws/f{i:02}"), "personal");
    }
    let ResetPreflight::Collision(paths) = world(&ws, None).reset_preflight(&ws, Some(&old)) else {
        panic!("expected a collision");
    };
    assert_eq!(paths.len(), 21);
    assert_eq!(paths[0], "f00");
    assert_eq!(paths[19], "f19");
    assert_eq!(paths[20], "… and 5 more");
}

/// Every untracked and ignored file's bytes (links as their targets), by relative path.
pub(crate) fn personal_content(ws: &Path) -> Vec<(String, Vec<u8>)> {
    let listed = git(ws, &["ls-files", "--others", "-z"]);
    let mut content: Vec<(String, Vec<u8>)> = listed
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let path = ws.join(p);
            let bytes = match fs::read_link(&path) {
                Ok(target) => target.into_os_string().into_encoded_bytes(),
                Err(_) => fs::read(&path).unwrap_or_default(),
            };
            (p.to_owned(), bytes)
        })
        .collect();
    content.sort();
    content
}

pub(crate) fn survives(ws: &Path, before: &[(String, Vec<u8>)]) -> bool {
    before.iter().all(|(path, bytes)| {
        let path = ws.join(path);
        match fs::read_link(&path) {
            Ok(target) => target.into_os_string().into_encoded_bytes() == *bytes,
            Err(_) => fs::read(&path).is_ok_and(|now| now == *bytes),
        }
    })
}

/// The real `git reset --hard` as the oracle: `Safe` must keep every untracked and ignored
/// byte, `Collision` must name a case where git really destroys some.
#[test]
fn verdicts_agree_with_a_real_reset() {
    type Setup = fn(&Reset);
    let scenarios: [(&str, Setup); 6] = [
        ("collision", |r| {
            r.scratch.file("ws/collision", "personal");
        }),
        ("collision", |r| {
            r.scratch.file("ws/collision/personal.txt", "personal");
        }),
        ("collision", |r| {
            r.scratch.link("ws/collision", "keep.txt");
        }),
        ("collision/a.txt", |r| {
            r.scratch.file("ws/collision", "personal");
        }),
        ("collision/a.txt", |r| {
            r.scratch.file("ws/collision/b.txt", "beside");
        }),
        ("collision", |r| {
            r.scratch.file("ws/unrelated.txt", "personal");
        }),
    ];
    for (index, (name, setup)) in scenarios.into_iter().enumerate() {
        let r = removed(name);
        setup(&r);
        let verdict = r.preflight(Some(&r.old));
        let before = personal_content(&r.ws);
        git(&r.ws, &["reset", "-q", "--hard", &r.old]);
        let kept = survives(&r.ws, &before);
        match verdict {
            ResetPreflight::Safe => assert!(kept, "scenario {index}: Safe but git destroyed data"),
            ResetPreflight::Collision(_) => {
                assert!(!kept, "scenario {index}: Collision but git kept everything");
            }
            ResetPreflight::Undeterminable(reason) => panic!("scenario {index}: {reason}"),
        }
    }
}

#[test]
fn nested_repository_is_reported_as_its_directory() {
    let r = removed("collision");
    git_init(&r.ws.join("collision"));
    r.scratch.file("ws/collision/inner.txt", "inner");
    assert_eq!(r.preflight(Some(&r.old)), collision(&["collision"]));
}

/// Tree order sorts a directory `a` as `a/`, after a sibling `a-b`; the index sorts a file
/// `a` before it. A path whose type differs between the target tree and the index must
/// still be found tracked (the reset replaces tracked content, which the snapshot keeps).
#[test]
fn a_type_change_beside_a_sorting_sibling_is_not_a_collision() {
    for (old_files, new_files) in [
        (&["a/x", "a-b"][..], &["a", "a-b"][..]),
        (&["a", "a-b"][..], &["a/x", "a-b"][..]),
    ] {
        let scratch = Scratch::new();
        let ws = scratch.path("ws");
        git_init(&ws);
        for file in old_files {
            scratch.file(&format!("ws/{file}"), "old");
        }
        let old = commit_all(&ws, "old");
        git(&ws, &["rm", "-q", "-r", "--", "a"]);
        for file in new_files {
            scratch.file(&format!("ws/{file}"), "new");
        }
        commit_all(&ws, "new");
        assert_eq!(
            world(&ws, None).reset_preflight(&ws, Some(&old)),
            ResetPreflight::Safe,
            "{old_files:?} -> {new_files:?}"
        );
    }
}

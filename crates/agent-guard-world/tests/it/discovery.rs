use std::fs;

use agent_guard_world::{WorldError, discover_workspace};

use crate::support::{Scratch, git_init};

#[test]
fn nearest_git_ancestor_wins() {
    let scratch = Scratch::new();
    scratch.dir("outer/.git");
    scratch.dir("outer/inner/.git");
    let deep = scratch.dir("outer/inner/src/deep");
    assert_eq!(
        discover_workspace(&deep, None, None).unwrap(),
        scratch.path("outer/inner")
    );
    let shallow = scratch.dir("outer/docs");
    assert_eq!(
        discover_workspace(&shallow, None, None).unwrap(),
        scratch.path("outer")
    );
}

#[test]
fn start_itself_can_be_the_root() {
    let scratch = Scratch::new();
    git_init(&scratch.path("repo"));
    let repo = scratch.path("repo");
    assert_eq!(discover_workspace(&repo, None, None).unwrap(), repo);
}

#[test]
fn a_git_file_marks_a_worktree() {
    let scratch = Scratch::new();
    scratch.file("wt/.git", "gitdir: /elsewhere/.git/worktrees/wt\n");
    let sub = scratch.dir("wt/sub");
    assert_eq!(
        discover_workspace(&sub, None, None).unwrap(),
        scratch.path("wt")
    );
}

#[test]
fn without_git_the_start_is_the_root() {
    let scratch = Scratch::new();
    let start = scratch.dir("plain/dir");
    assert_eq!(discover_workspace(&start, None, None).unwrap(), start);
}

#[test]
fn override_is_made_absolute_against_start_and_resolved() {
    let scratch = Scratch::new();
    scratch.dir("repo/.git");
    let start = scratch.dir("repo/sub");
    scratch.dir("repo/sub/chosen");
    let relative = discover_workspace(&start, Some("chosen".as_ref()), None).unwrap();
    assert_eq!(relative, scratch.path("repo/sub/chosen"));
    let other = scratch.dir("elsewhere");
    let absolute = discover_workspace(&start, Some(&other), None).unwrap();
    assert_eq!(absolute, other);
    scratch.link("alias", &other);
    let via_alias = discover_workspace(&start, Some(&scratch.path("alias")), None).unwrap();
    assert_eq!(via_alias, other);
}

#[test]
fn a_symlinked_alias_gives_the_physical_root() {
    let scratch = Scratch::new();
    scratch.dir("real/.git");
    scratch.dir("real/src");
    scratch.link("alias", scratch.path("real"));
    let via_alias = discover_workspace(&scratch.path("alias/src"), None, None).unwrap();
    assert_eq!(via_alias, scratch.path("real"));
    assert_eq!(
        discover_workspace(&scratch.path("alias"), None, None).unwrap(),
        scratch.path("real")
    );
}

#[test]
fn a_missing_override_is_an_error_naming_the_path() {
    let scratch = Scratch::new();
    let missing = scratch.path("missing");
    let error = discover_workspace(&scratch.root, Some(&missing), None).unwrap_err();
    assert!(matches!(error, WorldError::Realpath { .. }));
    assert!(
        error.to_string().contains(&*missing.to_string_lossy()),
        "{error}"
    );
}

#[test]
fn discovery_writes_nothing() {
    let scratch = Scratch::new();
    let start = scratch.dir("a/b");
    discover_workspace(&start, None, None).unwrap();
    assert_eq!(fs::read_dir(&start).unwrap().count(), 0);
}

#[test]
fn the_root_and_the_home_directory_are_never_a_fallback_workspace() {
    let scratch = Scratch::new();
    let home = scratch.dir("home");
    assert!(matches!(
        discover_workspace(&home, None, Some(&home)),
        Err(WorldError::NoWorkspace { .. })
    ));
    assert!(matches!(
        discover_workspace(std::path::Path::new("/"), None, None),
        Err(WorldError::NoWorkspace { .. })
    ));
    // Below the home directory, the start directory still is the fallback.
    let below = scratch.dir("home/project");
    assert_eq!(
        discover_workspace(&below, None, Some(&home)).unwrap(),
        below
    );
    // An explicit workspace is always honoured, and a repository at home is not a fallback.
    assert_eq!(
        discover_workspace(&home, Some(&home), Some(&home)).unwrap(),
        home
    );
    std::fs::create_dir(home.join(".git")).unwrap();
    assert_eq!(discover_workspace(&home, None, Some(&home)).unwrap(), home);
}

use std::path::Path;

use agent_guard_types::World;

use crate::support::{Scratch, commit_all, git, git_init, git_ok, world};

/// A repository ignoring `node_modules/`, `*.log` and `vendor/` (the last with a force-added
/// tracked file), plus `cache/` through `info/exclude`.
fn repo() -> Scratch {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/.gitignore", "node_modules/\n*.log\nvendor/\n");
    scratch.file("ws/src/main.rs", "fn main() {}");
    scratch.file("ws/node_modules/pkg/index.js", "");
    scratch.file("ws/noise.log", "");
    scratch.file("ws/src.log", "tracked");
    scratch.file("ws/vendor/keep.txt", "tracked");
    scratch.file("ws/vendor/extra.txt", "");
    scratch.file("ws/cache/blob", "");
    scratch.file("ws/.git/info/exclude", "cache/\n");
    commit_all(&ws, "base");
    git(&ws, &["add", "-f", "src.log", "vendor/keep.txt"]);
    git(
        &ws,
        &["commit", "-q", "-m", "tracked under ignore patterns"],
    );
    scratch
}

/// `git check-ignore` as the oracle for the ignore-rules part.
fn oracle(ws: &Path, relative: &str) -> bool {
    git_ok(ws, &["check-ignore", "-q", "--no-index", "--", relative])
}

#[test]
fn ignored_untracked_paths_are_regenerable() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let world = world(&ws, None);
    for ignored in [
        "node_modules",
        "node_modules/pkg/index.js",
        "noise.log",
        "cache",
    ] {
        assert!(oracle(&ws, ignored), "oracle disagrees on {ignored}");
        assert!(world.git_ignored(&ws.join(ignored)), "{ignored}");
        assert!(world.git_ignored(Path::new(ignored)), "relative {ignored}");
    }
}

#[test]
fn tracked_content_is_never_regenerable() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let world = world(&ws, None);
    for tracked in ["src.log", "vendor", "vendor/keep.txt"] {
        assert!(
            oracle(&ws, tracked),
            "oracle: {tracked} matches an ignore pattern"
        );
        assert!(!world.git_ignored(&ws.join(tracked)), "{tracked}");
    }
    // Ignored and untracked, beside a tracked file.
    assert!(world.git_ignored(&ws.join("vendor/extra.txt")));
}

#[test]
fn unignored_paths_and_odd_inputs_are_not() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let world = world(&ws, None);
    for plain in ["src", "src/main.rs", ".gitignore", "missing.txt"] {
        assert!(!oracle(&ws, plain), "oracle: {plain}");
        assert!(!world.git_ignored(&ws.join(plain)), "{plain}");
    }
    assert!(!world.git_ignored(&ws));
    assert!(!world.git_ignored(&scratch.path("elsewhere.log")));
    assert!(world.git_ignored(&ws.join("src/../noise.log")));
}

#[test]
fn directory_patterns_need_a_directory() {
    let scratch = repo();
    let ws = scratch.path("ws");
    // A file named like a directory-only pattern is not ignored.
    scratch.file("ws/sub/node_modules", "not a dir");
    let world = world(&ws, None);
    assert!(!oracle(&ws, "sub/node_modules"));
    assert!(!world.git_ignored(&ws.join("sub/node_modules")));
}

#[test]
fn a_global_excludes_file_counts() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let excludes = scratch.file("global-excludes", "*.tmp\n");
    git(
        &ws,
        &["config", "core.excludesFile", excludes.to_str().unwrap()],
    );
    scratch.file("ws/scratch.tmp", "");
    let world = world(&ws, None);
    assert!(oracle(&ws, "scratch.tmp"));
    assert!(world.git_ignored(&ws.join("scratch.tmp")));
}

#[test]
fn outside_a_repository_nothing_is_ignored() {
    let scratch = Scratch::new();
    let ws = scratch.dir("plain");
    scratch.file("plain/.gitignore", "*.log\n");
    scratch.file("plain/x.log", "");
    let world = world(&ws, None);
    assert!(!world.git_ignored(&ws.join("x.log")));
}

#[test]
fn the_ignore_probe_writes_nothing() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let index = std::fs::read(ws.join(".git/index")).unwrap();
    let status = git(&ws, &["status", "--porcelain", "--ignored"]);
    let world = world(&ws, None);
    assert!(world.git_ignored(&ws.join("node_modules")));
    assert!(!world.git_ignored(&ws.join("src.log")));
    assert_eq!(std::fs::read(ws.join(".git/index")).unwrap(), index);
    assert_eq!(git(&ws, &["status", "--porcelain", "--ignored"]), status);
    assert!(format!("{world:?}").contains("repository_opened: true"));
}

/// The whole fact the policy receives: an artifact name in some component, ignored by git,
/// nothing tracked — and git is not opened unless every path looks like an artifact.
#[test]
fn regenerable_needs_an_artifact_name_and_git() {
    let scratch = repo();
    let ws = scratch.path("ws");
    let artifacts = ["node_modules".to_owned(), "*.log".to_owned()];
    let world = world(&ws, None).with_artifacts(&artifacts);
    let node = ws.join("node_modules");
    let inside = ws.join("node_modules/pkg/index.js");
    let cache = ws.join("cache");
    let tracked = ws.join("src.log");
    let main = ws.join("src/main.rs");
    assert!(
        !world.regenerable(&[&node, &main]),
        "src/main.rs is no artifact"
    );
    assert!(
        format!("{world:?}").contains("repository_opened: false"),
        "names first, git only when every name matches"
    );
    assert!(world.regenerable(&[&node]));
    assert!(
        world.regenerable(&[&inside]),
        "inside an artifact directory"
    );
    assert!(world.regenerable(&[&node, &ws.join("noise.log")]));
    assert!(
        !world.regenerable(&[&cache]),
        "ignored, but no artifact name"
    );
    assert!(
        !world.regenerable(&[&tracked]),
        "an artifact name, but tracked"
    );
    assert!(!world.regenerable(&[]));
    let without = crate::support::world(&ws, None);
    assert!(
        !without.regenerable(&[&node]),
        "no patterns, nothing regenerable"
    );
}

/// A relative `core.excludesFile` is read from the top of the work tree, as git reads it,
/// whatever directory the guard runs in (found by an outside review: the guard opened it
/// relative to its own working directory).
#[test]
fn a_relative_excludes_file_is_read_from_the_top_of_the_work_tree() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/ign", "build\n");
    scratch.file("ws/pkg/ign", "");
    scratch.file("ws/pkg/build/o", "");
    git(&ws, &["config", "core.excludesFile", "ign"]);
    let pkg = ws.join("pkg");
    assert!(git_ok(&pkg, &["check-ignore", "-q", "--no-index", "build"]));
    let world = world(&pkg, None);
    assert!(world.git_ignored(Path::new("build")));
}

/// Another repository at, below or above a path (a nested clone with its own history, a
/// linked worktree) keeps what the outer index does not see: not regenerable.
#[test]
fn nothing_in_or_holding_another_repository_is_regenerable() {
    let scratch = Scratch::new();
    let ws = scratch.path("ws");
    git_init(&ws);
    scratch.file("ws/.gitignore", "build/\ndist/\n");
    commit_all(&ws, "base");
    let lib = scratch.dir("ws/build/_deps/lib");
    git_init(&lib);
    scratch.file("ws/build/_deps/lib/work.c", "mine\n");
    commit_all(&lib, "unpushed");
    scratch.file("ws/dist/.git", "gitdir: /elsewhere/worktrees/dist\n");
    scratch.file("ws/dist/index.html", "wip\n");
    let world = world(&ws, None);
    for path in [
        "build",
        "build/_deps",
        "build/_deps/lib/work.c",
        "dist",
        "dist/index.html",
    ] {
        assert!(oracle(&ws, path), "git ignores {path}");
        assert!(!world.git_ignored(&ws.join(path)), "{path}");
    }
}

//! What git does not ignore is not regenerable (issue 36): a root `.gitignore` with `build`
//! and `sub/.gitignore` with `!build` — git keeps `sub/build`. Before, the guard asked
//! libgit2, called `rm -rf sub/build` regenerable (deleted, nothing kept) and the
//! checkpoint left it out: the data could not come back. Real deletes, real undo, byte for
//! byte; `build/` at the root stays regenerable.

use crate::support::{TestEnv, enforce, git_in, run_shell, snapshot, txids};

fn negated() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join(".gitignore"), "node_modules/\nbuild\n").unwrap();
    std::fs::create_dir_all(ws.join("sub/build/deep")).unwrap();
    std::fs::write(ws.join("sub/.gitignore"), "!build\n").unwrap();
    std::fs::write(ws.join("sub/build/data.bin"), [0u8, 1, 2, 250, 251]).unwrap();
    std::fs::write(ws.join("sub/build/deep/notes.md"), "only here\n").unwrap();
    std::fs::write(ws.join("wipe.sh"), "rm -rf sub/build build\n").unwrap();
    env
}

fn undo(env: &TestEnv) {
    env.ag_ok(&["undo", "--json"]);
}

#[test]
fn a_directory_a_deeper_file_re_includes_is_kept_and_undone() {
    let env = negated();
    let before = snapshot(env.ws(), &["sub"]);
    let (exit, report) = enforce(&env, "rm -rf sub/build");
    assert_eq!(exit, 0, "{report}");
    assert_ne!(report["code"], "ALLOW_REGENERABLE", "{report}");
    assert_eq!(txids(&report).len(), 1, "kept first: {report}");
    run_shell(&env, "rm -rf sub/build");
    assert!(!env.ws().join("sub/build").exists(), "the command ran");
    undo(&env);
    assert_eq!(snapshot(env.ws(), &["sub"]), before);
}

#[test]
fn a_checkpoint_keeps_it_and_leaves_the_ignored_build_out() {
    let env = negated();
    // A checkpoint restores content and modes, not times (as git does).
    let mut before = snapshot(env.ws(), &["**"]);
    before.retain(|path, _| !(path == b"build" || path.starts_with(b"build/")));
    let (exit, report) = enforce(&env, "sh wipe.sh");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    run_shell(&env, "sh wipe.sh");
    assert!(!env.ws().join("sub/build").exists(), "the script ran");
    undo(&env);
    assert_eq!(snapshot(env.ws(), &["**"]), before);
    assert!(
        !env.ws().join("build").exists(),
        "the root build/ is ignored and regenerable: not kept"
    );
}

#[test]
fn the_root_build_stays_regenerable() {
    let env = negated();
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_REGENERABLE", "{report}");
}

/// Found by an outside review: a repository of its own inside an ignored `build/` (a `CMake`
/// `_deps`, with an unpushed commit and an edit) and a linked worktree in an ignored `dist/`
/// (staged work) were regenerable to the guard, which looked only at the outer index. Now
/// they are kept, the real `rm -rf` runs, and `undo` brings back every byte, the inner
/// `.git` included.
#[test]
fn another_repository_inside_an_ignored_directory_is_kept_and_undone() {
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join(".gitignore"), "node_modules/\nbuild/\ndist/\n").unwrap();
    git_in(ws, &["add", ".gitignore"]);
    git_in(ws, &["commit", "-qm", "ignore build and dist"]);
    let lib = ws.join("build/_deps/lib");
    std::fs::create_dir_all(&lib).unwrap();
    git_in(&lib, &["init", "-q"]);
    std::fs::write(lib.join("work.c"), "mine\n").unwrap();
    git_in(&lib, &["add", "work.c"]);
    git_in(&lib, &["commit", "-qm", "unpushed"]);
    std::fs::write(lib.join("work.c"), "mine\nmore\n").unwrap();
    git_in(ws, &["branch", "pages"]);
    run_shell(&env, "rm -rf dist");
    git_in(ws, &["worktree", "add", "-q", "dist", "pages"]);
    std::fs::write(ws.join("dist/index.html"), "wip\n").unwrap();
    git_in(&ws.join("dist"), &["add", "index.html"]);
    for line in ["rm -rf build", "rm -rf dist"] {
        let before = snapshot(ws, &["*"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{report}");
        assert_ne!(report["code"], "ALLOW_REGENERABLE", "{line}: {report}");
        run_shell(&env, line);
        assert!(!ws.join(&line[7..]).exists(), "{line} ran");
        undo(&env);
        assert_eq!(snapshot(ws, &["*"]), before, "{line}: undone byte for byte");
    }
    // The nested repository works as before: its history and its edit are back.
    let log = std::process::Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&lib)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("unpushed"));
}

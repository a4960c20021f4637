//! A literal `cd` is followed (issue 38, point 5): `cd src && rm -rf build` is judged as the
//! delete of `src/build`, compensated there, and the real line run after `check --enforce`
//! is undone byte for byte. A `cd` that may not have run, or may fail, keeps the question,
//! and the question takes nothing away.

use crate::support::{TestEnv, enforce, run_shell, undone_after_run};

/// The workspace of [`TestEnv::new`] with a second `build/` under `src/`, a note there, a
/// link to `src`, and `src/main.rs` changed since its commit.
fn with_nested_build() -> TestEnv {
    let env = TestEnv::new();
    env.write("src/build/gen.o", "generated\n");
    env.write("src/build/keep/state.json", "{\"n\": 1}\n");
    env.write("src/notes.txt", "src notes\n");
    env.write("src/deep/readme.md", "deep\n");
    env.write("src/main.rs", "fn main() { println!(\"edited\"); }\n");
    std::os::unix::fs::symlink("src", env.ws().join("here")).unwrap();
    env
}

/// What the real run must have done.
type Ran = Box<dyn Fn(&TestEnv) -> bool>;

#[test]
fn each_followed_line_is_undone_after_the_real_run() {
    let gone = |path: &'static str| move |env: &TestEnv| !env.ws().join(path).exists();
    let rows: [(&str, &str, Ran); 9] = [
        (
            "cd src && rm -rf build",
            "RELOCATE_TREE",
            Box::new(|env: &TestEnv| {
                !env.ws().join("src/build").exists() && env.ws().join("build").exists()
            }),
        ),
        (
            "cd src; rm notes.txt",
            "RELOCATE_PATHS",
            Box::new(|env: &TestEnv| {
                !env.ws().join("src/notes.txt").exists() && env.ws().join("notes.txt").exists()
            }),
        ),
        (
            "cd src || exit 1; rm -r build",
            "RELOCATE_TREE",
            Box::new(gone("src/build")),
        ),
        (
            "cd src && echo replaced > notes.txt",
            "SNAPSHOT_OVERWRITE",
            Box::new(|env: &TestEnv| {
                env.read("src/notes.txt") == "replaced\n" && env.read("notes.txt") == "notes\n"
            }),
        ),
        (
            "cd src/deep && rm -rf ../build",
            "RELOCATE_TREE",
            Box::new(gone("src/build")),
        ),
        (
            "cd here && rm -rf build",
            "RELOCATE_TREE",
            Box::new(gone("src/build")),
        ),
        (
            "cd src && mv notes.txt moved.txt",
            "SNAPSHOT_MOVE",
            Box::new(|env: &TestEnv| env.read("src/moved.txt") == "src notes\n"),
        ),
        (
            "cd src && git checkout -- main.rs",
            "SNAPSHOT_GIT_STASH",
            Box::new(|env: &TestEnv| env.read("src/main.rs") == "fn main() {}\n"),
        ),
        (
            "git -C src clean -fdx",
            "RELOCATE_VIA_CLEAN_ENUMERATE",
            Box::new(|env: &TestEnv| {
                !env.ws().join("src/notes.txt").exists() && env.ws().join("notes.txt").exists()
            }),
        ),
    ];
    for (line, code, ran) in rows {
        let env = with_nested_build();
        undone_after_run(&env, line, code, |env| run_shell(env, line), |env| ran(env));
    }
}

/// Lines whose `cd` may not have run (or ran elsewhere, or may fail) are asked about; the
/// question's checkpoint takes nothing away, so every file is where it was.
#[test]
fn a_cd_the_guard_cannot_follow_keeps_the_question() {
    for line in [
        "cd src || rm -rf build",
        "make || cd src && rm -rf build",
        "cd src & rm -rf build",
        "cd() { :; }; cd src && rm -rf build",
        "CDPATH=/tmp; cd src && rm -rf build",
        "cd src && (rm -rf build)",
        "cd missing && rm -rf build",
        "if true; then cd src; fi; rm -rf build",
        // From an outside review: each lost data or moved the wrong directory when followed.
        "rm -rf src; cd src; rm -rf build",
        "git clean -fdx; cd src; rm -rf build",
        "cd deep/.. && rm -rf build",
        "eval cd src; rm -rf build",
        "source /dev/stdin <<< 'cd src'; rm -rf build",
        "trap 'cd src' DEBUG; rm -rf build",
        "env cd src; rm -rf build",
        "coproc cd src; rm -rf build",
        "time cd src; rm -rf build",
        "cd -e src; rm -rf build",
        "cd $'src'; rm -rf build",
        "pushd src; rm -rf build",
        "alias cd=true\ncd src && rm -rf build",
    ] {
        let env = with_nested_build();
        std::os::unix::fs::symlink("src/deep", env.ws().join("deep")).unwrap();
        let (_, report) = enforce(&env, line);
        assert_eq!(report["code"], "COMPOUND_CWD_DELETE", "{line}: {report}");
        assert!(env.ws().join("src/build/gen.o").exists(), "{line}");
        assert!(env.ws().join("build/report.txt").exists(), "{line}");
    }
}

/// The directory change is judged where it leads: out of the workspace, into `.git`.
#[test]
fn a_followed_cd_out_of_the_workspace_is_judged_there() {
    let env = with_nested_build();
    let outside = env.fixture.outside.join("keep");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("data.txt"), "outside\n").unwrap();
    let line = format!("cd {} && rm -rf keep", env.fixture.outside.display());
    let (exit, report) = enforce(&env, &line);
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_OUT_OF_WORKSPACE", "{report}");
    let (exit, report) = enforce(&env, "cd .git && rm -rf hooks");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_PROTECTED_PATH", "{report}");
    // Another repository outside the workspace: asked, and nothing of it moves.
    crate::support::git_in(&env.fixture.outside, &["init", "-q"]);
    std::fs::write(env.fixture.outside.join("untracked.txt"), "mine\n").unwrap();
    let line = format!("git -C {} clean -fdx", env.fixture.outside.display());
    let (exit, report) = enforce(&env, &line);
    assert_eq!(exit, 3, "{report}");
    assert_eq!(report["code"], "COMPOUND_CWD_DELETE", "{report}");
    assert!(env.fixture.outside.join("untracked.txt").exists());
}

/// A `CDPATH` in the environment the line runs in may send `cd src` elsewhere: not followed.
#[test]
fn a_cdpath_in_the_environment_keeps_the_question() {
    let env = with_nested_build();
    let output = env.ag_with(
        "CDPATH",
        env.ws().join("build"),
        &[
            "check",
            "--enforce",
            "--json",
            "--",
            "cd src && rm -rf build",
        ],
    );
    let report = crate::support::json(&output);
    assert_eq!(report["code"], "COMPOUND_CWD_DELETE", "{report}");
    assert!(env.ws().join("src/build/gen.o").exists());
}

/// A line judged where its `cd` goes is also checkpointed: when the shell goes elsewhere
/// after all (a `cd` function an earlier line of the same shell defined, which the guard
/// cannot see), the delete it really makes is still undone, and so is the guard's move of
/// the directory it expected.
#[test]
fn a_followed_line_is_also_checkpointed_against_a_cd_the_guard_cannot_see() {
    let env = with_nested_build();
    let before = crate::support::snapshot(env.ws(), &["**"]);
    let (exit, report) = enforce(&env, "cd src && rm -rf build");
    assert_eq!(
        (exit, report["code"].as_str()),
        (0, Some("RELOCATE_TREE")),
        "{report}"
    );
    // The persistent shell had `cd() { :; }` from an earlier line: the rm runs at the root.
    run_shell(&env, "cd() { :; }\ncd src && rm -rf build");
    assert!(
        !env.ws().join("build").exists(),
        "the real line deleted the root's build"
    );
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(
        crate::support::snapshot(env.ws(), &["**"]),
        before,
        "undone"
    );
}

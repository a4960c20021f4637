//! Overwrites whose files are only known when they run, confined to the workspace (issue 38,
//! point 1): `check --enforce` checkpoints them (`SNAPSHOT_CHECKPOINT_WRITE`), the real
//! command rewrites the files, and one `undo` brings every byte back.

use crate::support::{TestEnv, run_shell, undone_after_run};

/// For each `(line, code, path)` row, in a fresh workspace made by [`with_sources`] and
/// `prepare`: `check --enforce` says `code`, the real line runs and `ran(env, path)` sees
/// that it did, and one `undo` brings every byte back.
fn each_undone(
    rows: &[(&str, &str, &str)],
    prepare: impl Fn(&TestEnv),
    ran: impl Fn(&TestEnv, &str) -> bool,
) {
    for (line, code, path) in rows {
        let env = with_sources();
        prepare(&env);
        undone_after_run(
            &env,
            line,
            code,
            |env| run_shell(env, line),
            |env| ran(env, path),
        );
    }
}

/// Each of `lines` is refused under `check --enforce` (`BLOCK`, any reason).
fn all_blocked(env: &TestEnv, lines: &[&str]) {
    for line in lines {
        let (exit, report) = crate::support::enforce(env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(report["decision"], "BLOCK", "{line}: {report}");
    }
}

/// Each of `lines` is refused under `check --enforce` as undeterminable.
fn all_refused(env: &TestEnv, lines: &[&str]) {
    for line in lines {
        let (exit, report) = crate::support::enforce(env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(
            report["code"], "BLOCK_UNDETERMINABLE_EFFECT",
            "{line}: {report}"
        );
    }
}

fn with_sources() -> TestEnv {
    let env = TestEnv::new();
    env.write("src/a.py", "name = 'base'\n");
    env.write("src/lib/b.py", "print('base')\n");
    env.write("templates/base/config.ini", "[new]\n");
    env.write("out/base/config.ini", "[old, hand-edited]\n");
    env
}

#[test]
fn rewrites_through_find_globs_and_tree_copies_are_undone() {
    let rows: [(&str, &str, &str); 8] = [
        (
            "find src -name '*.py' -exec sed -i 's/base/patched/' {} +",
            "src/lib/b.py",
            "print('patched')\n",
        ),
        (
            "find src -type f -exec perl -pi -e 's/base/patched/' {} \\;",
            "src/a.py",
            "name = 'patched'\n",
        ),
        (
            "sed -i 's/base/patched/' src/*.py",
            "src/a.py",
            "name = 'patched'\n",
        ),
        ("cp -r templates/base out", "out/base/config.ini", "[new]\n"),
        (
            "find src -name '*.py' -print0 | xargs -0 sed -i 's/base/patched/'",
            "src/a.py",
            "name = 'patched'\n",
        ),
        (
            "find -name '*.py' -not -path './src/lib/*' -exec sed -i 's/base/patched/' {} +",
            "src/a.py",
            "name = 'patched'\n",
        ),
        // One name per line into a plain xargs: no name below src holds a blank.
        (
            "find src -name '*.py' | xargs sed -i 's/base/patched/'",
            "src/lib/b.py",
            "print('patched')\n",
        ),
        ("find src -name '*.py' | xargs -n 1 rm -f", "src/a.py", ""),
    ];
    for (line, file, after) in rows {
        let env = with_sources();
        let deletes = line.contains("rm -f");
        let code = if deletes {
            "SNAPSHOT_CHECKPOINT_DELETE"
        } else {
            "SNAPSHOT_CHECKPOINT_WRITE"
        };
        undone_after_run(
            &env,
            line,
            code,
            |env| run_shell(env, line),
            |env| {
                if deletes {
                    !env.ws().join(file).exists()
                } else {
                    env.read(file) == after
                }
            },
        );
    }
}

/// From an outside review: a rewrite whose matches include a link (a symlink out of the
/// workspace, a hard link to a file outside it) would write where the link leads, which no
/// checkpoint keeps: refused, and the file outside is untouched.
#[test]
fn rewrites_that_could_go_through_a_link_are_refused() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside = env.fixture.outside.join("secret.txt");
    std::fs::write(&outside, "secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.ws().join("src/evil.log")).unwrap();
    std::fs::hard_link(&outside, env.ws().join("src/lib/shared.py")).unwrap();
    std::fs::create_dir_all(env.ws().join("out/src")).unwrap();
    std::os::unix::fs::symlink(&outside, env.ws().join("out/src/a.py")).unwrap();
    all_blocked(
        &env,
        &[
            "truncate -s 0 src/*.log",
            "echo gone > src/e*.log",
            "find src -name '*.log' -exec truncate -s 0 {} +",
            "find src/lib -name '*.py' -exec sed -i --follow-symlinks 's/a/b/' {} +",
            "truncate -s 0 src/lib/*.py",
            "cp -r src out",
        ],
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
}

/// A per-file command that writes a name made from the file found, beside it (`cp {}
/// {}.bk`, `mv {} {}.bak`, `gzip {}`): a checkpoint, and the real run is undone byte for
/// byte (issue 38, point 1).
#[test]
fn per_file_commands_writing_beside_the_match_are_undone() {
    let rows: [(&str, &str, &str); 7] = [
        (
            "find src -name '*.py' -exec cp {} {}.bk \\;",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "src/a.py.bk",
        ),
        (
            "find src -name '*.py' -exec mv {} {}.bak \\;",
            "SNAPSHOT_CHECKPOINT_DELETE",
            "src/lib/b.py.bak",
        ),
        (
            "find src -type f -name '*.py' -exec gzip {} \\;",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "src/a.py.gz",
        ),
        // The same through xargs, with and without -0.
        (
            "find src -name '*.py' -print0 | xargs -0 gzip",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "src/lib/b.py.gz",
        ),
        (
            "find src -name '*.py' | xargs -n 1 bzip2 -9",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "src/a.py.bz2",
        ),
        // One command per name, the replace string standing for it (`xargs -I`).
        (
            "find src -name '*.py' | xargs -I {} mv {} {}.bak",
            "SNAPSHOT_CHECKPOINT_DELETE",
            "src/lib/b.py.bak",
        ),
        (
            "find src -name '*.py' -print0 | xargs -0 -I FILE cp FILE FILE.orig",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "src/a.py.orig",
        ),
    ];
    each_undone(&rows, |_| {}, |env, made| env.ws().join(made).exists());
}

/// A name made from a match may already be a link out of the workspace (`a.py.bak` →
/// outside): `mv {} {}.bak` would move the file out through it. Refused, nothing moves.
#[test]
fn a_link_beside_the_matches_keeps_the_refusal() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    std::os::unix::fs::symlink(&env.fixture.outside, env.ws().join("src/a.py.bak")).unwrap();
    let (exit, report) =
        crate::support::enforce(&env, "find src -name '*.py' -exec mv {} {}.bak \\;");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(env.read("src/a.py"), "name = 'base'\n");
}

/// From a third outside review: a write after a command of the same line that can leave a
/// link (`ln -s OUTSIDE src/x && echo … > src/x`) may go through that link, out of the
/// workspace: asked or refused, and the file outside is untouched.
#[test]
fn a_write_after_the_line_makes_a_link_is_not_let_through() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside = env.fixture.outside.join("secret.txt");
    std::fs::write(&outside, "secret\n").unwrap();
    let o = outside.display();
    for (line, exit) in [
        (format!("ln -s {o} src/x && echo pwned > src/x"), 3),
        (format!("ln {o} src/h && truncate -s 0 src/h"), 3),
        (
            format!("ln -s {o} src/x.py && find src -name '*.py' -exec truncate -s 0 {{}} \\;"),
            2,
        ),
        (
            format!("ln -s {o} src/a.py.bak; find src -name '*.py' -exec cp {{}} {{}}.bak \\;"),
            2,
        ),
    ] {
        let (code, report) = crate::support::enforce(&env, &line);
        assert_eq!(code, exit, "{line}: {report}");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret\n");
    }
}

/// `find | xargs` without `-0` splits names on blanks: a directory named `x ` holding the
/// outside path's components makes `src/x /OUTSIDE/secret.py` print, which xargs hands on
/// as `src/x` and `/OUTSIDE/secret.py`. With such a name below the starting point the line
/// is refused; the real run shows the write it would have let out of the workspace.
#[test]
fn a_blank_in_a_name_below_a_find_keeps_xargs_refused() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside = env.fixture.outside.join("secret.py");
    std::fs::write(&outside, "base secret\n").unwrap();
    let relative = outside.strip_prefix("/").unwrap();
    let planted = env.ws().join("src/x ").join(relative);
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::fs::write(&planted, "base planted\n").unwrap();
    let line = "find src -name '*.py' | xargs sed -i 's/base/patched/'";
    let (exit, report) = crate::support::enforce(&env, line);
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_UNDETERMINABLE_EFFECT", "{report}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "base secret\n");
    // What the refusal prevented: the real line rewrites the file outside.
    run_shell(&env, line);
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "patched secret\n"
    );
}

/// From an outside review: a repository nested below a glob or `find` delete (`src/lib`
/// with its own `.git`) is something no checkpoint keeps, so `rm -rf src/*`, `find src
/// -delete` and `find src -print0 | xargs -0 rm -rf` are refused and its history stays; a
/// delete whose matches cannot reach the nested `.git` is still checkpointed, really run
/// and undone byte for byte.
#[test]
fn a_nested_repository_keeps_glob_and_find_deletes_from_a_checkpoint() {
    let env = with_sources();
    let lib = env.ws().join("src/lib");
    crate::support::git_in(&lib, &["init", "-q"]);
    crate::support::git_in(&lib, &["add", "-A"]);
    crate::support::git_in(&lib, &["commit", "-qm", "unpushed"]);
    for line in [
        "rm -rf src/*",
        "find src -delete",
        "find src -print0 | xargs -0 rm -rf",
        "find src -name .git -exec rm -rf {} +",
    ] {
        let (exit, report) = crate::support::enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert!(
            crate::support::git_in(&lib, &["log", "--oneline"]).contains("unpushed"),
            "{line}"
        );
    }
    let line = "find src -name '*.py' -not -path '*/lib/*' -delete";
    undone_after_run(
        &env,
        line,
        "SNAPSHOT_CHECKPOINT_DELETE",
        |env| run_shell(env, line),
        |env| !env.ws().join("src/a.py").exists(),
    );
    assert!(crate::support::git_in(&lib, &["log", "--oneline"]).contains("unpushed"));
}

/// A found name passed where a program reads code (`perl -pi -e {} {}`, `xargs -I {} sh -c
/// 'rm {}'`) is run as code, so a crafted file name does what it says: refused. The real
/// run shows a directory named `1;unlink(q{s});#` making Perl remove `s`.
#[test]
fn a_found_name_read_as_code_is_refused() {
    let env = with_sources();
    env.write("s", "kept\n");
    env.write("src/1;unlink(q{s});#/x.py", "x\n");
    all_refused(
        &env,
        &[
            "find src -name x.py -exec perl -pi -e {} {} \\;",
            "find src -name x.py | xargs -I {} sh -c 'rm {}'",
            "find src -name x.py | xargs -I {} sed -i -e {} {}",
        ],
    );
    assert_eq!(env.read("s"), "kept\n");
    // What the refusal prevented: the file's name, run as Perl, removes `s`.
    run_shell(&env, "find src -name x.py -exec perl -pi -e {} {} \\;");
    assert!(!env.ws().join("s").exists());
}

/// `sed -i` / `perl -i` with a `/` in the backup suffix keep each backup at a path of its
/// own: `-i'OUTSIDE/*'` renames the original over `OUTSIDE/<name>`, `-i'.git/*'` into
/// `.git`. Refused (second outside review); the real run shows the outside file replaced.
#[test]
fn a_backup_suffix_with_a_slash_is_refused() {
    let env = with_sources();
    let outside = env.fixture.outside.join("src");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("a.py"), "secret\n").unwrap();
    let suffix = format!("{}/*", env.fixture.outside.display());
    let lines = [
        format!("sed -i'{suffix}' s/base/x/ src/a.py"),
        format!("perl -pi'{suffix}' -e 1 src/a.py"),
        format!("find src -name '*.py' | xargs sed --in-place='{suffix}' s/base/x/"),
        "sed -i'.git/*' s/base/x/ src/a.py".to_owned(),
    ];
    for line in &lines {
        let (exit, report) = crate::support::enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("a.py")).unwrap(),
        "secret\n"
    );
    run_shell(&env, &lines[0]);
    assert_eq!(
        std::fs::read_to_string(outside.join("a.py")).unwrap(),
        "name = 'base'\n",
        "the backup replaced the outside file"
    );
}

/// `find . -maxdepth 1 -type f …` cannot match the workspace's `.git` (a directory) or
/// anything in it: checkpointed, the real delete and rewrite run, and one `undo` brings
/// every byte back, `.git` untouched.
#[test]
fn a_find_bounded_to_files_at_the_top_is_undone() {
    for line in [
        // (`.gitignore` is left alone: the undo of a line that removes it sets aside what
        // it ignored, which comes back with `redo`, so the tree would differ.)
        "find . -maxdepth 1 -type f ! -name .gitignore -exec rm -f {} \\;",
        "find . -maxdepth 1 -type f ! -name .gitignore -print0 | xargs -0 sed -i 's/o/0/g'",
    ] {
        let env = with_sources();
        env.write("notes.txt", "notes\n");
        env.write("todo.md", "todo\n");
        let head = crate::support::git_in(env.ws(), &["rev-parse", "HEAD"]);
        let deletes = line.contains("rm -f");
        undone_after_run(
            &env,
            line,
            if deletes {
                "SNAPSHOT_CHECKPOINT_DELETE"
            } else {
                "SNAPSHOT_CHECKPOINT_WRITE"
            },
            |env| run_shell(env, line),
            |env| {
                if deletes {
                    !env.ws().join("notes.txt").exists()
                } else {
                    env.read("notes.txt") == "n0tes\n"
                }
            },
        );
        assert_eq!(
            crate::support::git_in(env.ws(), &["rev-parse", "HEAD"]),
            head
        );
    }
}

/// A checkpoint lists a file over `[checkpoint] max_file_bytes` without its content, so a
/// glob or `find` delete (or rewrite) that could reach one cannot be undone by a checkpoint:
/// refused, and the file is still there. A line that cannot reach it is still checkpointed
/// and undone, and under a cap that holds it the same delete is undone byte for byte,
/// the large file with it.
#[test]
fn a_file_over_the_checkpoint_cap_keeps_glob_and_find_deletes_refused() {
    let env = with_sources();
    env.write(".agent-guard.toml", "[checkpoint]\nmax_file_bytes = 1000\n");
    env.trust_config();
    let big: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
    env.write("src/data/big.bin", &big);
    for line in [
        "rm -rf src/*",
        "rm -r src/d*",
        "find src -name '*.bin' -delete",
        "find src -type f -exec rm {} +",
        "find src/data/big.bin -delete",
        "sed -i 's/a/b/' src/data/*",
        "find src -name '*.bin' -print0 | xargs -0 rm -f",
    ] {
        all_blocked(&env, &[line]);
        assert_eq!(
            std::fs::read(env.ws().join("src/data/big.bin")).unwrap(),
            big
        );
    }
    let line = "find src -name '*.py' -delete";
    undone_after_run(
        &env,
        line,
        "SNAPSHOT_CHECKPOINT_DELETE",
        |env| run_shell(env, line),
        |env| !env.ws().join("src/a.py").exists(),
    );
    env.write(
        ".agent-guard.toml",
        "[checkpoint]\nmax_file_bytes = 10000\n",
    );
    env.trust_config();
    let line = "rm -rf src/*";
    undone_after_run(
        &env,
        line,
        "SNAPSHOT_CHECKPOINT_DELETE",
        |env| run_shell(env, line),
        |env| !env.ws().join("src/data/big.bin").exists(),
    );
    assert_eq!(
        std::fs::read(env.ws().join("src/data/big.bin")).unwrap(),
        big
    );
}

/// Per-file copies and moves into one fixed destination (`find … -exec cp {} out \;`, `-exec
/// mv`, `cp -t`, `xargs -0 -I{} cp`): every write lands in the destination,
/// so one inside the workspace is checkpointed; the real command overwrites what was there
/// (or moves the matches away) and one `undo` brings every byte back.
#[test]
fn copies_and_moves_into_a_fixed_destination_are_undone() {
    let rows: [(&str, &str, &str); 4] = [
        (
            "find src -name '*.py' -exec cp {} out \\;",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "out/a.py",
        ),
        (
            "find src -type f -name '*.py' -exec cp -t out {} +",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "out/b.py",
        ),
        (
            "find src -name '*.py' -print0 | xargs -0 -I{} cp {} out/",
            "SNAPSHOT_CHECKPOINT_WRITE",
            "out/a.py",
        ),
        (
            "find src -name '*.py' -type f -exec mv {} out \\;",
            "SNAPSHOT_CHECKPOINT_DELETE",
            "src/a.py",
        ),
    ];
    let prepare = |env: &TestEnv| {
        env.write("out/a.py", "hand-edited, uncommitted\n");
        env.write("out/b.py", "also hand-edited\n");
        env.write("src/a.py", "name = 'base'\n");
    };
    // Each changed file held other bytes before the run (the sources' are these).
    let before = |path: &str| match path {
        "out/a.py" => "hand-edited, uncommitted\n",
        "out/b.py" => "also hand-edited\n",
        _ => "name = 'base'\n",
    };
    each_undone(&rows, prepare, |env, changed| {
        std::fs::read_to_string(env.ws().join(changed))
            .ok()
            .as_deref()
            != Some(before(changed))
    });
}

/// A fixed destination that leads out of the workspace (a link to a directory outside, a
/// hard link to a file outside) is refused; the real run shows the write outside it
/// prevents.
#[test]
fn a_fixed_destination_that_leads_outside_is_refused() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside_dir = env.fixture.outside.join("dir");
    std::fs::create_dir_all(&outside_dir).unwrap();
    std::os::unix::fs::symlink(&outside_dir, env.ws().join("out-link")).unwrap();
    let outside_file = env.fixture.outside.join("shared.txt");
    std::fs::write(&outside_file, "outside\n").unwrap();
    std::fs::hard_link(&outside_file, env.ws().join("shared.txt")).unwrap();
    all_refused(
        &env,
        &[
            "find src -name '*.py' -exec cp {} out-link/ \\;",
            "find src -name a.py -exec cp {} shared.txt \\;",
            "find shared.txt -exec sed -i 's/outside/patched/' {} +",
        ],
    );
    assert_eq!(std::fs::read_to_string(&outside_file).unwrap(), "outside\n");
    // What the refusals prevented: the real lines write outside the workspace.
    run_shell(&env, "find src -name a.py -exec cp {} shared.txt \\;");
    assert_eq!(
        std::fs::read_to_string(&outside_file).unwrap(),
        "name = 'base'\n"
    );
    run_shell(&env, "find src -name '*.py' -exec cp {} out-link/ \\;");
    assert!(outside_dir.join("a.py").exists());
}

/// From an outside review: one copy per match that keeps links (`cp -P`) makes `dest/evil`
/// a link out of the workspace, and the next copy writes through it. Refused; the real
/// line shows the write outside it prevents.
#[test]
fn a_copy_that_keeps_links_into_a_fixed_destination_is_refused() {
    let env = with_sources();
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let target = env.fixture.outside.join("keep.txt");
    std::fs::write(&target, "outside\n").unwrap();
    let first = env.fixture.root().join("a");
    let second = env.fixture.root().join("b");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    std::os::unix::fs::symlink(&target, first.join("evil")).unwrap();
    std::fs::write(second.join("evil"), "PWNED\n").unwrap();
    std::fs::create_dir_all(env.ws().join("dest")).unwrap();
    let line = format!(
        "find {} {} -name evil -exec cp -P {{}} dest \\;",
        first.display(),
        second.display()
    );
    let (exit, report) = crate::support::enforce(&env, &line);
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_UNDETERMINABLE_EFFECT", "{report}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "outside\n");
    run_shell(&env, &line);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "PWNED\n");
}

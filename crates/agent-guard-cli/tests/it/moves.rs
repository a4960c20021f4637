//! Issue 34, points 1 and 2 end to end: a line that moves, renames or replaces by name runs
//! for real after `check --enforce` (in the test's temporary directories), finds every file
//! where it was, and one `agent-guard undo` gives back the tree byte for byte — every source
//! at its name, every destination as it was (its old file, or its absence) — inside the
//! workspace and in the temporary places outside it that the line moved things to.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

use crate::support::{Entry, TestEnv, enforce, enforce_in, git, json, snapshot};

type Tree = std::collections::BTreeMap<Vec<u8>, Entry>;

/// A workspace with files, a directory tree, an executable, a symlink and an empty
/// directory, plus an `outside/` and a fake home next to it.
fn prepare() -> TestEnv {
    let env = TestEnv::new();
    let ws = env.ws();
    for (path, body) in [
        ("a.txt", "alpha\n"),
        ("b.txt", "bravo\n"),
        ("c.txt", "charlie\n"),
        ("cfg.json", "{\"b\": 2, \"a\": 1}\n"),
        ("lines.txt", "3\n1\n2\n"),
        ("dir/one.txt", "one\n"),
        ("dir/sub/two.txt", "two\n"),
        ("other/keep.txt", "keep\n"),
        ("tool.sh", "#!/bin/sh\necho tool\n"),
    ] {
        let file = ws.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, body).unwrap();
    }
    std::fs::set_permissions(
        ws.join("tool.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o750),
    )
    .unwrap();
    std::fs::create_dir(ws.join("empty")).unwrap();
    std::os::unix::fs::symlink("a.txt", ws.join("link")).unwrap();
    std::fs::write(env.fixture.outside.join("there.txt"), "outside\n").unwrap();
    env
}

/// Everything the line can touch: the workspace, `outside/` and the fake home (but the
/// guard's own per-user state under `~/.local`).
fn world(env: &TestEnv) -> World {
    let mut home = snapshot(&env.fixture.home, &["*"]);
    home.retain(|key, _| !key.starts_with(b".local"));
    World(
        snapshot(env.ws(), &["*"]),
        snapshot(&env.fixture.outside, &["*"]),
        home,
    )
}

/// The three trees, compared entry by entry; a difference lists only what differs.
#[derive(PartialEq, Eq)]
struct World(Tree, Tree, Tree);

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, tree) in [("ws", &self.0), ("outside", &self.1), ("home", &self.2)] {
            for (key, entry) in tree {
                writeln!(
                    f,
                    "{name}/{} {} {:o} {:?}",
                    String::from_utf8_lossy(key),
                    entry.kind,
                    entry.mode,
                    String::from_utf8_lossy(&entry.data)
                )?;
            }
        }
        Ok(())
    }
}

/// Asserts two worlds are equal, naming only the entries that differ.
fn same(left: &World, right: &World, context: &str) {
    if left == right {
        return;
    }
    let (l, r) = (format!("{left:?}"), format!("{right:?}"));
    let l: std::collections::BTreeSet<&str> = l.lines().collect();
    let r: std::collections::BTreeSet<&str> = r.lines().collect();
    let only_left: Vec<&&str> = l.difference(&r).collect();
    let only_right: Vec<&&str> = r.difference(&l).collect();
    panic!("{context}\n  now: {only_left:#?}\n  was: {only_right:#?}");
}

/// Runs `sh -c line` in the workspace and returns its exit status.
fn run(env: &TestEnv, line: &str) -> i32 {
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(env.ws())
        .env("HOME", &env.fixture.home)
        .env("OUT", &env.fixture.outside)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .code()
        .unwrap_or(-1)
}

/// `check --enforce` (with `dialect`), then `run` for real, then one `undo`: the world is
/// back byte for byte. Returns the report of the check.
fn undone_with(env: &TestEnv, dialect: &str, line: &str, run_line: &str) -> serde_json::Value {
    let before = world(env);
    let (code, report) = enforce_in(env, dialect, line);
    assert_eq!(code, 0, "{line}: {report}");
    assert_eq!(report["decision"], "ALLOW", "{line}: {report}");
    same(
        &world(env),
        &before,
        &format!("{line}: the compensation changed nothing the command sees"),
    );
    assert_eq!(run(env, run_line), 0, "{run_line} ran");
    assert_ne!(world(env), before, "{run_line} changed nothing");
    let undo = env.ag(&["undo", "--json"]);
    assert!(
        undo.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&undo.stdout)
    );
    same(&world(env), &before, &format!("{line}: after undo"));
    report
}

fn undone(env: &TestEnv, line: &str) -> serde_json::Value {
    let line = line.replace("$OUT", &env.fixture.outside.to_string_lossy());
    undone_with(env, "posix", &line, &line)
}

#[test]
fn every_form_of_mv_is_undone_as_a_move() {
    for line in [
        "mv a.txt d.txt",
        "mv a.txt b.txt",
        "mv a.txt b.txt c.txt dir",
        "mv -t dir a.txt b.txt",
        "mv -T dir other2",
        "mv dir other",
        "mv dir/one.txt .",
        "mv a.txt dir/sub/",
        "mv dir/sub/two.txt dir/sub/one.txt && mv dir/one.txt dir/sub/",
        "mv -f b.txt a.txt",
        "mv -b a.txt b.txt",
        "mv --backup=numbered a.txt b.txt",
        "mv -n a.txt b.txt && mv a.txt new.txt",
        "mv -T dir empty",
        "mv link link2",
        "mv tool.sh bin.sh",
        "mv a.txt t && mv b.txt a.txt && mv t b.txt",
        "mv a.txt b.txt && mv b.txt c.txt",
        "mkdir d2 && mv a.txt d2",
        "mv dir/sub top && mv top dir/sub2",
        "mv dir y && mv y/one.txt z.txt",
        "mv a.txt dir/sub/ && mv dir top",
        "mv dir y && mv y/sub y2 && mv y2/two.txt two.txt",
        "mv a.txt ../a.txt",
        "mv dir ../moved-dir",
        "mv b.txt ~/",
        "mv c.txt $OUT/",
        "mv dir $OUT/dir",
    ] {
        let report = undone(&prepare(), line);
        assert_eq!(report["code"], "SNAPSHOT_MOVE", "{line}: {report}");
    }
}

/// Commits everything in the workspace; returns the index (`ls-files -s`) and `git status`
/// after the commit.
fn commit_all(env: &TestEnv) -> (String, String) {
    git(env, &["add", "-A"]);
    git(env, &["commit", "-qm", "files"]);
    (
        git(env, &["ls-files", "-s"]),
        git(env, &["status", "--porcelain"]),
    )
}

#[test]
fn git_mv_is_undone_in_the_work_tree_and_in_the_index() {
    for line in [
        "git mv a.txt renamed.txt",
        "git mv -f a.txt b.txt",
        "git mv dir moved",
        "git mv a.txt c.txt other",
        "git mv a.txt dir/sub/ && git mv dir top",
    ] {
        let env = prepare();
        let (index, status) = commit_all(&env);
        let report = undone(&env, line);
        assert_eq!(report["code"], "SNAPSHOT_MOVE", "{line}: {report}");
        assert_eq!(git(&env, &["ls-files", "-s"]), index, "{line}: the index");
        assert_eq!(git(&env, &["status", "--porcelain"]), status, "{line}");
    }
}

#[test]
fn mv_onto_itself_is_refused_by_mv_and_changes_nothing() {
    // `mv a.txt .` fails ("are the same file"): the guard must not have taken a.txt away.
    let env = prepare();
    let before = world(&env);
    let (exit, report) = enforce(&env, "mv a.txt .");
    assert_eq!(exit, 0, "{report}");
    assert_ne!(run(&env, "mv a.txt ."), 0);
    same(&world(&env), &before, "mv failed");
    env.ag_ok(&["undo"]);
    same(&world(&env), &before, "after undo");
}

#[test]
fn lines_that_read_the_file_they_replace_still_read_it() {
    // Point 1: preservation never takes the file away before the command runs.
    for line in [
        "sort lines.txt > lines.txt.tmp && mv lines.txt.tmp lines.txt",
        "tr a-z A-Z < cfg.json > cfg.new && mv cfg.new cfg.json",
        "sed 's/1/one/' lines.txt > x && mv -f x lines.txt",
        "cp a.txt a.bak && mv a.bak b.txt",
        "tr a-z A-Z < a.txt > b.txt",
        "ln -f a.txt b.txt",
        "install -m 644 c.txt b.txt",
        "cp --remove-destination a.txt b.txt",
    ] {
        let env = prepare();
        let before = world(&env);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        same(
            &world(&env),
            &before,
            &format!("{line}: nothing taken away"),
        );
        assert_eq!(run(&env, line), 0, "{line}: the command found its input");
        let undo = env.ag(&["undo"]);
        assert!(undo.status.success(), "{line}: {undo:?}");
        same(
            &world(&env),
            &before,
            &format!("{line}: undone byte for byte"),
        );
    }
}

#[test]
fn a_file_replaced_by_name_is_kept_by_a_hard_link() {
    let env = prepare();
    let ino = std::fs::metadata(env.ws().join("b.txt")).unwrap().ino();
    let (_, report) = enforce(&env, "mv a.txt b.txt");
    let txid = report["compensations"][0]["txid"].as_str().unwrap();
    let show = env.ag(&["show", "--json", txid]);
    let shown = json(&show);
    let kept = shown["items"][0]["trash"].as_str().unwrap();
    assert_eq!(std::fs::metadata(kept).unwrap().ino(), ino, "{shown}");
}

#[test]
fn moves_in_powershell_and_cmd_are_undone_like_their_posix_twins() {
    for (dialect, line, same) in [
        (
            "powershell",
            "Move-Item -Path a.txt -Destination dir",
            "mv a.txt dir",
        ),
        (
            "powershell",
            "Move-Item a.txt b.txt -Force",
            "mv -f a.txt b.txt",
        ),
        ("powershell", "mi dir other", "mv dir other"),
        (
            "powershell",
            "Rename-Item -Path dir\\one.txt -NewName uno.txt",
            "mv dir/one.txt dir/uno.txt",
        ),
        ("powershell", "Rename-Item a.txt z.txt", "mv a.txt z.txt"),
        ("cmd", "move a.txt dir", "mv a.txt dir"),
        ("cmd", "move /y a.txt b.txt", "mv -f a.txt b.txt"),
        (
            "cmd",
            "ren dir\\one.txt uno.txt",
            "mv dir/one.txt dir/uno.txt",
        ),
        ("cmd", "rename a.txt z.txt", "mv a.txt z.txt"),
    ] {
        let env = prepare();
        let report = undone_with(&env, dialect, line, same);
        assert_eq!(
            report["code"], "SNAPSHOT_MOVE",
            "[{dialect}] {line}: {report}"
        );
    }
}

#[test]
fn a_move_of_git_metadata_is_refused_in_every_dialect() {
    for (dialect, line) in [
        ("posix", "mv .git g"),
        ("posix", "mv a.txt .git/x"),
        ("powershell", "Move-Item .git g"),
        ("powershell", "Rename-Item .GIT g"),
        ("cmd", "move .git g"),
        ("cmd", "ren .git g"),
    ] {
        let env = prepare();
        let (_, report) = enforce_in(&env, dialect, line);
        assert_eq!(report["decision"], "BLOCK", "[{dialect}] {line}: {report}");
        assert!(Path::new(&env.ws().join(".git/HEAD")).exists());
    }
}

/// A workspace with `f`, `h`, `g`, `m.py` committed-like files and `setup` run first.
fn review_world(setup: &str) -> TestEnv {
    let env = TestEnv::new();
    for (path, body) in [
        ("f", "ORIGINAL-F\n"),
        ("h", "hh\n"),
        ("g", "gg\n"),
        ("m.py", "import x\n"),
    ] {
        env.write(path, body);
    }
    if !setup.is_empty() {
        assert_eq!(run(&env, setup), 0, "setup `{setup}`");
    }
    env
}

/// Lines an outside review found to lose data or to be undone wrongly (issue 34); each is a
/// regression case now: `check --enforce`, the line for real, one `undo`, byte for byte.
#[test]
fn lines_an_outside_review_broke_are_undone_byte_for_byte() {
    for (setup, line) in [
        // A backup name is where the old file goes: a move of it, which the line may then
        // overwrite.
        ("", "mv -b h f && echo junk > f~"),
        ("", "mv -b -S .old h f && echo junk > f.old"),
        ("", "mv --backup=numbered h f && echo junk > f.~1~"),
        ("", "cp -b h f && echo junk > f~"),
        ("", "install -b h f && echo junk > f~"),
        ("", "ln -f -b h f && echo junk > f~"),
        ("", "cp -b --remove-destination h f && echo junk > f~"),
        ("mkdir -p d e/d && echo q > e/d/q", "mv -b -T d e/d"),
        // One command, one undo.
        ("", "echo a > f && echo b > h"),
        ("", "mv h f && echo x > g"),
        ("", "sed -i s/x/y/ m.py && sed -i s/import/from/ m.py"),
        // A source whose inode the line changes before or after moving it.
        ("", "sed -i s/O/0/ f && mv f g"),
        ("", "mv f g && sed -i s/O/0/ g h"),
        // Two names of one file, moved apart.
        ("ln f f2", "mv f x && mv f2 y"),
    ] {
        let env = review_world(setup);
        undone_with(&env, "posix", line, line);
    }
}

#[test]
fn a_second_name_the_line_makes_never_reaches_the_kept_version() {
    // No hard link may keep the version when the line can give the file another name and
    // write through it. (The name the line made stays: undo reverses the move, not `ln`.)
    for (line, made) in [
        ("ln f f2 && mv h f && echo junk > f2", "f2"),
        ("cp -l f f2 && mv h f && echo junk > f2", "f2"),
        ("ln f bak && mv h f && truncate -s0 bak", "bak"),
    ] {
        let env = review_world("");
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(run(&env, line), 0, "{line}");
        let undo = env.ag(&["undo"]);
        assert!(undo.status.success(), "{line}: {undo:?}");
        assert_eq!(
            std::fs::read(env.ws().join("f")).unwrap(),
            b"ORIGINAL-F\n",
            "{line}"
        );
        assert_eq!(
            std::fs::read(env.ws().join("h")).unwrap(),
            b"hh\n",
            "{line}"
        );
        assert!(env.ws().join(made).exists(), "{line}: what ln made is ln's");
    }
}

#[test]
fn ln_f_over_a_file_with_two_names_never_writes_into_the_new_one() {
    let env = review_world("ln f f2 && chmod 600 f");
    undone_with(&env, "posix", "ln -f h f", "ln -f h f");
    assert_eq!(std::fs::read(env.ws().join("h")).unwrap(), b"hh\n");
    let f = std::fs::metadata(env.ws().join("f")).unwrap();
    let h = std::fs::metadata(env.ws().join("h")).unwrap();
    assert_ne!(f.ino(), h.ino(), "f and h are two files again");
    assert_eq!(h.nlink(), 1, "no store keeps a name of h");
}

#[test]
fn a_link_kept_for_a_name_the_command_did_not_replace_is_let_go() {
    // `mv -n h f` replaces nothing: the version of f kept by a hard link must not leave f
    // with two names (`gzip f` refuses such a file) once the next command is checked.
    let env = review_world("");
    let (exit, report) = enforce(&env, "mv -n h f");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(run(&env, "mv -n h f"), 0);
    let (exit, report) = enforce(&env, "gzip f");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(
        std::fs::metadata(env.ws().join("f")).unwrap().nlink(),
        1,
        "settled before gzip runs"
    );
    assert_eq!(run(&env, "gzip f"), 0, "gzip sees one name");
}

#[test]
fn a_git_mv_changed_afterwards_still_puts_the_index_back() {
    let env = review_world("");
    let (index, status) = commit_all(&env);
    undone_with(
        &env,
        "posix",
        "git mv m.py c.py && echo more >> c.py",
        "git mv m.py c.py && echo more >> c.py",
    );
    assert_eq!(git(&env, &["ls-files", "-s"]), index);
    assert_eq!(git(&env, &["status", "--porcelain"]), status);
}

//! Definitions run nothing (issue 38, point 2): a line that only defines a function or an
//! alias is allowed and moves nothing aside; a later line of the same session (a shell that
//! keeps its definitions) that calls it is judged by its body. Run in one real `bash` that
//! reads the lines the guard lets through, as a harness's persistent shell does.

use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::support::{TestEnv, snapshot};

/// `check --enforce` in session `session`: (exit code, report).
fn enforce_in(env: &TestEnv, session: &str, line: &str) -> (i32, serde_json::Value) {
    let output = env.ag_with(
        "AGENT_GUARD_SESSION",
        session,
        &["check", "--enforce", "--json", "--", line],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code().unwrap_or(-1), report)
}

/// One real `bash` in `dir` that reads the lines written to its stdin, as a harness's
/// persistent shell does.
fn persistent_bash(dir: &std::path::Path) -> (std::process::Child, std::process::ChildStdin) {
    let mut shell = Command::new("bash")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = shell.stdin.take().unwrap();
    (shell, stdin)
}

#[test]
fn a_definition_runs_nothing_and_its_later_call_is_judged_by_its_body() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    env.write("src/lib/b.py", "print('b')\n");
    std::fs::create_dir_all(&env.fixture.outside).unwrap();
    let outside = env.fixture.outside.join("data");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "outside\n").unwrap();
    let before = snapshot(env.ws(), &["**"]);
    let (mut shell, mut stdin) = persistent_bash(env.ws());
    let mut run = |line: &str| writeln!(stdin, "{line}").unwrap();
    // A body that cannot be made undoable is judged at its definition: a later call could be
    // one the guard does not see.
    let define_out = format!("wipe_data() {{ rm -rf {}; }}", outside.display());
    let (exit, report) = enforce_in(&env, "a", &define_out);
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_OUT_OF_WORKSPACE", "{report}");
    // One that can is allowed, and nothing is moved aside for it.
    let (exit, report) = enforce_in(&env, "a", "tidy() { rm -rf src; }");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
    run("tidy() { rm -rf src; }");
    assert_eq!(
        snapshot(env.ws(), &["**"]),
        before,
        "a definition moves nothing"
    );
    // Its call, in any spelling, is judged by its body; in another session (another shell)
    // the name is an unknown program.
    for call in ["tidy --version", "ti\"dy\"", "x=1; tidy"] {
        let (exit, report) = enforce_in(&env, "a", call);
        assert_eq!(exit, 0, "{call}: {report}");
        assert_eq!(report["code"], "RELOCATE_TREE", "{call}: {report}");
        env.ag_ok(&["undo", "--json"]);
    }
    let (_, other) = enforce_in(&env, "b", "tidy");
    assert_eq!(other["code"], "SNAPSHOT_CHECKPOINT", "{other}");
    // A call the guard cannot see (arithmetic on a variable that names it, built at run
    // time): every line of the session takes a checkpoint, so the real run is undone.
    for line in ["p=a[\\$\\(ti${y}dy\\)]", "[[ $p -eq 0 ]]"] {
        let (exit, report) = enforce_in(&env, "a", line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{line}: {report}");
        run(line);
    }
    drop(stdin);
    assert!(shell.wait().unwrap().success());
    assert!(!env.ws().join("src").exists(), "the unseen call ran");
    assert!(outside.join("keep.txt").exists());
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(env.ws(), &["**"]), before, "undone");
    // An advisory check remembers nothing (it writes nothing).
    let advisory = env.ag_with(
        "AGENT_GUARD_SESSION",
        "c",
        &["check", "--json", "--", "tidy() { rm -rf src; }"],
    );
    assert!(advisory.status.success(), "{advisory:?}");
    let (_, report) = enforce_in(&env, "c", "tidy");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
}

/// From an outside review: a `DEBUG` trap set by one line runs a function a later line
/// defines before every command after it; the definition is judged as called.
#[test]
fn a_function_a_kept_trap_names_is_judged_where_it_is_defined() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    let (exit, report) = enforce_in(&env, "t", "trap tidy DEBUG");
    assert_eq!(exit, 0, "{report}");
    let (_, report) = enforce_in(&env, "t", "tidy() { rm -rf src; trap - DEBUG; }");
    assert_ne!(report["code"], "ALLOW_NOOP", "{report}");
    let judged = report["ops"]
        .as_array()
        .unwrap()
        .iter()
        .any(|op| op["kind"] == "fs-delete" && op["targets"][0] == "src");
    assert!(judged, "the body is judged: {report}");
    // Another session never set the trap: the definition alone runs nothing.
    let (exit, report) = enforce_in(&env, "u", "tidy() { rm -rf src; trap - DEBUG; }");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
}

/// The guard remembers a definition itself: after a program it cannot see into (whose
/// changes to the guard's own files it checks on the next line), that write is no
/// tampering.
#[test]
fn remembering_after_an_unseen_program_is_no_tampering() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    env.write("tools/build.sh", "true\n");
    let (exit, report) = enforce_in(&env, "v", "sh tools/build.sh");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    let (exit, report) = enforce_in(&env, "v", "tidy() { rm -rf src; }");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
    let (exit, report) = enforce_in(&env, "v", "git status");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["mode"], "NORMAL", "{report}");
}

/// The remembered definitions are sealed like a guard file: a program the guard cannot see
/// into that empties the session's file (so that a later call of a helper that leaves the
/// workspace would be judged in it) is found on the next line, the file is put back, and the
/// line is refused. The guard's own writes while a seal is pending are no tampering.
#[test]
fn an_unseen_program_that_empties_the_remembered_definitions_is_found() {
    let env = TestEnv::new();
    env.write("build/out.o", "o\n");
    std::fs::create_dir_all(env.fixture.outside.join("build")).unwrap();
    let outside = env.fixture.outside.display().to_string();
    let kept = env
        .fixture
        .home
        .join(".local/state/agent-guard/definitions/w.json");
    let (exit, report) = enforce_in(&env, "w", &format!("go_out() {{ cd {outside}; }}"));
    assert_eq!(exit, 0, "{report}");
    let remembered = std::fs::read(&kept).expect("the definition is remembered");
    // A script the line does not show, which empties the file, run for real.
    env.write(
        "tools/tidy.py",
        format!("open({:?}, 'w').close()\n", kept.display().to_string()),
    );
    let (exit, report) = enforce_in(&env, "w", "python3 tools/tidy.py");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    let ran = Command::new("python3")
        .arg("tools/tidy.py")
        .current_dir(env.ws())
        .status()
        .unwrap();
    assert!(ran.success());
    assert_eq!(std::fs::read(&kept).unwrap(), b"", "the program emptied it");
    let (exit, report) = enforce_in(&env, "w", "go_out; rm -rf build");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{report}");
    assert_eq!(report["mode"], "RESTRICTED", "{report}");
    assert_eq!(std::fs::read(&kept).unwrap(), remembered, "put back");
    assert!(env.fixture.outside.join("build").exists());
    // Another session: the guard adds a definition while a seal is pending, then a line
    // with something to judge finds no tampering.
    env.write("tools/noop.py", "pass\n");
    let (exit, report) = enforce_in(&env, "z", "python3 tools/noop.py");
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "z", &format!("go_out() {{ cd {outside}; }}"));
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "z", "python3 tools/noop.py");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    assert_eq!(report["mode"], "NORMAL", "{report}");
}

/// From an outside review: the next line may be judged in another workspace (a nested
/// repository), whose own seal is not the one the program's line took; the session's
/// definitions are checked against every seal of the session. Deleting the file is found
/// like emptying it.
#[test]
fn an_emptied_definitions_file_is_found_from_a_nested_repository_too() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.fixture.outside.join("build")).unwrap();
    env.write("sub/build/out.o", "o\n");
    let git = std::process::Command::new("git")
        .args(["init", "-q", "sub"])
        .current_dir(env.ws())
        .status()
        .unwrap();
    assert!(git.success());
    let outside = env.fixture.outside.display().to_string();
    let kept = env
        .fixture
        .home
        .join(".local/state/agent-guard/definitions/n.json");
    let (exit, report) = enforce_in(&env, "n", &format!("go_out() {{ cd {outside}; }}"));
    assert_eq!(exit, 0, "{report}");
    let remembered = std::fs::read(&kept).unwrap();
    env.write(
        "tools/tidy.py",
        format!("import os\nos.remove({:?})\n", kept.display().to_string()),
    );
    let (exit, report) = enforce_in(&env, "n", "python3 tools/tidy.py");
    assert_eq!(exit, 0, "{report}");
    let ran = Command::new("python3")
        .arg("tools/tidy.py")
        .current_dir(env.ws())
        .status()
        .unwrap();
    assert!(ran.success() && !kept.exists());
    // The next line, judged in `sub/`.
    let output = env
        .cmd("agent-guard")
        .env("AGENT_GUARD_SESSION", "n")
        .current_dir(env.ws().join("sub"))
        .args(["check", "--enforce", "--json", "--", "go_out; rm -rf build"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(2), "{report}");
    assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{report}");
    assert_eq!(std::fs::read(&kept).unwrap(), remembered, "put back");
    assert!(env.fixture.outside.join("build").exists());
}

/// From an outside review: a definition judged where it stands because its name is a known
/// program (`cat() { rm -rf build; }`) lasts in the shell like any other; a later `cat`
/// runs its body, so it is remembered, and the later line is judged by it (run for real in
/// one persistent shell; what it deletes is kept).
#[test]
fn a_definition_named_like_a_known_program_is_remembered() {
    let env = TestEnv::new();
    env.write("dist/app.js", "old\n");
    let (mut shell, mut stdin) = persistent_bash(env.ws());
    let lines = [
        "cat() { rm -rf dist; }",
        "mkdir -p dist && echo fresh > dist/app.js",
        "cat dist/app.js",
    ];
    let mut codes = Vec::new();
    for line in lines {
        let (exit, report) = enforce_in(&env, "k", line);
        assert_eq!(exit, 0, "{line}: {report}");
        codes.push(report["code"].as_str().unwrap_or_default().to_owned());
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    assert!(shell.wait().unwrap().success());
    assert_ne!(
        codes[2], "ALLOW_NOOP",
        "the call is judged by its body: {codes:?}"
    );
    assert!(!env.ws().join("dist").exists(), "the body ran");
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(
        env.read("dist/app.js"),
        "fresh\n",
        "what the call deleted is back"
    );
}

/// From an outside review: a kept `EXIT` trap (or a function `PS4` calls under `set -x`)
/// runs wherever the shell is when it fires. A line that moves the shell where what it does
/// could not be undone (out of the workspace) is not let through, and no line there is.
#[test]
fn a_kept_trap_cannot_be_carried_out_of_the_workspace() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    let home = env.fixture.home.clone();
    std::fs::create_dir_all(home.join(".config")).unwrap();
    let (exit, report) = enforce_in(&env, "x", "trap 'rm -rf .config' EXIT");
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "x", "ls");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    let (exit, report) = enforce_in(&env, "x", "cd ~");
    assert_ne!(exit, 0, "{report}");
    // A harmless trap is not remembered: later lines are judged as they are.
    let (_, report) = enforce_in(&env, "y", "trap 'echo done' EXIT");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
    let (_, report) = enforce_in(&env, "y", "ls");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
}

/// From an outside review: a session with a destructive helper stays usable. Its body is
/// judged on its own beside each later line, and around the line only when the line moves
/// the shell: ordinary lines are let through (with a checkpoint).
#[test]
fn an_ordinary_session_with_a_helper_is_not_refused() {
    let env = TestEnv::new();
    env.write("src/a.py", "print('a')\n");
    env.write("build/out.o", "o\n");
    let (exit, report) = enforce_in(&env, "h", "clean() { rm -rf build; }");
    assert_eq!(exit, 0, "{report}");
    for line in [
        "cd src",
        "cd src && ls",
        "echo hi > notes.txt",
        "mkdir -p out && cp src/a.py out/",
        "find . -name '*.pyc' -delete",
        "ls",
    ] {
        let (exit, report) = enforce_in(&env, "h", line);
        assert_eq!(exit, 0, "{line}: {report}");
    }
}

/// From an outside review: a helper that only changes directory (or a `DEBUG` trap that
/// does) moves what later commands act on; a delete after its call is judged there.
#[test]
fn a_helper_that_changes_directory_moves_what_follows_it() {
    let env = TestEnv::new();
    env.write("build/out.o", "o\n");
    std::fs::create_dir_all(env.fixture.outside.join("build")).unwrap();
    let outside = env.fixture.outside.display().to_string();
    let (exit, report) = enforce_in(&env, "c", &format!("go_out() {{ cd {outside}; }}"));
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "c", "go_out; rm -rf build");
    assert_ne!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "d", &format!("trap 'cd {outside}' DEBUG"));
    assert_eq!(exit, 0, "{report}");
    let (exit, report) = enforce_in(&env, "d", "rm -rf build");
    assert_ne!(exit, 0, "{report}");
    // A sixth review: an alias, a disguised `cd`, a function named like a known program, a
    // `DEBUG` trap with a disguised `cd`, and a line that leaves and comes back.
    for (session, definition, call) in [
        (
            "e",
            format!("alias go_out='cd {outside}'"),
            "go_out; rm -rf build",
        ),
        (
            "f",
            format!("go_out() {{ \"c\"d {outside}; }}"),
            "go_out; rm -rf build",
        ),
        (
            "g",
            format!("ls() {{ builtin cd {outside}; }}"),
            "ls; rm -rf build",
        ),
        (
            "h",
            format!("trap '\"c\"d {outside}' DEBUG"),
            "rm -rf build",
        ),
        (
            "i",
            "tidy() { rm -rf build; }".to_owned(),
            &*format!("cd {outside} && ls; cd -"),
        ),
    ] {
        let (exit, report) = enforce_in(&env, session, &definition);
        assert_eq!(exit, 0, "{definition}: {report}");
        let (exit, report) = enforce_in(&env, session, call);
        assert_ne!(exit, 0, "{definition} then {call}: {report}");
    }
    assert!(env.fixture.outside.join("build").exists());
}

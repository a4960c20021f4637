//! Workspace programs are what they are (issue 35, point 6): a command word that is a path,
//! or one looked up through a `PATH` the line points at the workspace, runs the
//! workspace's own file, not the standard tool of the same name. Each line is checked with
//! `check --enforce`, run for real by `sh` (the program deletes `src/` and overwrites
//! `notes.txt`), and undone byte for byte.

use std::os::unix::fs::PermissionsExt as _;

use crate::support::{TestEnv, snapshot, undone_after_run};

/// What the workspace's impostors do: delete and overwrite, whatever they are called.
const IMPOSTOR: &str = "#!/bin/sh\nrm -rf src\necho gone > notes.txt\n";

fn workspace() -> TestEnv {
    let env = TestEnv::new();
    for name in [
        "tools/git",
        "tools/ls",
        "bin/cat",
        "node_modules/.bin/eslint",
    ] {
        let path = env.ws().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, IMPOSTOR).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::create_dir_all(env.ws().join("src/deep")).unwrap();
    std::fs::write(env.ws().join("src/deep/lib.rs"), "pub fn kept() {}\n").unwrap();
    std::fs::write(env.ws().join("notes.txt"), "the notes\n").unwrap();
    env
}

/// Lines that look read-only by their command's name, and run an impostor.
const LINES: &[&str] = &[
    "./tools/git status",
    "tools/ls -la",
    "node_modules/.bin/eslint .",
    "PATH=tools:$PATH git status",
    "PATH=./bin:$PATH cat notes.txt",
    "export PATH=tools:$PATH; ls",
    "env PATH=tools:/usr/bin:/bin git log",
    "PATH=\"$PWD/tools:$PATH\" ls",
];

#[test]
fn a_workspace_program_is_checkpointed_and_undone_whatever_its_name() {
    for line in LINES {
        undone_after_run(
            &workspace(),
            line,
            "SNAPSHOT_CHECKPOINT",
            |env| {
                let status = std::process::Command::new("sh")
                    .args(["-c", line])
                    .current_dir(env.ws())
                    .env("PATH", "/usr/bin:/bin")
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success(), "{line}");
            },
            |env| !env.ws().join("src").exists(),
        );
    }
}

#[test]
fn the_system_tools_by_path_are_still_judged_by_name() {
    let env = workspace();
    for (line, code) in [
        ("/usr/bin/git status", "ALLOW_NOOP"),
        ("PATH=/usr/bin:/bin ls", "ALLOW_NOOP"),
        ("/bin/rm -rf src", "RELOCATE_TREE"),
    ] {
        assert_eq!(env.check_json(line)["code"], code, "{line}");
    }
}

/// The agent's own `PATH` (the environment the harness runs the hook and the command in)
/// puts a workspace directory first: `git status` runs `tools/git`. Each line is checked
/// with that `PATH`, run for real by `sh` with it, and undone byte for byte. With the
/// workspace directory last, or only the system's, the same lines are no-ops again.
#[test]
fn a_workspace_directory_first_in_the_inherited_path_is_checkpointed_and_undone() {
    for (path, line) in [
        ("tools:/usr/bin:/bin", "git status"),
        ("./node_modules/.bin:/usr/bin:/bin", "eslint --version"),
        ("bin:/usr/bin:/bin", "cat notes.txt | wc -l"),
        ("tools:/usr/bin:/bin", "env LC_ALL=C ls -la"),
        ("tools:/usr/bin:/bin", "sh -c 'git log'"),
        ("tools:/usr/bin:/bin", "git status && echo done"),
        ("{ws}/tools:/usr/bin:/bin", "ls"),
    ] {
        let env = workspace();
        let path = path.replace("{ws}", &env.ws().display().to_string());
        let before = snapshot(env.ws(), &["**"]);
        let (exit, report) = crate::support::code_and_json(&env.ag_with(
            "PATH",
            &path,
            &["check", "--enforce", "--json", "--", line],
        ));
        assert_eq!(exit, 0, "{path} {line}: {report}");
        assert_eq!(
            report["code"], "SNAPSHOT_CHECKPOINT",
            "{path} {line}: {report}"
        );
        let status = std::process::Command::new("sh")
            .args(["-c", line])
            .current_dir(env.ws())
            .env("PATH", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{path} {line}");
        assert!(
            !env.ws().join("src").exists(),
            "{path} {line}: the impostor ran"
        );
        env.ag_ok(&["undo", "--json"]);
        assert_eq!(snapshot(env.ws(), &["**"]), before, "{path} {line}: undone");
    }
    let env = workspace();
    for path in ["/usr/bin:/bin:tools", "/usr/bin:/bin"] {
        for line in ["git status", "ls -la", "cat notes.txt"] {
            let (_, report) = crate::support::code_and_json(&env.ag_with(
                "PATH",
                path,
                &["check", "--json", "--", line],
            ));
            assert_eq!(report["code"], "ALLOW_NOOP", "{path} {line}: {report}");
        }
    }
}

/// A program planted in a directory of the hook's `PATH` outside the workspace
/// (`~/.local/bin/git`) would run for every later `git` the agent types: writing, copying,
/// linking or making executable there is refused (from an outside review), so the `git`
/// that runs next is still the system's.
#[test]
fn a_program_planted_in_a_path_directory_is_refused() {
    let env = workspace();
    let bin = env.fixture.home.join(".local/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    for line in [
        "printf '#!/bin/sh\\nrm -rf src\\n' > ~/.local/bin/git",
        "cp tools/git ~/.local/bin/git",
        "install -m 755 tools/git ~/.local/bin/git",
        "ln -s \"$PWD/tools/git\" ~/.local/bin/git",
        "tee ~/.local/bin/git < tools/git",
    ] {
        let (exit, report) = crate::support::code_and_json(&env.ag_with(
            "PATH",
            &path,
            &["check", "--enforce", "--json", "--", line],
        ));
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{line}: {report}");
    }
    assert!(!bin.join("git").exists());
    // Reading there, and the workspace's own work, are as before.
    for (line, code) in [
        ("ls ~/.local/bin", "ALLOW_NOOP"),
        ("rm -rf dist", "RELOCATE_TREE"),
    ] {
        let (_, report) = crate::support::code_and_json(&env.ag_with(
            "PATH",
            &path,
            &["check", "--json", "--", line],
        ));
        assert_eq!(report["code"], code, "{line}: {report}");
    }
}

/// A repository's stored configuration and hooks are programs too: a script the guard
/// cannot see into writes a `pre-commit` hook, a `core.fsmonitor` command or a
/// `core.hooksPath` into `.git/`; the next `git commit`, `git status` or `git checkout` runs it, though the
/// line shows only git. Such a line is checkpointed, run for real, and undone byte for byte;
/// before the script ran the same lines were no-ops.
#[test]
fn what_the_repository_makes_git_run_is_checkpointed_and_undone() {
    let setups = [
        (
            "import os\nopen('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\nrm -rf src\\n')\n\
             os.chmod('.git/hooks/pre-commit', 0o755)\n",
            "git commit -q --allow-empty -m wip",
        ),
        (
            "open('.git/config', 'a').write('[core]\\n\\tfsmonitor = \"rm -rf src; echo\"\\n')\n",
            "git status --short",
        ),
        (
            "import os\nos.makedirs('.githooks')\n\
             open('.githooks/post-checkout', 'w').write('#!/bin/sh\\nrm -rf src\\n')\n\
             os.chmod('.githooks/post-checkout', 0o755)\n\
             open('.git/config', 'a').write('[core]\\n\\thooksPath = .githooks\\n')\n",
            "git checkout -q -b topic",
        ),
        (
            // From an outside review: a hooks directory crowded with samples.
            "import os\nfor i in range(300):\n    open('.git/hooks/x%03d.sample' % i, 'w').close()\n\
             open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\nrm -rf src\\n')\n\
             os.chmod('.git/hooks/pre-commit', 0o755)\n",
            "git commit -q --allow-empty -m again",
        ),
        (
            // A second review: `git diff` refreshes the index, which runs this hook.
            "import os, time\n\
             open('.git/hooks/post-index-change', 'w').write('#!/bin/sh\\nrm -rf src\\n')\n\
             os.chmod('.git/hooks/post-index-change', 0o755)\n\
             os.utime('notes.txt', (time.time() + 5, time.time() + 5))\n",
            "git diff --stat",
        ),
    ];
    for (setup, line) in setups {
        let env = workspace();
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(env.ws())
                .output()
                .unwrap()
        };
        git(&["-c", "user.name=a", "-c", "user.email=a@a", "add", "-A"]);
        let (_, report) = crate::support::enforce(&env, line);
        assert_eq!(report["code"], "ALLOW_NOOP", "{line} before: {report}");
        env.write("tools/setup.py", setup);
        let (exit, report) = crate::support::enforce(&env, "python3 tools/setup.py");
        assert_eq!(exit, 0, "{report}");
        assert!(
            std::process::Command::new("python3")
                .arg("tools/setup.py")
                .current_dir(env.ws())
                .status()
                .unwrap()
                .success()
        );
        undone_after_run(
            &env,
            line,
            "SNAPSHOT_CHECKPOINT",
            |env| {
                std::process::Command::new("sh")
                    .args([
                        "-c",
                        &format!("git -c user.name=a -c user.email=a@a {}", &line[4..]),
                    ])
                    .current_dir(env.ws())
                    .env("HOME", &env.fixture.home)
                    .output()
                    .unwrap();
            },
            |env| !env.ws().join("src").exists(),
        );
    }
}

//! The launcher script, run by `sh` the way a harness runs the hook, and its reply read the
//! way each harness reads it ([`smoke::read`]).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::*;
use crate::shell;
use crate::smoke::{self, Outcome, Reply};

/// Writes an executable file.
fn executable(path: &Path, text: &str) {
    fs_err::write(path, text).unwrap();
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A temporary directory holding the launcher.
fn launcher_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let launcher = dir.path().join(shell::LAUNCHER_NAME);
    executable(&launcher, SCRIPT);
    (dir, launcher)
}

/// Guards that cannot answer: the name, and the script (`None`: the guard is missing).
const FAILING: &[(&str, Option<&str>)] = &[
    ("missing", None),
    (
        "exit-1",
        Some("#!/bin/sh\ncat >/dev/null\necho crash >&2\nexit 1\n"),
    ),
    ("segv", Some("#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n")),
    ("hang", Some("#!/bin/sh\ncat >/dev/null\nexec sleep 30\n")),
    ("hang-child", Some("#!/bin/sh\ncat >/dev/null\nsleep 30\n")),
    ("not-executable", Some("")),
];

/// Runs the launcher for `harness` in front of `guard` with a one-second timeout.
fn launch(launcher: &Path, guard: &Path, harness: Harness, path_var: Option<&str>) -> Outcome {
    let cwd = tempfile::tempdir().unwrap();
    let command = shell::launched_command(launcher, 1, guard, harness);
    let payload = smoke::payload(harness, "rm -rf build", cwd.path());
    let command = match path_var {
        Some(path) => format!("PATH={path} {command}"),
        None => command,
    };
    smoke::run(&command, None, &payload, cwd.path(), None).unwrap()
}

fn assert_denies(harness: Harness, case: &str, outcome: &Outcome) {
    assert_eq!(
        smoke::read(harness, outcome),
        Reply::Deny,
        "{harness} {case}: {outcome:?}"
    );
    let text = format!("{}{}", outcome.stdout, outcome.stderr);
    assert!(
        text.contains("[agent-guard] BLOCKED [HOOK_GUARD_UNAVAILABLE]"),
        "{harness} {case}: {outcome:?}"
    );
    if !outcome.stdout.trim().is_empty() {
        let reply: serde_json::Value = serde_json::from_str(outcome.stdout.trim())
            .unwrap_or_else(|error| panic!("{harness} {case}: {error}: {outcome:?}"));
        assert!(reply.is_object(), "{harness} {case}");
    }
    assert!(
        !outcome.stderr.contains("Segmentation fault") && !outcome.stderr.contains("Killed"),
        "the shell's own report stays out of the reason: {outcome:?}"
    );
}

fn failing_guards(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    FAILING
        .iter()
        .map(|(name, script)| {
            let path = dir.join(format!("{name}/agent-guard"));
            if let Some(script) = script {
                fs_err::create_dir_all(path.parent().unwrap()).unwrap();
                if name == &"not-executable" {
                    fs_err::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
                } else {
                    executable(&path, script);
                }
            }
            (*name, path)
        })
        .collect()
}

/// Every harness, every way the guard can fail to answer: the harness reads a deny.
#[test]
fn every_harness_reads_a_deny_when_the_guard_cannot_answer() {
    let (dir, launcher) = launcher_dir();
    let guards = failing_guards(dir.path());
    std::thread::scope(|scope| {
        for harness in Harness::ALL {
            let (launcher, guards) = (&launcher, &guards);
            scope.spawn(move || {
                for (case, guard) in guards {
                    let outcome = launch(launcher, guard, harness, None);
                    assert_denies(harness, case, &outcome);
                }
            });
        }
    });
}

/// The script is POSIX `sh`: every shell found here that a system may have as `/bin/sh`
/// (dash on Debian, bash on Fedora and macOS, busybox on Alpine, …) runs it to the same deny,
/// and passes a reply through.
#[test]
fn every_posix_shell_runs_it() {
    let (dir, launcher) = launcher_dir();
    let guards = failing_guards(dir.path());
    let shells: Vec<&str> = ["dash", "bash", "busybox sh", "mksh", "posh", "ksh", "zsh"]
        .into_iter()
        .filter(|shell| {
            let program = shell.split(' ').next().unwrap_or_default();
            std::process::Command::new(program)
                .args(shell.split(' ').skip(1))
                .args(["-c", "exit 0"])
                .status()
                .is_ok_and(|status| status.success())
        })
        .collect();
    assert!(
        shells.contains(&"dash") || shells.contains(&"bash"),
        "neither dash nor bash is installed: {shells:?}"
    );
    let answering = dir.path().join("answering/agent-guard");
    fs_err::create_dir_all(answering.parent().unwrap()).unwrap();
    executable(
        &answering,
        "#!/bin/sh\ncat >/dev/null\nprintf '{\"decision\":\"deny\"}'\nexit 0\n",
    );
    for shell in shells {
        for harness in [Harness::Codex, Harness::Gemini, Harness::Cline] {
            for (case, guard) in &guards {
                let cwd = tempfile::tempdir().unwrap();
                let command = format!(
                    "{shell} {}",
                    shell::launched_command(&launcher, 1, guard, harness)
                );
                let payload = smoke::payload(harness, "rm -rf build", cwd.path());
                let outcome = smoke::run(&command, None, &payload, cwd.path(), None).unwrap();
                assert_denies(harness, &format!("{shell}: {case}"), &outcome);
            }
            let cwd = tempfile::tempdir().unwrap();
            let command = format!(
                "{shell} {}",
                shell::launched_command(&launcher, 1, &answering, harness)
            );
            let payload = smoke::payload(harness, "ls", cwd.path());
            let outcome = smoke::run(&command, None, &payload, cwd.path(), None).unwrap();
            assert_eq!(
                (outcome.code, outcome.stdout.as_str()),
                (Some(0), "{\"decision\":\"deny\"}\n"),
                "{shell}: {outcome:?}"
            );
        }
    }
}

/// A guard named without a path is looked up on `PATH`, and denied as not found.
#[test]
fn a_bare_name_is_looked_up() {
    let (_dir, launcher) = launcher_dir();
    let cwd = tempfile::tempdir().unwrap();
    let command = format!(
        "'{}' --timeout 1 agent-guard-no-such-program check --enforce --harness copilot",
        launcher.display()
    );
    let payload = smoke::payload(Harness::Copilot, "rm -rf build", cwd.path());
    let outcome = smoke::run(&command, None, &payload, cwd.path(), None).unwrap();
    assert_denies(Harness::Copilot, "a bare name not on PATH", &outcome);
    assert!(outcome.stdout.contains("not found"), "{outcome:?}");
}

/// A guard that crashes leaves no core file in the workspace (the hook's working directory),
/// whatever the user's core limit.
#[test]
fn a_crash_leaves_no_core_file() {
    let (dir, launcher) = launcher_dir();
    let guards = failing_guards(dir.path());
    let segv = &guards.iter().find(|(name, _)| *name == "segv").unwrap().1;
    let cwd = tempfile::tempdir().unwrap();
    let command = format!(
        "ulimit -c unlimited 2>/dev/null; {}",
        shell::launched_command(&launcher, 1, segv, Harness::QwenCode)
    );
    let payload = smoke::payload(Harness::QwenCode, "rm -rf build", cwd.path());
    let outcome = smoke::run(&command, None, &payload, cwd.path(), None).unwrap();
    assert_denies(Harness::QwenCode, "segv", &outcome);
    let left: Vec<_> = fs_err::read_dir(cwd.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Without coreutils' `timeout` in the system's directories, the watchdog denies a guard
/// that hangs (the script with its lookup of `timeout` made to find nothing).
#[test]
fn without_timeout_a_watchdog_denies() {
    let (dir, _) = launcher_dir();
    let launcher = dir.path().join("no-timeout-launcher");
    let without = SCRIPT.replace(
        "timeout_tool=$(system_tool timeout) || timeout_tool=",
        "timeout_tool=",
    );
    assert_ne!(without, SCRIPT, "the lookup is where the test expects it");
    executable(&launcher, &without);
    let guards = failing_guards(dir.path());
    let bin = dir.path().join("bin");
    fs_err::create_dir_all(&bin).unwrap();
    for tool in ["sleep", "cat"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|dir| Path::new(dir).join(tool))
            .find(|path| path.is_file())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.join(tool)).unwrap();
    }
    let path_var = bin.display().to_string();
    for (case, guard) in &guards {
        if *case == "hang-child" {
            // Only the guard is killed: its child keeps the reply's pipe open (documented).
            continue;
        }
        let started = std::time::Instant::now();
        let outcome = launch(&launcher, guard, Harness::Gemini, Some(&path_var));
        assert_denies(Harness::Gemini, case, &outcome);
        assert!(started.elapsed().as_secs() < 10, "{case}");
    }
}

/// A guard that answers is passed through unchanged: its stdout, stderr and exit code.
#[test]
fn a_reply_is_passed_through() {
    let (dir, launcher) = launcher_dir();
    let guard = dir.path().join("agent-guard");
    for (code, stdout) in [
        (0, ""),
        (0, r#"{"decision":"allow"}"#),
        (2, "report"),
        (3, "ask"),
    ] {
        executable(
            &guard,
            &format!(
                "#!/bin/sh\ncat >/dev/null\nprintf '%s' '{stdout}'\necho why >&2\nexit {code}\n"
            ),
        );
        let outcome = launch(&launcher, &guard, Harness::Codex, None);
        assert_eq!(outcome.code, Some(code), "{outcome:?}");
        let expected = if stdout.is_empty() {
            String::new()
        } else {
            format!("{stdout}\n")
        };
        assert_eq!(outcome.stdout, expected);
        assert_eq!(outcome.stderr, "why\n");
    }
    // The payload reaches the guard on stdin, its arguments after the guard's path.
    executable(&guard, "#!/bin/sh\nprintf '%s ' \"$@\"\ncat\n");
    let outcome = launch(&launcher, &guard, Harness::Cline, None);
    assert_eq!(outcome.code, Some(0));
    assert!(
        outcome
            .stdout
            .starts_with("check --enforce --harness cline {"),
        "{outcome:?}"
    );
    assert!(outcome.stdout.contains("rm -rf build"), "{outcome:?}");
}

#[test]
fn timeouts_are_read_per_harness() {
    let handler = |text: &str| Json::parse(text).unwrap();
    let cases = [
        (Harness::Gemini, r#"{"timeout": 30000}"#, Some(30)),
        (Harness::QwenCode, r#"{"timeout": 30}"#, Some(30)),
        (Harness::QwenCode, r#"{"timeout": 2000}"#, Some(2)),
        (Harness::Copilot, r#"{"timeoutSec": 30}"#, Some(30)),
        (Harness::Codex, r#"{"timeout": 30}"#, Some(30)),
        (Harness::ClaudeCode, "{}", None),
        (Harness::Windsurf, r#"{"timeout": 1}"#, None),
    ];
    for (harness, text, expected) in cases {
        assert_eq!(
            harness_timeout_secs(harness, &handler(text)),
            expected,
            "{harness} {text}"
        );
    }
    const {
        assert!(LAUNCHER_TIMEOUT_SECS < TIMEOUT_SECS);
    }
}

/// A `timeout` (or `sleep`) earlier in `PATH` than the system's (a workspace's
/// `node_modules/.bin/timeout` that exits 0) is not the one the launcher runs: a guard that
/// cannot answer is still denied.
#[test]
fn a_timeout_earlier_in_path_is_not_used() {
    let (dir, launcher) = launcher_dir();
    let guards = failing_guards(dir.path());
    let bin = dir.path().join("impostors");
    fs_err::create_dir_all(&bin).unwrap();
    for tool in ["timeout", "sleep"] {
        executable(&bin.join(tool), "#!/bin/sh\nexit 0\n");
    }
    let path_var = format!("{}:/usr/bin:/bin", bin.display());
    // The failing guards' own `sleep` would be the impostor too: this one hangs by itself.
    let sleep = ["/usr/bin/sleep", "/bin/sleep"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .unwrap();
    let hang = dir.path().join("hang-absolute");
    executable(
        &hang,
        &format!("#!/bin/sh\ncat >/dev/null\nexec {sleep} 30\n"),
    );
    for (case, guard) in guards
        .iter()
        .filter(|(case, _)| !case.starts_with("hang"))
        .map(|(case, guard)| (*case, guard.clone()))
        .chain([("hang", hang)])
    {
        let outcome = launch(&launcher, &guard, Harness::QwenCode, Some(&path_var));
        assert_denies(Harness::QwenCode, case, &outcome);
    }
}

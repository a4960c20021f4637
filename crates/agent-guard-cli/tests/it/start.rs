//! The binaries enter through `agent_guard_start` (no Rust runtime start-up): what that
//! runtime did and the guard relies on still holds for the real binaries. The descriptor
//! sanitising is tested in that crate (`tests/entry.rs`), where the first file opened is
//! known.

use std::process::Stdio;

use crate::support::TestEnv;

/// Runs `bin args…` through `sh -c` with the descriptors `closing` (e.g. `>&- 2>&-`) closed.
fn with_closed(env: &TestEnv, bin: &str, args: &str, closing: &str) -> std::process::Output {
    let path = match bin {
        "check" => assert_cmd::cargo::cargo_bin!("check"),
        _ => assert_cmd::cargo::cargo_bin!("agent-guard"),
    };
    let script = format!("exec '{}' {args} {closing}", path.display());
    env.std_cmd("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.ws())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The exit code is the command's (here an enforced refusal, 2), and stdout is flushed at
/// exit: the whole JSON report arrives through a pipe.
#[test]
fn the_exit_code_and_the_whole_report_survive_the_entry_point() {
    let env = TestEnv::new();
    for bin in ["agent-guard", "check"] {
        let args = if bin == "check" {
            "--enforce --json -- 'git push --force'"
        } else {
            "check --enforce --json -- 'git push --force'"
        };
        let output = with_closed(&env, bin, args, "");
        assert_eq!(output.status.code(), Some(2), "{bin}: {output:?}");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{bin}: {e}: {output:?}"));
        assert_eq!(report["code"], "BLOCK_FORCE_PUSH");
    }
}

/// A reader that has gone away does not kill the guard with SIGPIPE (which the harness would
/// see as a crash, not an answer): the write fails and the process exits on its own.
#[test]
fn a_closed_pipe_is_not_a_silent_kill() {
    use std::os::unix::process::ExitStatusExt as _;
    let env = TestEnv::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = env
        .std_cmd(
            assert_cmd::cargo::cargo_bin!("agent-guard")
                .to_str()
                .unwrap(),
        )
        .args(["explain", "BLOCK_PROTECTED_PATH"])
        .stdout(writer)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.signal(), None, "killed by a signal: {status:?}");
    assert!(status.code().is_some(), "{status:?}");
}

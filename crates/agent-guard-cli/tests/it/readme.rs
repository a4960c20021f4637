//! The README's "Using it" walk-through runs exactly as written.

use crate::support::TestEnv;

/// The shell block after the `walkthrough` marker.
fn walkthrough() -> String {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .unwrap();
    let (_, after) = readme.split_once("<!-- walkthrough:").expect("the marker");
    let (_, block) = after.split_once("```sh\n").expect("a shell block");
    let (block, _) = block.split_once("```").expect("the block ends");
    block.to_owned()
}

#[test]
fn the_walkthrough_runs_and_gets_everything_back() {
    let env = TestEnv::new();
    let script = walkthrough();
    let bin = assert_cmd::cargo::cargo_bin!("agent-guard");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scratch = tempfile::tempdir().unwrap();
    let output = env
        .std_cmd("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .env("PATH", path)
        .env("TMPDIR", scratch.path())
        .env_remove("AGENT_GUARD_SESSION")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The last command shows both files back, byte for byte.
    assert!(stdout.ends_with("print(\"hi\")\ndraft\n"), "{stdout}");
    assert!(
        stdout.contains("undid "),
        "undo names what it undid: {stdout}"
    );
    // The hook it installed is the one the harness runs.
    let workspace = std::fs::read_dir(scratch.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join(".git").is_dir())
        .expect("the walk-through's scratch workspace");
    let text = std::fs::read_to_string(workspace.join(".claude/settings.json")).unwrap();
    assert!(
        text.contains("check --enforce --harness claude-code"),
        "{text}"
    );
}

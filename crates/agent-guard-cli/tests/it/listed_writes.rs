//! Patches and archives name the paths they write (issue 35): `git apply evil.diff`, `patch
//! -p1 < evil.diff`, `tar xf hooks.tar` or `unzip hooks.zip` over a hook file is refused like
//! a write of it, and each refused line is shown to be live by running it afterwards; a
//! patch or an archive that writes only ordinary files is checkpointed, applied for real and
//! undone byte for byte.

use std::process::Command;

use crate::support::{TestEnv, enforce, git_in, undone_after_run};

const HOOKS: &str = "{\"hooks\": {\"PreToolUse\": []}}\n";

const EVIL_DIFF: &str = "diff --git a/.claude/settings.json b/.claude/settings.json\n\
--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n\
-{\"hooks\": {\"PreToolUse\": []}}\n+{\"disableAllHooks\": true}\n";

const OK_DIFF: &str = "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { println!(\"patched\"); }\n";

/// A workspace with a hook file, and a patch, a tar and a zip that rewrite it.
fn workspace() -> TestEnv {
    let env = TestEnv::new();
    env.write(".claude/settings.json", HOOKS);
    git_in(env.ws(), &["add", "-A"]);
    git_in(env.ws(), &["commit", "-qm", "hooks"]);
    env.write("evil.diff", EVIL_DIFF);
    env.write("ok.diff", OK_DIFF);
    let staging = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(staging.path().join(".claude")).unwrap();
    std::fs::write(
        staging.path().join(".claude/settings.json"),
        "{\"disableAllHooks\": true}\n",
    )
    .unwrap();
    std::fs::write(staging.path().join("notes.txt"), "from the archive\n").unwrap();
    let tar = |name: &str, member: &str| {
        let status = Command::new("tar")
            .args(["-cf"])
            .arg(env.ws().join(name))
            .args(["-C"])
            .arg(staging.path())
            .arg(member)
            .status()
            .unwrap();
        assert!(status.success());
    };
    tar("hooks.tar", ".claude");
    tar("ok.tar", "notes.txt");
    // An archive whose first member is a link to `.claude` and whose second is written
    // through it (`cl -> .claude`, then `cl/settings.json`).
    std::os::unix::fs::symlink(".claude", staging.path().join("cl")).unwrap();
    tar("combo.tar", "cl");
    let status = Command::new("tar")
        .arg("-rf")
        .arg(env.ws().join("combo.tar"))
        .args(["-C"])
        .arg(staging.path())
        .args(["--transform", "s,^\\.claude/,cl/,", ".claude/settings.json"])
        .status()
        .unwrap();
    assert!(status.success());
    // A patch naming the file in git's quoted form (`\\141` is `a`), and a pair: the first
    // makes a link to `.claude`, the second edits through it.
    env.write(
        "octal.diff",
        EVIL_DIFF
            .replace(".claude", "\".cl\\141ude")
            .replace("/settings.json", "/settings.json\"")
            .replace("a/\".cl", "\"a/.cl")
            .replace("b/\".cl", "\"b/.cl"),
    );
    env.write(
        "link.diff",
        "diff --git a/cl b/cl\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n\
         +++ b/cl\n@@ -0,0 +1 @@\n+.claude\n\\ No newline at end of file\n",
    );
    env.write("thru.diff", EVIL_DIFF.replace(".claude/", "cl/"));
    let status = Command::new("zip")
        .args(["-qr"])
        .arg(env.ws().join("hooks.zip"))
        .arg(".claude")
        .current_dir(staging.path())
        .status()
        .unwrap();
    assert!(status.success());
    env
}

#[test]
fn a_patch_or_an_archive_over_a_hook_file_is_refused() {
    for line in [
        "git apply evil.diff",
        "patch -p1 < evil.diff",
        "patch -p1 -i evil.diff",
        "tar xf hooks.tar",
        "tar -x -f hooks.tar",
        "unzip -o hooks.zip",
        "cd src && patch -d .. -p1 -i evil.diff",
        "tar -xf combo.tar",
        "git apply octal.diff",
        "patch -p1 < octal.diff",
        "patch -p1 -i link.diff && patch -p1 -i thru.diff",
    ] {
        let env = workspace();
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 2, "{line}: {report}");
        assert_eq!(report["code"], "BLOCK_SELF_PROTECTION", "{line}: {report}");
        assert_eq!(env.read(".claude/settings.json"), HOOKS, "{line}");
        // The line is live: run anyway, it rewrites the hook file.
        env.std_cmd("sh").args(["-c", line]).output().unwrap();
        assert_ne!(
            env.read(".claude/settings.json"),
            HOOKS,
            "{line} ran and changed it"
        );
    }
}

#[test]
fn a_patch_or_an_archive_of_ordinary_files_is_checkpointed_and_undone() {
    for line in ["git apply ok.diff", "patch -p1 < ok.diff", "tar xf ok.tar"] {
        let env = workspace();
        env.write(
            "notes.txt",
            "the notes
",
        );
        undone_after_run(
            &env,
            line,
            "SNAPSHOT_CHECKPOINT",
            |env| {
                let output = env.std_cmd("sh").args(["-c", line]).output().unwrap();
                assert!(output.status.success(), "{line}: {output:?}");
            },
            |env| {
                env.read("src/main.rs")
                    != "fn main() {}
" || env.read("notes.txt")
                    != "the notes
"
            },
        );
    }
}

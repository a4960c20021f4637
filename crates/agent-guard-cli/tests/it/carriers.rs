//! Options that hold a command another program runs (issue 37, point 2), run for real: the
//! carried command is judged as what it runs. One that deletes in the workspace while its
//! program runs is checkpointed (taking its targets away first would change what the
//! program reads) and undone byte for byte; one that reaches outside is refused before it
//! runs.

use crate::support::{TestEnv, enforce, run_shell, snapshot, txids};

#[test]
fn a_carried_command_is_checkpointed_and_undone() {
    for line in [
        "tar -I 'rm -rf src' -cf ../x.tar src 2>/dev/null; true",
        "tar --use-compress-program='rm -rf src' -cf ../x.tar src 2>/dev/null; true",
        "tar -cf ../x.tar --checkpoint=1 --checkpoint-action=exec='rm -rf src' src",
        // From an outside review: old-style letters, an abbreviated long option, a cluster
        // that ends in the option, and the variable tar reads its options from.
        "tar cIf 'rm -rf src' ../x.tar src 2>/dev/null; true",
        "tar -cf ../x.tar --use-compress='rm -rf src' src 2>/dev/null; true",
        "rsync -ave \"sh -c 'rm -rf src'\" notes.txt nowhere:x 2>/dev/null; true",
        "TAR_OPTIONS=\"-I 'rm -rf src'\" tar -cf ../x.tar src 2>/dev/null; true",
        // rsync appends the host and its own arguments to the command: `sh -c` ignores them.
        "rsync -e \"sh -c 'rm -rf src'\" notes.txt nowhere:x 2>/dev/null; true",
    ] {
        let env = TestEnv::new();
        env.write("src/deep/a.txt", "only here\n");
        let before = snapshot(env.ws(), &["**"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{line}: {report}");
        let ids = txids(&report);
        run_shell(&env, line);
        assert!(
            !env.ws().join("src").exists(),
            "{line}: the carried command ran"
        );
        for id in &ids {
            env.ag_ok(&["restore", id]);
        }
        assert_eq!(snapshot(env.ws(), &["**"]), before, "{line}: undone");
    }
}

#[test]
fn a_carried_command_that_reaches_outside_is_refused() {
    let env = TestEnv::new();
    let outside = env.fixture.outside.join("keep.txt");
    std::fs::write(&outside, "outside\n").unwrap();
    let line = format!("tar -I 'rm -f {}' -cf x.tar src", outside.display());
    let (_, report) = enforce(&env, &line);
    assert_eq!(report["decision"], "BLOCK", "{report}");
    assert_eq!(std::fs::read(&outside).unwrap(), b"outside\n");
}

/// bash's `history -w FILE` writes its history over FILE (empty in a shell without one):
/// kept first and restored byte for byte, whether the file is an operand or `$HISTFILE`
/// (issue 37, point 3).
#[test]
fn history_w_is_kept_and_restored() {
    for line in ["history -w notes.txt", "HISTFILE=notes.txt history -w"] {
        let env = TestEnv::new();
        env.write("notes.txt", "my notes\n");
        let before = snapshot(env.ws(), &["**"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_OVERWRITE", "{line}: {report}");
        let ids = txids(&report);
        let ran = std::process::Command::new("bash")
            .args(["-c", line])
            .current_dir(env.ws())
            .status()
            .unwrap();
        assert!(ran.success(), "{line}");
        assert_ne!(
            std::fs::read(env.ws().join("notes.txt")).unwrap(),
            b"my notes\n",
            "{line}: bash wrote the file"
        );
        for id in &ids {
            env.ag_ok(&["restore", id]);
        }
        assert_eq!(snapshot(env.ws(), &["**"]), before, "{line}: restored");
    }
}

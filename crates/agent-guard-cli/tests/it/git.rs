//! Git compensations end to end: `check --enforce` → the real git command → `restore`; the
//! work tree, untracked files, the stash list and the branches equal what they were.

use crate::evidence::{Kind, Scenario};
use crate::support::{TestEnv, enforce, git, snapshot, txids};

/// Everything a destructive git command could lose.
#[derive(Debug, PartialEq, Eq)]
struct State {
    tree: std::collections::BTreeMap<Vec<u8>, crate::support::Entry>,
    stash: String,
    branches: String,
}

fn state(env: &TestEnv) -> State {
    State {
        // Git stores content and modes, not times: a restored file is rewritten.
        tree: snapshot(env.ws(), &["**"]),
        stash: git(env, &["stash", "list", "--format=%H %gs"]),
        branches: git(
            env,
            &[
                "for-each-ref",
                "refs/heads",
                "refs/tags",
                "refs/remotes",
                "refs/replace",
                "--format=%(refname) %(objectname)",
            ],
        ),
    }
}

/// Dirty tracked changes, a staged new file, untracked and ignored content.
fn dirty(env: &TestEnv) {
    env.write(
        "src/main.rs",
        "fn main() { println!(\"work in progress\"); }\n",
    );
    env.write("src/new.rs", "pub fn new() {}\n");
    git(env, &["add", "src/new.rs"]);
}

fn round_trip(env: &TestEnv, command: &[&str], expected_code: &str) {
    let before = state(env);
    let line = format!("git {}", command.join(" "));
    let (exit, report) = enforce(env, &line);
    assert_eq!(exit, 0, "{line}: {report}");
    assert_eq!(report["code"], expected_code, "{line}");
    let ids = txids(&report);
    assert!(!ids.is_empty(), "{line}: {report}");
    git(env, command);
    assert_ne!(
        state(env),
        before,
        "{line}: the command itself must change something"
    );
    for txid in &ids {
        let output = env.ag(&["restore", "--json", txid]);
        assert!(output.status.success(), "{line}: {output:?}");
    }
    assert_eq!(state(env), before, "{line}: restored");
    // Restoring again changes nothing.
    for txid in &ids {
        env.ag_ok(&["restore", txid]);
    }
    assert_eq!(state(env), before, "{line}: idempotent");
}

#[test]
fn reset_hard() {
    let env = TestEnv::new();
    dirty(&env);
    let stash_before = git(&env, &["stash", "list"]);
    round_trip(&env, &["reset", "--hard"], "SNAPSHOT_GIT_STASH");
    assert_eq!(
        git(&env, &["stash", "list"]),
        stash_before,
        "snapshots never touch the stash list"
    );
}

/// git reads any unambiguous prefix of a long option (issue 37, point 1): each abbreviated
/// form below is what the real git runs (`--har` resets hard, `--fo` cleans), so each is
/// judged and undone like its full spelling.
#[test]
fn abbreviated_long_options_are_the_options_git_reads() {
    for (command, code) in [
        (&["reset", "--har"][..], "SNAPSHOT_GIT_STASH"),
        (&["reset", "--ha", "HEAD"][..], "SNAPSHOT_GIT_STASH"),
        (&["clean", "--fo", "-d"][..], "RELOCATE_VIA_CLEAN_ENUMERATE"),
        (
            &["checkout", "--for", "HEAD", "--", "src/main.rs"][..],
            "SNAPSHOT_GIT_STASH",
        ),
        (
            &["restore", "--sou=HEAD", "src/main.rs"][..],
            "SNAPSHOT_GIT_STASH",
        ),
    ] {
        let env = TestEnv::new();
        dirty(&env);
        env.write("scratch/untracked.txt", "only here\n");
        round_trip(&env, command, code);
    }
}

#[test]
fn checkout_path() {
    let env = TestEnv::new();
    dirty(&env);
    round_trip(
        &env,
        &["checkout", "--", "src/main.rs"],
        "SNAPSHOT_GIT_STASH",
    );
}

#[test]
fn restore_path() {
    let env = TestEnv::new();
    dirty(&env);
    round_trip(&env, &["restore", "src/main.rs"], "SNAPSHOT_GIT_STASH");
}

#[test]
fn clean_fd() {
    let env = TestEnv::new();
    round_trip(&env, &["clean", "-fd"], "RELOCATE_VIA_CLEAN_ENUMERATE");
}

#[test]
fn clean_fdx_keeps_the_quarantine() {
    let env = TestEnv::new();
    round_trip(&env, &["clean", "-fdx"], "RELOCATE_VIA_CLEAN_ENUMERATE");
    assert!(
        env.trash().join("manifest.jsonl").exists(),
        "git clean -fdx left the quarantine intact"
    );
}

#[test]
fn stash_drop() {
    let env = TestEnv::new();
    for n in 0..3 {
        env.write("src/main.rs", format!("fn main() {{ /* {n} */ }}\n"));
        git(&env, &["stash", "push", "-m", &format!("wip {n}")]);
    }
    round_trip(&env, &["stash", "drop", "stash@{1}"], "SNAPSHOT_GIT_REFS");
}

#[test]
fn stash_clear() {
    let env = TestEnv::new();
    for n in 0..2 {
        env.write("src/main.rs", format!("fn main() {{ /* {n} */ }}\n"));
        git(&env, &["stash", "push", "-m", &format!("wip {n}")]);
    }
    round_trip(&env, &["stash", "clear"], "SNAPSHOT_GIT_REFS");
}

#[test]
fn branch_delete() {
    let env = TestEnv::new();
    git(&env, &["checkout", "-q", "-b", "experiment"]);
    env.write("src/exp.rs", "// experiment\n");
    git(&env, &["add", "src/exp.rs"]);
    git(&env, &["commit", "-q", "-m", "experiment"]);
    git(&env, &["checkout", "-q", "-"]);
    round_trip(&env, &["branch", "-D", "experiment"], "SNAPSHOT_GIT_REFS");
}

/// Tags are refs like branches: `tag -d` of an annotated and a lightweight tag comes back,
/// tag object and all (issue 12, item 14).
#[test]
fn tag_delete() {
    let env = TestEnv::new();
    git(&env, &["tag", "-a", "v1", "-m", "release one"]);
    git(&env, &["tag", "v2"]);
    round_trip(&env, &["tag", "-d", "v1", "v2"], "SNAPSHOT_GIT_REFS");
    assert_eq!(
        git(&env, &["cat-file", "-t", "v1"]).trim(),
        "tag",
        "the annotated tag object is what comes back"
    );
}

#[test]
fn update_ref_delete() {
    let env = TestEnv::new();
    git(&env, &["tag", "-a", "v1", "-m", "release one"]);
    git(&env, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    round_trip(
        &env,
        &["update-ref", "-d", "refs/tags/v1"],
        "SNAPSHOT_GIT_REFS",
    );
    round_trip(
        &env,
        &["update-ref", "-d", "refs/remotes/origin/main"],
        "SNAPSHOT_GIT_REFS",
    );
}

/// `git reset --merge` (and `git merge --abort`, which runs it) resets staged changes the
/// work tree does not hold apart (issue 37, point 1, from an outside review): kept like a
/// hard reset, abbreviated too.
#[test]
fn reset_merge_with_staged_changes() {
    for command in [&["reset", "--merge"][..], &["reset", "--mer"][..]] {
        let env = TestEnv::new();
        env.write("src/main.rs", "fn main() { println!(\"staged work\"); }\n");
        git(&env, &["add", "src/main.rs"]);
        round_trip(&env, command, "SNAPSHOT_GIT_STASH");
    }
}

/// `git replace -d` deletes a replace ref by the object's full id (issue 37, point 1): the
/// ref is kept first and restored exactly.
#[test]
fn replace_delete() {
    let env = TestEnv::new();
    let first = git(&env, &["rev-parse", "HEAD"]).trim().to_owned();
    env.write("src/next.rs", "// next\n");
    git(&env, &["add", "src/next.rs"]);
    git(&env, &["commit", "-q", "-m", "next"]);
    let second = git(&env, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&env, &["replace", &first, &second]);
    round_trip(&env, &["replace", "-d", &first], "SNAPSHOT_GIT_REFS");
}

/// `tag -f` moves a tag: a plain restore reports the clash and changes nothing; `--force`
/// puts the old tag back and keeps the moved one in a new transaction.
#[test]
fn moved_tag_comes_back_with_force() {
    let env = TestEnv::new();
    git(&env, &["tag", "-a", "v1", "-m", "release one"]);
    env.write("src/next.rs", "// next\n");
    git(&env, &["add", "src/next.rs"]);
    git(&env, &["commit", "-q", "-m", "next"]);
    let before = state(&env);
    let (exit, report) = enforce(&env, "git tag -f v1");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_GIT_REFS");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{report}");
    git(&env, &["tag", "-f", "v1"]);
    let moved = state(&env);
    assert_ne!(moved, before, "the tag moved");
    let plain = env
        .cmd("agent-guard")
        .args(["restore", "--json", &ids[0]])
        .output()
        .unwrap();
    assert!(
        !plain.status.success(),
        "a clash is not a success: {plain:?}"
    );
    assert_eq!(state(&env), moved, "a refused restore changes nothing");
    env.cmd("agent-guard")
        .args(["restore", "--force", &ids[0]])
        .assert()
        .success();
    assert_eq!(state(&env), before, "the old tag is back");
    let list = env.ag(&["list", "--all", "--json"]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.matches("\"backup\": true").count() == 1 && text.matches("\"txid\"").count() == 2,
        "the moved tag is kept in a new transaction: {text}"
    );
}

/// The reflogs of `HEAD`, the fixture's branch and `topic`.
fn reflogs(env: &TestEnv) -> String {
    let branch = git(env, &["symbolic-ref", "HEAD"]);
    let mut out = String::new();
    for name in ["HEAD", branch.trim(), "refs/heads/topic"] {
        let path = env.ws().join(".git/logs").join(name);
        out.push_str(name);
        out.push_str(":\n");
        out.push_str(&std::fs::read_to_string(path).unwrap_or_default());
    }
    out
}

/// `reflog expire` drops the only path to a commit a hard reset left behind; after it even
/// `gc --prune=now` keeps that commit (the transaction holds it), and restore writes the
/// reflogs back line for line (issue 12, item 14).
#[test]
fn reflog_expire_then_gc_loses_nothing() {
    let env = TestEnv::new();
    git(&env, &["checkout", "-q", "-b", "topic"]);
    git(&env, &["checkout", "-q", "-"]);
    env.write("src/lost.rs", "// only the reflog has this\n");
    git(&env, &["add", "src/lost.rs"]);
    git(&env, &["commit", "-q", "-m", "soon unreachable"]);
    let lost = git(&env, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&env, &["reset", "-q", "--hard", "HEAD~1"]);
    let before = reflogs(&env);
    assert!(before.contains(&lost), "{before}");
    for line in [
        "git reflog expire --expire=now --expire-unreachable=now --all",
        "git reflog delete HEAD@{0}",
    ] {
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_GIT_REFS", "{line}");
        let ids = txids(&report);
        assert_eq!(ids.len(), 1, "{line}: {report}");
        let status = env
            .std_cmd("sh")
            .args(["-c", line])
            .current_dir(env.ws())
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
        assert_ne!(reflogs(&env), before, "{line}: the reflogs lost entries");
        git(&env, &["gc", "-q", "--prune=now"]);
        assert_eq!(
            git(&env, &["cat-file", "-t", &lost]).trim(),
            "commit",
            "{line}: the commit survives gc"
        );
        env.cmd("agent-guard")
            .args(["restore", &ids[0]])
            .assert()
            .success();
        assert_eq!(reflogs(&env), before, "{line}: the reflogs are back");
        assert_eq!(
            git(&env, &["rev-parse", "HEAD@{1}"]).trim(),
            lost,
            "{line}: HEAD@{{1}} names the commit again"
        );
        env.cmd("agent-guard")
            .args(["restore", &ids[0]])
            .assert()
            .success();
        assert_eq!(
            reflogs(&env),
            before,
            "{line}: restoring again changes nothing"
        );
    }
}

/// `branch -M` renames over an existing branch: `restore --force` puts the overwritten
/// branch back at its old tip and keeps the moved one in a new transaction (issue 12,
/// item 2).
#[test]
fn branch_renamed_over_comes_back_with_force() {
    let env = TestEnv::new();
    git(&env, &["branch", "target"]);
    git(&env, &["checkout", "-q", "-b", "source"]);
    env.write("src/source.rs", "// source\n");
    git(&env, &["add", "src/source.rs"]);
    git(&env, &["commit", "-q", "-m", "source"]);
    git(&env, &["checkout", "-q", "-"]);
    let target = git(&env, &["rev-parse", "target"]);
    let (exit, report) = enforce(&env, "git branch -M source target");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_GIT_REFS");
    let ids = txids(&report);
    assert_eq!(ids.len(), 1, "{report}");
    git(&env, &["branch", "-M", "source", "target"]);
    assert_ne!(git(&env, &["rev-parse", "target"]), target, "target moved");
    env.cmd("agent-guard")
        .args(["restore", "--force", &ids[0]])
        .assert()
        .success();
    assert_eq!(
        git(&env, &["rev-parse", "target"]),
        target,
        "target is back"
    );
}

#[test]
fn force_push_stays_blocked() {
    let env = TestEnv::new();
    let (exit, report) = enforce(&env, "git push --force origin main");
    assert_eq!(exit, 2);
    assert_eq!(report["code"], "BLOCK_FORCE_PUSH");
}

#[test]
fn checkout_dot() {
    let env = TestEnv::new();
    dirty(&env);
    round_trip(&env, &["checkout", "."], "SNAPSHOT_GIT_STASH");
}

#[test]
fn checkout_force() {
    let env = TestEnv::new();
    dirty(&env);
    git(&env, &["checkout", "-q", "-b", "other"]);
    // `checkout -f` to the same commit throws away the local changes.
    round_trip(&env, &["checkout", "-f", "master"], "SNAPSHOT_GIT_STASH");
}

#[test]
fn switch_discard_changes() {
    let env = TestEnv::new();
    dirty(&env);
    git(&env, &["branch", "other"]);
    round_trip(
        &env,
        &["switch", "--discard-changes", "other"],
        "SNAPSHOT_GIT_STASH",
    );
}

#[test]
fn switch_force() {
    let env = TestEnv::new();
    dirty(&env);
    git(&env, &["branch", "other"]);
    round_trip(&env, &["switch", "-f", "other"], "SNAPSHOT_GIT_STASH");
}

#[test]
fn restore_from_another_revision() {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() { /* second commit */ }\n");
    git(&env, &["commit", "-q", "-am", "second"]);
    dirty(&env);
    round_trip(
        &env,
        &["restore", "--source=HEAD~1", "src/main.rs"],
        "SNAPSHOT_GIT_STASH",
    );
}

#[test]
fn rm_force_on_a_modified_file() {
    let env = TestEnv::new();
    dirty(&env);
    round_trip(
        &env,
        &["rm", "-q", "-f", "src/main.rs"],
        "SNAPSHOT_GIT_STASH",
    );
}

/// Three stash entries `wip 0..2`, newest last.
fn three_stash_entries(env: &TestEnv) {
    for n in 0..3 {
        env.write("src/main.rs", format!("fn main() {{ /* {n} */ }}\n"));
        git(env, &["stash", "push", "-m", &format!("wip {n}")]);
    }
}

/// A line of several stash ops: each keeps the entry it will see (issue 12, item 1).
#[test]
fn stash_ops_in_one_line_keep_every_entry_they_drop() {
    for line in [
        "git stash drop && git stash drop",
        "git stash drop stash@{1}; git stash pop stash@{1}",
        "git stash drop 1 && git stash clear",
    ] {
        let env = TestEnv::new();
        three_stash_entries(&env);
        let before = state(&env);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_GIT_REFS", "{line}");
        let status = env
            .std_cmd("sh")
            .args(["-c", line])
            .current_dir(env.ws())
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
        assert_ne!(
            state(&env).stash,
            before.stash,
            "{line}: the line drops entries"
        );
        // Undo everything: `undo` until nothing is left.
        while env.ag(&["undo"]).status.success() {}
        let after = state(&env);
        let sorted = |s: &str| {
            let mut lines: Vec<&str> = s.lines().collect();
            lines.sort_unstable();
            lines.join("\n")
        };
        // Every dropped entry is back, commit for commit.
        assert_eq!(sorted(&after.stash), sorted(&before.stash), "{line}");
        assert_eq!(after.branches, before.branches, "{line}");
    }
}

/// Dropping the entry the line itself pushes cannot be made undoable first: ASK, and the
/// refusal changes nothing.
#[test]
fn dropping_what_the_line_stashes_is_asked() {
    let env = TestEnv::new();
    dirty(&env);
    env.write("scratch.txt", "untracked work\n");
    let before = state(&env);
    for line in [
        "git stash push -u && git stash drop",
        "git stash -u; git stash pop",
    ] {
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 3, "{line}: {report}");
        assert_eq!(report["code"], "COMPOUND_CREATE_DELETE", "{line}");
        assert_eq!(state(&env), before, "{line}: nothing ran");
    }
}
/// Every test of this file, for `docs/EVIDENCE.md` (`evidence.rs` checks that none is missing).
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "reset_hard",
        run: reset_hard,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "reset_merge_with_staged_changes",
        run: reset_merge_with_staged_changes,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "replace_delete",
        run: replace_delete,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "abbreviated_long_options_are_the_options_git_reads",
        run: abbreviated_long_options_are_the_options_git_reads,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "checkout_path",
        run: checkout_path,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "restore_path",
        run: restore_path,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "clean_fd",
        run: clean_fd,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "clean_fdx_keeps_the_quarantine",
        run: clean_fdx_keeps_the_quarantine,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "stash_drop",
        run: stash_drop,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "stash_clear",
        run: stash_clear,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "branch_delete",
        run: branch_delete,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "force_push_stays_blocked",
        run: force_push_stays_blocked,
        kind: Kind::Refusal,
        second_filesystem: false,
    },
    Scenario {
        name: "checkout_dot",
        run: checkout_dot,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "checkout_force",
        run: checkout_force,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "switch_discard_changes",
        run: switch_discard_changes,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "switch_force",
        run: switch_force,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "restore_from_another_revision",
        run: restore_from_another_revision,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "rm_force_on_a_modified_file",
        run: rm_force_on_a_modified_file,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "tag_delete",
        run: tag_delete,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "update_ref_delete",
        run: update_ref_delete,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "moved_tag_comes_back_with_force",
        run: moved_tag_comes_back_with_force,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "stash_ops_in_one_line_keep_every_entry_they_drop",
        run: stash_ops_in_one_line_keep_every_entry_they_drop,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "dropping_what_the_line_stashes_is_asked",
        run: dropping_what_the_line_stashes_is_asked,
        kind: Kind::Refusal,
        second_filesystem: false,
    },
    Scenario {
        name: "reflog_expire_then_gc_loses_nothing",
        run: reflog_expire_then_gc_loses_nothing,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "branch_renamed_over_comes_back_with_force",
        run: branch_renamed_over_comes_back_with_force,
        kind: Kind::GitRoundTrip,
        second_filesystem: false,
    },
];

//! Every way git deletes or rewrites refs, run for real after `check --enforce` and undone
//! (issue 37, point 1): after `undo`, `git for-each-ref` (symbolic refs included), the
//! stash list and every reflog are what they were. A reflog the command moved keeps every
//! line it had, in order (the lines the command and the undo wrote stay: undo never deletes);
//! every other reflog, `HEAD`'s included, is byte for byte what it was.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{TestEnv, enforce, git, txids};

/// Refs, the stash list and the reflogs, as git shows them.
#[derive(Debug, PartialEq, Eq)]
struct Refs {
    listed: String,
    head: String,
    stash: String,
    reflogs: BTreeMap<String, String>,
}

fn refs(env: &TestEnv) -> Refs {
    let all = git(
        env,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(symref)",
        ],
    );
    let head = std::fs::read_to_string(env.ws().join(".git/HEAD")).unwrap();
    Refs {
        listed: all
            .lines()
            .filter(|l| !l.starts_with("refs/agent-guard/"))
            .collect::<Vec<_>>()
            .join("\n"),
        head,
        stash: git(env, &["stash", "list", "--format=%H %gs"]),
        reflogs: reflogs(&env.ws().join(".git/logs")),
    }
}

/// Every reflog file under `logs`, by its ref name (the private namespace left out).
fn reflogs(logs: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(logs) {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .strip_prefix(logs)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if !name.starts_with("refs/agent-guard/") {
            out.insert(name, std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    out
}

/// Whether `before`'s lines are all in `after`, in the same order.
fn keeps_every_line(before: &str, after: &str) -> bool {
    let mut rest = after.lines();
    before.lines().all(|line| rest.any(|l| l == line))
}

/// Branches, tags (one annotated), a note, a replace ref, a remote-tracking ref with its
/// symbolic `HEAD`, two stash entries, and a reflog for each.
fn populate(env: &TestEnv) {
    let base = git(env, &["rev-parse", "HEAD"]).trim().to_owned();
    env.write("src/second.rs", "// second\n");
    git(env, &["add", "src/second.rs"]);
    git(env, &["commit", "-q", "-m", "second"]);
    git(env, &["branch", "topic", &base]);
    git(env, &["branch", "other"]);
    git(env, &["tag", "v1", &base]);
    git(env, &["tag", "-a", "-m", "release", "v2"]);
    git(env, &["notes", "add", "-m", "reviewed", "HEAD"]);
    git(env, &["notes", "add", "-m", "first", &base]);
    git(
        env,
        &["remote", "add", "origin", "/nonexistent/upstream.git"],
    );
    git(env, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    git(
        env,
        &[
            "symbolic-ref",
            "refs/remotes/origin/HEAD",
            "refs/remotes/origin/main",
        ],
    );
    git(env, &["replace", "-f", &base, "HEAD"]);
    for n in 1..=2 {
        env.write("src/main.rs", format!("fn main() {{ /* stash {n} */ }}\n"));
        git(env, &["stash", "push", "-q", "-m", &format!("entry {n}")]);
    }
}

/// One form: the line, and the reflogs it moves (which keep their lines but may gain some).
struct Form {
    line: &'static str,
    moved: &'static [&'static str],
    switches: bool,
}

const FORMS: &[Form] = &[
    Form {
        line: "git branch -D topic",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git branch --delete --force topic other",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git branch -M topic other",
        moved: &["refs/heads/other"],
        switches: false,
    },
    Form {
        line: "git branch -C topic other",
        moved: &["refs/heads/other"],
        switches: false,
    },
    Form {
        line: "git branch -f topic HEAD",
        moved: &["refs/heads/topic"],
        switches: false,
    },
    Form {
        line: "git tag -d v1 v2",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git tag -f v1 HEAD",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git update-ref -d refs/heads/topic",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git update-ref -d refs/stash",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git update-ref refs/remotes/origin/main HEAD~1",
        moved: &["refs/remotes/origin/main"],
        switches: false,
    },
    Form {
        line: "git update-ref -d refs/remotes/origin/HEAD",
        moved: &["refs/remotes/origin/HEAD"],
        switches: false,
    },
    Form {
        line: "git replace -d $(git rev-parse HEAD~1)",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git symbolic-ref -d refs/remotes/origin/HEAD",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git symbolic-ref refs/remotes/origin/HEAD refs/heads/topic",
        moved: &["refs/remotes/origin/HEAD"],
        switches: false,
    },
    Form {
        line: "git symbolic-ref HEAD refs/heads/topic",
        moved: &["HEAD"],
        switches: false,
    },
    Form {
        line: "git reflog expire --expire=now --expire-unreachable=now --all",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git reflog delete HEAD@{1}",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git notes remove HEAD",
        moved: &["refs/notes/commits"],
        switches: false,
    },
    Form {
        line: "git notes add -f -m replaced HEAD",
        moved: &["refs/notes/commits"],
        switches: false,
    },
    Form {
        line: "git notes prune && git notes remove HEAD~1",
        moved: &["refs/notes/commits"],
        switches: false,
    },
    Form {
        line: "git stash drop stash@{1}",
        moved: &[],
        switches: false,
    },
    Form {
        line: "while git stash drop -q 2>/dev/null; do :; done",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git branch -dr origin/main",
        moved: &["refs/remotes/origin/HEAD"],
        switches: false,
    },
    Form {
        line: "git remote remove origin",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git remote set-head origin -d",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git fetch -q -f . refs/heads/topic:refs/tags/v2",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git stash clear",
        moved: &[],
        switches: false,
    },
    Form {
        line: "git checkout -q -f -B topic",
        moved: &["HEAD", "refs/heads/topic"],
        switches: true,
    },
    Form {
        line: "git switch -q -f -C other HEAD~1",
        moved: &["HEAD", "refs/heads/other"],
        switches: true,
    },
    Form {
        line: "git update-ref HEAD HEAD~1",
        moved: &["HEAD", "refs/heads/main", "refs/heads/master"],
        switches: false,
    },
];

#[test]
fn every_ref_form_is_undone_to_the_same_refs_stash_list_and_reflogs() {
    for form in FORMS {
        let env = TestEnv::new();
        populate(&env);
        // Local changes too: a forced switch throws them away.
        env.write("src/main.rs", "fn main() { /* local */ }\n");
        let work = std::fs::read(env.ws().join("src/main.rs")).unwrap();
        let before = refs(&env);
        let line = form.line;
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert!(
            report["code"]
                .as_str()
                .is_some_and(|c| c.starts_with("SNAPSHOT_GIT")),
            "{line}: {report}"
        );
        let ids = txids(&report);
        assert!(!ids.is_empty(), "{line}: {report}");
        let status = env
            .std_cmd("sh")
            .args(["-c", line])
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
        assert_ne!(refs(&env), before, "{line}: the command changes refs");
        for _ in &ids {
            let output = env.ag(&["undo", "--force", "--json"]);
            assert!(output.status.success(), "{line}: {output:?}");
        }
        let after = refs(&env);
        assert_eq!(after.listed, before.listed, "{line}: for-each-ref");
        if form.switches {
            // A branch switch is not undone (as `git checkout other` is not): the refs
            // are back, and `HEAD` still names the branch the command checked out.
            assert_ne!(after.head, before.head, "{line}: HEAD");
        } else {
            assert_eq!(after.head, before.head, "{line}: HEAD");
        }
        assert_eq!(after.stash, before.stash, "{line}: stash list");
        for (name, lines) in &before.reflogs {
            let now = after.reflogs.get(name).map_or("", String::as_str);
            if form.moved.contains(&name.as_str()) {
                assert!(
                    keeps_every_line(lines, now),
                    "{line}: reflog {name} lost lines:\n{lines}\nnow:\n{now}"
                );
            } else {
                assert_eq!(now, lines, "{line}: reflog {name}");
            }
        }
        assert_eq!(
            std::fs::read(env.ws().join("src/main.rs")).unwrap(),
            work,
            "{line}: local changes"
        );
    }
}

/// The stash is one list for every worktree of a repository: `git stash clear` in a linked
/// worktree drops the entries the main one made, and undo there brings them all back; a
/// snapshot in the linked worktree never touches the stack.
#[test]
fn the_stash_list_is_shared_by_every_worktree() {
    let env = TestEnv::new();
    populate(&env);
    let linked = env.ws().join("linked");
    git(&env, &["worktree", "add", "-q", "linked", "topic"]);
    let list = git(&env, &["stash", "list", "--format=%H %gs"]);
    assert_eq!(list.lines().count(), 2);
    std::fs::write(linked.join("src/main.rs"), "fn main() { /* linked */ }\n").unwrap();
    let run = |args: &[&str]| {
        env.cmd("agent-guard")
            .args(args)
            .current_dir(&linked)
            .output()
            .unwrap()
    };
    let report = run(&["check", "--enforce", "--json", "--", "git reset --hard"]);
    assert!(report.status.success(), "{report:?}");
    assert_eq!(
        git(&env, &["stash", "list", "--format=%H %gs"]),
        list,
        "a snapshot does not use the stash stack"
    );
    let report = run(&["check", "--enforce", "--json", "--", "git stash clear"]);
    assert!(report.status.success(), "{report:?}");
    let status = std::process::Command::new("git")
        .args(["stash", "clear"])
        .current_dir(&linked)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(git(&env, &["stash", "list"]), "");
    let undo = run(&["undo", "--json"]);
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(git(&env, &["stash", "list", "--format=%H %gs"]), list);
}

/// File lists built at run time and handed to `git checkout --` / `git restore` (piped
/// through `xargs`, substituted, read from a file) discard what they name: every tracked
/// change is kept first, and undo brings each back byte for byte.
#[test]
fn discards_of_pathspecs_built_at_run_time_are_undone() {
    for line in [
        "git ls-files -m | xargs git checkout --",
        "git diff --name-only | xargs git restore",
        "git diff --name-only | xargs -I{} git checkout HEAD -- {}",
        "git checkout -- $(git ls-files -m)",
        "git restore --pathspec-from-file=list.txt",
    ] {
        let env = TestEnv::new();
        populate(&env);
        env.write("src/main.rs", "fn main() { /* local */ }\n");
        env.write("src/second.rs", "// changed\n");
        env.write("list.txt", "src/main.rs\nsrc/second.rs\n");
        let before = crate::support::snapshot(env.ws(), &["**"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_GIT_STASH", "{line}: {report}");
        let status = env.std_cmd("sh").args(["-c", line]).status().unwrap();
        assert!(status.success(), "{line}");
        assert_ne!(
            crate::support::snapshot(env.ws(), &["**"]),
            before,
            "{line}: the command discards the changes"
        );
        let output = env.ag(&["undo", "--json"]);
        assert!(output.status.success(), "{line}: {output:?}");
        assert_eq!(
            crate::support::snapshot(env.ws(), &["**"]),
            before,
            "{line}: undone"
        );
    }
}

/// `git filter-branch -f` rewrites the branch and replaces the `refs/original/` backup the run
/// before made: undo puts every ref back.
#[test]
fn filter_branch_over_an_earlier_backup_is_undone() {
    let env = TestEnv::new();
    populate(&env);
    git(&env, &["stash", "clear"]);
    let filter = |line: &str| {
        env.std_cmd("sh")
            .args(["-c", line])
            .env("FILTER_BRANCH_SQUELCH_WARNING", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .unwrap()
    };
    // An earlier rewrite left its backup under refs/original/.
    let earlier = filter("git filter-branch --msg-filter 'sed s/second/2nd/' HEAD");
    assert!(earlier.status.success(), "{earlier:?}");
    let before = refs(&env);
    assert!(
        before.listed.contains("refs/original/"),
        "{}",
        before.listed
    );
    let line = "git filter-branch -f --msg-filter 'sed s/2nd/two/' HEAD";
    let (exit, report) = enforce(&env, line);
    assert_eq!(exit, 0, "{report}");
    let ids = txids(&report);
    assert_eq!(ids.len(), 2, "a checkpoint and the refs: {report}");
    let output = filter(line);
    assert!(output.status.success(), "{output:?}");
    assert_ne!(
        refs(&env).listed,
        before.listed,
        "the branch and its backup moved"
    );
    for txid in &ids {
        let output = env.ag(&["restore", "--force", "--json", txid]);
        assert!(output.status.success(), "{output:?}");
    }
    assert_eq!(refs(&env).listed, before.listed);
}

/// Patches applied in reverse or onto files the index does not know rewrite work the index
/// does not hold: `git diff | git apply -R` throws every uncommitted change away, `git apply`
/// edits an untracked file. Each is checkpointed, and undo brings the files back.
#[test]
fn patches_over_uncommitted_and_untracked_files_are_undone() {
    for line in [
        "git diff | git apply -R",
        "git diff > wip.patch && git apply -R wip.patch",
        "git apply -R --reject untracked.patch",
        "git apply untracked.patch",
    ] {
        let env = TestEnv::new();
        env.write("src/main.rs", "fn main() { /* uncommitted */ }\n");
        env.write("draft.txt", "one\ntwo\n");
        // A patch that turns the untracked draft back into its first version, and one that
        // edits it forward.
        env.write(
            "untracked.patch",
            "--- a/draft.txt\n+++ b/draft.txt\n@@ -1 +1,2 @@\n one\n+two\n",
        );
        if line == "git apply untracked.patch" {
            env.write(
                "untracked.patch",
                "--- a/draft.txt\n+++ b/draft.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n",
            );
        }
        let before = crate::support::snapshot(env.ws(), &["**"]);
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        let ids = txids(&report);
        assert!(!ids.is_empty(), "{line}: {report}");
        let output = env.std_cmd("sh").args(["-c", line]).output().unwrap();
        assert!(output.status.success(), "{line}: {output:?}");
        assert_ne!(
            crate::support::snapshot(env.ws(), &["**"]),
            before,
            "{line}: the patch changes files"
        );
        for txid in &ids {
            let output = env.ag(&["restore", "--json", txid]);
            assert!(output.status.success(), "{line}: {output:?}");
        }
        let after = crate::support::snapshot(env.ws(), &["**"]);
        for path in ["src/main.rs", "draft.txt"] {
            let key = path.as_bytes().to_vec();
            assert_eq!(
                after.get(&key).map(|e| &e.data),
                before.get(&key).map(|e| &e.data),
                "{line}: {path}"
            );
        }
    }
}

/// `git reflog expire --all` in a linked worktree expires every worktree's `HEAD` reflog too:
/// a commit only the main worktree's `HEAD` reflog reaches survives `gc --prune=now`, and undo
/// writes that reflog back.
#[test]
fn reflog_expire_in_a_linked_worktree_keeps_every_worktree_head() {
    let env = TestEnv::new();
    populate(&env);
    // A commit only the main worktree's HEAD reflog reaches.
    git(&env, &["checkout", "-q", "--detach"]);
    env.write("src/detached.rs", "// only HEAD's reflog has this\n");
    git(&env, &["add", "src/detached.rs"]);
    git(&env, &["commit", "-q", "-m", "detached"]);
    let lost = git(&env, &["rev-parse", "HEAD"]).trim().to_owned();
    git(&env, &["checkout", "-q", "-"]);
    let main_log = env.ws().join(".git/logs/HEAD");
    let before = std::fs::read_to_string(&main_log).unwrap();
    assert!(before.contains(&lost));
    let linked = env.ws().join("linked");
    git(&env, &["worktree", "add", "-q", "linked", "topic"]);
    let line = "git reflog expire --expire=now --expire-unreachable=now --all";
    let report = env
        .cmd("agent-guard")
        .args(["check", "--enforce", "--json", "--", line])
        .current_dir(&linked)
        .output()
        .unwrap();
    assert!(report.status.success(), "{report:?}");
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(report["code"], "SNAPSHOT_GIT_REFS", "{report}");
    let status = std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(&linked)
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        !std::fs::read_to_string(&main_log)
            .unwrap_or_default()
            .contains(&lost),
        "the main worktree's HEAD reflog was expired"
    );
    git(&env, &["gc", "-q", "--prune=now"]);
    assert_eq!(
        git(&env, &["cat-file", "-t", &lost]).trim(),
        "commit",
        "the commit survives gc"
    );
    for txid in txids(&report) {
        let output = env
            .cmd("agent-guard")
            .args(["restore", "--json", &txid])
            .current_dir(&linked)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    }
    assert_eq!(std::fs::read_to_string(&main_log).unwrap(), before);
}

/// A prune deletes the remote-tracking ref of a branch deleted upstream (the last pointer to
/// its commit), and a refspec onto `refs/heads/` deletes local branches: after undo every ref
/// is back (outside reviews, issue 37 point 1).
#[test]
fn pruning_fetches_are_undone() {
    for line in [
        "git fetch --prune origin",
        "git -c fetch.prune=true fetch origin",
        "git fetch -p origin 'refs/heads/*:refs/heads/*'",
        "git remote prune origin",
    ] {
        let env = TestEnv::new();
        let upstream = env.ws().parent().unwrap().join("upstream.git");
        crate::support::git_in(
            env.ws().parent().unwrap(),
            &["init", "-q", "--bare", "upstream.git"],
        );
        let upstream_text = upstream.to_str().unwrap();
        git(&env, &["remote", "add", "origin", upstream_text]);
        git(&env, &["checkout", "-q", "-b", "topic"]);
        env.write("src/topic.rs", "// only on topic\n");
        git(&env, &["add", "src/topic.rs"]);
        git(&env, &["commit", "-q", "-m", "only on topic"]);
        git(&env, &["push", "-q", "origin", "topic"]);
        git(&env, &["checkout", "-q", "-"]);
        // A local-only branch a mirror refspec would delete.
        git(&env, &["branch", "local-only"]);
        git(&env, &["fetch", "-q", "origin"]);
        git(&env, &["branch", "-D", "-q", "topic"]);
        crate::support::git_in(&upstream, &["branch", "-D", "topic"]);
        let before = refs(&env);
        assert!(
            before.listed.contains("refs/remotes/origin/topic"),
            "{line}"
        );
        let (exit, report) = enforce(&env, line);
        assert_eq!(exit, 0, "{line}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_GIT_REFS", "{line}: {report}");
        let output = env.std_cmd("sh").args(["-c", line]).output().unwrap();
        assert!(output.status.success(), "{line}: {output:?}");
        assert_ne!(refs(&env).listed, before.listed, "{line}: refs were pruned");
        for txid in txids(&report) {
            let output = env.ag(&["restore", "--force", "--json", &txid]);
            assert!(output.status.success(), "{line}: {output:?}");
        }
        assert_eq!(refs(&env).listed, before.listed, "{line}");
    }
}

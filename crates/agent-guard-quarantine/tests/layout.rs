//! `ensure_layout` against a real git (the `git` CLI is the oracle).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agent_guard_quarantine::{EXCLUDE_COMMENT, LayoutReport, QuarantineError, ensure_layout};

/// A quarantine created and made a nested repository, with no exclude rule needed.
const CREATED_IN_GIT: LayoutReport = LayoutReport {
    exclude_added: false,
    created: true,
    git_initialized: true,
};

/// A quarantine created outside any git repository.
const CREATED_OUTSIDE_GIT: LayoutReport = LayoutReport {
    exclude_added: false,
    created: true,
    git_initialized: false,
};

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid");
    command
}

fn git_output(dir: &Path, args: &[&str]) -> Output {
    git_command(dir, args).output().expect("git runs")
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_output(dir, args);
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("git prints UTF-8 here")
}

/// A temporary repository with one commit and a tracked file.
fn repository() -> (tempfile::TempDir, PathBuf) {
    repository_with(&[])
}

/// A temporary repository created without git's templates: `.git/info` does not exist.
fn repository_without_info() -> (tempfile::TempDir, PathBuf) {
    let (dir, workspace) = repository_with(&["--template="]);
    assert!(!workspace.join(".git/info").exists());
    (dir, workspace)
}

fn repository_with(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let workspace = dir.path().join("ws");
    fs_err::create_dir(&workspace).expect("workspace directory");
    let mut init = vec!["init", "-q", "-b", "main"];
    init.extend_from_slice(extra);
    git(&workspace, &init);
    fs_err::write(workspace.join("tracked.txt"), "v1\n").expect("tracked file");
    git(&workspace, &["add", "tracked.txt"]);
    git(&workspace, &["commit", "-q", "-m", "init"]);
    (dir, workspace)
}

fn exclude_of(workspace: &Path) -> PathBuf {
    workspace.join(".git/info/exclude")
}

fn read_or_empty(path: &Path) -> String {
    fs_err::read_to_string(path).unwrap_or_default()
}

#[test]
fn quarantine_is_invisible_to_git_and_survives_its_destructive_commands() {
    let (_dir, workspace) = repository();
    let trash = workspace.join(".agent-trash");
    let report = ensure_layout(&workspace, &trash).unwrap();
    assert_eq!(
        report,
        LayoutReport {
            exclude_added: true,
            created: true,
            git_initialized: true
        }
    );

    assert_eq!(
        git(&workspace, &["status", "--porcelain", "--ignored=no"]),
        ""
    );
    assert!(
        git_output(&workspace, &["check-ignore", "-q", ".agent-trash/"])
            .status
            .success()
    );
    let exclude = read_or_empty(&exclude_of(&workspace));
    assert!(
        exclude.contains(&format!("{EXCLUDE_COMMENT}\n/.agent-trash/\n")),
        "{exclude}"
    );

    // Payload inside the quarantine, plus real work-tree changes for stash to act on.
    fs_err::create_dir_all(trash.join("20261130-045130-deadbeef/src")).unwrap();
    let payload = trash.join("20261130-045130-deadbeef/src/kept.txt");
    fs_err::write(&payload, "precious\n").unwrap();
    assert!(
        git_output(
            &workspace,
            &[
                "check-ignore",
                "-q",
                ".agent-trash/20261130-045130-deadbeef/src/kept.txt"
            ]
        )
        .status
        .success()
    );
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");

    git(&workspace, &["add", "-A"]);
    assert_eq!(git(&workspace, &["diff", "--cached", "--name-only"]), "");
    assert_eq!(git(&workspace, &["ls-files", "--", ".agent-trash"]), "");

    fs_err::write(workspace.join("tracked.txt"), "v2\n").unwrap();
    fs_err::write(workspace.join("untracked.txt"), "u\n").unwrap();
    git(&workspace, &["stash", "-u", "-q"]);
    assert!(
        !workspace.join("untracked.txt").exists(),
        "stash -u did stash untracked files"
    );
    assert_eq!(fs_err::read_to_string(&payload).unwrap(), "precious\n");

    fs_err::write(workspace.join("junk.o"), "j").unwrap();
    git(&workspace, &["clean", "-fdx", "-q"]);
    assert!(!workspace.join("junk.o").exists(), "clean -fdx did clean");
    assert_eq!(fs_err::read_to_string(&payload).unwrap(), "precious\n");
    assert!(trash.join(".git/HEAD").is_file());
}

#[test]
fn second_call_is_a_no_op() {
    let (_dir, workspace) = repository();
    let trash = workspace.join(".agent-trash");
    ensure_layout(&workspace, &trash).unwrap();
    let exclude = read_or_empty(&exclude_of(&workspace));
    assert_eq!(
        ensure_layout(&workspace, &trash).unwrap(),
        LayoutReport::default()
    );
    assert_eq!(read_or_empty(&exclude_of(&workspace)), exclude);
}

#[test]
fn existing_rule_is_not_duplicated_and_missing_newline_is_added() {
    let (_dir, workspace) = repository();
    let exclude = exclude_of(&workspace);
    fs_err::write(&exclude, "*.log").unwrap();
    let trash = workspace.join("scratch/q");
    let report = ensure_layout(&workspace, &trash).unwrap();
    assert!(report.exclude_added);
    assert_eq!(
        read_or_empty(&exclude),
        format!("*.log\n{EXCLUDE_COMMENT}\n/scratch/q/\n")
    );
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");

    // A quarantine created by an older tool (rule present, no nested repository) only gets
    // its repository.
    let (_dir2, workspace) = repository();
    let exclude = exclude_of(&workspace);
    fs_err::write(&exclude, ".agent-trash\n").unwrap();
    fs_err::create_dir(workspace.join(".agent-trash")).unwrap();
    let report = ensure_layout(&workspace, &workspace.join(".agent-trash")).unwrap();
    assert_eq!(
        report,
        LayoutReport {
            exclude_added: false,
            created: false,
            git_initialized: true
        }
    );
    assert_eq!(read_or_empty(&exclude), ".agent-trash\n");
}

#[test]
fn unwritable_exclude_without_rule_is_an_error_and_creates_nothing() {
    let (_dir, workspace) = repository_without_info();
    let info = workspace.join(".git/info");
    // A file where the `info` directory should be cannot be written even by root (a
    // read-only mode would not stop root).
    fs_err::write(&info, "not a directory").unwrap();
    let trash = workspace.join(".agent-trash");
    let error = ensure_layout(&workspace, &trash).unwrap_err();
    assert!(
        matches!(error, QuarantineError::Exclude { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("info"), "{error}");
    assert!(
        !trash.exists(),
        "a refused layout must not leave an untracked directory"
    );
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");
}

#[cfg(unix)]
#[test]
fn read_only_info_without_rule_is_an_error_when_permissions_apply() {
    use std::os::unix::fs::PermissionsExt as _;

    let (_dir, workspace) = repository();
    let info = workspace.join(".git/info");
    fs_err::create_dir_all(&info).unwrap();
    let exclude = info.join("exclude");
    fs_err::write(&exclude, "").unwrap();
    fs_err::set_permissions(&exclude, std::fs::Permissions::from_mode(0o444)).unwrap();
    fs_err::set_permissions(&info, std::fs::Permissions::from_mode(0o555)).unwrap();
    let writable = fs_err::OpenOptions::new()
        .append(true)
        .open(&exclude)
        .is_ok();
    let trash = workspace.join(".agent-trash");
    let result = ensure_layout(&workspace, &trash);
    fs_err::set_permissions(&info, std::fs::Permissions::from_mode(0o755)).unwrap();
    if writable {
        // Running as root: permissions do not apply; the other test covers the error path.
        assert!(result.is_ok());
        return;
    }
    assert!(
        matches!(result, Err(QuarantineError::Exclude { .. })),
        "{result:?}"
    );
    assert!(!trash.exists());
}

fn commit_gitignore(workspace: &Path) {
    fs_err::write(workspace.join(".gitignore"), ".agent-trash/\n").expect("gitignore");
    git(workspace, &["add", ".gitignore"]);
    git(workspace, &["commit", "-q", "-m", "ignore"]);
}

#[test]
fn tracked_gitignore_rule_is_enough_and_exclude_is_untouched() {
    let (_dir, workspace) = repository();
    commit_gitignore(&workspace);
    let exclude = exclude_of(&workspace);
    let before = read_or_empty(&exclude);
    let trash = workspace.join(".agent-trash");
    let report = ensure_layout(&workspace, &trash).unwrap();
    assert_eq!(report, CREATED_IN_GIT);
    assert_eq!(read_or_empty(&exclude), before);
    assert_eq!(
        fs_err::read_to_string(workspace.join(".gitignore")).unwrap(),
        ".agent-trash/\n"
    );
    fs_err::write(trash.join("payload"), "p").unwrap();
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");
}

#[test]
fn tracked_gitignore_rule_is_enough_when_exclude_is_unwritable() {
    let (_dir, workspace) = repository_without_info();
    commit_gitignore(&workspace);
    let info = workspace.join(".git/info");
    fs_err::write(&info, "not a directory").unwrap();
    let trash = workspace.join(".agent-trash");
    let report = ensure_layout(&workspace, &trash).unwrap();
    assert_eq!(report, CREATED_IN_GIT);
    assert_eq!(fs_err::read_to_string(&info).unwrap(), "not a directory");
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");
}

#[test]
fn no_git_just_creates_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path().join(".agent-trash");
    let report = ensure_layout(dir.path(), &trash).unwrap();
    assert_eq!(report, CREATED_OUTSIDE_GIT);
    assert!(trash.is_dir());
    assert!(!trash.join(".git").exists());
    assert_eq!(
        ensure_layout(dir.path(), &trash).unwrap(),
        LayoutReport::default()
    );
}

#[test]
fn workspace_that_becomes_a_repository_later_is_protected_then() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path();
    let trash = workspace.join(".agent-trash");
    ensure_layout(workspace, &trash).unwrap();
    git(workspace, &["init", "-q"]);
    let report = ensure_layout(workspace, &trash).unwrap();
    assert_eq!(
        report,
        LayoutReport {
            exclude_added: true,
            created: false,
            git_initialized: true
        }
    );
    assert_eq!(git(workspace, &["status", "--porcelain"]), "");
}

#[test]
fn quarantine_outside_the_workspace_gets_no_rule() {
    let (dir, workspace) = repository();
    let trash = dir.path().join("elsewhere");
    let report = ensure_layout(&workspace, &trash).unwrap();
    assert_eq!(report, CREATED_OUTSIDE_GIT);
    assert!(!read_or_empty(&exclude_of(&workspace)).contains("elsewhere"));
}

#[test]
fn quarantine_equal_to_the_workspace_is_refused() {
    let (_dir, workspace) = repository();
    for trash in [workspace.join("."), workspace.join("sub/..")] {
        let error = ensure_layout(&workspace, &trash).unwrap_err();
        assert!(
            matches!(error, QuarantineError::TrashIsWorkspace { .. }),
            "{error:?}"
        );
    }
    let plain = tempfile::tempdir().unwrap();
    let error = ensure_layout(plain.path(), plain.path()).unwrap_err();
    assert!(
        matches!(error, QuarantineError::TrashIsWorkspace { .. }),
        "{error:?}"
    );
}

#[test]
fn worktree_rule_goes_to_the_common_exclude() {
    let (dir, workspace) = repository();
    let worktree = dir.path().join("wt");
    git(
        &workspace,
        &["worktree", "add", "-q", worktree.to_str().unwrap()],
    );
    let trash = worktree.join(".agent-trash");
    let report = ensure_layout(&worktree, &trash).unwrap();
    assert!(report.exclude_added && report.git_initialized);
    assert!(read_or_empty(&exclude_of(&workspace)).contains("/.agent-trash/"));
    fs_err::write(trash.join("payload"), "p").unwrap();
    assert_eq!(git(&worktree, &["status", "--porcelain"]), "");
}

#[cfg(unix)]
#[test]
fn symlinked_workspace_uses_physical_spellings() {
    let (dir, workspace) = repository();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&workspace, &link).unwrap();
    let report = ensure_layout(&link, &link.join(".agent-trash")).unwrap();
    assert!(report.exclude_added);
    assert!(read_or_empty(&exclude_of(&workspace)).contains("\n/.agent-trash/\n"));
    assert_eq!(git(&workspace, &["status", "--porcelain"]), "");
}

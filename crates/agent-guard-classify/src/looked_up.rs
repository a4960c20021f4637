//! The names a line's commands are found by through `PATH` (issue 35, point 6, the
//! environment's part). `git status` runs whatever `git` the shell finds first: when the
//! agent's `PATH` puts a workspace directory (`./node_modules/.bin`, `tools`) before the
//! system's, or cmd finds a `git.bat` in the working directory, the line runs the
//! workspace's own program. Which file a name finds is a fact of the environment, not of the
//! line: the classifier only lists the names ([`crate::Classification::looked_up`]); the
//! engine looks them up.
//!
//! Every command word the classifier judges by its name is noted here, at any depth (`bash
//! -c '…'`, `xargs rm`, `env git …`), while a [`collect`] runs: a thread-local list, so the
//! nested classifications need no plumbing of their own.

use std::cell::RefCell;

use agent_guard_types::Dialect;

thread_local! {
    static NOTED: RefCell<Option<Vec<(String, Dialect)>>> = const { RefCell::new(None) };
    static GIT_RUNS: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Notes that a git command runs subcommand `sub` (lower-cased; `*` when it is not literal):
/// whether the repository's configuration or hooks run a program for it is the world's
/// fact ([`crate::Classification::git_runs`]).
pub(crate) fn note_git(sub: &str) {
    GIT_RUNS.with(|runs| {
        if let Some(subs) = runs.borrow_mut().as_mut()
            && !subs.iter().any(|s| s == sub)
        {
            subs.push(sub.to_owned());
        }
    });
}

/// Commands of the POSIX shells that are never looked up in `PATH` (special and regular
/// built-ins of sh and bash that take no program).
const POSIX_BUILTINS: &[&str] = &[
    ".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue", "declare",
    "echo", "eval", "exec", "exit", "export", "false", "fg", "getopts", "hash", "jobs", "let",
    "local", "printf", "pushd", "popd", "pwd", "read", "readonly", "return", "set", "shift",
    "source", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias",
    "unset", "wait",
];

/// cmd's internal commands, never looked up in the working directory or `PATH`.
const CMD_BUILTINS: &[&str] = &[
    "assoc", "break", "call", "cd", "chdir", "cls", "color", "copy", "date", "del", "dir", "echo",
    "endlocal", "erase", "exit", "for", "ftype", "goto", "if", "md", "mkdir", "mklink", "move",
    "path", "popd", "prompt", "pushd", "rd", "rem", "ren", "rename", "rmdir", "set", "setlocal",
    "shift", "start", "time", "title", "type", "ver", "verify", "vol",
];

/// Notes that a command named `name` (a literal word, not a path) runs in `dialect`
/// (`cmd /c git` from PowerShell or POSIX looks `git` up as cmd does).
pub(crate) fn note(name: &str, dialect: Dialect) {
    if name.is_empty() || name.contains(['/', '\\']) || builtin(name, dialect) {
        return;
    }
    NOTED.with(|noted| {
        if let Some(names) = noted.borrow_mut().as_mut()
            && !names.iter().any(|(n, d)| n == name && *d == dialect)
        {
            names.push((name.to_owned(), dialect));
        }
    });
}

/// Notes that a command named `name` runs in `dialect` after the line changed to the
/// literal directory `dir`: cmd searches `dir` for it first (`cd sub & git status` runs a
/// `sub\\git.bat`). Noted as the path `dir/name`, which the search joins to the working
/// directory.
pub(crate) fn note_in(dir: &str, name: &str, dialect: Dialect) {
    if name.is_empty() || name.contains(['/', '\\']) || builtin(name, dialect) {
        return;
    }
    note_raw(format!("{}/{name}", dir.trim_end_matches('/')), dialect);
}

fn note_raw(name: String, dialect: Dialect) {
    NOTED.with(|noted| {
        if let Some(names) = noted.borrow_mut().as_mut()
            && !names.iter().any(|(n, d)| *n == name && *d == dialect)
        {
            names.push((name, dialect));
        }
    });
}

/// Whether `name` is a built-in of `dialect` (a PowerShell cmdlet's `Verb-Noun` name is one:
/// cmdlets come before external programs).
pub(crate) fn builtin(name: &str, dialect: Dialect) -> bool {
    match dialect {
        Dialect::Posix => POSIX_BUILTINS.contains(&name),
        Dialect::Cmd => CMD_BUILTINS.contains(&name.to_ascii_lowercase().as_str()),
        Dialect::PowerShell => name.contains('-'),
    }
}

/// Runs `classify` while noting the git subcommands its commands run; returns its result
/// and the subcommands, in line order, each once. A nested call adds to the outer list.
pub(crate) fn collect_git<T>(classify: impl FnOnce() -> T) -> (T, Vec<String>) {
    collect_in(&GIT_RUNS, classify)
}

/// Runs `classify` while noting the names its commands are looked up by; returns its
/// result and the names, in line order, each once. A nested call adds to the outer list.
pub(crate) fn collect<T>(classify: impl FnOnce() -> T) -> (T, Vec<(String, Dialect)>) {
    collect_in(&NOTED, classify)
}

/// Runs `classify` with a fresh list in `list`; returns its result and what was noted,
/// adding it to the list of an outer call.
fn collect_in<T, N: Clone + PartialEq + 'static>(
    list: &'static std::thread::LocalKey<RefCell<Option<Vec<N>>>>,
    classify: impl FnOnce() -> T,
) -> (T, Vec<N>) {
    let outer = list.with(|noted| noted.borrow_mut().replace(Vec::new()));
    let result = classify();
    let noted = list.with(|noted| {
        let mine = noted.borrow_mut().take().unwrap_or_default();
        if let Some(mut outer) = outer {
            for item in &mine {
                if !outer.contains(item) {
                    outer.push(item.clone());
                }
            }
            *noted.borrow_mut() = Some(outer);
        }
        mine
    });
    (result, noted)
}

#[cfg(test)]
mod tests {
    use agent_guard_types::Dialect;

    fn looked_up(line: &str, dialect: Dialect) -> Vec<String> {
        crate::classify(line, dialect)
            .looked_up
            .into_iter()
            .map(|(name, _)| name)
            .collect()
    }

    #[test]
    fn every_command_found_through_path_is_listed_at_any_depth() {
        assert_eq!(looked_up("git status", Dialect::Posix), ["git"]);
        assert_eq!(
            looked_up("cd src && ls -la | grep x; echo done", Dialect::Posix),
            ["ls", "grep"]
        );
        assert_eq!(
            looked_up("env LC_ALL=C git log && sudo make", Dialect::Posix),
            ["env", "git", "sudo", "make"]
        );
        assert_eq!(
            looked_up("bash -c 'eslint . && prettier -w x'", Dialect::Posix),
            ["bash", "eslint", "prettier"]
        );
        assert_eq!(
            looked_up("find . -name x | xargs wc -l", Dialect::Posix)[..2],
            ["find", "xargs"]
        );
        // Paths are the line's own part (`own_programs`), not a lookup.
        assert!(looked_up("./tools/git status", Dialect::Posix).is_empty());
        assert_eq!(looked_up("dir & git status", Dialect::Cmd), ["git"]);
        assert_eq!(
            looked_up("Get-ChildItem; git status", Dialect::PowerShell),
            ["git"]
        );
        // Each name once, and nothing left behind for the next line.
        assert_eq!(looked_up("git a; git b", Dialect::Posix), ["git"]);
        assert_eq!(looked_up("true", Dialect::Posix), Vec::<String>::new());
    }

    #[test]
    fn a_name_is_listed_with_the_dialect_that_looks_it_up() {
        let cmd = |line: &str, dialect| crate::classify(line, dialect).looked_up;
        let git_in_cmd = vec![("git".to_owned(), Dialect::Cmd)];
        assert_eq!(cmd("start git status", Dialect::Cmd), git_in_cmd);
        assert_eq!(cmd("start \"\" /b git status", Dialect::Cmd), git_in_cmd);
        assert!(cmd("cmd /c git status", Dialect::Posix).contains(&git_in_cmd[0]));
        assert!(cmd("cmd.exe /c 'git status'", Dialect::Posix).contains(&git_in_cmd[0]));
        assert!(cmd("cmd /c git status", Dialect::PowerShell).contains(&git_in_cmd[0]));
        // After a literal directory change, cmd searches that directory.
        let in_sub = ("sub/git".to_owned(), Dialect::Cmd);
        assert_eq!(
            cmd("cd sub & git status", Dialect::Cmd),
            std::slice::from_ref(&in_sub)
        );
        assert_eq!(cmd("pushd sub && git status", Dialect::Cmd), [in_sub]);
        assert_eq!(
            cmd("cd a & cd b & git log", Dialect::Cmd),
            [("a/b/git".to_owned(), Dialect::Cmd)]
        );
    }
}

//! What a repository makes git run (issue 35, point 6): its stored configuration's keys
//! and its active hooks. A program the guard cannot see into may write `core.fsmonitor`
//! into `.git/config` or a `pre-commit` hook into `.git/hooks/`; the next `git status` or
//! `git commit` then runs it, though the line shows only git. The engine decides which
//! subcommands that concerns; this probe only reads, without starting git.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The most bytes of a configuration file read; a larger one is not followed.
const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// What a repository's stored configuration and hooks hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepoPrograms {
    /// The keys (`section.subsection.key`, section and key lower-cased) and values of the
    /// repository's own configuration files (`config`, `config.worktree`), in file order.
    pub entries: Vec<(String, Option<String>)>,
    /// Something in them the reader does not follow as git does (an include, a line it
    /// cannot parse, a file too large or unreadable): what git runs is not known.
    pub unreadable: Option<String>,
    /// The hooks git would run: executable files in the hooks directory (`core.hooksPath`
    /// or the repository's `hooks/`), sample files left out.
    pub hooks: Vec<String>,
}

/// The hooks git runs by name (`githooks(5)`); no other file of the hooks directory runs.
const HOOK_NAMES: &[&str] = &[
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// What the repository that `cwd` lies in makes git run (`home` for a `core.hooksPath`
/// that starts with `~/`); `None` outside a repository.
pub fn repository_programs(cwd: &Path, home: Option<&Path>) -> Option<RepoPrograms> {
    let mut found = RepoPrograms::default();
    let (work_tree, git_dir) = match find_git_dir(cwd)? {
        Ok(found) => found,
        Err(why) => {
            found.unreadable = Some(why);
            return Some(found);
        }
    };
    let common = match std::fs::read(git_dir.join("commondir")) {
        Ok(bytes) => {
            let Some(dir) = exact_path(&bytes) else {
                found.unreadable = Some("the repository's commondir file is not plain".into());
                return Some(found);
            };
            git_dir.join(dir)
        }
        Err(_) => git_dir.clone(),
    };
    // git reads `config.worktree` only with `extensions.worktreeConfig`; the guard reads
    // it either way and takes the hooks of every directory either file names.
    let mut dirs = vec![common.join("hooks")];
    for file in [common.join("config"), git_dir.join("config.worktree")] {
        let start = found.entries.len();
        read_config(&file, &mut found);
        let hooks_path = found.entries[start..]
            .iter()
            .rev()
            .find(|(key, _)| key == "core.hookspath")
            .and_then(|(_, value)| value.clone());
        if let Some(path) = hooks_path {
            dirs.push(match (path.strip_prefix("~/"), home) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => work_tree.join(path),
            });
        }
    }
    for dir in dirs {
        for hook in active_hooks(&dir) {
            if !found.hooks.contains(&hook) {
                found.hooks.push(hook);
            }
        }
    }
    submodules(&work_tree, &common, &mut found);
    Some(found)
}

/// The most submodule repositories read.
const MAX_SUBMODULES: usize = 32;

/// Adds what the repository's submodules make git run (`git status` and others recurse
/// into them): their git directories below `modules/` and the `.git` directories of the
/// paths `.gitmodules` names. Not seen: a repository embedded without `.gitmodules`.
fn submodules(work_tree: &Path, common: &Path, found: &mut RepoPrograms) {
    let mut git_dirs: Vec<PathBuf> = Vec::new();
    let mut pending = vec![common.join("modules")];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok).take(MAX_SUBMODULES) {
            let path = entry.path();
            if is_git_dir(&path) {
                pending.push(path.join("modules"));
                git_dirs.push(path);
            } else if path.is_dir() {
                // A submodule named with a `/` (`modules/lib/core`).
                pending.push(path);
            }
            if git_dirs.len() >= MAX_SUBMODULES {
                break;
            }
        }
    }
    if let Ok(text) = std::fs::read_to_string(work_tree.join(".gitmodules")) {
        let mut entries = Vec::new();
        if parse(&text, &mut entries).is_err() {
            found.unreadable = Some(".gitmodules is not read as git reads it".into());
        }
        for (key, value) in entries {
            if key.starts_with("submodule.")
                && key.rsplit('.').next() == Some("path")
                && let Some(path) = value
            {
                let dot_git = work_tree.join(path).join(".git");
                if is_git_dir(&dot_git) {
                    git_dirs.push(dot_git);
                }
            }
        }
    }
    for git_dir in git_dirs.into_iter().take(MAX_SUBMODULES) {
        read_config(&git_dir.join("config"), found);
        for hook in active_hooks(&git_dir.join("hooks")) {
            if !found.hooks.contains(&hook) {
                found.hooks.push(hook);
            }
        }
    }
}

/// A path as git reads it from a `.git` file or `commondir`: the bytes up to a trailing
/// newline (git strips `\n` and `\r` only); `None` when it is not UTF-8 or has other
/// blanks at either end, which the guard could read differently from git.
fn exact_path(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.trim_end_matches(['\n', '\r']);
    (!text.is_empty() && text.trim_ascii() == text && !text.contains(['\n', '\r']))
        .then(|| text.to_owned())
}

/// The work tree and git directory of the repository `cwd` lies in, found as git finds it:
/// in each directory up from `cwd`, a `.git` directory that is a repository, or a `.git`
/// file (`gitdir: …`, a linked worktree or a submodule), or the directory itself when it is
/// a repository (a bare one, or one with `core.worktree`); a `.git` directory that is not a
/// repository is passed by, as git passes it. `Err` when a `.git` file is not one the guard
/// reads as git does.
fn find_git_dir(cwd: &Path) -> Option<Result<(PathBuf, PathBuf), String>> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        match std::fs::metadata(&dot_git) {
            Ok(metadata) if metadata.is_dir() => {
                if is_git_dir(&dot_git) {
                    return Some(Ok((dir.to_path_buf(), dot_git)));
                }
            }
            Ok(_) => {
                let target = std::fs::read(&dot_git)
                    .ok()
                    .and_then(|bytes| exact_path(&bytes))
                    .and_then(|text| text.strip_prefix("gitdir: ").map(str::to_owned));
                return Some(match target {
                    Some(target) => Ok((dir.to_path_buf(), dir.join(target))),
                    None => Err(format!(
                        "{} is not a plain `gitdir:` file",
                        dot_git.display()
                    )),
                });
            }
            Err(_) => {}
        }
        if is_git_dir(dir) {
            return Some(Ok((dir.to_path_buf(), dir.to_path_buf())));
        }
    }
    None
}

/// Whether `dir` is a git directory as git tells one: a `HEAD`, and objects and refs (or a
/// `commondir` that holds them).
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && (dir.join("commondir").is_file()
            || (dir.join("objects").is_dir() && dir.join("refs").is_dir()))
}

/// Adds the entries of the configuration file `path` (absent: nothing) to `found`.
fn read_config(path: &Path, found: &mut RepoPrograms) {
    let Ok(file) = std::fs::File::open(path) else {
        if path.exists() {
            found.unreadable = Some(format!("{} cannot be read", path.display()));
        }
        return;
    };
    let mut text = String::new();
    if file
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .is_err()
        || text.len() as u64 > MAX_CONFIG_BYTES
    {
        found.unreadable = Some(format!("{} is too large or not text", path.display()));
        return;
    }
    if let Err(line) = parse(&text, &mut found.entries) {
        found.unreadable = Some(format!("{}: {line}", path.display()));
    }
}

/// Parses git configuration `text` into `entries`; the first line it does not follow is
/// the error (continuation lines, includes and odd section headers are not followed).
fn parse(text: &str, entries: &mut Vec<(String, Option<String>)>) -> Result<(), String> {
    let mut section = String::new();
    for raw in text.lines() {
        let line = raw.trim_ascii();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if line.ends_with('\\') {
            return Err(format!("a continued line: {line}"));
        }
        let rest = if let Some(header) = line.strip_prefix('[') {
            let (inside, after) = header.split_once(']').ok_or_else(|| line.to_owned())?;
            section = match inside.split_once(|c: char| c.is_ascii_whitespace()) {
                Some((name, sub)) => {
                    let sub = sub
                        .trim_ascii()
                        .strip_prefix('"')
                        .and_then(|s| s.strip_suffix('"'));
                    let sub = sub
                        .filter(|s| !s.contains(['\\', '"']))
                        .ok_or_else(|| line.to_owned())?;
                    format!("{}.{sub}", name.to_ascii_lowercase())
                }
                None => inside.to_ascii_lowercase(),
            };
            if section.starts_with("include") {
                return Err(format!("an include: {line}"));
            }
            after.trim_ascii()
        } else {
            line
        };
        if rest.is_empty() || rest.starts_with(['#', ';']) {
            continue;
        }
        if section.is_empty() {
            return Err(format!("a key before any section: {line}"));
        }
        let (key, value) = match rest.split_once('=') {
            Some((key, value)) => (key.trim_ascii(), Some(unquote(value.trim_ascii()))),
            None => (rest, None),
        };
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(format!("a key the reader does not follow: {line}"));
        }
        entries.push((format!("{section}.{}", key.to_ascii_lowercase()), value));
    }
    Ok(())
}

/// A value without its quotes and trailing comment (approximately as git reads it; the
/// engine only asks whether a program key is set, not what it runs).
fn unquote(value: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => out.extend(chars.next()),
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    out.trim_ascii().to_owned()
}

/// The hooks in `dir` git would run: a known hook name that is an executable file
/// (through a link too).
fn active_hooks(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt as _;
    HOOK_NAMES
        .iter()
        .filter(|name| {
            std::fs::metadata(dir.join(name))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map(|name| (*name).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Result<Vec<(String, Option<String>)>, String> {
        let mut out = Vec::new();
        parse(text, &mut out).map(|()| out)
    }

    #[test]
    fn keys_are_read_as_git_names_them() {
        let read = entries(
            "[core]\n\trepositoryformatversion = 0\n\tFSMonitor = \"touch x; echo\" # c\n\
             [diff \"pdf\"]\n textconv = pdftotext\n[alias] st = !rm -rf src\n[core]\n bare\n",
        )
        .unwrap();
        assert_eq!(
            read,
            [
                ("core.repositoryformatversion".into(), Some("0".into())),
                ("core.fsmonitor".into(), Some("touch x; echo".into())),
                ("diff.pdf.textconv".into(), Some("pdftotext".into())),
                ("alias.st".into(), Some("!rm -rf src".into())),
                ("core.bare".into(), None),
            ]
        );
    }

    #[test]
    fn what_the_reader_does_not_follow_is_an_error() {
        for text in [
            "[include]\n path = other\n",
            "[includeIf \"gitdir:/x/\"]\n path = other\n",
            "[core]\n fsmonitor = a \\\n b\n",
            "fsmonitor = x\n",
            "[core]\n fs.monitor = x\n",
            "[core \"a\\\"b\"]\n x = 1\n",
        ] {
            assert!(entries(text).is_err(), "{text}");
        }
    }

    #[test]
    fn hooks_are_the_executable_files_that_are_not_samples() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        for dir in [".git/hooks", ".git/objects", ".git/refs"] {
            std::fs::create_dir_all(ws.join(dir)).unwrap();
        }
        std::fs::write(ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join(".git/config"), "[core]\n bare = false\n").unwrap();
        for (name, mode) in [
            ("pre-commit", 0o755),
            ("pre-push.sample", 0o755),
            ("post-merge", 0o644),
        ] {
            let path = ws.join(".git/hooks").join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        std::fs::create_dir_all(ws.join("src")).unwrap();
        let found = repository_programs(&ws.join("src"), None).unwrap();
        assert_eq!(found.hooks, ["pre-commit"]);
        assert_eq!(found.unreadable, None);
        assert!(repository_programs(Path::new("/"), None).is_none());
        // From an outside review: a `.git` that is no repository is passed by, as git
        // passes it; a directory that is a repository itself is one.
        std::fs::create_dir_all(ws.join("pkg/.git")).unwrap();
        assert_eq!(
            repository_programs(&ws.join("pkg"), None).unwrap().hooks,
            ["pre-commit"]
        );
        for dir in ["docs/objects", "docs/refs", "docs/hooks"] {
            std::fs::create_dir_all(ws.join(dir)).unwrap();
        }
        std::fs::write(ws.join("docs/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(ws.join("docs/config"), "[core]\n fsmonitor = x\n").unwrap();
        let docs = repository_programs(&ws.join("docs"), None).unwrap();
        assert!(docs.entries.iter().any(|(k, _)| k == "core.fsmonitor"));
        // A submodule's repository, absorbed below `modules/` or named by `.gitmodules`.
        for dir in [".git/modules/lib/objects", ".git/modules/lib/refs"] {
            std::fs::create_dir_all(ws.join(dir)).unwrap();
        }
        std::fs::write(ws.join(".git/modules/lib/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            ws.join(".git/modules/lib/config"),
            "[core]\n fsmonitor = y\n",
        )
        .unwrap();
        let top = repository_programs(ws, None).unwrap();
        assert!(
            top.entries
                .iter()
                .any(|(k, v)| k == "core.fsmonitor" && v.as_deref() == Some("y"))
        );
        for dir in ["vendor/x/.git/objects", "vendor/x/.git/refs"] {
            std::fs::create_dir_all(ws.join(dir)).unwrap();
        }
        std::fs::write(ws.join("vendor/x/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(
            ws.join("vendor/x/.git/config"),
            "[alias]\n z = !rm -rf src\n",
        )
        .unwrap();
        std::fs::write(
            ws.join(".gitmodules"),
            "[submodule \"x\"]\n path = vendor/x\n",
        )
        .unwrap();
        let top = repository_programs(ws, None).unwrap();
        assert!(top.entries.iter().any(|(k, _)| k == "alias.z"));
    }
}

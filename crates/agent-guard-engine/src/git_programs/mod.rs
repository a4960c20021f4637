//! git commands that run what the repository configures (issue 35, point 6): a stored
//! `core.fsmonitor` runs on `git status`, a `pre-commit` hook on `git commit`, a `!` alias
//! when it is called. A program the guard could not see into may have put them there, and
//! the line shows only git; so a git command that would run one is an opaque program,
//! checkpointed like a script. The classifier lists the subcommands
//! ([`agent_guard_classify::Classification::git_runs`]); the world reads the repository's
//! configuration and hooks ([`agent_guard_world::repository_programs`]).

mod uses;

use std::path::{Path, PathBuf};

use agent_guard_types::{Dialect, OpSpec};
use agent_guard_world::RepoPrograms;

/// Why the line's git commands (`subs`, from the classifier) run a program the repository
/// at `cwd` configures, as an opaque op; `None` when none does (or there is no repository).
pub(crate) fn found(
    subs: &[String],
    command: &str,
    cwd: &Path,
    home: Option<&Path>,
    dialect: Dialect,
) -> Option<OpSpec> {
    if subs.is_empty() {
        return None;
    }
    // A template directory's hooks are copied into the new repository and run.
    if command.contains("--template")
        && subs
            .iter()
            .any(|s| matches!(s.as_str(), "clone" | "init" | "*"))
    {
        let mut op = OpSpec::opaque_program(
            "git",
            dialect,
            "git copies the hooks of a template directory into the new repository and runs them",
        );
        op.note("the repository's configuration or hooks make git run a program the guard cannot see into".to_owned());
        return Some(op);
    }
    let why = match places(command, cwd, dialect) {
        Some(places) => places.iter().find_map(|place| {
            let repo = agent_guard_world::repository_programs(place, home)?;
            subs.iter().find_map(|sub| runs(&repo, sub))
        })?,
        None => "the line moves to a directory that is not literal before git runs: which \
                 repository's configuration and hooks apply is not known"
            .to_owned(),
    };
    let mut op = OpSpec::opaque_program("git", dialect, &why);
    op.note(
        "the repository's configuration or hooks make git run a program the guard cannot see into"
            .to_owned(),
    );
    Some(op)
}

/// The directories whose repositories the line's git commands may run in: the working
/// directory, where each literal `cd`/`pushd` leads (resolved as the shell resolves it,
/// `..` by name), and every literal directory an option names (`git -C DIR`, `env -C DIR`,
/// `--chdir`, `--git-dir`, `--work-tree`), also in a shell's `-c` string; `None` when a
/// directory change is not literal (`cd "$dir"`, `find -execdir`).
fn places(command: &str, cwd: &Path, dialect: Dialect) -> Option<Vec<PathBuf>> {
    let mut places = vec![cwd.to_path_buf()];
    if dialect == Dialect::Posix {
        places_in(command, &mut cwd.to_path_buf(), &mut places, 0)?;
    }
    Some(places)
}

/// [`places`] of `command`, the shell being at `here`, `depth` shells deep.
fn places_in(
    command: &str,
    here: &mut PathBuf,
    places: &mut Vec<PathBuf>,
    depth: u32,
) -> Option<()> {
    const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh"];
    let script = agent_guard_lex::posix::lex(command);
    // Where a directory change that is not literal ends: a git command after it runs
    // somewhere unknown (one inside it, `cd "$(git rev-parse --show-toplevel)"`, before).
    let mut lost_after: Option<usize> = None;
    for command in &script.commands {
        let words: Vec<Option<String>> = command
            .words
            .iter()
            .map(agent_guard_lex::Word::literal_text)
            .collect();
        let first = words.first().and_then(Option::as_deref);
        if lost_after.is_some_and(|end| command.span.start >= end)
            && words.iter().any(|w| w.as_deref() == Some("git"))
        {
            return None;
        }
        if matches!(first, Some("cd" | "pushd" | "chdir")) {
            match words
                .get(1)
                .map(|w| w.as_deref())
                .and_then(|d| d.filter(|d| !d.starts_with(['-', '~'])))
            {
                Some(dir) => {
                    *here = agent_guard_types::logical_join(here, dir);
                    places.push(here.clone());
                }
                None => lost_after = Some(command.span.end),
            }
            continue;
        }
        for (at, word) in words.iter().enumerate() {
            let word = word.as_deref().unwrap_or_default();
            if word == "-execdir" || word.starts_with("--exec-path") {
                return None;
            }
            let named = match word {
                "-C" | "--chdir" | "--git-dir" | "--work-tree" => {
                    Some(words.get(at + 1).and_then(Clone::clone)?)
                }
                _ => ["--chdir=", "--git-dir=", "--work-tree="]
                    .iter()
                    .find_map(|option| word.strip_prefix(option).map(str::to_owned)),
            };
            if let Some(dir) = named {
                places.push(here.join(dir));
            }
        }
        if first.is_some_and(|f| SHELLS.contains(&f.rsplit('/').next().unwrap_or(f)))
            && depth < 4
            && let Some(at) = words.iter().position(|w| w.as_deref() == Some("-c"))
        {
            let text = words.get(at + 1).and_then(Clone::clone)?;
            places_in(&text, &mut here.clone(), places, depth + 1)?;
        }
    }
    Some(())
}

/// What program git runs for subcommand `sub` in `repo`, if any: any configured program
/// (an alias only under its own name), any hook [`uses`] does not narrow to other
/// subcommands.
fn runs(repo: &RepoPrograms, sub: &str) -> Option<String> {
    if let Some(why) = &repo.unreadable {
        return Some(format!(
            "the repository's configuration holds what the guard does not read ({why})"
        ));
    }
    for (key, value) in &repo.entries {
        if !agent_guard_classify::git_key_runs_a_program(key, value.as_deref())
            || harmless(key, value.as_deref())
        {
            continue;
        }
        if let Some(alias) = key.strip_prefix("alias.") {
            if alias.eq_ignore_ascii_case(sub) || sub == "*" {
                return Some(format!("`git {alias}` is an alias that runs a program"));
            }
            continue;
        }
        return Some(format!("the repository sets `{key}`, a program git runs"));
    }
    let hook = repo.hooks.iter().find(|hook| uses::hook_runs(hook, sub))?;
    Some(format!(
        "the repository has a `{hook}` hook, which git runs"
    ))
}

/// A setting that names no program although its key may: `core.fsmonitor` as a boolean
/// (git's own daemon), Git LFS's own filters exactly as `git lfs install` writes them.
fn harmless(key: &str, value: Option<&str>) -> bool {
    let value = value.unwrap_or("true").trim_ascii();
    match key {
        "core.fsmonitor" => matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0" | ""
        ),
        "filter.lfs.clean" => value == "git-lfs clean -- %f",
        "filter.lfs.smudge" => value == "git-lfs smudge -- %f",
        "filter.lfs.process" => value == "git-lfs filter-process",
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(entries: &[(&str, Option<&str>)], hooks: &[&str]) -> RepoPrograms {
        RepoPrograms {
            entries: entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.map(str::to_owned)))
                .collect(),
            unreadable: None,
            hooks: hooks.iter().map(|h| (*h).to_owned()).collect(),
        }
    }

    #[test]
    fn the_places_a_line_runs_git_in() {
        let cwd = Path::new("/ws");
        let at = |line: &str| places(line, cwd, Dialect::Posix);
        assert_eq!(at("git status").unwrap(), [cwd]);
        assert_eq!(
            at("cd sub && git commit -m x").unwrap(),
            [cwd, &cwd.join("sub")]
        );
        assert_eq!(
            at("git -C vendor/lib status").unwrap(),
            [cwd, &cwd.join("vendor/lib")]
        );
        assert_eq!(
            at("cd /other/repo; git pull").unwrap(),
            [cwd, Path::new("/other/repo")]
        );
        assert!(at("cd \"$dir\" && git status").is_none());
        assert_eq!(at("cd $(git rev-parse --show-cdup)").unwrap(), [cwd]);
        // A second review: a link then `..`, other ways to change directory, a shell string.
        assert_eq!(
            at("cd lnk/../tools && git status").unwrap(),
            [cwd, &cwd.join("tools")]
        );
        assert_eq!(
            at("env -C tools git status").unwrap(),
            [cwd, &cwd.join("tools")]
        );
        assert_eq!(
            at("timeout 9 git -C tools status").unwrap(),
            [cwd, &cwd.join("tools")]
        );
        assert_eq!(
            at("sh -c 'cd tools/x && git status'").unwrap(),
            [cwd, &cwd.join("tools/x")]
        );
        assert!(at("find . -name x -execdir git status \\;").is_none());
        assert!(at("cd && git status").is_none());
        assert!(at("git -C \"$d\" status").is_none());
    }

    #[test]
    fn what_each_subcommand_runs() {
        let fsmonitor = repo(&[("core.fsmonitor", Some("touch x; echo"))], &[]);
        assert!(runs(&fsmonitor, "status").is_some());
        let daemon = repo(&[("core.fsmonitor", Some("true"))], &[]);
        assert!(runs(&daemon, "status").is_none());
        let hook = repo(&[], &["pre-commit"]);
        assert!(runs(&hook, "commit").is_some());
        assert!(runs(&hook, "status").is_none());
        assert!(runs(&repo(&[], &["post-index-change"]), "status").is_some());
        let alias = repo(
            &[
                ("alias.st", Some("!rm -rf src")),
                ("alias.co", Some("checkout")),
            ],
            &[],
        );
        assert!(runs(&alias, "st").is_some());
        assert!(runs(&alias, "co").is_none());
        assert!(runs(&alias, "log").is_none());
        assert!(runs(&alias, "*").is_some());
        let editor = repo(&[("core.editor", Some("vim"))], &[]);
        assert!(runs(&editor, "commit").is_some());
        assert!(
            runs(&editor, "log").is_some(),
            "a configured program counts everywhere"
        );
        let textconv = repo(&[("diff.pdf.textconv", Some("pdftotext"))], &[]);
        assert!(runs(&textconv, "diff").is_some());
        let lfs = repo(
            &[("filter.lfs.process", Some("git-lfs filter-process"))],
            &[],
        );
        assert!(runs(&lfs, "status").is_none() && runs(&lfs, "checkout").is_none());
        let plain = repo(
            &[
                ("core.bare", Some("false")),
                ("remote.origin.url", Some("x")),
            ],
            &[],
        );
        assert!(runs(&plain, "commit").is_none());
        // From an outside review: what each one really runs for.
        for sub in ["add", "branch", "tag", "stash", "ls-remote", "restore"] {
            assert!(runs(&hook, sub).is_none(), "pre-commit on {sub}");
        }
        assert!(runs(&editor, "add").is_some() && runs(&editor, "config").is_some());
        let lfs_and_more = repo(
            &[("filter.lfs.clean", Some("git-lfs clean -- %f; rm -rf src"))],
            &[],
        );
        assert!(runs(&lfs_and_more, "status").is_some());
        let gpg = repo(&[("gpg.program", Some("./x.sh"))], &[]);
        assert!(runs(&gpg, "log").is_some());
        for (key, value, sub) in [
            (
                "remote.origin.uploadpack",
                "rm -rf src; git-upload-pack",
                "remote",
            ),
            ("man.x.cmd", "rm -rf src", "help"),
            ("submodule.lib.update", "!rm -rf src", "submodule"),
            ("tar.tar.gz.command", "rm -rf src; gzip", "archive"),
            ("protocol.ext.allow", "always", "fetch"),
            ("remote.origin.url", "ext::sh -c rm% -rf% src", "pull"),
            ("core.alternaterefscommand", "rm -rf src", "fetch"),
        ] {
            let planted = repo(&[(key, Some(value))], &[]);
            assert!(runs(&planted, sub).is_some(), "{key} on {sub}");
        }
        let reftx = repo(&[], &["reference-transaction"]);
        assert!(runs(&reftx, "remote").is_some() && runs(&reftx, "status").is_some());
        // A second review: hooks the narrowing missed.
        let checkout = repo(&[], &["post-checkout"]);
        assert!(runs(&checkout, "restore").is_some() && runs(&checkout, "log").is_none());
        let gc = repo(&[], &["pre-auto-gc"]);
        assert!(runs(&gc, "maintenance").is_some() && runs(&gc, "gc").is_some());
        let index = repo(&[], &["post-index-change"]);
        for sub in ["diff", "describe", "worktree", "status"] {
            assert!(runs(&index, sub).is_some(), "post-index-change on {sub}");
        }
    }
}

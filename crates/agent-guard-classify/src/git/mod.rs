//! `git`: global options, then the destructive subcommands.
//!
//! Global options that change which repository or work tree git acts on (`-C`, `-c`,
//! `--git-dir`, `--work-tree`, `GIT_DIR=…`) make any destructive subcommand undeterminable:
//! the guard would judge the wrong tree.

mod clean;
mod discard;
mod push;
mod refs;
mod reset;
mod worktree;

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::Arg;

/// Subcommands that can destroy work (used to find the subcommand after unknown globals).
const DESTRUCTIVE: &[&str] = &[
    "clean",
    "reset",
    "restore",
    "checkout",
    "switch",
    "rm",
    "push",
    "stash",
    "branch",
    "worktree",
    "submodule",
];

/// Environment variables that do not change which repository or tree git acts on.
const HARMLESS_ENV_PREFIXES: &[&str] = &[
    "GIT_TRACE",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_TERMINAL_PROMPT",
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
    "GIT_SSH",
    "GIT_ASKPASS",
    "GIT_PROGRESS_DELAY",
    "GIT_REDACT_COOKIES",
    "GIT_MERGE_VERBOSITY",
];

/// What surrounds the `git` word.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GitContext {
    /// The command was reached through a wrapper or after leading assignments.
    pub wrapped: bool,
    /// An assignment sets a `GIT_*` variable that changes the repository or tree.
    pub context_env: bool,
}

/// Returns `true` if assigning `name` changes which repository or tree git acts on.
pub(crate) fn is_context_env(name: &str) -> bool {
    name.starts_with("GIT_") && !HARMLESS_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Parses the arguments after `git`. `None` when the subcommand destroys nothing.
pub(crate) fn parse(args: &[Arg], context: GitContext) -> Option<OpSpec> {
    let mut uncertain = context.context_env;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        let Some(text) = arg.known() else {
            uncertain = true;
            index += 1;
            continue;
        };
        if !text.starts_with('-') {
            break;
        }
        match global_option(text) {
            Global::Harmless => index += 1,
            Global::Context { takes_value } => {
                uncertain = true;
                index += 1 + usize::from(takes_value);
            }
            Global::NoCommand => return None,
            Global::Unknown => {
                uncertain = true;
                index += 1;
            }
        }
    }
    if uncertain
        && args
            .get(index)
            .and_then(Arg::known)
            .is_none_or(|t| !DESTRUCTIVE.contains(&t))
    {
        // Context options of unknown arity: take the first destructive word as the subcommand.
        index = args[index.min(args.len())..]
            .iter()
            .position(|a| a.known().is_some_and(|t| DESTRUCTIVE.contains(&t)))
            .map(|p| p + index)?;
    }
    let sub = args.get(index)?.known()?;
    let rest = &args[index + 1..];
    let mut op = match sub {
        "clean" => Some(clean::parse(rest)),
        "reset" => reset::parse(rest, context.wrapped),
        "restore" => discard::restore(rest),
        "checkout" => discard::checkout(rest),
        "switch" => discard::switch(rest),
        "rm" => discard::rm(rest),
        "push" => push::parse(rest),
        "stash" => refs::stash(rest),
        "branch" => refs::branch(rest),
        "worktree" => worktree::worktree(rest),
        "submodule" => worktree::submodule(rest),
        _ => None,
    }?;
    op.sub = Some(sub.to_owned());
    if op.targets.iter().any(|t| t.opaque.is_some()) {
        op.mark_undeterminable("a git argument is not literal");
    }
    if uncertain && op.kind != OpKind::Other {
        op.mark_undeterminable(
            "git global options or environment change the repository or work tree",
        );
    }
    Some(op)
}

/// Creates a git op of `kind`.
pub(crate) fn git_op(kind: OpKind) -> OpSpec {
    OpSpec::new("git", kind, Dialect::Posix)
}

/// Pathspecs are globbed by git itself, so quoting does not make `*` literal.
pub(crate) fn pathspec(arg: &Arg) -> agent_guard_types::Target {
    let mut target = arg.target();
    if target.text.contains(['*', '?', '[']) {
        target.glob = true;
    }
    if target.text.starts_with(':') && target.opaque.is_none() && target.text != ":" {
        target.opaque = Some("pathspec magic".to_owned());
    }
    target
}

enum Global {
    Harmless,
    Context { takes_value: bool },
    NoCommand,
    Unknown,
}

fn global_option(text: &str) -> Global {
    const HARMLESS: &[&str] = &[
        "--no-pager",
        "--paginate",
        "-p",
        "-P",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-lazy-fetch",
        "--no-advice",
    ];
    const SEPARATE_VALUE: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
    ];
    const ATTACHED: &[&str] = &[
        "--git-dir=",
        "--work-tree=",
        "--namespace=",
        "--config-env=",
        "--exec-path",
        "--super-prefix=",
    ];
    if HARMLESS.contains(&text) {
        Global::Harmless
    } else if SEPARATE_VALUE.contains(&text) {
        Global::Context { takes_value: true }
    } else if ATTACHED.iter().any(|p| text.starts_with(p))
        || ((text.starts_with("-C") || text.starts_with("-c"))
            && text.len() > 2
            && !text.starts_with("--"))
        || text == "--bare"
    {
        Global::Context { takes_value: false }
    } else if matches!(
        text,
        "--version" | "--help" | "-v" | "-h" | "--html-path" | "--man-path" | "--info-path"
    ) || text.starts_with("--list-cmds")
    {
        Global::NoCommand
    } else {
        Global::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn git(line: &str) -> Option<OpSpec> {
        let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
        parse(&args, GitContext::default())
    }

    #[test]
    fn global_context_options_make_ops_undeterminable() {
        assert!(git("-C . reset --hard").unwrap().undeterminable);
        assert!(git("-C. clean -fd").unwrap().undeterminable);
        assert!(git("--git-dir=x clean -f").unwrap().undeterminable);
        assert!(git("-c core.x=y push --force").unwrap().undeterminable);
        assert!(!git("--no-pager reset --hard").unwrap().undeterminable);
        assert!(git("--version clean -fd").is_none());
        assert!(git("status").is_none());
        assert!(git("--weird-option status").is_none());
        assert!(git("--weird-option clean -fd").unwrap().undeterminable);
    }

    #[test]
    fn context_env_names() {
        assert!(is_context_env("GIT_DIR"));
        assert!(is_context_env("GIT_WORK_TREE"));
        assert!(is_context_env("GIT_INDEX_FILE"));
        assert!(!is_context_env("GIT_TRACE"));
        assert!(!is_context_env("FLAG"));
    }
}

//! `git`: global options, then the destructive subcommands.
//!
//! Global options that change which repository or work tree git acts on (`-C`, `-c`,
//! `--git-dir`, `--work-tree`, `GIT_DIR=…`) make any destructive subcommand undeterminable:
//! the guard would judge the wrong tree.

mod clean;
pub(crate) mod config;
mod discard;
mod history;
mod long_options;
mod mv;
mod notes;
mod push;
mod refs;
mod remotes;
mod reset;
mod tree;
mod worktree;

pub(crate) use config::{Disarmed, Program};

use agent_guard_types::{Dialect, OpKind, OpSpec, Target};

use crate::args::Arg;
use crate::writes::redirect::is_sink;

/// Subcommands that can destroy work (used to find the subcommand after unknown globals).
const DESTRUCTIVE: &[&str] = &[
    "clean",
    "reset",
    "restore",
    "checkout",
    "switch",
    "rm",
    "mv",
    "push",
    "stash",
    "branch",
    "worktree",
    "submodule",
    "read-tree",
    "checkout-index",
    "update-ref",
    "tag",
    "reflog",
    "gc",
    "prune",
    "repack",
    "symbolic-ref",
    "filter-repo",
    "notes",
    "fetch",
    "remote",
    "config",
    "merge",
    "pull",
    "rebase",
    "cherry-pick",
    "revert",
];

/// Subcommands that make or move refs a later command of the line may name (besides
/// aliases and programs, which are opaque ops): `git fetch && git checkout topic`.
const MAKES_REFS: &[&str] = &[
    "fetch",
    "pull",
    "branch",
    "tag",
    "remote",
    "update-ref",
    "symbolic-ref",
    "stash",
    "worktree",
    "clone",
    "fast-import",
    "bundle",
    "notes",
    "replace",
    "am",
    "commit",
    "reflog",
];

/// Environment variables that do not change which repository or tree git acts on.
const HARMLESS_ENV_PREFIXES: &[&str] = &[
    "GIT_TRACE",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
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
    /// Safety settings switched off earlier on the line.
    pub disarmed: Disarmed,
    /// An earlier command of the line may have made or moved refs.
    pub refs_made: bool,
}

/// Returns `true` if assigning `name` changes which repository or tree git acts on.
pub(crate) fn is_context_env(name: &str) -> bool {
    name.starts_with("GIT_") && !HARMLESS_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Everything a git invocation does that the guard judges.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// The destructive op, if the subcommand destroys something.
    pub(crate) op: Option<OpSpec>,
    /// A second op of the same invocation: the discarded local changes of
    /// `checkout -f -B NAME` / `switch -f -C NAME`, beside the branch it resets.
    pub(crate) also: Option<OpSpec>,
    /// Programs its configuration runs or stores (`-c core.editor=…`, `git config alias.x`).
    pub(crate) programs: Vec<Program>,
    /// Safety settings it switches off for later commands (`git config clean.requireForce
    /// false`).
    pub(crate) disarms: Disarmed,
    /// It may make or move refs a later command of the line names (`fetch`, `branch`, …).
    pub(crate) makes_refs: bool,
}

/// Parses the arguments after `git`: the op, the programs, the disarmed settings.
pub(crate) fn run(args: &[Arg], context: GitContext) -> Parsed {
    run_at(args, context, 0)
}

/// How many git aliases are expanded (git itself refuses alias loops).
const MAX_ALIASES: u32 = 4;

fn run_at(args: &[Arg], mut context: GitContext, depth: u32) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(Globals {
        mut index,
        uncertain,
        opaque_word,
        aliases,
        dirs,
        beyond_dirs,
    }) = scan_globals(args, &mut context, &mut parsed)
    else {
        return parsed;
    };
    let known_sub = |t: &str| DESTRUCTIVE.contains(&t) || aliases.iter().any(|(n, _)| n == t);
    if uncertain
        && args
            .get(index)
            .and_then(Arg::known)
            .is_none_or(|t| !known_sub(t))
    {
        // Context options of unknown arity: take the first destructive word as the subcommand.
        let Some(found) = args[index.min(args.len())..]
            .iter()
            .position(|a| a.known().is_some_and(known_sub))
        else {
            crate::looked_up::note_git("*");
            if opaque_word {
                // `git $SUB -fdx`: the word that is not literal may be the subcommand.
                let mut op = git_op(OpKind::Unknown);
                op.mark_undeterminable("the git subcommand is not literal");
                parsed.op = Some(op);
            } else if args
                .get(index)
                .and_then(Arg::known)
                .is_some_and(|t| !t.starts_with('-') && !BUILTIN_SUBCOMMANDS.contains(&t))
            {
                // `git -C dir lg`, `git --exec-path=tools ls`: an alias or an outside program.
                parsed.op = Some(runs_a_program(
                    "not a git command the guard knows: an alias or a git-<name> program",
                ));
            }
            return parsed;
        };
        index += found;
    }
    let Some(sub_arg) = args.get(index) else {
        return parsed;
    };
    let Some(sub) = sub_arg.known() else {
        crate::looked_up::note_git("*");
        let mut op = git_op(OpKind::Unknown);
        op.mark_undeterminable("the git subcommand is not literal");
        parsed.op = Some(op);
        return parsed;
    };
    crate::looked_up::note_git(&sub.to_ascii_lowercase());
    // `git reset --har` is `git reset --hard`: git reads any unambiguous prefix.
    let expanded = long_options::expand(sub, &args[index + 1..]);
    let rest: &[Arg] = &expanded;
    if let Some((_, value)) = aliases.iter().rev().find(|(name, _)| name == sub) {
        let context = GitContext {
            context_env: context.context_env || uncertain,
            ..context
        };
        alias(value.as_deref(), rest, context, depth, &mut parsed);
        return parsed;
    }
    if sub == "config" {
        for (key, value) in config::writes(rest) {
            parsed.disarms = parsed
                .disarms
                .union(config::disarms(&key, value.as_deref()));
            parsed
                .programs
                .extend(config::program(&key, value.as_deref(), true));
        }
        return parsed;
    }
    parsed.programs.extend(pack_programs(sub, rest));
    parsed.makes_refs = MAKES_REFS.contains(&sub);
    let op = tree::attach(
        sub,
        rest,
        subcommand_op(sub, rest, context),
        context.refs_made,
    );
    parsed.also = discard::forced_branch_discard(sub, rest)
        .or_else(|| history::filter_branch_refs(sub, rest))
        .or_else(|| remotes::pruned(sub, rest, context.disarmed.fetch_prune))
        .map(|op| in_context(op, sub, uncertain, beyond_dirs, dirs.clone()));
    parsed.op = op.map(|op| in_context(op, sub, uncertain, beyond_dirs, dirs));
    parsed
}

/// The programs a transport option names (`--upload-pack=CMD`, `-u CMD` for `clone` and
/// `ls-remote`, `--receive-pack=CMD`, `--exec=CMD`): git runs them, through a shell for a
/// local repository (issue 37, point 2).
fn pack_programs(sub: &str, rest: &[Arg]) -> Vec<config::Program> {
    let (longs, short): (&[&str], Option<&str>) = match sub {
        "clone" | "ls-remote" => (&["--upload-pack", "--exec"], Some("-u")),
        "fetch" | "pull" | "fetch-pack" => (&["--upload-pack", "--exec"], None),
        "push" | "send-pack" => (&["--receive-pack", "--exec"], None),
        "archive" => (&["--exec"], None),
        _ => return Vec::new(),
    };
    let mut programs = Vec::new();
    for (at, arg) in rest.iter().enumerate() {
        let Some(text) = arg.known() else { continue };
        if text == "--" {
            break;
        }
        let next = || rest.get(at + 1).map(|a| a.known().map(str::to_owned));
        let value = if let Some(long) = longs.iter().find(|l| text.starts_with(*l)) {
            match &text[long.len()..] {
                "" => next(),
                attached => attached.strip_prefix('=').map(|v| Some(v.to_owned())),
            }
        } else if short.is_some_and(|s| text == s) {
            next()
        } else {
            None
        };
        if let Some(script) = value {
            programs.push(config::Program {
                script,
                exact: false,
                repo_root: false,
                note: format!("git {sub} runs the program its `{text}` option names"),
                editor: false,
            });
        }
    }
    programs
}

/// `op` of subcommand `sub` in the context the global options make: a literal `-C DIR` is a
/// directory change before it (the policy follows it when each leads to a directory, else
/// the shape F1, a question); any other context change makes it undeterminable.
fn in_context(
    mut op: OpSpec,
    sub: &str,
    uncertain: bool,
    beyond_dirs: bool,
    dirs: Vec<Option<Target>>,
) -> OpSpec {
    op.sub = Some(sub.to_owned());
    if op.kind == OpKind::GitMoveWorkTree {
        // What it writes is judged by its sources, each pathspec as it is (one that is
        // not literal reaches any path); `-C DIR` is a directory change before it.
        if uncertain && beyond_dirs {
            op.mark_undeterminable(
                "git global options or environment change the repository or work tree",
            );
        } else if uncertain {
            op.cd = dirs;
        }
        return op;
    }
    if op.targets.iter().any(|t| t.opaque.is_some()) {
        op.mark_undeterminable("a git argument is not literal");
    }
    if uncertain && !beyond_dirs && dirs.iter().all(Option::is_some) {
        op.cd = dirs;
    } else if uncertain && op.kind != OpKind::Other {
        op.mark_undeterminable(
            "git global options or environment change the repository or work tree",
        );
    }
    op
}

/// The global options before git's subcommand, as far as the guard read them.
struct Globals {
    /// Index of the first argument after the global options.
    index: usize,
    /// Global options or the environment may change the repository or work tree.
    uncertain: bool,
    /// An argument among the global options is not literal.
    opaque_word: bool,
    /// Aliases defined with `-c alias.NAME=VALUE`, in order.
    aliases: Vec<(String, Option<String>)>,
    /// The directories of `-C DIR`, in order (`None`: not literal).
    dirs: Vec<Option<Target>>,
    /// Something other than `-C DIR` makes the context uncertain.
    beyond_dirs: bool,
}

/// Reads the global options before the subcommand, recording the programs and disarmed
/// settings their `-c` pairs bring; `None` if one of them means git runs no subcommand.
fn scan_globals(args: &[Arg], context: &mut GitContext, parsed: &mut Parsed) -> Option<Globals> {
    let mut globals = Globals {
        index: 0,
        uncertain: context.context_env,
        opaque_word: false,
        aliases: Vec::new(),
        dirs: Vec::new(),
        beyond_dirs: context.context_env,
    };
    while let Some(arg) = args.get(globals.index) {
        let Some(text) = arg.known() else {
            globals.uncertain = true;
            globals.beyond_dirs = true;
            globals.opaque_word = true;
            globals.index += 1;
            continue;
        };
        if !text.starts_with('-') {
            break;
        }
        match global_option(text) {
            Global::Harmless => globals.index += 1,
            Global::Context { takes_value } if text.starts_with("-C") => {
                let dir = match text.strip_prefix("-C").filter(|d| !d.is_empty()) {
                    Some(attached) => Some(Some(Target::literal(attached))),
                    None => args
                        .get(globals.index + 1)
                        .map(|dir| Some(dir.target()).filter(Target::is_concrete)),
                };
                match dir {
                    Some(dir) => globals.dirs.push(dir),
                    None => globals.beyond_dirs = true,
                }
                globals.uncertain = true;
                globals.index += 1 + usize::from(takes_value);
            }
            Global::Context { takes_value } => {
                let understood = context_option(
                    text,
                    args.get(globals.index + 1),
                    parsed,
                    &mut globals.aliases,
                    context,
                );
                globals.uncertain |= !understood;
                globals.beyond_dirs |= !understood;
                globals.index += 1 + usize::from(takes_value);
            }
            Global::NoCommand => return None,
            Global::Unknown => {
                globals.uncertain = true;
                globals.beyond_dirs = true;
                globals.index += 1;
            }
        }
    }
    Some(globals)
}

/// One global option that may change the repository or tree (`text`, followed by `next`):
/// records what its `-c` or `--config-env` setting does, and returns `true` if it is a `-c`
/// setting the guard understands (one that does not move the repository).
fn context_option(
    text: &str,
    next: Option<&Arg>,
    parsed: &mut Parsed,
    aliases: &mut Vec<(String, Option<String>)>,
    context: &mut GitContext,
) -> bool {
    // A `-c` setting the guard understands does not move the repository.
    let understood = text.starts_with("-c")
        && (if text == "-c" {
            next.and_then(Arg::known)
        } else {
            Some(&text[2..])
        })
        .is_some_and(|pair| config::understood(&config::pair(pair).0));
    if let Some(glued) = text.strip_prefix("-c") {
        let value = if glued.is_empty() {
            next.map(Arg::known)
        } else {
            Some(Some(glued))
        };
        match value {
            Some(Some(pair)) => {
                config_pair(&config::pair(pair), parsed, aliases, context);
            }
            Some(None) => parsed.programs.push(Program {
                script: None,
                exact: false,
                repo_root: false,
                note: "git -c with a setting that is not literal".to_owned(),
                editor: false,
            }),
            None => {}
        }
    }
    if text.starts_with("--config-env") {
        // `--config-env=KEY=VAR`: the value comes from the environment.
        let spec = text
            .split_once('=')
            .map(|(_, s)| s)
            .or_else(|| next.and_then(Arg::known));
        if let Some((key, _)) = spec.and_then(|s| s.split_once('=')) {
            config_pair(&(key.to_owned(), None), parsed, aliases, context);
        }
    }
    understood
}

/// The op of subcommand `sub` (neither `config` nor an alias) with arguments `rest`, if it
/// destroys, overwrites or runs something.
fn subcommand_op(sub: &str, rest: &[Arg], context: GitContext) -> Option<OpSpec> {
    match sub {
        "clean" => Some(clean::parse(rest, context.disarmed.require_force)),
        "reset" => reset::parse(rest, context.wrapped),
        // `git merge --abort` runs `git reset --merge`.
        "merge" if rest.iter().any(|a| a.known() == Some("--abort")) => {
            reset::parse(&[Arg::synthetic("--merge")], context.wrapped)
        }
        "restore" => discard::restore(rest),
        "checkout" => discard::checkout(rest),
        "switch" => discard::switch(rest),
        "rm" => discard::rm(rest),
        "mv" => mv::mv(rest),
        "read-tree" => discard::read_tree(rest, context.wrapped),
        "checkout-index" => discard::checkout_index(rest),
        "push" => push::parse(rest),
        "stash" => refs::stash(rest).or_else(|| output_file(rest)),
        "branch" => refs::branch(rest),
        "replace" => refs::replace(rest),
        "update-ref" => history::update_ref(rest),
        "tag" => history::tag(rest),
        "reflog" => history::reflog(rest).or_else(|| output_file(rest)),
        "gc" => history::gc(rest, context.disarmed),
        "prune" => history::prune(rest),
        "repack" => history::repack(rest),
        "symbolic-ref" => history::symbolic_ref(rest),
        "notes" => notes::notes(rest),
        "filter-repo" => history::filter_repo(rest),
        "worktree" => worktree::worktree(rest),
        "submodule" if rest.iter().any(|a| a.known() == Some("foreach")) => Some(runs_a_program(
            "git submodule foreach runs a command in every submodule",
        )),
        "submodule" => worktree::submodule(rest),
        // Writes `NNNN-subject.patch` files (over same-named ones) unless `--stdout`.
        "format-patch" if !rest.iter().any(|a| a.known() == Some("--stdout")) => {
            Some(runs_a_program("git format-patch writes patch files"))
        }
        // `-o FILE` / `--output FILE` is truncated and rewritten.
        "archive" => output_file_short(rest, Some("-o")),
        // `git bundle create FILE …` writes FILE.
        "bundle" => bundle_file(rest),
        // Subcommands that run a program the guard does not see into.
        "grep"
            if rest.iter().any(|a| {
                a.text.starts_with("-O") || a.text.starts_with("--open-files-in-pager")
            }) =>
        {
            Some(runs_a_program(
                "git grep -O runs a pager on the matching files",
            ))
        }
        "difftool" | "mergetool" => {
            Some(runs_a_program("git runs the configured diff or merge tool"))
        }
        "rebase"
            if rest.iter().any(|a| {
                a.text == "-x"
                    || a.text.starts_with("--exec")
                    || (a.text.starts_with("-x") && a.text.len() > 2)
            }) =>
        {
            Some(runs_a_program(
                "git rebase --exec runs a command after each commit",
            ))
        }
        "bisect" if rest.first().is_some_and(|a| a.text == "run") => {
            Some(runs_a_program("git bisect run runs a command at each step"))
        }
        "filter-branch" => Some(runs_a_program(
            "git filter-branch runs filters over the history",
        )),
        // `git apply [-R]` and `git am` rewrite the files the patch names (`git diff | git
        // apply -R` throws every uncommitted change away).
        "apply" | "am" => Some(runs_a_program(
            "git apply rewrites the files the patch names",
        )),
        // Not git's own: an alias set earlier on the line or in a config the guard does not
        // read, or a `git-<name>` program on PATH.
        _ if !BUILTIN_SUBCOMMANDS.contains(&sub) => Some(runs_a_program(
            "not a git command the guard knows: an alias or a git-<name> program",
        )),
        // Any other printing subcommand told to write its output to a file (`diff`, `log`,
        // `show`, `rev-list`, `shortlog`, `show-branch`, … `--output=FILE`).
        _ => output_file(rest),
    }
}

/// git's own subcommands (`git help -a`): any other name is an alias or an external
/// `git-<name>` program, whose effects the guard does not see.
const BUILTIN_SUBCOMMANDS: &[&str] = &[
    "add",
    "annotate",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "clean",
    "clone",
    "column",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "describe",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "fmt-merge-msg",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "grep",
    "hash-object",
    "help",
    "index-pack",
    "init",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-index",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-refs",
    "patch-id",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "shortlog",
    "show",
    "show-branch",
    "show-index",
    "show-ref",
    "sparse-checkout",
    "stage",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-file",
    "unpack-objects",
    "update-index",
    "update-ref",
    "update-server-info",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
    "filter-repo",
];

/// An opaque-program op for a git subcommand that runs other programs or writes files it
/// names itself.
fn runs_a_program(why: &str) -> OpSpec {
    crate::noop::opaque("git", Dialect::Posix, why)
}

/// `git diff --output=FILE` (and every other printing subcommand): FILE is truncated and
/// rewritten. `None` without `--output`.
fn output_file(rest: &[Arg]) -> Option<OpSpec> {
    output_file_short(rest, None)
}

/// [`output_file`], with a short option (`-o FILE`, `-oFILE` for `git archive`) as another
/// spelling.
fn output_file_short(rest: &[Arg], short: Option<&str>) -> Option<OpSpec> {
    let mut op = crate::writes::overwrite("git", agent_guard_types::WriteMode::InPlace);
    let names_output =
        |text: &str| text.starts_with("--output") || short.is_some_and(|s| text.starts_with(s));
    let add = |op: &mut OpSpec, file: Target| {
        if !is_sink(&file.text) {
            op.targets.push(file);
        }
    };
    let mut at = 0;
    while let Some(arg) = rest.get(at) {
        at += 1;
        if arg.text == "--" {
            break;
        }
        let Some(text) = arg.known() else {
            // `--output="$F"`: a file the guard cannot name.
            if names_output(&arg.text) {
                op.mark_undeterminable("git writes its output to a file the guard cannot name");
            }
            continue;
        };
        let attached = text.strip_prefix("--output=").or_else(|| {
            short
                .and_then(|s| text.strip_prefix(s))
                .filter(|f| !f.is_empty())
        });
        if let Some(file) = attached {
            add(
                &mut op,
                Target {
                    through_symlink: true,
                    ..Target::literal(file)
                },
            );
        } else if text == "--output" || Some(text) == short {
            match rest.get(at) {
                Some(file) => add(&mut op, crate::writes::file(file, true)),
                None => op.mark_undeterminable("git --output needs a file"),
            }
            at += 1;
        }
    }
    (!op.targets.is_empty() || op.undeterminable).then_some(op)
}

/// `git bundle create FILE …`: FILE is written (`-` is stdout).
fn bundle_file(rest: &[Arg]) -> Option<OpSpec> {
    let at = rest.iter().position(|a| a.text == "create")?;
    let file = rest[at + 1..].iter().find(|a| !a.text.starts_with('-'))?;
    if file.text == "-" || is_sink(&file.text) {
        return None;
    }
    let mut op = crate::writes::overwrite("git", agent_guard_types::WriteMode::InPlace);
    op.targets.push(crate::writes::file(file, true));
    Some(op)
}

/// One `-c key=value` of this invocation: a program it may run, a safety it disarms for
/// this command, or an alias it defines.
fn config_pair(
    (key, value): &(String, Option<String>),
    parsed: &mut Parsed,
    aliases: &mut Vec<(String, Option<String>)>,
    context: &mut GitContext,
) {
    context.disarmed = context
        .disarmed
        .union(config::disarms(key, value.as_deref()));
    if let Some(name) = key.strip_prefix("alias.").filter(|n| !n.is_empty()) {
        aliases.push((name.to_owned(), value.clone()));
        return;
    }
    parsed
        .programs
        .extend(config::program(key, value.as_deref(), false));
}

/// Runs an alias defined with `-c alias.NAME=VALUE` and invoked by this command: `!…` is a
/// shell command (with the arguments appended, run from the top of the work tree), anything
/// else is more git arguments.
fn alias(value: Option<&str>, rest: &[Arg], context: GitContext, depth: u32, parsed: &mut Parsed) {
    let note = "a git alias defined with -c runs this";
    let Some(value) = value else {
        parsed.programs.push(Program {
            script: None,
            exact: false,
            repo_root: true,
            note: "a git alias whose value is not literal".to_owned(),
            editor: false,
        });
        return;
    };
    if let Some(shell) = value.strip_prefix('!') {
        let extra: Option<Vec<String>> = rest
            .iter()
            .map(|a| a.known().map(|t| format!("'{}'", t.replace('\'', "'\\''"))))
            .collect();
        parsed.programs.push(Program {
            script: extra.map(|extra| {
                std::iter::once(shell.to_owned())
                    .chain(extra)
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            exact: true,
            repo_root: true,
            note: note.to_owned(),
            editor: false,
        });
        return;
    }
    if depth >= MAX_ALIASES {
        let mut op = git_op(OpKind::Unknown);
        op.mark_undeterminable("git aliases nested too deeply");
        parsed.op = Some(op);
        return;
    }
    // The alias's words, split as the shell would, then the command's own arguments.
    let script = agent_guard_lex::posix::lex(value);
    let mut expanded: Vec<Arg> = script
        .commands
        .first()
        .map(|c| crate::args::expand_all(c, value))
        .unwrap_or_default();
    expanded.extend(rest.iter().cloned());
    let inner = run_at(&expanded, context, depth + 1);
    parsed.makes_refs |= inner.makes_refs;
    parsed.op = inner.op;
    parsed.programs.extend(inner.programs);
    parsed.disarms = parsed.disarms.union(inner.disarms);
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
        run(&args, GitContext::default()).op
    }

    #[test]
    fn global_context_options_make_ops_undeterminable() {
        // A literal `-C DIR` is a directory change the policy follows.
        let op = git("-C . reset --hard").unwrap();
        assert!(!op.undeterminable);
        assert_eq!(op.cd.len(), 1);
        assert_eq!(op.cd[0].as_ref().map(|t| t.text.as_str()), Some("."));
        assert_eq!(git("-C. clean -fd").unwrap().cd.len(), 1);
        assert!(git("-C sub --git-dir=x clean -f").unwrap().undeterminable);
        assert!(git("--git-dir=x clean -f").unwrap().undeterminable);
        assert!(git("-c core.x=y push --force").unwrap().undeterminable);
        assert!(!git("--no-pager reset --hard").unwrap().undeterminable);
        assert!(git("--version clean -fd").is_none());
        assert!(git("status").is_none());
        assert!(git("--weird-option status").is_none());
        assert!(git("--weird-option clean -fd").unwrap().undeterminable);
    }

    #[test]
    fn dash_c_is_a_directory_change_for_a_work_tree_move() {
        let op = git("-C sub -C ../other checkout evil").unwrap();
        assert_eq!(op.kind, OpKind::GitMoveWorkTree);
        assert!(!op.undeterminable);
        let dirs: Vec<_> = op
            .cd
            .iter()
            .map(|d| d.as_ref().unwrap().text.as_str())
            .collect();
        assert_eq!(dirs, ["sub", "../other"]);
        assert_eq!(git("-Csub merge evil").unwrap().cd.len(), 1);
        assert!(git("--git-dir=x checkout evil").unwrap().undeterminable);
        assert!(
            git("-C sub --work-tree=x switch evil")
                .unwrap()
                .undeterminable
        );
        // Writing paths from a commit is judged in the directory `-C` names.
        let op = git("-C sub checkout evil -- .claude").unwrap();
        assert!(!op.undeterminable && op.cd.len() == 1);
        assert!(git("--weird merge evil").unwrap().undeterminable);
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

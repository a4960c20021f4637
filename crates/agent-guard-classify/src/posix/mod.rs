//! The POSIX front end: lex the line, then classify each simple command.
//!
//! A command is peeled of its wrappers (`sudo`, `env`, `flock`, `busybox`, …), then judged
//! by its name. Programs that run their arguments (`find -exec`, `parallel`, `sh -c`,
//! `eval`) have that argv or script classified with the same rules; strings that run later
//! (`trap`, `alias`, `GIT_EDITOR=…`) are classified where they are defined.

mod carriers;
pub(crate) mod definitions;
mod evaluated;
mod fixed_destination;
mod hops;
mod later;
mod own_programs;
mod piped_find;

pub(crate) use own_programs::OWN_PROGRAM;
mod prepass;
mod runs;

use agent_guard_lex::{Script, SimpleCommand, posix};
use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::{Arg, basename, expand_all};
use crate::git::{self, Disarmed, GitContext};
use crate::noop;
use crate::shapes::Positions;
use crate::smell::smells;
use crate::wrappers::{self, Unwrap};
use crate::{Classification, fs_delete, windows_verbs, writes};
use piped_find::{PipedFind, bound_by_find, replace_with_braces, xargs_from_find};

/// How deep `bash -c '…'` / `eval` scripts are followed before giving up.
pub(crate) const MAX_NESTING: u32 = 4;

/// Why an op of the sh reading of `((…))` is undeterminable.
const MAYBE_ARITHMETIC: &str =
    "`((…))` runs this in POSIX sh (nested subshells) and nothing in bash (arithmetic)";

/// Why a command whose name is not literal is an unknown op.
const NAME_NOT_LITERAL: &str = "command name is not literal";

/// Shell settings that change what a glob matches (`shopt -s dotglob`, `GLOBIGNORE=x`,
/// `BASHOPTS`, …).
const GLOB_OPTIONS: &[&str] = &[
    "dotglob",
    "GLOBIGNORE",
    "nocaseglob",
    "extglob",
    "globstar",
    "BASHOPTS",
    "failglob",
    "nullglob",
    "globasciiranges",
];

/// The value the command's own assignment gives `variable`, or `None` when it assigns none.
fn assigned(
    command: &agent_guard_lex::SimpleCommand,
    variable: &str,
    source: &str,
) -> Option<writes::Assigned> {
    let prefix = format!("{variable}=");
    command
        .assignments
        .iter()
        .rev()
        .find_map(|word| match word.literal_text() {
            Some(text) => text
                .strip_prefix(&prefix)
                .map(|v| writes::Assigned::Literal(v.to_owned())),
            None => word
                .raw(source)
                .starts_with(&prefix)
                .then_some(writes::Assigned::NotLiteral),
        })
}

/// What a command writes, with what its options and its own assignments carry: the backup
/// suffix (`SIMPLE_BACKUP_SUFFIX=.orig cp -b`), commands its options hold (`tar -I CMD`,
/// `rsync -e CMD`, `ssh -o ProxyCommand=`) or variables set for it (`RSYNC_RSH=CMD rsync`,
/// `TAR_OPTIONS='-I CMD' tar`).
fn own_writes(name: &str, rest: &[Arg], call: Call<'_>, line: &Line<'_>) -> Vec<OpSpec> {
    let mut ops = writes::posix(name, rest);
    writes::backup_suffix_assigned(
        &mut ops,
        assigned(call.command, "SIMPLE_BACKUP_SUFFIX", line.source),
    );
    ops.extend(carriers::of_command(name, rest, call.command, line));
    ops
}

/// Whether `op` already keeps whatever operands xargs adds: a discard without pathspecs
/// keeps every tracked change (`git ls-files -m | xargs git checkout --`), a ref op over a
/// whole namespace every ref in it (`… | xargs git branch -D`), a stash op without an entry
/// every entry.
fn keeps_whatever_is_added(op: &OpSpec) -> bool {
    if op.undeterminable {
        return false;
    }
    match op.kind {
        OpKind::GitDiscard | OpKind::GitStashDrop => op.targets.is_empty(),
        OpKind::GitBranchDelete | OpKind::GitRefDelete => {
            !op.targets.is_empty()
                && op.targets.iter().all(|t| {
                    t.opaque.is_none() && t.text.starts_with("refs/") && t.text.ends_with('/')
                })
        }
        _ => false,
    }
}

/// Why a command run by `xargs` or per file by `find` is undeterminable.
const PER_FILE: &str = "arguments arrive from stdin (xargs) or per file (find)";

/// Classifies POSIX shell text.
pub(crate) fn classify(text: &str, nesting: u32) -> Classification {
    classify_in(text, nesting, false)
}

/// Classifies POSIX shell text whose stdin is a stream (`curl … | bash -c 'sh'`) when
/// `stdin_stream` is set: a shell in it that reads stdin reads that stream.
fn classify_in(text: &str, nesting: u32, stdin_stream: bool) -> Classification {
    let text = match prepass::windows_backslashes(text) {
        Ok(text) => text,
        Err(note) => return Classification::unparseable(Dialect::Posix, note),
    };
    let script = posix::lex(&text);
    if let Some(error) = &script.error {
        return Classification::lex_failed(&script, error, &text, Dialect::Posix);
    }
    classify_script(&script, &text, nesting, stdin_stream)
}

/// Classifies an already-lexed script: first with the definitions the line never calls left
/// out ([`definitions`]), then, if one was and the line could call it unseen, with every
/// definition judged where it stands.
fn classify_script(
    script: &Script,
    source: &str,
    nesting: u32,
    stdin_stream: bool,
) -> Classification {
    let uncalled = definitions::uncalled_bodies(script, source);
    let (mut classification, left_out) =
        classify_pass(script, source, (nesting, stdin_stream), Some(&uncalled));
    let (left_out, traps): (Vec<_>, Vec<_>) = left_out.into_iter().partition(|d| d.name != "trap");
    if !left_out.is_empty() && definitions::could_call_unseen(&classification.ops) {
        let (mut judged, _) = classify_pass(script, source, (nesting, stdin_stream), None);
        judged.definitions = traps;
        return judged;
    }
    classification.definitions = left_out;
    classification.definitions.extend(traps);
    classification
}

/// One pass of [`classify_script`]: `uncalled` marks the commands of function bodies to
/// leave out (`None`: every definition is judged). Returns the definitions left out.
fn classify_pass(
    script: &Script,
    source: &str,
    (nesting, stdin_stream): (u32, bool),
    uncalled: Option<&definitions::Uncalled>,
) -> (Classification, Vec<crate::Definition>) {
    let mut ops = Vec::new();
    let mut positions = Positions::default();
    positions.note_source(source, Dialect::Posix);
    let mut line = Line {
        source,
        nesting,
        smells: None,
        git: Disarmed::default(),
        deferred: Vec::new(),
        stdin_stream,
        piped_find: None,
        refs_made: false,
        commands: script.commands.len(),
        judge_definitions: uncalled.is_none(),
        left_out: Vec::new(),
    };
    if let Some(uncalled) = uncalled {
        line.left_out.clone_from(&uncalled.definitions);
    }
    for (index, command) in script.commands.iter().enumerate() {
        // A call of a function defined before stays an unknown program: its body may change
        // the directory or the shell for what follows (`g() { cd /; }; g && rm -rf build`).
        if uncalled.is_some_and(|u| u.commands.get(index) == Some(&true)) {
            continue;
        }
        // A call of a function whose body changes directory changes it for what follows.
        if definitions::calls_a_directory_change(script, command) {
            positions.note_cwd_change(index);
        }
        for mut op in classify_command(command, index, &mut line, &mut positions) {
            crate::place(&mut op, index, command);
            if command.context.maybe_arithmetic && op.kind != OpKind::Unknown {
                op.mark_undeterminable(MAYBE_ARITHMETIC);
            }
            // A program the guard does not see into may run `git fetch` or `git branch`.
            line.refs_made |= matches!(op.kind, OpKind::OpaqueProgram | OpKind::Unknown);
            // What a `git clean` removes is enumerated before the line runs: an earlier
            // command that changes anything (a `.gitignore`, the files) makes it another list.
            if op.kind == OpKind::GitClean
                && !op.dry_run
                && ops.iter().any(|o: &OpSpec| o.segment_index < index)
            {
                op.mark_undeterminable(
                    "an earlier command of the line may change what git clean removes (its \
                     ignore rules or the files): run the clean on its own",
                );
            }
            ops.push(op);
        }
    }
    // A trap action runs when the shell exits or gets the signal: after every command of the
    // line, so a `cd` anywhere before the end changes its targets (F1).
    let end = script.commands.len();
    for (mut op, index) in std::mem::take(&mut line.deferred) {
        if let Some(command) = script.commands.get(index) {
            crate::place(&mut op, index, command);
        }
        op.segment_index = end;
        ops.push(op);
    }
    ops.extend(evaluated::evaluated_later(script, &line));
    // `shopt -s dotglob`, `GLOBIGNORE=…`, `nocaseglob`, `extglob`: the shell matches globs
    // otherwise than the guard reads them (`rm -rf src/*` takes `src/.git` too).
    if GLOB_OPTIONS.iter().any(|option| source.contains(option)) {
        for op in ops
            .iter_mut()
            .filter(|op| op.targets.iter().any(|t| t.glob))
        {
            op.mark_undeterminable("the line changes how the shell matches globs");
        }
    }
    let left_out = std::mem::take(&mut line.left_out);
    (Classification::of_ops(ops, &positions, script), left_out)
}

/// Per-line state shared by the commands of one script.
pub(crate) struct Line<'a> {
    source: &'a str,
    nesting: u32,
    smells: Option<bool>,
    /// git safety settings an earlier command of the line switched off
    /// (`git config clean.requireForce false`).
    git: Disarmed,
    /// Ops of `trap` actions, with the index of the `trap` command: they run last.
    deferred: Vec<(OpSpec, usize)>,
    /// The line's stdin is a stream the guard cannot see (it is a nested script).
    stdin_stream: bool,
    /// The last `find` that only printed its matches with `-print0`, from literal starting
    /// points in a confined expression: what an `xargs -0 rm` piped from it deletes.
    piped_find: Option<PipedFind>,
    /// An earlier command of the line may have made or moved git refs (`git fetch`, `git
    /// branch`, a script): a revision a later git command names may exist only then.
    refs_made: bool,
    /// How many simple commands the line has (substitutions' included).
    commands: usize,
    /// Every definition is judged where it stands (the line could call one unseen).
    judge_definitions: bool,
    /// The definitions the line never names elsewhere, left out ([`definitions`]).
    left_out: Vec<crate::Definition>,
}

impl Line<'_> {
    /// Whether the whole line has destructive vocabulary (computed once).
    fn smells(&mut self) -> bool {
        *self.smells.get_or_insert_with(|| smells(self.source))
    }
}

/// What surrounds one argv being classified.
#[derive(Clone, Copy)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts about where an argv comes from, not a state machine"
)]
struct Call<'c> {
    /// The simple command the argv belongs to (its redirections and separator).
    command: &'c SimpleCommand,
    /// The command's index in the line.
    index: usize,
    /// Reached through wrappers or leading assignments.
    wrapped: bool,
    /// An assignment sets a `GIT_*` variable that changes the repository or tree.
    context_env: bool,
    /// The argv gets arguments the guard cannot see (`xargs`, `find -exec … {}`).
    from_stdin: bool,
    /// The argv is the command's own words (not one built by `find -exec` or `parallel`),
    /// so its name counts for the line's shapes.
    own: bool,
}

fn classify_command(
    command: &SimpleCommand,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    // The sh reading of `((…))` runs nothing in bash: it does not shape the line.
    let mut scratch = Positions::default();
    let positions = if command.context.maybe_arithmetic {
        &mut scratch
    } else {
        positions
    };
    positions.note_redirects(command, index, line.source);
    let args = expand_all(command, line.source);
    let context_env = command
        .assignments
        .iter()
        .filter_map(agent_guard_lex::Word::literal_text)
        .any(|t| wrappers::assignment_name(&t).is_some_and(git::is_context_env));
    let mut ops = later::assignments(command, line);
    // The shell opens the redirections before the command runs. In the sh reading of
    // `((…))` a `>` is a comparison in practice (`(( n > 1 ))`): not a redirection.
    if !command.context.maybe_arithmetic {
        ops.extend(writes::redirect::posix(command, line.source));
    }
    let call = Call {
        command,
        index,
        wrapped: !command.assignments.is_empty(),
        context_env,
        from_stdin: false,
        own: true,
    };
    ops.extend(run(&args, call, line, positions));
    ops
}

/// Classifies one argv: peels wrappers, then judges the command by its name.
fn run(
    args: &[Arg],
    call: Call<'_>,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    // `script` writes its typescript and logs itself, whatever it runs (`script FILE`
    // truncates FILE).
    let logs = match args.first().and_then(Arg::known) {
        Some(name) if basename(name) == "script" => crate::writes::script_logs(&args[1..]),
        _ => Vec::new(),
    };
    let (unwrapped, script) = match wrappers::unwrap(args) {
        Unwrap::Command(u) => (u, None),
        Unwrap::Script(u, script) => (u, Some(script)),
        Unwrap::NoCommand => return logs,
        Unwrap::Ambiguous(reason) => {
            // `npx -y prisma migrate reset`: what it runs still resets a database.
            if let Some(ops) = args.first().and_then(Arg::known).and_then(|name| {
                let name = basename(name).to_ascii_lowercase();
                crate::outside::judge(&name, &args[1..], Dialect::Posix, &hops::input(call, line))
            }) {
                return logs.into_iter().chain(ops).collect();
            }
            let text = command_text(call.command, line.source);
            // Some program runs, the guard cannot tell which: refused when the line has
            // destructive words, else checkpointed like any program it does not see into.
            if smells(text) {
                return vec![OpSpec::unknown("<opaque>", Dialect::Posix, reason)];
            }
            let mut op = noop::opaque("<opaque>", Dialect::Posix, &reason);
            // `npm --prefix / run x`: where it runs is still visible.
            if let Some(name) = args.first().and_then(Arg::known) {
                op.targets = noop::run_dirs(&basename(name).to_ascii_lowercase(), &args[1..]);
            }
            return vec![op];
        }
    };
    // The wrappers are programs found through PATH too (`env`, `sudo`, `xargs`).
    for word in args[..unwrapped.start.min(args.len())]
        .iter()
        .filter_map(Arg::known)
    {
        if unwrapped.wrappers.contains(&basename(word)) {
            crate::looked_up::note(word, Dialect::Posix);
        }
    }
    let wrapped = call.wrapped || !unwrapped.wrappers.is_empty();
    let from_stdin = call.from_stdin || unwrapped.from_stdin;
    let mut ops = later::wrapper_assignments(args, &unwrapped.assignment_args, line);
    ops.extend(logs);
    let from_find = xargs_from_find(args, &unwrapped, call, line);
    let mut found = if let Some(script) = script {
        let runner = unwrapped.wrappers.last().copied().unwrap_or("a wrapper");
        hops::command_string(script.as_deref(), runner, line)
    } else {
        let Some(name_arg) = args.get(unwrapped.start) else {
            return ops;
        };
        let call = Call {
            wrapped,
            from_stdin,
            context_env: call.context_env
                || unwrapped.assigned.iter().any(|n| git::is_context_env(n)),
            ..call
        };
        let rest = &args[unwrapped.start + 1..];
        // `xargs -I NAME mv NAME NAME.bak` is judged as `mv {} {}.bak`, as `find -exec` is.
        let replaced = from_find
            .as_ref()
            .and_then(|find| find.replace.as_deref())
            .map(|name| replace_with_braces(rest, name));
        let rest = replaced.as_deref().unwrap_or(rest);
        let mut found = named(name_arg, rest, call, line, positions);
        if let Some(program) = name_arg.known() {
            crate::listed::attach(program, rest, call.command, &mut found);
        }
        found
    };
    if !from_stdin {
        // `… | gzip > out.gz`: a compressor without file operands filters stdin to stdout
        // and consumes no file (under `xargs` its operands arrive from stdin).
        found.retain(|op| {
            op.kind != OpKind::SideEffectDelete || !op.targets.is_empty() || op.undeterminable
        });
    }
    let command = args.get(unwrapped.start..).unwrap_or_default();
    // What xargs runs is bounded only when the guard sees all it does (`sed -i -f FILE`
    // also runs a script it does not read).
    let seen_whole = !found
        .iter()
        .any(|op| matches!(op.kind, OpKind::OpaqueProgram | OpKind::Unknown));
    let mut taken = Vec::new();
    for op in &mut found {
        op.wrapped |= wrapped;
        if from_stdin && op.kind != OpKind::Unknown && !keeps_whatever_is_added(op) {
            op.per_file_only = !op.undeterminable;
            op.mark_undeterminable(PER_FILE);
            // What bounds one run (a recursive copy's landing directory) does not bound
            // several: a link one run copies there, the next writes through (`xargs -I{}
            // cp -r {}/. dest`). Only what the find before bounds is taken again.
            op.confined = None;
            if let Some(find) = from_find.as_ref().filter(|_| seen_whole) {
                taken.extend(bound_by_find(op, find, command));
            }
        }
    }
    found.extend(taken);
    if unwrapped.changes_cwd && !found.is_empty() {
        positions.note_cwd_change(call.index);
        // An opaque program the wrapper runs elsewhere runs there (`env -C / make clean`).
        if let Some(dir) = &unwrapped.cwd_dir {
            for op in &mut found {
                if op.kind == OpKind::OpaqueProgram && op.targets.is_empty() {
                    op.targets.push((**dir).clone());
                }
            }
        }
    }
    ops.extend(found);
    ops
}

/// Judges a command by its name `name_arg`, with its arguments `rest`.
fn named(
    name_arg: &Arg,
    rest: &[Arg],
    call: Call<'_>,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let Some(name) = literal_name(name_arg) else {
        // Whatever runs is unknown: `$a$b -rf x`, `"$CMD" x`, `$(printf r)m x`. The sh
        // reading of `((…))` is almost always arithmetic (`(( $n > 1 ))`), so there only a
        // line with destructive words is refused.
        if call.command.context.maybe_arithmetic && !line.smells() {
            return Vec::new();
        }
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            NAME_NOT_LITERAL,
        )];
    };
    if own_programs::names_own_program(name) {
        let mut op = noop::opaque(name, Dialect::Posix, own_programs::OWN_PROGRAM);
        op.targets = noop::run_dirs(name, rest);
        // `bin/rails db:drop`, `./manage.py flush`: still a reset of the database.
        let lowered = basename(name).to_ascii_lowercase();
        let input = hops::input(call, line);
        let outside =
            crate::outside::judge(&lowered, rest, Dialect::Posix, &input).unwrap_or_default();
        return std::iter::once(op)
            .chain(outside.into_iter().filter(|o| o.outside.is_some()))
            .collect();
    }
    crate::looked_up::note(name, Dialect::Posix);
    let lowered = basename(name).to_ascii_lowercase();
    let lowered = lowered.strip_suffix(".exe").unwrap_or(&lowered).to_owned();
    if call.own && !call.command.context.in_substitution {
        positions.note_command(&lowered, call.index);
        positions.note_link_maker(&lowered, rest, call.index);
        let direct = call
            .command
            .words
            .first()
            .and_then(agent_guard_lex::Word::literal_text)
            .is_some_and(|first| first == lowered)
            // Not behind a keyword the lexer takes off (`time cd` is a child process in
            // dash, `coproc cd` one in bash).
            && line
                .source
                .get(..call.command.span.start)
                .is_some_and(|before| {
                    let before = before.trim_end();
                    before.is_empty() || before.ends_with([';', '\n', '&', '|'])
                });
        let spelled_alike = rest.iter().all(|arg| {
            line.source
                .get(arg.span.start..arg.span.end)
                .is_some_and(|raw| !raw.contains(['$', '\\', '`']))
        });
        // A redirection that fails (`cd src </missing`) skips the `cd` and the line goes on.
        let bare = call.command.redirects.is_empty();
        positions.note_cd_dir(&lowered, rest, call.index, direct && spelled_alike && bare);
        // (`source` and `.` run a script the guard does not read: the line is checkpointed,
        // which keeps the workspace wherever the script went.)
        let hidden_change = lowered == "eval"
            || (lowered == "trap"
                && rest.iter().any(|a| {
                    a.known()
                        .is_some_and(|t| matches!(t, "DEBUG" | "RETURN" | "ERR"))
                }));
        if hidden_change {
            positions.note_hidden_cd(call.index);
        }
    } else if call.own {
        positions.note_substituted_command(&lowered);
    }
    let found = dispatch(&lowered, rest, call, line, positions);
    // A sourced script the guard reads (a here-string, `/dev/stdin`) runs in this shell and
    // may change its directory; one it does not read is a program it checkpoints, which
    // keeps the workspace wherever the script went.
    if call.own
        && !call.command.context.in_substitution
        && matches!(lowered.as_str(), "source" | ".")
        && !found.iter().any(|op| op.kind == OpKind::OpaqueProgram)
    {
        positions.note_hidden_cd(call.index);
    }
    found
}

/// The command name, when it is literal: not opaque, and not a pattern the shell would
/// expand (`r?`, `*`; a lone `[` is the test command).
fn literal_name(arg: &Arg) -> Option<&str> {
    let name = arg.known()?;
    let pattern = arg.glob
        && (name.contains(['*', '?'])
            || name
                .find('[')
                .is_some_and(|at| name[at + 1..].contains(']'))
            || ["@(", "!(", "+("].iter().any(|g| name.contains(g)));
    (!pattern).then_some(name)
}

/// The shells whose `-c`, script and stdin forms are followed.
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh", "dash", "ash",
    "yash", "posh", "osh", "csh", "tcsh", "fish", "nu", "nushell", "elvish", "xonsh", "rc", "es",
];

fn dispatch(
    name: &str,
    rest: &[Arg],
    call: Call<'_>,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    if fs_delete::PROGRAMS.contains(&name) {
        return fs_delete::parse(name, rest).into_iter().collect();
    }
    if windows_verbs::VERBS.contains(&name) {
        return vec![windows_verbs::parse(name, rest)];
    }
    if let Some(ops) = crate::metadata::posix::parse(name, rest) {
        return ops;
    }
    if SHELLS.contains(&name) {
        return hops::shell(name, rest, call, line);
    }
    match name {
        "find" => runs::find(rest, call, line),
        "fd" | "fdfind" => runs::fd(rest, call, line),
        "parallel" => runs::parallel(rest, line),
        // `… | xargs git checkout --`: the paths xargs appends are discarded too.
        "git" if call.from_stdin => {
            let mut appended = rest.to_vec();
            appended.push(crate::args::Arg::from_stdin());
            git_ops(&appended, call, line, positions)
        }
        "git" => git_ops(rest, call, line, positions),
        "eval" => hops::eval(rest, line),
        "source" | "." => hops::source(rest, call, line),
        "at" | "batch" => hops::at(rest, call, line),
        "trap" => {
            let ops = later::trap(rest, line);
            // A shell that keeps the trap runs it later (a `DEBUG` trap before every
            // command, an `EXIT` trap where the shell is when it ends): the whole `trap`
            // command is remembered ([`crate::Definition`] named `trap`).
            if later::trap_action(rest).is_some_and(|a| !matches!(a.known(), Some("" | "-")))
                && !call.command.context.in_function
            {
                line.left_out.push(crate::Definition {
                    name: "trap".to_owned(),
                    text: command_text(call.command, line.source).to_owned(),
                });
            }
            line.deferred
                .extend(ops.into_iter().map(|op| (op, call.index)));
            Vec::new()
        }
        "alias" => later::alias(rest, line),
        "hash" => later::hash(rest),
        "export" | "declare" | "typeset" | "local" | "readonly" => later::declare(rest, line),
        "cmd" | "powershell" | "pwsh" => hops::foreign_host(name, rest, call.command, line),
        "rimraf" => vec![OpSpec::unknown(
            name,
            Dialect::Posix,
            "rimraf deletes trees, and its glob and option rules differ between versions",
        )],
        "remove-item" => vec![OpSpec::unknown(
            name,
            Dialect::Posix,
            "known destructive vocabulary is incompatible with the selected dialect",
        )],
        _ => {
            if let Some(op) = fs_delete::gio(name, rest) {
                return vec![op];
            }
            if let Some(ops) = outside(name, rest, call, line) {
                return ops;
            }
            let mut ops = own_writes(name, rest, call, line);
            if ops.is_empty() && call.from_stdin {
                // `xargs rsync --remove-source-files DIR/`: xargs appends the names, so the
                // literal operands are not all of them (here DIR is a source).
                let mut appended = rest.to_vec();
                appended.push(crate::args::Arg::from_stdin());
                ops = writes::posix(name, &appended);
            }
            match crate::inline_code::interpreter(name) {
                Some(_) if noop::only_queries(name, rest) => {}
                Some(lang) => {
                    let inner = hops::interpreter(lang, rest, call, line);
                    // Code the guard does not flag (a file it does not read, `-c` text without
                    // a destructive call it knows) can still destroy anything.
                    if ops.is_empty() {
                        ops = noop::or_opaque(
                            inner,
                            name,
                            "an interpreter runs code whose effects the guard does not model",
                        );
                    } else {
                        ops.extend(inner);
                    }
                }
                // What it writes is modelled (`cp`, `mv`, `tee`, `sed -i`, …).
                None if !ops.is_empty() => {}
                None if noop::changes_nothing(name, rest) => {}
                // `(( n > 2 ))` read as a command: almost always arithmetic.
                None if call.command.context.maybe_arithmetic => {}
                None => {
                    let mut op = noop::opaque(
                        name,
                        Dialect::Posix,
                        "a program whose effects the guard does not model (a script, a build \
                         tool, a task runner, an unknown command)",
                    );
                    op.targets = noop::run_dirs(name, rest);
                    ops.push(op);
                }
            }
            ops
        }
    }
}

/// What `name` destroys outside the workspace ([`crate::outside`]), read only for the
/// programs those rules know.
fn outside(name: &str, rest: &[Arg], call: Call<'_>, line: &Line<'_>) -> Option<Vec<OpSpec>> {
    crate::outside::concerns(name)
        .then(|| crate::outside::judge(name, rest, Dialect::Posix, &hops::input(call, line)))
        .flatten()
}

/// `git …`: its destructive op, the programs its configuration runs or stores, and the
/// safety settings it switches off for the rest of the line.
fn git_ops(
    rest: &[Arg],
    call: Call<'_>,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let parsed = git::run(
        rest,
        GitContext {
            wrapped: call.wrapped,
            context_env: call.context_env,
            disarmed: line.git,
            refs_made: line.refs_made,
        },
    );
    line.git = line.git.union(parsed.disarms);
    line.refs_made |= parsed.makes_refs;
    let mut ops: Vec<OpSpec> = parsed.op.into_iter().chain(parsed.also).collect();
    // A stash drop that may run more than once (a loop, a function, `if`, per name of
    // `xargs` or `find -exec`) drops more than the entry it names: every entry is kept.
    let repeated = call.command.context.in_control_flow
        || call.command.context.in_function
        || !call.own
        || call.from_stdin;
    for op in ops
        .iter_mut()
        .filter(|op| op.kind == OpKind::GitStashDrop && repeated)
    {
        op.targets.clear();
        op.note("it may run more than once: every stash entry is kept");
    }
    // `HOME=/x git clean -fd`: git reads another user configuration (another excludes file)
    // than the one the clean is enumerated with, and the checkpoint leaves out what the
    // guard reads as ignored.
    // (Read only for a clean: `git status` is on the hot path.)
    let cleans = ops
        .iter()
        .any(|op| op.kind == OpKind::GitClean && !op.dry_run);
    let other_user = cleans
        && (call.context_env
            || call
                .command
                .assignments
                .iter()
                .chain(&call.command.words)
                .filter_map(agent_guard_lex::Word::literal_text)
                .any(|t| {
                    wrappers::assignment_name(&t).is_some_and(|n| {
                        matches!(n, "HOME" | "XDG_CONFIG_HOME") || git::is_context_env(n)
                    })
                }));
    for op in &mut ops {
        if op.kind == OpKind::GitClean && !op.dry_run && other_user {
            op.mark_undeterminable(
                "git runs with another HOME or git environment, whose ignore rules the guard \
                 does not read",
            );
        }
    }
    for program in parsed.programs {
        let found = if program.editor {
            hops::editor(program.script.as_deref(), &program.note, line)
        } else {
            hops::program(
                program.script.as_deref(),
                &program.note,
                program.exact,
                line,
            )
        };
        if program.repo_root && !found.is_empty() {
            // Shell aliases run from the top of the work tree, not from here.
            positions.note_cwd_change(call.index);
        }
        ops.extend(found);
    }
    ops
}

/// The source text of a command.
pub(crate) fn command_text<'a>(command: &SimpleCommand, source: &'a str) -> &'a str {
    source
        .get(command.span.start..command.span.end)
        .unwrap_or(source)
}

/// Classifies a nested POSIX script (from `bash -c`, `eval`, a heredoc fed to a shell).
pub(crate) fn nested(script: &str, line: &Line<'_>, why: &str) -> Vec<OpSpec> {
    nested_in(script, line, why, line.stdin_stream)
}

/// Classifies a nested POSIX script whose stdin is a stream when `stdin_stream` is set.
pub(crate) fn nested_in(
    script: &str,
    line: &Line<'_>,
    why: &str,
    stdin_stream: bool,
) -> Vec<OpSpec> {
    if line.nesting >= MAX_NESTING {
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            format!("{why} nested too deeply"),
        )];
    }
    let inner = classify_in(script, line.nesting + 1, stdin_stream);
    inner
        .ops
        .into_iter()
        .map(|mut op| {
            op.wrapped = true;
            op.span = agent_guard_types::Span::default();
            op
        })
        .collect()
}

#[cfg(test)]
mod tests;

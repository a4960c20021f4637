//! The POSIX front end: lex the line, then classify each simple command.

mod hops;
mod prepass;

use agent_guard_lex::{Script, SimpleCommand, posix};
use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::{Arg, basename, expand_all};
use crate::git::{self, GitContext};
use crate::shapes::Positions;
use crate::smell::smells;
use crate::wrappers::{self, Unwrap};
use crate::{Classification, find, fs_delete, windows_verbs};

/// How deep `bash -c '…'` / `eval` scripts are followed before giving up.
pub(crate) const MAX_NESTING: u32 = 4;

/// Why an op of the sh reading of `((…))` is undeterminable.
const MAYBE_ARITHMETIC: &str =
    "`((…))` runs this in POSIX sh (nested subshells) and nothing in bash (arithmetic)";

/// Classifies POSIX shell text.
pub(crate) fn classify(text: &str, nesting: u32) -> Classification {
    let text = match prepass::windows_backslashes(text) {
        Ok(text) => text,
        Err(note) => return Classification::unparseable(Dialect::Posix, note),
    };
    let script = posix::lex(&text);
    if let Some(error) = &script.error {
        return Classification::lex_failed(&script, error, &text, Dialect::Posix);
    }
    classify_script(&script, &text, nesting)
}

/// Classifies an already-lexed script.
fn classify_script(script: &Script, source: &str, nesting: u32) -> Classification {
    let mut ops = Vec::new();
    let mut positions = Positions::default();
    let mut line = Line {
        source,
        nesting,
        smells: None,
    };
    for (index, command) in script.commands.iter().enumerate() {
        // The sh reading of `((…))` runs nothing in bash: it does not shape the line.
        let mut scratch = Positions::default();
        let shaping = if command.context.maybe_arithmetic {
            &mut scratch
        } else {
            &mut positions
        };
        for mut op in classify_command(command, index, &mut line, shaping) {
            crate::place(&mut op, index, command);
            if command.context.maybe_arithmetic && op.kind != OpKind::Unknown {
                op.mark_undeterminable(MAYBE_ARITHMETIC);
            }
            ops.push(op);
        }
    }
    Classification::of_ops(ops, &positions, script)
}

/// Per-line state shared by the commands of one script.
pub(crate) struct Line<'a> {
    source: &'a str,
    nesting: u32,
    smells: Option<bool>,
}

impl Line<'_> {
    /// Whether the whole line has destructive vocabulary (computed once).
    fn smells(&mut self) -> bool {
        *self.smells.get_or_insert_with(|| smells(self.source))
    }
}

fn classify_command(
    command: &SimpleCommand,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    positions.note_redirects(command, index, line.source);
    let args = expand_all(command, line.source);
    let mut wrapped = !command.assignments.is_empty();
    let mut context_env = command
        .assignments
        .iter()
        .filter_map(agent_guard_lex::Word::literal_text)
        .any(|t| wrappers::assignment_name(&t).is_some_and(git::is_context_env));
    let unwrapped = match wrappers::unwrap(&args) {
        Unwrap::Command(u) => u,
        Unwrap::NoCommand => return Vec::new(),
        Unwrap::Ambiguous(reason) => {
            let text = command_text(command, line.source);
            return if smells(text) {
                vec![OpSpec::unknown("<opaque>", Dialect::Posix, reason)]
            } else {
                Vec::new()
            };
        }
    };
    wrapped |= !unwrapped.wrappers.is_empty();
    context_env |= unwrapped.assigned.iter().any(|n| git::is_context_env(n));
    let Some(name_arg) = args.get(unwrapped.start) else {
        return Vec::new();
    };
    let rest = &args[unwrapped.start + 1..];
    let Some(name) = name_arg.known() else {
        return if line.smells() {
            vec![OpSpec::unknown(
                "<opaque>",
                Dialect::Posix,
                "command name is not literal",
            )]
        } else {
            Vec::new()
        };
    };
    let lowered = basename(name).to_ascii_lowercase();
    let lowered = lowered.strip_suffix(".exe").unwrap_or(&lowered).to_owned();
    if !command.context.in_substitution {
        positions.note_command(&lowered, index);
    }
    let mut ops = dispatch(
        &lowered,
        rest,
        command,
        index,
        line,
        GitContext {
            wrapped,
            context_env,
        },
    );
    for op in &mut ops {
        op.wrapped |= wrapped;
        if unwrapped.from_stdin && op.kind != OpKind::Unknown {
            op.mark_undeterminable("arguments arrive from stdin (xargs)");
        }
        if unwrapped.changes_cwd {
            positions.note_cwd_change(index);
        }
    }
    ops
}

fn dispatch(
    name: &str,
    rest: &[Arg],
    command: &SimpleCommand,
    index: usize,
    line: &mut Line<'_>,
    git_context: GitContext,
) -> Vec<OpSpec> {
    if fs_delete::PROGRAMS.contains(&name) {
        return fs_delete::parse(name, rest).into_iter().collect();
    }
    if windows_verbs::VERBS.contains(&name) {
        return vec![windows_verbs::parse(name, rest)];
    }
    match name {
        "find" => find::parse(rest).into_iter().collect(),
        "git" => git::parse(rest, git_context).into_iter().collect(),
        "sh" | "bash" | "zsh" | "ksh" | "dash" | "ash" | "mksh" | "yash" | "busybox" => {
            hops::shell(name, rest, command, index, line)
        }
        "eval" => hops::eval(rest, line),
        "source" | "." => hops::source(command, line),
        "cmd" | "powershell" | "pwsh" => hops::foreign_host(name, rest, command, line),
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
        _ => match crate::inline_code::interpreter(name) {
            Some(lang) => hops::interpreter(lang, rest, command, line),
            None => Vec::new(),
        },
    }
}

/// The source text of a command.
pub(crate) fn command_text<'a>(command: &SimpleCommand, source: &'a str) -> &'a str {
    source
        .get(command.span.start..command.span.end)
        .unwrap_or(source)
}

/// Classifies a nested POSIX script (from `bash -c`, `eval`, a heredoc fed to a shell).
pub(crate) fn nested(script: &str, line: &Line<'_>, why: &str) -> Vec<OpSpec> {
    if line.nesting >= MAX_NESTING {
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            format!("{why} nested too deeply"),
        )];
    }
    let inner = classify(script, line.nesting + 1);
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

//! Strings that run later: `trap` actions, `alias` bodies, `hash -p`, and variables whose
//! value is a program (`GIT_EDITOR`, `GIT_SSH_COMMAND`, `PAGER`, …).
//!
//! A literal string is classified where it is defined, like `sh -c`: a harmless one
//! (`trap 'echo done' EXIT`, `GIT_EDITOR=true`) adds nothing, a destructive one is judged.
//! A string that is not literal is an unknown op: what it runs cannot be known.
//!
//! - A trap action runs in this shell when it exits or gets the signal, exactly as written:
//!   its ops are judged as they are, placed after the line's last command (a `cd` anywhere
//!   before makes them F1).
//! - An alias body, a hashed path and a program variable run later, with arguments the
//!   guard does not see (the alias's call site, the file git hands its editor): their
//!   destructive ops are undeterminable.

use agent_guard_lex::SimpleCommand;
use agent_guard_types::{Dialect, OpSpec};

use super::{Line, SHELLS, hops, nested};
use crate::args::{Arg, basename};
use crate::smell::smells;
use crate::wrappers::{self, WRAPPERS};

/// Variables whose value some program runs as a command (usually through `sh -c`).
const PROGRAM_VARIABLES: &[&str] = &[
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "FCEDIT",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "PAGER",
    "MANPAGER",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "PROMPT_COMMAND",
];

/// Variables whose value makes the next program run code the guard cannot see: a file a
/// shell sources (`BASH_ENV`, `ENV`), prompts it expands (`PS4` under `set -x`), libraries
/// the loader injects (`LD_PRELOAD`), and the places git reads its configuration and
/// helpers from (a config in the workspace can set `core.fsmonitor`). Assigning one makes
/// the line an opaque program (issue 35, found by an outside review).
const CODE_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PS0",
    "PS1",
    "PS2",
    "PS4",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "GCONV_PATH",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "HOME",
    "XDG_CONFIG_HOME",
    "ZDOTDIR",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
];

/// Variables that change what a later command of the shell writes or runs, read by that
/// command only (`SIMPLE_BACKUP_SUFFIX` renames `cp -b`'s backups, `RSYNC_RSH` is the
/// command rsync runs). Set for one command they are judged with it; set alone (`export
/// SIMPLE_BACKUP_SUFFIX=.orig; cp -b new f`) the later commands are unknown programs, kept by
/// a checkpoint, or judged like a program variable (issue 37, point 2).
const LATER_COMMAND_VARIABLES: &[&str] =
    &["SIMPLE_BACKUP_SUFFIX", "VERSION_CONTROL", "TAR_OPTIONS"];

/// The program variables that name an editor: the file it is handed is a scratch copy.
const EDITOR_VARIABLES: &[&str] = &[
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
    "SUDO_EDITOR",
    "FCEDIT",
];

/// Returns `true` if assigning `name` stores a program: a program variable, or one of git's
/// `GIT_CONFIG_VALUE_<n>` / `GIT_CONFIG_PARAMETERS` configuration channels.
fn is_program_variable(name: &str) -> bool {
    PROGRAM_VARIABLES.contains(&name)
        || name.starts_with("GIT_CONFIG_VALUE_")
        || name == "GIT_CONFIG_PARAMETERS"
}

/// The ops of one `NAME=value` (its literal text, `None` when not literal; `raw` is the
/// source text, which always starts with the name). `alone`: no rule of a command reads it
/// (set alone, exported, or through a wrapper such as `env`), so the variables only a
/// command's own rules read are judged here.
fn assignment(text: Option<&str>, raw: &str, alone: bool, line: &Line<'_>) -> Vec<OpSpec> {
    let Some(name) = wrappers::assignment_name(text.unwrap_or(raw)) else {
        return Vec::new();
    };
    if alone && LATER_COMMAND_VARIABLES.contains(&name) {
        return vec![crate::noop::opaque(
            name,
            Dialect::Posix,
            "the variable changes what later commands of the shell write (backup names, \
             archive options)",
        )];
    }
    if alone && name == "RSYNC_RSH" {
        let note = "RSYNC_RSH holds the command rsync runs later, with arguments of its own";
        let value = text.and_then(|t| t.split_once('=')).map(|(_, v)| v);
        return hops::program(value, note, false, line);
    }
    if name == "PATH" {
        // Spelled as written when not literal (`$PATH` stays visible).
        let value = text.unwrap_or(raw).split_once('=').map_or("", |(_, v)| v);
        return if super::own_programs::may_shadow(value) {
            vec![crate::noop::opaque(
                "PATH",
                Dialect::Posix,
                super::own_programs::SHADOWING_PATH,
            )]
        } else {
            Vec::new()
        };
    }
    if CODE_VARIABLES.contains(&name) {
        return vec![crate::noop::opaque(
            name,
            Dialect::Posix,
            "the variable makes a program run code the guard cannot see (a sourced file, a \
             prompt, an injected library, a configuration)",
        )];
    }
    if !is_program_variable(name) {
        return Vec::new();
    }
    let note = format!("{name} holds a program that runs later, with arguments of its own");
    let Some((_, value)) = text.and_then(|t| t.split_once('=')) else {
        return hops::program(None, &note, false, line);
    };
    if name == "GIT_CONFIG_PARAMETERS" {
        // `'alias.x'='!rm …'`: git's own quoting; refused if it has destructive words.
        // Any other setting may still run code (`core.fsmonitor`, `core.pager`): kept by a
        // checkpoint.
        return if smells(value) {
            hops::program(None, &note, false, line)
        } else {
            vec![crate::noop::opaque(name, Dialect::Posix, &note)]
        };
    }
    // git aliases and helpers mark a shell command with a leading `!`.
    let value = value.strip_prefix('!').unwrap_or(value);
    if EDITOR_VARIABLES.contains(&name) {
        return hops::editor(Some(value), &note, line);
    }
    hops::program(Some(value), &note, false, line)
}

/// Assignments before a command or alone (`GIT_EDITOR='…' git commit`, `EDITOR=…`).
pub(super) fn assignments(command: &SimpleCommand, line: &Line<'_>) -> Vec<OpSpec> {
    command
        .assignments
        .iter()
        .flat_map(|word| {
            let alone = command.words.is_empty();
            assignment(
                word.literal_text().as_deref(),
                word.raw(line.source),
                alone,
                line,
            )
        })
        .collect()
}

/// Assignments a wrapper makes (`env GIT_EDITOR=… git commit`, `sudo EDITOR=… visudo`).
pub(super) fn wrapper_assignments(args: &[Arg], indexes: &[usize], line: &Line<'_>) -> Vec<OpSpec> {
    indexes
        .iter()
        .filter_map(|&i| args.get(i))
        .flat_map(|arg| assignment(arg.known(), &arg.text, true, line))
        .collect()
}

/// `export NAME=value`, `declare -x NAME=value`, `local`, `readonly`, `typeset`.
pub(super) fn declare(rest: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    rest.iter()
        .filter(|arg| !arg.is_option())
        .flat_map(|arg| assignment(arg.known(), &arg.text, true, line))
        .collect()
}

/// `trap [-lp] [[ACTION] SIGNAL…]`: the action runs in this shell when the signal comes
/// (`EXIT`: when the shell ends).
pub(super) fn trap(rest: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    let Some(action) = trap_action(rest) else {
        return Vec::new();
    };
    match action.known() {
        Some("" | "-") => Vec::new(),
        Some(text) if !action.glob || action.quoted => nested(text, line, "trap action"),
        _ => hops::program(None, "the trap action is not literal", false, line),
    }
}

/// The action `trap` sets (`None` when it lists, prints or resets).
pub(super) fn trap_action(rest: &[Arg]) -> Option<&Arg> {
    let mut operands = rest;
    while let Some(first) = operands.first() {
        match first.known() {
            Some("--") => {
                operands = &operands[1..];
                break;
            }
            // `-l`, `-p`, `-P` list or print: nothing is set.
            Some(text) if first.is_option() => {
                if text.contains(['l', 'p', 'P']) {
                    return None;
                }
                operands = &operands[1..];
            }
            _ => break,
        }
    }
    // One operand resets that signal; `-` and `''` reset or ignore.
    let [action, _, ..] = operands else {
        return None;
    };
    Some(action)
}

/// Returns `true` if a program name hands its arguments to another program or a shell
/// (an alias or a hashed name for it could run anything).
fn runs_programs(name: &str) -> bool {
    let name = basename(name);
    WRAPPERS.contains(&name)
        || SHELLS.contains(&name)
        || matches!(
            name,
            "eval" | "source" | "." | "find" | "parallel" | "git" | "cmd" | "powershell" | "pwsh"
        )
        || crate::inline_code::interpreter(name).is_some()
}

/// `alias NAME='BODY'…`: the body runs later wherever `NAME` starts a command, with the
/// words that follow it there.
pub(super) fn alias(rest: &[Arg], line: &mut Line<'_>) -> Vec<OpSpec> {
    let mut ops = Vec::new();
    for arg in rest {
        let Some(text) = arg.known() else {
            // `alias "$x"` may define one from a value.
            ops.extend(hops::program(
                None,
                "an alias that is not literal",
                false,
                line,
            ));
            continue;
        };
        if arg.is_option() {
            continue;
        }
        let Some((name, body)) = text.split_once('=') else {
            continue;
        };
        // A definition runs nothing: judged only where the line may use it.
        if !line.judge_definitions && super::definitions::may_leave_out(line.source, name, arg.span)
        {
            let text = line
                .source
                .get(arg.span.start..arg.span.end)
                .unwrap_or(text);
            line.left_out.push(crate::Definition {
                name: name.to_owned(),
                text: format!("alias {text}"),
            });
            continue;
        }
        let note = format!("alias {name} runs `{body}` later, with the arguments given there");
        let found = hops::program(Some(body), &note, false, line);
        let head = body.split_whitespace().next().unwrap_or("");
        if found.is_empty() && (smells(body) || runs_programs(head)) {
            ops.push(OpSpec::unknown("alias", Dialect::Posix, note));
        }
        ops.extend(found);
    }
    ops
}

/// `hash -p PATH NAME…`: later `NAME` runs `PATH`. A path to a deleter, a shell or a
/// wrapper (or one that is not literal) makes every later use of `NAME` unknown.
pub(super) fn hash(rest: &[Arg]) -> Vec<OpSpec> {
    let Some(at) = rest.iter().position(|a| {
        a.known()
            .is_some_and(|t| t.starts_with('-') && t[1..].contains('p'))
    }) else {
        return Vec::new();
    };
    let Some(path) = rest.get(at + 1) else {
        return Vec::new();
    };
    let names: Vec<&str> = rest[at + 2..].iter().filter_map(Arg::known).collect();
    let note = match path.known() {
        None => "hash -p with a path that is not literal".to_owned(),
        Some(p) if smells(p) || runs_programs(p) || crate::fs_delete::deletes_by_name(p) => {
            format!("hash -p makes `{}` run {p}", names.join(" "))
        }
        Some(_) => return Vec::new(),
    };
    vec![OpSpec::unknown("hash", Dialect::Posix, note)]
}

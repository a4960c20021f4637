//! The cmd.exe front end: lex the line, then classify each command.
//!
//! cmd's delete builtins (`del`, `erase`, `rd`, `rmdir`) are parsed here; `call` is
//! unwrapped; `cmd /c` and `powershell -Command` are followed into their scripts; `start`
//! and POSIX shell hops are opaque. POSIX and PowerShell delete vocabulary cannot be judged
//! in cmd: it is a target-free unknown op (the vocabulary floor).

mod copy;
mod del_rd;
mod glued;

use agent_guard_lex::{Script, SimpleCommand};
use agent_guard_types::{Dialect, OpSpec};

use crate::Classification;
use crate::hosts::{self, HostArg};
use crate::shapes::Positions;
use crate::windows::{self, Line, Split, Tok};

/// How cmd's builtins split their arguments: at `,` `;` `=`, and before every unquoted `/`.
pub(crate) const BUILTIN: Split = Split {
    delimiters: &[',', ';', '='],
    slash: true,
};

/// cmd's delete builtins.
const DELETERS: &[&str] = &["del", "erase", "rd", "rmdir"];

/// POSIX shells reachable from cmd (Git for Windows, WSL): their scripts are not classified.
const POSIX_SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "wsl"];

/// Classifies cmd.exe text.
pub(crate) fn classify(text: &str, nesting: u32) -> Classification {
    windows::classify(
        text,
        nesting,
        Dialect::Cmd,
        agent_guard_lex::cmd::lex,
        command,
    )
}

fn command(
    script: &Script,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    // The redirections are opened before the command runs.
    let command = &script.commands[index];
    let mut ops: Vec<OpSpec> = crate::writes::redirect::windows(command, Dialect::Cmd)
        .into_iter()
        .collect();
    ops.extend(command_ops(script, index, line, positions));
    ops
}

fn command_ops(
    script: &Script,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let command = &script.commands[index];
    // `call` runs the rest of the line as a command.
    let mut start = 0;
    let (head_toks, head_text) = loop {
        let Some(word) = command.words.get(start) else {
            return Vec::new();
        };
        let toks = glued::unglue(windows::tokens(word, BUILTIN));
        let Some(head) = toks.first() else {
            start += 1;
            continue;
        };
        let Some(text) = head.literal().map(str::to_owned) else {
            // `%CMD% /s /q x`, `call %X%`: whatever runs is unknown.
            return vec![windows::unknown(
                "<opaque>",
                Dialect::Cmd,
                "command name is not literal",
            )];
        };
        if toks.len() == 1 && windows::program_name(&text) == "call" {
            start += 1;
            continue;
        }
        break (toks, text);
    };
    // `del(x`: a deleter glued to a character `glued` does not split is not a path.
    if windows::names_own_program(&head_text) && !glued_deleter(&head_text) {
        return own_program(&head_text, &head_toks, command, start);
    }
    if let Some(unknown) = note_lookup(positions, index, &head_text) {
        return vec![unknown];
    }
    let name = windows::program_name(&head_text);
    let words = &command.words[start + 1..];
    if !command.context.in_substitution {
        positions.note_windows_command(&name, index);
        if crate::shapes::WINDOWS_CD_TO.contains(&name.as_str()) {
            let args: Vec<Tok> = head_toks[1..]
                .iter()
                .cloned()
                .chain(words.iter().flat_map(|w| windows::tokens(w, BUILTIN)))
                .collect();
            positions.note_windows_cd_dir(&name, &args, Dialect::Cmd, index);
        }
    }
    if DELETERS.contains(&name.as_str()) {
        let args: Vec<Tok> = head_toks[1..]
            .iter()
            .cloned()
            .chain(words.iter().flat_map(|w| windows::tokens(w, BUILTIN)))
            .collect();
        return del_rd::parse(&name, &args).into_iter().collect();
    }
    if matches!(name.as_str(), "copy" | "move" | "ren" | "rename") {
        let args: Vec<Tok> = head_toks[1..]
            .iter()
            .cloned()
            .chain(words.iter().flat_map(|w| windows::tokens(w, BUILTIN)))
            .collect();
        let op = match name.as_str() {
            "copy" => copy::copy(&args),
            "move" => copy::move_(&args),
            _ => copy::ren(&args),
        };
        return op.into_iter().collect();
    }
    if hosts::host(&name).is_some() {
        let args = host_args(command, &head_toks[1..], start + 1, line.source);
        let call = hosts::Call {
            program: &name,
            args: &args,
            nesting: line.nesting,
            dialect: Dialect::Cmd,
            piped: windows::stdin_stream(command),
        };
        let hop = hosts::run(call, &mut || line.smells());
        if hop.changes_cwd {
            positions.note_cwd_change(index);
        }
        return hop.ops;
    }
    let args: Vec<Tok> = head_toks[1..]
        .iter()
        .cloned()
        .chain(words.iter().map(windows::whole))
        .collect();
    let mut ops = by_name(&name, &head_text, &args, command, line);
    let probe: Vec<crate::args::Arg> = args.iter().map(Tok::probe_arg).collect();
    crate::listed::attach(&name, &probe, command, &mut ops);
    ops
}

/// A program named by a path: checkpointed, and still judged for what it destroys outside
/// the workspace (`C:\tools\terraform.exe destroy`).
fn own_program(
    head_text: &str,
    head_toks: &[Tok],
    command: &SimpleCommand,
    start: usize,
) -> Vec<OpSpec> {
    let args: Vec<Tok> = head_toks[1..]
        .iter()
        .cloned()
        .chain(
            command.words[start + 1..]
                .iter()
                .flat_map(|w| windows::tokens(w, BUILTIN)),
        )
        .collect();
    let name = windows::program_name(head_text);
    let outside =
        crate::outside::judge_windows(&name, &args, Dialect::Cmd, windows::stdin_stream(command))
            .unwrap_or_default();
    std::iter::once(crate::noop::opaque(
        head_text,
        Dialect::Cmd,
        windows::OWN_PROGRAM,
    ))
    .chain(outside.into_iter().filter(|o| o.outside.is_some()))
    .collect()
}

/// Classifies a command by its (lowercased) name `name`, spelled `head_text`, and its
/// arguments `args`, once it is known to be neither a delete, a copy or move, nor a shell
/// host.
fn by_name(
    name: &str,
    head_text: &str,
    args: &[Tok],
    command: &SimpleCommand,
    line: &Line<'_>,
) -> Vec<OpSpec> {
    let text = line.text(command);
    match name {
        _ if let Some(ops) = crate::outside::judge_windows(
            name,
            args,
            Dialect::Cmd,
            windows::stdin_stream(command),
        ) =>
        {
            ops
        }
        "start" if windows::noop::starts_nothing(args, Dialect::Cmd) => Vec::new(),
        "start" => windows::or_opaque(
            windows::opaque_if_smelly(
                text,
                Dialect::Cmd,
                "start runs its command in another process",
            ),
            name,
            args,
            Dialect::Cmd,
            "start runs a program whose effects the guard does not model",
        ),
        "robocopy" => windows::robocopy(args, Dialect::Cmd),
        "xcopy" => copy::xcopy(args).into_iter().collect(),
        "replace" => copy::replace(args).into_iter().collect(),
        "sort" => copy::sort(args).into_iter().collect(),
        "format" => copy::format(args).into_iter().collect(),
        "fsutil" => copy::fsutil(args).into_iter().collect(),
        "curl" | "tar" | "clang-format" => windows::native_writer(name, args, Dialect::Cmd),
        _ if let Some(ops) = crate::metadata::windows::parse(name, args, Dialect::Cmd) => ops,
        _ if crate::runners::starts(name, args.first().and_then(Tok::literal)) => {
            windows::or_opaque(
                windows::runner(text, Dialect::Cmd),
                name,
                args,
                Dialect::Cmd,
                "a package runner or task runner runs a script whose effects the guard does not model",
            )
        }
        "rm" | "remove-item" | "ri" => vec![windows::mismatch(name, Dialect::Cmd)],
        _ if let Some(lang) = crate::inline_code::interpreter(name) => windows::or_opaque(
            windows::interpreter(lang, args, windows::stdin_stream(command), Dialect::Cmd),
            name,
            args,
            Dialect::Cmd,
            "an interpreter runs code whose effects the guard does not model",
        ),
        _ if POSIX_SHELLS.contains(&name) => windows::or_opaque(
            windows::posix_shell(text, windows::stdin_stream(command), Dialect::Cmd),
            name,
            args,
            Dialect::Cmd,
            "a POSIX shell runs a script whose effects the guard does not model",
        ),
        "forfiles" => windows::later::forfiles(args, line.nesting, Dialect::Cmd),
        "doskey" => windows::later::doskey(command, line.source, line.nesting),
        "set" => windows::later::set(args, Dialect::Cmd),
        // `path DIR;…` sets PATH (`path` alone prints it).
        "path" if !args.is_empty() => windows::later::variable("PATH", None, Dialect::Cmd),
        _ if glued_deleter(head_text) => vec![windows::unknown(
            name,
            Dialect::Cmd,
            "a delete command glued to its arguments",
        )],
        _ => windows::unmodelled(name, args, Dialect::Cmd),
    }
}

/// The host's arguments: the pieces glued to its name (`cmd/c`), then its words. The word
/// that starts the nested command (after `/c`, `/k`, `/r`, or glued to one) also carries the
/// command line from there on as cmd passes it on (carets removed, quotes kept); computing it
/// for that word only keeps this linear.
fn host_args(command: &SimpleCommand, glued: &[Tok], first: usize, source: &str) -> Vec<HostArg> {
    let words = command.words.get(first..).unwrap_or_default();
    let end = words.last().map_or(0, |w| w.span.end);
    let starts_command = |text: Option<&str>| {
        text.map(str::to_ascii_lowercase)
            .is_some_and(|t| matches!(t.get(..2), Some("/c" | "/k" | "/r")))
    };
    let mut args: Vec<HostArg> = glued
        .iter()
        .map(|t| HostArg {
            text: t.literal().map(str::to_owned),
            tail: None,
        })
        .collect();
    let mut found = false;
    for word in words {
        let text = windows::whole(word).literal().map(str::to_owned);
        let after_switch = args.last().is_some_and(|a| {
            a.text.as_deref().is_some_and(|t| t.len() == 2) && starts_command(a.text.as_deref())
        });
        let glued_switch =
            text.as_deref().is_some_and(|t| t.len() > 2) && starts_command(text.as_deref());
        let tail = if !found && (after_switch || glued_switch) {
            found = true;
            source.get(word.span.start..end).map(uncaret)
        } else {
            None
        };
        args.push(HostArg { text, tail });
    }
    args
}

/// Removes cmd's escaping carets outside double quotes (`^^` is a caret).
fn uncaret(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut quoted = false;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                out.push(c);
            }
            '^' if !quoted => {
                if let Some(next) = chars.next()
                    && next != '\n'
                {
                    out.push(next);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// `del(x`, `erase@x`: cmd ends a builtin's name at such characters and runs it, so a
/// deleter glued to what follows (where [`glued::unglue`] does not split it) is not a path.
fn glued_deleter(head: &str) -> bool {
    let lowered = head.to_ascii_lowercase();
    DELETERS.iter().any(|verb| {
        lowered
            .strip_prefix(verb)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    })
}

#[cfg(test)]
mod tests;

/// Notes where cmd looks the program `name` of command `index` up: the working directory
/// first, then `PATH` ([`crate::looked_up`]). When the line changed to a directory it does
/// not show, the program found there is unknown: the op that says so.
fn note_lookup(positions: &Positions, index: usize, name: &str) -> Option<OpSpec> {
    match positions.literal_dir_before(index) {
        Some(dir) => crate::looked_up::note_in(&dir, name, Dialect::Cmd),
        // A `git.bat` planted in `%X%` runs for `cd %X% & git status`.
        None if positions.unknown_dir_before(index)
            && !name.contains(['/', '\\', ':'])
            && !crate::looked_up::builtin(name, Dialect::Cmd) =>
        {
            return Some(crate::noop::opaque(
                name,
                Dialect::Cmd,
                "cmd looks the program up first in a directory the line does not show",
            ));
        }
        None => crate::looked_up::note(name, Dialect::Cmd),
    }
    None
}

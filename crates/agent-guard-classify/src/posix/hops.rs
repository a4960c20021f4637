//! Interpreter hops: `bash -c '…'`, `eval …`, `source f`, a program piped into a shell, and
//! foreign shell hosts (`cmd`, `powershell`).
//!
//! A literal script is classified with the same pipeline (bounded depth). A script whose
//! text is not known statically is an unknown destructive op if anything about it smells.

use agent_guard_lex::{RedirectOp, Separator, SimpleCommand};
use agent_guard_types::{Dialect, OpSpec};

use super::{Line, command_text, nested};
use crate::args::Arg;
use crate::inline_code::{self, Invocation, Lang, Stdin};
use crate::smell::smells;

/// Shell options that take a separate value.
const VALUED: &[char] = &['o', 'O'];
const VALUED_LONG: &[&str] = &["--rcfile", "--init-file"];

/// `sh`, `bash`, … with `-c SCRIPT`, a script file, or a program on stdin.
pub(super) fn shell(
    name: &str,
    rest: &[Arg],
    command: &SimpleCommand,
    _index: usize,
    line: &mut Line<'_>,
) -> Vec<OpSpec> {
    let mut dash_c = false;
    let mut no_exec = false;
    let mut reads_stdin_flag = false;
    let mut index = 0;
    let rest = if name == "busybox" {
        // `busybox sh -c …`
        match rest.first().and_then(Arg::known) {
            Some("sh" | "ash" | "bash") => &rest[1..],
            _ => return Vec::new(),
        }
    } else {
        rest
    };
    while let Some(arg) = rest.get(index) {
        let Some(text) = arg.known() else { break };
        if text == "--" || text == "-" {
            index += 1;
            break;
        }
        if text.starts_with("--") {
            if matches!(text, "--help" | "--version") {
                return Vec::new();
            }
            index += 1 + usize::from(VALUED_LONG.contains(&text));
            continue;
        }
        if !(text.starts_with('-') || text.starts_with('+')) || text.len() < 2 {
            break;
        }
        let letters = &text[1..];
        dash_c |= letters.contains('c');
        no_exec |= text.starts_with('-') && letters.contains('n');
        reads_stdin_flag |= letters.contains('s');
        index += 1 + letters.chars().filter(|c| VALUED.contains(c)).count();
    }
    if no_exec {
        return Vec::new();
    }
    if dash_c {
        return match rest.get(index) {
            Some(script) => match script.known() {
                Some(text) if !script.glob || script.quoted => {
                    nested(text, line, "shell -c script")
                }
                _ => opaque_if_line_smells(line, "shell -c script is not literal"),
            },
            None => Vec::new(),
        };
    }
    if rest.get(index).is_some() && !reads_stdin_flag {
        // `bash script.sh`: the script's contents are out of scope unless the words smell.
        let text = command_text(command, line.source);
        return opaque_if_smelly(text, "indirect shell execution");
    }
    stdin_program(command, line)
}

/// A shell reading its program from stdin: a heredoc, a here-string, or a pipe.
fn stdin_program(command: &SimpleCommand, line: &mut Line<'_>) -> Vec<OpSpec> {
    for redirect in &command.redirects {
        match (redirect.op, &redirect.heredoc, &redirect.target) {
            (RedirectOp::HereDoc | RedirectOp::HereDocStrip, Some(doc), _) => {
                if doc.quoted || !doc.body.contains(['$', '`']) {
                    return nested(&doc.body, line, "heredoc program");
                }
                return opaque_if_smelly(&doc.body, "heredoc program has expansions");
            }
            (RedirectOp::HereString, _, Some(word)) => {
                return match word.literal_text() {
                    Some(text) => nested(&text, line, "here-string program"),
                    None => opaque_if_smelly(
                        word.raw(line.source),
                        "here-string program is not literal",
                    ),
                };
            }
            (RedirectOp::In, _, _) => {
                let text = command_text(command, line.source);
                return opaque_if_smelly(text, "shell program read from a file");
            }
            _ => {}
        }
    }
    if matches!(command.separator, Separator::Pipe | Separator::PipeAll) && line.smells() {
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            "shell program arrives via stdin",
        )];
    }
    Vec::new()
}

/// `python -c …`, `node -e …`, a heredoc fed to `python3 -`…: see [`crate::inline_code`].
pub(super) fn interpreter(
    lang: Lang,
    rest: &[Arg],
    command: &SimpleCommand,
    line: &Line<'_>,
) -> Vec<OpSpec> {
    let args: Vec<Option<&str>> = rest.iter().map(Arg::known).collect();
    let mut here_string = None;
    let mut stdin = Stdin::Unseen;
    for redirect in &command.redirects {
        match (redirect.op, &redirect.heredoc, &redirect.target) {
            (RedirectOp::HereDoc | RedirectOp::HereDocStrip, Some(doc), _) => {
                stdin = Stdin::Text(&doc.body);
            }
            (RedirectOp::HereString, _, Some(word)) => {
                here_string = Some(word.raw(line.source));
            }
            _ => {}
        }
    }
    if let Some(text) = here_string {
        stdin = Stdin::Text(text);
    } else if matches!(stdin, Stdin::Unseen)
        && matches!(command.separator, Separator::Pipe | Separator::PipeAll)
    {
        stdin = Stdin::Pipe(line.source);
    }
    inline_code::classify(Invocation {
        lang,
        args: &args,
        line: line.source,
        stdin,
        dialect: Dialect::Posix,
    })
}

/// `eval ARGS…`: the arguments joined by spaces are a script.
pub(super) fn eval(rest: &[Arg], line: &mut Line<'_>) -> Vec<OpSpec> {
    let known: Option<Vec<&str>> = rest.iter().map(Arg::known).collect();
    match known {
        Some(words) if rest.iter().all(|a| !a.glob || a.quoted) => {
            nested(&words.join(" "), line, "eval")
        }
        _ => {
            if line.smells() {
                vec![OpSpec::unknown(
                    "<opaque>",
                    Dialect::Posix,
                    "eval of a value that is not literal",
                )]
            } else {
                Vec::new()
            }
        }
    }
}

/// `source FILE` / `. FILE`: the file's contents are unknown.
pub(super) fn source(command: &SimpleCommand, line: &mut Line<'_>) -> Vec<OpSpec> {
    opaque_if_smelly(command_text(command, line.source), "sourced script")
}

/// `cmd /c …`, `powershell -Command …` typed into a POSIX shell (Git Bash, WSL): a literal
/// script is classified with the host's dialect (bounded depth), anything else is opaque.
pub(super) fn foreign_host(
    name: &str,
    rest: &[Arg],
    command: &SimpleCommand,
    line: &mut Line<'_>,
) -> Vec<OpSpec> {
    // An unquoted glob is expanded by the POSIX shell before the host sees it.
    let args: Vec<crate::hosts::HostArg> = rest
        .iter()
        .map(|arg| crate::hosts::HostArg {
            text: arg
                .known()
                .filter(|_| !arg.glob || arg.quoted)
                .map(str::to_owned),
            tail: None,
        })
        .collect();
    let call = crate::hosts::Call {
        program: name,
        args: &args,
        nesting: line.nesting,
        dialect: Dialect::Posix,
        piped: matches!(command.separator, Separator::Pipe | Separator::PipeAll),
    };
    crate::hosts::run(call, &mut || line.smells()).ops
}

fn opaque_if_line_smells(line: &mut Line<'_>, why: &str) -> Vec<OpSpec> {
    if line.smells() {
        vec![OpSpec::unknown("<opaque>", Dialect::Posix, why)]
    } else {
        Vec::new()
    }
}

fn opaque_if_smelly(text: &str, why: &str) -> Vec<OpSpec> {
    if smells(text) {
        vec![OpSpec::unknown("<opaque>", Dialect::Posix, why)]
    } else {
        Vec::new()
    }
}

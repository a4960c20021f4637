//! Interpreter hops: `bash -c '…'`, `eval …`, `source f`, a program on a shell's stdin,
//! command strings of wrappers (`su -c`, `watch`), and foreign shell hosts (`cmd`,
//! `powershell`).
//!
//! A literal program is classified with the same pipeline (bounded depth). A program whose
//! text is not literal, or that arrives through a pipe, a process substitution, a file or a
//! descriptor, is an unknown op whatever the line says: what it runs cannot be known.
//! A script *file* named literally (`bash build.sh`) stays out of scope unless its words
//! smell (the reference's rule).

use agent_guard_lex::{RedirectOp, Separator, SimpleCommand};
use agent_guard_types::{Dialect, OpKind, OpSpec};

use super::{Call, Line, command_text, nested, nested_in};
use crate::args::Arg;
use crate::inline_code::{self, Invocation, Lang, Stdin};
use crate::smell::smells;

/// Shell options that take a separate value.
const VALUED: &[char] = &['o', 'O'];
const VALUED_LONG: &[&str] = &["--rcfile", "--init-file"];

/// Shells whose syntax is not sh's: what the POSIX rules read in their scripts may not be
/// what they run, so a destructive op found there is undeterminable.
const NOT_SH: &[&str] = &[
    "csh", "tcsh", "fish", "nu", "nushell", "elvish", "xonsh", "rc", "es",
];

/// Returns `true` for a path through which a program reads a stream instead of a file:
/// stdin, an inherited descriptor, a process substitution's `/dev/fd/N`, bash's sockets.
pub(crate) fn is_channel(path: &str) -> bool {
    path == "-"
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || path.starts_with("/dev/tcp/")
        || path.starts_with("/dev/udp/")
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

/// An unknown op: the program that runs cannot be known.
fn unknown(why: &str) -> Vec<OpSpec> {
    vec![OpSpec::unknown("<opaque>", Dialect::Posix, why)]
}

/// `sh`, `bash`, `fish`, … with `-c SCRIPT`, a script file, or a program on stdin.
pub(super) fn shell(name: &str, rest: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    let mut dash_c = false;
    let mut no_exec = false;
    let mut explicit_stdin = false;
    let mut index = 0;
    while let Some(arg) = rest.get(index) {
        let Some(text) = arg.known() else { break };
        if text == "--" || text == "-" {
            explicit_stdin |= text == "-";
            index += 1;
            break;
        }
        if text.starts_with("--") {
            if matches!(text, "--help" | "--version") {
                return Vec::new();
            }
            // A startup file the shell sources first: code the guard does not read.
            if text.starts_with("--rcfile") || text.starts_with("--init-file") {
                return vec![crate::noop::opaque(
                    name,
                    Dialect::Posix,
                    "the shell sources a startup file the guard does not read",
                )];
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
        explicit_stdin |= letters.contains('s');
        index += 1 + letters.chars().filter(|c| VALUED.contains(c)).count();
    }
    if no_exec {
        return Vec::new();
    }
    // `xargs sh …`, `find -exec sh … {}`: more arguments come after the visible ones. They
    // fill the script's position only when the argv ends before it.
    let mut ops = if dash_c {
        match rest.get(index) {
            None if call.from_stdin => unknown("the shell -c script arrives on stdin"),
            None => return Vec::new(),
            Some(script) => match script.known() {
                Some(text) if !script.glob || script.quoted => {
                    let stream = !matches!(
                        stdin_source(call, line, false),
                        StdinSource::Terminal | StdinSource::Empty
                    );
                    nested_in(text, line, "shell -c script", stream)
                }
                _ => unknown("shell -c script is not literal"),
            },
        }
    } else if explicit_stdin {
        stdin_program(call, line, true)
    } else {
        match rest.get(index) {
            None if call.from_stdin => unknown("the shell's script names arrive on stdin"),
            None => stdin_program(call, line, false),
            Some(file) => match file.known() {
                Some(path) if is_channel(path) => stdin_program(call, line, true),
                // `bash build.sh`: the file's contents are out of scope unless the words smell;
                // what it does is checkpointed.
                Some(_) if !file.glob || file.quoted => crate::noop::or_opaque(
                    opaque_if_smelly(
                        command_text(call.command, line.source),
                        "indirect shell execution",
                    ),
                    name,
                    "a shell script the guard does not read",
                ),
                _ => unknown(
                    "the shell's script is not a literal file (a variable, a process substitution)",
                ),
            },
        }
    };
    if NOT_SH.contains(&name) {
        for op in &mut ops {
            op.mark_undeterminable(format!("{name}'s syntax is not sh's"));
        }
    }
    ops
}

/// Where a program read from stdin comes from.
enum StdinSource {
    /// A literal heredoc or here-string.
    Literal(String),
    /// A heredoc or here-string with expansions: its text is only known when it runs.
    Expanded,
    /// A pipe, a file, a descriptor, a process substitution.
    Stream(&'static str),
    /// `< /dev/null`: an empty program.
    Empty,
    /// Nothing redirected at top level: the terminal.
    Terminal,
}

/// What the command's stdin is. `explicit`: the program asked for stdin (`-s`, `-`,
/// `/dev/stdin`), so an unredirected stdin is a stream the guard cannot see too.
fn stdin_source(call: Call<'_>, line: &Line<'_>, explicit: bool) -> StdinSource {
    for redirect in call.command.redirects.iter().rev() {
        if redirect.fd.is_some_and(|fd| fd != 0) {
            continue;
        }
        match (redirect.op, &redirect.heredoc, &redirect.target) {
            (RedirectOp::HereDoc | RedirectOp::HereDocStrip, Some(doc), _) => {
                return if doc.quoted || !doc.body.contains(['$', '`']) {
                    StdinSource::Literal(doc.body.clone())
                } else {
                    StdinSource::Expanded
                };
            }
            (RedirectOp::HereString, _, Some(word)) => {
                return match word.literal_text() {
                    Some(text) => StdinSource::Literal(text),
                    None => StdinSource::Expanded,
                };
            }
            (RedirectOp::In, _, Some(word))
                if word.literal_text().as_deref() == Some("/dev/null") =>
            {
                return StdinSource::Empty;
            }
            (RedirectOp::In | RedirectOp::ReadWrite, _, _) => {
                return StdinSource::Stream("read from a file");
            }
            (RedirectOp::DupIn, _, _) => return StdinSource::Stream("read from a descriptor"),
            _ => {}
        }
    }
    if matches!(call.command.separator, Separator::Pipe | Separator::PipeAll) {
        return StdinSource::Stream("piped in");
    }
    if explicit || call.command.context.depth > 0 || line.stdin_stream {
        // Inside a group, subshell or loop, stdin may be a pipe into the construct.
        return StdinSource::Stream("read from stdin");
    }
    StdinSource::Terminal
}

/// What a command reads on its input, for the outside rules: a here-document or here-string
/// the line spells out, a stream the guard does not read, or nothing (an agent's shell has no
/// input to give).
pub(super) fn input(call: Call<'_>, line: &Line<'_>) -> crate::outside::Input {
    use crate::outside::Input;
    match stdin_source(call, line, false) {
        StdinSource::Literal(text) => Input::Text(text),
        StdinSource::Empty | StdinSource::Terminal => Input::Nothing,
        _ => Input::Unseen,
    }
}

/// A shell reading its program from stdin.
fn stdin_program(call: Call<'_>, line: &mut Line<'_>, explicit: bool) -> Vec<OpSpec> {
    match stdin_source(call, line, explicit) {
        StdinSource::Literal(text) => nested(&text, line, "stdin program"),
        StdinSource::Expanded => unknown("the shell's program on stdin has expansions"),
        StdinSource::Stream(how) => unknown(&format!("the shell's program is {how}")),
        StdinSource::Empty | StdinSource::Terminal => Vec::new(),
    }
}

/// A wrapper's command string (`su -c`, `flock -c`, `script -c`, `watch`, `sg`).
pub(super) fn command_string(script: Option<&str>, wrapper: &str, line: &Line<'_>) -> Vec<OpSpec> {
    match script {
        Some(text) => nested(text, line, &format!("{wrapper} command string")),
        None => unknown(&format!("the {wrapper} command string is not literal")),
    }
}

/// A program stored or run by something else (a git alias, `core.editor`, a trap): its
/// ops, undeterminable unless it runs exactly as written (`exact`).
pub(super) fn program(
    script: Option<&str>,
    note: &str,
    exact: bool,
    line: &Line<'_>,
) -> Vec<OpSpec> {
    let Some(text) = script else {
        return unknown(note);
    };
    let mut ops = nested(text, line, note);
    if !exact {
        for op in &mut ops {
            op.mark_undeterminable(note);
        }
    }
    ops
}

/// An editor program (`GIT_EDITOR`, `core.editor`, `EDITOR`, …): like [`program`], but
/// what it writes of the file it is handed is its caller's scratch copy (git's commit
/// message or rebase todo list, `sudoedit`'s and `fc`'s temporary file), so a write or a
/// metadata change naming no file of its own (`sed -i -e 's/^pick/fixup/'`, `touch`)
/// destroys nothing.
pub(super) fn editor(script: Option<&str>, note: &str, line: &Line<'_>) -> Vec<OpSpec> {
    let mut ops = program(script, note, false, line);
    ops.retain(|op| {
        !(matches!(op.kind, OpKind::Overwrite | OpKind::Metadata) && op.targets.is_empty())
    });
    ops
}

/// `python -c …`, `node -e …`, a heredoc or a pipe fed to `python3 -`…: see
/// [`crate::inline_code`].
pub(super) fn interpreter(
    lang: Lang,
    rest: &[Arg],
    call: Call<'_>,
    line: &Line<'_>,
) -> Vec<OpSpec> {
    // Arguments from stdin (`xargs python3`) come after the visible ones.
    let args: Vec<Option<&str>> = rest
        .iter()
        .map(Arg::known)
        .chain(call.from_stdin.then_some(None))
        .collect();
    let channel_named = rest
        .iter()
        .filter_map(Arg::known)
        .any(|t| is_channel(t) && t != "-");
    let body;
    let stdin = match stdin_source(call, line, channel_named) {
        StdinSource::Literal(text) => {
            body = text;
            Stdin::Text(&body)
        }
        StdinSource::Expanded => Stdin::Unknown("a heredoc with expansions"),
        StdinSource::Stream(how) => Stdin::Unknown(how),
        StdinSource::Empty | StdinSource::Terminal => Stdin::Unseen,
    };
    inline_code::classify(Invocation {
        lang,
        args: &args,
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
        _ => unknown("eval of a value that is not literal"),
    }
}

/// `source FILE` / `. FILE`: a literal file's contents are out of scope; a name that is not
/// literal, or a stream (`<(…)`, `/dev/stdin`, `/dev/fd/3`), is an unknown program.
pub(super) fn source(rest: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    let Some(file) = rest.first() else {
        return if call.from_stdin {
            unknown("the sourced file's name arrives on stdin")
        } else {
            Vec::new()
        };
    };
    match file.known() {
        Some(path) if is_channel(path) => stdin_program(call, line, true),
        Some(_) if !file.glob || file.quoted => crate::noop::or_opaque(
            opaque_if_smelly(command_text(call.command, line.source), "sourced script"),
            "source",
            "a sourced script the guard does not read",
        ),
        _ => unknown("the sourced file is not literal (a variable, a process substitution)"),
    }
}

/// `at TIME`, `batch`: the job is a program read from stdin (or `-f FILE`), run later.
pub(super) fn at(rest: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    let mut index = 0;
    while let Some(text) = rest.get(index).and_then(Arg::known) {
        match text {
            "-l" | "-r" | "-d" | "-c" | "-V" | "-h" => return Vec::new(),
            "-f" => {
                return opaque_if_smelly(command_text(call.command, line.source), "an at job file");
            }
            "-q" | "-t" => index += 2,
            _ if text.starts_with('-') => index += 1,
            _ => break,
        }
    }
    let note = "at runs the job later";
    match stdin_source(call, line, false) {
        StdinSource::Literal(text) => program(Some(&text), note, false, line),
        StdinSource::Expanded | StdinSource::Stream(_) => unknown("the at job is not literal"),
        StdinSource::Empty | StdinSource::Terminal => Vec::new(),
    }
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
    let redirected = command.redirects.iter().any(|r| {
        matches!(
            r.op,
            RedirectOp::In
                | RedirectOp::DupIn
                | RedirectOp::HereDoc
                | RedirectOp::HereDocStrip
                | RedirectOp::HereString
        )
    });
    // Inside a group or subshell, stdin may be a pipe into the construct.
    let piped = matches!(command.separator, Separator::Pipe | Separator::PipeAll)
        || redirected
        || command.context.depth > 0
        || line.stdin_stream;
    let call = crate::hosts::Call {
        program: name,
        args: &args,
        nesting: line.nesting,
        dialect: Dialect::Posix,
        piped,
    };
    crate::hosts::run(call, &mut || line.smells()).ops
}

fn opaque_if_smelly(text: &str, why: &str) -> Vec<OpSpec> {
    if smells(text) {
        unknown(why)
    } else {
        Vec::new()
    }
}

//! The PowerShell front end: lex the line, then classify each command.
//!
//! `Remove-Item` and its aliases are parsed here; `cmd /c`, `powershell -Command` and
//! `Invoke-Expression` with a literal script are followed into it; .NET delete calls
//! (`[IO.Directory]::Delete(…)`, `(Get-Item x).Delete()`) and jobs are opaque. A delete in a
//! script block handed to a command that runs it later or elsewhere (`Start-Job { … }`) is
//! undeterminable. POSIX delete vocabulary that is not a PowerShell alias is floored.

mod dotnet;
mod metadata;
mod params;
mod remove_item;
mod writes;

use agent_guard_lex::{Script, Separator, SimpleCommand, Word, WordPart};
use agent_guard_types::{Dialect, OpSpec};

use crate::Classification;
use crate::hosts::{self, HostArg};
use crate::shapes::Positions;
use crate::windows::{self, Line, Tok};

/// `Remove-Item` and its aliases (`erase` is included though it is a cmd builtin: PowerShell
/// defines it).
const REMOVE_ITEM: &[&str] = &["remove-item", "rm", "ri", "rd", "rmdir", "del", "erase"];

/// Commands that run a script block they are given right away, in this session and
/// directory. A delete in a block given to anything else runs later or elsewhere.
const RUNS_BLOCK_HERE: &[&str] = &[
    "&",
    ".",
    "foreach-object",
    "%",
    "foreach",
    "where-object",
    "?",
    "where",
    "measure-command",
    "sort-object",
    "sort",
    "select-object",
    "select",
    "group-object",
    "group",
    "invoke-command",
    "icm",
];

/// `Invoke-Command` parameters that keep the block local.
const LOCAL_INVOKE: &[&str] = &[
    "scriptblock",
    "nonewscope",
    "argumentlist",
    "args",
    "inputobject",
];

/// Commands that start their argument in another process or later.
const STARTERS: &[&str] = &[
    "start-process",
    "saps",
    "start",
    "start-job",
    "sajb",
    "start-threadjob",
    "invoke-wmimethod",
    "invoke-cimmethod",
];

/// POSIX shells reachable from PowerShell: their scripts are not classified.
const POSIX_SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "wsl"];

/// Classifies PowerShell text.
pub(crate) fn classify(text: &str, nesting: u32) -> Classification {
    windows::classify(
        text,
        nesting,
        Dialect::PowerShell,
        agent_guard_lex::powershell::lex,
        command,
    )
}

fn command(
    script: &Script,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let command = &script.commands[index];
    // The redirections are opened before the command runs.
    let mut ops: Vec<OpSpec> = crate::writes::redirect::windows(command, Dialect::PowerShell)
        .into_iter()
        .collect();
    ops.extend(words(command, index, line, positions));
    ops.extend(dotnet::ops(line.text(command)));
    ops.extend(windows::later::path_change(line.text(command)));
    let in_block = command.context.in_function && command.context.in_control_flow;
    if in_block
        && !ops.is_empty()
        && let Some(owner) = line.owner(index)
        && !line.memo(owner, || runs_block_here(&script.commands[owner]))
    {
        for op in &mut ops {
            op.mark_undeterminable("the script block runs later or elsewhere");
        }
    }
    ops
}

/// Classifies a command by its words.
fn words(
    command: &SimpleCommand,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let mut words = &command.words[..];
    let invoked = words
        .first()
        .is_some_and(|w| matches!(w.literal_text().as_deref(), Some("&" | ".")));
    if invoked {
        words = &words[1..];
    }
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let head = windows::whole(first);
    let Some(head_text) = head.literal() else {
        // An expression statement (`$x`, `(…).Count`) runs no command, and a script block
        // run with `&` or `.` lists its own commands. But `& $name`, `& ("Remove" +
        // "-Item")`, `. $script` run a command whose name is only known when it runs.
        let block = matches!(&first.parts[..],
            [WordPart::CommandSubstitution { raw }] if raw.starts_with('{'));
        return if invoked && !block {
            vec![windows::unknown(
                "<opaque>",
                Dialect::PowerShell,
                "command name is not literal",
            )]
        } else {
            program_assignment(command, line)
        };
    };
    if windows::names_own_program(head_text) && !module_qualified(head_text) {
        // `& "C:\Program Files\PostgreSQL\16\bin\psql.exe" -c '…'`: still a database.
        let toks: Vec<windows::Tok> = words[1..]
            .iter()
            .flat_map(|w| windows::tokens(w, remove_item::ARRAY))
            .collect();
        let name = windows::program_name(head_text);
        let outside = crate::outside::judge_windows(
            &name,
            &toks,
            Dialect::PowerShell,
            windows::stdin_stream(command),
        )
        .unwrap_or_default();
        return std::iter::once(crate::noop::opaque(
            head_text,
            Dialect::PowerShell,
            windows::OWN_PROGRAM,
        ))
        .chain(outside.into_iter().filter(|o| o.outside.is_some()))
        .collect();
    }
    crate::looked_up::note(head_text, Dialect::PowerShell);
    let name = windows::program_name(head_text);
    let args = &words[1..];
    if !command.context.in_substitution {
        positions.note_windows_command(&name, index);
        if crate::shapes::WINDOWS_CD_TO.contains(&name.as_str()) {
            let toks: Vec<windows::Tok> = args
                .iter()
                .flat_map(|w| windows::tokens(w, remove_item::ARRAY))
                .collect();
            positions.note_windows_cd_dir(&name, &toks, Dialect::PowerShell, index);
        }
    }
    let piped = command.separator == Separator::Pipe;
    if !command.assignments.is_empty() {
        let ops = program_assignment(command, line);
        if !ops.is_empty() {
            return ops;
        }
    }
    if REMOVE_ITEM.contains(&name.as_str()) {
        return vec![remove_item::parse(&name, args, piped)];
    }
    if let Some(ops) = outside(&name, args, command, piped) {
        return ops;
    }
    if let Some(ops) = writes::parse(&name, args, piped) {
        return ops;
    }
    if let Some(ops) = metadata::parse(&name, args, piped) {
        return ops;
    }
    if hosts::host(&name).is_some() {
        return host(&name, args, command, index, line, positions);
    }
    let toks: Vec<Tok> = args.iter().map(windows::whole).collect();
    // A statement that starts with a string (`'x' | Set-Content f`, a .NET call's
    // `('build', $true)`) is an expression, not a command: without `&` nothing runs.
    let expression = !invoked
        && line
            .source
            .get(first.span.start..)
            .is_some_and(|t| t.starts_with(['\'', '"', '@']));
    let mut ops = by_name(&name, &toks, command, piped, expression, line);
    let probe: Vec<crate::args::Arg> = toks.iter().map(Tok::probe_arg).collect();
    crate::listed::attach(&name, &probe, command, &mut ops);
    ops
}

/// A command that hands its arguments to another shell or interpreter (`cmd /c …`,
/// `powershell -Command …`): the ops of what it runs.
fn host(
    name: &str,
    args: &[Word],
    command: &SimpleCommand,
    index: usize,
    line: &mut Line<'_>,
    positions: &mut Positions,
) -> Vec<OpSpec> {
    let host_args: Vec<HostArg> = args
        .iter()
        .map(|w| HostArg {
            text: windows::whole(w).literal().map(str::to_owned),
            tail: None,
        })
        .collect();
    let call = hosts::Call {
        program: name,
        args: &host_args,
        nesting: line.nesting,
        dialect: Dialect::PowerShell,
        piped: windows::stdin_stream(command),
    };
    let hop = hosts::run(call, &mut || line.smells());
    if hop.changes_cwd {
        positions.note_cwd_change(index);
    }
    hop.ops
}

/// Classifies a command by its (lowercased) name `name` and its arguments `toks`, once it is
/// known to be neither `Remove-Item`, a modelled writer nor a shell host; `expression` is a
/// statement that starts with a string.
fn by_name(
    name: &str,
    toks: &[Tok],
    command: &SimpleCommand,
    piped: bool,
    expression: bool,
    line: &mut Line<'_>,
) -> Vec<OpSpec> {
    let text = line.text(command);
    match name {
        _ if let Some(ops) = crate::outside::judge_windows(
            name,
            toks,
            Dialect::PowerShell,
            piped || windows::stdin_stream(command),
        ) =>
        {
            ops
        }
        "invoke-expression" | "iex" => invoke_expression(toks, piped, line),
        "set-alias" | "new-alias" | "sal" | "nal" => windows::later::set_alias(toks),
        "forfiles" => windows::later::forfiles(toks, line.nesting, Dialect::PowerShell),
        _ if STARTERS.contains(&name)
            && windows::noop::starts_nothing(toks, Dialect::PowerShell) =>
        {
            Vec::new()
        }
        _ if STARTERS.contains(&name) => windows::or_opaque(
            windows::opaque_if_smelly(
                text,
                Dialect::PowerShell,
                "the command runs in another process or later",
            ),
            name,
            toks,
            Dialect::PowerShell,
            "it starts a program whose effects the guard does not model",
        ),
        // `gci | % Delete`: ForEach-Object -MemberName calls the method on every item.
        "foreach-object" | "%" | "foreach"
            if toks
                .first()
                .and_then(Tok::literal)
                .is_some_and(is_destructive_member) =>
        {
            vec![windows::unknown(
                name,
                Dialect::PowerShell,
                "ForEach-Object calls a .NET method that deletes, moves or replaces every item",
            )]
        }
        // A module given by path runs its code when imported.
        "import-module" | "ipmo" if toks.iter().filter_map(Tok::literal).any(is_module_file) => {
            vec![crate::noop::opaque(
                name,
                Dialect::PowerShell,
                "importing a module file runs its code",
            )]
        }
        "robocopy" => windows::robocopy(toks, Dialect::PowerShell),
        "tar" | "clang-format" => windows::native_writer(name, toks, Dialect::PowerShell),
        _ if let Some(ops) = crate::metadata::windows::parse(name, toks, Dialect::PowerShell) => {
            ops
        }
        _ if crate::runners::starts(name, toks.first().and_then(Tok::literal)) => {
            windows::or_opaque(
                windows::runner(text, Dialect::PowerShell),
                name,
                toks,
                Dialect::PowerShell,
                "a package runner or task runner runs a script whose effects the guard does not model",
            )
        }
        _ if let Some(lang) = crate::inline_code::interpreter(name) => windows::or_opaque(
            windows::interpreter(
                lang,
                toks,
                windows::stdin_stream(command),
                Dialect::PowerShell,
            ),
            name,
            toks,
            Dialect::PowerShell,
            "an interpreter runs code whose effects the guard does not model",
        ),
        _ if POSIX_SHELLS.contains(&name) => windows::or_opaque(
            windows::posix_shell(text, windows::stdin_stream(command), Dialect::PowerShell),
            name,
            toks,
            Dialect::PowerShell,
            "a POSIX shell runs a script whose effects the guard does not model",
        ),
        _ if expression => Vec::new(),
        _ => windows::unmodelled(name, toks, Dialect::PowerShell),
    }
}

/// What the cmdlet or program `name` destroys outside the workspace ([`crate::outside`]),
/// read only for the names those rules know.
fn outside(
    name: &str,
    words: &[agent_guard_lex::Word],
    command: &SimpleCommand,
    piped: bool,
) -> Option<Vec<OpSpec>> {
    if !crate::outside::concerns(name) {
        return None;
    }
    let toks: Vec<windows::Tok> = words
        .iter()
        .flat_map(|w| windows::tokens(w, remove_item::ARRAY))
        .collect();
    crate::outside::judge_windows(
        name,
        &toks,
        Dialect::PowerShell,
        piped || windows::stdin_stream(command),
    )
}

/// Returns `true` if `member`, a .NET member name given to `ForEach-Object`, deletes, moves
/// or replaces the item it is called on.
fn is_destructive_member(member: &str) -> bool {
    let m = member.to_ascii_lowercase();
    m.contains("delete")
        || m.contains("move")
        || m.contains("replace")
        || m.contains("copy")
        || m == "create"
        || m.contains("encrypt")
}

/// Returns `true` if `module`, an argument of `Import-Module`, names a module file by path.
fn is_module_file(module: &str) -> bool {
    module.contains(['/', '\\'])
        || module.to_ascii_lowercase().ends_with(".psm1")
        || module.to_ascii_lowercase().ends_with(".ps1")
}

/// A module-qualified command name (`Microsoft.PowerShell.Management\Remove-Item`): one
/// `\` between a module name and a `Verb-Noun`, not a path.
fn module_qualified(text: &str) -> bool {
    let Some((module, command)) = text.split_once('\\') else {
        return false;
    };
    !module.is_empty()
        && !module.starts_with('.')
        && !module.contains([':', '/', '~'])
        && command.contains('-')
        && !command.contains(['\\', '/'])
}

/// `$env:GIT_EDITOR = '…'`: a program variable set to destructive words (or to a value
/// that is not literal) is refused.
fn program_assignment(command: &SimpleCommand, line: &Line<'_>) -> Vec<OpSpec> {
    let Some(target) = command.assignments.first() else {
        return Vec::new();
    };
    let name = target.raw(line.source);
    if !name.to_ascii_lowercase().starts_with("$env:") {
        return Vec::new();
    }
    let value: Option<Vec<String>> = command
        .words
        .iter()
        .map(|w| windows::whole(w).literal().map(str::to_owned))
        .collect();
    windows::later::variable(
        name,
        value.map(|v| v.join(" ")).as_deref(),
        Dialect::PowerShell,
    )
}

/// `Invoke-Expression 'script'` (or `-Command 'script'`): a literal script is classified;
/// one that is not literal, or arrives through the pipeline, is an unknown program.
fn invoke_expression(args: &[Tok], piped: bool, line: &mut Line<'_>) -> Vec<OpSpec> {
    let mut scripts = Vec::new();
    for tok in args {
        match remove_item::parameter(tok) {
            Some(p)
                if !p.name.is_empty() && "command".starts_with(&p.name.to_ascii_lowercase()) =>
            {
                if let Some(value) = p.value.filter(|v| !v.is_empty()) {
                    scripts.push(Tok::with_pieces(value, tok.span));
                }
            }
            Some(_) => {
                return windows::opaque_if_line_smells(
                    line,
                    Dialect::PowerShell,
                    "Invoke-Expression with unknown parameters",
                );
            }
            None => scripts.push(tok.clone()),
        }
    }
    match scripts.as_slice() {
        [script] if script.literal().is_some() => {
            hosts::nested_script(script.literal().unwrap_or_default(), line.nesting, "iex")
        }
        [] if !piped => Vec::new(),
        [] => vec![windows::unknown(
            "iex",
            Dialect::PowerShell,
            "Invoke-Expression of a script that arrives through the pipeline",
        )],
        _ => vec![windows::unknown(
            "iex",
            Dialect::PowerShell,
            "Invoke-Expression of a value that is not literal",
        )],
    }
}

/// Returns `true` if a command hands its script block to something that runs it right away.
fn runs_block_here(owner: &SimpleCommand) -> bool {
    let Some(first) = owner.words.first().and_then(Word::literal_text) else {
        return false;
    };
    let name = windows::program_name(&first);
    if !RUNS_BLOCK_HERE.contains(&name.as_str()) {
        return false;
    }
    if name != "invoke-command" && name != "icm" {
        return true;
    }
    // `Invoke-Command -ComputerName …`, `-Session`, `-AsJob`: elsewhere or later.
    owner.words.iter().skip(1).all(|w| {
        let tok = windows::whole(w);
        remove_item::parameter(&tok).is_none_or(|p| {
            let lowered = p.name.to_ascii_lowercase();
            !lowered.is_empty() && LOCAL_INVOKE.iter().any(|l| l.starts_with(&lowered))
        })
    })
}

#[cfg(test)]
mod tests;

//! Strings that run later, in cmd and PowerShell: `forfiles /c "…"` (run per file),
//! `doskey` macros, `Set-Alias`, and program variables (`set GIT_EDITOR=…`,
//! `$env:GIT_EDITOR = …`).
//!
//! As in POSIX (`posix/later.rs`): a literal string is classified where it is defined, a
//! destructive one is undeterminable (it runs per file, later, or with arguments given
//! elsewhere), a string that is not literal is an unknown op.

use agent_guard_lex::SimpleCommand;
use agent_guard_types::{Dialect, OpSpec};

use super::{Tok, unknown};
use crate::posix::MAX_NESTING;
use crate::smell::smells;

/// Variables whose value a program runs as a command (git runs them through its `sh`).
const PROGRAM_VARIABLES: &[&str] = &[
    "git_editor",
    "git_sequence_editor",
    "editor",
    "visual",
    "git_ssh_command",
    "git_ssh",
    "git_pager",
    "pager",
    "git_askpass",
    "ssh_askpass",
    "git_external_diff",
    "git_proxy_command",
];

/// Classifies a literal command string with `dialect`, one hop deeper, and marks what it
/// destroys undeterminable with `note`.
fn program(text: &str, dialect: Dialect, nesting: u32, note: &str) -> Vec<OpSpec> {
    if nesting >= MAX_NESTING {
        return vec![unknown(
            "<opaque>",
            dialect,
            format!("{note}; nested too deeply"),
        )];
    }
    let mut ops = crate::classify_nested(text, dialect, nesting + 1).ops;
    for op in &mut ops {
        op.wrapped = true;
        op.span = agent_guard_types::Span::default();
        op.mark_undeterminable(note);
    }
    if ops.is_empty() && smells(text) {
        ops.push(unknown("<opaque>", dialect, note));
    }
    ops
}

/// `forfiles [/p DIR] [/m MASK] [/s] [/c "COMMAND"] [/d DATE]`: COMMAND runs once per file
/// found, with `@file`, `@path`, … filled in (default `cmd /c echo @file`).
pub(crate) fn forfiles(args: &[Tok], nesting: u32, dialect: Dialect) -> Vec<OpSpec> {
    let note = "forfiles runs the command for each file it selects";
    let Some(at) = args
        .iter()
        .position(|a| a.literal().is_some_and(|t| t.eq_ignore_ascii_case("/c")))
    else {
        return Vec::new();
    };
    let Some(command) = args.get(at + 1) else {
        return Vec::new();
    };
    let Some(text) = command.literal() else {
        return vec![unknown(
            "forfiles",
            dialect,
            "the forfiles command is not literal",
        )];
    };
    if text.to_ascii_lowercase().contains("0x") {
        // `0xHH` stands for a character: the command is not what it reads as.
        return vec![unknown(
            "forfiles",
            dialect,
            "the forfiles command has 0xHH escapes",
        )];
    }
    let mut filled = text.to_owned();
    for variable in [
        "@relpath", "@fname", "@fsize", "@fdate", "@ftime", "@isdir", "@file", "@path", "@ext",
    ] {
        filled = replace_ignore_case(&filled, variable, "\"forfiles-file\"");
    }
    program(&filled, super::Dialect::Cmd, nesting, note)
        .into_iter()
        .map(|mut op| {
            op.dialect = dialect;
            op
        })
        .collect()
}

/// `doskey NAME=TEXT`: TEXT runs wherever NAME starts a command, `$1`…`$9` and `$*` being
/// the words given there and `$T` a command separator.
pub(crate) fn doskey(command: &SimpleCommand, source: &str, nesting: u32) -> Vec<OpSpec> {
    let Some(word) = command.words.iter().skip(1).find(|w| {
        let raw = w.raw(source);
        !raw.starts_with('/') && raw.contains('=')
    }) else {
        return Vec::new();
    };
    let raw = word.raw(source);
    let Some(eq) = raw.find('=') else {
        return Vec::new();
    };
    let body = source
        .get(word.span.start + eq + 1..command.span.end)
        .unwrap_or("");
    if body.trim().is_empty() {
        return Vec::new();
    }
    let mut text = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            text.push(c);
            continue;
        }
        match chars.next().map(|c| c.to_ascii_lowercase()) {
            Some('t') => text.push('&'),
            Some('g') => text.push('>'),
            Some('l') => text.push('<'),
            Some('b') => text.push('|'),
            Some('1'..='9' | '*') => text.push_str("%DOSKEY_ARGUMENT%"),
            Some('$') | None => text.push('$'),
            Some(other) => {
                text.push('$');
                text.push(other);
            }
        }
    }
    let note = "a doskey macro runs later, with the words given where it is used";
    program(&text, Dialect::Cmd, nesting, note)
}

/// `set NAME=VALUE` in cmd: a program variable set to destructive words is refused.
pub(crate) fn set(args: &[Tok], dialect: Dialect) -> Vec<OpSpec> {
    let Some(first) = args.first() else {
        return Vec::new();
    };
    let Some((name, value)) = first.text.split_once('=') else {
        return Vec::new();
    };
    variable(
        name,
        Some(value).filter(|_| first.opaque.is_none()),
        dialect,
    )
}

/// A program variable `name` set to `value` (`None`: not literal).
pub(crate) fn variable(name: &str, value: Option<&str>, dialect: Dialect) -> Vec<OpSpec> {
    let lowered = name.trim().to_ascii_lowercase();
    let lowered = lowered.strip_prefix("$env:").unwrap_or(&lowered);
    if lowered == "path" {
        // A command after it may run a program of the workspace (issue 35, point 6).
        return vec![crate::noop::opaque(
            "PATH",
            dialect,
            "PATH is changed: a command after it may run a program of the workspace instead \
             of the standard tool",
        )];
    }
    if !PROGRAM_VARIABLES.contains(&lowered) {
        return Vec::new();
    }
    let note = format!("{name} holds a program that runs later");
    match value {
        Some(text) if !smells(text) && !crate::inline_code::deletes(text) => Vec::new(),
        _ => vec![unknown("<opaque>", dialect, note)],
    }
}

/// `Set-Alias NAME VALUE`, `New-Alias -Name N -Value V` (`sal`, `nal`): later `NAME` runs
/// VALUE with the arguments given there. A value that deletes or runs other programs (or
/// is not literal) is refused.
pub(crate) fn set_alias(args: &[Tok]) -> Vec<OpSpec> {
    let mut positional = Vec::new();
    let mut value = None;
    let mut index = 0;
    while let Some(tok) = args.get(index) {
        index += 1;
        let head = tok.bare_head();
        if let Some(name) = head.strip_prefix('-') {
            let name = name.split(':').next().unwrap_or("").to_ascii_lowercase();
            if !name.is_empty() && "value".starts_with(&name) {
                value = args.get(index);
                index += 1;
            } else if !name.is_empty()
                && ["name", "description", "option", "scope"]
                    .iter()
                    .any(|p| p.starts_with(&name))
            {
                index += 1;
            }
            continue;
        }
        positional.push(tok);
    }
    let Some(value) = value.or(positional.get(1).copied()) else {
        return Vec::new();
    };
    let note = "an alias runs its command later, with the arguments given where it is used";
    let Some(text) = value.literal() else {
        return vec![unknown("set-alias", Dialect::PowerShell, note)];
    };
    let target = super::program_name(text);
    let runs_programs = crate::hosts::host(&target).is_some()
        || matches!(
            target.as_str(),
            "invoke-expression"
                | "iex"
                | "start-process"
                | "saps"
                | "start"
                | "invoke-command"
                | "icm"
                | "bash"
                | "sh"
                | "wsl"
        );
    if smells(text) || runs_programs {
        vec![unknown("set-alias", Dialect::PowerShell, note)]
    } else if super::names_own_program(text) {
        // `Set-Alias git .\tools\git.bat`: a later `git` runs the workspace's file.
        vec![crate::noop::opaque(
            "set-alias",
            Dialect::PowerShell,
            super::OWN_PROGRAM,
        )]
    } else {
        Vec::new()
    }
}

/// A PowerShell statement that changes `PATH` however it is spelled (`$env:Path="x"`,
/// `$env:PATH += ";x"`, `${env:Path} = …`, `Set-Item env:PATH …`,
/// `[Environment]::SetEnvironmentVariable('Path', …)`): a command after it may run a program
/// of the workspace (issue 35, point 6). Reading it (`$env:PATH -split ';'`) changes nothing.
pub(crate) fn path_change(text: &str) -> Vec<OpSpec> {
    let lowered = text.to_ascii_lowercase();
    let assigned = lowered.match_indices("env:path").any(|(at, _)| {
        let before = lowered[..at].trim_end_matches(['$', '{']).trim_end();
        let after = lowered[at + "env:path".len()..]
            .trim_start_matches('}')
            .trim_start();
        (after.starts_with('=') && !after.starts_with("=="))
            || after.starts_with("+=")
            || [
                "set-item",
                "si",
                "set-variable",
                "sv",
                "set-content",
                "new-item",
                "ni",
            ]
            .iter()
            .any(|verb| before.ends_with(verb))
    });
    let via_dotnet = lowered.contains("setenvironmentvariable")
        && (lowered.contains("'path'") || lowered.contains("\"path\""));
    if assigned || via_dotnet {
        vec![crate::noop::opaque(
            "PATH",
            Dialect::PowerShell,
            "PATH is changed: a command after it may run a program of the workspace instead \
             of the standard tool",
        )]
    } else {
        Vec::new()
    }
}

/// Replaces every case-insensitive occurrence of the ASCII `pattern` in `text`.
fn replace_ignore_case(text: &str, pattern: &str, with: &str) -> String {
    let lowered = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    while let Some(found) = lowered[from..].find(pattern) {
        let at = from + found;
        out.push_str(&text[from..at]);
        out.push_str(with);
        from = at + pattern.len();
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::replace_ignore_case;

    #[test]
    fn placeholders_are_replaced_in_any_case() {
        assert_eq!(
            replace_ignore_case("cmd /c del @PATH & echo @path", "@path", "X"),
            "cmd /c del X & echo X"
        );
    }
}

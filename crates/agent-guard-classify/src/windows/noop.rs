//! What changes nothing in cmd and PowerShell, so that everything else the guard does not
//! model is an opaque program and gets a checkpoint (issue 14), as in POSIX.
//!
//! The lists live in the read-only table (`data/read_only.toml`, [`crate::read_only`]).
//!
//! - cmd: its builtins that only read or navigate (`dir`, `type`, `echo`, `cd`, `findstr`, …)
//!   and the common read-only Windows programs (`where`, `whoami`, `tasklist`, `ipconfig`);
//! - PowerShell: cmdlets whose verb only reads, formats or navigates (`Get-`, `Select-`,
//!   `Where-`, `Format-`, `Measure-`, `Test-`, `Write-`, `Out-` except `Out-File`, which the
//!   writes rules model, …), their aliases, and the variable cmdlets (they touch no file);
//! - both: the POSIX programs known to change nothing (`ls`, `cat`, `grep`, `git status`, …,
//!   with the same argument checks: `sed -i` is not among them), as Git for Windows runs them.
//!
//! A command that runs another command (`ForEach-Object { … }`, `cmd /c …`, `Start-Process`)
//! is not decided here: its block or its command is classified on its own.

use agent_guard_types::Dialect;

use super::Tok;
use crate::args::Arg;

/// Returns `true` if what `start`/`Start-Process` runs is known to change nothing: the first
/// word that is not a switch names such a program (`start notepad notes.txt`).
pub(crate) fn starts_nothing(args: &[Tok], dialect: Dialect) -> bool {
    args.iter()
        .filter_map(Tok::literal)
        .find(|t| !t.starts_with(['/', '-']) && !t.is_empty())
        .is_some_and(|program| {
            // `start git` looks `git` up as cmd does: the working directory first.
            crate::looked_up::note(program, Dialect::Cmd);
            changes_nothing(&super::program_name(program), &[], dialect)
        })
}

/// Returns `true` if `name` (lower-cased, as `program_name` gives it) run with `args` in
/// `dialect` is known to change nothing.
pub(crate) fn changes_nothing(name: &str, args: &[Tok], dialect: Dialect) -> bool {
    // `D:` switches the drive (a `cd`); a PowerShell expression statement (`[IO.File]::…`,
    // `(…).Count`, `$x`, `'text'`, `42`) runs no command: .NET calls that write or delete are
    // flagged on their own.
    let drive = name.len() == 2 && name.ends_with(':') && name.as_bytes()[0].is_ascii_alphabetic();
    // cmd: `:label` and the `::` comment idiom run nothing.
    let label = dialect == Dialect::Cmd && name.starts_with(':');
    let expression = dialect == Dialect::PowerShell
        && name.chars().next().is_some_and(|c| {
            matches!(c, '[' | '(' | '$' | '\'' | '"' | '@' | '{') || c.is_ascii_digit()
        });
    // `@{a=1}`'s `a=1`, a hashtable entry the lexer hands over as a command word.
    let entry = dialect == Dialect::PowerShell && name.contains('=');
    if drive || label || expression || entry {
        return true;
    }
    let listed = match dialect {
        Dialect::Cmd => crate::read_only::cmd_reads(name),
        _ => crate::read_only::powershell_reads(name),
    };
    if listed {
        return true;
    }
    let probe: Vec<Arg> = args.iter().map(Tok::probe_arg).collect();
    crate::noop::changes_nothing(name, &probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_change_nothing_and_the_rest_is_not_known() {
        for name in ["dir", "type", "findstr", "where", "git"] {
            assert!(changes_nothing(name, &[], Dialect::Cmd), "{name}");
        }
        for name in [
            "get-childitem",
            "select-string",
            "write-host",
            "out-null",
            "test-path",
            "foreach-object",
            "ls",
            "cat",
        ] {
            assert!(changes_nothing(name, &[], Dialect::PowerShell), "{name}");
        }
        for name in [
            "python",
            "npm",
            "make",
            "cleanup.bat",
            "migrate.ps1",
            "invoke-build",
        ] {
            assert!(!changes_nothing(name, &[], Dialect::Cmd), "{name}");
            assert!(!changes_nothing(name, &[], Dialect::PowerShell), "{name}");
        }
        assert!(!changes_nothing("set-content", &[], Dialect::PowerShell));
        assert!(
            !changes_nothing("get", &[], Dialect::PowerShell),
            "a verb alone"
        );
    }
}

//! What changes nothing in cmd and PowerShell, so that everything else the guard does not
//! model is an opaque program and gets a checkpoint (issue 14), as in POSIX.
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

/// cmd builtins and Windows programs that only read, print or navigate.
const CMD: &[&str] = &[
    "dir",
    "echo",
    "echo.",
    "type",
    "cd",
    "chdir",
    "cls",
    "ver",
    "vol",
    "where",
    "whoami",
    "hostname",
    "findstr",
    "more",
    "title",
    "rem",
    "pushd",
    "popd",
    "exit",
    "path",
    "prompt",
    "date",
    "time",
    "mkdir",
    "md",
    "tree",
    "fc",
    "comp",
    "tasklist",
    "systeminfo",
    "ipconfig",
    "ping",
    "timeout",
    "pause",
    "chcp",
    "color",
    "help",
    "if",
    "goto",
    "setlocal",
    "endlocal",
    "shift",
    "verify",
    "break",
    "nslookup",
    "netstat",
    "git",
    "find",
    "wsl",
    "winver",
    // Editors and viewers (as `vim` and `less` in POSIX).
    "notepad",
    "code",
    "explorer",
    "write",
];

/// PowerShell verbs whose cmdlets only read, compare, format, print or wait.
const READ_VERBS: &[&str] = &[
    "get",
    "select",
    "where",
    "format",
    "measure",
    "compare",
    "test",
    "resolve",
    "find",
    "show",
    "sort",
    "group",
    "convertto",
    "convertfrom",
    "join",
    "split",
    "read",
    "write",
    "out",
    "wait",
    "receive",
    "push",
    "pop",
    "trace",
    "debug",
    "use",
    "enter",
    "exit",
];

/// PowerShell cmdlets and aliases outside those verbs that touch no file.
const POWERSHELL: &[&str] = &[
    "set-location",
    "sl",
    "cd",
    "chdir",
    "pushd",
    "popd",
    "ls",
    "dir",
    "gci",
    "cat",
    "gc",
    "type",
    "echo",
    "write",
    "pwd",
    "gl",
    "select",
    "where",
    "?",
    "%",
    "foreach",
    "foreach-object",
    "sort",
    "group",
    "measure",
    "fl",
    "ft",
    "fw",
    "gm",
    "gps",
    "ps",
    "gsv",
    "gal",
    "h",
    "history",
    "cls",
    "clear",
    "clear-host",
    "man",
    "help",
    "sleep",
    "start-sleep",
    "sls",
    "gcm",
    "gdr",
    "gi",
    "gp",
    "gu",
    "gv",
    "gwmi",
    "gcim",
    "diff",
    "compare",
    "new-object",
    "import-module",
    "ipmo",
    "add-type",
    "set-strictmode",
    "set-variable",
    "set",
    "new-variable",
    "nv",
    "clear-variable",
    "clv",
    "remove-variable",
    "rv",
    "exit",
    "return",
    "mkdir",
    "md",
    "git",
    "find",
    "where.exe",
    "whoami",
    "hostname",
    "ipconfig",
    // Keywords the lexer hands over as a first word; their blocks are classified on their own.
    "if",
    "elseif",
    "else",
    "for",
    "while",
    "do",
    "until",
    "switch",
    "function",
    "filter",
    "param",
    "begin",
    "process",
    "end",
    "try",
    "catch",
    "finally",
    "trap",
    "break",
    "continue",
    "throw",
    "class",
    "enum",
    "using",
    "data",
    // Running a script block here or remotely: the block is classified on its own.
    "invoke-command",
    "icm",
    // Item properties (the registry, file attributes): no file content.
    "new-itemproperty",
    "set-itemproperty",
    "remove-itemproperty",
    "rename-itemproperty",
    "clear-itemproperty",
    "copy-itemproperty",
    "move-itemproperty",
    "rp",
    "sp",
    // Readers outside the read verbs.
    "convert-path",
    "cvpa",
    "import-csv",
    "ipcsv",
    "import-clixml",
    "import-powershelldatafile",
    "set-clipboard",
    "scb",
    "notepad",
    "code",
    "explorer",
];

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
        Dialect::Cmd => CMD.contains(&name),
        _ => {
            POWERSHELL.contains(&name)
                || name
                    .split_once('-')
                    .is_some_and(|(verb, noun)| !noun.is_empty() && READ_VERBS.contains(&verb))
        }
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

//! .NET and COM calls in PowerShell text: what they delete, write, append to or start. The
//! text is lower-cased once per command and every detector reads that.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::windows;

/// The ops of the .NET and COM calls in one command's text.
pub(super) fn ops(text: &str) -> Vec<OpSpec> {
    let lowered = text.to_ascii_lowercase();
    let mut ops = Vec::new();
    if deletes(&lowered) {
        ops.push(windows::unknown(
            "<dotnet>",
            Dialect::PowerShell,
            "a .NET delete call",
        ));
    }
    if writes(&lowered) {
        ops.push(windows::unknown(
            "<dotnet>",
            Dialect::PowerShell,
            "a .NET call that writes files: which ones cannot be known",
        ));
    }
    if appends(&lowered) {
        // Where it lands is not placed: harmless, unless the line names git metadata or the
        // quarantine (`unresolved_appends_in_line` then refuses it).
        ops.push(OpSpec::new("<dotnet>", OpKind::Append, Dialect::PowerShell));
    }
    if mentions(&lowered, AUTOMATION_OBJECTS) {
        // COM and WMI objects (`WScript.Shell`, `Scripting.FileSystemObject`,
        // `Win32_Process`) start programs and delete, move and write files by method names
        // the guard does not model: refused, never guessed.
        ops.push(windows::unknown(
            "<com>",
            Dialect::PowerShell,
            "a COM or WMI object runs programs or changes files in ways the guard cannot see",
        ));
    } else if mentions(&lowered, PROGRAM_STARTS) {
        // As `Start-Process`: refused with destructive words in it, else checkpointed.
        let why = "a .NET call that starts a program or runs a script the guard cannot see into";
        let refused = windows::opaque_if_smelly(text, Dialect::PowerShell, why);
        if refused.is_empty() {
            ops.push(crate::noop::opaque("<dotnet>", Dialect::PowerShell, why));
        } else {
            ops.extend(refused);
        }
    }
    ops
}

/// Starting a program or running script text through .NET rather than a cmdlet: the process
/// type (`[Diagnostics.Process]::Start(…)`, `ProcessStartInfo`), VB's `Interaction::Shell`,
/// `ExecuteAssembly`, a script block made from a string (`[ScriptBlock]::Create(…)`,
/// `InvokeScript(…)`, `[PowerShell]::Create().AddScript(…)`).
const PROGRAM_STARTS: &[&str] = &[
    "diagnostics.process",
    "interaction]::shell",
    "executeassembly",
    "scriptblock]::create",
    "invokescript",
    "addscript",
    "newscriptblock",
];

/// Creating or reaching a COM or WMI object: `-ComObject`, `GetTypeFromProgID`,
/// `GetTypeFromCLSID`, `[wmiclass]`, `[wmi]`, `Win32_Process`, a running object.
const AUTOMATION_OBJECTS: &[&str] = &[
    "-comobject",
    "-com ",
    "gettypefromprogid",
    "gettypefromclsid",
    "[wmiclass]",
    "[wmi]",
    "win32_process",
    "marshal]::getactiveobject",
];

fn mentions(lowered: &str, markers: &[&str]) -> bool {
    markers.iter().any(|marker| lowered.contains(marker))
}

/// A member call whose name starts with `delete` (`.Delete(`, `::Delete(`, `DeleteFile(`,
/// `DeleteDirectory(`, `DeleteFolder(`; blanks allowed before the parenthesis).
fn deletes(lowered: &str) -> bool {
    let bytes = lowered.as_bytes();
    let mut from = 0;
    while let Some(found) = lowered[from..].find("delete") {
        let at = from + found;
        from = at + "delete".len();
        let before = at.checked_sub(1).and_then(|p| bytes.get(p)).copied();
        let mut after = from;
        while bytes.get(after).is_some_and(u8::is_ascii_alphanumeric) {
            after += 1;
        }
        while bytes.get(after).is_some_and(|b| *b == b' ' || *b == b'\t') {
            after += 1;
        }
        if bytes.get(after) == Some(&b'(') && matches!(before, Some(b'.' | b':')) {
            return true;
        }
    }
    false
}

/// A call that writes files: `[IO.File]::WriteAllText(…)`, `::Copy(`, `::Move(`,
/// `::Replace(`, `::Create(`, `::Open…(`, `::Encrypt(`, `::Decrypt(` on `File`, `Directory`,
/// `FileInfo` or `ZipFile`; a `StreamWriter` or `FileStream`; `.Save(`, `.DownloadFile(`,
/// `.CopyTo(`, `.MoveTo(`, `.OpenWrite(`. Appending calls are [`appends`].
fn writes(lowered: &str) -> bool {
    if lowered.contains("streamwriter") || lowered.contains("filestream") {
        return true;
    }
    let member = |prefix: &str| {
        lowered.match_indices(prefix).any(|(at, _)| {
            let rest = lowered[at + prefix.len()..].trim_start();
            rest.starts_with('(')
        })
    };
    if [".save", ".downloadfile", ".copyto", ".moveto", ".openwrite"]
        .iter()
        .any(|m| member(m))
    {
        return true;
    }
    lowered.match_indices("]::").any(|(at, _)| {
        let type_name = lowered[..at].rsplit(['[', '.']).next().unwrap_or("");
        let method = &lowered[at + 3..];
        ["file", "directory", "fileinfo", "zipfile"].contains(&type_name)
            && [
                "write", "copy", "move", "replace", "create", "open", "encrypt", "decrypt",
            ]
            .iter()
            .any(|m| method.starts_with(m))
            && !method.starts_with("openread")
            && !method.starts_with("opentext")
    })
}

/// A call that appends to a file: `[IO.File]::AppendAllText(…)`, `AppendAllLines(`,
/// `AppendText(` on `File` or `FileInfo`, and `.AppendText(` of an object.
fn appends(lowered: &str) -> bool {
    lowered
        .match_indices("appendall")
        .chain(lowered.match_indices("appendtext"))
        .any(|(at, _)| {
            let before = lowered[..at].trim_end();
            before.ends_with("::") || before.ends_with('.')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_is_recognised_in_any_case() {
        assert!(deletes("[io.file]::delete ('a')") && deletes("$fso.deletefolder('x')"));
        assert!(!deletes("$x.deleted") && !deletes("delete('x')"));
        assert!(writes("[system.io.file]::writealltext('a', 'x')"));
        assert!(!writes("[io.file]::readalltext('a')") && !writes("[io.file]::opentext('a')"));
        assert!(appends("[io.file]::appendalltext('a', 'x')") && appends("$i.appendtext()"));
        assert!(!appends("appendtext"));
        let kinds = |text: &str| ops(text).iter().map(|op| op.kind).collect::<Vec<_>>();
        assert_eq!(
            kinds("[Diagnostics.Process]::Start('make')"),
            [OpKind::OpaqueProgram]
        );
        assert_eq!(
            kinds("(New-Object -ComObject WScript.Shell).Run('make')"),
            [OpKind::Unknown]
        );
        assert!(ops("[IO.File]::ReadAllText('a')").is_empty());
    }
}

//! Nested shell hosts: `cmd /c "…"`, `powershell -Command "…"`, `pwsh -c '…'` and
//! `-EncodedCommand`, recognised from all three dialects.
//!
//! A literal script is classified with the host's own dialect, to a bounded depth. A script
//! whose text is not known statically is an unknown op when the line has destructive
//! vocabulary; an encoded script that cannot be decoded is always one (its text cannot be
//! smelled).

use agent_guard_types::{Dialect, OpSpec, Span};

use crate::posix::MAX_NESTING;

/// A shell host program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    /// `cmd`, `cmd.exe`.
    Cmd,
    /// `powershell`, `pwsh` (with or without `.exe`).
    PowerShell,
}

/// Returns the host a normalised program name starts, if any.
pub(crate) fn host(name: &str) -> Option<Host> {
    match name {
        "cmd" => Some(Host::Cmd),
        "powershell" | "pwsh" => Some(Host::PowerShell),
        _ => None,
    }
}

/// One argument of the host.
#[derive(Debug, Clone, Default)]
pub(crate) struct HostArg {
    /// The literal text, `None` when it is not known statically.
    pub(crate) text: Option<String>,
    /// From cmd only: the command line from this argument to the end of the command, as cmd
    /// hands it to the nested cmd (carets removed, quotes kept).
    pub(crate) tail: Option<String>,
}

/// A host invocation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The normalised program name (`cmd`, `powershell`, `pwsh`).
    pub(crate) program: &'a str,
    /// The arguments after the program name.
    pub(crate) args: &'a [HostArg],
    /// How many hops led to the calling line.
    pub(crate) nesting: u32,
    /// The calling line's dialect.
    pub(crate) dialect: Dialect,
    /// The host's stdin is a pipe or a redirected file (it may read its program there).
    pub(crate) piped: bool,
}

/// What a host invocation does.
#[derive(Debug, Default)]
pub(crate) struct Hop {
    /// The ops of the nested script.
    pub(crate) ops: Vec<OpSpec>,
    /// The host runs its script in another directory (`pwsh -WorkingDirectory`).
    pub(crate) changes_cwd: bool,
}

/// Classifies a host invocation. `line_smells` says whether the calling line has destructive
/// vocabulary (asked only when the script is not literal).
pub(crate) fn run(call: Call<'_>, line_smells: &mut dyn FnMut() -> bool) -> Hop {
    let mut hop = match host(call.program) {
        Some(Host::Cmd) => cmd(call, line_smells),
        Some(Host::PowerShell) => powershell(call, line_smells),
        None => Hop::default(),
    };
    for op in &mut hop.ops {
        op.wrapped = true;
        op.span = Span::default();
    }
    hop
}

/// Classifies a literal PowerShell script run by `program` (`Invoke-Expression`).
pub(crate) fn nested_script(script: &str, nesting: u32, program: &str) -> Vec<OpSpec> {
    let call = Call {
        program,
        args: &[],
        nesting,
        dialect: Dialect::PowerShell,
        piped: false,
    };
    let mut ops = nested(call, Dialect::PowerShell, script);
    for op in &mut ops {
        op.wrapped = true;
        op.span = Span::default();
    }
    ops
}

/// Classifies a literal script with `dialect`, one hop deeper.
fn nested(call: Call<'_>, dialect: Dialect, script: &str) -> Vec<OpSpec> {
    if call.nesting >= MAX_NESTING {
        return vec![OpSpec::unknown(
            call.program,
            call.dialect,
            "nested shell hosts nested too deeply",
        )];
    }
    crate::classify_nested(script, dialect, call.nesting + 1).ops
}

/// A program the host runs that the guard cannot read (a script file, an unknown switch):
/// refused when the line has destructive words, else checkpointed like any program it
/// does not see into (it was allowed, and `pwsh -File x.ps1` could delete anything).
fn opaque(call: Call<'_>, line_smells: &mut dyn FnMut() -> bool, why: &str) -> Hop {
    let ops = if line_smells() {
        vec![OpSpec::unknown(call.program, call.dialect, why)]
    } else {
        vec![crate::noop::opaque(call.program, call.dialect, why)]
    };
    Hop {
        ops,
        changes_cwd: false,
    }
}

/// An unknown op whatever the line says: the program the host runs cannot be known.
fn unknown(call: Call<'_>, why: &str) -> Hop {
    Hop {
        ops: vec![OpSpec::unknown(call.program, call.dialect, why)],
        changes_cwd: false,
    }
}

/// A host with no script reads one from stdin: from a pipe or a redirected file it is
/// unknown; from the terminal nothing the guard can see.
fn stdin(call: Call<'_>) -> Hop {
    if call.piped {
        unknown(call, "shell program arrives via stdin")
    } else {
        Hop::default()
    }
}

/// `cmd [/s /q /d …] /c|/k COMMAND…`.
fn cmd(call: Call<'_>, line_smells: &mut dyn FnMut() -> bool) -> Hop {
    for (i, arg) in call.args.iter().enumerate() {
        let Some(text) = arg.text.as_deref() else {
            return unknown(call, "cmd switches are not literal");
        };
        // Git Bash users write `cmd //c …` so that MSYS does not turn `/c` into a path; MSYS
        // hands cmd a single slash.
        let text = match text.strip_prefix('/') {
            Some(rest) if call.dialect == Dialect::Posix && rest.starts_with('/') => rest,
            _ => text,
        };
        let lowered = text.to_ascii_lowercase();
        if !lowered.starts_with('/') {
            // Without /c or /k cmd ignores its words and reads commands from stdin.
            break;
        }
        match lowered.as_bytes().get(1) {
            Some(b'c' | b'k' | b'r') => {
                let script = if text.len() > 2 {
                    // `/cdel x`: the command is glued to the switch.
                    let head = HostArg {
                        text: Some(text[2..].to_owned()),
                        tail: arg
                            .tail
                            .as_ref()
                            .and_then(|t| t.get(2..).map(str::to_owned)),
                    };
                    cmd_script(std::iter::once(&head).chain(&call.args[i + 1..]))
                } else {
                    cmd_script(call.args[i + 1..].iter())
                };
                let Some(script) = script else {
                    return unknown(call, "the cmd /c command is not literal");
                };
                return Hop {
                    ops: nested(call, Dialect::Cmd, &strip_cmd_quotes(&script)),
                    changes_cwd: false,
                };
            }
            Some(b's' | b'q' | b'd' | b'a' | b'u' | b't' | b'e' | b'f' | b'v') => {}
            _ => return opaque(call, line_smells, "unknown cmd switch"),
        }
    }
    stdin(call)
}

/// The command line a nested cmd receives: the caller's own text when it is cmd, otherwise
/// the arguments joined as a Windows runtime quotes them. `None` if any is not literal.
fn cmd_script<'a>(mut args: impl Iterator<Item = &'a HostArg> + Clone) -> Option<String> {
    if args.clone().any(|a| a.text.is_none()) {
        return None;
    }
    let first = args.clone().next()?;
    if let Some(tail) = &first.tail {
        return Some(tail.clone());
    }
    let mut line = String::new();
    for arg in args.by_ref() {
        let text = arg.text.as_deref().unwrap_or_default();
        if !line.is_empty() {
            line.push(' ');
        }
        if text.is_empty() || text.contains([' ', '\t']) {
            line.push('"');
            line.push_str(text);
            line.push('"');
        } else {
            line.push_str(text);
        }
    }
    Some(line)
}

/// cmd's `/c` quote rule: a command line that starts with `"` loses that quote and the last
/// one (`cmd /c "del x & del y"` runs `del x & del y`).
fn strip_cmd_quotes(script: &str) -> String {
    let trimmed = script.trim_start_matches([' ', '\t']);
    let Some(rest) = trimmed.strip_prefix('"') else {
        return script.to_owned();
    };
    match rest.rfind('"') {
        Some(last) => format!("{}{}", &rest[..last], &rest[last + 1..]),
        None => rest.to_owned(),
    }
}

/// What a PowerShell command-line parameter does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PsParam {
    Command,
    Encoded,
    File,
    Flag,
    Value,
    WorkingDirectory,
}

const PS_PARAMS: &[(&str, PsParam)] = &[
    ("command", PsParam::Command),
    ("commandwithargs", PsParam::Command),
    ("encodedcommand", PsParam::Encoded),
    ("file", PsParam::File),
    ("noprofile", PsParam::Flag),
    ("nologo", PsParam::Flag),
    ("noninteractive", PsParam::Flag),
    ("noexit", PsParam::Flag),
    ("sta", PsParam::Flag),
    ("mta", PsParam::Flag),
    ("login", PsParam::Flag),
    ("interactive", PsParam::Flag),
    ("noprofileloadtime", PsParam::Flag),
    ("executionpolicy", PsParam::Value),
    ("windowstyle", PsParam::Value),
    ("inputformat", PsParam::Value),
    ("outputformat", PsParam::Value),
    ("version", PsParam::Value),
    ("psconsolefile", PsParam::Value),
    ("configurationname", PsParam::Value),
    ("configurationfile", PsParam::Value),
    ("custompipename", PsParam::Value),
    ("settingsfile", PsParam::Value),
    ("encodedarguments", PsParam::Value),
    ("workingdirectory", PsParam::WorkingDirectory),
];

/// The documented short forms (`-c`, `-e`, `-ep`, `-wd`, …).
const PS_ALIASES: &[(&str, &str)] = &[
    ("c", "command"),
    ("cwa", "commandwithargs"),
    ("e", "encodedcommand"),
    ("ec", "encodedcommand"),
    ("en", "encodedcommand"),
    ("enc", "encodedcommand"),
    ("enco", "encodedcommand"),
    ("encod", "encodedcommand"),
    ("encode", "encodedcommand"),
    ("encoded", "encodedcommand"),
    ("f", "file"),
    ("ep", "executionpolicy"),
    ("ex", "executionpolicy"),
    ("w", "windowstyle"),
    ("wd", "workingdirectory"),
    ("nop", "noprofile"),
    ("noni", "noninteractive"),
    ("nol", "nologo"),
    ("noe", "noexit"),
    ("v", "version"),
    ("l", "login"),
    ("i", "interactive"),
    ("o", "outputformat"),
    ("of", "outputformat"),
    ("if", "inputformat"),
    ("ea", "encodedarguments"),
];

/// Resolves a PowerShell command-line parameter: exact name, documented alias, or a unique
/// prefix.
fn ps_param(name: &str) -> Option<PsParam> {
    let name = PS_ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, full)| full);
    if let Some((_, p)) = PS_PARAMS.iter().find(|(n, _)| *n == name) {
        return Some(*p);
    }
    if name.is_empty() {
        return None;
    }
    // A prefix works when everything it could mean does the same (`-comm`: `-Command` and
    // `-CommandWithArgs`).
    let mut candidates = PS_PARAMS
        .iter()
        .filter(|(n, _)| n.starts_with(name))
        .map(|(_, p)| *p);
    let first = candidates.next()?;
    candidates.all(|p| p == first).then_some(first)
}

/// `powershell|pwsh [options] -Command …`, `-EncodedCommand …`, `-File …`.
fn powershell(call: Call<'_>, line_smells: &mut dyn FnMut() -> bool) -> Hop {
    let mut changes_cwd = false;
    let mut i = 0;
    while let Some(arg) = call.args.get(i) {
        let Some(text) = arg.text.as_deref() else {
            return unknown(call, "PowerShell arguments are not literal");
        };
        if text == "-" {
            // `pwsh -`: the commands are read from stdin.
            return unknown(call, "shell program arrives via stdin");
        }
        let name = text
            .strip_prefix("--")
            .or_else(|| text.strip_prefix(['-', '/']))
            .map(str::to_ascii_lowercase);
        let Some(name) = name else {
            // A bare script: Windows PowerShell runs it as a command, pwsh as a file.
            if call.program == "pwsh" {
                return opaque(call, line_smells, "a PowerShell script file");
            }
            return command(call, &call.args[i..], changes_cwd);
        };
        match ps_param(&name) {
            Some(PsParam::Command) => {
                return command(call, &call.args[i + 1..], changes_cwd);
            }
            Some(PsParam::Encoded) => {
                let decoded = call
                    .args
                    .get(i + 1)
                    .and_then(|a| a.text.as_deref())
                    .and_then(decode_encoded);
                let ops = match decoded {
                    Some(script) => nested(call, Dialect::PowerShell, &script),
                    None => vec![OpSpec::unknown(
                        call.program,
                        call.dialect,
                        "the encoded PowerShell command cannot be decoded",
                    )],
                };
                return Hop { ops, changes_cwd };
            }
            Some(PsParam::File) => {
                return match call.args.get(i + 1).map(|a| a.text.as_deref()) {
                    Some(Some("-")) => unknown(call, "shell program arrives via stdin"),
                    Some(None) => unknown(call, "the PowerShell script file is not literal"),
                    _ => opaque(call, line_smells, "a PowerShell script file"),
                };
            }
            Some(PsParam::Flag) => i += 1,
            Some(PsParam::Value) => i += 2,
            Some(PsParam::WorkingDirectory) => {
                changes_cwd = true;
                i += 2;
            }
            None => {
                return opaque(
                    call,
                    line_smells,
                    "unknown PowerShell command-line parameter",
                );
            }
        }
    }
    stdin(call)
}

/// `-Command SCRIPT…`: the remaining arguments joined by spaces are the script.
fn command(call: Call<'_>, args: &[HostArg], changes_cwd: bool) -> Hop {
    let texts: Option<Vec<&str>> = args.iter().map(|a| a.text.as_deref()).collect();
    let Some(texts) = texts else {
        return unknown(call, "the PowerShell command is not literal");
    };
    if texts.first() == Some(&"-") {
        return unknown(call, "shell program arrives via stdin");
    }
    Hop {
        ops: nested(call, Dialect::PowerShell, &texts.join(" ")),
        changes_cwd,
    }
}

/// Decodes `-EncodedCommand`: base64 of UTF-16LE text.
fn decode_encoded(text: &str) -> Option<String> {
    let bytes = base64(text)?;
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

/// Decodes standard or URL-safe base64; padding optional, blanks ignored.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0u32;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xFF).ok()?);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_quote_rule() {
        assert_eq!(strip_cmd_quotes("\"del x & del y\""), "del x & del y");
        assert_eq!(strip_cmd_quotes("\"a\" \"b\""), "a\" \"b");
        assert_eq!(strip_cmd_quotes("del \"a b\""), "del \"a b\"");
    }

    #[test]
    fn powershell_parameters_resolve() {
        assert_eq!(ps_param("c"), Some(PsParam::Command));
        assert_eq!(ps_param("comm"), Some(PsParam::Command));
        assert_eq!(ps_param("e"), Some(PsParam::Encoded));
        assert_eq!(ps_param("enc"), Some(PsParam::Encoded));
        assert_eq!(ps_param("noprofile"), Some(PsParam::Flag));
        assert_eq!(ps_param("n"), Some(PsParam::Flag));
        assert_eq!(ps_param("o"), Some(PsParam::Value));
        assert_eq!(ps_param("x"), None);
        assert_eq!(ps_param("wd"), Some(PsParam::WorkingDirectory));
        assert_eq!(ps_param("bogus"), None);
    }

    #[test]
    fn encoded_commands_decode() {
        // "Remove-Item build" in UTF-16LE, base64.
        let encoded = "UgBlAG0AbwB2AGUALQBJAHQAZQBtACAAYgB1AGkAbABkAA==";
        assert_eq!(
            decode_encoded(encoded).as_deref(),
            Some("Remove-Item build")
        );
        assert_eq!(decode_encoded("not base64!"), None);
        assert_eq!(decode_encoded("QQ=="), None);
    }
}

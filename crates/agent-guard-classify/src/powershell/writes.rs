//! PowerShell cmdlets that write files: what they replace or truncate.
//!
//! - `Set-Content` (`sc`), `Clear-Content` (`clc`), `Out-File`, `Tee-Object` (`tee`),
//!   `Export-Csv` (`epcsv`), `Export-Clixml` open the file and truncate it: in place,
//!   through a symlink. `-NoClobber` refuses an existing file: nothing lost. `-Append`
//!   adds to it, and `Add-Content` (`ac`) only appends: an append op
//!   ([`OpKind::Append`]), judged against the protected
//!   paths only.
//! - `New-Item -Force` truncates an existing file (a link type replaces the item); without
//!   `-Force` it refuses an existing one, and a directory is kept.
//! - `Copy-Item` (`copy`, `cp`, `cpi`) overwrites an existing file without `-Force`.
//!   `Move-Item` (`move`, `mi`) needs `-Force` to replace one; `mv`, which is the native
//!   `mv` on Linux and macOS, is judged as overwriting either way. Both are moves of their
//!   sources ([`OpKind::Move`]), as is `Rename-Item` (`rni`, `ren`), which refuses an
//!   existing name. The destination rules are `cp`'s; `-Recurse` merges trees:
//!   undeterminable.
//! - `Invoke-WebRequest`/`Invoke-RestMethod -OutFile` truncate their output.
//! - Paths that arrive through the pipeline (no `-Path`), provider and stream paths, and
//!   filters make the op undeterminable.

use agent_guard_lex::Word;
use agent_guard_types::{Dialect, OpKind, OpSpec, Target, WriteMode};

use super::params::{Bound, Cmdlet, FILTERS, Kind, PATHS, bind};
use crate::windows::{self, Tok};
use crate::writes::{Placement, RECURSIVE, append_of, overwrite_in};

const SET_CONTENT: Cmdlet = Cmdlet {
    groups: &[PATHS],
    params: &[
        ("value", "value", Kind::Value),
        ("filter", "filter", Kind::Unsafe),
        ("include", "include", Kind::Unsafe),
        ("exclude", "exclude", Kind::Unsafe),
        ("force", "force", Kind::Switch),
        ("passthru", "passthru", Kind::Switch),
        ("credential", "credential", Kind::Unsafe),
        ("stream", "stream", Kind::Unsafe),
        ("encoding", "encoding", Kind::Value),
        ("nonewline", "nonewline", Kind::Switch),
        ("asbytestream", "asbytestream", Kind::Switch),
    ],
    positional: &["path", "value"],
};

const OUT_FILE: Cmdlet = Cmdlet {
    groups: &[PATHS],
    params: &[
        ("filepath", "path", Kind::Path),
        ("encoding", "encoding", Kind::Value),
        ("append", "append", Kind::Switch),
        ("force", "force", Kind::Switch),
        ("noclobber", "noclobber", Kind::Switch),
        ("nooverwrite", "noclobber", Kind::Switch),
        ("width", "width", Kind::Value),
        ("nonewline", "nonewline", Kind::Switch),
        ("inputobject", "inputobject", Kind::Value),
        ("variable", "variable", Kind::Value),
        ("delimiter", "delimiter", Kind::Value),
        ("useculture", "useculture", Kind::Switch),
        ("notypeinformation", "notypeinformation", Kind::Switch),
        ("nti", "notypeinformation", Kind::Switch),
        (
            "includetypeinformation",
            "includetypeinformation",
            Kind::Switch,
        ),
        ("iti", "includetypeinformation", Kind::Switch),
        ("quotefields", "quotefields", Kind::Value),
        ("qf", "quotefields", Kind::Value),
        ("usequotes", "usequotes", Kind::Value),
        ("uq", "usequotes", Kind::Value),
        ("depth", "depth", Kind::Value),
    ],
    positional: &["path", "encoding"],
};

const NEW_ITEM: Cmdlet = Cmdlet {
    groups: &[],
    params: &[
        ("path", "path", Kind::Path),
        ("name", "name", Kind::Value),
        ("itemtype", "itemtype", Kind::Value),
        ("type", "itemtype", Kind::Value),
        ("value", "value", Kind::Value),
        ("force", "force", Kind::Switch),
        ("credential", "credential", Kind::Unsafe),
    ],
    positional: &["path"],
};

const COPY_ITEM: Cmdlet = Cmdlet {
    groups: &[PATHS, FILTERS],
    params: &[
        ("destination", "destination", Kind::Destination),
        ("container", "container", Kind::Switch),
        ("force", "force", Kind::Switch),
        ("recurse", "recurse", Kind::Switch),
        ("passthru", "passthru", Kind::Switch),
        ("credential", "credential", Kind::Unsafe),
        ("fromsession", "fromsession", Kind::Unsafe),
        ("tosession", "tosession", Kind::Unsafe),
    ],
    positional: &["path", "destination"],
};

const RENAME_ITEM: Cmdlet = Cmdlet {
    groups: &[PATHS],
    params: &[
        ("newname", "newname", Kind::Value),
        ("force", "force", Kind::Switch),
        ("passthru", "passthru", Kind::Switch),
        ("credential", "credential", Kind::Unsafe),
    ],
    positional: &["path", "newname"],
};

/// The cmdlet a normalised command name is, when it writes files.
fn cmdlet(name: &str) -> Option<&'static str> {
    Some(match name {
        "set-content" | "sc" => "set-content",
        "clear-content" | "clc" => "clear-content",
        "add-content" | "ac" => "add-content",
        "out-file" => "out-file",
        "tee-object" | "tee" => "tee-object",
        "export-csv" | "epcsv" => "export-csv",
        "export-clixml" => "export-clixml",
        "new-item" | "ni" => "new-item",
        "copy-item" | "copy" | "cp" | "cpi" => "copy-item",
        "move-item" | "move" | "mv" | "mi" => "move-item",
        "rename-item" | "rni" | "ren" => "rename-item",
        "invoke-webrequest" | "iwr" | "invoke-restmethod" | "irm" | "curl" | "wget" => {
            "invoke-webrequest"
        }
        _ => return None,
    })
}

/// The writing ops of a PowerShell command `name` (normalised) with its argument words;
/// `None` when `name` is not a writing cmdlet. `piped`: the command reads the pipeline.
pub(super) fn parse(name: &str, words: &[Word], piped: bool) -> Option<Vec<OpSpec>> {
    let cmdlet = cmdlet(name)?;
    let mut op = overwrite_in(cmdlet, WriteMode::InPlace, Dialect::PowerShell);
    if matches!(name, "curl" | "wget") {
        op.note(format!(
            "{name} is Invoke-WebRequest in Windows PowerShell and the native program elsewhere: both readings"
        ));
    } else if cmdlet != name {
        op.note(format!("{name} is an alias of {cmdlet}"));
    }
    let ops = match cmdlet {
        "set-content" | "clear-content" => Some(write_paths(op, &bind(words, &SET_CONTENT), piped)),
        "add-content" => Some(append_of(write_paths(
            op,
            &bind(words, &SET_CONTENT),
            piped,
        ))),
        "out-file" | "tee-object" | "export-csv" | "export-clixml" => {
            out_file(op, &bind(words, &OUT_FILE))
        }
        "new-item" => new_item(op, &bind(words, &NEW_ITEM)),
        "copy-item" => Some(copy_item(op, &bind(words, &COPY_ITEM), name, false)),
        "move-item" => Some(copy_item(op, &bind(words, &COPY_ITEM), name, true)),
        "rename-item" => Some(rename_item(op, &bind(words, &RENAME_ITEM))),
        _ => web_request(op, words, name),
    };
    // `-WhatIf` only reports what it would write.
    Some(ops.into_iter().filter(|op| !op.dry_run).collect())
}

/// Sets the targets of a cmdlet that writes its `-Path`.
fn write_paths(mut op: OpSpec, bound: &Bound, piped: bool) -> OpSpec {
    bound.mark(&mut op);
    op.targets = bound
        .paths
        .iter()
        .cloned()
        .map(|t| Target {
            through_symlink: true,
            ..t
        })
        .collect();
    if op.targets.is_empty() && piped {
        op.mark_undeterminable("the paths arrive through the pipeline");
    }
    op
}

/// Why a move or rename of git metadata or the quarantine is refused.
pub(super) const MOVES_PROTECTED: &str =
    "it moves git metadata or the quarantine away, or a wildcard that can match them";

/// Out-File and the exporters take their path as a parameter, never from the pipeline.
fn out_file(op: OpSpec, bound: &Bound) -> Option<OpSpec> {
    if bound.has("noclobber") {
        return None;
    }
    if op.op == "tee-object" && bound.value("variable").is_some() && bound.paths.is_empty() {
        return None;
    }
    let op = write_paths(op, bound, false);
    Some(if bound.has("append") {
        append_of(op)
    } else {
        op
    })
}

fn new_item(mut op: OpSpec, bound: &Bound) -> Option<OpSpec> {
    if !bound.has("force") {
        return None;
    }
    let kind = bound.value("itemtype").map_or_else(
        || "file".to_owned(),
        |tok| {
            tok.literal().map_or_else(
                || {
                    op.mark_undeterminable("the -ItemType is not literal");
                    "file".to_owned()
                },
                str::to_ascii_lowercase,
            )
        },
    );
    match kind.as_str() {
        "directory" | "container" | "d" => return None,
        "symboliclink" | "hardlink" | "junction" => op.write = WriteMode::Replace,
        _ => {}
    }
    let through = op.write == WriteMode::InPlace;
    let base: Vec<Target> = if bound.paths.is_empty() {
        vec![Target::literal(".")]
    } else {
        bound.paths.clone()
    };
    op.targets = match bound.value("name") {
        Some(name) => base
            .iter()
            .map(|dir| {
                let name_target = windows::target(name, Dialect::PowerShell);
                crate::writes::join(dir, &name_target.text, &name_target)
            })
            .collect(),
        None => base,
    };
    for target in &mut op.targets {
        target.through_symlink = through;
    }
    bound.mark(&mut op);
    op.note("New-Item -Force replaces an existing file");
    Some(op)
}

fn copy_item(mut op: OpSpec, bound: &Bound, name: &str, moves: bool) -> OpSpec {
    // Moving `.git` or the quarantine away (or a wildcard that can match them: `*` matches a
    // leading dot here) takes them from the workspace, whatever happens at the destination.
    if moves
        && bound
            .paths
            .iter()
            .any(|t| t.glob || crate::writes::names_protected(&t.text))
    {
        return crate::windows::unknown(&op.op, Dialect::PowerShell, MOVES_PROTECTED);
    }
    if moves {
        // Every Move-Item moves its sources; without -Force an existing destination file is
        // refused, and is recorded all the same.
        if name == "mv" && !bound.has("force") {
            op.note("on Linux and macOS `mv` is the native program, which overwrites");
        }
        op.kind = OpKind::Move;
        op.write = WriteMode::Replace;
        op.sources.clone_from(&bound.paths);
    }
    let dest = bound
        .destination
        .clone()
        .unwrap_or_else(|| Target::literal("."));
    let placement = Placement {
        sources: bound.paths.clone(),
        dest: Some(dest),
        ..Placement::default()
    };
    if moves {
        (op.targets, op.landing_of) = placement
            .landings()
            .into_iter()
            .map(|(t, i)| (t, Some(i)))
            .unzip();
    } else {
        op.targets = placement.targets();
    }
    for target in &mut op.targets {
        target.through_symlink = !moves;
    }
    bound.mark(&mut op);
    if bound.has("recurse") {
        op.recursive = true;
        let sole = !op.undeterminable;
        op.mark_undeterminable(format!("{} -Recurse {RECURSIVE}", op.op));
        if sole {
            crate::writes::confine_recursive_copy(&mut op, placement.dest.clone());
        }
    }
    op
}

/// `Rename-Item -Path P -NewName N`: the item moves to `N` in its own directory (an
/// existing name is refused; `N` is a name, not a path).
fn rename_item(mut op: OpSpec, bound: &Bound) -> OpSpec {
    // Renaming `.git` or the quarantine (in any case, with trailing dots) takes it from the
    // workspace.
    let protected = bound
        .paths
        .iter()
        .any(|t| t.glob || crate::writes::names_protected(&t.text))
        || bound
            .value("newname")
            .and_then(Tok::literal)
            .is_some_and(crate::writes::names_protected);
    if protected {
        return windows::unknown(&op.op, Dialect::PowerShell, MOVES_PROTECTED);
    }
    op.kind = OpKind::Move;
    op.write = WriteMode::Replace;
    bound.mark(&mut op);
    let Some(new_name) = bound.value("newname") else {
        op.mark_undeterminable("Rename-Item without a literal -NewName");
        return op;
    };
    let name = windows::target(new_name, Dialect::PowerShell);
    if name.text.contains('/') && name.opaque.is_none() {
        op.mark_undeterminable("-NewName is a name, not a path");
    }
    op.sources.clone_from(&bound.paths);
    op.targets = bound
        .paths
        .iter()
        .map(|path| crate::writes::sibling(path, &name))
        .collect();
    op.landing_of = (0..op.targets.len()).map(Some).collect();
    if op.sources.is_empty() {
        op.mark_undeterminable("the item to rename arrives through the pipeline");
    }
    op
}

/// `Invoke-WebRequest -OutFile FILE` (and `Invoke-RestMethod`); `curl`/`wget` are its
/// aliases in Windows PowerShell 5.1, and the native programs elsewhere: both readings.
fn web_request(mut op: OpSpec, words: &[Word], name: &str) -> Option<OpSpec> {
    let toks: Vec<Tok> = words.iter().map(windows::whole).collect();
    let mut index = 0;
    while let Some(tok) = toks.get(index) {
        index += 1;
        let Some(found) = super::remove_item::parameter(tok) else {
            continue;
        };
        let lowered = found.name.to_ascii_lowercase();
        if lowered.len() >= 4 && "outfile".starts_with(&lowered) {
            let value = match found.value {
                Some(v) if !v.is_empty() => Some(Tok::with_pieces(v, tok.span)),
                _ => {
                    index += 1;
                    toks.get(index - 1).cloned()
                }
            };
            if let Some(value) = value {
                let mut target = windows::target(&value, Dialect::PowerShell);
                target.through_symlink = true;
                op.targets.push(target);
            }
        }
    }
    let native: Vec<crate::args::Arg> = toks.iter().map(Tok::probe_arg).collect();
    let program = if name == "wget" { "wget" } else { "curl" };
    let natives = if matches!(name, "curl" | "wget") {
        crate::writes::posix(program, &native)
    } else {
        Vec::new()
    };
    for native_op in natives {
        op.targets
            .extend(native_op.targets.into_iter().map(|mut t| {
                t.text = t.text.replace('\\', "/");
                t
            }));
        if native_op.undeterminable {
            op.mark_undeterminable("the native program's output names are not known");
        }
    }
    (!op.targets.is_empty() || op.undeterminable).then_some(op)
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{OpKind, WriteMode};

    crate::test_support::line_helpers!(crate::powershell::classify);

    #[test]
    fn content_cmdlets_truncate_their_paths() {
        for line in [
            "Set-Content notes.txt x",
            "Set-Content -Path notes.txt -Value x",
            "sc notes.txt 'x'",
            "'x' | Set-Content notes.txt",
            "Set-Content -Value x notes.txt",
            "Clear-Content notes.txt",
            "clc -Path notes.txt",
            "Out-File -FilePath notes.txt -InputObject x",
            "Get-Date | Out-File notes.txt",
            "Get-Date | Tee-Object -FilePath notes.txt",
            "Get-Date | Export-Csv notes.txt -NoTypeInformation",
            "New-Item notes.txt -Force",
            "Invoke-WebRequest https://x/y -OutFile notes.txt",
        ] {
            assert_eq!(targets(line), ["notes.txt"], "{line}");
            let o = ops(line);
            assert_eq!(
                (o[0].kind, o[0].write),
                (OpKind::Overwrite, WriteMode::InPlace),
                "{line}"
            );
            assert!(o[0].targets[0].through_symlink, "{line}");
            assert!(!o[0].undeterminable, "{line}");
        }
        let o = ops("Set-Content -LiteralPath 'a[1].txt' x");
        assert!(!o[0].targets[0].glob);
        assert!(ops("Set-Content *.txt x")[0].targets[0].glob);
        assert!(ops("Get-ChildItem | Set-Content -Value x")[0].undeterminable);
        assert!(ops("Set-Content notes.txt x -Stream s")[0].undeterminable);
        assert!(ops("Set-Content notes.txt x -Bogus")[0].undeterminable);
    }

    #[test]
    fn forms_that_write_nothing_over() {
        for line in [
            "Get-Date | Out-File notes.txt -Append",
            "Get-Date | Tee-Object notes.txt -Append",
            "Add-Content notes.txt x",
            "ac -Path notes.txt -Value x",
        ] {
            let o = ops(line);
            assert_eq!(o.len(), 1, "{line}");
            assert_eq!(o[0].kind, agent_guard_types::OpKind::Append, "{line}");
            assert_eq!(o[0].targets[0].text, "notes.txt", "{line}");
        }
        for line in [
            "Get-Date | Out-File notes.txt -NoClobber",
            "Get-Date | Tee-Object -Variable t",
            "New-Item notes.txt",
            "New-Item -ItemType Directory build -Force",
            "Set-Content notes.txt x -WhatIf",
        ] {
            assert!(ops(line).is_empty(), "{line}");
        }
        // Every move and rename moves its source (undo moves it back), with -Force or not.
        for line in [
            "Move-Item notes.txt report.txt",
            "Rename-Item notes.txt report.txt",
        ] {
            let o = ops(line);
            assert_eq!(o[0].kind, agent_guard_types::OpKind::Move, "{line}");
            assert_eq!(o[0].sources[0].text, "notes.txt", "{line}");
        }
        // A .NET append writes over nothing; where it lands is not placed.
        let o = ops("[IO.File]::AppendAllText('notes.txt', 'x')");
        assert_eq!(o.len(), 1);
        assert_eq!(
            (o[0].kind, o[0].targets.len()),
            (agent_guard_types::OpKind::Append, 0)
        );
    }

    #[test]
    fn copies_and_moves() {
        assert_eq!(
            targets("Copy-Item notes.txt report.txt"),
            ["report.txt", "report.txt/notes.txt"]
        );
        assert_eq!(
            targets("cpi -Path a.txt,b.txt -Destination dir"),
            ["dir/a.txt", "dir/b.txt"]
        );
        assert_eq!(targets("Copy-Item ..\\x.txt"), ["./x.txt"]);
        let o = ops("Move-Item notes.txt report.txt -Force");
        assert_eq!(o[0].write, WriteMode::Replace);
        assert!(o[0].targets.iter().all(|t| !t.through_symlink));
        assert!(
            !ops("mv notes.txt report.txt").is_empty(),
            "the native mv overwrites"
        );
        assert!(ops("Copy-Item src dst -Recurse")[0].undeterminable);
        let o = ops("New-Item -Path . -Name notes.txt -ItemType File -Force -Value x");
        assert_eq!(o[0].targets[0].text, "./notes.txt");
        let o = ops("New-Item -ItemType SymbolicLink -Path link -Value x -Force");
        assert_eq!(o[0].write, WriteMode::Replace);
    }

    #[test]
    fn dotnet_writes_are_unknown() {
        for line in [
            "[IO.File]::WriteAllText('notes.txt', 'x')",
            "[System.IO.File]::Copy('a', 'b', $true)",
            "$w = New-Object System.IO.StreamWriter('notes.txt')",
            "(New-Object Net.WebClient).DownloadFile('https://x', 'notes.txt')",
            "$xml.Save('notes.xml')",
        ] {
            assert!(
                ops(line).iter().any(|o| o.kind == OpKind::Unknown),
                "{line}"
            );
        }
        assert!(ops("$s.Replace('a', 'b')").is_empty());
        assert!(ops("[IO.File]::ReadAllText('notes.txt')").is_empty());
    }
}

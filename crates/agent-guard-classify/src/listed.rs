//! Programs that write the paths a file they are handed names (issue 35): `patch`, `git
//! apply`, `git am` (a patch's files) and `tar x`, `unzip` (an archive's members). The
//! command line does not name those paths; the op carries the file
//! ([`agent_guard_types::ListedWrites`]) for the world to read and the policy to judge, so
//! `git apply evil.diff` over `.claude/settings.json` is refused like a write of it.

use agent_guard_lex::{RedirectOp, SimpleCommand};
use agent_guard_types::{ListFormat, ListedWrites, OpKind, OpSpec, Target};

use crate::args::{Arg, basename};

/// Gives the opaque ops of `program` run with `rest` (`patch`, `tar x`, `unzip`, `git
/// apply|am`) the file whose paths it writes, for the world to read. cmd's and PowerShell's
/// backslashes are read as `/`, as their targets are.
pub(crate) fn attach(program: &str, rest: &[Arg], command: &SimpleCommand, ops: &mut [OpSpec]) {
    let program = basename(&program.replace('\\', "/")).to_ascii_lowercase();
    let program = program.strip_suffix(".exe").unwrap_or(&program).to_owned();
    let listed = if program == "git" {
        let at = rest
            .iter()
            .position(|a| matches!(a.known(), Some("apply" | "am")));
        at.and_then(|at| git(rest[at].known().unwrap_or(""), &rest[at + 1..], command))
    } else {
        of(&program, rest, command)
    };
    let Some(mut listed) = listed else { return };
    for target in std::iter::once(&mut listed.list).chain(listed.into.as_mut()) {
        target.text = target.text.replace('\\', "/");
    }
    for op in ops.iter_mut().filter(|op| op.kind == OpKind::OpaqueProgram) {
        op.listed_writes = Some(listed.clone());
    }
}

/// What a program reads its paths from, if it is one of these.
pub(crate) fn of(program: &str, args: &[Arg], command: &SimpleCommand) -> Option<ListedWrites> {
    match basename(program) {
        "patch" => patch(args, command),
        "tar" | "gtar" | "bsdtar" => tar(args),
        "unzip" => unzip(args),
        _ => None,
    }
}

/// `git apply|am [options] [FILE…]` (`args` after the subcommand's name).
pub(crate) fn git(sub: &str, args: &[Arg], command: &SimpleCommand) -> Option<ListedWrites> {
    if !matches!(sub, "apply" | "am") {
        return None;
    }
    let mut into = None;
    let mut files = Vec::new();
    for arg in args {
        match arg.known() {
            Some(text) if text.starts_with("--directory=") => {
                into = Some(named(&text["--directory=".len()..], arg));
            }
            Some(text) if arg.is_option() => {
                // `--stat`, `--numstat`, `--summary`, `--check` only read.
                if is_report(text) {
                    return None;
                }
            }
            _ => files.push(arg.target()),
        }
    }
    Some(listed(files, ListFormat::Patch, into, command))
}

fn is_report(option: &str) -> bool {
    ["--stat", "--numstat", "--summary", "--check"].contains(&option)
}

/// `patch [options] [ORIGFILE [PATCHFILE]]`, `-i FILE`, `-d DIR`, or the patch on stdin.
fn patch(args: &[Arg], command: &SimpleCommand) -> Option<ListedWrites> {
    let mut into = None;
    let mut input = None;
    let mut operands = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.known() else {
            operands.push(arg.target());
            continue;
        };
        match text {
            "-i" | "--input" => input = rest.next().map(Arg::target),
            "-d" | "--directory" => into = rest.next().map(Arg::target),
            "--dry-run" | "-C" | "--check" => return None,
            _ if text.starts_with("--input=") => input = Some(named(&text[8..], arg)),
            _ if text.starts_with("--directory=") => into = Some(named(&text[12..], arg)),
            _ if text.starts_with("-i") && text.len() > 2 => input = Some(named(&text[2..], arg)),
            _ if text.starts_with("-d") && text.len() > 2 => into = Some(named(&text[2..], arg)),
            // Options with a separate value: skip it.
            "-o" | "--output" | "-r" | "--reject-file" | "-B" | "--prefix" | "-D" | "-F" | "-V"
            | "-Y" | "-z" | "-g" => {
                rest.next();
            }
            _ if arg.is_option() => {}
            _ => operands.push(arg.target()),
        }
    }
    let files: Vec<Target> = input.into_iter().chain(operands.get(1).cloned()).collect();
    Some(listed(files, ListFormat::Patch, into, command))
}

/// `tar` extracting (`x`, `--extract`, `--get`) `-f FILE` (or `xf FILE`), into `-C DIR`.
fn tar(args: &[Arg]) -> Option<ListedWrites> {
    let mut extract = false;
    let mut file = None;
    let mut into = None;
    let mut rest = args.iter().enumerate();
    while let Some((at, arg)) = rest.next() {
        let Some(text) = arg.known() else { continue };
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(n, v)| (n, Some(v)));
            match name {
                "extract" | "get" => extract = true,
                "file" => {
                    file = value
                        .map(|v| named(v, arg))
                        .or_else(|| rest.next().map(|(_, a)| a.target()));
                }
                "directory" => {
                    into = value
                        .map(|v| named(v, arg))
                        .or_else(|| rest.next().map(|(_, a)| a.target()));
                }
                _ => {}
            }
            continue;
        }
        let cluster = text.strip_prefix('-').or((at == 0).then_some(text));
        let Some(letters) = cluster else { continue };
        extract |= letters.contains('x');
        // In a cluster, `f` and `C` take the next word (or the rest of a dashed cluster).
        for (i, letter) in letters.char_indices() {
            if matches!(letter, 'f' | 'C') {
                let glued = &letters[i + 1..];
                let value = if !glued.is_empty() && text.starts_with('-') {
                    Some(named(glued, arg))
                } else {
                    rest.next().map(|(_, a)| a.target())
                };
                if letter == 'f' {
                    file = value;
                } else {
                    into = value;
                }
                break;
            }
        }
    }
    if !extract {
        return None;
    }
    // Without `-f`, tar reads the archive from stdin (or `$TAPE`): not readable here.
    let list = file.unwrap_or_else(|| opaque("tar reads the archive from stdin"));
    Some(ListedWrites {
        list,
        inline: None,
        format: ListFormat::Archive,
        into,
    })
}

/// `unzip [options] ZIP [members…] [-d DIR]`; `-l`, `-t`, `-v`, `-Z`, `-p` only list,
/// test or print.
fn unzip(args: &[Arg]) -> Option<ListedWrites> {
    let mut zip = None;
    let mut into = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.known() {
            Some("-d") => into = rest.next().map(Arg::target),
            Some(text) if text.starts_with("-d") && text.len() > 2 => {
                into = Some(named(&text[2..], arg));
            }
            Some(text)
                if arg.is_option()
                    && text
                        .trim_start_matches('-')
                        .contains(['l', 't', 'v', 'Z', 'p', 'c']) =>
            {
                return None;
            }
            // Other options (`-o`, `-q`, `-n`) change how, not what.
            Some(_) if arg.is_option() => {}
            _ if zip.is_none() => zip = Some(arg.target()),
            _ => {}
        }
    }
    Some(ListedWrites {
        list: zip.unwrap_or_else(|| opaque("unzip names no archive")),
        inline: None,
        format: ListFormat::Archive,
        into,
    })
}

/// The patch source: the one file named, or stdin (a heredoc's text, a redirected file, or a
/// stream the guard cannot read).
fn listed(
    files: Vec<Target>,
    format: ListFormat,
    into: Option<Target>,
    command: &SimpleCommand,
) -> ListedWrites {
    let mut files = files.into_iter();
    let (list, inline) = match (files.next(), files.next()) {
        (Some(only), None) => (only, None),
        (Some(_), Some(_)) => (opaque("several patch files"), None),
        (None, _) => stdin(command),
    };
    ListedWrites {
        list,
        inline,
        format,
        into,
    }
}

/// What a command reads on stdin: a heredoc's or here-string's text, a `< FILE`, or a stream.
fn stdin(command: &SimpleCommand) -> (Target, Option<String>) {
    for redirect in command.redirects.iter().rev() {
        if redirect.fd.is_some_and(|fd| fd != 0) {
            continue;
        }
        match (redirect.op, &redirect.heredoc, &redirect.target) {
            (RedirectOp::HereDoc | RedirectOp::HereDocStrip, Some(doc), _) => {
                return (opaque("the patch is on stdin"), Some(doc.body.clone()));
            }
            (RedirectOp::HereString, _, Some(word)) => {
                return (opaque("the patch is on stdin"), word.literal_text());
            }
            (RedirectOp::In, _, Some(word)) => {
                return match word.literal_text() {
                    Some(text) => (
                        Target {
                            text,
                            span: Some(word.span),
                            ..Target::default()
                        },
                        None,
                    ),
                    None => (opaque("the patch file is not literal"), None),
                };
            }
            _ => {}
        }
    }
    (opaque("the patch is read from a stream"), None)
}

fn named(text: &str, arg: &Arg) -> Target {
    Target {
        text: text.to_owned(),
        span: Some(arg.span),
        ..Target::default()
    }
}

fn opaque(why: &str) -> Target {
    Target {
        opaque: Some(why.to_owned()),
        ..Target::default()
    }
}

#[cfg(test)]
mod tests {
    use agent_guard_types::{Dialect, ListFormat, ListedWrites};

    fn listed(line: &str, dialect: Dialect) -> Option<ListedWrites> {
        crate::classify(line, dialect)
            .ops
            .into_iter()
            .find_map(|op| op.listed_writes)
    }

    fn file(line: &str) -> Option<String> {
        listed(line, Dialect::Posix)
            .map(|l| l.list.opaque.map_or(l.list.text, |_| "<stream>".to_owned()))
    }

    #[test]
    fn each_program_names_the_file_it_reads_its_paths_from() {
        assert_eq!(file("tar xf a.tar").as_deref(), Some("a.tar"));
        assert_eq!(file("tar -xzvf a.tgz").as_deref(), Some("a.tgz"));
        assert_eq!(file("tar -x -f a.tar").as_deref(), Some("a.tar"));
        assert_eq!(file("tar --extract --file=a.tar").as_deref(), Some("a.tar"));
        assert_eq!(file("tar -xfa.tar").as_deref(), Some("a.tar"));
        assert_eq!(file("curl -s u | tar x").as_deref(), Some("<stream>"));
        assert_eq!(file("unzip -o a.zip -d out").as_deref(), Some("a.zip"));
        assert_eq!(file("patch -p1 < a.diff").as_deref(), Some("a.diff"));
        assert_eq!(file("patch -p1 -i a.diff").as_deref(), Some("a.diff"));
        assert_eq!(file("patch -p1 --input=a.diff").as_deref(), Some("a.diff"));
        assert_eq!(file("patch src/x.c a.diff").as_deref(), Some("a.diff"));
        assert_eq!(file("git apply a.diff").as_deref(), Some("a.diff"));
        assert_eq!(file("git -C . am --3way a.mbox").as_deref(), Some("a.mbox"));
        assert_eq!(file("cat a.diff | git apply").as_deref(), Some("<stream>"));
        let heredoc = listed("git apply <<'EOF'\n--- a/x\n+++ b/x\nEOF", Dialect::Posix).unwrap();
        assert!(heredoc.inline.unwrap().contains("+++ b/x"));
        assert_eq!(heredoc.format, ListFormat::Patch);
    }

    #[test]
    fn the_directory_it_writes_into_is_kept() {
        let into = |line| {
            listed(line, Dialect::Posix)
                .and_then(|l| l.into)
                .map(|t| t.text)
        };
        assert_eq!(into("tar xf a.tar -C out").as_deref(), Some("out"));
        assert_eq!(
            into("tar --directory=out -xf a.tar").as_deref(),
            Some("out")
        );
        assert_eq!(into("unzip a.zip -d out").as_deref(), Some("out"));
        assert_eq!(into("patch -d out -p1 < a.diff").as_deref(), Some("out"));
        assert_eq!(
            into("git apply --directory=out a.diff").as_deref(),
            Some("out")
        );
    }

    #[test]
    fn listing_and_reporting_read_nothing_in() {
        for line in [
            "tar tf a.tar",
            "unzip -l a.zip",
            "git apply --stat a.diff",
            "patch --dry-run -p1 < a.diff",
        ] {
            assert_eq!(file(line), None, "{line}");
        }
    }

    #[test]
    fn cmd_and_powershell_read_the_same_files() {
        for dialect in [Dialect::Cmd, Dialect::PowerShell] {
            let found = listed("tar -xf dl\\hooks.tar", dialect).unwrap();
            assert_eq!(found.list.text, "dl/hooks.tar");
        }
    }
}

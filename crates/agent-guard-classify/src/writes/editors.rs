//! In-place editors besides `sed`: `perl -i`, `ruby -i`, `gawk -i inplace` (and the files an
//! awk program prints into), `ed`, the vi family, `dos2unix` and kin, `yq -i`,
//! `clang-format -i`.
//!
//! Where an editor's operands are not clear-cut (vim's options, the programs of `yq`), every
//! word that could be a file is a target: an extra target is only probed, a missed one would
//! be lost. Formatters that take directories or whole projects (`prettier --write`, `black`,
//! `gofmt -w`, `rustfmt`, `cargo fmt`, `eslint --fix`, `ruff format`) are not classified:
//! see `docs/decisions.md`.

use agent_guard_types::{Dialect, OpSpec, Target, WriteMode};

use super::{file, overwrite};
use crate::args::Arg;
use crate::smell::smells;

/// `perl -i[EXT] [-pe CODE] FILE…` and `ruby -i[EXT] …`: every file `<>`/`ARGF` reads is
/// renamed away and rewritten under its name (the extension keeps a backup). Without `-i`
/// they write nothing the guard judges; their inline code is judged as code elsewhere.
pub(super) fn script_in_place(name: &str, args: &[Arg]) -> Vec<OpSpec> {
    // Switches whose value is the rest of the word, or the next word when nothing follows.
    let valued: &[char] = if name == "perl" {
        &['e', 'E', 'I', 'M', 'm']
    } else {
        &['e', 'I', 'r', 'C', 'E']
    };
    // Switches whose value can only be attached.
    let attached: &[char] = &['x', 'd', 'D', 'F', 'W', 'K', 'T'];
    let mut in_place = false;
    let mut backup_elsewhere = false;
    let mut suffix = String::new();
    let mut code = false;
    let mut index = 0;
    while let Some(text) = args.get(index).and_then(Arg::known) {
        if text == "--" {
            index += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" || text.starts_with("--") {
            if text.starts_with("--") {
                index += 1;
                continue;
            }
            break;
        }
        index += 1;
        let body: Vec<char> = text[1..].chars().collect();
        let mut at = 0;
        while let Some(&letter) = body.get(at) {
            at += 1;
            let rest_empty = at >= body.len();
            if letter == 'i' {
                in_place = true;
                // `-i'/tmp/out/*'`: a `/` makes the backup a path, outside or into `.git`.
                backup_elsewhere |= body[at..].contains(&'/');
                suffix = body[at..].iter().collect();
                break;
            }
            if valued.contains(&letter) {
                code |= letter == 'e' || (letter == 'E' && name == "perl");
                if rest_empty {
                    index += 1;
                }
                break;
            }
            if attached.contains(&letter) {
                break;
            }
            if matches!(letter, 'l' | '0') || (letter == 'C' && name == "perl") {
                // Optional digits follow: `-l`, `-l0`, `-0777`, `-0x1F`, `-C7`.
                let hex = letter == '0' && body.get(at) == Some(&'x');
                if hex {
                    at += 1;
                }
                while body.get(at).is_some_and(|c| {
                    if hex {
                        c.is_ascii_hexdigit()
                    } else {
                        c.is_digit(8)
                    }
                }) {
                    at += 1;
                }
            }
        }
    }
    if !in_place {
        return Vec::new();
    }
    let mut op = overwrite(name, WriteMode::ReplaceAfterRead);
    let operands = args.get(index..).unwrap_or_default();
    // Without `-e`, the first operand is the program file.
    let files = if code {
        operands
    } else {
        operands.get(1..).unwrap_or_default()
    };
    op.targets = files.iter().map(|a| file(a, false)).collect();
    op.note(format!(
        "{name} -i renames a new file over each input (a symlink is replaced)"
    ));
    if backup_elsewhere {
        op.mark_undeterminable(format!(
            "{name} -i with a `/` in its extension keeps each backup at a path of its own"
        ));
    }
    super::backups::add_backups(&mut op, &suffix);
    vec![op]
}

/// gawk's options that take the next word as their value.
const GAWK_VALUED: &[&str] = &[
    "-f",
    "-F",
    "-v",
    "-i",
    "-l",
    "-E",
    "-e",
    "--file",
    "--field-separator",
    "--assign",
    "--include",
    "--load",
    "--exec",
    "--source",
];

/// `gawk -i inplace 'PROGRAM' FILE…` (or `--include=inplace`): each file is rewritten with
/// what the program prints. A literal program's `print … > "FILE"` truncates FILE; one
/// that shells out (`system`, `| "cmd"`) with destructive words is an unknown op.
pub(super) fn gawk(args: &[Arg]) -> Option<OpSpec> {
    let mut in_place = false;
    let mut program_given = false;
    let mut programs: Vec<&Arg> = Vec::new();
    let mut index = 0;
    while let Some(text) = args.get(index).and_then(Arg::known) {
        if text == "--" {
            index += 1;
            break;
        }
        if !text.starts_with('-') || text == "-" {
            break;
        }
        index += 1;
        let (option, value) = match text.split_once('=').filter(|_| text.starts_with("--")) {
            Some((o, v)) => (o, Some(v.to_owned())),
            None if GAWK_VALUED.contains(&text) => {
                index += 1;
                (
                    text,
                    args.get(index - 1).and_then(Arg::known).map(str::to_owned),
                )
            }
            None if text.len() > 2 && GAWK_VALUED.contains(&&text[..2]) => {
                (&text[..2], Some(text[2..].to_owned()))
            }
            None => (text, None),
        };
        match option {
            "-i" | "--include" => {
                in_place |= value
                    .as_deref()
                    .is_some_and(|v| v == "inplace" || v.ends_with("inplace.awk"));
            }
            "-f" | "--file" | "-E" | "--exec" => program_given = true,
            "-e" | "--source" => {
                program_given = true;
                if let Some(arg) = args.get(index - 1) {
                    programs.push(arg);
                }
            }
            _ => {}
        }
    }
    let mut operands = args.get(index..).unwrap_or_default();
    if !program_given && let Some((program, rest)) = operands.split_first() {
        programs.push(program);
        operands = rest;
    }
    let mut op = overwrite("awk", WriteMode::InPlace);
    for program in programs {
        match program.known() {
            Some(text) => {
                if smells(text) && (text.contains("system") || text.contains('|')) {
                    return Some(OpSpec::unknown(
                        "awk",
                        Dialect::Posix,
                        "the awk program runs destructive shell commands",
                    ));
                }
                op.targets.extend(awk_outputs(text));
            }
            None => op.mark_undeterminable("the awk program is not literal"),
        }
    }
    if in_place {
        op.write = WriteMode::ReplaceAfterRead;
        let files = operands
            .iter()
            .filter(|a| a.known().is_none_or(|t| !t.contains('=')));
        op.targets.extend(files.map(|a| file(a, false)));
        op.note("gawk -i inplace rewrites each input file");
    }
    (in_place || !op.targets.is_empty() || op.undeterminable).then_some(op)
}

/// The files a literal awk program truncates: `print … > "FILE"` and `printf … > "FILE"`
/// (`>>` appends; a target that is not a string literal is opaque).
fn awk_outputs(program: &str) -> Vec<Target> {
    let mut targets = Vec::new();
    let bytes = program.as_bytes();
    let mut at = 0;
    while let Some(found) = program[at..].find("print") {
        let start = at + found;
        at = start + "print".len();
        let word_before =
            start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if word_before {
            continue;
        }
        let (mut depth, mut quoted) = (0_i32, false);
        let mut cursor = at;
        while let Some(&b) = bytes.get(cursor) {
            match b {
                b'\\' if quoted => cursor += 1,
                b'"' => quoted = !quoted,
                b'(' if !quoted => depth += 1,
                b')' if !quoted => depth -= 1,
                b';' | b'}' | b'\n' | b'|' if !quoted && depth <= 0 => break,
                b'>' if !quoted && depth <= 0 => {
                    if bytes.get(cursor + 1) == Some(&b'>') {
                        break;
                    }
                    let rest = program[cursor + 1..].trim_start();
                    let target = match rest.strip_prefix('"').and_then(|r| r.split_once('"')) {
                        Some((name, _)) if !name.contains('\\') => Target {
                            through_symlink: true,
                            ..Target::literal(name)
                        },
                        _ => Target {
                            opaque: Some("an awk output file that is not a literal".to_owned()),
                            ..Target::literal(rest.split([';', '}']).next().unwrap_or(rest))
                        },
                    };
                    if !super::redirect::is_sink(&target.text) || target.opaque.is_some() {
                        targets.push(target);
                    }
                    break;
                }
                _ => {}
            }
            cursor += 1;
        }
    }
    targets
}

/// `ed [-s] [-p PROMPT] [FILE]`: a script on stdin writes the file with `w` (truncating it in
/// place); `!command` is not a file.
pub(super) fn ed(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("ed", WriteMode::InPlace);
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some("-p" | "--prompt") => index += 1,
            Some("--help" | "--version" | "-h" | "-V") => return None,
            Some(text) if text.starts_with('-') && text.len() > 1 => {}
            Some(text) if text.starts_with('!') => {}
            _ => op.targets.push(file(arg, true)),
        }
    }
    Some(op)
}

/// vim's options that take the next word (`-s` is not one: in ex mode it is silent, and
/// treating it as a flag only adds a target).
const VIM_VALUED: &[&str] = &[
    "-c",
    "--cmd",
    "-S",
    "-u",
    "-U",
    "-i",
    "-T",
    "-w",
    "-W",
    "-t",
    "-q",
    "--startuptime",
    "--log",
    "--listen",
    "--servername",
];

/// `vim`/`nvim`/`vi`/`ex`/`view` with files: each may be written (in place, through a
/// symlink, as vim writes a link's target). `-c`/`+` commands that name another file
/// (`:w other`, `:saveas x`) add it; commands with destructive words (`:!rm …`) are an
/// unknown op; `-t TAG` and `-q ERRORFILE` open files the guard cannot name.
pub(super) fn vim(name: &str, args: &[Arg]) -> Option<Vec<OpSpec>> {
    let mut op = overwrite(name, WriteMode::InPlace);
    let mut commands: Vec<&str> = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg.known() else {
            op.targets.push(file(arg, true));
            continue;
        };
        if options_done {
            op.targets.push(file(arg, true));
        } else if text == "--" {
            options_done = true;
        } else if let Some(command) = text.strip_prefix('+') {
            commands.push(command);
        } else if VIM_VALUED.contains(&text) {
            let value = args.get(index).and_then(Arg::known);
            index += 1;
            match text {
                "-c" | "--cmd" => commands.extend(value),
                "-t" | "-q" => {
                    op.mark_undeterminable(format!("vim {text} opens files by name lookup"));
                }
                "-W" => op
                    .targets
                    .extend(args.get(index - 1).map(|a| file(a, true))),
                _ => {}
            }
        } else if text == "--help" || text == "--version" || text == "-h" {
            return None;
        } else if !(text.starts_with('-') && text.len() > 1) && text != "-" {
            op.targets.push(file(arg, true));
        }
    }
    let mut ops = Vec::new();
    for command in commands {
        if smells(command) {
            ops.push(OpSpec::unknown(
                name,
                Dialect::Posix,
                "a vim command runs destructive shell commands",
            ));
        }
        op.targets.extend(vim_written(command));
    }
    ops.insert(0, op);
    Some(ops)
}

/// Files an ex command line writes besides the buffer's own (`w FILE`, `saveas FILE`, …;
/// commands are separated by `|`).
fn vim_written(line: &str) -> Vec<Target> {
    let mut targets = Vec::new();
    for command in line.split('|') {
        let command = command.trim().trim_start_matches(':').trim_start();
        let verb_end = command
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(command.len());
        let verb = &command[..verb_end];
        let rest = command[verb_end..].trim_start_matches('!').trim();
        let writes = matches!(
            verb,
            "w" | "write"
                | "wq"
                | "x"
                | "xit"
                | "exi"
                | "exit"
                | "sav"
                | "saveas"
                | "up"
                | "update"
        );
        if writes && !rest.is_empty() && !rest.starts_with(['>', '!']) {
            targets.push(Target {
                through_symlink: true,
                ..Target::literal(rest)
            });
        }
    }
    targets
}

/// `dos2unix [OPTION]… [FILE…] [-n INFILE OUTFILE…]`: converts each file in place (a new file
/// renamed over it); `-n` writes OUTFILE instead; `-i`/`--info` and `-O` change nothing.
/// Symlinks are skipped unless `-F` (followed).
pub(super) fn dos2unix(name: &str, args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite(name, WriteMode::ReplaceAfterRead);
    let mut follow = false;
    let mut new_file = false;
    let mut pending_input = false;
    let mut index = 0;
    let mut targets = Vec::new();
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some("-c" | "--convmode" | "-D" | "--display-enc") => index += 1,
            Some("-n" | "--newfile") => new_file = true,
            Some("-o" | "--oldfile") => new_file = false,
            Some("-F" | "--follow-symlink") => follow = true,
            Some(
                "-O" | "--to-stdout" | "-h" | "--help" | "-V" | "--version" | "-L" | "--license",
            ) => {
                return None;
            }
            Some(text) if text.starts_with("-i") || text.starts_with("--info") => return None,
            Some(text) if text.starts_with('-') && text.len() > 1 => {}
            _ if new_file => {
                // INFILE OUTFILE pairs: only the second is written.
                if pending_input {
                    targets.push(arg);
                }
                pending_input = !pending_input;
            }
            _ => targets.push(arg),
        }
    }
    op.targets = targets.into_iter().map(|a| file(a, follow)).collect();
    Some(op)
}

/// `yq -i EXPRESSION FILE…` (mikefarah's and kislyuk's, `--inplace`/`--in-place`, also
/// `yq e -i`): the files are rewritten. Every operand but a subcommand word is a target (the
/// expression is probed as a path too, which finds nothing).
pub(super) fn yq(args: &[Arg]) -> Option<OpSpec> {
    const VALUED: &[&str] = &[
        "-o",
        "--output-format",
        "-I",
        "--indent",
        "-p",
        "--input-format",
        "-s",
        "--split-exp",
        "--arg",
        "--argjson",
    ];
    let mut in_place = false;
    let mut operands = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some("-i" | "--inplace" | "--in-place") => in_place = true,
            Some(text) if VALUED.contains(&text) => index += 1,
            Some(text) if text.starts_with("--") => {}
            Some(text) if text.starts_with('-') && text.len() > 1 => {
                let letters = &text[1..];
                in_place |=
                    letters.chars().all(|c| c.is_ascii_alphabetic()) && letters.contains('i');
            }
            Some("e" | "eval" | "ea" | "eval-all") if operands.is_empty() => {}
            _ => operands.push(arg),
        }
    }
    if !in_place {
        return None;
    }
    let mut op = overwrite("yq", WriteMode::ReplaceAfterRead);
    op.targets = operands.into_iter().map(|a| file(a, false)).collect();
    Some(op)
}

/// `clang-format -i FILE…` rewrites each file; without `-i` it prints. `--files=LIST` reads
/// the names from a file: undeterminable.
pub(super) fn clang_format(args: &[Arg]) -> Option<OpSpec> {
    const VALUED: &[&str] = &[
        "--style",
        "-style",
        "--assume-filename",
        "-assume-filename",
        "--fallback-style",
        "-fallback-style",
        "--lines",
        "-lines",
        "--offset",
        "-offset",
        "--length",
        "-length",
        "--cursor",
        "-cursor",
        "--qualifier-alignment",
        "-qualifier-alignment",
    ];
    let mut op = overwrite("clang-format", WriteMode::ReplaceAfterRead);
    let mut in_place = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some("-i") => in_place = true,
            Some("-n" | "--dry-run" | "-dry-run" | "--help" | "-help" | "--version") => {
                return None;
            }
            Some(text) if VALUED.contains(&text) => index += 1,
            Some(text) if text.starts_with("--files") || text.starts_with("-files") => {
                op.mark_undeterminable("clang-format --files reads the names from a file");
            }
            Some(text) if text.starts_with('-') && text.len() > 1 => {}
            _ => op.targets.push(file(arg, false)),
        }
    }
    in_place.then_some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    /// The edit op (the backup names are the second).
    fn edit(name: &str, args: &[Arg]) -> Option<OpSpec> {
        script_in_place(name, args).into_iter().next()
    }

    fn targets(op: Option<OpSpec>) -> Vec<String> {
        op.map(|o| o.targets.into_iter().map(|t| t.text).collect())
            .unwrap_or_default()
    }

    #[test]
    fn perl_and_ruby() {
        assert_eq!(
            targets(edit("perl", &args("-pi -e s/a/b/ f g"))),
            ["f", "g"]
        );
        assert_eq!(
            targets(edit("perl", &args("-i.bak -pe s/a/b/ f"))),
            ["f", "f.bak"]
        );
        assert_eq!(targets(edit("perl", &args("-p -i -e s/a/b/ f"))), ["f"]);
        assert_eq!(targets(edit("perl", &args("-0777 -pi -e s/a/b/ f"))), ["f"]);
        assert_eq!(targets(edit("perl", &args("-i script.pl f"))), ["f"]);
        assert_eq!(targets(edit("perl", &args("-lpi -e s/a/b/ f"))), ["f"]);
        assert!(edit("perl", &args("-lne print f")).is_none());
        assert!(edit("perl", &args("-pe s/a/b/ f")).is_none());
        assert!(edit("perl", &args("-e print")).is_none());
        assert_eq!(targets(edit("ruby", &args("-pi -e gsub(1,2) f"))), ["f"]);
        let o = edit("perl", &args("-pi -e s/a/b/ f")).unwrap();
        assert_eq!(o.write, WriteMode::ReplaceAfterRead);
        assert_eq!(
            targets(edit("perl", &args("-i.bak -pe s/a/b/ f src/g"))),
            ["f", "src/g", "f.bak", "src/g.bak"]
        );
    }

    #[test]
    fn gawk_in_place_and_outputs() {
        assert_eq!(targets(gawk(&args("-i inplace {print} f"))), ["f"]);
        assert_eq!(
            targets(gawk(&args("--include=inplace -v x=1 {print} f y=2"))),
            ["f"]
        );
        assert!(gawk(&args("{print} f")).is_none());
        let words = ["{ print $1 > \"out.txt\" }", "in.txt"].map(Arg::literal);
        assert_eq!(targets(gawk(&words)), ["out.txt"]);
        let words = ["{ print $1 >> \"log\"; if ($2 > 3) n++ }", "in"].map(Arg::literal);
        assert!(gawk(&words).is_none());
        let words = ["{ print > $1 \".txt\" }", "in"].map(Arg::literal);
        assert!(gawk(&words).unwrap().targets[0].opaque.is_some());
        let words = ["BEGIN { system(\"rm -rf build\") }"].map(Arg::literal);
        assert!(gawk(&words).unwrap().undeterminable);
    }

    #[test]
    fn ed_vim_and_converters() {
        assert_eq!(targets(ed(&args("-s notes.txt"))), ["notes.txt"]);
        let ops = vim("vim", &args("-c %s/a/b/g -c wq notes.txt")).unwrap();
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].targets[0].text, "notes.txt");
        let words = ["-es", "+w copy.txt", "+q", "notes.txt"].map(Arg::literal);
        let ops = vim("vim", &words).unwrap();
        let names: Vec<&str> = ops[0].targets.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(names, ["notes.txt", "copy.txt"]);
        let words = ["-c", "!rm -rf build", "f"].map(Arg::literal);
        assert_eq!(vim("vim", &words).unwrap().len(), 2);
        assert!(vim("vim", &args("-t main")).unwrap()[0].undeterminable);
        assert_eq!(
            targets(dos2unix("dos2unix", &args("a.txt b.txt"))),
            ["a.txt", "b.txt"]
        );
        assert_eq!(
            targets(dos2unix("dos2unix", &args("-n in.txt out.txt"))),
            ["out.txt"]
        );
        assert!(dos2unix("dos2unix", &args("-i a.txt")).is_none());
        assert_eq!(targets(yq(&args("-i .a=1 f.yaml"))), [".a=1", "f.yaml"]);
        assert_eq!(targets(yq(&args("e -i .a=1 f.yaml"))), [".a=1", "f.yaml"]);
        assert!(yq(&args(".a f.yaml")).is_none());
        assert_eq!(
            targets(clang_format(&args("-i --style=llvm a.cc b.h"))),
            ["a.cc", "b.h"]
        );
        assert!(clang_format(&args("a.cc")).is_none());
    }
}

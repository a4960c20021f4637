//! `sed` (GNU, and BSD's `-i SUFFIX`): in-place editing and the files a script writes.
//!
//! - `-i[SUFFIX]`/`--in-place[=SUFFIX]` (BSD `-i ''`, `-I`): each input file is read, and a
//!   new file is renamed over it (a suffix keeps a backup, replacing what held the backup's
//!   name: that name is overwritten too). Without `--follow-symlinks`, a symlink is
//!   replaced by a regular file: the link itself is the target.
//! - A literal script's `w FILE`/`W FILE` commands and `s///w FILE` flags truncate FILE when
//!   sed starts: in place, through a symlink.
//! - `e COMMAND` and the `s///e` flag run shell commands: an unknown op. A script read with
//!   `-f` is a file the guard does not read (like `bash script.sh`).

use agent_guard_types::{Dialect, OpSpec, Target, WriteMode};

use super::backups;
use super::{file, getopt_problem, overwrite, redirect::is_sink, value_arg};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

const SED: &[Opt] = &[
    Opt::flag("neutral", Some('n'), Some("quiet")),
    Opt::flag("neutral", None, Some("silent")),
    Opt::flag("neutral", None, Some("debug")),
    Opt::value("expression", Some('e'), Some("expression")),
    Opt::value("file", Some('f'), Some("file")),
    Opt::flag("follow", None, Some("follow-symlinks")),
    Opt::optional("in-place", Some('i'), Some("in-place")),
    Opt::flag("in-place", Some('I'), None),
    Opt::value("neutral", Some('l'), Some("line-length")),
    Opt::flag("neutral", None, Some("posix")),
    Opt::flag("neutral", Some('E'), Some("regexp-extended")),
    Opt::flag("neutral", Some('r'), None),
    Opt::flag("neutral", Some('s'), Some("separate")),
    Opt::flag("sandbox", None, Some("sandbox")),
    Opt::flag("neutral", Some('u'), Some("unbuffered")),
    Opt::flag("neutral", Some('z'), Some("null-data")),
    Opt::flag("neutral", Some('b'), Some("binary")),
    Opt::flag("neutral", Some('a'), None),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// The ops of a `sed` invocation.
pub(super) fn parse(args: &[Arg]) -> Vec<OpSpec> {
    let mut edit = overwrite("sed", WriteMode::ReplaceAfterRead);
    let (mut in_place, mut follow, mut sandbox, mut from_file) = (false, false, false, false);
    let mut bare_i_at: Option<usize> = None;
    let mut suffix = String::new();
    let mut scripts: Vec<&Arg> = Vec::new();
    let mut owned_scripts: Vec<Arg> = Vec::new();
    let mut operands: Vec<&Arg> = Vec::new();
    let (items, _) = getopt::parse(args, SED, Order::Permute);
    for item in &items {
        match item {
            Item::Opt { name: "info", .. } => return Vec::new(),
            Item::Opt {
                name: "in-place",
                attached,
                ..
            } => {
                in_place = true;
                if attached.is_none() {
                    bare_i_at = Some(operands.len());
                }
                if let Some(text) = value_arg(item).as_ref().and_then(|v| v.known()) {
                    text.clone_into(&mut suffix);
                }
                backup_elsewhere(&mut edit, item);
            }
            Item::Opt { name: "follow", .. } => follow = true,
            Item::Opt {
                name: "sandbox", ..
            } => sandbox = true,
            Item::Opt { name: "file", .. } => from_file = true,
            Item::Opt {
                name: "expression",
                value,
                ..
            } => match value {
                Some(value) => scripts.push(value),
                None => owned_scripts.extend(value_arg(item)),
            },
            Item::Opt { .. } => {}
            Item::Operand(arg) => operands.push(arg),
            other => getopt_problem(&mut edit, other),
        }
    }
    // BSD sed: `-i ''` or `-i .bak` takes the suffix as its own word.
    if let Some(at) = bare_i_at
        && operands
            .get(at)
            .and_then(|a| a.known())
            .is_some_and(|t| t.is_empty() || (t.starts_with('.') && !t.contains('/')))
        && operands.len() > at + 1
    {
        operands
            .remove(at)
            .known()
            .unwrap_or_default()
            .clone_into(&mut suffix);
    }
    let files: &[&Arg] = if scripts.is_empty() && owned_scripts.is_empty() && !from_file {
        match operands.split_first() {
            Some((script, files)) => {
                scripts.push(script);
                files
            }
            None => &[],
        }
    } else {
        &operands
    };
    let mut ops: Vec<OpSpec> = script_file(from_file && !sandbox).into_iter().collect();
    let mut written = overwrite("sed", WriteMode::InPlace);
    written.note("a sed script's `w` file is truncated when sed starts");
    if !sandbox {
        for script in scripts.iter().copied().chain(owned_scripts.iter()) {
            read_script(script, &mut ops, &mut written);
        }
    }
    if in_place {
        edit.targets = files.iter().map(|a| file(a, follow)).collect();
        if follow {
            edit.note("--follow-symlinks edits where a symlink leads");
        }
        backups::add_backups(&mut edit, &suffix);
        ops.insert(0, edit);
    } else if edit.undeterminable {
        ops.insert(0, edit);
    }
    if !written.targets.is_empty() {
        ops.push(written);
    }
    ops
}

/// What one script runs (`e`: an unknown op into `ops`) and writes (`w FILE`: a target of
/// `written`). A script with expansions (`"s/$OLD/$NEW/"`) is read from its source text: the
/// expansions may only sit inside an `s`/`y` command's parts, where they are data.
fn read_script(script: &Arg, ops: &mut Vec<OpSpec>, written: &mut OpSpec) {
    let (text, opaque) = match script.known() {
        Some(text) => (text, false),
        None => (script.text.as_str(), true),
    };
    let scan = scan(text, opaque);
    if scan.executes {
        ops.push(OpSpec::unknown(
            "sed",
            Dialect::Posix,
            "the sed script runs shell commands (`e`)",
        ));
    }
    for name in scan.writes.into_iter().filter(|n| !is_sink(n)) {
        written.targets.push(Target {
            through_symlink: true,
            span: Some(script.span),
            ..Target::literal(name)
        });
    }
}

/// `-i'/tmp/out/*'`, `--in-place=.git/*`: a `/` in the suffix makes each backup a path of
/// its own, outside the workspace or into `.git`.
fn backup_elsewhere(edit: &mut OpSpec, item: &Item<'_>) {
    if value_arg(item).is_some_and(|suffix| suffix.known().is_none_or(|t| t.contains('/'))) {
        edit.mark_undeterminable(
            "sed -i with a `/` in its suffix keeps each backup at a path of its own",
        );
    }
}

/// `-f SCRIPT`: its `w`, `W` and `e` commands are in a file the guard does not read, a
/// program it cannot see into, like `bash script.sh`.
fn script_file(read: bool) -> Option<OpSpec> {
    read.then(|| {
        OpSpec::opaque_program(
            "sed",
            Dialect::Posix,
            "sed -f runs a script file the guard does not read (`w` writes files, `e` runs commands)",
        )
    })
}

/// What a sed script does besides editing the stream.
#[derive(Debug, Default, PartialEq, Eq)]
struct Scan {
    /// Files its `w` commands and flags write.
    writes: Vec<String>,
    /// It runs shell commands (`e`, `s///e`), or could not be read and mentions `e`.
    executes: bool,
}

/// Reads a sed script command by command (GNU syntax: addresses, `!`, `{ }`, `;` and
/// newlines as separators, commands that take the rest of the line). A script it cannot
/// follow is judged by its letters: an `e` anywhere in what is left may run a command, and a
/// `w` may write a file nobody named.
fn scan(script: &str, opaque: bool) -> Scan {
    let mut scan = Scan::default();
    let chars: Vec<char> = script.chars().collect();
    let mut at = 0;
    let rest_of_line = |at: &mut usize| -> String {
        let start = *at;
        while *at < chars.len() && chars[*at] != '\n' {
            *at += 1;
        }
        chars[start..*at].iter().collect::<String>()
    };
    while at < chars.len() {
        let c = chars[at];
        let quote = opaque && matches!(c, '"' | '\'');
        if c.is_whitespace() || c == ';' || c == '}' || c == '{' || c == '!' || quote {
            at += 1;
            continue;
        }
        if let Some(next) = address(&chars, at, opaque) {
            at = next;
            continue;
        }
        at += 1;
        match c {
            '#' | 'a' | 'i' | 'c' | 'r' | 'R' | ':' => {
                // Text, a file read, a label or a comment: to the end of the line, with
                // `\` continuing text lines.
                loop {
                    let line = rest_of_line(&mut at);
                    if !(matches!(c, 'a' | 'i' | 'c') && line.ends_with('\\')) || at >= chars.len()
                    {
                        break;
                    }
                    at += 1;
                }
            }
            'w' | 'W' => {
                let name = rest_of_line(&mut at);
                scan.writes.push(name.trim().to_owned());
            }
            'e' => {
                scan.executes = true;
                rest_of_line(&mut at);
            }
            'b' | 't' | 'T' | 'v' => {
                while at < chars.len() && !matches!(chars[at], ';' | '\n' | '}') {
                    at += 1;
                }
            }
            'l' | 'L' | 'q' | 'Q' => {
                while at < chars.len() && (chars[at].is_ascii_digit() || chars[at] == ' ') {
                    at += 1;
                }
            }
            '=' | 'd' | 'D' | 'F' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' => {}
            's' | 'y' => match substitution(&chars, at, c == 's') {
                Some((next, flags)) => {
                    at = next;
                    scan.executes |= flags.contains('e');
                    if flags.contains('w') {
                        let name = rest_of_line(&mut at);
                        scan.writes.push(name.trim().to_owned());
                    }
                }
                None => return unreadable(&chars[at - 1..], scan, opaque),
            },
            _ => return unreadable(&chars[at - 1..], scan, opaque),
        }
    }
    scan
}

/// The judgement on a script the scanner cannot follow from here on; one with expansions
/// outside an `s`/`y` command cannot be read at all.
fn unreadable(rest: &[char], mut scan: Scan, opaque: bool) -> Scan {
    if opaque || rest.contains(&'e') {
        scan.executes = true;
    }
    if rest.iter().any(|c| matches!(c, 'w' | 'W')) {
        // An unnamed written file: undeterminable, reported as a command the guard cannot
        // see through.
        scan.executes = true;
    }
    scan
}

/// Skips one address or address range starting at `at`, returning where the command starts.
fn address(chars: &[char], at: usize, opaque: bool) -> Option<usize> {
    let one = |at: usize| -> Option<usize> {
        let c = *chars.get(at)?;
        if c.is_ascii_digit() {
            let mut end = at;
            while chars
                .get(end)
                .is_some_and(|c| c.is_ascii_digit() || *c == '~')
            {
                end += 1;
            }
            return Some(end);
        }
        if c == '$' {
            // `$` is the last line; `$x`, `${x}`, `$(…)` are expansions, not addresses.
            let next = chars.get(at + 1);
            if opaque
                && next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '_' | '{' | '('))
            {
                return None;
            }
            return Some(at + 1);
        }
        let (delimiter, start) = match c {
            '/' => ('/', at + 1),
            '\\' => (*chars.get(at + 1)?, at + 2),
            _ => return None,
        };
        let mut end = delimited(chars, start, delimiter)?;
        while chars.get(end).is_some_and(|c| matches!(c, 'I' | 'M')) {
            end += 1;
        }
        Some(end)
    };
    let mut end = one(at)?;
    if chars.get(end) == Some(&',') {
        end += 1;
        if chars.get(end).is_some_and(|c| matches!(c, '+' | '~')) {
            end += 1;
        }
        end = one(end).unwrap_or(end);
    }
    Some(end)
}

/// The index just past the unescaped `delimiter` that ends a part starting at `start`.
fn delimited(chars: &[char], start: usize, delimiter: char) -> Option<usize> {
    let mut at = start;
    while let Some(&c) = chars.get(at) {
        if c == '\\' {
            at += 2;
            continue;
        }
        if c == delimiter {
            return Some(at + 1);
        }
        at += 1;
    }
    None
}

/// Skips the two parts of `s` or `y` after the command letter (at `at`, the delimiter) and,
/// for `s`, its flags. Returns where the next command starts and the flags read.
fn substitution(chars: &[char], at: usize, flags: bool) -> Option<(usize, String)> {
    let delimiter = *chars.get(at)?;
    let end = delimited(chars, delimited(chars, at + 1, delimiter)?, delimiter)?;
    let mut next = end;
    let mut read = String::new();
    while flags
        && chars
            .get(next)
            .is_some_and(|c| c.is_ascii_alphanumeric() && "gpiImMe0123456789w".contains(*c))
    {
        read.push(chars[next]);
        next += 1;
        if chars[next - 1] == 'w' {
            break;
        }
    }
    Some((next, read))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_literal(script: &str) -> Scan {
        scan(script, false)
    }

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn summary(line: &str) -> Vec<(String, WriteMode, Vec<String>)> {
        parse(&args(line))
            .into_iter()
            .map(|op| {
                (
                    op.kind.as_str().to_owned(),
                    op.write,
                    op.targets.into_iter().map(|t| t.text).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn in_place_forms() {
        let edit = |files: &[&str]| {
            vec![(
                "overwrite".to_owned(),
                WriteMode::ReplaceAfterRead,
                files.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>(),
            )]
        };
        assert_eq!(summary("-i s/a/b/ f g"), edit(&["f", "g"]));
        // A suffix replaces what held each backup name (issue 37, point 3).
        assert_eq!(summary("-i.bak s/a/b/ f"), edit(&["f", "f.bak"]));
        assert_eq!(
            summary("--in-place=.orig -e s/a/b/ f"),
            edit(&["f", "f.orig"])
        );
        assert_eq!(summary("-E -i -e s/a/b/ -e s/c/d/ f"), edit(&["f"]));
        assert_eq!(summary("-i .bak s/a/b/ f"), edit(&["f", "f.bak"]));
        let bsd = parse(&["-i", "", "s/a/b/", "f"].map(Arg::literal));
        assert_eq!(bsd[0].targets.len(), 1, "BSD's `-i ''` keeps no backup");
        assert_eq!(summary("-iold_* s/a/b/ d/f"), edit(&["d/f", "old_d/f"]));
        assert_eq!(summary("-ni /x/p f"), edit(&["f"]));
        assert_eq!(summary("-i s/a/b/"), edit(&[]));
        assert!(summary("s/a/b/ f").is_empty());
        assert!(summary("-n /x/p f").is_empty());
        let ops = parse(&args("-i --follow-symlinks s/a/b/ link"));
        assert!(ops[0].targets[0].through_symlink);
        let ops = parse(&args("-i s/a/b/ link"));
        assert!(!ops[0].targets[0].through_symlink);
    }

    #[test]
    fn scripts_that_write_or_run() {
        assert_eq!(scan_literal("/x/w out.txt").writes, ["out.txt"]);
        assert_eq!(scan_literal("s/a/b/w out.txt").writes, ["out.txt"]);
        assert_eq!(scan_literal("1d;$w last.txt").writes, ["last.txt"]);
        assert_eq!(
            scan_literal("s/hello world/x/g;p").writes,
            Vec::<String>::new()
        );
        assert_eq!(scan_literal("s|a/b|c|g").writes, Vec::<String>::new());
        assert!(scan_literal("s/x/date/e").executes);
        assert!(scan_literal("1e rm -rf build").executes);
        assert!(!scan_literal("/^#/d;s/\\s*$//").executes);
        assert!(!scan_literal("y/abc/xyz/").executes);
        assert!(!scan_literal("/start/,/end/{s/a/b/;p}").executes);
        assert!(!scan_literal("a\\\nappended text with w and e").executes);
        assert!(
            scan_literal("?weird").executes,
            "unreadable with a w: refused"
        );
        assert!(!scan("\"s/$OLD/$NEW/g\"", true).executes);
        assert!(!scan("'s|a|'\"$B\"'|'", true).executes);
        assert!(scan("\"$SCRIPT\"", true).executes);
        assert!(scan("\"s/a/b/$FLAGS\"", true).executes);
        assert!(scan("\"${N}d\"", true).executes);
        let words = ["-n", "/x/w hits.txt", "in.txt"].map(Arg::literal);
        let ops = parse(&words);
        assert_eq!(ops.len(), 1);
        assert_eq!(
            (ops[0].write, ops[0].targets[0].text.as_str()),
            (WriteMode::InPlace, "hits.txt")
        );
        assert!(ops[0].targets[0].through_symlink);
        let words = ["-n", "w /dev/stdout", "in.txt"].map(Arg::literal);
        assert!(parse(&words).is_empty());
        let words = ["--sandbox", "1e rm x", "in.txt"].map(Arg::literal);
        assert!(parse(&words).is_empty());
    }
}

//! The table of programs known to change no file, and the forms in which they do
//! (`data/read_only.toml`, issue 38).
//!
//! `build.rs` turns the data file into the static tables included below; this module
//! answers the questions the classifier asks of them: is this program, with these
//! arguments, read-only? A program the table does not list is never read-only, and an
//! opaque program is checkpointed.

use crate::args::Arg;

/// An option that makes a read-only program write a file or run a program.
#[derive(Debug, Clone, Copy)]
enum Opt {
    /// A short letter, alone or inside a cluster: `-o`, `-uo`, `-ofile`.
    Short(char),
    /// A long option (without its dashes), also abbreviated to two letters or more, with a
    /// value (`--output=F`) or a suffix (`--output-dir`).
    Long(&'static str),
    /// A single-dash word, exactly (`-dump`), or with `=VALUE`.
    Word(&'static str),
}

/// A check made in code on a listed program's arguments.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The awk program text may run commands: `system(…)`, `print | "cmd"`, `"cmd" | getline`.
    Awk,
}

/// One program of the table.
#[derive(Debug)]
struct Reader {
    name: &'static str,
    writes: &'static [Opt],
    runs: &'static [Opt],
    defaults: bool,
    operands: Option<u8>,
    plus_runs: bool,
    bundled: bool,
    commands: &'static [&'static str],
    rule: Option<Rule>,
}

include!(concat!(env!("OUT_DIR"), "/read_only.rs"));

/// Whether `program` is a modelled writer (`cp`, `tee`, `gzip`, …): what it writes is found
/// by the writes rules, and when they find nothing it changes nothing that needs a checkpoint.
pub(crate) fn is_modelled(program: &str) -> bool {
    MODELLED.binary_search(&program).is_ok()
}

/// Whether a cmd builtin or Windows program only reads, prints or navigates.
pub(crate) fn cmd_reads(name: &str) -> bool {
    CMD.binary_search(&name).is_ok()
}

/// Whether a PowerShell cmdlet or alias touches no file: listed, or `Verb-Noun` with a
/// verb that only reads, formats or waits.
pub(crate) fn powershell_reads(name: &str) -> bool {
    POWERSHELL.binary_search(&name).is_ok()
        || name
            .split_once('-')
            .is_some_and(|(verb, noun)| !noun.is_empty() && READ_VERBS.binary_search(&verb).is_ok())
}

/// Whether the table lists `program` with query subcommands (`npm ls`, `systemctl status`).
pub(crate) fn has_commands(program: &str) -> bool {
    reader(program).is_some_and(|r| !r.commands.is_empty())
}

/// Returns `true` if `program` (a normalised name) run with `args` is listed as read-only
/// and none of its arguments asks it to write a file or run a program.
pub(crate) fn reads_only(program: &str, args: &[Arg]) -> bool {
    let Some(reader) = reader(program) else {
        return false;
    };
    if !reader.commands.is_empty() {
        return queries_only(reader, args);
    }
    let explicit = !reader.writes.is_empty() || !reader.runs.is_empty();
    let mut operands = 0_usize;
    for (at, arg) in args.iter().enumerate() {
        let Some(text) = arg.known() else {
            // `sort $OPTS f`: a word the guard cannot read may be `-o FILE`.
            if explicit && may_be_option(arg) {
                return false;
            }
            operands += 1;
            continue;
        };
        if explicit && arg.glob && may_be_option(arg) {
            // `sort *`: a file named `-ofoo` in the directory becomes an option.
            return false;
        }
        let bundled = reader.bundled && at == 0 && text.chars().all(|c| c.is_ascii_alphabetic());
        let option = text.starts_with('-') && text.len() > 1;
        if option || bundled {
            let matches = |opts: &[Opt]| opts.iter().any(|o| o.matches(text, bundled));
            if matches(reader.writes)
                || matches(reader.runs)
                || (reader.defaults && (matches(DEFAULT_WRITES) || matches(DEFAULT_RUNS)))
            {
                return false;
            }
            continue;
        }
        if reader.plus_runs && text.starts_with('+') && !harmless_plus(text) {
            return false;
        }
        operands += 1;
    }
    if reader
        .operands
        .is_some_and(|most| operands > usize::from(most))
    {
        return false;
    }
    match reader.rule {
        Some(Rule::Awk) => !args.iter().filter_map(Arg::known).any(awk_runs_commands),
        None => true,
    }
}

/// A query program's form: the first word is one of its query subcommands, and no later
/// option names a place to write or a file to load (`pip list --log F`, `npm ls --cache D`).
fn queries_only(reader: &Reader, args: &[Arg]) -> bool {
    let texts: Option<Vec<&str>> = args.iter().map(Arg::known).collect();
    let Some(texts) = texts else {
        return false;
    };
    let Some((first, rest)) = texts.split_first() else {
        return false;
    };
    let listed = reader
        .commands
        .iter()
        .any(|command| match command.strip_suffix('*') {
            Some(prefix) => first.starts_with(prefix),
            None => command == first,
        });
    listed
        && !rest.iter().any(|t| {
            let option = t.trim_start_matches('-').to_ascii_lowercase();
            t.starts_with('-')
                && (QUERY_CONTAINS.iter().any(|word| option.contains(word))
                    || QUERY_SHORT
                        .iter()
                        .any(|name| option == *name || option.starts_with(&format!("{name}="))))
        })
}

fn reader(program: &str) -> Option<&'static Reader> {
    READERS
        .binary_search_by_key(&program, |r| r.name)
        .ok()
        .and_then(|at| READERS.get(at))
}

/// A word the guard cannot read, or a glob, that may expand to an option: it does not start
/// with a literal character other than `-` (`$OPTS`, `"$x"`, `*`, `-$y`).
fn may_be_option(arg: &Arg) -> bool {
    let text = arg.text.trim_start_matches(['"', '\'']);
    text.chars()
        .next()
        .is_none_or(|c| matches!(c, '$' | '`' | '*' | '?' | '[' | '{' | '-' | '\\'))
}

/// Whether an awk program text runs commands: a call of `system`, or a pipe (`print |
/// "cmd"`, `"cmd" | getline`, gawk's `|&`). A `|` inside a string or a regular expression
/// (`/a|b/`) and the logical `||` are not pipes.
fn awk_runs_commands(program: &str) -> bool {
    let bytes = program.as_bytes();
    let mut at = 0;
    // The last character that is not blank: after an operand a `/` divides, otherwise it
    // starts a regular expression.
    let mut last = b'(';
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => at = closing(bytes, at, b'"'),
            b'/' if !(last.is_ascii_alphanumeric()
                || matches!(last, b'_' | b')' | b']' | b'$')) =>
            {
                at = closing(bytes, at, b'/');
            }
            b'|' if bytes.get(at + 1) == Some(&b'|') => at += 1,
            b'|' => return true,
            b's' if program[at..].starts_with("system")
                && (at == 0
                    || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_'))
                && program[at + "system".len()..].trim_start().starts_with('(') =>
            {
                return true;
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            last = bytes.get(at).copied().unwrap_or(b);
        }
        at += 1;
    }
    false
}

/// The index of the `end` byte that closes the string or regular expression opened at
/// `open` (a backslash escapes; a `[…]` bracket in a regular expression may hold `end`), or
/// the last index when it is not closed.
fn closing(bytes: &[u8], open: usize, end: u8) -> usize {
    let mut at = open + 1;
    let mut bracket = false;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'\\' => at += 1,
            b'[' if end == b'/' => bracket = true,
            b']' => bracket = false,
            _ if b == end && !bracket => return at,
            _ => {}
        }
        at += 1;
    }
    bytes.len().saturating_sub(1)
}

/// `+/pattern`, `+NUMBER`, `+F`, `+G`, `+g`: a pager's start that runs nothing.
fn harmless_plus(text: &str) -> bool {
    let rest = &text[1..];
    rest.starts_with('/')
        || rest.chars().all(|c| c.is_ascii_digit())
        || matches!(rest, "F" | "G" | "g")
}

impl Opt {
    /// Whether the word `text` (an option, or the dashless first word of a `bundled`
    /// program) is this option.
    fn matches(self, text: &str, bundled: bool) -> bool {
        match self {
            Opt::Short(letter) => {
                let cluster = if bundled {
                    Some(text)
                } else {
                    text.strip_prefix('-').filter(|rest| !rest.starts_with('-'))
                };
                cluster.is_some_and(|letters| letters.contains(letter))
            }
            Opt::Long(long) => text.strip_prefix("--").is_some_and(|given| {
                let given = given.split('=').next().unwrap_or(given);
                given == long
                    || (given.len() >= 2 && long.starts_with(given))
                    || given
                        .strip_prefix(long)
                        .is_some_and(|suffix| suffix.starts_with('-'))
            }),
            Opt::Word(word) => {
                text == word || text.strip_prefix(word).is_some_and(|r| r.starts_with('='))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn the_table_is_sorted_for_binary_search() {
        assert!(READERS.windows(2).all(|w| w[0].name < w[1].name));
        for list in [MODELLED, CMD, POWERSHELL, READ_VERBS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn write_and_run_options_end_the_read_only_form() {
        for (program, words) in [
            ("sort", &["-u", "a"][..]),
            ("less", &["+/needle", "a"]),
            ("less", &["+G", "a"]),
            ("man", &["ls"]),
            ("df", &["--output=source,used"]),
            ("tar", &["tvf", "a.tar"]),
            ("cpio", &["-ov", "--format=ustar"]),
            ("ping", &["-c", "1", "host"]),
            ("rpm", &["-qa"]),
            ("systemctl", &["status", "nginx"]),
            ("awk", &["/a|b/ { print $1 }", "f"]),
            ("awk", &["$1 == \"a|b\" || NR > 2 { print $2 / 2 }", "f"]),
            ("awk", &["{ n = subsystem_count; print n }", "f"]),
        ] {
            assert!(reads_only(program, &args(words)), "{program} {words:?}");
        }
        for (program, words) in [
            ("sort", &["-uo", "a", "a"][..]),
            ("sort", &["--out=a", "a"]),
            ("less", &["+!rm a", "b"]),
            ("less", &["-Olog", "a"]),
            ("man", &["-P", "rm a", "ls"]),
            ("man", &["--pager=sh", "ls"]),
            ("rg", &["--pre", "sh", "x"]),
            ("tree", &["--output", "f"]),
            ("tar", &["xvf", "a.tar"]),
            ("tar", &["-xzf", "a.tgz"]),
            ("cpio", &["-idmv"]),
            ("lshw", &["-dump", "f"]),
            ("uniq", &["in", "out"]),
            ("journalctl", &["--vacuum-time=1d"]),
            ("rpm", &["-Uvh", "x.rpm"]),
            ("systemctl", &["restart", "nginx"]),
            ("awk", &["-f", "prog.awk", "f"]),
            ("awk", &["{ print | \"sh\" }", "f"]),
            (
                "awk",
                &["BEGIN { while ((\"ls\" | getline l) > 0) print l }"],
            ),
            ("awk", &["{ system(\"rm \" $1) }", "f"]),
            ("awk", &["{ system (\"rm x\") }"]),
            ("make", &["clean"]),
        ] {
            assert!(!reads_only(program, &args(words)), "{program} {words:?}");
        }
    }

    #[test]
    fn a_word_that_may_be_an_option_is_not_read_only_for_programs_that_write() {
        let mut variable = Arg::literal("$OPTS");
        variable.opaque = Some("a variable");
        assert!(!reads_only("sort", &[variable.clone(), Arg::literal("a")]));
        // `cat` has only the shared long options: a variable is an operand.
        assert!(reads_only("cat", &[variable]));
        let mut glob = Arg::literal("*");
        glob.glob = true;
        assert!(!reads_only("sort", std::slice::from_ref(&glob)));
        let mut named = Arg::literal("s/$a/b/");
        named.opaque = Some("a variable");
        assert!(reads_only("sed", &[named, Arg::literal("f")]));
    }
}

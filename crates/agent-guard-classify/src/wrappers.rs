//! Command wrappers: programs that run another command (`sudo`, `env`, `xargs`, …), and
//! package runners (`uv run`, `npx`, …; see [`crate::runners`]).
//!
//! Each wrapper's options are consumed with their known arity so that the wrapped command is
//! found exactly. An option we do not know could take a value, so the wrapped command cannot
//! be located: that is reported as ambiguous and the caller fails closed.

use crate::args::{Arg, basename};
use crate::getopt::{self, Item, Opt, Order};
use crate::runners::Peeled;

/// The wrapped command, located.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Unwrapped {
    /// Index in the argument list of the wrapped command's name.
    pub start: usize,
    /// The wrappers peeled off, outermost first.
    pub wrappers: Vec<&'static str>,
    /// The wrapped command's arguments arrive from stdin (`xargs`).
    pub from_stdin: bool,
    /// A wrapper changes the working directory (`env -C`, `sudo -D`).
    pub changes_cwd: bool,
    /// Environment variable names a wrapper assigns (`env GIT_DIR=x …`).
    pub assigned: Vec<String>,
}

/// The outcome of unwrapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unwrap {
    /// A command runs, starting at [`Unwrapped::start`].
    Command(Unwrapped),
    /// No command runs (`sudo -e f`, `nice --version rm`, a lone `env`).
    NoCommand,
    /// The wrapped command cannot be located; the text says why.
    Ambiguous(String),
}

const SUDO: &[Opt] = &[
    Opt::flag("A", Some('A'), Some("askpass")),
    Opt::flag("b", Some('b'), Some("background")),
    Opt::optional("E", Some('E'), Some("preserve-env")),
    Opt::flag("H", Some('H'), Some("set-home")),
    Opt::flag("k", Some('k'), Some("reset-timestamp")),
    Opt::flag("n", Some('n'), Some("non-interactive")),
    Opt::flag("P", Some('P'), Some("preserve-groups")),
    Opt::flag("S", Some('S'), Some("stdin")),
    Opt::flag("B", Some('B'), Some("bell")),
    Opt::value("C", Some('C'), Some("close-from")),
    Opt::value("chdir", Some('D'), Some("chdir")),
    Opt::value("g", Some('g'), Some("group")),
    Opt::value("h", Some('h'), Some("host")),
    Opt::value("p", Some('p'), Some("prompt")),
    Opt::value("chroot", Some('R'), Some("chroot")),
    Opt::value("r", Some('r'), Some("role")),
    Opt::value("t", Some('t'), Some("type")),
    Opt::value("T", Some('T'), Some("command-timeout")),
    Opt::value("u", Some('u'), Some("user")),
    Opt::value("U", Some('U'), Some("other-user")),
    Opt::flag("shell", Some('s'), Some("shell")),
    Opt::flag("shell", Some('i'), Some("login")),
    Opt::flag("none", Some('e'), Some("edit")),
    Opt::flag("none", Some('K'), Some("remove-timestamp")),
    Opt::flag("none", Some('V'), Some("version")),
    Opt::flag("none", Some('v'), Some("validate")),
    Opt::flag("none", Some('l'), Some("list")),
    Opt::flag("none", None, Some("help")),
];

const ENV: &[Opt] = &[
    Opt::flag("i", Some('i'), Some("ignore-environment")),
    Opt::flag("0", Some('0'), Some("null")),
    Opt::flag("v", Some('v'), Some("debug")),
    Opt::value("u", Some('u'), Some("unset")),
    Opt::value("chdir", Some('C'), Some("chdir")),
    Opt::value("split", Some('S'), Some("split-string")),
    Opt::optional("sig", None, Some("block-signal")),
    Opt::optional("sig", None, Some("default-signal")),
    Opt::optional("sig", None, Some("ignore-signal")),
    Opt::flag("sig", None, Some("list-signal-handling")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

const NICE: &[Opt] = &[
    Opt::value("n", Some('n'), Some("adjustment")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

const NOHUP: &[Opt] = &[
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

const COMMAND: &[Opt] = &[
    Opt::flag("p", Some('p'), None),
    Opt::flag("none", Some('v'), None),
    Opt::flag("none", Some('V'), None),
];

const TIME: &[Opt] = &[
    Opt::flag("a", Some('a'), Some("append")),
    Opt::flag("p", Some('p'), Some("portability")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("q", Some('q'), Some("quiet")),
    Opt::value("f", Some('f'), Some("format")),
    Opt::value("o", Some('o'), Some("output")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", Some('V'), Some("version")),
];

const STDBUF: &[Opt] = &[
    Opt::value("i", Some('i'), Some("input")),
    Opt::value("o", Some('o'), Some("output")),
    Opt::value("e", Some('e'), Some("error")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

const EXEC: &[Opt] = &[
    Opt::flag("c", Some('c'), None),
    Opt::flag("l", Some('l'), None),
    Opt::value("a", Some('a'), None),
];

const XARGS: &[Opt] = &[
    Opt::flag("0", Some('0'), Some("null")),
    Opt::flag("p", Some('p'), Some("interactive")),
    Opt::flag("r", Some('r'), Some("no-run-if-empty")),
    Opt::flag("t", Some('t'), Some("verbose")),
    Opt::flag("x", Some('x'), Some("exit")),
    Opt::flag("o", Some('o'), Some("open-tty")),
    Opt::value("a", Some('a'), Some("arg-file")),
    Opt::value("d", Some('d'), Some("delimiter")),
    Opt::value("E", Some('E'), None),
    Opt::optional("e", Some('e'), Some("eof")),
    Opt::value("I", Some('I'), None),
    Opt::optional("i", Some('i'), Some("replace")),
    Opt::value("L", Some('L'), None),
    Opt::optional("l", Some('l'), Some("max-lines")),
    Opt::value("n", Some('n'), Some("max-args")),
    Opt::value("P", Some('P'), Some("max-procs")),
    Opt::value("s", Some('s'), Some("max-chars")),
    Opt::value("slot", None, Some("process-slot-var")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("show-limits")),
    Opt::flag("none", None, Some("version")),
];

const TIMEOUT: &[Opt] = &[
    Opt::value("s", Some('s'), Some("signal")),
    Opt::value("k", Some('k'), Some("kill-after")),
    Opt::flag("ps", None, Some("preserve-status")),
    Opt::flag("fg", None, Some("foreground")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", None, Some("version")),
];

const DOAS: &[Opt] = &[
    Opt::flag("n", Some('n'), None),
    Opt::flag("shell", Some('s'), None),
    Opt::value("u", Some('u'), None),
    Opt::value("none", Some('C'), None),
    Opt::flag("none", Some('L'), None),
];

/// The wrapper programs, by basename.
pub(crate) const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "nice", "nohup", "command", "builtin", "time", "stdbuf", "exec",
    "xargs", "timeout",
];

/// Peels wrappers off the front of `args` until the real command is found.
pub(crate) fn unwrap(args: &[Arg]) -> Unwrap {
    let mut found = Unwrapped::default();
    let mut index = 0;
    loop {
        let Some(head) = args.get(index) else {
            return Unwrap::NoCommand;
        };
        let Some(text) = head.known() else {
            found.start = index;
            return Unwrap::Command(found);
        };
        let name = basename(text);
        match crate::runners::peel(&args[index..]) {
            Peeled::Runs(runner, words) => {
                found.wrappers.push(runner);
                index += words;
                continue;
            }
            Peeled::Ambiguous(why) => return Unwrap::Ambiguous(why),
            Peeled::NotARunner => {}
        }
        let Some(wrapper) = WRAPPERS.iter().find(|w| **w == name) else {
            found.start = index;
            return Unwrap::Command(found);
        };
        found.wrappers.push(wrapper);
        let rest = &args[index + 1..];
        let step = match *wrapper {
            "builtin" => Step::Next(0),
            "nice" => nice(rest),
            "env" => env(rest, &mut found),
            "timeout" => timeout(rest),
            "xargs" => {
                found.from_stdin = true;
                options(rest, XARGS, wrapper, &mut found)
            }
            "sudo" => match options(rest, SUDO, wrapper, &mut found) {
                // sudo takes NAME=value assignments before the command.
                Step::Next(consumed) => {
                    Step::Next(consumed + assignments(&rest[consumed..], &mut found))
                }
                stop @ Step::Stop(_) => stop,
            },
            other => options(rest, table(other), wrapper, &mut found),
        };
        match step {
            Step::Next(consumed) => index += 1 + consumed,
            Step::Stop(result) => return result,
        }
    }
}

enum Step {
    Next(usize),
    Stop(Unwrap),
}

fn table(wrapper: &str) -> &'static [Opt] {
    match wrapper {
        "doas" => DOAS,
        "nohup" => NOHUP,
        "command" => COMMAND,
        "time" => TIME,
        "stdbuf" => STDBUF,
        "exec" => EXEC,
        _ => &[],
    }
}

/// Consumes a wrapper's options; the first operand is the wrapped command.
fn options(rest: &[Arg], opts: &[Opt], wrapper: &str, found: &mut Unwrapped) -> Step {
    let (items, consumed) = getopt::parse(rest, opts, Order::StopAtOperand);
    for item in &items {
        match item {
            Item::Opt { name: "none", .. } | Item::MissingValue(_) => {
                return Step::Stop(Unwrap::NoCommand);
            }
            Item::Opt { name: "shell", .. } => {
                return Step::Stop(Unwrap::Ambiguous(format!("{wrapper} runs a login shell")));
            }
            Item::Opt { name: "chroot", .. } => {
                return Step::Stop(Unwrap::Ambiguous(format!(
                    "{wrapper} changes the root directory"
                )));
            }
            Item::Opt { name: "chdir", .. } => found.changes_cwd = true,
            Item::Unknown(o) | Item::Ambiguous(o) => {
                return Step::Stop(Unwrap::Ambiguous(format!(
                    "{wrapper} option {o} has unknown arity"
                )));
            }
            Item::Opt { .. } | Item::Operand(_) => {}
        }
    }
    Step::Next(consumed)
}

fn nice(rest: &[Arg]) -> Step {
    // `nice -5 cmd` and `nice --5` are historical adjustment forms.
    let skip = usize::from(rest.first().is_some_and(|a| {
        a.known().is_some_and(|t| {
            let digits = t.trim_start_matches('-');
            t.starts_with('-') && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
        })
    }));
    let mut found = Unwrapped::default();
    match options(&rest[skip..], NICE, "nice", &mut found) {
        Step::Next(consumed) => Step::Next(skip + consumed),
        stop @ Step::Stop(_) => stop,
    }
}

fn env(rest: &[Arg], found: &mut Unwrapped) -> Step {
    // A lone `-` is `-i`.
    let skip = usize::from(rest.first().is_some_and(|a| a.known() == Some("-")));
    let (items, consumed) = getopt::parse(&rest[skip..], ENV, Order::StopAtOperand);
    for item in &items {
        match item {
            Item::Opt { name: "none", .. } | Item::MissingValue(_) => {
                return Step::Stop(Unwrap::NoCommand);
            }
            Item::Opt { name: "split", .. } => {
                return Step::Stop(Unwrap::Ambiguous(
                    "env -S splits a string into a command".into(),
                ));
            }
            Item::Opt { name: "chdir", .. } => found.changes_cwd = true,
            Item::Unknown(o) | Item::Ambiguous(o) => {
                return Step::Stop(Unwrap::Ambiguous(format!(
                    "env option {o} has unknown arity"
                )));
            }
            _ => {}
        }
    }
    let mut index = skip + consumed;
    while let Some(arg) = rest.get(index) {
        match arg.known().and_then(assignment_name) {
            Some(name) => {
                found.assigned.push(name.to_owned());
                index += 1;
            }
            None if arg.opaque.is_some() && arg.text.contains('=') => {
                return Step::Stop(Unwrap::Ambiguous("env assignment is not literal".into()));
            }
            None => break,
        }
    }
    Step::Next(index)
}

/// Skips leading `NAME=value` words, recording the names.
fn assignments(rest: &[Arg], found: &mut Unwrapped) -> usize {
    let mut count = 0;
    for arg in rest {
        match arg.known().and_then(assignment_name) {
            Some(name) => {
                found.assigned.push(name.to_owned());
                count += 1;
            }
            None => break,
        }
    }
    count
}

fn timeout(rest: &[Arg]) -> Step {
    let mut found = Unwrapped::default();
    match options(rest, TIMEOUT, "timeout", &mut found) {
        // The first operand is the duration; the command follows it.
        Step::Next(consumed) if consumed < rest.len() => Step::Next(consumed + 1),
        Step::Next(_) => Step::Stop(Unwrap::NoCommand),
        stop @ Step::Stop(_) => stop,
    }
}

/// Returns the variable name of a `NAME=value` word.
pub(crate) fn assignment_name(text: &str) -> Option<&str> {
    let (name, _) = text.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(words: &str) -> Unwrap {
        let args: Vec<Arg> = words.split_whitespace().map(Arg::literal).collect();
        unwrap(&args)
    }

    fn start(words: &str) -> usize {
        match run(words) {
            Unwrap::Command(u) => u.start,
            other => panic!("{words}: {other:?}"),
        }
    }

    #[test]
    fn finds_the_wrapped_command() {
        assert_eq!(start("rm -rf x"), 0);
        assert_eq!(start("sudo -u root rm -rf ."), 3);
        assert_eq!(start("nice -n 5 rm -rf ."), 3);
        assert_eq!(start("nice -5 rm -rf ."), 2);
        assert_eq!(start("command -- rm -rf ."), 2);
        assert_eq!(start("exec rm -rf ."), 1);
        assert_eq!(start("env FLAG=1 rm -rf ."), 2);
        assert_eq!(start("env -i -u X A=1 B=2 rm x"), 6);
        assert_eq!(start("timeout -s KILL 10 rm -rf x"), 4);
        assert_eq!(start("xargs -0 -n 1 rm -rf"), 4);
        assert_eq!(start("sudo env nice nohup time -p stdbuf -oL rm x"), 8);
        assert_eq!(start("/usr/bin/sudo /usr/bin/rm x"), 1);
    }

    #[test]
    fn help_and_version_run_nothing() {
        for words in [
            "sudo -e rm",
            "nice --version rm",
            "nohup --help rm",
            "time --version rm",
            "stdbuf --help rm",
            "xargs --show-limits rm",
            "command -v rm",
            "env",
            "timeout 5",
        ] {
            assert_eq!(run(words), Unwrap::NoCommand, "{words}");
        }
    }

    #[test]
    fn unknown_arity_is_ambiguous() {
        for words in [
            "env -S 'rm -rf .'",
            "sudo -s rm",
            "sudo -i",
            "sudo --weird rm",
            "stdbuf -q rm",
        ] {
            assert!(matches!(run(words), Unwrap::Ambiguous(_)), "{words}");
        }
    }

    #[test]
    fn records_stdin_cwd_and_assignments() {
        let Unwrap::Command(u) = run("env -C /tmp GIT_DIR=x git reset --hard") else {
            panic!()
        };
        assert!(u.changes_cwd);
        assert_eq!(u.assigned, ["GIT_DIR"]);
        let Unwrap::Command(u) = run("xargs rm") else {
            panic!()
        };
        assert!(u.from_stdin);
    }
}

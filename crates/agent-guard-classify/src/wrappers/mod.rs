//! Command wrappers: programs that run another command (`sudo`, `env`, `xargs`, `flock`,
//! `busybox`, `watch`, …), and package runners (`uv run`, `npx`, …; see [`crate::runners`]).
//!
//! Each wrapper's options are consumed with their known arity (see [`tables`]) so that the
//! wrapped command is found exactly. An option we do not know could take a value, so the
//! wrapped command cannot be located: that is reported as ambiguous and the caller fails
//! closed. Wrappers that hand a command *string* to a shell (`su -c`, `flock -c`,
//! `script -c`, `watch`) report it as [`Unwrap::Script`], so it is classified like `sh -c`.

mod programs;
mod tables;

pub(crate) use tables::SCRIPT;

use crate::args::{Arg, basename};
use crate::getopt::{self, Item, Opt, Order};
use crate::runners::Peeled;

use programs::{applet, chrt, entr, flock, script, sg, su, systemd_run, watch};
use tables::{
    CAFFEINATE, CGEXEC, COMMAND, DBUS_RUN_SESSION, DOAS, ENV, EXEC, FAKEROOT, IONICE, NICE,
    NO_OPTIONS, NOCACHE, NOHUP, NUMACTL, PKEXEC, PROXYCHAINS, SETARCH, SETSID, SSH_AGENT, STDBUF,
    STRACE, SUDO, TASKSET, TIME, TIMEOUT, UNBUFFER, XARGS, XVFB_RUN,
};

/// The wrapped command, located.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Unwrapped {
    /// Index in the argument list of the wrapped command's name.
    pub start: usize,
    /// The wrappers peeled off, outermost first.
    pub wrappers: Vec<&'static str>,
    /// The wrapped command's arguments arrive from stdin (`xargs`, `entr`).
    pub from_stdin: bool,
    /// A wrapper changes the working directory (`env -C`, `sudo -D`).
    pub changes_cwd: bool,
    /// The directory it changes to, when literal (`env -C DIR`, `--chdir=DIR`).
    pub cwd_dir: Option<Box<agent_guard_types::Target>>,
    /// Environment variable names a wrapper assigns (`env GIT_DIR=x …`).
    pub assigned: Vec<String>,
    /// Indexes (in the argument list) of the `NAME=value` words a wrapper assigns.
    pub assignment_args: Vec<usize>,
}

/// The outcome of unwrapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unwrap {
    /// A command runs, starting at [`Unwrapped::start`].
    Command(Unwrapped),
    /// The last wrapper runs a command string with a shell (`su -c`, `flock -c`,
    /// `script -c`, `watch`, `sg`); `None` when the string is not literal.
    Script(Unwrapped, Option<String>),
    /// No command runs (`sudo -e f`, `nice --version rm`, a lone `env`).
    NoCommand,
    /// The wrapped command cannot be located; the text says why.
    Ambiguous(String),
}

/// The wrapper programs, by basename.
pub(crate) const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "nice",
    "nohup",
    "command",
    "builtin",
    "time",
    "stdbuf",
    "exec",
    "xargs",
    "timeout",
    "busybox",
    "toybox",
    "coproc",
    "flock",
    "setsid",
    "ionice",
    "taskset",
    "chrt",
    "unbuffer",
    "script",
    "su",
    "runuser",
    "sg",
    "watch",
    "pkexec",
    "chroot",
    "strace",
    "fakeroot",
    "nocache",
    "eatmydata",
    "catchsegv",
    "proxychains",
    "proxychains4",
    "xvfb-run",
    "dbus-run-session",
    "ssh-agent",
    "cgexec",
    "numactl",
    "caffeinate",
    "entr",
    "setarch",
    "linux32",
    "linux64",
    "systemd-run",
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
        let base = index + 1;
        let step = match *wrapper {
            "builtin" | "coproc" => Step::Next(0),
            "nice" => nice(rest),
            "env" => env(rest, base, &mut found),
            "timeout" => operands_then_command(rest, TIMEOUT, wrapper, 1, &mut found),
            "taskset" => operands_then_command(rest, TASKSET, wrapper, 1, &mut found),
            "chrt" => chrt(rest, &mut found),
            "xargs" => {
                found.from_stdin = true;
                options(rest, XARGS, wrapper, &mut found)
            }
            "sudo" => match options(rest, SUDO, wrapper, &mut found) {
                // sudo takes NAME=value assignments before the command.
                Step::Next(consumed) => Step::Next(
                    consumed + assignments(&rest[consumed..], base + consumed, &mut found),
                ),
                stop => stop,
            },
            "busybox" | "toybox" => applet(rest),
            "flock" => flock(rest, &mut found),
            "script" => script(rest, &mut found),
            "su" | "runuser" => su(rest, wrapper, &mut found),
            "sg" => sg(rest),
            "watch" => watch(rest, &mut found),
            "entr" => entr(rest, &mut found),
            "setarch" => operands_then_command(rest, SETARCH, wrapper, 1, &mut found),
            "chroot" => Step::Stop(Unwrap::Ambiguous(
                "chroot changes the root directory".into(),
            )),
            "systemd-run" => systemd_run(rest, &mut found),
            other => options(rest, table(other), wrapper, &mut found),
        };
        match step {
            Step::Next(consumed) => index += 1 + consumed,
            Step::Script(script) => return Unwrap::Script(found, script),
            Step::Stop(result) => return result,
        }
    }
}

enum Step {
    /// The command starts this many words after the wrapper's name.
    Next(usize),
    /// The wrapper runs this command string (`None`: not literal).
    Script(Option<String>),
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
        "setsid" => SETSID,
        "ionice" => IONICE,
        "unbuffer" => UNBUFFER,
        "pkexec" => PKEXEC,
        "strace" => STRACE,
        "fakeroot" => FAKEROOT,
        "nocache" => NOCACHE,
        "proxychains" | "proxychains4" => PROXYCHAINS,
        "xvfb-run" => XVFB_RUN,
        "dbus-run-session" => DBUS_RUN_SESSION,
        "ssh-agent" => SSH_AGENT,
        "cgexec" => CGEXEC,
        "numactl" => NUMACTL,
        "caffeinate" => CAFFEINATE,
        "setarch" => SETARCH,
        _ => NO_OPTIONS,
    }
}

/// Reads a wrapper's options up to its first operand, and what they say about the command.
fn scan<'a>(
    rest: &'a [Arg],
    opts: &[Opt],
    order: Order,
    wrapper: &str,
    found: &mut Unwrapped,
) -> Result<(Vec<Item<'a>>, usize), Unwrap> {
    let (items, consumed) = getopt::parse(rest, opts, order);
    for item in &items {
        match item {
            Item::Opt { name: "none", .. } | Item::MissingValue(_) => {
                return Err(Unwrap::NoCommand);
            }
            Item::Opt { name: "shell", .. } => {
                return Err(Unwrap::Ambiguous(format!("{wrapper} runs a login shell")));
            }
            Item::Opt { name: "chroot", .. } => {
                return Err(Unwrap::Ambiguous(format!(
                    "{wrapper} changes the root directory"
                )));
            }
            Item::Opt {
                name: "chdir",
                value,
                attached,
            } => found.change_cwd(*value, attached.as_deref()),
            Item::Unknown(o) | Item::Ambiguous(o) => {
                return Err(Unwrap::Ambiguous(format!(
                    "{wrapper} option {o} has unknown arity"
                )));
            }
            Item::Opt { .. } | Item::Operand(_) => {}
        }
    }
    Ok((items, consumed))
}

/// Consumes a wrapper's options; the first operand is the wrapped command.
fn options(rest: &[Arg], opts: &[Opt], wrapper: &str, found: &mut Unwrapped) -> Step {
    match scan(rest, opts, Order::StopAtOperand, wrapper, found) {
        Ok((_, consumed)) => Step::Next(consumed),
        Err(stop) => Step::Stop(stop),
    }
}

/// Options, then `count` operands of the wrapper's own (`timeout DURATION`, `taskset MASK`,
/// `setarch ARCH`), then the command. No command after them: nothing runs that the guard
/// can see (`setarch` alone starts an interactive shell).
fn operands_then_command(
    rest: &[Arg],
    opts: &[Opt],
    wrapper: &str,
    count: usize,
    found: &mut Unwrapped,
) -> Step {
    // `setarch ARCH` takes its operand first, then options.
    if wrapper == "setarch" {
        if rest.is_empty() {
            return Step::Stop(Unwrap::NoCommand);
        }
        return match options(&rest[1..], opts, wrapper, found) {
            Step::Next(consumed) if 1 + consumed < rest.len() => Step::Next(1 + consumed),
            Step::Next(_) => Step::Stop(Unwrap::NoCommand),
            stop => stop,
        };
    }
    match options(rest, opts, wrapper, found) {
        Step::Next(consumed) if consumed + count < rest.len() => Step::Next(consumed + count),
        Step::Next(_) => Step::Stop(Unwrap::NoCommand),
        stop => stop,
    }
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
        stop => stop,
    }
}

fn env(rest: &[Arg], base: usize, found: &mut Unwrapped) -> Step {
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
            Item::Opt {
                name: "chdir",
                value,
                attached,
            } => found.change_cwd(*value, attached.as_deref()),
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
                found.assignment_args.push(base + index);
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

/// Skips leading `NAME=value` words (at `base` in the argument list), recording them.
fn assignments(rest: &[Arg], base: usize, found: &mut Unwrapped) -> usize {
    let mut count = 0;
    for arg in rest {
        match arg.known().and_then(assignment_name) {
            Some(name) => {
                found.assigned.push(name.to_owned());
                found.assignment_args.push(base + count);
                count += 1;
            }
            None => break,
        }
    }
    count
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

impl Unwrapped {
    /// A wrapper's `chdir` option (`env -C DIR`, `sudo -D DIR`): the command runs elsewhere,
    /// in `DIR` when it is literal.
    fn change_cwd(&mut self, value: Option<&Arg>, attached: Option<&str>) {
        self.changes_cwd = true;
        self.cwd_dir = match (value, attached) {
            (_, Some(text)) => Some(Box::new(agent_guard_types::Target::literal(text))),
            (Some(arg), None) => arg.known().map(|_| Box::new(arg.target())),
            (None, None) => None,
        };
    }
}

#[cfg(test)]
mod tests;

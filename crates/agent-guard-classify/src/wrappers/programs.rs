//! The wrappers that need more than an option table: an operand before the command
//! (`chrt`), a command string for the shell (`flock -c`, `script -c`, `su -c`, `sg`,
//! `watch`, `entr -s`), an applet name (`busybox`), or options that are not modelled
//! (`systemd-run`).

use super::tables::{CHRT, ENTR, FLOCK, SCRIPT, SU, WATCH};
use super::{Step, Unwrap, Unwrapped, options, scan};
use crate::args::Arg;
use crate::getopt::{Item, Order};

/// `chrt [options] [PRIORITY] COMMAND…`: the priority is optional for the policies that
/// have none, so a number before the command is the priority.
pub(super) fn chrt(rest: &[Arg], found: &mut Unwrapped) -> Step {
    match options(rest, CHRT, "chrt", found) {
        Step::Next(consumed) => {
            let priority = rest
                .get(consumed)
                .and_then(Arg::known)
                .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()));
            let start = consumed + usize::from(priority);
            if start < rest.len() {
                Step::Next(start)
            } else {
                Step::Stop(Unwrap::NoCommand)
            }
        }
        stop => stop,
    }
}

/// `busybox APPLET …`, `toybox APPLET …`: the applet is the command (`busybox rm -rf x` is
/// `rm -rf x`). Their own options (`--list`, `--help`, `--install`) run no applet.
pub(super) fn applet(rest: &[Arg]) -> Step {
    match rest.first() {
        None => Step::Stop(Unwrap::NoCommand),
        Some(arg) if arg.is_option() => Step::Stop(Unwrap::NoCommand),
        Some(_) => Step::Next(0),
    }
}

/// `flock [options] FILE COMMAND…`, `flock [options] FILE -c STRING`, `flock [options] FD`.
pub(super) fn flock(rest: &[Arg], found: &mut Unwrapped) -> Step {
    let consumed = match options(rest, FLOCK, "flock", found) {
        Step::Next(consumed) => consumed,
        stop => return stop,
    };
    // `rest[consumed]` is the lock file (or a descriptor number, which runs nothing).
    let Some(after) = rest.get(consumed + 1) else {
        return Step::Stop(Unwrap::NoCommand);
    };
    if matches!(after.known(), Some("-c" | "--command")) {
        return Step::Script(rest.get(consumed + 2).and_then(literal_script));
    }
    Step::Next(consumed + 1)
}

/// `script [options] [FILE]`: `-c STRING` runs the string with the user's shell; without
/// it an interactive shell reads the terminal.
pub(super) fn script(rest: &[Arg], found: &mut Unwrapped) -> Step {
    match scan(rest, SCRIPT, Order::Permute, "script", found) {
        Ok((items, _)) => match command_option(&items) {
            CommandOption::Given(script) => Step::Script(script),
            CommandOption::Absent => Step::Stop(Unwrap::NoCommand),
        },
        Err(stop) => Step::Stop(stop),
    }
}

/// `su [options] [-] [USER [ARG…]]`, `runuser … [-u USER [--] COMMAND…]`: `-c STRING` runs
/// the string with the user's shell. Without `-c`, arguments after the user go to a login
/// shell (what they run is unknown); with none, the shell reads the terminal.
pub(super) fn su(rest: &[Arg], wrapper: &'static str, found: &mut Unwrapped) -> Step {
    let user = scan(rest, SU, Order::StopAtOperand, wrapper, found)
        .ok()
        .is_some_and(|(items, _)| has(&items, "user"));
    if user && wrapper == "runuser" {
        // `runuser -u USER [--] COMMAND…`: an argv, like sudo.
        return match scan(rest, SU, Order::StopAtOperand, wrapper, found) {
            Ok((items, consumed)) => match command_option(&items) {
                CommandOption::Absent => Step::Next(consumed),
                CommandOption::Given(script) => Step::Script(script),
            },
            Err(stop) => Step::Stop(stop),
        };
    }
    match scan(rest, SU, Order::Permute, wrapper, found) {
        Ok((items, _)) => {
            // A login shell (`-`, `-l`) starts in the user's home directory.
            found.changes_cwd |= has(&items, "l")
                || items
                    .iter()
                    .any(|i| matches!(i, Item::Operand(a) if a.known() == Some("-")));
            if let CommandOption::Given(script) = command_option(&items) {
                return Step::Script(script);
            }
            let operands = items
                .iter()
                .filter(|i| matches!(i, Item::Operand(a) if a.known() != Some("-")))
                .count();
            if operands > 1 {
                Step::Stop(Unwrap::Ambiguous(format!(
                    "{wrapper} passes its arguments to a login shell"
                )))
            } else {
                Step::Stop(Unwrap::NoCommand)
            }
        }
        Err(stop) => Step::Stop(stop),
    }
}

/// `sg [-] [GROUP [-c] COMMAND]`: the command is a string for `/bin/sh -c`.
pub(super) fn sg(rest: &[Arg]) -> Step {
    let mut index = usize::from(rest.first().and_then(Arg::known) == Some("-"));
    index += 1; // the group
    if rest.get(index).and_then(Arg::known) == Some("-c") {
        index += 1;
    }
    if index >= rest.len() {
        return Step::Stop(Unwrap::NoCommand);
    }
    Step::Script(joined(&rest[index..]))
}

/// `watch [options] COMMAND…`: the words are joined with spaces and run with `sh -c`;
/// with `-x` they are an argv.
pub(super) fn watch(rest: &[Arg], found: &mut Unwrapped) -> Step {
    match scan(rest, WATCH, Order::StopAtOperand, "watch", found) {
        Ok((_, consumed)) if consumed >= rest.len() => Step::Stop(Unwrap::NoCommand),
        Ok((items, consumed)) if has(&items, "exec") => Step::Next(consumed),
        Ok((_, consumed)) => Step::Script(joined(&rest[consumed..])),
        Err(stop) => Step::Stop(stop),
    }
}

/// `entr [options] UTILITY [ARG…]`: runs the utility when a file it reads from stdin
/// changes (`/_` is that file); with `-s` the utility is a string for the shell.
pub(super) fn entr(rest: &[Arg], found: &mut Unwrapped) -> Step {
    found.from_stdin = true;
    match scan(rest, ENTR, Order::StopAtOperand, "entr", found) {
        Ok((_, consumed)) if consumed >= rest.len() => Step::Stop(Unwrap::NoCommand),
        Ok((items, consumed)) if has(&items, "command") => {
            Step::Script(rest.get(consumed).and_then(literal_script))
        }
        Ok((_, consumed)) => Step::Next(consumed),
        Err(stop) => Step::Stop(stop),
    }
}

/// `systemd-run [options] COMMAND…` runs the command as a service, by default in `/` (the
/// system manager) or the home directory (`--user`). Its options are not modelled.
pub(super) fn systemd_run(rest: &[Arg], found: &mut Unwrapped) -> Step {
    match rest.first() {
        None => Step::Stop(Unwrap::NoCommand),
        Some(arg) if arg.is_option() => Step::Stop(Unwrap::Ambiguous(
            "systemd-run options are not modelled".into(),
        )),
        Some(_) => {
            found.changes_cwd = true;
            Step::Next(0)
        }
    }
}

/// Returns `true` if an option named `name` was given.
fn has(items: &[Item<'_>], name: &str) -> bool {
    items
        .iter()
        .any(|i| matches!(i, Item::Opt { name: n, .. } if *n == name))
}

/// The value of the last `command` option (`-c STRING`), if one was given.
enum CommandOption {
    /// No such option.
    Absent,
    /// Its literal value (`None`: not literal).
    Given(Option<String>),
}

fn command_option(items: &[Item<'_>]) -> CommandOption {
    items
        .iter()
        .rev()
        .find_map(|item| match item {
            Item::Opt {
                name: "command",
                value,
                attached,
            } => Some(CommandOption::Given(
                attached.clone().or_else(|| value.and_then(literal_script)),
            )),
            _ => None,
        })
        .unwrap_or(CommandOption::Absent)
}

/// The text of a literal command-string argument (an unquoted glob is expanded by the
/// calling shell first, so it is not literal).
fn literal_script(arg: &Arg) -> Option<String> {
    arg.known()
        .filter(|_| !arg.glob || arg.quoted)
        .map(str::to_owned)
}

/// The words joined with spaces, as `watch` and `sg` build their command string; `None` if
/// any is not literal.
fn joined(args: &[Arg]) -> Option<String> {
    let words: Option<Vec<String>> = args.iter().map(literal_script).collect();
    words.map(|w| w.join(" "))
}

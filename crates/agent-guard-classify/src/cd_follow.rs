//! Which directory changes of a POSIX line the policy may follow (issue 38, point 5).
//!
//! `cd src && rm -rf build` deletes `src/build`: the guard judges the delete there instead of
//! asking, as long as the `cd` certainly ran before the op whenever the op runs, in the same
//! shell, and nothing in the line changes what `cd` means. Whether the directory exists (so
//! that the `cd` cannot fail) is the world's fact: the policy checks it. Everything else here
//! is the line's structure:
//!
//! - each change is a plain top-level command (not in a subshell, a group, a loop, a function
//!   body, a substitution, a pipeline or the background), and the first of its and-or list,
//!   so it runs whenever its list does (`make && cd src; rm x` may skip the `cd`);
//! - the op is a plain top-level command too, after every change;
//! - between a change and the op, the change's list is not sent to the background (`cd src
//!   && make & rm x`) and, when the op is in that list, no `||` lets the op run only when
//!   something after the `cd` failed (`cd src || rm -rf build` runs `rm` only if `cd` failed);
//! - the line does not define a function `cd`, `pushd`, `builtin` or `command`, set `CDPATH`
//!   or turn on alias expansion.
//!
//! A change the rule cannot follow keeps the shape F1 (a question, with a checkpoint first).

use agent_guard_lex::{Separator, SimpleCommand};

/// Names a line could redefine to change what a directory change does.
const CD_NAMES: &[&str] = &["cd", "pushd", "popd", "builtin", "command"];

/// Words that, in a PowerShell line, may define a function, a filter or an alias that
/// shadows `cd`, `Set-Location` or `Push-Location` (compared lower-cased).
const POWERSHELL_REDEFINERS: &[&str] = &["function", "filter", "alias", "sal ", "nal "];

/// Returns `true` if `source` could change what its `cd` commands do. POSIX: a function
/// named like one of [`CD_NAMES`], `CDPATH`, or alias expansion turned on. PowerShell: a
/// function, filter or alias anywhere in the line. (cmd has none: `doskey` macros do not
/// apply to a command line run by `cmd /c`.) A text check: it may find a definition in a
/// string that is never run, which only keeps the line asked about.
pub(crate) fn line_redefines_cd(source: &str, dialect: agent_guard_types::Dialect) -> bool {
    match dialect {
        agent_guard_types::Dialect::Posix => posix_redefines_cd(source),
        agent_guard_types::Dialect::Cmd => false,
        agent_guard_types::Dialect::PowerShell => {
            let lowered = source.to_ascii_lowercase();
            POWERSHELL_REDEFINERS.iter().any(|w| lowered.contains(w))
        }
    }
}

/// The POSIX half of [`line_redefines_cd`].
fn posix_redefines_cd(source: &str) -> bool {
    if source.contains("CDPATH")
        || source.contains("expand_aliases")
        || source.contains("cdable_vars")
        || source.contains("POSIXLY_CORRECT")
    {
        return true;
    }
    // dash expands an alias defined on an earlier line of the same text.
    let bytes = source.as_bytes();
    if source.match_indices("alias").any(|(at, _)| {
        at.checked_sub(1).is_none_or(|i| !is_name_byte(bytes[i]))
            && bytes.get(at + 5).is_none_or(|b| !is_name_byte(*b))
    }) {
        return true;
    }
    CD_NAMES.iter().any(|name| {
        source.match_indices(name).any(|(at, _)| {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let starts_word = before.is_none_or(|b| !is_name_byte(b));
            let after = &source[at + name.len()..];
            let ends_word = after.bytes().next().is_none_or(|b| !is_name_byte(b));
            let defines = after.trim_start().starts_with('(')
                && after.trim_start()[1..].trim_start().starts_with(')');
            let keyword = source[..at].trim_end().ends_with("function");
            starts_word && ends_word && (defines || keyword)
        })
    })
}

/// A byte that can continue a shell name.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A command at the top level of the line, run by the line's own shell when its list reaches
/// it.
fn plain(command: &SimpleCommand) -> bool {
    let ctx = command.context;
    ctx.depth == 0
        && !ctx.in_substitution
        && !ctx.in_subshell
        && !ctx.in_function
        && !ctx.in_control_flow
        && !ctx.negated
        && !ctx.maybe_arithmetic
}

/// For each command of the line, whether every directory change in `changes` (command
/// indices, ascending) before it certainly ran, in the line's own shell, whenever it runs
/// (given that each change itself succeeds). `unfollowable` changes fail every command after
/// them. One pass over the line: each change fails the commands of an interval, summed.
pub(crate) fn reached(
    commands: &[SimpleCommand],
    changes: &[usize],
    posix: bool,
    unfollowable: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let n = commands.len();
    // The first top-level command at or after each index that ends an and-or list (`;`,
    // newline, `&`) or joins with `||`.
    let mut list_end = vec![n; n + 1];
    let mut or_at = vec![n; n + 1];
    for k in (0..n).rev() {
        let top = commands[k].context.depth == 0;
        list_end[k] = if top
            && matches!(
                commands[k].separator,
                Separator::Sequence | Separator::Background
            ) {
            k
        } else {
            list_end[k + 1]
        };
        or_at[k] = if top && commands[k].separator == Separator::Or {
            k
        } else {
            or_at[k + 1]
        };
    }
    let mut fails = vec![0_i64; n + 1];
    let mut fail = |from: usize, to: usize| {
        if from < to {
            fails[from] += 1;
            fails[to] -= 1;
        }
    };
    for &change in changes {
        if change >= n {
            continue;
        }
        let after = change + 1;
        let end = list_end[after.min(n)];
        let backgrounded = end < n && commands[end].separator == Separator::Background;
        if unfollowable(change) || !starts_its_list(commands, change, posix) || backgrounded {
            fail(after, n);
            continue;
        }
        // In the change's own list, a command after an `||` may run only because something
        // after the change failed.
        fail(or_at[after.min(n)].min(end), end);
    }
    let mut running = 0;
    (0..n)
        .map(|i| {
            running += fails[i];
            running == 0 && plain(&commands[i])
        })
        .collect()
}

/// Returns `true` if the change at `change` is a plain top-level command that runs whenever
/// its and-or list does, joined to the next command by `&&`, `;` or `||` at the top level
/// (a nested construct hides its separator; a pipe runs the change in a subshell).
fn starts_its_list(commands: &[SimpleCommand], change: usize, posix: bool) -> bool {
    let cd = &commands[change];
    let Some(next) = commands.get(change + 1) else {
        return false;
    };
    // `pushd` is not in every shell (dash has none): followed only where its failure stops
    // the line.
    let pushd = posix
        && cd
            .words
            .first()
            .and_then(agent_guard_lex::Word::literal_text)
            == Some("pushd".into());
    plain(cd)
        && matches!(cd.separator, Separator::Start | Separator::Sequence)
        && next.context.depth == 0
        && if pushd {
            next.separator == Separator::And
        } else {
            matches!(
                next.separator,
                Separator::And | Separator::Sequence | Separator::Or
            )
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reaches(line: &str, change: usize, op: usize) -> bool {
        let script = agent_guard_lex::posix::lex(line);
        reached(&script.commands, &[change], true, |_| false)[op]
    }

    #[test]
    fn a_long_line_is_one_pass() {
        let line = "cd a; rm b; ".repeat(20_000);
        let script = agent_guard_lex::posix::lex(&line);
        let changes: Vec<usize> = (0..script.commands.len()).step_by(2).collect();
        let reached = reached(&script.commands, &changes, true, |_| false);
        assert!(reached.iter().skip(1).step_by(2).all(|r| *r));
    }

    #[test]
    fn the_common_spellings_are_followed() {
        assert!(reaches("cd src && rm -rf build", 0, 1));
        assert!(reaches("cd src; rm -rf build", 0, 1));
        assert!(reaches("cd src || exit 1; rm -rf build", 0, 2));
        assert!(reaches("cd src && make && rm -rf build", 0, 2));
        assert!(reaches("cd src && ls | xargs echo && rm -rf build", 0, 3));
        assert!(reaches("cd src\nrm -rf build", 0, 1));
        assert!(reaches("true; cd src && rm -rf build", 1, 2));
    }

    #[test]
    fn a_change_that_may_not_have_run_is_not() {
        // Skipped when `make` succeeds.
        assert!(!reaches("make || cd src && rm -rf build", 1, 2));
        assert!(!reaches("false && cd src; rm -rf build", 1, 2));
        // In a subshell, a pipeline, the background, a loop.
        assert!(!reaches("(cd src); rm -rf build", 0, 1));
        assert!(!reaches("cd src | cat; rm -rf build", 0, 2));
        assert!(!reaches("echo | cd src; rm -rf build", 1, 2));
        assert!(!reaches("cd src & rm -rf build", 0, 1));
        assert!(!reaches("cd src && make & rm -rf build", 0, 2));
        assert!(!reaches("if true; then cd src; fi; rm -rf build", 1, 2));
        assert!(!reaches("! cd src; rm -rf build", 0, 1));
        // The op runs only if something after the change failed.
        assert!(!reaches("cd src || rm -rf build", 0, 1));
        assert!(!reaches("cd src && make || rm -rf build", 0, 2));
        // A nested op, or one whose join is hidden by a construct.
        assert!(!reaches("cd src && (rm -rf build)", 0, 1));
        assert!(!reaches("cd src && { rm -rf build; }", 0, 1));
    }

    #[test]
    fn redefinitions_are_found() {
        use agent_guard_types::Dialect::{Cmd, PowerShell};
        assert!(line_redefines_cd(
            "function cd { }; cd src; ri x",
            PowerShell
        ));
        assert!(line_redefines_cd(
            "Set-Alias cd echo; cd src; ri x",
            PowerShell
        ));
        assert!(!line_redefines_cd(
            "Set-Location src; Remove-Item x",
            PowerShell
        ));
        assert!(!line_redefines_cd("cd src & del x", Cmd));
        let line_redefines_cd = posix_redefines_cd;
        assert!(line_redefines_cd("cd() { :; }; cd src && rm -rf build"));
        assert!(line_redefines_cd("cd () { :; }; cd src"));
        assert!(line_redefines_cd("function cd { :; }; cd src"));
        assert!(line_redefines_cd("builtin() { :; }; cd src"));
        assert!(line_redefines_cd("CDPATH=/tmp; cd src"));
        assert!(line_redefines_cd("shopt -s expand_aliases; alias cd=true"));
        assert!(!line_redefines_cd("cd src && rm -rf build"));
        assert!(!line_redefines_cd("abcd() { :; }; cd src"));
        assert!(!line_redefines_cd("cd src && (rm -rf build)"));
    }
}

//! Per-file commands that copy or move what `find` passes them into one fixed place: `find …
//! -exec cp {} dest/ \;`, `-exec cp -t dest {} +`, `-exec mv {} old \;` (issue 38, point 1).
//!
//! Whatever is found, such a command writes only at `DEST` or below it (a copy's source is
//! only read), so the writes are confined by `DEST` alone, like a recursive copy's landing
//! directory: one op over `DEST`, which a checkpoint keeps when `DEST` lies inside the
//! workspace. A move also takes each match away, which the `find` op judges like `-exec rm
//! -r {}`.

use agent_guard_types::{Confinement, Dialect, OpKind, OpSpec, Target};

use crate::args::Arg;

/// What a per-file command writes into: its fixed destination `DEST`.
pub(super) struct Fixed {
    /// The destination directory (or file), as written.
    pub(super) dest: Target,
    /// The command moves the found file (so the `find` op must also confine what it takes).
    pub(super) moves: bool,
}

/// The programs whose destination rules [`fixed`] reads (their ops name `DEST` and
/// `DEST/NAME` as targets).
const COPIERS: &[&str] = &["cp", "gcp", "mv", "gmv"];

/// The options a copy or move into a fixed destination may carry: none that copies a link
/// as a link, makes one (`-P`, `-d`, `-a`, `-l`, `-s`), recurses (`-r`: what it writes
/// below a match is not named by the `find`), or writes the destination's own name (`-T`).
/// Short flags (bundled or not) by letter; `t` takes the destination.
const SHORT_FLAGS: &[u8] = b"finuvpLH";

/// Long options allowed (`=VALUE` after any of them).
const LONG_OPTIONS: &[&str] = &[
    "--force",
    "--interactive",
    "--no-clobber",
    "--update",
    "--verbose",
    "--preserve",
    "--dereference",
    "--target-directory",
    "--strip-trailing-slashes",
];

/// Whether `command` (the program and its arguments) copies or moves only the found file:
/// every option is one [`fixed`] allows, and every source operand is `{}` (a literal source
/// would land in the destination under a name the `find` does not bound, `cp {}
/// elsewhere/opencode.json .`); with `-t DIR` every operand is a source, else all but the
/// last.
fn only_the_found(command: &[Arg]) -> bool {
    let mut operands: Vec<&str> = Vec::new();
    let mut into = false;
    let mut words = command.iter().skip(1);
    let mut options = true;
    while let Some(arg) = words.next() {
        let Some(text) = arg.known() else {
            // A word the guard cannot read could be any option or source.
            return false;
        };
        if !options || text == "-" || !text.starts_with('-') {
            operands.push(text);
            continue;
        }
        if text == "--" {
            options = false;
        } else if let Some(long) = text.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            // Abbreviations of an allowed option only (`--verb`), never of two.
            let allowed: Vec<&&str> = LONG_OPTIONS
                .iter()
                .filter(|o| name.len() >= 3 && o[2..].starts_with(name))
                .collect();
            let [option] = allowed.as_slice() else {
                return false;
            };
            if **option == "--target-directory" {
                into = true;
                if !long.contains('=') {
                    words.next();
                }
            }
        } else {
            let flags = &text[1..];
            for (at, flag) in flags.bytes().enumerate() {
                if flag == b't' {
                    // `-tDIR`, or `-t DIR`.
                    into = true;
                    if at + 1 == flags.len() {
                        words.next();
                    }
                    break;
                }
                if !SHORT_FLAGS.contains(&flag) {
                    return false;
                }
            }
        }
    }
    let sources = if into {
        operands.as_slice()
    } else {
        operands.split_last().map_or(&[][..], |(_, rest)| rest)
    };
    !sources.is_empty() && sources.iter().all(|s| *s == "{}")
}

/// `Some` when `op` (run by `find -exec` as `command`, with `{}` the found path) writes only
/// at or below one literal destination: every target is `DEST` or `DEST/NAME` for a name
/// without `/`, and every source is the found path itself.
pub(super) fn fixed(op: &OpSpec, command: &[Arg]) -> Option<Fixed> {
    if !COPIERS.contains(&op.op.as_str())
        || !matches!(op.kind, OpKind::Overwrite | OpKind::Move)
        || op.targets.is_empty()
        || op.recursive
        || !only_the_found(command)
    {
        return None;
    }
    let moves = op.kind == OpKind::Move;
    // A move of anything but the found path (`mv {} {}.bak` is beside it: not this rule),
    // or a backup rename, is not a copy into DEST.
    if moves
        && (op.sources.is_empty()
            || op
                .sources
                .iter()
                .any(|s| s.text != "{}" || s.opaque.is_some()))
    {
        return None;
    }
    let literal = |t: &Target| t.is_concrete() && !t.tilde && !t.glob;
    if !op.targets.iter().all(literal) {
        return None;
    }
    let texts: Vec<&str> = op
        .targets
        .iter()
        .map(|t| match t.text.trim_end_matches('/') {
            "" => "/",
            text => text,
        })
        .collect();
    // (directory, name) of a target, when the name is a plain one.
    let split = |text: &str| -> Option<(String, String)> {
        let (dir, name) = text.rsplit_once('/')?;
        let dir = if dir.is_empty() { "/" } else { dir };
        (!name.is_empty() && name != "." && name != "..").then(|| (dir.to_owned(), name.to_owned()))
    };
    let in_dest =
        |dest: &str, text: &str| text == dest || split(text).is_some_and(|(dir, _)| dir == dest);
    // DEST is one of the targets that all others lie in (`cp {} d` names `d` and `d/NAME`),
    // or the directory all of them lie in (`cp -t d {}` names `d/NAME` only).
    let dest = texts
        .iter()
        .find(|dest| !dest.contains("{}") && texts.iter().all(|t| in_dest(dest, t)))
        .map(|dest| (*dest).to_owned())
        .or_else(|| {
            let (dir, _) = split(texts.first()?)?;
            texts
                .iter()
                .all(|t| split(t).is_some_and(|(d, _)| d == dir))
                .then_some(dir)
        })?;
    if dest.contains("{}") {
        return None;
    }
    let first = op.targets.first()?;
    Some(Fixed {
        dest: Target {
            text: dest,
            ..first.clone()
        },
        moves,
    })
}

/// A `find -exec`'s per-file ops, split by [`split`].
pub(super) struct Split {
    /// The ops of the writes into fixed destinations ([`write_op`]).
    pub(super) writes: Vec<OpSpec>,
    /// The per-file moves into them, as the command's ops: each takes its match away.
    pub(super) moves: Vec<OpSpec>,
    /// The other per-file ops.
    pub(super) rest: Vec<OpSpec>,
}

/// Splits the ops `inner` of one `find` action (`-exec`, …, running `command`; `args` are
/// the `find`'s) into the copies and moves into a fixed destination and the rest. Only
/// `-exec` and `-ok`: `-execdir` runs in each match's directory, where a relative
/// destination moves along.
pub(super) fn split(
    inner: Vec<OpSpec>,
    (action, batch, alone): (&str, bool, bool),
    command: &[Arg],
    args: &[Arg],
) -> Split {
    let names = crate::find::confinement_of(args, crate::find::Execs::WritesFound);
    let mut split = Split {
        writes: Vec::new(),
        moves: Vec::new(),
        rest: Vec::new(),
    };
    for op in inner {
        // Only when the find is the whole line: another command could make a link in the
        // destination first (`cp -P lnk dest/x; find … -exec cp {} dest \;`).
        let into = (alone && matches!(action, "-exec" | "-ok"))
            .then(|| fixed(&op, command))
            .flatten()
            .filter(|into| {
                super::runs::names_only_paths(command, "{}", &op)
                    && names.as_ref().is_some_and(|n| settles(into, n, batch))
            });
        let (Some(into), Some(names)) = (into, names.as_ref()) else {
            split.rest.push(op);
            continue;
        };
        split.writes.push(write_op(&into, &op.op, names));
        if into.moves {
            split.moves.push(op);
        }
    }
    split
}

/// Whether what `into` writes stays what the line was judged on, for matches bounded by
/// `names` (the `find`'s expression): the expression names what may be written (`-name`,
/// checked against `.git`, the quarantine and guard files); and a move run once per match
/// (`\;`, `xargs -I`, not `batch`) moves only regular files (`-type f`): a moved link
/// would land at the destination, and the next run would write through it.
pub(super) fn settles(into: &Fixed, names: &Confinement, batch: bool) -> bool {
    !names.names.is_empty() && (batch || !into.moves || names.files_only)
}

/// The op of the writes into `fixed.dest`: an overwrite confined to it, of new names right
/// in it. Each name written there is a match's name (`names`, the `find`'s own name
/// tests).
pub(super) fn write_op(fixed: &Fixed, program: &str, names: &Confinement) -> OpSpec {
    let mut op = OpSpec::new(program, OpKind::Overwrite, Dialect::Posix);
    op.recursive = true;
    op.targets = vec![fixed.dest.clone()];
    op.mark_undeterminable(format!(
        "find runs {program} on each file it finds, into `{}`",
        fixed.dest.text
    ));
    let confinement = Confinement {
        whole_matches: true,
        creates_names: true,
        names: names.names.clone(),
        ignore_case: names.ignore_case,
        ..Confinement::default()
    };
    op.confined = Some(confinement);
    op
}

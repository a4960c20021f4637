//! A `find` whose names an `xargs` reads through a pipe (`find src -name '*.py' -print0 |
//! xargs -0 sed -i …`): what bounds the command xargs runs (issue 38, point 1).

use agent_guard_types::{Dialect, OpKind, OpSpec};

use super::{Call, Line, PER_FILE, fixed_destination, runs};
use crate::args::Arg;
use crate::wrappers;

/// A confined `find … -print0` (see [`Line::piped_find`]).
#[derive(Debug, Clone)]
pub(crate) struct PipedFind {
    /// The command's index in the line.
    pub(super) index: usize,
    /// Its starting points.
    pub(super) starts: Vec<agent_guard_types::Target>,
    /// What bounds its matches.
    pub(super) confinement: agent_guard_types::Confinement,
    /// It prints the names NUL-separated (`-print0`), not one per line.
    pub(super) nul: bool,
    /// The `xargs` after it runs the command once per name, with this string replaced by the
    /// name in its arguments (`-I R`, `-i`, `--replace`).
    pub(super) replace: Option<String>,
    /// The find and the xargs are the whole line, in the foreground: no other command can
    /// make a link where the xargs writes.
    pub(super) alone: bool,
}

/// `find START … -print0 | xargs -0 rm [-rf]`: the names are exactly what the find matched,
/// so the delete is bounded like `find … -delete` (a checkpoint); so is an in-place rewrite
/// of each (`xargs -0 sed -i …`, [`crate::writes::IN_PLACE`]) and a compressor with plain
/// flags only (`xargs -0 gzip -9`), which also writes a name made from each match. Without
/// `-0` on both sides, only when no name holds a blank or a quote
/// (`Confinement::split_names`). `command` is the program xargs runs and its arguments.
pub(super) fn bound_by_find(op: &mut OpSpec, find: &PipedFind, command: &[Arg]) -> Option<OpSpec> {
    if let Some(name) = &find.replace {
        if !runs::names_only_paths(command, name, op) {
            return None;
        }
        // `xargs -I {} cp {} dest/`: writes confined by `dest`; a move also takes the
        // match away, like `xargs -I {} rm -r {}`.
        // Without `-0`, the names below the starting points must be checked for what xargs
        // would unquote: the move's delete op over them does; a copy has none.
        let command = replace_with_braces(command, name);
        if let Some(into) = fixed_destination::fixed(op, &command).filter(|into| {
            find.alone
                && (find.nul || into.moves)
                && fixed_destination::settles(into, &find.confinement, false)
        }) {
            let mut write = fixed_destination::write_op(&into, &op.op, &find.confinement);
            write.note("xargs -I runs the command on each name the find before it printed");
            let taken = into.moves.then(|| {
                let mut delete = OpSpec::new(op.op.clone(), OpKind::FsDelete, Dialect::Posix);
                delete.recursive = true;
                delete.mark_undeterminable(PER_FILE);
                delete.targets.clone_from(&find.starts);
                delete.confined = Some(agent_guard_types::Confinement {
                    whole_matches: true,
                    ..find.confinement.clone()
                });
                delete.note("xargs -I moves each name the find before it printed away");
                delete
            });
            // The delete first: the line's code says that matches leave.
            if let Some(delete) = taken {
                *op = delete;
                return Some(write);
            }
            *op = write;
            return None;
        }
        bound_per_name(op, find);
        return None;
    }
    let program = command
        .first()
        .and_then(Arg::known)
        .map(|name| crate::args::basename(name).to_ascii_lowercase());
    let plain_flags = command.get(1..).unwrap_or_default().iter().all(|a| {
        a.known().is_some_and(|t| {
            let flag = t.strip_prefix("--").or_else(|| t.strip_prefix('-'));
            flag.is_some_and(|f| {
                !f.is_empty() && f.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        })
    });
    // `gunzip -N` names each output from the archive's header, anywhere below.
    let header_names = command.get(1..).unwrap_or_default().iter().any(|a| {
        a.known().is_some_and(|t| {
            t == "--name" || (t.starts_with('-') && !t.starts_with("--") && t.contains('N'))
        })
    });
    let derived =
        op.kind == OpKind::SideEffectDelete && op.per_file_only && plain_flags && !header_names;
    // A program that reads code takes the first name for its script when none is written
    // (`find e | xargs sed -i` runs `e` as a sed script).
    let script_written = command
        .get(1..)
        .unwrap_or_default()
        .iter()
        .any(|a| a.known().is_none_or(|t| !t.starts_with('-')));
    let in_place = op.kind == OpKind::Overwrite
        && op.per_file_only
        && program.as_deref().is_some_and(|p| {
            crate::writes::IN_PLACE.contains(&p)
                && (script_written || !runs::CODE_READERS.contains(&p))
        });
    let bounded = (op.kind == OpKind::FsDelete && op.op == "rm") || in_place || derived;
    if !bounded || !op.targets.is_empty() {
        return None;
    }
    op.targets.clone_from(&find.starts);
    let mut confinement = find.confinement.clone();
    confinement.whole_matches |= op.recursive;
    confinement.derived_names |= derived;
    op.confined = Some(confinement);
    op.note(if find.nul {
        "xargs -0 acts on exactly what the find before it printed"
    } else {
        "xargs acts on what the find before it printed, when no name holds a blank or a quote"
    });
    None
}

/// `xargs -I {} CMD … {} …` (the replace string already read as `{}`): one run per name,
/// bounded as `find -exec CMD … {} \;` is: an `rm` of exactly the name, or a command that
/// stays with it (`mv {} {}.bak`, `sed -i … {}`, `gzip {}`), which may also write a name
/// made from it beside it (then no link may lie below the starting points).
fn bound_per_name(op: &mut OpSpec, find: &PipedFind) {
    let exact_delete = op.kind == OpKind::FsDelete
        && op.op == "rm"
        && op.sources.is_empty()
        && !op.targets.is_empty()
        && op
            .targets
            .iter()
            .all(|t| t.text == "{}" && t.opaque.is_none());
    let derived = if exact_delete {
        false
    } else {
        match runs::stays_with_found(op) {
            Some(derived) => derived,
            None => return,
        }
    };
    op.kind = runs::strongest(None, std::slice::from_ref(op));
    op.targets.clone_from(&find.starts);
    op.sources.clear();
    let mut confinement = find.confinement.clone();
    confinement.whole_matches |= op.kind == OpKind::FsDelete;
    confinement.derived_names |= derived;
    op.confined = Some(confinement);
    op.note("xargs -I runs the command on each name the find before it printed");
}

/// `args` with every occurrence of `name` (xargs' replace string) written `{}`; an argument
/// that already holds a `{}` is made unknown, so it can never pass for the name.
pub(super) fn replace_with_braces(args: &[Arg], name: &str) -> Vec<Arg> {
    args.iter()
        .map(|arg| {
            let mut arg = arg.clone();
            if name != "{}" && arg.text.contains("{}") {
                arg.opaque = Some("a literal {} beside xargs' replace string");
            } else if arg.opaque.is_none() {
                arg.text = arg.text.replace(name, "{}");
            }
            arg
        })
        .collect()
}

/// The confined `find` whose output an `xargs` (the last wrapper of `args`, with no option
/// that changes where its arguments come from or how they are split) reads through a pipe:
/// `-print0` with `xargs -0`, or one name per line with a plain `xargs` (then marked
/// [`Confinement::split_names`](agent_guard_types::Confinement::split_names)).
pub(super) fn xargs_from_find(
    args: &[Arg],
    unwrapped: &wrappers::Unwrapped,
    call: Call<'_>,
    line: &Line<'_>,
) -> Option<PipedFind> {
    const XARGS_OPTIONS: &[&str] = &["-r", "--no-run-if-empty", "-t", "--verbose"];
    // Options that only batch the words (how many per run, how many runs at once).
    const COUNTS: &[&str] = &["-n", "-P", "--max-args", "--max-procs"];
    let find = line.piped_find.as_ref()?;
    // A redirection of xargs' stdin (`< list`, `<<< /etc`, `<&3`) replaces the pipe.
    let stdin_redirected = call.command.redirects.iter().any(|r| {
        use agent_guard_lex::RedirectOp as R;
        matches!(
            r.op,
            R::In | R::ReadWrite | R::DupIn | R::HereDoc | R::HereDocStrip | R::HereString
        )
    });
    if unwrapped.wrappers.last() != Some(&"xargs")
        || call.command.separator != agent_guard_lex::Separator::Pipe
        || find.index + 1 != call.index
        || stdin_redirected
    {
        return None;
    }
    let at = args[..unwrapped.start].iter().rposition(|a| {
        a.known()
            .is_some_and(|t| crate::args::basename(t) == "xargs")
    })?;
    let options: Vec<&str> = args[at + 1..unwrapped.start]
        .iter()
        .map(Arg::known)
        .collect::<Option<_>>()?;
    let number = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let (mut null, mut lines) = (false, false);
    let mut replace: Option<String> = None;
    let mut words = options.iter();
    while let Some(option) = words.next() {
        match *option {
            "-0" | "--null" => null = true,
            o if XARGS_OPTIONS.contains(&o) => {}
            // Bundled flags: `-rt`, `-0r`.
            o if o.len() > 2
                && !o.starts_with("--")
                && o[1..].bytes().all(|b| matches!(b, b'r' | b't' | b'0'))
                && o.starts_with('-') =>
            {
                null |= o.contains('0');
            }
            // One item per line (`-d '\n'`): no fewer splits than the default, never more.
            "-d" | "--delimiter" if words.next() == Some(&r"\n") => lines = true,
            "-I" => replace = Some((*words.next()?).to_owned()),
            "-i" | "--replace" => replace = Some("{}".to_owned()),
            o if o.starts_with("--replace=") => replace = Some(o["--replace=".len()..].to_owned()),
            o if o.len() > 2 && (o.starts_with("-I") || o.starts_with("-i")) => {
                replace = Some(o[2..].to_owned());
            }
            r"-d\n" | r"--delimiter=\n" => lines = true,
            o if COUNTS.contains(&o) => {
                if !words.next().is_some_and(|n| number(n)) {
                    return None;
                }
            }
            o if COUNTS.iter().any(|c| {
                o.strip_prefix(c)
                    .and_then(|n| {
                        if c.starts_with("--") {
                            n.strip_prefix('=')
                        } else {
                            Some(n)
                        }
                    })
                    .is_some_and(number)
            }) => {}
            _ => return None,
        }
    }
    if null != find.nul || (null && lines) {
        return None;
    }
    // The names below the starting points are looked at when the line is judged: no other
    // command of the line may make one first or beside it (`tar xf x.tar; find … | xargs
    // rm`), nor may the pipe run on in the background.
    let source = line.source.trim_end();
    let backgrounded = source.ends_with('&') && !source.ends_with("&&");
    if !null && (line.commands != 2 || backgrounded) {
        return None;
    }
    if replace.as_deref().is_some_and(str::is_empty) {
        return None;
    }
    let mut find = find.clone();
    find.confinement.split_names = !null;
    find.replace = replace;
    find.alone = line.commands == 2 && !backgrounded;
    Some(find)
}

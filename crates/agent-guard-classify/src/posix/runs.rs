//! Programs that run a command for each of many arguments: `find -exec`/`-execdir`/`-ok`,
//! `fd -x`/`-X` and GNU `parallel`.
//!
//! The command they run is classified with the same rules as a command typed on the line
//! (wrappers peeled, `sh -c` scripts read, in both directions): `find . -exec sh -c 'echo
//! {} | grep x' \;` runs nothing destructive and is allowed, `find . -exec sudo rm {} +`
//! deletes. What a per-file command deletes depends on the files found or the arguments
//! read, so a destructive one is undeterminable.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use super::{Call, Line, nested, run};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};
use crate::shapes::Positions;

/// `find …`: starting points, then an expression; `-delete` deletes, `-exec CMD … ;` and
/// `-exec CMD … {} +` (and `-execdir`, `-ok`, `-okdir`) run `CMD` per file.
pub(super) fn find(args: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    let mut notes = Vec::new();
    let mut deletes = false;
    let mut opaque = Vec::new();
    // The kind of what the per-file commands do: a delete unless they only write.
    let mut kind = None;
    // `-fprint FILE`, `-fprint0`, `-fls`, `-fprintf FILE FORMAT`: FILE is truncated and
    // rewritten, like a redirection.
    let mut writes = Vec::new();
    // Every per-file command writes only the file found (`sed -i … {}`): what the line
    // changes lies below the starting points.
    let mut found_only = true;
    // Some per-file command writes a name made from the one found (`mv {} {}.bak`).
    let mut derived = false;
    // Some per-file command copies or moves the found file into a fixed destination.
    let mut copies_into = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some(action @ ("-fprint" | "-fprint0" | "-fls" | "-fprintf")) => {
                writes.extend(fprint(action, args.get(index)));
                index += if action == "-fprintf" { 2 } else { 1 };
            }
            Some("-delete") => {
                found_only = false;
                deletes = true;
                kind = Some(OpKind::FsDelete);
                notes.push("find -delete deletes what the expression matches".to_owned());
            }
            Some(action @ ("-exec" | "-execdir" | "-ok" | "-okdir")) => {
                let end = exec_end(args, index);
                let command = &args[index..end];
                index = (end + 1).min(args.len().max(end));
                let (programs, inner): (Vec<OpSpec>, Vec<OpSpec>) = exec(command, call, line)
                    .into_iter()
                    .partition(|op| op.kind == OpKind::OpaqueProgram);
                // A program it runs per file is checkpointed like one typed on the line; it
                // runs on what is found below the starting points.
                opaque.extend(programs.into_iter().map(|mut program| {
                    if program.targets.is_empty() {
                        program.targets = starting_points(args);
                    }
                    program
                }));
                // `-exec cp {} dest/ \;`: writes confined by `dest` alone.
                let batch = args.get(end).and_then(Arg::known) == Some("+");
                let alone = line.commands == 1;
                let split =
                    super::fixed_destination::split(inner, (action, batch, alone), command, args);
                copies_into |= !split.writes.is_empty();
                writes.extend(split.writes);
                if !split.moves.is_empty() {
                    // The match itself leaves, whole: judged like `-exec rm -r {}`.
                    deletes = true;
                    kind = Some(strongest(kind, &split.moves));
                    notes.push(format!("find {action} moves each file it finds away"));
                }
                let inner = split.rest;
                if !inner.is_empty() {
                    found_only &= inner.iter().all(|op| {
                        stays_with_found(op).is_some() && names_only_paths(command, "{}", op)
                    });
                    derived |= inner.iter().any(|op| stays_with_found(op) == Some(true));
                    deletes = true;
                    kind = Some(strongest(kind, &inner));
                    let what = if inner.iter().all(|op| op.kind == OpKind::Metadata) {
                        "a command that changes metadata"
                    } else {
                        "a destructive command"
                    };
                    notes.push(format!("find {action} runs {what} per file"));
                    notes.extend(inner.into_iter().flat_map(|op| op.notes));
                }
            }
            _ => {}
        }
    }
    if !deletes {
        line.piped_find = if opaque.is_empty() && !copies_into {
            printed(args, call.index)
        } else {
            None
        };
        opaque.extend(writes);
        return opaque;
    }
    let mut op = OpSpec::new("find", kind.unwrap_or(OpKind::FsDelete), Dialect::Posix);
    op.recursive = true;
    op.targets = starting_points(args);
    op.mark_undeterminable("find selects the files it acts on at run time");
    for note in notes {
        op.note(note);
    }
    op.confined = if found_only {
        // A move of a matched directory takes everything below it.
        crate::find::confinement_of(args, crate::find::Execs::WritesFound).map(|mut c| {
            c.whole_matches |= op.kind == OpKind::FsDelete;
            c.derived_names = derived;
            c
        })
    } else if op.kind == OpKind::FsDelete {
        crate::find::confinement(args)
    } else {
        None
    };
    opaque.insert(0, op);
    opaque.extend(writes);
    opaque
}

/// `-fprint FILE`, `-fprint0`, `-fls`, `-fprintf FILE FORMAT`: FILE (`out`) is truncated
/// and rewritten, like a redirection; `None` for a sink (`/dev/null`).
fn fprint(action: &str, out: Option<&Arg>) -> Option<OpSpec> {
    let mut op = crate::writes::overwrite("find", agent_guard_types::WriteMode::InPlace);
    match out {
        // Writing there loses nothing.
        Some(out) if crate::writes::redirect::is_sink(&out.text) => return None,
        Some(out) => op.targets.push(crate::writes::file(out, true)),
        None => op.mark_undeterminable(format!("find {action} needs a file")),
    }
    Some(op)
}

/// A find that only prints, from literal starting points in a confined expression: an
/// `xargs -0 rm` after it deletes exactly what it matched when the names are NUL-separated;
/// a plain `xargs rm` when they are one per line and none holds a blank or a quote
/// (`split_names`: the starting points are checked here, the names below them by the world).
fn printed(args: &[Arg], index: usize) -> Option<super::PipedFind> {
    let prints_nul = args.iter().any(|a| a.known() == Some("-print0"));
    let prints_lines = !prints_nul
        && !args.iter().any(|a| a.known() == Some("-ls"))
        && starting_points(args).iter().all(|t| !splits(&t.text));
    if !(prints_nul || prints_lines) {
        return None;
    }
    Some(super::PipedFind {
        index,
        starts: starting_points(args),
        confinement: crate::find::confinement(args)?,
        nul: prints_nul,
        replace: None,
        alone: false,
    })
}

/// Whether every word of `command` (a program and its arguments, as `find -exec` or `xargs
/// -I` runs it per name) that holds `name` (the replace string) is one of `op`'s paths,
/// as many times as it is written, and the program is not named by it: else a found name
/// would be read as a script or code (`sed -i -e {} {}`, `perl -pi -e {} {}`, `sh -c 'rm
/// {}'`), which a crafted file name turns into anything.
pub(super) fn names_only_paths(command: &[Arg], name: &str, op: &OpSpec) -> bool {
    let holding = |text: &str| text.contains(name);
    if command.first().is_some_and(|a| holding(&a.text)) {
        return false;
    }
    // Only a program that reads code from its arguments can take a name for code; the
    // others (`cp {} {}.bk`, `gzip {}`) read it as a path, whether or not it is one of the
    // paths the op writes.
    let program = command
        .first()
        .and_then(Arg::known)
        .map(|p| crate::args::basename(p).to_ascii_lowercase());
    let takes_code = program
        .as_deref()
        .is_some_and(|p| CODE_READERS.contains(&p) || crate::inline_code::interpreter(p).is_some());
    if !takes_code {
        return true;
    }
    let paths: Vec<&str> = op
        .targets
        .iter()
        .chain(&op.sources)
        .map(|t| t.text.as_str())
        .collect();
    let words: Vec<String> = command
        .iter()
        .filter(|a| holding(&a.text))
        .map(|a| a.text.replace(name, "{}"))
        .collect();
    words.iter().all(|word| {
        let written = words.iter().filter(|w| *w == word).count();
        written <= paths.iter().filter(|p| **p == word.as_str()).count()
    })
}

/// Programs that read a script or code from their arguments (besides the interpreters
/// `inline_code` knows).
pub(super) const CODE_READERS: &[&str] = &[
    "sed", "gsed", "awk", "gawk", "mawk", "nawk", "perl", "ruby", "yq", "jq", "ed", "red", "ex",
    "vi", "vim", "nvim", "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "env", "xargs",
    "find",
];

/// Whether `xargs` without `-0` would split or unquote `text` (a blank, a newline, a quote, a
/// backslash).
pub(super) fn splits(text: &str) -> bool {
    text.bytes().any(agent_guard_types::xargs_splits)
}

/// Whether a per-file command's op stays with the file `find` passes it: `Some(false)` when
/// every path it names is that file, written in place (`sed -i … {}`, `chmod +x {}`);
/// `Some(true)` when it also names, moves or consumes into a name made from it in the same
/// directory (`mv {} {}.bak`, `cp {} {}.orig`, `gzip {}`, `tar czf {}.tgz {} --remove-files`);
/// `None` for anything else (another path, a delete, a name that leaves with `..`).
pub(super) fn stays_with_found(op: &OpSpec) -> Option<bool> {
    let kinds = matches!(
        op.kind,
        OpKind::Overwrite | OpKind::Metadata | OpKind::Move | OpKind::SideEffectDelete
    );
    if !kinds || !op.per_file_only || op.targets.is_empty() {
        return None;
    }
    let mut derived = op.kind == OpKind::SideEffectDelete || op.kind == OpKind::Move;
    for t in op.targets.iter().chain(&op.sources) {
        // Below the found path: `{}.bak`, `{}.bk/{}` (into it when it is a directory).
        let beside = t.text.starts_with("{}")
            && !t.text.split('/').any(|part| part == "..")
            && t.opaque.is_none()
            && !t.glob
            && !t.tilde;
        if !beside {
            return None;
        }
        derived |= t.text != "{}";
    }
    Some(derived)
}

/// A `find`'s starting points: the operands before the first expression token; none is
/// `.` (GNU find's default).
pub(super) fn starting_points(args: &[Arg]) -> Vec<agent_guard_types::Target> {
    let starts: Vec<agent_guard_types::Target> = args
        .iter()
        .take_while(|arg| {
            !arg.known()
                .is_some_and(|t| t.starts_with('-') || t == "(" || t == "!")
        })
        .map(Arg::target)
        .collect();
    if starts.is_empty() {
        vec![agent_guard_types::Target::literal(".")]
    } else {
        starts
    }
}

/// The kind of op a per-file command makes of the found files: a delete when any inner op
/// deletes (or is unknown), otherwise the write kind of the inner ops; a metadata change
/// (`-exec chmod +x {} +`) when that is all they do.
pub(super) fn strongest(so_far: Option<OpKind>, inner: &[OpSpec]) -> OpKind {
    let all: Vec<OpKind> = so_far
        .into_iter()
        .chain(inner.iter().map(|op| op.kind))
        .collect();
    let kinds: Vec<OpKind> = all
        .iter()
        .copied()
        .filter(|k| *k != OpKind::Metadata)
        .collect();
    let writes = |k: &OpKind| matches!(k, OpKind::Overwrite | OpKind::SideEffectDelete);
    if kinds.is_empty() && !all.is_empty() {
        OpKind::Metadata
    } else if !kinds.iter().all(writes) {
        OpKind::FsDelete
    } else if kinds.contains(&OpKind::SideEffectDelete) {
        OpKind::SideEffectDelete
    } else {
        OpKind::Overwrite
    }
}

/// The index of the word that ends an `-exec` command started at `from`: a `;`, or a `+`
/// right after `{}`. Without one (find refuses the line) the command runs to the end.
fn exec_end(args: &[Arg], from: usize) -> usize {
    let mut at = from;
    while let Some(arg) = args.get(at) {
        match arg.known() {
            Some(";") => return at,
            Some("+") if at > from && args[at - 1].known() == Some("{}") => return at,
            _ => at += 1,
        }
    }
    args.len()
}

/// The ops of a command `find` runs per file. A command name made from the file (`{}`) is
/// unknown.
fn exec(argv: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    if argv
        .first()
        .and_then(Arg::known)
        .is_some_and(|t| t.contains("{}"))
    {
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            "find runs the files it finds as programs",
        )];
    }
    let inner = Call {
        from_stdin: true,
        own: false,
        wrapped: true,
        ..call
    };
    let mut scratch = Positions::default();
    run(argv, inner, line, &mut scratch)
}

/// `fd [options] [PATTERN] [PATH…] -x|--exec CMD… [;]` and `-X|--exec-batch CMD…`: fd
/// runs CMD for each match (or once with all of them), the path filled into `{}` or
/// appended. The matches are only known when it runs.
pub(super) fn fd(args: &[Arg], call: Call<'_>, line: &mut Line<'_>) -> Vec<OpSpec> {
    let Some(at) = args
        .iter()
        .position(|a| matches!(a.known(), Some("-x" | "--exec" | "-X" | "--exec-batch")))
    else {
        return Vec::new();
    };
    let rest = &args[at + 1..];
    let end = rest
        .iter()
        .position(|a| a.known() == Some(";"))
        .unwrap_or(rest.len());
    let inner = exec(&rest[..end], call, line);
    if inner.is_empty() {
        return Vec::new();
    }
    let mut op = OpSpec::new("fd", strongest(None, &inner), Dialect::Posix);
    op.recursive = true;
    op.mark_undeterminable("fd runs a destructive command for each file it finds");
    for note in inner.into_iter().flat_map(|op| op.notes) {
        op.note(note);
    }
    vec![op]
}

/// GNU parallel's options (its manual, 2024). Canonical names: `none` runs nothing,
/// `remote` runs jobs on other hosts, `sep` changes the argument separators, `quote` runs
/// the command without a shell, `files` reads arguments from files.
const PARALLEL: &[Opt] = &[
    Opt::flag("null", Some('0'), Some("null")),
    Opt::flag("k", Some('k'), Some("keep-order")),
    Opt::flag("quote", Some('q'), Some("quote")),
    Opt::flag("X", Some('X'), Some("xargs")),
    Opt::flag("m", Some('m'), None),
    Opt::flag("u", Some('u'), Some("ungroup")),
    Opt::flag("g", None, Some("group")),
    Opt::flag("lb", None, Some("line-buffer")),
    Opt::flag("lb", None, Some("lb")),
    Opt::flag("v", Some('v'), Some("verbose")),
    Opt::flag("t", Some('t'), None),
    Opt::flag("dry", None, Some("dry-run")),
    Opt::flag("dry", None, Some("dryrun")),
    Opt::flag("eta", None, Some("eta")),
    Opt::flag("bar", None, Some("bar")),
    Opt::flag("progress", None, Some("progress")),
    Opt::flag("tag", None, Some("tag")),
    Opt::flag("cite", None, Some("will-cite")),
    Opt::flag("cite", None, Some("no-notice")),
    Opt::flag("shuf", None, Some("shuf")),
    Opt::flag("r", Some('r'), Some("no-run-if-empty")),
    Opt::flag("plus", None, Some("plus")),
    Opt::flag("pipe", None, Some("pipe")),
    Opt::flag("pipe", None, Some("spreadstdin")),
    Opt::flag("rr", None, Some("round-robin")),
    Opt::flag("link", None, Some("link")),
    Opt::flag("link", None, Some("xapply")),
    Opt::flag("p", Some('p'), Some("interactive")),
    Opt::flag("fg", None, Some("fg")),
    Opt::flag("bg", None, Some("bg")),
    Opt::flag("files", None, Some("files")),
    Opt::flag("silent", None, Some("silent")),
    Opt::flag("halt", None, Some("halt-on-error")),
    Opt::value("j", Some('j'), Some("jobs")),
    Opt::value("j", Some('P'), Some("max-procs")),
    Opt::value("n", Some('n'), Some("max-args")),
    Opt::value("n", Some('N'), Some("max-replace-args")),
    Opt::value("L", Some('L'), Some("max-lines")),
    Opt::optional("l", Some('l'), None),
    Opt::value("files", Some('a'), Some("arg-file")),
    Opt::value("sep", Some('I'), None),
    Opt::optional("sep", Some('i'), Some("replace")),
    Opt::value("colsep", Some('C'), Some("colsep")),
    Opt::value("d", Some('d'), Some("delimiter")),
    Opt::value("E", Some('E'), None),
    Opt::value("s", Some('s'), Some("max-chars")),
    Opt::value("remote", Some('S'), Some("sshlogin")),
    Opt::value("remote", None, Some("sshloginfile")),
    Opt::value("remote", None, Some("slf")),
    Opt::flag("remote", None, Some("nonall")),
    Opt::flag("remote", None, Some("onall")),
    Opt::value("o", None, Some("results")),
    Opt::value("o", None, Some("res")),
    Opt::value("o", None, Some("joblog")),
    Opt::value("o", None, Some("timeout")),
    Opt::value("o", None, Some("delay")),
    Opt::value("o", None, Some("retries")),
    Opt::value("o", None, Some("halt")),
    Opt::value("o", None, Some("tmpdir")),
    Opt::value("chdir", None, Some("workdir")),
    Opt::value("chdir", None, Some("wd")),
    Opt::value("o", None, Some("env")),
    Opt::value("o", None, Some("block")),
    Opt::value("o", None, Some("block-size")),
    Opt::value("o", None, Some("memfree")),
    Opt::value("o", None, Some("load")),
    Opt::value("o", None, Some("nice")),
    Opt::value("o", None, Some("tagstring")),
    Opt::value("o", None, Some("header")),
    Opt::value("o", None, Some("termseq")),
    Opt::value("sep", None, Some("arg-sep")),
    Opt::value("sep", None, Some("arg-file-sep")),
    Opt::value("sep", None, Some("rpl")),
    Opt::flag("none", None, Some("version")),
    Opt::flag("none", None, Some("help")),
    Opt::flag("none", Some('h'), None),
    Opt::flag("none", None, Some("number-of-cpus")),
    Opt::flag("none", None, Some("number-of-cores")),
    Opt::flag("none", None, Some("citation")),
];

/// The most jobs built from `:::` arguments before they are judged as unknown.
const MAX_JOBS: usize = 64;

/// Why a parallel command is unknown.
fn unknown(why: &str) -> Vec<OpSpec> {
    vec![OpSpec::unknown("parallel", Dialect::Posix, why)]
}

/// `parallel [options] [COMMAND…] (::: ARGS… | :::: FILES…)…`: runs COMMAND once per
/// argument (or per combination, one from each `:::` group), through the shell, with
/// `{}`-style replacement strings filled in or the argument appended. Without `:::` the
/// arguments are read from stdin.
pub(super) fn parallel(rest: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    let (items, consumed) = getopt::parse(rest, PARALLEL, Order::StopAtOperand);
    let mut quote = false;
    let mut elsewhere = false;
    let mut from_files = false;
    for item in &items {
        match item {
            Item::Opt { name: "none", .. } | Item::MissingValue(_) => return Vec::new(),
            Item::Opt { name: "remote", .. } => {
                return unknown("parallel runs jobs on other hosts");
            }
            Item::Opt { name: "sep", .. } => {
                return unknown("parallel's replacement strings or separators are changed");
            }
            Item::Opt { name: "quote", .. } => quote = true,
            Item::Opt { name: "files", .. } => from_files = true,
            Item::Opt { name: "chdir", .. } => elsewhere = true,
            Item::Unknown(o) | Item::Ambiguous(o) => {
                return unknown(&format!("parallel option {o} has unknown arity"));
            }
            _ => {}
        }
    }
    let words = &rest[consumed..];
    let separator = |a: &Arg| matches!(a.known(), Some(":::" | ":::+" | "::::" | "::::+"));
    let command_end = words.iter().position(separator).unwrap_or(words.len());
    let Some(template) = words[..command_end]
        .iter()
        .map(|a| a.known().filter(|_| !a.glob || a.quoted))
        .collect::<Option<Vec<&str>>>()
    else {
        return unknown("the parallel command is not literal");
    };
    let mut groups: Vec<Option<Vec<&str>>> = Vec::new();
    for word in &words[command_end..] {
        match word.known() {
            Some(":::" | ":::+") => groups.push(Some(Vec::new())),
            Some("::::" | "::::+") => {
                from_files = true;
                groups.push(None);
            }
            _ => {
                if let Some(slot) = groups.last_mut() {
                    let text = word.known().filter(|_| !word.glob || word.quoted);
                    match (slot.as_mut(), text) {
                        (Some(group), Some(text)) => group.push(text),
                        _ => *slot = None,
                    }
                }
            }
        }
    }
    let literal: Option<Vec<Vec<&str>>> = groups.into_iter().collect();
    let jobs = match literal {
        Some(groups) if !groups.is_empty() && !from_files => combinations(&groups),
        // Arguments from stdin, from files or not literal: one job with an unknown argument.
        _ => None,
    };
    let mut ops = Vec::new();
    if let Some(jobs) = jobs {
        for job in jobs {
            ops.extend(nested(
                &job_script(&template, &job, quote),
                line,
                "parallel job",
            ));
        }
    } else {
        let unknown_argument = ["$PARALLEL_ARGUMENT"];
        let script = job_script(&template, &unknown_argument, quote);
        for mut op in nested(&script, line, "parallel job") {
            op.mark_undeterminable("parallel reads its arguments when it runs");
            ops.push(op);
        }
    }
    if elsewhere {
        for op in &mut ops {
            op.mark_undeterminable("parallel --workdir runs the jobs in another directory");
        }
    }
    ops
}

/// Every combination of one argument from each group, in parallel's order; `None` past
/// [`MAX_JOBS`].
fn combinations<'a>(groups: &[Vec<&'a str>]) -> Option<Vec<Vec<&'a str>>> {
    let mut jobs: Vec<Vec<&str>> = vec![Vec::new()];
    for group in groups {
        let mut next = Vec::new();
        for job in &jobs {
            for arg in group {
                if next.len() >= MAX_JOBS {
                    return None;
                }
                let mut job = job.clone();
                job.push(*arg);
                next.push(job);
            }
        }
        jobs = next;
    }
    Some(jobs)
}

/// Returns `true` for a replacement string: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`,
/// `{%}`, `{n}`, `{n.}`, … or a perl expression `{= … =}`.
fn replacement_at(text: &str, at: usize) -> Option<(usize, usize)> {
    let rest = text.get(at..)?;
    if !rest.starts_with('{') {
        return None;
    }
    let close = rest.find('}')?;
    let inner = &rest[1..close];
    let position: String = inner.chars().take_while(char::is_ascii_digit).collect();
    let modifier = &inner[position.len()..];
    let known = matches!(modifier, "" | "." | "/" | "//" | "/." | "#" | "%")
        || (inner.starts_with('=') && inner.ends_with('='));
    if !known {
        return None;
    }
    let index = position
        .parse::<usize>()
        .ok()
        .map_or(0, |n| n.saturating_sub(1));
    Some((close + 1, index))
}

/// The shell command parallel runs for one job: the template joined with spaces (each word
/// quoted with `-q`), replacement strings filled with the quoted argument, or the arguments
/// appended when the template has none. An empty template runs the arguments themselves.
fn job_script(template: &[&str], job: &[&str], quote: bool) -> String {
    if template.is_empty() {
        return job.join(" ");
    }
    let mut used = false;
    let mut words = Vec::new();
    for word in template {
        let mut out = String::new();
        let mut at = 0;
        while at < word.len() {
            if let Some((len, index)) = replacement_at(word, at) {
                let value = if word[at..at + len].starts_with("{=") {
                    "$PARALLEL_PERL_EXPRESSION"
                } else {
                    job.get(index).copied().unwrap_or("")
                };
                if quote {
                    out.push_str(value);
                } else {
                    out.push_str(&sh_quote(value));
                }
                used = true;
                at += len;
            } else {
                let c = word[at..].chars().next().unwrap_or(' ');
                out.push(c);
                at += c.len_utf8();
            }
        }
        words.push(if quote { sh_quote(&out) } else { out });
    }
    if !used {
        words.extend(job.iter().map(|a| sh_quote(a)));
    }
    words.join(" ")
}

/// Quotes a value for sh, as parallel does; the unknown-argument placeholder stays a
/// variable so that it reads as opaque.
fn sh_quote(value: &str) -> String {
    if value.starts_with("$PARALLEL_") {
        return format!("\"{value}\"");
    }
    format!("'{}'", value.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_fill_replacement_strings_or_append() {
        assert_eq!(job_script(&["rm", "-rf"], &["a b"], false), "rm -rf 'a b'");
        assert_eq!(job_script(&["rm", "{}.o"], &["x"], false), "rm 'x'.o");
        assert_eq!(
            job_script(&["mv", "{1}", "{2}"], &["a", "b"], false),
            "mv 'a' 'b'"
        );
        assert_eq!(job_script(&[], &["rm -rf x"], false), "rm -rf x");
        assert_eq!(job_script(&["rm {}"], &["x"], true), "'rm x'");
    }

    #[test]
    fn combinations_multiply_and_stop() {
        let groups = vec![vec!["a", "b"], vec!["1", "2"]];
        assert_eq!(combinations(&groups).unwrap().len(), 4);
        let big: Vec<&str> = vec!["x"; 65];
        assert!(combinations(&[big]).is_none());
    }
}

//! `rsync [OPTION]… SRC… DEST`: what it writes over, what it consumes, what it deletes.
//!
//! - An existing destination file is read as the basis of the delta, then a temporary file
//!   is renamed over it (replaced after reading; a symlink there is replaced itself);
//!   `--inplace` rewrites it in place; `--append` only adds to it; `--ignore-existing`
//!   skips it; `-b` renames it to its backup name (`~`, or `--suffix`). The destination
//!   rules are `cp`'s: several sources or a trailing `/` mean a directory.
//! - Without `-r`/`-a`/`-d`, directories are skipped, so the sources are files. With them,
//!   rsync merges trees: undeterminable.
//! - `--remove-source-files` consumes the (local) sources.
//! - `--delete*` deletes destination files missing from the source: an undeterminable
//!   recursive delete (another compensation will enumerate it).
//! - A remote destination (`host:path`, `rsync://…`) is outside the guard's reach: rsync
//!   writes nothing local there.

use agent_guard_types::{Confinement, Dialect, OpKind, OpSpec, Target, WriteMode};

use super::{Placement, RECURSIVE, consume, file, overwrite};
use crate::args::Arg;

/// rsync's long options that take the next word as their value (when none is attached).
const VALUED_LONG: &[&str] = &[
    "backup-dir",
    "suffix",
    "chmod",
    "chown",
    "usermap",
    "groupmap",
    "timeout",
    "contimeout",
    "block-size",
    "rsh",
    "rsync-path",
    "max-delete",
    "max-size",
    "min-size",
    "max-alloc",
    "partial-dir",
    "temp-dir",
    "compare-dest",
    "copy-dest",
    "link-dest",
    "exclude",
    "include",
    "exclude-from",
    "include-from",
    "files-from",
    "filter",
    "address",
    "port",
    "sockopts",
    "out-format",
    "log-file",
    "log-file-format",
    "password-file",
    "bwlimit",
    "write-batch",
    "only-write-batch",
    "read-batch",
    "protocol",
    "iconv",
    "checksum-choice",
    "cc",
    "compress-choice",
    "zc",
    "compress-level",
    "zl",
    "skip-compress",
    "modify-window",
    "info",
    "debug",
    "stop-after",
    "stop-at",
    "early-input",
    "outbuf",
    "copy-as",
    "remote-option",
    "checksum-seed",
    "config",
    "dparam",
];

/// rsync's short options that take a value.
const VALUED_SHORT: &str = "eBTfM@";

/// Returns `true` for a remote path: `host:path`, `user@host:path`, `host::module`,
/// `rsync://…` (a `:` before any `/`).
fn remote(text: &str) -> bool {
    text.starts_with("rsync://")
        || text
            .find(':')
            .is_some_and(|colon| !text[..colon].contains('/') && colon > 0)
}

/// What rsync's options say.
#[derive(Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts read from the options, not a state machine"
)]
struct Options {
    recursive: bool,
    relative: bool,
    removes_sources: bool,
    deletes: Option<String>,
    dry_run: bool,
    in_place: bool,
    appends: bool,
    ignore_existing: bool,
    backup: bool,
    backup_dir: bool,
    suffix: Option<String>,
    files_from: bool,
}

fn long_option(options: &mut Options, name: &str, value: Option<&str>) {
    match name {
        "recursive" | "archive" | "dirs" => options.recursive = true,
        "no-recursive" | "no-r" => options.recursive = false,
        "relative" => options.relative = true,
        "remove-source-files" | "remove-sent-files" => options.removes_sources = true,
        "dry-run" | "list-only" | "help" | "version" => options.dry_run = true,
        "inplace" => options.in_place = true,
        "append" | "append-verify" => options.appends = true,
        "ignore-existing" => options.ignore_existing = true,
        "backup" => options.backup = true,
        "backup-dir" => options.backup_dir = true,
        "suffix" => options.suffix = value.map(str::to_owned),
        "files-from" => options.files_from = true,
        _ if name == "del" || name.starts_with("delete") => {
            options.deletes = Some(format!("--{name}"));
        }
        _ => {}
    }
}

/// Reads rsync's options and operands: the options, the operands (sources, then the
/// destination), and whether an option is not literal.
fn command_line(args: &[Arg]) -> (Options, Vec<&Arg>, bool) {
    let mut options = Options::default();
    let mut operands: Vec<&Arg> = Vec::new();
    let mut opaque_option = false;
    let mut index = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg.known() else {
            opaque_option |= arg.text.starts_with('-');
            operands.push(arg);
            continue;
        };
        if options_done || !text.starts_with('-') || text == "-" {
            operands.push(arg);
            continue;
        }
        if text == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None if VALUED_LONG.contains(&long) => {
                    index += 1;
                    (
                        long,
                        args.get(index - 1).and_then(Arg::known).map(str::to_owned),
                    )
                }
                None => (long, None),
            };
            long_option(&mut options, name, value.as_deref());
            continue;
        }
        for (at, letter) in text[1..].char_indices() {
            match letter {
                'r' | 'a' | 'd' => options.recursive = true,
                'R' => options.relative = true,
                'n' => options.dry_run = true,
                'b' => options.backup = true,
                'h' if text == "-h" => options.dry_run = true,
                _ if VALUED_SHORT.contains(letter) => {
                    if at + 2 == text.len() {
                        index += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    (options, operands, opaque_option)
}

/// The ops of an rsync invocation.
pub(super) fn parse(args: &[Arg]) -> Vec<OpSpec> {
    let (options, mut operands, opaque_option) = command_line(args);
    if options.dry_run || operands.len() < 2 {
        return Vec::new();
    }
    let mut ops = Vec::new();
    let dest = operands.pop().map(|a| file(a, false));
    // The destination, when it confines everything the command writes or deletes: a literal
    // local path, no option the guard cannot read, no names from a file.
    let confinable = dest
        .clone()
        .filter(|d| d.opaque.is_none() && !remote(&d.text) && !d.glob && !d.tilde)
        .filter(|_| !opaque_option && !options.files_from);
    let local_sources: Vec<&Arg> = operands
        .iter()
        .copied()
        .filter(|a| a.known().is_none_or(|t| !remote(t)))
        .collect();
    let uncertain = |op: &mut OpSpec| {
        if options.recursive {
            op.recursive = true;
            op.mark_undeterminable(format!("rsync {RECURSIVE}"));
        }
        if options.files_from {
            op.mark_undeterminable("rsync --files-from reads the names from a file");
        }
        if opaque_option {
            op.mark_undeterminable("an rsync option is not literal");
        }
    };
    if let Some(dest) = dest.filter(|d| d.opaque.is_some() || !remote(&d.text))
        && !(options.ignore_existing || options.appends)
    {
        let mut op = destination_overwrite(&options, &operands, dest);
        uncertain(&mut op);
        // A recursive copy writes only below its destination: a checkpoint can keep what
        // it overwrites there, when the destination is a literal local path.
        if let Some(dest) = confinable.clone().filter(|_| options.recursive) {
            op.targets = vec![dest];
            op.confined = Some(Confinement::default());
        }
        ops.push(op);
    }
    if options.removes_sources {
        let mut op = consume("rsync");
        op.targets = local_sources.iter().map(|a| file(a, false)).collect();
        op.note("rsync --remove-source-files deletes the sources it transferred");
        uncertain(&mut op);
        ops.push(op);
    }
    if let Some(flag) = options.deletes {
        let mut op = OpSpec::new("rsync", OpKind::FsDelete, Dialect::Posix);
        op.recursive = true;
        op.targets = args
            .iter()
            .filter(|a| !a.is_option())
            .map(Arg::target)
            .collect::<Vec<Target>>();
        op.mark_undeterminable(format!(
            "rsync {flag} decides what it deletes while it runs"
        ));
        // What it deletes is below the destination: confined there, a checkpoint keeps it.
        if let Some(dest) = confinable.clone() {
            op.targets = vec![dest];
            op.confined = Some(Confinement::default());
        }
        // First: a line that deletes is named by its delete (`SNAPSHOT_CHECKPOINT_DELETE`).
        ops.insert(0, op);
    }
    ops
}

/// The op for the files rsync writes over at `dest` (or, with `-b`, the backups it
/// replaces), before the uncertainty and confinement of the whole command are applied.
fn destination_overwrite(options: &Options, sources: &[&Arg], dest: Target) -> OpSpec {
    let mode = if options.in_place {
        WriteMode::InPlace
    } else {
        WriteMode::ReplaceAfterRead
    };
    let mut op = overwrite("rsync", mode);
    let mut placement = Placement {
        sources: sources.iter().map(|a| a.target()).collect(),
        dest: Some(dest),
        ..Placement::default()
    };
    placement.parents = options.relative;
    op.targets = placement.targets();
    if options.backup_dir {
        op.mark_undeterminable("rsync --backup-dir may replace older backups there");
    } else if options.backup {
        let suffix = options.suffix.as_deref().unwrap_or("~");
        for target in &mut op.targets {
            target.text.push_str(suffix);
        }
        op.write = WriteMode::Replace;
        op.note(format!(
            "rsync -b keeps the old file as its `{suffix}` backup"
        ));
    }
    op
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn summary(line: &str) -> Vec<(OpKind, Vec<String>, bool)> {
        parse(&args(line))
            .into_iter()
            .map(|o| {
                (
                    o.kind,
                    o.targets.into_iter().map(|t| t.text).collect(),
                    o.undeterminable,
                )
            })
            .collect()
    }

    #[test]
    fn files_onto_files_and_directories() {
        assert_eq!(
            summary("notes.txt backup.txt"),
            [(
                OpKind::Overwrite,
                vec!["backup.txt".into(), "backup.txt/notes.txt".into()],
                false
            )]
        );
        assert_eq!(
            summary("-v a b dir/"),
            [(
                OpKind::Overwrite,
                vec!["dir/a".into(), "dir/b".into()],
                false
            )]
        );
        let ops = parse(&args("--inplace a b"));
        assert_eq!(ops[0].write, WriteMode::InPlace);
        assert_eq!(parse(&args("a b"))[0].write, WriteMode::ReplaceAfterRead);
        assert!(summary("--ignore-existing a b").is_empty());
        assert!(summary("-n a b").is_empty());
        assert!(summary("a").is_empty());
        assert!(
            summary("-e ssh a host:dir/").is_empty(),
            "remote destination"
        );
        assert_eq!(summary("-b a b")[0].1, ["b~", "b/a~"]);
    }

    #[test]
    fn recursion_consumption_and_deletion() {
        assert!(summary("-a src/ dst/")[0].2);
        assert!(summary("-avz --exclude .git src/ dst/")[0].2);
        assert_eq!(
            summary("--remove-source-files a.txt dir/"),
            [
                (OpKind::Overwrite, vec!["dir/a.txt".into()], false),
                (OpKind::SideEffectDelete, vec!["a.txt".into()], false)
            ]
        );
        // The delete comes first: it names the line.
        let ops = summary("-a --delete src/ dst/");
        assert_eq!(ops.len(), 2);
        assert_eq!(ops[0].0, OpKind::FsDelete);
        assert!(ops[0].2);
        let ops = summary("-a --remove-source-files host:src/ dst/");
        assert!(ops.iter().all(|o| o.2));
        assert!(ops[1].1.is_empty());
    }
}

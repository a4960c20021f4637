//! `cp`, `mv`, `install` and `ln` (GNU coreutils): what they write over.
//!
//! The destination rules are [`Placement`]'s. How an existing destination is treated:
//!
//! - `cp` opens it and truncates it (`O_TRUNC`), writing through a symlink: in place. With
//!   `--remove-destination`, `-l` or `-s` it is unlinked first and replaced (GNU `cp -f`
//!   only unlinks when opening fails: still in place).
//! - `mv` renames over it, `install` unlinks it first, `ln -f` replaces the link name: the
//!   path is replaced unread, a symlink there is replaced itself.
//! - The source of `mv` is moved, not destroyed; moving data out onto a new path loses
//!   nothing.
//!
//! Safe forms write nothing over an existing file: `-n`/`--no-clobber`, `--update=none`,
//! `mv --exchange` (both kept), `ln` without `-f`/`-i`/`-b` (it refuses), `install -d`,
//! `cp --attributes-only`. With `-b`/`--backup` the old file is renamed to its backup name
//! (`file~`, or the `-S` suffix), so what is lost is an older backup of that name: the op
//! names the backup paths (replaced); numbered backups lose nothing. `-i` asks, and an agent
//! answering a prompt is still overwriting. A recursive copy merges into existing
//! directories: undeterminable ([`super::RECURSIVE`]).

use agent_guard_types::{Dialect, OpKind, OpSpec, Target, WriteMode};

use super::{Placement, RECURSIVE, getopt_problem, overwrite, value_arg};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

/// The options `cp`, `mv`, `install` and `ln` share: backups, where the destination is,
/// verbosity and help.
const PLACING: &[Opt] = &[
    Opt::optional("backup", None, Some("backup")),
    Opt::flag("backup", Some('b'), None),
    Opt::value("suffix", Some('S'), Some("suffix")),
    Opt::value("target-directory", Some('t'), Some("target-directory")),
    Opt::flag(
        "no-target-directory",
        Some('T'),
        Some("no-target-directory"),
    ),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

const CP_OWN: &[Opt] = &[
    Opt::flag("recursive", Some('a'), Some("archive")),
    Opt::flag("attributes-only", None, Some("attributes-only")),
    Opt::flag("neutral", None, Some("copy-contents")),
    Opt::flag("neutral", Some('d'), None),
    Opt::flag("neutral", None, Some("debug")),
    Opt::flag("neutral", Some('f'), Some("force")),
    Opt::flag("interactive", Some('i'), Some("interactive")),
    Opt::flag("neutral", Some('H'), None),
    Opt::flag("link", Some('l'), Some("link")),
    Opt::flag("neutral", Some('L'), Some("dereference")),
    Opt::flag("no-clobber", Some('n'), Some("no-clobber")),
    Opt::flag("neutral", Some('P'), Some("no-dereference")),
    Opt::flag("neutral", Some('p'), None),
    Opt::optional("neutral", None, Some("preserve")),
    Opt::value("neutral", None, Some("no-preserve")),
    Opt::flag("parents", None, Some("parents")),
    Opt::flag("recursive", Some('R'), Some("recursive")),
    Opt::flag("recursive", Some('r'), None),
    Opt::optional("neutral", None, Some("reflink")),
    Opt::flag("remove-destination", None, Some("remove-destination")),
    Opt::value("neutral", None, Some("sparse")),
    Opt::flag("neutral", None, Some("strip-trailing-slashes")),
    Opt::flag("link", Some('s'), Some("symbolic-link")),
    Opt::flag("neutral", Some('u'), None),
    Opt::optional("update", None, Some("update")),
    Opt::flag("neutral", None, Some("keep-directory-symlink")),
    Opt::flag("neutral", Some('x'), Some("one-file-system")),
    Opt::flag("neutral", Some('Z'), None),
    Opt::optional("neutral", None, Some("context")),
];
const CP: [Opt; 37] = getopt::join(PLACING, CP_OWN);

const MV_OWN: &[Opt] = &[
    Opt::flag("neutral", None, Some("debug")),
    Opt::flag("exchange", None, Some("exchange")),
    Opt::flag("neutral", Some('f'), Some("force")),
    Opt::flag("interactive", Some('i'), Some("interactive")),
    Opt::flag("no-clobber", Some('n'), Some("no-clobber")),
    Opt::flag("neutral", None, Some("no-copy")),
    Opt::flag("neutral", None, Some("strip-trailing-slashes")),
    Opt::flag("neutral", Some('u'), None),
    Opt::optional("update", None, Some("update")),
    Opt::flag("neutral", Some('Z'), None),
    Opt::optional("neutral", None, Some("context")),
];
const MV: [Opt; 19] = getopt::join(PLACING, MV_OWN);

const INSTALL_OWN: &[Opt] = &[
    Opt::flag("neutral", Some('c'), None),
    Opt::flag("neutral", Some('C'), Some("compare")),
    Opt::flag("neutral", None, Some("debug")),
    Opt::flag("info", Some('d'), Some("directory")),
    Opt::flag("neutral", Some('D'), None),
    Opt::value("neutral", Some('g'), Some("group")),
    Opt::value("neutral", Some('m'), Some("mode")),
    Opt::value("neutral", Some('o'), Some("owner")),
    Opt::flag("neutral", Some('p'), Some("preserve-timestamps")),
    Opt::flag("neutral", Some('s'), Some("strip")),
    Opt::value("neutral", None, Some("strip-program")),
    Opt::flag("neutral", None, Some("preserve-context")),
    Opt::flag("neutral", Some('Z'), None),
    Opt::optional("neutral", None, Some("context")),
];
const INSTALL: [Opt; 22] = getopt::join(PLACING, INSTALL_OWN);

const LN_OWN: &[Opt] = &[
    Opt::flag("neutral", Some('d'), Some("directory")),
    Opt::flag("neutral", Some('F'), None),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("interactive", Some('i'), Some("interactive")),
    Opt::flag("neutral", Some('L'), Some("logical")),
    Opt::flag("neutral", Some('n'), Some("no-dereference")),
    Opt::flag("neutral", Some('P'), Some("physical")),
    Opt::flag("neutral", Some('r'), Some("relative")),
    Opt::flag("neutral", Some('s'), Some("symbolic")),
];
const LN: [Opt; 17] = getopt::join(PLACING, LN_OWN);

/// What the options of a copying program say.
#[derive(Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts read from the options, not a state machine"
)]
struct Read {
    operands: Vec<Target>,
    into: Option<Target>,
    exact: bool,
    parents: bool,
    recursive: bool,
    /// Nothing existing is written over (`-n`, `--update=none`, `--exchange`, …).
    safe: bool,
    /// `mv --exchange`: the source and the destination swap.
    exchange: bool,
    /// The destination is unlinked and replaced rather than opened (`cp -l`, `-s`,
    /// `--remove-destination`).
    replaces: bool,
    /// `-f` (for `ln`, whose default is to refuse).
    force: bool,
    interactive: bool,
    /// `-b`/`--backup`: `Some(true)` for numbered backups (nothing lost).
    backup: Option<bool>,
    suffix: Option<String>,
    info: bool,
}

/// The note of a backup whose suffix no option names: `~`, unless `SIMPLE_BACKUP_SUFFIX`
/// says otherwise.
const DEFAULT_SUFFIX: &str = "the backup suffix is `~` unless SIMPLE_BACKUP_SUFFIX names another";

/// A value a command's own assignment gives a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Assigned {
    /// `NAME=value`, literal.
    Literal(String),
    /// `NAME=$x`: known only when it runs.
    NotLiteral,
}

/// `SIMPLE_BACKUP_SUFFIX=.orig cp -b new f`: the backup name is `f.orig`, not `f~` (issue 37,
/// point 3). `assigned` is the value the command's own assignment gives the variable.
pub(crate) fn backup_suffix_assigned(ops: &mut [OpSpec], assigned: Option<Assigned>) {
    let Some(value) = assigned else {
        return;
    };
    for op in ops
        .iter_mut()
        .filter(|op| op.notes.iter().any(|n| n == DEFAULT_SUFFIX))
    {
        match &value {
            Assigned::Literal(suffix) if !suffix.is_empty() && !suffix.contains('/') => {
                for (index, target) in op.targets.iter_mut().enumerate() {
                    if op.landing_of.get(index).is_some_and(Option::is_some)
                        && let Some(stem) = target.text.strip_suffix('~')
                    {
                        target.text = format!("{stem}{suffix}");
                        target.exact = None;
                    }
                }
            }
            _ => op.mark_undeterminable(
                "a variable of the command may set SIMPLE_BACKUP_SUFFIX: the backup names are unknown",
            ),
        }
    }
}

fn read(program: &str, args: &[Arg], table: &[Opt], op: &mut OpSpec) -> Read {
    let mut read = Read::default();
    let (mut suffix_given, mut backup_given) = (false, false);
    let (items, _) = getopt::parse(args, table, Order::Permute);
    for item in &items {
        match item {
            Item::Opt { name: "info", .. } => read.info = true,
            Item::Opt {
                name: "recursive", ..
            } => read.recursive = true,
            Item::Opt {
                name: "exchange", ..
            } => {
                read.safe = true;
                read.exchange = true;
            }
            Item::Opt {
                name: "no-clobber" | "attributes-only",
                ..
            } => read.safe = true,
            Item::Opt {
                name: "remove-destination" | "link",
                ..
            } => read.replaces = true,
            Item::Opt { name: "force", .. } => read.force = true,
            Item::Opt {
                name: "interactive",
                ..
            } => read.interactive = true,
            Item::Opt {
                name: "parents", ..
            } => read.parents = true,
            Item::Opt {
                name: "no-target-directory",
                ..
            } => read.exact = true,
            Item::Opt {
                name: "target-directory",
                ..
            } => read.into = value_arg(item).map(|a| a.target()),
            Item::Opt { name: "suffix", .. } => {
                let value = value_arg(item);
                // GNU (coreutils 9.1): an empty suffix, or one with a `/`, falls back to `~`.
                read.suffix = value
                    .as_ref()
                    .and_then(|a| a.known().map(str::to_owned))
                    .filter(|s| !s.is_empty() && !s.contains('/'));
                if value.as_ref().is_none_or(|a| a.known().is_none()) {
                    op.mark_undeterminable("the backup suffix is not literal");
                }
                // `-S SUFFIX` alone turns backups on (coreutils 9).
                suffix_given = true;
            }
            Item::Opt {
                name: "update",
                attached,
                ..
            } => match attached.as_deref() {
                Some("none" | "none-fail") => read.safe = true,
                None | Some("all" | "older") => {}
                Some(other) => op.mark_undeterminable(format!("unknown --update={other}")),
            },
            Item::Opt {
                name: "backup",
                attached,
                ..
            } => {
                backup_given = true;
                // GNU reads any unambiguous prefix of a method (`--backup=nu`).
                let method = attached.as_deref().map(|a| {
                    let matches: Vec<&str> = BACKUP_METHODS
                        .iter()
                        .copied()
                        .filter(|m| m.starts_with(a) && !a.is_empty())
                        .collect();
                    match matches.as_slice() {
                        _ if BACKUP_METHODS.contains(&a) => a,
                        [only] => only,
                        _ => a,
                    }
                });
                read.backup = match method {
                    Some("numbered" | "t") => Some(true),
                    Some("none" | "off") => None,
                    None | Some("simple" | "never" | "existing" | "nil") => Some(false),
                    Some(other) => {
                        op.mark_undeterminable(format!(
                            "{program} --backup={other} is not a known method"
                        ));
                        Some(false)
                    }
                };
            }
            Item::Opt { .. } => {}
            Item::Operand(arg) => read.operands.push(arg.target()),
            other => getopt_problem(op, other),
        }
    }
    if suffix_given && !backup_given {
        read.backup = Some(false);
    }
    read
}

/// The version-control methods of `--backup` (and `VERSION_CONTROL`).
const BACKUP_METHODS: &[&str] = &[
    "none", "off", "numbered", "t", "existing", "nil", "simple", "never",
];

/// Builds the op of a copying program from what its options said; `None` when it writes
/// over nothing.
fn finish(mut op: OpSpec, read: Read, through: bool) -> Option<OpSpec> {
    if read.info || read.safe {
        return None;
    }
    let mut placement = Placement::of_operands(read.operands, read.into);
    placement.exact = read.exact;
    placement.parents = read.parents;
    // A recursive copy writes only below the directory it lands in (issue 38): a literal
    // one confines it, and a checkpoint keeps what it overwrites there.
    // (`--parents` appends each source's whole path, `..` included: not confined.)
    let landing = placement
        .into
        .clone()
        .or_else(|| placement.dest.clone())
        .filter(|_| !read.parents);
    let mut targets = placement.targets();
    if read.backup.is_some() {
        // The existing file is renamed to its backup name first (`dest~`, the `-S` suffix,
        // or a numbered name): a move of the old destination, which is all the op destroys
        // (what it writes then lands on a new file). Undo moves it back.
        let suffix = read.suffix.as_deref().unwrap_or("~");
        op.kind = OpKind::Move;
        op.write = WriteMode::Replace;
        op.sources.clone_from(&targets);
        if read.backup == Some(false) {
            op.landing_of = (0..targets.len()).map(Some).collect();
            for target in &mut targets {
                target.text.push_str(suffix);
            }
        } else {
            targets.clear();
        }
        op.note(format!(
            "--backup moves the old file to its backup name (`{suffix}`, or numbered)"
        ));
        if read.suffix.is_none() {
            op.note(DEFAULT_SUFFIX);
        }
    } else {
        for target in &mut targets {
            target.through_symlink = through;
        }
    }
    op.targets = targets;
    if read.interactive {
        op.note("-i asks before overwriting; an agent's answer is still an overwrite");
    }
    if read.recursive {
        op.recursive = true;
        let sole = !op.undeterminable;
        op.mark_undeterminable(format!("{} {RECURSIVE}", op.op));
        if sole {
            super::confine_recursive_copy(&mut op, landing);
        }
    }
    Some(op)
}

/// `cp [OPTION]… SOURCE… DEST`.
pub(super) fn cp(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("cp", WriteMode::InPlace);
    let read = read("cp", args, &CP, &mut op);
    let through = !read.replaces;
    if read.replaces {
        op.write = WriteMode::Replace;
    }
    finish(op, read, through)
}

/// `mv [OPTION]… SOURCE… DEST`: a move of every source (with `-n` too: only the
/// destinations are spared), onto the paths [`Placement`] names; with `-b` the old
/// destination goes to its backup name, which is a destination too. `--exchange` swaps.
pub(super) fn mv(args: &[Arg]) -> Option<OpSpec> {
    let mut op = OpSpec::new("mv", OpKind::Move, Dialect::Posix);
    op.write = WriteMode::Replace;
    let read = read("mv", args, &MV, &mut op);
    if read.info {
        return None;
    }
    if read.exchange {
        // `mv --exchange a b`: each takes the other's name (and no directory placement).
        let mut operands = read.operands;
        if operands.len() == 2 && read.into.is_none() {
            op.targets = vec![operands[1].clone(), operands[0].clone()];
            op.landing_of = vec![Some(0), Some(1)];
        } else {
            op.mark_undeterminable("mv --exchange takes exactly two operands");
        }
        op.sources = std::mem::take(&mut operands);
        return Some(op);
    }
    let mut placement = Placement::of_operands(read.operands, read.into);
    placement.exact = read.exact;
    let (mut targets, mut landing_of): (Vec<Target>, Vec<Option<usize>>) = placement
        .landings()
        .into_iter()
        .map(|(t, i)| (t, Some(i)))
        .unzip();
    let mut sources = placement.sources;
    if read.backup.is_some() && !read.safe {
        // The old destination moves to its backup name: it is a source too, landing on
        // `<dest>~` (or the `-S` suffix) — a numbered backup's name is only known when it
        // runs (undo looks for it beside the destination).
        let suffix = read.suffix.as_deref().unwrap_or("~");
        for destination in targets.clone() {
            let index = sources.len();
            sources.push(destination.clone());
            if read.backup == Some(false) {
                let mut backup = destination;
                backup.text.push_str(suffix);
                targets.push(backup);
                landing_of.push(Some(index));
            }
        }
        op.note(format!(
            "--backup moves the old destination to its backup name (`{suffix}`, or numbered)"
        ));
        if read.suffix.is_none() {
            op.note(DEFAULT_SUFFIX);
        }
    }
    if read.interactive {
        op.note("-i asks before overwriting; an agent's answer is still an overwrite");
    }
    op.targets = targets;
    op.landing_of = landing_of;
    op.sources = sources;
    Some(op)
}

/// `install [OPTION]… SOURCE… DEST`; `install -d DIR…` only creates directories.
pub(super) fn install(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("install", WriteMode::Replace);
    let read = read("install", args, &INSTALL, &mut op);
    finish(op, read, false)
}

/// `ln [OPTION]… TARGET… LINK_NAME|DIR`; with one operand the link is made here under the
/// target's name. Without `-f` (or `-i`, `-b`) an existing name is refused.
///
/// The files linked to are the op's `sources`: a second name for a file (`ln
/// .claude/settings.json h`, then a write through `h`) reaches it, so the protected paths
/// are judged on them too. Without `-f` nothing existing is replaced: the op only creates
/// names, judged like an append (against the protected paths: a link planted where a
/// harness reads its hooks).
pub(super) fn ln(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("ln", WriteMode::Replace);
    let mut read = read("ln", args, &LN, &mut op);
    let replaces = read.force || read.interactive || read.backup.is_some();
    if read.operands.len() == 1 && read.into.is_none() {
        read.operands.push(Target::literal("."));
    }
    let linked: Vec<Target> = if read.into.is_some() {
        read.operands.clone()
    } else {
        read.operands[..read.operands.len().saturating_sub(1)].to_vec()
    };
    let mut op = finish(op, read, false)?;
    if op.kind != OpKind::Move {
        op.sources = linked;
    }
    if !replaces {
        op.kind = OpKind::Append;
        op.write = WriteMode::default();
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn targets(op: &OpSpec) -> Vec<&str> {
        op.targets.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn cp_destinations() {
        let o = cp(&args("a.txt b.txt")).unwrap();
        assert_eq!(targets(&o), ["b.txt", "b.txt/a.txt"]);
        assert_eq!(o.write, WriteMode::InPlace);
        assert!(o.targets.iter().all(|t| t.through_symlink));
        let o = cp(&args("src/a.txt src/b.txt dir")).unwrap();
        assert_eq!(targets(&o), ["dir/a.txt", "dir/b.txt"]);
        let o = cp(&args("a.txt dir/")).unwrap();
        assert_eq!(targets(&o), ["dir/a.txt"]);
        let o = cp(&args("-t dir a b")).unwrap();
        assert_eq!(targets(&o), ["dir/a", "dir/b"]);
        let o = cp(&args("--target-directory=dir a")).unwrap();
        assert_eq!(targets(&o), ["dir/a"]);
        let o = cp(&args("-T a b")).unwrap();
        assert_eq!(targets(&o), ["b"]);
        let o = cp(&args("--parents src/x/a.txt out")).unwrap();
        assert_eq!(targets(&o), ["out/src/x/a.txt"]);
        let o = cp(&args("../x.txt .")).unwrap();
        assert_eq!(targets(&o), ["./x.txt"]);
        assert!(cp(&args("a.txt")).unwrap().targets.is_empty());
    }

    #[test]
    fn cp_modes_and_safe_forms() {
        let o = cp(&args("--remove-destination a b")).unwrap();
        assert_eq!(o.write, WriteMode::Replace);
        assert!(o.targets.iter().all(|t| !t.through_symlink));
        assert_eq!(cp(&args("-f a b")).unwrap().write, WriteMode::InPlace);
        for safe in ["-n a b", "--no-clobber a b", "--update=none a b", "--help"] {
            assert!(cp(&args(safe)).is_none(), "{safe}");
        }
        // A backup moves the old file aside: a move of it (issue 34).
        let o = cp(&args("--backup=numbered a b")).unwrap();
        assert_eq!((o.kind, o.targets.len()), (OpKind::Move, 0));
        assert_eq!(o.sources.len(), 2);
        let o = cp(&args("-b a b")).unwrap();
        assert_eq!(targets(&o), ["b~", "b/a~"]);
        assert_eq!(o.kind, OpKind::Move);
        assert_eq!(o.sources[0].text, "b");
        let o = cp(&args("--backup -S .orig a b/")).unwrap();
        assert_eq!(targets(&o), ["b/a.orig"]);
        let o = cp(&args("-r src dst")).unwrap();
        assert!(o.undeterminable && o.recursive);
        assert!(cp(&args("-a src dst")).unwrap().undeterminable);
        assert!(cp(&args("--bogus a b")).unwrap().undeterminable);
        assert!(!cp(&args("-i a b")).unwrap().undeterminable);
    }

    fn sources(op: &OpSpec) -> Vec<&str> {
        op.sources.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn mv_is_a_move_in_every_form() {
        let o = mv(&args("a b")).unwrap();
        assert_eq!(o.kind, OpKind::Move);
        assert_eq!(
            (sources(&o), targets(&o), o.write),
            (vec!["a"], vec!["b", "b/a"], WriteMode::Replace)
        );
        assert!(o.targets.iter().all(|t| !t.through_symlink));
        for spared in ["-n a b", "--update=none-fail a b", "--no-clobber a b"] {
            let o = mv(&args(spared)).unwrap();
            assert_eq!(sources(&o), ["a"], "{spared}: a still moves");
        }
        let o = mv(&args("--exchange a b")).unwrap();
        assert_eq!((sources(&o), targets(&o)), (vec!["a", "b"], vec!["b", "a"]));
        let o = mv(&args("-t dir a b")).unwrap();
        assert_eq!(
            (sources(&o), targets(&o)),
            (vec!["a", "b"], vec!["dir/a", "dir/b"])
        );
        let o = mv(&args("-T a b")).unwrap();
        assert_eq!(targets(&o), ["b"]);
        let o = mv(&args("a b dir")).unwrap();
        assert_eq!(
            (sources(&o), targets(&o)),
            (vec!["a", "b"], vec!["dir/a", "dir/b"])
        );
        let o = mv(&args("-b a b")).unwrap();
        assert_eq!(targets(&o), ["b", "b/a", "b~", "b/a~"]);
        assert_eq!(
            sources(&o),
            ["a", "b", "b/a"],
            "the old destination moves too"
        );
        assert_eq!(o.landing_of[2..], [Some(1), Some(2)]);
        let o = mv(&args("--backup=numbered a b")).unwrap();
        assert_eq!(
            (sources(&o), targets(&o)),
            (vec!["a", "b", "b/a"], vec!["b", "b/a"])
        );
        assert!(mv(&args("--help")).is_none());
        assert!(mv(&args("--bogus a b")).unwrap().undeterminable);
    }

    #[test]
    fn install_ln() {
        let o = install(&args("-m 755 tool bin/")).unwrap();
        assert_eq!(
            (targets(&o), o.write),
            (vec!["bin/tool"], WriteMode::Replace)
        );
        assert!(install(&args("-d a b")).is_none());
        let o = ln(&args("-s a b")).unwrap();
        assert_eq!(
            o.kind,
            OpKind::Append,
            "ln refuses an existing name: it only creates"
        );
        assert_eq!(targets(&o), ["b", "b/a"]);
        assert_eq!(o.sources[0].text, "a", "the file linked to");
        let o = ln(&args("-sf ../x link")).unwrap();
        assert_eq!(targets(&o), ["link", "link/x"]);
        let o = ln(&args("-sf /opt/tool")).unwrap();
        assert_eq!(targets(&o), ["./tool"]);
        let o = ln(&args("-sfn a link")).unwrap();
        assert_eq!(o.write, WriteMode::Replace);
    }
}

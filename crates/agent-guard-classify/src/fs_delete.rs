//! `rm`, `rmdir`, `unlink`, `shred -u`, `srm` and `wipe`: the POSIX path deleters (`shred`
//! without `-u` overwrites in place), and `gio remove`.
//!
//! Options follow GNU coreutils: clusters, unique long prefixes, and options after operands
//! (`rm build -rf` is recursive) until `--`. An option we do not know might change what is
//! deleted, so it makes the op undeterminable.

use agent_guard_types::{Dialect, OpKind, OpSpec};

use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

const RM: &[Opt] = &[
    Opt::flag("recursive", Some('r'), Some("recursive")),
    Opt::flag("recursive", Some('R'), None),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("dir", Some('d'), Some("dir")),
    Opt::flag("neutral", Some('i'), None),
    Opt::flag("neutral", Some('I'), None),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::optional("interactive", None, Some("interactive")),
    Opt::flag("neutral", None, Some("one-file-system")),
    Opt::optional("neutral", None, Some("preserve-root")),
    Opt::flag("no-preserve-root", None, Some("no-preserve-root")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

const RMDIR: &[Opt] = &[
    Opt::flag("parents", Some('p'), Some("parents")),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("neutral", None, Some("ignore-fail-on-non-empty")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

const UNLINK: &[Opt] = &[
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

const SHRED: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::value("neutral", Some('n'), Some("iterations")),
    Opt::value("neutral", None, Some("random-source")),
    Opt::value("neutral", Some('s'), Some("size")),
    Opt::flag("remove", Some('u'), None),
    Opt::optional("remove", None, Some("remove")),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("neutral", Some('x'), Some("exact")),
    Opt::flag("neutral", Some('z'), Some("zero")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// secure-delete's `srm` and macOS `srm`: `-r` recurses, the rest choose wiping methods.
const SRM: &[Opt] = &[
    Opt::flag("recursive", Some('r'), Some("recursive")),
    Opt::flag("recursive", Some('R'), None),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("neutral", Some('d'), Some("directory")),
    Opt::flag("neutral", Some('i'), Some("interactive")),
    Opt::flag("neutral", Some('l'), None),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("neutral", Some('x'), Some("one-file-system")),
    Opt::flag("neutral", Some('z'), Some("zero")),
    Opt::flag("neutral", Some('s'), Some("simple")),
    Opt::flag("neutral", Some('m'), Some("medium")),
    Opt::flag("neutral", Some('P'), Some("openbsd")),
    Opt::flag("neutral", Some('D'), Some("dod")),
    Opt::flag("neutral", Some('E'), Some("doe")),
    Opt::flag("neutral", Some('G'), Some("gutmann")),
    Opt::flag("neutral", Some('C'), Some("rcmp")),
    Opt::flag("neutral", Some('n'), Some("nounlink")),
    Opt::flag("info", Some('h'), Some("help")),
    Opt::flag("info", Some('V'), Some("version")),
];

/// `wipe [options] FILE…`: `-r` recurses, `-k` keeps the wiped file (its content is gone
/// all the same).
const WIPE: &[Opt] = &[
    Opt::flag("recursive", Some('r'), None),
    Opt::flag("recursive", Some('R'), None),
    Opt::flag("force", Some('f'), None),
    Opt::flag("neutral", Some('i'), None),
    Opt::flag("neutral", Some('c'), None),
    Opt::flag("neutral", Some('D'), None),
    Opt::flag("neutral", Some('k'), None),
    Opt::flag("neutral", Some('s'), None),
    Opt::flag("neutral", Some('q'), None),
    Opt::flag("neutral", Some('a'), None),
    Opt::flag("neutral", Some('v'), None),
    Opt::flag("neutral", Some('e'), None),
    Opt::flag("neutral", Some('Z'), None),
    Opt::value("neutral", Some('Q'), None),
    Opt::value("neutral", Some('l'), None),
    Opt::value("neutral", Some('o'), None),
    Opt::value("neutral", Some('x'), None),
    Opt::value("neutral", Some('M'), None),
    Opt::value("neutral", Some('S'), None),
    Opt::value("neutral", Some('T'), None),
    Opt::flag("info", Some('h'), None),
];

/// `gio remove [-f] LOCATION…` (glib): deletes, unlike `gio trash`.
const GIO_REMOVE: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("info", Some('h'), Some("help")),
];

/// The programs this module parses.
pub(crate) const PROGRAMS: &[&str] = &["rm", "rmdir", "unlink", "shred", "srm", "wipe"];

/// Returns `true` if the last component of a program path is one of [`PROGRAMS`].
pub(crate) fn deletes_by_name(path: &str) -> bool {
    let name = crate::args::basename(path).to_ascii_lowercase();
    PROGRAMS.contains(&name.as_str())
}

/// Parses one of [`PROGRAMS`] (`name` lower-cased) with its arguments (after the name).
/// Returns `None` when nothing is deleted (`--help`, `--version`).
pub(crate) fn parse(name: &str, args: &[Arg]) -> Option<OpSpec> {
    let table = match name {
        "rm" => RM,
        "rmdir" => RMDIR,
        "unlink" => UNLINK,
        "srm" => SRM,
        "wipe" => WIPE,
        _ => SHRED,
    };
    let mut op = OpSpec::new(name, OpKind::FsDelete, Dialect::Posix);
    op.dir_only = name == "rmdir";
    let (items, _) = getopt::parse(args, table, Order::Permute);
    for item in items {
        match item {
            Item::Opt { name: "info", .. } => return None,
            Item::Opt {
                name: "recursive", ..
            } => op.recursive = true,
            Item::Opt { name: "force", .. } => op.force = true,
            Item::Opt { name: "dir", .. } => op.dir_only = true,
            Item::Opt {
                name: "parents", ..
            } => {
                op.note("rmdir -p also removes parents that become empty");
            }
            Item::Opt { name: "remove", .. } => op.note("shred removes the file after overwriting"),
            Item::Opt {
                name: "no-preserve-root",
                ..
            } => op.note("--no-preserve-root"),
            Item::Opt {
                name: "interactive",
                attached,
                ..
            } => {
                let known = ["never", "no", "none", "once", "always", "yes"];
                if attached.as_deref().is_some_and(|w| !known.contains(&w)) {
                    op.mark_undeterminable("unknown --interactive value");
                }
            }
            Item::Opt { .. } => {}
            Item::Unknown(flag) | Item::Ambiguous(flag) => {
                op.mark_undeterminable(format!("unknown flag {flag}"));
            }
            Item::MissingValue(flag) => op.mark_undeterminable(format!("--{flag} needs a value")),
            Item::Operand(arg) => op.targets.push(arg.target()),
        }
    }
    if op.recursive {
        // `rm -r` deletes directories whatever `-d` says.
        op.dir_only = false;
    }
    // Without `-r` or `-d`, `rm`, `unlink` and `shred` refuse directories.
    op.files_only = !op.recursive && !op.dir_only;
    if name == "shred" && !op.notes.iter().any(|n| n.starts_with("shred removes")) {
        // Without `-u` nothing is deleted: the file's bytes are overwritten where it is
        // (through a symlink, like any open). `shred -u` stays a delete: the file is
        // relocated before shred can reach it.
        op.kind = OpKind::Overwrite;
        op.write = agent_guard_types::WriteMode::InPlace;
        op.files_only = false;
        op.targets.retain(|t| t.text != "-" || t.opaque.is_some());
        for target in &mut op.targets {
            target.through_symlink = true;
        }
        op.note("shred overwrites the file's contents in place");
    }
    Some(op)
}

/// `gio remove [-f] LOCATION…` (`name` is the program); `None` for anything else. The
/// programs that delete as a side effect of another job (`rsync --delete`, `tar
/// --remove-files`, `zip -m`, …) are in [`crate::writes`].
pub(crate) fn gio(name: &str, args: &[Arg]) -> Option<OpSpec> {
    if name != "gio" {
        return None;
    }
    gio_remove(args)
}

/// `gio remove [-f] LOCATION…`; a URI (`file://…`, `sftp://…`) is not a plain path.
fn gio_remove(args: &[Arg]) -> Option<OpSpec> {
    let (sub, rest) = args.split_first()?;
    if sub.known() != Some("remove") {
        return None;
    }
    let mut op = OpSpec::new("gio", OpKind::FsDelete, Dialect::Posix);
    let (items, _) = getopt::parse(rest, GIO_REMOVE, Order::Permute);
    for item in items {
        match item {
            Item::Opt { name: "info", .. } => return None,
            Item::Opt { name: "force", .. } => op.force = true,
            Item::Operand(arg) => {
                let mut target = arg.target();
                if target.text.contains("://") && target.opaque.is_none() {
                    target.opaque = Some("a URI, not a path".to_owned());
                }
                op.targets.push(target);
            }
            Item::Opt { .. } => {}
            Item::Unknown(flag) | Item::Ambiguous(flag) => {
                op.mark_undeterminable(format!("unknown flag {flag}"));
            }
            Item::MissingValue(flag) => op.mark_undeterminable(format!("--{flag} needs a value")),
        }
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> Option<OpSpec> {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        let args: Vec<Arg> = words.map(Arg::literal).collect();
        parse(name, &args)
    }

    fn targets(op: &OpSpec) -> Vec<&str> {
        op.targets.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn gnu_rm_reads_options_anywhere() {
        let o = op("rm build -rf").unwrap();
        assert!(o.recursive && o.force && !o.undeterminable);
        assert_eq!(targets(&o), ["build"]);
        let o = op("rm -r build").unwrap();
        assert!(o.recursive && !o.force);
        let o = op("rm --recursive --force -- -x").unwrap();
        assert_eq!(targets(&o), ["-x"]);
        let o = op("rm --rec x").unwrap();
        assert!(o.recursive);
    }

    #[test]
    fn unknown_flags_are_undeterminable() {
        assert!(op("rm -z x").unwrap().undeterminable);
        assert!(op("rm --bogus x").unwrap().undeterminable);
        assert!(op("rm --interactive=sometimes x").unwrap().undeterminable);
        assert!(!op("rm --interactive=never x").unwrap().undeterminable);
    }

    #[test]
    fn dir_only_forms_are_understood() {
        let o = op("rm -d empty").unwrap();
        assert!(o.dir_only && !o.undeterminable);
        let o = op("rmdir -p a/b/c").unwrap();
        assert!(o.dir_only && !o.undeterminable);
        assert_eq!(targets(&o), ["a/b/c"]);
        assert!(!op("rm -rd x").unwrap().dir_only);
    }

    #[test]
    fn secure_deleters_are_deleters() {
        let o = op("srm -rfz secrets").unwrap();
        assert!(o.recursive && o.force && !o.undeterminable);
        assert_eq!(targets(&o), ["secrets"]);
        let o = op("wipe -rfq -Q 3 old").unwrap();
        assert!(o.recursive && !o.undeterminable);
        assert_eq!(targets(&o), ["old"]);
        assert!(op("srm --help").is_none());
        assert!(deletes_by_name("/usr/bin/SRM"));
    }

    #[test]
    fn gio_remove_deletes_and_gio_trash_does_not() {
        let args = |line: &str| -> Vec<Arg> { line.split_whitespace().map(Arg::literal).collect() };
        assert!(gio("gio", &args("trash x")).is_none());
        assert!(gio("rsync", &args("-a --delete a/ b/")).is_none());
        let o = gio("gio", &args("remove -f a.txt file:///x")).unwrap();
        assert!(o.force && o.targets[1].opaque.is_some());
        assert_eq!(o.targets[0].text, "a.txt");
    }

    #[test]
    fn shred_without_remove_overwrites_in_place() {
        let o = op("shred -n 3 secret.txt").unwrap();
        assert_eq!(o.kind, OpKind::Overwrite);
        assert_eq!(o.write, agent_guard_types::WriteMode::InPlace);
        assert!(o.targets[0].through_symlink);
        assert_eq!(op("shred -u secret.txt").unwrap().kind, OpKind::FsDelete);
        assert_eq!(
            op("shred --remove secret.txt").unwrap().kind,
            OpKind::FsDelete
        );
    }

    #[test]
    fn shred_options_have_known_arity() {
        let o = op("shred -u -n 3 secret.txt").unwrap();
        assert!(!o.undeterminable);
        assert_eq!(targets(&o), ["secret.txt"]);
        let o = op("shred -zun3 f").unwrap();
        assert_eq!(targets(&o), ["f"]);
        assert!(op("shred --help").is_none());
        assert!(op("rm --version").is_none());
    }
}

//! `rm`, `rmdir`, `unlink` and `shred`: the POSIX path deleters.
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

/// The programs this module parses.
pub(crate) const PROGRAMS: &[&str] = &["rm", "rmdir", "unlink", "shred"];

/// Parses one of [`PROGRAMS`] (`name` lower-cased) with its arguments (after the name).
/// Returns `None` when nothing is deleted (`--help`, `--version`).
pub(crate) fn parse(name: &str, args: &[Arg]) -> Option<OpSpec> {
    let table = match name {
        "rm" => RM,
        "rmdir" => RMDIR,
        "unlink" => UNLINK,
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
        op.note("shred overwrites the file's contents in place");
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

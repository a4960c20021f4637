//! `chmod`, `chown`, `chgrp`, `chattr`, `setfacl` and `touch` (GNU coreutils, e2fsprogs and
//! the acl package's manuals).
//!
//! `chmod`, `chown`, `chgrp` and `touch` read options anywhere until `--` (GNU
//! permutation); `chattr` reads its options and attribute changes until the first word
//! that is neither. `chmod -w f` gives the mode as an option (GNU reads a word of mode
//! letters after `-` as the mode), and then every operand is a path.

use agent_guard_types::{Dialect, OpSpec, Target};

use super::Parsed;
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

/// The programs this module parses (lower-cased; the `g` names are GNU coreutils on the
/// BSDs and macOS).
const PROGRAMS: &[&str] = &[
    "chmod", "gchmod", "chown", "gchown", "chgrp", "gchgrp", "chattr", "setfacl", "touch", "gtouch",
];

/// The metadata op of the POSIX program `name` (lower-cased basename) run with `rest`;
/// `None` when `name` is not one of [`PROGRAMS`].
pub(crate) fn parse(name: &str, rest: &[Arg]) -> Option<Vec<OpSpec>> {
    if !PROGRAMS.contains(&name) {
        return None;
    }
    let parsed = match name.strip_prefix('g').unwrap_or(name) {
        "chmod" => first_operand_unless(name, rest, &CHMOD),
        "chown" => first_operand_unless(name, rest, &CHOWN),
        "chgrp" => first_operand_unless(name, rest, OWNERSHIP),
        "chattr" => chattr(rest),
        "setfacl" => setfacl(rest),
        _ => touch(name, rest),
    };
    Some(parsed.into_ops(name, Dialect::Posix))
}

/// The options `chmod`, `chown` and `chgrp` share. With `-h` a symlink operand is left
/// alone, so the link is what the op names.
const OWNERSHIP: &[Opt] = &[
    Opt::flag("recursive", Some('R'), Some("recursive")),
    Opt::flag("neutral", Some('c'), Some("changes")),
    Opt::flag("neutral", Some('f'), Some("silent")),
    Opt::flag("neutral", None, Some("quiet")),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("neutral", None, Some("preserve-root")),
    Opt::flag("neutral", None, Some("no-preserve-root")),
    Opt::flag("no-dereference", Some('h'), Some("no-dereference")),
    Opt::flag("neutral", None, Some("dereference")),
    Opt::flag("neutral", Some('H'), None),
    Opt::flag("neutral", Some('L'), None),
    Opt::flag("neutral", Some('P'), None),
    Opt::value("reference", None, Some("reference")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `chmod [OPTION]… (MODE | --reference=RFILE) FILE…`. The mode letters are listed as
/// flags named `mode`: a word of them after `-` is the mode (`chmod -w f`,
/// `chmod -rwx,u+s f`).
const CHMOD: [Opt; 36] = getopt::join(
    OWNERSHIP,
    &getopt::letters::<21>("mode", "rwxXstugoa,+=01234567"),
);

/// `chown [OPTION]… ([OWNER][:[GROUP]] | --reference=RFILE) FILE…`.
const CHOWN: [Opt; 16] = getopt::join(OWNERSHIP, &[Opt::value("neutral", None, Some("from"))]);

/// Why a getopt item ends the parse: an option the table does not know, or a value missing.
fn unfollowed(item: &Item<'_>) -> Option<String> {
    match item {
        Item::Unknown(flag) => Some(format!("unknown option {flag}")),
        Item::Ambiguous(flag) => Some(format!("ambiguous option {flag}")),
        Item::MissingValue(flag) => Some(format!("--{flag} needs a value")),
        Item::Opt { .. } | Item::Operand(_) => None,
    }
}

/// The target a metadata command changes for `arg`: where a final symlink leads unless
/// `on_link`.
fn path(arg: &Arg, on_link: bool) -> Target {
    Target {
        through_symlink: !on_link,
        ..arg.target()
    }
}

/// `chmod`, `chown`, `chgrp`: the first operand is the mode, owner or group, unless it was
/// given otherwise (`--reference`, a mode written as an option); every other operand is a
/// path.
fn first_operand_unless(name: &str, args: &[Arg], table: &[Opt]) -> Parsed {
    let mut op = super::op(name, Dialect::Posix);
    let (items, _) = getopt::parse(args, table, Order::Permute);
    let mut given = false;
    let mut on_link = false;
    let mut operands = Vec::new();
    for item in &items {
        if let Some(why) = unfollowed(item) {
            return Parsed::Unfollowed(why);
        }
        match item {
            Item::Opt { name: "info", .. } => return Parsed::Nothing,
            Item::Opt {
                name: "recursive", ..
            } => op.recursive = true,
            Item::Opt {
                name: "no-dereference",
                ..
            } => on_link = true,
            Item::Opt {
                name: "reference" | "mode",
                ..
            } => given = true,
            Item::Operand(arg) => operands.push(*arg),
            _ => {}
        }
    }
    let paths = if given {
        &operands[..]
    } else {
        operands.get(1..).unwrap_or_default()
    };
    op.targets = paths.iter().map(|arg| path(arg, on_link)).collect();
    Parsed::Op(Box::new(op))
}

/// The attribute letters of `chattr` (`+i`, `-a`, `=e`).
const CHATTR_ATTRIBUTES: &str = "aAcCdDeEFiIjmNPsStTuxV";

/// `chattr [-RVf] [-v VERSION] [-p PROJECT] [(+|-|=)ATTRIBUTES]… FILE…`: words starting with
/// `-`, `+` or `=` are read until the first that does not; `-` words mix options and
/// attributes to remove (`-R`, `-i`, `-Ri`). A word that is not literal could be either:
/// from it on, every word is taken for a path (more than the paths is harmless).
fn chattr(args: &[Arg]) -> Parsed {
    let mut op = super::op("chattr", Dialect::Posix);
    let mut at = 0;
    while let Some(text) = args.get(at).and_then(Arg::known) {
        if let Some(letters) = text.strip_prefix(['+', '=']) {
            if let Some(bad) = letters.chars().find(|c| !CHATTR_ATTRIBUTES.contains(*c)) {
                return Parsed::Unfollowed(format!("unknown attribute {bad}"));
            }
        } else if let Some(letters) = text.strip_prefix('-').filter(|l| !l.is_empty()) {
            for letter in letters.chars() {
                match letter {
                    'R' => op.recursive = true,
                    'f' | 'V' => {}
                    // The version or project number is the next word.
                    'v' | 'p' => {
                        at += 1;
                        if at >= args.len() {
                            return Parsed::Unfollowed(format!("-{letter} needs a value"));
                        }
                    }
                    c if CHATTR_ATTRIBUTES.contains(c) => {}
                    c => return Parsed::Unfollowed(format!("unknown option -{c}")),
                }
            }
        } else {
            break;
        }
        at += 1;
    }
    op.targets = args[at.min(args.len())..]
        .iter()
        .map(|arg| path(arg, false))
        .collect();
    Parsed::Op(Box::new(op))
}

/// `setfacl [-bkndRLP] (-m|-x ACL | -M|-X FILE | --set ACL | --set-file FILE | --restore
/// FILE) FILE…` (the acl package).
const SETFACL: &[Opt] = &[
    Opt::value("neutral", Some('m'), Some("modify")),
    Opt::value("neutral", Some('x'), Some("remove")),
    Opt::value("neutral", Some('M'), Some("modify-file")),
    Opt::value("neutral", Some('X'), Some("remove-file")),
    Opt::value("neutral", None, Some("set")),
    Opt::value("neutral", None, Some("set-file")),
    Opt::flag("neutral", Some('b'), Some("remove-all")),
    Opt::flag("neutral", Some('k'), Some("remove-default")),
    Opt::flag("neutral", Some('d'), Some("default")),
    Opt::flag("neutral", Some('n'), Some("no-mask")),
    Opt::flag("neutral", None, Some("mask")),
    Opt::flag("recursive", Some('R'), Some("recursive")),
    Opt::flag("neutral", Some('L'), Some("logical")),
    Opt::flag("neutral", Some('P'), Some("physical")),
    Opt::value("restore", None, Some("restore")),
    Opt::flag("test", None, Some("test")),
    Opt::flag("info", Some('v'), Some("version")),
    Opt::flag("info", Some('h'), Some("help")),
];

/// `setfacl`: every operand is a path. `--restore FILE` sets the ACLs of the paths FILE
/// names (a `getfacl -R` dump), which the guard does not read: undeterminable. `--test`
/// only lists the ACLs it would set.
fn setfacl(args: &[Arg]) -> Parsed {
    let mut op = super::op("setfacl", Dialect::Posix);
    let (items, _) = getopt::parse(args, SETFACL, Order::Permute);
    for item in &items {
        if let Some(why) = unfollowed(item) {
            return Parsed::Unfollowed(why);
        }
        match item {
            Item::Opt {
                name: "info" | "test",
                ..
            } => return Parsed::Nothing,
            Item::Opt {
                name: "recursive", ..
            } => op.recursive = true,
            Item::Opt {
                name: "restore", ..
            } => op.mark_undeterminable(
                "setfacl --restore sets the ACLs of the paths its file names, which the guard does not read",
            ),
            Item::Operand(arg) => op.targets.push(path(arg, false)),
            _ => {}
        }
    }
    Parsed::Op(Box::new(op))
}

/// `touch [-acfhm] [-d DATE | -r FILE | -t STAMP] [--time=WORD] FILE…`.
const TOUCH: &[Opt] = &[
    Opt::flag("neutral", Some('a'), None),
    Opt::flag("neutral", Some('c'), Some("no-create")),
    Opt::value("neutral", Some('d'), Some("date")),
    Opt::flag("neutral", Some('f'), None),
    Opt::flag("no-dereference", Some('h'), Some("no-dereference")),
    Opt::flag("neutral", Some('m'), None),
    Opt::value("neutral", Some('r'), Some("reference")),
    Opt::value("neutral", Some('t'), None),
    Opt::value("neutral", None, Some("time")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `touch`: every operand is a path it creates or whose times it sets (`-` is standard
/// output, not a path).
fn touch(name: &str, args: &[Arg]) -> Parsed {
    let mut op = super::op(name, Dialect::Posix);
    let (items, _) = getopt::parse(args, TOUCH, Order::Permute);
    let on_link = items.iter().any(|i| {
        matches!(
            i,
            Item::Opt {
                name: "no-dereference",
                ..
            }
        )
    });
    for item in &items {
        if let Some(why) = unfollowed(item) {
            return Parsed::Unfollowed(why);
        }
        match item {
            Item::Opt { name: "info", .. } => return Parsed::Nothing,
            Item::Operand(arg) if arg.known() != Some("-") => {
                op.targets.push(path(arg, on_link));
            }
            _ => {}
        }
    }
    Parsed::Op(Box::new(op))
}

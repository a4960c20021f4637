//! `attrib`, `icacls`, `cacls` and `takeown`, run from cmd or PowerShell (their Windows
//! manuals).
//!
//! They are programs, not builtins: each reads its own command line, switches after `/`,
//! case-insensitively. A form that only prints (`attrib f`, `icacls f`, `icacls f /verify`,
//! `cacls f`, `/?`) changes nothing. `icacls /save` writes the ACLs to a file and
//! `takeown /s` works on another computer: neither is followed.

use agent_guard_types::{Dialect, OpSpec, Target};

use super::Parsed;
use crate::windows::{self, Tok};

/// The metadata op of the Windows program `name` (normalised) run with `args` in
/// `dialect`; `None` when `name` is not one of these programs.
pub(crate) fn parse(name: &str, args: &[Tok], dialect: Dialect) -> Option<Vec<OpSpec>> {
    let parsed = match name {
        "attrib" => attrib(args, dialect),
        "icacls" => acl_tool("icacls", args, dialect, icacls_switch),
        "cacls" => acl_tool("cacls", args, dialect, cacls_switch),
        "takeown" => takeown(args, dialect),
        _ => return None,
    };
    Some(parsed.into_ops(name, dialect))
}

/// The switch `arg` is, lower-cased without its `/` (`/T` → `t`, `/grant:r` → `grant:r`).
fn switch(arg: &Tok) -> Option<String> {
    arg.literal()?
        .strip_prefix('/')
        .map(str::to_ascii_lowercase)
}

/// The target a program changes for `arg`: where a final symlink leads unless `on_link`.
fn path(arg: &Tok, on_link: bool, dialect: Dialect) -> Target {
    Target {
        through_symlink: !on_link,
        ..windows::target(arg, dialect)
    }
}

/// The attribute letters of `attrib` (`+r`, `-h`, `+i`).
const ATTRIB_LETTERS: &str = "rashoixpuvb";

/// `attrib [+R|-R] [+A|-A] [+S|-S] [+H|-H] [+I|-I] … [PATH…] [/S [/D]] [/L]`: without an
/// attribute to set or clear it only lists them. `/S` also changes every same-named file
/// below the working directory (as `del /s`), `/L` the symlink itself. Without a path it
/// changes every file of the working directory: undeterminable.
fn attrib(args: &[Tok], dialect: Dialect) -> Parsed {
    let mut op = super::op("attrib", dialect);
    let mut changes = false;
    let mut on_link = false;
    let mut paths = Vec::new();
    for arg in args {
        if let Some(switch) = switch(arg) {
            match switch.as_str() {
                "s" => {
                    op.recursive = true;
                    op.name_match = true;
                }
                "d" => {}
                "l" => on_link = true,
                "?" => return Parsed::Nothing,
                _ => return Parsed::Unfollowed(format!("unknown switch /{switch}")),
            }
            continue;
        }
        let attribute = arg
            .literal()
            .and_then(|text| text.strip_prefix(['+', '-']))
            .is_some_and(|letters| {
                !letters.is_empty()
                    && letters
                        .chars()
                        .all(|c| ATTRIB_LETTERS.contains(c.to_ascii_lowercase()))
            });
        if attribute {
            changes = true;
        } else {
            paths.push(arg);
        }
    }
    if !changes {
        return Parsed::Nothing;
    }
    op.targets = paths.iter().map(|p| path(p, on_link, dialect)).collect();
    if op.targets.is_empty() {
        op.mark_undeterminable("attrib without a path changes every file of the working directory");
    }
    Parsed::Op(Box::new(op))
}

/// The path operand of a tool that takes it first (`icacls`, `cacls`) and the arguments
/// after it; `Err` with what the command comes to when it has none, or only asks for help.
fn path_first(args: &[Tok]) -> Result<(&Tok, &[Tok]), Parsed> {
    let Some((name, rest)) = args.split_first() else {
        return Err(Parsed::Nothing);
    };
    match switch(name) {
        Some(first) if first == "?" => Err(Parsed::Nothing),
        Some(first) => Err(Parsed::Unfollowed(format!(
            "/{first} comes before the path"
        ))),
        None => Ok((name, rest)),
    }
}

/// What one switch of `icacls` or `cacls` does.
enum AclSwitch {
    /// Changes the ACL; `values`: words that are not switches follow.
    Change { values: bool },
    /// `icacls /restore FILE`: sets the ACLs its file names, which the guard does not read.
    Restore,
    /// `/T`: recurses.
    Recurse,
    /// `/L`: acts on a symlink itself.
    OnLink,
    /// Changes nothing; `values` as for [`AclSwitch::Change`].
    Neutral { values: bool },
    /// `/?`: prints help.
    Help,
    /// A switch the guard does not follow, and why.
    Unfollowed(String),
}

/// `icacls PATH (/grant[:r] SID:PERM… | /deny … | /remove[:g|:d] SID… | /setowner USER |
/// /setintegritylevel … | /inheritance:e|d|r | /reset | /substitute OLD NEW… | /restore
/// FILE) [/T] [/C] [/L] [/Q]`: `/restore FILE` sets the ACLs of the files FILE names below
/// the directory: undeterminable.
fn icacls_switch(switch: &str) -> AclSwitch {
    match switch.split(':').next().unwrap_or_default() {
        "grant" | "deny" | "remove" | "setintegritylevel" | "setowner" | "substitute" => {
            AclSwitch::Change { values: true }
        }
        "inheritance" | "reset" => AclSwitch::Change { values: false },
        "restore" => AclSwitch::Restore,
        "t" => AclSwitch::Recurse,
        "l" => AclSwitch::OnLink,
        "c" | "q" | "verify" => AclSwitch::Neutral { values: false },
        "findsid" => AclSwitch::Neutral { values: true },
        "?" => AclSwitch::Help,
        "save" => AclSwitch::Unfollowed("/save writes the ACLs to a file".to_owned()),
        _ => AclSwitch::Unfollowed(format!("unknown switch /{switch}")),
    }
}

/// `cacls PATH [/T] [/M] [/L] [/S[:SDDL]] [/E] [/C] [/G USER:PERM…] [/R USER…] [/P
/// USER:PERM…] [/D USER…]`: without `/G`, `/R`, `/P`, `/D` or `/S:SDDL` it only prints.
fn cacls_switch(switch: &str) -> AclSwitch {
    match switch {
        "g" | "r" | "p" | "d" => AclSwitch::Change { values: true },
        sddl if sddl.starts_with("s:") => AclSwitch::Change { values: false },
        "t" => AclSwitch::Recurse,
        "l" => AclSwitch::OnLink,
        "s" | "m" | "e" | "c" => AclSwitch::Neutral { values: false },
        "?" => AclSwitch::Help,
        _ => AclSwitch::Unfollowed(format!("unknown switch /{switch}")),
    }
}

/// `icacls` and `cacls`: the path comes first, then switches read by `read`; the op names
/// the path only when a switch changes the ACL.
fn acl_tool(program: &str, args: &[Tok], dialect: Dialect, read: fn(&str) -> AclSwitch) -> Parsed {
    let (name, rest) = match path_first(args) {
        Ok(split) => split,
        Err(parsed) => return parsed,
    };
    let mut op = super::op(program, dialect);
    let (mut changes, mut on_link, mut values) = (false, false, false);
    for arg in rest {
        let Some(switch) = switch(arg) else {
            if values {
                continue;
            }
            return Parsed::Unfollowed(format!("`{}` is not a switch's value", arg.text));
        };
        values = false;
        match read(&switch) {
            AclSwitch::Change { values: v } => (changes, values) = (true, v),
            AclSwitch::Restore => {
                (changes, values, op.recursive) = (true, true, true);
                op.mark_undeterminable(
                    "icacls /restore sets the ACLs of the files its ACL file names, which the guard does not read",
                );
            }
            AclSwitch::Recurse => op.recursive = true,
            AclSwitch::OnLink => on_link = true,
            AclSwitch::Neutral { values: v } => values = v,
            AclSwitch::Help => return Parsed::Nothing,
            AclSwitch::Unfollowed(why) => return Parsed::Unfollowed(why),
        }
    }
    if !changes {
        return Parsed::Nothing;
    }
    op.targets.push(path(name, on_link, dialect));
    Parsed::Op(Box::new(op))
}

/// `takeown /F PATH [/A] [/R [/D Y|N]]`: makes the user (or, with `/A`, the
/// administrators) the owner of PATH; `/R` recurses. `/S` (another computer) is not
/// followed.
fn takeown(args: &[Tok], dialect: Dialect) -> Parsed {
    let mut op = super::op("takeown", dialect);
    let mut value_of: Option<String> = None;
    for arg in args {
        if let Some(switch) = value_of.take() {
            if switch == "f" {
                op.targets.push(path(arg, false, dialect));
            }
            continue;
        }
        let Some(switch) = switch(arg) else {
            return Parsed::Unfollowed(format!("`{}` is not a switch's value", arg.text));
        };
        match switch.as_str() {
            "f" | "d" => value_of = Some(switch),
            "r" => op.recursive = true,
            "a" => {}
            "s" | "u" | "p" => {
                return Parsed::Unfollowed(format!("/{switch} names another computer"));
            }
            "?" => return Parsed::Nothing,
            _ => return Parsed::Unfollowed(format!("unknown switch /{switch}")),
        }
    }
    if let Some(switch) = value_of {
        return Parsed::Unfollowed(format!("/{switch} needs a value"));
    }
    if op.targets.is_empty() {
        return Parsed::Unfollowed("no /F path".to_owned());
    }
    Parsed::Op(Box::new(op))
}

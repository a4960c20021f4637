//! PowerShell cmdlets that change a file's attributes, times or ACL: `Set-ItemProperty`
//! (`sp`) of a file-system property (`IsReadOnly`, `Attributes`, `LastWriteTime`, …) and
//! `Set-Acl` — metadata ops ([`OpKind::Metadata`](agent_guard_types::OpKind::Metadata)),
//! judged against the protected paths only.
//!
//! On another provider's path (`HKCU:\…`, `Registry::…`, `Env:`) they change no file, and
//! `Set-ItemProperty` of another property (a registry value's name) neither: nothing, as
//! before. A parameter the guard does not know leaves the cmdlet what it was before it was
//! modelled (see [`crate::metadata`]).

use agent_guard_lex::Word;
use agent_guard_types::{Dialect, OpSpec, Target};

use super::params::{Bound, Cmdlet, FILTERS, Kind, PATHS, bind};
use crate::metadata::Parsed;
use crate::windows::Tok;

const SET_ITEM_PROPERTY: Cmdlet = Cmdlet {
    groups: &[PATHS, FILTERS],
    params: &[
        ("name", "name", Kind::Value),
        ("psproperty", "name", Kind::Value),
        ("value", "value", Kind::Value),
        ("type", "type", Kind::Value),
        ("inputobject", "inputobject", Kind::Unsafe),
        ("passthru", "passthru", Kind::Switch),
        ("force", "force", Kind::Switch),
        ("credential", "credential", Kind::Unsafe),
    ],
    positional: &["path", "name", "value"],
};

const SET_ACL: Cmdlet = Cmdlet {
    groups: &[PATHS, FILTERS],
    params: &[
        ("aclobject", "aclobject", Kind::Value),
        ("inputobject", "inputobject", Kind::Value),
        ("centralaccesspolicy", "centralaccesspolicy", Kind::Value),
        (
            "clearcentralaccesspolicy",
            "clearcentralaccesspolicy",
            Kind::Switch,
        ),
        ("passthru", "passthru", Kind::Switch),
    ],
    positional: &["path", "aclobject", "centralaccesspolicy"],
};

/// The file-system properties `Set-ItemProperty` sets on a file (lower-cased).
const FILE_PROPERTIES: &[&str] = &[
    "isreadonly",
    "attributes",
    "lastwritetime",
    "lastwritetimeutc",
    "lastaccesstime",
    "lastaccesstimeutc",
    "creationtime",
    "creationtimeutc",
    "unixfilemode",
];

/// The metadata ops of a PowerShell command `name` (normalised) with its argument words;
/// `None` when `name` is neither cmdlet. `piped`: the command reads the pipeline.
pub(super) fn parse(name: &str, words: &[Word], piped: bool) -> Option<Vec<OpSpec>> {
    let (cmdlet, table) = match name {
        "set-itemproperty" | "sp" => ("set-itemproperty", &SET_ITEM_PROPERTY),
        "set-acl" => ("set-acl", &SET_ACL),
        _ => return None,
    };
    let parsed = match metadata(cmdlet, &bind(words, table), piped) {
        Parsed::Op(mut op) if cmdlet != name => {
            op.note(format!("{name} is an alias of {cmdlet}"));
            Parsed::Op(op)
        }
        other => other,
    };
    Some(parsed.into_ops(name, Dialect::PowerShell))
}

fn metadata(cmdlet: &str, bound: &Bound, piped: bool) -> Parsed {
    if bound.paths.iter().any(|t| other_provider(&t.text)) {
        return Parsed::Nothing;
    }
    let other_property = bound
        .value("name")
        .and_then(Tok::literal)
        .is_some_and(|name| !FILE_PROPERTIES.contains(&name.to_ascii_lowercase().as_str()));
    if cmdlet == "set-itemproperty" && other_property {
        return Parsed::Nothing;
    }
    if let Some(why) = bound.unknown.first() {
        return Parsed::Unfollowed(why.clone());
    }
    let mut op = crate::metadata::op(cmdlet, Dialect::PowerShell);
    bound.mark(&mut op);
    // `-WhatIf` only reports what it would change.
    if op.dry_run {
        return Parsed::Nothing;
    }
    op.targets = bound
        .paths
        .iter()
        .cloned()
        .map(|t| Target {
            through_symlink: true,
            ..t
        })
        .collect();
    if op.targets.is_empty() {
        op.mark_undeterminable(if piped {
            "the paths arrive through the pipeline"
        } else {
            "no -Path: the item is given as an object"
        });
    }
    Parsed::Op(Box::new(op))
}

/// Returns `true` for a path of a provider other than the file system (`HKLM:/…`,
/// `Registry::…`, `Env:`, `Cert:/…`), as [`crate::windows::target`] spells it: a drive name
/// longer than one letter. A provider-qualified file-system path
/// (`Microsoft.PowerShell.Core\FileSystem::C:\x`) is a file.
fn other_provider(text: &str) -> bool {
    let Some((drive, _)) = text.split_once(':') else {
        return false;
    };
    drive.len() > 1 && drive.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

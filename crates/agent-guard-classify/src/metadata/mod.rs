//! Commands that change the permissions, ownership, attributes or times of paths
//! ([`OpKind::Metadata`]): no content is lost, so the policy judges them against the
//! protected paths only (a hook made executable in `.git/hooks`, the guard's own
//! configuration made unreadable).
//!
//! - POSIX ([`posix`]): `chmod`, `chown`, `chgrp`, `chattr`, `setfacl`, `touch`;
//! - cmd and PowerShell ([`windows`]): `attrib`, `icacls`, `cacls`, `takeown` (the
//!   PowerShell cmdlets `Set-ItemProperty` and `Set-Acl` are bound in
//!   `crate::powershell`, with the other cmdlets' parameter rules).
//!
//! The targets are the path operands, built as every other path op builds them (quotes,
//! globs, variables, `~`, spans). The mode, owner or attribute operand, an option's value
//! and a reference file are not targets. A recursive change (`chmod -R`, `icacls /t`) sets
//! [`OpSpec::recursive`]: it reaches everything below its targets. The op acts on where a
//! final symlink leads unless the command is told to change the link itself (`chown -h`,
//! `touch -h`, `icacls /l`).
//!
//! The option grammar is each tool's manual. An option the guard does not know might take
//! a value (then a path would be read as one, or a value as a path): rather than guess, the
//! command stays what it was before it was modelled, a program the guard does not see into
//! ([`OpKind::OpaqueProgram`], checkpointed).

pub(crate) mod posix;
pub(crate) mod windows;

use agent_guard_types::{Dialect, OpKind, OpSpec};

/// What a metadata command's arguments come to.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// The paths it changes.
    Op(Box<OpSpec>),
    /// It only prints (`--help`, `setfacl --test`, `attrib` with no attribute to change).
    Nothing,
    /// Its grammar could not be followed (an unknown option): why.
    Unfollowed(String),
}

impl Parsed {
    /// The ops of the command `name`: an opaque program when its grammar was not followed.
    pub(crate) fn into_ops(self, name: &str, dialect: Dialect) -> Vec<OpSpec> {
        match self {
            Parsed::Op(op) => vec![*op],
            Parsed::Nothing => Vec::new(),
            Parsed::Unfollowed(why) => vec![crate::noop::opaque(
                name,
                dialect,
                &format!("{name}: {why}, so which paths it changes is not known"),
            )],
        }
    }
}

/// Creates a metadata op of `name` in `dialect`.
pub(crate) fn op(name: &str, dialect: Dialect) -> OpSpec {
    OpSpec::new(name, OpKind::Metadata, dialect)
}

#[cfg(test)]
mod tests;

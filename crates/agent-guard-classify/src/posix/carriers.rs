//! Options that hold a command another program runs later (issue 37, point 2): `tar
//! --use-compress-program=CMD`, `--to-command`, `--checkpoint-action=exec=CMD`, `zip -TT
//! CMD`, `rsync -e CMD`, `ssh -o ProxyCommand=CMD`, … The table below is the data; each
//! carried string is judged as the command it is (a nested POSIX script), or as unknown when
//! the line builds it at run time. `ssh`'s remote command runs on another machine: what it
//! destroys there is outside the workspace.

use agent_guard_types::{Dialect, OpKind, OpSpec, Outside, Place};

use super::Line;
use crate::args::Arg;

/// One option that carries a command.
struct Carrier {
    /// The programs that read it.
    programs: &'static [&'static str],
    /// Its short spelling (`-I`), taking the next word or an attached value.
    short: Option<&'static str>,
    /// Its long spelling (`--use-compress-program`), taking `=VALUE` or the next word.
    long: Option<&'static str>,
    /// What the value starts with before the command (`exec=` in `--checkpoint-action`).
    prefix: &'static str,
}

const TAR: &[&str] = &["tar", "gtar", "bsdtar"];

/// The carriers.
const CARRIERS: &[Carrier] = &[
    carrier(TAR, Some("-I"), Some("--use-compress-program"), ""),
    carrier(TAR, None, Some("--to-command"), ""),
    carrier(TAR, None, Some("--checkpoint-action"), "exec="),
    carrier(TAR, Some("-F"), Some("--info-script"), ""),
    carrier(TAR, None, Some("--new-volume-script"), ""),
    carrier(TAR, None, Some("--rsh-command"), ""),
    carrier(&["zip"], Some("-TT"), Some("--unzip-command"), ""),
    carrier(&["rsync"], Some("-e"), Some("--rsh"), ""),
    carrier(&["scp", "sftp"], Some("-S"), None, ""),
];

const fn carrier(
    programs: &'static [&'static str],
    short: Option<&'static str>,
    long: Option<&'static str>,
    prefix: &'static str,
) -> Carrier {
    Carrier {
        programs,
        short,
        long,
        prefix,
    }
}

/// `ssh -o KEY=VALUE` keys whose value is a command run on this machine.
const SSH_COMMAND_KEYS: &[&str] = &["proxycommand", "localcommand", "knownhostscommand"];

/// A command an option carries.
#[derive(Clone, Copy)]
enum Carried<'a> {
    /// Spelled out on the line.
    Literal(&'a str),
    /// Built when the line runs.
    NotLiteral,
}

impl<'a> Carried<'a> {
    fn of(value: Option<&'a str>) -> Carried<'a> {
        value.map_or(Carried::NotLiteral, Carried::Literal)
    }
}

/// The ops of the commands `name`'s options carry, and (for `ssh`) of its remote command.
pub(super) fn ops(name: &str, rest: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    let mut ops = Vec::new();
    for (at, arg) in rest.iter().enumerate() {
        let next = rest.get(at + 1);
        for carrier in CARRIERS.iter().filter(|c| c.programs.contains(&name)) {
            if let Some(value) = carried(carrier, arg, next) {
                ops.extend(judge(value, &format!("{name}'s command option"), line));
            }
        }
        if matches!(name, "ssh" | "scp" | "sftp" | "rsync" | "autossh")
            && let Some(value) = ssh_option(arg, next)
        {
            ops.extend(judge(value, "an ssh option's command", line));
        }
    }
    if name == "ssh" {
        ops.extend(remote(rest, line));
    }
    ops
}

/// The command `carrier` takes from `arg` (and the word after it): `None` when `arg` is not
/// that option; `Some(None)` when its value is not literal.
fn carried<'a>(carrier: &Carrier, arg: &'a Arg, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    let text = arg.known()?;
    let value = if let Some(long) = carrier.long.filter(|l| text.starts_with(l)) {
        match &text[long.len()..] {
            "" => next.map(Arg::known)?,
            attached => Some(attached.strip_prefix('=')?),
        }
    } else if let Some(short) = carrier.short.filter(|s| text.starts_with(s)) {
        match &text[short.len()..] {
            "" => next.map(Arg::known)?,
            attached => Some(attached),
        }
    } else {
        return None;
    };
    Some(match value {
        Some(v) => Carried::Literal(v.strip_prefix(carrier.prefix)?),
        None => Carried::NotLiteral,
    })
}

/// `-o ProxyCommand=CMD`, `-oLocalCommand CMD`: the command.
fn ssh_option<'a>(arg: &'a Arg, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    let text = arg.known()?;
    let option = match text.strip_prefix("-o") {
        Some("") => {
            let next = next?;
            // Not literal: only a command key with a value built at run time matters
            // (`-o ControlPath="$SOCK"` carries no command).
            let Some(option) = next.known() else {
                let raw = next.text.to_ascii_lowercase();
                return SSH_COMMAND_KEYS
                    .iter()
                    .any(|k| raw.starts_with(k))
                    .then_some(Carried::NotLiteral);
            };
            option
        }
        Some(attached) => attached,
        None => return None,
    };
    let (key, value) = option
        .split_once('=')
        .or_else(|| option.split_once(char::is_whitespace))?;
    SSH_COMMAND_KEYS
        .contains(&key.trim().to_ascii_lowercase().as_str())
        .then(|| Carried::of(Some(value.trim())))
}

/// A carried command, judged as what it runs. It runs while its program does (a compressor
/// while `tar` reads the tree), so what it deletes or writes in the workspace cannot be
/// taken away first without changing what the program sees: the workspace is checkpointed
/// instead, and its paths are the checkpointed program's targets, which the policy refuses
/// when they lead outside the workspace. What no checkpoint keeps (unknown commands, the
/// guard's own verbs, databases, clouds) stays as judged.
fn judge(value: Carried<'_>, what: &str, line: &Line<'_>) -> Vec<OpSpec> {
    let Carried::Literal(text) = value else {
        return vec![OpSpec::unknown(
            "<opaque>",
            Dialect::Posix,
            format!("{what} is not literal"),
        )];
    };
    let (mut kept, local): (Vec<OpSpec>, Vec<OpSpec>) =
        super::nested(text, line, what).into_iter().partition(|op| {
            matches!(
                op.kind,
                OpKind::Unknown
                    | OpKind::GuardVerb
                    | OpKind::DatabaseDestroy
                    | OpKind::OutsideDestroy
                    | OpKind::OpaqueProgram
            ) || op.undeterminable
        });
    if !local.is_empty() {
        let mut op = OpSpec::opaque_program(
            "<carried>",
            Dialect::Posix,
            format!("{what} runs `{text}` while the program runs"),
        );
        op.targets = local
            .into_iter()
            .flat_map(|op| op.targets.into_iter().chain(op.sources))
            .collect();
        kept.push(op);
    }
    kept
}

/// `ssh [options] DESTINATION COMMAND…`: the command runs on the destination; whatever it
/// destroys there is outside the workspace.
fn remote(rest: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    const VALUED: &str = "BbcDEeFIiJLlmOoPpQRSWw";
    let mut at = 0;
    while let Some(text) = rest.get(at).and_then(Arg::known) {
        if text == "--" {
            at += 1;
            break;
        }
        let Some(flags) = text.strip_prefix('-') else {
            break;
        };
        // The last letter of a cluster may take the next word.
        let takes = flags.chars().position(|c| VALUED.contains(c));
        at += match takes {
            Some(i) if i + 1 == flags.len() => 2,
            _ => 1,
        };
    }
    let Some(command) = rest.get(at + 1..).filter(|c| !c.is_empty()) else {
        return Vec::new();
    };
    let host = rest.get(at).and_then(Arg::known).unwrap_or("the host");
    // Only what certainly destroys there is asked: deletes, git's discards, databases and
    // teardowns. A command built at run time, a program, a write of a file that may be new,
    // is the remote machine's business (nothing of the workspace is at stake).
    let Some(words) = command
        .iter()
        .map(Arg::known)
        .collect::<Option<Vec<&str>>>()
    else {
        return Vec::new();
    };
    let destroys = super::nested(&words.join(" "), line, "ssh's remote command")
        .iter()
        .any(|op| {
            matches!(
                op.kind,
                OpKind::FsDelete
                    | OpKind::GitClean
                    | OpKind::GitResetHard
                    | OpKind::GitDiscard
                    | OpKind::GitStashDrop
                    | OpKind::GitBranchDelete
                    | OpKind::GitRefDelete
                    | OpKind::DatabaseDestroy
                    | OpKind::OutsideDestroy
            )
        });
    if !destroys {
        return Vec::new();
    }
    let mut op = OpSpec::new("ssh", OpKind::OutsideDestroy, Dialect::Posix);
    op.note(format!(
        "ssh runs a command on {host} that destroys data there"
    ));
    op.outside = Some(Outside {
        place: Place::Host,
        what: format!("what the remote command destroys on `{host}`"),
        database: None,
    });
    vec![op]
}

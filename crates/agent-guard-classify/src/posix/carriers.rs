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
    // sftp splits `-D sftp_server_path` into a command and runs it here.
    carrier(&["sftp"], Some("-D"), None, ""),
];

/// GNU `getopt_long` takes any unambiguous prefix of a long option; a prefix this long of a
/// carrier is read as the carrier (a shorter or ambiguous one makes the program refuse).
const MIN_PREFIX: usize = 3;

/// Options that are exact names of their own although they begin a carrier's name.
const NOT_PREFIXES: &[&str] = &["checkpoint"];

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

/// `ssh -o KEY=VALUE` keys whose value names code or configuration ssh loads here (a
/// library, another configuration file that may hold a `ProxyCommand`).
const SSH_LOADED_KEYS: &[&str] = &[
    "include",
    "pkcs11provider",
    "securitykeyprovider",
    "sshaskpass",
];

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
    // `tar cIf CMD a.tar`: old-style letters take their values from the next words, in order.
    if TAR.contains(&name)
        && let Some(letters) = rest
            .first()
            .and_then(Arg::known)
            .filter(|t| !t.starts_with('-'))
    {
        ops.extend(old_style_tar(letters, &rest[1..], line));
    }
    for (at, arg) in rest.iter().enumerate() {
        let next = rest.get(at + 1);
        for carrier in CARRIERS.iter().filter(|c| c.programs.contains(&name)) {
            if let Some(value) = carried(carrier, arg, next) {
                ops.extend(judge(value, &format!("{name}'s command option"), line));
            }
        }
        if matches!(name, "ssh" | "scp" | "sftp" | "autossh") {
            if let Some(value) = ssh_option(arg, next) {
                ops.extend(judge(value, "an ssh option's command", line));
            }
            // Like a script the guard does not read: checkpointed (NL2Bash: `ssh -F
            // vagrant-ssh default` is common).
            if let Some(why) = ssh_loads(arg, next) {
                ops.push(OpSpec::opaque_program(name, Dialect::Posix, why));
            }
        }
    }
    if name == "ssh" {
        ops.extend(remote(rest, line));
    }
    ops
}

/// [`ops`] and [`env_ops`] of one command: what its options and its assignments carry.
pub(super) fn of_command(
    name: &str,
    rest: &[Arg],
    command: &agent_guard_lex::SimpleCommand,
    line: &Line<'_>,
) -> Vec<OpSpec> {
    if !(TAR.contains(&name)
        || matches!(
            name,
            "zip" | "rsync" | "scp" | "sftp" | "ssh" | "autossh" | "history"
        ))
    {
        return Vec::new();
    }
    let assignments: Vec<String> = command
        .assignments
        .iter()
        .filter_map(agent_guard_lex::Word::literal_text)
        .collect();
    let mut out = ops(name, rest, line);
    out.extend(env_ops(name, &assignments, line));
    out.extend(history_file(name, rest, &assignments));
    out
}

/// `HISTFILE=FILE history -w` writes the history over FILE (`-a` appends to it): the file
/// comes from the variable when no operand names one.
fn history_file(name: &str, rest: &[Arg], assignments: &[String]) -> Vec<OpSpec> {
    let Some(file) = assignments
        .iter()
        .find_map(|a| a.strip_prefix("HISTFILE="))
        .filter(|_| name == "history")
    else {
        return Vec::new();
    };
    let texts: Vec<&str> = rest.iter().filter_map(Arg::known).collect();
    if texts.len() != rest.len() || texts.iter().any(|t| !t.starts_with('-')) {
        return Vec::new();
    }
    let flags: String = texts.iter().map(|t| &t[1..]).collect();
    if !flags.contains(['w', 'a']) {
        return Vec::new();
    }
    let mut op = crate::writes::overwrite("history", agent_guard_types::WriteMode::Replace);
    op.targets.push(agent_guard_types::Target::literal(file));
    op.note("bash's history builtin writes its history into $HISTFILE");
    vec![if flags.contains('w') {
        op
    } else {
        crate::writes::append_of(op)
    }]
}

/// The commands of the variables that hand `name` a carrier (`TAR_OPTIONS`, `RSYNC_RSH`),
/// from the assignments before it (`NAME=VALUE`).
pub(super) fn env_ops(name: &str, assignments: &[String], line: &Line<'_>) -> Vec<OpSpec> {
    let mut ops = Vec::new();
    for assignment in assignments {
        let Some((variable, value)) = assignment.split_once('=') else {
            continue;
        };
        match (variable, name) {
            ("RSYNC_RSH", "rsync") => {
                ops.extend(judge(Carried::Literal(value), "RSYNC_RSH", line));
            }
            ("TAR_OPTIONS", _) if TAR.contains(&name) => {
                let words: Vec<Arg> = split_options(value)
                    .iter()
                    .map(|w| Arg::synthetic(w))
                    .collect();
                ops.extend(self::ops(name, &words, line));
            }
            _ => {}
        }
    }
    ops
}

/// Splits a variable's value into words as tar splits `TAR_OPTIONS`: at blanks, with
/// quotes and backslashes as the shell has them.
fn split_options(value: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut chars = value.chars();
    let mut any = false;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None | Some('"'), '\\') => {
                word.extend(chars.next());
                any = true;
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// `tar cIf CMD a.tar`: each letter that takes a value takes the next word.
fn old_style_tar(letters: &str, words: &[Arg], line: &Line<'_>) -> Vec<OpSpec> {
    const VALUED: &str = "bCfFgHIKLNTVX";
    let mut ops = Vec::new();
    let mut values = words.iter();
    for letter in letters.chars().filter(|c| VALUED.contains(*c)) {
        let value = values.next();
        if matches!(letter, 'I' | 'F') {
            ops.extend(judge(
                Carried::of(value.and_then(Arg::known)),
                "tar's command option",
                line,
            ));
        }
    }
    ops
}

/// The value of a short option `-X` given alone (the next word), glued (`-Xvalue`), or in a
/// cluster of flags (`-aveX value`, `-avXvalue`).
fn short_value<'a>(short: &str, text: &'a str, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    if let Some(attached) = text.strip_prefix(short) {
        return Some(match attached {
            "" => Carried::of(next.map(Arg::known)?),
            attached => Carried::Literal(attached),
        });
    }
    // A cluster: one dash, flags, then the letter.
    let letter = short.strip_prefix('-').filter(|l| l.len() == 1)?;
    let cluster = text.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    let at = cluster.find(letter)?;
    Some(match &cluster[at + 1..] {
        "" => Carried::of(next.map(Arg::known)?),
        attached => Carried::Literal(attached),
    })
}

/// The value of a long option, or of any long enough prefix of it (`--use-compress=CMD`).
fn long_value<'a>(long: &str, text: &'a str, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    let body = text.strip_prefix("--")?;
    let (name, attached) = match body.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (body, None),
    };
    let full = long.strip_prefix("--")?;
    let matches = name == full
        || (name.len() >= MIN_PREFIX && full.starts_with(name) && !NOT_PREFIXES.contains(&name));
    if !matches {
        return None;
    }
    Some(match attached {
        Some(value) => Carried::Literal(value),
        None => Carried::of(next.map(Arg::known)?),
    })
}

/// The command `carrier` takes from `arg` (and the word after it): `None` when `arg` is not
/// that option.
fn carried<'a>(carrier: &Carrier, arg: &'a Arg, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    let text = arg.known()?;
    let value = carrier
        .long
        .and_then(|long| long_value(long, text, next))
        .or_else(|| {
            carrier
                .short
                .and_then(|short| short_value(short, text, next))
        })?;
    Some(match value {
        Carried::Literal(v) => Carried::Literal(v.strip_prefix(carrier.prefix)?),
        Carried::NotLiteral => Carried::NotLiteral,
    })
}

/// `-o ProxyCommand=CMD`, `-oLocalCommand CMD`: the command.
fn ssh_option<'a>(arg: &'a Arg, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    let Carried::Literal(option) = ssh_o(arg, next)? else {
        // Not literal: only a command key with a value built at run time matters
        // (`-o ControlPath="$SOCK"` carries no command).
        let raw = next
            .map(|n| n.text.to_ascii_lowercase())
            .unwrap_or_default();
        return SSH_COMMAND_KEYS
            .iter()
            .any(|k| raw.starts_with(k))
            .then_some(Carried::NotLiteral);
    };
    let (key, value) = option
        .split_once('=')
        .or_else(|| option.split_once(char::is_whitespace))?;
    SSH_COMMAND_KEYS
        .contains(&key.trim().to_ascii_lowercase().as_str())
        .then(|| Carried::of(Some(value.trim())))
}

/// The text of an `-o` option (`-o X`, `-oX`, `-4o X`, `-vo X`).
fn ssh_o<'a>(arg: &'a Arg, next: Option<&'a Arg>) -> Option<Carried<'a>> {
    short_value("-o", arg.known()?, next)
}

/// Why an ssh option makes ssh load what the guard does not read: a configuration file
/// (`-F FILE`, `-o Include=FILE`, which may hold a `ProxyCommand`) or a library.
fn ssh_loads(arg: &Arg, next: Option<&Arg>) -> Option<String> {
    let text = arg.known()?;
    if let Some(file) = short_value("-F", text, next) {
        return (!matches!(file, Carried::Literal("/dev/null"))).then(|| {
            "ssh reads a configuration file the guard does not read (it may run a ProxyCommand)"
                .to_owned()
        });
    }
    let Carried::Literal(option) = ssh_o(arg, next)? else {
        return None;
    };
    let key = option.split(['=', ' ', '\t']).next()?.to_ascii_lowercase();
    SSH_LOADED_KEYS
        .contains(&key.as_str())
        .then(|| format!("ssh's `{key}` option loads a file the guard does not read"))
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
    // OpenSSH reads options after the destination too, and drops a `--` before the command.
    let mut from = at + 1;
    while let Some(text) = rest.get(from).and_then(Arg::known) {
        if text == "--" {
            from += 1;
            break;
        }
        let Some(flags) = text.strip_prefix('-').filter(|f| !f.is_empty()) else {
            break;
        };
        let takes = flags.chars().position(|c| VALUED.contains(c));
        from += match takes {
            Some(i) if i + 1 == flags.len() => 2,
            _ => 1,
        };
    }
    // `-o RemoteCommand=CMD` is the remote command too.
    let configured: Vec<String> = rest
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match ssh_o(a, rest.get(i + 1))? {
            Carried::Literal(option) => Some(option),
            Carried::NotLiteral => None,
        })
        .filter_map(|o| {
            let (key, value) = o.split_once('=').or_else(|| o.split_once(' '))?;
            key.eq_ignore_ascii_case("remotecommand")
                .then(|| value.trim().to_owned())
        })
        .collect();
    let command: Vec<Arg> = rest
        .get(from..)
        .unwrap_or_default()
        .iter()
        .cloned()
        .chain(configured.iter().map(|c| Arg::synthetic(c)))
        .collect();
    if command.is_empty() {
        return Vec::new();
    }
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
                    | OpKind::GitPushForce
            ) || (op.kind == OpKind::Overwrite
                && op.targets.iter().any(|t| t.text.starts_with("/dev/")))
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

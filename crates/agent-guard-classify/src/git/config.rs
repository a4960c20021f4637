//! git configuration that runs programs or disarms a safety.
//!
//! Some keys hold a shell command git runs (`alias.x = !…`, `core.editor`, `core.pager`,
//! `core.sshCommand`, `diff.<driver>.textconv`, …): set with `-c` for one command or stored
//! with `git config` for later ones, they are programs and are classified. Others switch
//! a safety off: `clean.requireForce=false` makes `git clean` without `-f` delete, and a
//! shorter `gc.pruneExpire` makes `git gc` prune reachable-only-yesterday objects now.

use crate::args::Arg;

/// A program git runs or stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Program {
    /// The shell command, `None` when it is not literal.
    pub(crate) script: Option<String>,
    /// It runs now exactly as written (a `!` alias invoked by this command, with its
    /// arguments appended), so its ops are judged as they are; otherwise it runs later or
    /// with arguments git adds, and destructive ops are undeterminable.
    pub(crate) exact: bool,
    /// It runs from the top of the work tree (shell aliases do), not from here.
    pub(crate) repo_root: bool,
    /// Why it is a program.
    pub(crate) note: String,
    /// It is an editor: the file git hands it is git's own scratch file (the commit
    /// message, the rebase todo list), so rewriting that file destroys nothing.
    pub(crate) editor: bool,
}

/// Safety settings switched off earlier on the line (or by `-c` on this command).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Disarmed {
    /// `clean.requireForce` is false: `git clean` deletes without `-f`.
    pub(crate) require_force: bool,
    /// `gc.pruneExpire` or a reflog expiry was changed: `git gc` may prune now.
    pub(crate) prune: bool,
    /// `fetch.prune`, `fetch.pruneTags` or a remote's `prune`/`pruneTags` was set: a fetch
    /// may delete refs.
    pub(crate) fetch_prune: bool,
}

impl Disarmed {
    /// Both sets of disarmed settings.
    #[must_use]
    pub(crate) fn union(self, other: Disarmed) -> Disarmed {
        Disarmed {
            require_force: self.require_force || other.require_force,
            prune: self.prune || other.prune,
            fetch_prune: self.fetch_prune || other.fetch_prune,
        }
    }
}

/// Keys (lower-cased) whose value is a command git runs through the shell.
const PROGRAM_KEYS: &[&str] = &[
    "core.editor",
    "core.pager",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "core.hookspath",
    "sequence.editor",
    "diff.external",
    "diff.guitool",
    "merge.tool",
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.x509.program",
    "gpg.ssh.program",
    "interactive.difffilter",
    "uploadpack.packobjectshook",
    "credential.helper",
    "sendemail.sendmailcmd",
    "sendemail.smtpserver",
    "web.browser",
    "instaweb.httpd",
    "core.alternaterefscommand",
    "core.gitproxy",
    "help.browser",
    "gpg.ssh.defaultkeycommand",
];

/// Patterns `section.*.key` (lower-cased) whose value is a command.
const PROGRAM_PATTERNS: &[(&str, &str)] = &[
    ("pager.", ""),
    ("alias.", ""),
    ("diff.", ".command"),
    ("diff.", ".textconv"),
    ("merge.", ".driver"),
    ("filter.", ".clean"),
    ("filter.", ".smudge"),
    ("filter.", ".process"),
    ("mergetool.", ".cmd"),
    ("difftool.", ".cmd"),
    ("credential.", ".helper"),
    ("browser.", ".cmd"),
    ("man.", ".cmd"),
    ("remote.", ".uploadpack"),
    ("remote.", ".receivepack"),
    ("submodule.", ".update"),
    ("tar.", ".command"),
    ("trailer.", ".command"),
    ("trailer.", ".cmd"),
    ("man.", ".path"),
    ("browser.", ".path"),
    ("protocol.", ".allow"),
    ("remote.", ".url"),
    ("remote.", ".pushurl"),
    ("url.", ".insteadof"),
    ("url.", ".pushinsteadof"),
];

/// Keys that run a program only for some values: `submodule.<name>.update` with `!cmd`,
/// URLs with git's `ext::` transport (which runs a command), `protocol.<name>.allow` that
/// lets `ext::` run (`always`, `user`).
fn runs_for(key: &str, value: Option<&str>) -> bool {
    let value = value.map(str::trim_ascii);
    if key.starts_with("submodule.") {
        return value.is_none_or(|v| v.starts_with('!'));
    }
    if key.starts_with("protocol.") {
        return key == "protocol.ext.allow"
            && value.is_none_or(|v| !v.eq_ignore_ascii_case("never"));
    }
    let last = key.rsplit('.').next().unwrap_or_default();
    if key.starts_with("remote.") && matches!(last, "url" | "pushurl") || key.starts_with("url.") {
        return value.is_none_or(|v| v.to_ascii_lowercase().starts_with("ext::"))
            || key.starts_with("url.") && key.contains("ext::");
    }
    true
}

/// Returns `true` if `key` (any case) holds a command git runs.
pub(crate) fn is_program_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    PROGRAM_KEYS.contains(&key.as_str())
        || PROGRAM_PATTERNS.iter().any(|(start, end)| {
            key.starts_with(start) && key.ends_with(end) && key.len() > start.len() + end.len()
        })
}

/// Returns `true` if a git boolean value is false (`false`, `no`, `off`, `0`, empty).
fn is_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0" | ""
    )
}

/// What setting `key` to `value` (`None`: not literal) disarms.
pub(crate) fn disarms(key: &str, value: Option<&str>) -> Disarmed {
    let key = key.to_ascii_lowercase();
    Disarmed {
        require_force: key == "clean.requireforce" && value.is_none_or(is_false),
        prune: matches!(
            key.as_str(),
            "gc.pruneexpire"
                | "gc.reflogexpire"
                | "gc.reflogexpireunreachable"
                | "gc.worktreepruneexpire"
                | "core.logallrefupdates"
        ),
        fetch_prune: matches!(key.as_str(), "fetch.prune" | "fetch.prunetags")
            || (key.starts_with("remote.")
                && matches!(key.rsplit('.').next(), Some("prune" | "prunetags"))),
    }
}

/// The program a key's value is, if the key holds one.
pub(crate) fn program(key: &str, value: Option<&str>, stored: bool) -> Option<Program> {
    if !is_program_key(key) {
        return None;
    }
    let lowered = key.to_ascii_lowercase();
    if !runs_for(&lowered, value) {
        return None;
    }
    let value = match value {
        Some(v) if lowered.starts_with("alias.") && !v.starts_with('!') => {
            // A git alias without `!` is more git arguments: judged where it is used.
            return None;
        }
        Some(v) => Some(v.strip_prefix('!').unwrap_or(v).to_owned()),
        None => None,
    };
    let note = if stored {
        format!("git config stores `{key}`, a program git runs later")
    } else {
        format!("`{key}` is a program git runs, with arguments of its own")
    };
    Some(Program {
        script: value,
        exact: false,
        repo_root: false,
        note,
        editor: matches!(lowered.as_str(), "core.editor" | "sequence.editor"),
    })
}

/// Returns `true` if the guard knows what `key` does, so setting it with `-c` does not make
/// the repository or work tree uncertain: aliases, programs, the disarming settings, and
/// settings that only change presentation or identity.
pub(crate) fn understood(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    is_program_key(&key)
        || disarms(&key, None) != Disarmed::default()
        || key.starts_with("alias.")
        || ["user.", "color.", "advice.", "i18n.", "column."]
            .iter()
            .any(|p| key.starts_with(p))
        || matches!(
            key.as_str(),
            "core.quotepath"
                | "commit.gpgsign"
                | "tag.gpgsign"
                | "init.defaultbranch"
                | "safe.directory"
                | "log.showsignature"
                | "clean.requireforce"
        )
}

/// One `-c` pair: `key=value` (`-c key` alone means true).
pub(crate) fn pair(text: &str) -> (String, Option<String>) {
    match text.split_once('=') {
        Some((key, value)) => (key.to_owned(), Some(value.to_owned())),
        None => (text.to_owned(), Some("true".to_owned())),
    }
}

/// Options of `git config` that take a separate value.
const CONFIG_VALUED: &[&str] = &[
    "-f",
    "--file",
    "--blob",
    "--type",
    "--default",
    "--comment",
    "--value",
    "--url",
];

/// Options of `git config` that read, list or remove instead of setting.
const CONFIG_READS: &[&str] = &[
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "-l",
    "--list",
    "--unset",
    "--unset-all",
    "--rename-section",
    "--remove-section",
    "-e",
    "--edit",
];

/// The settings a `git config …` command writes: `(key, value)` with `None` for a value
/// that is not literal.
pub(crate) fn writes(args: &[Arg]) -> Vec<(String, Option<String>)> {
    let mut operands: Vec<&Arg> = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some(text) if CONFIG_VALUED.contains(&text) => index += 1,
            Some(text) if CONFIG_READS.contains(&text) => return Vec::new(),
            Some("--") => {
                operands.extend(&args[index..]);
                break;
            }
            Some(text) if arg.is_option() && !text.starts_with("--no-") => {}
            Some(_) if arg.is_option() => {}
            _ => operands.push(arg),
        }
    }
    // `git config set KEY VALUE` (git 2.46) and the other subcommands.
    match operands.first().and_then(|a| a.known()) {
        Some("set") => {
            operands.remove(0);
        }
        Some("get" | "list" | "unset" | "rename-section" | "remove-section" | "edit") => {
            return Vec::new();
        }
        _ => {}
    }
    match operands.as_slice() {
        [key, value, ..] => match key.known() {
            Some(key) => vec![(key.to_owned(), value.known().map(str::to_owned))],
            None => vec![("<not literal>".to_owned(), None)],
        },
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    #[test]
    fn program_keys() {
        for key in [
            "core.editor",
            "core.sshCommand",
            "alias.nuke",
            "pager.log",
            "diff.pdf.textconv",
            "filter.lfs.smudge",
            "credential.https://x.helper",
        ] {
            assert!(is_program_key(key), "{key}");
        }
        for key in ["user.name", "core.autocrlf", "diff.renames", "alias."] {
            assert!(!is_program_key(key), "{key}");
        }
    }

    #[test]
    fn config_writes() {
        assert_eq!(
            writes(&args("--global alias.x !rm")),
            [("alias.x".to_owned(), Some("!rm".to_owned()))]
        );
        assert_eq!(
            writes(&args("set --comment why core.editor vim")),
            [("core.editor".to_owned(), Some("vim".to_owned()))]
        );
        assert!(writes(&args("--get core.editor")).is_empty());
        assert!(writes(&args("core.editor")).is_empty());
        assert!(writes(&args("--unset alias.x")).is_empty());
    }

    #[test]
    fn disarming_settings() {
        assert!(disarms("clean.requireForce", Some("false")).require_force);
        assert!(disarms("CLEAN.REQUIREFORCE", Some("0")).require_force);
        assert!(!disarms("clean.requireForce", Some("true")).require_force);
        assert!(disarms("gc.pruneExpire", Some("now")).prune);
        assert_eq!(disarms("user.name", Some("x")), Disarmed::default());
    }
}

//! Redirections that open a file for writing.
//!
//! POSIX: `>`, `>|` (clobber; `noclobber` is not assumed), `&>`, `>&FILE` (stdout and
//! stderr, when the word is not a descriptor), any `n>`, and `<>` (opens read-write: it does
//! not truncate, but the program may write anywhere in the file, so it is an in-place
//! overwrite too) are overwrites. `>>`, `&>>` and `n>>` are appends ([`OpKind::Append`]):
//! nothing already in the file is lost, but the path is still judged, since appending to
//! `.git/config` or the quarantine's logs is tampering. Neither is a descriptor duplication
//! (`2>&1`, `>&-`), a process substitution (`> >(tee log)`, a pipe) or one of the sinks of
//! [`is_sink`]. The shell opens the path, so a final symlink is written through.
//!
//! cmd and PowerShell: `>`, `n>` and PowerShell's `*>` overwrite, `>>` (and `n>>`, `*>>`)
//! append; not `2>&1`, not the null device (`nul`, `$null`) or the other reserved device
//! names.

use agent_guard_lex::{RedirectOp, SimpleCommand, Word, WordPart};
use agent_guard_types::{Dialect, OpKind, OpSpec, WriteMode};

use crate::args::expand;
use crate::windows;

/// Special files a redirection writes to without destroying anything: the null device and
/// its kin, the terminal, the process's own descriptors, bash's network pseudo-files.
pub(crate) fn is_sink(path: &str) -> bool {
    const SINKS: &[&str] = &[
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
        "/dev/console",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
    ];
    const PREFIXES: &[&str] = &["/dev/fd/", "/dev/pts/", "/dev/tcp/", "/dev/udp/"];
    SINKS.contains(&path)
        || PREFIXES.iter().any(|p| path.starts_with(p))
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

/// Returns `true` if a `>&WORD` word is a descriptor (`2`, `3-`) or closes one (`-`).
fn is_descriptor(word: &Word) -> bool {
    word.literal_text().is_some_and(|text| {
        let digits = text.strip_suffix('-').unwrap_or(&text);
        text == "-" || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Returns `true` if the word is a process substitution alone: the command writes a pipe.
fn is_process_substitution(word: &Word) -> bool {
    matches!(&word.parts[..], [WordPart::ProcessSubstitution { .. }])
}

/// The ops of a POSIX command's redirections: an overwrite for those that truncate or
/// rewrite a file, an append for those that add to one. Each only when it names a file.
pub(crate) fn posix(command: &SimpleCommand, source: &str) -> Vec<OpSpec> {
    let mut op = super::overwrite(">", WriteMode::InPlace);
    let mut append = appending(">>", Dialect::Posix);
    for redirect in &command.redirects {
        let Some(word) = &redirect.target else {
            continue;
        };
        let into = match redirect.op {
            RedirectOp::Out | RedirectOp::Clobber | RedirectOp::OutErr | RedirectOp::ReadWrite => {
                &mut op
            }
            RedirectOp::DupOut if !is_descriptor(word) => &mut op,
            RedirectOp::Append | RedirectOp::AppendErr => &mut append,
            _ => continue,
        };
        if is_process_substitution(word) {
            continue;
        }
        for arg in expand(word, source) {
            if arg.known().is_some_and(is_sink) {
                continue;
            }
            into.targets.push(super::file(&arg, true));
        }
        if redirect.op == RedirectOp::ReadWrite {
            op.note("<> opens the file read-write: the program may rewrite it in place");
        }
    }
    [op, super::unresolved_protected_append(append)]
        .into_iter()
        .filter(|op| !op.targets.is_empty())
        .collect()
}

/// Creates an append op of `name` in `dialect`.
pub(crate) fn appending(name: &str, dialect: Dialect) -> OpSpec {
    OpSpec::new(name, OpKind::Append, dialect)
}

/// Reserved Windows device names: writing to them writes no file.
pub(crate) fn windows_device(text: &str) -> bool {
    let lowered = text.to_ascii_lowercase();
    let name = lowered.strip_suffix(':').unwrap_or(&lowered);
    let numbered = |stem: &str| {
        name.strip_prefix(stem)
            .is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit())
    };
    matches!(name, "nul" | "con" | "prn" | "aux") || numbered("com") || numbered("lpt")
}

/// The ops of a cmd or PowerShell command's redirections: an overwrite for `>`, an append
/// for `>>`.
pub(crate) fn windows(command: &SimpleCommand, dialect: Dialect) -> Vec<OpSpec> {
    let mut op = super::overwrite_in(">", WriteMode::InPlace, dialect);
    let mut append = appending(">>", dialect);
    for redirect in &command.redirects {
        let Some(word) = &redirect.target else {
            continue;
        };
        let into = match redirect.op {
            RedirectOp::Out | RedirectOp::OutErr => &mut op,
            RedirectOp::Append | RedirectOp::AppendErr => &mut append,
            _ => continue,
        };
        let tok = windows::whole(word);
        let null_variable = dialect == Dialect::PowerShell
            && matches!(&word.parts[..], [WordPart::Parameter { raw, .. }]
                if raw.eq_ignore_ascii_case("$null"));
        if null_variable || tok.literal().is_some_and(windows_device) {
            continue;
        }
        let mut target = windows::target(&tok, dialect);
        target.through_symlink = true;
        into.targets.push(target);
    }
    [op, super::unresolved_protected_append(append)]
        .into_iter()
        .filter(|op| !op.targets.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posix_targets_of(line: &str, kind: OpKind) -> Vec<String> {
        let script = agent_guard_lex::posix::lex(line);
        script
            .commands
            .iter()
            .flat_map(|c| posix(c, line))
            .filter(|op| op.kind == kind)
            .flat_map(|op| op.targets.into_iter().map(|t| t.text))
            .collect()
    }

    fn posix_targets(line: &str) -> Vec<String> {
        posix_targets_of(line, OpKind::Overwrite)
    }

    #[test]
    fn posix_forms_that_truncate_or_rewrite() {
        for (line, expected) in [
            ("echo x > f", vec!["f"]),
            ("echo x >| f", vec!["f"]),
            ("echo x &> f", vec!["f"]),
            ("echo x >& f", vec!["f"]),
            ("echo x 2> err 1> out", vec!["err", "out"]),
            ("exec 3<> f", vec!["f"]),
            ("exec > log", vec!["log"]),
            ("cat > new.txt <<'EOF'\nhi\nEOF", vec!["new.txt"]),
            ("echo x > 2", vec!["2"]),
        ] {
            assert_eq!(posix_targets(line), expected, "{line}");
        }
    }

    #[test]
    fn posix_appends_are_their_own_op() {
        for (line, expected) in [
            ("echo x >> log", vec!["log"]),
            ("echo x &>> log", vec!["log"]),
            ("echo x 2>> err >> out", vec!["err", "out"]),
            ("echo x > new >> .git/config", vec![".git/config"]),
            ("echo x >> /dev/null", vec![]),
            ("cmd >> >(tee log)", vec![]),
        ] {
            assert_eq!(posix_targets_of(line, OpKind::Append), expected, "{line}");
        }
        assert_eq!(posix_targets("echo x > new >> .git/config"), ["new"]);
    }

    #[test]
    fn posix_forms_that_create_append_or_write_nothing() {
        for line in [
            "echo x >> log",
            "echo x &>> log",
            "echo x 2>&1",
            "echo x >&2",
            "exec 3>&-",
            "echo x > /dev/null 2> /dev/stderr",
            "echo x > /dev/fd/3",
            "exec 3<> /dev/tcp/example.com/80",
            "cmd > >(tee log)",
            "cat < in",
            "cat <<< word",
        ] {
            assert!(posix_targets(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn windows_forms() {
        let targets_of = |line: &str, dialect: Dialect, kind: OpKind| -> Vec<String> {
            let script = match dialect {
                Dialect::Cmd => agent_guard_lex::cmd::lex(line),
                _ => agent_guard_lex::powershell::lex(line),
            };
            script
                .commands
                .iter()
                .flat_map(|c| windows(c, dialect))
                .filter(|op| op.kind == kind)
                .flat_map(|op| op.targets.into_iter().map(|t| t.text))
                .collect()
        };
        let targets = |line: &str, dialect: Dialect| targets_of(line, dialect, OpKind::Overwrite);
        let appends = |line: &str, dialect: Dialect| targets_of(line, dialect, OpKind::Append);
        assert_eq!(appends("echo x >> a.txt", Dialect::Cmd), ["a.txt"]);
        assert_eq!(
            appends("echo x 2>> .git\\config", Dialect::Cmd),
            [".git/config"]
        );
        assert_eq!(appends("ls >> a.txt", Dialect::PowerShell), ["a.txt"]);
        assert!(appends("echo x >> nul", Dialect::Cmd).is_empty());
        assert_eq!(targets("echo x > a.txt", Dialect::Cmd), ["a.txt"]);
        assert_eq!(targets("type nul > a.txt", Dialect::Cmd), ["a.txt"]);
        assert_eq!(targets("dir 2> err.txt", Dialect::Cmd), ["err.txt"]);
        assert!(targets("echo x >> a.txt", Dialect::Cmd).is_empty());
        assert!(targets("echo x > nul 2>&1", Dialect::Cmd).is_empty());
        assert!(targets("echo x > NUL:", Dialect::Cmd).is_empty());
        assert_eq!(targets("'x' > a.txt", Dialect::PowerShell), ["a.txt"]);
        assert_eq!(targets("ls *> all.txt", Dialect::PowerShell), ["all.txt"]);
        assert!(targets("ls > $null 2>&1", Dialect::PowerShell).is_empty());
        assert!(targets("ls >> a.txt", Dialect::PowerShell).is_empty());
        assert_eq!(
            targets("echo x > build\\out.txt", Dialect::Cmd),
            ["build/out.txt"]
        );
    }
}

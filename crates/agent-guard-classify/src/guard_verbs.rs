//! agent-guard's person-only verbs, reached from an agent's command line (issue 35 point 3).
//!
//! `approve`, `mode normal`, `config trust`, `uninstall` and `gc --execute` loosen the guard;
//! the verbs refuse to run under a harness themselves, and a line that reaches one is
//! refused before it runs. The line is read as text, not as commands: the verb may sit in a
//! quoted string a wrapper runs (`script -qc 'agent-guard approve 3f2a' /dev/null`,
//! `unbuffer`, `expect -c`, `python -c 'import pty; pty.spawn([...])'`, `socat`, `nohup`,
//! `setsid`), behind a path (`~/.cargo/bin/agent-guard`), or behind a copy made on the same
//! line (`cp "$(command -v agent-guard)" /tmp/x && /tmp/x approve 1`).

use agent_guard_types::{Dialect, OpKind, OpSpec};

/// Programs that only read their arguments as data and print: a line of nothing else
/// (`grep 'agent-guard approve' README`) mentions a verb without running it.
/// (Not `rg`, which runs `--pre` programs, `sort` with `--compress-program`, or `less`,
/// whose `+!cmd` runs a shell.)
/// (Nor `printf`, whose `-v` assigns a variable a later expansion may run.)
const DATA_READERS: &[&str] = &[
    "grep", "egrep", "fgrep", "cat", "head", "tail", "wc", "uniq", "nl", "cut", "tr", "cmp",
    "echo", "true",
];

/// The ops of a line that runs the guard itself: a person-only verb ([`verb`]) first, and
/// the guard pointed at another store ([`retargeted`]). The line is tokenized once; a line
/// that names no guard binary (nearly every line) costs that and nothing more.
pub(crate) fn in_line(line: &str, dialect: Dialect) -> (Option<OpSpec>, Option<OpSpec>) {
    let tokens = tokens(line);
    if !tokens.iter().any(|token| names_the_guard(token)) {
        return (None, None);
    }
    (verb(line, &tokens, dialect), retargeted(&tokens, dialect))
}

/// The op for a line that reaches a person-only verb, if it does (`tokens` name the guard).
fn verb(line: &str, tokens: &[String], dialect: Dialect) -> Option<OpSpec> {
    if only_reads(line, dialect) {
        return None;
    }
    let has = |word: &str| tokens.iter().any(|token| token == word);
    let verb = if has("approve") {
        "approve"
    } else if has("uninstall") {
        "uninstall"
    } else if has("config") && has("trust") {
        "config trust"
    } else if has("mode") && has("normal") {
        "mode normal"
    } else if has("gc") && (has("--execute") || has("-x")) {
        "gc --execute"
    } else {
        return None;
    };
    let mut op = OpSpec::new("agent-guard", OpKind::GuardVerb, dialect);
    op.sub = Some(verb.to_owned());
    op.notes.push(format!(
        "the line runs `agent-guard {verb}`, which only a person may run, in their own terminal"
    ));
    Some(op)
}

/// The op for a line that runs the guard with one of its own variables set
/// (`AGENT_GUARD_TRASH=conf agent-guard mode restricted`, `set AGENT_GUARD_TRASH=…`,
/// `$env:AGENT_GUARD_…`): even a verb that only reads then opens, locks and writes the store
/// that variable names, wherever it is (a committed `conf/state.json` was overwritten, a
/// `.github/hooks/` file created), which no checkpoint keeps in time. Refused: an agent has
/// no need to point the guard elsewhere.
fn retargeted(tokens: &[String], dialect: Dialect) -> Option<OpSpec> {
    let sets_own = tokens.iter().any(|token| token.contains("agent_guard_"));
    sets_own.then(|| {
        OpSpec::unknown(
            "agent-guard",
            dialect,
            "the guard runs with one of its own variables set (AGENT_GUARD_…): its store or \
             configuration may be anywhere, even in a hook directory, and even a reading verb \
             writes there",
        )
    })
}

/// Whether the POSIX `line` only runs [`DATA_READERS`] on literal words: every command's
/// name is one of them, no word holds a substitution (whose commands would run), no
/// assignment, and every command lexed. Such a line prints what it names; it runs nothing
/// (piping it into a shell adds a command that is not a reader). cmd and PowerShell lines
/// are not excused.
fn only_reads(line: &str, dialect: Dialect) -> bool {
    use agent_guard_lex::WordPart;
    if dialect != Dialect::Posix {
        return false;
    }
    let script = agent_guard_lex::posix::lex(line);
    // A plain `$name` or `${name}` only: `${x@P}`, `${!x}`, `${a[$i]}` and the like run
    // what a variable holds.
    let plain = |raw: &str| {
        let name = raw
            .strip_prefix("${")
            .and_then(|r| r.strip_suffix('}'))
            .or_else(|| raw.strip_prefix('$'))
            .unwrap_or("");
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let inert = |word: &agent_guard_lex::Word| {
        word.parts.iter().all(|part| match part {
            WordPart::Literal { .. } | WordPart::Tilde { .. } => true,
            WordPart::Parameter { raw, .. } => plain(raw),
            _ => false,
        })
    };
    script.error.is_none()
        && !script.commands.is_empty()
        && script.commands.iter().all(|command| {
            command.assignments.is_empty()
                && command.redirects.is_empty()
                && !command.context.in_substitution
                && command
                    .words
                    .first()
                    .and_then(agent_guard_lex::Word::literal_text)
                    .is_some_and(|name| DATA_READERS.contains(&name.as_str()))
                && command.words.iter().all(inert)
        })
}

/// The words of `line` that may name a file a command runs or hands on, as written (case
/// kept), without the ones that name the guard's binary by its own name (those are judged by
/// `in_line`); at most 64. The engine looks for a copy of the guard among them (a renamed
/// binary run by a later line, `./x approve ID`).
pub fn mentioned_files(line: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for token in line.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"'
                    | '`'
                    | ';'
                    | '|'
                    | '&'
                    | '('
                    | ')'
                    | '<'
                    | '>'
                    | '='
                    | ','
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '$'
            )
    }) {
        if token.is_empty()
            || names_the_guard(&token.to_ascii_lowercase())
            || words.iter().any(|w| w == token)
        {
            continue;
        }
        words.push(token.to_owned());
        // The shell drops a backslash that escapes an ordinary character (`agent\-x`).
        if token.contains('\\') {
            words.push(token.replace('\\', ""));
        }
        if words.len() >= 64 {
            break;
        }
    }
    words
}

/// The line's word-like tokens, lower-cased, in two readings: with quotes and escapes
/// breaking words (the verb inside a wrapper's string or an interpreter's list), and with
/// them dropped (a shell joins `agent-gu''ard` and `ag\ent-guard`, cmd `agent-gu^ard`).
fn tokens(line: &str) -> Vec<String> {
    let lowered = line.to_ascii_lowercase();
    let joined: String = lowered
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\' | '^' | '`'))
        .collect();
    let split = |text: &str| -> Vec<String> {
        text.split(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '\\'))
        })
        .filter(|token| !token.is_empty())
        .map(str::to_owned)
        .collect()
    };
    let mut tokens = split(&lowered.replace('`', ""));
    tokens.extend(split(&joined));
    tokens
}

/// A token that names the guard's binary: `agent-guard`, by any path, with or without an
/// extension (`agent-guard.exe`), or one of cargo's copies (`deps/agent_guard-<hash>`).
fn names_the_guard(token: &str) -> bool {
    let name = token.rsplit(['/', '\\']).next().unwrap_or(token);
    let name = name.strip_suffix(".exe").unwrap_or(name);
    name == "agent-guard"
        || name == "agent_guard"
        || name
            .strip_prefix("agent_guard-")
            .is_some_and(|hash| !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb(line: &str) -> Option<String> {
        in_line(line, Dialect::Posix).0.and_then(|op| op.sub)
    }

    #[test]
    fn every_route_to_a_person_only_verb_is_found() {
        for (line, expected) in [
            ("agent-guard approve 3f2a", "approve"),
            (
                "echo y | script -qc 'agent-guard approve 3f2a' /dev/null",
                "approve",
            ),
            ("~/.cargo/bin/agent-guard mode normal", "mode normal"),
            ("unbuffer agent-guard config trust", "config trust"),
            (
                "python3 -c \"import pty; pty.spawn(['agent-guard', 'approve', '1'])\"",
                "approve",
            ),
            (
                "cp \"$(command -v agent-guard)\" /tmp/x && /tmp/x uninstall claude-code",
                "uninstall",
            ),
            (
                "nohup setsid agent-guard gc --execute --all &",
                "gc --execute",
            ),
            ("C:\\tools\\agent-guard.exe approve 1", "approve"),
            ("agent-gu''ard approve 1", "approve"),
            ("ag\\ent-guard approve 1", "approve"),
            ("agent-guard appr''ove 1", "approve"),
            ("agent-guard app\\rove 1", "approve"),
            ("agent-gu^ard approve 1", "approve"),
            (
                "target/debug/deps/agent_guard-3f2a9c0d approve 1",
                "approve",
            ),
            ("git -c alias.x='!agent-gu\"\"ard approve 1' x", "approve"),
            (
                "env -i setsid -f sh -c \"script -qc \\\"agent-gu\\\"\\\"ard config trust\\\" /dev/null\"",
                "config trust",
            ),
        ] {
            assert_eq!(verb(line).as_deref(), Some(expected), "{line}");
        }
    }

    #[test]
    fn other_verbs_and_other_programs_are_not() {
        for line in [
            "agent-guard list",
            "agent-guard mode restricted",
            "agent-guard gc",
            "agent-guard doctor",
            "git config --global user.name x",
            "approve.sh",
            "cat agent-guard.log | grep approve",
            // Only printed, never run.
            "grep 'agent-guard approve' README.md",
            "grep -rn \"agent-guard config trust\" docs | head -5",
            "echo 'run agent-guard approve ID yourself'",
            "echo \"$HOME: agent-guard approve ${ID}\"",
        ] {
            assert_eq!(verb(line), None, "{line}");
        }
    }

    #[test]
    fn a_mention_that_may_run_is_still_a_verb() {
        for line in [
            "grep 'agent-guard approve 1' README | sh",
            "echo \"$(agent-guard approve 1)\"",
            "cat <(agent-guard approve 1)",
            "rg --pre 'agent-guard approve' x README",
            "less '+!agent-guard approve 1' README",
            "echo 'agent-guard approve 1' > run.sh && sh run.sh",
            "grep x y; agent-guard approve 1",
            // From an outside review: expansions that run what a variable holds, and a
            // reader writing where a later shell reads.
            "printf -v x '$(agent-guard approve 1)'; echo \"${x@P}\"",
            "printf -v x '%s' 'a[$(agent-guard approve 1)]'; echo \"${!x}\"",
            "echo \"${x@P}\" 'agent-guard approve 1'",
            "echo 'agent-guard approve 1' >> ~/.bashrc",
        ] {
            assert_eq!(verb(line).as_deref(), Some("approve"), "{line}");
        }
    }
}

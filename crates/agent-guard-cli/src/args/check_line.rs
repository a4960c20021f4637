//! `agent-guard check …` parsed by a command tree that holds `check` alone: `check` runs
//! before every command an agent issues, and building the whole tree (every subcommand and
//! its arguments) was most of its argument parsing. Anything but a clean parse (an error,
//! `--help`, `--version`) is left to the whole tree, so messages and help are the same.

use std::ffi::OsString;

use clap::Parser as _;

use super::{CheckArgs, Cli, ColorWhen, Command};

/// The command tree of `agent-guard check` alone (the global options included).
#[derive(Debug, clap::Parser)]
#[command(name = "agent-guard")]
struct CheckOnly {
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: ColorWhen,
    #[command(subcommand)]
    command: CheckCommand,
}

#[derive(Debug, clap::Subcommand)]
enum CheckCommand {
    Check(CheckArgs),
}

/// The arguments of a `check` line that parses cleanly; `None` for any other line, which
/// the whole command tree then reads.
pub fn check_only(raw: &[OsString]) -> Option<Cli> {
    if raw.get(1).is_none_or(|word| word != "check") {
        return None;
    }
    let parsed = CheckOnly::try_parse_from(raw).ok()?;
    let CheckCommand::Check(args) = parsed.command;
    Some(Cli {
        color: parsed.color,
        command: Command::Check(args),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    /// Every line the check-only tree accepts, the whole tree reads the same; what it does
    /// not accept (errors, help, other commands) is left to the whole tree.
    #[test]
    fn the_check_only_tree_agrees_with_the_whole_one() {
        let lines: &[&[&str]] = &[
            &["check", "--", "rm", "-rf", "build"],
            &["check", "--cwd", "/tmp", "--enforce", "--", "make", "-q"],
            &["check", "--json", "rm x"],
            &["check", "--harness", "codex"],
            &["check", "--harness=claude-code", "--json"],
            &["check", "--dialect", "cmd", "--", "del", "x"],
            &["check", "--dialect", "powershell", "--", "Remove-Item", "x"],
            &["--color", "never", "check", "--", "ls"],
            &["check", "--color=always", "--", "ls"],
            &["check", "--enforce", "--", "--help"],
            &["check", "--", "-h"],
            &["check", "--no-such-flag"],
            &["check", "--dialect", "klingon", "--", "ls"],
            &["check", "--help"],
            &["check", "-h"],
            &["check", "--version"],
            &["check"],
            &["list"],
            &["checks", "--", "ls"],
            &[],
        ];
        let mut accepted = 0;
        for line in lines {
            let mut command_line = words(&["agent-guard"]);
            command_line.extend(words(line));
            let whole = Cli::try_parse_from(&command_line);
            match check_only(&command_line) {
                Some(fast) => {
                    accepted += 1;
                    let whole = whole.unwrap_or_else(|e| panic!("{line:?}: {e}"));
                    assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{line:?}");
                }
                // Options before `check` are the whole tree's to read.
                None if line.first() != Some(&"check") => {}
                None => assert!(
                    whole.is_err(),
                    "{line:?} parses as check and should be read by the check-only tree"
                ),
            }
        }
        assert!(accepted >= 10, "{accepted}");
    }
}

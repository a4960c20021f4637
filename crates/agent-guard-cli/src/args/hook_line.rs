//! The hook command line, read without clap.
//!
//! Every harness runs `check --harness NAME` before each tool call: the exact line `install`
//! writes into its settings. Building clap's command tree for the whole CLI (every
//! subcommand, argument and help text) and dropping it again is most of the instructions that
//! run before hook mode's own work (`docs/PERFORMANCE.md`, "Start-up"), so this one form is
//! read directly. Anything else, one extra word included, goes to clap as before; the test
//! below holds both readings equal.

use std::ffi::OsString;

use super::CheckArgs;

/// The arguments of `check` when `words` (what follows `check`) are exactly
/// `--harness NAME` or `--harness=NAME` with a plain NAME; `None` for any other line, which
/// clap must read (and may reject).
pub fn hook_only(words: &[OsString]) -> Option<CheckArgs> {
    let name = match words {
        [flag, name] if flag == "--harness" => name.to_str()?,
        [word] => word.to_str()?.strip_prefix("--harness=")?,
        _ => return None,
    };
    // An empty name or one clap could take for a flag: clap decides.
    if name.is_empty() || name.starts_with('-') {
        return None;
    }
    Some(CheckArgs {
        cwd: None,
        dialect: None,
        enforce: false,
        json: false,
        harness: Some(name.to_owned()),
        command: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::args::{Cli, ColorWhen, Command};

    fn words(line: &[&str]) -> Vec<OsString> {
        line.iter().map(OsString::from).collect()
    }

    /// Wherever the direct reading gives arguments, clap gives the same ones for the same
    /// line (and the default colour); the install form is read directly.
    #[test]
    fn the_direct_reading_agrees_with_clap() {
        let lines: &[&[&str]] = &[
            &["--harness", "claude-code"],
            &["--harness=codex"],
            &["--harness", "auto"],
            &["--harness", "no-such-harness"],
            &["--harness", "Claude-Code"],
            &["--harness=a=b"],
            &["--harness", ""],
            &["--harness="],
            &["--harness", "--json"],
            &["--harness", "-x"],
            &["--harness"],
            &["--harness", "codex", "--json"],
            &["--json", "--harness", "codex"],
            &["--harness", "codex", "--", "ls"],
            &["--dialect", "cmd", "--harness", "codex"],
            &["--harnes", "codex"],
            &["--harness-x=codex"],
            &["-h"],
            &[],
        ];
        let mut direct = 0;
        for line in lines {
            let Some(args) = hook_only(&words(line)) else {
                continue;
            };
            direct += 1;
            let mut command_line = words(&["agent-guard", "check"]);
            command_line.extend(words(line));
            let cli = Cli::try_parse_from(&command_line)
                .unwrap_or_else(|e| panic!("clap rejects {line:?} that was read directly: {e}"));
            assert_eq!(cli.color, ColorWhen::Auto, "{line:?}");
            let Command::Check(parsed) = cli.command else {
                panic!("{line:?} is not check for clap");
            };
            assert_eq!(format!("{parsed:?}"), format!("{args:?}"), "{line:?}");
        }
        assert_eq!(direct, 6, "the plain forms are read directly");
        for line in [&["--harness", "claude-code"][..], &["--harness=gemini"]] {
            assert!(hook_only(&words(line)).is_some(), "{line:?}");
        }
    }
}

//! Package and environment runners: `uv run`, `poetry run`, `npx`, `pnpm dlx`, `bundle exec`,
//! `direnv exec DIR`, … run the command that follows their own options, exactly like a
//! wrapper (`uv run rm -rf build` deletes `build`).
//!
//! Their option sets are large and change between releases, so no option table is kept:
//! a runner invoked with an option before the command cannot be unwrapped exactly, and is
//! reported as ambiguous (the caller fails closed when the line has destructive words).
//! `--` ends the runner's options.

use crate::args::{Arg, basename};

/// A runner: its program, the subcommand that makes it run a command (if any), and how many
/// operands of its own come before the command.
struct Runner {
    program: &'static str,
    subcommand: Option<&'static str>,
    operands: usize,
}

const fn runner(program: &'static str, subcommand: Option<&'static str>) -> Runner {
    Runner {
        program,
        subcommand,
        operands: 0,
    }
}

const RUNNERS: &[Runner] = &[
    runner("uv", Some("run")),
    runner("uvx", None),
    runner("poetry", Some("run")),
    runner("pipenv", Some("run")),
    runner("pdm", Some("run")),
    runner("hatch", Some("run")),
    runner("rye", Some("run")),
    runner("pixi", Some("run")),
    runner("conda", Some("run")),
    runner("mamba", Some("run")),
    runner("micromamba", Some("run")),
    runner("npx", None),
    runner("pnpx", None),
    runner("bunx", None),
    runner("bun", Some("x")),
    runner("npm", Some("exec")),
    runner("npm", Some("x")),
    runner("pnpm", Some("exec")),
    runner("pnpm", Some("dlx")),
    runner("yarn", Some("exec")),
    runner("yarn", Some("dlx")),
    runner("bundle", Some("exec")),
    Runner {
        program: "direnv",
        subcommand: Some("exec"),
        operands: 1,
    },
];

/// What a runner at the head of `args` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Peeled {
    /// `args[0]` is not a runner (or not one that runs a command).
    NotARunner,
    /// The runner's name, and how many words (itself included) precede the command.
    Runs(&'static str, usize),
    /// The command cannot be located exactly; the text says why.
    Ambiguous(String),
}

/// Returns `true` if `program` (a normalised name) with its first argument starts a runner.
/// The Windows dialects use this: what a runner runs there is refused when the command has
/// destructive words, since its arguments follow each tool's own quoting rules.
pub(crate) fn starts(program: &str, first: Option<&str>) -> bool {
    find(program, first).is_some()
}

fn find(program: &str, first: Option<&str>) -> Option<&'static Runner> {
    RUNNERS
        .iter()
        .find(|r| r.program == program && (r.subcommand.is_none() || r.subcommand == first))
}

/// Peels a runner off the front of `args`.
pub(crate) fn peel(args: &[Arg]) -> Peeled {
    let Some(program) = args.first().and_then(Arg::known).map(basename) else {
        return Peeled::NotARunner;
    };
    let subcommand = args.get(1).and_then(Arg::known);
    let Some(found) = find(program, subcommand) else {
        return global_options_first(program, args);
    };
    let mut index = 1 + usize::from(found.subcommand.is_some());
    match args.get(index).and_then(Arg::known) {
        Some("--") => index += 1,
        Some(text) if text.starts_with('-') && text.len() > 1 => {
            return Peeled::Ambiguous(format!("{program} option {text} has unknown arity"));
        }
        _ => {}
    }
    Peeled::Runs(found.program, index + found.operands)
}

/// `uv --directory x run …`, `pnpm --dir x exec …`: options before the runner's
/// subcommand (global options) have unknown arity, so where the command starts is unknown.
fn global_options_first(program: &str, args: &[Arg]) -> Peeled {
    if !args
        .get(1)
        .and_then(Arg::known)
        .is_some_and(|t| t.starts_with('-') && t.len() > 1)
    {
        return Peeled::NotARunner;
    }
    let later = RUNNERS
        .iter()
        .filter(|r| r.program == program)
        .filter_map(|r| r.subcommand)
        .find(|sub| args[2..].iter().any(|a| a.known() == Some(*sub)));
    match later {
        Some(sub) => Peeled::Ambiguous(format!(
            "{program} options before `{sub}` have unknown arity"
        )),
        None => Peeled::NotARunner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peel_words(words: &[&str]) -> Peeled {
        let args: Vec<Arg> = words.iter().map(|w| Arg::literal(w)).collect();
        peel(&args)
    }

    #[test]
    fn runners_are_peeled_to_their_command() {
        assert_eq!(
            peel_words(&["uv", "run", "rm", "-rf", "x"]),
            Peeled::Runs("uv", 2)
        );
        assert_eq!(peel_words(&["npx", "rimraf", "x"]), Peeled::Runs("npx", 1));
        assert_eq!(
            peel_words(&["npm", "exec", "--", "rimraf"]),
            Peeled::Runs("npm", 3)
        );
        assert_eq!(
            peel_words(&["direnv", "exec", ".", "rm", "x"]),
            Peeled::Runs("direnv", 3)
        );
        assert_eq!(
            peel_words(&["/usr/local/bin/poetry", "run", "pytest"]),
            Peeled::Runs("poetry", 2)
        );
    }

    #[test]
    fn other_subcommands_and_programs_are_not_runners() {
        assert_eq!(
            peel_words(&["uv", "pip", "install", "x"]),
            Peeled::NotARunner
        );
        assert_eq!(peel_words(&["npm", "run", "clean"]), Peeled::NotARunner);
        assert_eq!(
            peel_words(&["bun", "-e", "console.log(1)"]),
            Peeled::NotARunner
        );
        assert_eq!(peel_words(&["rm", "x"]), Peeled::NotARunner);
    }

    #[test]
    fn an_option_before_the_command_is_ambiguous() {
        assert!(matches!(
            peel_words(&["uv", "run", "--with", "rich", "rm", "x"]),
            Peeled::Ambiguous(_)
        ));
        assert!(matches!(
            peel_words(&["conda", "run", "-n", "env", "rm", "x"]),
            Peeled::Ambiguous(_)
        ));
        assert!(matches!(
            peel_words(&["uv", "--directory", "sub", "run", "rm", "x"]),
            Peeled::Ambiguous(_)
        ));
        assert!(matches!(
            peel_words(&["pnpm", "--dir", "web", "dlx", "rimraf", "x"]),
            Peeled::Ambiguous(_)
        ));
        assert_eq!(
            peel_words(&["uv", "--version"]),
            Peeled::NotARunner,
            "no subcommand that runs a command"
        );
    }
}

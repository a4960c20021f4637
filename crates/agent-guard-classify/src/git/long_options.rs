//! git's long options as git reads them: any unambiguous prefix of a long option is that
//! option (`git reset --har` is `git reset --hard`, `git clean --fo` is `--force`,
//! `git push --force-w=…` is `--force-with-lease=…`). The subcommand parsers read full
//! names; [`expand`] rewrites each prefix first, from the table git itself lists
//! (`data/git-long-options.txt`). A prefix that fits several options is left as it is: git
//! refuses it and runs nothing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::args::Arg;

/// The table: subcommand (or `subcommand action`) → its long options, without dashes.
fn table() -> &'static HashMap<&'static str, Vec<&'static str>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        include_str!("../../data/git-long-options.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(": "))
            .map(|(sub, options)| (sub, options.split_whitespace().collect()))
            .collect()
    })
}

/// The option `name` (without dashes) abbreviates among `options`: itself when it is one,
/// the one option it is a prefix of, else `None`.
fn full_name<'a>(name: &str, options: &[&'a str]) -> Option<&'a str> {
    if let Some(exact) = options.iter().find(|o| **o == name) {
        return Some(exact);
    }
    let mut found = options.iter().filter(|o| o.starts_with(name));
    let first = found.next()?;
    found.next().is_none().then_some(*first)
}

/// `rest`, the words after git's subcommand `sub`, with every abbreviated long option
/// written out in full (up to `--`). Borrowed when nothing changes.
pub(super) fn expand<'a>(sub: &str, rest: &'a [Arg]) -> Cow<'a, [Arg]> {
    if !rest.iter().any(|a| {
        a.known()
            .is_some_and(|t| t.starts_with("--") && t.len() > 2)
    }) {
        return Cow::Borrowed(rest);
    }
    let action = rest.first().and_then(Arg::known).unwrap_or("");
    let (options, from) = match table().get(format!("{sub} {action}").as_str()) {
        Some(options) => (options, 1),
        None => match table().get(sub) {
            Some(options) => (options, 0),
            None => return Cow::Borrowed(rest),
        },
    };
    let mut out = rest.to_vec();
    for arg in out.iter_mut().skip(from) {
        let Some(text) = arg.known() else { continue };
        if text == "--" {
            break;
        }
        let Some(body) = text.strip_prefix("--") else {
            continue;
        };
        let (name, value) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (body, None),
        };
        if let Some(full) = full_name(name, options).filter(|full| *full != name) {
            arg.text = match value {
                Some(value) => format!("--{full}={value}"),
                None => format!("--{full}"),
            };
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(sub: &str, line: &str) -> Vec<String> {
        let args: Vec<Arg> = line.split_whitespace().map(Arg::literal).collect();
        expand(sub, &args).iter().map(|a| a.text.clone()).collect()
    }

    #[test]
    fn prefixes_are_the_options_git_reads() {
        assert_eq!(expanded("reset", "--har HEAD~1"), ["--hard", "HEAD~1"]);
        assert_eq!(expanded("reset", "--ha"), ["--hard"]);
        assert_eq!(expanded("clean", "--fo -d"), ["--force", "-d"]);
        assert_eq!(
            expanded("push", "--force-w=main origin"),
            ["--force-with-lease=main", "origin"]
        );
        assert_eq!(expanded("checkout", "--for main"), ["--force", "main"]);
        assert_eq!(
            expanded("stash", "push --incl"),
            ["push", "--include-untracked"]
        );
        // Ambiguous (`--p` fits `--patch` and `--pathspec-…`), after `--`, or exact: as is.
        assert_eq!(expanded("reset", "--p"), ["--p"]);
        assert_eq!(expanded("reset", "-- --har"), ["--", "--har"]);
        assert_eq!(expanded("reset", "--hard"), ["--hard"]);
    }
}

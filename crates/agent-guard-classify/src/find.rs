//! `find … -delete` and `find … -exec rm …`.
//!
//! What a `find` expression matches is only known when it runs, so a deleting `find` is an
//! undeterminable recursive delete of its starting points.

use agent_guard_types::{Confinement, Dialect, OpKind, OpSpec};

use crate::args::{Arg, basename};

/// Programs that delete when `find` runs them.
const DELETERS: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "sh", "bash", "zsh", "dash", "ksh", "xargs", "git", "srm",
    "truncate",
];

/// Parses `find` arguments; `None` when the expression deletes nothing.
pub(crate) fn parse(args: &[Arg]) -> Option<OpSpec> {
    let mut op = OpSpec::new("find", OpKind::FsDelete, Dialect::Posix);
    op.recursive = true;
    let mut deletes = false;
    let mut exec_next = false;
    for arg in args {
        let Some(text) = arg.known() else {
            if exec_next {
                deletes = true;
            }
            exec_next = false;
            continue;
        };
        if exec_next {
            if DELETERS.contains(&basename(text)) {
                deletes = true;
            }
            exec_next = false;
            continue;
        }
        match text {
            "-delete" => deletes = true,
            "-exec" | "-execdir" | "-ok" | "-okdir" => exec_next = true,
            _ => {}
        }
    }
    if !deletes {
        return None;
    }
    // Starting points are the operands before the first expression token.
    for arg in args {
        let is_expression = arg
            .known()
            .is_some_and(|t| t.starts_with('-') || t == "(" || t == "!");
        if is_expression {
            break;
        }
        op.targets.push(arg.target());
    }
    if op.targets.is_empty() {
        op.targets.push(agent_guard_types::Target::literal("."));
    }
    op.mark_undeterminable("find selects what it deletes at run time");
    Some(op)
}

/// Tests that take one argument and only narrow what a conjunction matches.
const NARROWING: &[&str] = &[
    "-type",
    "-xtype",
    "-maxdepth",
    "-mindepth",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-newer",
    "-user",
    "-group",
    "-perm",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-links",
    "-uid",
    "-gid",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-fstype",
    "-used",
    "-regextype",
];

/// Tests and actions without an argument that neither widen a conjunction nor follow links.
const PLAIN: &[&str] = &[
    "-empty",
    "-depth",
    "-xdev",
    "-mount",
    "-print",
    "-print0",
    "-a",
    "-and",
    "-delete",
    "-true",
    "-readable",
    "-writable",
    "-nouser",
    "-nogroup",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-prune",
    "-quit",
    "-ls",
    "-noleaf",
    "-daystart",
];

/// The actions: what changes, or what prints the names another command acts on (`find
/// src -print0 … | xargs -0 rm`).
const ACTIONS: &[&str] = &[
    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-print", "-print0", "-ls",
];

/// The name tests and negation, which narrow only what comes after them.
const NAME_OR_NOT: &[&str] = &["-name", "-iname", "!", "-not"];

/// `rm` options a confined `-exec rm … {}` may carry.
const RM_FLAGS: &[&str] = &[
    "-f",
    "-r",
    "-R",
    "-rf",
    "-fr",
    "-Rf",
    "-fR",
    "-v",
    "-rv",
    "-vr",
    "-rfv",
    "-frv",
    "-vrf",
    "--force",
    "--recursive",
    "--verbose",
    "--",
];

/// What `-exec` commands a confined `find` may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Execs {
    /// Only `rm [-rf] {}` (a deleting `find`).
    Rm,
    /// Any command, which the caller has judged to write only the file found (`sed -i …
    /// {} +`, `chmod +x {} ;`).
    WritesFound,
}

/// What bounds a deleting `find` (issue 14): literal starting points, no symlink following,
/// an expression that is a plain conjunction of narrowing tests, `-name`/`-iname` patterns,
/// `-delete` and `-exec rm [-rf] {} +`. `None` when anything else appears (`-o`, `!`,
/// parentheses, `-L`, another program): then the policy keeps it undeterminable.
pub(crate) fn confinement(args: &[Arg]) -> Option<Confinement> {
    confinement_of(args, Execs::Rm)
}

/// [`confinement`], with the `-exec` commands `execs` allows (issue 38: `find src -name
/// '*.py' -exec sed -i … {} +` writes only what it finds below `src`).
pub(crate) fn confinement_of(args: &[Arg], execs: Execs) -> Option<Confinement> {
    let start = args
        .iter()
        .position(|a| {
            a.known()
                .is_none_or(|t| t.starts_with('-') || t == "(" || t == "!")
        })
        .unwrap_or(args.len());
    // No starting point: GNU find starts at `.` (BSD find refuses the line).
    if args[..start]
        .iter()
        .any(|a| a.known().is_none() || (a.glob && !a.quoted))
    {
        return None;
    }
    let mut confinement = Confinement::default();
    let mut name_kinds = (false, false);
    let mut rest = args[start..].iter();
    // A test after an action does not narrow it (`find . -delete -name x` deletes all).
    let mut acted = false;
    while let Some(arg) = rest.next() {
        let text = arg.known()?;
        let global = matches!(text, "-maxdepth" | "-mindepth");
        if acted && !global && (NARROWING.contains(&text) || NAME_OR_NOT.contains(&text)) {
            return None;
        }
        acted |= ACTIONS.contains(&text);
        match text {
            "-name" | "-iname" => {
                let pattern = rest.next()?.known()?;
                if text == "-iname" {
                    name_kinds.1 = true;
                } else {
                    name_kinds.0 = true;
                }
                confinement.names.push(pattern.to_owned());
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" if execs == Execs::WritesFound => {
                // find ends `-exec` at `;`, or at a `+` right after `{}` (any other `+` is
                // an argument of the command).
                let (mut placeholder, mut last) = (false, "");
                loop {
                    let word = rest.next()?.known()?;
                    match word {
                        ";" => break,
                        "+" if last == "{}" => break,
                        "{}" => placeholder = true,
                        _ => {}
                    }
                    last = word;
                }
                if !placeholder {
                    return None;
                }
            }
            // `-ok` asks before each run (with no terminal, it reads the answers from stdin):
            // at most what `-exec` does.
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let program = rest.next()?.known()?;
                if basename(program) != "rm" {
                    return None;
                }
                let (mut placeholder, mut last) = (false, "");
                loop {
                    let word = rest.next()?.known()?;
                    match word {
                        "{}" => placeholder = true,
                        ";" => break,
                        "+" if last == "{}" => break,
                        flag if RM_FLAGS.contains(&flag) => {
                            confinement.whole_matches |= flag.contains(['r', 'R']);
                        }
                        _ => return None,
                    }
                    last = word;
                }
                if !placeholder {
                    return None;
                }
            }
            _ if NARROWING.contains(&text) => {
                // A value the guard cannot read only narrows less (`-ctime -$2`).
                let value = rest.next()?.known();
                match (text, value) {
                    ("-type", Some("f")) => confinement.files_only = true,
                    ("-maxdepth", Some(depth)) => confinement.max_depth = depth.parse().ok(),
                    _ => {}
                }
            }
            // A negated test only narrows the conjunction further (`-not -path
            // '*/node_modules/*'`); what it leaves out is not counted.
            "!" | "-not" => {
                let negated = rest.next()?.known()?;
                if !(NARROWING.contains(&negated) || matches!(negated, "-name" | "-iname")) {
                    return None;
                }
                rest.next()?;
            }
            _ if PLAIN.contains(&text) => {}
            _ => return None,
        }
    }
    if name_kinds.0 && name_kinds.1 {
        return None;
    }
    confinement.ignore_case = name_kinds.1;
    Some(confinement)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(line: &str) -> Option<OpSpec> {
        parse(
            &line
                .split_whitespace()
                .map(Arg::literal)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn deleting_find_is_undeterminable() {
        let o = op(". -name *.o -delete").unwrap();
        assert!(o.undeterminable && o.recursive);
        assert_eq!(o.targets[0].text, ".");
        assert!(op("build -type f -exec rm {} ;").unwrap().undeterminable);
        assert!(op("build -exec /bin/rm -f {} +").is_some());
        assert!(op(". -name x -print").is_none());
        assert!(op(". -exec grep rm {} ;").is_none());
    }

    fn confined(line: &str) -> Option<Confinement> {
        confinement(
            &line
                .split_whitespace()
                .map(Arg::literal)
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn plain_conjunctions_are_confined_and_the_rest_is_not() {
        let c = confined(". -name *.tmp -delete").unwrap();
        assert_eq!(c.names, ["*.tmp"]);
        assert!(!c.whole_matches && !c.ignore_case);
        let c = confined("build -type d -iname cache -exec rm -rf {} +").unwrap();
        assert!(c.whole_matches && c.ignore_case);
        assert!(confined("build -type f -delete").unwrap().names.is_empty());
        let c = confined("src -name *.py -not -path */vendor/* ! -name x.py -delete").unwrap();
        assert_eq!(c.names, ["*.py"], "a negated test adds no pattern");
        assert!(confined("src ! -newer x -o -name y -delete").is_none());
        assert!(confined("src ! -exec rm {} ; -delete").is_none());
        assert_eq!(
            confined("-name x -delete").unwrap().names,
            ["x"],
            "GNU find starts at ."
        );
        assert!(confined("-L -name x -delete").is_none());
        for line in [
            "-L . -name x -delete",
            ". -follow -name x -delete",
            ". -name a -o -name b -delete",
            ". -name x -exec sh -c rm {} ;",
            ". -name x -exec rm x ;",
            // A test after the action does not narrow it.
            "src -delete -name *.tmp",
            "src -exec rm {} + -type f",
            "src -name a -delete ! -name b",
            "src -print0 -name *.tmp",
            // `+` ends `-exec` only right after `{}`: here it is an argument of rm.
            "src -name *.tmp -exec rm -rf {} -- + -maxdepth /tmp/out -exec rm {} ;",
        ] {
            assert!(confined(line).is_none(), "{line}");
        }
    }
}

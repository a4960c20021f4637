//! `git clean`.

use agent_guard_types::OpKind;

use super::{git_op, pathspec};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

const OPTS: &[Opt] = &[
    Opt::flag("dry-run", Some('n'), Some("dry-run")),
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("d", Some('d'), None),
    Opt::flag("x", Some('x'), None),
    Opt::flag("X", Some('X'), None),
    Opt::flag("quiet", Some('q'), Some("quiet")),
    Opt::flag("interactive", Some('i'), Some("interactive")),
    Opt::value("exclude", Some('e'), Some("exclude")),
];

/// Parses the arguments after `git clean`. `require_force_off`: the line set
/// `clean.requireForce` to false before, so no `-f` is needed.
pub(super) fn parse(args: &[Arg], require_force_off: bool) -> agent_guard_types::OpSpec {
    let mut op = git_op(OpKind::GitClean);
    let mut forces = 0;
    let (items, _) = getopt::parse(args, OPTS, Order::Permute);
    for item in items {
        match item {
            Item::Opt {
                name: "dry-run", ..
            } => op.dry_run = true,
            Item::Opt { name: "force", .. } => forces += 1,
            Item::Opt {
                name: flag @ ("d" | "x" | "X"),
                ..
            } => {
                let flag = format!("-{flag}");
                if !op.extra_flags.contains(&flag) {
                    op.extra_flags.push(flag);
                }
            }
            Item::Opt {
                name: "interactive",
                ..
            } => op.mark_undeterminable("interactive git clean"),
            Item::Opt {
                name: "exclude", ..
            } => {
                op.mark_undeterminable("git clean -e excludes are not modelled");
            }
            Item::Opt { .. } => {}
            Item::Unknown(flag) | Item::Ambiguous(flag) => {
                op.mark_undeterminable(format!("unknown git clean flag {flag}"));
            }
            Item::MissingValue(_) => op.mark_undeterminable("git clean option without a value"),
            Item::Operand(arg) => op.targets.push(pathspec(arg)),
        }
    }
    op.force = forces > 0;
    if forces > 1 {
        op.mark_undeterminable("git clean -ff also removes nested repositories");
    }
    if !op.force && !op.dry_run && require_force_off {
        op.force = true;
        op.note("clean.requireForce is false: git clean deletes without -f");
    }
    if !op.force && !op.dry_run {
        // git refuses to clean without -f (clean.requireForce defaults to true).
        op.dry_run = true;
        op.note("git clean without -f deletes nothing");
    }
    if op.dry_run {
        op.force = false;
    }
    op
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;

    #[test]
    fn clean_forms() {
        let o = git("clean -fdx").unwrap();
        assert!(o.force && !o.dry_run && !o.undeterminable);
        assert_eq!(o.extra_flags, ["-d", "-x"]);
        assert!(git("clean -nd").unwrap().dry_run);
        assert!(git("clean").unwrap().dry_run);
        assert!(git("clean src").unwrap().dry_run);
        assert!(git("clean -ffd").unwrap().undeterminable);
        assert!(git("clean -fd -e keep*").unwrap().undeterminable);
        assert!(git("clean -fd --exclude=keep*").unwrap().undeterminable);
        assert!(git("clean -fi").unwrap().undeterminable);
        let o = git("clean -f -- '*.tmp'").unwrap();
        assert!(o.targets[0].glob);
    }
}

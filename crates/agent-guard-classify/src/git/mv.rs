//! `git mv [-f] [-k] [-n] SOURCE… DEST`: renames in the work tree (and the index). An
//! existing destination is refused unless `-f`, which replaces it unread; the destination
//! rules are `mv`'s. Every form moves its sources, so every form is a move.

use agent_guard_types::{OpKind, OpSpec, WriteMode};

use super::git_op;
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};
use crate::writes::{Placement, getopt_problem};

const MV: &[Opt] = &[
    Opt::flag("force", Some('f'), Some("force")),
    Opt::flag("n", Some('k'), None),
    Opt::flag("dry-run", Some('n'), Some("dry-run")),
    Opt::flag("n", Some('v'), Some("verbose")),
    Opt::flag("n", None, Some("sparse")),
];

/// Parses the arguments after `git mv`; `None` for a dry run.
pub(super) fn mv(args: &[Arg]) -> Option<OpSpec> {
    let mut op = git_op(OpKind::Move);
    op.write = WriteMode::Replace;
    let mut operands = Vec::new();
    let (items, _) = getopt::parse(args, MV, Order::Permute);
    for item in &items {
        match item {
            Item::Opt { name: "force", .. } => op.force = true,
            // `-n` only reports what it would move.
            Item::Opt {
                name: "dry-run", ..
            } => return None,
            Item::Opt { .. } => {}
            Item::Operand(arg) => operands.push(arg.target()),
            other => getopt_problem(&mut op, other),
        }
    }
    let placement = Placement::of_operands(operands, None);
    (op.targets, op.landing_of) = placement
        .landings()
        .into_iter()
        .map(|(t, i)| (t, Some(i)))
        .unzip();
    op.sources = placement.sources;
    if op.force {
        op.note("git mv -f replaces an existing destination");
    }
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    #[test]
    fn every_git_mv_moves() {
        let op = mv(&args("a b")).unwrap();
        assert_eq!(op.kind, OpKind::Move);
        let targets: Vec<&str> = op.targets.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(targets, ["b", "b/a"]);
        assert_eq!(op.sources[0].text, "a");
        assert!(!op.force);
        assert!(mv(&args("-f a b")).unwrap().force);
        assert!(mv(&args("-fn a b")).is_none());
        assert!(mv(&args("--bogus a b")).unwrap().undeterminable);
    }
}

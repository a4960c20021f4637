//! `git notes`: notes live in commits under `refs/notes/` (`refs/notes/commits` unless
//! `--ref`, `core.notesRef` or `GIT_NOTES_REF` name another). `add -f`, `copy -f`, `edit`,
//! `append`, `remove`, `prune` and `merge` move a notes ref; `update-ref -d` or a notes ref
//! reset would orphan the notes before it. Every notes ref is kept first (issue 37, point 1),
//! so that `undo` puts each back where it was.

use agent_guard_types::{OpKind, OpSpec, Target};

use super::git_op;
use crate::args::Arg;

/// The subcommands that only read.
const READS: &[&str] = &["list", "show", "get-ref"];

/// `git notes [--ref NAME] SUB …`: a ref op over every notes ref when `SUB` writes.
pub(super) fn notes(args: &[Arg]) -> Option<OpSpec> {
    let mut named = None;
    let mut sub = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.known() else {
            // A word that is not literal may be the subcommand.
            return Some(unknown_notes_op());
        };
        if text == "--ref" {
            named = Some(rest.next().and_then(Arg::known));
        } else if let Some(value) = text.strip_prefix("--ref=") {
            named = Some(Some(value));
        } else if !text.starts_with('-') {
            sub = Some(text);
            break;
        }
    }
    // `git notes` alone lists.
    let sub = sub?;
    if READS.contains(&sub) {
        return None;
    }
    let mut op = git_op(OpKind::GitRefDelete);
    op.targets.push(Target::literal("refs/notes/"));
    match named {
        // `--ref NAME` outside `refs/notes/` (a full name git takes as it is).
        Some(Some(name)) if name.starts_with("refs/") && !name.starts_with("refs/notes/") => {
            op.targets.push(Target::literal(name));
        }
        Some(None) => op.mark_undeterminable("git notes --ref names a ref that is not literal"),
        _ => {}
    }
    op.note(format!(
        "git notes {sub} moves a notes ref: every notes ref is kept"
    ));
    Some(op)
}

fn unknown_notes_op() -> OpSpec {
    let mut op = git_op(OpKind::GitRefDelete);
    op.targets.push(Target::literal("refs/notes/"));
    op.note("git notes with a word that is not literal: every notes ref is kept");
    op
}

#[cfg(test)]
mod tests {
    use super::super::tests::git;
    use agent_guard_types::OpKind;

    #[test]
    fn writing_subcommands_keep_every_notes_ref() {
        for line in [
            "notes remove HEAD",
            "notes add -f -m x HEAD",
            "notes add -m x",
            "notes --ref=review remove HEAD~2",
            "notes --ref review edit",
            "notes append -m more",
            "notes copy -f HEAD HEAD~1",
            "notes prune",
            "notes merge -s ours refs/notes/other",
            "notes $SUB HEAD",
        ] {
            let op = git(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(op.kind, OpKind::GitRefDelete, "{line}");
            assert_eq!(op.targets[0].text, "refs/notes/", "{line}");
        }
        let op = git("notes --ref=refs/review/main remove").unwrap();
        assert_eq!(op.targets[1].text, "refs/review/main");
    }

    #[test]
    fn reading_subcommands_change_nothing() {
        for line in [
            "notes",
            "notes list",
            "notes show HEAD",
            "notes --ref x get-ref",
        ] {
            assert!(git(line).is_none(), "{line}");
        }
    }
}

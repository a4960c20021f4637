//! The stash ops of a line judged in order, each against the stash list the earlier ones
//! leave (issue 12, item 1).
//!
//! `git stash drop; git stash drop` drops `stash@{0}` twice, which are two different entries;
//! `git stash push -u && git stash drop` drops the entry the push just made, which does not
//! exist yet when the guard keeps what the line drops. The stash list is simulated from the
//! left: a push puts a new entry on top, a drop (or `pop`, `branch`) removes one, `clear`
//! removes all. Each drop of an entry that exists now is rewritten to its position *now*
//! (what the compensation keeps, before the line runs); a drop of an entry the line itself
//! made is asked about, as any delete of what the line creates; a selector the simulation
//! cannot place (`stash@{2.days.ago}`) in a line that changes the list is undeterminable.

use agent_guard_types::{OpKind, OpSpec, Target};

/// How the line changes one op's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Followed {
    /// Judge it with these targets (the entries' positions before the line runs).
    Targets(Vec<Target>),
    /// It drops an entry the line made earlier: what it deletes does not exist yet.
    DropsCreated,
    /// Its selector cannot be placed in a list the line changes.
    Unplaceable,
    /// It drops nothing that exists (the line cleared the list before it).
    Nothing,
}

/// An entry of the simulated list: one that exists now (its position now), or one the line
/// pushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Existing(usize),
    Pushed,
}

/// The simulated stash list: `known` on top, then the existing entries from `next` on.
#[derive(Debug, Default)]
struct Stack {
    known: Vec<Entry>,
    next: usize,
    cleared: bool,
}

impl Stack {
    /// The entry at simulated position `n`, removed.
    fn take(&mut self, n: usize) -> Option<Entry> {
        while self.known.len() <= n {
            if self.cleared {
                return None;
            }
            self.known.push(Entry::Existing(self.next));
            self.next += 1;
        }
        Some(self.known.remove(n))
    }
}

/// `stash@{n}`, `refs/stash@{n}` or `n` → `n`.
fn position(text: &str) -> Option<usize> {
    let inner = text
        .strip_prefix("refs/stash@{")
        .or_else(|| text.strip_prefix("stash@{"))
        .and_then(|rest| rest.strip_suffix('}'))
        .unwrap_or(text);
    inner.parse().ok()
}

/// For each op of the line, how the stash ops before it change its verdict (`None`: not at
/// all). A line with at most one stash-list op is left as it is.
pub(crate) fn follow(ops: &[OpSpec]) -> Vec<Option<Followed>> {
    let mut out = vec![None; ops.len()];
    let stash_ops = ops
        .iter()
        .filter(|op| matches!(op.kind, OpKind::GitStashDrop | OpKind::GitStashPush))
        .count();
    if stash_ops < 2 {
        return out;
    }
    let mut stack = Stack::default();
    for (index, op) in ops.iter().enumerate() {
        match op.kind {
            OpKind::GitStashPush => stack.known.insert(0, Entry::Pushed),
            OpKind::GitStashDrop if op.undeterminable => {}
            // `clear`: every entry, the line's own included.
            OpKind::GitStashDrop if op.targets.is_empty() => {
                if stack.known.contains(&Entry::Pushed) {
                    out[index] = Some(Followed::DropsCreated);
                }
                stack.known.clear();
                stack.cleared = true;
            }
            OpKind::GitStashDrop => {
                let Some(n) = op.targets.first().and_then(|t| position(&t.text)) else {
                    out[index] = Some(Followed::Unplaceable);
                    continue;
                };
                out[index] = Some(match stack.take(n) {
                    Some(Entry::Existing(now)) => {
                        Followed::Targets(vec![Target::literal(format!("stash@{{{now}}}"))])
                    }
                    Some(Entry::Pushed) => Followed::DropsCreated,
                    // Past the end after a clear: git will refuse it; nothing to keep.
                    None => Followed::Nothing,
                });
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::Dialect;

    fn push() -> OpSpec {
        OpSpec::new("git", OpKind::GitStashPush, Dialect::Posix)
    }

    fn drop(entry: &str) -> OpSpec {
        let mut op = OpSpec::new("git", OpKind::GitStashDrop, Dialect::Posix);
        if !entry.is_empty() {
            op.targets.push(Target::literal(entry));
        }
        op
    }

    fn targets(followed: Option<&Followed>) -> Vec<String> {
        match followed {
            Some(Followed::Targets(t)) => t.iter().map(|t| t.text.clone()).collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_drop_keeps_the_entry_it_will_see() {
        let f = follow(&[drop("stash@{0}"), drop("stash@{0}")]);
        assert_eq!(targets(f[0].as_ref()), ["stash@{0}"]);
        assert_eq!(targets(f[1].as_ref()), ["stash@{1}"]);
        let f = follow(&[drop("1"), drop("stash@{1}"), drop("refs/stash@{0}")]);
        assert_eq!(targets(f[0].as_ref()), ["stash@{1}"]);
        assert_eq!(targets(f[1].as_ref()), ["stash@{2}"]);
        assert_eq!(targets(f[2].as_ref()), ["stash@{0}"]);
    }

    #[test]
    fn dropping_what_the_line_pushed_is_asked() {
        let f = follow(&[push(), drop("stash@{0}")]);
        assert_eq!(f[1], Some(Followed::DropsCreated));
        let f = follow(&[push(), drop("stash@{1}")]);
        assert_eq!(targets(f[1].as_ref()), ["stash@{0}"]);
        let f = follow(&[push(), drop("")]);
        assert_eq!(f[1], Some(Followed::DropsCreated));
        let f = follow(&[push(), drop("stash@{2.days.ago}")]);
        assert_eq!(f[1], Some(Followed::Unplaceable));
        let f = follow(&[drop(""), drop("stash@{0}")]);
        assert_eq!(f[1], Some(Followed::Nothing));
        // One stash op alone is judged as it is.
        assert_eq!(follow(&[drop("stash@{3}")]), vec![None]);
    }
}

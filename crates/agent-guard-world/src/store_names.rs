//! The names the guard itself writes into the quarantine when it journals a transaction and
//! takes a checkpoint, as shapes (`pack-` and 40 hex digits, a transaction id's digits):
//! a `find` delete is judged before the checkpoint it relies on exists, so whether its
//! name patterns could match the store must not depend on what the store holds yet
//! (`find . -name '*.pack' -delete`, `find . -name HEAD -delete` on a first checkpoint).
//!
//! A shape is a sequence of byte sets, each taken once or (a run) any number of times; a
//! pattern can match a shape when the two languages meet, which a walk over pairs of
//! positions decides exactly (`pack-f*` meets `pack-<hex>.pack`, `*.tmp` meets nothing).
//! Transient names (`*.tmp` siblings of files being replaced, `tmp_pack-*` while a pack is
//! written, `.agent-guard-partial-*` while a copy is made) are left out: they hold nothing
//! a user could lose, and what exists is matched by name anyway.

use std::collections::HashSet;

/// One position of a shape or a pattern: the bytes it takes, and whether it repeats.
#[derive(Clone)]
struct Step {
    bytes: [bool; 256],
    repeats: bool,
}

impl Step {
    fn one(byte: u8) -> Step {
        let mut bytes = [false; 256];
        bytes[usize::from(byte)] = true;
        Step {
            bytes,
            repeats: false,
        }
    }

    fn of(test: impl Fn(u8) -> bool, repeats: bool) -> Step {
        let mut bytes = [false; 256];
        for byte in 0..=255u8 {
            bytes[usize::from(byte)] = test(byte);
        }
        Step { bytes, repeats }
    }

    fn meets(&self, other: &Step) -> bool {
        self.bytes.iter().zip(&other.bytes).any(|(a, b)| *a && *b)
    }

    fn fold_case(mut self) -> Step {
        for upper in b'A'..=b'Z' {
            if self.bytes[usize::from(upper)] {
                self.bytes[usize::from(upper.to_ascii_lowercase())] = true;
                self.bytes[usize::from(upper)] = false;
            }
        }
        self
    }
}

/// What the guard names in the quarantine. `#` is one hex digit, `9` one decimal digit,
/// `*` any run of name bytes; every other byte is itself.
const SHAPES: &[&str] = &[
    // The quarantine's own files and directories.
    "lock",
    "manifest.jsonl",
    "manifest.checkpoint",
    "audit.jsonl",
    "state.json",
    "sessions",
    "approvals",
    "keys",
    "audit-chain.key",
    "*.json",
    "99999999-999999-########",
    "checkpoints",
    "agent-guard-index",
    "agent-guard-index.delta",
    "agent-guard-quarantine",
    // A git repository's layout (the nested `.git`, the checkpoints' bare store).
    ".git",
    "HEAD",
    "config",
    "description",
    "hooks",
    "*.sample",
    "info",
    "exclude",
    "objects",
    "pack",
    "pack-########################################.pack",
    "pack-########################################.idx",
    "pack-########################################.rev",
    "##",
    "######################################",
    "refs",
    "heads",
    "tags",
    "packed-refs",
    "logs",
];

fn shape(text: &str) -> Vec<Step> {
    text.bytes()
        .map(|b| match b {
            b'#' => Step::of(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase(), false),
            b'9' => Step::of(|c| c.is_ascii_digit(), false),
            b'*' => Step::of(|c| c != b'/' && c != 0, true),
            other => Step::one(other),
        })
        .collect()
}

/// A shell pattern (`find -name`'s: `*`, `?`, `[…]` with `!` or `^`, `\` escapes) as steps.
fn pattern(text: &[u8]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        at += 1;
        match byte {
            b'*' => steps.push(Step::of(|_| true, true)),
            b'?' => steps.push(Step::of(|_| true, false)),
            b'\\' if at < text.len() => {
                steps.push(Step::one(text[at]));
                at += 1;
            }
            b'[' => match class(text, at) {
                Some((step, end)) => {
                    steps.push(step);
                    at = end;
                }
                None => steps.push(Step::one(b'[')),
            },
            other => steps.push(Step::one(other)),
        }
    }
    steps
}

/// The class opening just before `at`: its step and the position after its `]`.
fn class(text: &[u8], mut at: usize) -> Option<(Step, usize)> {
    let negated = matches!(text.get(at), Some(b'!' | b'^'));
    if negated {
        at += 1;
    }
    let mut bytes = [false; 256];
    let mut first = true;
    loop {
        let byte = *text.get(at)?;
        if byte == b']' && !first {
            break;
        }
        first = false;
        if text.get(at + 1) == Some(&b'-') && text.get(at + 2).is_some_and(|b| *b != b']') {
            for c in byte..=text[at + 2] {
                bytes[usize::from(c)] = true;
            }
            at += 3;
        } else {
            bytes[usize::from(byte)] = true;
            at += 1;
        }
    }
    if negated {
        for b in &mut bytes {
            *b = !*b;
        }
    }
    Some((
        Step {
            bytes,
            repeats: false,
        },
        at + 1,
    ))
}

/// Whether some name both `a` and `b` accept.
fn meet(a: &[Step], b: &[Step]) -> bool {
    let mut seen = HashSet::new();
    let mut pending = vec![(0usize, 0usize)];
    while let Some((i, j)) = pending.pop() {
        if !seen.insert((i, j)) {
            continue;
        }
        if i == a.len() && j == b.len() {
            return true;
        }
        // A run may also take nothing.
        if a.get(i).is_some_and(|s| s.repeats) {
            pending.push((i + 1, j));
        }
        if b.get(j).is_some_and(|s| s.repeats) {
            pending.push((i, j + 1));
        }
        if let (Some(x), Some(y)) = (a.get(i), b.get(j))
            && x.meets(y)
        {
            let next = |s: &Step, k: usize| if s.repeats { k } else { k + 1 };
            pending.push((next(x, i), next(y, j)));
        }
    }
    false
}

/// Whether a name every one of `patterns` matches could be one the guard writes into the
/// quarantine.
pub(crate) fn could_match(patterns: &[String], ignore_case: bool) -> bool {
    SHAPES.iter().any(|text| {
        let fold = |steps: Vec<Step>| -> Vec<Step> {
            if ignore_case {
                steps.into_iter().map(Step::fold_case).collect()
            } else {
                steps
            }
        };
        let shape = fold(shape(text));
        // Every pattern must meet the shape; that each does alone is an over-estimate
        // of them all meeting together, which only ever refuses more.
        patterns
            .iter()
            .all(|p| meet(&fold(pattern(p.as_bytes())), &shape))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn may(patterns: &[&str]) -> bool {
        let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        could_match(&patterns, false)
    }

    #[test]
    fn what_the_store_will_hold_is_matched_by_shape() {
        for pattern in [
            "*.pack",
            "*.idx",
            "*.rev",
            "pack-f*",
            "pack-?[0-3]*",
            "HEAD",
            "config",
            "agent-guard-*",
            "2026*",
            "[0-9]*",
            "*",
            "*-*",
            "manifest*",
            "*.jsonl",
            "lock",
            "*.sample",
            "*.delta",
        ] {
            assert!(may(&[pattern]), "{pattern}");
        }
        assert!(could_match(&["head".to_owned()], true), "-iname");
    }

    #[test]
    fn patterns_that_cannot_match_a_store_name_are_not() {
        for pattern in [
            "*.tmp",
            "*.pyc",
            "*.log",
            "*.o",
            "build",
            "pack-g*.idx",
            "head",
            "*~",
            "PACK-*.idx",
        ] {
            assert!(!may(&[pattern]), "{pattern}");
        }
        assert!(!may(&["*.pack", "*.idx"]), "both at once meet no shape");
    }
}

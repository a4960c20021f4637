//! Destructive smell: a cheap, conservative text test for destructive vocabulary.
//!
//! The smell decides whether something the guard cannot see into (a substitution, a script
//! piped into a shell, an unparseable line, an opaque command name) is treated as an unknown
//! destructive operation. It errs towards smelling: a false positive costs a refusal of an
//! opaque construct, a false negative could let a hidden delete through.

/// Words that name a delete in some dialect (compared case-insensitively).
const DELETE_WORDS: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "del",
    "erase",
    "rd",
    "ri",
    "remove-item",
    "mkfs",
    "-delete",
    "truncate",
    "srm",
    "wipe",
    "clear-content",
    "rimraf",
];

/// Git subcommands that can destroy work.
const GIT_WORDS: &[&str] = &[
    "clean", "reset", "restore", "checkout", "push", "stash", "branch", "switch", "rm",
];

/// Returns `true` if `text` contains destructive vocabulary as a word.
///
/// Words are runs of `[A-Za-z0-9_.-]` (so `CMD=rm`, `$(rm`, `'rm` all expose `rm`). A
/// `.exe` suffix is ignored. `git` followed anywhere later by a destructive subcommand word
/// smells too.
pub fn smells(text: &str) -> bool {
    let mut saw_git = false;
    for word in words(text) {
        let lowered = word.to_ascii_lowercase();
        let lowered = lowered.strip_suffix(".exe").unwrap_or(&lowered);
        let base = lowered.rsplit('/').next().unwrap_or(lowered);
        if DELETE_WORDS.contains(&base) {
            return true;
        }
        if base == "git" {
            saw_git = true;
        } else if saw_git && GIT_WORDS.contains(&base) {
            return true;
        }
    }
    false
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/')))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::smells;

    #[test]
    fn destructive_words_smell() {
        for text in [
            "rm -rf .",
            "echo $(rm x)",
            "CMD=rm",
            "printf 'rm -rf .'",
            "/bin/rm x",
            "Remove-Item x",
            "DEL.EXE a",
            "find . -delete",
            "git -C x clean -fd",
            "git stash drop",
        ] {
            assert!(smells(text), "{text}");
        }
    }

    #[test]
    fn ordinary_text_does_not_smell() {
        for text in [
            "ls -la",
            "echo hello",
            "git status",
            "cargo build",
            "format",
            "rmx",
            "term",
        ] {
            assert!(!smells(text), "{text}");
        }
    }
}

//! Windows backslash paths typed into a POSIX shell (`del build\o.js`).
//!
//! A POSIX lexer reads `build\o.js` as `buildo.js`. When a Windows delete verb starts a
//! command, the backslashes are path separators: rewrite them to `/` before lexing. If the
//! same line also has POSIX separators, the two readings cannot be reconciled: fail closed.

use std::borrow::Cow;

const VERBS: &[&str] = &["del", "erase", "rd", "ri"];
const WRAPPERS: &[&str] = &[
    "command", "env", "exec", "nice", "nohup", "stdbuf", "sudo", "time",
];

/// Returns the text to lex, or why it cannot be lexed.
pub(super) fn windows_backslashes(text: &str) -> Result<Cow<'_, str>, String> {
    if !text.contains('\\') || !starts_a_windows_verb(text) {
        return Ok(Cow::Borrowed(text));
    }
    if text.contains([';', '&', '|', '\n']) {
        return Err("mixed Windows delete and POSIX command separators".to_owned());
    }
    Ok(Cow::Owned(text.replace('\\', "/")))
}

fn starts_a_windows_verb(text: &str) -> bool {
    text.split([';', '&', '|', '\n', '(']).any(|segment| {
        let mut words = segment.split_whitespace();
        let mut word = words.next();
        while let Some(w) = word {
            let lowered = w.to_ascii_lowercase();
            if WRAPPERS.contains(&lowered.as_str()) {
                word = words.next();
                continue;
            }
            return VERBS.contains(&lowered.as_str());
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_only_for_windows_verbs() {
        assert_eq!(
            windows_backslashes("del build\\o.js").unwrap(),
            "del build/o.js"
        );
        assert_eq!(
            windows_backslashes("sudo DEL a\\b").unwrap(),
            "sudo DEL a/b"
        );
        assert_eq!(windows_backslashes("rm a\\ b").unwrap(), "rm a\\ b");
        assert!(windows_backslashes("del a\\b; rm x").is_err());
        assert_eq!(
            windows_backslashes("echo del a\\b").unwrap(),
            "echo del a\\b"
        );
    }
}

//! Spelling a list of words as one command line of a dialect, so that lexing it gives back
//! exactly those words (`check -- rm -- -rf` judges `rm -- -rf`, not `rm -rf`).

use agent_guard_types::Dialect;

/// A word that the dialect cannot spell literally.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the word {word:?} cannot be spelled literally in {dialect} syntax")]
pub struct Unquotable {
    /// The word.
    pub word: String,
    /// The dialect.
    pub dialect: Dialect,
}

/// Joins `words` into one command line of `dialect` whose words are exactly `words`: a word
/// made only of characters that are literal everywhere stays as it is (so `-Recurse` is
/// still a PowerShell parameter), any other is quoted.
///
/// # Errors
/// In cmd, a word with a `"` or a `%` cannot be quoted (cmd has no escape inside quotes and
/// expands variables there).
///
/// ```
/// use agent_guard_lex::quote_words;
/// use agent_guard_types::Dialect;
///
/// let words = ["rm", "--", "-rf", "my  dir", "it's"].map(String::from);
/// assert_eq!(
///     quote_words(Dialect::Posix, &words).unwrap(),
///     r#"rm -- -rf 'my  dir' 'it'\''s'"#
/// );
/// ```
pub fn quote_words(dialect: Dialect, words: &[String]) -> Result<String, Unquotable> {
    let quoted: Result<Vec<String>, Unquotable> =
        words.iter().map(|word| quote(dialect, word)).collect();
    Ok(quoted?.join(" "))
}

fn quote(dialect: Dialect, word: &str) -> Result<String, Unquotable> {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '=' | ':' | ',' | '+')
        })
        // A leading `-` word is an option either way; `=` first or `~` could be special.
        && !word.starts_with('=');
    if plain {
        return Ok(word.to_owned());
    }
    match dialect {
        Dialect::Posix => Ok(format!("'{}'", word.replace('\'', r"'\''"))),
        Dialect::PowerShell => {
            // Single quotes are literal; the typographic ones count as quotes too.
            let escaped: String = word
                .chars()
                .flat_map(|c| {
                    if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
                        vec![c, c]
                    } else {
                        vec![c]
                    }
                })
                .collect();
            Ok(format!("'{escaped}'"))
        }
        Dialect::Cmd => {
            if word.contains(['"', '%']) || word.contains(['\n', '\r']) {
                return Err(Unquotable {
                    word: word.to_owned(),
                    dialect,
                });
            }
            Ok(format!("\"{word}\""))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::posix;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn posix_round_trips_through_the_lexer() {
        for list in [
            &["rm", "--", "-rf"][..],
            &["rm", "-rf", "my  dir"],
            &[
                "echo", "$HOME", "`x`", "a;b", "*.log", "", "it's", "\n", "~", "=x",
            ],
        ] {
            let line = quote_words(Dialect::Posix, &words(list)).unwrap();
            let script = posix::lex(&line);
            assert!(script.error.is_none(), "{line}: {:?}", script.error);
            assert_eq!(script.commands.len(), 1, "{line}");
            let lexed: Vec<String> = script.commands[0]
                .words
                .iter()
                .map(|w| {
                    w.literal_text()
                        .unwrap_or_else(|| panic!("{line}: not literal"))
                })
                .collect();
            assert_eq!(lexed, words(list), "{line}");
        }
    }

    #[test]
    fn cmd_refuses_what_it_cannot_spell() {
        assert!(quote_words(Dialect::Cmd, &words(&["del", "a\"b"])).is_err());
        assert!(quote_words(Dialect::Cmd, &words(&["del", "%X%"])).is_err());
        assert_eq!(
            quote_words(Dialect::Cmd, &words(&["del", "my file"])).unwrap(),
            "del \"my file\""
        );
        assert_eq!(
            quote_words(Dialect::PowerShell, &words(&["ri", "-Recurse", "it's"])).unwrap(),
            "ri -Recurse 'it''s'"
        );
    }
}

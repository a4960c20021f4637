//! Strings bash evaluates as code where no command word shows it (issue 35).
//!
//! Three places turn text into commands after the line is read:
//! - **arithmetic**: in `$((x))`, `((…))`, `let`, `[[ x -eq 1 ]]`, `declare -i` and an
//!   indexed array's subscript, a variable's value is evaluated again, and a command
//!   substitution in an array subscript there runs (`x='a[$(rm -rf src)]'; echo $((x))`);
//! - **prompt expansion**: `${x@P}` decodes the value's prompt escapes (`\$` is `$`), then
//!   runs its command substitutions;
//! - a value the line does not show (read by `read`, `mapfile`, built by `printf -v`, the
//!   output of a command substitution) reaching one of those.
//!
//! A string written on the line is judged by what its substitutions run, classified like
//! any nested script (so `r""m` is `rm`, whatever the spelling); a value built at run time
//! is code the guard cannot see, like a program it does not model.

use agent_guard_lex::Script;
use agent_guard_types::{Dialect, OpSpec};

use super::{Line, nested};
use crate::smell::smells;

/// Where bash may evaluate a string as arithmetic or as an array subscript (text tests on
/// the line; a false hit costs only a closer look at its strings).
const ARITHMETIC_CONTEXTS: &[&str] = &[
    "((",
    "let ",
    "declare",
    "typeset",
    "local ",
    "readonly",
    "export ",
    "[[",
    "test ",
    "[ ",
    "printf -v",
    "read ",
    "-eq",
    "-ne",
    "-lt",
    "-le",
    "-gt",
    "-ge",
    "-v ",
    "]=",
    "[$",
    "${",
    "$[",
    "-n ",
];

/// Where a value the line does not show is evaluated as arithmetic or as a name: the
/// tighter set, since a hit there costs a checkpoint. Besides these, a parameter expansion
/// with a subscript or a substring (`${a[x]}`, `${s:x}`) evaluates `x`.
const VALUE_CONTEXTS: &[&str] = &[
    "((", "let ", "[[", " -i", "]=", "[$", "+=", "-=", "*=", "${!", "$[", "-v ", "-n ",
];

/// Programs whose output is a number or a date, never text that holds a subscript: a value
/// captured from them (`n=$(wc -l < f)`) is not code.
const NUMERIC_OUTPUT: &[&str] = &[
    "wc", "nproc", "date", "expr", "id", "getconf", "stat", "seq", "du", "df",
];

/// Why a string written on the line is refused.
const WRITTEN: &str = "a command substitution inside a string bash may evaluate as arithmetic \
                       or as a prompt (an array subscript, ${x@P})";

/// Why a value built at run time is a program the guard does not see into.
const BUILT: &str = "a value read or built at run time is evaluated as arithmetic (an array \
                     subscript in it runs commands)";

/// Why a prompt expansion is refused.
const PROMPT: &str = "${x@P} runs the command substitutions of a value, which prompt escapes \
                      can spell without a $( (\\$, \\044)";

/// The op for strings on the line that bash evaluates as code, if any.
pub(super) fn evaluated_later(script: &Script, line: &Line<'_>) -> Option<OpSpec> {
    let source = line.source;
    let prompt = source.contains("@P}");
    let arithmetic = ARITHMETIC_CONTEXTS.iter().any(|c| source.contains(c));
    if (prompt || arithmetic) && written_code(script, line) {
        return Some(OpSpec::unknown("<opaque>", Dialect::Posix, WRITTEN));
    }
    if prompt {
        return Some(OpSpec::unknown("<opaque>", Dialect::Posix, PROMPT));
    }
    let evaluates =
        VALUE_CONTEXTS.iter().any(|c| source.contains(c)) || subscript_or_substring(source);
    (evaluates && built_at_run_time(script, source))
        .then(|| crate::noop::opaque("<arithmetic>", Dialect::Posix, BUILT))
}

/// Whether `source` has a parameter expansion with a subscript or a substring offset
/// (`${a[x]}`, `${s:x}`), whose index bash evaluates as arithmetic (not `${x:-y}` and the
/// other defaults).
fn subscript_or_substring(source: &str) -> bool {
    expansions(source).any(|(_, mut after)| match after.next() {
        Some('[') => true,
        Some(':') => !matches!(after.next(), Some('-' | '=' | '+' | '?')),
        _ => false,
    })
}

/// Whether a parameter expansion of `source` transforms its value (`${x/a/b}`, `${x#p}`,
/// `${x^^}`, `${x:-…}`): the result is text the line does not show.
fn transformed(source: &str) -> bool {
    expansions(source).any(|(_, mut after)| {
        after.next().is_some_and(|c| {
            matches!(
                c,
                '/' | '#' | '%' | '^' | ',' | ':' | '@' | '-' | '+' | '=' | '?'
            )
        })
    })
}

/// Each `${NAME…` of `source`: the name and what follows it.
fn expansions(source: &str) -> impl Iterator<Item = (&str, std::str::Chars<'_>)> {
    source.match_indices("${").map(move |(at, _)| {
        let rest = &source[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        (&rest[..end], rest[end..].chars())
    })
}

/// Whether a literal string of the line holds a command substitution that does something
/// (its body classified as a nested script), or smells once its quotes are gone.
fn written_code(script: &Script, line: &Line<'_>) -> bool {
    script
        .commands
        .iter()
        .flat_map(|command| command.assignments.iter().chain(&command.words))
        .filter_map(agent_guard_lex::Word::literal_text)
        .filter(|text| text.contains("$(") || text.contains('`'))
        .any(|text| {
            let unquoted: String = text
                .chars()
                .filter(|c| !matches!(c, '"' | '\'' | '\\'))
                .collect();
            smells(&text)
                || smells(&unquoted)
                || bodies(&text)
                    .iter()
                    .any(|body| !nested(body, line, WRITTEN).is_empty())
        })
}

/// Whether some value on the line comes from outside it: `read`, `mapfile`, `readarray`,
/// `printf -v`, or a command substitution of a program whose output may be any text.
fn built_at_run_time(script: &Script, source: &str) -> bool {
    let reads = script.commands.iter().any(|command| {
        let mut words = command
            .words
            .iter()
            .filter_map(agent_guard_lex::Word::literal_text);
        match words.next().as_deref() {
            Some("read" | "mapfile" | "readarray") => true,
            Some("printf") => words.any(|w| w.starts_with("-v")),
            _ => false,
        }
    });
    reads
        || transformed(source)
        || bodies(source).iter().any(|body| !numeric_output(body))
        || script.commands.iter().any(assigns_an_expansion)
}

/// Whether a command assigns a value built from expansions (`x="a[${d}(…)]"`, `x=$y`,
/// `declare x=$y`), other than arithmetic and the numeric substitutions.
fn assigns_an_expansion(command: &agent_guard_lex::SimpleCommand) -> bool {
    use agent_guard_lex::WordPart;
    let declares = command
        .words
        .first()
        .and_then(agent_guard_lex::Word::literal_text)
        .is_some_and(|name| {
            matches!(
                name.as_str(),
                "declare" | "typeset" | "local" | "export" | "readonly"
            )
        });
    let arguments = command.words.iter().skip(1).filter(|_| declares);
    command.assignments.iter().chain(arguments).any(|word| {
        word.parts.iter().any(|part| match part {
            WordPart::Parameter { .. }
            | WordPart::Opaque { .. }
            | WordPart::ProcessSubstitution { .. } => true,
            WordPart::CommandSubstitution { raw } => {
                bodies(raw).iter().any(|body| !numeric_output(body))
            }
            _ => false,
        })
    })
}

/// Whether a substitution's output is a number or a date: the last command of its pipeline
/// is one of [`NUMERIC_OUTPUT`].
fn numeric_output(body: &str) -> bool {
    let last = body.rsplit('|').next().unwrap_or(body);
    let name = last.split_whitespace().next().unwrap_or("");
    NUMERIC_OUTPUT.contains(&crate::args::basename(name))
}

/// The bodies of the command substitutions in `text`: `$(…)` (not `$((…))`) and `` `…` ``.
/// An unclosed one runs to the end of the text.
fn bodies(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("$(") {
        let after = &rest[at + 2..];
        if let Some(arithmetic) = after.strip_prefix('(') {
            rest = arithmetic;
            continue;
        }
        let end = closing_paren(after).unwrap_or(after.len());
        found.push(&after[..end]);
        rest = after.get(end + 1..).unwrap_or("");
    }
    let mut ticks = text.split('`');
    ticks.next();
    found.extend(ticks.step_by(2));
    found
}

/// The index of the `)` that closes a `$(` whose body starts `text`.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(at),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{bodies, numeric_output};

    #[test]
    fn bodies_are_the_substitutions_and_not_arithmetic() {
        assert_eq!(bodies("a[$(rm -rf src)]"), ["rm -rf src"]);
        assert_eq!(bodies("$((1+2)) $(date) `id`"), ["date", "id"]);
        assert_eq!(bodies("$(echo $(rm x))"), ["echo $(rm x)"]);
        assert_eq!(bodies("$(rm -rf"), ["rm -rf"]);
        assert!(bodies("plain").is_empty());
    }

    #[test]
    fn numeric_output_is_the_last_command_of_the_pipeline() {
        assert!(numeric_output("wc -l < f"));
        assert!(numeric_output("ls | wc -l"));
        assert!(!numeric_output("cat f"));
        assert!(!numeric_output("wc -l f | cat"));
    }
}

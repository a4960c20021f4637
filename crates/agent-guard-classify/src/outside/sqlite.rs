//! `sqlite3 [OPTIONS] FILE [SQL…]`: the database is a file, so a statement that writes it
//! is an overwrite of that file (and of its `-wal` and `-journal` companions, which hold
//! what is not yet in it), kept like every overwrite: the current version is preserved and
//! left in place. Reads (`SELECT`, `.schema`, `.dump`) write nothing; dot-commands that
//! write another file (`.output`, `.once`, `.save`, `.backup`) overwrite that file.

use agent_guard_types::{Dialect, OpSpec, WriteMode};

use super::Input;
use super::sql::{self, Sql};
use crate::args::Arg;

/// Options that take the next word as their value (`-lookaside` and `-pagecache` take two).
const VALUED: &[&str] = &[
    "cmd",
    "init",
    "separator",
    "newline",
    "nullvalue",
    "mmap",
    "vfs",
    "maxsize",
    "heap",
    "escape",
];
const TWO_VALUES: &[&str] = &["lookaside", "pagecache"];

/// The writes of `sqlite3 …`; empty when it only reads, or opens no file.
pub(crate) fn parse(args: &[Arg], dialect: Dialect, input: &Input) -> Vec<OpSpec> {
    let mut at = 0;
    let mut sql: Vec<&str> = Vec::new();
    let mut init = false;
    let mut readonly = false;
    let mut operands: Vec<&Arg> = Vec::new();
    while at < args.len() {
        let arg = &args[at];
        at += 1;
        let Some(text) = arg.known() else {
            operands.push(arg);
            continue;
        };
        let Some(option) = text
            .strip_prefix("--")
            .or_else(|| text.strip_prefix('-'))
            .filter(|o| !o.is_empty() && operands.is_empty())
        else {
            operands.push(arg);
            continue;
        };
        match option {
            "version" | "help" => return Vec::new(),
            "readonly" => readonly = true,
            "cmd" => {
                if let Some(value) = args.get(at).and_then(Arg::known) {
                    sql.push(value);
                }
            }
            "init" => init = true,
            // Archive mode: the rest are archive arguments (a write of the file unless only
            // listing).
            "A" => {
                let rest = args.get(at..).unwrap_or_default();
                let lists = rest
                    .first()
                    .and_then(Arg::known)
                    .is_some_and(|a| a.starts_with('t') || a == "--list");
                return if lists || readonly {
                    Vec::new()
                } else {
                    rest.iter()
                        .skip(1)
                        .find(|a| a.known().is_none_or(|t| !t.starts_with('-')))
                        .map(|file| overwrite(file, dialect))
                        .into_iter()
                        .collect()
                };
            }
            _ => {}
        }
        if VALUED.contains(&option) {
            at += 1;
        } else if TWO_VALUES.contains(&option) {
            at += 2;
        }
    }
    let Some((file, statements)) = operands.split_first() else {
        // An in-memory database: only its dot-commands write files.
        return written_by_dots(&sql, dialect);
    };
    let opened = Opened {
        file,
        statements,
        sql,
        init,
        readonly,
    };
    writes(&opened, dialect, input)
}

/// A database file `sqlite3` opens, and what it is told to run there.
struct Opened<'a> {
    file: &'a Arg,
    statements: &'a [&'a Arg],
    sql: Vec<&'a str>,
    init: bool,
    readonly: bool,
}

/// What `sqlite3` writes once it opened `opened.file`.
fn writes(opened: &Opened<'_>, dialect: Dialect, input: &Input) -> Vec<OpSpec> {
    let Opened {
        file,
        statements,
        init,
        readonly,
        ..
    } = *opened;
    let sql = opened.sql.clone();
    let mut judged = Sql::Reads;
    let mut dots = sql.clone();
    if init {
        judged = Sql::Unseen("it reads statements from a file the guard does not read");
    }
    if statements.is_empty() {
        judged = judged.worst(match input {
            Input::Nothing => Sql::Reads,
            Input::Text(text) => dot_or_sql(text),
            Input::Unseen => {
                Sql::Unseen("it reads its statements from input the guard does not read")
            }
        });
    }
    for statement in statements {
        match statement.known() {
            Some(text) => dots.push(text),
            None => judged = Sql::Unseen("a statement the line builds at run time"),
        }
    }
    for text in &dots {
        judged = judged.worst(dot_or_sql(text));
    }
    let mut ops = written_by_dots(&dots, dialect);
    // `.shell`, `.system`, `writefile()` and an attached database reach past the file.
    let reaches_out = dots.iter().any(|t| {
        let lower = t.to_ascii_lowercase();
        matches!(dot_name(t), Some("shell" | "system"))
            || lower.contains("writefile")
            || lower.contains("attach")
            || lower.contains("load_extension")
    });
    if reaches_out || init {
        ops.push(crate::noop::opaque(
            "sqlite3",
            dialect,
            "sqlite3 runs a shell command, writes a file or opens another database the guard \
             does not follow",
        ));
    }
    let writes_file = !matches!(judged, Sql::Reads)
        || dots
            .iter()
            .any(|t| dot_name(t).is_some_and(|d| WRITES_DB.contains(&d)));
    if writes_file && !readonly && file.known().is_none_or(|f| f != ":memory:") {
        ops.push(overwrite(file, dialect));
    }
    ops
}

/// Dot-commands that write the database itself.
const WRITES_DB: &[&str] = &["import", "restore", "load", "recover"];

/// The dot-command a text starts with (`.output f` → `output`).
fn dot_name(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix('.')?;
    rest.split_whitespace().next()
}

fn dot_or_sql(text: &str) -> Sql {
    match dot_name(text) {
        Some("read" | "shell" | "system") => {
            Sql::Unseen("a dot-command runs what the guard does not read")
        }
        Some(_) => Sql::Reads,
        None => sql::judge(text),
    }
}

/// The files `.output`, `.once`, `.save`, `.backup` and `.excel` write.
fn written_by_dots(texts: &[&str], dialect: Dialect) -> Vec<OpSpec> {
    let mut ops = Vec::new();
    for text in texts {
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let Some(dot) = words.next().and_then(|w| w.strip_prefix('.')) else {
                continue;
            };
            if !matches!(dot, "output" | "once" | "save" | "backup" | "clone") {
                continue;
            }
            if let Some(file) = words
                .rfind(|w| !w.starts_with('-'))
                .map(|w| w.trim_matches(['\'', '"']))
                .filter(|w| !w.is_empty() && !w.starts_with('|'))
            {
                let mut op = crate::writes::overwrite_in("sqlite3", WriteMode::Replace, dialect);
                op.targets.push(agent_guard_types::Target::literal(file));
                ops.push(op);
            }
        }
    }
    ops
}

/// The database file and its companions, written in place.
fn overwrite(file: &Arg, dialect: Dialect) -> OpSpec {
    let mut op = crate::writes::overwrite_in("sqlite3", WriteMode::InPlace, dialect);
    op.targets.push(crate::writes::file(file, true));
    if file.known().is_some() {
        for suffix in ["-wal", "-journal"] {
            let mut companion = crate::writes::file(file, true);
            companion.text.push_str(suffix);
            op.targets.push(companion);
        }
    }
    op.note("sqlite3 writes the database file it opens; its current version is kept first");
    op
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outside::tests::args;

    fn targets(line: &str) -> Vec<String> {
        parse(&args(line), Dialect::Posix, &Input::Unseen)
            .into_iter()
            .flat_map(|op| op.targets.into_iter().map(|t| t.text))
            .collect()
    }

    #[test]
    fn a_statement_that_writes_is_an_overwrite_of_the_file() {
        assert_eq!(
            targets("app.db 'DELETE FROM users'"),
            ["app.db", "app.db-wal", "app.db-journal"]
        );
        assert_eq!(targets("-bail app.db 'insert into t values (1)'").len(), 3);
        assert_eq!(targets("app.db").len(), 3, "statements from input");
        assert!(targets("app.db 'select count(*) from users'").is_empty());
        assert!(targets("-readonly app.db 'delete from t'").is_empty());
        assert!(targets("app.db .schema").is_empty());
        assert_eq!(targets("app.db '.output out.txt' 'select 1'"), ["out.txt"]);
        assert!(targets("--version").is_empty());
        let kinds: Vec<_> = parse(
            &args("app.db '.shell rm -rf x'"),
            Dialect::Posix,
            &Input::Nothing,
        )
        .into_iter()
        .map(|op| op.kind)
        .collect();
        assert!(
            kinds.contains(&agent_guard_types::OpKind::OpaqueProgram),
            "{kinds:?}"
        );
    }
}

//! SQL clients of databases the guard cannot dump (issue 37, point 4): Cassandra's `cqlsh`,
//! `clickhouse-client`, SQL Server's `sqlcmd`, `cockroach sql`, `heroku pg:psql`, `wrangler
//! d1 execute`, `snowsql`. Their statements are judged like `psql`'s: reads change nothing, a
//! statement that destroys data (or statements the guard cannot read: a file, the input) is
//! asked, naming the database; other changes stay checkpointed programs. No pre-image can be
//! taken, so nothing here is ever allowed without a person.
//!
//! DuckDB keeps its database in a file of the workspace, like SQLite: `duckdb FILE SQL` that
//! writes is an overwrite of the file and its `.wal`.

use agent_guard_types::{Dialect, OpKind, OpSpec, Outside, Place};

use super::Input;
use super::sql::{self, Sql};
use crate::args::Arg;

/// One client: where its statements come from.
struct Client {
    /// The program (lower-cased basename).
    program: &'static str,
    /// The words after the program that make it a SQL client (`cockroach sql`).
    sub: &'static [&'static str],
    /// Options whose value is SQL.
    sql: &'static [&'static str],
    /// Options whose value is a file of statements.
    files: &'static [&'static str],
    /// The database, as a person names it.
    what: &'static str,
}

const CLIENTS: &[Client] = &[
    Client {
        program: "cqlsh",
        sub: &[],
        sql: &["-e", "--execute"],
        files: &["-f", "--file"],
        what: "Cassandra",
    },
    Client {
        program: "clickhouse-client",
        sub: &[],
        sql: &["-q", "--query"],
        files: &["--queries-file"],
        what: "ClickHouse",
    },
    Client {
        program: "clickhouse",
        sub: &["client"],
        sql: &["-q", "--query"],
        files: &["--queries-file"],
        what: "ClickHouse",
    },
    Client {
        program: "sqlcmd",
        sub: &[],
        sql: &["-Q", "-q", "--query"],
        files: &["-i", "--input-file"],
        what: "SQL Server",
    },
    Client {
        program: "cockroach",
        sub: &["sql"],
        sql: &["-e", "--execute"],
        files: &["-f", "--file"],
        what: "CockroachDB",
    },
    Client {
        program: "heroku",
        sub: &["pg:psql"],
        sql: &["-c", "--command"],
        files: &["-f", "--file"],
        what: "Heroku Postgres",
    },
    Client {
        program: "wrangler",
        sub: &["d1", "execute"],
        sql: &["--command"],
        files: &["--file"],
        what: "Cloudflare D1",
    },
    Client {
        program: "snow",
        sub: &["sql"],
        sql: &["-q", "--query"],
        files: &["-f", "--filename"],
        what: "Snowflake",
    },
    Client {
        program: "snowsql",
        sub: &[],
        sql: &["-q", "--query"],
        files: &["-f", "--filename"],
        what: "Snowflake",
    },
];

/// Whether `name` is one of these clients.
pub(crate) fn concerns(name: &str) -> bool {
    name == "duckdb" || CLIENTS.iter().any(|c| c.program == name)
}

/// The ops of client `name` run with `args`; `None` when it is not used as a SQL client
/// (`heroku apps`, `cockroach start`): the caller judges it as usual.
pub(crate) fn judge(
    name: &str,
    args: &[Arg],
    dialect: Dialect,
    input: &Input,
) -> Option<Vec<OpSpec>> {
    if name == "duckdb" {
        return Some(duckdb(args, dialect, input));
    }
    // The subcommand words, wherever global options leave them (`wrangler --cwd . d1 …`).
    let (client, at) = CLIENTS.iter().find_map(|c| {
        if c.program != name {
            return None;
        }
        if c.sub.is_empty() {
            return Some((c, 0));
        }
        (0..args.len())
            .find(|&i| {
                c.sub
                    .iter()
                    .enumerate()
                    .all(|(k, word)| args.get(i + k).and_then(Arg::known) == Some(*word))
            })
            .map(|i| (c, i + c.sub.len()))
    })?;
    let (texts, from_file) = statements(&args[at..], client.sql, client.files);
    let judged = judged(&texts, from_file, input);
    Some(ops(name, client.what, &judged, &texts, dialect))
}

/// The SQL the options spell (`None` for one not literal) and whether a file of statements is
/// read. A short option's value may be attached (`-eDROP…`) or end a cluster (`-nq SQL`).
fn statements(
    args: &[Arg],
    sql_options: &[&str],
    file_options: &[&str],
) -> (Vec<Option<String>>, bool) {
    let mut texts = Vec::new();
    let mut from_file = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        // A word that is not literal still shows its option (`--query="$Q"`).
        let known = arg.known();
        let text = known.unwrap_or(arg.text.as_str());
        let Some(found) = option_in(text, sql_options, file_options) else {
            continue;
        };
        let value = match found.value {
            Some(value) => known.map(|_| value.to_owned()),
            None => words.next().and_then(|a| a.known().map(str::to_owned)),
        };
        if found.file {
            from_file = true;
        } else {
            texts.push(value);
        }
    }
    (texts, from_file)
}

/// A SQL or file option found in one word, and its value when the word holds it.
struct Found<'a> {
    file: bool,
    value: Option<&'a str>,
}

fn option_in<'a>(text: &'a str, sql_options: &[&str], file_options: &[&str]) -> Option<Found<'a>> {
    let is = |option: &str| {
        if sql_options.contains(&option) {
            Some(false)
        } else if file_options.contains(&option) {
            Some(true)
        } else {
            None
        }
    };
    if text.starts_with("--") {
        let (option, value) = match text.split_once('=') {
            Some((option, value)) => (option, Some(value)),
            None => (text, None),
        };
        return is(option).map(|file| Found { file, value });
    }
    let letters = text.strip_prefix('-')?;
    // A cluster of flags ending in the option, or the option with its value attached.
    for (at, letter) in letters.char_indices() {
        if let Some(file) = is(&format!("-{letter}")) {
            let rest = &letters[at + letter.len_utf8()..];
            return Some(Found {
                file,
                value: (!rest.is_empty()).then_some(rest),
            });
        }
    }
    None
}

/// Why the statements are not seen.
const UNSEEN: &str =
    "it runs statements from a file or from its input, which the guard does not read";

/// Words that start a statement that may destroy data. T-SQL needs no `;` between
/// statements (`SELECT 1 DROP TABLE t`), so each is judged from where it stands too.
const STARTS: &[&str] = &[
    "drop", "truncate", "delete", "alter", "merge", "replace", "insert",
];

/// [`sql::judge`] of `text`, and of its text from each word that may start a destroying
/// statement.
fn judge_text(text: &str) -> Sql {
    let mut worst = sql::judge(text);
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut at = 0;
    while at < bytes.len() {
        if !word(bytes[at]) {
            at += 1;
            continue;
        }
        let end = (at..bytes.len())
            .find(|&i| !word(bytes[i]))
            .unwrap_or(bytes.len());
        // `at` and `end` sit on ASCII bytes (or the end): both are character boundaries.
        if at > 0 && STARTS.iter().any(|s| text[at..end].eq_ignore_ascii_case(s)) {
            worst = worst.worst(sql::judge(&text[at..]));
        }
        at = end;
    }
    worst
}

fn judged(texts: &[Option<String>], from_file: bool, input: &Input) -> Sql {
    let mut judged = texts.iter().fold(Sql::Reads, |worst, text| {
        worst.worst(match text {
            Some(text) => judge_text(text),
            None => Sql::Unseen("a statement the line builds at run time"),
        })
    });
    if from_file {
        judged = judged.worst(Sql::Unseen(UNSEEN));
    } else if texts.is_empty() {
        judged = judged.worst(match input {
            Input::Nothing => Sql::Reads,
            Input::Text(text) => judge_text(text),
            Input::Unseen => Sql::Unseen(UNSEEN),
        });
    }
    judged
}

fn ops(
    name: &str,
    what: &str,
    judged: &Sql,
    texts: &[Option<String>],
    dialect: Dialect,
) -> Vec<OpSpec> {
    let writes_files = texts.iter().flatten().any(|t| sql::writes_files(t));
    let program = || {
        crate::noop::opaque(
            name,
            dialect,
            "a database client that changes data or writes files (no statement the guard reads destroys any)",
        )
    };
    match judged {
        Sql::Reads if !writes_files => Vec::new(),
        Sql::Reads | Sql::Changes => vec![program()],
        Sql::Unseen(why) => vec![
            destroy(
                name,
                what,
                &format!("{name} may destroy data in the {what} database it connects to: {why}"),
                dialect,
            ),
            program(),
        ],
        Sql::Destroys { statement, .. } => vec![
            destroy(
                name,
                what,
                &format!("{name} destroys data in the {what} database it connects to: {statement}"),
                dialect,
            ),
            program(),
        ],
    }
}

fn destroy(name: &str, what: &str, note: &str, dialect: Dialect) -> OpSpec {
    let mut op = OpSpec::new(name, OpKind::DatabaseDestroy, dialect);
    op.note(note);
    op.outside = Some(Outside {
        place: Place::Database,
        what: format!("data in the {what} database it connects to (no dump can be taken)"),
        database: None,
    });
    op
}

/// `duckdb [OPTIONS] [FILE [SQL]]`, `-c SQL`, `-cmd SQL`, `-s SQL`: a statement that writes
/// is an overwrite of FILE and its `.wal`; reads write nothing; statements from a file, the
/// input or built at run time may write it.
fn duckdb(args: &[Arg], dialect: Dialect, input: &Input) -> Vec<OpSpec> {
    let mut texts = Vec::new();
    let mut operands = Vec::new();
    let mut from_file = false;
    let mut readonly = false;
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.known() {
            Some("-c" | "-cmd" | "-s") => {
                texts.push(words.next().and_then(|a| a.known().map(str::to_owned)));
            }
            Some("-init") => {
                from_file = true;
                words.next();
            }
            Some("-readonly") => readonly = true,
            Some("-version" | "-help" | "--version" | "--help") => return Vec::new(),
            Some(text) if text.starts_with('-') && operands.is_empty() => {}
            _ => operands.push(arg),
        }
    }
    let Some((file, rest)) = operands.split_first() else {
        // An in-memory database.
        return Vec::new();
    };
    texts.extend(rest.iter().map(|a| a.known().map(str::to_owned)));
    let judged = judged(&texts, from_file, input);
    if readonly {
        return Vec::new();
    }
    // A dot-command (`.shell`, `.output`, `.open`) or `ATTACH`/`COPY … TO`/`EXPORT` reaches
    // other files: a program the checkpoint keeps the workspace from.
    let reaches = |t: &str| {
        let lower = t.to_ascii_lowercase();
        t.lines().any(|l| l.trim_start().starts_with('.'))
            || lower
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| ["attach", "copy", "export", "import", "install", "load"].contains(&w))
    };
    let elsewhere = texts.iter().any(|t| t.as_deref().is_none_or(reaches))
        || (texts.is_empty() && !matches!(input, Input::Nothing));
    if elsewhere {
        return vec![crate::noop::opaque(
            "duckdb",
            dialect,
            "duckdb runs dot-commands or statements that reach other files",
        )];
    }
    if judged == Sql::Reads {
        return Vec::new();
    }
    let mut op =
        crate::writes::overwrite_in("duckdb", agent_guard_types::WriteMode::InPlace, dialect);
    op.targets.push(crate::writes::file(file, true));
    if file.known().is_some() {
        let mut wal = crate::writes::file(file, true);
        wal.text.push_str(".wal");
        op.targets.push(wal);
    }
    op.note("duckdb writes the database file it opens; its current version is kept first");
    vec![op]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outside::tests::args;

    fn kinds(line: &str) -> Option<Vec<OpKind>> {
        let words = args(line);
        let (name, rest) = words.split_first().unwrap();
        judge(name.known().unwrap(), rest, Dialect::Posix, &Input::Nothing)
            .map(|ops| ops.into_iter().map(|op| op.kind).collect())
    }

    #[test]
    fn statements_are_judged() {
        for line in [
            "cqlsh -e 'DROP KEYSPACE app'",
            "cqlsh --execute='TRUNCATE app.users'",
            "cqlsh -f drop.cql",
            "clickhouse-client --query 'DROP TABLE events'",
            "clickhouse client -q 'TRUNCATE TABLE events'",
            "sqlcmd -S localhost -d app -Q 'DELETE FROM users'",
            "cockroach sql --insecure -e 'DROP DATABASE app CASCADE'",
            "heroku pg:psql -a app -c 'DROP TABLE users'",
            "wrangler d1 execute prod --remote --command='DROP TABLE users'",
            "snowsql -q 'TRUNCATE TABLE sales'",
            "cqlsh -e $SQL",
            "cqlsh -eDROP_KEYSPACE",
            "clickhouse-client -nq 'DROP TABLE t'",
            "sqlcmd -Q'DROP TABLE t'",
            "sqlcmd -Q 'SELECT 1 DROP TABLE t'",
            "snow sql -q 'DROP TABLE t'",
            "wrangler --cwd . d1 execute db --command 'DROP TABLE t'",
            "snowsql -q 'INSERT OVERWRITE INTO t SELECT 1'",
            "clickhouse-client -q 'REPLACE TABLE t AS SELECT 1'",
            "sqlcmd -Q 'SELECT ’é’ DROP TABLE t'",
        ] {
            assert_eq!(
                kinds(line).map(|k| k[0]),
                Some(OpKind::DatabaseDestroy),
                "{line}"
            );
        }
    }

    #[test]
    fn reads_and_other_uses() {
        for line in [
            "cqlsh -e 'SELECT * FROM app.users'",
            "clickhouse-client --query 'SELECT count() FROM events'",
            "sqlcmd -Q 'SELECT 1'",
            "cqlsh",
        ] {
            assert_eq!(kinds(line), Some(Vec::new()), "{line}");
        }
        assert_eq!(
            kinds("clickhouse-client -q 'INSERT INTO t VALUES (1)'"),
            Some(vec![OpKind::OpaqueProgram])
        );
        assert_eq!(kinds("cockroach start --insecure"), None);
        assert_eq!(kinds("heroku apps"), None);
        assert_eq!(kinds("wrangler d1 list"), None);
    }

    #[test]
    fn duckdb_writes_its_file() {
        let targets = |line: &str| -> Vec<String> {
            let words = args(line);
            duckdb(&words[1..], Dialect::Posix, &Input::Nothing)
                .into_iter()
                .flat_map(|op| op.targets.into_iter().map(|t| t.text))
                .collect()
        };
        assert_eq!(
            targets("duckdb app.duckdb 'DROP TABLE users'"),
            ["app.duckdb", "app.duckdb.wal"]
        );
        assert_eq!(
            targets("duckdb -c 'DELETE FROM users' app.duckdb"),
            ["app.duckdb", "app.duckdb.wal"]
        );
        assert!(targets("duckdb app.duckdb 'SELECT 1'").is_empty());
        assert!(targets("duckdb -readonly app.duckdb 'DROP TABLE t'").is_empty());
        assert!(targets("duckdb").is_empty());
    }
}

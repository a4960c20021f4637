//! Database clients: the SQL they run and the database they reach. `psql`, `mysql` and
//! `mariadb` run the statements of `-c`/`-e` (judged by [`super::sql`]) or of a file or
//! stdin (which the guard does not read); `dropdb`, `mysqladmin drop` and `pg_restore
//! --clean` drop what they name. `sqlite3 FILE` writes a file of the workspace: that is an
//! overwrite, kept like any other.

use agent_guard_types::{Connection, Database, Engine};

use super::Input;
use super::sql::{self, Sql};
use crate::args::Arg;
use crate::getopt::{Item, Opt, Order, parse};

/// What a client invocation does to a database server's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientRun {
    /// Its SQL, judged.
    pub sql: Sql,
    /// The database, as far as the line tells.
    pub database: Database,
    /// The client may also write files here (`-o`, `-L`, `--tee`, psql's `\o` and `\!`).
    pub writes_files: bool,
}

/// `psql`'s options (PostgreSQL 15).
const PSQL: &[Opt] = &[
    Opt::value("command", Some('c'), Some("command")),
    Opt::value("dbname", Some('d'), Some("dbname")),
    Opt::value("file", Some('f'), Some("file")),
    Opt::value("host", Some('h'), Some("host")),
    Opt::value("port", Some('p'), Some("port")),
    Opt::value("user", Some('U'), Some("username")),
    Opt::value("output", Some('o'), Some("output")),
    Opt::value("log", Some('L'), Some("log-file")),
    Opt::value("set", Some('v'), Some("set")),
    Opt::value("set", None, Some("variable")),
    Opt::value("format", Some('F'), Some("field-separator")),
    Opt::value("format", Some('P'), Some("pset")),
    Opt::value("format", Some('R'), Some("record-separator")),
    Opt::value("format", Some('T'), Some("table-attr")),
    Opt::flag("list", Some('l'), Some("list")),
    Opt::flag("info", Some('V'), Some("version")),
    Opt::flag("info", Some('?'), Some("help")),
    Opt::flag("flag", Some('a'), Some("echo-all")),
    Opt::flag("flag", Some('b'), Some("echo-errors")),
    Opt::flag("flag", Some('e'), Some("echo-queries")),
    Opt::flag("flag", Some('E'), Some("echo-hidden")),
    Opt::flag("flag", Some('n'), Some("no-readline")),
    Opt::flag("flag", Some('q'), Some("quiet")),
    Opt::flag("flag", Some('s'), Some("single-step")),
    Opt::flag("flag", Some('S'), Some("single-line")),
    Opt::flag("flag", Some('1'), Some("single-transaction")),
    Opt::flag("flag", Some('A'), Some("no-align")),
    Opt::flag("flag", Some('H'), Some("html")),
    Opt::flag("flag", Some('t'), Some("tuples-only")),
    Opt::flag("flag", Some('x'), Some("expanded")),
    Opt::flag("flag", Some('z'), Some("field-separator-zero")),
    Opt::flag("flag", Some('0'), Some("record-separator-zero")),
    Opt::flag("flag", Some('w'), Some("no-password")),
    Opt::flag("flag", Some('W'), Some("password")),
    Opt::flag("flag", Some('X'), Some("no-psqlrc")),
    Opt::flag("flag", None, Some("csv")),
];

/// `mysql`'s and `mariadb`'s options that matter (their long options also take any unique
/// prefix, as the getopt reader does).
const MYSQL: &[Opt] = &[
    Opt::value("command", Some('e'), Some("execute")),
    Opt::value("init", None, Some("init-command")),
    Opt::value("dbname", Some('D'), Some("database")),
    Opt::value("host", Some('h'), Some("host")),
    Opt::value("port", Some('P'), Some("port")),
    Opt::value("user", Some('u'), Some("user")),
    Opt::value("socket", Some('S'), Some("socket")),
    Opt::optional("password", Some('p'), Some("password")),
    Opt::value("flag", None, Some("defaults-file")),
    Opt::value("flag", None, Some("defaults-extra-file")),
    Opt::value("flag", None, Some("default-character-set")),
    Opt::value("flag", None, Some("protocol")),
    Opt::value("tee", None, Some("tee")),
    Opt::flag("info", Some('V'), Some("version")),
    Opt::flag("info", Some('?'), Some("help")),
    Opt::flag("flag", Some('B'), Some("batch")),
    Opt::flag("flag", Some('N'), Some("skip-column-names")),
    Opt::flag("flag", Some('s'), Some("silent")),
    Opt::flag("flag", Some('t'), Some("table")),
    Opt::flag("flag", Some('v'), Some("verbose")),
    Opt::flag("flag", Some('E'), Some("vertical")),
    Opt::flag("flag", Some('f'), Some("force")),
    Opt::flag("flag", Some('r'), Some("raw")),
    Opt::flag("flag", Some('X'), Some("xml")),
    Opt::flag("flag", Some('H'), Some("html")),
    Opt::flag("flag", Some('A'), Some("no-auto-rehash")),
    Opt::flag("flag", Some('n'), Some("unbuffered")),
    Opt::flag("flag", None, Some("ssl")),
    Opt::flag("flag", None, Some("skip-ssl")),
    Opt::flag("flag", None, Some("no-defaults")),
];

/// `dropdb`'s, `pg_restore`'s and `mysqladmin`'s connection options.
const ADMIN: &[Opt] = &[
    Opt::value("host", Some('h'), Some("host")),
    Opt::value("port", Some('p'), Some("port")),
    Opt::value("user", Some('U'), Some("username")),
    Opt::value("dbname", Some('d'), Some("dbname")),
    Opt::value("flag", None, Some("maintenance-db")),
    Opt::value("flag", Some('f'), Some("file")),
    Opt::value("flag", Some('F'), Some("format")),
    Opt::value("flag", Some('j'), Some("jobs")),
    Opt::value("flag", Some('n'), Some("schema")),
    Opt::value("flag", Some('t'), Some("table")),
    Opt::value("flag", Some('L'), Some("use-list")),
    Opt::value("flag", None, Some("role")),
    Opt::flag("clean", Some('c'), Some("clean")),
    Opt::flag("create", Some('C'), Some("create")),
    Opt::flag("info", Some('V'), Some("version")),
    Opt::flag("info", Some('?'), Some("help")),
    Opt::flag("flag", Some('e'), Some("echo")),
    Opt::flag("flag", Some('i'), Some("interactive")),
    Opt::flag("flag", Some('w'), Some("no-password")),
    Opt::flag("flag", Some('W'), Some("password")),
    Opt::flag("flag", None, Some("if-exists")),
    Opt::flag("flag", None, Some("force")),
    Opt::flag("flag", Some('1'), Some("single-transaction")),
    Opt::flag("flag", Some('O'), Some("no-owner")),
    Opt::flag("flag", Some('x'), Some("no-privileges")),
    Opt::flag("flag", Some('v'), Some("verbose")),
];

/// An option's value, when the line spells it.
fn value(item: &Item<'_>) -> Option<String> {
    crate::writes::value_arg(item).and_then(|a| a.known().map(str::to_owned))
}

/// Reads the connection options, the SQL options and the operands of a client.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent options of one command"
)]
struct Parsed {
    connection: Connection,
    sql: Vec<String>,
    files: bool,
    info: bool,
    list: bool,
    clean: bool,
    create: bool,
    operands: Vec<Option<String>>,
    unknown: bool,
    writes_files: bool,
}

fn read(args: &[Arg], opts: &[Opt]) -> Parsed {
    let (items, _) = parse(args, opts, Order::Permute);
    let mut parsed = Parsed {
        connection: Connection::default(),
        sql: Vec::new(),
        files: false,
        info: false,
        list: false,
        clean: false,
        create: false,
        operands: Vec::new(),
        unknown: false,
        writes_files: false,
    };
    for item in &items {
        match item {
            Item::Opt { name, .. } => {
                let v = value(item);
                let c = &mut parsed.connection;
                match *name {
                    "command" | "init" => match v {
                        Some(text) => parsed.sql.push(text),
                        None => parsed.files = true,
                    },
                    "file" => parsed.files = true,
                    "dbname" => c.database = v,
                    "host" => c.host = v,
                    "port" => c.port = v,
                    "user" => c.user = v,
                    "socket" => c.socket = v,
                    "info" => parsed.info = true,
                    "output" | "log" | "tee" => parsed.writes_files = true,
                    "list" => parsed.list = true,
                    "clean" => parsed.clean = true,
                    "create" => parsed.create = true,
                    _ => {}
                }
            }
            Item::Operand(arg) => parsed.operands.push(arg.known().map(str::to_owned)),
            Item::Unknown(_) | Item::Ambiguous(_) | Item::MissingValue(_) => {
                parsed.unknown = true;
            }
        }
    }
    parsed
}

/// A PostgreSQL `dbname` operand or `-d` value that is a connection string
/// (`postgresql://u@h:5432/app`, `host=h dbname=app`): its parts.
fn postgres_conninfo(connection: &mut Connection) {
    let Some(text) = connection.database.clone() else {
        return;
    };
    if let Some(rest) = text
        .strip_prefix("postgresql://")
        .or_else(|| text.strip_prefix("postgres://"))
    {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host_port = authority.rsplit_once('@').map_or(authority, |(user, hp)| {
            connection.user = Some(user.split(':').next().unwrap_or(user).to_owned());
            hp
        });
        let (host, port) = host_port
            .rsplit_once(':')
            .map_or((host_port, None), |(h, p)| (h, Some(p)));
        connection.host = (!host.is_empty()).then(|| host.to_owned());
        connection.port = port.map(str::to_owned);
        let name = path.split('?').next().unwrap_or("");
        connection.database = (!name.is_empty()).then(|| name.to_owned());
    } else if text.contains('=') {
        connection.database = None;
        for pair in text.split_whitespace() {
            if let Some((key, value)) = pair.split_once('=') {
                let value = Some(value.trim_matches('\'').to_owned());
                match key {
                    "dbname" => connection.database = value,
                    "host" | "hostaddr" => connection.host = value,
                    "port" => connection.port = value,
                    "user" => connection.user = value,
                    _ => {}
                }
            }
        }
    }
}

/// Why the SQL of a client that reads its statements from a file or stdin is unseen.
const FROM_INPUT: &str =
    "it runs statements from a file or from its input, which the guard does not read";

/// `psql …`: `None` when it only prints (`--version`, `--help`, `-l`).
pub(crate) fn psql(args: &[Arg], input: &Input) -> Option<ClientRun> {
    let mut parsed = read(args, PSQL);
    if parsed.info || (parsed.list && parsed.sql.is_empty() && !parsed.files) {
        return None;
    }
    let mut operands = parsed.operands.iter();
    if parsed.connection.database.is_none() {
        parsed.connection.database = operands.next().cloned().flatten();
    }
    if parsed.connection.user.is_none() {
        parsed.connection.user = operands.next().cloned().flatten();
    }
    postgres_conninfo(&mut parsed.connection);
    Some(run(parsed, Engine::Postgres, input))
}

/// `mysql …` or `mariadb …`: `None` when it only prints.
pub(crate) fn mysql(args: &[Arg], input: &Input) -> Option<ClientRun> {
    let mut parsed = read(args, MYSQL);
    if parsed.info {
        return None;
    }
    if parsed.connection.database.is_none() {
        parsed.connection.database = parsed.operands.first().cloned().flatten();
    }
    Some(run(parsed, Engine::MySql, input))
}

fn run(parsed: Parsed, engine: Engine, input: &Input) -> ClientRun {
    let mut judged = parsed
        .sql
        .iter()
        .map(|text| sql::judge(text))
        .fold(Sql::Reads, Sql::worst);
    if parsed.files {
        judged = judged.worst(Sql::Unseen(FROM_INPUT));
    } else if parsed.sql.is_empty() {
        // The statements come from its input.
        judged = judged.worst(match input {
            Input::Nothing => Sql::Reads,
            Input::Text(text) => sql::judge(text),
            Input::Unseen => Sql::Unseen(FROM_INPUT),
        });
    }
    let mut connection = parsed.connection;
    if parsed.unknown {
        // An option the guard does not know may take the next word as its value: the
        // database the line names is not certain.
        connection.database = None;
    }
    let whole = matches!(
        &judged,
        Sql::Destroys {
            database: Some(_),
            ..
        }
    );
    let texts: Vec<&str> = match input {
        Input::Text(text) if parsed.sql.is_empty() => vec![text.as_str()],
        _ => parsed.sql.iter().map(String::as_str).collect(),
    };
    let elsewhere = texts.iter().any(|text| {
        sql::reaches_elsewhere(
            text,
            engine == Engine::MySql,
            connection.database.as_deref(),
        )
    });
    if let Sql::Destroys {
        database: Some(name),
        ..
    } = &judged
    {
        connection.database = Some(name.clone());
    }
    let pinned =
        !elsewhere && !parsed.unknown && connection.database.is_some() && connection.names_server();
    ClientRun {
        sql: judged,
        database: Database {
            engine,
            connection,
            whole,
            pinned,
        },
        writes_files: parsed.writes_files || texts.iter().any(|t| sql::writes_files(t)),
    }
}

/// `dropdb [options] NAME`.
pub(crate) fn dropdb(args: &[Arg]) -> Option<ClientRun> {
    let parsed = read(args, ADMIN);
    if parsed.info {
        return None;
    }
    let name = parsed.operands.first().cloned().flatten();
    Some(dropped(parsed.connection, name, Engine::Postgres, "dropdb"))
}

/// `mysqladmin [options] drop NAME`: `None` for its other commands.
pub(crate) fn mysqladmin(args: &[Arg]) -> Option<ClientRun> {
    let parsed = read(args, MYSQL);
    let mut operands = parsed.operands.iter();
    operands.position(|o| o.as_deref().is_some_and(|o| o.eq_ignore_ascii_case("drop")))?;
    let name = operands.next().cloned().flatten();
    Some(dropped(
        parsed.connection,
        name,
        Engine::MySql,
        "mysqladmin drop",
    ))
}

/// `mysqlimport --delete` empties each table before importing into it; `pgbench -i` drops
/// and recreates its tables. `None` for their other forms.
pub(crate) fn loader(name: &str, args: &[Arg]) -> Option<ClientRun> {
    let texts: Vec<&str> = args.iter().filter_map(Arg::known).collect();
    let (engine, statement) = match name {
        "mysqlimport" | "mariadb-import"
            if texts.iter().any(|t| {
                *t == "--delete" || (t.starts_with('-') && !t.starts_with("--") && t.contains('d'))
            }) =>
        {
            (
                Engine::MySql,
                "mysqlimport --delete: empties each table first",
            )
        }
        "pgbench"
            if texts.iter().any(|t| {
                *t == "--initialize"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
            }) =>
        {
            (
                Engine::Postgres,
                "pgbench -i: drops and recreates its tables",
            )
        }
        _ => return None,
    };
    let opts = if engine == Engine::MySql {
        MYSQL
    } else {
        ADMIN
    };
    let parsed = read(args, opts);
    let mut connection = parsed.connection;
    if connection.database.is_none() {
        connection.database = parsed.operands.first().cloned().flatten();
    }
    Some(ClientRun {
        sql: Sql::Destroys {
            statement: statement.to_owned(),
            database: None,
        },
        database: Database {
            engine,
            pinned: false,
            connection,
            whole: false,
        },
        writes_files: false,
    })
}

/// `pg_restore --clean` drops the objects it restores first (with `--create`, the whole
/// database): `None` without `--clean` or without a database to restore into.
pub(crate) fn pg_restore(args: &[Arg]) -> Option<ClientRun> {
    let parsed = read(args, ADMIN);
    if parsed.info || !parsed.clean || parsed.connection.database.is_none() {
        return None;
    }
    let mut connection = parsed.connection;
    postgres_conninfo(&mut connection);
    Some(ClientRun {
        sql: Sql::Destroys {
            statement: "pg_restore --clean: drops every object it restores".to_owned(),
            database: None,
        },
        database: Database {
            engine: Engine::Postgres,
            pinned: connection.names_server() && connection.database.is_some(),
            connection,
            whole: parsed.create,
        },
        writes_files: false,
    })
}

fn dropped(
    mut connection: Connection,
    name: Option<String>,
    engine: Engine,
    tool: &str,
) -> ClientRun {
    connection.database = name;
    ClientRun {
        sql: Sql::Destroys {
            statement: format!(
                "{tool} {}",
                connection.database.as_deref().unwrap_or("(a database)")
            ),
            database: connection.database.clone(),
        },
        database: Database {
            engine,
            pinned: connection.names_server() && connection.database.is_some(),
            connection,
            whole: true,
        },
        writes_files: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::outside::tests::args;

    fn psql_(args: &[Arg]) -> Option<ClientRun> {
        psql(args, &Input::Unseen)
    }

    fn mysql_(args: &[Arg]) -> Option<ClientRun> {
        mysql(args, &Input::Unseen)
    }

    #[test]
    fn psql_reads_its_commands_and_its_database() {
        let run = psql_(&args("-h localhost -U app -d shop -c 'DROP TABLE users'")).unwrap();
        assert!(run.sql.may_destroy());
        assert_eq!(run.database.connection.database.as_deref(), Some("shop"));
        assert!(run.database.connection.is_local());
        let run = psql_(&args("-tAc 'select 1' shop")).unwrap();
        assert_eq!(run.sql, Sql::Reads);
        assert_eq!(run.database.connection.database.as_deref(), Some("shop"));
        let run = psql_(&args(
            "postgresql://me@db.example.com:5433/shop -c 'truncate t'",
        ))
        .unwrap();
        let c = &run.database.connection;
        assert_eq!(
            (c.host.as_deref(), c.port.as_deref(), c.database.as_deref()),
            (Some("db.example.com"), Some("5433"), Some("shop"))
        );
        assert!(!c.is_local());
        assert!(matches!(
            psql_(&args("shop -f schema.sql")).unwrap().sql,
            Sql::Unseen(_)
        ));
        assert!(matches!(psql_(&args("shop")).unwrap().sql, Sql::Unseen(_)));
        assert!(psql_(&args("--version")).is_none());
        assert!(psql_(&args("-l")).is_none());
    }

    #[test]
    fn mysql_reads_execute_and_its_abbreviations() {
        let run = mysql_(&args("-uroot -pSecret app -e 'DROP DATABASE app'")).unwrap();
        assert!(run.database.whole);
        assert_eq!(run.database.connection.database.as_deref(), Some("app"));
        let run = mysql_(&args("--exec='select 1' app")).unwrap();
        assert_eq!(run.sql, Sql::Reads);
        assert!(matches!(mysql_(&args("app")).unwrap().sql, Sql::Unseen(_)));
    }

    #[test]
    fn the_drop_tools_name_their_database() {
        let run = dropdb(&args("-h 127.0.0.1 --if-exists shop")).unwrap();
        assert!(run.database.whole);
        assert_eq!(run.database.connection.database.as_deref(), Some("shop"));
        assert!(mysqladmin(&args("-uroot -f drop shop")).is_some());
        assert!(mysqladmin(&args("-uroot status")).is_none());
        assert!(pg_restore(&args("-d shop dump.pgc")).is_none());
        assert!(pg_restore(&args("--clean -d shop dump.pgc")).is_some());
    }
}

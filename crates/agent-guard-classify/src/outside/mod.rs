//! What a command destroys outside the workspace (issue 37, points 4 and 5): databases
//! (through their clients, their drop tools and the resets of migration tools), cloud
//! resources, cluster objects, container volumes and hosted services. These become
//! [`OpKind::DatabaseDestroy`] and [`OpKind::OutsideDestroy`] facts; a SQLite database is a
//! file of the workspace, so writing it is an overwrite.
//!
//! The same rules serve every dialect: they read the words of a command, after the
//! dialect's own lexing.

mod clients;
mod other_clients;
mod sql;
mod sqlite;
mod teardown;

use agent_guard_types::{Dialect, OpKind, OpSpec, Outside, Place};

use crate::args::Arg;
use clients::ClientRun;
use sql::Sql;

/// What a command reads on its standard input, as far as the line shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// Nothing the line feeds it: an agent's shell has no input to give, so a client that
    /// reads its statements there runs none.
    Nothing,
    /// A here-document or here-string the line spells out.
    Text(String),
    /// A pipe, a file or a descriptor: statements the guard does not read.
    Unseen,
}

/// Whether [`judge`] may have something to say about program `name` (lower-cased basename,
/// a package version allowed): a test that reads no word, for the hot path.
pub(crate) fn concerns(name: &str) -> bool {
    let name = match name.split_once('@') {
        Some((bare, _)) if !bare.is_empty() => bare,
        _ => name,
    };
    matches!(
        name,
        "psql"
            | "mysql"
            | "mariadb"
            | "dropdb"
            | "mysqladmin"
            | "mariadb-admin"
            | "pg_restore"
            | "sqlite3"
            | "sqlite"
            | "mysqlimport"
            | "mariadb-import"
            | "pgbench"
            | "npx"
            | "pnpx"
            | "bunx"
            | "pnpm"
            | "yarn"
            | "bun"
            | "uvx"
            | "pipx"
            | "npm"
            | "sail"
            | "cargo"
            | "kubectl"
            | "oc"
    ) || crate::inline_code::interpreter(name).is_some()
        || teardown::concerns(name)
        || other_clients::concerns(name)
}

/// The ops of `name` (lower-cased basename) run with `args`, when this module models the
/// program: its outside effects, plus an opaque program where it may also change the
/// workspace in ways the guard does not see. `None` for every other program (and for a
/// framework command that resets nothing), which the caller judges as usual.
pub(crate) fn judge(
    name: &str,
    args: &[Arg],
    dialect: Dialect,
    input: &Input,
) -> Option<Vec<OpSpec>> {
    if !concerns(name) {
        return None;
    }
    // `npx prisma@5 …`: the package's version is not part of its program's name.
    let name = match name.split_once('@') {
        Some((bare, _)) if !bare.is_empty() => bare,
        _ => name,
    };
    if let Some(ops) = through(name, args, dialect, input) {
        return Some(ops);
    }
    if other_clients::concerns(name)
        && let Some(ops) = other_clients::judge(name, args, dialect, input)
    {
        return Some(ops);
    }
    let client = match name {
        "psql" => Some(clients::psql(args, input)),
        "mysql" | "mariadb" => Some(clients::mysql(args, input)),
        "dropdb" => Some(clients::dropdb(args)),
        "mysqladmin" | "mariadb-admin" => clients::mysqladmin(args).map(Some),
        "pg_restore" => clients::pg_restore(args).map(Some),
        "mysqlimport" | "mariadb-import" | "pgbench" => clients::loader(name, args).map(Some),
        "sqlite3" | "sqlite" => return Some(sqlite::parse(args, dialect, input)),
        _ => None,
    };
    if let Some(run) = client {
        return Some(
            run.map(|run| client_ops(name, run, dialect))
                .unwrap_or_default(),
        );
    }
    let words: Vec<Option<&str>> = args.iter().map(Arg::known).collect();
    let torn = teardown::parse(name, &words, input)?;
    let mut op = OpSpec::new(
        name,
        if torn.place == Place::Database {
            OpKind::DatabaseDestroy
        } else {
            OpKind::OutsideDestroy
        },
        dialect,
    );
    op.note(format!(
        "{name} destroys {} outside the workspace",
        torn.what
    ));
    op.outside = Some(Outside {
        place: torn.place,
        what: torn.what,
        database: None,
    });
    // The program may also write the workspace (a state file, a lock, a script it runs).
    Some(vec![
        op,
        crate::noop::opaque(
            name,
            dialect,
            "a program whose effects in the workspace the guard does not model",
        ),
    ])
}

/// Package runners and launchers whose options the wrappers do not read (`npx -y prisma …`,
/// `pnpm prisma …`, `yarn sequelize …`, `python -m django flush`, `sail artisan …`,
/// `cargo sqlx …`), and commands run in a container or pod (`docker exec db psql …`,
/// `kubectl exec db-0 -- psql …`): the outside effects of the command they run. A database
/// reached inside a container is not one the guard can dump.
fn through(name: &str, args: &[Arg], dialect: Dialect, input: &Input) -> Option<Vec<OpSpec>> {
    let words: Vec<Option<&str>> = args.iter().map(Arg::known).collect();
    let start = match name {
        "npx" | "pnpx" | "bunx" | "pnpm" | "yarn" | "bun" | "uvx" | "pipx" | "npm" | "sail"
        | "cargo" => words.iter().position(|w| {
            w.is_some_and(|w| {
                !w.starts_with('-') && !matches!(w, "exec" | "dlx" | "x" | "run" | "--")
            })
        })?,
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" => {
            container_command(&words)?
        }
        "kubectl" | "oc" => {
            let exec = words.iter().position(|w| *w == Some("exec"))?;
            words.iter().skip(exec).position(|w| *w == Some("--"))? + exec + 1
        }
        _ if crate::inline_code::interpreter(name).is_some() => {
            // `python -m django flush`: the module is the program.
            let at = words.iter().position(|w| *w == Some("-m"))?;
            (words.get(at + 1)? == &Some("django")).then_some(at + 1)?
        }
        _ => return None,
    };
    let inner = words.get(start).copied().flatten()?;
    let inner = crate::args::basename(inner).to_ascii_lowercase();
    let inner = if inner == "django" {
        "django-admin".to_owned()
    } else {
        inner
    };
    if inner == name {
        return None;
    }
    let in_container = matches!(
        name,
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" | "kubectl" | "oc"
    );
    let mut ops = judge(&inner, &args[start + 1..], dialect, input)?;
    if !ops.iter().any(|op| op.outside.is_some()) {
        return None;
    }
    for op in &mut ops {
        if let Some(outside) = op.outside.as_mut().filter(|_| in_container) {
            outside.database = None;
            outside.what = format!("{} (inside a container)", outside.what);
        }
    }
    if !ops.iter().any(|op| op.kind == OpKind::OpaqueProgram) {
        ops.push(crate::noop::opaque(
            name,
            dialect,
            "a program whose effects in the workspace the guard does not model",
        ));
    }
    Some(ops)
}

/// Where the command of `docker exec|run [options] CONTAINER COMMAND…` (or `compose exec|run
/// SERVICE`) starts.
fn container_command(words: &[Option<&str>]) -> Option<usize> {
    const VALUED: &[&str] = &[
        "-e",
        "--env",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "--env-file",
        "--name",
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--network",
        "--entrypoint",
        "-f",
        "--file",
        "--project-name",
        "--profile",
        "--project-directory",
        "-H",
        "--host",
        "--context",
        "-c",
        "--config",
        "--index",
        "-l",
        "--label",
        "--log-level",
    ];
    let sub = words
        .iter()
        .position(|w| matches!(w, Some("exec" | "run")))?;
    let mut at = sub + 1;
    let mut target_seen = false;
    while let Some(word) = words.get(at) {
        let word = (*word)?;
        if word == "--" {
            at += 1;
            continue;
        }
        if word.starts_with('-') {
            at += if VALUED.contains(&word) { 2 } else { 1 };
            continue;
        }
        if !target_seen {
            target_seen = true;
            at += 1;
            continue;
        }
        return Some(at);
    }
    None
}

/// [`judge`] for a cmd or PowerShell command's tokens.
pub(crate) fn judge_windows(
    name: &str,
    toks: &[crate::windows::Tok],
    dialect: Dialect,
    stdin_stream: bool,
) -> Option<Vec<OpSpec>> {
    let args: Vec<Arg> = toks
        .iter()
        .map(|tok| Arg {
            text: tok.text.clone(),
            home: false,
            glob: false,
            opaque: tok
                .opaque
                .as_ref()
                .map(|_| "a value known only when the line runs"),
            quoted: tok.quoted,
            span: tok.span,
        })
        .collect();
    let input = if stdin_stream {
        Input::Unseen
    } else {
        Input::Nothing
    };
    judge(name, &args, dialect, &input)
}

/// The ops of a database client run: a database destroy when its SQL may destroy, a
/// checkpointed program when it changes data (it may also write files: `\o`, `\copy`),
/// nothing when it only reads.
fn client_ops(name: &str, run: ClientRun, dialect: Dialect) -> Vec<OpSpec> {
    match &run.sql {
        Sql::Reads if run.writes_files => vec![crate::noop::opaque(
            name,
            dialect,
            "the client writes an output or log file",
        )],
        Sql::Reads => Vec::new(),
        Sql::Changes => vec![crate::noop::opaque(
            name,
            dialect,
            "a database client that changes data (no statement the guard reads destroys any)",
        )],
        Sql::Unseen(_) | Sql::Destroys { .. } => {
            let why: &str = match &run.sql {
                Sql::Destroys { statement, .. } => statement,
                Sql::Unseen(why) => why,
                _ => "",
            };
            let mut op = OpSpec::new(name, OpKind::DatabaseDestroy, dialect);
            let named = run.database.connection.database.as_deref().map_or_else(
                || {
                    format!(
                        "the {} database it connects to",
                        run.database.engine.display()
                    )
                },
                |db| format!("the {} database `{db}`", run.database.engine.display()),
            );
            let what = if run.database.whole {
                named
            } else {
                format!("data in {named}")
            };
            op.note(match &run.sql {
                Sql::Destroys { .. } => format!("{name} destroys {what}: {why}"),
                _ => format!("{name} may destroy {what}: {why}"),
            });
            let writes_files = run.writes_files;
            op.outside = Some(Outside {
                place: Place::Database,
                what,
                database: Some(run.database),
            });
            let mut ops = vec![op];
            if writes_files {
                ops.push(crate::noop::opaque(
                    name,
                    dialect,
                    "the client may also write files (an output or log file, a shell escape)",
                ));
            }
            ops
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The words of `line`, split at spaces outside single quotes.
    pub(crate) fn args(line: &str) -> Vec<Arg> {
        let mut words = Vec::new();
        let mut current = String::new();
        let mut quoted = false;
        let mut any = false;
        for c in line.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    any = true;
                }
                ' ' if !quoted => {
                    if any || !current.is_empty() {
                        words.push(Arg::literal(&std::mem::take(&mut current)));
                    }
                    any = false;
                }
                _ => current.push(c),
            }
        }
        if any || !current.is_empty() {
            words.push(Arg::literal(&current));
        }
        words
    }

    fn kinds(name: &str, line: &str) -> Option<Vec<OpKind>> {
        judge(name, &args(line), Dialect::Posix, &Input::Unseen)
            .map(|ops| ops.iter().map(|o| o.kind).collect())
    }

    #[test]
    fn clients_destroy_change_or_read() {
        assert_eq!(
            kinds("psql", "-c 'DROP TABLE users' app"),
            Some(vec![OpKind::DatabaseDestroy])
        );
        assert_eq!(kinds("psql", "-c 'select 1' app"), Some(vec![]));
        assert_eq!(
            kinds("psql", "-c 'insert into t values (1)' app"),
            Some(vec![OpKind::OpaqueProgram])
        );
        assert_eq!(kinds("psql", "--version"), Some(vec![]));
        assert_eq!(
            kinds("terraform", "destroy"),
            Some(vec![OpKind::OutsideDestroy, OpKind::OpaqueProgram])
        );
        assert_eq!(kinds("terraform", "plan"), None);
        assert_eq!(kinds("ls", "-la"), None);
    }
}

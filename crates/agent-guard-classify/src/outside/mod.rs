//! What a command destroys outside the workspace (issue 37, points 4 and 5): databases
//! (through their clients, their drop tools and the resets of migration tools), cloud
//! resources, cluster objects, container volumes and hosted services. These become
//! [`OpKind::DatabaseDestroy`] and [`OpKind::OutsideDestroy`] facts; a SQLite database is a
//! file of the workspace, so writing it is an overwrite.
//!
//! The same rules serve every dialect: they read the words of a command, after the
//! dialect's own lexing.

mod clients;
mod sql;
mod sqlite;
mod teardown;

use agent_guard_types::{Dialect, OpKind, OpSpec, Outside, Place};

use crate::args::Arg;
use clients::ClientRun;
use sql::Sql;

/// The ops of `name` (lower-cased basename) run with `args`, when this module models the
/// program: its outside effects, plus an opaque program where it may also change the
/// workspace in ways the guard does not see. `None` for every other program (and for a
/// framework command that resets nothing), which the caller judges as usual.
pub(crate) fn judge(name: &str, args: &[Arg], dialect: Dialect) -> Option<Vec<OpSpec>> {
    let client = match name {
        "psql" => Some(clients::psql(args)),
        "mysql" | "mariadb" => Some(clients::mysql(args)),
        "dropdb" => Some(clients::dropdb(args)),
        "mysqladmin" | "mariadb-admin" => clients::mysqladmin(args).map(Some),
        "pg_restore" => clients::pg_restore(args).map(Some),
        "sqlite3" | "sqlite" => return Some(sqlite::parse(args, dialect)),
        _ => None,
    };
    if let Some(run) = client {
        return Some(
            run.map(|run| client_ops(name, run, dialect))
                .unwrap_or_default(),
        );
    }
    let words: Vec<Option<&str>> = args.iter().map(Arg::known).collect();
    let torn = teardown::parse(name, &words)?;
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

/// [`judge`] for a cmd or PowerShell command's tokens.
pub(crate) fn judge_windows(
    name: &str,
    toks: &[crate::windows::Tok],
    dialect: Dialect,
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
    judge(name, &args, dialect)
}

/// The ops of a database client run: a database destroy when its SQL may destroy, a
/// checkpointed program when it changes data (it may also write files: `\o`, `\copy`),
/// nothing when it only reads.
fn client_ops(name: &str, run: ClientRun, dialect: Dialect) -> Vec<OpSpec> {
    match &run.sql {
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
            op.outside = Some(Outside {
                place: Place::Database,
                what,
                database: Some(run.database),
            });
            vec![op]
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
        judge(name, &args(line), Dialect::Posix).map(|ops| ops.iter().map(|o| o.kind).collect())
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

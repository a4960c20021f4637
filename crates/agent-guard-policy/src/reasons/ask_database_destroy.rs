//! `ASK_DATABASE_DESTROY`.

use agent_guard_types::{Engine, OpSpec, Plan, ReasonCode, Unkept, UnkeptWhy, Verdict};

super::reason!(
    AskDatabaseDestroy, AskDatabaseDestroy, "ASK_DATABASE_DESTROY",
    catches: "A database client whose statements destroy data (`psql -c 'DROP TABLE users'`, `mysql -e 'TRUNCATE orders'`, a `DELETE` or `UPDATE` without a `WHERE`, `ALTER … DROP`, `DROP DATABASE`), or whose statements the guard cannot read (`psql -f migrate.sql`, `mysql app < dump.sql`, a procedure call); the drop tools (`dropdb`, `mysqladmin drop`, `pg_restore --clean`); and the resets of migration tools and frameworks (`prisma migrate reset`, `prisma db push --accept-data-loss`, `drizzle-kit push --force`, `supabase db reset`, `rails db:drop`, `manage.py flush`, `alembic downgrade`, `php artisan migrate:fresh`, `knex migrate:rollback`, `sequelize db:drop`, `mix ecto.reset`, `flyway clean`, …), in every dialect and behind wrappers and package runners. A SQLite database is a file of the workspace: writing it is an overwrite (`SNAPSHOT_OVERWRITE`).",
    why: "A database server's data lives outside the workspace: no checkpoint or quarantine of the workspace keeps it, and a dropped table is gone. The incidents agents cause most are of this kind.",
    example: "psql -d app -c 'DROP TABLE users'",
    verdict: "ASK, with the database named: where the harness can ask a person it asks, elsewhere it is a deny. Never allowed without a person, in any mode; a RESTRICTED session refuses it. Under `--enforce`, a local PostgreSQL or MySQL/MariaDB database the line pins down (its name, and its server by a socket, or by `localhost` or a loopback address with a port, so that no environment variable or earlier `export` can point the dump elsewhere; statements that switch to or name another database, or drop one whose name the guard cannot read, pin nothing) is dumped into the store before the question is put (`pg_dump -Fc`, `mysqldump --single-transaction`, found in the system's program directories, never prompting); a database the guard cannot reach or name, or whose dump fails, is named in the question as not kept.",
    recovery: "`agent-guard undo` (or `restore <txid>`) restores the dump: what the database holds then is dumped into a new transaction first (a dropped database is created again), then `pg_restore --clean --if-exists` or `mysql` puts every dumped object back. Where nothing was kept, take a dump yourself before approving.",
    enforcement: None,
    hint: "Ask the user: this destroys data in a database, which the guard cannot keep; a dump taken first makes it recoverable.",
    coverage: Coverage::Corpus,
);

/// The question for `op`: the database it names, dumped first where the guard can reach
/// it, else named as not kept.
pub(crate) fn verdict(op: &OpSpec) -> Verdict {
    let outside = op.outside.as_ref();
    let what = outside.map_or_else(
        || "the database the command reaches".to_owned(),
        |o| o.what.clone(),
    );
    let mut verdict = Verdict::of(ReasonCode::AskDatabaseDestroy);
    verdict.reasons.clone_from(&op.notes);
    // A local database the line names can be dumped before the question is put.
    let dumpable = outside.and_then(|o| o.database.as_ref()).filter(|d| {
        d.pinned
            && d.connection.is_local()
            && d.connection.database.is_some()
            && matches!(d.engine, Engine::Postgres | Engine::MySql)
    });
    match dumpable {
        Some(database) => verdict.with_plan(Plan::DatabaseDump(database.clone())),
        None => verdict.not_keeping([Unkept::new(what, UnkeptWhy::OutsideWorkspace)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::{Connection, Database, Dialect, OpKind, Outside, Place};

    fn op(host: Option<&str>, name: Option<&str>) -> OpSpec {
        let mut op = OpSpec::new("psql", OpKind::DatabaseDestroy, Dialect::Posix);
        op.outside = Some(Outside {
            place: Place::Database,
            what: "data".to_owned(),
            database: Some(Database {
                engine: Engine::Postgres,
                connection: Connection {
                    database: name.map(str::to_owned),
                    host: host.map(str::to_owned),
                    ..Connection::default()
                },
                whole: false,
                pinned: true,
            }),
        });
        op
    }

    #[test]
    fn only_a_local_named_database_is_dumped() {
        for (host, name, dumped) in [
            (Some("127.0.0.1"), Some("shop"), true),
            (Some("localhost"), Some("shop"), true),
            (Some("/run/postgresql"), Some("shop"), true),
            (Some("db.example.com"), Some("shop"), false),
            (Some("localhost"), None, false),
        ] {
            let verdict = verdict(&op(host, name));
            assert_eq!(
                matches!(verdict.plan, Plan::DatabaseDump(_)),
                dumped,
                "{host:?} {name:?}"
            );
            assert_eq!(verdict.unkept.is_empty(), dumped, "{host:?} {name:?}");
        }
    }
}

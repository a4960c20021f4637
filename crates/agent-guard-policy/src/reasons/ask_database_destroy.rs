//! `ASK_DATABASE_DESTROY`.

use agent_guard_types::{OpSpec, ReasonCode, Unkept, UnkeptWhy, Verdict};

super::reason!(
    AskDatabaseDestroy, AskDatabaseDestroy, "ASK_DATABASE_DESTROY",
    catches: "A database client whose statements destroy data (`psql -c 'DROP TABLE users'`, `mysql -e 'TRUNCATE orders'`, a `DELETE` or `UPDATE` without a `WHERE`, `ALTER … DROP`, `DROP DATABASE`), or whose statements the guard cannot read (`psql -f migrate.sql`, `mysql app < dump.sql`, a procedure call); the drop tools (`dropdb`, `mysqladmin drop`, `pg_restore --clean`); and the resets of migration tools and frameworks (`prisma migrate reset`, `prisma db push --accept-data-loss`, `drizzle-kit push --force`, `supabase db reset`, `rails db:drop`, `manage.py flush`, `alembic downgrade`, `php artisan migrate:fresh`, `knex migrate:rollback`, `sequelize db:drop`, `mix ecto.reset`, `flyway clean`, …), in every dialect and behind wrappers and package runners. A SQLite database is a file of the workspace: writing it is an overwrite (`SNAPSHOT_OVERWRITE`).",
    why: "A database server's data lives outside the workspace: no checkpoint or quarantine of the workspace keeps it, and a dropped table is gone. The incidents agents cause most are of this kind.",
    example: "psql -d app -c 'DROP TABLE users'",
    verdict: "ASK, with the database named: where the harness can ask a person it asks, elsewhere it is a deny. Never allowed without a person, in any mode; a RESTRICTED session refuses it.",
    recovery: "Nothing is kept: take a dump first (`pg_dump -Fc app > app.dump`, `mysqldump --single-transaction app > app.sql`), then approve; or run the statement against a copy.",
    enforcement: None,
    hint: "Ask the user: this destroys data in a database, which the guard cannot keep; a dump taken first makes it recoverable.",
    coverage: Coverage::Corpus,
);

/// The question for `op`: the database it names, not kept.
pub(crate) fn verdict(op: &OpSpec) -> Verdict {
    let what = op.outside.as_ref().map_or_else(
        || "the database the command reaches".to_owned(),
        |o| o.what.clone(),
    );
    let mut verdict = Verdict::of(ReasonCode::AskDatabaseDestroy);
    verdict.reasons.clone_from(&op.notes);
    verdict.not_keeping([Unkept::new(what, UnkeptWhy::OutsideWorkspace)])
}

//! Database dump: before a command drops, truncates or resets a local PostgreSQL or
//! MySQL/MariaDB database, the database is dumped into the transaction's directory with the
//! engine's own tool (`pg_dump -Fc`, `mysqldump --single-transaction`), which reads a
//! consistent snapshot and takes nothing away. `undo` restores the dump (`pg_restore
//! --clean --if-exists`, `mysql`), after keeping what the database holds then in a new
//! transaction of its own, so a restore loses nothing either.
//!
//! Journal order: the dump is written and flushed, then the durable `snapshot` record
//! (subject `database`) that names it; a crash before the record leaves a file no record
//! names, which gc removes with the transaction's directory.
//!
//! The tools are looked up in the system's program directories only, never through a
//! `PATH` the workspace could put its own `pg_dump` on. They never prompt: no password is
//! passed on (a dump that needs one fails, and the question says nothing was kept).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_guard_fsops as fsops;
use agent_guard_quarantine::{
    DatabaseFacts, MANIFEST_SCHEMA, Origin, OtherOutcome, OtherRequest, Quarantine, Record,
    Snapshot as SnapshotRecord, Transaction, TxMeta,
};
use agent_guard_types::{Database, Engine, Plan, Strategy, TxId};

use crate::RecoveryError;
use crate::compensation::{Applied, Compensation, Job};

/// The `subject` of a database dump's `snapshot` record.
pub use agent_guard_quarantine::DATABASE_SUBJECT as SUBJECT;

/// The dump's file name in the transaction's directory.
const FILE: &str = "database.dump";

/// Where the engines' tools are looked for, in order (PostgreSQL's versioned directories
/// are searched newest first after these).
const TOOL_DIRS: &[&str] = &[
    "/usr/bin",
    "/usr/local/bin",
    "/bin",
    "/opt/homebrew/bin",
    "/usr/local/pgsql/bin",
    "/usr/local/mysql/bin",
    "/Applications/Postgres.app/Contents/Versions/latest/bin",
];

/// The database-dump compensation (`ASK_DATABASE_DESTROY`, kept before the question).
#[derive(Debug, Clone, Copy)]
pub struct DatabaseDump;

impl Compensation for DatabaseDump {
    fn strategy(&self) -> Strategy {
        Strategy::DatabaseDump
    }

    fn apply(&self, job: &Job<'_>, plan: &Plan) -> Applied {
        let Plan::DatabaseDump(database) = plan else {
            return job.wrong_plan(Strategy::DatabaseDump, "not a database-dump plan");
        };
        let result = (|| {
            fs_err::create_dir_all(job.store.trash()).map_err(|e| failed("create", &e))?;
            let _lock = job.store.lock()?;
            dump(job.store, database, &job.txid, job.origin.clone())
        })();
        let mut applied = Applied::settled(Strategy::DatabaseDump, &job.txid, result, |_, base| {
            Applied { moved: 1, ..base }
        });
        // What it kept (or failed to), in the words the question uses.
        applied.paths = vec![format!(
            "the {} database `{}`",
            database.engine.display(),
            database.connection.database.as_deref().unwrap_or("?")
        )];
        applied
    }

    fn restore(
        &self,
        store: &Quarantine,
        tx: &Transaction,
        request: &mut OtherRequest<'_>,
        out: &mut OtherOutcome,
    ) {
        let Some(facts) = &tx.meta.database else {
            return;
        };
        if !request.paths.is_empty()
            || !tx
                .snapshots
                .iter()
                .any(|s| s.subject.as_deref() == Some(SUBJECT))
        {
            return;
        }
        let name = label(&facts.database);
        match restore_one(store, tx, facts, request) {
            Ok(backup) => {
                let kept = facts.database.connection.database.as_deref().unwrap_or("");
                out.restored.push(format!("database:{kept}"));
                out.backup_txids.extend(backup);
            }
            Err(error) => out.errors.push(format!(
                "{name}: {}",
                agent_guard_types::error_chain(&error)
            )),
        }
    }
}

/// A database as the restore report names it (`postgres:shop`).
fn label(database: &Database) -> String {
    format!(
        "{}:{}",
        database.engine.as_str(),
        database.connection.database.as_deref().unwrap_or("?")
    )
}

fn failed(action: &'static str, source: &std::io::Error) -> RecoveryError {
    RecoveryError::Database {
        action,
        detail: source.to_string(),
    }
}

/// The engine's tool `name`, from the system's program directories.
fn tool(name: &str) -> Result<PathBuf, RecoveryError> {
    let mut dirs: Vec<PathBuf> = TOOL_DIRS.iter().map(PathBuf::from).collect();
    if let Ok(entries) = fs_err::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin")).collect();
        versions.sort();
        dirs.extend(versions.into_iter().rev());
    }
    dirs.into_iter()
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .ok_or_else(|| RecoveryError::Database {
            action: "find the dump tool",
            detail: format!("`{name}` is not installed in the system's program directories"),
        })
}

/// The connection options of a PostgreSQL tool.
fn postgres_args(database: &Database) -> Vec<String> {
    let c = &database.connection;
    let mut args = vec!["-w".to_owned()];
    for (flag, value) in [("-h", &c.host), ("-p", &c.port), ("-U", &c.user)] {
        if let Some(value) = value {
            args.push(flag.to_owned());
            args.push(value.clone());
        }
    }
    args
}

/// The connection options of a MySQL tool.
fn mysql_args(database: &Database) -> Vec<String> {
    let c = &database.connection;
    let mut args = Vec::new();
    for (flag, value) in [
        ("--host", &c.host),
        ("--port", &c.port),
        ("--user", &c.user),
        ("--socket", &c.socket),
    ] {
        if let Some(value) = value {
            args.push(format!("{flag}={value}"));
        }
    }
    args
}

/// Runs `program` with `args` (stdin from `input`, else nothing); its stderr on failure.
fn run(program: &str, args: &[String], input: Option<&Path>) -> Result<(), RecoveryError> {
    let stdin = match input {
        Some(path) => Stdio::from(
            fs_err::File::open(path)
                .map_err(|e| failed("open the dump", &e))?
                .into_parts()
                .0,
        ),
        None => Stdio::null(),
    };
    let output = Command::new(tool(program)?)
        .args(args)
        .env("PGCONNECT_TIMEOUT", "5")
        .stdin(stdin)
        .output()
        .map_err(|e| failed("run the database tool", &e))?;
    if output.status.success() {
        return Ok(());
    }
    Err(RecoveryError::Database {
        action: "run the database tool",
        detail: format!(
            "{program} {}: {}",
            output.status,
            one_line(&String::from_utf8_lossy(&output.stderr))
        ),
    })
}

/// Runs `program` with `args`, its standard output written into `out`. The output goes
/// through the guard, so the tool stops (on a broken pipe) if the guard is stopped, at its
/// hook's deadline say, instead of writing on unseen.
fn run_to(program: &str, args: &[String], out: &Path) -> Result<(), RecoveryError> {
    let mut child = Command::new(tool(program)?)
        .args(args)
        .env("PGCONNECT_TIMEOUT", "5")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed("run the database tool", &e))?;
    let mut stderr = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(pipe) = stderr.as_mut() {
            let _ = std::io::Read::read_to_string(pipe, &mut text);
        }
        text
    });
    let copied = (|| {
        let mut file = fs_err::File::create(out)?;
        if let Some(mut pipe) = child.stdout.take() {
            std::io::copy(&mut pipe, &mut file)?;
        }
        file.sync_all()
    })();
    let status = child
        .wait()
        .map_err(|e| failed("run the database tool", &e))?;
    let errors = errors.join().unwrap_or_default();
    copied.map_err(|e| failed("write the dump", &e))?;
    if status.success() {
        return Ok(());
    }
    Err(RecoveryError::Database {
        action: "run the database tool",
        detail: format!("{program} {status}: {}", one_line(&errors)),
    })
}

/// A tool's messages on one line.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Dumps `database` into transaction `txid`'s directory and journals it. The caller holds
/// the writers' lock.
fn dump(
    store: &Quarantine,
    database: &Database,
    txid: &TxId,
    origin: Origin,
) -> Result<u64, RecoveryError> {
    let Some(name) = database.connection.database.clone() else {
        return Err(RecoveryError::Database {
            action: "dump the database",
            detail: "the command does not name its database".to_owned(),
        });
    };
    let dir = store.tx_dir(txid);
    fs_err::create_dir_all(&dir).map_err(|e| failed("create", &e))?;
    let path = dir.join(FILE);
    // Written under a name of its own, and given its name once complete and flushed.
    let partial = dir.join(format!("{FILE}.partial"));
    let dumped = match database.engine {
        Engine::Postgres => {
            // `--create` keeps the database's own properties (owner, encoding, locale,
            // settings, comment, privileges) for a restore that must create it again.
            let mut args = postgres_args(database);
            args.extend(["-Fc".to_owned(), "--create".to_owned(), name]);
            run_to("pg_dump", &args, &partial)
        }
        Engine::MySql => {
            let mut args = mysql_args(database);
            args.extend([
                "--single-transaction".to_owned(),
                "--routines".to_owned(),
                "--triggers".to_owned(),
                "--events".to_owned(),
                "--databases".to_owned(),
                name,
            ]);
            run_to("mysqldump", &args, &partial)
        }
    }
    .and_then(|()| fsops::rename(&partial, &path).map_err(|e| failed("name the dump", &e)));
    if let Err(error) = dumped {
        // A partial dump is no use to anyone: nothing names it, so nothing is lost by
        // removing it with its directory.
        let _ = fsops::remove_tree(&dir);
        return Err(error);
    }
    let bytes = fs_err::File::open(&path)
        .and_then(|f| {
            f.sync_all()?;
            f.metadata()
        })
        .map_err(|e| failed("flush the dump", &e))?
        .len();
    fsops::sync_dir(&dir).map_err(|e| failed("flush the dump's directory", &e))?;
    let meta = TxMeta {
        database: Some(DatabaseFacts {
            database: database.clone(),
            file: FILE.to_owned(),
            bytes,
        }),
        ..TxMeta::of(origin).with_strategy(Strategy::DatabaseDump.as_str())
    };
    let record = SnapshotRecord {
        txid: txid.to_string(),
        sha: None,
        stored: true,
        refname: None,
        subject: Some(SUBJECT.to_owned()),
        name: database.connection.database.clone(),
        repository: None,
        note: Some(format!("{} database dump", database.engine.display())),
        error: None,
        meta,
        ts: store.now(),
        schema: MANIFEST_SCHEMA,
    };
    store.append(&[Record::Snapshot(record)])?;
    Ok(bytes)
}

/// Whether a dump failed because the database is not there.
fn is_absent(error: &RecoveryError) -> bool {
    matches!(error, RecoveryError::Database { detail, .. }
        if detail.contains("does not exist") || detail.contains("Unknown database"))
}

/// Puts `tx`'s dump back: what the database holds now is dumped into a new transaction
/// first (a database that is gone is created), then the dump is restored over it. Returns
/// the new transaction's id, if one was made.
fn restore_one(
    store: &Quarantine,
    tx: &Transaction,
    facts: &DatabaseFacts,
    request: &mut OtherRequest<'_>,
) -> Result<Option<String>, RecoveryError> {
    let database = &facts.database;
    let name = database.connection.database.clone().unwrap_or_default();
    let kept = store.trash().join(&tx.txid).join(&facts.file);
    if !kept.is_file() {
        return Err(RecoveryError::Database {
            action: "find the dump",
            detail: format!("{} is missing", kept.display()),
        });
    }
    let backup = (request.new_txid)();
    let (backup_id, absent) = match dump(store, database, &backup, Origin::restoring(&tx.txid)) {
        Ok(_) => (Some(backup.to_string()), false),
        Err(error) if is_absent(&error) => (None, true),
        Err(error) => return Err(error),
    };
    let kept = kept.to_string_lossy().into_owned();
    match database.engine {
        // A database that is gone is created again from the dump, with its own properties
        // (from the maintenance database); one that is there gets every dumped object back
        // in one transaction: all of it, or nothing.
        Engine::Postgres if absent => {
            let mut args = postgres_args(database);
            args.extend([
                "--create".to_owned(),
                "-d".to_owned(),
                "postgres".to_owned(),
                kept,
            ]);
            run("pg_restore", &args, None)?;
        }
        Engine::Postgres => {
            let mut args = postgres_args(database);
            args.extend([
                "--clean".to_owned(),
                "--if-exists".to_owned(),
                "--single-transaction".to_owned(),
                "-d".to_owned(),
                name,
                kept,
            ]);
            run("pg_restore", &args, None)?;
        }
        Engine::MySql => run("mysql", &mysql_args(database), Some(Path::new(&kept)))?,
    }
    Ok(backup_id)
}

//! Issue 37, points 4 and 5, end to end. A SQLite database is a file of the workspace: the
//! real `sqlite3` runs after `check --enforce`, and `restore` brings the file back byte for
//! byte (and the rows the statement dropped with it). What lives outside the workspace (a
//! database server, cloud resources, cluster objects, volumes) is asked, in every harness's
//! own format, with what would be lost named; a harness that cannot ask refuses.

use serde_json::json;

use crate::hooks::{asks, run_payload, shell_payload};
use crate::support::{TestEnv, enforce, run_shell, snapshot, txids};

fn sqlite(env: &TestEnv, sql: &str) -> String {
    let output = std::process::Command::new("sqlite3")
        .args(["app.db", sql])
        .current_dir(env.ws())
        .output()
        .expect("sqlite3 is installed (.ci/run installs it)");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A statement that deletes rows and drops a table, run by the real `sqlite3` after
/// `check --enforce`: the file is kept first, then restored byte for byte.
#[test]
fn a_sqlite_statement_is_kept_and_restored() {
    let env = TestEnv::new();
    sqlite(
        &env,
        "create table users (id int, name text); create table orders (id int); \
         insert into users values (1, 'ada'), (2, 'bob'); insert into orders values (7);",
    );
    let before = snapshot(env.ws(), &["**"]);
    for command in [
        "sqlite3 app.db 'DELETE FROM users; DROP TABLE orders;'",
        "echo 'DROP TABLE users;' | sqlite3 app.db",
    ] {
        let (exit, report) = enforce(&env, command);
        assert_eq!(exit, 0, "{command}: {report}");
        assert_eq!(report["code"], "SNAPSHOT_OVERWRITE", "{command}: {report}");
        let ids = txids(&report);
        assert_eq!(ids.len(), 1, "{command}: {report}");
        run_shell(&env, command);
        assert_ne!(
            snapshot(env.ws(), &["**"]),
            before,
            "{command} changed the file"
        );
        env.ag_ok(&["restore", &ids[0]]);
        assert_eq!(snapshot(env.ws(), &["**"]), before, "{command}: restored");
        assert_eq!(sqlite(&env, "select count(*) from users"), "2\n");
        assert_eq!(sqlite(&env, "select id from orders"), "7\n");
    }
    // A read writes nothing and keeps nothing.
    let (_, report) = enforce(&env, "sqlite3 app.db 'select count(*) from users'");
    assert_eq!(report["code"], "ALLOW_NOOP", "{report}");
}

/// Hook mode: a harness that can ask asks, naming what would be lost; one that cannot
/// refuses and says to ask. A remote database, cloud resources and cluster objects are not
/// kept; a local database whose dump fails is named with the reason.
#[test]
fn what_lives_outside_the_workspace_is_asked_with_its_name() {
    let env = TestEnv::new();
    for (line, named) in [
        (
            "psql -h db.example.com -d shop -c 'DROP TABLE users'",
            "the PostgreSQL database `shop`",
        ),
        ("dropdb -h 10.0.0.7 shop", "the PostgreSQL database `shop`"),
        (
            "mysql -h db.example.com -e 'TRUNCATE orders' shop",
            "the MySQL/MariaDB database `shop`",
        ),
        // A local database whose dump fails (no server here): named, with why.
        (
            "psql -h /nonexistent -p 5432 -d shop -c 'DROP TABLE users'",
            "the PostgreSQL database `shop` (its dump failed",
        ),
        (
            "npx prisma migrate reset --force",
            "`prisma` is configured for",
        ),
        (
            "terraform destroy -auto-approve",
            "every resource this configuration manages",
        ),
        ("kubectl delete namespace prod", "the cluster objects"),
        ("docker volume rm pgdata", "container volumes"),
    ] {
        for harness in ["claude-code", "codex"] {
            let payload = shell_payload(harness, Some(json!(line)), env.ws());
            let output = run_payload(&env, harness, &payload);
            assert!(asks(harness, &output), "{harness} {line}: {output:?}");
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(said.contains(named), "{harness} {line}: {said}");
            assert!(
                said.contains("cannot be restored"),
                "{harness} {line}: {said}"
            );
        }
    }
}

/// Hook mode asks about `line` (Claude Code's format): what the question says.
fn ask(env: &TestEnv, line: &str) -> String {
    let payload = shell_payload("claude-code", Some(json!(line)), env.ws());
    let asked = run_payload(env, "claude-code", &payload);
    assert!(asks("claude-code", &asked), "{line}: {asked:?}");
    String::from_utf8_lossy(&asked.stdout).into_owned()
}

/// `line` is asked with `dumped` named as kept, the person approves (the line runs as it
/// was sent), and `undo` brings `state` back to `before`.
fn asked_run_undone<T: PartialEq + std::fmt::Debug>(
    env: &TestEnv,
    line: &str,
    dumped: &str,
    state: impl Fn() -> T,
    before: &T,
) {
    let said = ask(env, line);
    assert!(said.contains(dumped), "{line}: {said}");
    run_shell(env, line);
    assert_ne!(&state(), before, "{line} destroyed data");
    let undone = env.ag_ok(&["undo"]);
    let said = String::from_utf8_lossy(&undone.stdout);
    assert!(said.contains("database:shop"), "{line}: {said}");
    assert_eq!(&state(), before, "{line}: undone");
}

/// A PostgreSQL server of the test's own, on a socket in a temporary directory (run as
/// the `postgres` user when the tests run as root, as initdb refuses root).
struct Postgres {
    dir: tempfile::TempDir,
    bin: std::path::PathBuf,
    port: String,
    via_runuser: bool,
}

impl Postgres {
    /// Starts one, or `None` (with the reason printed) where PostgreSQL is not installed and
    /// `AGENT_GUARD_REQUIRE_POSTGRES` is not set (`.ci/run` installs it and sets it).
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    fn start() -> Option<Postgres> {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("bin"))
            .filter(|b| b.join("initdb").is_file())
            .max();
        let Some(bin) = bin else {
            assert!(
                std::env::var_os("AGENT_GUARD_REQUIRE_POSTGRES").is_none(),
                "PostgreSQL's server is not installed"
            );
            eprintln!("skipped: PostgreSQL's server is not installed (apt-get install postgresql)");
            return None;
        };
        let via_runuser = rustix_is_root();
        let dir = tempfile::Builder::new().prefix("ag-pg-").tempdir().unwrap();
        if via_runuser {
            let status = std::process::Command::new("chown")
                .args(["postgres:", dir.path().to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success());
        }
        let port = (40_000 + std::process::id() % 20_000).to_string();
        let server = Postgres {
            dir,
            bin,
            port,
            via_runuser,
        };
        let data = server.dir.path().join("data");
        let sock = server.dir.path().to_str().unwrap().to_owned();
        server.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-A",
                "trust",
                "-U",
                "postgres",
            ],
        );
        let options = format!("-k {sock} -p {} -c listen_addresses=''", server.port);
        let log = server.dir.path().join("log");
        server.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &options,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        );
        Some(server)
    }

    /// Runs one of the server's tools (as `postgres` when the tests run as root).
    fn tool(&self, tool: &str, args: &[&str]) -> std::process::Output {
        let program = self.bin.join(tool);
        if self.via_runuser {
            std::process::Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&program)
                .args(args)
                .output()
        } else {
            std::process::Command::new(&program).args(args).output()
        }
        .unwrap()
    }

    fn run(&self, tool: &str, args: &[&str]) {
        let output = self.tool(tool, args);
        assert!(output.status.success(), "{tool} {args:?}: {output:?}");
    }

    /// The connection options of the line the agent runs.
    fn conn(&self) -> String {
        format!(
            "-h {} -p {} -U postgres",
            self.dir.path().display(),
            self.port
        )
    }

    /// `psql` with `sql` against `db`: its output, or `None` when it fails.
    fn psql(&self, db: &str, sql: &str) -> Option<String> {
        let output = std::process::Command::new("psql")
            .args(self.conn().split(' '))
            .args(["-X", "-At", "-d", db, "-c", sql])
            .output()
            .unwrap();
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Every table of `db`, with its row count and a checksum of its rows.
    fn tables(&self, db: &str) -> Option<Vec<String>> {
        let names = self.psql(
            db,
            "select tablename from pg_tables where schemaname = 'public' order by 1",
        )?;
        // The database's own properties, and each table's owner, come back too.
        let properties = self.psql(
            "postgres",
            &format!(
                "select pg_get_userbyid(datdba), pg_encoding_to_char(encoding), datcollate, \
                 (select string_agg(a::text, ',' order by a::text) from unnest(datacl) a) \
                 from pg_database where datname = '{db}'"
            ),
        )?;
        let owners = self.psql(
            db,
            "select tablename || ' ' || tableowner from pg_tables where schemaname = 'public' \
             order by 1",
        )?;
        Some(
            [properties, owners]
                .into_iter()
                .chain(names.lines().map(|table| {
                    let sum = self
                        .psql(
                            db,
                            &format!(
                                "select count(*) || ' ' || coalesce(md5(string_agg(t::text, ',' \
                                 order by t::text)), '') from {table} t"
                            ),
                        )
                        .unwrap();
                    format!("{table}: {}", sum.trim())
                }))
                .collect(),
        )
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self.tool(
            "pg_ctl",
            &["-D", data.to_str().unwrap(), "-m", "immediate", "stop"],
        );
    }
}

/// Whether the tests run as root (`id -u`).
fn rustix_is_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// The real server, the real client: each destroying line is asked in hook mode, its
/// database is dumped before the question, the person approves (the line runs for real),
/// and `undo` brings back every table with the same rows. A remote database is named as not
/// kept, and nothing is dumped.
#[test]
fn a_local_postgres_database_is_dumped_before_the_question_and_undone() {
    let Some(pg) = Postgres::start() else {
        return;
    };
    let env = TestEnv::new();
    // A database with properties of its own (owner, encoding, locale, privileges) and a
    // table owned by an application role.
    for setup in [
        "create role bob login",
        "create database shop owner bob encoding 'SQL_ASCII' lc_collate 'C' lc_ctype 'C' \
         template template0",
        "revoke connect on database shop from public",
    ] {
        assert!(pg.psql("postgres", setup).is_some(), "{setup}");
    }
    pg.psql(
        "shop",
        "create table users (id int primary key, name text); alter table users owner to bob; \
         create table orders (id int, user_id int, total numeric); \
         insert into users select g, 'user ' || g from generate_series(1, 500) g; \
         insert into orders select g, g % 500 + 1, g * 1.5 from generate_series(1, 2000) g;",
    )
    .unwrap();
    let before = pg.tables("shop").unwrap();
    assert_eq!(before.len(), 4, "{before:?}");
    let conn = pg.conn();
    for line in [
        format!("psql {conn} -d shop -c 'DROP TABLE users CASCADE'"),
        format!("psql {conn} shop -c 'TRUNCATE orders; DELETE FROM users'"),
        format!("dropdb {conn} shop"),
        format!("echo 'DROP TABLE orders;' | psql {conn} shop"),
    ] {
        asked_run_undone(
            &env,
            &line,
            "dumped the PostgreSQL database `shop`",
            || pg.tables("shop"),
            &Some(before.clone()),
        );
    }
    // Lines whose dump would not reach what they destroy (another database, a server the
    // shell's environment picks) are asked with nothing kept: no dump claims otherwise.
    let dir = pg.dir.path().display().to_string();
    for line in [
        format!("psql {conn} -d shop -c '\\c postgres' -c 'DROP TABLE users'"),
        format!("psql {conn} -d shop -c 'DROP DATABASE \"Shop\"'"),
        format!("PGPORT=1 psql -h {dir} -U postgres -d shop -c 'DROP TABLE users'"),
    ] {
        let said = ask(&env, &line);
        assert!(said.contains("cannot be restored"), "{line}: {said}");
        assert!(!said.contains("dumped the"), "{line}: {said}");
    }
    // A database on another host is named as not kept: no dump is attempted.
    let said = ask(&env, "psql -h db.invalid -d shop -c 'DROP TABLE users'");
    assert!(
        said.contains("the PostgreSQL database `shop` cannot be restored"),
        "{said}"
    );
}

/// A MariaDB server of the test's own, on a socket in a temporary directory, without
/// networking.
struct MariaDb {
    dir: tempfile::TempDir,
    server: std::process::Child,
}

impl MariaDb {
    /// Starts one, or `None` where MariaDB's server is not installed and
    /// `AGENT_GUARD_REQUIRE_MARIADB` is not set (`.ci/run` installs it and sets it).
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    fn start() -> Option<MariaDb> {
        let found = |p: &str| std::path::Path::new(p).is_file();
        if !found("/usr/sbin/mariadbd") || !found("/usr/bin/mariadb-install-db") {
            assert!(
                std::env::var_os("AGENT_GUARD_REQUIRE_MARIADB").is_none(),
                "MariaDB's server is not installed"
            );
            eprintln!(
                "skipped: MariaDB's server is not installed (apt-get install mariadb-server)"
            );
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("ag-mdb-")
            .tempdir()
            .unwrap();
        let data = dir.path().join("data");
        let user = if rustix_is_root() {
            "--user=root"
        } else {
            "--no-defaults"
        };
        let install = std::process::Command::new("mariadb-install-db")
            .args([
                "--no-defaults",
                &format!("--datadir={}", data.display()),
                user,
            ])
            .args(["--auth-root-authentication-method=socket"])
            .output()
            .unwrap();
        assert!(install.status.success(), "{install:?}");
        let sock = dir.path().join("sock");
        let server = std::process::Command::new("/usr/sbin/mariadbd")
            .args([
                "--no-defaults".to_owned(),
                format!("--datadir={}", data.display()),
                format!("--socket={}", sock.display()),
                "--skip-networking".to_owned(),
                format!("--pid-file={}", dir.path().join("pid").display()),
                format!("--log-error={}", dir.path().join("err.log").display()),
                user.to_owned(),
            ])
            .spawn()
            .unwrap();
        let db = MariaDb { dir, server };
        for _ in 0..100 {
            if db.sql("select 1").is_some() {
                return Some(db);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("mariadbd did not start");
    }

    /// The connection options of the line the agent runs.
    fn conn(&self) -> String {
        format!("-S {} -u root", self.dir.path().join("sock").display())
    }

    fn sql(&self, sql: &str) -> Option<String> {
        let output = std::process::Command::new("mysql")
            .args(self.conn().split(' '))
            .args(["-N", "-B", "-e", sql])
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Every table of `shop`, with its row count and MariaDB's checksum.
    fn tables(&self) -> Option<Vec<String>> {
        let names = self.sql("select table_name from information_schema.tables where table_schema = 'shop' order by 1")?;
        Some(
            names
                .lines()
                .map(|table| {
                    let count = self
                        .sql(&format!("select count(*) from shop.{table}"))
                        .unwrap();
                    let sum = self.sql(&format!("checksum table shop.{table}")).unwrap();
                    format!("{table}: {} {}", count.trim(), sum.trim())
                })
                .collect(),
        )
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// The same round trip against a real MariaDB server: a dropped table, a truncated one, a
/// dropped database and a dump piped in are each undone to the same rows and checksums.
#[test]
fn a_local_mariadb_database_is_dumped_before_the_question_and_undone() {
    let Some(db) = MariaDb::start() else {
        return;
    };
    let env = TestEnv::new();
    db.sql(
        "create database shop; create database seq; \
         create table shop.users (id int primary key, name text); \
         create table shop.orders (id int, user_id int, total decimal(10,2)); \
         insert into shop.users select seq, concat('user ', seq) from seq.seq_1_to_500; \
         insert into shop.orders select seq, seq % 500 + 1, seq * 1.5 from seq.seq_1_to_2000;",
    )
    .unwrap();
    let before = db.tables().unwrap();
    assert_eq!(before.len(), 2);
    let conn = db.conn();
    for line in [
        format!("mysql {conn} shop -e 'DROP TABLE users'"),
        format!("mariadb {conn} -D shop --execute='TRUNCATE orders; DELETE FROM users'"),
        format!("mysqladmin {conn} -f drop shop"),
        format!("echo 'DROP TABLE orders;' | mysql {conn} shop"),
    ] {
        asked_run_undone(
            &env,
            &line,
            "dumped the MySQL/MariaDB database `shop`",
            || db.tables(),
            &Some(before.clone()),
        );
    }
    // MySQL's qualified names and `USE` reach other databases: nothing is claimed kept.
    for line in [
        format!("mysql {conn} shop -e 'USE other; DROP TABLE t'"),
        format!("mysql {conn} shop -e 'DROP TABLE other.t'"),
    ] {
        let said = ask(&env, &line);
        assert!(said.contains("cannot be restored"), "{line}: {said}");
    }
}

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
/// refuses and says to ask. Nothing is kept and nothing ran.
#[test]
fn what_lives_outside_the_workspace_is_asked_with_its_name() {
    let env = TestEnv::new();
    for (line, named) in [
        (
            "psql -d shop -c 'DROP TABLE users'",
            "the PostgreSQL database `shop`",
        ),
        ("dropdb shop", "the PostgreSQL database `shop`"),
        (
            "mysql -e 'TRUNCATE orders' shop",
            "the MySQL/MariaDB database `shop`",
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

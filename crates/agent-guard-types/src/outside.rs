//! What a command destroys outside the workspace: a database, cloud resources, cluster
//! objects, container volumes (issue 37, points 4 and 5). No workspace compensation keeps
//! any of it; the facts say what it is, so that the question can name it, and, for a
//! database the guard can reach, how a dump of it could be taken first.

use serde::{Deserialize, Serialize};

/// Where the destroyed state lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    /// A database server's data (`psql -c 'DROP …'`, `dropdb`, `prisma migrate reset`).
    Database,
    /// Resources of a cloud provider or an infrastructure tool (`terraform destroy`,
    /// `aws s3 rm --recursive`, `gcloud … delete`).
    Cloud,
    /// Objects of a cluster (`kubectl delete`, `helm uninstall`).
    Cluster,
    /// Container volumes and whatever a prune removes (`docker volume rm`,
    /// `docker system prune`).
    Containers,
    /// A hosted service's data (`gh repo delete`, `redis-cli FLUSHALL`).
    Service,
    /// Another machine, reached over the network (`ssh host 'rm -rf data'`).
    Host,
}

impl Place {
    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Place::Database => "database",
            Place::Cloud => "cloud",
            Place::Cluster => "cluster",
            Place::Containers => "containers",
            Place::Service => "service",
            Place::Host => "host",
        }
    }
}

/// A database engine whose dump tool the guard knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// PostgreSQL (`psql`, `dropdb`, `pg_restore --clean`): kept with `pg_dump -Fc`.
    Postgres,
    /// MySQL or MariaDB (`mysql`, `mariadb`, `mysqladmin drop`): kept with `mysqldump`.
    MySql,
}

impl Engine {
    /// The stable kebab-case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Engine::Postgres => "postgres",
            Engine::MySql => "mysql",
        }
    }

    /// The name a person knows it by.
    pub const fn display(self) -> &'static str {
        match self {
            Engine::Postgres => "PostgreSQL",
            Engine::MySql => "MySQL/MariaDB",
        }
    }
}

/// How a database client reaches its database, as the line spells it. `None` fields are
/// the client's defaults (its environment: `PGHOST`, `PGDATABASE`, `~/.my.cnf`, …).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Connection {
    /// The database's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<String>,
    /// The host (or, for PostgreSQL, a socket directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// The user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// A MySQL socket file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<String>,
}

impl Connection {
    /// Whether the connection stays on this machine: no host, a loopback name or address,
    /// or a socket path.
    pub fn is_local(&self) -> bool {
        self.host.as_deref().is_none_or(|host| {
            host.starts_with('/')
                || matches!(host, "localhost" | "::1" | "[::1]" | "")
                || host.starts_with("127.")
        })
    }
}

/// A database a command destroys data in, as far as the line tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Database {
    /// Its engine.
    pub engine: Engine,
    /// How the client reaches it.
    pub connection: Connection,
    /// The command drops the whole database (`dropdb`, `DROP DATABASE`), not only what is
    /// in it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
    /// The line fixes the server and the database (a socket, or a host and a port, and the
    /// database's name) and its statements reach no other database: a dump with the same
    /// connection reaches what the command destroys, whatever the shell's environment
    /// (`PGHOST`, `PGPORT`, an earlier `export`) says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

impl Connection {
    /// Whether the connection names its server outright: a MySQL socket, a PostgreSQL host
    /// that is a socket directory with a port, or a host and a port.
    pub fn names_server(&self) -> bool {
        self.socket.is_some() || (self.host.is_some() && self.port.is_some())
    }
}

/// The facts of an [`crate::OpKind::DatabaseDestroy`] or [`crate::OpKind::OutsideDestroy`]
/// op: what it destroys, where, in words a question can show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outside {
    /// Where the state lives.
    pub place: Place,
    /// What the command destroys, in words for the person asked ("the PostgreSQL database
    /// `app`", "every resource this configuration manages").
    pub what: String,
    /// For a database the line names the client and connection of: how a dump could
    /// reach it. `None` when the database is only known to a framework's configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub database: Option<Database>,
}

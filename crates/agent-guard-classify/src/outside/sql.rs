//! What a piece of SQL does to the data it reaches, statement by statement: reads it,
//! changes it (adds rows, creates objects, updates or deletes the rows a `WHERE` picks),
//! destroys it (`DROP`, `TRUNCATE`, a `DELETE` or `UPDATE` of every row, `ALTER … DROP`),
//! or does what the guard cannot read (a procedure, a file it includes, a statement it does
//! not know). The worst statement decides.
//!
//! The reading is lexical: quotes, dollar quotes, back-quoted names and comments are
//! skipped, and a statement is known by its leading keywords. A `SELECT` that calls a
//! function of the user's is read as a read (the guard does not see into functions).

/// What a piece of SQL does, the worst of its statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sql {
    /// Only reads (or sets session state).
    Reads,
    /// Adds or changes data without destroying a whole table's content.
    Changes,
    /// Runs what the guard cannot read: why.
    Unseen(&'static str),
    /// Destroys data: the first destroying statement, shortened, and whether it drops a
    /// whole database (with its name when the statement gives it).
    Destroys {
        /// The statement, at most 80 characters.
        statement: String,
        /// `DROP DATABASE name` (or `DROP SCHEMA`): the name.
        database: Option<String>,
    },
}

impl Sql {
    fn rank(&self) -> u8 {
        match self {
            Sql::Reads => 0,
            Sql::Changes => 1,
            Sql::Unseen(_) => 2,
            Sql::Destroys { .. } => 3,
        }
    }

    /// The worse of the two (the first on a tie).
    #[must_use]
    pub(crate) fn worst(self, other: Sql) -> Sql {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    /// Whether it destroys data or does what the guard cannot read.
    pub(crate) fn destroys_or_unseen(&self) -> bool {
        matches!(self, Sql::Unseen(_) | Sql::Destroys { .. })
    }

    /// Whether it may destroy data or does what the guard cannot read.
    #[cfg(test)]
    pub(crate) fn may_destroy(&self) -> bool {
        matches!(self, Sql::Unseen(_) | Sql::Destroys { .. })
    }
}

/// Judges `text`: every statement in it (a psql backslash command ends at its line). The
/// text is read twice, as PostgreSQL reads it (a backslash is an ordinary character in a
/// string, `--` always starts a comment) and as MySQL does (a backslash escapes, `#` and
/// `-- ` start comments, `/*! … */` is code), and the worse reading decides: the guard does
/// not know which server the client reaches.
pub(crate) fn judge(text: &str) -> Sql {
    [false, true]
        .into_iter()
        .flat_map(|mysql| statements(text, mysql))
        .map(|s| statement(&s))
        .fold(Sql::Reads, Sql::worst)
}

/// Whether the client commands among `text`'s statements may write files or run a shell
/// here: psql's backslash commands (`\\o`, `\\w`, `\\!`, `\\copy … to`), MySQL's `tee`,
/// `pager` and `system`.
pub(crate) fn writes_files(text: &str) -> bool {
    statements(text, true).iter().any(|statement| {
        let trimmed = statement.trim_start();
        trimmed.starts_with('\\')
            || words(trimmed)
                .first()
                .is_some_and(|w| matches!(w.as_str(), "tee" | "pager" | "system"))
    })
}

/// Whether the statements of `text` may reach a database other than the one the client
/// connects to (`db`): they switch (`USE other`, `\\c other`, `connect other`), drop a
/// database whose name the guard cannot read (`DROP DATABASE "Shop"`), or, in MySQL, where a
/// qualified name is a database (`DROP TABLE other.t`), name one. A dump of the connected
/// database would not keep what they destroy there.
pub(crate) fn reaches_elsewhere(text: &str, qualified_is_database: bool, db: Option<&str>) -> bool {
    [false, true]
        .into_iter()
        .flat_map(|mysql| statements(text, mysql))
        .any(|statement| {
            let trimmed = statement.trim();
            if let Some(meta) = trimmed.strip_prefix('\\') {
                let command = meta.split_whitespace().next().unwrap_or("");
                return matches!(command, "c" | "connect");
            }
            let words = words(trimmed);
            let first = words.first().map_or("", String::as_str);
            if matches!(first, "use" | "connect") {
                return true;
            }
            let drops_database = first == "drop"
                && words
                    .get(1)
                    .is_some_and(|w| matches!(w.as_str(), "database" | "schema"));
            if drops_database && trimmed.contains("''") {
                return true;
            }
            qualified_is_database
                && words.iter().any(|w| {
                    // `other.t`, not a number (`1.5`).
                    w.split_once('.').is_some_and(|(qualifier, _)| {
                        qualifier.starts_with(|c: char| c.is_alphabetic() || c == '_')
                            && Some(qualifier) != db.map(str::to_ascii_lowercase).as_deref()
                    })
                })
                && trimmed.contains('.')
                && !matches!(keyword(trimmed), Sql::Reads)
        })
}

/// The statements of `text`, split at `;` and at the end of a backslash command's line,
/// outside quotes and comments; comments are dropped, quoted text is kept (as `''`, so that
/// no word inside a string is read as a keyword). `mysql` selects MySQL's lexical rules.
pub(crate) fn statements(text: &str, mysql: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let mut executable = 0_u32;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        match c {
            '\'' | '"' | '`' => {
                at = skip_quoted(&chars, at, c, mysql);
                current.push_str("''");
                continue;
            }
            '/' if mysql && next == Some('*') && chars.get(at + 2) == Some(&'!') => {
                // MySQL runs what an executable comment holds (after its version number).
                at += 3;
                while chars.get(at).is_some_and(char::is_ascii_digit) {
                    at += 1;
                }
                executable += 1;
                current.push(' ');
                continue;
            }
            '*' if executable > 0 && next == Some('/') => {
                executable -= 1;
                at += 2;
                current.push(' ');
                continue;
            }
            '$' if let Some(end) = dollar_tag(&chars, at) => {
                let tag: String = chars[at..end].iter().collect();
                at = find(&chars, end, &tag).map_or(chars.len(), |i| i + tag.chars().count());
                current.push_str("''");
                continue;
            }
            '-' if next == Some('-')
                && (!mysql || chars.get(at + 2).is_none_or(|c| c.is_whitespace())) =>
            {
                at = line_end(&chars, at);
                continue;
            }
            '#' if mysql => {
                // MySQL's `#` comment.
                at = line_end(&chars, at);
                continue;
            }
            '/' if next == Some('*') => {
                at = find(&chars, at + 2, "*/").map_or(chars.len(), |i| i + 2);
                current.push(' ');
                continue;
            }
            '\\' if current.trim().is_empty() => {
                // A psql backslash command: to the end of its line.
                let end = line_end(&chars, at);
                out.push(chars[at..end].iter().collect());
                at = end;
                continue;
            }
            ';' => out.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
        at += 1;
    }
    out.push(current);
    out.retain(|s| !s.trim().is_empty());
    out
}

fn skip_quoted(chars: &[char], start: usize, quote: char, mysql: bool) -> usize {
    let mut at = start + 1;
    while at < chars.len() {
        if mysql && chars[at] == '\\' && quote != '`' {
            at += 2;
            continue;
        }
        if chars[at] == quote {
            if chars.get(at + 1) == Some(&quote) {
                at += 2;
                continue;
            }
            return at + 1;
        }
        at += 1;
    }
    chars.len()
}

/// The end (exclusive) of a dollar-quote opening tag at `at` (`$$`, `$body$`).
fn dollar_tag(chars: &[char], at: usize) -> Option<usize> {
    let mut end = at + 1;
    while end < chars.len() && (chars[end].is_ascii_alphanumeric() || chars[end] == '_') {
        end += 1;
    }
    (chars.get(end) == Some(&'$') && !chars.get(at + 1).is_some_and(char::is_ascii_digit))
        .then_some(end + 1)
}

fn find(chars: &[char], from: usize, needle: &str) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len()).find(|&i| chars[i..].starts_with(&needle))
}

fn line_end(chars: &[char], from: usize) -> usize {
    (from..chars.len())
        .find(|&i| chars[i] == '\n')
        .unwrap_or(chars.len())
}

/// The lower-cased words of a statement (names and keywords; quoted text is `''`).
fn words(statement: &str) -> Vec<String> {
    statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Parts of a function's name that say it may destroy (`dblink_exec`, `lo_unlink`,
/// `pg_drop_replication_slot`, a user's `cleanup()` or `purge_old()`).
const DESTROYING_CALLS: &[&str] = &[
    "drop", "delete", "truncate", "purge", "clean", "reset", "wipe", "remove", "destroy", "unlink",
    "exec", "erase", "flush",
];

/// The names of the functions a statement calls (`name(`), lower-cased.
fn calls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut name = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            name.push(c.to_ascii_lowercase());
            continue;
        }
        let mut next = Some(c);
        while next.is_some_and(char::is_whitespace) {
            next = chars.next();
        }
        if next == Some('(') && !name.is_empty() {
            out.push(std::mem::take(&mut name));
        }
        name.clear();
        if next.is_some_and(|n| n.is_alphanumeric() || n == '_') {
            name.push(next.unwrap_or(' ').to_ascii_lowercase());
        }
    }
    out
}

/// Judges one statement.
fn statement(text: &str) -> Sql {
    let trimmed = text.trim();
    if let Some(meta) = trimmed.strip_prefix('\\') {
        return backslash(meta);
    }
    let judged = keyword(trimmed);
    if matches!(judged, Sql::Reads | Sql::Changes)
        && calls(trimmed)
            .iter()
            .any(|f| DESTROYING_CALLS.iter().any(|part| f.contains(part)))
    {
        return Sql::Unseen("it calls a function that may destroy data");
    }
    judged
}

/// Judges one statement by its keywords.
fn keyword(trimmed: &str) -> Sql {
    let words = words(trimmed);
    let has = |w: &str| words.iter().any(|x| x == w);
    let Some(first) = words.first().map(String::as_str) else {
        return Sql::Reads;
    };
    let destroys = |database: Option<String>| Sql::Destroys {
        statement: shorten(trimmed),
        database,
    };
    match first {
        "drop" => {
            let database = match words.get(1).map(String::as_str) {
                Some("database" | "schema") => words
                    .iter()
                    .skip(2)
                    .find(|w| !matches!(w.as_str(), "if" | "exists"))
                    .cloned(),
                _ => None,
            };
            destroys(database)
        }
        "truncate" | "purge" => destroys(None),
        // `INSERT OVERWRITE` (Snowflake, Hive) replaces a table's rows; ClickHouse's
        // `REPLACE TABLE` replaces the table; `MERGE … DELETE` deletes the rows it matches.
        "insert" if has("overwrite") => destroys(None),
        "replace" if has("table") => destroys(None),
        "merge" if has("delete") => destroys(None),
        // ClickHouse: `ALTER TABLE t CLEAR COLUMN|INDEX`, `REPLACE PARTITION`.
        "alter" if has("clear") || (has("replace") && has("partition")) => destroys(None),
        "delete" | "update" if !has_real_where(&words) => destroys(None),
        "alter" if has("drop") || has("truncate") || has("discard") => destroys(None),
        // ClickHouse's mutations (`ALTER TABLE t DELETE WHERE …`) delete rows too; a foreign
        // key's `ON DELETE` deletes nothing now.
        "alter"
            if words.windows(2).any(|w| {
                w[1].eq_ignore_ascii_case("delete") && !w[0].eq_ignore_ascii_case("on")
            }) =>
        {
            destroys(None)
        }
        // A type change `USING` an expression rewrites every value; the BLACKHOLE engine
        // discards every row.
        "alter" if has("using") || has("blackhole") => destroys(None),
        // `COPY … FROM|TO PROGRAM` runs a shell command on the server.
        "copy" if has("program") => Sql::Unseen("it runs a program on the database server"),
        // MariaDB's `CREATE OR REPLACE TABLE` drops the table it replaces.
        "create" if has("replace") && has("table") && !has("function") => destroys(None),
        // Code that runs later (when called, on an event): the guard does not read it.
        "create" | "alter"
            if ["function", "procedure", "trigger", "rule", "event"]
                .iter()
                .any(|w| has(w)) =>
        {
            Sql::Unseen("it defines code that runs later, which the guard does not read")
        }
        // `RESET MASTER` deletes MySQL's binary logs; PostgreSQL's `RESET x` sets a value.
        "reset" if has("master") || has("replica") || has("slave") => destroys(None),
        "with" | "explain" => {
            if has("delete") || has("update") || has("truncate") || has("drop") {
                let from = words
                    .iter()
                    .position(|w| matches!(w.as_str(), "delete" | "update" | "truncate" | "drop"))
                    .unwrap_or(0);
                statement(&words[from..].join(" "))
            } else if has("insert") || has("merge") {
                Sql::Changes
            } else {
                Sql::Reads
            }
        }
        "select" | "show" | "values" | "table" | "begin" | "start" | "commit" | "end"
        | "rollback" | "savepoint" | "release" | "set" | "reset" | "describe" | "desc" | "use"
        | "help" | "listen" | "unlisten" | "notify" | "fetch" | "declare" | "close" | "move"
        | "discard" | "checkpoint" | "analyze" | "analyse" | "vacuum" | "pragma" | "checksum"
        | "optimize" | "deallocate" | "exists" | "list" | "ls" | "get" | "summarize" => Sql::Reads,
        "delete" | "update" | "insert" | "create" | "grant" | "revoke" | "comment" | "copy"
        | "refresh" | "lock" | "unlock" | "cluster" | "reindex" | "alter" | "rename"
        | "replace" | "load" | "merge" | "flush" | "import" | "security" | "attach" | "detach"
        | "upsert" | "handler" | "xa" | "prepare" | "kill" | "install" | "uninstall" => {
            Sql::Changes
        }
        "call" | "do" | "execute" | "exec" => {
            Sql::Unseen("it runs a procedure whose statements the guard does not read")
        }
        "source" => Sql::Unseen("it runs the statements of a file the guard does not read"),
        _ => Sql::Unseen("a statement the guard does not know"),
    }
}

/// Whether the statement's `WHERE` picks rows (`WHERE true`, `WHERE 1=1` pick them all).
fn has_real_where(words: &[String]) -> bool {
    let Some(at) = words.iter().position(|w| w == "where") else {
        return false;
    };
    let rest: Vec<&str> = words[at + 1..]
        .iter()
        .map(String::as_str)
        .take_while(|w| !matches!(*w, "limit" | "order" | "returning"))
        .collect();
    !matches!(
        rest.as_slice(),
        ["true" | "1"] | ["1", "1"] | [] | ["not", "false"]
    )
}

/// A psql backslash command (`\dt`, `\i file`, `\! cmd`).
fn backslash(meta: &str) -> Sql {
    let command: String = meta
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match command.as_str() {
        "i" | "ir" | "include" | "include_relative" => {
            Sql::Unseen("it runs the statements of a file the guard does not read")
        }
        "!" => Sql::Unseen("it runs a shell command"),
        "." => Sql::Unseen("it runs the statements of a file the guard does not read"),
        "copy" if meta.to_ascii_lowercase().contains(" from ") => Sql::Changes,
        "g" | "gx" | "gexec" | "gset" | "o" | "out" | "w" | "write" => {
            Sql::Unseen("it runs or writes what the guard does not read")
        }
        _ => Sql::Reads,
    }
}

fn shorten(statement: &str) -> String {
    let flat: String = statement.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 80 {
        let cut: String = flat.chars().take(77).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn destroys(sql: &str) -> bool {
        matches!(judge(sql), Sql::Destroys { .. })
    }

    #[test]
    fn statements_are_judged_by_what_they_do_to_data() {
        for sql in [
            "DROP TABLE users",
            "drop table if exists users cascade;",
            "TRUNCATE orders",
            "DELETE FROM users",
            "delete from users where true",
            "DELETE FROM users WHERE 1=1",
            "UPDATE users SET admin = true",
            "ALTER TABLE users DROP COLUMN email",
            "select 1; DROP SCHEMA public CASCADE",
            "WITH gone AS (DELETE FROM t RETURNING *) SELECT count(*) FROM gone",
            "EXPLAIN ANALYZE DELETE FROM t",
            "RESET MASTER",
            "/* cleanup */ DROP DATABASE app",
            "select 'a\\'; drop table users; -- '",
            "/*!40101 DROP TABLE users */",
            "select 1 --x\n; drop table users",
            "DELETE FROM users WHERE 1=1 LIMIT 10",
            "create or replace table users (id int)",
            "alter table users truncate partition p0",
            "alter table users alter column name type int using 0",
            "alter table t engine=blackhole",
        ] {
            assert!(destroys(sql), "{sql}");
        }
        for sql in [
            "SELECT count(*) FROM users",
            "select 'DROP TABLE x'",
            "select $$DROP TABLE x$$",
            "-- DROP TABLE x\nselect 1",
            "SHOW TABLES",
            "\\dt",
            "BEGIN; SELECT 1; COMMIT;",
            "EXPLAIN SELECT * FROM t",
        ] {
            assert_eq!(judge(sql), Sql::Reads, "{sql}");
        }
        for sql in [
            "INSERT INTO t VALUES (1)",
            "DELETE FROM users WHERE id = 5",
            "UPDATE users SET name = 'x' WHERE id = 5",
            "CREATE TABLE t (id int)",
            "ALTER TABLE t ADD COLUMN c int",
        ] {
            assert_eq!(judge(sql), Sql::Changes, "{sql}");
        }
        for sql in [
            "CALL cleanup()",
            "DO $$ BEGIN END $$",
            "\\i drop.sql",
            "frobnicate",
            "select dblink_exec($$drop table users$$)",
            "select cleanup()",
            "copy users from program 'rm -rf /'",
            "create or replace function f() returns void as $$ drop table x $$ language sql",
        ] {
            assert!(matches!(judge(sql), Sql::Unseen(_)), "{sql}");
        }
    }

    #[test]
    fn client_commands_that_write_files_are_found() {
        assert!(writes_files("\\o out.txt"));
        assert!(writes_files("select 1; tee out.log"));
        assert!(!writes_files("select * from committee"));
        assert!(!writes_files("select 'a\\b'"));
    }

    #[test]
    fn a_dropped_database_is_named() {
        assert_eq!(
            judge("DROP DATABASE IF EXISTS app"),
            Sql::Destroys {
                statement: "DROP DATABASE IF EXISTS app".to_owned(),
                database: Some("app".to_owned()),
            }
        );
    }
}

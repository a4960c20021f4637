//! Programs that tear down what lives outside the workspace: infrastructure tools
//! (`terraform destroy`), cluster clients (`kubectl delete`), container engines' volumes
//! (`docker volume rm`), cloud and hosting CLIs (`aws s3 rm`, `gcloud … delete`,
//! `gh repo delete`), key-value stores (`redis-cli FLUSHALL`), and the database resets of
//! migration tools and frameworks (`prisma migrate reset`, `rails db:drop`, `manage.py
//! flush`). The rule for the CLIs is their verb, not a list of commands: a command word
//! that deletes, removes, destroys, terminates or purges.

use agent_guard_types::Place;

use super::Input;

/// Whether what a program reads on its input may destroy: a stream the guard does not read,
/// or text that names one of `words`.
fn fed(input: &Input, words: &[&str]) -> bool {
    match input {
        Input::Nothing => false,
        Input::Unseen => true,
        Input::Text(text) => {
            let text = text.to_ascii_lowercase();
            words.iter().any(|w| text.contains(w))
        }
    }
}

/// What one of these commands destroys: where, and in words for the question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Teardown {
    /// Where it lives.
    pub place: Place,
    /// What is destroyed.
    pub what: String,
}

/// Cloud, hosting and storage CLIs judged by their verbs.
const CLOUD: &[&str] = &[
    "aws",
    "gcloud",
    "gsutil",
    "az",
    "doctl",
    "hcloud",
    "linode-cli",
    "scw",
    "oci",
    "ibmcloud",
    "exo",
    "vultr-cli",
    "civo",
    "fly",
    "flyctl",
    "vercel",
    "netlify",
    "firebase",
    "wrangler",
    "heroku",
    "s3cmd",
    "mc",
    "rclone",
    "railway",
    "render",
    "neonctl",
    "pscale",
    "turso",
    "supabase",
    "cdk",
    "serverless",
    "sls",
    "sam",
    "copilot",
    "eksctl",
    "gh",
    "glab",
    "kubectl",
    "oc",
    "kubecolor",
    "helm",
    "pulumi",
    "terraform",
    "tofu",
    "terragrunt",
];

/// Command words that destroy.
const VERBS: &[&str] = &[
    "delete",
    "rm",
    "remove",
    "destroy",
    "terminate",
    "purge",
    "uninstall",
    "del",
    "rb",
    "prune",
    "wipe",
    "deletefile",
    "rmdir",
    "rmdirs",
    "drain",
];

/// Prefixes of command words that destroy (`aws ec2 terminate-instances`).
const VERB_PREFIXES: &[&str] = &[
    "delete-",
    "terminate-",
    "remove-",
    "deregister-",
    "purge-",
    "destroy-",
    "delete_",
];

/// `NOUN:VERB` command words that destroy (`heroku apps:destroy`, `pg:reset`).
const VERB_SUFFIXES: &[&str] = &[
    ":destroy", ":delete", ":remove", ":reset", ":drop", ":wipe", ":purge", ":rm",
];

/// An HTTP client sending a `DELETE` (`curl -X DELETE URL`, `wget --method=DELETE`, `http
/// DELETE URL`, `Invoke-RestMethod -Method Delete`): it deletes what the URL names.
fn http_delete(name: &str, words: &[Option<&str>]) -> Option<Teardown> {
    let delete = |w: &str| w.eq_ignore_ascii_case("delete");
    let known: Vec<&str> = words.iter().flatten().copied().collect();
    let hit = known.iter().enumerate().any(|(i, w)| {
        let next = known.get(i + 1).copied().unwrap_or("");
        match *w {
            "-X" | "--request" | "--method" | "-Method" | "-method" => delete(next),
            _ => {
                w.strip_prefix("-X").is_some_and(delete)
                    || w.strip_prefix("--request=").is_some_and(delete)
                    || w.strip_prefix("--method=").is_some_and(delete)
                    || (matches!(name, "http" | "https" | "xh" | "xhs") && i == 0 && delete(w))
            }
        }
    });
    hit.then(|| Teardown {
        place: Place::Service,
        what: format!("what the `{name}` DELETE request removes"),
    })
}

/// The value after one of `options` (PowerShell parameters are case-insensitive).
fn value_of<'a>(words: &[Option<&'a str>], options: &[&str]) -> Option<&'a str> {
    let at = words
        .iter()
        .position(|w| w.is_some_and(|w| options.iter().any(|o| w.eq_ignore_ascii_case(o))))?;
    words.get(at + 1).copied().flatten()
}

/// Nouns of the cloud modules for PowerShell (Az, AWS Tools, Google Cloud, Microsoft
/// Graph), as prefixes of the noun after `Remove-`.
const CLOUD_NOUNS: &[&str] = &[
    "az", "azurerm", "azure", "s3", "ec2", "rds", "ddb", "iam", "cfn", "lm", "ecr", "ecs", "eks",
    "sqs", "sns", "kms", "r53", "elb", "cw", "efs", "gcs", "gce", "gcd", "gcsql", "gke", "mg",
];

/// A cmdlet that removes cloud resources (`Remove-AzResourceGroup`, `Remove-S3Bucket`,
/// `Remove-EC2Instance`, `Remove-GcsBucket`, `Remove-MgUser`).
fn cloud_cmdlet(name: &str) -> bool {
    name.strip_prefix("remove-")
        .is_some_and(|noun| CLOUD_NOUNS.iter().any(|p| noun.starts_with(p)) && noun.len() > 3)
}

/// Whether [`parse`] may find a teardown for program `name` (a cheap test before the words
/// are looked at: `check` runs on every command).
pub(crate) fn concerns(name: &str) -> bool {
    CLOUD.contains(&name)
        || cloud_cmdlet(name)
        || matches!(
            name,
            "curl"
                | "wget"
                | "http"
                | "https"
                | "xh"
                | "xhs"
                | "invoke-restmethod"
                | "irm"
                | "invoke-webrequest"
                | "iwr"
                | "invoke-sqlcmd"
        )
        || RESETS
            .iter()
            .any(|(program, _)| *program == reset_program(name))
        || matches!(
            name,
            "docker"
                | "podman"
                | "nerdctl"
                | "docker-compose"
                | "podman-compose"
                | "redis-cli"
                | "valkey-cli"
                | "keydb-cli"
                | "mongosh"
                | "mongo"
                | "mongorestore"
                | "mongoimport"
                | "rake"
                | "manage.py"
                | "supabase"
                | "django-admin"
                | "artisan"
        )
}

/// Whether `word` is a `NOUN:VERB` command word that destroys (`heroku apps:destroy`).
fn suffixed(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    VERB_SUFFIXES.iter().any(|s| word.ends_with(s))
}

/// Whether `word` is a destroying command word.
fn is_verb(word: &str) -> bool {
    let word = word.to_ascii_lowercase();
    VERBS.contains(&word.as_str())
        || VERB_PREFIXES.iter().any(|p| word.starts_with(p))
        || VERB_SUFFIXES.iter().any(|s| word.ends_with(s))
}

/// The command words of a line: its known words that are not options.
/// Short options that take the next word as their value in most of these CLIs
/// (`kubectl -n prod`, `heroku -a app`, `docker compose -f x.yml`, `az … -n name`).
const SHORT_VALUED: &[&str] = &[
    "-n", "-a", "-f", "-p", "-c", "-l", "-H", "-o", "-r", "-g", "-s",
];

/// The command words of a line: its known words that are neither options nor, as far as
/// the guard can tell, option values. A word after a `--long` option without `=` is taken
/// as its value (`--label remove`, `--function-name delete-user`): in these CLIs nearly
/// every long option takes one, and a verb never follows an option.
fn commands<'a>(words: &[Option<&'a str>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut value_next = false;
    for word in words.iter().flatten().copied() {
        if std::mem::take(&mut value_next) {
            continue;
        }
        if word.starts_with("--") {
            value_next = !word.contains('=') && word != "--" && !FLAGS.contains(&word);
            continue;
        }
        if word.starts_with('-') {
            value_next = SHORT_VALUED.contains(&word);
            continue;
        }
        if !word.starts_with('/') {
            out.push(word);
        }
    }
    out
}

/// Long options of these CLIs that take no value, so the word after them may be a verb.
const FLAGS: &[&str] = &[
    "--recursive",
    "--force",
    "--yes",
    "--quiet",
    "--all",
    "--debug",
    "--verbose",
    "--volumes",
    "--purge",
    "--wait",
    "--no-prompt",
    "--confirm",
    "--auto-approve",
];

/// Whether `group` of CLI `name` acts on this machine's own configuration, not on what the
/// CLI manages remotely (`gh extension remove`, `helm repo remove`, `gcloud config
/// configurations delete`, `kubectl config delete-context`).
fn local_group(name: &str, group: &str) -> bool {
    let groups: &[&str] = match name {
        "gh" | "glab" => &[
            "extension",
            "alias",
            "config",
            "auth",
            "completion",
            "cache",
        ],
        "helm" => &["plugin", "repo", "completion"],
        "gcloud" => &["config", "components", "auth"],
        "az" => &["extension", "config", "account", "cache"],
        "kubectl" | "oc" => &["config"],
        "aws" => &["configure"],
        "heroku" => &["plugins", "auth"],
        "doctl" | "fly" | "flyctl" | "hcloud" => &["auth", "context"],
        _ => &[],
    };
    groups.contains(&group)
}

/// Whether a short option letter is given, alone or in a cluster (`-fv`).
fn has_letter(words: &[Option<&str>], letter: char) -> bool {
    words.iter().flatten().any(|w| {
        w.strip_prefix('-').is_some_and(|r| {
            !r.starts_with('-') && r.contains(letter) && r.chars().all(|c| c.is_ascii_alphabetic())
        })
    })
}

fn has(words: &[Option<&str>], options: &[&str]) -> bool {
    words.iter().flatten().any(|w| {
        options
            .iter()
            .any(|o| *w == *o || w.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
    })
}

/// Only shows what it would do, or prints help.
fn shows_only(words: &[Option<&str>]) -> bool {
    let cmds = commands(words);
    cmds.first() == Some(&"help")
        || cmds.last() == Some(&"help")
        || words.iter().flatten().any(|w| {
            matches!(
                *w,
                "--help" | "-help" | "--dryrun" | "--dry-run" | "-dry-run" | "--version"
            ) || w
                .strip_prefix("--dry-run=")
                .is_some_and(|mode| !mode.eq_ignore_ascii_case("none"))
        })
}

/// What `name` run with `words` tears down outside the workspace; `None` when nothing.
pub(crate) fn parse(name: &str, words: &[Option<&str>], input: &Input) -> Option<Teardown> {
    if shows_only(words) {
        return None;
    }
    if let Some(found) = resets(name, words) {
        return Some(found);
    }
    let cmds = commands(words);
    match name {
        "terraform" | "tofu" | "terragrunt" => terraform(name, words, &cmds),
        "pulumi" => pulumi(name, words, &cmds),
        "kubectl" | "oc" | "kubecolor" if cmds.first() != Some(&"config") => cmds
            .iter()
            .take(3)
            .copied()
            .find(|c| {
                matches!(*c, "delete" | "drain")
                    || (*c == "replace" && has(words, &["--force"]))
                    || (*c == "apply" && has(words, &["--prune", "--force"]))
            })
            .map(|sub| Teardown {
                place: Place::Cluster,
                what: format!("the cluster objects `{name} {sub}` removes"),
            }),
        "helm" if !cmds.first().is_some_and(|c| local_group(name, c)) => cmds
            .iter()
            .take(3)
            .any(|c| matches!(*c, "uninstall" | "delete" | "del" | "un"))
            .then(|| Teardown {
                place: Place::Cluster,
                what: format!(
                    "the release {} removes, with its resources",
                    spelled(name, &cmds)
                ),
            }),
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" => {
            containers(name, words, &cmds)
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" => redis(words, input),
        "mongosh" | "mongo" | "mongorestore" | "mongoimport" => mongo(name, words, input),
        "curl" | "wget" | "http" | "https" | "xh" | "xhs" | "invoke-restmethod" | "irm"
        | "invoke-webrequest" | "iwr" => http_delete(name, words),
        "invoke-sqlcmd" => {
            let query = value_of(words, &["-query", "-q"])?;
            super::sql::judge(query)
                .destroys_or_unseen()
                .then(|| Teardown {
                    place: Place::Database,
                    what: "data in the SQL Server database `Invoke-Sqlcmd` reaches".into(),
                })
        }
        _ if cloud_cmdlet(name) => Some(Teardown {
            place: Place::Cloud,
            what: format!("what the cmdlet `{name}` removes in the cloud"),
        }),
        _ if CLOUD.contains(&name) && !cmds.first().is_some_and(|c| local_group(name, c)) => {
            cloud(name, words, &cmds)
        }
        _ => None,
    }
}

/// `` `name first words` ``, for the question.
fn spelled(name: &str, cmds: &[&str]) -> String {
    format!(
        "`{name} {}`",
        cmds.iter().take(4).copied().collect::<Vec<_>>().join(" ")
    )
}

/// `terraform`, `tofu` and `terragrunt` (`run-all` runs the same command in every module).
fn terraform(name: &str, words: &[Option<&str>], cmds: &[&str]) -> Option<Teardown> {
    let cmds: Vec<&str> = cmds
        .iter()
        .copied()
        .filter(|c| !matches!(*c, "run-all" | "run"))
        .collect();
    let first = cmds.first().copied().unwrap_or("");
    let what = match first {
        "destroy" => "every resource this configuration manages".to_owned(),
        "apply" if has(words, &["-destroy", "--destroy"]) => {
            "every resource this configuration manages".to_owned()
        }
        // Approved by `-auto-approve`, a saved plan, `TF_CLI_ARGS`, or a `yes` on its
        // input: an apply may replace or destroy, and the guard cannot tell which.
        "apply" => "whatever the apply replaces or destroys".to_owned(),
        "state" | "workspace" if cmds.get(1).is_some_and(|c| matches!(*c, "rm" | "delete")) => {
            format!(
                "what {} drops from the infrastructure state",
                spelled(name, &cmds)
            )
        }
        _ => return None,
    };
    Some(Teardown {
        place: Place::Cloud,
        what,
    })
}

/// `pulumi destroy|down`, an update applied without review, `stack rm`, `state delete`.
fn pulumi(name: &str, words: &[Option<&str>], cmds: &[&str]) -> Option<Teardown> {
    let what = match cmds.first().copied().unwrap_or("") {
        "destroy" | "down" => "every resource of the stack".to_owned(),
        "up" | "update" if has(words, &["-y", "--yes", "-f", "--skip-preview"]) => {
            "whatever the update replaces or deletes, applied without review".to_owned()
        }
        _ if cmds.iter().take(2).any(|c| matches!(*c, "rm" | "delete")) => {
            format!("what {} deletes", spelled(name, cmds))
        }
        _ => return None,
    };
    Some(Teardown {
        place: Place::Cloud,
        what,
    })
}

/// The cloud, hosting and storage CLIs, by their verbs; a sync that deletes what its
/// source lacks, or a move, removes too.
fn cloud(name: &str, words: &[Option<&str>], cmds: &[&str]) -> Option<Teardown> {
    let syncs = cmds
        .iter()
        .take(3)
        .any(|c| matches!(*c, "sync" | "mv" | "move" | "bisync" | "rsync"));
    let deletes_extra = name == "rclone"
        || has(
            words,
            &[
                "--delete",
                "-d",
                "--delete-removed",
                "--delete-unmatched-destination-objects",
            ],
        )
        || cmds.iter().take(3).any(|c| matches!(*c, "mv" | "move"));
    // `aws SERVICE OPERATION`: only the operation is a verb (`delete-bucket`,
    // `batch-delete-image`, `schedule-key-deletion`); elsewhere a whole verb word among the
    // first command words.
    let verb = if name == "aws" {
        cmds.get(1).is_some_and(|op| {
            is_verb(op)
                || op
                    .split('-')
                    .any(|part| matches!(part, "delete" | "deletion" | "terminate" | "purge"))
                || *op == "close-account"
        })
    } else {
        cmds.iter()
            .take(4)
            .any(|c| VERBS.contains(&c.to_ascii_lowercase().as_str()) || suffixed(c))
            || (name == "az" && cmds.iter().take(4).any(|c| c.starts_with("delete-")))
            || (name == "gcloud" && cmds.iter().take(4).any(|c| *c == "bulk-delete"))
    };
    if !(verb || (syncs && deletes_extra)) {
        return None;
    }
    let place = if matches!(name, "gh" | "glab") {
        Place::Service
    } else {
        Place::Cloud
    };
    Some(Teardown {
        place,
        what: format!("what {} deletes outside this machine", spelled(name, cmds)),
    })
}

/// `redis-cli`: `FLUSHALL`/`FLUSHDB` anywhere (also in a script it evaluates), or commands
/// from its input, which the guard does not read.
fn redis(words: &[Option<&str>], input: &Input) -> Option<Teardown> {
    const VALUED: &[&str] = &[
        "-h", "-p", "-a", "-n", "-u", "-s", "-r", "-i", "-d", "--user", "--pass",
    ];
    let flushes = words.iter().flatten().any(|w| {
        let w = w.to_ascii_lowercase();
        w.contains("flushall") || w.contains("flushdb")
    });
    let mut value_next = false;
    let command = words.iter().any(|w| {
        let Some(w) = w else { return true };
        if std::mem::take(&mut value_next) {
            return false;
        }
        if w.starts_with('-') {
            value_next = VALUED.contains(w);
            return false;
        }
        true
    });
    let from_input = !command && fed(input, &["flushall", "flushdb"]);
    (flushes || from_input).then(|| Teardown {
        place: Place::Service,
        what: if flushes {
            "every key of the Redis database".into()
        } else {
            "what the Redis commands it reads from its input delete".into()
        },
    })
}

/// MongoDB's shell and tools: a script that drops or deletes, a script the guard does not
/// read (a file, its input), and `--drop` imports and restores.
fn mongo(name: &str, words: &[Option<&str>], input: &Input) -> Option<Teardown> {
    let code: String = words
        .iter()
        .flatten()
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let eval = has(words, &["--eval"]);
    let destroys = ["drop", "delete", "remove(", "\"remove\"", "Delete", "Drop"]
        .iter()
        .any(|m| code.contains(m));
    let hit = match name {
        "mongorestore" | "mongoimport" => has(words, &["--drop"]),
        // No `--eval`: a script file, or its input.
        _ => {
            let file = commands(words).iter().any(|w| {
                std::path::Path::new(w)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("js"))
            });
            destroys || file || (!eval && fed(input, &["drop", "delete", "remove"]))
        }
    };
    hit.then(|| Teardown {
        place: Place::Database,
        what: "the MongoDB data the command drops or deletes".into(),
    })
}

/// Container engines: what removes volumes (or prunes everything unused).
fn containers(name: &str, words: &[Option<&str>], cmds: &[&str]) -> Option<Teardown> {
    let volumes = has(words, &["--volumes"]) || has_letter(words, 'v');
    let first = cmds.first().copied().unwrap_or("");
    let second = cmds.get(1).copied().unwrap_or("");
    let compose = name.ends_with("-compose") || first == "compose";
    let verb = if compose && first == "compose" {
        second
    } else {
        first
    };
    let what = match (first, second) {
        ("volume", "rm" | "remove" | "prune") => "container volumes and the data in them",
        ("system", "reset") => "every container, image and volume of the engine",
        ("system", "prune") => {
            "every stopped container, unused network and image, and with \
                               `--volumes` the volumes"
        }
        _ if compose && matches!(verb, "down" | "rm") && volumes => {
            "the project's containers and their volumes"
        }
        ("rm" | "container", _) if volumes && cmds.iter().take(2).any(|c| *c == "rm") => {
            "the containers and their anonymous volumes"
        }
        _ => return None,
    };
    Some(Teardown {
        place: Place::Containers,
        what: what.to_owned(),
    })
}

/// Migration tools and frameworks that reset, drop or roll back the database they are
/// configured for: `(program, command words that do it)`. A word ending in `*` is a prefix.
const RESETS: &[(&str, &[&str])] = &[
    ("prisma", &["reset", "--force-reset", "--accept-data-loss"]),
    ("drizzle-kit", &["drop"]),
    ("alembic", &["downgrade"]),
    ("flask", &["downgrade"]),
    (
        "rails",
        &[
            "db:drop*",
            "db:reset",
            "db:schema:load",
            "db:structure:load",
            "db:rollback",
            "db:migrate:reset",
            "db:migrate:redo",
            "db:migrate:down",
            "db:truncate_all",
            "db:purge",
            "db:seed:replant",
            "db:setup",
        ],
    ),
    ("manage.py", &["flush", "reset_db"]),
    ("django-admin", &["flush", "reset_db"]),
    ("knex", &["migrate:rollback", "migrate:down"]),
    (
        "sequelize",
        &["db:drop", "db:migrate:undo*", "db:seed:undo*"],
    ),
    (
        "typeorm",
        &["schema:drop", "migration:revert", "schema:sync"],
    ),
    ("mix", &["ecto.drop", "ecto.reset", "ecto.rollback"]),
    (
        "artisan",
        &[
            "migrate:fresh",
            "migrate:reset",
            "migrate:refresh",
            "migrate:rollback",
            "db:wipe",
        ],
    ),
    (
        "ace",
        &[
            "migration:fresh",
            "migration:reset",
            "migration:refresh",
            "migration:rollback",
            "db:wipe",
        ],
    ),
    ("dbmate", &["drop", "down", "rollback"]),
    ("goose", &["down", "reset", "down-to"]),
    ("migrate", &["drop", "down"]),
    ("flyway", &["clean", "undo"]),
    ("liquibase", &["drop-all", "dropall", "rollback*"]),
    ("diesel", &["reset", "revert", "redo"]),
    ("sqlx", &["drop", "reset", "revert"]),
    ("atlas", &["clean"]),
];

/// The program a reset table row is known by: `rake` is `rails`, `sequelize-cli` is
/// `sequelize`, `typeorm-ts-node-esm` is `typeorm`.
fn reset_program(name: &str) -> &str {
    match name {
        "rake" => "rails",
        "sequelize-cli" => "sequelize",
        _ if name.starts_with("typeorm") => "typeorm",
        _ => name,
    }
}

/// A framework's database reset (`supabase db reset`, `drizzle-kit push --force`, and the
/// table): the database its configuration names.
fn resets(name: &str, words: &[Option<&str>]) -> Option<Teardown> {
    let cmds = commands(words);
    // An interpreter running the framework's script: `python manage.py flush`,
    // `php artisan migrate:fresh`, `ruby bin/rails db:drop`, `node ace db:wipe`.
    let (program, cmds) = match cmds.split_first() {
        Some((script, rest)) if crate::inline_code::interpreter(name).is_some() => (
            crate::args::basename(script).to_ascii_lowercase(),
            rest.to_vec(),
        ),
        _ => (name.to_owned(), cmds),
    };
    let program = reset_program(&program);
    let all: Vec<&str> = cmds
        .iter()
        .copied()
        .chain(
            words
                .iter()
                .flatten()
                .copied()
                .filter(|w| w.starts_with("--"))
                .map(|w| w.split('=').next().unwrap_or(w)),
        )
        .collect();
    let special = match program {
        "supabase" => cmds.starts_with(&["db", "reset"]),
        // Statements from a file or its input, which the guard does not read.
        "prisma" => cmds.starts_with(&["db", "execute"]),
        "rails" => {
            cmds.contains(&"db:migrate") && words.iter().flatten().any(|w| *w == "VERSION=0")
        }
        "drizzle-kit" => cmds.first() == Some(&"push") && has(words, &["--force"]),
        "manage.py" | "django-admin" => {
            cmds.first() == Some(&"migrate") && cmds.last() == Some(&"zero")
        }
        _ => false,
    };
    let table: &[&str] = RESETS
        .iter()
        .find(|(p, _)| *p == program)
        .map_or(&[], |(_, table)| table);
    let hit = special
        || all.iter().any(|w| {
            let w = w.to_ascii_lowercase();
            table.iter().any(|t| match t.strip_suffix('*') {
                Some(prefix) => w.starts_with(prefix),
                None => w == *t,
            })
        });
    hit.then(|| Teardown {
        place: Place::Database,
        what: format!(
            "the database `{program}` is configured for (it resets, drops or rolls it back)"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torn(line: &str) -> Option<Place> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let rest: Vec<Option<&str>> = words[1..].iter().map(|w| Some(*w)).collect();
        parse(words[0], &rest, &Input::Unseen).map(|t| t.place)
    }

    #[test]
    fn teardowns_are_found_by_their_verbs() {
        for line in [
            "terraform destroy -auto-approve",
            "terraform -chdir=infra apply -auto-approve",
            "tofu apply -destroy",
            "terragrunt run-all destroy",
            "pulumi destroy --yes",
            "aws s3 rm s3://bucket --recursive",
            "aws s3 rb s3://bucket --force",
            "aws ec2 terminate-instances --instance-ids i-1",
            "aws s3 sync . s3://b --delete",
            "gcloud compute instances delete vm1",
            "gsutil rm -r gs://b",
            "az group delete -n rg --yes",
            "heroku apps:destroy --app x --confirm x",
            "rclone sync src remote:dst",
        ] {
            assert_eq!(torn(line), Some(Place::Cloud), "{line}");
        }
        for line in [
            "kubectl delete ns prod",
            "kubectl -n prod delete pod x",
            "helm uninstall web",
        ] {
            assert_eq!(torn(line), Some(Place::Cluster), "{line}");
        }
        for line in [
            "docker volume rm data",
            "docker system prune -af --volumes",
            "docker compose down -v",
            "docker-compose down --volumes",
            "podman rm -v web",
            "podman rm -fv web",
        ] {
            assert_eq!(torn(line), Some(Place::Containers), "{line}");
        }
        for line in [
            "prisma migrate reset --force",
            "prisma db push --accept-data-loss",
            "rails db:drop",
            "rake db:reset",
            "python manage.py flush --noinput",
            "python3 manage.py migrate shop zero",
            "php artisan migrate:fresh --seed",
            "supabase db reset",
            "alembic downgrade base",
            "sequelize db:migrate:undo:all",
            "mix ecto.reset",
            "drizzle-kit push --force",
            "mongosh app --eval db.dropDatabase()",
        ] {
            assert_eq!(torn(line), Some(Place::Database), "{line}");
        }
        assert_eq!(torn("redis-cli FLUSHALL"), Some(Place::Service));
        assert_eq!(torn("gh repo delete me/x --yes"), Some(Place::Service));
        for line in [
            "terraform plan -destroy",
            "kubectl get pods",
            "kubectl delete pod x --dry-run=client",
            "aws s3 ls s3://bucket/delete/",
            "aws s3 cp a s3://b/a",
            "docker rm web",
            "docker compose down",
            "docker volume ls",
            "prisma migrate dev",
            "rails db:migrate",
            "python manage.py migrate",
            "gh pr list",
            "redis-cli GET k",
            "helm install web ./chart",
        ] {
            assert_eq!(torn(line), None, "{line}");
        }
    }

    /// Verbs are read where a verb stands: not in option values or resource names, not in
    /// the CLIs' groups for this machine's own configuration.
    #[test]
    fn verbs_are_read_where_they_stand() {
        assert_eq!(torn("terraform apply"), Some(Place::Cloud));
        for line in [
            "gcloud run deploy remove-svc --image x",
            "gcloud projects describe delete-me",
            "gh pr list --label remove",
            "aws lambda invoke --function-name delete-user out.json",
            "heroku logs -a destroy-app",
            "kubectl config delete-context old",
            "helm repo remove stable",
            "gh extension remove x",
            "terraform destroy -help",
            "aws ec2 terminate-instances help",
            "redis-cli -h localhost ping",
        ] {
            assert_eq!(torn(line), None, "{line}");
        }
        for line in [
            "aws ecr batch-delete-image --repository-name r",
            "aws kms schedule-key-deletion --key-id k",
            "docker compose -f x.yml down -v",
            "docker --context prod volume rm v",
            "podman system reset",
            "kubectl apply --force -f x.yaml",
            "terragrunt run --all destroy",
            "redis-cli",
            "mongosh app script.js",
            "mongorestore --drop dump/",
        ] {
            assert!(torn(line).is_some(), "{line}");
        }
    }
}

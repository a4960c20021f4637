//! Programs known to change nothing in the workspace, and the opaque rest.
//!
//! A command the classifier has no rule for used to be a silent no-op: `make clean`,
//! `python tools/cleanup.py` and `./scripts/migrate.sh` destroy whatever they like, and the
//! guard could not tell. Now only the programs of the read-only table
//! (`data/read_only.toml`, [`crate::read_only`]) stay on the free no-op path (no writes, no
//! checkpoint), in the forms it allows; every other program the guard does not model is an
//! [`OpKind::OpaqueProgram`](agent_guard_types::OpKind::OpaqueProgram), which the policy
//! checkpoints (issue 14). The table is of programs that read, print or only create: a
//! program that can rewrite files in place (`sed -i`, `sort -o`) is a no-op only without
//! those options.

use agent_guard_types::{Dialect, OpSpec};

use crate::args::Arg;
use crate::read_only;

/// Programs for which `-v` alone prints the version (for others it means verbose).
const DASH_V_IS_VERSION: &[&str] = &[
    "node", "nodejs", "npm", "npx", "pnpm", "yarn", "bun", "deno",
];

/// Returns `true` for a query that only prints: a query subcommand of the read-only table
/// (`npm ls`, `systemctl status`), or `-v` of a program that answers it with its version.
pub(crate) fn only_queries(program: &str, args: &[Arg]) -> bool {
    if only_asks(args) {
        return true;
    }
    let texts: Option<Vec<&str>> = args.iter().map(Arg::known).collect();
    let Some(texts) = texts else {
        return false;
    };
    match texts.as_slice() {
        ["-v"] => DASH_V_IS_VERSION.contains(&program),
        // `go env -w` / `-u` (any number of dashes) write the user's go.env.
        ["env", rest @ ..]
            if program == "go"
                && rest.iter().any(|t| {
                    let option = t.trim_start_matches('-');
                    t.starts_with('-') && (option.starts_with('w') || option.starts_with('u'))
                }) =>
        {
            false
        }
        // `check --enforce` (and a harness's hook, which enforces) carries out the
        // compensation: a relocation takes the targets out of the workspace, into whatever
        // store the environment names (`AGENT_GUARD_TRASH=…`).
        ["check", rest @ ..]
            if program == "agent-guard"
                && rest
                    .iter()
                    .any(|t| t.starts_with("--enforce") || t.starts_with("--harness")) =>
        {
            false
        }
        _ => read_only::has_commands(program) && read_only::reads_only(program, args),
    }
}

/// Returns `true` if `program` (a normalised name) run with `args` is known to change
/// nothing in the workspace: a read-only form of the table (`data/read_only.toml`), or a
/// writer whose writes the rules model and found nothing in.
pub(crate) fn changes_nothing(program: &str, args: &[Arg]) -> bool {
    if read_only::has_commands(program) {
        return only_queries(program, args);
    }
    only_asks(args)
        || read_only::reads_only(program, args)
        || read_only::is_modelled(program)
        || crate::writes::is_device_tool(program)
}

/// `python3 --version`, `make --help`: every program answers these without running anything.
pub(crate) fn only_asks(args: &[Arg]) -> bool {
    matches!(args, [only] if only
        .known()
        .is_some_and(|t| matches!(t, "--version" | "--help" | "-V")))
}

/// The op of a program the guard does not model: its effects are only knowable by looking
/// afterwards, so the policy checkpoints the workspace before it runs.
pub(crate) fn opaque(program: &str, dialect: Dialect, why: &str) -> OpSpec {
    OpSpec::opaque_program(program, dialect, why)
}

/// The directories a build tool or task runner is told to run in (`make -C DIR`,
/// `npm --prefix DIR`, `yarn --cwd DIR`, `just -d DIR`, `gradle -p DIR`): an opaque
/// program's targets, which the policy refuses when they lead out of the workspace.
pub(crate) fn run_dirs(program: &str, args: &[Arg]) -> Vec<agent_guard_types::Target> {
    let (short, long): (&[&str], &[&str]) = match program {
        "make" | "gmake" | "bmake" => (&["-C"], &["--directory"]),
        "npm" | "pnpm" => (&["-C"], &["--prefix", "--dir"]),
        "yarn" | "bun" | "deno" => (&[], &["--cwd"]),
        "just" => (&["-d"], &["--working-directory", "--justfile"]),
        "gradle" | "gradlew" | "./gradlew" => (&["-p"], &["--project-dir"]),
        "mvn" | "./mvnw" => (&["-f"], &["--file"]),
        "cargo" => (&["-C"], &["--manifest-path"]),
        "task" | "go-task" => (&["-d"], &["--dir"]),
        "ninja" | "scons" | "go" | "meson" => (&["-C"], &[]),
        "cmake" => (&[], &["--build", "--install"]),
        "uv" | "poetry" | "pdm" => (&["-C"], &["--directory", "--project"]),
        _ => return Vec::new(),
    };
    let mut dirs = Vec::new();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        let Some(text) = arg.known() else { continue };
        if text == "--" {
            break;
        }
        if let Some((option, value)) = text.split_once('=')
            && long.contains(&option)
        {
            dirs.push(agent_guard_types::Target::literal(value));
        } else if short.contains(&text) || long.contains(&text) {
            if let Some(value) = args.get(at) {
                dirs.push(value.target());
            }
            at += 1;
        } else if let Some(value) = short.iter().find_map(|s| text.strip_prefix(s))
            && !value.is_empty()
            && !text.starts_with("--")
        {
            dirs.push(agent_guard_types::Target::literal(value));
        }
    }
    dirs
}

/// Returns `ops`, or the opaque-program op of `program` when the rules found nothing.
pub(crate) fn or_opaque(ops: Vec<OpSpec>, program: &str, why: &str) -> Vec<OpSpec> {
    if ops.is_empty() {
        vec![opaque(program, Dialect::Posix, why)]
    } else {
        ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn queries_print_only_when_given_first_and_literal() {
        for (program, words) in [
            ("npm", &["ls"][..]),
            ("npm", &["view", "react", "version"]),
            ("node", &["-v"]),
            ("pip", &["show", "requests"]),
            ("go", &["env", "GOPATH"]),
            ("dotnet", &["--info"]),
            ("pip", &["list", "--outdated", "--format=json"]),
            ("npm", &["ls", "--depth=0", "--json"]),
        ] {
            assert!(only_queries(program, &args(words)), "{program} {words:?}");
        }
        for (program, words) in [
            ("npm", &["install"][..]),
            ("npm", &["--prefix", "ls", "install"]),
            ("go", &["env", "-w", "GOFLAGS=x"]),
            ("go", &["env", "--w", "GOFLAGS=x"]),
            ("pip", &["show", "pip", "--log", ".git/config"]),
            ("pip", &["list", "--log=a.txt"]),
            ("npm", &["ls", "--logs-dir", ".git"]),
            ("npm", &["view", "x", "--cache", "./a"]),
            ("python", &["-v"]),
            ("cargo", &["tree"]),
            ("pip", &[]),
        ] {
            assert!(!only_queries(program, &args(words)), "{program} {words:?}");
        }
        let mut unknown = Arg::literal("ls");
        unknown.opaque = Some("a variable");
        assert!(!only_queries("npm", &[unknown]));
    }

    #[test]
    fn readers_change_nothing_and_in_place_editors_do() {
        assert!(changes_nothing("ls", &args(&["-la"])));
        assert!(changes_nothing("sed", &args(&["-n", "1p", "f"])));
        assert!(!changes_nothing("sed", &args(&["-i", "s/a/b/", "f"])));
        assert!(!changes_nothing("sort", &args(&["-o", "f", "f"])));
        assert!(!changes_nothing("uniq", &args(&["in", "out"])));
        assert!(!changes_nothing("make", &args(&["clean"])));
        assert!(changes_nothing("awk", &args(&["$2 > 5 {print}"])));
        assert!(!changes_nothing("awk", &args(&["{ system(\"rm x\") }"])));
    }
}

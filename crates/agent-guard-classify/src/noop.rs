//! Programs known to change nothing in the workspace, and the opaque rest.
//!
//! A command the classifier has no rule for used to be a silent no-op: `make clean`,
//! `python tools/cleanup.py` and `./scripts/migrate.sh` destroy whatever they like, and the
//! guard could not tell. Now only the programs listed here stay on the free no-op path (no
//! writes, no checkpoint); every other program the guard does not model is an
//! [`OpKind::OpaqueProgram`](agent_guard_types::OpKind::OpaqueProgram), which the policy
//! checkpoints (issue 14). The list is deliberately of programs that read, print or only
//! create: a program that can rewrite files in place (`sed -i`, `sort -o`) is a no-op only
//! without those options.

use agent_guard_types::{Dialect, OpSpec};

use crate::args::Arg;

/// Programs (and shell builtins) that never delete or rewrite a file of the workspace,
/// whatever their arguments (beyond [`changes_nothing`]'s special cases).
const NO_OP: &[&str] = &[
    // Shell builtins and keywords that run as commands.
    ":",
    "true",
    "false",
    "test",
    "[",
    "[[",
    "echo",
    "printf",
    "pwd",
    "cd",
    "pushd",
    "popd",
    "dirs",
    "type",
    "set",
    "unset",
    "shift",
    "exit",
    "return",
    "read",
    "wait",
    "jobs",
    "fg",
    "bg",
    "disown",
    "ulimit",
    "umask",
    "times",
    "let",
    "getopts",
    "history",
    "shopt",
    "complete",
    "compgen",
    "bind",
    "help",
    "kill",
    "sleep",
    "break",
    "continue",
    // Reading and printing.
    "ls",
    "ll",
    "la",
    "cat",
    "tac",
    "nl",
    "head",
    "tail",
    "less",
    "more",
    "most",
    "bat",
    "batcat",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "wc",
    "tree",
    "stat",
    "file",
    "du",
    "df",
    "diff",
    "cmp",
    "comm",
    "cut",
    "tr",
    "paste",
    "join",
    "fold",
    "fmt",
    "column",
    "expand",
    "unexpand",
    "rev",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "which",
    "whereis",
    "whatis",
    "apropos",
    "man",
    "info",
    "seq",
    "yes",
    "xxd",
    "od",
    "hexdump",
    "strings",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shasum",
    "b2sum",
    "cksum",
    "sum",
    "base32",
    "base64",
    "jq",
    "gron",
    "printenv",
    "locale",
    "tput",
    "clear",
    "date",
    "cal",
    "whoami",
    "id",
    "groups",
    "who",
    "w",
    "users",
    "uname",
    "hostname",
    "hostnamectl",
    "uptime",
    "nproc",
    "free",
    "lscpu",
    "lsblk",
    "ps",
    "pgrep",
    "top",
    "htop",
    "lsof",
    "env",
    "getconf",
    "tty",
    "stty",
    "logname",
    "sha256",
    // Interactive: a person decides what changes; remote: nothing local changes.
    "vi",
    "vim",
    "nvim",
    "nano",
    "emacs",
    "ssh",
    // Only create. (A POSIX `touch` is a metadata op, `crate::metadata`; this entry is
    // for cmd and PowerShell, where it is Git for Windows' program.)
    "mkdir",
    "touch",
    "mktemp",
];

/// Programs whose writes the classifier models (`writes::posix`): when it finds nothing
/// they destroy (`tee -a`, `mv -n`, `cp` onto a new name), they change nothing that needs a
/// checkpoint.
const MODELLED_WRITERS: &[&str] = &[
    "cp",
    "gcp",
    "mv",
    "gmv",
    "install",
    "ginstall",
    "ln",
    "gln",
    "rsync",
    "truncate",
    "dd",
    "tee",
    "fallocate",
    "sponge",
    "iconv",
    "wget",
    "ed",
    "red",
    "ex",
    "gvim",
    "view",
    "dos2unix",
    "unix2dos",
    "mac2unix",
    "unix2mac",
    "yq",
    "clang-format",
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "lzma",
    "unlzma",
    "zstd",
    "unzstd",
    "lz4",
    "lzip",
    "compress",
    "uncompress",
    "pigz",
    "unpigz",
    "pbzip2",
    "lbzip2",
    "plzip",
    "zip",
    "tar",
    "gtar",
    "bsdtar",
    "7z",
    "7za",
    "7zz",
    "7zr",
];

/// Package managers and toolchains whose query subcommand, given first, only prints: `npm ls`,
/// `pip list`, `go version`. Subcommands that may write a lockfile or a config (`cargo tree`,
/// `cargo metadata`, `npm config`, `go env -w`) are not listed.
const QUERIES: &[(&str, &[&str])] = &[
    // The guard's own verbs that change no file of the workspace: they read its store, print,
    // or (`check`, `mode restricted`, `gc` without `--execute`) act only on the guard's own
    // state; `safe-delete`, `restore`, `undo`, `redo` and `install` change files and stay
    // programs, and the person-only verbs are refused before this (`guard_verbs`).
    (
        "agent-guard",
        &[
            "list",
            "show",
            "status",
            "explain",
            "doctor",
            "help",
            "completions",
            "man",
            "audit",
            "check",
            "mode",
            "gc",
            "demo",
        ],
    ),
    (
        "npm",
        &[
            "ls", "list", "la", "ll", "view", "v", "info", "show", "outdated", "root", "prefix",
            "help", "search", "explain", "why", "query",
        ],
    ),
    (
        "pnpm",
        &[
            "ls", "list", "la", "ll", "why", "outdated", "root", "view", "info", "help",
        ],
    ),
    ("yarn", &["list", "info", "why", "outdated", "help"]),
    (
        "pip",
        &[
            "list", "show", "freeze", "check", "help", "index", "inspect", "debug",
        ],
    ),
    (
        "pip3",
        &[
            "list", "show", "freeze", "check", "help", "index", "inspect", "debug",
        ],
    ),
    ("go", &["version", "list", "doc", "help", "env"]),
    ("cargo", &["version", "search", "help"]),
    (
        "gem",
        &[
            "list",
            "info",
            "search",
            "environment",
            "help",
            "contents",
            "which",
        ],
    ),
    (
        "composer",
        &[
            "show", "info", "outdated", "licenses", "depends", "why", "help",
        ],
    ),
    ("dotnet", &["--info", "--list-sdks", "--list-runtimes"]),
];

/// Programs for which `-v` alone prints the version (for others it means verbose).
const DASH_V_IS_VERSION: &[&str] = &[
    "node", "nodejs", "npm", "npx", "pnpm", "yarn", "bun", "deno",
];

/// Returns `true` for a query that only prints: [`QUERIES`], or `-v` of a program that
/// answers it with its version.
pub(crate) fn only_queries(program: &str, args: &[Arg]) -> bool {
    if only_asks(args) {
        return true;
    }
    let texts: Option<Vec<&str>> = args.iter().map(Arg::known).collect();
    let Some(texts) = texts else {
        return false;
    };
    // Options that name a place to write: `pip … --log FILE`, `npm … --logs-dir DIR`,
    // `--cache`, `--report`, `--prefix`, `-o`; anything like them is not a mere query.
    let writes_somewhere = texts.iter().skip(1).any(|t| {
        let option = t.trim_start_matches('-').to_ascii_lowercase();
        t.starts_with('-')
            && ([
                "log", "cache", "report", "output", "prefix", "config", "dir", "file", "path",
                "target",
            ]
            .iter()
            .any(|word| option.contains(word))
                || ["o", "out"]
                    .iter()
                    .any(|name| option == *name || option.starts_with(&format!("{name}="))))
    });
    match texts.as_slice() {
        ["-v"] => DASH_V_IS_VERSION.contains(&program),
        _ if writes_somewhere => false,
        // `go env -w` / `-u` (any number of dashes) write the user's go.env.
        ["env", rest @ ..] if program == "go" => !rest.iter().any(|t| {
            let option = t.trim_start_matches('-');
            t.starts_with('-') && (option.starts_with('w') || option.starts_with('u'))
        }),
        // `check --enforce` (and a harness's hook, which enforces) carries out the
        // compensation: a relocation takes the targets out of the workspace, into whatever
        // store the environment names (`AGENT_GUARD_TRASH=…`).
        ["check", rest @ ..] if program == "agent-guard" => !rest
            .iter()
            .any(|t| t.starts_with("--enforce") || t.starts_with("--harness")),
        [first, ..] => QUERIES
            .iter()
            .any(|(name, queries)| *name == program && queries.contains(first)),
        [] => false,
    }
}

/// Returns `true` if `program` (a normalised name) run with `args` is known to change
/// nothing in the workspace.
pub(crate) fn changes_nothing(program: &str, args: &[Arg]) -> bool {
    let texts = || args.iter().filter_map(Arg::known);
    if only_queries(program, args) {
        return true;
    }
    match program {
        // `-o FILE` / `--output` rewrite a file, possibly the input itself.
        "sort" => !texts().any(|t| t.starts_with("-o") || t.starts_with("--output")),
        "uniq" => args.iter().filter(|a| !a.is_option()).count() <= 1,
        "sed" | "gsed" => !texts().any(|t| {
            t.starts_with("--in-place")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains('i'))
        }),
        // Prints what it fetches unless told to write a file.
        "curl" => !texts().any(|t| {
            t.starts_with("--output")
                || t.starts_with("--remote-name")
                || (t.starts_with('-') && !t.starts_with("--") && t.contains(['o', 'O']))
        }),
        // In-place editing (`-i inplace`) is modelled by the writes rules; a program that
        // runs commands is not.
        "awk" | "gawk" | "mawk" | "nawk" => !texts().any(|t| t.contains("system(")),
        // Extracting overwrites whatever the archive names; `--delete`, `-r`/`-u` rewrite
        // the archive. Only creating (`-c`, modelled) and listing (`-t`) are understood.
        "tar" | "gtar" | "bsdtar" => !tar_rewrites(args),
        // `7z x`/`e` extract over existing files, `d`/`u`/`rn` rewrite the archive.
        "7z" | "7za" | "7zz" | "7zr" => !args
            .iter()
            .find(|a| !a.is_option())
            .and_then(Arg::known)
            .is_none_or(|command| ["x", "e", "d", "u", "rn"].contains(&command)),
        // `xxd [-r] IN OUT` writes OUT.
        "xxd" => args.iter().filter(|a| !a.is_option()).count() <= 1,
        _ if NO_OP.contains(&program) => !writes_or_runs(program, args),
        _ => {
            NO_OP.contains(&program)
                || MODELLED_WRITERS.contains(&program)
                || crate::writes::is_device_tool(program)
        }
    }
}

/// Whether a reader from [`NO_OP`] is told to write a file or to run a program: any
/// `--output`/`--log-file`-like long option (`git diff --output=F`, `tree --output F`), a
/// preprocessor or pager it runs (`rg --pre CMD`, `--pager`), and the short options that
/// name an output for the programs that have them (`tree -o F`, `less -o F`/`-O F`).
fn writes_or_runs(program: &str, args: &[Arg]) -> bool {
    args.iter().any(|arg| {
        let Some(text) = arg.known() else {
            return false;
        };
        let long = text
            .strip_prefix("--")
            .map(|l| l.split('=').next().unwrap_or(l));
        let short = |letters: &str| {
            text.strip_prefix('-')
                .filter(|rest| !rest.starts_with('-'))
                .and_then(|rest| rest.chars().next())
                .is_some_and(|first| letters.contains(first))
        };
        long.is_some_and(|long| {
            let long = long.to_ascii_lowercase();
            // `df --output=FIELDS` and `du --output`-less tools name columns, not files.
            (program != "df"
                && ["output", "log-file", "logfile", "out-file", "outfile"]
                    .iter()
                    .any(|word| long.starts_with(word)))
                || ["pre", "pager", "exec", "command"].contains(&long.as_str())
        }) || match program {
            "tree" => short("o"),
            "less" | "more" | "most" => short("oO"),
            _ => false,
        }
    })
}

/// `tar` with a mode that writes files other than a new archive: extracting (`x`,
/// `--extract`, `--get`), or rewriting the archive (`--delete`, `-r`, `-u`, `-A`). Any
/// cluster holding such a letter counts (`-xzf`, `xvf`), which only errs toward a checkpoint.
fn tar_rewrites(args: &[Arg]) -> bool {
    args.iter().enumerate().any(|(at, arg)| {
        let Some(text) = arg.known() else {
            return false;
        };
        if let Some(long) = text.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or(long);
            return [
                "extract",
                "get",
                "delete",
                "append",
                "update",
                "concatenate",
                "catenate",
            ]
            .iter()
            .any(|mode| long.len() >= 3 && mode.starts_with(long));
        }
        let letters = match text.strip_prefix('-') {
            Some(rest) => rest,
            None if at == 0 && text.chars().all(|c| c.is_ascii_alphabetic()) => text,
            None => return false,
        };
        letters.contains(['x', 'r', 'u', 'A'])
    })
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

//! Script interpreters given code inline: `python -c`, `node -e`, `ruby -e`, `perl -e`,
//! `php -r`, `deno eval`, `bun -e`, and the same programs reading their code from a heredoc,
//! a here-string or a pipe. Recognised from all three dialects.
//!
//! The reference tool does not look into these (its stated limitation "`python -c`/`node -e`
//! deleters are invisible"); agents use them to delete (`python3 -c "import shutil;
//! shutil.rmtree('build')"`). The guard cannot know what such code removes, so code that
//! names a file-deletion API of its language, or shells out with destructive shell
//! vocabulary, is an unknown destructive op (`BLOCK_UNDETERMINABLE_EFFECT`). Other code is
//! ignored, like a script file (`python tool.py`) is. The test is textual and errs towards
//! smelling: `print("os.remove")` is refused too.

use agent_guard_types::{Dialect, OpSpec};

use crate::smell::smells;

/// The interpreter families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// `python`, `pypy` and the `py` launcher (`-c`).
    Python,
    /// Node.js and Bun (`-e`, `--eval`, `-p`, `--print`).
    Node,
    /// Deno (`deno eval CODE`).
    Deno,
    /// Ruby (`-e`, repeatable).
    Ruby,
    /// Perl (`-e`, `-E`, bundled as in `-ne`).
    Perl,
    /// PHP (`-r`).
    Php,
}

impl Lang {
    fn label(self) -> &'static str {
        match self {
            Lang::Python => "Python",
            Lang::Node | Lang::Deno => "JavaScript",
            Lang::Ruby => "Ruby",
            Lang::Perl => "Perl",
            Lang::Php => "PHP",
        }
    }
}

/// The family of a normalised (lower-case, no `.exe`) program name, if it is an interpreter.
pub(crate) fn interpreter(name: &str) -> Option<Lang> {
    let versioned = |stem: &str| {
        name.strip_prefix(stem)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    if versioned("python") || versioned("pypy") || name == "py" {
        return Some(Lang::Python);
    }
    match name {
        "node" | "nodejs" | "bun" => Some(Lang::Node),
        "deno" => Some(Lang::Deno),
        "ruby" => Some(Lang::Ruby),
        "php" => Some(Lang::Php),
        _ if versioned("perl") => Some(Lang::Perl),
        _ => None,
    }
}

/// Where the interpreter's standard input comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stdin<'a> {
    /// Nothing the guard can see into at top level (a terminal, `/dev/null`).
    Unseen,
    /// A literal heredoc or here-string body.
    Text(&'a str),
    /// A stream whose content the guard cannot know (a pipe, a file, a descriptor, a heredoc
    /// with expansions); the text says which.
    Unknown(&'a str),
}

/// One interpreter invocation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Invocation<'a> {
    /// The interpreter family.
    pub(crate) lang: Lang,
    /// The arguments after the program name; `None` where not known statically.
    pub(crate) args: &'a [Option<&'a str>],
    /// Its standard input.
    pub(crate) stdin: Stdin<'a>,
    /// The calling dialect.
    pub(crate) dialect: Dialect,
}

/// Where the code comes from, after reading the options.
enum Source<'a> {
    /// Inline code arguments (several for `ruby -e a -e b`).
    Inline(Vec<&'a str>),
    /// An inline code argument whose text is not known.
    Opaque,
    /// Standard input (no script named, `-`, `/dev/stdin`, `/dev/fd/N`).
    Stdin,
    /// A script file named literally.
    File,
    /// A script whose name is not literal (a variable, `<(…)`).
    OpaqueFile,
    /// A module (`-m`), or nothing to run (`--version`).
    Elsewhere,
}

/// The ops of an interpreter invocation: one unknown op when its code can delete files, or
/// when the code cannot be known (not literal, or read from a stream).
pub(crate) fn classify(call: Invocation<'_>) -> Vec<OpSpec> {
    let label = call.lang.label();
    let note = match (source(call.lang, call.args), call.stdin) {
        (Source::Inline(codes), _) if codes.iter().any(|c| deletes(c)) => {
            format!("inline {label} code can delete files; which ones cannot be known")
        }
        (Source::Opaque, _) => format!("{label} code that is not literal"),
        (Source::OpaqueFile, _) => {
            format!("the {label} script is not a literal file (a variable, a process substitution)")
        }
        (Source::Stdin, Stdin::Text(body)) if deletes(body) => {
            format!("a {label} program on stdin can delete files; which ones cannot be known")
        }
        (Source::Stdin, Stdin::Unknown(how)) => {
            format!("the {label} program is {how}: what it runs cannot be known")
        }
        // Commands it runs or files it opens are not followed: a program the guard cannot
        // see into (`perl -pi -e 'system $_' f` is more than an edit of `f`).
        (Source::Inline(codes), _) if codes.iter().any(|c| reaches_beyond(c)) => {
            return vec![OpSpec::opaque_program(
                "<inline code>",
                call.dialect,
                format!(
                    "inline {label} code runs commands or opens files the guard does not follow"
                ),
            )];
        }
        _ => return Vec::new(),
    };
    vec![OpSpec::unknown("<inline code>", call.dialect, note)]
}

/// Returns `true` for a path through which a program reads a stream instead of a file.
fn channel(path: &str) -> bool {
    path == "-"
        || path == "/dev/stdin"
        || path.starts_with("/dev/fd/")
        || (path.starts_with("/proc/") && path.contains("/fd/"))
}

/// Reads the interpreter's options up to its code.
fn source<'a>(lang: Lang, args: &[Option<&'a str>]) -> Source<'a> {
    if lang == Lang::Deno {
        return deno_source(args);
    }
    let mut codes = Vec::new();
    let found = |codes: Vec<&'a str>, otherwise: Source<'a>| {
        if codes.is_empty() {
            otherwise
        } else {
            Source::Inline(codes)
        }
    };
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        // An opaque word where an option or a script name would be.
        let Some(text) = *arg else {
            return found(codes, Source::OpaqueFile);
        };
        if channel(text) {
            return found(codes, Source::Stdin);
        }
        if text == "--" {
            let next = match args.get(index) {
                None => Source::Stdin,
                Some(Some(file)) if channel(file) => Source::Stdin,
                Some(Some(_)) => Source::File,
                Some(None) => Source::OpaqueFile,
            };
            return found(codes, next);
        }
        if !text.starts_with('-') {
            // A script file, or (after inline code) the code's own arguments.
            return found(codes, Source::File);
        }
        match option(lang, text) {
            Opt::Code(Some(code)) => codes.push(code),
            Opt::Code(None) => match args.get(index) {
                Some(Some(code)) => {
                    codes.push(code);
                    index += 1;
                }
                Some(None) => return Source::Opaque,
                None => return found(codes, Source::Elsewhere),
            },
            Opt::Valued => index += 1,
            Opt::Flag => {}
            Opt::Stop => return found(codes, Source::Elsewhere),
        }
        if lang == Lang::Python && !codes.is_empty() {
            // `python -c CODE args…`: what follows is the code's argv.
            break;
        }
    }
    found(codes, Source::Stdin)
}

/// `deno [flags] eval [flags] CODE`, `deno run FILE` (`-` is stdin); other subcommands run
/// files.
fn deno_source<'a>(args: &[Option<&'a str>]) -> Source<'a> {
    let mut mode = None;
    for arg in args {
        match (*arg, mode) {
            (Some(text), _) if text.starts_with('-') && text != "-" => {}
            (Some(sub @ ("eval" | "run")), None) => mode = Some(sub),
            (Some(code), Some("eval")) => return Source::Inline(vec![code]),
            (Some(file), Some(_)) if channel(file) => return Source::Stdin,
            (Some(_), Some(_)) => return Source::File,
            (None, Some("eval")) => return Source::Opaque,
            (None, Some(_)) => return Source::OpaqueFile,
            _ => return Source::Elsewhere,
        }
    }
    Source::Elsewhere
}

enum Opt<'a> {
    /// The code, attached (`-ccode`, `--eval=code`) or in the next argument (`None`).
    Code(Option<&'a str>),
    /// An option whose value is the next argument.
    Valued,
    Flag,
    /// Runs something else (`-m module`) or nothing (`--version`).
    Stop,
}

fn option(lang: Lang, text: &str) -> Opt<'_> {
    if let Some(long) = text.strip_prefix("--") {
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        return match (lang, name) {
            (_, "help" | "version") => Opt::Stop,
            (Lang::Node, "eval" | "print") => Opt::Code(value),
            (
                Lang::Node,
                "require"
                | "import"
                | "loader"
                | "experimental-loader"
                | "conditions"
                | "input-type"
                | "title",
            ) if value.is_none() => Opt::Valued,
            _ => Opt::Flag,
        };
    }
    let letters = &text[1..];
    let (code_letters, valued): (&[char], &[char]) = match lang {
        Lang::Python => (&['c'], &['W', 'X', 'Q']),
        Lang::Node => (&['e', 'p'], &['r', 'C']),
        Lang::Deno => (&[], &[]),
        Lang::Ruby => (&['e'], &['r', 'I', 'E', 'C', 'F']),
        Lang::Perl => (&['e', 'E'], &['I', 'M', 'm', 'x']),
        Lang::Php => (&['r'], &['c', 'd', 'z']),
    };
    if lang == Lang::Python && letters.starts_with('m') {
        return Opt::Stop;
    }
    // Version and help flags print and exit.
    let stops: &[char] = match lang {
        Lang::Python => &['V', 'h', '?'],
        Lang::Node | Lang::Ruby => &['v', 'h'],
        Lang::Perl => &['v', 'V'],
        Lang::Php => &['v', 'h', 'i', 'm'],
        Lang::Deno => &[],
    };
    if letters.starts_with(stops) {
        return Opt::Stop;
    }
    if lang == Lang::Python && letters.chars().all(|c| c.is_ascii_digit() || c == '.') {
        // The `py` launcher's version selector (`py -3.12 -c …`).
        return Opt::Flag;
    }
    for (at, letter) in letters.char_indices() {
        if code_letters.contains(&letter) {
            let rest = &letters[at + letter.len_utf8()..];
            return Opt::Code((!rest.is_empty()).then_some(rest));
        }
        if valued.contains(&letter) {
            // The value is attached (`-W ignore` vs `-Wignore`) or the next argument.
            return if at + letter.len_utf8() == letters.len() {
                Opt::Valued
            } else {
                Opt::Flag
            };
        }
    }
    Opt::Flag
}

/// File-deletion functions, as identifiers (any language).
const DELETE_FUNCTIONS: &[&str] = &[
    "rmtree",
    "remove_tree",
    "removedirs",
    "unlink",
    "unlinkSync",
    "rmdir",
    "rmdirSync",
    "rmSync",
    "rimraf",
    "rm_rf",
    "rm_r",
    "rm_f",
    "remove_dir",
    "remove_entry",
    "remove_entry_secure",
    "remove_file",
    "delete_if_exists",
];

/// `module.function` pairs that delete.
const DELETE_METHODS: &[(&str, &str)] = &[
    ("os", "remove"),
    ("fs", "rm"),
    ("promises", "rm"),
    ("fsp", "rm"),
    ("FileUtils", "rm"),
    ("FileUtils", "remove"),
    ("File", "delete"),
    ("Dir", "delete"),
    ("Deno", "remove"),
    ("Deno", "removeSync"),
];

/// Functions that run a shell or another program.
const SHELL_OUTS: &[&str] = &[
    "system",
    "popen",
    "subprocess",
    "check_call",
    "check_output",
    "child_process",
    "exec",
    "execSync",
    "execFileSync",
    "spawn",
    "spawnSync",
    "shell_exec",
    "passthru",
    "proc_open",
    "qx",
    "Open3",
    "Command",
];

/// Returns `true` if `code` names a file-deletion API, or shells out with destructive shell
/// vocabulary.
pub(crate) fn deletes(code: &str) -> bool {
    let identifiers = identifiers(code);
    let named = |word: &str| identifiers.iter().any(|(_, w)| *w == word);
    if DELETE_FUNCTIONS.iter().any(|f| named(f)) {
        return true;
    }
    let method = identifiers.windows(2).any(|pair| {
        let ((at, module), (next, function)) = (pair[0], pair[1]);
        code.get(at + module.len()..next) == Some(".")
            && DELETE_METHODS.contains(&(module, function))
    });
    if method || (code.contains("from os import") && named("remove")) {
        return true;
    }
    let shells_out = code.contains('`') || SHELL_OUTS.iter().any(|f| named(f));
    shells_out && smells(code)
}

/// Whether `code` runs commands (`system`, backquotes, …) or opens, renames or links files
/// by name: what it does beyond its input and output streams is not followed.
fn reaches_beyond(code: &str) -> bool {
    const FILE_CALLS: &[&str] = &[
        "open", "sysopen", "rename", "symlink", "link", "truncate", "mkdir", "chmod", "chown",
        "write", "File", "Path", "fs", "shutil",
    ];
    let identifiers = identifiers(code);
    let named = |word: &str| identifiers.iter().any(|(_, w)| *w == word);
    code.contains('`') || SHELL_OUTS.iter().any(|f| named(f)) || FILE_CALLS.iter().any(|f| named(f))
}

/// The identifiers (`[A-Za-z0-9_]+`) of `code`, with their byte offsets.
fn identifiers(code: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut start = None;
    for (at, c) in code.char_indices() {
        match (c.is_ascii_alphanumeric() || c == '_', start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                found.push((from, &code[from..at]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        found.push((from, &code[from..]));
    }
    found
}

#[cfg(test)]
mod tests;

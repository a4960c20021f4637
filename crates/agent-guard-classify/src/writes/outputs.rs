//! Programs that truncate their operands or write a named output: `truncate`, `dd of=`,
//! `tee`, `sort -o`, `uniq IN OUT`, `fallocate` (the modes that drop data), `sponge`,
//! `iconv -o`, `curl -o`/`-O`, `wget -O`/`-N`.
//!
//! They open the path and truncate or rewrite it (`O_TRUNC`, or `dd conv=notrunc` writing
//! over its bytes): in place, through a final symlink. Appending forms (`tee -a`,
//! `sponge -a`, `dd oflag=append conv=notrunc`) destroy nothing: their op is an append
//! ([`OpKind::Append`](agent_guard_types::OpKind::Append)), judged against the protected
//! paths only. Programs whose operands are
//! written get an op even without operands: arguments may still arrive from `xargs` or
//! `find -exec`.

use agent_guard_types::{OpSpec, Target, WriteMode};

use super::{append_of, basename, file, getopt_problem, join, overwrite, value_arg};
use crate::args::Arg;
use crate::getopt::{self, Item, Opt, Order};

/// Parses `args` and builds an op whose operands are its targets; `None` on `--help`.
fn operand_writer<'a>(
    name: &str,
    args: &'a [Arg],
    table: &[Opt],
) -> (Option<OpSpec>, Vec<Item<'a>>) {
    let mut op = overwrite(name, WriteMode::InPlace);
    let (items, _) = getopt::parse(args, table, Order::Permute);
    for item in &items {
        match item {
            Item::Opt { name: "info", .. } => return (None, items),
            Item::Operand(arg) => op.targets.push(file(arg, true)),
            Item::Opt { .. } => {}
            other => getopt_problem(&mut op, other),
        }
    }
    (Some(op), items)
}

const TRUNCATE: &[Opt] = &[
    Opt::flag("neutral", Some('c'), Some("no-create")),
    Opt::flag("neutral", Some('o'), Some("io-blocks")),
    Opt::value("neutral", Some('r'), Some("reference")),
    Opt::value("neutral", Some('s'), Some("size")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `truncate [-c] [-o] (-s SIZE | -r RFILE) FILE…`: every file is cut or extended in place
/// (`-s +N` only grows it, still a rewrite of the same inode).
pub(super) fn truncate(args: &[Arg]) -> Option<OpSpec> {
    operand_writer("truncate", args, TRUNCATE).0
}

const TEE: &[Opt] = &[
    Opt::flag("append", Some('a'), Some("append")),
    Opt::flag("neutral", Some('i'), Some("ignore-interrupts")),
    Opt::flag("neutral", Some('p'), None),
    Opt::optional("neutral", None, Some("output-error")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `tee [-a] FILE…`: truncates every file, or with `-a` appends to it.
pub(super) fn tee(args: &[Arg]) -> Option<OpSpec> {
    appending_unless_truncating(operand_writer("tee", args, TEE))
}

/// `sponge [-a] FILE`: soaks up stdin, then writes the file (`-a` appends).
pub(super) fn sponge(args: &[Arg]) -> Option<OpSpec> {
    const SPONGE: &[Opt] = &[Opt::flag("append", Some('a'), None)];
    appending_unless_truncating(operand_writer("sponge", args, SPONGE))
}

/// bash's `history -w [FILE]` writes the history over FILE, `-a [FILE]` appends to it
/// (without FILE, `$HISTFILE`, which is outside the workspace and not the guard's to keep).
pub(super) fn history(args: &[Arg]) -> Option<OpSpec> {
    let mut flags = String::new();
    let mut file = None;
    for arg in args {
        match arg.known() {
            Some(text) if text.starts_with('-') && text.len() > 1 => flags.push_str(&text[1..]),
            _ => file = file.or(Some(arg)),
        }
    }
    let file = file?;
    if !flags.contains(['w', 'a']) {
        return None;
    }
    let mut op = overwrite("history", WriteMode::Replace);
    op.targets.push(super::file(file, true));
    op.note("bash's history builtin writes its history into the file");
    Some(if flags.contains('w') {
        op
    } else {
        append_of(op)
    })
}

/// The op of a writer with an `append` flag: an append op when the flag is given.
fn appending_unless_truncating((op, items): (Option<OpSpec>, Vec<Item<'_>>)) -> Option<OpSpec> {
    let appends = items
        .iter()
        .any(|i| matches!(i, Item::Opt { name: "append", .. }));
    let op = op?;
    Some(if appends { append_of(op) } else { op })
}

const FALLOCATE: &[Opt] = &[
    Opt::flag("drops", Some('c'), Some("collapse-range")),
    Opt::flag("neutral", Some('d'), Some("dig-holes")),
    Opt::flag("drops", Some('i'), Some("insert-range")),
    Opt::flag("drops", Some('p'), Some("punch-hole")),
    Opt::flag("drops", Some('z'), Some("zero-range")),
    Opt::value("neutral", Some('l'), Some("length")),
    Opt::flag("neutral", Some('n'), Some("keep-size")),
    Opt::value("neutral", Some('o'), Some("offset")),
    Opt::flag("neutral", Some('x'), Some("posix")),
    Opt::flag("neutral", Some('v'), Some("verbose")),
    Opt::flag("info", Some('h'), Some("help")),
    Opt::flag("info", Some('V'), Some("version")),
];

/// `fallocate [-c|-p|-z|-i] [-o OFF] -l LEN FILE`: punching a hole, zeroing, collapsing or
/// inserting a range rewrites the file's data in place; plain preallocation (and
/// `--dig-holes`, which only frees zeroes) keeps every byte.
pub(super) fn fallocate(args: &[Arg]) -> Option<OpSpec> {
    let (op, items) = operand_writer("fallocate", args, FALLOCATE);
    let drops = items
        .iter()
        .any(|i| matches!(i, Item::Opt { name: "drops", .. }));
    let unknown = op.as_ref().is_some_and(|o| o.undeterminable);
    op.filter(|_| drops || unknown)
}

/// `dd [OPERAND]…`: `of=FILE` is opened for writing and truncated (at the `seek=` offset)
/// unless `conv=notrunc`, which still writes over its bytes in place. Only
/// `oflag=append conv=notrunc` appends. `of=/dev/sdX` names the device: the policy refuses
/// device nodes.
pub(super) fn dd(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("dd", WriteMode::InPlace);
    let (mut notrunc, mut append) = (false, false);
    for arg in args {
        let Some(text) = arg.known() else {
            if arg.text.starts_with("of=") {
                op.targets.push(file(arg, true));
            } else if ![
                "if=", "bs=", "ibs=", "obs=", "cbs=", "count=", "skip=", "status=",
            ]
            .iter()
            .any(|p| arg.text.starts_with(p))
            {
                op.mark_undeterminable("a dd operand is not literal (it may be of=…)");
            }
            continue;
        };
        match text.split_once('=') {
            Some(("of", path)) => op.targets.push(Target {
                text: path.to_owned(),
                ..file(arg, true)
            }),
            Some(("conv", list)) => notrunc |= list.split(',').any(|c| c == "notrunc"),
            Some(("oflag", list)) => append |= list.split(',').any(|c| c == "append"),
            _ if text == "--help" || text == "--version" => return None,
            _ => {}
        }
    }
    if op.targets.is_empty() && !op.undeterminable {
        return None;
    }
    if append && notrunc {
        return Some(append_of(op));
    }
    if notrunc {
        op.note("conv=notrunc still writes over the file's bytes");
    }
    Some(op)
}

const SORT: &[Opt] = &[
    Opt::flag("neutral", Some('b'), Some("ignore-leading-blanks")),
    Opt::flag("neutral", Some('d'), Some("dictionary-order")),
    Opt::flag("neutral", Some('f'), Some("ignore-case")),
    Opt::flag("neutral", Some('g'), Some("general-numeric-sort")),
    Opt::flag("neutral", Some('i'), Some("ignore-nonprinting")),
    Opt::flag("neutral", Some('M'), Some("month-sort")),
    Opt::flag("neutral", Some('h'), Some("human-numeric-sort")),
    Opt::flag("neutral", Some('n'), Some("numeric-sort")),
    Opt::flag("neutral", Some('R'), Some("random-sort")),
    Opt::value("neutral", None, Some("random-source")),
    Opt::flag("neutral", Some('r'), Some("reverse")),
    Opt::value("neutral", None, Some("sort")),
    Opt::flag("neutral", Some('V'), Some("version-sort")),
    Opt::value("neutral", None, Some("batch-size")),
    Opt::flag("check", Some('c'), None),
    Opt::optional("check", None, Some("check")),
    Opt::flag("check", Some('C'), None),
    Opt::value("neutral", None, Some("compress-program")),
    Opt::flag("neutral", None, Some("debug")),
    Opt::value("neutral", None, Some("files0-from")),
    Opt::value("neutral", Some('k'), Some("key")),
    Opt::flag("neutral", Some('m'), Some("merge")),
    Opt::value("output", Some('o'), Some("output")),
    Opt::flag("neutral", Some('s'), Some("stable")),
    Opt::value("neutral", Some('S'), Some("buffer-size")),
    Opt::value("neutral", Some('t'), Some("field-separator")),
    Opt::value("neutral", Some('T'), Some("temporary-directory")),
    Opt::value("neutral", None, Some("parallel")),
    Opt::flag("neutral", Some('u'), Some("unique")),
    Opt::flag("neutral", Some('z'), Some("zero-terminated")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `sort -o FILE …`: sort reads all input, then truncates FILE and writes it (so
/// `sort -o f f` sorts `f` in place).
pub(super) fn sort(args: &[Arg]) -> Option<OpSpec> {
    named_output("sort", args, SORT)
}

/// A program that writes only what its `output` option names.
fn named_output(name: &str, args: &[Arg], table: &[Opt]) -> Option<OpSpec> {
    let mut op = overwrite(name, WriteMode::InPlace);
    let (items, _) = getopt::parse(args, table, Order::Permute);
    let mut output = false;
    for item in &items {
        match item {
            Item::Opt {
                name: "info" | "check",
                ..
            } => return None,
            Item::Opt { name: "output", .. } => {
                output = true;
                if let Some(value) = value_arg(item) {
                    op.targets.push(file(&value, true));
                }
            }
            Item::Opt { .. } | Item::Operand(_) => {}
            other => getopt_problem(&mut op, other),
        }
    }
    output.then_some(op)
}

const UNIQ: &[Opt] = &[
    Opt::flag("neutral", Some('c'), Some("count")),
    Opt::flag("neutral", Some('d'), Some("repeated")),
    Opt::flag("neutral", Some('D'), None),
    Opt::optional("neutral", None, Some("all-repeated")),
    Opt::value("neutral", Some('f'), Some("skip-fields")),
    Opt::optional("neutral", None, Some("group")),
    Opt::flag("neutral", Some('i'), Some("ignore-case")),
    Opt::value("neutral", Some('s'), Some("skip-chars")),
    Opt::flag("neutral", Some('u'), Some("unique")),
    Opt::flag("neutral", Some('z'), Some("zero-terminated")),
    Opt::value("neutral", Some('w'), Some("check-chars")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("version")),
];

/// `uniq [OPTION]… [INPUT [OUTPUT]]`: the second operand is truncated and written.
pub(super) fn uniq(args: &[Arg]) -> Option<OpSpec> {
    let (op, _) = operand_writer("uniq", args, UNIQ);
    let mut op = op?;
    if op.targets.len() < 2 && !op.undeterminable {
        return None;
    }
    op.targets = op.targets.split_off(1.min(op.targets.len()));
    Some(op)
}

const ICONV: &[Opt] = &[
    Opt::value("neutral", Some('f'), Some("from-code")),
    Opt::value("neutral", Some('t'), Some("to-code")),
    Opt::value("output", Some('o'), Some("output")),
    Opt::flag("neutral", Some('c'), None),
    Opt::flag("neutral", Some('s'), Some("silent")),
    Opt::flag("neutral", None, Some("verbose")),
    Opt::flag("info", Some('l'), Some("list")),
    Opt::flag("info", None, Some("help")),
    Opt::flag("info", None, Some("usage")),
    Opt::flag("info", Some('V'), Some("version")),
];

/// `iconv -o OUT …`: reads its input, then writes OUT (so `iconv -o f f` converts in place).
pub(super) fn iconv(args: &[Arg]) -> Option<OpSpec> {
    named_output("iconv", args, ICONV)
}

/// curl's short options that take a value (its manual): in a cluster, the rest of the word
/// or the next argument is that value.
const CURL_VALUED: &str = "AbcCdDeEFHhKmoPQrtTuUwxXyYz";
/// curl's long options that name a file it writes over.
const CURL_WRITES: &[&str] = &[
    "output",
    "dump-header",
    "cookie-jar",
    "trace",
    "trace-ascii",
    "stderr",
    "etag-save",
    "libcurl",
];

/// `curl -o FILE URL`, `-O` (the URL's last path segment), `--output-dir DIR`, and the
/// other files it writes (`-D`, `-c`, `--trace`, …). `-J` takes the name from the server:
/// undeterminable. `--no-clobber` writes over nothing.
pub(super) fn curl(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("curl", WriteMode::InPlace);
    let (mut remote_name, mut header_name) = (false, false);
    let mut dir: Option<Target> = None;
    let mut urls = Vec::new();
    let mut index = 0;
    let value_at = |index: &mut usize| -> Option<&Arg> {
        let value = args.get(*index);
        *index += 1;
        value
    };
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg.known().filter(|t| t.starts_with('-') && t.len() > 1) else {
            urls.push(arg);
            continue;
        };
        if let Some(long) = text.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match name {
                "no-clobber" => return None,
                "remote-name" | "remote-name-all" => remote_name = true,
                "remote-header-name" => header_name = true,
                "config" => op.mark_undeterminable("a curl config file may name outputs"),
                "output-dir" => dir = value_at(&mut index).map(Arg::target),
                _ if CURL_WRITES.contains(&name) => {
                    let value = match attached {
                        Some(v) => Some(Target::literal(v)),
                        None => value_at(&mut index).map(|a| file(a, true)),
                    };
                    op.targets.extend(value);
                }
                _ => {}
            }
            continue;
        }
        for (offset, letter) in text[1..].char_indices() {
            match letter {
                'O' => remote_name = true,
                'J' => header_name = true,
                _ if CURL_VALUED.contains(letter) => {
                    let rest = &text[1 + offset + 1..];
                    let value = if rest.is_empty() {
                        value_at(&mut index).map(|a| file(a, true))
                    } else {
                        Some(Target::literal(rest))
                    };
                    if matches!(letter, 'o' | 'D' | 'c') {
                        op.targets.extend(value);
                    } else if letter == 'K' {
                        op.mark_undeterminable("a curl config file may name outputs");
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    op.targets.retain(|t| t.text != "-");
    if remote_name {
        if header_name {
            op.mark_undeterminable("curl -J takes the file name from the server");
        }
        for url in urls {
            let name = url_file_name(&url.text);
            let mut target = file(url, true);
            name.clone_into(&mut target.text);
            op.targets.push(target);
        }
    }
    if let Some(dir) = &dir {
        op.targets = op
            .targets
            .iter()
            .map(|t| {
                if t.text.starts_with('/') {
                    t.clone()
                } else {
                    join(dir, &t.text, t)
                }
            })
            .collect();
    }
    (!op.targets.is_empty() || op.undeterminable).then_some(op)
}

/// The last path segment of a URL, as `curl -O` and `wget` name the download.
fn url_file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let after_host = path.split_once("://").map_or(path, |(_, rest)| rest);
    match after_host.split_once('/') {
        Some((_, rest)) => basename(rest),
        None => "index.html",
    }
}

/// wget's short options that take a value (`-n` takes one letter: `-nc`, `-nv`, `-nd`).
const WGET_VALUED: &str = "eoaiBtOTwQPUlARDXI";

/// `wget -O FILE URL` truncates FILE (`-O -` is stdout); `-o LOG` overwrites the log.
/// Without `-O`, an existing download is kept (the new one is saved as `name.1`), unless
/// `-N` (timestamping) replaces it; recursive forms (`-r`, `-m`, `-p`) write a tree.
pub(super) fn wget(args: &[Arg]) -> Option<OpSpec> {
    let mut op = overwrite("wget", WriteMode::InPlace);
    let (mut timestamping, mut no_clobber) = (false, false);
    let mut prefix: Option<Target> = None;
    let mut urls = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg.known().filter(|t| t.starts_with('-') && t.len() > 1) else {
            urls.push(arg);
            continue;
        };
        let (name, attached) = match text.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => (long.to_owned(), None),
            },
            None => short_wget(text),
        };
        let valued = matches!(
            name.as_str(),
            "O" | "output-document" | "o" | "output-file" | "P" | "directory-prefix"
        ) || (name.len() == 1 && WGET_VALUED.contains(name.as_str()));
        let value = if valued && attached.is_none() {
            index += 1;
            args.get(index - 1).map(|a| file(a, true))
        } else {
            attached.map(Target::literal)
        };
        match name.as_str() {
            "O" | "output-document" | "o" | "output-file" => op.targets.extend(value),
            "P" | "directory-prefix" => prefix = value,
            "N" | "timestamping" => timestamping = true,
            "nc" | "no-clobber" => no_clobber = true,
            "r" | "recursive" | "m" | "mirror" | "p" | "page-requisites" => {
                op.recursive = true;
                op.mark_undeterminable("wget downloads a tree");
            }
            _ => {}
        }
    }
    op.targets.retain(|t| t.text != "-");
    if timestamping && !no_clobber {
        for url in urls {
            let mut target = file(url, true);
            url_file_name(&url.text).clone_into(&mut target.text);
            if let Some(dir) = &prefix {
                target = join(dir, &target.text, &target);
            }
            op.targets.push(target);
        }
    }
    (!op.targets.is_empty() || op.undeterminable).then_some(op)
}

/// The option a wget short cluster ends in, with an attached value (`-qO-` is `O` with
/// `-`; `-nc` is `nc`).
fn short_wget(text: &str) -> (String, Option<String>) {
    let body = &text[1..];
    let mut chars = body.char_indices();
    let mut last = (String::new(), None);
    while let Some((at, letter)) = chars.next() {
        if letter == 'n' {
            let next = chars.next().map_or(String::new(), |(_, c)| c.to_string());
            last = (format!("n{next}"), None);
            continue;
        }
        if WGET_VALUED.contains(letter) {
            let rest = &body[at + letter.len_utf8()..];
            return (
                letter.to_string(),
                (!rest.is_empty()).then(|| rest.to_owned()),
            );
        }
        last = (letter.to_string(), None);
        if matches!(letter, 'N' | 'r' | 'm' | 'p') {
            // A flag the caller acts on; later letters are flags of no interest.
            return last;
        }
    }
    last
}

/// The files `script [options] [FILE]` writes itself, whatever it runs: its typescript
/// (`FILE`, else `typescript` when no `--log-*` file is named) and the log files it is
/// given, truncated (with `-a` the typescript and the logs are appended to), and its timing
/// file, always rewritten. Empty on `--help`.
pub(crate) fn script_logs(args: &[Arg]) -> Vec<OpSpec> {
    let (items, _) = getopt::parse(args, crate::wrappers::SCRIPT, Order::Permute);
    let mut logs = overwrite("script", WriteMode::InPlace);
    let mut timing = overwrite("script", WriteMode::InPlace);
    let mut appends = false;
    for item in &items {
        match item {
            Item::Opt { name: "none", .. } => return Vec::new(),
            Item::Opt { name: "append", .. } => appends = true,
            Item::Opt { name: "log", .. } => {
                logs.targets.extend(value_arg(item).map(|a| file(&a, true)));
            }
            Item::Opt { name: "timing", .. } => {
                timing
                    .targets
                    .extend(value_arg(item).map(|a| file(&a, true)));
            }
            Item::Operand(arg) => logs.targets.push(file(arg, true)),
            Item::Opt { .. } => {}
            other => getopt_problem(&mut logs, other),
        }
    }
    if logs.targets.is_empty() {
        logs.targets.push(Target::literal("typescript"));
    }
    // `script -qc CMD /dev/null` keeps no typescript.
    for op in [&mut logs, &mut timing] {
        op.targets.retain(|t| !super::redirect::is_sink(&t.text));
    }
    let mut ops = Vec::new();
    if !logs.targets.is_empty() {
        ops.push(if appends { append_of(logs) } else { logs });
    }
    if !timing.targets.is_empty() {
        ops.push(timing);
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn targets(op: Option<OpSpec>) -> Vec<String> {
        op.map(|o| o.targets.into_iter().map(|t| t.text).collect())
            .unwrap_or_default()
    }

    #[test]
    fn truncating_tools() {
        assert_eq!(targets(truncate(&args("-s 0 a b"))), ["a", "b"]);
        assert_eq!(targets(truncate(&args("-r ref.bin out.bin"))), ["out.bin"]);
        assert_eq!(targets(truncate(&args("--size=+1M log"))), ["log"]);
        assert!(truncate(&args("--help")).is_none());
        assert_eq!(targets(tee(&args("out.txt other"))), ["out.txt", "other"]);
        for appended in [tee(&args("-a log")), sponge(&args("-a log"))] {
            let appended = appended.expect("an append op");
            assert_eq!(appended.kind, agent_guard_types::OpKind::Append);
            assert_eq!(appended.targets[0].text, "log");
        }
        assert_eq!(targets(sponge(&args("f"))), ["f"]);
        assert_eq!(targets(fallocate(&args("-p -o 0 -l 4096 f"))), ["f"]);
        assert!(fallocate(&args("-l 1G f")).is_none());
        assert!(fallocate(&args("--dig-holes f")).is_none());
    }

    #[test]
    fn dd_operands() {
        assert_eq!(
            targets(dd(&args("if=/dev/zero of=disk.img bs=1M"))),
            ["disk.img"]
        );
        assert_eq!(targets(dd(&args("if=a of=/dev/sdb"))), ["/dev/sdb"]);
        let o = dd(&args("if=a of=b conv=notrunc")).unwrap();
        assert_eq!(o.write, WriteMode::InPlace);
        let appended = dd(&args("if=a of=b conv=notrunc oflag=append")).expect("an append");
        assert_eq!(appended.kind, agent_guard_types::OpKind::Append);
        assert!(dd(&args("if=a bs=1")).is_none());
        assert!(dd(&args("--help")).is_none());
    }

    #[test]
    fn named_outputs() {
        assert_eq!(targets(sort(&args("-o f f"))), ["f"]);
        assert_eq!(
            targets(sort(&args("-u --output=out.txt in.txt"))),
            ["out.txt"]
        );
        assert_eq!(targets(sort(&args("-ro out in"))), ["out"]);
        assert!(sort(&args("-k 2 in")).is_none());
        assert!(sort(&args("-c -o x in")).is_none());
        assert_eq!(targets(uniq(&args("in out"))), ["out"]);
        assert!(uniq(&args("-c in")).is_none());
        assert_eq!(targets(uniq(&args("-f 1 in out"))), ["out"]);
        assert_eq!(targets(iconv(&args("-f latin1 -t utf8 -o f f"))), ["f"]);
    }

    #[test]
    fn downloads() {
        assert_eq!(
            targets(curl(&args("-sSLo out.tgz https://x/y"))),
            ["out.tgz"]
        );
        assert_eq!(
            targets(curl(&args("-o - https://x/y"))),
            Vec::<String>::new()
        );
        assert_eq!(targets(curl(&args("-O https://x/a/b.tgz?v=1"))), ["b.tgz"]);
        assert_eq!(
            targets(curl(&args("--output-dir dl -O https://x/b.tgz"))),
            ["dl/b.tgz"]
        );
        assert!(curl(&args("-OJ https://x/y")).unwrap().undeterminable);
        assert!(curl(&args("https://x/y")).is_none());
        assert!(curl(&args("--no-clobber -o a https://x")).is_none());
        assert_eq!(
            targets(wget(&args("-qO page.html https://x/"))),
            ["page.html"]
        );
        assert!(wget(&args("-qO- https://x/")).is_none());
        assert!(wget(&args("https://x/a.tgz")).is_none());
        assert_eq!(targets(wget(&args("-N https://x/a.tgz"))), ["a.tgz"]);
        assert!(wget(&args("-r https://x/")).unwrap().undeterminable);
    }
}

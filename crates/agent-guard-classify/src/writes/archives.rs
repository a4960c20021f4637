//! Programs that consume their inputs: the stream compressors (`gzip`, `bzip2`, `xz`,
//! `lzma`, `zstd --rm`, `lz4 --rm`, `lzip`, `compress`, `pigz`, …), `zip -m`,
//! `tar --remove-files`, `7z -sdel`.
//!
//! A compressor replaces each input file by its output (`f` → `f.gz`, `f.gz` → `f`): the
//! input is read, then deleted, unless `-k`/`--keep`, `-c`/`--stdout` (or `-l`, `-t`).
//! `zstd` and `lz4` keep it unless `--rm`. An existing output is replaced only with `-f`
//! (otherwise they refuse); when its name is predictable it is an overwrite target.
//!
//! The archivers delete what they archived. `zip -m` without `-r` and
//! `tar --remove-files --no-recursion` take exactly the named files (a directory is removed
//! only when empty); with recursion (tar's default, `zip -r`, `7z` always) they consume
//! directory trees the guard cannot list before they run, which the policy cannot keep by
//! copying: undeterminable.

use agent_guard_types::{OpSpec, Target, WriteMode};

use super::{RECURSIVE, consume, file, overwrite};
use crate::args::Arg;

/// How one compressor family reads its arguments and names its outputs.
struct Family {
    /// Keeps its input unless `--rm` (`zstd`, `lz4`).
    keeps: bool,
    /// Decompresses by default (`gunzip`, `unxz`, …).
    decompresses: bool,
    /// The suffix it adds.
    suffix: &'static str,
    /// Short options that take a value (the rest of the word or the next one).
    valued: &'static str,
    /// Long options that take a value when none is attached.
    valued_long: &'static [&'static str],
}

fn family(name: &str) -> Family {
    let (keeps, suffix, valued, valued_long): (bool, &str, &str, &[&str]) = match name {
        "gzip" | "gunzip" | "pigz" | "unpigz" => {
            (false, ".gz", "Spb", &["suffix", "blocksize", "processes"])
        }
        "bzip2" | "bunzip2" | "pbzip2" | "lbzip2" => (false, ".bz2", "pbn", &[]),
        "xz" | "unxz" => (
            false,
            ".xz",
            "SFCTM",
            &[
                "suffix",
                "format",
                "check",
                "threads",
                "memlimit",
                "memory",
                "block-size",
                "block-list",
                "flush-timeout",
                "memlimit-compress",
                "memlimit-decompress",
                "memlimit-mt",
            ],
        ),
        "lzma" | "unlzma" => (
            false,
            ".lzma",
            "SFCTM",
            &["suffix", "format", "check", "threads", "memlimit"],
        ),
        "zstd" | "unzstd" => (
            true,
            ".zst",
            "oDT",
            &[
                "output-dir-flat",
                "output-dir-mirror",
                "memory",
                "format",
                "threads",
                "patch-from",
                "filelist",
            ],
        ),
        "lz4" => (true, ".lz4", "", &[]),
        "lzip" | "plzip" => (
            false,
            ".lz",
            "obmsn",
            &[
                "output",
                "member-size",
                "match-length",
                "dictionary-size",
                "threads",
                "data-size",
            ],
        ),
        _ => (false, ".Z", "b", &[]),
    };
    Family {
        keeps,
        decompresses: name.starts_with("un") || name == "gunzip",
        suffix,
        valued,
        valued_long,
    }
}

/// The name a decompressor gives its output, when it is predictable.
fn decompressed_name(input: &str, suffix: &str) -> Option<String> {
    for (from, to) in [
        (".tgz", ".tar"),
        (".taz", ".tar"),
        (".tbz2", ".tar"),
        (".tbz", ".tar"),
        (".txz", ".tar"),
        (".tzst", ".tar"),
    ] {
        if let Some(stem) = input.strip_suffix(from) {
            return Some(format!("{stem}{to}"));
        }
    }
    input
        .strip_suffix(suffix)
        .filter(|stem| !stem.is_empty() && !stem.ends_with('/'))
        .map(str::to_owned)
}

/// `gzip [-cdfkr…] [FILE…]` and its kin: the inputs consumed, and the outputs replaced
/// under `-f`.
pub(super) fn compressor(name: &str, args: &[Arg]) -> Option<Vec<OpSpec>> {
    // `zstd --output-dir-flat=DIR`, `--output-dir-mirror DIR`: the outputs land in a
    // directory the guard does not follow (and the inputs go, unless kept).
    if args
        .iter()
        .any(|a| a.known().is_some_and(|t| t.starts_with("--output-dir")))
    {
        let mut op = overwrite(name, WriteMode::Replace);
        op.mark_undeterminable(format!(
            "{name} --output-dir-… writes into another directory"
        ));
        return Some(vec![op]);
    }
    let family = family(name);
    let mut consumed = consume(name);
    let Compression {
        keep,
        stdout,
        force,
        recursive,
        names_from_header,
        decompress,
        multiple,
        mut output,
        mut inputs,
    } = compression(name, &family, args, &mut consumed)?;
    if stdout {
        return None;
    }
    // `lz4 IN OUT` names its output (unless `-m`).
    if name == "lz4" && !multiple && inputs.len() == 2 {
        output = inputs.pop();
    }
    let mut ops = Vec::new();
    if !keep && output.is_none() {
        consumed.targets = inputs.iter().map(|a| file(a, false)).collect();
        if recursive {
            consumed.recursive = true;
            consumed.mark_undeterminable(format!("{name} -r {RECURSIVE}"));
        }
        ops.push(consumed);
    } else if recursive && !keep {
        consumed.recursive = true;
        consumed.mark_undeterminable(format!("{name} -r {RECURSIVE}"));
        ops.push(consumed);
    }
    if force {
        let mut replaced = overwrite(name, WriteMode::Replace);
        replaced.note(format!("{name} -f replaces an existing output file"));
        match output {
            Some(out) => replaced.targets.push(file(out, false)),
            None => {
                for input in &inputs {
                    let Some(text) = input.known() else {
                        replaced.targets.push(file(input, false));
                        continue;
                    };
                    let out = if decompress {
                        if names_from_header {
                            replaced.mark_undeterminable(format!(
                                "{name} -N names the output from the archive header"
                            ));
                            continue;
                        }
                        decompressed_name(text, family.suffix)
                    } else {
                        Some(format!("{text}{}", family.suffix))
                    };
                    if let Some(out) = out {
                        replaced.targets.push(Target {
                            text: out,
                            ..file(input, false)
                        });
                    }
                }
            }
        }
        if !replaced.targets.is_empty() || replaced.undeterminable {
            ops.push(replaced);
        }
    }
    Some(ops)
}

/// What a compressor's command line asks for.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts read from the options, not a state machine"
)]
struct Compression<'a> {
    /// The inputs are kept (`-k`, or `zstd`/`lz4` without `--rm`).
    keep: bool,
    /// The output goes to stdout, or nothing is written (`-c`, `-l`, `-t`).
    stdout: bool,
    /// An existing output is replaced (`-f`).
    force: bool,
    /// Directories are walked (`-r`).
    recursive: bool,
    /// A decompressed output is named from the archive header (`-N`).
    names_from_header: bool,
    /// It decompresses rather than compresses.
    decompress: bool,
    /// `lz4 -m`: every operand is an input.
    multiple: bool,
    /// The output file named with `-o` / `--output`.
    output: Option<&'a Arg>,
    /// The input files.
    inputs: Vec<&'a Arg>,
}

/// Reads a compressor's options and operands; `None` for `--help` and `--version`. A list
/// of file names read from a file makes `consumed` undeterminable.
fn compression<'a>(
    name: &str,
    family: &Family,
    args: &'a [Arg],
    consumed: &mut OpSpec,
) -> Option<Compression<'a>> {
    let (mut keep, mut stdout, mut force, mut recursive, mut names_from_header) =
        (family.keeps, false, false, false, false);
    let mut decompress = family.decompresses;
    let mut multiple = false;
    let mut output: Option<&Arg> = None;
    let mut inputs: Vec<&Arg> = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg
            .known()
            .filter(|t| !options_done && t.starts_with('-') && t.len() > 1)
        else {
            if arg.known() == Some("--") && !options_done {
                options_done = true;
            } else if arg.known() != Some("-") {
                inputs.push(arg);
            }
            continue;
        };
        if let Some(long) = text.strip_prefix("--") {
            let (option, attached) = long
                .split_once('=')
                .map_or((long, false), |(o, _)| (o, true));
            match option {
                "keep" => keep = true,
                "rm" => keep = false,
                "stdout" | "to-stdout" | "list" | "test" => stdout = true,
                "force" => force = true,
                "decompress" | "uncompress" => decompress = true,
                "compress" => decompress = false,
                "recursive" => recursive = true,
                "name" => names_from_header = true,
                "help" | "version" | "license" => return None,
                "output" if !attached => output = args.get(index),
                "files" | "files0" | "filelist" => {
                    consumed
                        .mark_undeterminable(format!("{name} reads the file names from a file"));
                }
                _ => {}
            }
            if !attached && (family.valued_long.contains(&option) || option == "output") {
                index += 1;
            }
            continue;
        }
        for (at, letter) in text[1..].char_indices() {
            match letter {
                'k' => keep = true,
                'm' if name == "lz4" => multiple = true,
                'c' | 't' => stdout = true,
                'l' if name != "lz4" => stdout = true,
                'f' => force = true,
                'd' => decompress = true,
                'z' => decompress = false,
                'r' => recursive = true,
                'N' => names_from_header = true,
                'h' | 'V' | 'L' | 'H' => return None,
                _ if family.valued.contains(letter) => {
                    if letter == 'o' {
                        output = if text.len() > at + 2 {
                            None
                        } else {
                            args.get(index)
                        };
                    }
                    if text.len() == at + 2 {
                        index += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    Some(Compression {
        keep,
        stdout,
        force,
        recursive,
        names_from_header,
        decompress,
        multiple,
        output,
        inputs,
    })
}

/// `zip [-m] [-r] ZIPFILE FILE…`: `-m` (`--move`) deletes what it archived. The first
/// operand is the archive; the archive itself is updated, not destroyed.
pub(super) fn zip(args: &[Arg]) -> Option<OpSpec> {
    const VALUED: &str = "bnOtTxiAYPsZ";
    let (mut moves, mut recursive) = (false, false);
    let mut operands: Vec<&Arg> = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        match arg.known() {
            Some("--move") => moves = true,
            Some("--recurse-paths" | "--recurse-patterns") => recursive = true,
            Some("-x" | "--exclude" | "-i" | "--include") => {
                // Lists of patterns run to the next option.
                while args
                    .get(index)
                    .and_then(Arg::known)
                    .is_some_and(|t| !t.starts_with('-'))
                {
                    index += 1;
                }
            }
            Some(text) if text.starts_with("--") => {}
            Some(text) if text.starts_with('-') && text.len() > 1 => {
                for letter in text[1..].chars() {
                    match letter {
                        'm' => moves = true,
                        'r' | 'R' => recursive = true,
                        'h' => return None,
                        _ if VALUED.contains(letter) => {
                            index += 1;
                            break;
                        }
                        _ => {}
                    }
                }
            }
            _ => operands.push(arg),
        }
    }
    if !moves {
        return None;
    }
    let mut op = consume("zip");
    op.targets = operands.iter().skip(1).map(|a| file(a, false)).collect();
    op.note("zip -m deletes the files it archived");
    if recursive {
        op.recursive = true;
        op.mark_undeterminable(format!("zip -m -r {RECURSIVE}"));
    }
    Some(op)
}

/// tar's long options that take the next word as their value.
const TAR_VALUED: &[&str] = &[
    "file",
    "directory",
    "exclude",
    "files-from",
    "exclude-from",
    "transform",
    "xform",
    "use-compress-program",
    "label",
    "newer",
    "after-date",
    "owner",
    "group",
    "mode",
    "mtime",
    "format",
    "blocking-factor",
    "record-size",
    "tape-length",
    "volno-file",
    "info-script",
    "new-volume-script",
    "index-file",
    "checkpoint-action",
    "to-command",
    "rsh-command",
    "suffix",
    "backup",
    "level",
    "listed-incremental",
    "sort",
    "strip-components",
    "warning",
];

/// tar's short options that take a value.
const TAR_SHORT_VALUED: &str = "fbCFgHKLNTVX";

/// `tar -c -f ARCHIVE …` truncates and rewrites ARCHIVE; `tar --remove-files …` deletes
/// the inputs it archived. The operands that are not another option's value are the inputs.
pub(super) fn tar(name: &str, args: &[Arg]) -> Vec<OpSpec> {
    let mut archive: Option<Target> = None;
    let (mut creates, mut removes, mut no_recursion) = (false, false, false);
    let mut moved: Option<&'static str> = None;
    let mut inputs = Vec::new();
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        let Some(text) = arg.known() else {
            inputs.push(file(arg, false));
            continue;
        };
        if let Some(long) = text.strip_prefix("--") {
            let (option, value) = match long.split_once('=') {
                Some((o, v)) => (o, Some(Target::literal(v))),
                None if TAR_VALUED.contains(&long) => {
                    index += 1;
                    (long, args.get(index - 1).map(|a| file(a, true)))
                }
                None => (long, None),
            };
            match option {
                "file" => archive = value,
                "create" => creates = true,
                "no-recursion" => no_recursion = true,
                "directory" => moved = Some("tar -C changes the directory inputs are read from"),
                "files-from" => moved = Some("tar reads the names of its inputs from a file"),
                _ if option.len() > 5 && "remove-files".starts_with(option) => removes = true,
                _ => {}
            }
            continue;
        }
        // The traditional first word is a cluster without a dash (`czf out.tgz`).
        let letters = if text.starts_with('-') && text.len() > 1 {
            &text[1..]
        } else if index == 1 && text.chars().all(|c| c.is_ascii_alphabetic()) {
            text
        } else {
            inputs.push(file(arg, false));
            continue;
        };
        let dashed = text.starts_with('-');
        for (at, letter) in letters.char_indices() {
            if letter == 'c' {
                creates = true;
            }
            if !TAR_SHORT_VALUED.contains(letter) {
                continue;
            }
            // A dashed cluster's value is the rest of the word; otherwise the next word.
            let value = if dashed && at + 1 < letters.len() {
                Some(Target::literal(&letters[at + 1..]))
            } else {
                index += 1;
                args.get(index - 1).map(|a| file(a, true))
            };
            match letter {
                'f' => archive = value,
                'C' => moved = Some("tar -C changes the directory inputs are read from"),
                'T' => moved = Some("tar reads the names of its inputs from a file"),
                _ => {}
            }
            if dashed {
                break;
            }
        }
    }
    let mut ops = Vec::new();
    if creates && let Some(archive) = archive.filter(|a| a.text != "-") {
        let mut op = overwrite(name, WriteMode::InPlace);
        op.targets.push(Target {
            through_symlink: true,
            ..archive
        });
        op.note("tar -c truncates the archive it writes");
        ops.push(op);
    }
    if removes {
        let mut op = consume(name);
        op.targets = inputs;
        op.note("tar --remove-files deletes what it archived");
        if let Some(why) = moved {
            op.mark_undeterminable(why);
        }
        if !no_recursion {
            op.recursive = true;
            op.mark_undeterminable(format!(
                "{name} --remove-files {RECURSIVE} (with --no-recursion it takes files only)"
            ));
        }
        ops.push(op);
    }
    ops
}

/// `7z a ARCHIVE FILE… -sdel`: deletes what it archived, recursing into directories.
pub(super) fn seven_zip(name: &str, args: &[Arg]) -> Option<OpSpec> {
    if !args.iter().any(|a| a.known() == Some("-sdel")) {
        return None;
    }
    let mut op = consume(name);
    op.targets = args
        .iter()
        .filter(|a| !a.is_option())
        .skip(2)
        .map(|a| file(a, false))
        .collect();
    op.recursive = true;
    op.mark_undeterminable(format!("{name} -sdel {RECURSIVE}"));
    Some(op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_guard_types::OpKind;

    fn args(line: &str) -> Vec<Arg> {
        line.split_whitespace().map(Arg::literal).collect()
    }

    fn summary(ops: &[OpSpec]) -> Vec<(OpKind, Vec<&str>, bool)> {
        ops.iter()
            .map(|o| {
                (
                    o.kind,
                    o.targets.iter().map(|t| t.text.as_str()).collect(),
                    o.undeterminable,
                )
            })
            .collect()
    }

    #[test]
    fn compressors_consume_their_inputs() {
        let ops = compressor("gzip", &args("notes.txt report.txt")).unwrap();
        assert_eq!(
            summary(&ops),
            [(
                OpKind::SideEffectDelete,
                vec!["notes.txt", "report.txt"],
                false
            )]
        );
        assert_eq!(ops[0].write, WriteMode::ReadThenRemove);
        for kept in [
            "-k f",
            "--keep f",
            "-c f",
            "--stdout f",
            "-l f.gz",
            "-t f.gz",
            "-dc f.gz",
        ] {
            assert!(
                compressor("gzip", &args(kept))
                    .unwrap_or_default()
                    .is_empty(),
                "{kept}"
            );
        }
        assert!(compressor("zstd", &args("f")).unwrap().is_empty());
        assert_eq!(
            summary(&compressor("zstd", &args("--rm f")).unwrap())[0].1,
            ["f"]
        );
        assert!(compressor("lz4", &args("f")).unwrap().is_empty());
        let ops = compressor("lz4", &args("-f in out.lz4")).unwrap();
        assert_eq!(summary(&ops), [(OpKind::Overwrite, vec!["out.lz4"], false)]);
        assert_eq!(
            summary(&compressor("xz", &args("-T0 -9 f")).unwrap())[0].1,
            ["f"]
        );
        assert_eq!(
            summary(&compressor("gunzip", &args("f.gz")).unwrap())[0].1,
            ["f.gz"]
        );
        assert!(compressor("gzip", &args("-r build")).unwrap()[0].undeterminable);
        assert!(compressor("gzip", &args("--help")).is_none());
    }

    #[test]
    fn forced_outputs_are_replaced() {
        let ops = compressor("gzip", &args("-f notes.txt")).unwrap();
        assert_eq!(
            summary(&ops)[1],
            (OpKind::Overwrite, vec!["notes.txt.gz"], false)
        );
        let ops = compressor("gzip", &args("-df a.txt.gz b.tgz")).unwrap();
        assert_eq!(summary(&ops)[1].1, ["a.txt", "b.tar"]);
        let ops = compressor("bzip2", &args("-kf a")).unwrap();
        assert_eq!(summary(&ops), [(OpKind::Overwrite, vec!["a.bz2"], false)]);
        let ops = compressor("zstd", &args("-f a -o out.zst")).unwrap();
        assert_eq!(summary(&ops), [(OpKind::Overwrite, vec!["out.zst"], false)]);
        let ops = compressor("gzip", &args("-dfN a.gz")).unwrap();
        assert!(ops[1].undeterminable);
    }

    #[test]
    fn archivers() {
        let o = zip(&args("-m out.zip a.txt b.txt")).unwrap();
        assert_eq!(
            summary(&[o]),
            [(OpKind::SideEffectDelete, vec!["a.txt", "b.txt"], false)]
        );
        assert!(zip(&args("-rm out.zip build")).unwrap().undeterminable);
        assert!(zip(&args("-r out.zip build")).is_none());
        let ops = tar(
            "tar",
            &args("--remove-files --no-recursion -cf a.tar notes.txt"),
        );
        assert_eq!(
            summary(&ops),
            [
                (OpKind::Overwrite, vec!["a.tar"], false),
                (OpKind::SideEffectDelete, vec!["notes.txt"], false)
            ]
        );
        let ops = tar("tar", &args("czf out.tgz --remove-files notes.txt"));
        assert!(ops[1].undeterminable && ops[1].recursive);
        assert_eq!(ops[1].targets[0].text, "notes.txt");
        let ops = tar(
            "tar",
            &args("-czf out.tgz --no-recursion --remove-files a b"),
        );
        assert_eq!(summary(&ops)[1].1, ["a", "b"]);
        assert_eq!(
            summary(&tar("tar", &args("czf out.tgz build")))[0].1,
            ["out.tgz"]
        );
        assert!(tar("tar", &args("xzf in.tgz")).is_empty());
        assert!(tar("tar", &args("-czf - build")).is_empty());
        assert!(tar("tar", &args("-C src -cf a.tar --remove-files x"))[1].undeterminable);
        assert!(
            seven_zip("7z", &args("a out.7z build -sdel"))
                .unwrap()
                .undeterminable
        );
    }
}

//! Turns `data/read_only.toml`, the table of programs known to change no file (issue 38),
//! into static Rust tables in `OUT_DIR/read_only.rs`, which `src/read_only.rs` includes.
//!
//! Reading the table at compile time keeps `check`'s start-up free of parsing; checking it
//! here makes a malformed entry, an unknown key or a name listed twice a build error
//! rather than a silent gap.

#![allow(
    clippy::disallowed_methods,
    clippy::expect_used,
    clippy::panic,
    reason = "a build script reports a broken table by failing the build"
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    default: Options,
    query: Query,
    program: Vec<Program>,
    modelled: Names,
    cmd: Names,
    powershell: PowerShell,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    writes: Vec<String>,
    runs: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Query {
    contains: Vec<String>,
    short: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Program {
    names: Vec<String>,
    #[serde(default)]
    writes: Vec<String>,
    #[serde(default)]
    runs: Vec<String>,
    #[serde(default = "yes")]
    defaults: bool,
    operands: Option<u8>,
    #[serde(default)]
    plus_runs: bool,
    #[serde(default)]
    bundled: bool,
    #[serde(default)]
    commands: Vec<String>,
    rule: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Names {
    names: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PowerShell {
    verbs: Vec<String>,
    names: Vec<String>,
}

/// `"-o"` → `Opt::Short('o')`, `"--output"` → `Opt::Long("output")`, `"-dump"` →
/// `Opt::Word("-dump")`.
fn option(text: &str) -> String {
    if let Some(long) = text.strip_prefix("--") {
        assert!(
            long.len() >= 2,
            "read_only.toml: long option {text:?} is too short"
        );
        format!("Opt::Long({long:?})")
    } else if let Some(short) = text.strip_prefix('-') {
        let mut letters = short.chars();
        match (letters.next(), letters.next()) {
            (Some(letter), None) => format!("Opt::Short({letter:?})"),
            (Some(_), Some(_)) => format!("Opt::Word({text:?})"),
            _ => panic!("read_only.toml: {text:?} is not an option"),
        }
    } else {
        panic!("read_only.toml: option {text:?} must start with a dash")
    }
}

fn options(texts: &[String]) -> String {
    let list: Vec<String> = texts.iter().map(|t| option(t)).collect();
    format!("&[{}]", list.join(", "))
}

fn strs(texts: &[String]) -> String {
    format!("&{texts:?}")
}

/// A sorted, duplicate-free name list for binary search.
fn sorted(names: &[String], table: &str) -> String {
    let mut list = names.to_vec();
    list.sort();
    for pair in list.windows(2) {
        if let [first, second] = pair {
            assert!(
                first != second,
                "read_only.toml: {table} lists {first:?} twice"
            );
        }
    }
    strs(&list)
}

fn main() {
    println!("cargo::rerun-if-changed=data/read_only.toml");
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{dir}/data/read_only.toml"))
        .expect("data/read_only.toml is readable");
    let table: Table = toml::from_str(&text).unwrap_or_else(|e| panic!("read_only.toml: {e}"));

    let mut readers: BTreeMap<&str, String> = BTreeMap::new();
    for program in &table.program {
        let rule = match program.rule.as_deref() {
            None => "None",
            Some("awk") => "Some(Rule::Awk)",
            Some(other) => panic!("read_only.toml: unknown rule {other:?}"),
        };
        for name in &program.names {
            let entry = format!(
                "Reader {{ name: {name:?}, writes: {}, runs: {}, defaults: {}, operands: {:?}, \
                 plus_runs: {}, bundled: {}, commands: {}, rule: {rule} }}",
                options(&program.writes),
                options(&program.runs),
                program.defaults,
                program.operands,
                program.plus_runs,
                program.bundled,
                strs(&program.commands),
            );
            assert!(
                readers.insert(name, entry).is_none(),
                "read_only.toml: program {name:?} is listed twice"
            );
            assert!(
                !table.modelled.names.contains(name),
                "read_only.toml: {name:?} is both read-only and a modelled writer"
            );
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/// Generated from `data/read_only.toml` by `build.rs`."
    );
    let _ = writeln!(out, "static READERS: &[Reader] = &[");
    for entry in readers.values() {
        let _ = writeln!(out, "    {entry},");
    }
    let _ = writeln!(out, "];");
    let _ = writeln!(
        out,
        "static DEFAULT_WRITES: &[Opt] = {};",
        options(&table.default.writes)
    );
    let _ = writeln!(
        out,
        "static DEFAULT_RUNS: &[Opt] = {};",
        options(&table.default.runs)
    );
    let _ = writeln!(
        out,
        "static QUERY_CONTAINS: &[&str] = {};",
        strs(&table.query.contains)
    );
    let _ = writeln!(
        out,
        "static QUERY_SHORT: &[&str] = {};",
        strs(&table.query.short)
    );
    let _ = writeln!(
        out,
        "static MODELLED: &[&str] = {};",
        sorted(&table.modelled.names, "[modelled]")
    );
    let _ = writeln!(
        out,
        "static CMD: &[&str] = {};",
        sorted(&table.cmd.names, "[cmd]")
    );
    let _ = writeln!(
        out,
        "static POWERSHELL: &[&str] = {};",
        sorted(&table.powershell.names, "[powershell]")
    );
    let _ = writeln!(
        out,
        "static READ_VERBS: &[&str] = {};",
        sorted(&table.powershell.verbs, "[powershell] verbs")
    );
    let path = format!(
        "{}/read_only.rs",
        std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")
    );
    std::fs::write(path, out).expect("OUT_DIR is writable");
}

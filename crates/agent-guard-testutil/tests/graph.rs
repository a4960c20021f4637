//! The crate graph stays as designed: every internal dependency is one `crates/README.md`
//! allows, read from `cargo metadata`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    dependencies: Vec<Dependency>,
}

#[derive(Debug, Deserialize)]
struct Dependency {
    name: String,
    kind: Option<String>,
}

/// Crate → the internal crates its row allows, from the README's table.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let text = std::fs::read_to_string(&readme).expect("crates/README.md is readable");
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| crate | holds | may depend on |` → ["", crate, holds, deps, ""].
        let [_, name, _, deps, _] = cells.as_slice() else {
            continue;
        };
        let Some(name) = name
            .strip_prefix('`')
            .and_then(|n| n.strip_suffix('`'))
            .filter(|n| n.starts_with("agent-guard-"))
        else {
            continue;
        };
        let deps: BTreeSet<String> = deps
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != "—")
            .map(|d| format!("agent-guard-{d}"))
            .collect();
        rows.insert(name.to_owned(), deps);
    }
    rows
}

fn metadata() -> Metadata {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn every_internal_dependency_is_allowed_by_the_table() {
    let allowed = allowed();
    let metadata = metadata();
    let mut problems = Vec::new();
    for package in &metadata.packages {
        let Some(rules) = allowed.get(&package.name) else {
            problems.push(format!("{} has no row in crates/README.md", package.name));
            continue;
        };
        for dependency in &package.dependencies {
            let internal = dependency.name.starts_with("agent-guard-");
            let dev = dependency.kind.as_deref() == Some("dev");
            if internal && !dev && !rules.contains(&dependency.name) {
                problems.push(format!(
                    "{} depends on {}, which its row does not allow",
                    package.name, dependency.name
                ));
            }
            if dependency.name == "agent-guard-testutil" && !dev {
                problems.push(format!("{} uses testutil outside tests", package.name));
            }
            let external_owner: &[&str] = match dependency.name.as_str() {
                "git2" => &[
                    "agent-guard-git",
                    "agent-guard-checkpoint",
                    "agent-guard-world",
                    "agent-guard-testutil",
                ],
                "rmcp" | "tokio" => &["agent-guard-mcp"],
                "clap" => &["agent-guard-cli", "agent-guard-mcp"],
                _ => &[],
            };
            if !dev
                && !external_owner.is_empty()
                && !external_owner.contains(&package.name.as_str())
            {
                problems.push(format!(
                    "{} depends on {}, which only {external_owner:?} may",
                    package.name, dependency.name
                ));
            }
        }
    }
    for name in allowed.keys() {
        if !metadata.packages.iter().any(|p| &p.name == name) {
            problems.push(format!(
                "crates/README.md lists {name}, which does not exist"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The front ends reach the layers below only through the engine (issue 10's façade).
#[test]
fn the_front_ends_depend_on_the_engine_only() {
    let metadata = metadata();
    for front in ["agent-guard-cli", "agent-guard-mcp"] {
        let package = metadata
            .packages
            .iter()
            .find(|p| p.name == front)
            .expect("the front end exists");
        for forbidden in [
            "agent-guard-recovery",
            "agent-guard-quarantine",
            "agent-guard-git",
            "agent-guard-config",
            "agent-guard-session",
            "git2",
        ] {
            assert!(
                package
                    .dependencies
                    .iter()
                    .all(|d| d.name != forbidden || d.kind.as_deref() == Some("dev")),
                "{front} depends on {forbidden}"
            );
        }
    }
}

/// The table's own check catches a violation (so that the test above cannot pass vacuously).
#[test]
fn the_table_is_read() {
    let allowed = allowed();
    assert!(allowed.len() >= 15, "{allowed:?}");
    assert!(allowed["agent-guard-types"].is_empty());
    assert!(allowed["agent-guard-cli"].contains("agent-guard-engine"));
    assert!(!allowed["agent-guard-cli"].contains("agent-guard-recovery"));
}

/// Non-test lines of Rust under `dir`: every `.rs` file but `tests.rs` files, each up to
/// its `#[cfg(test)]` module.
fn non_test_lines(dir: &Path) -> usize {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory is readable") {
            let path = entry.expect("an entry is readable").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                let text = std::fs::read_to_string(&path).expect("a source file is readable");
                total += text
                    .lines()
                    .take_while(|line| !line.starts_with("#[cfg(test)]"))
                    .count();
            }
        }
    }
    total
}

/// One head can hold a crate (issue 36): no crate but the rule crate (classify) has over
/// 8,000 lines of non-test code.
#[test]
fn no_crate_but_the_rules_is_over_8000_lines() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut over = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates/ is readable") {
        let dir = entry.expect("an entry is readable").path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if !dir.join("src").is_dir() || name == "agent-guard-classify" {
            continue;
        }
        let lines = non_test_lines(&dir.join("src"));
        if lines > 8_000 {
            over.push(format!("{name}: {lines} non-test lines"));
        }
    }
    assert!(over.is_empty(), "split these: {}", over.join(", "));
}

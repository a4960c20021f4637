//! The "regenerable" fact against git as the oracle (issue 36): for every path of a tree,
//! `World::git_ignored` ⇔ `git check-ignore` says ignored ∧ `git ls-files` has nothing at or
//! below it. The scenarios of `tests/data/ignore_cases.toml`, then random ignore files over
//! random trees (proptest).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agent_guard_world::RealWorld;
use proptest::prelude::*;
use serde::Deserialize;

use crate::support::{Scratch, git, git_init};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    tracked: Vec<String>,
    #[serde(default)]
    info_exclude: Option<String>,
    #[serde(default)]
    user_ignore: Option<String>,
    #[serde(default)]
    excludes_file: Option<String>,
    #[serde(default)]
    ignorecase: bool,
    #[serde(default)]
    symlinks: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

/// A built case: the work tree, and git's per-user directory.
struct Built {
    scratch: Scratch,
    ws: PathBuf,
    user_dir: PathBuf,
}

impl Built {
    fn new(case: &Case) -> Built {
        let scratch = Scratch::new();
        let ws = scratch.path("ws");
        git_init(&ws);
        let user_dir = scratch.dir("xdg/git");
        for (path, content) in &case.files {
            match path.strip_suffix('/') {
                Some(dir) => drop(scratch.dir(&format!("ws/{dir}"))),
                None => drop(scratch.file(&format!("ws/{path}"), content)),
            }
        }
        for (path, target) in &case.symlinks {
            scratch.link(&format!("ws/{path}"), target);
        }
        if let Some(text) = &case.info_exclude {
            scratch.file("ws/.git/info/exclude", text);
        }
        if let Some(text) = &case.user_ignore {
            scratch.file("xdg/git/ignore", text);
        }
        if let Some(text) = &case.excludes_file {
            let file = scratch.file("excludes", text);
            git(
                &ws,
                &["config", "core.excludesFile", file.to_str().unwrap()],
            );
        }
        git(
            &ws,
            &["config", "core.ignorecase", &case.ignorecase.to_string()],
        );
        if !case.tracked.is_empty() {
            let mut add = vec!["add", "-f", "--"];
            add.extend(case.tracked.iter().map(String::as_str));
            git(&ws, &add);
            git(&ws, &["commit", "-q", "-m", "tracked"]);
        }
        Built {
            scratch,
            ws,
            user_dir,
        }
    }

    /// Every path of the work tree but `.git`, workspace-relative.
    fn paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        let mut stack = vec![self.ws.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                let relative = path.strip_prefix(&self.ws).unwrap().to_str().unwrap();
                if relative == ".git" {
                    continue;
                }
                paths.push(relative.to_owned());
                if entry.file_type().unwrap().is_dir() {
                    stack.push(path);
                }
            }
        }
        paths.sort();
        paths
    }

    /// What git says: the paths `git check-ignore --no-index` ignores, and the tracked ones.
    fn oracle(&self, paths: &[String]) -> (BTreeSet<String>, Vec<String>) {
        let mut child = Command::new("git")
            .current_dir(&self.ws)
            .env("XDG_CONFIG_HOME", self.scratch.path("xdg"))
            .env("HOME", self.scratch.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["check-ignore", "--no-index", "--stdin", "-z"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = Vec::new();
        for path in paths {
            input.extend_from_slice(path.as_bytes());
            input.push(0);
        }
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let output = child.wait_with_output().unwrap();
        let ignored = output
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8(p.to_vec()).unwrap())
            .collect();
        let tracked = git(&self.ws, &["ls-files", "-z"])
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        (ignored, tracked)
    }

    /// The paths where the guard and git disagree, each with both answers.
    fn disagreements(&self) -> Vec<String> {
        let paths = self.paths();
        let (ignored, tracked) = self.oracle(&paths);
        let world = RealWorld::new(self.ws.clone(), self.scratch.path("store"), None)
            .with_git_user_dir(Some(self.user_dir.clone()));
        paths
            .iter()
            .filter_map(|path| {
                let below = format!("{path}/");
                let untracked = !tracked.iter().any(|t| t == path || t.starts_with(&below));
                let git_says = ignored.contains(path) && untracked;
                let guard_says = world.git_ignored(Path::new(path));
                (git_says != guard_says).then(|| {
                    format!(
                        "{path}: git says regenerable={git_says} (ignored={}, untracked={untracked}), \
                         the guard {guard_says}",
                        ignored.contains(path)
                    )
                })
            })
            .collect()
    }
}

#[test]
fn every_scenario_agrees_with_git() {
    let text = include_str!("../data/ignore_cases.toml");
    let cases: Cases = toml::from_str(text).unwrap();
    assert!(cases.case.len() >= 15, "the corpus is loaded");
    let mut failures = Vec::new();
    for case in &cases.case {
        let built = Built::new(case);
        for problem in built.disagreements() {
            failures.push(format!("{}: {problem}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Candidate files of the random trees: names that patterns below can hit at several depths.
const FILES: &[&str] = &[
    "x.log",
    "keep",
    "build/o",
    "a/x.log",
    "a/keep",
    "a/build/o",
    "a/b/out",
    "a/b/x.log",
    "a/b/build/keep",
    "c/out/y",
    "c/keep.log",
    "out/k",
];
/// Directories that may hold a `.gitignore`.
const DIRS: &[&str] = &["", "a/", "a/b/", "c/", "build/", "out/"];
/// Pattern pieces.
const SEGMENTS: &[&str] = &[
    "build", "*.log", "keep", "out", "a", "b", "**", "?ut", "[ab]", "k*", "*",
];

fn pattern() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(prop::sample::select(SEGMENTS), 1..=3),
        any::<bool>(),
    )
        .prop_map(|(negated, anchored, segments, dir_only)| {
            let mut text = String::new();
            if negated {
                text.push('!');
            }
            if anchored {
                text.push('/');
            }
            text.push_str(&segments.join("/"));
            if dir_only {
                text.push('/');
            }
            text
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::subsequence(FILES, 1..=FILES.len()),
        prop::collection::btree_map(
            prop::sample::select(DIRS),
            prop::collection::vec(pattern(), 1..=4),
            1..=3,
        ),
        prop::collection::vec(any::<bool>(), FILES.len()),
        prop::option::of(prop::collection::vec(pattern(), 1..=2)),
    )
        .prop_map(|(files, ignores, tracked, exclude)| {
            let mut case = Case {
                name: "random".to_owned(),
                ..Case::default()
            };
            for file in &files {
                case.files.insert((*file).to_owned(), "x".to_owned());
            }
            case.tracked = files
                .iter()
                .zip(&tracked)
                .filter(|(_, t)| **t)
                .map(|(f, _)| (*f).to_owned())
                .collect();
            for (dir, patterns) in ignores {
                // A `.gitignore` only where its directory exists (else git never reads it).
                if dir.is_empty() || files.iter().any(|f| f.starts_with(dir)) {
                    case.files
                        .insert(format!("{dir}.gitignore"), patterns.join("\n") + "\n");
                }
            }
            case.info_exclude = exclude.map(|p| p.join("\n") + "\n");
            case
        })
}

proptest! {
    // `PROPTEST_CASES` sets the count (256 by default and in CI).
    /// Random ignore files (negations, anchors, `**`, directory-only, character classes)
    /// over random trees with random tracked files: the guard's "regenerable" is git's.
    #[test]
    fn random_ignore_files_agree_with_git(case in case()) {
        let built = Built::new(&case);
        let problems = built.disagreements();
        prop_assert!(problems.is_empty(), "{case:?}\n{}", problems.join("\n"));
    }
}

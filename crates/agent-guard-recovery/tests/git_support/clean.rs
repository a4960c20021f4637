//! `enumerate_clean` against `git clean -n`: hand-made trees with awkward names, ignore
//! rules, nested repositories and pathspecs, and randomly generated trees, for every
//! supported flag combination, run from the root and from subdirectories.

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::git_support::GitOps as _;
use agent_guard_recovery::{Quarantine, RecoveryError};

use crate::git_support::{Fixture, Rng, clean_oracle, clean_oracle_with, git, normalize, remove};

const FLAG_SETS: [&[&str]; 6] = [&["-f"], &["-fd"], &["-fx"], &["-fX"], &["-fdx"], &["-fdX"]];

/// Compares one invocation; returns a description of the mismatch.
fn compare(
    quarantine: &Quarantine,
    cwd: &Path,
    flags: &[&str],
    pathspecs: &[&str],
) -> Option<String> {
    let expected = clean_oracle(cwd, flags, pathspecs);
    let owned = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let actual = quarantine.enumerate_clean(cwd, &owned(flags), &owned(pathspecs));
    let describe = || format!("git clean {flags:?} -- {pathspecs:?} in {}", cwd.display());
    match (expected, actual) {
        (Some(expected), Ok(actual)) => {
            let actual: BTreeSet<PathBuf> = actual.into_iter().collect();
            let expected: BTreeSet<PathBuf> = expected
                .into_iter()
                .filter(|p| !p.starts_with(quarantine.trash()))
                .collect();
            (actual != expected).then(|| {
                format!(
                    "{}:\n  missing: {:?}\n  extra: {:?}",
                    describe(),
                    expected.difference(&actual).collect::<Vec<_>>(),
                    actual.difference(&expected).collect::<Vec<_>>()
                )
            })
        }
        (None, Err(_)) => None,
        (Some(_), Err(error)) => Some(format!(
            "{}: git succeeds, we failed: {error:?}",
            describe()
        )),
        (None, Ok(actual)) => Some(format!("{}: git refuses, we listed {actual:?}", describe())),
    }
}

/// A tree with every case the brief names: awkward names, ignore rules with negations,
/// ignored and mixed directories, nested repositories, symlinks, an ignored tracked
/// directory.
fn awkward_tree() -> Fixture {
    let fixture = Fixture::with_commit(&[
        (".gitignore", "*.log\nig/\nigx/\n!keep.log\nbuild/\n*.tmp\n"),
        ("t/tracked.txt", "t"),
        ("t/.gitignore", "local.txt\n!important.tmp\n"),
        ("t/sub/tracked.txt", "t"),
        ("build/tracked.o", "o"),
        ("docs/readme.md", "d"),
        ("replaced", "a tracked file that becomes a directory"),
    ]);
    for (path, content) in [
        ("top.txt", "u"),
        ("top.log", "i"),
        ("with space.txt", "u"),
        ("line\nbreak.txt", "u"),
        ("quote\"backslash\\tab\t.txt", "u"),
        ("中文笔记.txt", "u"),
        ("-dash.txt", "u"),
        ("t/untracked.txt", "u"),
        ("t/x.log", "i"),
        ("t/local.txt", "i"),
        ("t/important.tmp", "u"),
        ("t/sub/deep.tmp", "i"),
        ("t/sub/new dir/f.txt", "u"),
        ("u/f.txt", "u"),
        ("u/v/g.txt", "u"),
        ("ig/i.txt", "i"),
        ("ig/more.txt", "i"),
        ("igx/f", "i"),
        ("allig/x.log", "i"),
        ("allig/deep/y.log", "i"),
        ("allig2/q.log", "i"),
        ("mix/a.txt", "u"),
        ("mix/b.log", "i"),
        ("mix/keep.log", "u"),
        ("mixsub/a.txt", "u"),
        ("mixsub/s/z.log", "i"),
        ("mixer/m.log", "i"),
        ("mixer/m.txt", "u"),
        ("nest/q.txt", "u"),
        ("build/extra.txt", "i"),
        ("build/keep.log", "i"),
        ("docs/中文/笔记.md", "u"),
        ("sp ace dir/a b.txt", "u"),
    ] {
        fixture.write(path, content);
    }
    for dir in ["e", "allig2/emp", "u/empty"] {
        fs_err::create_dir_all(fixture.path(dir)).expect("test setup");
    }
    git(
        &fixture.ws,
        &["init", "-q", &fixture.path("nest/inner").to_string_lossy()],
    );
    fixture.write("nest/inner/z.txt", "nested");
    git(
        &fixture.ws,
        &["init", "-q", &fixture.path("toprepo").to_string_lossy()],
    );
    git(
        &fixture.ws,
        &["init", "-q", &fixture.path("n/sub").to_string_lossy()],
    );
    symlink("u", fixture.path("linkdir")).expect("test setup");
    symlink("top.txt", fixture.path("t/link.txt")).expect("test setup");
    remove(&fixture.path("replaced"));
    fixture.write("replaced/inside.txt", "u");
    fixture
}

#[test]
fn awkward_tree_matches_git_for_every_flag_and_pathspec() {
    let fixture = awkward_tree();
    let quarantine = fixture.quarantine();
    let root_specs: &[&[&str]] = &[
        &[],
        &["mix"],
        &["mix/"],
        &["mix/a.txt"],
        &["mix", "mix/a.txt"],
        &["ig"],
        &["ig/more.txt"],
        &["allig"],
        &["t", "u/"],
        &["."],
        &["with space.txt"],
        &["中文笔记.txt", "line\nbreak.txt"],
        &["nest"],
        &["nest/inner"],
        &["build"],
        &["replaced"],
        &["linkdir"],
        &["t/sub/new dir"],
        &["does-not-exist"],
        &[".agent-trash"],
    ];
    let sub_specs: &[&[&str]] = &[
        &[],
        &["."],
        &["../mix"],
        &["..", "tracked.txt"],
        &["../ig/"],
    ];
    let mut failures = Vec::new();
    let cases = [
        ("", root_specs),
        ("t", sub_specs),
        ("t/sub", sub_specs),
        ("u", sub_specs),
        ("mix", sub_specs),
        ("ig", sub_specs),
    ];
    for (cwd, specs) in cases {
        let cwd = fixture.path(cwd);
        for flags in FLAG_SETS {
            for pathspecs in specs {
                failures.extend(compare(&quarantine, &cwd, flags, pathspecs));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_quarantine_is_never_listed() {
    // A quarantine that is not (yet) a nested repository nor ignored: git would remove it.
    let fixture = Fixture::with_commit(&[("a.txt", "a")]);
    let trash = fixture.path("cache/.agent-trash");
    fs_err::create_dir_all(trash.join("tx")).unwrap();
    fs_err::write(trash.join("tx/kept.txt"), "quarantined").unwrap();
    fixture.write("cache/other.txt", "untracked");
    let quarantine = Quarantine::new(&fixture.ws, &trash);
    for flags in FLAG_SETS {
        let flags: Vec<String> = flags.iter().map(|f| (*f).to_owned()).collect();
        let listed = quarantine
            .enumerate_clean(&fixture.ws, &flags, &[])
            .unwrap();
        assert!(
            listed
                .iter()
                .all(|p| !p.starts_with(&trash) && !trash.starts_with(p)),
            "{flags:?}: {listed:?}"
        );
        if flags == ["-fd"] || flags == ["-fdx"] {
            assert!(
                listed.contains(&fixture.path("cache/other.txt")),
                "{flags:?}: {listed:?}"
            );
        }
    }
    // The laid-out quarantine (a nested repository with an exclude rule) is skipped as well.
    let fixture = awkward_tree();
    let listed = fixture
        .quarantine()
        .enumerate_clean(&fixture.ws, &["-fdx".to_owned()], &[])
        .unwrap();
    assert!(
        listed.iter().all(|p| !p.starts_with(&fixture.trash)),
        "{listed:?}"
    );
    assert!(
        listed.contains(&fixture.path("top.log")) && listed.contains(&fixture.path("u")),
        "{listed:?}"
    );
}

#[test]
fn the_users_git_ignore_file_counts_like_git() {
    let fixture = Fixture::with_commit(&[("tracked.txt", "t")]);
    let xdg = tempfile::tempdir().unwrap();
    fs_err::create_dir_all(xdg.path().join("git")).unwrap();
    fs_err::write(xdg.path().join("git/ignore"), "*.secret\nprivate/\n").unwrap();
    fixture.write("a.secret", "ignored by the user's file");
    fixture.write("private/key", "ignored by the user's file");
    fixture.write("notes.txt", "untracked");
    let quarantine = fixture
        .quarantine()
        .with_git_user_dir(Some(xdg.path().join("git")));
    for flags in FLAG_SETS {
        let expected = clean_oracle_with(&fixture.ws, flags, &[], xdg.path()).unwrap();
        let owned: Vec<String> = flags.iter().map(|s| (*s).to_owned()).collect();
        let actual: BTreeSet<PathBuf> = quarantine
            .enumerate_clean(&fixture.ws, &owned, &[])
            .unwrap()
            .into_iter()
            .filter(|p| !p.starts_with(&fixture.trash))
            .collect();
        let expected: BTreeSet<PathBuf> = expected
            .into_iter()
            .filter(|p| !p.starts_with(&fixture.trash))
            .collect();
        assert_eq!(actual, expected, "git clean {flags:?}");
    }
    // The file matters: without it, -f would also list a.secret.
    let plain = clean_oracle(&fixture.ws, &["-f"], &[]).unwrap();
    let with_file = clean_oracle_with(&fixture.ws, &["-f"], &[], xdg.path()).unwrap();
    assert!(plain.contains(&fixture.path("a.secret")), "{plain:?}");
    assert!(
        !with_file.contains(&fixture.path("a.secret")),
        "{with_file:?}"
    );
}

#[test]
fn unsupported_arguments_are_refused() {
    let fixture = awkward_tree();
    let quarantine = fixture.quarantine();
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    for (flags, pathspecs) in [
        (&["-ff"][..], &[][..]),
        (&["-fxX"], &[]),
        (&["-f", "-e", "x"], &[]),
        (&["-fi"], &[]),
        (&["-f"], &["*.txt"]),
        (&["-f"], &["a\\b"]),
        (&["-f"], &[":(exclude)x"]),
        (&["-f"], &["../outside"]),
        (&["-f"], &[""]),
    ] {
        let error = quarantine
            .enumerate_clean(&fixture.ws, &strings(flags), &strings(pathspecs))
            .unwrap_err();
        assert!(
            matches!(
                error,
                RecoveryError::Git(agent_guard_git::GitError::UnsupportedCleanArgument { .. })
            ),
            "{flags:?} {pathspecs:?}: {error:?}"
        );
    }
    let outside = tempfile::tempdir().unwrap();
    assert!(
        quarantine
            .enumerate_clean(outside.path(), &strings(&["-f"]), &[])
            .is_err()
    );
    assert!(
        quarantine
            .enumerate_clean(&fixture.ws.join(".git"), &strings(&["-f"]), &[])
            .is_err()
    );
}

/// Builds a random tree: tracked and untracked files and directories, `.gitignore` files
/// with negations, nested repositories and empty directories.
fn random_tree(seed: u64) -> (Fixture, Vec<String>) {
    let mut rng = Rng::new(seed);
    let fixture = Fixture::empty();
    let names = [
        "a", "ab", "b", "c.log", "d.tmp", "keep.log", "sp ace", "x", "é",
    ];
    let patterns = [
        "*.log",
        "b/",
        "!keep.log",
        "c.log",
        "/a",
        "*.tmp",
        "ab",
        "x/",
        "!x/",
        "sp ace",
        "!d.tmp",
        "a/*",
        "**/x",
        "*/d.tmp",
        "!b",
        "[ab]",
        "é/",
    ];
    let mut dirs = vec![String::new()];
    let mut files = Vec::new();
    for _ in 0..(8 + rng.below(8)) {
        let parent = rng.pick(&dirs).clone();
        if parent.matches('/').count() >= 3 {
            continue;
        }
        let name = format!("{parent}{}", rng.pick(&names));
        if dirs.iter().any(|d| d.trim_end_matches('/') == name) || files.contains(&name) {
            continue;
        }
        if rng.chance(45) {
            fs_err::create_dir_all(fixture.path(&name)).expect("test setup");
            dirs.push(format!("{name}/"));
        } else {
            fixture.write(&name, &name);
            files.push(name);
        }
    }
    for _ in 0..rng.below(3) {
        let parent = rng.pick(&dirs).clone();
        let name = format!("{parent}{}", rng.pick(&["l", "ab", "lnk"]));
        if !fixture.path(&name).exists() && fs_err::symlink_metadata(fixture.path(&name)).is_err() {
            let target = if rng.chance(50) {
                rng.pick(&dirs).clone()
            } else {
                "nowhere".to_owned()
            };
            symlink(fixture.ws.join(target), fixture.path(&name)).expect("test setup");
            files.push(name);
        }
    }
    for dir in dirs.clone() {
        if rng.chance(35) {
            let rules: Vec<&str> = (0..=rng.below(3)).map(|_| *rng.pick(&patterns)).collect();
            fixture.write(&format!("{dir}.gitignore"), &(rules.join("\n") + "\n"));
            files.push(format!("{dir}.gitignore"));
        }
    }
    let tracked: Vec<&String> = files.iter().filter(|_| rng.chance(40)).collect();
    if tracked.is_empty() {
        fixture.write("anchor", "a");
        git(&fixture.ws, &["add", "anchor"]);
    }
    for file in &tracked {
        git(&fixture.ws, &["add", "-f", "--", file]);
    }
    git(&fixture.ws, &["commit", "-q", "-m", "random"]);
    for dir in dirs.iter().skip(1) {
        if rng.chance(12)
            && !fixture.path(dir).join(".git").exists()
            && git(&fixture.ws, &["ls-files", "--", dir]).is_empty()
        {
            git(
                &fixture.ws,
                &["init", "-q", &fixture.path(dir).to_string_lossy()],
            );
        }
    }
    (fixture, dirs)
}

#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "test configuration from the environment"
)]
fn random_trees_match_git() {
    let seeds: u64 = std::env::var("AGENT_GUARD_CLEAN_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut failures = Vec::new();
    for seed in 0..seeds {
        let (fixture, dirs) = random_tree(seed);
        let quarantine = fixture.quarantine();
        let mut rng = Rng::new(seed ^ 0xC1EA);
        let cwd_dir = rng.pick(&dirs).clone();
        let cwd = normalize(&fixture.path(&cwd_dir));
        let mut specs: Vec<Vec<String>> = vec![Vec::new()];
        for _ in 0..3 {
            let dir = rng.pick(&dirs).clone();
            let spec = match rng.below(4) {
                0 => dir.trim_end_matches('/').to_owned(),
                1 => format!("{dir}{}", rng.pick(&["a", "b", "c.log", "x", "keep.log"])),
                2 => dir.chars().take(1 + rng.below(dir.len().max(1))).collect(),
                _ => format!("{dir}a"),
            };
            if !spec.is_empty() && !spec.ends_with('.') {
                specs.push(vec![spec]);
            }
        }
        if specs.len() > 2 && rng.chance(50) {
            let merged: Vec<String> = specs[1..].iter().flatten().cloned().collect();
            specs.push(merged);
        }
        for flags in FLAG_SETS {
            for spec in &specs {
                // Pathspecs are repository-relative; from the cwd they are spelled with `..`.
                let depth = cwd_dir.matches('/').count();
                let spec: Vec<String> = spec
                    .iter()
                    .map(|s| format!("{}{s}", "../".repeat(depth)))
                    .collect();
                let spec: Vec<&str> = spec.iter().map(String::as_str).collect();
                if let Some(failure) = compare(&quarantine, &cwd, flags, &spec) {
                    failures.push(format!("seed {seed}: {failure}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A generated monorepo-shaped tree: `packages` packages of 10 modules of `files` tracked
/// files each, with untracked files beside tracked ones, untracked and ignored directories
/// (deep and wide), ignored files under negations, empty directories, a nested repository
/// and a tracked file replaced by a directory: every kind of entry the walk treats, at a
/// size where the index lookups and the directory walk are exercised at scale.
fn large_tree(packages: usize, files: usize) -> Fixture {
    let fixture = Fixture::empty();
    fixture.write(".gitignore", "*.log\n!keep.log\nnode_modules/\n/dist\n");
    for p in 0..packages {
        let package = format!("pkg{p:03}");
        if p % 4 == 1 {
            fixture.write(&format!("{package}/.gitignore"), "*.tmp\n!important.tmp\n");
        }
        for m in 0..10 {
            for f in 0..files {
                fixture.write(&format!("{package}/mod{m}/f{f:03}.txt"), "tracked\n");
            }
        }
    }
    git(&fixture.ws, &["add", "-A"]);
    git(&fixture.ws, &["commit", "-q", "-m", "large"]);
    for p in 0..packages {
        let package = format!("pkg{p:03}");
        let module = |m: usize| format!("{package}/mod{m}");
        match p % 7 {
            0 => fixture.write(&format!("{}/new.txt", module(p % 10)), "untracked"),
            1 => fixture.write(&format!("{}/x.log", module(1)), "ignored"),
            2 => fixture.write(&format!("{}/keep.log", module(2)), "negated"),
            3 => {
                fixture.write(&format!("{package}/node_modules/a/b/c.js"), "ignored dir");
                fixture.write(&format!("{package}/node_modules/d.js"), "ignored dir");
            }
            4 => {
                fixture.write(&format!("{package}/gen/out/a.txt"), "untracked dir");
                fixture.write(&format!("{package}/gen/out/b.log"), "ignored inside");
                fixture.write(&format!("{package}/gen/c.txt"), "untracked dir");
            }
            5 => {
                fixture.write(&format!("{}/scratch.tmp", module(3)), "ignored by pkg");
                fixture.write(&format!("{}/important.tmp", module(3)), "negated by pkg");
                fs_err::create_dir_all(fixture.path(&format!("{package}/empty/deeper")))
                    .expect("test setup");
            }
            _ => {
                fixture.write(&format!("{}/new dir/f.txt", module(4)), "untracked");
                fixture.write(&format!("{}/new dir/g.log", module(4)), "ignored");
            }
        }
    }
    fixture.write("dist/bundle.js", "ignored at the root");
    fixture.write("pkg000/dist/kept.txt", "/dist is anchored: untracked");
    git(
        &fixture.ws,
        &[
            "init",
            "-q",
            &fixture.path("pkg000/vendored").to_string_lossy(),
        ],
    );
    fixture.write("pkg000/vendored/inner.txt", "nested");
    let replaced = "pkg000/mod0/f000.txt";
    remove(&fixture.path(replaced));
    fixture.write(
        &format!("{replaced}/inside.txt"),
        "a directory where a file was",
    );
    fixture
}

/// Compares every flag set, from the root and from a package, on a large tree.
fn large_tree_matches_git(packages: usize, files: usize) {
    let fixture = large_tree(packages, files);
    let quarantine = fixture.quarantine();
    let mut failures = Vec::new();
    let cases: [(&str, &[&[&str]]); 2] = [
        (
            "",
            &[&[], &["pkg003"], &["pkg004/gen", "pkg000/mod0/f000.txt"]],
        ),
        ("pkg004", &[&[], &["gen/out"], &["../pkg006"]]),
    ];
    for (cwd, specs) in cases {
        let cwd = fixture.path(cwd);
        for flags in FLAG_SETS {
            for pathspecs in specs {
                failures.extend(compare(&quarantine, &cwd, flags, pathspecs));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_large_generated_tree_matches_git() {
    // 7 packages × 10 modules × 50 files: 3,500 tracked files, every branch of the layout.
    large_tree_matches_git(7, 50);
}

/// The same at monorepo scale (100,000 tracked files); slow in a debug build.
#[test]
#[ignore = "100,000 files; run with --ignored"]
fn a_100k_file_tree_matches_git() {
    large_tree_matches_git(100, 100);
}

/// Every flag set, from the root and from `t`, with and without a pathspec.
fn every_flag_matches_git(fixture: &Fixture) -> Vec<String> {
    let quarantine = fixture.quarantine();
    let mut failures = Vec::new();
    for (cwd, specs) in [
        ("", &[&[][..], &["mix"], &["t", "u/"], &["nest"]][..]),
        ("t", &[&[][..], &[".."]][..]),
    ] {
        for flags in FLAG_SETS {
            for pathspecs in specs {
                failures.extend(compare(&quarantine, &fixture.path(cwd), flags, pathspecs));
            }
        }
    }
    failures
}

#[test]
fn a_split_index_reads_like_git() {
    // libgit2 cannot read a split index (`link`); gix-index dissolves it into one list.
    let fixture = awkward_tree();
    fixture.git(&["update-index", "--split-index"]);
    fixture.write("t/added-after-the-split.txt", "a");
    fixture.git(&["add", "t/added-after-the-split.txt"]);
    fixture.git(&["rm", "-q", "--cached", "t/sub/tracked.txt"]);
    let shared = std::fs::read_dir(fixture.ws.join(".git"))
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with("sharedindex."));
    assert!(shared, "git wrote a shared index");
    let failures = every_flag_matches_git(&fixture);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_sparse_index_reads_like_git() {
    // A sparse index stands for a whole directory outside the cone with one entry (`docs/`
    // here, which still holds an untracked directory): git expands it and removes what is
    // untracked inside; libgit2 could not read such an index at all.
    let fixture = awkward_tree();
    fixture.git(&["config", "index.sparse", "true"]);
    fixture.git(&["sparse-checkout", "set", "--cone", "t"]);
    let index = std::fs::read(fixture.ws.join(".git/index")).unwrap();
    assert!(
        index.windows(4).any(|w| w == b"sdir"),
        "git wrote a sparse index"
    );
    let failures = every_flag_matches_git(&fixture);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

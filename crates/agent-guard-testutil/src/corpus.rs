//! The command corpus: TOML files of commands with expected verdicts.
//!
//! `tests/corpus/fixtures.toml` names the fixtures; every other `*.toml` under
//! `tests/corpus/` holds `[[case]]`s. File-level keys (`fixture`, `dialect`) are defaults for
//! the file's cases.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::fixture::FixtureSpec;

/// The fixtures file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixtures {
    /// Named fixtures.
    pub fixture: BTreeMap<String, FixtureSpec>,
}

/// One corpus file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusFile {
    /// Default fixture for the file's cases.
    pub fixture: Option<String>,
    /// Default dialect selector for the file's cases.
    pub dialect: Option<String>,
    /// The cases.
    #[serde(default)]
    pub case: Vec<Case>,
}

/// Expected facts about one op.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedOp {
    /// The op kind (`fs-delete`, …).
    pub kind: String,
    /// The raw target texts, when checked.
    pub targets: Option<Vec<String>>,
    /// Recursive flag, when checked.
    pub recursive: Option<bool>,
    /// Undeterminable flag, when checked.
    pub undeterminable: Option<bool>,
    /// Shape (`F1`, `F2`, or `none`), when checked.
    pub shape: Option<String>,
}

/// One corpus case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// The command line (placeholders expanded).
    pub cmd: String,
    /// The dialect selector (overrides the file default; `none` means no selector).
    pub dialect: Option<String>,
    /// The fixture (overrides the file default).
    pub fixture: Option<String>,
    /// The declared cwd, relative to the workspace (placeholders expanded).
    pub cwd: Option<String>,
    /// `RESTRICTED` to run in a restricted session.
    pub mode: Option<String>,
    /// Extra environment (`AGENT_GUARD_*`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Expected decision class.
    pub decision: String,
    /// Expected reason code.
    pub code: String,
    /// Expected ops, when checked.
    pub ops: Option<Vec<ExpectedOp>>,
    /// Why the case exists.
    pub note: Option<String>,
    /// Where it comes from (reference row, issue, incident).
    pub see: Option<String>,
}

/// A case with where it was loaded from.
#[derive(Debug, Clone)]
pub struct LoadedCase {
    /// The file, relative to the corpus root.
    pub file: PathBuf,
    /// The 1-based index of the case in its file.
    pub index: usize,
    /// The case with file defaults applied.
    pub case: Case,
}

/// Returns the corpus root (`<repo>/tests/corpus`), given a crate's `CARGO_MANIFEST_DIR`.
pub fn corpus_root(manifest_dir: &str) -> PathBuf {
    Path::new(manifest_dir).join("../../tests/corpus")
}

/// Loads the fixtures file.
pub fn load_fixtures(root: &Path) -> Result<Fixtures, String> {
    let path = root.join("fixtures.toml");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Loads every case under `root/<subdir>` (recursively), applying file defaults.
pub fn load_cases(root: &Path, subdir: &str) -> Result<Vec<LoadedCase>, String> {
    let mut files = Vec::new();
    collect(&root.join(subdir), &mut files).map_err(|e| format!("{subdir}: {e}"))?;
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: CorpusFile =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let relative = path.strip_prefix(root).unwrap_or(&path).to_owned();
        for (index, mut case) in file.case.into_iter().enumerate() {
            if case.fixture.is_none() {
                case.fixture.clone_from(&file.fixture);
            }
            if case.dialect.is_none() {
                case.dialect.clone_from(&file.dialect);
            }
            cases.push(LoadedCase {
                file: relative.clone(),
                index: index + 1,
                case,
            });
        }
    }
    Ok(cases)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

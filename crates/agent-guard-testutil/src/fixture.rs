//! Real temporary workspaces built from a declarative fixture.
//!
//! A fixture is a temp root holding `ws/` (the workspace), `outside/` (a sibling directory
//! outside it) and `home/` (a fake home directory). Paths and symlink targets may use the
//! placeholders `{ws}`, `{outside}`, `{home}` and `{root}`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A declarative workspace.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureSpec {
    /// Initialise a git repository in the workspace.
    #[serde(default)]
    pub git: bool,
    /// Files (workspace-relative path → content).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Empty directories.
    #[serde(default)]
    pub dirs: Vec<String>,
    /// Symlinks (workspace-relative link path → target text, placeholders expanded).
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// Files committed to git (they must also be in `files`); `.gitignore` is always committed
    /// when present.
    #[serde(default)]
    pub commit: Vec<String>,
    /// Committed files then removed from the index only (`git rm --cached`), so they are
    /// untracked in the work tree but present in `HEAD`.
    #[serde(default)]
    pub untrack: Vec<String>,
    /// Files modified after the commit (path → new content).
    #[serde(default)]
    pub modify: BTreeMap<String, String>,
    /// Files outside the workspace (`outside/`-relative path → content).
    #[serde(default)]
    pub outside: BTreeMap<String, String>,
    /// Files in the fake home (`home/`-relative path → content).
    #[serde(default)]
    pub home: BTreeMap<String, String>,
    /// A person trusted the workspace's `.agent-guard.toml` as written (`agent-guard config
    /// trust`): its trust record is written to the fake home's state directory, so its
    /// loosening settings apply.
    #[serde(default)]
    pub trusted: bool,
    /// Branches (a name, or a full ref name under `refs/`) each holding one commit on top of
    /// the fixture's, not checked out: the work tree stays on the fixture's commit.
    #[serde(default)]
    pub branches: BTreeMap<String, BranchSpec>,
}

/// What a branch's commit changes from the fixture's commit.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchSpec {
    /// Files added or changed (path → content).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Symlinks added (path → target text, not expanded).
    #[serde(default)]
    pub symlinks: BTreeMap<String, String>,
    /// Paths removed (a directory with everything below it).
    #[serde(default)]
    pub remove: Vec<String>,
}

/// A built fixture; the temp root is removed on drop.
#[derive(Debug)]
pub struct Fixture {
    root: tempfile::TempDir,
    /// The physical workspace root.
    pub ws: PathBuf,
    /// A directory outside the workspace.
    pub outside: PathBuf,
    /// The fake home directory.
    pub home: PathBuf,
}

impl FixtureSpec {
    /// A git workspace holding `files` (workspace-relative path, content), of which the
    /// paths in `commit` are committed.
    pub fn git_with(files: &[(&str, &str)], commit: &[&str]) -> FixtureSpec {
        FixtureSpec {
            git: true,
            files: files
                .iter()
                .map(|(path, content)| ((*path).to_owned(), (*content).to_owned()))
                .collect(),
            commit: commit.iter().map(|path| (*path).to_owned()).collect(),
            ..FixtureSpec::default()
        }
    }
}

impl Fixture {
    /// Builds `spec` in a new temp directory.
    pub fn build(spec: &FixtureSpec) -> std::io::Result<Fixture> {
        let root = tempfile::Builder::new()
            .prefix("agent-guard-fixture-")
            .tempdir()?;
        let base = fs::canonicalize(root.path())?;
        let fixture = Fixture {
            ws: base.join("ws"),
            outside: base.join("outside"),
            home: base.join("home"),
            root,
        };
        for dir in [&fixture.ws, &fixture.outside, &fixture.home] {
            fs::create_dir_all(dir)?;
        }
        for (path, content) in &spec.files {
            write(&fixture.ws.join(fixture.expand(path)), content)?;
        }
        for dir in &spec.dirs {
            fs::create_dir_all(fixture.ws.join(fixture.expand(dir)))?;
        }
        for (path, content) in &spec.outside {
            write(&fixture.outside.join(path), content)?;
        }
        for (path, content) in &spec.home {
            write(&fixture.home.join(path), content)?;
        }
        for (link, target) in &spec.symlinks {
            let link = fixture.ws.join(fixture.expand(link));
            if let Some(parent) = link.parent() {
                fs::create_dir_all(parent)?;
            }
            std::os::unix::fs::symlink(fixture.expand(target), link)?;
        }
        if spec.git {
            fixture.init_git(spec).map_err(std::io::Error::other)?;
        }
        for (path, content) in &spec.modify {
            write(&fixture.ws.join(path), content)?;
        }
        if spec.trusted {
            fixture.trust_config()?;
        }
        Ok(fixture)
    }

    /// Records the trust of the workspace's project file, as `agent-guard config trust` does,
    /// in the fake home's state directory.
    fn trust_config(&self) -> std::io::Result<()> {
        let bytes = fs::read(self.ws.join(agent_guard_config::CONFIG_FILE_NAME))?;
        let state = self.home.join(".local/state/agent-guard");
        let record = agent_guard_config::trust::trust_record(&state, &self.ws);
        write(
            &record,
            &format!("{}\n", agent_guard_config::trust::digest(&bytes)),
        )
    }

    /// Replaces `{ws}`, `{outside}`, `{home}` and `{root}` in `text`.
    pub fn expand(&self, text: &str) -> String {
        let root = self.ws.parent().unwrap_or(&self.ws);
        text.replace("{ws}", &self.ws.to_string_lossy())
            .replace("{outside}", &self.outside.to_string_lossy())
            .replace("{home}", &self.home.to_string_lossy())
            .replace("{root}", &root.to_string_lossy())
    }

    /// The temp root (parent of `ws`, `outside`, `home`).
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    fn init_git(&self, spec: &FixtureSpec) -> Result<(), git2::Error> {
        let repo = git2::Repository::init(&self.ws)?;
        let mut config = repo.config()?;
        config.set_bool("commit.gpgsign", false)?;
        let mut index = repo.index()?;
        let mut paths: Vec<&str> = spec.commit.iter().map(String::as_str).collect();
        if spec.files.contains_key(".gitignore") {
            paths.push(".gitignore");
        }
        for path in paths {
            index.add_path(Path::new(path))?;
        }
        index.write()?;
        let tree = repo.find_tree(index.write_tree()?)?;
        let signature = git2::Signature::new(
            "Fixture",
            "fixture@agent-guard.invalid",
            &git2::Time::new(1_700_000_000, 0),
        )?;
        let head = repo.commit(Some("HEAD"), &signature, &signature, "fixture", &tree, &[])?;
        for path in &spec.untrack {
            index.remove_path(Path::new(path))?;
        }
        index.write()?;
        let parent = repo.find_commit(head)?;
        for (name, branch) in &spec.branches {
            let tree = branch_tree(&repo, &tree, branch)?;
            let commit = repo.commit(None, &signature, &signature, name, &tree, &[&parent])?;
            let reference = if name.starts_with("refs/") {
                name.clone()
            } else {
                format!("refs/heads/{name}")
            };
            repo.reference(&reference, commit, false, "fixture branch")?;
        }
        Ok(())
    }
}

/// The tree of `base` with what `branch` changes, written in `repo`.
fn branch_tree<'r>(
    repo: &'r git2::Repository,
    base: &git2::Tree<'_>,
    branch: &BranchSpec,
) -> Result<git2::Tree<'r>, git2::Error> {
    let mut index = git2::Index::new()?;
    index.read_tree(base)?;
    for path in &branch.remove {
        index.remove_dir(Path::new(path), 0)?;
        let _ = index.remove_path(Path::new(path));
    }
    let mut add = |path: &str, mode: u32, content: &str| -> Result<(), git2::Error> {
        index.add(&git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode,
            uid: 0,
            gid: 0,
            file_size: u32::try_from(content.len()).unwrap_or(u32::MAX),
            id: repo.blob(content.as_bytes())?,
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        })
    };
    for (path, content) in &branch.files {
        add(path, 0o100_644, content)?;
    }
    for (path, target) in &branch.symlinks {
        add(path, 0o120_000, target)?;
    }
    repo.find_tree(index.write_tree_to(repo)?)
}

fn write(path: &Path, content: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, content)
}

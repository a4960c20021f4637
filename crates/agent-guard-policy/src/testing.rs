//! Test helpers: path-fact builders and a fake world.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_guard_types::{
    Dialect, EntryKind, OpKind, OpSpec, PathSpec, Protected, ResetPreflight, Target, World,
};

pub(crate) const WS: &str = "/ws";

/// A target fact inside the workspace at `raw` with the given entry kind.
pub(crate) fn spec(raw: &str, entry: EntryKind) -> PathSpec {
    let physical = Path::new(WS).join(raw);
    PathSpec {
        raw: raw.to_owned(),
        resolved: Some(physical.clone()),
        relative: Some(PathBuf::from(raw)),
        physical: Some(physical),
        entry,
        inside_workspace: true,
        ..PathSpec::default()
    }
}

pub(crate) fn file(raw: &str) -> PathSpec {
    spec(raw, EntryKind::File)
}

pub(crate) fn dir(raw: &str) -> PathSpec {
    spec(raw, EntryKind::Dir)
}

pub(crate) fn absent(raw: &str) -> PathSpec {
    spec(raw, EntryKind::Absent)
}

pub(crate) fn protected(mut spec: PathSpec, label: Protected) -> PathSpec {
    spec.protected = Some(label);
    if label == Protected::OutsideWorkspace {
        spec.inside_workspace = false;
        spec.relative = None;
    }
    spec
}

pub(crate) fn glob(raw: &str) -> PathSpec {
    PathSpec {
        glob: true,
        ..absent(raw)
    }
}

pub(crate) fn in_trash(mut spec: PathSpec) -> PathSpec {
    spec.inside_trash = true;
    spec
}

/// An `rm`-like op over `targets`.
pub(crate) fn rm(targets: &[&str], recursive: bool) -> OpSpec {
    let mut op = OpSpec::new("rm", OpKind::FsDelete, Dialect::Posix);
    op.recursive = recursive;
    // As the classifier says of `rm` without `-r`.
    op.files_only = !recursive;
    op.targets = targets.iter().map(|t| Target::literal(*t)).collect();
    op
}

/// A world that answers from a table; unknown targets are absent.
#[derive(Debug, Default)]
pub(crate) struct FakeWorld {
    pub specs: HashMap<String, PathSpec>,
    /// The paths [`World::regenerable`] says are regenerable artifacts.
    pub regenerable: Vec<PathBuf>,
    pub preflight: Option<ResetPreflight>,
    pub ignore_queries: RefCell<usize>,
    /// What [`World::checkpoint_reach`] answers (`None`: the trait's default).
    pub reaches: Option<bool>,
    /// What [`World::guard_tree_changes`] answers, by the source's revision text
    /// (`Unchanged` for any other).
    pub tree: HashMap<String, agent_guard_types::GuardTreeChanges>,
    /// What [`World::guard_files_committed`] answers.
    pub committed: bool,
}

impl FakeWorld {
    pub(crate) fn with(specs: impl IntoIterator<Item = PathSpec>) -> FakeWorld {
        FakeWorld {
            specs: specs.into_iter().map(|s| (s.raw.clone(), s)).collect(),
            ..FakeWorld::default()
        }
    }
}

impl World for FakeWorld {
    fn workspace(&self) -> &Path {
        Path::new(WS)
    }

    fn trash(&self) -> &Path {
        Path::new("/ws/.agent-trash")
    }

    fn path(&self, target: &Target, _base: &Path) -> PathSpec {
        let mut spec = self
            .specs
            .get(&target.text)
            .cloned()
            .unwrap_or_else(|| absent(&target.text));
        spec.glob |= target.glob;
        if let Some(reason) = &target.opaque {
            spec.error = Some(reason.clone());
        }
        spec
    }

    fn regenerable(&self, paths: &[&Path]) -> bool {
        *self.ignore_queries.borrow_mut() += 1;
        !paths.is_empty()
            && paths
                .iter()
                .all(|path| self.regenerable.iter().any(|p| p == path))
    }

    fn enterable(&self, _dir: &Path) -> bool {
        true
    }

    fn reset_preflight(&self, _cwd: &Path, _target: Option<&str>) -> ResetPreflight {
        self.preflight.clone().unwrap_or(ResetPreflight::Safe)
    }

    fn checkpoint_reach(&self, _dir: &Path, _reach: agent_guard_types::Reach<'_>) -> bool {
        self.reaches.unwrap_or(true)
    }

    fn write_reaches_link(&self, _dir: &Path, _reach: agent_guard_types::Reach<'_>) -> bool {
        self.reaches.unwrap_or(true)
    }

    fn names_split(&self, _dir: &Path) -> bool {
        self.reaches.unwrap_or(true)
    }

    fn creates_guarded(&self, _dir: &Path, _reach: agent_guard_types::Reach<'_>) -> bool {
        self.reaches.unwrap_or(true)
    }

    fn over_cap(
        &self,
        dir: &Path,
        _reach: agent_guard_types::Reach<'_>,
        _cap: u64,
    ) -> Option<std::path::PathBuf> {
        (self.reaches != Some(false)).then(|| dir.to_path_buf())
    }

    fn guard_tree_changes(
        &self,
        _dir: &Path,
        source: &agent_guard_types::TreeSource,
    ) -> agent_guard_types::GuardTreeChanges {
        source
            .rev
            .as_ref()
            .and_then(|rev| self.tree.get(&rev.text).cloned())
            .unwrap_or(agent_guard_types::GuardTreeChanges::Unchanged)
    }

    fn guard_files_committed(&self, _dir: &Path) -> bool {
        self.committed
    }
}

//! The batch preflight of a restore: every item checked before anything moves, and the
//! `--path` selection turned into units of work.

use std::path::{Component, Path, PathBuf};

use crate::restore::paths::{
    Bounds, SOURCE_OUTSIDE, TARGET_OUTSIDE, is_normalised_absolute, strictly_inside,
};
use crate::transactions::Item;

/// One move-back: a whole item, or (with `--path`) a subtree of a quarantined directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    /// The index of the item in the transaction.
    pub(crate) item: usize,
    /// The quarantine path as recorded (plus the selected subpath).
    pub(crate) source: PathBuf,
    /// Where it goes, lexically: the recorded origin, or `<--to>/<workspace-relative path>`.
    pub(crate) target: PathBuf,
    /// The subpath below the item (empty for the whole item).
    pub(crate) sub: PathBuf,
}

/// The checked plan: the units, and the physical quarantine path of every item (so that
/// cleanup never removes another item's directory).
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// What to move back, in manifest order.
    pub(crate) units: Vec<Unit>,
    /// The physical quarantine path of each item, by index.
    pub(crate) sources: Vec<PathBuf>,
}

/// Where a restore puts things: the physical workspace, or a `--to` directory.
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// The directory as given (`None`: the workspace, each item to its origin).
    pub(crate) lexical: Option<PathBuf>,
    /// Its physical form (for `--to`, the resolved existing part plus the missing rest).
    pub(crate) physical: PathBuf,
}

impl Destination {
    /// The lexical target of an item whose physical origin is `workspace/relative`.
    fn target(&self, origin: &Path, relative: &Path) -> PathBuf {
        match &self.lexical {
            None => origin.to_path_buf(),
            Some(dir) => dir.join(relative),
        }
    }
}

/// Checks every item and selects the units. Any failure is one static error for the
/// whole batch; nothing has moved yet.
pub(crate) fn plan(
    bounds: &Bounds,
    items: &[Item],
    destination: &Destination,
    paths: &[PathBuf],
    force: bool,
) -> Result<Plan, String> {
    let mut sources = Vec::with_capacity(items.len());
    let mut whole: Vec<(PathBuf, Unit, PathBuf)> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let origin = bounds.target(&item.origin, &bounds.workspace)?;
        let source = bounds.source(&item.trash).ok_or(SOURCE_OUTSIDE)?;
        let relative = origin
            .strip_prefix(&bounds.workspace)
            .map_err(|_| TARGET_OUTSIDE)?;
        let target = destination.target(&item.origin, relative);
        let resolved = bounds.target(&target, &destination.physical)?;
        if force && resolved.symlink_metadata().is_ok() {
            bounds.preservable(&target, &resolved)?;
        }
        let unit = Unit {
            item: index,
            source: item.trash.clone(),
            target,
            sub: PathBuf::new(),
        };
        whole.push((relative.to_path_buf(), unit, resolved));
        sources.push(source);
    }
    if paths.is_empty() {
        return Ok(Plan {
            units: whole.into_iter().map(|(_, unit, _)| unit).collect(),
            sources,
        });
    }
    let mut units: Vec<Unit> = Vec::new();
    for requested in paths {
        let wanted = normalise_relative(requested)
            .ok_or_else(|| format!("invalid restore path: {}", requested.display()))?;
        let before = units.len();
        for (relative, unit, item_target) in &whole {
            if relative.starts_with(&wanted) {
                units.push(unit.clone());
            } else if let Ok(sub) = wanted.strip_prefix(relative) {
                // A subtree of a quarantined directory: both halves must stay below the
                // item's own halves (a link inside the item must not lead elsewhere).
                let source = unit.source.join(sub);
                let physical = bounds
                    .source(&source)
                    .filter(|p| strictly_inside(p, &sources[unit.item]))
                    .ok_or(SOURCE_OUTSIDE)?;
                if physical.symlink_metadata().is_err() {
                    continue;
                }
                let target = unit.target.join(sub);
                let resolved = bounds.target(&target, &destination.physical)?;
                if !strictly_inside(&resolved, item_target) {
                    return Err(TARGET_OUTSIDE.to_owned());
                }
                units.push(Unit {
                    item: unit.item,
                    source,
                    target,
                    sub: sub.to_path_buf(),
                });
            }
        }
        if units.len() == before {
            return Err(format!(
                "no quarantined item matches {}",
                requested.display()
            ));
        }
    }
    Ok(Plan {
        units: outermost(units),
        sources,
    })
}

/// Drops duplicate units and units nested in another selected unit of the same item.
fn outermost(mut units: Vec<Unit>) -> Vec<Unit> {
    units.sort_by(|a, b| (a.item, &a.sub).cmp(&(b.item, &b.sub)));
    let mut kept: Vec<Unit> = Vec::with_capacity(units.len());
    for unit in units {
        let covered = kept
            .last()
            .is_some_and(|k| k.item == unit.item && unit.sub.starts_with(&k.sub));
        if !covered {
            kept.push(unit);
        }
    }
    kept
}

/// A `--path` operand as a clean relative path (`./a/b/` → `a/b`); `None` if it is absolute,
/// empty, contains NUL or climbs with `..`.
fn normalise_relative(path: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    if path.as_os_str().as_bytes().contains(&0) {
        return None;
    }
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!clean.as_os_str().is_empty()).then_some(clean)
}

/// Normalises a `--to` directory lexically (`/a/./b/` → `/a/b`); `None` unless it is
/// absolute and free of `..`.
pub(crate) fn normalise_directory(path: &Path) -> Option<PathBuf> {
    if !path.is_absolute() {
        return None;
    }
    let mut clean = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    is_normalised_absolute(&clean).then_some(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(item: usize, sub: &str) -> Unit {
        Unit {
            item,
            source: PathBuf::new(),
            target: PathBuf::new(),
            sub: PathBuf::from(sub),
        }
    }

    #[test]
    fn nested_selections_collapse_to_the_outermost() {
        let units = vec![
            unit(0, "a/b"),
            unit(0, "a"),
            unit(1, "a/b"),
            unit(0, "a"),
            unit(0, "ab"),
        ];
        let kept: Vec<(usize, PathBuf)> = outermost(units)
            .into_iter()
            .map(|u| (u.item, u.sub))
            .collect();
        assert_eq!(kept, [(0, "a".into()), (0, "ab".into()), (1, "a/b".into())]);
        assert_eq!(outermost(vec![unit(2, ""), unit(2, "x")]).len(), 1);
    }

    #[test]
    fn path_operands_are_cleaned_or_refused() {
        assert_eq!(
            normalise_relative(Path::new("./a/b/")),
            Some(PathBuf::from("a/b"))
        );
        for bad in ["", ".", "/a", "../a", "a/../b", "a\0b"] {
            assert_eq!(normalise_relative(Path::new(bad)), None, "{bad:?}");
        }
        assert_eq!(
            normalise_directory(Path::new("/a/./b/")),
            Some(PathBuf::from("/a/b"))
        );
        assert_eq!(normalise_directory(Path::new("/a/../b")), None);
        assert_eq!(normalise_directory(Path::new("a")), None);
        assert_eq!(normalise_directory(Path::new("/")), None);
    }
}

//! Path facts: one target resolved against a base directory into a [`PathSpec`].

use std::fs::FileType;
use std::path::{Path, PathBuf};

use agent_guard_types::{EntryKind, PathSpec, Protected, Target};

use crate::protect::{Roots, Spellings, classify};
use crate::resolve::{
    LinkBudget, TOO_MANY_LINKS, WindowsSpelling, fold_lexical, is_within, steps, walk,
    windows_spelling,
};
use crate::world::RealWorld;

/// The error text for a blank target.
const EMPTY_PATH: &str = "empty path";
/// The error text for `~` without a known home directory.
const HOME_UNKNOWN: &str = "home directory unknown";
/// The error text for `~user`, `~+` and the like, which the guard does not expand.
const TILDE_FORM: &str = "unsupported home directory form";

/// Where the walk starts and what it walks.
struct Origin {
    /// The lexical absolute spelling.
    resolved: PathBuf,
    /// The directory the physical walk starts from, when known.
    start: Option<PathBuf>,
    /// A prefix walked before the text (the home directory for `~`).
    prefix: Option<PathBuf>,
    /// The text below the origin.
    text: String,
    /// The exact path below the origin, when the text cannot spell it.
    exact: Option<PathBuf>,
}

/// Computes the facts for one target; see [`World::path`](agent_guard_types::World::path).
pub(crate) fn path_facts(world: &RealWorld, target: &Target, base: &Path) -> PathSpec {
    let mut spec = PathSpec {
        raw: target.text.clone(),
        glob: target.glob,
        ..PathSpec::default()
    };
    if target.text.trim().is_empty() {
        spec.error = Some(EMPTY_PATH.to_owned());
        return spec;
    }
    if let Some(reason) = &target.opaque {
        spec.error = Some(reason.clone());
        return spec;
    }
    if let Some(spelling) = windows_spelling(&target.text).filter(|_| target.exact.is_none()) {
        // Never mapped onto the POSIX tree, never probed.
        spec.resolved = Some(PathBuf::from(&target.text));
        spec.protected = Some(match spelling {
            WindowsSpelling::DriveRoot => Protected::AncestorRoot,
            WindowsSpelling::Other => Protected::OutsideWorkspace,
        });
        return spec;
    }
    let origin = match origin(world, target, base) {
        Ok(origin) => origin,
        Err(error) => {
            spec.error = Some(error.to_owned());
            return spec;
        }
    };
    spec.resolved = Some(origin.resolved.clone());

    let mut budget = LinkBudget::default();
    let physical = if target.glob {
        // A glob is not probed: below the real base its spelling stays lexical.
        physical_glob(world, &origin, &mut budget)
    } else {
        physical_walk(world, &origin, target.through_symlink, &mut budget)
    };
    let Ok(physical) = physical else {
        spec.error = Some(TOO_MANY_LINKS.to_owned());
        return spec;
    };

    if !target.glob {
        (spec.entry, spec.size) = match physical.symlink_metadata() {
            Ok(metadata) if metadata.is_file() => (EntryKind::File, metadata.len()),
            Ok(metadata) => (entry_kind(metadata.file_type()), 0),
            Err(_) => (EntryKind::Absent, 0),
        };
    }
    // A symlink is judged where it sits, but an alias of a root is still a root.
    let link_target = if spec.entry == EntryKind::Symlink {
        physical.canonicalize().ok()
    } else {
        None
    };

    let trash = world.trash_roots();
    spec.inside_workspace = is_within(&physical, &world.workspace);
    spec.inside_trash = is_within(&physical, &trash.physical);
    if spec.inside_workspace {
        spec.relative = physical
            .strip_prefix(&world.workspace)
            .ok()
            .map(Path::to_path_buf);
    }
    let roots = Roots {
        workspace: &world.workspace,
        trash,
        home: world.home_roots(),
        guard: world.guard_files(),
    };
    let spellings = Spellings {
        resolved: &origin.resolved,
        physical: &physical,
        link_target: link_target.as_deref(),
        relative: spec.relative.as_deref(),
        glob: target.glob,
    };
    spec.protected = classify(spellings, roots);
    spec.physical = Some(physical);
    spec
}

/// Works out the lexical spelling and where the physical walk starts.
fn origin(world: &RealWorld, target: &Target, base: &Path) -> Result<Origin, &'static str> {
    let text = target.text.as_str();
    if let Some(exact) = &target.exact {
        let base = if base.is_absolute() {
            base.to_path_buf()
        } else {
            world.workspace.join(base)
        };
        let absolute = exact.has_root();
        return Ok(Origin {
            resolved: fold_lexical(&base.join(exact)),
            start: (!absolute).then_some(base),
            prefix: None,
            text: String::new(),
            exact: Some(exact.clone()),
        });
    }
    if target.tilde {
        let home = world.home.as_deref().ok_or(HOME_UNKNOWN)?;
        let rest = text.strip_prefix('~').unwrap_or(text);
        if !(rest.is_empty() || rest.starts_with('/')) {
            return Err(TILDE_FORM);
        }
        let below = rest.trim_start_matches('/');
        let resolved = fold_lexical(&home.join(below));
        return Ok(Origin {
            resolved,
            start: None,
            prefix: Some(home.to_path_buf()),
            text: rest.to_owned(),
            exact: None,
        });
    }
    if Path::new(text).has_root() {
        return Ok(Origin {
            resolved: fold_lexical(Path::new(text)),
            start: None,
            prefix: None,
            text: text.to_owned(),
            exact: None,
        });
    }
    let base = if base.is_absolute() {
        base.to_path_buf()
    } else {
        world.workspace.join(base)
    };
    Ok(Origin {
        resolved: fold_lexical(&base.join(text)),
        start: Some(base),
        prefix: None,
        text: text.to_owned(),
        exact: None,
    })
}

/// The root directory, where absolute walks start.
fn root() -> PathBuf {
    PathBuf::from(std::path::MAIN_SEPARATOR_STR)
}

/// The kernel-faithful physical spelling (see [`walk`]). With `through`, a final symlink is
/// followed too: the command acts on where it leads (`echo x > link`).
fn physical_walk(
    world: &RealWorld,
    origin: &Origin,
    through: bool,
    budget: &mut LinkBudget,
) -> Result<PathBuf, crate::resolve::TooManyLinks> {
    let start = match &origin.start {
        Some(base) => world.physical_base(base, budget)?,
        None => root(),
    };
    let mut steps = match &origin.exact {
        Some(exact) => crate::resolve::steps_of_path(exact),
        None => steps(origin.prefix.as_deref(), &origin.text),
    };
    if through && let Some(crate::resolve::Step::Name { follow, .. }) = steps.last_mut() {
        *follow = true;
    }
    walk(start, steps, budget)
}

/// The spelling of a glob: its base (or home) resolved, the pattern folded lexically below it.
fn physical_glob(
    world: &RealWorld,
    origin: &Origin,
    budget: &mut LinkBudget,
) -> Result<PathBuf, crate::resolve::TooManyLinks> {
    let start = match (&origin.start, &origin.prefix) {
        (Some(base), _) => world.physical_base(base, budget)?,
        (None, Some(home)) => world.physical_base(home, budget)?,
        (None, None) => root(),
    };
    let below = origin.text.trim_start_matches('/');
    Ok(fold_lexical(&start.join(below)))
}

fn entry_kind(file_type: FileType) -> EntryKind {
    if file_type.is_symlink() {
        EntryKind::Symlink
    } else if file_type.is_dir() {
        EntryKind::Dir
    } else if file_type.is_file() {
        EntryKind::File
    } else {
        EntryKind::Special
    }
}

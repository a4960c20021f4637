//! Read-only probes of the real world for agent-guard.
//!
//! This crate sits between the classifier and the policy:
//!
//! ```text
//! lex → classify → [OpSpec] → world → [PathSpec] → policy → Verdict → recovery → audit
//! ```
//!
//! It turns the raw targets of an [`OpSpec`](agent_guard_types::OpSpec) into [`PathSpec`]
//! facts (lexical and physical spellings, what exists there, which protection applies), answers
//! whether git ignores a path, and checks ahead of time what a `git reset --hard` would
//! destroy. It implements the [`World`] trait of `agent-guard-types`; the policy reads the
//! facts and decides.
//!
//! **It is read-only.** It stats, resolves links and reads git objects, the index and ignore
//! rules (through `git2`, never a `git` subprocess). It never writes, moves or deletes
//! anything, and it opens a repository only when a git question is asked.
//!
//! ```
//! use agent_guard_types::{EntryKind, Protected, Target, World};
//! use agent_guard_world::{RealWorld, discover_workspace};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("project/.git"))?;
//! std::fs::create_dir_all(dir.path().join("project/build"))?;
//!
//! let workspace = discover_workspace(&dir.path().join("project/build"), None, None)?;
//! let world = RealWorld::new(workspace.clone(), workspace.join(".agent-trash"), None);
//!
//! let build = world.path(&Target::literal("build"), &workspace);
//! assert_eq!(build.entry, EntryKind::Dir);
//! assert!(build.inside_workspace && build.protected.is_none());
//!
//! let git = world.path(&Target::literal(".git/config"), &workspace);
//! assert_eq!(git.protected, Some(Protected::GitMetadata));
//! # Ok(())
//! # }
//! ```
//!
//! ## Behaviour notes
//!
//! Decisions taken where the reference tool was silent or is deliberately not followed:
//!
//! - **A symlink is judged where it sits.** `rm link` is judged by the link's own location (the
//!   reference realpaths the final component too); `rm link/`, `rm link/x` and `rm link/../x`
//!   are judged by where they lead, as the kernel resolves them. A link that aliases a
//!   protected root, the workspace or the quarantine keeps that protection.
//! - **Case.** `.git` components and quarantine control names are matched
//!   ASCII-case-insensitively, because on macOS and Windows `.GIT` *is* the git directory.
//! - **Globs** are not probed: their physical spelling is the real base directory with the
//!   pattern folded lexically below it, and their entry is `Absent`.
//! - **Odd spellings.** `~user`, `~+` and the like are an error (not expanded). A UNC prefix
//!   without a server (`//`) is treated like a drive root (it is the root on POSIX). A relative
//!   base or quarantine path is taken relative to the workspace.
//! - **The quarantine** is also protected in its "parent real, last component verbatim"
//!   spelling when the configured path is itself a symlink: a directory holding that link is a
//!   control path.
//! - **Hard-reset preflight.** Ignored directories are reported as a unit (not enumerated); a
//!   quarantine that contains the workspace counts as overlapping it; at most 20 collisions are
//!   listed, followed by one `… and N more` entry.
//!
//! [`PathSpec`]: agent_guard_types::PathSpec
//! [`World`]: agent_guard_types::World

#![warn(missing_docs)]

mod error;
mod expand;
mod extents;
mod facts;
mod guard_copy;
mod guard_git;
mod guard_tree;
mod ignore;
mod listed;
mod path_lookup;
mod protect;
mod reach;
mod repo;
mod repo_programs;
mod reset_preflight;
mod reset_walk;
mod resolve;
mod store_names;
mod workspace;
mod world;

pub use error::WorldError;
pub use expand::expand_patterns;
pub use guard_copy::copies_of_the_guard;
pub use path_lookup::{FoundProgram, cmd_runs_file, suspect_programs};
pub use protect::{CONTROL_NAMES, PROTECTED_ROOTS};
pub use repo_programs::{RepoPrograms, repository_programs};
pub use workspace::discover_workspace;
pub use world::RealWorld;

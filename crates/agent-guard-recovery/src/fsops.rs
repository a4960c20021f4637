//! The sanctioned filesystem mutations.
//!
//! `clippy.toml` forbids `rename` and `remove_*` everywhere else in the workspace; each function
//! here carries an `expect` that names why it may. Keep this file small and obvious.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Renames `from` to `to` (atomic within one filesystem; replaces a file at `to`).
#[expect(
    clippy::disallowed_methods,
    reason = "recovery::fsops is the one sanctioned place for renames"
)]
pub(crate) fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    fs_err::rename(from, to)
}

/// Flushes a directory's entries (new names, renames) to stable storage.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs_err::File::open(dir)?.sync_all()
}

/// Returns `<path>.tmp`, the temporary sibling used by [`replace_file`].
pub(crate) fn temporary_sibling(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Replaces the contents of `path` durably: write `<path>.tmp`, fsync it, rename it over
/// `path`, fsync the directory. A crash leaves either the old or the new file, never a mix.
pub(crate) fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = temporary_sibling(path);
    let mut file = fs_err::File::create(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    rename(&temporary, path)?;
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => sync_dir(dir),
        _ => sync_dir(Path::new(".")),
    }
}

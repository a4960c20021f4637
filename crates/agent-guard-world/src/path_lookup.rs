//! Where `PATH` finds a line's programs, when it may find them in the workspace (issue 35,
//! point 6, the environment's part). The classifier lists the names a line's commands are
//! looked up by; this finds, for each, the file the shell would run when the search passes a
//! directory that could be the workspace's: an empty or relative `PATH` entry (the working
//! directory), an absolute one below the directories the working directory is in, and, for
//! cmd, the working directory itself, which cmd searches before `PATH`. The engine keeps the
//! files inside the workspace and judges those lines as the opaque programs they run.
//!
//! Free of file-system work when no entry could be the workspace's (the usual `PATH` of
//! system and home directories): only then does it look at files.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use agent_guard_types::Dialect;

/// A program a command would run from a directory that may be the workspace's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundProgram {
    /// The name the command is looked up by (`git`).
    pub name: String,
    /// The file the search finds (`/ws/node_modules/.bin/git`), not resolved further.
    pub path: PathBuf,
}

/// The extensions cmd and PowerShell try after a name without one (`PATHEXT`'s defaults
/// that run programs).
const WINDOWS_EXTENSIONS: &[&str] = &[
    "com", "exe", "bat", "cmd", "vbs", "vbe", "js", "jse", "wsf", "wsh", "msc", "COM", "EXE",
    "BAT", "CMD", "VBS", "VBE", "JS", "JSE", "WSF", "WSH", "MSC",
];

/// For each of `names` (a line's [looked-up names]), the file a search of `path` (the
/// environment's `PATH`; cmd searches `cwd` first) finds, when the search reaches it through
/// a directory that may be the workspace's. `home` is the user's home directory: its own
/// directories (`~/.local/bin`, `~/.cargo/bin`) are not suspected unless the working
/// directory lies in them.
///
/// [looked-up names]: https://docs.rs/agent-guard-classify
pub fn suspect_programs(
    names: &[(String, Dialect)],
    path: Option<&OsStr>,
    cwd: &Path,
    home: Option<&Path>,
) -> Vec<FoundProgram> {
    if names.is_empty() {
        return Vec::new();
    }
    let mut dirs: Vec<(PathBuf, bool)> = Vec::new();
    if let Some(path) = path {
        for entry in std::env::split_paths(path) {
            let absolute = entry.is_absolute();
            let dir = if absolute { entry } else { cwd.join(entry) };
            let suspect = !absolute || near(&dir, cwd, home);
            dirs.push((dir, suspect));
        }
    }
    // Past the last directory that may be the workspace's, nothing is a suspect.
    let last = dirs
        .iter()
        .rposition(|(_, suspect)| *suspect)
        .map_or(0, |l| l + 1);
    dirs.truncate(last);
    let cmd = names.iter().any(|(_, dialect)| *dialect == Dialect::Cmd);
    if dirs.is_empty() && !cmd {
        return Vec::new();
    }
    found(names, &dirs, cwd)
}

/// The suspects among `names` searched in `dirs` (cmd's names in `cwd` first).
fn found(names: &[(String, Dialect)], dirs: &[(PathBuf, bool)], cwd: &Path) -> Vec<FoundProgram> {
    let here = [(cwd.to_path_buf(), true)];
    names
        .iter()
        .filter_map(|(name, dialect)| {
            let first: &[(PathBuf, bool)] = if *dialect == Dialect::Cmd { &here } else { &[] };
            let (dir, file) = first.iter().chain(dirs).find_map(|(dir, suspect)| {
                runnable(dir, name, *dialect).map(|f| ((dir, *suspect), f))
            })?;
            dir.1.then(|| FoundProgram {
                name: name.clone(),
                path: file,
            })
        })
        .collect()
}

/// Whether cmd, looking up the command `name`, would run a file named `file` (the last
/// component of a path): `name` itself when it has an extension, or `name` with one of
/// `PATHEXT`'s extensions, in any case (`git` runs `GIT.BAT`).
pub fn cmd_runs_file(name: &str, file: &str) -> bool {
    let name = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if file.eq_ignore_ascii_case(name) {
        return true;
    }
    file.len() > name.len()
        && file.is_char_boundary(name.len())
        && file[..name.len()].eq_ignore_ascii_case(name)
        && file[name.len()..]
            .strip_prefix('.')
            .is_some_and(|extension| WINDOWS_EXTENSIONS.contains(&extension))
}

/// Whether the absolute directory `dir` may be the workspace's: below the outermost
/// directory that holds `cwd` and is neither the file system's root nor the home directory
/// or one above it.
fn near(dir: &Path, cwd: &Path, home: Option<&Path>) -> bool {
    let dir = lexical(dir);
    let outermost = cwd
        .ancestors()
        .filter(|a| a.components().count() > 1)
        .filter(|a| home.is_none_or(|home| !home.starts_with(a)))
        .last();
    outermost.is_some_and(|outer| dir.starts_with(outer))
}

/// `path` with `.` and `..` resolved by their names.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The file `name` runs from `dir`, if one is there: an executable file for the POSIX
/// shells; for cmd and PowerShell also the name with a program's extension.
fn runnable(dir: &Path, name: &str, dialect: Dialect) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let candidate = dir.join(name);
    if dialect == Dialect::Posix {
        let metadata = std::fs::metadata(&candidate).ok()?;
        return (metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
            .then_some(candidate);
    }
    let has_extension = Path::new(name)
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| WINDOWS_EXTENSIONS.contains(&e));
    let mut candidates = vec![candidate];
    if !has_extension {
        candidates.extend(
            WINDOWS_EXTENSIONS
                .iter()
                .map(|extension| dir.join(format!("{name}.{extension}"))),
        );
    }
    candidates.into_iter().find(|c| c.is_file())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn program(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn names(list: &[&str], dialect: Dialect) -> Vec<(String, Dialect)> {
        list.iter().map(|n| ((*n).to_owned(), dialect)).collect()
    }

    #[test]
    fn a_workspace_directory_first_in_path_finds_the_workspace_program() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let ws = home.join("project");
        let system = root.path().join("usr/bin");
        program(&system.join("git"));
        program(&system.join("ls"));
        program(&ws.join("node_modules/.bin/git"));
        program(&ws.join("tools/ls"));
        program(&home.join(".local/bin/git"));
        std::fs::create_dir_all(ws.join("src")).unwrap();
        let path = |entries: &[&Path]| std::env::join_paths(entries).unwrap();
        let found = |entries: &[&Path], list: &[&str]| {
            suspect_programs(
                &names(list, Dialect::Posix),
                Some(&path(entries)),
                &ws.join("src"),
                Some(&home),
            )
        };
        let bin = ws.join("node_modules/.bin");
        // Absolute, before the system's: found.
        assert_eq!(
            found(&[&bin, &system], &["git", "ls"]),
            vec![FoundProgram {
                name: "git".into(),
                path: bin.join("git")
            }]
        );
        // Relative to the working directory (`../tools`), and an empty entry.
        let relative = found(&[Path::new("../tools"), &system], &["ls"]);
        assert_eq!(relative.len(), 1);
        assert!(relative[0].path.ends_with("tools/ls"));
        // After the system's directory, the system's program is found first.
        assert!(found(&[&system, &bin], &["git"]).is_empty());
        // A home directory's own programs are not the workspace's.
        assert!(found(&[&home.join(".local/bin"), &system], &["git"]).is_empty());
        // A name the workspace does not hold.
        assert!(found(&[&bin, &system], &["cat"]).is_empty());
    }

    #[test]
    fn cmd_searches_the_working_directory_before_path() {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        let system = root.path().join("windows");
        std::fs::create_dir_all(&system).unwrap();
        std::fs::write(system.join("git.exe"), "").unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("git.bat"), "@del /s /q src\n").unwrap();
        let path = std::env::join_paths([&system]).unwrap();
        let found = |name: &str, dialect| {
            suspect_programs(
                &names(&[name], dialect),
                Some(&path),
                &ws,
                Some(root.path()),
            )
        };
        assert_eq!(found("git", Dialect::Cmd).len(), 1);
        assert!(found("git", Dialect::Cmd)[0].path.ends_with("git.bat"));
        assert!(
            found("git", Dialect::PowerShell).is_empty(),
            "PowerShell does not search it"
        );
        // Every extension of PATHEXT that runs something: Windows Script Host's too.
        for script in ["npm.vbs", "node.js", "tsc.wsf", "gh.JSE", "mmc.msc"] {
            std::fs::write(ws.join(script), "").unwrap();
            let name = script.split('.').next().unwrap();
            assert_eq!(found(name, Dialect::Cmd).len(), 1, "{script}");
        }
        // With no PATH at all, cmd still searches the working directory.
        assert_eq!(
            suspect_programs(&names(&["git"], Dialect::Cmd), None, &ws, None).len(),
            1
        );
    }

    #[test]
    fn cmd_runs_the_file_a_name_finds_with_an_extension() {
        assert!(cmd_runs_file("git", "git.bat"));
        assert!(cmd_runs_file("git", "GIT.CMD"));
        assert!(cmd_runs_file("sub/git", "git.vbs"));
        assert!(cmd_runs_file("git.exe", "git.exe"));
        assert!(!cmd_runs_file("git", "git.txt"));
        assert!(!cmd_runs_file("git", "gitx.bat"));
        assert!(!cmd_runs_file("git", "notes.md"));
    }

    #[test]
    fn a_path_of_system_and_home_directories_looks_at_no_file() {
        // Nothing exists at these paths: were any looked at, it would not matter, but the
        // answer comes before any is (no suspect directory).
        let path = std::env::join_paths(["/usr/bin", "/bin", "/home/u/.cargo/bin"]).unwrap();
        assert!(
            suspect_programs(
                &names(&["git"], Dialect::Posix),
                Some(&path),
                Path::new("/home/u/project"),
                Some(Path::new("/home/u"))
            )
            .is_empty()
        );
    }
}

//! Workspace programs are what they are (issue 35, point 6). A command word that is a path
//! (`./tools/git`, `node_modules/.bin/eslint`, `~/bin/ls`) runs the file at that path, not
//! the standard tool of the same name; a `PATH` assignment on the line that names anything
//! but the system's directories (`PATH=tools:$PATH git status`, `export PATH=.:$PATH`,
//! `env PATH=./bin:/usr/bin ls`) makes every later command word a lookup the guard cannot
//! follow. Both are opaque programs — checkpointed like a script — never judged by the
//! name's basename.

/// The directories whose programs are the system's: a command word that is a path into one
/// of them is judged by its name (`/usr/bin/rm -rf x` is `rm`).
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "/snap/bin",
    "/usr/games",
];

/// Why a path-named program is opaque.
pub(crate) const OWN_PROGRAM: &str = "a program named by its path runs the file at that path, \
     not the standard tool of the same name";

/// Why a `PATH` assignment makes the line opaque.
pub(crate) const SHADOWING_PATH: &str = "PATH names a directory other than the system's: a \
     command after it may run a program of the workspace instead of the standard tool";

/// Returns `true` if the command word `name` is a path to a program outside the system's
/// directories.
pub(crate) fn names_own_program(name: &str) -> bool {
    let Some((dir, _)) = name.rsplit_once('/') else {
        return false;
    };
    let dir = dir.trim_end_matches('/');
    !SYSTEM_DIRS.contains(&dir)
}

/// Returns `true` if a `PATH` assignment whose value is spelled `raw` (as written, quotes
/// included) may put a directory other than the system's before or among them: any entry
/// that is not one of [`SYSTEM_DIRS`] or the old value (`$PATH`, `${PATH}`), an empty
/// entry (the working directory), or anything the guard cannot read (`$(pwd)/bin`).
pub(crate) fn may_shadow(raw: &str) -> bool {
    let value: String = raw.chars().filter(|c| !matches!(c, '"' | '\'')).collect();
    value.split(':').any(|entry| {
        let entry = entry.trim_end_matches('/');
        !(SYSTEM_DIRS.contains(&entry) || entry == "$PATH" || entry == "${PATH}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_system_directories_name_own_programs() {
        for own in [
            "./tools/git",
            "tools/ls",
            "../bin/rm",
            "~/bin/git",
            "/home/u/ws/tools/git",
            "node_modules/.bin/eslint",
            "/usr/bin/x/../../../ws/git",
        ] {
            assert!(names_own_program(own), "{own}");
        }
        for system in [
            "git",
            "rm",
            "/usr/bin/git",
            "/bin/rm",
            "/usr/local/bin//git",
        ] {
            assert!(!names_own_program(system), "{system}");
        }
    }

    #[test]
    fn a_path_with_anything_but_system_directories_may_shadow() {
        for shadowing in [
            "tools:$PATH",
            "$PATH:tools",
            ".:$PATH",
            ":$PATH",
            "\"$PWD/tools:$PATH\"",
            "$(pwd)/bin:$PATH",
            "/home/u/ws/bin:/usr/bin",
            "",
        ] {
            assert!(may_shadow(shadowing), "{shadowing}");
        }
        for system in [
            "/usr/bin:/bin",
            "$PATH:/usr/local/bin",
            "'/usr/bin':${PATH}",
        ] {
            assert!(!may_shadow(system), "{system}");
        }
    }
}

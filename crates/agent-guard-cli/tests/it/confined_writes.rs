//! Overwrites whose files are only known when they run, confined to the workspace (issue 38,
//! point 1): `check --enforce` checkpoints them (`SNAPSHOT_CHECKPOINT_WRITE`), the real
//! command rewrites the files, and one `undo` brings every byte back.

use crate::support::{TestEnv, run_shell, undone_after_run};

fn with_sources() -> TestEnv {
    let env = TestEnv::new();
    env.write("src/a.py", "name = 'base'\n");
    env.write("src/lib/b.py", "print('base')\n");
    env.write("templates/base/config.ini", "[new]\n");
    env.write("out/base/config.ini", "[old, hand-edited]\n");
    env
}

#[test]
fn rewrites_through_find_globs_and_tree_copies_are_undone() {
    let rows: [(&str, &str, &str); 4] = [
        (
            "find src -name '*.py' -exec sed -i 's/base/patched/' {} +",
            "src/lib/b.py",
            "print('patched')\n",
        ),
        (
            "find src -type f -exec perl -pi -e 's/base/patched/' {} \\;",
            "src/a.py",
            "name = 'patched'\n",
        ),
        (
            "sed -i 's/base/patched/' src/*.py",
            "src/a.py",
            "name = 'patched'\n",
        ),
        ("cp -r templates/base out", "out/base/config.ini", "[new]\n"),
    ];
    for (line, file, after) in rows {
        let env = with_sources();
        undone_after_run(
            &env,
            line,
            "SNAPSHOT_CHECKPOINT_WRITE",
            |env| run_shell(env, line),
            |env| env.read(file) == after,
        );
    }
}

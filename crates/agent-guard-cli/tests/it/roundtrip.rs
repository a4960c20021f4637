//! End-to-end round trips: `check --enforce` → the real command via `sh -c` → `restore` →
//! the tree equals the original (content, modes, mtimes, symlink targets).

use std::os::unix::ffi::OsStringExt as _;
use std::os::unix::fs::PermissionsExt as _;

use crate::evidence::{Kind, Scenario};
use crate::support::{TestEnv, enforce, run_shell, snapshot, txids};

/// Adds the scenario files every round trip may touch.
fn prepare(env: &TestEnv) {
    let ws = env.ws();
    std::fs::create_dir_all(ws.join("empty")).unwrap();
    std::fs::create_dir_all(ws.join("my dir/sub")).unwrap();
    std::fs::write(ws.join("my dir/sub/file with spaces.txt"), "spaces").unwrap();
    let weird = std::ffi::OsString::from_vec(b"bin\xffary-\xfe.dat".to_vec());
    std::fs::create_dir_all(ws.join("odd")).unwrap();
    std::fs::write(ws.join("odd").join(&weird), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(ws.join("run.sh"), "#!/bin/sh\necho hi\n").unwrap();
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(env.fixture.outside.join("target.txt"), "outside").unwrap();
    std::os::unix::fs::symlink("notes.txt", ws.join("link-in")).unwrap();
    std::os::unix::fs::symlink(env.fixture.outside.join("target.txt"), ws.join("link-out"))
        .unwrap();
    std::os::unix::fs::symlink("build/report.txt", ws.join("build/link-inside-tree")).unwrap();
}

fn round_trip(command: &str, touched: &[&str], expected_code: &str) {
    let env = TestEnv::new();
    prepare(&env);
    let before = snapshot(env.ws(), touched);
    let outside_before = std::fs::read(env.fixture.outside.join("target.txt")).unwrap();

    let (exit, report) = enforce(&env, command);
    assert_eq!(exit, 0, "{command}: {report}");
    assert_eq!(report["decision"], "ALLOW", "{command}");
    assert_eq!(report["code"], expected_code, "{command}");
    let ids = txids(&report);
    assert!(!ids.is_empty(), "{command}: no transaction: {report}");
    assert!(
        report["message"]
            .as_str()
            .unwrap_or_default()
            .contains("agent-guard restore"),
        "{report}"
    );

    run_shell(&env, command);
    for txid in &ids {
        env.ag_ok(&["restore", txid]);
    }
    let after = snapshot(env.ws(), touched);
    assert_eq!(before, after, "{command}: the tree differs after restore");
    assert_eq!(
        std::fs::read(env.fixture.outside.join("target.txt")).unwrap(),
        outside_before
    );
}

#[test]
fn a_directory_tree() {
    round_trip("rm -rf build", &[""], "RELOCATE_TREE");
}

#[test]
fn a_plain_file() {
    round_trip("rm notes.txt", &[""], "RELOCATE_PATHS");
}

#[test]
fn a_symlink_inside() {
    round_trip("rm link-in", &[""], "RELOCATE_PATHS");
}

#[test]
fn a_symlink_pointing_outside_moves_the_link_not_the_target() {
    round_trip("rm link-out", &[""], "RELOCATE_PATHS");
}

#[test]
fn an_executable_file() {
    round_trip("rm -f run.sh", &[""], "RELOCATE_PATHS");
}

#[test]
fn an_empty_directory() {
    round_trip("rmdir empty", &[""], "RELOCATE_PATHS");
}

#[test]
fn names_with_spaces_and_non_utf8_bytes() {
    round_trip("rm -rf 'my dir' odd", &[""], "RELOCATE_TREE");
}

#[test]
fn several_targets() {
    round_trip("rm -rf build notes.txt run.sh", &[""], "RELOCATE_TREE");
}

#[test]
fn separators_and_wrappers() {
    round_trip(
        "echo start; env FOO=1 rm -rf build && nice -n 1 rm notes.txt",
        &[""],
        "RELOCATE_TREE",
    );
}

#[test]
fn a_file_inside_a_tree() {
    round_trip("rm build/report.txt", &["build"], "RELOCATE_PATHS");
}

/// Every test of this file, for `docs/EVIDENCE.md` (`evidence.rs` checks that none is missing).
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "a_directory_tree",
        run: a_directory_tree,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "a_plain_file",
        run: a_plain_file,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "a_symlink_inside",
        run: a_symlink_inside,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "a_symlink_pointing_outside_moves_the_link_not_the_target",
        run: a_symlink_pointing_outside_moves_the_link_not_the_target,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "an_executable_file",
        run: an_executable_file,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "an_empty_directory",
        run: an_empty_directory,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "names_with_spaces_and_non_utf8_bytes",
        run: names_with_spaces_and_non_utf8_bytes,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "several_targets",
        run: several_targets,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "separators_and_wrappers",
        run: separators_and_wrappers,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
    Scenario {
        name: "a_file_inside_a_tree",
        run: a_file_inside_a_tree,
        kind: Kind::RoundTrip,
        second_filesystem: false,
    },
];

//! A damaged checkpoint store is found before a checkpoint relies on it (issue 34, point
//! 5): a pack removed or truncated since the store wrote it is reported by `status` and
//! `doctor`, set aside, and the next checkpoint keeps everything again, so its undo is
//! byte-exact.

use crate::support::{TestEnv, enforce, json, snapshot};

fn packs(env: &TestEnv) -> Vec<std::path::PathBuf> {
    let dir = env.trash().join("checkpoints/objects/pack");
    let mut packs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .collect();
    packs.sort();
    packs
}

fn damaged_then_undone(damage: impl Fn(&std::path::Path), problem: &str) {
    let env = TestEnv::new();
    env.write("keep.txt", "precious\n");
    env.write("wipe.sh", "rm -f keep.txt src/main.rs\n");
    let (exit, report) = enforce(&env, "python3 -c pass");
    assert_eq!(exit, 0, "{report}");
    for pack in packs(&env) {
        damage(&pack);
    }
    let status = json(&env.ag(&["status", "--json"]));
    let found = status["checkpoint_damage"].as_array().unwrap();
    assert!(!found.is_empty(), "{status}");
    assert!(found.iter().all(|d| d["problem"] == problem), "{status}");
    let doctor = json(&env.ag(&["doctor", "--json"]));
    assert_eq!(
        doctor["checkpoint_damage"], status["checkpoint_damage"],
        "{doctor}\n{status}"
    );
    // The next checkpoint does not trust what the damaged packs held: it keeps it all.
    let before = snapshot(env.ws(), &["**"]);
    let (exit, report) = enforce(&env, "sh wipe.sh");
    assert_eq!(exit, 0, "{report}");
    assert_eq!(report["code"], "SNAPSHOT_CHECKPOINT", "{report}");
    let status = json(&env.ag(&["status", "--json"]));
    assert_eq!(
        status["checkpoint_damage"],
        serde_json::json!([]),
        "{status}"
    );
    std::process::Command::new("sh")
        .arg("wipe.sh")
        .current_dir(env.ws())
        .status()
        .unwrap();
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(snapshot(env.ws(), &["**"]), before);
    // The damaged packs were set aside, not deleted.
    assert!(env.trash().join("checkpoints/objects/damaged").is_dir());
}

#[test]
fn a_removed_pack_is_reported_and_the_next_checkpoint_keeps_everything() {
    damaged_then_undone(|pack| std::fs::remove_file(pack).unwrap(), "missing");
}

#[test]
fn a_truncated_pack_is_reported_and_the_next_checkpoint_keeps_everything() {
    damaged_then_undone(
        |pack| {
            let file = std::fs::OpenOptions::new().write(true).open(pack).unwrap();
            file.set_len(20).unwrap();
        },
        "truncated",
    );
}

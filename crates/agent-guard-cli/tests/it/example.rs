//! `status`, `list` and `show` read the committed example quarantine.

use crate::support::{TestEnv, json};

/// Copies `.agent-trash.example` into the test workspace as `.agent-trash`, where the
/// reference tool (and earlier versions) kept the store: the first command moves it to the
/// per-user store and reads it there (issue 34).
pub fn install_example(env: &TestEnv) {
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.agent-trash.example");
    let trash = env.ws().join(".agent-trash");
    for entry in walk(&source) {
        let relative = entry.strip_prefix(&source).unwrap();
        let target = trash.join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            let text = std::fs::read_to_string(&entry).unwrap();
            std::fs::write(
                &target,
                text.replace("/ws-example", &env.ws().to_string_lossy()),
            )
            .unwrap();
        }
    }
}

fn walk(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![root.to_owned()];
    let mut index = 0;
    while index < out.len() {
        if out[index].is_dir() {
            for entry in std::fs::read_dir(&out[index]).unwrap() {
                out.push(entry.unwrap().path());
            }
        }
        index += 1;
    }
    out.into_iter().skip(1).collect()
}

#[test]
fn list_reads_both_transactions_newest_first() {
    let env = TestEnv::new();
    install_example(&env);
    // By default only what can still be restored; the restored one is counted as hidden.
    let live = json(&env.ag_ok(&["list", "--json"]));
    assert_eq!(live["transactions"].as_array().unwrap().len(), 1);
    assert_eq!(live["hidden"], 1);
    let list = json(&env.ag_ok(&["list", "--json", "--all"]));
    let txs = list["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 2);
    assert_eq!(txs[0]["txid"], "20261130-102000-4e5f6a7b");
    assert_eq!(txs[0]["state"], "RESTORED");
    assert_eq!(txs[1]["txid"], "20261130-101500-0a1b2c3d");
    assert_eq!(txs[1]["state"], "RESTORABLE");
    assert_eq!(txs[1]["restorable_items"], 2);
    assert_eq!(txs[1]["tool"], "safe_delete");
}

#[test]
fn show_lists_items_sizes_and_origins() {
    let env = TestEnv::new();
    install_example(&env);
    let show = json(&env.ag_ok(&["show", "--json", "20261130-101500-0a1b2c3d"]));
    let items = show["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let build = items.iter().find(|i| i["kind"] == "dir").unwrap();
    assert_eq!(build["files"], 2);
    assert_eq!(build["bytes"], 20);
    assert!(build["origin"].as_str().unwrap().ends_with("/build"));
}

#[test]
fn status_counts_usage_and_decisions() {
    let env = TestEnv::new();
    install_example(&env);
    let status = json(&env.ag_ok(&["status", "--json"]));
    assert_eq!(status["usage"]["transactions"], 2);
    assert_eq!(status["usage"]["restorable_items"], 2);
    assert_eq!(status["decisions"]["BLOCK_PROTECTED_PATH"], 1);
    assert_eq!(status["decisions"]["RELOCATE_TREE"], 2);
}

#[test]
fn the_example_restores_into_the_workspace() {
    let env = TestEnv::new();
    install_example(&env);
    std::fs::remove_file(env.ws().join("notes.txt")).unwrap();
    std::fs::remove_dir_all(env.ws().join("build")).unwrap();
    env.ag_ok(&["restore", "20261130-101500-0a1b2c3d"]);
    assert_eq!(env.read("notes.txt"), "my notes\n");
    assert_eq!(env.read("build/out/app.o"), "object\n");
}

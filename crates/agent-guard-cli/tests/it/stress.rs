//! Eight processes at once on one workspace, mixing safe-delete, check --enforce, restore
//! and gc: no corrupt manifest line, no lost item.

use std::collections::BTreeMap;

use crate::support::{TestEnv, json};

const FILES: usize = 48;
const WORKERS: usize = 8;

#[test]
fn eight_concurrent_writers_lose_nothing() {
    let env = TestEnv::new();
    let mut originals = BTreeMap::new();
    for i in 0..FILES {
        let name = format!("f{i:02}.txt");
        let content = format!("content of file {i}\n");
        env.write(&name, &content);
        originals.insert(name, content);
    }
    std::thread::scope(|scope| {
        for worker in 0..WORKERS {
            let env = &env;
            scope.spawn(move || {
                for (round, i) in (worker..FILES).step_by(WORKERS).enumerate() {
                    let name = format!("f{i:02}.txt");
                    let output = if round % 2 == 0 {
                        env.ag(&["safe-delete", "--json", &name])
                    } else {
                        env.ag(&["check", "--enforce", "--json", "--", &format!("rm {name}")])
                    };
                    assert!(output.status.success(), "{name}: {output:?}");
                    let report = json(&output);
                    let txid = report["txid"].as_str().map(str::to_owned).or_else(|| {
                        report["compensations"][0]["txid"]
                            .as_str()
                            .map(str::to_owned)
                    });
                    if let Some(txid) = txid.filter(|_| round % 3 == 0) {
                        env.ag_ok(&["restore", &txid]);
                    }
                    if round % 4 == 1 {
                        env.ag_ok(&["gc", "--json"]);
                        let _ = env.ag(&["gc", "--execute", "--all-eligible"]);
                    }
                    let _ = env.ag(&["status", "--json"]);
                }
            });
        }
    });

    // Every manifest line is a whole JSON object.
    let manifest = std::fs::read_to_string(env.trash().join("manifest.jsonl")).unwrap();
    for (n, line) in manifest.lines().enumerate() {
        let value: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {n}: {e}: {line}"));
        assert!(value.is_object());
    }
    // Nothing lost: restore everything still quarantined, and every file is back intact.
    let list: serde_json::Value =
        serde_json::from_slice(&env.ag(&["list", "--json", "--limit", "0"]).stdout).unwrap();
    for tx in list["transactions"].as_array().unwrap() {
        if tx["state"] == "RESTORABLE" {
            env.cmd("agent-guard")
                .args(["restore", tx["txid"].as_str().unwrap()])
                .assert()
                .success();
        }
    }
    for (name, content) in &originals {
        assert_eq!(&env.read(name), content, "{name}");
    }
}

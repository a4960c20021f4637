//! Issue 35, point 2: the user's `~/.config/agent-guard/config.toml` is a layer below the
//! project file, which may only tighten it until a person trusts it; an unknown key in any
//! layer is an error that names the file and the nearest valid key. The real binary judges;
//! an allowed delete is run and undone.

use crate::support::{TestEnv, enforce, run_shell};

fn user_config(env: &TestEnv, text: &str) {
    let path = env.fixture.home.join(".config/agent-guard/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_user_layer_applies_and_an_untrusted_project_cannot_loosen_it() {
    let env = TestEnv::new();
    // By default the ignored dependency directory is regenerable: deleted without a copy.
    assert_eq!(
        env.check_json("rm -rf node_modules")["code"],
        "ALLOW_REGENERABLE"
    );
    // The user turns that off: it is kept first, and the delete is undone byte for byte.
    user_config(&env, "[regenerable]\nenabled = false\n");
    let (exit, report) = enforce(&env, "rm -rf node_modules");
    assert_eq!(
        (exit, report["code"].as_str()),
        (0, Some("RELOCATE_TREE")),
        "{report}"
    );
    run_shell(&env, "rm -rf node_modules");
    env.ag_ok(&["undo", "--json"]);
    assert_eq!(env.read("node_modules/pkg/index.js"), "module\n");

    // A project file the agent could have written turns it back on: set aside, and said.
    env.write(".agent-guard.toml", "[regenerable]\nenabled = true\n");
    let report = env.check_json("rm -rf node_modules");
    assert_eq!(report["code"], "RELOCATE_TREE", "{report}");
    assert!(
        report["warnings"]
            .to_string()
            .contains("regenerable.enabled"),
        "{report}"
    );
    // A person trusts it: now it applies.
    env.trust_config();
    assert_eq!(
        env.check_json("rm -rf node_modules")["code"],
        "ALLOW_REGENERABLE"
    );
}

#[test]
fn an_unknown_key_in_the_user_layer_refuses_and_names_the_nearest_key() {
    let env = TestEnv::new();
    user_config(&env, "[regenerable]\nenabeld = false\n");
    let (exit, report) = enforce(&env, "rm -rf build");
    assert_eq!(exit, 2, "{report}");
    assert_eq!(report["code"], "BLOCK_CONFIG_INVALID", "{report}");
    let said = report.to_string();
    assert!(said.contains(".config/agent-guard/config.toml"), "{said}");
    assert!(said.contains("did you mean `enabled`?"), "{said}");
    assert!(env.ws().join("build/report.txt").exists());
    // A line that destroys nothing still runs.
    assert_eq!(env.check_json("ls")["code"], "ALLOW_NOOP");
}

use std::path::Path;

use super::*;

/// A workspace with optional user, project and system files; returns the merged layers.
fn layers(user: Option<&str>, project: Option<&str>, system: Option<&str>, trust: bool) -> Layered {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let state = dir.path().join("state");
    fs_err::create_dir_all(&ws).unwrap();
    let place = |path: &Path, text: Option<&str>| {
        if let Some(text) = text {
            fs_err::create_dir_all(path.parent().unwrap()).unwrap();
            fs_err::write(path, text).unwrap();
        }
    };
    let user_path = dir.path().join("config/agent-guard/config.toml");
    let system_path = dir.path().join("etc/agent-guard/config.toml");
    place(&user_path, user);
    place(&ws.join(crate::CONFIG_FILE_NAME), project);
    place(&system_path, system);
    if trust && let Some(text) = project {
        let record = crate::trust::trust_record(&state, &ws);
        fs_err::create_dir_all(record.parent().unwrap()).unwrap();
        fs_err::write(record, crate::trust::digest(text.as_bytes())).unwrap();
    }
    load_layers(&ws, Some(&state), Some(&user_path), Some(&system_path)).unwrap()
}

#[test]
fn the_user_file_sets_what_the_project_may_only_tighten() {
    let user = "trash = \"/q\"\n[retention]\ndays = 90\n[checkpoint]\nmode = \"always\"\n";
    // Untrusted: a shorter retention and fewer checkpoints than the user's are set aside; a
    // smaller preservation cap (tighter) applies.
    let project =
        "[retention]\ndays = 60\n[checkpoint]\nmode = \"opaque\"\n[preserve]\nmax_bytes = 10\n";
    let merged = layers(Some(user), Some(project), None, false);
    assert_eq!(merged.file.trash.as_deref(), Some(Path::new("/q")));
    assert_eq!(merged.file.retention.days, Some(90));
    assert_eq!(merged.file.checkpoint.mode, Some(CheckpointMode::Always));
    assert_eq!(merged.file.preserve.max_bytes, Some(10));
    assert_eq!(merged.set_aside, ["retention.days", "checkpoint.mode"]);
    // Trusted, the project's values stand.
    let merged = layers(Some(user), Some(project), None, true);
    assert_eq!(merged.file.retention.days, Some(60));
    assert_eq!(merged.file.checkpoint.mode, Some(CheckpointMode::Opaque));
    assert!(merged.set_aside.is_empty());
}

#[test]
fn the_system_file_only_tightens_whatever_the_others_say() {
    let system =
        "[retention]\ndays = 120\n[preserve]\nedit_tools = true\n[regenerable]\nenabled = false\n";
    let loose = "trash = \"/elsewhere\"\n[retention]\ndays = 1\n[preserve]\nedit_tools = false\n[regenerable]\nartifacts = [\"data\"]\n";
    // Even a trusted project and the user's own file cannot go below the system's floor.
    let merged = layers(Some(loose), Some(loose), Some(system), true);
    assert_eq!(merged.file.retention.days, Some(120));
    assert_eq!(merged.file.preserve.edit_tools, Some(true));
    assert_eq!(merged.file.regenerable.enabled, Some(false));
    // What the system file would loosen is not taken from it.
    let merged = layers(None, None, Some(loose), false);
    assert_eq!(merged.file.trash, None);
    assert!(merged.file.regenerable.artifacts.is_empty());
    assert_eq!(merged.file.retention.days, None);
    assert_eq!(merged.file.preserve.edit_tools, None);
}

#[test]
fn without_a_user_file_the_project_is_judged_against_the_defaults() {
    let merged = layers(
        None,
        Some("trash = \"q\"\n[retention]\ndays = 90\n"),
        None,
        false,
    );
    assert_eq!(merged.set_aside, ["trash"]);
    assert_eq!(merged.file.trash, None);
    assert_eq!(merged.file.retention.days, Some(90));
    assert!(merged.any);
    assert!(!layers(None, None, None, false).any);
}

#[test]
fn a_bad_layer_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("config.toml");
    fs_err::write(&user, "trsh = 1\n").unwrap();
    let error = load_layers(dir.path(), None, Some(&user), None).unwrap_err();
    assert!(
        error.to_string().contains(&user.display().to_string()),
        "{error}"
    );
    assert!(
        error.to_string().contains("did you mean `trash`?"),
        "{error}"
    );
}

#[test]
fn the_user_file_is_found_under_the_configuration_directory() {
    let env = EnvSnapshot {
        home: Some("/home/u".into()),
        ..EnvSnapshot::default()
    };
    assert_eq!(
        user_config_path(&env).unwrap(),
        Path::new("/home/u/.config/agent-guard/config.toml")
    );
    let env = EnvSnapshot {
        xdg_config_home: Some("/cfg".into()),
        ..env
    };
    assert_eq!(
        user_config_path(&env).unwrap(),
        Path::new("/cfg/agent-guard/config.toml")
    );
    assert_eq!(user_config_path(&EnvSnapshot::default()), None);
}

#[test]
fn an_untrusted_project_cannot_change_the_dialect() {
    let merged = layers(None, Some("dialect = \"cmd\"\n"), None, false);
    assert_eq!(merged.file.dialect, None);
    assert_eq!(merged.set_aside, ["dialect"]);
    let merged = layers(
        Some("dialect = \"posix\"\n"),
        Some("dialect = \"cmd\"\n"),
        None,
        false,
    );
    assert_eq!(merged.file.dialect.as_deref(), Some("posix"));
    // The user's own choice, and a trusted project's, stand.
    let merged = layers(Some("dialect = \"powershell\"\n"), None, None, false);
    assert_eq!(merged.file.dialect.as_deref(), Some("powershell"));
    let merged = layers(None, Some("dialect = \"cmd\"\n"), None, true);
    assert_eq!(merged.file.dialect.as_deref(), Some("cmd"));
}

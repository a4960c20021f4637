use chrono::TimeZone;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 4, 51, 30).unwrap()
}

#[test]
fn paths_are_sanitised_and_contained() {
    let trash = Path::new("/q");
    assert_eq!(mode_path(trash, None), Path::new("/q/state.json"));
    assert_eq!(
        mode_path(trash, Some("agent-1.a_b")),
        Path::new("/q/sessions/agent-1.a_b.json")
    );
    assert_eq!(
        mode_path(trash, Some("../../etc/passwd")),
        Path::new("/q/sessions/.._.._etc_passwd.json")
    );
    assert_eq!(
        mode_path(trash, Some("a/b\\c d\u{e9}")),
        Path::new("/q/sessions/a_b_c_d_.json")
    );
    for escaping in ["", ".", ".."] {
        assert_eq!(
            mode_path(trash, Some(escaping)),
            Path::new("/q/sessions/_.json"),
            "{escaping:?}"
        );
    }
    let long = "x".repeat(200);
    assert_eq!(sanitize_session(&long).len(), 80);
    for hostile in ["../x", "/abs", "a/../../b", "..", "\0"] {
        let path = mode_path(trash, Some(hostile));
        assert_eq!(path.parent(), Some(Path::new("/q/sessions")), "{hostile:?}");
    }
}

#[test]
fn missing_corrupt_and_unknown_read_as_normal() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path();
    assert_eq!(read_mode(trash, None), ModeState::default());
    for text in [
        "",
        "not json",
        "[1]",
        r#"{"mode":"PARANOID"}"#,
        r#"{"mode":3}"#,
    ] {
        fs_err::write(trash.join(STATE_FILE_NAME), text).unwrap();
        assert_eq!(read_mode(trash, None).mode, SessionMode::Normal, "{text}");
    }
    fs_err::write(
        trash.join(STATE_FILE_NAME),
        r#"{"mode":"RESTRICTED","set_by":"human"}"#,
    )
    .unwrap();
    let state = read_mode(trash, None);
    assert_eq!(state.mode, SessionMode::Restricted);
    assert_eq!(state.set_by.as_deref(), Some("human"));
    assert_eq!(state.since, None);
}

#[test]
fn round_trip_and_tty_rule() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path();
    let session = Some("agent/1");

    let change = set_mode(
        trash,
        session,
        SessionMode::Restricted,
        "veto",
        false,
        now(),
    )
    .unwrap();
    assert!(change.changed);
    assert_eq!(change.previous, SessionMode::Normal);
    let stored = read_mode(trash, session);
    assert_eq!(stored, change.state);
    assert_eq!(stored.since.as_deref(), Some("2026-11-30T04:51:30Z"));
    assert_eq!(stored.set_by.as_deref(), Some("veto"));
    let path = mode_path(trash, session);
    assert_eq!(
        fs_err::read_to_string(&path).unwrap(),
        "{\"mode\":\"RESTRICTED\",\"set_by\":\"veto\",\"since\":\"2026-11-30T04:51:30Z\"}\n"
    );
    assert!(!fsops::temporary_sibling(&path).exists());

    // Other sessions and the legacy file are unaffected.
    assert_eq!(read_mode(trash, Some("agent-2")).mode, SessionMode::Normal);
    assert_eq!(read_mode(trash, None).mode, SessionMode::Normal);

    // Same mode: no-op, nothing rewritten.
    let again = set_mode(
        trash,
        session,
        SessionMode::Restricted,
        "other",
        false,
        now(),
    )
    .unwrap();
    assert!(!again.changed);
    assert_eq!(read_mode(trash, session).set_by.as_deref(), Some("veto"));

    // Leaving RESTRICTED without a terminal is refused and changes nothing.
    let error = set_mode(trash, session, SessionMode::Normal, "agent", false, now()).unwrap_err();
    assert!(matches!(
        error,
        SessionError::AuthorizationRequired {
            from: SessionMode::Restricted,
            to: SessionMode::Normal
        }
    ));
    assert!(
        error.to_string().contains("interactive terminal"),
        "{error}"
    );
    assert_eq!(read_mode(trash, session).mode, SessionMode::Restricted);

    // With a terminal it is allowed.
    let back = set_mode(trash, session, SessionMode::Normal, "human", true, now()).unwrap();
    assert!(back.changed);
    assert_eq!(back.previous, SessionMode::Restricted);
    assert_eq!(read_mode(trash, session).mode, SessionMode::Normal);
}

#[test]
fn legacy_state_file_without_session() {
    let dir = tempfile::tempdir().unwrap();
    set_mode(
        dir.path(),
        None,
        SessionMode::Restricted,
        "veto",
        false,
        now(),
    )
    .unwrap();
    assert!(dir.path().join(STATE_FILE_NAME).is_file());
    assert!(!dir.path().join(SESSIONS_DIR_NAME).exists());
    assert_eq!(read_mode(dir.path(), None).mode, SessionMode::Restricted);
}

#[test]
fn missing_trash_is_an_error_and_is_not_created() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path().join("absent");
    let error = set_mode(
        &trash,
        Some("s"),
        SessionMode::Restricted,
        "veto",
        false,
        now(),
    )
    .unwrap_err();
    assert!(matches!(error, SessionError::MissingTrash { .. }));
    assert!(!trash.exists());
}

use std::path::{Path, PathBuf};
use std::process::Command;

use agent_guard_types::{EntryKind, PathSpec, Protected, Target, World};
use agent_guard_world::RealWorld;

use crate::support::{Scratch, facts, world};

struct Fixture {
    scratch: Scratch,
    ws: PathBuf,
    home: PathBuf,
    world: RealWorld,
}

/// `ws/` (a workspace with `.git`, `src/a.txt`, a quarantine holding `tx1/state.json`),
/// `outside/` (`keep.txt`, `a/b/`) and `home/`.
fn fixture() -> Fixture {
    let scratch = Scratch::new();
    let ws = scratch.dir("ws");
    scratch.dir("ws/.git");
    scratch.file("ws/src/a.txt", "a");
    scratch.file("ws/.agent-trash/tx1/state.json", "{}");
    scratch.file("ws/sub/.git/config", "");
    scratch.file("outside/keep.txt", "keep");
    scratch.dir("outside/a/b");
    let home = scratch.dir("home");
    let world = world(&ws, Some(&home));
    Fixture {
        scratch,
        ws,
        home,
        world,
    }
}

impl Fixture {
    fn at(&self, text: &str) -> PathSpec {
        facts(&self.world, text, &self.ws)
    }

    fn tilde(&self, text: &str) -> PathSpec {
        let target = Target {
            tilde: true,
            ..Target::literal(text)
        };
        self.world.path(&target, &self.ws)
    }
}

#[track_caller]
fn assert_protected(spec: &PathSpec, expected: Option<Protected>) {
    assert_eq!(spec.protected, expected, "{spec:#?}");
}

#[test]
fn relative_and_absolute_targets_inside() {
    let f = fixture();
    let spec = f.at("src/a.txt");
    assert_eq!(spec.raw, "src/a.txt");
    assert_eq!(spec.resolved, Some(f.ws.join("src/a.txt")));
    assert_eq!(spec.physical, Some(f.ws.join("src/a.txt")));
    assert_eq!(spec.relative, Some(PathBuf::from("src/a.txt")));
    assert_eq!(spec.entry, EntryKind::File);
    assert!(spec.inside_workspace && !spec.inside_trash && spec.error.is_none());
    assert_protected(&spec, None);

    let absolute = f.at(f.ws.join("src/./x/../a.txt").to_str().unwrap());
    assert_eq!(absolute.physical, Some(f.ws.join("src/a.txt")));
    assert_eq!(absolute.entry, EntryKind::File);

    let dir = facts(&f.world, "a.txt", &f.ws.join("src"));
    assert_eq!(dir.relative, Some(PathBuf::from("src/a.txt")));
    assert_eq!(f.at("src").entry, EntryKind::Dir);
    let missing = f.at("src/missing/deeper");
    assert_eq!(missing.entry, EntryKind::Absent);
    assert!(!missing.exists() && missing.inside_workspace);
}

#[test]
fn tilde_expands_to_home() {
    let f = fixture();
    let spec = f.tilde("~/notes.txt");
    assert_eq!(spec.resolved, Some(f.home.join("notes.txt")));
    assert_protected(&spec, Some(Protected::OutsideWorkspace));
    assert_protected(&f.tilde("~"), Some(Protected::AncestorRoot));
    assert_protected(&f.tilde("~/"), Some(Protected::AncestorRoot));

    let homeless = world(&f.ws, None);
    let target = Target {
        tilde: true,
        ..Target::literal("~/x")
    };
    assert_eq!(
        homeless
            .path(&target, &f.ws)
            .error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("home directory unknown")
    );
    let other_user = f.tilde("~alice/x");
    assert!(other_user.error.is_some() && other_user.protected.is_none());
}

#[test]
fn dot_dot_escapes_the_workspace() {
    let f = fixture();
    let spec = f.at("../x");
    assert_eq!(spec.resolved, Some(f.scratch.path("x")));
    assert!(!spec.inside_workspace && spec.relative.is_none());
    assert_protected(&spec, Some(Protected::OutsideWorkspace));
    assert_protected(
        &f.at("src/../../outside/keep.txt"),
        Some(Protected::OutsideWorkspace),
    );
    assert_protected(&f.at("src/../src/a.txt"), None);
}

#[test]
fn workspace_root_in_every_spelling() {
    let f = fixture();
    for spelling in [".", "./", "src/..", "src/../.", f.ws.to_str().unwrap()] {
        let spec = f.at(spelling);
        assert_protected(&spec, Some(Protected::WorkspaceRoot));
        assert_eq!(spec.entry, EntryKind::Dir, "{spelling}");
        assert_eq!(spec.relative, Some(PathBuf::new()), "{spelling}");
    }
}

#[test]
fn git_metadata_anywhere_below_the_workspace() {
    let f = fixture();
    assert_protected(&f.at(".git"), Some(Protected::GitMetadata));
    assert_protected(&f.at(".git/"), Some(Protected::GitMetadata));
    assert_protected(&f.at("sub/.git/config"), Some(Protected::GitMetadata));
    assert_protected(&f.at("sub/.gitignore"), None);
}

#[test]
fn ancestor_roots_are_exact_matches() {
    let f = fixture();
    for root in [
        "/", "/usr", "/usr/", "/tmp", "/etc", "/home", "/private", "//",
    ] {
        assert_protected(&f.at(root), Some(Protected::AncestorRoot));
    }
    assert_protected(&f.at("/usr/../etc"), Some(Protected::AncestorRoot));
    assert_protected(
        &f.at(f.home.to_str().unwrap()),
        Some(Protected::AncestorRoot),
    );
    for below in ["/home/alice/build", "/homework", "/etc/nginx", "/usr/local"] {
        assert_protected(&f.at(below), Some(Protected::OutsideWorkspace));
    }
}

#[test]
fn home_matches_spelled_and_real() {
    let f = fixture();
    let alias = f.scratch.link("home-alias", &f.home);
    let world = world(&f.ws, Some(&alias));
    let real = facts(&world, f.home.to_str().unwrap(), &f.ws);
    assert_protected(&real, Some(Protected::AncestorRoot));
    let spelled = facts(&world, alias.to_str().unwrap(), &f.ws);
    assert_protected(&spelled, Some(Protected::AncestorRoot));
    let target = Target {
        tilde: true,
        ..Target::literal("~")
    };
    assert_protected(&world.path(&target, &f.ws), Some(Protected::AncestorRoot));
}

#[test]
fn a_symlink_is_judged_where_it_sits_its_contents_where_they_lead() {
    let f = fixture();
    let outside = f.scratch.path("outside");
    f.scratch.link("ws/escape", &outside);

    let link = f.at("escape");
    assert_eq!(link.entry, EntryKind::Symlink);
    assert_eq!(link.physical, Some(f.ws.join("escape")));
    assert!(link.inside_workspace);
    assert_protected(&link, None);

    for through in ["escape/", "escape/.", "escape/keep.txt", "escape/a/b/"] {
        let spec = f.at(through);
        assert!(!spec.inside_workspace, "{through}");
        assert_protected(&spec, Some(Protected::OutsideWorkspace));
    }
    let keep = f.at("escape/keep.txt");
    assert_eq!(keep.physical, Some(outside.join("keep.txt")));
    assert_eq!(keep.resolved, Some(f.ws.join("escape/keep.txt")));
    assert_eq!(keep.entry, EntryKind::File);
    assert_eq!(f.at("escape/").entry, EntryKind::Dir);
}

#[test]
fn dot_dot_after_a_link_is_physical() {
    let f = fixture();
    let deep = f.scratch.path("outside/a/b");
    f.scratch.link("ws/link", &deep);
    let spec = f.at("link/../x");
    assert_eq!(spec.resolved, Some(f.ws.join("x")));
    assert_eq!(spec.physical, Some(f.scratch.path("outside/a/x")));
    assert_protected(&spec, Some(Protected::OutsideWorkspace));

    // A relative link resolves against the directory it sits in.
    f.scratch.link("ws/src/rel", "../../outside/a");
    let rel = f.at("src/rel/b/../../keep.txt");
    assert_eq!(rel.physical, Some(f.scratch.path("outside/keep.txt")));
    assert_eq!(rel.entry, EntryKind::File);
}

#[test]
fn a_link_to_an_outside_file_is_removed_where_it_sits() {
    let f = fixture();
    f.scratch
        .link("ws/filelink", f.scratch.path("outside/keep.txt"));
    let spec = f.at("filelink");
    assert_eq!(spec.entry, EntryKind::Symlink);
    assert!(spec.inside_workspace);
    assert_protected(&spec, None);
    assert!(spec.is_file_or_symlink());
}

#[test]
fn links_to_protected_roots_keep_their_protection() {
    let f = fixture();
    f.scratch.link("ws/rootlink", "/");
    f.scratch.link("ws/selflink", &f.ws);
    f.scratch.link("ws/homelink", &f.home);
    assert_protected(&f.at("rootlink"), Some(Protected::AncestorRoot));
    assert_protected(&f.at("selflink"), Some(Protected::WorkspaceRoot));
    assert_protected(&f.at("homelink"), Some(Protected::AncestorRoot));
}

#[test]
fn the_quarantine_protects_itself() {
    let f = fixture();
    f.scratch.link("ws/bucket-link", ".agent-trash");
    let alias = f.at("bucket-link");
    assert_eq!(alias.entry, EntryKind::Symlink);
    assert_protected(&alias, Some(Protected::WorkspaceRoot));

    let root = f.at(".agent-trash");
    assert!(root.inside_trash);
    assert_protected(&root, Some(Protected::WorkspaceRoot));
    for control in [
        ".agent-trash/manifest.jsonl",
        ".agent-trash/audit.jsonl",
        ".agent-trash/state.json.tmp",
        ".agent-trash/sessions",
        ".agent-trash/sessions/x/state.json",
        ".agent-trash/lock",
        ".agent-trash/.git",
    ] {
        let spec = f.at(control);
        assert!(spec.inside_trash, "{control}");
        assert_protected(&spec, Some(Protected::QuarantineControl));
    }
    assert_eq!(f.at(".agent-trash/manifest.jsonl").entry, EntryKind::Absent);

    let payload = f.at(".agent-trash/tx1/state.json");
    assert!(payload.inside_trash && payload.inside_workspace);
    assert_eq!(payload.entry, EntryKind::File);
    assert_protected(&payload, None);
    assert_protected(&f.at(".agent-trash/tx1/.git"), Some(Protected::GitMetadata));
}

#[test]
fn a_control_file_that_is_a_link_is_still_control() {
    let f = fixture();
    f.scratch.file("ws/other/sentinel", "s");
    f.scratch
        .link("ws/.agent-trash/audit.jsonl", "../other/sentinel");
    let spec = f.at(".agent-trash/audit.jsonl");
    assert_eq!(spec.entry, EntryKind::Symlink);
    assert_protected(&spec, Some(Protected::QuarantineControl));
}

#[test]
fn quarantine_control_through_an_aliased_base() {
    let f = fixture();
    let alias = f.scratch.link("ws-alias", &f.ws);
    let spec = facts(&f.world, ".agent-trash/audit.jsonl", &alias);
    assert_eq!(spec.resolved, Some(alias.join(".agent-trash/audit.jsonl")));
    assert_protected(&spec, Some(Protected::QuarantineControl));
    let build = facts(&f.world, "src", &alias);
    assert_eq!(build.relative, Some(PathBuf::from("src")));
    assert_protected(&build, None);
    assert_protected(
        &facts(&f.world, ".", &alias),
        Some(Protected::WorkspaceRoot),
    );
}

#[test]
fn a_directory_holding_the_quarantine_is_control() {
    let f = fixture();
    f.scratch.dir("ws/node_modules/store");
    f.scratch.dir("ws/node_modules/pkg");
    let world = RealWorld::new(
        f.ws.clone(),
        f.ws.join("node_modules/store"),
        Some(f.home.clone()),
    );
    let spec = |text: &str| facts(&world, text, &f.ws);
    assert_protected(&spec("node_modules"), Some(Protected::QuarantineControl));
    assert_protected(&spec("node_modules/"), Some(Protected::QuarantineControl));
    assert_protected(&spec("node_modules/store"), Some(Protected::WorkspaceRoot));
    assert_protected(&spec("node_modules/pkg"), None);
    assert_protected(&spec("."), Some(Protected::WorkspaceRoot));
}

#[test]
fn a_quarantine_reached_through_a_link_is_protected_in_both_spellings() {
    let f = fixture();
    let store = f.scratch.dir("store");
    f.scratch.link("ws/holder/bucket", &store);
    let world = RealWorld::new(f.ws.clone(), f.ws.join("holder/bucket"), None);
    let spec = |text: &str| facts(&world, text, &f.ws);
    assert_protected(&spec("holder"), Some(Protected::QuarantineControl));
    assert_protected(&spec("holder/bucket"), Some(Protected::WorkspaceRoot));
    assert_protected(
        &spec("holder/bucket/manifest.jsonl"),
        Some(Protected::QuarantineControl),
    );
    let payload = spec("holder/bucket/tx1/file");
    assert!(payload.inside_trash);
    assert_eq!(payload.physical, Some(store.join("tx1/file")));
}

#[test]
fn an_external_quarantine() {
    let f = fixture();
    let external = f.scratch.dir("external-trash");
    f.scratch.file("external-trash/tx1/payload", "p");
    let world = RealWorld::new(f.ws.clone(), external.clone(), None);
    let audit = facts(
        &world,
        external.join("audit.jsonl").to_str().unwrap(),
        &f.ws,
    );
    assert!(audit.inside_trash && !audit.inside_workspace);
    assert_protected(&audit, Some(Protected::QuarantineControl));
    let payload = facts(
        &world,
        external.join("tx1/payload").to_str().unwrap(),
        &f.ws,
    );
    assert!(payload.inside_trash && !payload.inside_workspace);
    assert_eq!(payload.entry, EntryKind::File);
    assert_protected(&payload, Some(Protected::OutsideWorkspace));
    assert_protected(
        &facts(&world, external.to_str().unwrap(), &f.ws),
        Some(Protected::WorkspaceRoot),
    );
    // In this world `.agent-trash` inside the workspace is ordinary content.
    assert_protected(&facts(&world, ".agent-trash", &f.ws), None);
}

#[test]
fn windows_spellings_are_never_probed() {
    let f = fixture();
    for root in ["C:", "C:/", "c:\\", "D:\\"] {
        let spec = f.at(root);
        assert_eq!(spec.resolved, Some(PathBuf::from(root)));
        assert_eq!(spec.physical, None);
        assert_protected(&spec, Some(Protected::AncestorRoot));
    }
    for other in [
        "C:/Users/me",
        "C:\\Windows",
        "//server/share",
        "\\\\server\\share\\x",
    ] {
        let spec = f.at(other);
        assert_eq!(spec.resolved, Some(PathBuf::from(other)));
        assert_eq!(spec.entry, EntryKind::Absent);
        assert!(!spec.inside_workspace);
        assert_protected(&spec, Some(Protected::OutsideWorkspace));
    }
}

#[test]
fn symlink_loops_and_chains() {
    let f = fixture();
    f.scratch.link("ws/loop1", "loop2");
    f.scratch.link("ws/loop2", "loop1");
    let link = f.at("loop1");
    assert_eq!(link.entry, EntryKind::Symlink);
    assert!(link.error.is_none());
    for through in ["loop1/", "loop1/x", "loop1/.."] {
        let spec = f.at(through);
        assert_eq!(
            spec.error.as_ref().map(ToString::to_string).as_deref(),
            Some("too many levels of symbolic links"),
            "{through}"
        );
        assert_eq!(spec.physical, None);
    }

    // A chain of 40 links resolves; one more does not (Linux's limit).
    f.scratch.dir("ws/chain/end");
    for i in 0..41 {
        let next = if i == 40 {
            "end".to_owned()
        } else {
            format!("l{}", i + 1)
        };
        f.scratch.link(&format!("ws/chain/l{i}"), next);
    }
    let forty = f.at("chain/l1/");
    assert!(forty.error.is_none(), "{forty:#?}");
    assert_eq!(forty.physical, Some(f.ws.join("chain/end")));
    assert_eq!(
        f.at("chain/l0/")
            .error
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("too many levels of symbolic links")
    );
}

#[test]
fn dangling_links_and_special_files() {
    let f = fixture();
    f.scratch.link("ws/dangling", "nowhere");
    let spec = f.at("dangling");
    assert_eq!(spec.entry, EntryKind::Symlink);
    assert!(spec.exists() && spec.inside_workspace);
    assert_protected(&spec, None);
    let through = f.at("dangling/");
    assert_eq!(through.entry, EntryKind::Absent);
    assert_eq!(through.physical, Some(f.ws.join("nowhere")));

    let fifo = f.ws.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(f.at("fifo").entry, EntryKind::Special);
}

#[test]
fn blank_opaque_and_glob_targets() {
    let f = fixture();
    for blank in ["", "  "] {
        let spec = f.at(blank);
        assert_eq!(
            spec.error.as_ref().map(ToString::to_string).as_deref(),
            Some("empty path")
        );
        assert_eq!(spec.resolved, None);
    }
    let opaque = Target {
        opaque: Some("variable".into()),
        ..Target::literal("$DIR")
    };
    let spec = f.world.path(&opaque, &f.ws);
    assert_eq!(
        spec.error.as_ref().map(ToString::to_string).as_deref(),
        Some("variable")
    );
    assert_eq!((spec.resolved, spec.protected), (None, None));

    let glob = |text: &str| {
        f.world.path(
            &Target {
                glob: true,
                ..Target::literal(text)
            },
            &f.ws,
        )
    };
    let logs = glob("src/*.txt");
    assert!(logs.glob && logs.inside_workspace);
    assert_eq!(logs.entry, EntryKind::Absent);
    assert_eq!(logs.physical, Some(f.ws.join("src/*.txt")));
    let trash = glob(".agent-trash/*");
    assert!(trash.inside_trash);
    assert_protected(&trash, None);
    assert_protected(&glob("../*"), Some(Protected::OutsideWorkspace));
}

#[test]
fn a_sibling_sharing_a_prefix_is_outside() {
    let f = fixture();
    let sibling = f.scratch.dir("ws2");
    let spec = f.at(sibling.to_str().unwrap());
    assert!(!spec.inside_workspace);
    assert_protected(&spec, Some(Protected::OutsideWorkspace));
    let trash_sibling = f.at(".agent-trash2");
    assert!(!trash_sibling.inside_trash && trash_sibling.inside_workspace);
    assert_protected(&trash_sibling, None);
}

#[test]
fn a_missing_base_is_resolved_lexically() {
    let f = fixture();
    let spec = facts(&f.world, "x", Path::new(&f.ws.join("not/there")));
    assert_eq!(spec.physical, Some(f.ws.join("not/there/x")));
    assert!(spec.inside_workspace);
    let relative_base = facts(&f.world, "a.txt", Path::new("src"));
    assert_eq!(relative_base.physical, Some(f.ws.join("src/a.txt")));
}

#[test]
fn path_facts_open_no_repository() {
    let f = fixture();
    f.at("src/a.txt");
    f.at(".");
    assert!(format!("{:?}", f.world).contains("repository_opened: false"));
    assert_eq!(f.world.workspace(), f.ws);
    assert_eq!(f.world.trash(), f.ws.join(".agent-trash"));
}

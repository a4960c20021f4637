//! A real watcher (inotify, its socket, a thread of its own) beside real checkpoints: after
//! every kind of change, the checkpoint the watcher spared a full walk must be the very
//! commit a full walk gives (a checkpoint's commit is deterministic: same files, same
//! modes, same meta, same id).

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::{CheckpointStore, Selection, Taken, WatcherState};

struct Bench {
    _root: tempfile::TempDir,
    outside: PathBuf,
    selection: Selection,
    watched: CheckpointStore,
    full: CheckpointStore,
    server: Option<std::thread::JoinHandle<Result<Ended, agent_guard_git::GitError>>>,
}

impl Bench {
    fn new(artifacts: &[&str], repo: bool) -> Bench {
        Bench::prepared(artifacts, |_, ws| {
            if repo {
                git2::Repository::init(ws).unwrap();
            }
        })
    }

    /// A bench whose workspace `prepare(base, ws)` makes a repository (or not) first.
    fn prepared(artifacts: &[&str], prepare: impl FnOnce(&Path, &Path)) -> Bench {
        Bench::placed(artifacts, |base| {
            let ws = base.join("ws");
            prepare(base, &ws);
            ws
        })
    }

    /// A bench whose workspace is where `place(base)` says, made by it as it needs.
    fn placed(artifacts: &[&str], place: impl FnOnce(&Path) -> PathBuf) -> Bench {
        let root = tempfile::tempdir().unwrap();
        let base = fs_err::canonicalize(root.path()).unwrap();
        let outside = base.join("outside");
        fs_err::create_dir_all(&outside).unwrap();
        let ws = place(&base);
        fs_err::create_dir_all(&ws).unwrap();
        for d in 0..12 {
            for f in 0..10 {
                let path = ws.join(format!("d{d:02}/f{f}.txt"));
                fs_err::create_dir_all(path.parent().unwrap()).unwrap();
                fs_err::write(path, format!("file {d} {f}\n")).unwrap();
            }
        }
        let selection = Selection {
            workspace: ws.clone(),
            skip: vec![base.join("trash")],
            artifacts: artifacts.iter().map(|a| (*a).to_owned()).collect(),
            skip_regenerable: true,
            max_file_bytes: 1 << 20,
            git_user_dir: None,
        };
        let watched_store = base.join("trash/checkpoints");
        let full_store = base.join("full/checkpoints");
        let watched = CheckpointStore::open(&watched_store).unwrap();
        let full = CheckpointStore::open(&full_store).unwrap();
        let spec = Watched {
            selection: selection.clone(),
            rules: rule_dirs(&ws),
            idle: Duration::from_mins(2),
        };
        let dir = dir_of(&watched_store);
        let server = std::thread::spawn(move || serve(&dir, &spec));
        let started = std::time::Instant::now();
        while ask(&dir_of(&watched_store), None, filter_digest(&selection)) == Asked::Absent {
            assert!(started.elapsed() < Duration::from_secs(10), "no watcher");
            std::thread::sleep(Duration::from_millis(10));
        }
        Bench {
            _root: root,
            outside,
            selection,
            watched,
            full,
            server: Some(server),
        }
    }

    fn ws(&self) -> &Path {
        &self.selection.workspace
    }

    /// Takes both checkpoints and compares them; returns the watched one.
    fn same(&self, step: &str) -> Taken {
        let watched = self.watched.take(&self.selection).unwrap();
        let full = self.full.take(&self.selection).unwrap();
        assert_eq!(watched.watcher, WatcherState::Answered, "{step}");
        assert_eq!(full.watcher, WatcherState::Absent, "{step}");
        assert_eq!(
            watched.commit, full.commit,
            "{step}: the watched checkpoint differs"
        );
        assert_eq!(watched.files, full.files, "{step}");
        assert_eq!(watched.not_kept, full.not_kept, "{step}");
        watched
    }

    /// Takes both checkpoints and compares them, whatever the watcher did.
    fn compare(&self, step: &str) -> (Taken, Taken) {
        let watched = self.watched.take(&self.selection).unwrap();
        let full = self.full.take(&self.selection).unwrap();
        assert_eq!(
            watched.commit, full.commit,
            "{step}: the watched checkpoint differs"
        );
        (watched, full)
    }

    fn stop(mut self) -> Ended {
        let server = self.server.take().unwrap();
        drop(self);
        server.join().unwrap().unwrap()
    }
}

fn write(path: &Path, text: &str) {
    fs_err::create_dir_all(path.parent().unwrap()).unwrap();
    fs_err::write(path, text).unwrap();
}

/// One change to the workspace (`ws`), using a directory `outside` it.
type Change = fn(ws: &Path, outside: &Path);

/// Changes of every kind, in order (each one may rely on the ones before): what a step is,
/// and the change.
const CHANGES: &[(&str, Change)] = &[
    ("append to a file", |ws, _| {
        use std::io::Write as _;
        let mut file = fs_err::OpenOptions::new()
            .append(true)
            .open(ws.join("d00/f0.txt"))
            .unwrap();
        file.write_all(b"more\n").unwrap();
    }),
    ("rewrite a file with as many bytes at once", |ws, _| {
        fs_err::write(ws.join("d01/f1.txt"), "FILE 1 1\n").unwrap();
        fs_err::write(ws.join("d01/f1.txt"), "fIlE 1 1\n").unwrap();
    }),
    ("create, delete and rename files", |ws, _| {
        write(&ws.join("d02/new.txt"), "new\n");
        agent_guard_fsops::remove_file(&ws.join("d02/f0.txt")).unwrap();
        agent_guard_fsops::rename(&ws.join("d02/f1.txt"), &ws.join("d02/g1.txt")).unwrap();
        agent_guard_fsops::rename(&ws.join("d02/f2.txt"), &ws.join("d03/f2b.txt")).unwrap();
    }),
    ("a new tree filled at once", |ws, _| {
        for i in 0..20 {
            write(&ws.join(format!("new/a/b{}/x{i}.txt", i % 3)), "deep\n");
        }
        fs_err::create_dir_all(ws.join("new/empty")).unwrap();
    }),
    ("a directory moved within the workspace", |ws, _| {
        fs_err::create_dir_all(ws.join("moved")).unwrap();
        agent_guard_fsops::rename(&ws.join("d04"), &ws.join("moved/d04")).unwrap();
    }),
    ("a file changed where the directory went", |ws, _| {
        fs_err::write(ws.join("moved/d04/f3.txt"), "after move\n").unwrap();
    }),
    ("a directory moved in from outside", |ws, outside| {
        write(&outside.join("inbound/sub/i.txt"), "in\n");
        agent_guard_fsops::rename(&outside.join("inbound"), &ws.join("inbound")).unwrap();
    }),
    ("a directory moved out", |ws, outside| {
        agent_guard_fsops::rename(&ws.join("d05"), &outside.join("d05")).unwrap();
    }),
    (
        "a directory deleted and made again with other contents",
        |ws, _| {
            agent_guard_fsops::remove_tree(&ws.join("d06")).unwrap();
            for f in 0..10 {
                write(&ws.join(format!("d06/f{f}.txt")), "again\n");
            }
        },
    ),
    ("modes of a file and a directory", |ws, _| {
        let perm = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(ws.join("d07/f0.txt"), perm).unwrap();
        let perm = std::fs::Permissions::from_mode(0o700);
        std::fs::set_permissions(ws.join("d08"), perm).unwrap();
    }),
    (
        "a file replaced by a link and a link by a directory",
        |ws, _| {
            agent_guard_fsops::remove_file(&ws.join("d09/f0.txt")).unwrap();
            std::os::unix::fs::symlink("f1.txt", ws.join("d09/f0.txt")).unwrap();
            agent_guard_fsops::remove_file(&ws.join("d09/f0.txt")).unwrap();
            write(&ws.join("d09/f0.txt/inside.txt"), "was a file\n");
        },
    ),
    ("a directory made where a file will be", |ws, _| {
        fs_err::create_dir_all(ws.join("notes")).unwrap();
        fs_err::create_dir_all(ws.join("releases/v1")).unwrap();
        fs_err::create_dir_all(ws.join("releases/v2")).unwrap();
        fs_err::create_dir_all(ws.join("current")).unwrap();
    }),
    ("the directories replaced by a file and a link", |ws, _| {
        agent_guard_fsops::remove_dir(&ws.join("notes")).unwrap();
        fs_err::write(ws.join("notes"), "v1\n").unwrap();
        agent_guard_fsops::remove_dir(&ws.join("current")).unwrap();
        std::os::unix::fs::symlink("releases/v1", ws.join("current")).unwrap();
    }),
    ("the file and the link changed again", |ws, _| {
        fs_err::write(ws.join("notes"), "important v2\n").unwrap();
        agent_guard_fsops::remove_file(&ws.join("current")).unwrap();
        std::os::unix::fs::symlink("releases/v2", ws.join("current")).unwrap();
    }),
    ("a second name for a file", |ws, _| {
        std::fs::hard_link(ws.join("d10/f0.txt"), ws.join("d11/second.txt")).unwrap();
    }),
    (
        "a write and a mode change through the second name",
        |ws, _| {
            use std::io::Write as _;
            let mut file = fs_err::OpenOptions::new()
                .append(true)
                .open(ws.join("d11/second.txt"))
                .unwrap();
            file.write_all(b"through the other name\n").unwrap();
            let perm = std::fs::Permissions::from_mode(0o700);
            std::fs::set_permissions(ws.join("d11/second.txt"), perm).unwrap();
        },
    ),
    ("a nested repository made", |ws, _| {
        fs_err::create_dir_all(ws.join("vendor/lib/.git")).unwrap();
    }),
];

#[test]
fn after_every_kind_of_change_the_watched_checkpoint_is_the_full_walks() {
    let bench = Bench::new(&[], false);
    let first = bench.same("first");
    assert_eq!(first.files, 120);
    for (step, change) in CHANGES {
        change(bench.ws(), &bench.outside);
        let taken = bench.same(step);
        assert!(
            taken.hashed < 40,
            "{step}: the watcher spared the rest ({} hashed)",
            taken.hashed
        );
    }
    // Nothing changed: the last checkpoint, from the token file alone.
    let before = bench.same("settle");
    let again = bench.same("nothing changed");
    assert_eq!(again.commit, before.commit);
    assert_eq!(again.hashed, 0);
    assert_eq!(
        bench.stop(),
        Ended::Gone,
        "the workspace went with the test"
    );
}

#[test]
fn a_change_to_what_git_tracks_is_listed_again_though_no_file_changed() {
    let bench = Bench::new(&["node_modules"], true);
    let ws = bench.ws().to_path_buf();
    write(&ws.join(".gitignore"), "node_modules/\n");
    write(&ws.join("node_modules/pkg/index.js"), "module\n");
    let before = bench.same("ignored artifacts left out");
    assert!(!before.commit.is_empty());
    bench.same("nothing changed");
    // `git add -f`: the artifact now holds a tracked file, so it is kept. No file of the
    // workspace changed; only the user's index did.
    let had_index = ws.join(".git/index").exists();
    let repo = git2::Repository::open(&ws).unwrap();
    let mut index = repo.index().unwrap();
    index
        .add_path(Path::new("node_modules/pkg/index.js"))
        .unwrap();
    index.write().unwrap();
    let after = bench.same("tracked by git add -f");
    // The artifact, and `.git/index` if git made it now (the repository's state is kept).
    assert_eq!(after.files, before.files + 1 + u64::from(!had_index));
    bench.stop();
}

#[test]
fn a_token_from_another_watcher_asks_for_a_full_walk() {
    let bench = Bench::new(&[], false);
    let dir = dir_of(bench.watched.dir());
    let filter = filter_digest(&bench.selection);
    let stranger = Token {
        instance: [9; 16],
        seq: 1,
    };
    assert!(matches!(ask(&dir, Some(&stranger), filter), Asked::Full(_)));
    let Asked::Full(token) = ask(&dir, None, filter) else {
        panic!("no token, no trust");
    };
    assert!(matches!(ask(&dir, Some(&token), filter), Asked::Heard(_, heard) if heard.is_empty()));
    write(&bench.ws().join("d00/x.txt"), "x\n");
    let Asked::Heard(_, heard) = ask(&dir, Some(&token), filter) else {
        panic!("the same watcher's token");
    };
    assert_eq!(heard.paths, [b"d00/x.txt".to_vec()]);
    bench.stop();
}

/// gc prunes the last checkpoint's commit: the token file that names it goes first, so the
/// next checkpoint of the unchanged workspace is whole again, not a name of pruned objects.
#[test]
fn a_pruned_last_checkpoint_is_never_the_next_one() {
    let mut bench = Bench::new(&[], false);
    let first = bench.same("first");
    bench.watched.store_ref("tx1", &first.commit).unwrap();
    write(&bench.ws().join("d00/f0.txt"), "changed\n");
    let second = bench.same("second");
    bench.watched.store_ref("tx2", &second.commit).unwrap();
    let token = bench.watched.dir().join(TOKEN_FILE);
    assert!(FastToken::read(&token).is_some_and(|t| t.commit.to_string() == second.commit));
    let live = std::collections::HashSet::from(["tx1".to_owned()]);
    bench.watched.prune(&live, &[]).unwrap();
    assert!(
        !bench.watched.intact(&second.commit),
        "tx2's checkpoint was pruned"
    );
    assert!(!token.exists(), "the token file named it");
    let next = bench.same("nothing changed since the pruned checkpoint");
    assert!(
        bench.watched.intact(&next.commit),
        "the next checkpoint is whole"
    );
    bench.stop();
}

/// An ignored artifact directory is left out of checkpoints, so it is not watched: what
/// changes in it is not even heard. Once git stops ignoring it, it is watched and heard as a
/// new tree, so what changed in it meanwhile is read.
#[test]
fn a_left_out_artifact_is_not_watched_until_it_is_kept() {
    let bench = Bench::new(&["node_modules"], true);
    let ws = bench.ws().to_path_buf();
    write(&ws.join(".gitignore"), "node_modules/\n");
    for i in 0..50 {
        write(&ws.join(format!("node_modules/p{i}/index.js")), "v1\n");
    }
    let before = bench.same("artifacts left out");
    bench.same("settled");
    for i in 0..50 {
        write(
            &ws.join(format!("node_modules/p{i}/index.js")),
            "v2, unheard\n",
        );
    }
    let dir = dir_of(bench.watched.dir());
    let token = FastToken::read(&bench.watched.dir().join(TOKEN_FILE))
        .unwrap()
        .token;
    let asked = ask(&dir, Some(&token), filter_digest(&bench.selection));
    assert!(
        matches!(&asked, Asked::Heard(_, heard) if heard.is_empty()),
        "nothing is heard from a left-out artifact: {asked:?}"
    );
    assert_eq!(
        bench.same("changes in a left-out artifact").commit,
        before.commit
    );
    // No longer ignored: kept from now on, and read whole.
    write(&ws.join(".gitignore"), "# nothing ignored\n");
    let kept = bench.same("the artifact is kept now");
    assert_eq!(kept.files, before.files + 50);
    write(&ws.join("node_modules/p0/index.js"), "v3, heard\n");
    bench.same("a change in the kept artifact");
    bench.stop();
}

/// A checkpoint that leaves out other things than the watcher was started for gets a full
/// walk, and the watcher steps aside for one started with the checkpoint's own.
#[test]
fn a_watcher_for_other_artifacts_answers_full_and_exits() {
    let bench = Bench::new(&["node_modules"], true);
    let dir = dir_of(bench.watched.dir());
    let other = Selection {
        artifacts: vec!["target".to_owned()],
        ..bench.selection.clone()
    };
    assert!(matches!(
        ask(&dir, None, filter_digest(&other)),
        Asked::Full(_)
    ));
    let mut bench = bench;
    let server = bench.server.take().unwrap();
    assert_eq!(server.join().unwrap().unwrap(), Ended::Outdated);
    assert_eq!(ask(&dir, None, filter_digest(&other)), Asked::Absent);
}

/// A small deterministic generator (xorshift), so that a failing sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        usize::try_from(self.0 % n as u64).unwrap()
    }
}

/// The existing files and directories below `root` (relative, sorted), `.git` left out.
fn listing(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    let mut pending = vec![PathBuf::new()];
    while let Some(dir) = pending.pop() {
        for entry in fs_err::read_dir(root.join(&dir)).unwrap() {
            let entry = entry.unwrap();
            let relative = dir.join(entry.file_name());
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                dirs.push(relative.clone());
                pending.push(relative);
            } else {
                files.push(relative);
            }
        }
    }
    files.sort();
    dirs.sort();
    (files, dirs)
}

/// Random sequences of every kind of change, in batches between checkpoints: after each
/// batch the watched checkpoint is the full walk's commit.
#[test]
fn random_changes_never_make_the_watched_checkpoint_differ() {
    for seed in [0x9e37_79b9_7f4a_7c15_u64, 0x2545_f491_4f6c_dd1d, 42] {
        let bench = Bench::new(&["node_modules"], true);
        let ws = bench.ws().to_path_buf();
        let outside = bench.outside.clone();
        write(&ws.join(".gitignore"), "node_modules/\n");
        let mut rng = Rng(seed);
        bench.same("start");
        for step in 0..30 {
            let mut done = Vec::new();
            for _ in 0..=rng.below(5) {
                let (files, dirs) = listing(&ws);
                let file = (!files.is_empty()).then(|| files[rng.below(files.len())].clone());
                let dir = (!dirs.is_empty()).then(|| dirs[rng.below(dirs.len())].clone());
                let fresh = format!("n{}", rng.below(1000));
                let op = rng.below(11);
                let result: std::io::Result<()> = match (op, &file, &dir) {
                    (0, Some(f), _) => fs_err::write(ws.join(f), format!("w{}\n", rng.below(9))),
                    (1, _, Some(d)) => fs_err::write(ws.join(d).join(&fresh), "new\n"),
                    (2, Some(f), _) => agent_guard_fsops::remove_file(&ws.join(f)),
                    (3, Some(f), Some(d)) => {
                        agent_guard_fsops::rename(&ws.join(f), &ws.join(d).join(&fresh))
                    }
                    (4, _, Some(d)) => {
                        let made = ws.join(d).join(&fresh).join("a/b");
                        fs_err::create_dir_all(&made)
                            .and_then(|()| fs_err::write(made.join("deep.txt"), "deep\n"))
                    }
                    (5, _, Some(d)) if !d.starts_with("node_modules") || rng.below(2) == 0 => {
                        agent_guard_fsops::rename(&ws.join(d), &ws.join(&fresh))
                    }
                    (6, _, Some(d)) => {
                        agent_guard_fsops::rename(&ws.join(d), &outside.join(&fresh)).and_then(
                            |()| {
                                agent_guard_fsops::rename(
                                    &outside.join(&fresh),
                                    &ws.join(format!("back-{fresh}")),
                                )
                            },
                        )
                    }
                    (7, _, Some(d)) => agent_guard_fsops::remove_tree(&ws.join(d)),
                    (8, Some(f), _) => std::fs::set_permissions(
                        ws.join(f),
                        std::fs::Permissions::from_mode(if rng.below(2) == 0 {
                            0o755
                        } else {
                            0o600
                        }),
                    ),
                    (9, Some(f), _) => agent_guard_fsops::remove_file(&ws.join(f))
                        .and_then(|()| std::os::unix::fs::symlink("elsewhere", ws.join(f))),
                    (10, _, _) => {
                        let pkg = ws.join(format!("node_modules/{fresh}"));
                        fs_err::create_dir_all(&pkg)
                            .and_then(|()| fs_err::write(pkg.join("i.js"), "m\n"))
                    }
                    _ => Ok(()),
                };
                done.push(format!("{op} {file:?} {dir:?} {fresh}: {result:?}"));
            }
            bench.same(&format!("seed {seed:#x} step {step}: {done:#?}"));
        }
        bench.stop();
    }
}

/// The workspace's repository made anew while the watcher runs: the watcher steps aside
/// (what git ignores and tracks is read from a new place), and the next checkpoints walk
/// and are right, the tracked artifact included.
#[test]
fn a_repository_made_anew_ends_the_watcher_and_the_checkpoints_stay_right() {
    let bench = Bench::new(&["node_modules"], true);
    let ws = bench.ws().to_path_buf();
    write(&ws.join(".gitignore"), "node_modules/\n");
    write(&ws.join("node_modules/pkg/i.js"), "module\n");
    bench.same("settled");
    agent_guard_fsops::remove_tree(&ws.join(".git")).unwrap();
    let repo = git2::Repository::init(&ws).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("node_modules/pkg/i.js")).unwrap();
    index.write().unwrap();
    let (_, full) = bench.compare("a new repository tracking the artifact");
    let git = crate::gitdir::walk(&ws).unwrap().found.len() as u64;
    assert_eq!(full.files, 122 + git, "the tracked artifact is kept");
    let mut bench = bench;
    let server = bench.server.take().unwrap();
    assert_eq!(server.join().unwrap().unwrap(), Ended::RepositoryChanged);
}

/// A workspace that is a linked worktree: its excludes live in the shared git directory,
/// which the watcher watches too.
#[test]
fn a_linked_worktree_hears_the_shared_excludes() {
    let bench = Bench::prepared(&["node_modules"], |base, ws| {
        let main = base.join("main");
        let repo = git2::Repository::init(&main).unwrap();
        write(&main.join("README"), "main\n");
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("README")).unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let who = git2::Signature::now("t", "t@example.invalid").unwrap();
        repo.commit(Some("HEAD"), &who, &who, "one", &tree, &[])
            .unwrap();
        write(&main.join(".git/info/exclude"), "node_modules/\n");
        repo.worktree("wt", ws, None).unwrap();
    });
    let ws = bench.ws().to_path_buf();
    write(&ws.join("node_modules/p/i.js"), "precious\n");
    let before = bench.same("the artifact left out");
    bench.same("settled");
    let main = ws.parent().unwrap().join("main");
    write(&main.join(".git/info/exclude"), "# nothing\n");
    let after = bench.same("the shared excludes changed");
    assert_eq!(after.files, before.files + 1, "the artifact is kept now");
    bench.stop();
}

/// A watcher that takes the connection but never answers (stopped): the checkpoint waits
/// once, walks, and does not wait again for a while.
#[test]
fn a_watcher_that_never_answers_is_waited_for_once() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("watch");
    fs_err::create_dir_all(&dir).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(dir.join(SOCKET_FILE)).unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    let asking = dir.clone();
    std::thread::spawn(move || {
        let first = ask(&asking, None, 0);
        let second = ask(&asking, None, 0);
        sender.send((first, second)).unwrap();
    });
    let (first, second) = receiver
        .recv_timeout(Duration::from_secs(20))
        .expect("a checkpoint never hangs on a watcher");
    assert_eq!(first, Asked::Unavailable);
    assert_eq!(second, Asked::Unavailable);
    assert!(dir.join(STUCK_FILE).exists());
}

/// A file of the workspace with a second name outside it: a write through that name is
/// heard by no watch, so the file is looked at even when nothing was heard.
#[test]
fn a_file_with_a_name_outside_is_looked_at_even_when_nothing_was_heard() {
    let bench = Bench::new(&[], false);
    let other = bench.outside.join("other-name");
    std::fs::hard_link(bench.ws().join("d00/f0.txt"), &other).unwrap();
    bench.same("a second name outside");
    bench.same("settled");
    fs_err::write(&other, "changed through the other name\n").unwrap();
    bench.same("a write through the name outside");
    bench.stop();
}

/// A repository made between the workspace and the root of the work tree it is in: what
/// git ignores is read from there now, so the watcher steps aside and checkpoints walk.
#[test]
fn a_repository_made_between_the_workspace_and_its_work_tree_ends_the_watcher() {
    let bench = Bench::placed(&["node_modules"], |base| {
        let top = base.join("top");
        git2::Repository::init(&top).unwrap();
        write(&top.join(".gitignore"), "node_modules/\n");
        top.join("middle/ws")
    });
    let ws = bench.ws().to_path_buf();
    write(&ws.join("node_modules/p/i.js"), "precious\n");
    let before = bench.same("the artifact left out");
    bench.same("settled");
    git2::Repository::init(ws.parent().unwrap()).unwrap();
    let (_, full) = bench.compare("a repository made in between");
    assert_eq!(
        full.files,
        before.files + 1,
        "nothing ignores the artifact now"
    );
    let mut bench = bench;
    let server = bench.server.take().unwrap();
    assert_eq!(server.join().unwrap().unwrap(), Ended::RepositoryChanged);
}

/// The impostor of [`a_process_that_bound_the_socket_first_is_not_trusted`]: run only in a
/// copy of this test binary, with `AGENT_GUARD_TEST_IMPOSTOR` naming the socket. It answers
/// every request "nothing changed since your token".
#[test]
#[ignore = "run by a_process_that_bound_the_socket_first_is_not_trusted, in another process"]
#[expect(
    clippy::disallowed_methods,
    reason = "the test process is told its socket through the environment"
)]
fn impostor_watcher() {
    use std::io::{BufRead as _, Write as _};
    let Some(socket) = std::env::var_os("AGENT_GUARD_TEST_IMPOSTOR") else {
        return;
    };
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    println!("listening");
    for stream in listener.incoming() {
        let mut stream = stream.unwrap();
        let mut line = Vec::new();
        std::io::BufReader::new(&stream)
            .read_until(b'\n', &mut line)
            .unwrap();
        // A connection that only looks at the peer sends nothing.
        let Some((token, _)) = request::decode_request(&line) else {
            continue;
        };
        let token = token.unwrap_or(Token {
            instance: [7; 16],
            seq: 1,
        });
        let reply = request::Reply::Some(token, Heard::default());
        let _ = stream.write_all(&request::encode_reply(&reply));
    }
}

/// Starts `program` (this test binary or a copy) as [`impostor_watcher`] on the socket of
/// the watcher directory `dir`, once it listens.
fn start_impostor(program: &std::path::Path, dir: &std::path::Path) -> std::process::Child {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(program)
        .args([
            "--ignored",
            "--exact",
            "watch::tests::impostor_watcher",
            "--nocapture",
        ])
        .env("AGENT_GUARD_TEST_IMPOSTOR", dir.join(SOCKET_FILE))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening") {
        line.clear();
        assert_ne!(
            out.read_line(&mut line).unwrap(),
            0,
            "the impostor did not start"
        );
    }
    child
}

/// A process that binds the watcher's socket first and answers "nothing changed" (issue
/// 35): its answer is well-formed, but it is another program, so the checkpoint does not
/// ask it and walks everything; `status` calls it an impostor.
#[test]
fn a_process_that_bound_the_socket_first_is_not_trusted() {
    use std::io::{Read as _, Write as _};
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("watch");
    fs_err::create_dir_all(&dir).unwrap();
    // Another program: a copy of this binary is another file, as any program the agent
    // writes would be.
    let impostor = root.path().join("impostor");
    fs_err::copy(std::env::current_exe().unwrap(), &impostor).unwrap();
    let mut child = start_impostor(&impostor, &dir);
    let token = Token {
        instance: [3; 16],
        seq: 9,
    };
    // It does answer, and the answer reads as "nothing heard".
    let mut stream = std::os::unix::net::UnixStream::connect(dir.join(SOCKET_FILE)).unwrap();
    stream
        .write_all(&request::encode_request(Some(&token), 0))
        .unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).unwrap();
    assert_eq!(
        request::decode_reply(&reply),
        Some(request::Reply::Some(token, Heard::default()))
    );
    assert!(!client::trusted(&stream, &dir));

    assert_eq!(ask(&dir, Some(&token), 0), Asked::Unavailable);
    assert_eq!(probe(&dir), Probe::Impostor);
    let _ = child.kill();
    let _ = child.wait();
}

/// The guard's own binary, started by something other than the guard, that bound the
/// socket (issue 35, point 4: "the pid it started"): its program passes, but it is not the
/// process holding the watcher's lock, whose pid the lock file records, so it is not
/// trusted. The control: with its own pid in the lock file, the same process is.
#[test]
fn only_the_process_holding_the_lock_is_trusted() {
    use std::io::Write as _;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("watch");
    fs_err::create_dir_all(&dir).unwrap();
    let mut child = start_impostor(&std::env::current_exe().unwrap(), &dir);
    let connect = || std::os::unix::net::UnixStream::connect(dir.join(SOCKET_FILE)).unwrap();
    let lock = dir.join(super::LOCK_FILE);
    // Another process holds the lock.
    let mut file = fs_err::File::create(&lock).unwrap();
    writeln!(file, "{}", std::process::id() + 1_000_000).unwrap();
    assert!(!client::trusted(&connect(), &dir));
    // This one does.
    fs_err::write(&lock, format!("{}\n", child.id())).unwrap();
    assert!(client::trusted(&connect(), &dir));
    let _ = child.kill();
    let _ = child.wait();
}

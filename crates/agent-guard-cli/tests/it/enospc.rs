//! A store on a full filesystem (issue 34, point 6): a 2 MiB tmpfs mounted in a private mount
//! namespace that a `sleep` holds open; every guard command runs in it (`nsenter`), and the
//! test reads the tmpfs through `/proc/<pid>/root`. The store is filled to the last block,
//! then deletes, overwrites, moves and a script are checked: each is refused (and nothing
//! changed), or runs with what it destroys kept. Once space is freed, everything comes back
//! byte for byte and the journal is healthy.

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

use crate::kill::same_tree;

type Tree = std::collections::BTreeMap<Vec<u8>, crate::support::Entry>;
use crate::support::{TestEnv, json, snapshot};

/// A private mount namespace holding a small tmpfs at `dir`, alive while `holder` runs.
struct SmallFs {
    holder: Child,
    dir: tempfile::TempDir,
}

impl SmallFs {
    /// `None` (with why) when no mount namespace can be made here.
    fn mount(size: &str) -> Result<SmallFs, String> {
        SmallFs::mount_then(size, |_| String::new())
    }

    /// The same, with the workspace `ws` moved onto the tmpfs (its content copied to
    /// `<tmpfs>/ws`, bound over `ws` in the namespace).
    fn mount_over(size: &str, ws: &Path) -> Result<SmallFs, String> {
        SmallFs::mount_then(size, |dir| {
            format!(
                "cp -a '{ws}' '{dir}/ws' && mount --bind '{dir}/ws' '{ws}' && ",
                ws = ws.display(),
                dir = dir.display()
            )
        })
    }

    /// Mounts the tmpfs, then runs the shell commands `then(dir)` gives (each ending in `&&`).
    fn mount_then(size: &str, then: impl Fn(&Path) -> String) -> Result<SmallFs, String> {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "mount -t tmpfs -o size={size},mode=0700 tmpfs '{}' && {}echo ready && exec sleep 600",
            dir.path().display(),
            then(dir.path())
        );
        let mut holder = std::process::Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("unshare: {e}"))?;
        let mut line = String::new();
        let _ = std::io::BufReader::new(holder.stdout.take().unwrap()).read_line(&mut line);
        if line.trim() != "ready" {
            let _ = holder.kill();
            let output = holder.wait_with_output().unwrap();
            return Err(format!(
                "cannot mount a tmpfs in a private mount namespace: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(SmallFs { holder, dir })
    }

    /// `path` (on the tmpfs) as this process sees it: through the holder's root.
    fn seen(&self, path: &Path) -> PathBuf {
        Path::new(&format!("/proc/{}/root", self.holder.id())).join(path.strip_prefix("/").unwrap())
    }

    /// Writes a filler file until the filesystem is full.
    fn fill(&self) -> PathBuf {
        let filler = self.seen(&self.dir.path().join("filler"));
        let mut file = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0x5a_u8; 4096];
        loop {
            if let Err(error) = file.write_all(&chunk).and_then(|()| file.sync_all()) {
                assert_eq!(error.raw_os_error(), Some(28), "ENOSPC expected: {error}");
                break;
            }
        }
        // Also the last bytes of a partial block.
        while file.write_all(&[0x5a]).is_ok() && file.sync_all().is_ok() {}
        filler
    }
}

impl SmallFs {
    /// Fills the filesystem, then frees `bytes` of it again: room for small records, not
    /// for a copy of a larger file.
    fn fill_leaving(&self, bytes: u64) -> PathBuf {
        let filler = self.fill();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&filler)
            .unwrap();
        let length = file.metadata().unwrap().len();
        file.set_len(length.saturating_sub(bytes)).unwrap();
        file.sync_all().unwrap();
        filler
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}

fn guard(env: &TestEnv, fs: &SmallFs, trash: &Path, args: &[&str]) -> Output {
    let binary = assert_cmd::cargo::cargo_bin!("agent-guard");
    inside(env, fs)
        .arg(binary)
        .args(args)
        .env("AGENT_GUARD_TRASH", trash)
        .output()
        .unwrap()
}

/// A command that runs in the namespace, in the workspace.
fn inside(env: &TestEnv, fs: &SmallFs) -> std::process::Command {
    let mut cmd = env.std_cmd("nsenter");
    // Entering a mount namespace moves to its root: back to the workspace, by its path in
    // the namespace (`nsenter --wd` would open it before entering, under a mount bound over it).
    cmd.args(["-t", &fs.holder.id().to_string(), "-m", "--"])
        .args(["sh", "-c", "cd \"$0\" && exec \"$@\""])
        .arg(env.ws());
    cmd
}

/// Lines that destroy something the guard must keep first.
const LINES: &[&str] = &[
    "rm -rf build",
    "echo new > notes.txt",
    "mv notes.txt dist/bundle.js",
    "sh tool.sh",
    "rm src/main.rs",
];

/// One workspace and store in a [`SmallFs`], and the tree the lines must leave whole.
struct Full<'a> {
    env: &'a TestEnv,
    fs: &'a SmallFs,
    trash: PathBuf,
    /// The workspace as this process sees it.
    ws: PathBuf,
    before: Tree,
}

impl<'a> Full<'a> {
    /// The workspace bound onto `fs` (`SmallFs::mount_over`) with its store beside it, a
    /// random `build/big.bin` of `big` bytes, and the store made by a first command.
    fn on_the_workspace(env: &'a TestEnv, fs: &'a SmallFs, big: usize) -> Full<'a> {
        let mut full = Full {
            env,
            fs,
            trash: fs.dir.path().join("store"),
            ws: fs.seen(env.ws()),
            before: Tree::new(),
        };
        full.shell(&format!("head -c {big} /dev/urandom > build/big.bin"));
        full.before = snapshot(&full.ws, &["**"]);
        let first = full.guard(&["status", "--json"]);
        assert!(first.status.success(), "{first:?}");
        full
    }

    fn guard(&self, args: &[&str]) -> Output {
        guard(self.env, self.fs, &self.trash, args)
    }

    /// Runs `line` in the workspace, in the namespace, as the harness would.
    fn shell(&self, line: &str) {
        let _ = inside(self.env, self.fs)
            .args(["sh", "-c", line])
            .output()
            .unwrap();
    }

    fn unchanged(&self, line: &str) {
        same_tree(&self.before, &snapshot(&self.ws, &["**"]), line);
    }

    /// `check --enforce`s each line on the full filesystem: a refusal (checked further by
    /// `refused`) leaves the tree as it was; an allowed line runs and is undone byte for
    /// byte. Returns how many ran.
    fn on_a_full_disk(&self, lines: &[&str], refused: impl Fn(&str, &serde_json::Value)) -> usize {
        let mut ran = 0;
        for line in lines {
            let output = self.guard(&["check", "--enforce", "--json", "--", line]);
            let report = json(&output);
            match output.status.code() {
                Some(0) => {
                    // Allowed: what it destroys must have been kept, on a full disk.
                    self.shell(line);
                    ran += 1;
                    let undo = self.guard(&["undo", "--json"]);
                    assert!(
                        undo.status.success(),
                        "`{line}` ran: {report}\nundo: {undo:?}"
                    );
                }
                Some(_) => {
                    assert!(report["decision"] != "ALLOW", "`{line}`: {report}");
                    refused(line, &report);
                }
                None => panic!("`{line}`: the guard died: {output:?}"),
            }
            self.unchanged(line);
        }
        ran
    }

    /// With space again: the journal is whole, and every line runs and is undone.
    fn with_space_again(&self, filler: &Path, lines: &[&str]) {
        std::fs::remove_file(filler).unwrap();
        let status = self.guard(&["status", "--json"]);
        assert!(status.status.success(), "{status:?}");
        assert_eq!(json(&status)["reconciled_now"]["vanished"], 0);
        let list = self.guard(&["list", "--json", "--limit", "0"]);
        assert!(json(&list)["transactions"].is_array());
        // No journal yet is whole too (no line got as far as recording anything).
        let manifest = std::fs::read_to_string(self.fs.seen(&self.trash.join("manifest.jsonl")))
            .unwrap_or_default();
        let whole = manifest.ends_with('\n') || manifest.is_empty();
        assert!(whole, "the journal ends with a whole line");
        for line in lines {
            let output = self.guard(&["check", "--enforce", "--json", "--", line]);
            assert_eq!(output.status.code(), Some(0), "`{line}`: {output:?}");
            self.shell(line);
            let undo = self.guard(&["undo", "--json"]);
            assert!(undo.status.success(), "`{line}`: {undo:?}");
            self.unchanged(line);
        }
    }
}

/// `Ok(fs)`, or `None` after saying why no namespace could be made (never under CI, where
/// `.ci/run` sets `AGENT_GUARD_REQUIRE_NAMESPACES` so that the test never passes by skipping).
#[expect(clippy::print_stderr, reason = "a skipped test says why")]
fn or_skip(fs: Result<SmallFs, String>) -> Option<SmallFs> {
    match fs {
        Ok(fs) => Some(fs),
        Err(why) => {
            assert!(
                std::env::var_os("AGENT_GUARD_REQUIRE_NAMESPACES").is_none(),
                "{why}"
            );
            eprintln!("skipping: {why}");
            None
        }
    }
}

const TOOL: &str = "rm -rf build\necho changed > notes.txt\necho x >> src/main.rs\n";

#[test]
fn a_full_store_refuses_or_keeps_and_loses_nothing() {
    let Some(fs) = or_skip(SmallFs::mount("2m")) else {
        return;
    };
    let env = TestEnv::new();
    let ws = env.ws();
    std::fs::write(ws.join("tool.sh"), TOOL).unwrap();
    let big: Vec<u8> = (0..512 * 1024).map(|i: u32| (i % 249) as u8).collect();
    std::fs::write(ws.join("build/big.bin"), &big).unwrap();
    let full = Full {
        env: &env,
        fs: &fs,
        trash: fs.dir.path().join("q"),
        ws: ws.to_path_buf(),
        before: snapshot(ws, &["**"]),
    };

    // A first command makes the store; then nothing is left.
    let first = full.guard(&["safe-delete", "--json", "dist/bundle.js"]);
    assert!(first.status.success(), "{first:?}");
    let restored = full.guard(&["undo", "--json"]);
    assert!(restored.status.success(), "{restored:?}");
    let filler = fs.fill();

    let ran = full.on_a_full_disk(LINES, |_, _| {});
    eprintln!("{ran} of {} lines ran on a full store", LINES.len());
    full.with_space_again(&filler, LINES);
}

/// The workspace itself on a full filesystem, with its store on the same one (the guard
/// puts it there so that relocations stay renames): a rename needs no space, a kept copy
/// or a checkpoint does, and so does the audit's durable intent, so on a filesystem full to
/// the last byte a line is refused (fail closed), saying why and what to do, rather than
/// run unrecorded. Nothing changes; once space is freed, every line runs and is undone byte
/// for byte.
#[test]
fn a_full_workspace_filesystem_loses_nothing() {
    let env = TestEnv::new();
    env.write("tool.sh", TOOL);
    let Some(fs) = or_skip(SmallFs::mount_over("4m", env.ws())) else {
        return;
    };
    // A file that a copy could not keep on a full filesystem.
    let full = Full::on_the_workspace(&env, &fs, 300_000);
    let filler = fs.fill();

    let lines: Vec<&str> = LINES
        .iter()
        .copied()
        .chain(["echo new > build/big.bin", "truncate -s 0 build/big.bin"])
        .collect();
    let ran = full.on_a_full_disk(&lines, |line, report| {
        let said = report["message"].as_str().unwrap_or_default();
        assert!(
            said.contains("No space left on device") && said.contains("free space"),
            "`{line}`: the refusal says the disk is full and what to do: {report}"
        );
    });
    eprintln!("{ran} lines ran on a full workspace filesystem");
    full.with_space_again(&filler, LINES);
}

/// A line whose delete is relocated (a rename, no space needed) and whose overwrite needs a
/// kept copy that no longer fits: the copy fails after the relocation, the line is refused,
/// and the relocated file is put back before the answer — a refused line leaves the
/// workspace as it found it, not with a file missing that only `restore` brings back.
#[test]
fn a_copy_that_does_not_fit_puts_back_what_was_already_moved() {
    let env = TestEnv::new();
    let Some(fs) = or_skip(SmallFs::mount_over("4m", env.ws())) else {
        return;
    };
    let full = Full::on_the_workspace(&env, &fs, 1_000_000);
    let filler = fs.fill_leaving(256 * 1024);

    let lines = [
        "rm src/main.rs && echo new > build/big.bin",
        "rm -rf dist; cp notes.txt build/big.bin",
    ];
    let ran = full.on_a_full_disk(&lines, |line, report| {
        let said = report["message"].as_str().unwrap_or_default();
        assert!(
            said.contains("back in place"),
            "`{line}`: the refusal says what went back: {report}"
        );
        assert!(
            said.contains("no space") && said.contains("free space"),
            "`{line}`: the refusal says the disk is full and what to do: {report}"
        );
    });
    assert_eq!(ran, 0, "the kept copy cannot fit");
    full.with_space_again(&filler, &lines);
}

#!/usr/bin/env python3
"""Precision on a corpus of real one-liners (issue 38): what share of the lines the guard
refuses, checkpoints or lets through, by decision and by reason code, and, with --run,
which refused lines destroy nothing when really run.

Each line is judged by `agent-guard check --json` in a small git workspace (the fixture
below), as an agent's hook would. With --run, every refused line is then run for real by
bash inside bwrap, on a fresh copy of the workspace and home: the root file system read-only,
no network, three seconds at most. A refused line "destroys nothing" when no file of the
workspace or home was deleted or changed and nothing tried to write elsewhere (a
"Read-only file system" or "Permission denied" message counts as trying). Those lines are
listed: each is a precision bug to turn into a corpus row.

Run through bench/precision.sh, which builds the binary. Standard library only.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

FILES = {
    "README.md": "readme\n",
    "notes.txt": "notes\n",
    "file.txt": "file\n",
    "a.txt": "a\n",
    "b.txt": "b\n",
    "data.csv": "1,2\n",
    "app.log": "log\n",
    "src/main.py": "print('base')\n",
    "src/lib/util.py": "x = 1\n",
    "src/index.js": "console.log(1)\n",
    "build/out.o": "object\n",
    "dir/inner.txt": "inner\n",
    "folder/sub/deep.txt": "deep\n",
    "test/test.sh": "echo test\n",
}


def make_fixture(root):
    """A git workspace and a home directory under `root`; returns (ws, home)."""
    ws = os.path.join(root, "ws")
    home = os.path.join(root, "home")
    os.makedirs(home)
    for rel, text in FILES.items():
        path = os.path.join(ws, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(text)
    with open(os.path.join(home, ".bashrc"), "w") as out:
        out.write("# home\n")
    env = clean_env(home)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b"] + args,
                       cwd=ws, env=env, check=True)
    return ws, home


def clean_env(home):
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "AGENT_GUARD_SESSION": "precision",
        "AGENT_GUARD_CHECKPOINT_WATCH": "0",
        "LANG": "C.UTF-8",
    }


def judge(guard, ws, home, line):
    """The guard's decision and code for `line`."""
    try:
        done = subprocess.run([guard, "check", "--json", "--", line], cwd=ws,
                              env=clean_env(home), capture_output=True, timeout=30)
        report = json.loads(done.stdout)
        return report["decision"], report["code"]
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return "ERROR", "ERROR"


def snapshot(root):
    """Every entry below `root`: relative path -> what it is."""
    seen = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, root)
            if rel.startswith(".git" + os.sep) and rel.count(os.sep) > 1:
                continue
            try:
                if os.path.islink(path):
                    seen[rel] = ("link", os.readlink(path))
                elif os.path.isfile(path):
                    with open(path, "rb") as handle:
                        seen[rel] = ("file", hashlib.sha256(handle.read()).hexdigest())
                else:
                    seen[rel] = ("dir", "")
            except OSError:
                seen[rel] = ("unreadable", "")
    return seen


def destroys(template, line):
    """Runs `line` for real on a copy of the fixture; True when it deleted or changed a
    file, or tried to write outside; None when it could not be run."""
    with tempfile.TemporaryDirectory(prefix="ag-precision-") as tmp:
        ws = os.path.join(tmp, "ws")
        home = os.path.join(tmp, "home")
        shutil.copytree(os.path.join(template, "ws"), ws, symlinks=True)
        shutil.copytree(os.path.join(template, "home"), home, symlinks=True)
        before = snapshot(ws), snapshot(home)
        command = ["bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--bind", ws, ws,
                   "--bind", home, home, "--dev", "/dev", "--proc", "/proc",
                   "--unshare-all", "--die-with-parent", "--new-session", "--chdir", ws,
                   "--", "timeout", "3", "bash", "-c", line]
        try:
            done = subprocess.run(command, env=clean_env(home), capture_output=True,
                                  stdin=subprocess.DEVNULL, timeout=15)
        except subprocess.TimeoutExpired:
            return None
        after = snapshot(ws), snapshot(home)
        said = done.stderr.decode("utf-8", "replace")
        if "Read-only file system" in said or "Permission denied" in said:
            return True
        for old, new in zip(before, after):
            for rel, what in old.items():
                if new.get(rel) != what and what[0] != "dir":
                    return True
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guard", required=True, help="the agent-guard binary")
    parser.add_argument("--corpus", required=True, help="one command line per line")
    parser.add_argument("--run", action="store_true",
                        help="run each refused line in bwrap and list those that destroy nothing")
    parser.add_argument("--limit", type=int, default=0, help="the first N lines only")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--report", help="write the refused lines that destroy nothing here")
    parser.add_argument("--verdicts",
                        help="write every line's decision and code here (tab-separated)")
    args = parser.parse_args()
    args.guard = os.path.abspath(args.guard)

    with open(args.corpus, encoding="utf-8", errors="replace") as corpus:
        lines = [l.rstrip("\n") for l in corpus if l.strip()]
    if args.limit:
        lines = lines[: args.limit]
    template = tempfile.mkdtemp(prefix="ag-precision-fixture-")
    try:
        ws, home = make_fixture(template)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            verdicts = list(pool.map(lambda l: judge(args.guard, ws, home, l), lines))
        total = len(lines)
        if args.verdicts:
            with open(args.verdicts, "w") as out:
                out.writelines(f"{d}\t{c}\t{l}\n" for l, (d, c) in zip(lines, verdicts))
        decisions = collections.Counter(d for d, _ in verdicts)
        codes = collections.Counter(c for _, c in verdicts)
        refused = [l for l, (d, _) in zip(lines, verdicts) if d == "BLOCK"]
        print(f"lines: {total}")
        for decision, count in decisions.most_common():
            print(f"  {decision:<10} {count:6}  {100 * count / total:5.1f} %")
        checkpointed = sum(n for c, n in codes.items() if c.startswith("SNAPSHOT_CHECKPOINT"))
        print(f"checkpointed: {checkpointed}  {100 * checkpointed / total:5.1f} %")
        print("by reason code:")
        for code, count in codes.most_common():
            print(f"  {code:<32} {count:6}  {100 * count / total:5.1f} %")
        if args.run:
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                outcomes = list(pool.map(lambda l: destroys(template, l), refused))
            harmless = [l for l, o in zip(refused, outcomes) if o is False]
            unknown = sum(1 for o in outcomes if o is None)
            print(f"refused, destroys nothing when run: {len(harmless)}  "
                  f"{100 * len(harmless) / total:5.2f} %  (not run to the end: {unknown})")
            if args.report:
                with open(args.report, "w") as out:
                    out.writelines(l + "\n" for l in harmless)
                print(f"  listed in {args.report}")
    finally:
        shutil.rmtree(template, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Git snapshot benchmark (issue 4): a repository with 20,000 tracked files and 1,000 modified.
# Compares agent-guard's snapshot (git2, through `check --enforce` of a discard) against
# `git stash create` run as a process. Before every run, 1,000 files get new content, so both
# sides write 1,000 new objects.
#
#   bench/snapshot.sh [--runs N] [--export FILE.md]
. "$(dirname "$0")/lib.sh"
runs_and_export 10 "$@"
release_build -p agent-guard-cli
ag="$target/release/agent-guard"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
ws="$root/ws"
export HOME="$root/home"
isolate_git
mkdir -p "$ws" "$HOME"
git -C "$ws" init -q
python3 - "$ws" <<'PY'
import os, sys
ws = sys.argv[1]
for d in range(200):
    os.makedirs(os.path.join(ws, f"d{d:03}"), exist_ok=True)
    for f in range(100):
        with open(os.path.join(ws, f"d{d:03}", f"f{f:03}.txt"), "w") as out:
            out.write(f"file {d} {f}\n")
PY
git -C "$ws" add -A && git -C "$ws" commit -qm 20k
settle_index "$ws"
modify_script "$root/modify.sh" "$ws" 1000 'f"d{i % 200:03}", f"f{i // 200:03}.txt"'
"$ag" check --cwd "$ws" --enforce -- 'git checkout -- .' >/dev/null   # create the quarantine once

args=(-N --runs "$runs" --style basic --prepare "$root/modify.sh")
[ -n "$export_md" ] && args+=(--export-markdown "$export_md")
hyperfine "${args[@]}" \
  -n "git stash create (process)" "git -C $ws stash create" \
  -n "agent-guard snapshot (check --enforce, git checkout -- .)" "$ag check --cwd $ws --enforce -- 'git checkout -- .'"

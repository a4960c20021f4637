#!/usr/bin/env bash
# Git snapshot benchmark (issue 4): a repository with 20,000 tracked files and 1,000 modified.
# Compares agent-guard's snapshot (git2, through `check --enforce` of a discard) against
# `git stash create` run as a process. Before every run, 1,000 files get new content, so both
# sides write 1,000 new objects.
#
#   bench/snapshot.sh [--runs N] [--export FILE.md]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10
export_md=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --export) export_md="$2"; shift 2 ;;
    *) echo "usage: bench/snapshot.sh [--runs N] [--export FILE.md]" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release -q -p agent-guard-cli
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
ag="$target/release/agent-guard"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
ws="$root/ws"
export HOME="$root/home" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@agent-guard.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@agent-guard.invalid
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
sleep 1.1 && git -C "$ws" update-index -q --refresh
cat > "$root/modify.sh" <<SH
#!/bin/sh
n=\$(date +%s%N)
python3 - "$ws" "\$n" <<'PY'
import os, sys
ws, tag = sys.argv[1], sys.argv[2]
for n in range(1000):
    with open(os.path.join(ws, f"d{n % 200:03}", f"f{n // 200:03}.txt"), "w") as out:
        out.write(f"modified {tag} {n}\n")
PY
SH
chmod +x "$root/modify.sh"
"$ag" check --cwd "$ws" --enforce -- 'git checkout -- .' >/dev/null   # create the quarantine once

args=(-N --runs "$runs" --style basic --prepare "$root/modify.sh")
[ -n "$export_md" ] && args+=(--export-markdown "$export_md")
hyperfine "${args[@]}" \
  -n "git stash create (process)" "git -C $ws stash create" \
  -n "agent-guard snapshot (check --enforce, git checkout -- .)" "$ag check --cwd $ws --enforce -- 'git checkout -- .'"

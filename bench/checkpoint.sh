#!/usr/bin/env bash
# Workspace checkpoint benchmark (issue 14): a git workspace of N files (tracked plus
# untracked; 10,000 and 100,000 by default), each case side by side with
# `git status --porcelain` in the same hyperfine run:
#   - nothing changed since the last checkpoint;
#   - 100 files changed before every run;
#   - the first checkpoint of the workspace (everything hashed) against `git add -A` into a
#     scratch index;
#   - storage: a second checkpoint with nothing changed adds no content objects (checked).
# The summary gives the ratio of the means and of the medians (a merge of the store's packs,
# every 17th changed checkpoint or so, is one slow run that moves the mean).
# A checkpoint is taken through `check --enforce` of an opaque program (`make -q`), so the
# numbers include the whole process, the audit record and the journal. The first checkpoint
# starts the workspace's watcher (docs/checkpoints.md, "The watcher"), which the unchanged
# and changed cases then ask; its own CPU time, spent in the background as files change,
# is printed after each size. `--no-watch` measures without it (AGENT_GUARD_CHECKPOINT_WATCH=0).
#
#   bench/checkpoint.sh [--runs N] [--sizes "10000 100000"] [--export-dir DIR] [--no-watch]
. "$(dirname "$0")/lib.sh"
runs=10
sizes="10000 100000"
export_dir=""
no_watch=""
options "bench/checkpoint.sh [--runs N] [--sizes \"10000 100000\"] [--export-dir DIR] [--no-watch]" \
  --runs=runs --sizes=sizes --export-dir=export_dir --no-watch=no_watch! -- "$@"
[ -z "$no_watch" ] || export AGENT_GUARD_CHECKPOINT_WATCH=0
release_build -p agent-guard-cli
ag="$target/release/agent-guard"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
export HOME="$root/home"
isolate_git
mkdir -p "$HOME"

export_args() { # $1: case name; JSON always (for the summary), markdown with --export-dir
  mkdir -p "$root/json"
  echo --export-json "$root/json/$1.json"
  [ -n "$export_dir" ] && { mkdir -p "$export_dir"; echo --export-markdown "$export_dir/$1.md"; } || true
}

summary() { # ratios of means and of medians (robust to a consolidation spike), per case
  python3 - "$root/json" <<'PY'
import json, os, sys
d = sys.argv[1]
print("| case | reference mean | median | agent-guard mean | median | ratio of means | of medians |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in sorted(os.listdir(d)):
    r = json.load(open(os.path.join(d, name)))["results"]
    ours = next(x for x in r if "agent-guard" in x["command"])
    ref = next(x for x in r if "agent-guard" not in x["command"])
    ms = lambda v: f"{v * 1000:.1f} ms"
    print(f"| {name[:-5]} | {ms(ref['mean'])} | {ms(ref['median'])} | {ms(ours['mean'])} "
          f"| {ms(ours['median'])} | {ours['mean'] / ref['mean']:.2f}× | {ours['median'] / ref['median']:.2f}× |")
PY
}

objects() { # objects in the checkpoint store, loose and packed
  git --git-dir "$1/.agent-trash/checkpoints" count-objects -v |
    awk '$1 == "count:" || $1 == "in-pack:" { n += $2 } END { print n + 0 }'
}

for n in $sizes; do
  ws="$root/ws$n"
  mkdir -p "$ws"
  git -C "$ws" init -q
  python3 - "$ws" "$n" <<'PY'
import os, sys
ws, n = sys.argv[1], int(sys.argv[2])
per_dir = 100
for i in range(n):
    d = os.path.join(ws, f"d{i // per_dir:04}")
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i % per_dir:03}.txt"), "w") as out:
        out.write(f"file {i}\n")
PY
  # Three quarters tracked, one quarter untracked.
  git -C "$ws" add -A && git -C "$ws" reset -q -- $(cd "$ws" && ls -d d*[0-9] | awk 'NR % 4 == 0')
  git -C "$ws" commit -qm "$n files"
  settle_index "$ws"
  modify_script "$root/modify$n.sh" "$ws" 100 'f"d{i:04}", "f000.txt"'
  take="$ag check --cwd $ws --enforce -- make -q"
  status="git -C $ws status --porcelain"

  echo "## $n files: first checkpoint (everything hashed) vs git add -A into a scratch index"
  hyperfine -N --runs "$runs" --style basic $(export_args "first-$n") \
    --prepare "rm -rf $ws/.agent-trash/checkpoints $root/scratch-index" \
    -n "agent-guard first checkpoint" "$take" \
    -n "git add -A (scratch index)" "env GIT_INDEX_FILE=$root/scratch-index git -C $ws add -A"

  $take >/dev/null
  before=$(objects "$ws")
  $take >/dev/null
  after=$(objects "$ws")
  echo "storage: a second checkpoint of an unchanged workspace added $((after - before)) objects (content objects: 0 expected)"

  echo "## $n files: nothing changed since the last checkpoint"
  hyperfine -N --runs "$runs" --warmup 2 --style basic $(export_args "unchanged-$n") \
    -n "git status --porcelain" "$status" \
    -n "agent-guard checkpoint (unchanged)" "$take"

  echo "## $n files: 100 files changed"
  hyperfine -N --runs "$runs" --style basic $(export_args "changed-$n") --prepare "$root/modify$n.sh" \
    -n "git status --porcelain" "$status" \
    -n "agent-guard checkpoint (100 changed)" "$take"

  # The watcher's own CPU time over all of this size's runs (utime + stime, in clock ticks).
  for pid in $(pgrep -f "__checkpoint-watch $ws " || true); do
    awk -v hz="$(getconf CLK_TCK)" -v n="$n" '{ printf "watcher of the %s-file workspace: %.0f ms of CPU (user %.0f, system %.0f) over all runs\n", n, ($14 + $15) * 1000 / hz, $14 * 1000 / hz, $15 * 1000 / hz }' "/proc/$pid/stat"
  done
done

echo "## Summary"
summary

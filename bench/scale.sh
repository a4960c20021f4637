#!/usr/bin/env bash
# Monorepo-scale benchmark (issue 15): every git-touching path on a repository of 100,000
# tracked files (200 untracked files in `build/`, 50 modified tracked files), whole process,
# side by side with git's own equivalent; then the no-op and `rm -rf build` checks,
# `safe-delete` of one file and of `build/` against `mv` + `sync -f`, `status` and `list` with
# 10,000 transactions, and the peak RSS of every agent-guard path (`/usr/bin/time -v`).
#
#   bench/scale.sh [--runs N] [--export DIR] [--keep DIR] [--bin DIR] [--only "GROUP…"]
#
# AGENT_GUARD_SCALE_FILES (default 100000, a multiple of 1,000) sets the number of tracked
# files, for a quick check on a smaller repository: AGENT_GUARD_SCALE_FILES=5000 bench/scale.sh --runs 3
#
# --runs    runs per command (default 15; the relocation rows run 3x as many)
# --export  writes hyperfine's markdown and JSON per group into DIR, and summary.md
# --keep    builds the repository in DIR and leaves it there (reused when it exists)
# --bin     takes `agent-guard` and `trivial-rust` from DIR instead of building them
# --only    runs only the named groups (reset clean snapshot check safe-delete-file
#           safe-delete-dir checkpoint-first checkpoint-unchanged checkpoint-changed history
#           rss); `--only none` just builds the repository
#
# Needs hyperfine and GNU time (/usr/bin/time). Builds the release binaries first. The
# repository is generated deterministically with `git fast-import` (one pack, as a clone
# has) and checked out by git, so the index carries real stat data.
. "$(dirname "$0")/lib.sh"
runs=15
files="${AGENT_GUARD_SCALE_FILES:-100000}"
packages=$((files / 1000))
[ "$packages" -ge 1 ] && [ $((packages * 1000)) -eq "$files" ] || {
  echo "error: AGENT_GUARD_SCALE_FILES must be a positive multiple of 1000" >&2; exit 2; }
out_dir=""
keep=""
bin=""
only=""
options "bench/scale.sh [--runs N] [--export DIR] [--keep DIR] [--bin DIR] [--only GROUPS]" \
  --runs=runs --export=out_dir --keep=keep --bin=bin --only=only -- "$@"
need_hyperfine
[ -x /usr/bin/time ] || { echo "error: GNU time is not installed (apt-get install time)" >&2; exit 1; }
if [ -z "$bin" ]; then
  cargo build --release --locked -q -p agent-guard-cli --bin agent-guard -p agent-guard-bench
  target=$(target_dir)
  bin="$target/release"
fi
ag="$bin/agent-guard"
trivial="$bin/trivial-rust"

if [ -n "$keep" ]; then
  root="$keep"
  mkdir -p "$root"
else
  root=$(mktemp -d)
  trap 'rm -rf "$root"' EXIT
fi
root=$(cd "$root" && pwd -P)
ws="$root/ws"
isolate_home "$root/home"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 LC_ALL=C
export AGENT_GUARD_SESSION=bench
[ -n "$out_dir" ] && mkdir -p "$out_dir"

# The 50 modified files, spread over the packages: file i is pkg(i mod P)/mod0/f(i div P).
modified() {
  for i in $(seq 0 49); do
    printf '%s/pkg%03d/mod0/f%03d.txt\n' "$ws" $((i % packages)) $((i / packages))
  done
}

if [ ! -d "$ws/.git" ]; then
  echo "building the $files-file repository in $ws…" >&2
  git init -q -b main "$ws"
  python3 - "$packages" <<'PY' | git -C "$ws" fast-import --quiet
import sys
w = sys.stdout.buffer.write
def blob(path, body):
    w(b"M 100644 inline %s\ndata %d\n" % (path, len(body)))
    w(body)
w(b"commit refs/heads/main\ncommitter bench <bench@agent-guard.invalid> 1767225600 +0000\ndata 6\nscale\n")
blob(b".gitignore", b"node_modules/\n*.log\ntmp/\n")
# P packages x 10 modules x 100 files (+ .gitignore): 100,001 tracked files in 1,100
# directories for the default P = 100.
for p in range(int(sys.argv[1])):
    for m in range(10):
        for f in range(100):
            blob(b"pkg%03d/mod%d/f%03d.txt" % (p, m, f), b"package %d module %d file %d\n" % (p, m, f))
w(b"\n")
PY
  git -C "$ws" reset -q --hard
  # Let every index entry age past the racy window, then refresh once, so that neither git
  # nor agent-guard must re-hash files that are unchanged.
  settle_index "$ws"
  mkdir -p "$root/build.pristine/out"
  for i in $(seq 1 200); do echo "object $i" > "$root/build.pristine/out/f$i.o"; done
  cp -a "$root/build.pristine" "$ws/build"
  modified | while read -r f; do echo "modified" >> "$f"; done
fi
# 10,000 earlier transactions, for `status` and `list`, in a workspace of their own: the
# relocation groups add transactions (each with build/'s 200 files) to the repository's
# quarantine, which would make the history rows depend on what ran before them.
hist="$root/history"
if [ ! -d "$hist/.agent-trash" ]; then
  git init -q -b main "$hist"
  "$ag" check --cwd "$hist" -- 'rm -rf build' >/dev/null
  fake_history "$hist" old/
  "$ag" status --cwd "$hist" >/dev/null
fi
echo "repository: $(git -C "$ws" ls-files | wc -l) tracked, $(git -C "$ws" status --porcelain | grep -c '^ M') modified, $(find "$ws/build" -type f | wc -l) untracked in build/; $(git --version)" >&2

# Puts build/ back (untimed) when a run quarantined it.
restore_build="sh -c '[ -d $ws/build ] || cp -a $root/build.pristine $ws/build'"
# New content for the 50 modified files (untimed), so both sides hash and store 50 blobs.
modify="sh -c 'n=\$(date +%s%N); for f in $(modified | tr '\n' ' '); do echo \$n >> \$f; done'"

selected() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }
group() { # group NAME [hyperfine args…]
  local name="$1"; shift
  selected "$name" || return 0
  local extra=()
  [ -n "$out_dir" ] && extra=(--export-markdown "$out_dir/$name.md" --export-json "$out_dir/$name.json")
  echo >&2; echo "== $name" >&2
  hyperfine --style basic "${extra[@]}" "$@"
}

group reset -N --warmup 2 --runs "$runs" \
  -n 'git status --porcelain' "git -C $ws status --porcelain" \
  -n "check: git reset --hard (preflight)" "$ag check --cwd $ws -- 'git reset --hard'"

group clean -N --warmup 1 --runs "$runs" --prepare "$restore_build" \
  -n 'git clean -n -d' "git -C $ws clean -n -d" \
  -n 'check --enforce: git clean -fd' "$ag check --cwd $ws --enforce -- 'git clean -fd'"
sh -c "$restore_build"

group snapshot -N --warmup 1 --runs "$runs" --prepare "$modify" \
  -n 'git stash create' "git -C $ws stash create" \
  -n "check --enforce: git checkout -- ." "$ag check --cwd $ws --enforce -- 'git checkout -- .'"

group check -N --warmup 5 --runs $((runs * 3)) \
  -n 'trivial Rust binary' "$trivial" \
  -n 'check: no-op (ls -la)' "$ag check --cwd $ws -- 'ls -la'" \
  -n 'check: rm -rf build' "$ag check --cwd $ws -- 'rm -rf build'"

# Relocation against its floor: `mv` plus one `sync -f` of what moved (hyperfine runs both
# through its shell and subtracts the shell's start-up).
one="$ws/scratch.txt"
group safe-delete-file --warmup 3 --runs $((runs * 3)) \
  --prepare "sh -c 'rm -f $root/moved.txt; echo scratch > $one'" \
  -n 'mv + sync -f (one file)' "mv $one $root/moved.txt && sync -f $root/moved.txt" \
  -n 'safe-delete (one file)' "$ag safe-delete --cwd $ws $one"
group safe-delete-dir --warmup 3 --runs $((runs * 3)) \
  --prepare "sh -c 'rm -rf $root/moved; [ -d $ws/build ] || cp -a $root/build.pristine $ws/build'" \
  -n 'mv + sync -f (build/)' "mv $ws/build $root/moved && sync -f $root/moved" \
  -n 'safe-delete (build/)' "$ag safe-delete --cwd $ws build"
sh -c "$restore_build"

# Workspace checkpoints (issue 14) of the whole repository (100,001 tracked files, build/
# untracked), through `check --enforce` of an opaque program: the first (the store deleted
# before each run, against `git add -A` into a scratch index), then nothing changed, then 100
# files changed (in 100 directories) before each run, each beside `git status --porcelain`.
cp_store="$ws/.agent-trash/checkpoints"
cp_take="$ag check --cwd $ws --enforce -- make -q"
# 100 tracked files in 100 directories (spread over the packages and modules 1–9).
cp_files="$root/checkpoint-files.txt"
for i in $(seq 0 99); do
  printf 'pkg%03d/mod%d/f%03d.txt\n' $((i % packages)) $((1 + i / packages % 9)) $((i / (packages * 9)))
done > "$cp_files"
cp_modify="$root/checkpoint-modify.sh"
cat > "$cp_modify" <<SH
#!/bin/sh
n=\$(date +%s%N)
while read -r f; do echo "\$n" > "$ws/\$f"; done < "$cp_files"
SH
chmod +x "$cp_modify"
group checkpoint-first -N --warmup 1 --runs "$(( runs < 5 ? runs : 5 ))" \
  --prepare "sh -c 'rm -rf $cp_store $root/scratch-index'" \
  -n 'git add -A (scratch index)' "env GIT_INDEX_FILE=$root/scratch-index git -C $ws add -A" \
  -n 'checkpoint: first' "$cp_take"
group checkpoint-unchanged -N --warmup 2 --runs "$runs" \
  -n 'git status --porcelain' "git -C $ws status --porcelain" \
  -n 'checkpoint: unchanged' "$cp_take"
group checkpoint-changed -N --warmup 2 --runs "$runs" --prepare "$cp_modify" \
  -n 'git status --porcelain' "git -C $ws status --porcelain" \
  -n 'checkpoint: 100 changed' "$cp_take"
xargs git -C "$ws" checkout -q -- < "$cp_files"

group history -N --warmup 2 --runs "$runs" \
  -n 'status (10,000 transactions)' "$ag status --cwd $hist --json" \
  -n 'list (10,000 transactions)' "$ag list --cwd $hist --json --limit 0"

# Peak RSS of each agent-guard path, one run each (the work is deterministic).
if selected rss; then
echo >&2; echo "== peak RSS (KiB)" >&2
[ -n "$out_dir" ] && printf '| path | peak RSS [KiB] |\n|---|---:|\n' > "$out_dir/rss.md"
rss_time() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident set size/ {print $6}'; }
row() { # row LABEL COMMAND…
  local kib
  kib=$(rss_time "${@:2}")
  printf '%-44s %8s\n' "$1" "$kib"
  [ -z "$out_dir" ] || printf '| %s | %s |\n' "$1" "$kib" >> "$out_dir/rss.md"
}
row 'git status --porcelain' git -C "$ws" status --porcelain
row 'check: git reset --hard' "$ag" check --cwd "$ws" -- 'git reset --hard'
row 'git clean -n -d' git -C "$ws" clean -n -d
row 'check --enforce: git clean -fd' "$ag" check --cwd "$ws" --enforce -- 'git clean -fd'
sh -c "$restore_build"
sh -c "$modify"
row 'git stash create' git -C "$ws" stash create
sh -c "$modify"
row 'check --enforce: git checkout -- .' "$ag" check --cwd "$ws" --enforce -- 'git checkout -- .'
row 'check: no-op (ls -la)' "$ag" check --cwd "$ws" -- 'ls -la'
row 'check: rm -rf build' "$ag" check --cwd "$ws" -- 'rm -rf build'
echo scratch > "$one"
row 'safe-delete (one file)' "$ag" safe-delete --cwd "$ws" "$one"
row 'safe-delete (build/)' "$ag" safe-delete --cwd "$ws" build
sh -c "$restore_build"
rm -rf "$cp_store"
row 'checkpoint: first' $cp_take
row 'checkpoint: unchanged' $cp_take
"$cp_modify"
row 'checkpoint: 100 changed' $cp_take
xargs git -C "$ws" checkout -q -- < "$cp_files"
row 'status (10,000 transactions)' "$ag" status --cwd "$hist" --json
row 'list (10,000 transactions)' "$ag" list --cwd "$hist" --json --limit 0

fi

# Ratios of medians, guard against its floor, from hyperfine's JSON.
if [ -n "$out_dir" ]; then
  python3 - "$out_dir" <<'PY' | tee "$out_dir/summary.md"
import json, os, sys
d = sys.argv[1]
def medians(name):
    if not os.path.exists(os.path.join(d, name + ".json")):
        return []
    with open(os.path.join(d, name + ".json")) as f:
        return [(r["command"], r["median"] * 1000, r["min"] * 1000, r["max"] * 1000,
                 (r["user"] + r["system"]) * 1000) for r in json.load(f)["results"]]
# Wall time is what a hook waits for; CPU time (user + system, means) is what survives a
# busy machine's scheduling noise, so both ratios are printed.
print("| path | agent-guard median (min–max) [ms] | CPU [ms] | floor | floor median [ms] | floor CPU [ms] | wall ratio | CPU ratio |")
print("|---|---:|---:|---|---:|---:|---:|---:|")
for group in ["reset", "clean", "snapshot", "check", "safe-delete-file", "safe-delete-dir",
              "checkpoint-first", "checkpoint-unchanged", "checkpoint-changed"]:
    rows = medians(group)
    if not rows:
        continue
    floor = rows[0]
    for row in rows[1:]:
        print(f"| {row[0]} | {row[1]:.1f} ({row[2]:.1f}–{row[3]:.1f}) | {row[4]:.1f} | {floor[0]} | {floor[1]:.1f} | {floor[4]:.1f} | {row[1] / floor[1]:.2f} | {row[4] / floor[4]:.2f} |")
for row in medians("history"):
    print(f"| {row[0]} | {row[1]:.1f} ({row[2]:.1f}–{row[3]:.1f}) | {row[4]:.1f} | | | | | |")
PY
fi

#!/usr/bin/env bash
# Quarantine benchmarks (issue 3): relocation and restore against mv / cp -a + rm -rf, on the
# same filesystem and across devices (/dev/shm), and list/status/gc over 10,000 transactions.
#
#   bench/quarantine.sh [--files N] [--runs N] [--export FILE.md]
#
# Needs hyperfine. Builds the release binaries first. Uses $TMPDIR (default /tmp) for the
# workspace and /dev/shm for the other device.
. "$(dirname "$0")/lib.sh"
files=100000
runs=5
export_md=""
options "bench/quarantine.sh [--files N] [--runs N] [--export FILE.md]" \
  --files=files --runs=runs --export=export_md -- "$@"
release_build -p agent-guard-cli
ag="$target/release/agent-guard"

root=$(mktemp -d)
shm=$(mktemp -d -p /dev/shm)
trap 'rm -rf "$root" "$shm"' EXIT
ws="$root/ws"
mkdir -p "$ws" "$root/home"
export HOME="$root/home" AGENT_GUARD_SESSION=bench
git -C "$ws" init -q

echo "building a ${files}-file tree…" >&2
python3 - "$root/pristine" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per_dir = 100
for i in range(n):
    d = os.path.join(root, f"d{i // (per_dir * per_dir)}", f"s{(i // per_dir) % per_dir}")
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i}.txt"), "wb") as f:
        f.write(os.urandom(512))
PY
bytes=$(du -sb "$root/pristine" | cut -f1)
echo "tree: $files files, $bytes bytes" >&2
cp -a "$root/pristine" "$ws/tree"

md_args=()
[ -n "$export_md" ] && md_args=(--export-markdown "$export_md")

# Same filesystem: safe-delete (one rename) against mv. `prepare` puts the tree back by a
# rename, so every run moves the same 100k-file tree.
back='t=$(ls -d '"$ws"'/.agent-trash/2*/tree 2>/dev/null | head -1); [ -n "$t" ] && mv "$t" '"$ws"'/tree; [ -d '"$root"'/moved ] && mv '"$root"'/moved '"$ws"'/tree; true'
# The O(1) cases run 10× as often, after warm-up runs (the first safe-delete also lays out
# the quarantine).
hyperfine -N --warmup 5 --runs $((runs * 10)) --style basic "${md_args[@]/%.md/-relocate.md}" \
  --prepare "sh -c '$back'" \
  -n "mv (same filesystem)" "mv $ws/tree $root/moved" \
  -n "safe-delete (same filesystem)" "$ag safe-delete --cwd $ws tree"

# Restore on the same filesystem: `undo` (find the newest restorable transaction, restore it)
# against mv back. `prepare` quarantines the tree again (not timed), so every run is a real
# restore; the mv baseline moves it out of the way first.
sh -c "$back"
hyperfine -N --warmup 5 --runs $((runs * 10)) --style basic "${md_args[@]/%.md/-restore.md}" \
  -n "mv back (same filesystem)" --prepare "sh -c 'mv $ws/tree $root/moved'" "mv $root/moved $ws/tree" \
  -n "restore via undo (same filesystem)" --prepare "$ag safe-delete --cwd $ws tree" "$ag undo --cwd $ws"

# Across devices: safe-delete into /dev/shm (verified copy + source removal) against
# cp -a + rm -rf. `prepare` recreates the tree from the pristine copy (not timed).
reset_tree="sh -c 'rm -rf $ws/tree $shm/q $shm/cp; cp -a $root/pristine $ws/tree'"
hyperfine -N --runs "$runs" --style basic "${md_args[@]/%.md/-cross.md}" \
  --prepare "$reset_tree" \
  -n "cp -a + rm -rf (to /dev/shm)" "sh -c 'cp -a $ws/tree $shm/cp && rm -rf $ws/tree'" \
  -n "safe-delete (to /dev/shm)" "env AGENT_GUARD_TRASH=$shm/q $ag safe-delete --cwd $ws tree"

# 10,000 transactions: list, status and gc plan.
many="$root/many"
mkdir -p "$many/.agent-trash" && git -C "$many" init -q
fake_history "$many"
"$ag" status --cwd "$many" >/dev/null
hyperfine -N --warmup 2 --runs 10 --style basic "${md_args[@]/%.md/-many.md}" \
  -n "list (10,000 transactions)" "$ag list --cwd $many --json --limit 0" \
  -n "status (10,000 transactions)" "$ag status --cwd $many --json" \
  -n "gc plan (10,000 transactions)" "$ag gc --cwd $many --json"

# A relocation must not slow down as the history grows: safe-delete of one file in the
# workspace with 10,000 transactions (reconciliation reads only the journal after its
# checkpoint). The first run reads the whole journal once and stores the checkpoint.
hyperfine -N --warmup 3 --runs $((runs * 5)) --style basic "${md_args[@]/%.md/-many-sd.md}" \
  --prepare "touch $many/one.txt" \
  -n "safe-delete (10,000 transactions)" "$ag safe-delete --cwd $many one.txt"

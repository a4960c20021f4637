#!/usr/bin/env bash
# Preservation cost (issues 11 and 34): keeping the current version of a 1 MiB and a 256 MiB
# file, side by side in the same run with the tool that does the same by hand, on the
# filesystem of $TMPDIR (ext4 here) and on loop-mounted XFS (reflink=1) and Btrfs images.
# The store is outside the workspace on the same filesystem, as the guard puts it.
#
#   - `preserve-one … link` (the hard link kept when a line only replaces the name: `mv x f`,
#     `ln -f`) against `ln f STORE/f`, and against the same `ln` followed by `sync` of the
#     link and its directory (the guard's kept version is durable before the command runs);
#   - `preserve-one … copy` (the reflink, or the verified copy, kept when a line rewrites the
#     file: `: > f`, `sed -i`) against `cp --reflink=auto f STORE/f`, and against the same
#     `cp` followed by `sync` of the copy and its directory;
#   - the whole `check --enforce` process for both lines, for the full cost an agent sees.
#
# `preserve-one` (crates/agent-guard-bench) is the quarantine's preservation step with its
# durable journal records, as its own process, so that the comparison is process to process.
#
#   bench/preserve.sh [--runs N] [--export FILE.md]
#
# Needs hyperfine; the loop mounts need root, mkfs.xfs (xfsprogs) and mkfs.btrfs
# (btrfs-progs), and are skipped with a note otherwise. Every run starts from a store
# that exists (made once, as the guard makes it) without the versions earlier runs kept
# (removed, untimed, in --prepare), so the disk use stays bounded.
. "$(dirname "$0")/lib.sh"
runs_and_export 20 "$@"
release_build --locked -p agent-guard-cli -p agent-guard-bench
guard="$target/release/agent-guard"
one="$target/release/preserve-one"

scratch=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
isolate_home "$scratch/home"

# A workspace (a git repository) with the two files, on the filesystem at $1.
workspace() {
  local ws="$1/ws"
  mkdir -p "$ws"
  git -C "$ws" init -q
  head -c $((1024 * 1024)) /dev/urandom > "$ws/small.bin"
  head -c $((256 * 1024 * 1024)) /dev/urandom > "$ws/big.bin"
  echo new > "$ws/new.bin"
  sync -f "$ws/big.bin"
  echo "$ws"
}

# Times preserving each file against ln and cp --reflink=auto of it, on the workspace $2
# (label $1); the store is $2/../store.
measure() {
  local label="$1" ws="$2"
  local store
  store="$(dirname "$ws")/store"
  for file in small.bin big.bin; do
    local cmds=(
      -n "$label: preserve-one link $file" "$one $ws $store $file link"
      -n "$label: ln $file" "ln $ws/$file $store/$file"
      -n "$label: ln + sync $file" "sh -c 'ln $ws/$file $store/$file && sync $store/$file $store'"
      -n "$label: preserve-one copy $file" "$one $ws $store $file copy"
      -n "$label: cp --reflink=auto $file" "cp --reflink=auto $ws/$file $store/$file"
      -n "$label: cp --reflink=auto + sync $file" "sh -c 'cp --reflink=auto $ws/$file $store/$file && sync $store/$file $store'"
      -n "$label: check --enforce mv new.bin $file" "$guard check --enforce --cwd $ws -- 'mv new.bin $file'"
      -n "$label: check --enforce : > $file" "$guard check --enforce --cwd $ws -- ': > $file'"
    )
    # The store exists, as it does after the guard's first use in a workspace (making it
    # and its manifest flushes the store's parent once); each run starts without the kept
    # versions of the runs before it.
    mkdir -p "$store"
    local args=(--warmup 2 --runs "$runs" -N --prepare "sh -c 'rm -rf $store/2* $store/$file'")
    # BENCH_SHOW=1: the commands' own output, to see why one fails.
    if [ -n "${BENCH_SHOW:-}" ]; then args+=(--show-output); else args+=(--style basic); fi
    [ -n "$export_md" ] && args+=(--export-markdown "${export_md%.md}-$label-$file.md")
    AGENT_GUARD_TRASH="$store" hyperfine "${args[@]}" "${cmds[@]}"
  done
  # What the guard used: a link for the rename, a reflink or a copy for the rewrite.
  for line in "mv new.bin big.bin" ": > big.bin"; do
    rm -rf "$store"
    AGENT_GUARD_TRASH="$store" "$guard" check --enforce --json --cwd "$ws" -- "$line" |
      python3 -c 'import json,sys; r=json.load(sys.stdin); print("'"$label"': '"$line"':", r["code"], [c.get("strategy") for c in r["compensations"]])'
  done
  rm -rf "$store"
}

fs=$(df -T "$scratch" | awk 'NR==2 {print $2}')
measure "$fs" "$(workspace "$scratch/plain")"

# Loop-mounted images with reflinks.
loop() {
  local kind="$1" mkfs="$2"
  local image="$scratch/$kind.img" dir="$scratch/$kind"
  if [ "$(id -u)" != 0 ] || ! command -v "$mkfs" >/dev/null; then
    echo "skip $kind: needs root and $mkfs"
    return
  fi
  truncate -s 2G "$image"
  case "$kind" in
    xfs) "$mkfs" -q -m reflink=1 "$image" ;;
    btrfs) "$mkfs" -q "$image" >/dev/null ;;
  esac
  mkdir -p "$dir"
  if ! mount -o loop "$image" "$dir" 2>/dev/null; then
    echo "skip $kind: the loop mount failed (no loop devices in this container?)"
    return
  fi
  mounts+=("$dir")
  measure "$kind" "$(workspace "$dir")"
}
loop xfs mkfs.xfs
loop btrfs mkfs.btrfs

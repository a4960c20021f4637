#!/usr/bin/env bash
# Preservation cost (issue 11): `check --enforce -- ': > big.bin'` keeps the old version of a
# 1 MiB and a 100 MiB file before a truncating redirection, side by side in the same run with
# `cp` of the same file (and `cp --reflink=always` where the filesystem has reflinks), on the
# filesystem of $TMPDIR (ext4 here) and on loop-mounted XFS (reflink=1) and Btrfs images.
#
#   bench/preserve.sh [--runs N] [--export FILE.md]
#
# Needs hyperfine; the loop mounts need root, mkfs.xfs (xfsprogs) and mkfs.btrfs
# (btrfs-progs), and are skipped with a note otherwise. Every run starts from an empty
# quarantine (removed, untimed, in --prepare), so the disk use stays bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=20
export_md=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --export) export_md="$2"; shift 2 ;;
    *) echo "usage: bench/preserve.sh [--runs N] [--export FILE.md]" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --locked -q -p agent-guard-cli
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
guard="$target/release/agent-guard"

scratch=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
export HOME="$scratch/home"; mkdir -p "$HOME"
unset AGENT_GUARD_DIALECT AGENT_GUARD_WORKSPACE AGENT_GUARD_TRASH

# A workspace (a git repository) with the two files, on the filesystem at $1.
workspace() {
  local ws="$1/ws"
  mkdir -p "$ws"
  git -C "$ws" init -q
  head -c $((1024 * 1024)) /dev/urandom > "$ws/small.bin"
  head -c $((100 * 1024 * 1024)) /dev/urandom > "$ws/big.bin"
  sync -f "$ws/big.bin"
  echo "$ws"
}

# Times preserving each file against cp of it, on the workspace $2 (label $1).
measure() {
  local label="$1" ws="$2" reflink="$3"
  for file in small.bin big.bin; do
    local cmds=(
      -n "$label: agent-guard preserve $file" "$guard check --enforce --cwd $ws -- ': > $file'"
      -n "$label: cp $file" "cp $ws/$file $ws/copy.bin"
      # The guard makes its copy durable before the command runs; so does this.
      -n "$label: cp $file + sync -f" "sh -c 'cp $ws/$file $ws/copy.bin && sync -f $ws/copy.bin'"
    )
    if [ "$reflink" = yes ]; then
      cmds+=(-n "$label: cp --reflink=always $file" "cp --reflink=always $ws/$file $ws/copy.bin")
    fi
    local args=(--warmup 2 --runs "$runs" -N
      --prepare "rm -rf $ws/.agent-trash $ws/copy.bin")
    # BENCH_SHOW=1: the commands' own output, to see why one fails.
    if [ -n "${BENCH_SHOW:-}" ]; then args+=(--show-output); else args+=(--style basic); fi
    [ -n "$export_md" ] && args+=(--export-markdown "${export_md%.md}-$label-$file.md")
    hyperfine "${args[@]}" "${cmds[@]}"
  done
  # What the guard used: a reflink where it could, a verified copy otherwise.
  "$guard" check --enforce --json --cwd "$ws" -- ": > big.bin" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print("'"$label"': code", r["code"], "compensations", [c.get("strategy") for c in r["compensations"]])'
}

fs=$(df -T "$scratch" | awk 'NR==2 {print $2}')
measure "$fs" "$(workspace "$scratch/plain")" no

# Loop-mounted images with reflinks.
loop() {
  local kind="$1" mkfs="$2"
  local image="$scratch/$kind.img" dir="$scratch/$kind"
  if [ "$(id -u)" != 0 ] || ! command -v "$mkfs" >/dev/null; then
    echo "skip $kind: needs root and $mkfs"
    return
  fi
  truncate -s 1G "$image"
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
  measure "$kind" "$(workspace "$dir")" yes
}
loop xfs mkfs.xfs
loop btrfs mkfs.btrfs

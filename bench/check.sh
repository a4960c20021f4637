#!/usr/bin/env bash
# Whole-process benchmark of `check` (issue 2): a no-op command, `rm -rf build` and
# `git reset --hard`, each against a trivial Rust binary's start-up, in the same run; then
# `check --enforce -- 'rm -rf build'` (issue 17); then hook mode's no-op path (a Claude Code payload for `ls -la` on stdin) against the same
# trivial binary, fed the same stdin.
#
#   bench/check.sh [--runs N] [--export FILE.md]
#
# Needs hyperfine (`apt-get install hyperfine`). Builds the release binaries first.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=300
export_md=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --export) export_md="$2"; shift 2 ;;
    *) echo "usage: bench/check.sh [--runs N] [--export FILE.md]" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --locked -q -p agent-guard-cli -p agent-guard-bench
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
check="$target/release/check"
trivial="$target/release/trivial-rust"

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
(
  cd "$ws"
  git init -q
  git config user.email bench@agent-guard.invalid && git config user.name bench
  mkdir -p src build/out && echo 'fn main() {}' > src/main.rs
  for i in $(seq 1 200); do echo "$i" > "build/out/f$i.o"; done
  printf 'node_modules/\n' > .gitignore
  git add -A src .gitignore && git commit -qm init
  echo 'changed' >> src/main.rs
)
export HOME="$ws/home"; mkdir -p "$HOME"
unset AGENT_GUARD_DIALECT AGENT_GUARD_WORKSPACE AGENT_GUARD_TRASH
# Warm the quarantine layout once so every measured run does the same work.
"$check" --cwd "$ws" -- 'rm -rf build' >/dev/null

args=(--warmup 20 --runs "$runs" -N --style basic)
[ -n "$export_md" ] && args+=(--export-markdown "$export_md")
hyperfine "${args[@]}" \
  -n 'trivial Rust binary' "$trivial" \
  -n 'check: no-op (ls -la)' "$check --cwd $ws -- 'ls -la'" \
  -n 'check: rm -rf build' "$check --cwd $ws -- 'rm -rf build'" \
  -n 'check: git reset --hard' "$check --cwd $ws -- 'git reset --hard'"

# The destructive path under --enforce (issue 17: a chained, synced audit intent and outcome,
# plus the relocation): build/ is recreated, untimed, before every run.
prep="$ws.prepare.sh"
printf '#!/bin/sh\nrm -rf "%s/build" && mkdir -p "%s/build/out" && touch "%s/build/out/a.o" "%s/build/out/b.o"\n' \
  "$ws" "$ws" "$ws" "$ws" > "$prep"
chmod +x "$prep"
trap 'rm -rf "$ws" "$prep"' EXIT
enforce_args=(--warmup 5 --runs "$(( runs < 200 ? runs : 200 ))" -N --style basic --prepare "$prep")
[ -n "$export_md" ] && enforce_args+=(--export-markdown "${export_md%.md}-enforce.md")
hyperfine "${enforce_args[@]}" \
  -n 'check --enforce: rm -rf build' "$check --enforce --cwd $ws -- 'rm -rf build'"

# Hook mode, no-op path: the payload comes on stdin.
payload="$ws.hook-ls.json"
trap 'rm -rf "$ws" "$prep" "$payload"' EXIT
printf '{"session_id":"bench","transcript_path":"/dev/null","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"list"},"tool_use_id":"toolu_bench"}' "$ws" > "$payload"
hook_args=(--warmup 20 --runs "$runs" --style basic)
[ -n "$export_md" ] && hook_args+=(--export-markdown "${export_md%.md}-hook.md")
if hyperfine --help | grep -q -- '--input'; then
  hyperfine "${hook_args[@]}" -N --input "$payload" \
    -n 'trivial Rust binary (stdin)' "$trivial" \
    -n 'check --harness claude-code: no-op (ls -la)' "$check --harness claude-code"
else
  # hyperfine < 1.16 has no --input: redirect through the shell (its start-up is measured
  # and subtracted by hyperfine), for both commands alike.
  hyperfine "${hook_args[@]}" \
    -n 'trivial Rust binary (stdin)' "$trivial < $payload" \
    -n 'check --harness claude-code: no-op (ls -la)' "$check --harness claude-code < $payload"
fi

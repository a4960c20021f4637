#!/usr/bin/env bash
# Hook mode on an edit-tool call (issue 13): a Claude Code `Edit` of an existing 100 KiB file,
# whose current version is kept (reflinked or copied) before the edit runs, against hook mode's
# no-op path (a `Bash` call of `ls -la`) in the same run. Budget: the edit within 2x the no-op.
#
#   bench/edit.sh [--runs N] [--export FILE.md]
#
# Every measured edit makes a transaction (the hook keeps the file; the edit itself is not
# performed, so every run keeps the same 100 KiB). Needs hyperfine. Builds the release binary.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=200
export_md=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --export) export_md="$2"; shift 2 ;;
    *) echo "usage: bench/edit.sh [--runs N] [--export FILE.md]" >&2; exit 2 ;;
  esac
done
command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --locked -q -p agent-guard-cli
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
check="$target/release/check"

ws=$(mktemp -d)
trap 'rm -rf "$ws" "$ws".*.json' EXIT
(
  cd "$ws"
  git init -q
  git config user.email bench@agent-guard.invalid && git config user.name bench
  mkdir -p src && echo 'fn main() {}' > src/main.rs
  # 76,800 random bytes are 102,400 base64 characters (plus newlines), cut to 100 KiB. No
  # `| head` at the end: under pipefail the writer's SIGPIPE would fail the script.
  head -c 76800 /dev/urandom | base64 -w 100 > src/big.txt && truncate -s 102400 src/big.txt
  git add -A && git commit -qm init
)
export HOME="$ws/home"; mkdir -p "$HOME"
export AGENT_GUARD_SESSION=bench
unset AGENT_GUARD_DIALECT AGENT_GUARD_WORKSPACE AGENT_GUARD_TRASH

noop="$ws.hook-ls.json"
edit="$ws.hook-edit.json"
printf '{"session_id":"bench","transcript_path":"/dev/null","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"list"},"tool_use_id":"toolu_bench"}' "$ws" > "$noop"
printf '{"session_id":"bench","transcript_path":"/dev/null","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"%s/src/big.txt","old_string":"a","new_string":"b"},"tool_use_id":"toolu_bench"}' "$ws" "$ws" > "$edit"
# Warm the quarantine layout once so every measured run does the same work.
"$check" --harness claude-code < "$edit" >/dev/null

json="$ws.results.json"
args=(--warmup 10 --runs "$runs" --style basic --export-json "$json")
[ -n "$export_md" ] && args+=(--export-markdown "$export_md")
# The two commands read different payloads, so both go through a shell redirect (hyperfine
# measures the shell's start-up and subtracts it), alike.
hyperfine "${args[@]}" \
  -n 'hook no-op (Bash: ls -la)' "$check --harness claude-code < $noop" \
  -n 'hook Edit of a 100 KiB file' "$check --harness claude-code < $edit"
echo "transactions kept: $(ls -d "$ws"/.agent-trash/2*/ 2>/dev/null | wc -l)"
# Medians as well as hyperfine's means: a disk flush now and then takes milliseconds on a
# shared virtual disk, and one such outlier moves a mean of a few milliseconds.
python3 - "$json" <<'PY'
import json, sys
noop, edit = json.load(open(sys.argv[1]))["results"]
ratio = edit["median"] / noop["median"]
print(f"median: no-op {noop['median'] * 1e3:.2f} ms, edit {edit['median'] * 1e3:.2f} ms, "
      f"ratio {ratio:.2f} (budget <= 2): {'met' if ratio <= 2 else 'missed'}")
PY

#!/usr/bin/env bash
# Hook mode on an edit-tool call (issue 13): a Claude Code `Edit` of an existing 100 KiB file,
# whose current version is kept (reflinked or copied) before the edit runs, against hook mode's
# no-op path (a `Bash` call of `ls -la`) in the same run. Budget: the edit within 2x the no-op.
#
#   bench/edit.sh [--runs N] [--export FILE.md]
#
# Every measured edit makes a transaction (the hook keeps the file; the edit itself is not
# performed, so every run keeps the same 100 KiB). Needs hyperfine. Builds the release binary.
. "$(dirname "$0")/lib.sh"
runs_and_export 200 "$@"
release_build --locked -p agent-guard-cli
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
isolate_home "$ws/home"
export AGENT_GUARD_SESSION=bench

noop="$ws.hook-ls.json"
edit="$ws.hook-edit.json"
hook_payload "$ws" Bash '{"command":"ls -la","description":"list"}' > "$noop"
hook_payload "$ws" Edit "{\"file_path\":\"$ws/src/big.txt\",\"old_string\":\"a\",\"new_string\":\"b\"}" > "$edit"
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

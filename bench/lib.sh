# Shell functions shared by the benchmarks in bench/, sourced first by each script
# (`. "$(dirname "$0")/lib.sh"`): it turns on strict mode and changes into the repository's
# root, where the scripts run. Not a benchmark itself.
set -euo pipefail
cd "$(dirname "$0")/.."

# Parses the command line into variables and exits 2 with the usage line on anything else.
#
#   options USAGE --runs=runs --export=export_md [--no-watch=no_watch!] -- "$@"
#
# `--runs N` sets `runs` to N; an option whose variable ends in `!` takes no value and sets
# the variable to 1. Defaults are whatever the variables held before.
options() {
  local _usage="$1"; shift
  local -A _vars=()
  while [ "$1" != -- ]; do _vars["${1%%=*}"]="${1#*=}"; shift; done
  shift
  while [ $# -gt 0 ]; do
    local _var="${_vars[$1]:-}"
    if [ -n "$_var" ] && [ "${_var%!}" != "$_var" ]; then
      printf -v "${_var%!}" '%s' 1; shift
    elif [ -n "$_var" ] && [ $# -ge 2 ]; then
      printf -v "$_var" '%s' "$2"; shift 2
    else
      echo "usage: $_usage" >&2; exit 2
    fi
  done
}

# Parses the usual command line, `--runs N` (default $1) and `--export FILE.md`, into `runs`
# and `export_md`.
runs_and_export() {
  runs="$1"
  export_md=""
  shift
  options "bench/$(basename "$0") [--runs N] [--export FILE.md]" --runs=runs --export=export_md -- "$@"
}

# Exits 1 unless hyperfine is installed.
need_hyperfine() {
  command -v hyperfine >/dev/null || { echo "error: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }
}

# Exits 1 unless hyperfine is installed, then builds the release binaries (cargo build
# arguments "$@") and sets `target` to cargo's target directory.
release_build() {
  need_hyperfine
  cargo build --release -q "$@"
  target=$(target_dir)
}

# Prints cargo's target directory (where the release binaries are).
target_dir() {
  cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])'
}

# Gives the benchmark a HOME of its own in $1 and clears the guard's environment, so no user
# configuration or quarantine takes part.
isolate_home() {
  export HOME="$1"
  mkdir -p "$HOME"
  unset AGENT_GUARD_DIALECT AGENT_GUARD_WORKSPACE AGENT_GUARD_TRASH
}

# Makes git ignore the user's and the system's configuration and commit as `bench`.
isolate_git() {
  export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@agent-guard.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@agent-guard.invalid
}

# Lets every index entry of the repository $1 age past git's racy window, then refreshes the
# index once, so that neither git nor the guard must re-hash files that are unchanged.
settle_index() {
  sleep 1.1
  git -C "$1" update-index -q --refresh
}

# Writes the hyperfine --prepare script $1: each run gives the $3 files of the workspace $2
# that the Python expression $4 names (a path relative to the workspace, from `i`) new content.
modify_script() {
  cat > "$1" <<SH
#!/bin/sh
n=\$(date +%s%N)
python3 - "$2" "\$n" <<'PY'
import os, sys
ws, tag = sys.argv[1], sys.argv[2]
for i in range($3):
    with open(os.path.join(ws, $4), "w") as out:
        out.write(f"modified {tag} {i}\n")
PY
SH
  chmod +x "$1"
}

# Prints a Claude Code PreToolUse payload: cwd $1, tool $2, tool input (JSON) $3.
hook_payload() {
  printf '{"session_id":"bench","transcript_path":"/dev/null","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"toolu_bench"}' "$1" "$2" "$3"
}

# Writes 10,000 relocated one-file transactions straight into the quarantine of workspace $1,
# for the rows that read a long history; the originals were `$1/$2f<n>.txt`.
fake_history() {
  python3 - "$1" "${2:-}" <<'PY'
import json, os, sys
ws, prefix = sys.argv[1], sys.argv[2]
trash = os.path.join(ws, ".agent-trash")
os.makedirs(trash, exist_ok=True)
with open(os.path.join(trash, "manifest.jsonl"), "a") as manifest:
    for n in range(10000):
        txid = f"20260101-{n // 3600 % 24:02d}{n // 60 % 60:02d}{n % 60:02d}-{n:08x}"
        d = os.path.join(trash, txid)
        os.makedirs(d)
        with open(os.path.join(d, "f.txt"), "w") as f:
            f.write("x")
        ts = "2026-01-01T00:00:00Z"
        manifest.write(json.dumps({"type": "tx-start", "txid": txid, "strategy": "relocate", "meta": {"tool": "safe_delete"}, "workspace": ws, "ts": ts, "schema": 1}) + "\n")
        manifest.write(json.dumps({"type": "relocate", "txid": txid, "origin_path": os.path.join(ws, f"{prefix}f{n}.txt"), "trash_path": os.path.join(d, "f.txt"), "kind": "file", "ts": ts, "schema": 1}) + "\n")
PY
}

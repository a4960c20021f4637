#!/usr/bin/env bash
# Runs a scripted mock model server and an agent CLI in a private network namespace in
# which only loopback is up, so nothing the CLI does can leave the machine.
#
# usage: run-in-netns.sh MOCK_SCRIPT [MOCK_ARGS...] -- COMMAND [ARGS...]
#
#   MOCK_SCRIPT  a Python mock from this directory; it gets `--port $MOCK_PORT
#                --ready-file <file>` appended and must write the file once it listens.
#   COMMAND      the agent CLI; it runs after the mock is ready, with MOCK_PORT exported.
#
# Environment:
#   MOCK_PORT               the loopback port of the mock (default 48123; every run has
#                           its own namespace, so a fixed port cannot collide)
#   AGENT_GUARD_E2E_TIMEOUT seconds the COMMAND may run before it is killed (default 120)
#
# The exit status is COMMAND's (124 on timeout). The mock is stopped on every exit path.
set -euo pipefail

if [[ "${AGENT_GUARD_IN_NETNS:-}" != 1 ]]; then
  export AGENT_GUARD_IN_NETNS=1
  exec unshare --net -- "$0" "$@"
fi

ip link set lo up
if ip -o route get 1.1.1.1 >/dev/null 2>&1; then
  echo "run-in-netns: a route off the machine exists inside the namespace; refusing" >&2
  exit 90
fi

mock=("python3" "$1")
shift
while [[ $# -gt 0 && "$1" != "--" ]]; do
  mock+=("$1")
  shift
done
if [[ $# -lt 2 ]]; then
  echo "usage: run-in-netns.sh MOCK_SCRIPT [MOCK_ARGS...] -- COMMAND [ARGS...]" >&2
  exit 64
fi
shift

export MOCK_PORT="${MOCK_PORT:-48123}"
ready="$(mktemp -u "${TMPDIR:-/tmp}/mock-ready.XXXXXX")"
"${mock[@]}" --port "$MOCK_PORT" --ready-file "$ready" &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null || true; rm -f "$ready"' EXIT

for _ in $(seq 1 200); do
  [[ -s "$ready" ]] && break
  if ! kill -0 "$mock_pid" 2>/dev/null; then
    echo "run-in-netns: the mock exited before it was ready" >&2
    exit 91
  fi
  sleep 0.05
done
if [[ ! -s "$ready" ]]; then
  echo "run-in-netns: the mock was not ready after 10 s" >&2
  exit 92
fi

status=0
timeout --kill-after=5 "${AGENT_GUARD_E2E_TIMEOUT:-120}" "$@" </dev/null || status=$?
exit "$status"

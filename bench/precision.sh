#!/usr/bin/env bash
# Precision on real one-liners (issue 38): the share of lines the guard refuses, checkpoints
# or lets through, by decision and by reason code, judged by `check --json` in a small git
# workspace; with --run, every refused line is also run for real by bash inside bwrap (root
# file system read-only, no network, on a copy of the workspace) and those that changed
# nothing are listed: candidates for "refused, destroys nothing" (a line whose targets are not
# in the small workspace changes nothing there either, so the list is an upper bound to read).
#
#   bench/precision.sh [--corpus FILE] [--run] [--limit N] [--report FILE] [--verdicts FILE]
#
# The default corpus is NL2Bash's 12,607 command lines (tests/precision/nl2bash.cm, MIT,
# see tests/precision/nl2bash.LICENSE). Needs python3, and bwrap for --run
# (`apt-get install bubblewrap`). Builds the release binary first.
. "$(dirname "$0")/lib.sh"
corpus=tests/precision/nl2bash.cm
run=""
limit=0
report=""
verdicts=""
options "bench/precision.sh [--corpus FILE] [--run] [--limit N] [--report FILE] [--verdicts FILE]" \
  --corpus=corpus --run=run! --limit=limit --report=report --verdicts=verdicts -- "$@"
cargo build --release -q -p agent-guard-cli --bin agent-guard
guard="$(target_dir)/release/agent-guard"
args=(--guard "$guard" --corpus "$corpus" --limit "$limit")
[ -n "$run" ] && args+=(--run)
[ -n "$report" ] && args+=(--report "$report")
[ -n "$verdicts" ] && args+=(--verdicts "$verdicts")
exec python3 bench/precision.py "${args[@]}"

#!/usr/bin/env bash
# Whole-process benchmark of `check` (issue 2): a no-op command, `rm -rf build` and
# `git reset --hard`, each against a trivial Rust binary's start-up, in the same run; then
# `check --enforce -- 'rm -rf build'` (issue 17); then hook mode's no-op path (a Claude Code payload for `ls -la` on stdin) against the same
# trivial binary, fed the same stdin.
#
#   bench/check.sh [--runs N] [--export FILE.md] [--link static|dynamic]
#
# Needs hyperfine (`apt-get install hyperfine`). Builds the release binaries first.
#
# --link: how `check` is linked. `static` (the default on Linux with glibc, the README's
# Linux install): glibc linked in with `-C target-feature=+crt-static` and position-dependent
# (`-C relocation-model=static`: no self-relocation at start), built with an explicit --target
# so proc macros stay dynamic. `dynamic`: a plain `cargo build --release`
# (non-PIE on Linux, see crates/agent-guard-cli/build.rs). The floor is always the trivial
# binary as a plain `cargo build --release` makes it; with --link static its static twin is
# measured beside it, as the stricter floor.
. "$(dirname "$0")/lib.sh"
runs=300
export_md=""
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu) link=static ;;
  *) link=dynamic ;;
esac
options "bench/check.sh [--runs N] [--export FILE.md] [--link static|dynamic]" \
  --runs=runs --export=export_md --link=link -- "$@"
need_hyperfine
target=$(target_dir)
trivial="$target/release/trivial-rust"
floors=(-n 'trivial Rust binary' "$trivial")
case "$link" in
  dynamic)
    cargo build --release --locked -q -p agent-guard-cli -p agent-guard-bench
    check="$target/release/check"
    ;;
  static)
    cargo build --release --locked -q -p agent-guard-bench
    flags_var="CARGO_TARGET_$(echo "$host" | tr 'a-z-' 'A-Z_')_RUSTFLAGS"
    env "$flags_var=-C target-feature=+crt-static -C relocation-model=static" \
      cargo build --release --locked -q --target "$host" -p agent-guard-cli -p agent-guard-bench
    check="$target/$host/release/check"
    floors+=(-n 'trivial Rust binary (static)' "$target/$host/release/trivial-rust")
    ;;
  *) echo "error: --link is static or dynamic, not $link" >&2; exit 2 ;;
esac
echo "check: $check ($link)"

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
isolate_home "$ws/home"
# Warm the quarantine layout once so every measured run does the same work.
"$check" --cwd "$ws" -- 'rm -rf build' >/dev/null

args=(--warmup 20 --runs "$runs" -N --style basic)
[ -n "$export_md" ] && args+=(--export-markdown "$export_md")
hyperfine "${args[@]}" \
  "${floors[@]}" \
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
hook_payload "$ws" Bash '{"command":"ls -la","description":"list"}' > "$payload"
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

#!/usr/bin/env bash
# Installs the pinned agent harness CLIs used by the end-to-end tests
# (crates/agent-guard-cli/tests/harness/) into a prefix, from the npm registry.
#
# usage: scripts/install-harnesses.sh [PREFIX]
#
# PREFIX defaults to $AGENT_GUARD_HARNESS_PREFIX, else ~/.cache/agent-guard/harnesses. The
# install is skipped when the prefix already holds the pinned versions. On success the
# script prints the binary paths, one per line:
#   claude=<path>
#   codex=<path>
#   gemini=<path>
#   copilot=<path>
#   qwen=<path>
#   opencode=<path>
# The tests find them through the same AGENT_GUARD_HARNESS_PREFIX default, or through
# AGENT_GUARD_{CLAUDE,CODEX,GEMINI,COPILOT,QWEN,OPENCODE}_BIN.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.328
CODEX_VERSION=0.169.0
GEMINI_VERSION=0.61.0
COPILOT_VERSION=1.0.102
QWEN_VERSION=0.24.4
OPENCODE_VERSION=1.18.33

prefix="${1:-${AGENT_GUARD_HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-guard/harnesses}}"
bin="$prefix/node_modules/.bin"

# name, binary, the first line its `--version` prints
pins=(
  "claude|claude|$CLAUDE_CODE_VERSION (Claude Code)"
  "codex|codex|codex-cli $CODEX_VERSION"
  "gemini|gemini|$GEMINI_VERSION"
  "copilot|copilot|GitHub Copilot CLI $COPILOT_VERSION."
  "qwen|qwen|$QWEN_VERSION"
  "opencode|opencode|$OPENCODE_VERSION"
)

# Copilot CLI unpacks its application (~235 MB) into $XDG_CACHE_HOME/copilot on first start;
# the tests share this one cache instead of unpacking it into every scenario's home.
copilot_cache="$prefix/copilot-cache"

version_of() {
  if [[ "$1" == copilot ]]; then
    XDG_CACHE_HOME="$copilot_cache" "$bin/$1" --version 2>/dev/null | head -n 1
  else
    "$bin/$1" --version 2>/dev/null | head -n 1
  fi
}

installed() {
  local pin name binary want
  for pin in "${pins[@]}"; do
    IFS='|' read -r name binary want <<<"$pin"
    [[ -x "$bin/$binary" ]] || return 1
    [[ "$(version_of "$binary")" == "$want" ]] || return 1
  done
}

if ! command -v npm >/dev/null 2>&1; then
  echo "install-harnesses: npm is required (node >= 20)" >&2
  exit 1
fi

if installed; then
  echo "install-harnesses: $prefix already holds the pinned CLIs" >&2
else
  mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into an unrelated project.
  [[ -f "$prefix/package.json" ]] || echo '{"name": "agent-guard-harnesses", "private": true}' >"$prefix/package.json"
  # Claude Code's postinstall copies the native binary over bin/claude.exe; scripts must run.
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" \
    "@google/gemini-cli@$GEMINI_VERSION" "@github/copilot@$COPILOT_VERSION" \
    "@qwen-code/qwen-code@$QWEN_VERSION" "opencode-ai@$OPENCODE_VERSION" >&2
  # An npm that withholds install scripts leaves the placeholder in place: run the
  # postinstall by hand (it only links the platform package's binary; no download).
  if ! "$bin/claude" --version >/dev/null 2>&1; then
    (cd "$prefix/node_modules/@anthropic-ai/claude-code" && node install.cjs) >&2
  fi
  if ! installed; then
    echo "install-harnesses: after npm install, the binaries in $prefix do not report the pinned versions:" >&2
    for pin in "${pins[@]}"; do
      IFS='|' read -r name binary want <<<"$pin"
      echo "  $binary: want '$want', got '$(version_of "$binary" || true)'" >&2
    done
    exit 1
  fi
fi

for pin in "${pins[@]}"; do
  IFS='|' read -r name binary _ <<<"$pin"
  echo "$name=$bin/$binary"
done

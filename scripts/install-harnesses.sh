#!/usr/bin/env bash
# Installs the pinned agent harness CLIs used by the end-to-end tests
# (crates/agent-guard-cli/tests/harness.rs) into a prefix, from the npm registry.
#
# usage: scripts/install-harnesses.sh [PREFIX]
#
# PREFIX defaults to $AGENT_GUARD_HARNESS_PREFIX, else ~/.cache/agent-guard/harnesses. The
# install is skipped when the prefix already holds the pinned versions. On success the
# script prints the two binary paths, one per line:
#   claude=<path>
#   codex=<path>
# The tests find them through the same AGENT_GUARD_HARNESS_PREFIX default, or through
# AGENT_GUARD_CLAUDE_BIN / AGENT_GUARD_CODEX_BIN.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.328
CODEX_VERSION=0.169.0

prefix="${1:-${AGENT_GUARD_HARNESS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-guard/harnesses}}"
claude="$prefix/node_modules/.bin/claude"
codex="$prefix/node_modules/.bin/codex"

installed() {
  [[ -x "$claude" && -x "$codex" ]] || return 1
  [[ "$("$claude" --version 2>/dev/null)" == "$CLAUDE_CODE_VERSION "* ]] || return 1
  [[ "$("$codex" --version 2>/dev/null)" == "codex-cli $CODEX_VERSION" ]] || return 1
}

if ! command -v npm >/dev/null 2>&1; then
  echo "install-harnesses: npm is required (node >= 20)" >&2
  exit 1
fi

if installed; then
  echo "install-harnesses: $prefix already holds claude-code $CLAUDE_CODE_VERSION and codex $CODEX_VERSION" >&2
else
  mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into an unrelated project.
  [[ -f "$prefix/package.json" ]] || echo '{"name": "agent-guard-harnesses", "private": true}' >"$prefix/package.json"
  # Claude Code's postinstall copies the native binary over bin/claude.exe; scripts must run.
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" >&2
  # An npm that withholds install scripts leaves the placeholder in place: run the
  # postinstall by hand (it only links the platform package's binary; no download).
  if ! "$claude" --version >/dev/null 2>&1; then
    (cd "$prefix/node_modules/@anthropic-ai/claude-code" && node install.cjs) >&2
  fi
  if ! installed; then
    echo "install-harnesses: after npm install, the binaries in $prefix do not report the pinned versions:" >&2
    "$claude" --version >&2 || true
    "$codex" --version >&2 || true
    exit 1
  fi
fi

echo "claude=$claude"
echo "codex=$codex"

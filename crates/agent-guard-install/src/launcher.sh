#!/bin/sh
# agent-guard hook launcher, written by `agent-guard install` and checked by `agent-guard doctor`
# (which fails it when it differs from what install writes: edit nothing here).
#
# Usage: agent-guard-hook --timeout SECONDS GUARD check --enforce --harness NAME
#
# Runs GUARD with the harness's payload on stdin and passes its reply through when it
# answers (exit 0, 2 or 3). When it cannot -- the program is missing or cannot be executed,
# it exits otherwise (1), it is killed by a signal (a crash), or it has not answered after
# SECONDS -- the launcher prints the harness's own deny (HOOK_GUARD_UNAVAILABLE) instead, so
# the tool call does not run. Most harnesses run the tool when a hook fails or times out.

# The guard's stderr and the launcher's own messages go to fd 4; the shell's reports of a
# child killed by a signal ("Segmentation fault") go nowhere: Codex and Windsurf read stderr
# as the reason of a block.
exec 4>&2 2>/dev/null
# A guard that crashes leaves no core file behind: it would land in the workspace (the hook's
# working directory), where the agent sees it.
ulimit -c 0

secs=25
if [ "$#" -ge 2 ] && [ "$1" = --timeout ]; then
  secs=$2
  shift 2
fi
# Digits only, and not 0 (which `timeout` reads as "no limit").
case $secs in
'' | *[!0-9]*) secs=25 ;;
esac
if [ "$secs" -eq 0 ]; then
  secs=25
fi
# The tools the launcher runs are the system's, looked up in its directories, never a
# program of the same name earlier in PATH (a workspace's `node_modules/.bin/timeout` that
# exits 0 would make every call an allow). PATH itself is left as it is: the guard reads it.
system_tool() {
  for dir in /usr/bin /bin /usr/local/bin /opt/homebrew/bin; do
    if [ -x "$dir/$1" ]; then
      printf '%s' "$dir/$1"
      return 0
    fi
  done
  return 1
}
timeout_tool=$(system_tool timeout) || timeout_tool=
sleep_tool=$(system_tool sleep) || sleep_tool=/bin/sleep
guard=${1-}
if [ "$#" -gt 0 ]; then
  shift
fi
harness=
previous=
for argument in "$@"; do
  if [ "$previous" = --harness ]; then
    harness=$argument
  fi
  previous=$argument
done

# Prints the deny of $harness for a failure described by $1 (fixed words and numbers only:
# the text goes into JSON unescaped), and exits as that harness reads a block.
deny() {
  reason="[agent-guard] BLOCKED [HOOK_GUARD_UNAVAILABLE] agent-guard could not judge this tool call: $1. | The command was not run (fail-closed). Ask the user to run \`agent-guard doctor\`. Do NOT circumvent the guard."
  case $harness in
  codex | windsurf)
    printf '%s\n' "$reason" >&4
    exit 2
    ;;
  claude-code | qwen-code)
    printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"%s"}}\n' "$reason"
    ;;
  gemini)
    printf '{"decision":"deny","reason":"%s"}\n' "$reason"
    ;;
  copilot)
    printf '{"permissionDecision":"deny","permissionDecisionReason":"%s"}\n' "$reason"
    ;;
  cursor)
    printf '{"agent_message":"%s","continue":true,"permission":"deny","user_message":"%s"}\n' "$reason" "$reason"
    ;;
  cline)
    printf '{"cancel":true,"contextModification":"","errorMessage":"%s"}\n' "$reason"
    ;;
  opencode)
    printf '{"decision":"deny","reason":"%s"}\n' "$reason"
    printf '%s\n' "$reason" >&4
    exit 2
    ;;
  *)
    printf '{"code":"HOOK_GUARD_UNAVAILABLE","command":"<redacted>","decision":"BLOCK","enforced":true,"exit":2,"explanation":"%s","message":null,"reasons":[]}\n' "$reason"
    printf '%s\n' "$reason" >&4
    exit 2
    ;;
  esac
  printf '%s\n' "$reason" >&4
  exit 0
}

# Runs the guard when coreutils' `timeout` is missing: in the background, killed after $secs
# seconds by a watchdog that checks once a second. Only the guard itself is killed, not
# programs it started (`timeout` kills its whole process group).
watched() {
  exec 3<&0
  "$guard" "$@" <&3 3<&- 2>&4 4>&- &
  pid=$!
  (
    waited=0
    while [ "$waited" -lt "$secs" ]; do
      "$sleep_tool" 1
      kill -0 "$pid" 2>/dev/null || exit 0
      waited=$((waited + 1))
    done
    kill -KILL "$pid" 2>/dev/null
  ) </dev/null >/dev/null 2>&1 &
  wait "$pid"
}

# A path is checked here; a bare name is looked up on PATH below (127 when it is not found).
case $guard in
'') deny "the hook names no program" ;;
*/*)
  if [ ! -f "$guard" ] || [ ! -x "$guard" ]; then
    deny "its program is missing or not executable"
  fi
  ;;
esac
if [ -n "$timeout_tool" ]; then
  reply=$("$timeout_tool" -k 2 "$secs" "$guard" "$@" 2>&4 4>&-)
  status=$?
else
  reply=$(watched "$@")
  status=$?
fi
case $status in
0 | 2 | 3)
  if [ -n "$reply" ]; then
    printf '%s\n' "$reply"
  fi
  exit "$status"
  ;;
124) deny "it did not answer within $secs s" ;;
126) deny "its program could not be executed" ;;
127) deny "its program was not found" ;;
137) deny "it was killed (signal 9), or did not stop after $secs s" ;;
esac
if [ "$status" -gt 128 ]; then
  deny "it was killed by signal $((status - 128))"
fi
deny "it exited with status $status"

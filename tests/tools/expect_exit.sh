#!/bin/sh
# Runs a command and passes only if it exits with the expected status and
# its output (stdout and stderr) matches every given pattern.
# Usage: expect_exit.sh <status> <pattern>... -- <command> [args...]
set -u
want=$1
shift
patterns=""
while [ "$1" != "--" ]; do
  patterns="$patterns
$1"
  shift
done
shift
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then
  echo "expect_exit: exit status $got, expected $want" >&2
  exit 1
fi
echo "$patterns" | while IFS= read -r p; do
  [ -z "$p" ] && continue
  if ! printf '%s\n' "$out" | grep -Eq -- "$p"; then
    echo "expect_exit: output does not match '$p'" >&2
    exit 1
  fi
done

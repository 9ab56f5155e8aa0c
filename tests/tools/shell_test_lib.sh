# Sourced by the shell tests under tests/tools: a scratch directory that is
# removed on exit, fail() to count a failure, and finish() to end the test
# with the number of failures as its exit status.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
finish() { # test name
  [ "$failures" -eq 0 ] && echo "$1: all passed"
  exit "$failures"
}

# Sourced by the shell tests under tests/tools: a scratch directory that is
# removed on exit, fail() to count a failure, expect_in() to check an
# output, and finish() to end the test with the number of failures as its
# exit status.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
expect_in() { # what output want...: fails for each `want` not in `output`
  what=$1 out=$2
  shift 2
  for want in "$@"; do
    case $out in *"$want"*) ;; *) fail "$what: output lacks '$want': $out" ;; esac
  done
}
finish() { # test name
  [ "$failures" -eq 0 ] && echo "$1: all passed"
  exit "$failures"
}

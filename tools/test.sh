#!/bin/sh
# The test command (README, CI): installs what is missing, builds, and runs
# every test under ctest, in phases, each in its own build directory:
#   main      the library, tools and tests (RelWithDebInfo): unit tests, the
#             no-false-negatives matrix, crash recovery, fpr_check baselines
#   fuzz      libFuzzer targets (clang, ASan+UBSan): each replays its
#             checked-in corpus, then a fixed count of inputs at a fixed
#             seed (fuzz/run_fuzzer.sh); build_tools/fuzz.sh explores with fresh
#             seeds
#   asan      the test suite under ASan+UBSan      (MONKEY_TEST_SANITIZERS)
#   tsan      the test suite under TSan            (MONKEY_TEST_SANITIZERS)
# Usage: tools/test.sh [build dir, default build]
# Environment: MONKEY_TEST_SANITIZERS="asan tsan" (default "", see
# docs/testing.md for why and for their results).
# Every phase runs even if an earlier one failed; the exit status says
# whether all passed, and the last lines give each phase's time.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
sanitizers=${MONKEY_TEST_SANITIZERS:-}
jobs=$(nproc)
summary=""
failed=0

build_tools/install_deps.sh || exit 1

# phase NAME BUILD_DIR CTEST_ARGS -- CMAKE_ARGS...
phase() {
  name=$1 dir=$2 ctest_args=$3
  shift 4
  start=$(date +%s)
  echo "=== tools/test.sh: phase $name in $dir" >&2
  if cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" &&
    cmake --build "$dir" -j"$jobs" &&
    ctest --test-dir "$dir" --output-on-failure -j"$jobs" $ctest_args; then
    result=passed
  else
    result=FAILED
    failed=1
  fi
  summary="$summary
tools/test.sh: $name $result in $(($(date +%s) - start)) s"
}

all_start=$(date +%s)
phase main "$build" "" --
phase fuzz "$build/fuzz" "" -- -DCMAKE_CXX_COMPILER=clang++ \
  -DMONKEY_BUILD_FUZZERS=ON -DMONKEY_BUILD_TESTS=OFF -DMONKEY_BUILD_TOOLS=OFF \
  -DMONKEY_SANITIZE=address,undefined
for s in $sanitizers; do
  case $s in
    asan) phase asan "$build/asan" "" -- -DMONKEY_SANITIZE=address,undefined ;;
    tsan) phase tsan "$build/tsan" "" -- -DMONKEY_SANITIZE=thread ;;
    *) echo "tools/test.sh: unknown sanitizer '$s' (asan, tsan)" >&2
       failed=1 ;;
  esac
done
echo "$summary"
echo "tools/test.sh: total $(($(date +%s) - all_start)) s on $jobs cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit $failed

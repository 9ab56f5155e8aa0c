#!/bin/sh
# Fuzzing with fresh seeds, the opt-in exploration: tools/test.sh and CI run
# each fuzzer deterministically (fuzz/run_fuzzer.sh: the checked-in corpus,
# then a fixed number of inputs at a fixed seed); this looks further. Each
# fuzzer runs MINUTES with a seed of libFuzzer's choosing (printed), from
# its checked-in corpus plus what earlier explorations kept in
# BUILD/explore/<fuzzer>/. A failing input stops that fuzzer; it is kept in
# BUILD/findings/<fuzzer>/ and the report names the command that reproduces
# it and the one that adds it to the corpus once fixed. Each fuzzer's final
# line gives its runs and coverage (libFuzzer's -print_final_stats).
#
# Usage: build_tools/fuzz.sh [--minutes=N] [--build=DIR] [FUZZER...]
#   --minutes=N  minutes per fuzzer (default 10)
#   --build=DIR  the fuzz build (default build/fuzz; configured and built
#                here as tools/test.sh's fuzz phase does)
#   FUZZER       planner_fuzzer, options_string_fuzzer, live_plan_fuzzer
#                (default all three, one after the other)
# Exit status: 0 when no fuzzer found anything, 1 when one did, 2 on usage.
set -eu
cd "$(dirname "$0")/.."
minutes=10 build=build/fuzz fuzzers=""
for arg in "$@"; do
  case $arg in
    --minutes=*) minutes=${arg#--minutes=} ;;
    --build=*) build=${arg#--build=} ;;
    -h | --help)
      sed -n '/^# Usage:/,/^# Exit/p' "$0" | sed 's/^# \{0,1\}//' >&2
      exit 2 ;;
    -*) echo "fuzz.sh: unknown flag $arg (--minutes=N, --build=DIR)" >&2
        exit 2 ;;
    *) fuzzers="$fuzzers $arg" ;;
  esac
done
case $minutes in
  '' | *[!0-9]*) echo "fuzz.sh: --minutes needs a whole number" >&2; exit 2 ;;
esac
[ -n "$fuzzers" ] ||
  fuzzers="planner_fuzzer options_string_fuzzer live_plan_fuzzer"

build_tools/install_deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DMONKEY_BUILD_FUZZERS=ON \
  -DMONKEY_BUILD_TESTS=OFF -DMONKEY_BUILD_TOOLS=OFF \
  -DMONKEY_SANITIZE=address,undefined >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

found=0 report=""
for name in $fuzzers; do
  fuzzer=$build/fuzz/$name
  [ -x "$fuzzer" ] || { echo "fuzz.sh: no fuzzer $name in $build" >&2; exit 2; }
  explore=$build/explore/$name findings=$build/findings/$name
  mkdir -p "$explore" "$findings"
  log=$build/explore/$name.log
  echo "fuzz.sh: $name for $minutes min, log $log" >&2
  status=0
  "$fuzzer" -max_total_time=$((minutes * 60)) -timeout=600 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
    "$explore" "fuzz/corpus/$name" >"$log" 2>&1 || status=$?
  seed=$(sed -n 's/^INFO: Seed: //p' "$log" | head -n 1)
  stats=$(grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)|^stat::(number_of_executed_units|new_units_added)' \
    "$log" | tr -s '\t ' ' ' | paste -sd';' -)
  report="$report
$name: seed $seed, $minutes min: $stats"
  if [ "$status" -ne 0 ]; then
    found=1
    grep -m1 -E "^$name:|ERROR:" "$log" >&2 || true
    for f in "$findings"/*; do
      [ -f "$f" ] || continue
      report="$report
  finding $f
    reproduce: $fuzzer $f
    once fixed: cp $f fuzz/corpus/$name/finding_<what> (and a test in
    tests/reliability/fuzz_findings_test.cc)"
    done
  fi
done
echo "$report"
exit $found

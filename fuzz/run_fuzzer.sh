#!/bin/sh
# ctest's fuzz test, the same on every machine: replays every checked-in
# input of CORPUS, then runs libFuzzer for RUNS inputs in all at a fixed
# -seed=SEED, mutating from them. What makes it repeatable:
#   - the inputs go in by name (-seed_inputs, sorted), not as a directory,
#     whose order is the file system's;
#   - the inputs it adds go to a fresh directory, removed afterwards, so no
#     run starts from what an earlier one found;
#   - a count of runs, not a time: a slower machine runs the same inputs;
#   - no address randomization (setarch -R, below);
#   - a per-input timeout far above the slowest input (2.3 s under ASan, a
#     70-level shape checked against 40 budget plans), which a machine
#     loaded 10 times over still meets.
# A failing input is kept as ARTIFACTS/crash-<sha1>, with the command that
# reproduces it; build_tools/fuzz.sh explores with fresh seeds.
# Usage: run_fuzzer.sh FUZZER CORPUS RUNS SEED ARTIFACTS
set -eu
[ $# -eq 5 ] || { sed -n '/^# Usage:/s/^# //p' "$0" >&2; exit 2; }
fuzzer=$1 corpus=$2 runs=$3 seed=$4 artifacts=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/new" "$artifacts"
# Names only: the corpus' files never contain a comma or a newline.
(cd "$corpus" && LC_ALL=C ls) | sed "s|^|$corpus/|" | paste -sd, - \
  >"$work/seeds"
# libFuzzer learns the values our code compares, pointers among them, and
# feeds them to its mutations: with address randomization two runs of one
# build diverged after a few thousand inputs, and without it two builds in
# different directories still did (their heaps differ). So no compared
# values here (-use_cmp=0; build_tools/fuzz.sh keeps them) and no randomization.
no_aslr=""
if setarch "$(uname -m)" -R true 2>/dev/null; then
  no_aslr="setarch $(uname -m) -R"
fi
status=0
$no_aslr "$fuzzer" -seed="$seed" -runs="$runs" -seed_inputs=@"$work/seeds" \
  -timeout=600 -rss_limit_mb=2048 -reload=0 -use_cmp=0 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$work/new" || status=$?
if [ "$status" -ne 0 ]; then
  for f in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* \
    "$artifacts"/oom-*; do
    [ -f "$f" ] || continue
    echo "run_fuzzer: reproduce with: $fuzzer $f" >&2
    echo "run_fuzzer: once fixed, keep it: cp $f $corpus/finding_<what>" >&2
  done
fi
exit "$status"

#!/bin/sh
# The main job: builds the library and the patched db_bench, then runs the
# same workload against several filter configurations (none, bloomfilter:10,
# bloomfilter:10 with optimize_filters_for_hits, ribbonfilter:10, monkey:10,
# monkey:7) and prints them side by side; results go to results/<timestamp>/.
#
#   tools/compare.sh [--preset=default|tdstore|scale|deep|memlimit|universal]
#                    [--config=SPEC ...] [--num=N] [--reads=N] [--threads=N]
#                    [--keep_db] [--release[=VERSION]]
#                    [--also_db_bench=LABEL=PATH]  (another build, side by side)
#   tools/compare.sh --help
#   tools/compare.sh --preset=writetax [--release[=VERSION]] [--quick]
#                    [--rounds=N] [--seconds=S] [--workloads=...]
#                    [--also_db_bench=LABEL=PATH]
#     the write-tax benchmark instead (bench/writetax.py --help): fillrandom,
#     fillseq, fillrandom with 4 threads and overwrite with 10% deletes, for
#     bloomfilter:10, monkey:10 (Install) and monkey:10 with shape=static.
#     Without --release its db_bench is built in build-release
#     (CMAKE_BUILD_TYPE=Release; Debian's librocksdb keeps its assertions).
#   tools/compare.sh --preset=universal
#     universal compaction (--compaction_style=1) at 11 sorted runs at rest,
#     bloomfilter:10, monkey:10 and monkey:7 by false positives per
#     absent-key lookup, against the advisor's optimum for each tree
#     (build/monkey_plan, built here; bench/comparison/specs.py has why the
#     settings).
#
# --release runs a Release db_bench instead of the one built against
# Debian's RocksDB (which has assertions on): build_tools/build_rocksdb_fork.sh
# VERSION (default 9.11.2, from Debian's sid source; 10.x and 11.x need
# ROCKSDB_GIT, see that script), about 30 minutes the first time on 2 cores.
# Throughput figures (the memlimit preset's) belong to such a build.
#
# SPEC is 'LABEL=FILTER_URI [db_bench flags]' or 'FILTER_URI', for example
#   --config='hits=bloomfilter:10 --optimize_filters_for_hits=true'
#   --config='id=monkey;bits_per_key=8;last_level_filter=false'
set -eu
cd "$(dirname "$0")/.."
release=
writetax=
universal=
for arg do
  shift
  case "$arg" in
    --release) release=9.11.2 ;;
    --release=*) release=${arg#--release=} ;;
    --preset=writetax) writetax=1 ;;
    --preset=universal) universal=1; set -- "$@" "$arg" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
build_tools/install_deps.sh
if [ -n "$release" ]; then
  db_bench=$(build_tools/build_rocksdb_fork.sh "$release" | tail -n 1)
elif [ -n "$writetax" ]; then
  # Throughput wants optimised code: our library in Release (-O3; NDEBUG as
  # the installed RocksDB has it, see MONKEY_WITH_NDEBUG).
  [ -f build-release/CMakeCache.txt ] ||
    cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release \
      -DMONKEY_BUILD_TESTS=OFF >/dev/null
  db_bench=$(build_tools/build_db_bench.sh build-release | tail -n 1)
else
  db_bench=$(build_tools/build_db_bench.sh build | tail -n 1)
fi
[ -x "$db_bench" ] || {
  echo "compare.sh: building db_bench failed (see above)" >&2
  exit 1
}
if [ -n "$writetax" ]; then
  exec /usr/bin/python3 bench/writetax.py --db_bench="$db_bench" "$@"
fi
if [ -n "$universal" ]; then
  # The advisor, for the model's optimum on each DB at rest.
  [ -f build/CMakeCache.txt ] ||
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$(nproc)" --target monkey_plan >/dev/null || {
    echo "compare.sh: building monkey_plan failed: cmake --build build" \
      "--target monkey_plan" >&2
    exit 1
  }
  set -- --monkey_plan=build/monkey_plan "$@"
fi
exec /usr/bin/python3 bench/compare.py --db_bench="$db_bench" "$@"

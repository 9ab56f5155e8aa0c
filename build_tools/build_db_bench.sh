#!/bin/sh
# Builds db_bench of the installed RocksDB (Debian's librocksdb-dev) with our
# patch series (db_bench_patches/: --filter_uri, the per-level filter report,
# insertunique; build_tools/apply_db_bench_patches.sh picks the files for the
# version) and our library, in about a minute. The binary's path is the last
# line of output.
#
#   build_tools/build_db_bench.sh [OUTDIR]      (default: build)
#   ROCKSDB_SRC=path build_tools/build_db_bench.sh   to use a source tree at hand
#
# The source must be the installed library's version: by default it comes
# from Debian's source packages (build_tools/fetch_rocksdb_source.sh). db_bench is
# compiled with the library's NDEBUG setting (MONKEY_WITH_NDEBUG; Debian
# builds RocksDB without NDEBUG): some RocksDB classes change layout with it.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)

die() {
  echo "build_db_bench: $*" >&2
  exit 1
}

out=${1:-build}
build_tools/install_deps.sh
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(dpkg-query -W -f='${Version}' librocksdb-dev)
upstream=${version%%-*}
upstream=${upstream#*:}

src=${ROCKSDB_SRC:-}
if [ -z "$src" ]; then
  src=$(build_tools/fetch_rocksdb_source.sh "$version" "$out/rocksdb-source" |
    tail -n 1)
fi
[ -f "$src/include/rocksdb/version.h" ] || die "no RocksDB source in '$src'"
src=$(cd "$src" && pwd)
src_version=$(awk '/^#define ROCKSDB_(MAJOR|MINOR|PATCH) / { v = v sep $3; sep = "." }
  END { print v }' "$src/include/rocksdb/version.h")
[ "$src_version" = "$upstream" ] ||
  die "$src is RocksDB $src_version, the installed library is $upstream"

# Our library, with the build's NDEBUG setting.
if [ ! -f "$out/CMakeCache.txt" ]; then
  cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$out" -j"$(nproc)" --target monkeyfilter >/dev/null ||
  die "building libmonkeyfilter failed: cmake --build $out --target monkeyfilter"
ndebug=""
grep -q '^MONKEY_WITH_NDEBUG:BOOL=ON' "$out/CMakeCache.txt" && ndebug=-DNDEBUG

# A fresh copy of tools/ with the series applied: the patches touch only it.
work=$out/db_bench-src
rm -rf "$work"
mkdir -p "$work"
cp -R "$src/tools" "$work/tools"
build_tools/apply_db_bench_patches.sh "$src_version" "$work" ||
  die "the db_bench patches do not apply to $src (RocksDB $src_version); see above"

# Our headers are included as "monkey/...": a folder where monkey is this
# repository, as in a RocksDB tree's plugin/ (see CMakeLists.txt).
mkdir -p "$work/source_root"
ln -sfn "$repo" "$work/source_root/monkey"

# Debian's CMake build defines these on Linux (WITH_* compression ON).
cxx=${CXX:-g++}
# The C++ standard RocksDB's CMake builds that version with: 20 from 10.7 on.
std=c++17
[ "$(printf '10.7\n%s\n' "$src_version" | sort -V | head -n 1)" = 10.7 ] &&
  std=c++20
flags="-std=$std -O2 -fno-omit-frame-pointer -pthread $ndebug
  -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DOS_LINUX -DGFLAGS=1
  -DSNAPPY -DZLIB -DBZIP2 -DLZ4 -DZSTD -DROCKSDB_FALLOCATE_PRESENT
  -DROCKSDB_RANGESYNC_PRESENT -DROCKSDB_PTHREAD_ADAPTIVE_MUTEX
  -DROCKSDB_MALLOC_USABLE_SIZE -DROCKSDB_SCHED_GETCPU_PRESENT
  -DROCKSDB_AUXV_GETAUXVAL_PRESENT
  -I$work -I$src -I$src/include -I$repo/include -I$work/source_root"
echo "build_db_bench: compiling db_bench ($cxx, ${ndebug:-assertions on})" >&2
# The big file in the background, the two small ones meanwhile: two
# compilers at a time.
# shellcheck disable=SC2086
nice $cxx $flags -c "$work/tools/db_bench_tool.cc" -o "$work/db_bench_tool.o" &
big=$!
failed=0
for f in db_bench simulated_hybrid_file_system; do
  # shellcheck disable=SC2086
  nice $cxx $flags -c "$work/tools/$f.cc" -o "$work/$f.o" || failed=1
done
wait "$big" || failed=1
[ "$failed" -eq 0 ] || die "compiling db_bench failed (see above)"
# shellcheck disable=SC2086
$cxx -pthread -o "$out/db_bench" "$work/db_bench.o" "$work/db_bench_tool.o" \
  "$work/simulated_hybrid_file_system.o" "$out/libmonkeyfilter.a" \
  -lrocksdb -lgflags -lsnappy -lz -lbz2 -llz4 -lzstd -ldl ||
  die "linking db_bench failed (see above)"
echo "$out/db_bench"

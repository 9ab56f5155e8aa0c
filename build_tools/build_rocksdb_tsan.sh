#!/bin/sh
# Builds the installed RocksDB's version (Debian's librocksdb-dev) from
# Debian's source with ThreadSanitizer, into OUTDIR/build, for a sound TSan
# run of our tests: with Debian's uninstrumented librocksdb, TSan misses the
# synchronization inside RocksDB and reports races that are not there (see
# docs/testing.md). Same options as Debian's package, no NDEBUG (Debian's
# setting, which our code must match), only the shared library.
#
#   build_tools/build_rocksdb_tsan.sh [OUTDIR]      (default: build/rocksdb-tsan)
#   ROCKSDB_SRC=path build_tools/build_rocksdb_tsan.sh   to use a source tree at hand
#
# The last line of output is the cmake arguments that use it:
#   cmake -S . -B build/tsan -DMONKEY_SANITIZE=thread <that line>
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/rocksdb-tsan}
build_tools/install_deps.sh
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-query -W -f='${Version}' librocksdb-dev)
src=${ROCKSDB_SRC:-}
if [ -z "$src" ]; then
  src=$(build_tools/fetch_rocksdb_source.sh "$version" "$out/source" | tail -n 1)
fi
[ -f "$src/CMakeLists.txt" ] || {
  echo "build_rocksdb_tsan: no RocksDB source in '$src'" >&2
  exit 1
}
# Debian's configure options (debian/rules), TSan on, tools and tests off.
cmake -S "$src" -B "$out/build" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="-O2 -g1" -DCMAKE_CXX_FLAGS="-O2 -g1" \
  -DWITH_TSAN=ON -DWITH_BZ2=ON -DWITH_LZ4=ON -DWITH_ZLIB=ON -DWITH_ZSTD=ON \
  -DWITH_SNAPPY=ON -DROCKSDB_BUILD_SHARED=ON -DWITH_GFLAGS=OFF \
  -DWITH_BENCHMARK_TOOLS=OFF -DWITH_CORE_TOOLS=OFF -DWITH_TOOLS=OFF \
  -DWITH_TESTS=OFF -DPORTABLE=ON -DFAIL_ON_WARNINGS=OFF >"$out/configure.log"
cmake --build "$out/build" -j"$(nproc)" --target rocksdb-shared
src=$(cd "$src" && pwd)
echo "-DMONKEY_ROCKSDB_LIBRARY=$out/build/librocksdb.so" \
  "-DMONKEY_ROCKSDB_INCLUDE_DIR=$src/include"

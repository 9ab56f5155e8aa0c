#!/bin/sh
# Installs, from Debian's packages, whatever the build, tools and tests need
# and the machine lacks. Safe to run again: it does nothing when all is there.
set -eu
packages="cmake make g++ pkg-config librocksdb-dev libgflags-dev libgtest-dev
  nlohmann-json3-dev"
# db_bench from Debian's RocksDB source, and the comparison runner.
packages="$packages dpkg-dev patch python3 gnuplot-nox"
# The fuzzers: clang, with libFuzzer and clang's sanitizer runtimes.
packages="$packages clang libclang-rt-14-dev"
# Debian's stock db_bench, for the LD_PRELOAD drop-in's test.
packages="$packages rocksdb-tools"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install_deps: installing$missing" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
  --no-install-recommends $missing

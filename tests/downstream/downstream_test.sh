#!/bin/sh
# Installs the built library into a temporary prefix, then builds and runs a
# separate CMake project that uses find_package(MonkeyFilter).
# Usage: downstream_test.sh <build dir> <source dir of this test>
set -eu
build=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/downstream"

#!/bin/sh
# The test command (README, CI): installs what is missing, builds, and runs
# every test under ctest. Usage: tools/test.sh [build dir, default build]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
tools/install_deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

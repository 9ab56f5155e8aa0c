#!/bin/sh
# The main job. Until the db_bench comparison runner lands, it builds the
# library and prints Monkey's plan next to uniform bits per key for the
# budgets and tree depths that matter (10 and 7 bits/key, T=10, 4-7 levels).
set -eu
cd "$(dirname "$0")/.."
tools/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target monkey_plan
for bits in 10 7; do
  for levels in 4 5 6 7; do
    build/monkey_plan --bits_per_key=$bits --num_levels=$levels
    echo
  done
done

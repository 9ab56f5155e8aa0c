#!/bin/sh
# The write tax in instructions, which do not move with the machine's load
# as ops/s do on a shared VM: each configuration once under callgrind
# (every instruction of every thread), on the write-tax preset's tree flags
# (bench/comparison/writetax.py), fillseq with 200,000 keys and fillrandom
# with 60,000 (callgrind runs about 50x slower). Summarized per component
# by bench/callgrind_summary.py; the profiles stay in OUTDIR.
#
#   bench/writetax_callgrind.sh OUTDIR DB_BENCH [BASE_DB_BENCH]
#
# DB_BENCH runs bloomfilter:10, monkey:10 (Install's listener) and
# monkey:10;shape=static (no listener: what the allocation itself costs,
# in filters of other sizes); BASE_DB_BENCH, another build of the library
# (build_tools/build_db_bench.sh in a worktree), monkey:10.
set -eu
[ $# -ge 2 ] || {
  sed -n '2,15p' "$0" >&2
  exit 2
}
out=$1
db_bench=$2
base=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind >/dev/null || {
  echo "writetax_callgrind: valgrind not found (apt-get install valgrind)" >&2
  exit 1
}
mkdir -p "$out"
flags="--key_size=16 --value_size=100 --write_buffer_size=131072 \
--max_bytes_for_level_base=524288 --target_file_size_base=65536 \
--max_bytes_for_level_multiplier=10 --max_background_jobs=2 \
--compression_type=none --level_compaction_dynamic_level_bytes=true \
--soft_pending_compaction_bytes_limit=4194304 \
--hard_pending_compaction_bytes_limit=16777216 \
--level0_slowdown_writes_trigger=8 --level0_stop_writes_trigger=16 \
--level0_file_num_compaction_trigger=6 --statistics --histogram=0 \
--stats_dump_period_sec=0 --threads=1 --seed=1"
db_dir=/dev/shm
[ -w "$db_dir" ] || db_dir=$out
run() { # NAME DB_BENCH WORKLOAD NUM FILTER_URI
  db=$db_dir/writetax_callgrind_$$_$1
  rm -rf "$db"
  echo "writetax_callgrind: $1 ($3, $4 keys, $5)"
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --callgrind-out-file="$out/$1.out" "$2" \
    --db="$db" $flags --benchmarks="$3",flush,waitforcompaction \
    --num="$4" --filter_uri="$5" >"$out/$1.log" 2>&1
  rm -rf "$db"
}
for workload in fillseq:200000 fillrandom:60000; do
  name=${workload%%:*}
  num=${workload#*:}
  # Two at a time: callgrind runs a process's threads one at a time.
  run "${name}_bloom_10" "$db_bench" "$name" "$num" bloomfilter:10 &
  run "${name}_live" "$db_bench" "$name" "$num" monkey:10 &
  wait
  run "${name}_static" "$db_bench" "$name" "$num" \
    "id=monkey;bits_per_key=10;shape=static"
  profiles="$out/${name}_bloom_10.out $out/${name}_live.out"
  profiles="$profiles $out/${name}_static.out"
  if [ -n "$base" ]; then
    run "${name}_live_base" "$base" "$name" "$num" monkey:10
    profiles="$profiles $out/${name}_live_base.out"
  fi
  # shellcheck disable=SC2086
  python3 "$here/callgrind_summary.py" $profiles >"$out/summary_$name.txt"
  echo "== $name"
  cat "$out/summary_$name.txt"
done
echo "writetax_callgrind: results in $out"

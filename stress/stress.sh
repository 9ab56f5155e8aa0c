#!/usr/bin/env bash
# RocksDB's own stress and crash tests with the Monkey policy in effect: in a
# fork tree made by build_tools/build_rocksdb_fork.sh (plugin/monkey linked in),
# builds db_stress, ldb and sst_dump with assertions on (db_crashtest.py's
# whitebox kill points and db_stress's fault injection exist only then), and
# runs, for each policy string, db_stress itself and the fork's
# tools/db_crashtest.py in blackbox and whitebox modes. db_stress has no
# filter-string flag (--bloom_bits makes a stock Bloom policy), so the policy
# gets in two ways: plain db_stress runs read it from an OPTIONS file
# (--options_file, as an engine's OPTIONS file would carry it), and the
# crash tests pass --filter_uri, a flag stress/add_filter_uri.py adds to
# the fork's db_stress (an OPTIONS file replaces all of the options the crash
# test randomizes, the merge operator too, and its runs then fail). The same
# edit makes db_stress do what monkey::Install does besides the strict parse:
# at every open it adds monkey::NewShapeListener(policy) to the listeners (for
# --filter_uri and --options_file alike) and calls monkey::RefreshShape after
# it, so Monkey plans from the live shape, as users run it; a policy string
# with shape=static gets no listener and runs the static plan.
#
# After every db_stress run, killed or not, the database's filters are
# checked (stress/check_filters.py): the OPTIONS file RocksDB wrote
# names Monkey with the policy's options, every live SST's filter was built
# by `monkey` with the kind asked for, and the per-level bits per key follow
# the plan (every upper level more than the last -- under the live plan,
# every upper level of a quarter of the last's keys or fewer; with
# last_level_filter=false, most of the last level without a filter, and no
# upper file without one over a deeper file holding its keys). An
# unknown id would silently have become no filter, and db_stress would then
# have used its own --bloom_bits Bloom filter: both fail the check.
#
# Usage: stress/stress.sh [options] FORK_DIR
#        stress/stress.sh --check-db=DB --expect=SPEC [--tools=DIR]
#                        [--plan_min_levels=N] [--shape=static|live]
#   FORK_DIR       a build_tools/build_rocksdb_fork.sh work directory
#                  (build-fork/rocksdb-<version>, with src/plugin/monkey)
#   --policy=SPEC  a filter policy string to run (repeatable); default the
#                  three: monkey:7, id=monkey;bits_per_key=10;filter=ribbon
#                  and id=monkey;bits_per_key=10;last_level_filter=false
#   --modes=LIST   comma-separated, of db_stress, blackbox, whitebox
#                  (default all three); leveled: the per-level plan must
#                  be checked in at least one of each policy's runs;
#                  universal: some check of each policy must have seen a
#                  universal column family with SSTs
#   --compaction_style=leveled|universal
#                  leveled (default): the OPTIONS file and every crash-test
#                  run leveled, but whitebox's universal and FIFO runs;
#                  universal: the OPTIONS file universal and
#                  --compaction_style=1 to every db_stress run of the crash
#                  tests (it overrides db_crashtest.py's choice: whitebox's
#                  leveled and FIFO runs become universal too)
#   --duration=S   seconds per mode and policy (default 20: the short run,
#                  9 runs, the policies at the same time: about 2 minutes)
#   --long         --duration=200, the policies one after the other: the
#                  long run, about 30 minutes
#   --parallel, --serial
#                  run the policies' chains of modes at the same time
#                  (default, except with --long) or one after the other
#   --out=DIR      where logs and results go (default
#                  FORK_DIR/stress/<date-time>)
#   --build-only   only build db_stress, ldb and sst_dump
#   --check-db=DB --expect=SPEC
#                  only check the filters of the closed database DB against
#                  policy SPEC (with --tools=DIR holding ldb and sst_dump,
#                  default FORK_DIR's build, else the ones on PATH), the
#                  per-level plan checked in column families of N or more
#                  non-empty levels (default 3; see check_filters.py), and
#                  --shape the plan the policy followed (static: shape=static
#                  or no shape listener, the last level num_levels - 1;
#                  live: the deepest non-empty level; default: static if
#                  the OPTIONS file says shape=static, else live)
# Environment:
#   JOBS=n         parallel compile jobs (default 2)
#   NICE=n         niceness of builds and runs (default 19)
#   STRESS_BUILD_DIR=dir  the build (default FORK_DIR/build-stress)
#
# Output: progress lines on stderr, one summary block per mode and policy
# (db_stress runs, operations, kills, crash/recover cycles, verifications,
# filter checks, the per-level bits per key of the deepest tree checked),
# and OUT/summary.txt. Exit status 0 when every run and every check passed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
me=stress
say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() {
  say "$*"
  exit 1
}
usage() {
  sed -n '/^# Usage:/,/^# Output:/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

policies=() modes=db_stress,blackbox,whitebox duration=20 out="" build_only=0
check_db="" expect="" tools="" fork="" plan_min_levels=3 parallel="" shape=""
style=leveled
for arg in "$@"; do
  case $arg in
    --policy=*) policies+=("${arg#--policy=}") ;;
    --modes=*) modes=${arg#--modes=} ;;
    --duration=*) duration=${arg#--duration=} ;;
    --compaction_style=leveled | --compaction_style=universal)
      style=${arg#--compaction_style=} ;;
    --compaction_style=*)
      die "--compaction_style must be leveled or universal, not '${arg#--compaction_style=}'" ;;
    --long) duration=200 parallel=${parallel:-0} ;;
    --parallel) parallel=1 ;;
    --serial) parallel=0 ;;
    --out=*) out=${arg#--out=} ;;
    --build-only) build_only=1 ;;
    --check-db=*) check_db=${arg#--check-db=} ;;
    --expect=*) expect=${arg#--expect=} ;;
    --tools=*) tools=${arg#--tools=} ;;
    --plan_min_levels=*) plan_min_levels=${arg#--plan_min_levels=} ;;
    --shape=static | --shape=live) shape=${arg#--shape=} ;;
    -h | --help) usage ;;
    -*) say "unknown option '$arg'" && usage ;;
    *)
      [ -z "$fork" ] || die "one FORK_DIR only (got '$fork' and '$arg')"
      fork=$arg
      ;;
  esac
done
case $duration in
  '' | *[!0-9]*) die "--duration must be a number of seconds, not '$duration'" ;;
esac
[ "$duration" -ge 5 ] || die "--duration must be at least 5 seconds"
parallel=${parallel:-1}
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  case $m in
    db_stress | blackbox | whitebox) ;;
    *) die "unknown mode '$m' in --modes (db_stress, blackbox, whitebox)" ;;
  esac
done
[ ${#policies[@]} -gt 0 ] || policies=(
  "monkey:7"
  "id=monkey;bits_per_key=10;filter=ribbon"
  "id=monkey;bits_per_key=10;last_level_filter=false"
)
for p in "${policies[@]}"; do
  case $p in
    monkey:[0-9]* | id=monkey | id=monkey\;*) ;;
    *) die "--policy='$p' is not a Monkey policy (monkey:B or id=monkey;...)" ;;
  esac
done
jobs=${JOBS:-2}
nice_n=${NICE:-19}
checker=$repo/stress/check_filters.py
command -v python3 >/dev/null || die "python3 is needed (db_crashtest.py and the checks)"

# --- Check only ------------------------------------------------------------
if [ -n "$check_db" ]; then
  [ -n "$expect" ] || die "--check-db needs --expect=SPEC (the policy the DB was given)"
  if [ -z "$tools" ] && [ -n "$fork" ]; then
    tools=${STRESS_BUILD_DIR:-$fork/build-stress}/tools
  fi
  if [ -n "$tools" ]; then
    ldb=$tools/ldb sst_dump=$tools/sst_dump
  else
    ldb=$(command -v ldb || true) sst_dump=$(command -v sst_dump || true)
  fi
  [ -x "$ldb" ] && [ -x "$sst_dump" ] ||
    die "no ldb and sst_dump${tools:+ in $tools} (give --tools=DIR)"
  exec python3 "$checker" --ldb="$ldb" --sst_dump="$sst_dump" \
    --db="$check_db" --expect="$expect" --plan_min_levels="$plan_min_levels" \
    ${shape:+"--shape=$shape"}
fi
[ -z "$expect" ] || die "--expect goes with --check-db"

# --- Build -----------------------------------------------------------------
[ -n "$fork" ] || usage
[ -d "$fork" ] || die "FORK_DIR '$fork' does not exist"
fork=$(cd "$fork" && pwd)
src=$fork/src
[ -f "$src/include/rocksdb/version.h" ] ||
  die "$fork has no src/ RocksDB tree (make one: build_tools/build_rocksdb_fork.sh --dry-run VERSION)"
[ -e "$src/plugin/monkey/monkey.mk" ] ||
  die "$src/plugin/monkey is not this plugin (build_tools/build_rocksdb_fork.sh links it in)"
[ -f "$src/tools/db_crashtest.py" ] || die "$src has no tools/db_crashtest.py"
python3 "$repo/stress/add_filter_uri.py" "$src" >&2 ||
  die "could not add --filter_uri to $src's db_stress"
version=$(awk '/^#define ROCKSDB_(MAJOR|MINOR|PATCH) / { v = v sep $3; sep = "." }
               END { print v }' "$src/include/rocksdb/version.h")
build=${STRESS_BUILD_DIR:-$fork/build-stress}
mkdir -p "$fork/logs"
start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start))s"; }
. "$repo/build_tools/progress.sh"

# Like build_tools/build_rocksdb_fork.sh's Release build, but -O2 without NDEBUG.
say "RocksDB $version: building db_stress, ldb, sst_dump in $build ($jobs jobs)"
if [ ! -f "$build/CMakeCache.txt" ]; then
  nice -n "$nice_n" cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O2" "-DCMAKE_C_FLAGS_RELEASE=-O2" \
    -DROCKSDB_PLUGINS=monkey -DPORTABLE=ON -DFAIL_ON_WARNINGS=OFF -DUSE_RTTI=ON \
    -DWITH_GFLAGS=ON -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON \
    -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=OFF -DWITH_CORE_TOOLS=ON \
    -DWITH_TOOLS=ON -DWITH_TRACE_TOOLS=OFF -DROCKSDB_BUILD_SHARED=OFF \
    >"$fork/logs/stress-configure.log" 2>&1 ||
    die "configure failed: see $fork/logs/stress-configure.log"
fi
grep -q '^ROCKSDB_PLUGINS:.*=.*monkey' "$build/CMakeCache.txt" ||
  die "$build was not configured with ROCKSDB_PLUGINS=monkey"
if grep -rq -- '-DNDEBUG' "$build/CMakeFiles/rocksdb.dir/flags.make" 2>/dev/null; then
  die "$build compiles with NDEBUG: whitebox kill points and fault injection need assertions on"
fi
nice -n "$nice_n" cmake --build "$build" -j"$jobs" --target db_stress ldb sst_dump \
  >"$fork/logs/stress-build.log" 2>&1 &
wait_with_progress $! "$fork/logs/stress-build.log" building || {
  tail -n 20 "$fork/logs/stress-build.log" >&2
  die "build failed: see $fork/logs/stress-build.log"
}
db_stress=$build/db_stress_tool/db_stress
ldb=$build/tools/ldb sst_dump=$build/tools/sst_dump
for tool in "$db_stress" "$ldb" "$sst_dump"; do
  [ -x "$tool" ] || die "the build made no $tool"
done
say "built in $(elapsed): $db_stress"
[ $build_only = 0 ] || exit 0

# --- Runs ------------------------------------------------------------------
out=${out:-$fork/stress/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=$out/summary.txt
: >"$summary"
{
  echo "RocksDB $version ($src), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "modes: $modes; ${duration}s per mode and policy; $style compaction; policies$([ "$parallel" = 1 ] && echo " (at the same time)"): ${policies[*]}"
  echo "plan: live shape (monkey::Install's listener in db_stress) unless a policy says shape=static"
} | tee -a "$summary" >&2

# The OPTIONS file: leveled compaction (universal with
# --compaction_style=universal) with dynamic level sizes (Monkey's
# static plan's assumption, RocksDB's default since 8.4) and memtables,
# files and base level smaller than the crash tests' (plain db_stress writes
# less per second), so that a short run grows a tree of several levels.
options_file() { # SPEC FILE
  local spec=$1 cf_style=kCompactionStyleLevel
  [ "$style" = leveled ] || cf_style=kCompactionStyleUniversal
  case $spec in *=*) spec="{$spec}" ;; esac
  cat >"$2" <<EOF
[Version]
  rocksdb_version=$version
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
  create_missing_column_families=true
[CFOptions "default"]
  compaction_style=$cf_style
  level_compaction_dynamic_level_bytes=true
  write_buffer_size=65536
  target_file_size_base=65536
  max_bytes_for_level_base=262144
  max_bytes_for_level_multiplier=10
  num_levels=7
[TableOptions/BlockBasedTable "default"]
  filter_policy=$spec
EOF
}

# Flags for every db_stress run besides the policy: no SetOptions()
# (db_stress's set_options_one_in swaps the table factory's filter_policy
# for bloomfilter/ribbonfilter/nullptr strings at random); no
# optimize_filters_for_hits (RocksDB's own "no filter on the last level",
# which would override the policy's); dynamic level sizes (what Monkey's
# plan assumes: the last level is always the last); no partitioned filters
# (the check reads full filters only); and a key space that grows a tree of
# several levels in a short run, and that the final verification of every
# key stays short (100,000 keys, db_crashtest.py's smaller choice; with
# 1,000,000, 9.10.0's verification-only run took over 5 minutes at load
# 7). db_crashtest.py randomizes the rest as usual. db_stress has
# --optimize_filters_for_hits from 8.x on; 7.8.3's rejects the flag and
# leaves the option at its default, off.
common_flags() {
  echo --set_options_one_in=0 \
    --level_compaction_dynamic_level_bytes=1 --partition_filters=0 \
    --max_key=100000 --column_families=2
  if grep -q 'optimize_filters_for_hits' "$src/db_stress_tool/db_stress_gflags.cc"; then
    echo --optimize_filters_for_hits=0
  fi
}
# The crash tests' sizes (the OPTIONS file has the same): small memtables,
# files and base level, so that a short run grows L0, L5 and L6.
size_flags() {
  echo --write_buffer_size=131072 --target_file_size_base=131072 \
    --max_bytes_for_level_base=524288
}
# --compaction_style=universal: db_crashtest.py has no option for the style
# (it picks leveled, and universal and FIFO for two of whitebox's check
# modes), so the flag goes to db_stress as one of its pass-through flags,
# after the crash test's own --compaction_style, and wins (gflags takes the
# last): every crash-test run is universal.
style_flags() {
  [ "$style" = leveled ] || echo --compaction_style=1
}
# The plan a policy runs: db_stress attaches monkey::Install's shape
# listener (stress/add_filter_uri.py), which Monkey follows unless the
# policy says shape=static.
plan_shape() { # SPEC
  if [[ $1 =~ (^|;)[[:space:]]*shape[[:space:]]*=[[:space:]]*static[[:space:]]*(;|$) ]]; then
    echo static
  else
    echo live
  fi
}

# run_policy INDEX POLICY: every mode's run of one policy, in order; its
# summary blocks go to OUT/.policy-INDEX.txt (printed and appended to
# summary.txt by the caller), the number of failed runs to
# OUT/.policy-INDEX.failed.
run_policy() {
  local pi=$1 policy=$2 failed=0 mi=0 run_no mode name dir db ev first cmd
  local t0 rc pid interval size secs runs part=$out/.policy-$1.txt
  local pshape
  pshape=$(plan_shape "$policy")
  local policy_dirs=()
  : >"$part"
  for mode in "${mode_list[@]}"; do
    run_no=$((pi * ${#mode_list[@]} + mi + 1))
    mi=$((mi + 1))
    name=$(printf '%02d-%s-%s' "$run_no" "$mode" "$(printf '%s' "$policy" | tr -c 'A-Za-z0-9.=_-' '_')")
    dir=$out/$name
    mkdir -p "$dir/tmp"
    options_file "$policy" "$dir/OPTIONS"
    export STRESS_DB_STRESS=$db_stress STRESS_CHECKER=$checker STRESS_LDB=$ldb \
      STRESS_SST_DUMP=$sst_dump STRESS_EXPECT=$policy STRESS_LOG=$dir \
      STRESS_SHAPE=$pshape
    wrapper=$repo/stress/db_stress_wrapper.sh
    say "[$name] $mode with $policy, $style, $pshape plan, for ${duration}s (log: $dir/run.log)"
    t0=$(date +%s)
    rc=0
    # shellcheck disable=SC2046  # common_flags is a list of words
    case $mode in
      db_stress)
        # db_stress itself, again and again on one database: each run
        # verifies the database at its start against the expected values,
        # reopens it 5 times and verifies it at the end. At least two runs:
        # the first grows L0 and the last level only, too young a tree for
        # the final check of the per-level plan (seen with 3 chains at once
        # on 2 cores, where one run can last 10 s or more).
        db=$dir/tmp/db ev=$dir/tmp/expected
        mkdir -p "$ev"
        first=1 runs=0
        while [ $runs -lt 2 ] || [ $(($(date +%s) - t0)) -lt "$duration" ]; do
          runs=$((runs + 1))
          cmd=("$wrapper" "--options_file=$dir/OPTIONS" $(common_flags) "--db=$db"
            "--expected_values_dir=$ev" --destroy_db_initially=$first
            --threads=4 --ops_per_thread=20000 --reopen=5
            --clear_column_family_one_in=0 --progress_reports=1)
          echo "Running db_stress with pid=0: ${cmd[*]}" >>"$dir/run.log"
          nice -n "$nice_n" "${cmd[@]}" >>"$dir/run.log" 2>&1 || {
            rc=$?
            break
          }
          first=0
          say "[$name] $(($(date +%s) - t0))s: $(grep -c 'Verification successful' "$dir/run.log") verifications"
        done
        # The database outlives the runs: check its final tree too, as deep
        # enough for the per-level plan (leveled). A universal tree has no
        # per-level plan to show (checks 1-3; the policy's runs must have
        # checked a universal column family with SSTs, below).
        if [ -f "$db/CURRENT" ]; then
          python3 "$checker" --ldb="$ldb" --sst_dump="$sst_dump" --expect="$policy" \
            --shape="$pshape" --db="$db" --json="$dir/final.json" \
            $([ "$style" = leveled ] || echo --allow_young) \
            >"$dir/final.txt" 2>&1 || rc=1
        fi
        ;;
      blackbox | whitebox)
        # db_crashtest.py's own durations: blackbox kills db_stress every
        # --interval seconds; whitebox lets it kill itself at random kill
        # points for the first half, then runs the other check modes.
        # 8 threads, not db_stress's 32, on this 2-core machine; and for
        # whitebox's runs without kills (universal, FIFO, leveled)
        # duration*20 operations per thread (4,000 for the long run), where
        # its 200,000 would run far past --duration: here db_stress did a
        # few hundred operations a second, and with duration*600 one such
        # run went on until db_crashtest.py's own limit (--duration + 900 s).
        interval=$((duration / 4))
        [ $interval -ge 5 ] || interval=5
        # whitebox kills at random kill points with odds 1 in duration*50
        # (10,000 for the long run), not its default 888,887: that assumes
        # db_stress's usual speed, and here, at a few hundred operations a
        # second on 2 shared cores at nice 19, a whitebox run at 800,000
        # went 400 s without reaching its kill.
        # No compressed secondary cache by size: db_stress's thread that
        # resizes it sleeps 30 s, then 10 s, and a run that ends normally
        # waits for that thread to wake (40 s of a 75 s blackbox run's final
        # verification here). db_crashtest.py still picks a compressed
        # secondary cache by URI (secondary_cache_uri) in some runs.
        # RocksDB 7.8.3's db_stress has no such flag (nor that cache's thread).
        size=(--threads=8 $(size_flags))
        if grep -q 'compressed_secondary_cache_size' "$src/db_stress_tool/db_stress_gflags.cc"; then
          size+=(--compressed_secondary_cache_size=0)
        fi
        # db_crashtest.py's own final-verification limit, where it has one
        # (not 7.8.3's, which passes the flag on to db_stress, which rejects it).
        if grep -q 'verify_timeout' "$src/tools/db_crashtest.py"; then
          size+=(--verify_timeout=600)
        fi
        # The short run (under 100 s per mode and policy): no TTL or
        # periodic compactions. The crash test picks compaction_ttl and
        # periodic_compaction_seconds from 0, 1, 2, 10, 100, 1000 s; on
        # 9.10.0 a final verification with compaction_ttl=1 ran into its
        # 600 s timeout, and a universal run with num_levels=1 and
        # periodic_compaction_seconds=1000 recompacted its one L0 file
        # without end (36,000 files) until db_crashtest.py's own limit
        # (duration + 900 s): one short run took 16.5 minutes. The long run
        # keeps them randomized.
        [ "$duration" -ge 100 ] ||
          size+=(--compaction_ttl=0 --periodic_compaction_seconds=0)
        # No lazy wide-column reads where db_stress has them (RocksDB main,
        # 11.9.0 at 1dfa729): the crash test turns them on in 2 runs of 5
        # (lazy_entity_read_one_in 10 or 100), and with blob files on,
        # MultiGetEntityLazy reads a blob with an IOOptions whose
        # io_activity is not the thread's, and db_stress's env wrapper
        # asserts (db_stress_env_wrapper.h:47). The same db_stress command
        # without --filter_uri (stock Bloom) aborts the same way within
        # 6 s, and runs 60 s clean with --lazy_entity_read_one_in=0: a
        # RocksDB bug, not the policy's.
        if grep -q 'lazy_entity_read_one_in' "$src/db_stress_tool/db_stress_gflags.cc"; then
          size+=(--lazy_entity_read_one_in=0)
        fi
        [ "$mode" = blackbox ] || size+=(--ops_per_thread=$((duration * 20))
          --random_kill_odd=$((duration * 50)))
        (cd "$dir" && TEST_TMPDIR=$dir/tmp nice -n "$nice_n" python3 \
          "$src/tools/db_crashtest.py" "$mode" --stress_cmd="$wrapper" \
          --duration="$duration" --interval="$interval" \
          "${size[@]}" \
          "--filter_uri=$policy" $(common_flags) $(style_flags) --progress_reports=1 \
          >"$dir/run.log" 2>&1) &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
          sleep 15
          kill -0 "$pid" 2>/dev/null || break
          say "[$name] $(($(date +%s) - t0))s: $(wc -l <"$dir/invocations.log" 2>/dev/null || echo 0) db_stress runs"
        done
        wait "$pid" || rc=$?
        ;;
    esac
    secs=$(($(date +%s) - t0))
    if [ $rc -ne 0 ]; then
      say "[$name] FAILED (exit $rc); last lines of $dir/run.log:"
      tail -n 30 "$dir/run.log" >&2
    fi
    if ! python3 "$repo/stress/summarize.py" "$dir" "$mode" "$policy" "$secs" \
      --plan_optional \
      >"$dir/summary.txt" 2>&1 || [ $rc -ne 0 ]; then
      failed=$((failed + 1))
      echo "FAILED: $name (exit $rc)" >>"$dir/summary.txt"
    fi
    cat "$dir/summary.txt" >>"$part"
    [ "$parallel" = 1 ] || cat "$dir/summary.txt"
    policy_dirs+=("$dir")
  done
  # Leveled: the per-level plan must have been checked in some run of the
  # policy (a short blackbox or whitebox run may not grow a tree deep
  # enough). Universal (no per-level plan to check: Monkey gives universal
  # files its average budget): some check must have seen a universal column
  # family with SSTs, so that the universal runs did write filters.
  local key=plan_checks want="grew a tree deep enough to check the per-level plan"
  if [ "$style" = universal ]; then
    key=universal_checks want="left a universal column family with SSTs to check"
  fi
  if ! python3 -c 'import json, sys
sys.exit(0 if any(json.load(open(d + "/summary.json")).get(sys.argv[1])
                  for d in sys.argv[2:]) else 1)' "$key" "${policy_dirs[@]}"; then
    failed=$((failed + 1))
    echo "FAILED: $policy: no run $want" >>"$part"
    [ "$parallel" = 1 ] || tail -n 1 "$part"
  fi
  echo "$failed" >"$out/.policy-$pi.failed"
}

# The short run runs the policies at the same time, one chain of modes
# each: most of a short run's wall time is not CPU (db_crashtest.py's
# sleeps after each run and kill, the blackbox kill interval, db_stress
# opening and verifying), so three chains on 2 cores take little longer
# than one. The long run (or --serial) runs them one after the other.
pids=()
for pi in "${!policies[@]}"; do
  if [ "$parallel" = 1 ]; then
    run_policy "$pi" "${policies[$pi]}" &
    pids+=($!)
  else
    run_policy "$pi" "${policies[$pi]}"
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || true
done
failed=0
for pi in "${!policies[@]}"; do
  [ "$parallel" = 0 ] || cat "$out/.policy-$pi.txt"
  cat "$out/.policy-$pi.txt" >>"$summary"
  if [ -f "$out/.policy-$pi.failed" ]; then
    failed=$((failed + $(cat "$out/.policy-$pi.failed")))
  else
    failed=$((failed + 1))
    echo "FAILED: ${policies[$pi]}: its runs ended without a result" | tee -a "$summary"
  fi
  rm -f "$out/.policy-$pi.txt" "$out/.policy-$pi.failed"
done
say "done in $(elapsed): $((${#policies[@]} * ${#mode_list[@]})) runs, $failed failed; summary in $summary"
[ $failed -eq 0 ]

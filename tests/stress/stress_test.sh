#!/bin/sh
# Tests of stress/stress.sh without a fork or db_stress: its argument
# checks, and its filter check (stress/check_filters.py, through
# `stress/stress.sh --check-db`) on small trees grown by our grow_tree under
# Monkey policies and under a stock Bloom policy, read with RocksDB's ldb and
# sst_dump; the db_stress wrapper (its pre-run check and exec) with a
# stand-in db_stress; and the run summary's counts on a made-up run log.
#
# Usage: stress_test.sh GROW_TREE LDB SST_DUMP
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
script=$root/stress/stress.sh
grow_tree=$1 ldb=$2 sst_dump=$3
. "$(dirname "$0")/../shell_test_lib.sh"
# fails ARGS...: stress/stress.sh must exit non-zero; prints its output.
fails() {
  if out=$("$script" "$@" 2>&1); then
    fail "stress/stress.sh $* succeeded: $out"
  fi
  printf '%s' "$out"
}

# --- Arguments, all refused before anything is built ------------------------
expect_in "unknown option" "$(fails --bogus)" "unknown option '--bogus'" "Usage:"
expect_in "bad mode" "$(fails --modes=db_stress,crash "$tmp")" \
  "unknown mode 'crash'"
expect_in "bad duration" "$(fails --duration=3m "$tmp")" \
  "--duration must be a number of seconds, not '3m'"
expect_in "short duration" "$(fails --duration=2 "$tmp")" "at least 5 seconds"
expect_in "bad compaction style" "$(fails --compaction_style=fifo "$tmp")" \
  "--compaction_style must be leveled or universal, not 'fifo'"
expect_in "--compaction_style=universal taken" \
  "$(fails --compaction_style=universal "$tmp")" "has no src/ RocksDB tree"
expect_in "stock policy" "$(fails --policy=bloomfilter:10 "$tmp")" \
  "--policy='bloomfilter:10' is not a Monkey policy"
expect_in "two forks" "$(fails "$tmp" "$tmp/b")" "one FORK_DIR only"
expect_in "missing fork" "$(fails "$tmp/nonexistent")" \
  "FORK_DIR '$tmp/nonexistent' does not exist"
expect_in "fork without src" "$(fails "$tmp")" "has no src/ RocksDB tree"
expect_in "--serial taken" "$(fails --serial "$tmp")" "has no src/ RocksDB tree"
expect_in "--long --parallel taken" "$(fails --long --parallel "$tmp")" \
  "has no src/ RocksDB tree"
expect_in "check without expect" "$(fails --check-db="$tmp")" "needs --expect=SPEC"
expect_in "expect without check" "$(fails --expect=monkey:7 "$tmp")" \
  "--expect goes with --check-db"

# --- The filter check on grown trees ----------------------------------------
# grow NAME URI: a settled tree of 40,000 keys (L0 to L6, dynamic level
# sizes) under URI in $tmp/NAME: L5 and L6 at least (L4 and L0 in some
# runs, not all: hence --plan_min_levels=2). The Monkey trees plan from the static shape
# (shape=static), so that each level's bits per key do not depend on when
# background flushes and compactions ran: with the live shape, trees this
# small and fast-loaded can come out with L5 below L6 (seen here: L5 6.72,
# L6 6.93 bits/key under monkey:7), which the check rightly fails.
grow() {
  "$grow_tree" --db="$tmp/$1" --filter_uris="$2" --dynamic_levels=true \
    --steps=40000 --write_buffer_size=65536 --max_bytes_for_level_base=262144 \
    --target_file_size_base=65536 --probes=1000 >"$tmp/$1.log" 2>&1 ||
    fail "grow_tree $2: $(tail -n 5 "$tmp/$1.log")"
}
grow m7 'id=monkey;bits_per_key=7;shape=static'
grow ribbon 'id=monkey;bits_per_key=10;filter=ribbon;shape=static'
grow nolast 'id=monkey;bits_per_key=10;last_level_filter=false;shape=static'
grow bloom bloomfilter:10
# A tree whose deepest level is above the last (L6 of num_levels=7): with
# dynamic level sizes off, 40,000 keys fill L1 to L3. db_stress's trees can
# end so too (its CompactFiles writes to the level below its input, its
# CompactRange with change_level moves files to a random level): seen on
# 9.10.0, a column family of L0, L2 and L3 under last_level_filter=false.
# The static plan gives L3 a filter (L3 is not the last level), which the
# check must accept; a live plan's last level would be L3.
"$grow_tree" --db="$tmp/shallow" \
  --filter_uris='id=monkey;bits_per_key=10;last_level_filter=false;shape=static' \
  --dynamic_levels=false --steps=40000 --write_buffer_size=65536 \
  --max_bytes_for_level_base=262144 --target_file_size_base=65536 \
  --probes=1000 >"$tmp/shallow.log" 2>&1 ||
  fail "grow_tree shallow: $(tail -n 5 "$tmp/shallow.log")"
check() { # DB SPEC: stress/stress.sh --check-db, output and status
  "$script" --check-db="$tmp/$1" --expect="$2" --tools="$tmp/tools" \
    --plan_min_levels=2 2>&1
}
mkdir -p "$tmp/tools"
ln -s "$ldb" "$tmp/tools/ldb"
ln -s "$sst_dump" "$tmp/tools/sst_dump"
passes() { # DB SPEC WANT...
  db=$1 spec=$2
  shift 2
  if out=$(check "$db" "$spec"); then
    expect_in "$db with $spec" "$out" "all checks passed" "$@"
  else
    fail "$db with $spec: check failed: $out"
  fi
}
refused() { # DB SPEC WANT...
  db=$1 spec=$2
  shift 2
  if out=$(check "$db" "$spec"); then
    fail "$db with $spec: check passed: $out"
  else
    expect_in "$db with $spec" "$out" "FAILED for $tmp/$db" "$@"
  fi
}
m7='id=monkey;bits_per_key=7;shape=static'
passes m7 "$m7" "filter_policy={id=monkey;" "bits_per_key=7;" "L6 " "bloom:"
passes m7 monkey:7
passes ribbon 'id=monkey;bits_per_key=10;filter=ribbon;shape=static' "ribbon:"
passes nolast 'id=monkey;bits_per_key=10;last_level_filter=false'
# The trees' levels as the check prints them: L6, the last, has the fewest
# bits per key under monkey:7 and (nearly) none with last_level_filter=false.
out=$(check m7 monkey:7 || true)
l6=$(printf '%s\n' "$out" | awk '$1 == "L6" { print $6 }')
l5=$(printf '%s\n' "$out" | awk '$1 == "L5" { print $6 }')
awk -v a="$l5" -v b="$l6" 'BEGIN { exit !(b > 0 && a > b) }' ||
  fail "monkey:7: L5 '$l5' and L6 '$l6' bits/key are not L5 > L6 > 0: $out"
out=$(check nolast 'id=monkey;bits_per_key=10;last_level_filter=false' || true)
# (A small file moved down whole keeps its filter.)
printf '%s\n' "$out" | awk '$1 == "L6" && 10 * $3 < $2 { ok = 1 } END { exit !ok }' ||
  fail "last_level_filter=false: a tenth or more of L6's files have filters: $out"

# The shallow tree: L6, the static plan's last level, is empty, so its
# deepest level is an upper one (every file filtered, as the plan says); as
# a live plan's tree (--shape=live) the same files fail.
passes shallow 'id=monkey;bits_per_key=10;last_level_filter=false' \
  "static plan: the last level L6 is empty"
out=$(check shallow 'id=monkey;bits_per_key=10;last_level_filter=false' || true)
printf '%s\n' "$out" | awk '$1 ~ /^L[0-9]$/ && $1 != "L0" { n++; if ($2 != $3) bad = 1 }
  END { exit !(n >= 2 && !bad) }' ||
  fail "shallow: not 2 or more levels below L0, each file filtered: $out"
if out=$("$script" --check-db="$tmp/shallow" --shape=live --tools="$tmp/tools" \
  --expect='id=monkey;bits_per_key=10;last_level_filter=false' \
  --plan_min_levels=2 2>&1); then
  fail "shallow with --shape=live: check passed: $out"
fi
expect_in "shallow with --shape=live" "$out" "(last): files without a filter hold 0 of"
# An ldb whose manifest_dump lists every file twice: a level would be
# compared with itself; the check must refuse (exit 2), not compare.
mkdir -p "$tmp/dup"
{
  echo '#!/bin/sh'
  echo 'case "$*" in'
  echo "  *manifest_dump*) \"$ldb\" \"\$@\" | awk '{ print } /^ *[0-9]+:[0-9]+\\[/ { print }' ;;"
  echo "  *) exec \"$ldb\" \"\$@\" ;;"
  echo 'esac'
} >"$tmp/dup/ldb"
chmod +x "$tmp/dup/ldb"
ln -s "$sst_dump" "$tmp/dup/sst_dump"
status=0
out=$("$script" --check-db="$tmp/m7" --expect=monkey:7 --tools="$tmp/dup" 2>&1) ||
  status=$?
[ $status = 2 ] || fail "a file listed twice: exit $status, not 2: $out"
expect_in "a file listed twice" "$out" "twice (column family"

# What each check catches.
refused m7 monkey:10 "OPTIONS has bits_per_key=7, expected 10"
refused ribbon 'id=monkey;bits_per_key=10;filter=bloom' \
  "OPTIONS has filter=ribbon, expected bloom" "filters are not the kind filter=bloom builds there: " "(ribbon, "
refused m7 'id=monkey;bits_per_key=7;last_level_filter=false' \
  "hold 0 of" "not most, with last_level_filter=false"
refused nolast 'id=monkey;bits_per_key=10' \
  "files have no filter, but last_level_filter is true"
refused bloom monkey:7 "not Monkey" \
  "L6: " "filters were built by another policy than monkey" "(bloomfilter)"
# A stock Bloom tree whose OPTIONS file claims Monkey (what a policy dropped
# after the OPTIONS file was written would look like): the files tell.
cp -r "$tmp/bloom" "$tmp/claims"
for f in "$tmp"/claims/OPTIONS-*; do
  sed 's/^\( *filter_policy=\).*/\1{id=monkey;bits_per_key=7;}/' "$f" >"$f.new"
  mv "$f.new" "$f"
done
refused claims monkey:7 "another policy than monkey" "(bloomfilter)"
# A run killed inside its first DB::Open leaves CURRENT and a MANIFEST but
# no OPTIONS file (seen on 9.10.0 in a whitebox run): nothing to check,
# when the MANIFEST lists no SST; with live SSTs, a failure.
"$ldb" --db="$tmp/unopened" --create_if_missing put k v >"$tmp/ldb.log" 2>&1 ||
  fail "ldb put: $(cat "$tmp/ldb.log")"
rm -f "$tmp"/unopened/OPTIONS-*
if out=$(check unopened monkey:7); then
  expect_in "no OPTIONS file, no SST" "$out" \
    "nothing to check in $tmp/unopened: no OPTIONS file and no live SST file"
else
  fail "no OPTIONS file, no SST: check failed: $out"
fi
cp -r "$tmp/m7" "$tmp/nooptions"
rm -f "$tmp"/nooptions/OPTIONS-*
status=0
out=$(check nooptions monkey:7) || status=$?
[ $status != 0 ] || fail "no OPTIONS file but SSTs: check passed: $out"
expect_in "no OPTIONS file but SSTs" "$out" "has no OPTIONS file but" "live SST file(s)"
# Not a database, a bad SPEC: exit status 2, not a silent pass.
mkdir -p "$tmp/empty"
status=0
out=$(check empty monkey:7) || status=$?
[ $status = 2 ] || fail "empty directory: exit $status, not 2: $out"
expect_in "empty directory" "$out" "is not a RocksDB database (no CURRENT)"
status=0
out=$(check m7 bloomfilter:10) || status=$?
[ $status = 2 ] || fail "--expect=bloomfilter:10: exit $status, not 2: $out"
expect_in "--expect=bloomfilter:10" "$out" "not a Monkey policy"

# --- The db_stress wrapper --------------------------------------------------
# With echo as db_stress: it logs the run, checks the DB first (here the
# stock Bloom tree, so the check fails and is listed), then becomes echo,
# and writes nothing else to stdout or stderr.
mkdir -p "$tmp/log"
out=$(STRESS_DB_STRESS=echo STRESS_CHECKER=$root/stress/check_filters.py \
  STRESS_LDB=$ldb STRESS_SST_DUMP=$sst_dump STRESS_EXPECT=monkey:7 \
  STRESS_LOG=$tmp/log "$root/stress/db_stress_wrapper.sh" \
  --db="$tmp/bloom" --destroy_db_initially=1 2>&1) ||
  fail "wrapper exited non-zero: $out"
[ "$out" = "--db=$tmp/bloom --destroy_db_initially=1" ] ||
  fail "wrapper output is not db_stress's (echo's) alone: '$out'"
# A copy of the run's stdout, for a crash test that drops it.
[ "$(cat "$tmp/log/stdout-1.log" 2>/dev/null)" = "--db=$tmp/bloom --destroy_db_initially=1" ] ||
  fail "wrapper: run 1's stdout not kept in stdout-1.log"
[ "$(cat "$tmp/log/check-failures" 2>/dev/null)" = 1 ] ||
  fail "wrapper: run 1's failed check not listed in check-failures"
# Without STRESS_SHAPE the check is of the live plan (db_stress attaches
# monkey::Install's listener).
expect_in "wrapper check-1.json" "$(cat "$tmp/log/check-1.json")" '"shape": "live"'
expect_in "wrapper check-1.txt" "$(cat "$tmp/log/check-1.txt")" \
  "another policy than monkey"
expect_in "wrapper invocations.log" "$(cat "$tmp/log/invocations.log")" \
  "1 " "destroy=1 --db=$tmp/bloom"
out=$(STRESS_DB_STRESS=true STRESS_CHECKER=$root/stress/check_filters.py \
  STRESS_PLAN_MIN_LEVELS=2 STRESS_SHAPE=static \
  STRESS_LDB=$ldb STRESS_SST_DUMP=$sst_dump STRESS_EXPECT=monkey:7 \
  STRESS_LOG=$tmp/log "$root/stress/db_stress_wrapper.sh" \
  --db="$tmp/m7" 2>&1) || fail "wrapper (m7) exited non-zero: $out"
[ "$(wc -l <"$tmp/log/check-failures")" -eq 1 ] ||
  fail "wrapper: run 2 (a Monkey tree) listed as failed"
[ -f "$tmp/log/check-2.json" ] || fail "wrapper: no check-2.json"
expect_in "wrapper check-2.json" "$(cat "$tmp/log/check-2.json")" \
  '"shape": "static"' '"compaction_style": "kCompactionStyleLevel"'

# --- The db_stress edit ---------------------------------------------------
# add_filter_uri.py on a tree holding only its anchors: --filter_uri and
# monkey::Install's listener (added at open, RefreshShape after it); a
# second run changes nothing; a missing anchor is an error naming it.
fake=$tmp/fake-src/db_stress_tool
mkdir -p "$fake"
printf 'DECLARE_double(bloom_bits);\n' >"$fake/db_stress_common.h"
printf 'DEFINE_double(bloom_bits, 10,\n              "b");\n' >"$fake/db_stress_gflags.cc"
cat >"$fake/db_stress_test_base.cc" <<'EOF2'
#include "rocksdb/filter_policy.h"
std::shared_ptr<const FilterPolicy> CreateFilterPolicy() {
  return nullptr;
}
void StressTest::Open() {
    options_.listeners.clear();
    RegisterAdditionalListeners();
  if (!s.ok()) {
    fprintf(stderr, "open error: %s\n", s.ToString().c_str());
    exit(1);
  }
}
EOF2
edit=$root/stress/add_filter_uri.py
out=$(python3 "$edit" "$tmp/fake-src" 2>&1) || fail "add_filter_uri.py: $out"
base=$(cat "$fake/db_stress_test_base.cc")
expect_in "edited db_stress" "$base" '#include "monkey/install.h"' \
  "FLAGS_filter_uri" "ignore_unsupported_options = false" \
  "::monkey::NewShapeListener(monkey_table->filter_policy)" \
  "options_.listeners.push_back(std::move(monkey_listener));" \
  "::monkey::RefreshShape(db_);"
expect_in "edited gflags" "$(cat "$fake/db_stress_gflags.cc")" "DEFINE_string(filter_uri"
# The listener after db_stress's own, RefreshShape after the open's check.
printf '%s\n' "$base" | awk '/RegisterAdditionalListeners/ { r = NR }
  /NewShapeListener/ { l = NR } /exit\(1\);/ { e = NR } /RefreshShape/ { f = NR }
  END { exit !(r < l && e < f) }' || fail "edited db_stress: edits out of place: $base"
sum1=$(cat "$fake"/* | cksum)
out=$(python3 "$edit" "$tmp/fake-src" 2>&1) || fail "add_filter_uri.py again: $out"
[ "$(cat "$fake"/* | cksum)" = "$sum1" ] || fail "add_filter_uri.py edited twice"
sed -i '/RegisterAdditionalListeners/d' "$fake/db_stress_test_base.cc"
sed -i '/monkey: Install.s shape listener: add/d' "$fake/db_stress_test_base.cc"
status=0
out=$(python3 "$edit" "$tmp/fake-src" 2>&1) || status=$?
[ $status = 1 ] || fail "add_filter_uri.py without an anchor: exit $status: $out"
expect_in "add_filter_uri.py without an anchor" "$out" \
  "has 0 lines 'RegisterAdditionalListeners();'"

# --- The summary --------------------------------------------------------
# Run 1 killed (two threads' progress: 3000 and 2500), run 2 reopened the
# same DB, verified what survived the kill (one crash/recover cycle) and
# finished with 80000 ops and its own verification.
mkdir -p "$tmp/sum"
cp "$tmp/log/check-2.json" "$tmp/sum/check-2.json"
printf '1 0 destroy=1 --db=x\n2 0 destroy=0 --db=x\n' >"$tmp/sum/invocations.log"
cat >"$tmp/sum/run.log" <<'EOF'
Running db_stress with pid=11: db_stress --threads=2 --db=x
stdout:
 ... finished 1000 ops ... finished 1000 ops ... finished 2500 ops ... finished 3000 ops
TERMINATED 11
Running db_stress with pid=12: db_stress --threads=2 --db=x
stdout:
 Crash-recovery verification passed :)
 Verification successful
            : Wrote 0.51 MB (0.11 MB/sec) (45% of 80000 ops)
EOF
if out=$(python3 "$root/stress/summarize.py" "$tmp/sum" blackbox monkey:7 9); then
  expect_in "summary" "$out" "2 db_stress runs (1 finished)" "ops 80000 exact + >= 5500" \
    "1 kills, 1 crash/recover cycles, 2 verifications passed" \
    "1 filter checks (0 failed, 1 with the per-level plan, 0 of a universal tree)" \
    "L6 "
else
  fail "summary of a passing run failed: $out"
fi
rm "$tmp/sum/check-2.json"
if out=$(python3 "$root/stress/summarize.py" "$tmp/sum" blackbox monkey:7 9); then
  fail "summary without any check of a two-level tree passed: $out"
fi
expect_in "summary without checks" "$out" \
  "no check saw a tree deep enough to check the per-level plan"
# --plan_optional (stress/stress.sh asks it per policy instead): a note.
if out=$(python3 "$root/stress/summarize.py" "$tmp/sum" blackbox monkey:7 9 --plan_optional); then
  expect_in "summary, plan optional" "$out" \
    "(no check saw a tree deep enough to check the per-level plan)"
else
  fail "summary with --plan_optional failed: $out"
fi
# The same run with its second run destroying the DB first: no cycle.
printf '1 0 destroy=1 --db=x\n2 0 destroy=1 --db=x\n' >"$tmp/sum/invocations.log"
out=$(python3 "$root/stress/summarize.py" "$tmp/sum" blackbox monkey:7 9 || true)
expect_in "summary, DB destroyed" "$out" "1 kills, 0 crash/recover cycles"

# RocksDB 7.8.3's blackbox: db_crashtest.py prints none of a killed run's
# stdout, so run.log holds only the runs and their kills; each run after a
# kill verifies what survived at its start, as the wrapper's copy of its
# stdout (stdout-<n>.log) shows.
mkdir -p "$tmp/bb"
printf '1 0 destroy=0 --db=x\n2 0 destroy=0 --db=x\n' >"$tmp/bb/invocations.log"
cat >"$tmp/bb/run.log" <<'EOF'
Running db_stress with pid=21: db_stress --threads=2 --db=x
KILLED 21
Running db_stress with pid=22: db_stress --threads=2 --db=x
KILLED 22
EOF
printf ' ... finished 1000 ops\n' >"$tmp/bb/stdout-1.log"
printf 'Crash-recovery verification passed :)\n ... finished 700 ops ... finished 900 ops\n' \
  >"$tmp/bb/stdout-2.log"
out=$(python3 "$root/stress/summarize.py" "$tmp/bb" blackbox monkey:7 9 --plan_optional) ||
  fail "summary of a 7.8.3 blackbox run (verified in stdout-2.log) failed: $out"
expect_in "summary from stdout-<n>.log" "$out" "2 db_stress runs (0 finished)" \
  "ops 0 exact + >= 2600" "2 kills, 1 crash/recover cycles, 1 verifications passed"

# --- Totals over a run's summary.json files (stress/totals.py) --------
mkdir -p "$tmp/tot/01-a" "$tmp/tot/02-b"
printf '{"invocations": 3, "ops_exact": 100, "ops_lower_bound_killed": 5, "kills": 2, "crash_recover_cycles": 1, "verifications": 4, "checks": 3, "checks_failed": 1, "plan_checks": 2, "universal_checks": 0, "seconds": 200}\n' >"$tmp/tot/01-a/summary.json"
printf '{"invocations": 1, "ops_exact": 50, "kills": 0, "verifications": 2, "checks": 1, "universal_checks": 1, "seconds": 210}\n' >"$tmp/tot/02-b/summary.json"
expect_in "totals" "$(python3 "$root/stress/totals.py" "$tmp/tot")" \
  "tot: 2 mode-policy runs, 4 db_stress runs, ops 150 + >= 5 in killed runs, 2 kills, 1 cycles, 6 verifications, 4 checks (1 failed), 2 of the plan, 1 of a universal tree, 410 s"
if python3 "$root/stress/totals.py" "$tmp/sum" >/dev/null 2>&1; then
  fail "totals.py of a directory without summary.json files succeeded"
fi
finish stress_test

#!/usr/bin/env bash
# Stands in for db_stress under stress/stress.sh and db_crashtest.py
# (--stress_cmd): before each run it checks the filters of the database the
# previous run left behind (finished, or killed: db_stress is not running
# then), and then becomes the real db_stress (exec), so that a kill by
# db_crashtest.py reaches db_stress itself. A copy of the run's stdout goes
# to stdout-<n>.log, line by line (stdbuf -oL: db_stress writes to a pipe,
# fully buffered, and a kill would lose the buffer): 7.8.3's
# db_crashtest.py prints nothing of a killed blackbox run's stdout, so the
# crash-recovery verification that each run after a kill makes at its start
# ("Crash-recovery verification passed") is seen only there.
#
# Environment (set by stress/stress.sh):
#   STRESS_DB_STRESS  the real db_stress
#   STRESS_CHECKER    stress/check_filters.py, run with python3
#   STRESS_LDB, STRESS_SST_DUMP  the fork's ldb and sst_dump
#   STRESS_EXPECT     the policy string the database must have been given
#   STRESS_LOG        directory for invocations.log, check-<n>.{txt,json}
#                     and stdout-<n>.log
#   STRESS_PLAN_MIN_LEVELS  check_filters.py's --plan_min_levels (default 3)
#   STRESS_SHAPE      static or live (default): check_filters.py's --shape
# Nothing goes to stdout or stderr: db_crashtest.py fails a run on any
# stderr output, and a failed check is left for stress/stress.sh to report
# (check-failures lists the runs whose check failed).
set -euo pipefail
: "${STRESS_DB_STRESS:?}" "${STRESS_CHECKER:?}" "${STRESS_LDB:?}"
: "${STRESS_SST_DUMP:?}" "${STRESS_EXPECT:?}" "${STRESS_LOG:?}"
db="" destroy=0
for arg in "$@"; do
  case $arg in
    --db=*) db=${arg#--db=} ;;
    --destroy_db_initially=1 | --destroy_db_and_exit=1) destroy=1 ;;
  esac
done
# One number per invocation; db_crashtest.py runs them one at a time.
n=1
[ ! -f "$STRESS_LOG/invocations.log" ] ||
  n=$(($(wc -l <"$STRESS_LOG/invocations.log") + 1))
printf '%d %s destroy=%d %s\n' "$n" "$(date +%s)" "$destroy" "$*" \
  >>"$STRESS_LOG/invocations.log"
if [ -n "$db" ] && [ -f "$db/CURRENT" ]; then
  # --allow_young: a young tree (every run after a destroy) is checked too;
  # stress/stress.sh asks for the per-level plan checked over the whole run.
  # --shape: the plan the policy followed. db_stress attaches
  # monkey::Install's shape listener (stress/add_filter_uri.py), so a
  # Monkey policy plans from the live shape (the deepest non-empty level is
  # the last), unless the policy says shape=static: then from the static
  # shape (the last level num_levels - 1). stress/stress.sh tells which.
  if ! python3 "$STRESS_CHECKER" --ldb="$STRESS_LDB" \
    --sst_dump="$STRESS_SST_DUMP" --expect="$STRESS_EXPECT" --allow_young \
    --shape="${STRESS_SHAPE:-live}" \
    --plan_min_levels="${STRESS_PLAN_MIN_LEVELS:-3}" \
    --db="$db" --json="$STRESS_LOG/check-$n.json" \
    >"$STRESS_LOG/check-$n.txt" 2>&1; then
    echo "$n" >>"$STRESS_LOG/check-failures"
    # Kept for a look afterwards: db_crashtest.py removes the database
    # when its runs pass.
    cp -a "$db" "$STRESS_LOG/failed-db-$n" 2>/dev/null || true
    # Where each live file was built and how it moved, from the info logs.
    python3 "$(dirname "$STRESS_CHECKER")/file_origins.py" --ldb="$STRESS_LDB" \
      --sst_dump="$STRESS_SST_DUMP" --db="$STRESS_LOG/failed-db-$n" \
      >"$STRESS_LOG/failed-db-$n.origins.txt" 2>&1 || true
  fi
fi
exec stdbuf -oL "$STRESS_DB_STRESS" "$@" > >(tee "$STRESS_LOG/stdout-$n.log")

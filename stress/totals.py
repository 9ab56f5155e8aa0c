#!/usr/bin/env python3
"""Totals of stress/stress.sh runs, one line each, from the summary.json that
summarize.py wrote in each mode-and-policy directory: the totals.txt of a
bench/results/*-stress-*/ record, generated rather than added up by hand.

Usage: totals.py OUT_DIR [OUT_DIR...]
Prints per OUT_DIR: db_stress runs, operations (exact + a lower bound in
killed runs), kills, crash/recover cycles, verifications, filter checks
(failed), of which per-level plan checks and checks of a universal tree,
and the seconds the modes ran. Exit status 2 when a directory holds no
summary.json.
"""
import glob
import json
import os
import sys

FIELDS = ("invocations", "ops_exact", "ops_lower_bound_killed", "kills",
          "crash_recover_cycles", "verifications", "checks", "checks_failed",
          "plan_checks", "universal_checks", "seconds")


def totals(out_dir):
    sums = dict.fromkeys(FIELDS, 0)
    paths = sorted(glob.glob(os.path.join(out_dir, "*", "summary.json")))
    for path in paths:
        with open(path) as f:
            summary = json.load(f)
        for field in FIELDS:
            sums[field] += summary.get(field, 0)
    return len(paths), sums


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    for out_dir in sys.argv[1:]:
        runs, t = totals(out_dir)
        if runs == 0:
            sys.stderr.write("totals.py: no summary.json under %s\n" % out_dir)
            return 2
        print("%s: %d mode-policy runs, %d db_stress runs, ops %d + >= %d in "
              "killed runs, %d kills, %d cycles, %d verifications, %d checks "
              "(%d failed), %d of the plan, %d of a universal tree, %d s"
              % (os.path.basename(os.path.normpath(out_dir)), runs,
                 t["invocations"], t["ops_exact"], t["ops_lower_bound_killed"],
                 t["kills"], t["crash_recover_cycles"], t["verifications"],
                 t["checks"], t["checks_failed"], t["plan_checks"],
                 t["universal_checks"], t["seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

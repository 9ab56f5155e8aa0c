#!/usr/bin/env python3
"""Summarizes one stress/stress.sh run (a mode and a policy) from its log
directory: db_stress invocations, operations, kills and crash/recover
cycles from the run's output (run.log, and each db_stress run's own stdout
as the wrapper kept it, stdout-<n>.log), and the filter checks the wrapper
made before each invocation (check-<n>.json) plus the final check
(final.json, when the database outlived the run).

Usage: summarize.py LOG_DIR MODE POLICY SECONDS [--plan_optional]
Prints one block of text and writes LOG_DIR/summary.json. Exit status 1
when a check failed, the run printed no verification, or (unless
--plan_optional: stress/stress.sh then asks it of each policy over all its
modes) no check saw a tree deep enough for the per-level plan; 0
otherwise.

Operations: a db_stress run that finishes prints "(P% of N ops)": N is
exact. A killed run prints only each thread's progress ("... finished N
ops", at growing intervals): the sum of the last progress count of each
of its threads is a lower bound, reported as such.
"""
import glob
import json
import os
import re
import sys


def main():
    log_dir, mode, policy, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    plan_optional = "--plan_optional" in sys.argv[5:]
    with open(os.path.join(log_dir, "run.log"), errors="replace") as f:
        text = f.read()
    # db_stress's output per invocation: db_crashtest.py prints "stdout:" and
    # the run's output after each; stress/stress.sh does the same.
    runs = text.split("Running db_stress with pid=")[1:]
    inv = []
    inv_path = os.path.join(log_dir, "invocations.log")
    if os.path.exists(inv_path):
        with open(inv_path) as f:
            inv = [line.split(" ", 3) for line in f]
    invocations = len(inv)
    exact_ops = lower_ops = finished = kills = recovered = 0
    verified = 0
    killed_before = False
    for i, part in enumerate(runs):
        # db_stress's own output: the wrapper's copy of it (stdout-<n>.log)
        # where there is one, since 7.8.3's db_crashtest.py drops a killed
        # blackbox run's stdout; run.log's part otherwise. The kill reports
        # are db_crashtest.py's, in run.log.
        out_path = os.path.join(log_dir, "stdout-%d.log" % (i + 1))
        output = part
        if os.path.exists(out_path):
            with open(out_path, errors="replace") as f:
                output = f.read()
        m = re.search(r"\(\d+% of (\d+) ops\)", output)
        threads = re.search(r"--threads=(\d+)", part)
        threads = int(threads.group(1)) if threads else 1
        if m:
            exact_ops += int(m.group(1))
            finished += 1
        else:
            counts = [int(c) for c in re.findall(r"\.\.\. finished (\d+) ops", output)]
            lower_ops += sum(counts[-threads:])
        # db_stress's verification against the expected values: at the end
        # of a run, and at the start of one that reopens a crashed database.
        recovery = len(re.findall(r"Crash-recovery verification passed", output))
        verified += len(re.findall(r"Verification successful", output)) + recovery
        # A crash/recover cycle: the previous run was killed, and this one
        # opened the same database (no destroy) and verified what survived.
        destroyed = i < len(inv) and inv[i][2] != "destroy=0"
        if killed_before and recovery and not destroyed:
            recovered += 1
        # Kills: db_crashtest.py's blackbox SIGTERM/SIGKILL of db_stress, and
        # whitebox runs that killed themselves at a kill point (negative
        # exit code; the report follows the run's output).
        killed_before = bool(
            re.search(r"^(TERMINATED|KILLED) \d+", part, re.M) or
            re.search(r"kill option=\d+, exitcode=-\d+", part))
        kills += killed_before
    checks, reports, failed, deepest, best = [], [], [], 0, None
    for path in sorted(glob.glob(os.path.join(log_dir, "check-*.json")) +
                       glob.glob(os.path.join(log_dir, "final.json"))):
        with open(path) as f:
            report = json.load(f)
        checks.append(path)
        reports.append(report)
        if report["failures"]:
            failed.append((path, report["failures"]))
        depth = max([len(cf["levels"]) for cf in report["column_families"]] or [0])
        if depth >= deepest:
            deepest, best = depth, report
    # A check that could not run at all leaves a .txt and no .json.
    for path in glob.glob(os.path.join(log_dir, "check-*.txt")):
        if not os.path.exists(path[:-4] + ".json"):
            with open(path, errors="replace") as f:
                failed.append((path, [f.read().strip()[-500:]]))
    problems, notes = [p for p, _ in failed], []
    plan_checks = [r for r in reports if r.get("plan_checked")]
    # Checks that saw a universal column family with SSTs (checks 1-3 only:
    # Monkey has no per-level plan there).
    universal_checks = [r for r in reports if any(
        cf.get("compaction_style") == "kCompactionStyleUniversal" and cf["levels"]
        for cf in r["column_families"])]
    if plan_checks:
        # Show the deepest tree whose per-level plan was checked, and the
        # column families it was checked in.
        def depth(r):
            return max(len(cf["levels"]) for cf in r["column_families"]
                       if cf["name"] in r["plan_checked"])
        best = max(plan_checks, key=depth)
        deepest = depth(best)
    if not plan_checks:
        msg = "no check saw a tree deep enough to check the per-level plan"
        if plan_optional:
            notes.append(msg)
        else:
            problems.append(msg)
    if verified == 0:
        problems.append("no verification passed in db_stress's output")
    summary = {
        "mode": mode, "policy": policy, "seconds": int(seconds),
        "invocations": invocations, "runs_finished": finished,
        "ops_exact": exact_ops, "ops_lower_bound_killed": lower_ops,
        "kills": kills, "crash_recover_cycles": recovered,
        "plan_checks": len(plan_checks),
        "universal_checks": len(universal_checks),
        "verifications": verified, "checks": len(checks),
        "checks_failed": len(failed), "deepest_levels": deepest,
        "levels": [], "problems": problems,
    }
    print("%s, %s: %s s, %d db_stress runs (%d finished), ops %d exact + >= %d "
          "in killed runs, %d kills, %d crash/recover cycles, %d verifications "
          "passed, %d filter checks (%d failed, %d with the per-level plan, "
          "%d of a universal tree)"
          % (mode, policy, seconds, invocations, finished, exact_ops, lower_ops,
             kills, recovered, verified, len(checks), len(failed), len(plan_checks),
             len(universal_checks)))
    if best:
        print("  deepest tree checked (%s):" % os.path.basename(best.get("db", "")))
        for cf in best["column_families"]:
            if len(cf["levels"]) != deepest or (
                    best.get("plan_checked") and cf["name"] not in best["plan_checked"]):
                continue
            cells = ["L%d %.3f" % (r["level"], r["bits_per_key"])
                     + ("" if r["files_with_filter"] == r["files"]
                        else " (%d of %d files unfiltered)"
                        % (r["files"] - r["files_with_filter"], r["files"]))
                     for r in cf["levels"]]
            summary["levels"].append({"column_family": cf["name"],
                                      "bits_per_key": {r["level"]: round(r["bits_per_key"], 3)
                                                       for r in cf["levels"]}})
            print("    cf %s bits/key: %s" % (cf["name"], ", ".join(cells)))
    for note in notes:
        print("  (%s)" % note)
    for path, msgs in failed:
        for msg in msgs:
            print("  FAIL %s: %s" % (os.path.basename(path), msg))
    for p in problems:
        if not p.endswith(".json") and not p.endswith(".txt"):
            print("  FAIL: " + p)
    with open(os.path.join(log_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Monkey against fixed 10 bits/key by depth: TDStore's three groups
(fixed10, monkey10 and monkey7, no last-level filter) on the deep preset's
trees at 2 to 6 filtered runs, next to the model's prediction out to 10 runs
and TDStore's published ratios. Prints the table and writes depth.csv and
ratio_vs_runs.png to results/<timestamp>/.

  bench/depth_sweep.py --db_bench=build/db_bench --monkey_plan=build/monkey_plan
                       [--num=300000 --num=1200000] [--reads=200000]

Each tree is loaded once per group; after the load the sweep measures
(readmissing), then flushes one L0 file and measures again, up to DEEP_L0_FILES (5).

  bench/depth_sweep.py --universal --db_bench=build/db_bench \
                       --monkey_plan=build/monkey_plan [--num=1000000]

The universal row instead: bloomfilter:10, monkey:10 and monkey:7 on a
universal tree (--compaction_style=1, the universal preset's settings) from
one sorted run, after a full compaction, to 11, one flush at a time; false
positives per absent-key lookup measured, the model's for the filters as
built, and the advisor's optimum where it reads universal trees. Writes
universal.csv and universal_vs_runs.png.
"""

import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.console import log, uptime  # noqa: E402
from comparison.depth import (MODEL_MAX_RUNS, model_ratios, ratios,  # noqa
                              run_sweep, run_universal_sweep, table,
                              universal_ratios, universal_steps,
                              universal_table, write_depth, write_universal)
from comparison.runner import Runner  # noqa: E402
from comparison.specs import (DEEP_L0_FILES, DEEP_TREE_FLAGS,  # noqa
                              UNIVERSAL_CONFIGS, UNIVERSAL_RUNS_AT_REST,
                              UNIVERSAL_TREE_FLAGS, db_dir_for)


def universal(args, out, stamp):
    """The universal row: every configuration through the universal cycle
    at every size, then its table and files."""
    sizes = args.num or [1000000]
    log(f"depth_sweep: universal trees of {', '.join(f'{n:,}' for n in sizes)}"
        " keys, 1 sorted run (a full compaction) up to "
        f"{UNIVERSAL_RUNS_AT_REST} (one flush at a time); tree "
        "flags: " + " ".join(UNIVERSAL_TREE_FLAGS))
    log(f"depth_sweep: results in {out}; {uptime()}")
    runner = Runner(args.db_bench, steps=len(UNIVERSAL_CONFIGS) * len(sizes)
                    * len(universal_steps(0, 0)))
    db_dir = db_dir_for("universal", f"depth-{stamp}", out)
    points = run_universal_sweep(runner, sizes, args.reads, out, db_dir,
                                 args.monkey_plan)
    if db_dir != out:
        os.rmdir(db_dir)
    rows = universal_ratios(points)
    text = universal_table(points, rows)
    log("")
    log(text)
    log(f"depth_sweep: {uptime()}")
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "universal.json"), "w") as f:
        json.dump({"command": sys.argv, "sizes": sizes, "points": points,
                   "ratios": rows}, f, indent=1)
    write_universal(out, points, rows)
    log(f"depth_sweep: wrote {out}/table.txt, universal.csv, universal.json "
        "and universal_vs_runs.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", required=True, help="patched db_bench")
    ap.add_argument("--monkey_plan", required=True,
                    help="monkey_plan, for the model's prediction")
    ap.add_argument("--num", type=int, action="append", default=[],
                    help="keys per tree (repeatable; default 300000 and "
                         "1200000: L4-L5 and L3-L5 above L6; --universal "
                         "1000000)")
    ap.add_argument("--universal", action="store_true",
                    help="the universal row instead (see above)")
    ap.add_argument("--reads", type=int, default=200000,
                    help="absent-key lookups per measurement")
    ap.add_argument("--results", default="results")
    args = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    name = "depth-universal" if args.universal else "depth"
    out = os.path.abspath(os.path.join(args.results, f"{name}-{stamp}"))
    os.makedirs(out, exist_ok=True)
    if args.universal:
        universal(args, out, stamp)
        return
    sizes = args.num or [300000, 1200000]
    log(f"depth_sweep: trees of {', '.join(f'{n:,}' for n in sizes)} keys, "
        f"0 to {DEEP_L0_FILES} L0 files each; tree flags: "
        + " ".join(DEEP_TREE_FLAGS))
    log(f"depth_sweep: results in {out}; {uptime()}")
    model = {n: model_ratios(args.monkey_plan, n)
             for n in range(1, MODEL_MAX_RUNS + 1)}
    runner = Runner(args.db_bench,
                    steps=3 * len(sizes) * (2 + 2 * DEEP_L0_FILES))
    db_dir = db_dir_for("deep", f"depth-{stamp}", out)
    points = run_sweep(runner, sizes, args.reads, out, db_dir)
    if db_dir != out:
        os.rmdir(db_dir)  # each tree's DB is gone after its run
    rows = ratios(points)
    text = table(rows, model)
    log("")
    log(text)
    log("")
    log("model (static plan, T = 10, each run 10x the one above), monkey "
        "over fixed10 sum FPR: " + ", ".join(
            f"{n} runs {m['monkey10']:.3f} / {m['monkey7']:.3f}"
            for n, m in sorted(model.items())))
    log(f"depth_sweep: {uptime()}")
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "depth.json"), "w") as f:
        json.dump({"command": sys.argv, "sizes": sizes, "points": points,
                   "ratios": rows, "model": model}, f, indent=1)
    write_depth(out, points, rows, model)
    log(f"depth_sweep: wrote {out}/table.txt, depth.csv, depth.json and "
        "ratio_vs_runs.png")


if __name__ == "__main__":
    main()

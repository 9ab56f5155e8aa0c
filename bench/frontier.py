#!/usr/bin/python3
"""The sum FPR-memory frontier on the deep preset's tree: uniform Bloom,
uniform Ribbon, Monkey with Bloom and Monkey with Ribbon, each loaded and
measured at every budget of --bits (default 3 5 7 10 13 16 bits/key), with
the model's curves and the information-theoretic bound e^H * 2^-b. Prints
the memory each needs for a sum FPR of 1%, 2% and 5%, and writes
frontier.csv and frontier.png to results/frontier-<timestamp>/.

  bench/frontier.py --db_bench=build/db_bench --monkey_plan=build/monkey_plan
                    [--bits=3 --bits=5 ...] [--kind=bloom ...] [--num=1200000]
"""

import argparse
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.console import log, uptime  # noqa: E402
from comparison.frontier import (BUDGETS, KINDS, model_curves,  # noqa: E402
                                 run_frontier, summary, write_frontier)
from comparison.runner import Runner  # noqa: E402
from comparison.specs import DEEP_TREE_FLAGS, PRESETS, db_dir_for  # noqa


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", required=True, help="patched db_bench")
    ap.add_argument("--monkey_plan", required=True,
                    help="monkey_plan, for the model's curves")
    ap.add_argument("--bits", type=float, action="append", default=[],
                    help="a budget in bits/key (repeatable)")
    ap.add_argument("--kind", action="append", default=[],
                    choices=sorted(KINDS), help="a filter kind (repeatable; "
                    "default: all four)")
    ap.add_argument("--num", type=int,
                    default=PRESETS["deep"]["sizes"][0],
                    help="keys loaded (default: the deep preset's)")
    ap.add_argument("--reads", type=int, default=200000)
    ap.add_argument("--results", default="results")
    args = ap.parse_args()
    budgets = args.bits or BUDGETS
    kinds = args.kind or list(KINDS)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(os.path.join(args.results, f"frontier-{stamp}"))
    os.makedirs(out, exist_ok=True)
    db_dir = db_dir_for("deep", f"frontier-{stamp}", out)
    log(f"frontier: {', '.join(kinds)} at {', '.join(map(str, budgets))} "
        f"bits/key on {args.num:,} keys; tree flags: "
        + " ".join(DEEP_TREE_FLAGS))
    log(f"frontier: results in {out}; DBs in {db_dir}; {uptime()}")
    runner = Runner(args.db_bench, steps=3 * len(kinds) * len(budgets))
    points = run_frontier(runner, args.num, args.reads, out, db_dir, kinds,
                          budgets)
    if db_dir != out:
        os.rmdir(db_dir)
    keys = max(p["keys"] for p in points)
    model = model_curves(args.monkey_plan, keys, sorted(set(
        budgets + [2, 4, 6, 8, 12, 14, 18])))
    text = summary(points)
    log("")
    log("memory each kind needs for a sum FPR over runs of (measured, "
        "interpolated between budgets):")
    log(text)
    log(f"frontier: {uptime()}")
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "frontier.json"), "w") as f:
        json.dump({"command": sys.argv, "points": points, "model": model},
                  f, indent=1)
    write_frontier(out, points, model)
    log(f"frontier: wrote {out}/table.txt, frontier.csv, frontier.json and "
        "frontier.png")


if __name__ == "__main__":
    main()

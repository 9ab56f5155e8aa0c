#!/usr/bin/python3
"""Validates the advisor (monkey_plan --db) against what RocksDB then does.

For each starting filter (stock db_bench's --bloom_bits=10, and monkey:7
through the patched db_bench):
  1. load --num keys (filluniquerandom, WAL off, waitforcompaction);
  2. run the advisor: its Sigma FPR now, and the same-Sigma-FPR options
     string with the filter bytes it predicts;
  3. measure --reads absent lookups (readmissing, the patched db_bench's
     per-level filter report): false positives per lookup, against the
     advisor's Sigma FPR, in sigmas of the binomial error of its per-level
     probes at its model FPRs;
  4. load the same keys again with the advisor's string, run the advisor
     and readmissing on the rebuilt database: the bytes it realized against
     the bytes predicted.
It also times each advisor run (wall clock).
Prints a table and writes advice, reports and summary.json to
results/advisor-<timestamp>/ (bench/record.py keeps them).

  bench/advisor_validation.py --db_bench=build/db_bench \\
      --monkey_plan=build/monkey_plan [--stock_db_bench=/usr/bin/db_bench]
      [--num=16000000] [--reads=1000000] [--db_dir=/dev/shm/advisor]

Python's standard library only.
"""

import argparse
import datetime
import json
import math
import os
import shutil
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.console import run_checked  # noqa: E402


def log(text):
    print(f"advisor_validation: {text}", flush=True)


def run(cmd, out=None):
    return run_checked("advisor_validation", cmd, ROOT, out)


def advise(args, db, out, name, timings):
    start = time.monotonic()
    text = run([args.monkey_plan, f"--db={db}"])
    timings.append(time.monotonic() - start)
    with open(os.path.join(out, f"{name}_advice.txt"), "w") as f:
        f.write(text)
    advice = json.loads(run([args.monkey_plan, f"--db={db}", "--json"]))
    with open(os.path.join(out, f"{name}_advice.json"), "w") as f:
        json.dump(advice, f, indent=1, sort_keys=True)
    return advice["column_families"][0]


def readmissing(args, db, filter_uri, out, name):
    text = run([args.db_bench, f"--db={db}", "--use_existing_db=1",
                "--benchmarks=readmissing", f"--num={args.num}",
                f"--reads={args.reads}", "--seed=2", "--statistics",
                f"--filter_uri={filter_uri}"],
               os.path.join(out, f"{name}_readmissing.log"))
    for line in text.splitlines():
        if line.startswith("filter_report_json: "):
            report = json.loads(line[len("filter_report_json: "):])
            with open(os.path.join(out, f"{name}_readmissing.json"), "w") as f:
                json.dump(report, f, indent=1, sort_keys=True)
            return report
    sys.exit(f"advisor_validation: no filter report from {db}")


def agreement(advice, report):
    """The advisor's Sigma FPR against the measured false positives per
    lookup: sigma = sqrt(sum of probes p (1 - p)) / lookups, p each level's
    model FPR, probes the lookups that reached it."""
    model = {lv["level"]: lv["model_fpr"] for lv in advice["levels"]}
    var = sum(lv["probes"] * model[lv["level"]] * (1 - model[lv["level"]])
              for lv in report["levels"] if lv["level"] in model)
    sigma = math.sqrt(var) / report["absent_lookups"]
    measured = report["fp_per_absent_lookup"]
    return {"advisor_sum_fpr": advice["sum_fpr_now"],
            "fp_per_lookup": measured, "sigma": sigma,
            "z": (advice["sum_fpr_now"] - measured) / sigma}


def validate(args, out, name, load, timings):
    """Loads with `load` (a command), advises, measures, rebuilds with the
    advice, and measures again."""
    db = os.path.join(args.db_dir, name)
    fill = [f"--db={db}", "--benchmarks=filluniquerandom,waitforcompaction",
            f"--num={args.num}", "--seed=1", "--disable_wal=1"]
    run(load["bench"] + fill + load["flags"],
        os.path.join(out, f"{name}_load.log"))
    advice = advise(args, db, out, name, timings)
    row = {"database": name, "filter": load["label"],
           "filter_bytes": advice["filter_bytes_now"],
           **agreement(advice, readmissing(args, db, load["uri"], out,
                                           name))}
    shutil.rmtree(db, ignore_errors=True)
    options = advice["same_fpr"]["options"]
    rebuilt = db + "_rebuilt"
    run([args.db_bench, f"--db={rebuilt}", *fill[1:],
         f"--filter_uri={options}"],
        os.path.join(out, f"{name}_rebuilt_load.log"))
    rebuilt_advice = advise(args, rebuilt, out, name + "_rebuilt",
                            timings)
    rebuilt_row = {"database": name + "_rebuilt", "filter": options,
                   "filter_bytes": rebuilt_advice["filter_bytes_now"],
                   **agreement(rebuilt_advice,
                               readmissing(args, rebuilt, options, out,
                                           name + "_rebuilt"))}
    shutil.rmtree(rebuilt, ignore_errors=True)
    predicted = advice["same_fpr"]["filter_bytes"]
    saving = {"database": name, "options": options,
              "filter_bytes_now": advice["filter_bytes_now"],
              "predicted_bytes": predicted,
              "predicted_saving": advice["same_fpr"]["saving"],
              "realized_bytes": rebuilt_advice["filter_bytes_now"],
              "realized_saving": 1 - rebuilt_advice["filter_bytes_now"] /
              advice["filter_bytes_now"],
              "realized_over_predicted_bytes":
              rebuilt_advice["filter_bytes_now"] / predicted}
    return [row, rebuilt_row], saving


def table(summary):
    lines = ["database            advisor sum FPR  FP per lookup  sigma     "
             "z      filter bytes"]
    for r in summary["agreement"]:
        lines.append(f"{r['database']:<19} {r['advisor_sum_fpr']:>15.4%}  "
                     f"{r['fp_per_lookup']:>13.4%}  {r['sigma']:.4%}  "
                     f"{r['z']:+.2f}  {r['filter_bytes']:>12,}")
    lines.append("")
    lines.append("database  suggestion                                "
                 "predicted bytes (saved)  realized bytes (saved)  "
                 "realized / predicted")
    for s in summary["savings"]:
        lines.append(
            f"{s['database']:<9} {s['options']:<41} "
            f"{s['predicted_bytes']:>13,} ({s['predicted_saving']:.2%})  "
            f"{s['realized_bytes']:>12,} ({s['realized_saving']:.2%})  "
            f"{s['realized_over_predicted_bytes']:.4f}")
    seconds = summary["advisor_seconds"]
    lines.append("")
    lines.append(f"advisor wall time: {min(seconds):.2f}-{max(seconds):.2f} s "
                 f"over {len(seconds)} runs")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", required=True, help="patched db_bench")
    ap.add_argument("--monkey_plan", required=True)
    ap.add_argument("--stock_db_bench", default="/usr/bin/db_bench",
                    help="an unpatched db_bench for the Bloom database")
    ap.add_argument("--num", type=int, default=16000000)
    ap.add_argument("--reads", type=int, default=1000000)
    ap.add_argument("--db_dir", default="/dev/shm/advisor")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    args = ap.parse_args()
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.join(args.results, f"advisor-{stamp}")
    os.makedirs(out)
    os.makedirs(args.db_dir, exist_ok=True)
    log(f"results in {out}; DBs in {args.db_dir}")
    loads = [
        ("bloom10", {"label": "stock db_bench --bloom_bits=10",
                     "bench": [args.stock_db_bench],
                     "flags": ["--bloom_bits=10"],
                     "uri": "bloomfilter:10"}),
        ("monkey7", {"label": "monkey:7", "bench": [args.db_bench],
                     "flags": ["--filter_uri=monkey:7"], "uri": "monkey:7"}),
    ]
    summary = {"num": args.num, "reads": args.reads, "agreement": [],
               "savings": [], "advisor_seconds": []}
    for name, load in loads:
        rows, saving = validate(args, out, name, load,
                                summary["advisor_seconds"])
        summary["agreement"] += rows
        summary["savings"].append(saving)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    text = table(summary)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

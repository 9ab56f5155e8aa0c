# The depth sweep behind bench/depth_sweep.py: TDStore's three groups on the
# deep preset's trees, measured at every depth they pass through, next to
# the model's prediction out to 10 runs and TDStore's published ratios.
#
# Depth comes two ways. A tree's size sets how many levels sit above its last
# one under dynamic sizing (300k keys: L4 and L5; 1.2M: L3 to L5), and L0
# files add one run each: after the load, the sweep measures, then flushes
# one L0 file and measures again, up to the files a quiet tree keeps. So two
# loads per configuration give 2 to 6 filtered runs.

import csv
import os
import shutil
import subprocess

from comparison.console import log
from comparison.figures import summarize
from comparison.parse import parse_levelstats, parse_output, plan_sums
from comparison.plots import run_gnuplot
from comparison.specs import (COMMON_FLAGS, DEEP_L0_FILE_KEYS, DEEP_L0_FILES,
                              DEEP_TREE_FLAGS, TDSTORE_CONFIGS, deep_l0_files,
                              parse_config, workload_phases)

# TDStore's groups (fixed10, monkey10, monkey7: no last-level filter).
CONFIGS = TDSTORE_CONFIGS[:3]
BASE = "fixed10"
# Monkey over fixed10 in TDStore's large test (seeds/000): sum of per-level
# FPR 1.4% and 5.32% against 7.728%; filter cache 15.8 and 11.1 GB
# against 15.1 GB.
TDSTORE_RATIOS = {"monkey10": {"sum_fpr": 1.4 / 7.728, "bytes": 15.8 / 15.1},
                  "monkey7": {"sum_fpr": 5.32 / 7.728, "bytes": 11.1 / 15.1}}
MODEL_MAX_RUNS = 10


def steps(num, reads):
    """The db_bench phases one tree goes through: the deep preset's load,
    then its measurement after it and after each L0 file; (name, flags) in
    order, every measure named 'measure'."""
    phases = dict((p, flags) for p, flags, _ in
                  workload_phases("deep", num, reads, 1, 0))
    out = [("load", phases["load"]), ("measure", phases["measure"])]
    for _ in range(DEEP_L0_FILES):
        out += [("l0 file", deep_l0_files(num, 1)),
                ("measure", phases["measure"])]
    return out


def model_ratios(monkey_plan, runs):
    """The model's sum FPR of monkey at 10 and 7 bits/key over uniform
    10 bits, for `runs` filtered runs above an unfiltered last level, T =
    10 (monkey_plan's static plan, each run T times the one above)."""
    def sums(bits):
        text = subprocess.run(
            [monkey_plan, f"--bits_per_key={bits}", "--size_ratio=10",
             f"--num_levels={runs + 1}", "--last_level_filter=false"],
            check=True, capture_output=True, text=True).stdout
        sums = plan_sums(text)
        if sums is None:
            raise RuntimeError(f"{monkey_plan}: no sum FPR line in:\n{text}")
        return sums[1], sums[3]
    monkey10, uniform10 = sums(10)
    monkey7, _ = sums(7)
    return {"monkey10": monkey10 / uniform10, "monkey7": monkey7 / uniform10}


def run_sweep(runner, sizes, reads, out, db_dir, configs=None):
    """Every configuration through every tree of `sizes`; returns one point
    per measurement: num, label, step (L0 files added), filtered runs, sum
    FPR over runs, filter bytes and the tree."""
    points = []
    for config in configs or [parse_config(c) for c in CONFIGS]:
        filt = ([f"--filter_uri={config['filter_uri']}"]
                if config["filter_uri"] else [])
        for num in sizes:
            db = os.path.join(db_dir, f"depth-{num}-{config['label']}")
            base = ([f"--db={db}"] + DEEP_TREE_FLAGS + COMMON_FLAGS + filt
                    + config["flags"])
            added = 0
            for name, flags in steps(num, reads):
                if name == "l0 file":
                    added += 1
                log_path = os.path.join(
                    out, f"{num}-{config['label']}-{name.replace(' ', '')}"
                    f"-{added}.log")
                what = f"{num:,} keys, {config['label']}: {name}"
                if name != "load":
                    what += f" ({added} L0 files added)"
                ops = {"measure": reads, "l0 file": DEEP_L0_FILE_KEYS}
                text, _, _ = runner.run_db_bench(
                    what, base + flags, log_path, ops.get(name, num))
                if name != "measure":
                    continue
                benchmarks, reports, plan = parse_output(text)
                s = summarize({"reports": reports, "benchmarks": benchmarks,
                               "plan": plan})
                points.append({"num": num, "label": config["label"],
                               "l0_files_added": added,
                               "filtered_runs": s["filtered_runs"],
                               "runs_probed": s["runs_probed"],
                               "sum_fpr_runs": s["sum_fpr_runs"],
                               "model_sum_fpr_runs": s["model_sum_fpr_runs"],
                               "filter_bytes": s["filter_bytes"],
                               "tree": parse_levelstats(text)})
            shutil.rmtree(db, ignore_errors=True)
    return points


def ratios(points):
    """Each Monkey point over fixed10's at the same tree and step, keyed by
    fixed10's filtered runs there: [{runs, label, sum_fpr, bytes}]."""
    base = {(p["num"], p["l0_files_added"]): p for p in points
            if p["label"] == BASE}
    out = []
    for p in points:
        b = base.get((p["num"], p["l0_files_added"]))
        if p["label"] == BASE or b is None or not b["sum_fpr_runs"] or \
                not b["filter_bytes"] or p["sum_fpr_runs"] is None:
            continue
        out.append({"num": p["num"], "l0_files_added": p["l0_files_added"],
                    "runs": b["filtered_runs"], "label": p["label"],
                    "sum_fpr": p["sum_fpr_runs"] / b["sum_fpr_runs"],
                    "bytes": p["filter_bytes"] / b["filter_bytes"]})
    return sorted(out, key=lambda r: (r["label"], r["runs"], r["num"]))


def table(rows, model):
    """The ratios by depth, with the model's sum FPR ratio beside each."""
    lines = [f"{'group':<10}{'keys':>11}{'L0 added':>10}{'runs':>6}"
             f"{'sum FPR x':>11}{'model x':>9}{'bytes x':>9}"]
    for r in rows:
        m = model.get(int(r["runs"]), {}).get(r["label"])
        lines.append(f"{r['label']:<10}{r['num']:>11,}{r['l0_files_added']:>10}"
                     f"{r['runs']:>6.0f}{r['sum_fpr']:>11.3f}"
                     f"{'-' if m is None else f'{m:.3f}':>9}"
                     f"{r['bytes']:>9.3f}")
    return "\n".join(lines)


def write_depth(out, points, rows, model):
    """depth.csv (every measurement), ratio_vs_runs.csv, model.csv and
    ratio_vs_runs.png (gnuplot, if installed)."""
    with open(os.path.join(out, "depth.csv"), "w", newline="") as f:
        w = csv.writer(f)
        fields = [k for k in points[0] if k != "tree"] if points else []
        w.writerow(fields + ["tree"])
        for p in points:
            w.writerow([p[k] for k in fields] + [" ".join(
                f"L{t['level']}:{t['files']}" for t in p["tree"])])
    for label in TDSTORE_RATIOS:
        with open(os.path.join(out, f"ratio_{label}.csv"), "w",
                  newline="") as f:
            w = csv.writer(f)
            w.writerow(["runs", "sum_fpr_ratio", "bytes_ratio"])
            w.writerows((r["runs"], r["sum_fpr"], r["bytes"]) for r in rows
                        if r["label"] == label)
    with open(os.path.join(out, "model.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["runs", "monkey10", "monkey7"])
        w.writerows((n, m["monkey10"], m["monkey7"])
                    for n, m in sorted(model.items()))
    if shutil.which("gnuplot") is None:
        log("depth_sweep: gnuplot not found; no plot")
        return
    t = TDSTORE_RATIOS
    script = [
        "set datafile separator ','",
        "set terminal pngcairo size 900,600 noenhanced",
        "set output 'ratio_vs_runs.png'",
        "set title 'Monkey over fixed 10 bits/key (no last-level filter), "
        "by filtered runs'",
        "set xlabel 'filtered runs above the last level'",
        "set ylabel 'monkey / fixed10'", "set grid", "set key outside right",
        f"set xrange [0.5:{MODEL_MAX_RUNS + 0.5}]", "set logscale y",
        "set yrange [0.1:4]",
        "set xtics 1",
        "plot 'ratio_monkey10.csv' using 1:2 skip 1 with points pt 7 ps 1.5 "
        "lc 1 title 'monkey10 sum FPR', "
        "'ratio_monkey7.csv' using 1:2 skip 1 with points pt 7 ps 1.5 lc 2 "
        "title 'monkey7 sum FPR', "
        "'ratio_monkey10.csv' using 1:3 skip 1 with points pt 4 ps 1.5 lc 1 "
        "title 'monkey10 bytes', "
        "'ratio_monkey7.csv' using 1:3 skip 1 with points pt 4 ps 1.5 lc 2 "
        "title 'monkey7 bytes', "
        "'model.csv' using 1:2 skip 1 with lines lc 1 lw 2 "
        "title 'model: monkey10 sum FPR', "
        "'model.csv' using 1:3 skip 1 with lines lc 2 lw 2 "
        "title 'model: monkey7 sum FPR', "
        f"{t['monkey10']['sum_fpr']:.4f} with lines lc 1 dt 2 "
        "title 'TDStore monkey10 sum FPR', "
        f"{t['monkey7']['sum_fpr']:.4f} with lines lc 2 dt 2 "
        "title 'TDStore monkey7 sum FPR', "
        f"{t['monkey10']['bytes']:.4f} with lines lc 1 dt 3 "
        "title 'TDStore monkey10 bytes', "
        f"{t['monkey7']['bytes']:.4f} with lines lc 2 dt 3 "
        "title 'TDStore monkey7 bytes'",
    ]
    run_gnuplot(out, "ratio_vs_runs.gnuplot", script, "depth_sweep")

# The depth sweep behind bench/depth_sweep.py: TDStore's three groups on the
# deep preset's trees, measured at every depth they pass through, next to
# the model's prediction out to 10 runs and TDStore's published ratios.
#
# Depth comes two ways. A tree's size sets how many levels sit above its last
# one under dynamic sizing (300k keys: L4 and L5; 1.2M: L3 to L5), and L0
# files add one run each: after the load, the sweep measures, then flushes
# one L0 file and measures again, up to the files a quiet tree keeps. So two
# loads per configuration give 2 to 6 filtered runs.
#
# The universal row (--universal) follows a universal tree through the
# cycle it repeats between merges: one sorted run after a full compaction
# (the size-amplification merge), then one flush after another until the
# next would reach the compaction trigger -- 1 to UNIVERSAL_RUNS_AT_REST
# runs, every run probed by every absent key. It is judged by false
# positives per absent-key lookup against the model's for the filters as
# built (the filter report's) and, where the advisor reads universal trees,
# against its optimum for the runs and bytes.

import csv
import os
import shutil
import subprocess

from comparison.console import log
from comparison.figures import advisor_figures, sorted_runs, summarize
from comparison.parse import (parse_levelstats, parse_output, parse_tickers,
                              plan_sums)
from comparison.plots import run_gnuplot
from comparison.runner import advise, ticker_fp_per_lookup
from comparison.specs import (COMMON_FLAGS, DEEP_L0_FILE_KEYS, DEEP_L0_FILES,
                              DEEP_TREE_FLAGS, TDSTORE_CONFIGS,
                              UNIVERSAL_CONFIGS, UNIVERSAL_L0_FILE_KEYS,
                              UNIVERSAL_RUNS_AT_REST, UNIVERSAL_TREE_FLAGS,
                              deep_l0_files, parse_config, workload_phases)

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


def sweep(runner, sizes, reads, out, db_dir, configs, tree_flags, steps_of,
          point_of, file_keys):
    """Every configuration through every tree of `sizes`, the db_bench
    phases of `steps_of(num, reads)`; returns point_of(num, label, L0 files
    added, measure's output, DB) for every measurement."""
    points = []
    for config in configs:
        filt = ([f"--filter_uri={config['filter_uri']}"]
                if config["filter_uri"] else [])
        for num in sizes:
            db = os.path.join(db_dir, f"depth-{num}-{config['label']}")
            base = ([f"--db={db}"] + tree_flags + COMMON_FLAGS + filt
                    + config["flags"])
            added = 0
            for name, flags in steps_of(num, reads):
                if name == "l0 file":
                    added += 1
                log_path = os.path.join(
                    out, f"{num}-{config['label']}-{name.replace(' ', '')}"
                    f"-{added}.log")
                what = f"{num:,} keys, {config['label']}: {name}"
                if name != "load":
                    what += f" ({added} L0 files added)"
                ops = {"measure": reads, "l0 file": file_keys}
                text, _, _ = runner.run_db_bench(
                    what, base + flags, log_path, ops.get(name, num))
                if name == "measure":
                    points.append(point_of(num, config["label"], added, text,
                                           db))
            shutil.rmtree(db, ignore_errors=True)
    return points


def deep_point(num, label, added, text, db):
    """A deep tree's measurement: filtered runs, sum FPR over runs, filter
    bytes and the tree."""
    benchmarks, reports, plan = parse_output(text)
    s = summarize({"reports": reports, "benchmarks": benchmarks,
                   "plan": plan})
    return {"num": num, "label": label, "l0_files_added": added,
            "filtered_runs": s["filtered_runs"],
            "runs_probed": s["runs_probed"],
            "sum_fpr_runs": s["sum_fpr_runs"],
            "model_sum_fpr_runs": s["model_sum_fpr_runs"],
            "filter_bytes": s["filter_bytes"],
            "tree": parse_levelstats(text)}


def run_sweep(runner, sizes, reads, out, db_dir, configs=None):
    """Every configuration through every tree of `sizes`; returns one point
    per measurement: num, label, step (L0 files added), filtered runs, sum
    FPR over runs, filter bytes and the tree."""
    return sweep(runner, sizes, reads, out, db_dir,
                 configs or [parse_config(c) for c in CONFIGS],
                 DEEP_TREE_FLAGS, steps, deep_point, DEEP_L0_FILE_KEYS)


# The universal row's configurations and the one the others are over.
UNIVERSAL_BASE = "bloomfilter:10"


def universal_steps(num, reads):
    """The db_bench phases of one universal tree: the load, ending in a full
    compaction (one sorted run), and a measurement; then an L0 file and a
    measurement, until the tree holds UNIVERSAL_RUNS_AT_REST runs."""
    measure = dict((p, flags) for p, flags, _ in workload_phases(
        "universal", num, reads, 1, 0))["measure"]
    load = ["--benchmarks=fillrandom,flush,waitforcompaction,compact,"
            "levelstats", f"--num={num}", "--threads=1"]
    out = [("load", load), ("measure", measure)]
    for _ in range(UNIVERSAL_RUNS_AT_REST - 1):
        out += [("l0 file", deep_l0_files(num, 1, (),
                                          UNIVERSAL_L0_FILE_KEYS)),
                ("measure", measure)]
    return out


def universal_point_of(monkey_plan):
    """point_of for universal trees: sorted runs (levelstats), measured FP
    per absent lookup (filter report and tickers), the model's for the
    filters as built, filter bytes, and, with `monkey_plan`, the advisor's
    figures on the DB at rest."""
    def point(num, label, added, text, db):
        benchmarks, reports, plan = parse_output(text)
        result = {"reports": reports, "benchmarks": benchmarks, "plan": plan}
        if monkey_plan:
            result["advice"] = advise(monkey_plan, db)
        s = summarize(result)
        tree = parse_levelstats(text)
        return dict({"num": num, "label": label, "l0_files_added": added,
                     "sorted_runs": sorted_runs(tree) if tree else None,
                     "fp_per_absent_lookup": s["fp_per_absent_lookup"],
                     "ticker_fp_per_lookup": ticker_fp_per_lookup(
                         reports, parse_tickers(text)),
                     "model_fp_per_absent_lookup":
                     s["model_fp_per_absent_lookup"],
                     "filter_bytes": s["filter_bytes"],
                     "bits_per_key": s["bits_per_key"], "tree": tree},
                    **advisor_figures(result))
    return point


def run_universal_sweep(runner, sizes, reads, out, db_dir, monkey_plan=None,
                        configs=None):
    """UNIVERSAL_CONFIGS (or `configs`) through the universal cycle at every
    size; one point per measurement (universal_point_of)."""
    return sweep(runner, sizes, reads, out, db_dir,
                 configs or [parse_config(c) for c in UNIVERSAL_CONFIGS],
                 UNIVERSAL_TREE_FLAGS, universal_steps,
                 universal_point_of(monkey_plan), UNIVERSAL_L0_FILE_KEYS)


def universal_ratios(points):
    """Each Monkey point over bloomfilter:10's at the same tree and step:
    [{num, l0_files_added, runs, label, fp, bytes, model, optimum}] -- fp
    the measured FP per lookup ratio, model the model's ratio for the
    filters as built, optimum the advisor's optimum for the Monkey tree's
    runs and bytes over bloomfilter:10's filters as built (None without
    the advisor's universal figures)."""
    base = {(p["num"], p["l0_files_added"]): p for p in points
            if p["label"] == UNIVERSAL_BASE}
    out = []
    for p in points:
        b = base.get((p["num"], p["l0_files_added"]))
        if p["label"] == UNIVERSAL_BASE or b is None or \
                not b["fp_per_absent_lookup"] or not b["filter_bytes"] or \
                p["fp_per_absent_lookup"] is None:
            continue
        model = (p["model_fp_per_absent_lookup"]
                 / b["model_fp_per_absent_lookup"]
                 if p["model_fp_per_absent_lookup"] is not None
                 and b["model_fp_per_absent_lookup"] else None)
        optimum = (p["advisor_optimum"] / b["advisor_fp_now"]
                   if p["advisor_optimum"] is not None
                   and b["advisor_fp_now"] else None)
        out.append({"num": p["num"], "l0_files_added": p["l0_files_added"],
                    "runs": b["sorted_runs"], "label": p["label"],
                    "fp": p["fp_per_absent_lookup"]
                    / b["fp_per_absent_lookup"],
                    "bytes": p["filter_bytes"] / b["filter_bytes"],
                    "model": model, "optimum": optimum})
    return sorted(out, key=lambda r: (r["label"], r["num"],
                                      r["l0_files_added"]))


def universal_table(points, rows):
    """Every measurement's FP per absent lookup with the model's, then each
    Monkey configuration over bloomfilter:10 by sorted runs."""
    def cell(v, fmt="{:.4f}"):
        return "-" if v is None else fmt.format(v)
    lines = [f"{'config':<16}{'keys':>11}{'runs':>6}{'FP/lookup':>11}"
             f"{'model':>9}{'advisor':>9}{'optimum':>9}{'bits/key':>10}"]
    for p in sorted(points, key=lambda p: (p["label"], p["num"],
                                           p["l0_files_added"])):
        lines.append(f"{p['label']:<16}{p['num']:>11,}"
                     f"{cell(p['sorted_runs'], '{:d}'):>6}"
                     f"{cell(p['fp_per_absent_lookup']):>11}"
                     f"{cell(p['model_fp_per_absent_lookup']):>9}"
                     f"{cell(p['advisor_fp_now']):>9}"
                     f"{cell(p['advisor_optimum']):>9}"
                     f"{cell(p['bits_per_key'], '{:.2f}'):>10}")
    lines.append("")
    lines.append(f"{'over ' + UNIVERSAL_BASE:<16}{'keys':>11}{'runs':>6}"
                 f"{'FP x':>9}{'model x':>9}{'optimum x':>11}{'bytes x':>9}")
    for r in rows:
        lines.append(f"{r['label']:<16}{r['num']:>11,}"
                     f"{cell(r['runs'], '{:d}'):>6}{r['fp']:>9.3f}"
                     f"{cell(r['model'], '{:.3f}'):>9}"
                     f"{cell(r['optimum'], '{:.3f}'):>11}{r['bytes']:>9.3f}")
    return "\n".join(lines)


def write_universal(out, points, rows):
    """universal.csv (every measurement), universal_ratios.csv and, with
    gnuplot, universal_vs_runs.png: each Monkey configuration's FP per
    lookup over bloomfilter:10's by sorted runs, measured and model."""
    with open(os.path.join(out, "universal.csv"), "w", newline="") as f:
        w = csv.writer(f)
        fields = [k for k in points[0] if k != "tree"] if points else []
        w.writerow(fields + ["tree"])
        for p in points:
            w.writerow([p[k] for k in fields] + [" ".join(
                f"L{t['level']}:{t['files']}" for t in p["tree"] or [])])
    labels = sorted({r["label"] for r in rows})
    for i, label in enumerate(labels):
        with open(os.path.join(out, f"universal_{i}.csv"), "w",
                  newline="") as f:
            w = csv.writer(f)
            w.writerow(["runs", "fp_ratio", "model_ratio", "optimum_ratio",
                        "bytes_ratio"])
            w.writerows((r["runs"], r["fp"], "" if r["model"] is None
                         else r["model"], "" if r["optimum"] is None
                         else r["optimum"], r["bytes"]) for r in rows
                        if r["label"] == label)
    if not labels or shutil.which("gnuplot") is None:
        log("depth_sweep: no Monkey ratios or no gnuplot; no plot")
        return
    plots = []
    for i, label in enumerate(labels):
        plots += [f"'universal_{i}.csv' using 1:2 skip 1 with points pt 7 "
                  f"ps 1.5 lc {i + 1} title '{label} measured'",
                  f"'universal_{i}.csv' using 1:3 skip 1 with lines lc "
                  f"{i + 1} lw 2 title '{label} model, as built'"]
    script = [
        "set datafile separator ','",
        "set terminal pngcairo size 900,600 noenhanced",
        "set output 'universal_vs_runs.png'",
        f"set title 'Universal compaction: FP per absent lookup over "
        f"{UNIVERSAL_BASE}, by sorted runs'",
        "set xlabel 'sorted runs at rest'",
        f"set ylabel 'config / {UNIVERSAL_BASE}'", "set grid",
        "set key outside right", "set xtics 1",
        "plot " + ", ".join(plots),
    ]
    run_gnuplot(out, "universal_vs_runs.gnuplot", script, "depth_sweep")


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

# The Sigma FPR-memory frontier behind bench/frontier.py: uniform Bloom,
# uniform Ribbon, Monkey with Bloom and Monkey with Ribbon on the deep
# preset's tree, each at a sweep of budgets, against the model's curves and
# the information-theoretic bound.
#
# The bound. Runs of key shares p_i with filters of FPR e_i need at least
# sum_i p_i log2(1/e_i) bits per key (a filter of FPR e holds log2(1/e) bits
# per key at best). The least sum of e_i for b bits per key is then, by
# Lagrange, e_i proportional to p_i: sum e_i = e^H * 2^-b, H the entropy of
# the shares in nats. Monkey approaches it as the filters approach the
# ideal; Bloom's ln(2)^2 bits per nat keep it 44% above in bits.

import csv
import math
import os
import shutil
import subprocess

from comparison.console import log
from comparison.figures import filtered_levels, summarize
from comparison.parse import parse_levelstats, parse_output, plan_sums
from comparison.plots import run_gnuplot
from comparison.specs import COMMON_FLAGS, DEEP_TREE_FLAGS, workload_phases

KINDS = {
    "bloom": "bloomfilter:{b:g}",
    "ribbon": "ribbonfilter:{b:g}",
    "monkey": "id=monkey;bits_per_key={b:g}",
    "monkey-ribbon": "id=monkey;bits_per_key={b:g};filter=ribbon",
}
BUDGETS = [3, 5, 7, 10, 13, 16]
TARGETS = [0.01, 0.02, 0.05]


def run_shares(report):
    """The key share of every filtered run of a report (figures'
    filtered_levels): each L0 file, its level's keys split evenly, and each
    other level."""
    runs = []
    for l, n in filtered_levels(report):
        runs += [l["entries"] / n] * n
    total = sum(runs)
    return [r / total for r in runs if r > 0] if total else []


def entropy(shares):
    return -sum(p * math.log(p) for p in shares if p > 0)


def bound_bits(shares, sum_fpr):
    """The least bits per key any filters need for `sum_fpr` over runs of
    these shares (e^H * 2^-b = sum_fpr)."""
    return (entropy(shares) - math.log(sum_fpr)) / math.log(2)


def run_frontier(runner, num, reads, out, db_dir, kinds, budgets):
    """One point per kind and budget: label, kind, bits, filter bytes,
    keys with filters, sum FPR over runs, false positives per lookup and
    the bound's bytes at that sum FPR."""
    points = []
    phases = workload_phases("deep", num, reads, 1, 0)
    for kind in kinds:
        for b in budgets:
            uri = KINDS[kind].format(b=b)
            db = os.path.join(db_dir, f"frontier-{kind}-{b:g}")
            base = [f"--db={db}"] + DEEP_TREE_FLAGS + COMMON_FLAGS + [
                f"--filter_uri={uri}"]
            text = ""
            for phase, flags, ops in phases:
                log_path = os.path.join(out, f"{kind}-{b:g}-{phase}.log")
                text, _, _ = runner.run_db_bench(
                    f"{kind} at {b:g} bits/key: {phase}", base + flags,
                    log_path, ops)
            shutil.rmtree(db, ignore_errors=True)
            benchmarks, reports, plan = parse_output(text)
            s = summarize({"reports": reports, "benchmarks": benchmarks,
                           "plan": plan})
            report = reports.get("readmissing", {})
            shares = run_shares(report)
            keys = report.get("filter_entries_total", 0)
            point = {"kind": kind, "bits_per_key": b, "uri": uri,
                     "filter_bytes": s["filter_bytes"], "keys": keys,
                     "sum_fpr_runs": s["sum_fpr_runs"],
                     "fp_per_absent_lookup": s["fp_per_absent_lookup"],
                     "filtered_runs": s["filtered_runs"],
                     "entropy": entropy(shares),
                     "tree": parse_levelstats(text)}
            if s["sum_fpr_runs"] and shares and keys:
                point["bound_bytes"] = (bound_bits(shares, s["sum_fpr_runs"])
                                        * keys / 8)
            points.append(point)
            log(f"    {kind} {b:g}: {s['filter_bytes'] or 0:,} filter bytes, "
                f"sum FPR over runs {100 * (s['sum_fpr_runs'] or 0):.3f}%")
    return points


def bytes_for(points, kind, target):
    """The filter bytes `kind` needs for a sum FPR of `target`: linear in
    log(sum FPR) between the two budgets around it; None outside them."""
    curve = sorted((p["sum_fpr_runs"], p["filter_bytes"]) for p in points
                   if p["kind"] == kind and p["sum_fpr_runs"])
    for (f1, b1), (f2, b2) in zip(curve, curve[1:]):
        if f1 <= target <= f2 and f2 > f1:
            t = (math.log(target) - math.log(f1)) / (math.log(f2) -
                                                      math.log(f1))
            return b1 + t * (b2 - b1)
    return None


def model_curves(monkey_plan, keys, budgets):
    """The static model's sum FPR by bytes for `keys` keys in 7 runs (L0 to
    L6, T = 10): [(kind, bytes, sum_fpr)] for every kind."""
    out = []
    for model in ("bloom", "ribbon"):
        for b in budgets:
            text = subprocess.run(
                [monkey_plan, f"--bits_per_key={b}", "--size_ratio=10",
                 "--num_levels=7", f"--model={model}"],
                check=True, capture_output=True, text=True).stdout
            m_bits, m_fpr, u_bits, u_fpr = plan_sums(text)
            monkey = "monkey" if model == "bloom" else "monkey-ribbon"
            out.append((monkey, m_bits * keys / 8, m_fpr))
            out.append((model, u_bits * keys / 8, u_fpr))
    return out


def summary(points):
    """Lines: the bytes each kind needs at each target, Monkey's over
    uniform Bloom's, and Monkey with Ribbon over the bound."""
    lines = [f"{'sum FPR':>8}" + "".join(f"{k:>15}" for k in KINDS)
             + f"{'monkey/bloom':>14}"]
    for t in TARGETS:
        need = {k: bytes_for(points, k, t) for k in KINDS}
        ratio = (need["monkey"] / need["bloom"]
                 if need["monkey"] and need["bloom"] else None)
        lines.append(f"{100 * t:>7g}%" + "".join(
            f"{'-' if v is None else f'{v / 1024:,.1f} KiB':>15}"
            for v in need.values())
            + f"{'-' if ratio is None else f'{ratio:.3f}x':>14}")
    over = [p["filter_bytes"] / p["bound_bytes"] for p in points
            if p["kind"] == "monkey-ribbon" and p.get("bound_bytes")]
    if over:
        lines.append(f"monkey-ribbon bytes over the bound: "
                     f"{min(over):.3f}x to {max(over):.3f}x")
    return "\n".join(lines)


def write_frontier(out, points, model):
    """frontier.csv, model_frontier.csv and frontier.png (gnuplot)."""
    fields = [k for k in points[0] if k != "tree"] if points else []
    for kind in KINDS:
        with open(os.path.join(out, f"frontier_{kind}.csv"), "w",
                  newline="") as f:
            w = csv.writer(f)
            w.writerow(["kib", "sum_fpr_percent", "bound_kib"])
            w.writerows((p["filter_bytes"] / 1024, 100 * p["sum_fpr_runs"],
                         p.get("bound_bytes", 0) / 1024) for p in points
                        if p["kind"] == kind and p["sum_fpr_runs"])
        with open(os.path.join(out, f"model_{kind}.csv"), "w",
                  newline="") as f:
            w = csv.writer(f)
            w.writerow(["kib", "sum_fpr_percent"])
            w.writerows((b / 1024, 100 * s) for k, b, s in model if k == kind)
    with open(os.path.join(out, "frontier.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(fields)
        w.writerows([p.get(k) for k in fields] for p in points)
    if shutil.which("gnuplot") is None:
        log("frontier: gnuplot not found; no plot")
        return
    plots = []
    for i, kind in enumerate(KINDS):
        plots.append(f"'frontier_{kind}.csv' using 1:2 skip 1 with "
                     f"linespoints pt 7 lc {i + 1} lw 2 title '{kind}'")
        plots.append(f"'model_{kind}.csv' using 1:2 skip 1 with lines "
                     f"dt 2 lc {i + 1} title '{kind} model'")
    plots.append("'frontier_monkey-ribbon.csv' using 3:2 skip 1 with lines "
                 "lc rgb 'black' lw 2 title 'bound e^H 2^-b'")
    script = [
        "set datafile separator ','",
        "set terminal pngcairo size 960,620 noenhanced",
        "set output 'frontier.png'",
        "set title 'Sum FPR over runs against filter memory, deep tree'",
        "set xlabel 'filter memory (KiB)'", "set ylabel 'sum FPR (%)'",
        "set logscale y", "set grid", "set key outside right",
        "plot " + ", ".join(plots),
    ]
    run_gnuplot(out, "frontier.gnuplot", script, "frontier")

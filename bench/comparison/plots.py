# gnuplot plots of a comparison: realized bits/key and measured FPR per level
# (largest size), sum FPR against filter memory, and, with several sizes,
# sum FPR as the tree grows. Writes the data files and plots.gnuplot, then
# runs gnuplot in the results directory.

import csv
import os
import shutil
import subprocess

from comparison.console import log
from comparison.figures import labels_in_order, summarize


def write_data(out, results, level_csv):
    """The CSV files the plots read: (per-level series, whether
    sum_fpr_vs_memory.csv has a point, per-size series), each series a list
    of (file name, label)."""
    sizes = sorted({r["num"] for r in results})
    labels = labels_in_order(results)
    big = sizes[-1]
    series = []
    for i, label in enumerate(labels):
        rows = [l for l in level_csv if l["config"] == label
                and l["keys"] == big and l["filter_bytes"]]
        if not rows:
            continue
        path = os.path.join(out, f"levels_{i}.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["level", "bits_per_key", "fpr_percent",
                        "model_fpr_percent"])
            for l in rows:
                w.writerow([l["level"], l["bits_per_key"],
                            "" if l["fpr"] is None else 100 * l["fpr"],
                            "" if l["model_fpr"] is None
                            else 100 * l["model_fpr"]])
        series.append((os.path.basename(path), label))
    points = 0
    with open(os.path.join(out, "sum_fpr_vs_memory.csv"), "w",
              newline="") as f:
        w = csv.writer(f)
        w.writerow(["keys", "label", "filter_mib", "sum_fpr_percent"])
        for r in results:
            s = summarize(r)
            if s["sum_fpr"] is not None and s["filter_bytes"]:
                label = r["config"]["label"]
                if len(sizes) > 1:
                    label += f" ({r['num'] / 1e6:g}M)"
                w.writerow([r["num"], label, s["filter_bytes"] / 2**20,
                            100 * s["sum_fpr"]])
                points += 1
    by_keys = []
    for i, label in enumerate(labels):
        rows = [(r["num"], summarize(r)["sum_fpr"]) for r in results
                if r["config"]["label"] == label]
        rows = [(n, v) for n, v in rows if v is not None]
        if len(sizes) > 1 and rows:
            path = os.path.join(out, f"sum_fpr_{i}.csv")
            with open(path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["keys", "sum_fpr_percent"])
                w.writerows((n, 100 * v) for n, v in rows)
            by_keys.append((os.path.basename(path), label))
    return series, points > 0, by_keys


def gnuplot_script(sizes, series, has_points, by_keys):
    """plots.gnuplot's lines: the per-level plots only with series (some
    configuration has filters at the largest size), sum FPR against memory
    only with a point to show, the per-size plot only with by_keys. None
    when there is nothing to plot."""
    if not (series or has_points or by_keys):
        return None
    script = [
        "set datafile separator ','",
        "set terminal pngcairo size 900,560 noenhanced",
        "set key outside right", "set grid",
    ]
    if series:
        big = sizes[-1]
        script += [
            "set output 'bits_per_key_by_level.png'",
            f"set title 'Realized bits/key per level ({big:,} keys)'",
            "set xlabel 'level'", "set ylabel 'bits per key'", "set xtics 1",
            "set offsets 0.3, 0.3, 0, 0",
            "plot " + ", ".join(
                f"'{p}' using 1:2 skip 1 with linespoints lc {i + 1} "
                f"title '{t}'" for i, (p, t) in enumerate(series)),
            "set output 'fpr_by_level.png'",
            f"set title 'Measured FPR per level, and the model ({big:,} keys)'",
            "set ylabel 'FPR (%)'", "set logscale y",
            "plot " + ", ".join(
                f"'{p}' using 1:3 skip 1 with linespoints lc {i + 1} "
                f"title '{t}', "
                f"'{p}' using 1:4 skip 1 with points pt 6 ps 2 lc {i + 1} "
                f"title '{t} model'"
                for i, (p, t) in enumerate(series)),
            "unset logscale y", "unset xtics", "set xtics auto",
        ]
    if has_points:
        script += [
            "set offsets graph 0.05, graph 0.2, graph 0.1, graph 0.1",
            "set output 'sum_fpr_vs_memory.png'",
            "set title 'Sum of per-level FPR against filter memory'",
            "set xlabel 'filter memory (MiB)'", "set ylabel 'sum FPR (%)'",
            "set xrange [0:*]", "set yrange [0:*]",
            "plot 'sum_fpr_vs_memory.csv' using 3:4:2 skip 1 with labels "
            "point pt 7 offset char 1,0.6 left notitle",
        ]
    if by_keys:
        script += [
            "set output 'sum_fpr_by_keys.png'",
            "set title 'Sum of per-level FPR as the tree grows'",
            "set xlabel 'keys written'", "set logscale x",
            "unset offsets", "set yrange [0:*]",
            f"set xrange [{sizes[0] / 1.5:.0f}:{sizes[-1] * 1.5:.0f}]",
            "plot " + ", ".join(
                f"'{p}' using 1:2 skip 1 with linespoints lc {i + 1} lw 2 "
                f"title '{t}'" for i, (p, t) in enumerate(by_keys)),
        ]
    return script


def run_gnuplot(out, name, script, who):
    """Writes `script` (lines) to out/name and runs gnuplot on it in `out`,
    logging as `who` why there is no plot when it fails."""
    with open(os.path.join(out, name), "w") as f:
        f.write("\n".join(script) + "\n")
    res = subprocess.run(["gnuplot", name], cwd=out, capture_output=True,
                         text=True)
    if res.returncode != 0:
        log(f"{who}: gnuplot failed:\n" + res.stderr)


def plot(out, results, level_csv):
    """Per-level bits/key and FPR, and sum FPR against filter memory."""
    if shutil.which("gnuplot") is None:
        log("compare: gnuplot not found; no plots")
        return
    series, has_points, by_keys = write_data(out, results, level_csv)
    sizes = sorted({r["num"] for r in results})
    script = gnuplot_script(sizes, series, has_points, by_keys)
    if script is None:
        log("compare: no filter measured; no plots")
        return
    run_gnuplot(out, "plots.gnuplot", script, "compare")

#!/usr/bin/python3
"""Fixed-vs-Monkey filter comparison: the main job behind tools/compare.sh.

Runs one workload against several filter configurations with the patched
db_bench (tools/build_db_bench.sh), prints one side-by-side table, checks the
instrument against the FPR model and Monkey against bloomfilter:10, and writes
CSV, JSON and gnuplot plots to results/<timestamp>/.

Python's standard library only (csv, json); plots by gnuplot.
"""

import argparse
import csv
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

# The public db_bench absent-key experiment (seeds/002) on RocksDB's
# recommended dynamic level sizing: the static Monkey plan assumes the
# deepest level is the last one.
TREE_FLAGS = [
    "--key_size=16", "--value_size=100", "--write_buffer_size=4194304",
    "--max_bytes_for_level_base=16777216", "--target_file_size_base=4194304",
    "--max_background_jobs=2", "--compression_type=none",
    "--level_compaction_dynamic_level_bytes=true",
]
COMMON_FLAGS = ["--statistics", "--histogram=1", "--seed=1",
                "--stats_dump_period_sec=0"]

DEFAULT_CONFIGS = [
    "none",
    "bloomfilter:10",
    "bloomfilter:10+hits=bloomfilter:10 --optimize_filters_for_hits=true",
    "ribbonfilter:10",
    "monkey:10",
    "monkey:7",
]
# TDStore's runs built no filter on the last level in all three groups.
TDSTORE_CONFIGS = [
    "fixed10=bloomfilter:10 --optimize_filters_for_hits=true",
    "monkey10=id=monkey;bits_per_key=10;last_level_filter=false",
    "monkey7=id=monkey;bits_per_key=7;last_level_filter=false",
    "monkey10/static=id=monkey;bits_per_key=10;last_level_filter=false;"
    "shape=static",
    "monkey7/static=id=monkey;bits_per_key=7;last_level_filter=false;"
    "shape=static",
]
# Monkey plans from the live shape by default (shape=live); the static plan
# is there to compare.
STATIC_CONFIGS = [
    "monkey:10/static=id=monkey;bits_per_key=10;shape=static",
    "monkey:7/static=id=monkey;bits_per_key=7;shape=static",
]
SCALE_CONFIGS = ["bloomfilter:10", "monkey:10", "monkey:7"] + STATIC_CONFIGS

PRESETS = {
    "default": {
        "configs": DEFAULT_CONFIGS, "sizes": [2000000], "reads": 200000,
        "about": "fillrandom 2M keys (16 B keys, 100 B values), then "
                 "readmissing and readrandom, 200k each",
    },
    "scale": {
        "configs": SCALE_CONFIGS, "sizes": [1000000, 4000000, 16000000],
        "reads": 200000,
        "about": "the default workload at 1M, 4M and 16M keys",
    },
    "tdstore": {
        "configs": TDSTORE_CONFIGS, "sizes": [2000000], "reads": 300000,
        "about": "insertunique loads 2M keys, then 300k more unique-key "
                 "inserts (Get, then Put) with filters and indexes in a "
                 "CACHE block cache, smaller than they are, and direct reads",
    },
}

BENCH_RE = re.compile(r"^(\w+)\s*:\s*([\d.]+) micros/op (\d+) ops/sec "
                      r"([\d.]+) seconds (\d+) operations;")
BUCKET_RE = re.compile(r"^[\[(]\s*([\d.]+),\s*([\d.]+)\s*[\])]\s+(\d+)\s")
PLAN_RE = re.compile(r"^L(\d+)\s+[\d.]+%\s+[\d.]+\s+\|\s+([\d.]+)\s+([\d.]+)%")
JSON_PREFIX = "filter_report_json: "


def log(msg):
    print(msg, flush=True)


def parse_config(spec):
    """'LABEL=URI [db_bench flags]' or 'URI [flags]' -> dict. An options
    string as URI starts with its id: 'm8=id=monkey;bits_per_key=8'."""
    head, _, rest = spec.strip().partition(" ")
    label = None
    if "=" in head and not head.startswith("id="):
        before, after = head.split("=", 1)
        if ";" not in before:  # else an options string: "id=...;k=v"
            label, head = before, after
    uri = "" if head in ("", "none") else head
    return {"label": label or (uri or "none"), "filter_uri": uri,
            "flags": shlex.split(rest)}


def with_builds(configs, also):
    """Every configuration once more for each 'LABEL=PATH' of
    --also_db_bench, right after it (so that the rounds measure the two
    builds back to back), labelled CONFIG@LABEL."""
    builds = []
    for spec in also:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            sys.exit(f"compare: --also_db_bench wants LABEL=PATH, got '{spec}'")
        builds.append((label, path))
    out = []
    for c in configs:
        out.append(c)
        for label, path in builds:
            out.append(dict(c, label=f"{c['label']}@{label}", db_bench=path,
                            build=label, base_label=c["label"]))
    return out


def builds_table(results):
    """Each --also_db_bench build against --db_bench, configuration by
    configuration: its ops/s as a ratio, and both sum FPRs (the filters and
    so the FPRs must not depend on the build)."""
    lines = []
    for r in results:
        build = r["config"].get("build")
        if not build:
            continue
        base = next((b for b in results if b["num"] == r["num"]
                     and b["config"]["label"] == r["config"]["base_label"]),
                    None)
        if base is None:
            continue
        if not lines:
            lines.append("build comparison: ops/s of CONFIG@BUILD over "
                         "--db_bench's, and sum FPR of each")
        mine, theirs = summarize(r), summarize(base)
        cells = []
        for b in r["benchmarks"]:
            if b.get("phase") != "measure":
                continue
            key = f"{b['benchmark']}_ops_per_sec"
            if mine.get(key) and theirs.get(key):
                cells.append(f"{b['benchmark']} {mine[key] / theirs[key]:.2f}x")
        lines.append(
            f"  {r['num']:,} keys {r['config']['label']}: " + ", ".join(cells)
            + f"; sum FPR {fmt_pct(theirs['sum_fpr'])} -> "
            f"{fmt_pct(mine['sum_fpr'])}")
    return "\n".join(lines)


def percentile(buckets, p):
    """RocksDB's HistogramStat::Percentile over printed buckets."""
    total = sum(count for _, _, count in buckets)
    if total == 0:
        return None
    threshold = total * p / 100.0
    cumulative = 0
    for left, right, count in buckets:
        cumulative += count
        if cumulative >= threshold:
            pos = (threshold - (cumulative - count)) / count if count else 0
            return left + (right - left) * pos
    return buckets[-1][1]


def parse_output(text):
    """Benchmarks (ops/s, P95), filter reports and the Monkey plan."""
    benchmarks, reports, plan = [], {}, {}
    current = None
    in_hist = False
    for line in text.splitlines():
        line = line.split("\r")[-1]
        m = BENCH_RE.match(line)
        if m:
            current = {"benchmark": m.group(1),
                       "micros_per_op": float(m.group(2)),
                       "ops_per_sec": int(m.group(3)),
                       "seconds": float(m.group(4)),
                       "operations": int(m.group(5)), "buckets": []}
            benchmarks.append(current)
            in_hist = False
            continue
        if line.startswith("Microseconds per") and current is not None:
            in_hist = not current["buckets"]
            continue
        if in_hist:
            b = BUCKET_RE.match(line)
            if b:
                current["buckets"].append(
                    (float(b.group(1)), float(b.group(2)), int(b.group(3))))
            elif line.strip() == "" and current["buckets"]:
                in_hist = False
            continue
        if line.startswith(JSON_PREFIX):
            report = json.loads(line[len(JSON_PREFIX):])
            reports[report["benchmark"]] = report
            continue
        p = PLAN_RE.match(line)
        if p:
            plan[int(p.group(1))] = {"bits_per_key": float(p.group(2)),
                                     "fpr": float(p.group(3)) / 100}
    for b in benchmarks:
        b["p95_micros"] = percentile(b.pop("buckets"), 95)
    return benchmarks, reports, plan


class Runner:
    def __init__(self, args):
        self.args = args
        self.out = args.out
        self.db_bench = args.db_bench
        self.step = 0
        self.steps = 0

    def run_db_bench(self, name, flags, log_path, expect_ops=None,
                     db_bench=None):
        cmd = [db_bench or self.db_bench] + flags
        self.step += 1
        log(f"[{self.step}/{self.steps}] {name}")
        log("    " + " ".join(shlex.quote(c) for c in cmd))
        start = time.time()
        with open(log_path, "w") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
            last_note = start
            while proc.poll() is None:
                time.sleep(0.5)
                if time.time() - last_note >= 15:
                    last_note = time.time()
                    log(f"    ... {time.time() - start:4.0f} s"
                        f"{self.progress_of(log_path, expect_ops)}")
        elapsed = time.time() - start
        with open(log_path, errors="replace") as f:
            text = f.read()
        if proc.returncode != 0:
            tail = "\n".join(text.splitlines()[-15:])
            sys.exit(f"compare: db_bench failed ({proc.returncode}); "
                     f"log {log_path}:\n{tail}")
        log(f"    done in {elapsed:.1f} s")
        return text, " ".join(shlex.quote(c) for c in cmd), elapsed

    @staticmethod
    def progress_of(log_path, expect_ops):
        try:
            with open(log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4096))
                tail = f.read().decode(errors="replace")
        except OSError:
            return ""
        done = re.findall(r"finished (\d+) ops", tail)
        if not done:
            return ""
        text = f", {int(done[-1]):,} ops"
        if expect_ops:
            text += f" of {expect_ops:,}"
        return text


# The load ends with a settled tree: flush (so that the next open replays no
# WAL into a new L0 file), compact0 (L0 into the next level, as db_bench's
# benchmark.sh does) and waitforcompaction.
SETTLE = "flush,compact0,waitforcompaction"


def workload_phases(preset, num, reads, threads, cache_size):
    """The db_bench invocations of one configuration: load, then measure.

    The measurement runs in a new process: every table reader is then opened
    at its file's current level (a reader keeps the level it was opened at,
    so a trivially moved file would count under its old level)."""
    if preset == "tdstore":
        cache = ["--cache_index_and_filter_blocks=true",
                 f"--cache_size={cache_size}", "--cache_numshardbits=0",
                 "--use_direct_reads=true"]
        load = [f"--benchmarks=insertunique,{SETTLE}", f"--num={num}",
                "--threads=1"]
        measure = ["--benchmarks=insertunique", "--use_existing_db=1",
                   f"--num={reads // threads}", f"--threads={threads}"] + cache
        return [("load", load, num), ("measure", measure, reads)]
    load = [f"--benchmarks=fillrandom,{SETTLE}", f"--num={num}",
            "--threads=1"]
    measure = ["--benchmarks=readmissing,readrandom", "--use_existing_db=1",
               f"--num={num}", f"--reads={reads // threads}",
               f"--threads={threads}"]
    return [("load", load, num), ("measure", measure, reads)]


def median_of_rounds(rounds):
    """One entry per benchmark: the median ops/s and P95 of the rounds, with
    every round's values kept."""
    merged = []
    for name in [b["benchmark"] for b in rounds[0]] if rounds else []:
        runs = [b for r in rounds for b in r if b["benchmark"] == name]
        entry = dict(runs[-1])
        for key in ("ops_per_sec", "p95_micros", "micros_per_op"):
            values = [b[key] for b in runs if b[key] is not None]
            entry[key] = statistics.median(values) if values else None
            entry[key + "_rounds"] = [b[key] for b in runs]
        merged.append(entry)
    return merged


def fmt_pct(x, digits=3):
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def fmt_num(x, fmt="{:,.0f}"):
    return "-" if x is None else fmt.format(x)


def summarize(result):
    """Scalar figures of one (size, config) result."""
    reports = result["reports"]
    main = reports.get("readmissing") or reports.get("insertunique") or {}
    s = {
        "filter_bytes": main.get("filter_bytes_total"),
        "bits_per_key": main.get("bits_per_key"),
        "sum_fpr": main.get("sum_fpr"),
        "model_sum_fpr": main.get("model_sum_fpr"),
        "fp_per_absent_lookup": main.get("fp_per_absent_lookup"),
        "filter_cache_bytes": main.get("filter_cache_bytes"),
        "filter_and_index_bytes": (main["filter_bytes_total"]
                                   + main.get("index_bytes_total", 0)
                                   if main else None),
        "filter_cache_misses": main.get("block_cache_filter_miss"),
        "filter_bytes_read": main.get("block_cache_filter_bytes_insert"),
        # None when no level was judged (all changed during the run).
        "model_agrees": (main.get("model_agrees") if any(
            l.get("model_agrees") is not None
            for l in main.get("levels", [])) else None),
    }
    lookups = main.get("lookups") or 0
    hit, miss = main.get("block_cache_data_hit"), main.get("block_cache_data_miss")
    s["data_blocks_per_lookup"] = ((hit + miss) / lookups
                                   if lookups and hit is not None else None)
    for b in result["benchmarks"]:
        s[f"{b['benchmark']}_ops_per_sec"] = b["ops_per_sec"]
        s[f"{b['benchmark']}_p95_micros"] = b["p95_micros"]
    return s


def level_rows(result):
    main = (result["reports"].get("readmissing")
            or result["reports"].get("insertunique") or {})
    rows = []
    for level in main.get("levels", []):
        plan = result["plan"].get(level["level"], {})
        rows.append(dict(level, plan_bits_per_key=plan.get("bits_per_key"),
                         plan_fpr=plan.get("fpr")))
    return rows


def print_table(results, preset):
    configs = []
    for r in results:
        if r["config"]["label"] not in configs:
            configs.append(r["config"]["label"])
    sizes = sorted({r["num"] for r in results})
    width = max(14, max(len(c) for c in configs) + 2)
    benches = []
    for r in results:
        for b in r["benchmarks"]:
            if b["benchmark"] not in benches:
                benches.append(b["benchmark"])
    lines = []

    def row(name, cells):
        lines.append(f"{name:<30}" + "".join(f"{c:>{width}}" for c in cells))

    row("", configs)
    for num in sizes:
        by_label = {r["config"]["label"]: r for r in results if r["num"] == num}
        sums = {k: summarize(v) for k, v in by_label.items()}
        if len(sizes) > 1:
            lines.append(f"--- {num:,} keys")

        def cells(key, fmt):
            return [fmt(sums[c].get(key)) if c in sums else "" for c in configs]

        row("filter MiB", cells("filter_bytes",
                                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
        row("realized bits/key", cells("bits_per_key",
                                       lambda v: fmt_num(v, "{:.2f}")))
        levels = sorted({l["level"] for r in by_label.values()
                         for l in level_rows(r)})
        for lv in levels:
            def level_cell(label, key, fmt):
                r = by_label.get(label)
                for l in level_rows(r) if r else []:
                    if l["level"] == lv:
                        return fmt(l.get(key))
                return "-"
            row(f"L{lv} bits/key", [level_cell(c, "bits_per_key",
                                               lambda v: fmt_num(v, "{:.2f}"))
                                    for c in configs])
            row(f"L{lv} FPR", [level_cell(c, "fpr", fmt_pct) for c in configs])
        row("sum FPR", cells("sum_fpr", fmt_pct))
        row("sum FPR, model", cells("model_sum_fpr", fmt_pct))
        row("FP per absent lookup", cells("fp_per_absent_lookup",
                                          lambda v: fmt_num(v, "{:.4f}")))
        row("data blocks per lookup", cells("data_blocks_per_lookup",
                                            lambda v: fmt_num(v, "{:.4f}")))
        if preset == "tdstore":
            row("filters+indexes MiB", cells(
                "filter_and_index_bytes",
                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
            row("filter cache MiB", cells(
                "filter_cache_bytes",
                lambda v: fmt_num(v and v / 2**20, "{:.3f}")))
            row("filter block cache misses", cells("filter_cache_misses",
                                                   fmt_num))
            row("filter MiB read", cells(
                "filter_bytes_read",
                lambda v: fmt_num(v and v / 2**20, "{:.1f}")))
        for bench in benches:
            row(f"{bench} ops/s", cells(f"{bench}_ops_per_sec", fmt_num))
            row(f"{bench} P95 us", cells(f"{bench}_p95_micros",
                                         lambda v: fmt_num(v, "{:.2f}")))
        row("instrument agrees w/ model",
            cells("model_agrees",
                  lambda v: "-" if v is None else ("yes" if v else "NO")))
    return "\n".join(lines)


def checks(results):
    """The issue's acceptance checks: instrument vs model, Monkey vs Bloom."""
    out = []
    for r in results:
        main = (r["reports"].get("readmissing")
                or r["reports"].get("insertunique"))
        if not main:
            continue
        for l in main["levels"]:
            if l.get("model_agrees") is False:
                out.append(
                    f"FAIL instrument: {r['num']:,} keys {r['config']['label']}"
                    f" L{l['level']}: measured {fmt_pct(l['fpr'], 4)}, model "
                    f"{fmt_pct(l['model_fpr'], 4)} (sigma "
                    f"{fmt_pct(l['fpr_sigma'], 4)}, "
                    f"{l['useful'] + l['false_positives']:,} trials)")
    checked = sum(1 for r in results
                  for rep in [r["reports"].get("readmissing")
                              or r["reports"].get("insertunique")] if rep
                  for l in rep["levels"] if l.get("model_agrees") is not None)
    if not out and checked:
        out.append(f"PASS instrument: all {checked} measured levels agree "
                   "with the model (3 sigma or 5%)")
    elif not out:
        out.append("instrument: no level judged (every level's files "
                   "changed during the measurement)")
    for num in sorted({r["num"] for r in results}):
        by = {r["config"]["label"]: summarize(r) for r in results
              if r["num"] == num}
        base = by.get("bloomfilter:10")
        if not base or base["sum_fpr"] is None:
            continue
        # monkey:10 and monkey:7, and variants labelled "monkey:10/...".
        for label, m in by.items():
            if label.split("/")[0] not in ("monkey:10", "monkey:7"):
                continue
            if m["sum_fpr"] is None:
                continue
            fpr_ratio = m["sum_fpr"] / base["sum_fpr"]
            bytes_ratio = m["filter_bytes"] / base["filter_bytes"]
            if label.startswith("monkey:10"):
                ok = fpr_ratio < 1 and bytes_ratio <= 1.05
                want = "lower sum FPR, bytes <= 1.05x"
            else:
                ok = fpr_ratio <= 1 and bytes_ratio < 1
                want = "sum FPR <=, fewer bytes"
            out.append(
                f"{'PASS' if ok else 'FAIL'} {num:,} keys {label} vs "
                f"bloomfilter:10 ({want}): sum FPR {fmt_pct(m['sum_fpr'])} vs "
                f"{fmt_pct(base['sum_fpr'])} ({fpr_ratio:.3f}x), filter bytes "
                f"{bytes_ratio:.3f}x; measured/model sum FPR "
                f"{m['sum_fpr'] / m['model_sum_fpr']:.3f}")
    return out


def write_outputs(out, results, preset, meta):
    summary_rows, level_csv = [], []
    for r in results:
        s = summarize(r)
        summary_rows.append(dict({"keys": r["num"],
                                  "config": r["config"]["label"],
                                  "filter_uri": r["config"]["filter_uri"],
                                  "flags": " ".join(r["config"]["flags"])}, **s))
        for l in level_rows(r):
            level_csv.append({"keys": r["num"], "config": r["config"]["label"],
                              **{k: l.get(k) for k in (
                                  "level", "files", "entries", "filter_bytes",
                                  "filter_entries", "bits_per_key", "filter",
                                  "probes", "useful", "false_positives", "fpr",
                                  "model_fpr", "fpr_sigma", "model_agrees",
                                  "plan_bits_per_key", "plan_fpr")}})
    for name, rows in (("summary.csv", summary_rows), ("levels.csv", level_csv)):
        if not rows:
            continue
        fields = []
        for row in rows:
            fields += [k for k in row if k not in fields]
        with open(os.path.join(out, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    plot(out, results, level_csv)


def plot(out, results, level_csv):
    """Per-level bits/key and FPR, and sum FPR against filter memory."""
    if shutil.which("gnuplot") is None:
        log("compare: gnuplot not found; no plots")
        return
    sizes = sorted({r["num"] for r in results})
    labels = []
    for r in results:
        if r["config"]["label"] not in labels:
            labels.append(r["config"]["label"])
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
    points = os.path.join(out, "sum_fpr_vs_memory.csv")
    with open(points, "w", newline="") as f:
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

    script = [
        "set datafile separator ','",
        "set terminal pngcairo size 900,560 noenhanced",
        "set key outside right", "set grid",
        "set output 'bits_per_key_by_level.png'",
        f"set title 'Realized bits/key per level ({big:,} keys)'",
        "set xlabel 'level'", "set ylabel 'bits per key'", "set xtics 1",
        "set offsets 0.3, 0.3, 0, 0",
        "plot " + ", ".join(
            f"'{p}' using 1:2 skip 1 with linespoints lc {i + 1} title '{t}'"
            for i, (p, t) in enumerate(series)),
        "set output 'fpr_by_level.png'",
        f"set title 'Measured FPR per level, and the model ({big:,} keys)'",
        "set ylabel 'FPR (%)'", "set logscale y",
        "plot " + ", ".join(
            f"'{p}' using 1:3 skip 1 with linespoints lc {i + 1} title '{t}', "
            f"'{p}' using 1:4 skip 1 with points pt 6 ps 2 lc {i + 1} "
            f"title '{t} model'"
            for i, (p, t) in enumerate(series)),
        "unset logscale y", "unset xtics", "set xtics auto",
        "set offsets graph 0.05, graph 0.2, graph 0.1, graph 0.1",
        "set output 'sum_fpr_vs_memory.png'",
        "set title 'Sum of per-level FPR against filter memory'",
        "set xlabel 'filter memory (MiB)'", "set ylabel 'sum FPR (%)'",
        "set xrange [0:*]", "set yrange [0:*]",
        "plot 'sum_fpr_vs_memory.csv' using 3:4:2 skip 1 with labels "
        "point pt 7 offset char 1,0.6 left notitle",
    ]
    if not series:
        script = script[-7:]
        script.insert(0, "set terminal pngcairo size 900,560 noenhanced")
        script.insert(0, "set datafile separator ','")
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
    with open(os.path.join(out, "plots.gnuplot"), "w") as f:
        f.write("\n".join(script) + "\n")
    res = subprocess.run(["gnuplot", "plots.gnuplot"], cwd=out,
                         capture_output=True, text=True)
    if res.returncode != 0:
        log("compare: gnuplot failed:\n" + res.stderr)


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", help="patched db_bench (required unless "
                    "--replot)")
    ap.add_argument("--also_db_bench", action="append", default=[],
                    metavar="LABEL=PATH",
                    help="run every configuration with this db_bench too, "
                         "as CONFIG@LABEL (e.g. release=a Release fork's "
                         "db_bench, tools/build_rocksdb_fork.sh), and compare "
                         "its ops/s and sum FPR with --db_bench's")
    ap.add_argument("--preset", choices=sorted(PRESETS), default="default")
    ap.add_argument("--config", action="append", default=[],
                    metavar="SPEC",
                    help="a configuration, 'LABEL=FILTER_URI [db_bench "
                         "flags]' or 'FILTER_URI'; repeat for more; 'none' = "
                         "no filter (default: the preset's)")
    ap.add_argument("--num", type=int, action="append", default=[],
                    help="keys in the tree (repeatable; default: preset's)")
    ap.add_argument("--reads", type=int, help="lookups or inserts measured")
    ap.add_argument("--repeat", type=int,
                    help="rounds of the measurement (default 3; tdstore 1: "
                         "its inserts change the tree)")
    ap.add_argument("--threads", type=int, default=1,
                    help="db_bench threads of the measured phase")
    ap.add_argument("--cache_size", type=int, default=1 << 20,
                    help="tdstore: block cache bytes (default 1 MiB: less "
                         "than the 1.3-1.8 MiB of filters and indexes of "
                         "its 2M-key trees)")
    ap.add_argument("--results", default="results",
                    help="parent of the results/<timestamp> directory")
    ap.add_argument("--db_dir", help="where DBs go (default: the results "
                    "directory); each is deleted after its run")
    ap.add_argument("--keep_db", action="store_true")
    ap.add_argument("--replot", metavar="DIR",
                    help="print the table, checks and plots of an earlier "
                         "run's results.json again, and run nothing")
    args = ap.parse_args()
    if args.replot:
        with open(os.path.join(args.replot, "results.json")) as f:
            saved = json.load(f)
        results = saved["results"]
        log(print_table(results, saved["meta"]["preset"]))
        if builds_table(results):
            log("\n" + builds_table(results))
        log("")
        for v in checks(results):
            log(v)
        write_outputs(args.replot, results, saved["meta"]["preset"],
                      saved["meta"])
        return

    if not args.db_bench:
        ap.error("--db_bench is required")
    preset = PRESETS[args.preset]
    configs = with_builds(
        [parse_config(c) for c in (args.config or preset["configs"])],
        args.also_db_bench)
    sizes = args.num or preset["sizes"]
    reads = args.reads or preset["reads"]
    if args.repeat is None:
        args.repeat = 1 if args.preset == "tdstore" else 3
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(os.path.join(args.results, stamp))
    os.makedirs(out, exist_ok=True)
    args.out = out
    db_dir = os.path.abspath(args.db_dir or out)
    runner = Runner(args)
    runner.steps = (1 + args.repeat) * len(configs) * len(sizes)
    meta = {"preset": args.preset, "about": preset["about"],
            "sizes": sizes, "reads": reads, "threads": args.threads,
            "repeat": args.repeat,
            "tree_flags": TREE_FLAGS, "common_flags": COMMON_FLAGS,
            "cpus": os.cpu_count(), "uptime_start": uptime(),
            "started": stamp, "command": sys.argv}
    meta["about"] = preset["about"].replace(
        "CACHE", f"{args.cache_size / 2**20:g} MiB")
    log(f"compare: preset {args.preset}: {meta['about']}")
    log("compare: all runs use --level_compaction_dynamic_level_bytes=true "
        "(RocksDB's recommended setting; the static Monkey plan assumes the "
        "deepest level is the last one)")
    log(f"compare: {len(configs)} configurations: "
        + ", ".join(c["label"] for c in configs))
    log(f"compare: results in {out}; {meta['uptime_start']}")

    results = []
    for num in sizes:
        # All loads first, then the measurements in rounds over the
        # configurations, so that a change of machine load hits them alike;
        # ops/s and P95 are the medians of the rounds.
        batch = []
        for i, config in enumerate(configs):
            db = os.path.join(db_dir, f"db-{num}-{i}")
            filt = ([f"--filter_uri={config['filter_uri']}"]
                    if config["filter_uri"] else [])
            batch.append({"num": num, "config": config, "db": db,
                          "base": [f"--db={db}"] + TREE_FLAGS + COMMON_FLAGS
                          + filt, "benchmarks": [], "rounds": [],
                          "reports": {}, "plan": {}, "commands": [],
                          "uptime": uptime()})
        phases = workload_phases(args.preset, num, reads, args.threads,
                                 args.cache_size)
        for rnd, (phase, flags, ops) in [(0, phases[0])] + [
                (k, phases[1]) for k in range(args.repeat)]:
            for i, result in enumerate(batch):
                config = result["config"]
                suffix = f"-{rnd + 1}" if phase == "measure" else ""
                log_path = os.path.join(out, f"{num}-{i}-{phase}{suffix}.log")
                what = f"{num:,} keys, {config['label']}: {phase}"
                if phase == "measure" and args.repeat > 1:
                    what += f" (round {rnd + 1} of {args.repeat})"
                text, cmd, _ = runner.run_db_bench(
                    what, result["base"] + flags + config["flags"], log_path,
                    ops, config.get("db_bench"))
                benchmarks, reports, plan = parse_output(text)
                for b in benchmarks:
                    b["phase"] = phase
                result["commands"].append(cmd)
                # The latest header: a live plan is printed for the shape
                # the DB opened with, so the measure phase's is the one that
                # goes with its report.
                result["plan"] = plan or result["plan"]
                if phase == "load":
                    result["benchmarks"] += benchmarks
                else:
                    result["rounds"].append(benchmarks)
                    result["reports"].update(reports)
        for result in batch:
            result["benchmarks"] += median_of_rounds(result.pop("rounds"))
            if not args.keep_db:
                shutil.rmtree(result["db"], ignore_errors=True)
            del result["base"], result["db"]
        results += batch

    meta["uptime_end"] = uptime()
    table = print_table(results, args.preset)
    if builds_table(results):
        table += "\n\n" + builds_table(results)
    verdicts = checks(results)
    log("")
    log(table)
    log("")
    for v in verdicts:
        log(v)
    log(f"compare: {meta['uptime_end']}")
    meta["checks"] = verdicts
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(table + "\n\n" + "\n".join(verdicts) + "\n")
    write_outputs(out, results, args.preset, meta)
    log(f"compare: wrote {out}/summary.csv, levels.csv, results.json, "
        "table.txt and plots (*.png)")


if __name__ == "__main__":
    main()

# The write-tax benchmark (bench/writetax.py, or tools/compare.sh
# --preset=writetax; issue 29): what a filter policy costs the write path.
#
# Four write workloads on the deep preset's tree flags (specs.DEEP_TREE_FLAGS:
# 128 KiB memtables, 64 KiB files, T = 10, dynamic level sizing, write
# throttling scaled to the tree), each a fixed number of operations that
# lasts at least --seconds (calibrated on the first configuration), run by
# every configuration in --rounds rounds, the configurations' order rotated
# from round to round:
#   fillrandom          a fresh DB, 1 writer
#   fillseq             a fresh DB, 1 writer
#   fillrandom_4t       a fresh DB, 4 writers
#   overwrite_delete    overwrite with a 10% deleterandom mix on a preloaded
#                       DB. db_bench 7.8.3 has no overwrite-and-delete mix
#                       (randomwithverify writes and deletes 3 keys at a time
#                       on --numdistinct keys and reads some), so one process
#                       runs overwrite and deleterandom in turn, 10 slices of
#                       9:1, and its ops/s is their operations over their
#                       seconds
# Each measured process ends with flush and waitforcompaction: its user CPU
# and rocksdb.stall.micros (--statistics) cover the compactions its writes
# caused. Printed per workload and configuration: the median ops/s with its
# min-max, its ratio to the first configuration's (round by round; "no
# difference measured" where the ratios' min-max contains 1.0), user CPU
# and stall time. Python's standard library only.

import argparse
import datetime
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

from comparison.console import log, uptime
from comparison.parse import lines_of, parse_benchmarks, parse_tickers
from comparison.runner import Runner
from comparison.specs import DEEP_TREE_FLAGS, parse_config, with_builds
from comparison.spread import fmt_ratio, ratio_rounds, spread

# bloomfilter:10 first: the others are compared with it. db_bench's
# --filter_uri goes through monkey::Install, so monkey:10 has Install's
# listener; shape=static has none.
CONFIGS = [
    "bloomfilter:10",
    "monkey:10",
    "monkey:10/static=id=monkey;bits_per_key=10;shape=static",
]
WORKLOADS = ["fillrandom", "fillseq", "fillrandom_4t", "overwrite_delete"]
ABOUT = {
    "fillrandom": "fillrandom, 1 thread, fresh DB",
    "fillseq": "fillseq, 1 thread, fresh DB",
    "fillrandom_4t": "fillrandom, 4 threads, fresh DB",
    "overwrite_delete": "overwrite with 10% deleterandom (10 slices of 9:1 "
                        "in one process), 1 thread, on a preloaded DB",
}
# The benchmarks whose operations and seconds make a workload's ops/s.
MEASURED = {"fillrandom": ["fillrandom"], "fillseq": ["fillseq"],
            "fillrandom_4t": ["fillrandom"],
            "overwrite_delete": ["overwrite", "deleterandom"]}
# The calibration's first operations: a short run of the first
# configuration; a run shorter than half of --seconds is followed by one
# sized to last that long, at most CALIBRATIONS runs in all, and the last
# one's ops/s sizes the rounds.
PROBE_OPS = {"fillrandom": 100000, "fillseq": 400000,
             "fillrandom_4t": 100000, "overwrite_delete": 100000}
CALIBRATIONS = 3
# A phase is sized to the calibration's rate times --seconds times this:
# a phase on a bigger tree runs slower than the probe, but not always, and
# rounds differ. At 1.2, fillrandom's 10 s phases came out at 8.5-11.5 s
# (rounds 20% faster than a probe of the same size).
HEADROOM = 1.4
SLICES = 10
DELETE_SHARE = 0.1
PRELOAD_KEYS = 400000
SETTLE = "flush,waitforcompaction"
COMMON_FLAGS = ["--statistics", "--histogram=0", "--stats_dump_period_sec=0"]
STALL = "rocksdb.stall.micros"
# Kept with each run besides the stall time.
TICKERS = [STALL, "rocksdb.compact.write.bytes", "rocksdb.flush.write.bytes"]
ASSERTIONS_WARNING = "WARNING: Assertions are enabled"
# Issue 29's bar for monkey:10 (Install) against bloomfilter:10.
BAR_RATIO = 0.99
BAR_STALL = 1.2


def parse_args(argv=None, description=None):
    ap = argparse.ArgumentParser(
        prog="writetax", description=description,
        formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", required=True,
                    help="the patched db_bench (build_tools/build_db_bench.sh; "
                         "tools/compare.sh --preset=writetax builds it)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds per workload (default 5; --quick 2)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="least length of a measured phase, in seconds "
                         "(default 10; --quick 2)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 2 rounds of 2 s phases, a preload "
                         "of 50,000 keys")
    ap.add_argument("--workloads", default=",".join(WORKLOADS),
                    help="comma-separated, of " + ", ".join(WORKLOADS)
                         + " (default: all)")
    ap.add_argument("--config", action="append", default=[], metavar="SPEC",
                    help="'LABEL=FILTER_URI [db_bench flags]' or "
                         "'FILTER_URI'; repeat for more; the first is the "
                         "baseline (default: " + ", ".join(CONFIGS) + ")")
    ap.add_argument("--also_db_bench", action="append", default=[],
                    metavar="LABEL=PATH",
                    help="run every configuration with this db_bench too, "
                         "as CONFIG@LABEL, right after it in each round "
                         "(another build of the library, side by side)")
    ap.add_argument("--ops", type=int,
                    help="operations of every measured phase; skips the "
                         "calibration (a run of fixed work to repeat)")
    ap.add_argument("--preload_keys", type=int,
                    help=f"keys of overwrite_delete's DB (default "
                         f"{PRELOAD_KEYS:,}; --quick 50,000)")
    ap.add_argument("--results", default="results",
                    help="parent of the results/<timestamp>-writetax "
                         "directory")
    ap.add_argument("--db_dir", help="where DBs go (default: "
                    "/dev/shm/writetax-<timestamp> when writable, else the "
                    "results directory); deleted after the run")
    ap.add_argument("--keep_db", action="store_true")
    args = ap.parse_args(argv)
    if args.rounds is None:
        args.rounds = 2 if args.quick else 5
    if args.seconds is None:
        args.seconds = 2.0 if args.quick else 10.0
    if args.preload_keys is None:
        args.preload_keys = 50000 if args.quick else PRELOAD_KEYS
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if not args.seconds > 0:
        ap.error("--seconds must be positive")
    if args.ops is not None and args.ops < SLICES:
        ap.error(f"--ops must be at least {SLICES}")
    if args.preload_keys < 1:
        ap.error("--preload_keys must be positive")
    args.workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in args.workloads if w not in WORKLOADS]
    if unknown or not args.workloads:
        ap.error(f"unknown workload {', '.join(unknown) or '(none)'}; "
                 f"known: {', '.join(WORKLOADS)}")
    args.configs = with_builds(
        [parse_config(c) for c in (args.config or CONFIGS)],
        args.also_db_bench)
    labels = [c["label"] for c in args.configs]
    if len(set(labels)) != len(labels):
        ap.error("two configurations have the same label: "
                 + ", ".join(labels))
    return args


def measure_flags(workload, ops, preload_keys):
    """The db_bench flags of one measured run of `ops` operations (the
    tree's and the common ones aside)."""
    if workload in ("fillrandom", "fillseq"):
        bench = "fillseq" if workload == "fillseq" else "fillrandom"
        return [f"--benchmarks={bench},{SETTLE}", f"--num={ops}",
                "--threads=1", "--seed=1"]
    if workload == "fillrandom_4t":
        # Each thread writes --writes keys of [0, --num).
        per_thread = math.ceil(ops / 4)
        return [f"--benchmarks=fillrandom,{SETTLE}",
                f"--num={4 * per_thread}", f"--writes={per_thread}",
                "--threads=4", "--seed=1"]
    if workload == "overwrite_delete":
        per_slice = math.ceil(ops / SLICES)
        deletes = max(1, round(per_slice * DELETE_SHARE))
        writes = max(1, per_slice - deletes)
        # Another seed than the preload's, whose keys overwrite would
        # otherwise repeat in the same order.
        return ["--benchmarks=" + ",".join(["overwrite,deleterandom"]
                                           * SLICES + [SETTLE]),
                "--use_existing_db=1", f"--num={preload_keys}",
                f"--writes={writes}", f"--deletes={deletes}", "--threads=1",
                "--seed=2"]
    raise ValueError(workload)


def preload_flags(preload_keys):
    return [f"--benchmarks=fillrandom,{SETTLE}", f"--num={preload_keys}",
            "--threads=1", "--seed=1"]


def measured_ops(workload, text):
    """(operations, seconds, ops/s) of a workload's benchmark lines in one
    db_bench output; None where none of them printed."""
    names = MEASURED[workload]
    lines = [b for b in parse_benchmarks(lines_of(text))
             if b["benchmark"] in names]
    if not lines:
        return None
    ops = sum(b["operations"] for b in lines)
    seconds = sum(b["seconds"] for b in lines)
    if len(lines) == 1 or not seconds > 0:
        # db_bench's own ops/s, from unrounded seconds
        rate = statistics.mean(b["ops_per_sec"] for b in lines)
    else:
        rate = ops / seconds
    return ops, seconds, rate


def ops_for(rate, seconds):
    """A phase's operations: enough for `seconds` at `rate` ops/s, with
    HEADROOM, rounded up to 1,000."""
    return max(1000, int(math.ceil(rate * seconds * HEADROOM / 1000)) * 1000)


def rotated(items, shift):
    """The round's order: `items` rotated left by `shift`."""
    k = shift % len(items)
    return items[k:] + items[:k]


def summarize(runs, configs, workloads, seconds):
    """Per workload and configuration: ops/s, user CPU and stall time over
    the rounds (median, min, max), ops/s over the baseline's round by round,
    and the phases' lengths."""
    base = configs[0]["label"]
    out = {}
    for w in workloads:
        by_config = {}
        for c in configs:
            mine = sorted((r for r in runs if r["workload"] == w
                           and r["config"] == c["label"]),
                          key=lambda r: r["round"])
            by_config[c["label"]] = mine
        base_rounds = {r["round"]: r for r in by_config[base]}
        summary = {}
        for c in configs:
            mine = by_config[c["label"]]
            entry = {"rounds": len(mine)}
            for key in ("ops_per_sec", "user_cpu_s", "stall_micros",
                        "seconds"):
                values = [r[key] for r in mine if r.get(key) is not None]
                s = spread(values)
                entry[key] = (None if s is None else
                              {"median": s[0], "min": s[1], "max": s[2],
                               "rounds": values})
            # Round by round: a round runs every configuration, so that a
            # change of machine load hits them alike.
            paired = [(r["ops_per_sec"],
                       base_rounds[r["round"]]["ops_per_sec"])
                      for r in mine if r["round"] in base_rounds]
            ratios = ratio_rounds([a for a, _ in paired],
                                  [b for _, b in paired])
            entry["ratio_rounds"] = ratios
            entry["ratio"] = fmt_ratio(ratios) if c["label"] != base else "-"
            if ratios:
                med, low, high = spread(ratios)
                entry["ratio_median"], entry["ratio_min"], \
                    entry["ratio_max"] = med, low, high
            stall, base_stall = entry["stall_micros"], None
            if by_config[base]:
                values = [r["stall_micros"] for r in by_config[base]
                          if r.get("stall_micros") is not None]
                base_stall = statistics.median(values) if values else None
            entry["stall_vs_baseline"] = (
                stall["median"] / base_stall
                if stall and base_stall else None)
            entry["short_phases"] = [r["round"] + 1 for r in mine
                                     if r["seconds"] < seconds]
            summary[c["label"]] = entry
        out[w] = summary
    return out


def fmt_spread(s, fmt, scale=1.0):
    if s is None:
        return "-"
    med, low, high = (v * scale for v in (s["median"], s["min"], s["max"]))
    return f"{fmt.format(med)} ({fmt.format(low)}-{fmt.format(high)})"


def table(summary, configs, workload_meta):
    """The printed result: per workload, one row per configuration."""
    base = configs[0]["label"]
    head = ["config", "ops/s median (min-max)", "ops/s vs " + base,
            "user CPU s", f"stall ms ({STALL})", "stall vs " + base]
    out = []
    for w, rows in summary.items():
        meta = workload_meta[w]
        lengths = [v for c in configs
                   for v in ((rows[c["label"]]["seconds"] or {})
                             .get("rounds") or [])]
        span = (f"phases {min(lengths):.1f}-{max(lengths):.1f} s"
                if lengths else "no phase measured")
        out.append(f"{w}: {ABOUT[w]}; {meta['ops']:,} operations a phase; "
                   f"{span}")
        cells = [head]
        short = []
        for c in configs:
            e = rows[c["label"]]
            stall_x = ("-" if c["label"] == base
                       or e["stall_vs_baseline"] is None
                       else f"{e['stall_vs_baseline']:.2f}x")
            cells.append([c["label"],
                          fmt_spread(e["ops_per_sec"], "{:,.0f}"),
                          e["ratio"], fmt_spread(e["user_cpu_s"], "{:.2f}"),
                          fmt_spread(e["stall_micros"], "{:,.0f}", 1e-3),
                          stall_x])
            if e["short_phases"]:
                short.append(f"{c['label']} round"
                             + ("s " if len(e["short_phases"]) > 1 else " ")
                             + ", ".join(map(str, e["short_phases"])))
        widths = [max(len(row[i]) for row in cells)
                  for i in range(len(head))]
        for row in cells:
            out.append("  " + "  ".join(
                cell.ljust(width) for cell, width in zip(row, widths))
                .rstrip())
        if short:
            out.append("  shorter than --seconds: " + "; ".join(short))
        out.append("")
    return "\n".join(out).rstrip("\n")


def bar_lines(summary, configs):
    """Issue 29's bar for every configuration but the baseline: a median
    ops/s ratio of at least BAR_RATIO on every workload, and stall time
    within BAR_STALL of the baseline's."""
    base = configs[0]["label"]
    lines = []
    for c in configs[1:]:
        misses = []
        for w, rows in summary.items():
            e = rows[c["label"]]
            if e.get("ratio_median") is None:
                misses.append(f"{w}: not measured")
                continue
            if e["ratio_median"] < BAR_RATIO:
                misses.append(f"{w} ops/s {e['ratio_median']:.3f}x")
            if (e["stall_vs_baseline"] is not None
                    and e["stall_vs_baseline"] > BAR_STALL):
                misses.append(f"{w} stall {e['stall_vs_baseline']:.2f}x")
        verdict = "meets" if not misses else "misses (" + "; ".join(
            misses) + ")"
        lines.append(f"writetax: {c['label']} vs {base}, bar median ops/s "
                     f">= {BAR_RATIO}x and stall <= {BAR_STALL}x on every "
                     f"workload: {verdict}")
    return lines


def git_revision():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..",
                                        ".."))
    try:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short",
                              "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return ""


class WriteTax:
    """Runs the benchmark: the preloads, the calibrations and the rounds,
    each db_bench run with its user CPU (this process's children's, taken
    around each run: one runs at a time)."""

    def __init__(self, args, out, db_dir):
        self.args = args
        self.out = out
        self.db_dir = db_dir
        self.configs = args.configs
        self.assertions = False
        n, w = len(self.configs), args.workloads
        steps = len(w) * n * args.rounds
        steps += sum(n for x in w if x == "overwrite_delete")  # preloads
        if args.ops is None:
            steps += 2 * len(w)  # calibrations, as a rule
        self.runner = Runner(args.db_bench, steps=steps)
        self.started = time.time()
        self.runs = []
        self.workload_meta = {}

    def tree_flags(self, config):
        filt = ([f"--filter_uri={config['filter_uri']}"]
                if config["filter_uri"] else [])
        return DEEP_TREE_FLAGS + COMMON_FLAGS + filt + config["flags"]

    def eta(self):
        done = self.runner.step
        if done == 0:
            return ""
        left = (time.time() - self.started) / done * (
            self.runner.steps - done)
        return f", about {left / 60:.0f} min left"

    def db_bench(self, name, db, flags, config, log_name, expect_ops=None):
        """One db_bench run on `db`: (output, command, elapsed, user CPU s,
        system CPU s)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        text, cmd, elapsed = self.runner.run_db_bench(
            name + self.eta(), [f"--db={db}"] + self.tree_flags(config)
            + flags, os.path.join(self.out, log_name), expect_ops,
            db_bench=config.get("db_bench"))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if ASSERTIONS_WARNING in text:
            self.assertions = True
        return (text, cmd, elapsed, after.ru_utime - before.ru_utime,
                after.ru_stime - before.ru_stime)

    def fresh(self, path, copy_of=None):
        shutil.rmtree(path, ignore_errors=True)
        if copy_of:
            shutil.copytree(copy_of, path)
        return path

    def run(self):
        for w in self.args.workloads:
            self.run_workload(w)
        return self.runs

    def calibrate(self, w, run_db, bases):
        """The operations of a phase of workload `w`: runs of the first
        configuration, from PROBE_OPS up, until one lasts half of --seconds
        (a short probe on a small tree runs faster than the phase will);
        returns them and the probes."""
        args = self.args
        c = self.configs[0]
        probe_ops = PROBE_OPS[w] // (4 if args.quick else 1)
        probes = []
        for attempt in range(CALIBRATIONS):
            if attempt >= 2:
                self.runner.steps += 1  # counted two for each workload
            db = self.fresh(run_db, bases.get(c["label"]))
            log_name = f"{w}-calibration{attempt + 1}.log"
            text, cmd, _, _, _ = self.db_bench(
                f"{w}, {c['label']}: calibration, {probe_ops:,} operations",
                db, measure_flags(w, probe_ops, args.preload_keys), c,
                log_name, probe_ops)
            measured = measured_ops(w, text)
            if measured is None:
                sys.exit(f"writetax: no {'/'.join(MEASURED[w])} line in "
                         f"{self.out}/{log_name}")
            probes.append({"ops": measured[0], "seconds": measured[1],
                           "ops_per_sec": measured[2], "command": cmd})
            rate = measured[2]
            if (measured[1] >= args.seconds / 2
                    or attempt + 1 == CALIBRATIONS):
                break
            probe_ops = ops_for(rate, args.seconds / 2 / HEADROOM)
            log(f"    calibration: {rate:,.0f} ops/s over "
                f"{measured[1]:.1f} s, shorter than half of "
                f"{args.seconds:g} s: again with {probe_ops:,}")
        if len(probes) == 1:
            self.runner.steps -= 1
        ops = ops_for(rate, args.seconds)
        log(f"    calibration: {rate:,.0f} ops/s; {ops:,} operations a "
            f"phase for {args.seconds:g} s")
        return ops, probes

    def run_workload(self, w):
        args = self.args
        preload = w == "overwrite_delete"
        bases = {}
        if preload:
            for i, c in enumerate(self.configs):
                base = self.fresh(os.path.join(self.db_dir, f"{w}-{i}-base"))
                self.db_bench(f"{w}, {c['label']}: preload "
                              f"{args.preload_keys:,} keys", base,
                              preload_flags(args.preload_keys), c,
                              f"{w}-{i}-preload.log", args.preload_keys)
                bases[c["label"]] = base
        run_db = os.path.join(self.db_dir, "run")
        ops, probes = args.ops, None
        if ops is None:
            ops, probes = self.calibrate(w, run_db, bases)
        flags = measure_flags(w, ops, args.preload_keys)
        self.workload_meta[w] = {"ops": ops, "flags": flags,
                                 "about": ABOUT[w], "calibration": probes,
                                 "preload_keys": args.preload_keys
                                 if preload else None}
        for rnd in range(args.rounds):
            for c in rotated(self.configs, rnd):
                i = self.configs.index(c)
                db = self.fresh(run_db, bases.get(c["label"]))
                log_name = f"{w}-{i}-round{rnd + 1}.log"
                text, cmd, elapsed, user, system = self.db_bench(
                    f"{w}, {c['label']}: round {rnd + 1} of {args.rounds}",
                    db, flags, c, log_name, ops)
                measured = measured_ops(w, text)
                if measured is None:
                    sys.exit(f"writetax: no {'/'.join(MEASURED[w])} line in "
                             f"{self.out}/{log_name}")
                tickers = parse_tickers(text)
                run = {"workload": w, "config": c["label"], "round": rnd,
                       "ops": measured[0], "seconds": measured[1],
                       "ops_per_sec": measured[2], "user_cpu_s": user,
                       "system_cpu_s": system, "elapsed_s": elapsed,
                       "stall_micros": tickers.get(STALL),
                       "tickers": {t: tickers.get(t) for t in TICKERS},
                       "log": log_name, "command": cmd}
                self.runs.append(run)
                stall = run["stall_micros"]
                log(f"    {measured[2]:,.0f} ops/s over {measured[1]:.1f} s, "
                    f"user CPU {user:.2f} s, stall "
                    + ("-" if stall is None else f"{stall / 1000:,.0f} ms"))
        shutil.rmtree(run_db, ignore_errors=True)
        if not args.keep_db:
            for base in bases.values():
                shutil.rmtree(base, ignore_errors=True)


def default_db_dir(name, fallback):
    shm = "/dev/shm"
    if not os.access(shm, os.W_OK):
        return fallback
    return os.path.join(shm, name)


def main(argv=None, description=None):
    args = parse_args(argv, description)
    if not os.access(args.db_bench, os.X_OK):
        sys.exit(f"writetax: no db_bench at {args.db_bench}")
    for c in args.configs:
        if "db_bench" in c and not os.access(c["db_bench"], os.X_OK):
            sys.exit(f"writetax: no db_bench at {c['db_bench']} "
                     f"(--also_db_bench={c['build']}=...)")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(os.path.join(args.results, f"{stamp}-writetax"))
    os.makedirs(out, exist_ok=True)
    own_db_dir = not args.db_dir
    db_dir = os.path.abspath(args.db_dir or default_db_dir(
        f"writetax-{stamp}", out))
    os.makedirs(db_dir, exist_ok=True)
    meta = {"command": sys.argv if argv is None else ["writetax"] + argv,
            "db_bench": os.path.abspath(args.db_bench),
            "revision": git_revision(), "started": stamp,
            "rounds": args.rounds, "seconds": args.seconds,
            "quick": args.quick, "workloads": args.workloads,
            "configs": [c["label"] for c in args.configs],
            "config_specs": args.configs,
            "tree_flags": DEEP_TREE_FLAGS, "common_flags": COMMON_FLAGS,
            "cpus": os.cpu_count(), "uptime_start": uptime()}
    log(f"writetax: {len(args.workloads)} workloads ("
        + ", ".join(args.workloads) + f"), {args.rounds} rounds each, "
        f"phases of at least {args.seconds:g} s")
    log(f"writetax: {len(args.configs)} configurations, against "
        f"{args.configs[0]['label']}: "
        + ", ".join(c["label"] for c in args.configs))
    log("writetax: tree flags (the deep preset's): "
        + " ".join(DEEP_TREE_FLAGS))
    log(f"writetax: results in {out}; DBs in {db_dir}; {meta['uptime_start']}")
    bench = WriteTax(args, out, db_dir)
    runs = bench.run()
    if own_db_dir and db_dir != out and not args.keep_db:
        shutil.rmtree(db_dir, ignore_errors=True)
    meta["uptime_end"] = uptime()
    meta["assertions_enabled"] = bench.assertions
    meta["minutes"] = (time.time() - bench.started) / 60
    summary = summarize(runs, args.configs, args.workloads, args.seconds)
    text = table(summary, args.configs, bench.workload_meta)
    notes = bar_lines(summary, args.configs)
    if bench.assertions:
        notes.append("writetax: db_bench says assertions are enabled (a "
                     "RocksDB built without NDEBUG, as Debian's is): "
                     "absolute ops/s are not a Release build's")
    notes.append(f"writetax: {meta['uptime_start']} / {meta['uptime_end']}")
    log("")
    log(text)
    log("")
    for n in notes:
        log(n)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n\n" + "\n".join(notes) + "\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"meta": meta, "workloads": bench.workload_meta,
                   "summary": summary, "runs": runs}, f, indent=1)
    log(f"writetax: wrote {out}/table.txt and results.json")
    return 0

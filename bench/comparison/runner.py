# Runs the comparison: every configuration's db_bench phases at every size,
# one db_bench process at a time with progress notes, and merges the rounds
# of the measurement into one result per size and configuration.

import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

from comparison.console import log, uptime
from comparison.figures import MAIN_BENCHMARKS, sorted_runs
from comparison.parse import parse_levelstats, parse_output, parse_tickers
from comparison.specs import (COMMON_FLAGS, PRESETS, schedule, tree_flags,
                              workload_phases)


class Runner:
    """Runs db_bench processes, each into its own log, numbered as steps of
    `steps`."""

    def __init__(self, db_bench, steps=0):
        self.db_bench = db_bench
        self.step = 0
        self.steps = steps

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
            while True:
                try:
                    proc.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    pass
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


def block_loads(reports, tickers, cache_size):
    """Per operation of a measurement: the filter-block and data-block bytes
    read into the block cache, and the filters' share of the cache at its
    end; None without a main report."""
    main = next((reports[n] for n in MAIN_BENCHMARKS if reports.get(n)), None)
    ops = main and main.get("lookups")
    if not ops:
        return None
    data = tickers.get("rocksdb.block.cache.data.bytes.insert")
    return {"filter_bytes_per_op":
            main.get("block_cache_filter_bytes_insert", 0) / ops,
            "data_bytes_per_op": None if data is None else data / ops,
            "filter_cache_share":
            main.get("filter_cache_bytes", 0) / cache_size
            if main.get("filter_cache_source") == "block_cache" else None}


# RocksDB's tickers of filter probes that said "may be here", and of those
# the ones whose key was there (--statistics).
FULL_POSITIVE = "rocksdb.bloom.filter.full.positive"
FULL_TRUE_POSITIVE = "rocksdb.bloom.filter.full.true.positive"


def ticker_fp_per_lookup(reports, tickers):
    """False positives per lookup of a measurement from its process's
    --statistics dump: (full positives - true positives) / the main
    report's lookups. None without either."""
    main = next((reports[n] for n in MAIN_BENCHMARKS if reports.get(n)), None)
    lookups = main and main.get("lookups")
    if not lookups or FULL_POSITIVE not in tickers or \
            FULL_TRUE_POSITIVE not in tickers:
        return None
    return (tickers[FULL_POSITIVE] - tickers[FULL_TRUE_POSITIVE]) / lookups


def advise(monkey_plan, db):
    """The advisor on a DB at rest (monkey_plan --db --json): its first
    column family's object, with the top level's other keys; {"error": ...}
    where it fails, so that the run goes on and the verdicts say so."""
    done = subprocess.run([monkey_plan, f"--db={db}", "--json"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": f"monkey_plan exit {done.returncode}: "
                         + done.stderr.strip()[-300:]}
    try:
        advice = json.loads(done.stdout)
        top = {k: v for k, v in advice.items() if k != "column_families"}
        return dict(top, **advice["column_families"][0])
    except (ValueError, KeyError, IndexError, TypeError) as e:
        return {"error": f"monkey_plan --json unreadable: {e}"}


def warn_if_few_runs(preset, what, tree):
    """Says loudly when a measured tree has fewer sorted runs than its
    preset's min_runs (the verdicts FAIL it too)."""
    want = PRESETS.get(preset, {}).get("min_runs")
    if want and tree and sorted_runs(tree) < want:
        log(f"compare: WARNING: {what}: only {sorted_runs(tree)} sorted runs "
            f"at rest, the preset wants >= {want}; its FP per lookup does not "
            "measure the tiered tree it is for")


def run_comparison(args, configs, sizes, reads, out, db_dir):
    """Runs every configuration at every size and returns the results, one
    per (size, configuration). At each size, all loads run first, then the
    measurements in rounds over the configurations, so that a change of
    machine load hits them alike; ops/s and P95 are the medians of the
    rounds."""
    runs_of = {num: schedule(workload_phases(args.preset, num, reads,
                                             args.threads, args.cache_size),
                             args.repeat)
               for num in sizes}
    runner = Runner(args.db_bench,
                    steps=sum(len(runs) for runs in runs_of.values())
                    * len(configs))
    results = []
    for num in sizes:
        batch = []
        for i, config in enumerate(configs):
            db = os.path.join(db_dir, f"db-{num}-{i}")
            filt = ([f"--filter_uri={config['filter_uri']}"]
                    if config["filter_uri"] else [])
            batch.append({"num": num, "config": config, "db": db,
                          "base": [f"--db={db}"] + tree_flags(args.preset)
                          + COMMON_FLAGS
                          + filt, "benchmarks": [], "rounds": [],
                          "reports": {}, "plan": {}, "commands": [],
                          "trees": {}, "block_loads": [],
                          "ticker_fp_per_lookup": [],
                          "uptime": uptime()})
        for rnd, phase, flags, ops in runs_of[num]:
            for i, result in enumerate(batch):
                config = result["config"]
                suffix = f"-{rnd + 1}" if phase == "measure" else ""
                log_path = os.path.join(out, f"{num}-{i}-{phase}{suffix}.log")
                what = f"{num:,} keys, {config['label']}: {phase}"
                if phase == "measure" and args.repeat > 1:
                    what += f" (round {rnd + 1} of {args.repeat})"
                if callable(flags):  # from the trees of earlier phases
                    flags = flags(result["trees"])
                text, cmd, _ = runner.run_db_bench(
                    what, result["base"] + flags + config["flags"], log_path,
                    ops, config.get("db_bench"))
                benchmarks, reports, plan = parse_output(text)
                for b in benchmarks:
                    b["phase"] = phase
                result["commands"].append(cmd)
                # Files per level after the phase, where it printed them
                # (db_bench's levelstats): the last round's for a measure.
                tree = parse_levelstats(text)
                if tree:
                    result["trees"][phase] = tree
                if phase == "measure":
                    warn_if_few_runs(args.preset, what, tree)
                # The latest header: a live plan is printed for the shape
                # the DB opened with, so the measure phase's is the one that
                # goes with its report.
                result["plan"] = plan or result["plan"]
                if phase != "measure":
                    result["benchmarks"] += benchmarks
                else:
                    result["rounds"].append(benchmarks)
                    result["reports"].update(reports)
                    tickers = parse_tickers(text)
                    loads = block_loads(reports, tickers, args.cache_size)
                    if loads:
                        result["block_loads"].append(loads)
                    result["ticker_fp_per_lookup"].append(
                        ticker_fp_per_lookup(reports, tickers))
        monkey_plan = getattr(args, "monkey_plan", None)
        for result in batch:
            result["benchmarks"] += median_of_rounds(result.pop("rounds"))
            if monkey_plan and PRESETS[args.preset].get("advisor"):
                result["advice"] = advise(monkey_plan, result["db"])
            if not args.keep_db:
                shutil.rmtree(result["db"], ignore_errors=True)
            del result["base"], result["db"]
        results += batch
    return results

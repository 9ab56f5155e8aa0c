# The command line of bench/compare.py (its flags are a contract: scripts and
# docs use them): runs a comparison, or --replot an earlier one, and prints
# the table and the checks.

import argparse
import datetime
import json
import os
import sys

from comparison.checks import checks
from comparison.console import log, uptime
from comparison.outputs import write_outputs
from comparison.runner import run_comparison
from comparison.specs import (COMMON_FLAGS, MEMLIMIT_PARTITIONED_CONFIGS,
                              PARTITIONED_FLAGS, PRESETS, db_dir_for,
                              parse_config, partitioned, tree_flags,
                              with_builds)
from comparison.tables import (builds_table, print_table, throughput_table,
                               trees_table)


def parse_args(description):
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", help="patched db_bench (required unless "
                    "--replot)")
    ap.add_argument("--also_db_bench", action="append", default=[],
                    metavar="LABEL=PATH",
                    help="run every configuration with this db_bench too, "
                         "as CONFIG@LABEL (e.g. release=a Release fork's "
                         "db_bench, build_tools/build_rocksdb_fork.sh), and compare "
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
    ap.add_argument("--threads", type=int,
                    help="db_bench threads of the measured phase (default "
                         "1; memlimit 4)")
    ap.add_argument("--cache_size", type=int,
                    help="tdstore, memlimit: block cache bytes (default "
                         "tdstore 1 MiB: less than the 1.3-1.8 MiB of "
                         "filters and indexes of its 2M-key trees; memlimit "
                         "1 MiB against 1.3 MB of fixed10's filters)")
    ap.add_argument("--monkey_plan",
                    help="universal: the advisor, run on each DB at rest for "
                         "the model's optimum (its universal figures: "
                         "monkey_plan --db --json)")
    ap.add_argument("--results", default="results",
                    help="parent of the results/<timestamp> directory")
    ap.add_argument("--db_dir", help="where DBs go (default: the results "
                    "directory; deep: /dev/shm, see specs.py); each is "
                    "deleted after its run")
    ap.add_argument("--keep_db", action="store_true")
    ap.add_argument("--partitioned", action="store_true",
                    help="partitioned filters and index in every "
                         "configuration (" + " ".join(PARTITIONED_FLAGS) +
                         "); with --preset=memlimit, bloomfilter:10 with its "
                         "last-level filter joins the baselines")
    ap.add_argument("--replot", metavar="DIR",
                    help="print the table, checks and plots of an earlier "
                         "run's results.json again, and run nothing")
    args = ap.parse_args()
    if not args.replot and not args.db_bench:
        ap.error("--db_bench is required")
    return args


def replot(directory):
    """Prints the table and checks of DIR/results.json and writes its CSV
    files and plots again."""
    with open(os.path.join(directory, "results.json")) as f:
        saved = json.load(f)
    results = saved["results"]
    for r in results:  # JSON keeps the plan's level numbers as strings
        r["plan"] = {int(level): p for level, p in r["plan"].items()}
    log(print_table(results, saved["meta"]["preset"]))
    for extra in (throughput_table(results), builds_table(results),
                  trees_table(results)):
        if extra:
            log("\n" + extra)
    log("")
    for v in checks(results, saved["meta"]["preset"]):
        log(v)
    write_outputs(directory, results, saved["meta"]["preset"], saved["meta"])


def main(description=None):
    args = parse_args(description)
    if args.replot:
        replot(args.replot)
        return
    preset = PRESETS[args.preset]
    specs = args.config or (MEMLIMIT_PARTITIONED_CONFIGS
                            if args.partitioned and args.preset == "memlimit"
                            else preset["configs"])
    configs = [parse_config(c) for c in specs]
    if args.partitioned:
        configs = partitioned(configs)
    configs = with_builds(configs, args.also_db_bench)
    sizes = args.num or preset["sizes"]
    reads = args.reads or preset["reads"]
    if args.repeat is None:
        args.repeat = 1 if args.preset == "tdstore" else 3
    if args.threads is None:
        args.threads = preset.get("threads", 1)
    if args.cache_size is None:
        args.cache_size = preset.get("cache_size", 1 << 20)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(os.path.join(args.results, stamp))
    os.makedirs(out, exist_ok=True)
    db_dir = os.path.abspath(args.db_dir or db_dir_for(
        args.preset, f"compare-{stamp}", out))
    meta = {"preset": args.preset, "about": preset["about"],
            "sizes": sizes, "reads": reads, "threads": args.threads,
            "repeat": args.repeat,
            "tree_flags": tree_flags(args.preset), "common_flags": COMMON_FLAGS,
            "cpus": os.cpu_count(), "uptime_start": uptime(),
            "started": stamp, "command": sys.argv}
    meta["about"] = preset["about"].replace(
        "CACHE", f"{args.cache_size / 2**20:g} MiB")
    meta["partitioned"] = args.partitioned
    if args.partitioned:
        meta["about"] += "; partitioned filters and index"
    log(f"compare: preset {args.preset}: {meta['about']}")
    log("compare: tree flags: " + " ".join(tree_flags(args.preset)))
    if "--level_compaction_dynamic_level_bytes=true" in tree_flags(
            args.preset):
        log("compare: all runs use --level_compaction_dynamic_level_bytes="
            "true (RocksDB's recommended setting; the static Monkey plan "
            "assumes the deepest level is the last one)")
    if preset.get("advisor") and not args.monkey_plan:
        log("compare: no --monkey_plan: the verdicts have no model optimum")
    log(f"compare: {len(configs)} configurations: "
        + ", ".join(c["label"] for c in configs))
    log(f"compare: results in {out}; DBs in {db_dir}; "
        f"{meta['uptime_start']}")

    results = run_comparison(args, configs, sizes, reads, out, db_dir)
    if db_dir != out and not args.db_dir and not args.keep_db:
        try:
            os.rmdir(db_dir)  # the preset's, now empty
        except OSError:
            pass

    meta["uptime_end"] = uptime()
    table = print_table(results, args.preset)
    for extra in (throughput_table(results), builds_table(results),
                  trees_table(results)):
        if extra:
            table += "\n\n" + extra
    verdicts = checks(results, args.preset)
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

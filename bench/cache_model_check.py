#!/usr/bin/python3
"""Checks the block-cache model (util/cache_cost.h, monkey_plan --db
--cache_bytes) against RocksDB's block-cache tickers (issue 32 item 2).

For each filter layout -- full filters, and partitioned filters and index
(--partition_index_and_filters, --metadata_block_size=4096, the top level
pinned) -- and each filter of --filters (default bloomfilter:10), it loads
--num keys on a tree of several levels. Then, for caches of a few fractions
(--cache_fractions) of the first filter's bytes, the same caches for every
filter, with filters and indexes in a one-shard LRU block cache
(--cache_index_and_filter_blocks, no high-priority pool):
  1. the model: monkey_plan --db --json --cache_bytes=C, the filter, index
     and data blocks an absent-key lookup misses, and the model's best bits
     per level for the cache (its plan) with their modelled reads;
  2. the measurement: readmissing in two processes, of --reads and of
     2 x --reads lookups; the difference of their block-cache miss tickers
     (rocksdb.block.cache.{filter,index,data}.miss) over --reads is the
     misses per lookup of a warm cache, without the cold start's.
Cache hits and misses do not depend on how a miss is read, so the DBs may
sit on /dev/shm (throughput, which does, is item 4's benchmark).
Prints a table (model, measured, measured / model per kind; the plans;
with several filters, the fewest reads at each cache, measured and
modelled) and writes summary.json and the runs' outputs to
results/cache-model-<timestamp>/ (bench/record.py keeps them).

  bench/cache_model_check.py --db_bench=build/db_bench \\
      --monkey_plan=build/monkey_plan [--num=2000000] [--reads=400000]
      [--cache_fractions=0.05,0.2,0.5,2] [--filters=bloomfilter:10,...]
      [--db_dir=/dev/shm/cache-model] [--keep_db]

Python's standard library only.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from comparison.console import run_checked  # noqa: E402

# A tree of several levels: L1 32 MiB, growing by 4, 8 MiB files.
TREE_FLAGS = ["--write_buffer_size=8388608", "--target_file_size_base=8388608",
              "--max_bytes_for_level_base=33554432",
              "--max_bytes_for_level_multiplier=4", "--compression_type=none"]
LAYOUTS = {
    "full": [],
    "partitioned": ["--partition_index_and_filters=true",
                    "--metadata_block_size=4096",
                    "--pin_top_level_index_and_filter=true"],
}
KINDS = ["filter", "index", "data"]


def log(text):
    print(f"cache_model_check: {text}", flush=True)


def run(cmd, out=None):
    return run_checked("cache_model_check", cmd, ROOT, out)


def misses(text):
    """The block-cache miss tickers of a db_bench --statistics run."""
    got = {}
    for kind in KINDS:
        m = re.search(rf"rocksdb\.block\.cache\.{kind}\.miss COUNT : (\d+)",
                      text)
        if not m:
            sys.exit(f"cache_model_check: no rocksdb.block.cache.{kind}.miss "
                     "in db_bench's output (--statistics)")
        got[kind] = int(m.group(1))
    return got


def measure(args, db, layout, filter_uri, cache, out, name):
    """Misses per lookup of a warm cache: two processes, of --reads and of
    2 x --reads lookups, differenced."""
    counts = []
    for reads in (args.reads, 2 * args.reads):
        text = run([args.db_bench, f"--db={db}", "--use_existing_db=1",
                    "--benchmarks=readmissing", f"--num={args.num}",
                    f"--reads={reads}", "--seed=2", "--threads=1",
                    "--statistics", f"--filter_uri={filter_uri}", *TREE_FLAGS,
                    "--cache_index_and_filter_blocks=true",
                    f"--cache_size={cache}", "--cache_numshardbits=0",
                    "--cache_high_pri_pool_ratio=0", *LAYOUTS[layout]],
                   os.path.join(out, f"{name}_{reads}.log"))
        counts.append(misses(text))
    return {k: (counts[1][k] - counts[0][k]) / args.reads for k in KINDS}


def model(args, db, cache, out, name):
    advice = json.loads(run([args.monkey_plan, f"--db={db}", "--json",
                             f"--cache_bytes={cache}"]))
    with open(os.path.join(out, f"{name}_advice.json"), "w") as f:
        json.dump(advice, f, indent=1, sort_keys=True)
    cf = advice["column_families"][0]
    return cf["block_reads"], cf["filter_bytes_now"]


def check_layout(reads, layout):
    if reads["filter_layout"] != layout:
        sys.exit(f"cache_model_check: monkey_plan read the filter layout as "
                 f"{reads['filter_layout']}, not {layout}")


def table(rows):
    lines = ["layout       filter            cache bytes  (x filters)  kind    "
             "model/lookup  measured/lookup  measured/model"]

    def row(r, kind, m, got, ratio):
        return (f"{r['layout']:<12} {r['filter']:<16} {r['cache_bytes']:>11,}  "
                f"{r['fraction']:>11.2f}  {kind:<6}  {m:>12.4f}  "
                f"{got:>15.4f}  {ratio:>14}")

    for r in rows:
        for kind in KINDS:
            m, got = r["model"][kind], r["measured"][kind]
            lines.append(row(r, kind, m, got,
                             f"{got / m:.3f}" if m > 0 else "-"))
        m = sum(r["model"][k] for k in KINDS)
        got = sum(r["measured"][k] for k in KINDS)
        lines.append(row(r, "total", m, got,
                         f"{got / m:.3f}" if m > 0 else "-"))
    lines.append("")
    lines.append("The model's best bits per level at each cache (monkey_plan "
                 "--cache_bytes: plan), against the database's filters:")
    lines.append("layout       filter            cache bytes  (x filters)  "
                 "model now  model planned  planned/now  bits per level")
    for r in rows:
        now = sum(r["model"][k] for k in KINDS)
        plan = r["plan"]
        bits = " ".join(f"L{level}:{b:g}" for level, b in
                        zip(plan["levels"], plan["bits_per_key"]))
        lines.append(f"{r['layout']:<12} {r['filter']:<16} "
                     f"{r['cache_bytes']:>11,}  {r['fraction']:>11.2f}  "
                     f"{now:>9.4f}  {plan['total']:>13.4f}  "
                     f"{plan['total'] / now if now > 0 else 0:>11.3f}  {bits}")
    # With several filters: at each cache, which has the fewest reads, by
    # the counters and by the model.
    caches = {}
    for r in rows:
        caches.setdefault((r["layout"], r["fraction"]), []).append(r)
    if any(len(v) > 1 for v in caches.values()):
        lines.append("")
        lines.append("Fewest block reads per lookup at each cache, measured "
                     "and modelled:")
        for (layout, fraction), rs in caches.items():
            got = min(rs, key=lambda r: sum(r["measured"].values()))
            m = min(rs, key=lambda r: sum(r["model"].values()))
            lines.append(f"{layout:<12} {fraction:>5.2f}x  measured: "
                         f"{got['filter']} "
                         f"({sum(got['measured'].values()):.4f}), model: "
                         f"{m['filter']} ({sum(m['model'].values()):.4f})")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench", required=True, help="patched db_bench")
    ap.add_argument("--monkey_plan", required=True)
    ap.add_argument("--num", type=int, default=2000000)
    ap.add_argument("--reads", type=int, default=400000)
    ap.add_argument("--cache_fractions", default="0.05,0.2,0.5,2",
                    help="block-cache sizes, as fractions of the filter "
                         "bytes")
    ap.add_argument("--filters", default="bloomfilter:10",
                    help="comma-separated filter URIs, one database each; "
                         "the caches are fractions of the first one's "
                         "filter bytes, the same for all")
    ap.add_argument("--layouts", default=",".join(LAYOUTS),
                    help="comma-separated, of " + ", ".join(LAYOUTS))
    ap.add_argument("--db_dir", default="/dev/shm/cache-model")
    ap.add_argument("--keep_db", action="store_true",
                    help="keep the databases (one per layout and filter in "
                         "--db_dir)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    args = ap.parse_args()
    fractions = [float(f) for f in args.cache_fractions.split(",")]
    layouts = args.layouts.split(",")
    for layout in layouts:
        if layout not in LAYOUTS:
            ap.error(f"--layouts: unknown layout '{layout}'")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.join(args.results, f"cache-model-{stamp}")
    os.makedirs(out)
    os.makedirs(args.db_dir, exist_ok=True)
    log(f"results in {out}; DBs in {args.db_dir}")
    rows = []
    filters = args.filters.split(",")
    for layout in layouts:
        reference_bytes = None
        for filter_uri in filters:
            label = re.sub(r"[^A-Za-z0-9.]+", "_", filter_uri)
            db = os.path.join(args.db_dir, f"{layout}_{label}")
            shutil.rmtree(db, ignore_errors=True)
            run([args.db_bench, f"--db={db}",
                 "--benchmarks=filluniquerandom,flush,waitforcompaction",
                 f"--num={args.num}", "--seed=1", "--disable_wal=1",
                 f"--filter_uri={filter_uri}", *TREE_FLAGS, *LAYOUTS[layout]],
                os.path.join(out, f"{layout}_{label}_load.log"))
            # Every db_bench run rewrites the OPTIONS file, which tells
            # monkey_plan the filter layout: each runs with the layout's
            # flags.
            run([args.db_bench, f"--db={db}", "--use_existing_db=1",
                 "--benchmarks=levelstats", f"--num={args.num}",
                 f"--filter_uri={filter_uri}", *TREE_FLAGS,
                 *LAYOUTS[layout]],
                os.path.join(out, f"{layout}_{label}_levels.txt"))
            _, filter_bytes = model(args, db, 1, out,
                                    f"{layout}_{label}_none")
            if reference_bytes is None:
                reference_bytes = filter_bytes
            for fraction in fractions:
                cache = max(1, int(fraction * reference_bytes))
                name = f"{layout}_{label}_{fraction:g}"
                predicted, _ = model(args, db, cache, out, name)
                check_layout(predicted, layout)
                got = measure(args, db, layout, filter_uri, cache, out, name)
                rows.append({"layout": layout, "filter": filter_uri,
                             "fraction": fraction, "cache_bytes": cache,
                             "filter_bytes": filter_bytes,
                             "model": {k: predicted[k] for k in KINDS},
                             "measured": got, "plan": predicted["plan"]})
                log(f"{name}: model {predicted['total']:.4f}, measured "
                    f"{sum(got.values()):.4f} block reads per lookup")
            if not args.keep_db:
                shutil.rmtree(db, ignore_errors=True)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({"num": args.num, "reads": args.reads, "rows": rows}, f,
                  indent=1, sort_keys=True)
    text = table(rows)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    log(f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

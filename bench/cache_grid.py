#!/usr/bin/python3
"""The memory-pressure grid (issue 32 item 4): absent-key lookups through a
block cache smaller than the filters, with direct reads, for hand-picked
uniform and Monkey budgets against the cache-aware objective
(objective=io).

For each filter layout -- full filters, and partitioned filters and index
(--partition_index_and_filters, --metadata_block_size=4096, the top level
pinned) -- it loads one database per configuration (--num keys, the tree of
bench/cache_model_check.py):
  bloomfilter:k, and bloomfilter:k with optimize_filters_for_hits (no
    last-level filter), for k of --ks;
  monkey:k, and id=monkey;bits_per_key=k;last_level_filter=false;
  --io (default id=monkey;bits_per_key=10;objective=io): one database per
    cache, loaded through that cache, since its bits depend on it.
Caches are --cache_fractions of bloomfilter:10's filter bytes in the layout
(a one-shard LRU holding filters and indexes, no high-priority pool, as the
model assumes). Then --rounds rounds: each runs every configuration's
readmissing for --seconds at each cache, back to back (the order rotated by
one each round), with --use_direct_reads so that a block-cache miss is a
device read. Per cell it reports ops/s (median, min-max over the rounds),
block reads per lookup from the block-cache miss tickers (filter, index,
data; the process's cold start included), filter bytes (the filter report),
and with --monkey_plan the model's block reads for the database at that
cache. Then, at each cache: the objective's reads over the fewest of the
grid (measured and modelled) and its ops/s over the best configuration's
and over bloomfilter:10's, round by round, with the device's microseconds
a read (rocksdb.sst.read.micros) and the ops/s of configurations that hold
the same filters, one over the other: what the grid cannot tell apart.
Last, what a read costs on this device: the runs' time per lookup fitted
to their reads and bytes (bench/read_cost.py), objective=io's
read_latency_bytes; priced at that fit, each configuration's measured reads
and KiB give its time a lookup without the device's drift between runs,
and the verdict sets the objective's against the least of the grid.

Loaded apart, the databases differ in more than their filters: which files
compaction moved down whole, and so how much of the key range each level
covers, and how many runs a lookup probes. --same_tree compares the
policies on one tree instead: it loads bloomfilter:10's database once per
layout, and each configuration (each cache's objective=io too, through its
cache) gets a copy of it whose filters bench/refilter rebuilds, every level
rewritten in place by a policy that sees the whole tree (--refilter).

The databases must sit on a file system with O_DIRECT (not tmpfs). The
throughput figures belong to a Release db_bench
(build_tools/build_rocksdb_fork.sh). Writes results/cache-grid-<timestamp>/
(summary.json, table.txt, the runs' outputs); bench/record.py keeps them.

  bench/cache_grid.py --db_bench=build-fork/rocksdb-9.11.2/install/bin/db_bench
      [--monkey_plan=build/monkey_plan] [--num=2000000] [--seconds=10]
      [--rounds=3] [--cache_fractions=0.05,0.2,0.5,2] [--ks=5,7,10,14]
      [--families=bloomfilter,monkey] [--with_last_only]
      [--layouts=full,partitioned]
      [--io='id=monkey;bits_per_key=10;objective=io' [--io=...]]
      [--threads=1]
      [--db_dir=/var/tmp/cache-grid] [--keep_db]
      [--same_tree [--refilter=build/refilter]]

Python's standard library only.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cache_model_check import KINDS, LAYOUTS, TREE_FLAGS, misses  # noqa: E402
from comparison.console import run_checked, uptime  # noqa: E402
from comparison.parse import (JSON_PREFIX, lines_of,  # noqa: E402
                              parse_benchmarks, parse_histogram_sums,
                              parse_levelstats, parse_tickers)
from comparison.spread import fmt_range, ratio_rounds, spread  # noqa: E402
from read_cost import fit, fit_text  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = "bloomfilter:10"
IO_LABEL = "objective=io"
DEFAULT_IO = "id=monkey;bits_per_key=10;objective=io"


def io_label(i):
    """The label of the i-th --io: the first is the one the verdicts judge
    by; others (another read_latency_bytes, say) are judged beside it."""
    return IO_LABEL if i == 0 else f"{IO_LABEL}#{i + 1}"


def is_io(label):
    return label == IO_LABEL or label.startswith(IO_LABEL + "#")
# Cache flags of every run, loads of the io databases included.
CACHE_FLAGS = ["--cache_index_and_filter_blocks=true",
               "--cache_numshardbits=0", "--cache_high_pri_pool_ratio=0"]


def log(text):
    print(f"cache_grid: {text}", flush=True)


def run(cmd, out=None):
    return run_checked("cache_grid", cmd, ROOT, out)


def tree_text(tree):
    return " ".join(f"L{t['level']}:{t['files']} files {t['mb']} MB"
                    for t in tree) or "empty"


def configs(args):
    """(label, filter URI, extra db_bench flags) of the hand-picked grid,
    the reference first."""
    grid = [(REFERENCE, REFERENCE, [])]
    for family in args.families.split(","):
        for k in args.ks.split(","):
            with_last = (f"{family}:{k}", f"{family}:{k}", [])
            if family == "bloomfilter":
                # RocksDB's way to leave the last level unfiltered.
                without = (f"{family}:{k} no-last", f"{family}:{k}",
                           ["--optimize_filters_for_hits=true"])
            else:
                without = (f"{family}:{k} no-last",
                           f"id={family};bits_per_key={k};"
                           "last_level_filter=false", [])
            variants = [with_last] if args.with_last_only else [with_last,
                                                                without]
            for c in variants:
                if c[0] != REFERENCE:
                    grid.append(c)
    return grid


def slug(text):
    return re.sub(r"[^A-Za-z0-9.]+", "_", text).strip("_")


def cell_name(layout, fraction, label):
    """The stem of a cell's files: its model's and each round's log."""
    return f"{layout}_{fraction:g}_{slug(label)}"


# Table format 5 (RocksDB 7.8.3's default; 9.x writes 6): the same filters
# and indexes, and monkey_plan built against Debian's 7.8.3 reads the files
# a 9.x db_bench writes.
FORMAT_FLAGS = ["--format_version=5"]


def db_flags(args, layout, filter_uri, extra):
    return [f"--num={args.num}", f"--filter_uri={filter_uri}", *TREE_FLAGS,
            *FORMAT_FLAGS, *LAYOUTS[layout], *extra]


def cache_flags_of(cache):
    return [] if cache is None else [f"--cache_size={cache}", *CACHE_FLAGS]


def load(args, db, layout, filter_uri, extra, out, cache=None):
    """Loads --num keys and settles with L0 empty: each L0 file triggers a
    compaction, so every database has the same levels, and the grid
    compares filters, not how many L0 files a load happened to leave (each
    is one more filter block read per lookup)."""
    shutil.rmtree(db, ignore_errors=True)
    run([args.db_bench, f"--db={db}",
         "--benchmarks=filluniquerandom,flush,waitforcompaction", "--seed=1",
         "--disable_wal=1", "--level0_file_num_compaction_trigger=1",
         *db_flags(args, layout, filter_uri, extra), *cache_flags_of(cache)],
        os.path.join(out, f"{os.path.basename(db)}_load.log"))
    return levels_of(args, db, layout, filter_uri, extra, out, cache)


def refiltered(args, tree, db, layout, filter_uri, extra, out, cache=None):
    """A copy of the database `tree` at `db`, its filters rebuilt under
    filter_uri (bench/refilter), through the cache when one is given."""
    shutil.rmtree(db, ignore_errors=True)
    shutil.copytree(tree, db)
    run([args.refilter, f"--db={db}", f"--filter_uri={filter_uri}",
         *(["--optimize_filters_for_hits"]
           if "--optimize_filters_for_hits=true" in extra else []),
         *([f"--cache_bytes={cache}"] if cache is not None else [])],
        os.path.join(out, f"{os.path.basename(db)}_refilter.log"))
    return levels_of(args, db, layout, filter_uri, extra, out, cache)


def database(args, tree, db, layout, label, filter_uri, extra, out,
             cache=None):
    """The configuration's database: a copy of `tree` with its filters
    rebuilt (--same_tree), else a load of its own."""
    through = f" through a {cache:,}-byte cache" if cache is not None else ""
    if tree:
        log(f"{layout}: rebuilding the tree's filters as {label}{through}")
        return refiltered(args, tree, db, layout, filter_uri, extra, out,
                          cache)
    log(f"{layout}: loading {label}{through}")
    return load(args, db, layout, filter_uri, extra, out, cache)


def levels_of(args, db, layout, filter_uri, extra, out, cache):
    cache_flags = cache_flags_of(cache)
    levels = run([args.db_bench, f"--db={db}", "--use_existing_db=1",
                  "--benchmarks=levelstats",
                  *db_flags(args, layout, filter_uri, extra), *cache_flags])
    with open(os.path.join(out, f"{os.path.basename(db)}_levels.txt"),
              "w") as f:
        f.write(levels)
    return parse_levelstats(levels)


def read(args, db, layout, filter_uri, extra, cache, seconds, seed, out):
    """One readmissing run: ops/s and micros a lookup, block reads per
    lookup by kind and the KiB they read (the cache's bytes-insert
    tickers), the device's mean microseconds a block read
    (rocksdb.sst.read.micros), and the filter bytes of its filter
    report."""
    text = run([args.db_bench, f"--db={db}", "--use_existing_db=1",
                "--benchmarks=readmissing", f"--reads={1 << 40}",
                f"--duration={seconds}", f"--seed={seed}",
                f"--threads={args.threads}", "--statistics",
                "--use_direct_reads=true", f"--cache_size={cache}",
                *CACHE_FLAGS, *db_flags(args, layout, filter_uri, extra)], out)
    lines = lines_of(text)
    bench = [b for b in parse_benchmarks(lines)
             if b["benchmark"] == "readmissing"]
    if not bench or bench[-1]["operations"] == 0:
        sys.exit(f"cache_grid: no readmissing result in {out}")
    ops = bench[-1]["operations"]
    got = misses(text)
    filter_bytes = None
    for line in lines:
        if line.startswith(JSON_PREFIX):
            report = json.loads(line[len(JSON_PREFIX):])
            filter_bytes = report.get("filter_bytes_total", filter_bytes)
    count, micros = parse_histogram_sums(text).get("rocksdb.sst.read.micros",
                                                   (0, 0))
    tickers = parse_tickers(text)
    inserted = sum(tickers.get(f"rocksdb.block.cache.{k}.bytes.insert", 0)
                   for k in KINDS)
    return {"ops_per_sec": bench[-1]["ops_per_sec"],
            "micros_per_op": bench[-1]["micros_per_op"],
            "reads": {k: got[k] / ops for k in KINDS},
            "kib": inserted / ops / 1024,
            "read_micros": micros / count if count else None,
            "filter_bytes": filter_bytes}


def model(args, db, cache, out):
    """The model's block reads per lookup for the database at this cache
    (None without --monkey_plan, and where monkey_plan has no advice: a
    database without filters, as a fresh no-last-level load can be, when
    its files were built as the last level and moved down whole)."""
    if not args.monkey_plan:
        return None
    cmd = [args.monkey_plan, f"--db={db}", "--json", f"--cache_bytes={cache}"]
    log(" ".join(cmd))
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    with open(out, "w") as f:
        f.write(done.stdout + done.stderr)
    if done.returncode != 0:
        log(f"no model for {db}: {done.stderr.strip()}")
        return None
    return model_of(json.loads(done.stdout))


def model_of(advice):
    """The modelled reads of monkey_plan --json's advice, their cost, and
    each level's bits/key as built."""
    family = advice["column_families"][0]
    reads = family["block_reads"]
    got = {k: reads[k] for k in KINDS}
    got["bits_per_level"] = [round(level["bits_per_key"], 3)
                             for level in family["levels"]]
    # The reads' cost, each priced by its bytes (monkey_plan's
    # --read_latency_bytes): what objective=io minimises.
    if "cost" in reads:
        got["cost"] = reads["cost"]
    return got


def cells_of(args, out):
    """Loads every database; returns the cells (one per layout, cache and
    configuration), each with its database, flags and modelled reads."""
    fractions = [float(f) for f in args.cache_fractions.split(",")]
    cells = []
    trees = {}
    for layout in args.layouts.split(","):
        grid = configs(args)
        dbs = {}
        tree = None
        if args.same_tree:
            tree = os.path.join(args.db_dir, f"{layout}_tree")
            log(f"{layout}: loading the tree with {REFERENCE}")
            log(f"{layout}: the tree: "
                f"{tree_text(load(args, tree, layout, REFERENCE, [], out))}")
        for i, (label, uri, extra) in enumerate(grid):
            db = os.path.join(args.db_dir, f"{layout}_{slug(label)}")
            trees[db] = database(args, tree, db, layout,
                                 f"{label} ({i + 1}/{len(grid)})", uri, extra,
                                 out)
            log(f"{layout}: {label}: {tree_text(trees[db])}")
            dbs[label] = db
        probe = read(args, dbs[REFERENCE], layout, REFERENCE, [], 1 << 30, 1,
                     1, os.path.join(out, f"{layout}_reference_probe.log"))
        reference_bytes = probe["filter_bytes"]
        if not reference_bytes:
            sys.exit("cache_grid: no filter bytes in the filter report of "
                     f"{REFERENCE} ({layout})")
        log(f"{layout}: {REFERENCE} has {reference_bytes:,} filter bytes")
        for fraction in fractions:
            cache = max(1, int(fraction * reference_bytes))
            ios = []
            for i, uri in enumerate(args.io):
                io_db = os.path.join(
                    args.db_dir, f"{layout}_io{i + 1 if i else ''}_"
                    f"{slug(str(fraction))}")
                trees[io_db] = database(args, tree, io_db, layout, uri, uri,
                                        [], out, cache)
                log(f"{layout}: {io_label(i)} at {fraction:g}x: "
                    f"{tree_text(trees[io_db])}")
                ios.append((io_label(i), uri, [], io_db))
            for label, uri, extra, db in (
                    [(lb, u, e, dbs[lb]) for lb, u, e in grid] + ios):
                name = cell_name(layout, fraction, label)
                cells.append({
                    "layout": layout, "fraction": fraction,
                    "cache_bytes": cache, "label": label, "filter_uri": uri,
                    "extra_flags": extra, "db": db, "rounds": [],
                    "tree": trees[db],
                    "model": model(args, db, cache,
                                   os.path.join(out, f"{name}_model.json"))})
    return cells


def measure(args, cells, out, after_round):
    groups = {}
    for c in cells:
        groups.setdefault((c["layout"], c["fraction"]), []).append(c)
    total = len(cells) * args.rounds
    done = 0
    for r in range(args.rounds):
        for (layout, fraction), group in groups.items():
            # Rotated by one each round: no configuration always runs right
            # after the same one.
            shift = r % len(group)
            for c in group[shift:] + group[:shift]:
                done += 1
                name = f"{cell_name(layout, fraction, c['label'])}_r{r}"
                got = read(args, c["db"], layout, c["filter_uri"],
                           c["extra_flags"], c["cache_bytes"], args.seconds,
                           100 + r, os.path.join(out, f"{name}.log"))
                c["rounds"].append(got)
                log(f"[{done}/{total}] round {r + 1} {layout} "
                    f"{fraction:g}x {c['label']}: {got['ops_per_sec']:,} "
                    f"ops/s, {sum(got['reads'].values()):.4f} block reads "
                    "per lookup")
        after_round(r + 1)


def median_of(values):
    """The median of the values that are there, or None."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def summarize(c):
    ops = [x["ops_per_sec"] for x in c["rounds"]]
    reads = {k: statistics.median(x["reads"][k] for x in c["rounds"])
             for k in KINDS}
    med, low, high = spread(ops)
    latency = [x["read_micros"] for x in c["rounds"]
               if x.get("read_micros") is not None]
    return {"layout": c["layout"], "fraction": c["fraction"],
            "cache_bytes": c["cache_bytes"], "label": c["label"],
            "filter_uri": c["filter_uri"], "extra_flags": c["extra_flags"],
            "ops_per_sec_rounds": ops, "ops_per_sec": med,
            "ops_per_sec_min": low, "ops_per_sec_max": high,
            "reads": reads, "reads_total": sum(reads.values()),
            "read_micros_rounds": latency,
            "kib_rounds": [x.get("kib") for x in c["rounds"]],
            "kib": median_of(x.get("kib") for x in c["rounds"]),
            "micros_per_op_rounds": [x.get("micros_per_op")
                                     for x in c["rounds"]],
            "read_micros": median_of(latency),
            "model": c["model"], "tree": c["tree"],
            "model_total": (sum(c["model"][k] for k in KINDS)
                            if c["model"] else None),
            "model_cost": (c["model"].get("cost") if c["model"] else None),
            "filter_bytes": c["rounds"][-1]["filter_bytes"]}


def ratio_text(mine, theirs):
    ratios = ratio_rounds(mine, theirs)
    if not ratios:
        return "-", None
    med = statistics.median(ratios)
    return (f"{med:.2f}x ({fmt_range(min(ratios), max(ratios), '{:.2f}')}"
            f"x)", {"median": med, "min": min(ratios), "max": max(ratios)})


def bits_of(row):
    return (row.get("model") or {}).get("bits_per_level")


def same_filters(grid):
    """The pairs of rows that hold the same filters -- the same filter bytes
    and each level's bits/key as built (the model's): bloomfilter:k and
    monkey:k where Monkey plans uniform bits for the tree -- the earlier row
    second. Their ops/s differ by what the grid cannot tell apart: a
    lookup's time is mostly its device reads, and the device's latency
    drifts between runs (32-48 us a 4 KiB read over the 10-s runs of
    record 20261207-6c1175c-cache-grid-release-same-tree)."""
    pairs = []
    for i, a in enumerate(grid):
        for b in grid[i + 1:]:
            if (a.get("filter_bytes") and bits_of(a) and
                    a["filter_bytes"] == b.get("filter_bytes") and
                    bits_of(a) == bits_of(b)):
                pairs.append((b, a))
    return pairs


def fitted_micros(row, cost):
    """A row's time a lookup at the grid's fitted costs (bench/read_cost.py):
    its measured reads and KiB priced at the device's mean latency, not at
    the latency its own runs drew. None without a fit or the row's KiB."""
    if cost is None or row.get("kib") is None:
        return None
    return (cost["micros_per_read"] * row["reads_total"] +
            cost["micros_per_kib"] * row["kib"] + cost["micros_per_lookup"])


def verdicts(rows, cost=None):
    """At each cache: where the objective stands against the grid; with
    `cost` (read_cost's fit), on fitted time too."""
    lines, out = [], []
    groups = {}
    for r in rows:
        groups.setdefault((r["layout"], r["fraction"]), []).append(r)
    for (layout, fraction), group in groups.items():
        grid = [r for r in group if not is_io(r["label"])]
        for io in (r for r in group if is_io(r["label"])):
            lines.append(verdict(layout, fraction, io, grid, out, cost))
    return lines, out


def verdict(layout, fraction, io, grid, out, cost=None):
    """The verdict line of one --io at one cache; its entry goes to out."""
    ref = next(r for r in grid if r["label"] == REFERENCE)
    fewest = min(grid, key=lambda r: r["reads_total"])
    fastest = max(grid, key=lambda r: r["ops_per_sec"])
    entry = {"layout": layout, "fraction": fraction, "io": io["label"],
             "fewest_reads": fewest["label"],
             "reads_over_fewest": io["reads_total"] /
             fewest["reads_total"],
             "fastest": fastest["label"]}
    which = "" if io["label"] == IO_LABEL else f"{io['label']} "
    text = (f"{layout:<12} {fraction:>5g}x  {which}reads "
            f"{io['reads_total']:.4f}"
            f" = {entry['reads_over_fewest']:.3f}x the fewest "
            f"({fewest['label']}, {fewest['reads_total']:.4f})")
    # The model's reads, and their cost, against the grid's best.
    for key, ratio, best, words in (
            ("model_total", "model_over_fewest", "fewest_model",
             "; modelled {:.3f}x the fewest ({})"),
            ("model_cost", "cost_over_cheapest", "cheapest_model",
             ", cost {:.3f}x the cheapest ({})")):
        priced = [r for r in grid if r.get(key) is not None]
        if io.get(key) is None or not priced:
            continue
        least = min(priced, key=lambda r: r[key])
        entry[ratio] = io[key] / least[key]
        entry[best] = least["label"]
        text += words.format(entry[ratio], least["label"])
    t, entry["ops_over_fastest"] = ratio_text(
        io["ops_per_sec_rounds"], fastest["ops_per_sec_rounds"])
    text += f"; ops/s {t} of {fastest['label']}'s"
    t, entry["ops_over_reference"] = ratio_text(
        io["ops_per_sec_rounds"], ref["ops_per_sec_rounds"])
    text += f", {t} of {REFERENCE}'s"
    if (io.get("read_micros") is not None and
            fastest.get("read_micros") is not None):
        entry["read_micros"] = {"io": io["read_micros"],
                                "fastest": fastest["read_micros"]}
        text += (f"; {io['read_micros']:.1f} us a device read against "
                 f"{fastest['read_micros']:.1f}")
    # Its reads and bytes at the device's mean costs: what the ops/s would
    # be without the latency drift between runs.
    fitted = [(fitted_micros(r, cost), r) for r in grid]
    fitted = [(t, r) for t, r in fitted if t is not None]
    mine = fitted_micros(io, cost)
    if mine is not None and fitted:
        least, quickest = min(fitted, key=lambda x: x[0])
        entry["fitted_over_least"] = mine / least
        entry["least_fitted"] = quickest["label"]
        text += (f"; fitted {mine:.1f} us a lookup = {mine / least:.3f}x "
                 f"the least ({quickest['label']}, {least:.1f})")
    # What the grid cannot tell apart: configurations with the same
    # filters, one over the other round by round (once a cell).
    ratios = []
    for a, b in same_filters(grid) if io["label"] == IO_LABEL else []:
        t, _ = ratio_text(a["ops_per_sec_rounds"],
                          b["ops_per_sec_rounds"])
        ratios += ratio_rounds(a["ops_per_sec_rounds"],
                               b["ops_per_sec_rounds"])
        text += (f"\n{'':<20}same filters: {a['label']} {t} of "
                 f"{b['label']}'s")
    if ratios:
        entry["same_filters_ops"] = {"min": min(ratios),
                                     "max": max(ratios)}
    out.append(entry)
    return text


def read_cost(cells):
    """The fit of every run's time per lookup to its reads and their KiB
    (bench/read_cost.py), or None."""
    return fit([(sum(x["reads"].values()), x["kib"], x["micros_per_op"])
                for c in cells for x in c["rounds"]
                if x.get("kib") is not None])


def table(rows, verdict_lines, ios):
    head = (f"{'layout':<12} {'cache':>6} {'configuration':<26} "
            f"{'ops/s':>9} {'min-max':>17} {'filter':>7} {'index':>7} "
            f"{'data':>7} {'reads':>7} {'model':>7} {'cost':>7} "
            f"{'filter MiB':>10} {'read us':>7}")
    lines = ["Block reads per lookup from the block-cache miss tickers "
             "(median over the rounds); model: monkey_plan --cache_bytes's "
             "reads, and their cost (each read 1 + its bytes / "
             "read_latency_bytes); read us: the device's microseconds a "
             "block read (rocksdb.sst.read.micros, median over the rounds)",
             head]
    for r in rows:
        model = f"{r['model_total']:.4f}" if r["model_total"] is not None \
            else "-"
        cost = (f"{r['model_cost']:.4f}" if r.get("model_cost") is not None
                else "-")
        mib = (f"{r['filter_bytes'] / 2**20:.3f}" if r["filter_bytes"]
               else "-")
        latency = (f"{r['read_micros']:.1f}"
                   if r.get("read_micros") is not None else "-")
        lines.append(
            f"{r['layout']:<12} {r['fraction']:>5g}x {r['label']:<26} "
            f"{r['ops_per_sec']:>9,.0f} "
            f"{fmt_range(r['ops_per_sec_min'], r['ops_per_sec_max']):>17} "
            + " ".join(f"{r['reads'][k]:>7.4f}" for k in KINDS) +
            f" {r['reads_total']:>7.4f} {model:>7} {cost:>7} {mib:>10}"
            f" {latency:>7}")
    lines += [f"{io_label(i)}: {uri}" for i, uri in enumerate(ios)]
    lines += ["", f"{IO_LABEL} at each cache (ops/s ratios round by round, "
              "median (min-max)):"] + verdict_lines
    return "\n".join(lines)


def rejudged(path):
    """The table of a grid's summary.json, its verdicts made again."""
    with open(path) as f:
        saved = json.load(f)
    rows = saved["rows"]
    ios = saved["io"] if isinstance(saved["io"], list) else [saved["io"]]
    # A record from before the rows held each level's bits: its model files.
    for r in rows:
        name = os.path.join(os.path.dirname(path), cell_name(
            r["layout"], r["fraction"], r["label"]) + "_model.json")
        if r.get("model") and not bits_of(r) and os.path.exists(name):
            with open(name) as f:
                r["model"]["bits_per_level"] = model_of(
                    json.load(f))["bits_per_level"]
    verdict_lines, _ = verdicts(rows, saved.get("read_cost"))
    return (f"{path}: {saved['rounds']} rounds\n" +
            table(rows, verdict_lines, ios))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--db_bench",
                    help="patched db_bench (Release for throughput)")
    ap.add_argument("--rejudge", metavar="SUMMARY_JSON",
                    help="no runs: the table and verdicts of a grid's "
                    "summary.json (a record's), judged as this script "
                    "judges")
    ap.add_argument("--monkey_plan", help="for the modelled block reads")
    ap.add_argument("--num", type=int, default=2000000)
    ap.add_argument("--seconds", type=int, default=10,
                    help="each readmissing run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cache_fractions", default="0.05,0.2,0.5,2")
    ap.add_argument("--ks", default="5,7,10,14")
    ap.add_argument("--families", default="bloomfilter,monkey")
    ap.add_argument("--with_last_only", action="store_true",
                    help="no no-last configurations (a sweep of k)")
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--io", action="append",
                    help=f"the cache-aware filter policy (default "
                    f"{DEFAULT_IO}); again for another, judged beside it "
                    f"as {io_label(1)}, ...")
    ap.add_argument("--db_dir", default="/var/tmp/cache-grid",
                    help="on a file system with O_DIRECT (not tmpfs)")
    ap.add_argument("--keep_db", action="store_true")
    ap.add_argument("--same_tree", action="store_true",
                    help="every configuration on one tree per layout")
    ap.add_argument("--refilter", default=os.path.join(ROOT, "build",
                                                       "refilter"),
                    help="bench/refilter, for --same_tree")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    args = ap.parse_args()
    args.io = args.io or [DEFAULT_IO]
    if args.rejudge:
        print(rejudged(args.rejudge))
        return 0
    if not args.db_bench:
        ap.error("--db_bench is required (or --rejudge)")
    for layout in args.layouts.split(","):
        if layout not in LAYOUTS:
            ap.error(f"--layouts: unknown layout '{layout}'")
    for family in args.families.split(","):
        if family not in ("bloomfilter", "monkey"):
            ap.error(f"--families: unknown family '{family}'")
    if args.seconds < 1 or args.rounds < 1:
        ap.error("--seconds and --rounds must be at least 1")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.join(args.results, f"cache-grid-{stamp}")
    os.makedirs(out)
    os.makedirs(args.db_dir, exist_ok=True)
    log(f"results in {out}; DBs in {args.db_dir}; {uptime()}")
    cells = cells_of(args, out)
    text = ""

    def write(rounds_done):
        """The results so far, after each round: a long run cut short
        keeps its complete rounds."""
        nonlocal text
        rows = [summarize(c) for c in cells]
        cost = read_cost(cells)
        verdict_lines, verdict = verdicts(rows, cost)
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump({"num": args.num, "seconds": args.seconds,
                       "same_tree": args.same_tree,
                       "rounds": rounds_done, "threads": args.threads,
                       "io": args.io, "rows": rows, "objective": verdict,
                       "read_cost": cost,
                       "uptime": uptime()}, f, indent=1, sort_keys=True)
        text = (table(rows, verdict_lines, args.io) + "\n\n" +
                fit_text(cost))
        with open(os.path.join(out, "table.txt"), "w") as f:
            f.write(f"After {rounds_done} of {args.rounds} rounds.\n" + text +
                    "\n")

    measure(args, cells, out, write)
    print(text)
    if not args.keep_db:
        for c in cells:
            shutil.rmtree(c["db"], ignore_errors=True)
        for layout in args.layouts.split(","):
            shutil.rmtree(os.path.join(args.db_dir, f"{layout}_tree"),
                          ignore_errors=True)
    log(f"results in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

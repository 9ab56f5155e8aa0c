# What the comparison runs: the presets, the configuration specs given with
# --config and --also_db_bench, and the db_bench flags of each phase.

import os
import shlex
import sys

from comparison.figures import sorted_runs

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
    # The least memory at bloomfilter:10's Sigma FPR (objective=memory).
    "monkey10/memory=id=monkey;bits_per_key=10;objective=memory",
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
# --partitioned: partitioned filters and index, the layout an expert picks
# under memory pressure. A filter miss then reads one metadata_block_size
# partition, not a whole filter block, so the full-filter memlimit result
# (fewer filter bytes per insert) need not hold (issue 32). In 7.8.3's
# db_bench, --partition_index_and_filters also sets the two-level index
# (it has no --index_type).
PARTITIONED_FLAGS = [
    "--partition_index_and_filters=true",
    "--metadata_block_size=4096",
    "--pin_top_level_index_and_filter=true",
]
# memlimit --partitioned compares against Bloom with its last-level filter
# too: with partitions, a last-level filter costs a 4 KiB read on a miss and
# saves a data block on every absent key.
MEMLIMIT_PARTITIONED_CONFIGS = TDSTORE_CONFIGS[:3] + ["bloomfilter:10"]


def partitioned(configs):
    """Every configuration with PARTITIONED_FLAGS."""
    return [dict(c, flags=c["flags"] + PARTITIONED_FLAGS) for c in configs]


def is_partitioned(config):
    return "--partition_index_and_filters=true" in config["flags"]


# Monkey plans from the live shape by default (shape=live); the static plan
# is there to compare.
STATIC_CONFIGS = [
    "monkey:10/static=id=monkey;bits_per_key=10;shape=static",
    "monkey:7/static=id=monkey;bits_per_key=7;shape=static",
]
SCALE_CONFIGS = ["bloomfilter:10", "monkey:10", "monkey:7"] + STATIC_CONFIGS
# The deep preset: TDStore's three groups, and Bloom and Monkey at 10 bits
# with a last-level filter.
DEEP_CONFIGS = TDSTORE_CONFIGS[:3] + ["bloomfilter:10", "monkey:10"]

# A tree of production depth on 2 cores: RocksDB's T = 10 and dynamic level
# sizing, with the memtable, the base level and the files shrunk so that
# 1.2M keys (about 90 MB in L6) make L3, L4 and L5 above L6 -- dynamic
# sizing opens L3 once L6 passes 1000x a tenth of the base level, 52 MB, and
# L2 past 520 MB. Files of 64 KiB keep 12-17 of them in L4, so that absent
# keys reach most of it (measured: L3 0.73-0.84, L4 0.65-0.73, L5 0.9 of
# absent keys probe them); 32 KiB files reached about as far and gave every
# filter 10-15% of cache-line rounding (bloomfilter:10 at 11.3 bits/key).
# Write throttling scaled to the tree as RocksDB's defaults are to a
# production one (64 GiB pending compaction bytes over a 256 MiB base):
# without it a load at full speed runs ahead of compaction, L3-L5 swell to
# 50-80 MB over an L6 of 2 MB -- dynamic sizing then takes the largest level
# for the last -- and the load spent 92% of its time in write stalls;
# measured here with 3M keys, 1 MiB base: the upper levels' reach fell to
# 0.02-0.58 and monkey10's filters came out at 11.7 bits/key for a budget of
# 10. With throttling the same tree kept L6 the largest level all along.
DEEP_TREE_FLAGS = [
    "--key_size=16", "--value_size=100", "--write_buffer_size=131072",
    "--max_bytes_for_level_base=524288", "--target_file_size_base=65536",
    "--max_bytes_for_level_multiplier=10",
    "--max_background_jobs=2", "--compression_type=none",
    "--level_compaction_dynamic_level_bytes=true",
    "--soft_pending_compaction_bytes_limit=4194304",
    "--hard_pending_compaction_bytes_limit=16777216",
    "--level0_slowdown_writes_trigger=8", "--level0_stop_writes_trigger=16",
    # TDStore's trees had 6-8 filtered runs, several of them L0 files; a busy
    # L0 holds that many (RocksDB slows writes only at 20). A trigger of 6
    # lets the tree keep five between compactions: 8 filtered runs over L3-L5.
    "--level0_file_num_compaction_trigger=6",
]
# TDStore's resource-limited test on 2 cores: filters and indexes in a block
# cache smaller than fixed10's filters, SST files of 32 MiB so that each
# file's whole filter block is hundreds of KiB (about 300 KiB at 10
# bits/key, as in production), and 16 KiB data blocks so that the indexes
# (0.75-0.8 MB) stay smaller than the filters (1.3-1.7 MB), as TDStore's
# filters held 82% of its cache; with 4 KiB blocks the indexes were 2.8 MB.
# 6M keys make L5 (4 files) over L6 (21); the measurement's inserts keep
# adding L0 files and compactions. Reads go through the page cache, as
# TDStore's likely did.
MEMLIMIT_TREE_FLAGS = [
    "--key_size=16", "--value_size=100", "--write_buffer_size=33554432",
    "--max_bytes_for_level_base=134217728",
    "--target_file_size_base=33554432", "--block_size=16384",
    "--max_bytes_for_level_multiplier=10",
    "--max_background_jobs=2", "--compression_type=none",
    "--level_compaction_dynamic_level_bytes=true",
]

# After the load, the deep preset adds the L0 files its tree keeps: one
# fewer than its level0_file_num_compaction_trigger, each half a memtable of
# random keys, so that together they stay under the base level's target and
# no compaction takes them before the measurement.
DEEP_L0_FILES = 5
DEEP_L0_FILE_KEYS = 500

# The universal preset (issue 31): a tiered tree, where an absent-key
# lookup probes every sorted run -- each L0 file one, each non-empty level
# below one -- so that Monkey's per-run bits are what it is judged on.
# RocksDB's universal defaults (size ratio 1%, merge width 2, size
# amplification 200%) over seven levels, with a trigger of 12 runs: the
# picker merges only once a tree holds 12 runs, so a tree at rest holds
# 11 at most, and between merges it cycles from a few runs up to 11
# (measured at 1M keys, 1-2 MiB memtables: L0 4-5 files over L3-L6, 8-9
# runs; with trigger 10 and merge width 4, 9). Where the load stops in that
# cycle depends on N and on the background jobs' timing, so the runs phase
# tops the tree up with L0 files to UNIVERSAL_RUNS_AT_REST, the most it
# keeps: the state just before its next merge. The sizes spread from a
# 1.5 MB flush to the 60 MB bottom run, the skew Monkey plans for. Merge
# width 2 also keeps waitforcompaction from hanging: 7.8.3 reports a
# compaction pending for a tree at its trigger that it cannot merge (as
# bench/tiered_budget.py found with widths 4 and 8), and with width 2 the
# picker can always merge two runs.
UNIVERSAL_TRIGGER = 12
UNIVERSAL_RUNS_AT_REST = UNIVERSAL_TRIGGER - 1
UNIVERSAL_MIN_RUNS = 8
UNIVERSAL_TREE_FLAGS = [
    "--compaction_style=1", "--key_size=16", "--value_size=100",
    "--write_buffer_size=2097152", "--num_levels=7",
    "--max_background_jobs=2", "--compression_type=none",
    f"--level0_file_num_compaction_trigger={UNIVERSAL_TRIGGER}",
    "--universal_size_ratio=1", "--universal_min_merge_width=2",
    "--universal_max_size_amplification_percent=200",
]
# Each L0 file the runs phase adds: half of what a 2 MiB memtable holds
# (its flushes held about 11,700 keys each), so that no write fills the
# memtable and flushes a second file on its own.
UNIVERSAL_L0_FILE_KEYS = 6000
UNIVERSAL_CONFIGS = ["bloomfilter:10", "monkey:10", "monkey:7"]

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
    "deep": {
        "configs": DEEP_CONFIGS, "sizes": [1200000], "reads": 200000,
        "tree_flags": DEEP_TREE_FLAGS,
        # Its 15k-30k files of 64 KiB each get an fdatasync when written: on
        # this machine's disk that, not compaction, set the pace (a 2.5M-key
        # load with a 1 MiB base took 5 min 20 s; 1.2M keys here, in memory,
        # 23 s with Bloom and 69 s with Monkey). Its DBs (about 100 MB each)
        # go to tmpfs, the way a production disk keeps up with 64 MiB files.
        "db_dir": "/dev/shm",
        "about": "fillrandom 1.2M keys into a tree of L0 (5 files), L3, L4, "
                 "L5 and L6 (T = 10, 128 KiB memtable, 512 KiB base level, "
                 "64 KiB files), then readmissing, 200k",
    },
    "memlimit": {
        "configs": TDSTORE_CONFIGS[:3], "sizes": [6000000],
        "reads": 600000, "tree_flags": MEMLIMIT_TREE_FLAGS,
        # 1 MiB: 0.8x fixed10's filters (1.3 MB) and 0.5x its filters and
        # indexes. At 512 KiB, less than two of its 300 KiB filter blocks,
        # nine in ten filter probes missed for every group and each insert
        # read 0.49-0.65 MB of filters into the cache (run 20261201-231126).
        "threads": 4, "cache_size": 1 << 20,
        "about": "insertunique loads 6M keys (32 MiB files), then rounds of "
                 "600k more unique-key inserts by 4 threads, filters and "
                 "indexes in a CACHE block cache (0.8x fixed10's filters); "
                 "throughput from a Release db_bench (--release)",
    },
    "universal": {
        "configs": UNIVERSAL_CONFIGS, "sizes": [2000000], "reads": 200000,
        "tree_flags": UNIVERSAL_TREE_FLAGS, "min_runs": UNIVERSAL_MIN_RUNS,
        # Its DBs (about 250 MB each) in tmpfs, as the deep preset's: the
        # load flushes a file every 2 MiB, each with an fdatasync.
        "db_dir": "/dev/shm",
        # The model's optimum for the runs and bytes at rest comes from
        # the advisor (monkey_plan --db --json) on each DB.
        "advisor": True,
        "about": "universal compaction (--compaction_style=1, trigger "
                 f"{UNIVERSAL_TRIGGER}): fillrandom 2M keys, L0 files up to "
                 f"{UNIVERSAL_RUNS_AT_REST} sorted runs at rest, then "
                 "readmissing, 200k",
    },
    "tdstore": {
        "configs": TDSTORE_CONFIGS, "sizes": [2000000], "reads": 300000,
        "about": "insertunique loads 2M keys, then 300k more unique-key "
                 "inserts (Get, then Put) with filters and indexes in a "
                 "CACHE block cache, smaller than they are, and direct reads",
    },
}

# The load ends with a settled tree: flush (so that the next open replays no
# WAL into a new L0 file), compact0 (L0 into the next level, as db_bench's
# benchmark.sh does) and waitforcompaction.
SETTLE = "flush,compact0,waitforcompaction"


def db_dir_for(preset, name, fallback):
    """Where a run's DBs go: a new directory `name` in the preset's db_dir
    (tmpfs) when it has a writable one, else `fallback`."""
    shm = PRESETS[preset].get("db_dir")
    if not shm or not os.access(shm, os.W_OK):
        return fallback
    path = os.path.join(shm, name)
    os.makedirs(path, exist_ok=True)
    return path


def tree_flags(preset):
    """The db_bench flags that shape the tree of a preset."""
    return PRESETS[preset].get("tree_flags", TREE_FLAGS)


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


def deep_l0_files(num, files, then=(), keys=DEEP_L0_FILE_KEYS):
    """The db_bench flags that flush `files` L0 files of `keys` random keys
    of [0, num) each into an existing DB, one by one, then run the
    benchmarks `then` (fillrandom is skipped on an existing DB; overwrite
    writes --writes keys)."""
    return ["--benchmarks=" + ",".join(["overwrite,flush"] * files
                                       + list(then)),
            "--use_existing_db=1", f"--num={num}",
            f"--writes={keys}", "--threads=1"]


def universal_top_up(num, runs_at_rest=UNIVERSAL_RUNS_AT_REST):
    """The universal preset's runs phase: a function of the trees a result
    has so far (phase -> parse_levelstats rows) that gives the db_bench
    flags adding the L0 files that bring the load's sorted runs up to
    `runs_at_rest`, then printing the tree (levelstats alone where it has
    them already)."""
    def flags(trees):
        if not trees.get("load"):
            sys.exit("compare: the load printed no levelstats, so its sorted "
                     "runs are unknown")
        missing = max(0, runs_at_rest - sorted_runs(trees["load"]))
        return deep_l0_files(num, missing, ["levelstats"],
                             UNIVERSAL_L0_FILE_KEYS)
    return flags


def workload_phases(preset, num, reads, threads, cache_size):
    """The db_bench invocations of one configuration, in order: each is
    (phase, flags, expected ops), phase "load", "runs" (deep, universal:
    the L0 files added after the load) or "measure". Flags may be a
    function of the result's trees so far (universal's runs phase), the
    expected ops None where unknown.

    The measurement runs in a new process: every table reader is then opened
    at its file's current level (a reader keeps the level it was opened at,
    so a trivially moved file would count under its old level)."""
    if preset in ("tdstore", "memlimit"):
        cache = ["--cache_index_and_filter_blocks=true",
                 f"--cache_size={cache_size}", "--cache_numshardbits=0"]
        if preset == "tdstore":
            cache.append("--use_direct_reads=true")
        load = [f"--benchmarks=insertunique,{SETTLE}", f"--num={num}",
                "--threads=1"]
        measure = ["--benchmarks=insertunique", "--use_existing_db=1",
                   f"--num={reads // threads}", f"--threads={threads}"] + cache
        return [("load", load, num), ("measure", measure, reads)]
    load = [f"--benchmarks=fillrandom,{SETTLE}", f"--num={num}",
            "--threads=1"]
    if preset == "deep":
        # The L0 files, by a second process; levelstats prints the tree the
        # measurement starts on.
        runs = deep_l0_files(num, DEEP_L0_FILES, ["levelstats"])
        measure = ["--benchmarks=readmissing,levelstats",
                   "--use_existing_db=1", f"--num={num}",
                   f"--reads={reads // threads}", f"--threads={threads}"]
        return [("load", load, num), ("runs", runs, DEEP_L0_FILES
                                      * DEEP_L0_FILE_KEYS),
                ("measure", measure, reads)]
    if preset == "universal":
        # Not compact0: under universal compaction it would merge the L0
        # runs. The runs phase's flags depend on the load's tree (see
        # universal_top_up); its ops are not known in advance.
        load = [f"--benchmarks=fillrandom,flush,waitforcompaction,"
                "levelstats", f"--num={num}", "--threads=1"]
        measure = ["--benchmarks=readmissing,levelstats",
                   "--use_existing_db=1", f"--num={num}",
                   f"--reads={reads // threads}", f"--threads={threads}"]
        return [("load", load, num), ("runs", universal_top_up(num), None),
                ("measure", measure, reads)]
    measure = ["--benchmarks=readmissing,readrandom", "--use_existing_db=1",
               f"--num={num}", f"--reads={reads // threads}",
               f"--threads={threads}"]
    return [("load", load, num), ("measure", measure, reads)]


def schedule(phases, repeat):
    """The runs of one configuration: (round, phase, flags, ops), a load
    phase once and a measure phase `repeat` times, round counting from 0
    within each phase."""
    runs = []
    for phase, flags, ops in phases:
        rounds = repeat if phase == "measure" else 1
        runs += [(k, phase, flags, ops) for k in range(rounds)]
    return runs

# What the comparison runs: the presets, the configuration specs given with
# --config and --also_db_bench, and the db_bench flags of each phase.

import shlex
import sys

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

# The load ends with a settled tree: flush (so that the next open replays no
# WAL into a new L0 file), compact0 (L0 into the next level, as db_bench's
# benchmark.sh does) and waitforcompaction.
SETTLE = "flush,compact0,waitforcompaction"


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


def workload_phases(preset, num, reads, threads, cache_size):
    """The db_bench invocations of one configuration, in order: each is
    (phase, flags, expected ops), phase "load" or "measure".

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


def schedule(phases, repeat):
    """The runs of one configuration: (round, phase, flags, ops), a load
    phase once and a measure phase `repeat` times, round counting from 0
    within each phase."""
    runs = []
    for phase, flags, ops in phases:
        rounds = repeat if phase == "measure" else 1
        runs += [(k, phase, flags, ops) for k in range(rounds)]
    return runs

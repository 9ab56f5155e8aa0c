#!/usr/bin/python3
"""Runs a benchmark and keeps it as a result record that the docs can quote.

  bench/record.py --name=NAME [--why=TEXT] -- COMMAND [ARGS...]

Writes bench/results/<YYYYMMDD>-<commit>-<NAME>/:
  command.txt  the command, where it ran, when, how long, its exit status and
               --why;
  machine.txt  CPUs, memory, OS, kernel, compiler, RocksDB package, and the
               load average at the start and the end;
  run.log      everything the command printed (gzipped when over 256 KiB);
  and the small files (.json, .csv, .txt, .png up to 4 MiB) of the results
  directory the command names in its "results in DIR" line, as
  tools/compare.sh, bench/writetax.py, bench/depth_sweep.py and
  bench/frontier.py print it.

The record names the commit that ran, so the tree must be clean: a record of
code that no commit holds could not be reproduced. bench/tables.py turns
records into the tables of docs/benchmarks.md.

Python's standard library only.
"""

import argparse
import datetime
import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
KEPT_SUFFIXES = (".json", ".csv", ".txt", ".png")
KEPT_MAX_BYTES = 4 << 20
LOG_GZIP_BYTES = 256 << 10


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True,
                          text=True, check=True).stdout.strip()


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    return out.strip().splitlines()[0] if out.strip() else "unknown"


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine_facts():
    facts = {"cpus": str(os.cpu_count())}
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
        facts["cpu"] = m.group(1) if m else "unknown"
    with open("/proc/meminfo") as f:
        kib = int(re.search(r"MemTotal:\s*(\d+)", f.read()).group(1))
        facts["memory"] = f"{kib / (1 << 20):.1f} GiB"
    facts["os"] = "unknown"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            m = re.search(r'^PRETTY_NAME="?([^"\n]*)', f.read(), re.M)
            facts["os"] = m.group(1) if m else "unknown"
    if os.path.exists("/etc/debian_version"):
        with open("/etc/debian_version") as f:
            facts["os"] += f" ({f.read().strip()})"
    facts["kernel"] = os.uname().release
    facts["compiler"] = first_line(["g++", "--version"])
    facts["rocksdb"] = first_line(
        ["dpkg-query", "-W", "-f=${Package} ${Version}\n", "librocksdb-dev"])
    return facts


def run(command, log_path):
    """Runs `command`, echoing and logging its output; returns its status
    and the last "results in DIR" it printed."""
    results_dir = None
    with open(log_path, "w") as log:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                bufsize=1)
        for line in proc.stdout:
            sys.stdout.write(line)
            log.write(line)
            m = re.search(r"results in (\S+?);?(\s|$)", line)
            if m:
                results_dir = m.group(1)
        return proc.wait(), results_dir


def keep_results(results_dir, record):
    if results_dir is None:
        return []
    src = os.path.join(ROOT, results_dir)
    kept = []
    for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        path = os.path.join(src, name)
        if (name.endswith(KEPT_SUFFIXES) and os.path.isfile(path) and
                os.path.getsize(path) <= KEPT_MAX_BYTES):
            shutil.copy(path, os.path.join(record, name))
            kept.append(name)
    return kept


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--name", required=True,
                    help="what was run, e.g. compare-deep")
    ap.add_argument("--why", default="", help="why it was run (one line)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command to run")
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]*", args.name):
        ap.error("--name: lower-case letters, digits, '.' and '-'")
    if git("status", "--porcelain", "--untracked-files=no"):
        sys.exit("record: the tree has uncommitted changes; commit first, so "
                 "that the record names the code that ran")
    commit = git("rev-parse", "HEAD")  # the code that runs, read before it does
    start = datetime.datetime.now(datetime.timezone.utc)
    record = os.path.join(RESULTS,
                          f"{start:%Y%m%d}-{commit[:7]}-{args.name}")
    if os.path.exists(record):
        sys.exit(f"record: {record} exists")
    os.makedirs(record)
    facts, load_start, t0 = machine_facts(), loadavg(), time.monotonic()
    status, results_dir = run(command, os.path.join(record, "run.log"))
    wall, load_end = time.monotonic() - t0, loadavg()
    kept = keep_results(results_dir, record)
    log_path = os.path.join(record, "run.log")
    if os.path.getsize(log_path) > LOG_GZIP_BYTES:
        with open(log_path, "rb") as f, gzip.open(log_path + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        os.remove(log_path)
    with open(os.path.join(record, "machine.txt"), "w") as f:
        for key, value in facts.items():
            f.write(f"{key}: {value}\n")
        f.write(f"load average at start: {load_start}\n")
        f.write(f"load average at end: {load_end}\n")
    with open(os.path.join(record, "command.txt"), "w") as f:
        f.write(f"# {args.why}\n" if args.why else "")
        f.write(f"# commit {commit}, run from {ROOT}\n")
        f.write(shlex.join(command) + "\n")
        f.write(f"# started {start:%Y-%m-%d %H:%M:%S} UTC, "
                f"{wall / 60:.1f} min, exit status {status}\n")
        if results_dir:
            f.write(f"# results: {results_dir} -> {', '.join(kept)}\n")
    print(f"record: {os.path.relpath(record, ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())

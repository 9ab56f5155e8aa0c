#!/usr/bin/env python3
"""Instructions per component from callgrind profiles of db_bench fills.

Usage: bench/callgrind_summary.py PROFILE.out[.gz]...
Reads each profile with callgrind_annotate (inclusive counts) and prints
the totals, the components the write tax is made of, and the plans made.
"""
import gzip
import os
import re
import subprocess
import sys
import tempfile

COMPONENTS = [
    ("total", "PROGRAM TOTALS"),
    ("policy construction (hulls, once)", "monkey::MonkeyFilterPolicy::MonkeyFilterPolicy()"),
    ("compaction jobs", "rocksdb::CompactionJob::Run()"),
    ("flush jobs", "rocksdb::DBImpl::BackgroundCallFlush("),
    ("writes", "rocksdb::DBImpl::WriteImpl("),
    ("filters: keys added", "rocksdb::FullFilterBlockBuilder::Add("),
    ("filters: blocks built", "rocksdb::FullFilterBlockBuilder::Finish("),
    ("planner thread", "monkey::ShapeListener::PlannerLoop()"),
    ("  ProjectLiveShape", "monkey::ProjectLiveShape("),
    ("  UpdateLiveShape", "monkey::MonkeyFilterPolicy::UpdateLiveShape("),
    ("collector: RocksDB's wrapper", "rocksdb::UserKeyTablePropertiesCollector::InternalAdd("),
    ("  KeyRangeCollector::AddUserKey", "KeyRangeCollector::AddUserKey("),
    ("callback OnFlushBegin", "monkey::ShapeListener::OnFlushBegin("),
    ("callback OnFlushCompleted", "monkey::ShapeListener::OnFlushCompleted("),
    ("callback OnCompactionBegin", "monkey::ShapeListener::OnCompactionBegin("),
    ("callback OnCompactionCompleted", "monkey::ShapeListener::OnCompactionCompleted("),
    ("callback OnTableFileCreated", "monkey::ShapeListener::OnTableFileCreated("),
    ("callback OnTableFileDeleted", "monkey::ShapeListener::OnTableFileDeleted("),
    ("DB::GetIntProperty (DB mutex)", "rocksdb::DBImpl::GetIntProperty("),
]


def inclusive(path):
    out = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    counts = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if m:
            counts.setdefault(m.group(2), int(m.group(1).replace(",", "")))
    return counts


def plans(path):
    """Calls of ProjectLiveShape: one per plan the listener made."""
    out = subprocess.run(
        ["callgrind_annotate", "--tree=calling", "--inclusive=yes",
         "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.search(r">\s+\?\?\?:monkey::ProjectLiveShape\(.*\((\d+)x\)", line)
        if m:
            return int(m.group(1))
    return 0


def find(counts, needle):
    for name, n in counts.items():
        if needle in name:
            return n
    return 0


def unzipped(path):
    """callgrind_annotate reads plain files: a .gz is unpacked to a temp."""
    if not path.endswith(".gz"):
        return path
    fd, tmp = tempfile.mkstemp(suffix=".out")
    with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
        out.write(src.read())
    return tmp


def main():
    names = [p.rsplit("/", 1)[-1].split(".")[0] for p in sys.argv[1:]]
    paths = [unzipped(p) for p in sys.argv[1:]]
    profiles = [inclusive(p) for p in paths]
    print("%-36s" % "instructions (Ir)" +
          "".join("%16s" % n[-15:] for n in names))
    for label, needle in COMPONENTS:
        print("%-36s" % label +
              "".join("%16s" % format(find(c, needle), ",") for c in profiles))
    print("%-36s" % "plans made" +
          "".join("%16s" % plans(p) for p in paths))
    for p, original in zip(paths, sys.argv[1:]):
        if p != original:
            os.remove(p)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where each live SST of a closed RocksDB database was built, next to the
level it is on now and its filter's bits per key: for a failed filter check
of stress/stress.sh (check_filters.py), to tell a file moved down or up whole
(keeping the filter of the level it was built for) from one built where it
is.

Usage: file_origins.py --ldb=LDB --sst_dump=SST_DUMP --db=DB [--json=FILE]

Reads the live files per level and their table properties as
check_filters.py does, and RocksDB's info logs in DB (LOG and LOG.old.*, one
per DB::Open, oldest first): each table_file_creation event names its job,
and the job's flush_started or compaction_finished event (output_level) the
level the file was built for; "Moving #N to level-K" (9.x) and "Moved #N
to level-K" (11.x) lines are trivial moves, and a version edit logged whole
(ReFitLevel, CompactRange with change_level, at DEBUG level, which
db_stress's info log has) that deletes and adds one file number moves it.
A file whose history fell in the tail of a log that a kill cut short (the
info log is buffered) shows "?". A logged edit is cut at the first NUL
byte of a key (db_stress's keys have them): a file it deletes with no
AddFile left shows "from L<n>". Files built before the
oldest info log kept (db_crashtest.py's runs keep them all unless the
database was destroyed) show "?".
"""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sst_facts  # noqa: E402


def info_logs(db):
    logs = []
    for path in glob.glob(os.path.join(db, "LOG.old.*")):
        m = re.search(r"LOG\.old\.(\d+)$", path)
        if m:
            logs.append((int(m.group(1)), path))
    logs.sort()
    paths = [p for _, p in logs]
    if os.path.exists(os.path.join(db, "LOG")):
        paths.append(os.path.join(db, "LOG"))
    return paths


def origins(db):
    """{file number: {"built": level or None, "how": str, "log": name,
    "moves": [level, ...]}} from the info logs, later logs overriding."""
    out = {}
    for path in info_logs(db):
        jobs, created = {}, []
        edit = None  # a version edit logged whole: {number: [del, add]}

        def moved(number, level):
            out.setdefault(number, {"built": None, "how": "?", "moves": []})
            out[number]["moves"].append(level)

        with open(path, errors="replace") as f:
            for line in f:
                # Trivial moves: "Moving #N to level-K" (9.x) or "Moved #N
                # to level-K" (11.x), one line per file.
                m = re.search(r"\] Mov(?:ing|ed) #(\d+) to level-(\d+) ", line)
                if m:
                    moved(int(m.group(1)), int(m.group(2)))
                    continue
                # ReFitLevel (CompactRange with change_level) logs its edit
                # at DEBUG level: DeleteFile and AddFile of one number.
                if line.startswith("VersionEdit {"):
                    edit, cut = {}, False
                    continue
                if edit is not None:
                    m = re.match(r"\s+(DeleteFile|AddFile): (\d+) (\d+)", line)
                    if m:
                        slot = 0 if m.group(1) == "DeleteFile" else 1
                        edit.setdefault(int(m.group(3)), [None, None])[slot] = int(m.group(2))
                        cut = cut or line.rstrip("\n").endswith("'")
                        continue
                    if line.startswith("}") or re.match(r"\d{4}/\d\d/\d\d-", line):
                        for number, (gone, added) in edit.items():
                            if gone is not None and added is not None and gone != added:
                                moved(number, added)
                            elif gone is not None and added is None and cut:
                                # The edit's text stops at the first key's
                                # NUL byte: its AddFiles are lost, but a file
                                # deleted by a refit is moved, not gone.
                                moved(number, "from L%d" % gone)
                        edit = None
                        if line.startswith("}"):
                            continue
                i = line.find("EVENT_LOG_v1 ")
                if i < 0:
                    continue
                try:
                    ev = json.loads(line[i + len("EVENT_LOG_v1 "):])
                except ValueError:
                    continue
                kind = ev.get("event")
                job = ev.get("job")
                if kind == "flush_started":
                    jobs[job] = ("flush", 0)
                elif kind == "compaction_started":
                    jobs.setdefault(job, ("compaction", None))
                elif kind == "compaction_finished":
                    jobs[job] = ("compaction", ev.get("output_level"))
                elif kind == "table_file_creation":
                    # A file created again (a destroyed database reuses
                    # numbers) takes its latest history.
                    number = ev.get("file_number")
                    out[number] = {"built": None, "how": "?",
                                   "log": os.path.basename(path), "moves": []}
                    created.append((number, job))
        # Jobs are numbered per DB::Open, that is per info log.
        for number, job in created:
            how, level = jobs.get(job, ("job %s?" % job, None))
            out[number]["built"], out[number]["how"] = level, how
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ldb", required=True)
    ap.add_argument("--sst_dump", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    cfs = sst_facts.live_files(args.ldb, args.db)
    tables = sst_facts.table_properties(args.sst_dump, args.db)
    born = origins(args.db)
    report = []
    for cf, levels in sorted(cfs.items()):
        print("column family '%s':" % cf)
        print("  now   file    entries  bits/key  built  how          moves")
        for level in sorted(levels):
            for number in levels[level]:
                props = tables.get("%06d.sst" % number, {})
                entries = props.get("entries", 0)
                fe = props.get("num_filter_entries", 0)
                bits = 8.0 * props.get("filter_size", 0) / fe if fe else 0.0
                o = born.get(number, {"built": None, "how": "?", "moves": []})
                built = "?" if o["built"] is None else "L%d" % o["built"]
                print("  L%-4d %6d %9d %9.3f  %-5s  %-11s  %s"
                      % (level, number, entries, bits, built, o["how"][:11],
                         ",".join(m if isinstance(m, str) else "L%d" % m
                                  for m in o["moves"]) or "-"))
                report.append({"column_family": cf, "level": level,
                               "file": number, "entries": entries,
                               "bits_per_key": round(bits, 3),
                               "built_level": o["built"], "how": o["how"],
                               "moves": o["moves"]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
